// libFuzzer target: the CBOR reader and its item summary, then the canonical writer.
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
    return 0
}

FuzzDriver.main(fuzzCBOR)
