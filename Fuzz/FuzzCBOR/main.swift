// libFuzzer target: the CBOR reader and its item summary, then the canonical writer; and the
// same bytes as a CBOR sequence (`cborseq`): read whole and fed in chunks (1 byte, 7 bytes,
// two pieces) they give the same items or the same error, and the items written back as a
// sequence read back equal; and the walk by large containers against the whole read.
import Foundation
import PFCBOR
import PFCore
import PFFuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzCBOR(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzDriver.data(bytes, count)
    _ = try? CBORReader.info(data, limits: FuzzDriver.limits)
    if let value = try? CBORReader(options: .init(limits: FuzzDriver.limits)).read(data) {
        FuzzDriver.exercise(value)
        _ = try? CBORWriter(options: .init(canonical: true)).write(value)
    }
    fuzzSequence(data)
    fuzzWalk(data)
    return 0
}

/// `CBORReader.walk` with a tiny threshold: its events, put back together, are the value the
/// whole read gives, and a document the whole read refuses fails the check, with the same
/// error, before any event (or the walk declines it).
func fuzzWalk(_ data: Data) {
    let reader = CBORReader(options: .init(limits: FuzzDriver.limits))
    let whole = Result { () throws(PFError) -> PFValue in try reader.read(data) }
    var rebuilder = DocumentRebuilder()
    var declined = false
    let walked = Result { () throws(PFError) in
        declined = try !reader.walk(data, threshold: 2) { event throws(PFError) in rebuilder.take(event) }
    }
    if declined { return }
    if case .failure = whole, rebuilder.root != nil { fatalError("the walk handed out events for a document the reader refuses") }
    if case .failure(let error) = whole, case .failure(let walkError) = walked, error.description != walkError.description {
        fatalError("the CBOR walk fails with \(walkError), the reader with \(error)")
    }
    FuzzDriver.checkWalk(whole: whole, walked: walked, rebuilt: rebuilder.root, "CBOR walk")
}

func fuzzSequence(_ data: Data) {
    let limits = FuzzDriver.limits
    let whole = Result { () throws(PFError) -> [PFValue] in try CBORSequence.read(data, limits: limits) }
    FuzzDriver.checkChunkedFeeds(
        [UInt8](data), against: whole, "CBOR sequence", make: { CBORSequence.Reader(limits: limits) },
        feed: { reader, raw, values throws(PFError) in try reader.feed(raw) { value, _ throws(PFError) in values.append(value) } },
        finish: { reader, values throws(PFError) in try reader.finish { value, _ throws(PFError) in values.append(value) } })
    guard let values = try? whole.get() else { return }
    values.forEach(FuzzDriver.exercise)
    guard let written = try? CBORSequence.write(values) else { return }
    do {
        let back = try CBORSequence.read(written, limits: limits)
        if back != values { fatalError("a CBOR sequence written back reads differently: \(values)") }
    } catch where error.code == .limitExceeded {
        return
    } catch {
        fatalError("a CBOR sequence written back does not read: \(error) for \(values)")
    }
}

FuzzDriver.main(fuzzCBOR)
