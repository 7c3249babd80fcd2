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

/// `CBORReader.walk` with a tiny threshold against the whole read (errors word for word).
func fuzzWalk(_ data: Data) {
    let reader = CBORReader(options: .init(limits: FuzzDriver.limits))
    FuzzDriver.checkWalk("CBOR walk", sameMessage: true, read: { () throws(PFError) in try reader.read(data) }) { visit throws(PFError) in
        try reader.walk(data, threshold: 2, visit: visit)
    }
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
