// libFuzzer target: the CBOR reader and its item summary, then the canonical writer; and the
// same bytes as a CBOR sequence (`cborseq`): read whole and fed in chunks (1 byte, 7 bytes,
// two pieces) they give the same items or the same error, and the items written back as a
// sequence read back equal.
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
    return 0
}

func fuzzSequence(_ data: Data) {
    let limits = FuzzDriver.limits
    let whole = Result { () throws(PFError) -> [PFValue] in try CBORSequence.read(data, limits: limits) }
    let bytes = [UInt8](data)
    let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
    for chunking in [[1], [7], [split, bytes.count]] {
        let fed = Result { () throws(PFError) -> [PFValue] in
            var reader = CBORSequence.Reader(limits: limits)
            var values: [PFValue] = []
            var start = 0
            var step = 0
            while start < bytes.count {
                let size = max(1, chunking[step % chunking.count])
                step += 1
                let end = min(bytes.count, start + size)
                try bytes[start..<end].withBytes { raw throws(PFError) in
                    try reader.feed(raw) { value, _ throws(PFError) in values.append(value) }
                }
                start = end
            }
            try reader.finish { value, _ throws(PFError) in values.append(value) }
            return values
        }
        if fed != whole {
            fatalError("CBOR sequence fed in chunks of \(chunking) and read whole disagree: \(fed) vs \(whole)")
        }
    }
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
