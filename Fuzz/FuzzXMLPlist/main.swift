// libFuzzer target: the XML property list reader, then the writer.
import Foundation
import PFCore
import PFFuzzSupport
import PFPropertyList

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzXMLPlist(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzDriver.data(bytes, count)
    if let value = try? XMLPlistReader(options: .init(limits: FuzzDriver.limits)).read(data) {
        FuzzDriver.exercise(value)
        _ = try? XMLPlistWriter().write(value)
    }
    return 0
}

FuzzDriver.main(fuzzXMLPlist)
