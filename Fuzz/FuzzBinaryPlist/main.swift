// libFuzzer target: the binary property list reader and its trailer summary, then the writer,
// and the walk by large containers against the whole read.
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
    fuzzWalk(data)
    return 0
}

/// `BinaryPlistReader.walk` with a tiny threshold against the whole read.
func fuzzWalk(_ data: Data) {
    let reader = BinaryPlistReader(options: .init(limits: FuzzDriver.limits))
    FuzzDriver.checkWalk("binary property list walk", read: { () throws(PFError) in try reader.read(data) }) { visit throws(PFError) in
        try reader.walk(data, threshold: 2, visit: visit)
    }
}

FuzzDriver.main(fuzzBinaryPlist)
