// libFuzzer target: the XML property list reader, then the writer, and the walk by large
// containers against the whole read.
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
    fuzzWalk(data)
    return 0
}

/// `XMLPlistReader.walk` with a small threshold (bytes of text; the first byte picks it, from
/// 0 to 63): its events, put back together, are the value the whole read gives, and a document
/// the whole read refuses fails with the same error before any event (or the walk declines it).
func fuzzWalk(_ data: Data) {
    let reader = XMLPlistReader(options: .init(limits: FuzzDriver.limits))
    FuzzDriver.checkWalk("XML property list walk", sameMessage: true, read: { () throws(PFError) in try reader.read(data) }) { visit throws(PFError) in
        try reader.walk(data, threshold: Int(data.first ?? 0) & 63, visit: visit)
    }
}

FuzzDriver.main(fuzzXMLPlist)
