// libFuzzer target: keyed archives (any container) through the graph decoder, its JSON and
// DOT renderings, and the typed unarchiver; the walk by large containers (what convert
// streams a keyed archive that is not of records with) is held to the whole rendering.
import Foundation
import PFCore
import PFFuzzSupport
import PFKeyedArchive

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzKeyed(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzDriver.data(bytes, count)
    let limits = FuzzDriver.limits
    if let graph = try? KeyedArchive.decodeGraph(data, options: .init(limits: limits)) {
        if let json = try? graph.jsonValue(limits: limits) { FuzzDriver.exercise(json) }
        _ = graph.dotDescription().utf8.count
        _ = try? KeyedArchive.archive(graph, limits: limits)
    }
    // Thresholds 0 and 1 walk nearly every container (with their `$id` wrappers and class
    // members); 256 is the default's shape (a thin root's containers walked, others whole).
    for threshold in [0, 1, 256] {
        FuzzDriver.checkWalk(
            "keyed archive walk (threshold \(threshold))", sameMessage: true,
            read: { () throws(PFError) in try KeyedArchive.decodeGraph(data, options: .init(limits: limits)).jsonValue(limits: limits) },
            walk: { visit throws(PFError) in
                try KeyedArchive.walk(data, options: .init(limits: limits), threshold: threshold, visit: visit)
            })
    }
    if let value = try? KeyedUnarchiver.unarchivedObject(ofType: PFValue.self, from: data, options: .init(limits: limits)) {
        FuzzDriver.exercise(value)
    }
    return 0
}

FuzzDriver.main(fuzzKeyed)
