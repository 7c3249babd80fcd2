// libFuzzer target: the JSON reader (strict and lenient), then writing back what it read.
import Foundation
import PFCore
import PFFuzzSupport
import PFJSON

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzJSON(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzDriver.data(bytes, count)
    for mode in [JSONReader.Mode.strict, .lenient] {
        guard let value = try? JSONReader(options: .init(mode: mode, limits: FuzzDriver.limits)).read(data) else { continue }
        FuzzDriver.exercise(value)
        _ = try? JSONWriter().write(value)
    }
    return 0
}

FuzzDriver.main(fuzzJSON)
