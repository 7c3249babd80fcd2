// libFuzzer target: the JSON reader (strict and lenient), then writing back what it read and
// reading that again (it must give the same value); and
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
        // What was read writes as strict JSON that reads back to the same value (NaN and the
        // infinities, which lenient mode reads, have no JSON text: the write refuses them).
        // Text longer than the input (escapes of raw control characters) may exceed a limit.
        guard let text = try? JSONWriter().write(value) else { continue }
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

FuzzDriver.main(fuzzJSON)
