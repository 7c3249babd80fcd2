// libFuzzer target: the binary property list reader and its trailer summary, then the writer.
import Foundation
import PFCore
import PFFuzzSupport
import PFPropertyList

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzBinaryPlist(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzDriver.data(bytes, count)
    _ = try? BinaryPlistReader.info(data)
    if let value = try? BinaryPlistReader(options: .init(limits: FuzzDriver.limits)).read(data) {
        FuzzDriver.exercise(value)
        _ = try? BinaryPlistWriter().write(value)
    }
    return 0
}

FuzzDriver.main(fuzzBinaryPlist)
