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
    let whole = Result { () throws(PFError) -> PFValue in try reader.read(data) }
    var rebuilder = DocumentRebuilder()
    var declined = false
    let walked = Result { () throws(PFError) in
        declined = try !reader.walk(data, threshold: Int(data.first ?? 0) & 63) { event throws(PFError) in rebuilder.take(event) }
    }
    if declined { return }
    if case .failure = whole, rebuilder.root != nil { fatalError("the walk handed out events for a document the reader refuses") }
    if case .failure(let error) = whole, case .failure(let walkError) = walked, error.description != walkError.description {
        fatalError("the XML property list walk fails with \(walkError), the reader with \(error)")
    }
    FuzzDriver.checkWalk(whole: whole, walked: walked, rebuilt: rebuilder.root, "XML property list walk")
}

FuzzDriver.main(fuzzXMLPlist)
