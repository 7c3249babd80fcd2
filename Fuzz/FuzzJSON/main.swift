// libFuzzer target: the JSON reader (strict and lenient), then writing back what it read; and
// the node view (over the scanner's tape for strict documents) against the reader: both accept
// the same documents and copy out the same values, or the target stops.
import Foundation
import PFCore
import PFFuzzSupport
import PFJSON

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzJSON(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzDriver.data(bytes, count)
    for mode in [JSONReader.Mode.strict, .lenient] {
        let reader = JSONReader(options: .init(mode: mode, limits: FuzzDriver.limits))
        let read = try? reader.read(data)
        let viewed = try? reader.withDocument(data) { root throws(PFError) in try root.value() }
        if read != viewed {
            fatalError("node view and reader disagree (\(mode)): read \(String(describing: read)), view \(String(describing: viewed))")
        }
        guard let value = read else { continue }
        FuzzDriver.exercise(value)
        _ = try? JSONWriter().write(value)
    }
    return 0
}

FuzzDriver.main(fuzzJSON)
