// libFuzzer target: the JSON reader (strict and lenient), one-thread against parallel (the
// document split into 2 and into up to 10,000 batches: the same value or error), then writing
// back what it read, one-thread against parallel (the same bytes or error), and reading that
// again (it must give the same value); and
// the node view (over the scanner's tape for strict documents) against the reader: both accept
// the same documents and copy out the same values, or the target stops. The same bytes as
// JSON Lines: read whole and fed in chunks (1 byte, 7 bytes, two pieces) they give the same
// values or the same error, and the values written back as JSON Lines read back equal. And
// the large-document walk (every container over 16 bytes walked member by member) rebuilds
// the value the reader reads, or declines, or fails where the reader fails.
import Foundation
import PFCore
import PFFuzzSupport

// Testable (fuzz builds are debug builds): the parallel read's threshold and batch count.
@testable import PFJSON

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzJSON(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzDriver.data(bytes, count)
    fuzzJSONLines(data)
    fuzzLargeDocument(data)
    for mode in [JSONReader.Mode.strict, .lenient] {
        var oneThread = JSONReader.Options(mode: mode, limits: FuzzDriver.limits)
        oneThread.parallel = false
        let reader = JSONReader(options: oneThread)
        let serial = Result { () throws(PFError) -> PFValue in try reader.read(data) }
        for batches in [2, 10_000] {
            var options = JSONReader.Options(mode: mode, limits: FuzzDriver.limits)
            options.parallelThreshold = 0
            options.parallelBatches = batches
            options.engine = .jsonC  // the parallel read is json-c's: held to the native engine
            let parallel = Result { () throws(PFError) -> PFValue in try JSONReader(options: options).read(data) }
            if parallel != serial {
                fatalError("parallel and one-thread reads disagree (\(mode), \(batches) batches): \(parallel) vs \(serial)")
            }
        }
        var jsonC = oneThread
        jsonC.engine = .jsonC
        let oracle = Result { () throws(PFError) -> PFValue in try JSONReader(options: jsonC).read(data) }
        if oracle != serial {
            fatalError("native and json-c engines disagree (\(mode)): \(serial) vs \(oracle)")
        }
        let read = try? serial.get()
        let viewed = try? reader.withDocument(data) { root throws(PFError) in try root.value() }
        if read != viewed {
            fatalError("node view and reader disagree (\(mode)): read \(String(describing: read)), view \(String(describing: viewed))")
        }
        guard let value = read else { continue }
        FuzzDriver.exercise(value)
        // What was read writes as strict JSON that reads back to the same value (NaN and the
        // infinities, which lenient mode reads, have no JSON text: the write refuses them).
        // Text longer than the input (escapes of raw control characters) may exceed a limit.
        var oneThreadWrite = JSONWriter.Options()
        oneThreadWrite.parallel = false
        let written = Result { () throws(PFError) -> Data in try JSONWriter(options: oneThreadWrite).write(value) }
        // The parallel write (the value cut into batches of weight 1 and 5) gives the same
        // bytes or error.
        for weight in [1, 5] {
            var options = JSONWriter.Options(pretty: weight == 5)
            options.parallelThreshold = 0
            options.parallelBatchWeight = weight
            var expected = written
            if weight == 5 {
                var pretty = oneThreadWrite
                pretty.pretty = true
                expected = Result { () throws(PFError) -> Data in try JSONWriter(options: pretty).write(value) }
            }
            let parallel = Result { () throws(PFError) -> Data in try JSONWriter(options: options).write(value) }
            if parallel != expected {
                fatalError("parallel and one-thread writes disagree (\(mode), weight \(weight)) for \(value)")
            }
        }
        guard let text = try? written.get() else { continue }
        let strict = JSONReader(options: .init(limits: FuzzDriver.limits))
        do {
            let back = try strict.read(text)
            if back != value {
                fatalError("written text reads back differently (\(mode)): \(value) wrote \(String(decoding: text, as: UTF8.self))")
            }
        } catch where error.code == .limitExceeded {
            continue
        } catch {
            fatalError("written text does not read back (\(mode)): \(error) for \(String(decoding: text, as: UTF8.self))")
        }
    }
    return 0
}

/// `JSONLargeDocument`: the events of a walk with a tiny threshold, put back together, are
/// the value the whole read gives; a document the whole read refuses is declined or fails.
func fuzzLargeDocument(_ data: Data) {
    let options = JSONReader.Options(limits: FuzzDriver.limits)
    let whole = Result { () throws(PFError) -> PFValue in try JSONReader(options: options).read(data) }
    data.withUnsafeBytes { raw in
        guard let document = JSONLargeDocument.scan(raw, options: options, threshold: 16) else { return }
        var rebuilder = DocumentRebuilder()
        let walked = Result { () throws(PFError) in try document.walk { event throws(PFError) in rebuilder.take(event) } }
        FuzzDriver.checkWalk(whole: whole, walked: walked, rebuilt: rebuilder.root, "large-document walk")
    }
}

/// JSON Lines (`jsonl`): the record reader against itself fed in chunks, and a write-back.
func fuzzJSONLines(_ data: Data) {
    let reader = JSONReader(options: .init(limits: FuzzDriver.limits))
    let whole = Result { () throws(PFError) -> [PFValue] in try JSONLines.Reader.read(data, reader: reader) }
    FuzzDriver.checkChunkedFeeds(
        [UInt8](data), against: whole, "JSON Lines", make: { JSONLines.Reader(reader: reader) },
        feed: { lines, raw, values throws(PFError) in try lines.feed(raw) { value, _ throws(PFError) in values.append(value) } },
        finish: { lines, values throws(PFError) in try lines.finish { value, _ throws(PFError) in values.append(value) } })
    guard let values = try? whole.get() else { return }
    values.forEach(FuzzDriver.exercise)
    guard let text = try? JSONLines.Writer().write(values) else { return }
    do {
        let back = try JSONLines.Reader.read(text, reader: reader)
        if back != values { fatalError("JSON Lines written back read differently: \(values) wrote \(String(decoding: text, as: UTF8.self))") }
    } catch where error.code == .limitExceeded {
        return
    } catch {
        fatalError("JSON Lines written back do not read: \(error) for \(String(decoding: text, as: UTF8.self))")
    }
}

FuzzDriver.main(fuzzJSON)
