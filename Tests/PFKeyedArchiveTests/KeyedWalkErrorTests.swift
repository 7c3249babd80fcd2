import Foundation
import PFCore
import PFKeyedArchive
import PFTestSupport
import Testing

/// A damaged archive that breaks several rules fails the walk by large containers (what
/// `convert` streams a keyed archive with) with the whole read's error, whichever rule the walk
/// met first: FuzzKeyed found one (a cycle under `$top` and a wrong `$archiver`, reachable once
/// bplist keys with bytes above 0x7F were read) where the two routes named different rules.
@Suite struct KeyedWalkErrorTests {
    @Test func theWalkFailsWithTheWholeReadsError() throws {
        let data = try Fixtures.data(Fixtures.root.appendingPathComponent("regressions/keyed/top-cycle-and-wrong-archiver-walk-error-92b13aa9.bplist"))
        let whole = #expect(throws: PFError.self) { _ = try KeyedArchive.decodeGraph(data).jsonValue(limits: .default) }
        for threshold in [0, 1, 256] {
            let walked = #expect(throws: PFError.self) { _ = try KeyedArchive.walk(data, threshold: threshold) { _ in } }
            #expect(walked?.message == whole?.message, "threshold \(threshold)")
        }
        #expect(whole?.message.contains("$archiver") == true, "\(whole?.message ?? "")")
    }
}
