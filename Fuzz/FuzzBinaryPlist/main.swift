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

/// `BinaryPlistReader.walk` with a tiny threshold: its events, put back together, are the
/// value the whole read gives, and a file the whole read refuses fails the check before any
/// event (or the walk declines it).
func fuzzWalk(_ data: Data) {
    let reader = BinaryPlistReader(options: .init(limits: FuzzDriver.limits))
    let whole = Result { () throws(PFError) -> PFValue in try reader.read(data) }
    var rebuilder = DocumentRebuilder()
    var declined = false
    let walked = Result { () throws(PFError) in
        declined = try !reader.walk(data, threshold: 2) { event throws(PFError) in rebuilder.take(event) }
    }
    if declined { return }
    if case .failure = whole, rebuilder.root != nil { fatalError("the walk handed out events for a file the reader refuses") }
    FuzzDriver.checkWalk(whole: whole, walked: walked, rebuilt: rebuilder.root, "binary property list walk")
}

FuzzDriver.main(fuzzBinaryPlist)
