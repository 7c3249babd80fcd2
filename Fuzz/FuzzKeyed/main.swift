// libFuzzer target: keyed archives (any container) through the graph decoder, its JSON and
// DOT renderings, and the typed unarchiver.
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
    if let value = try? KeyedUnarchiver.unarchivedObject(ofType: PFValue.self, from: data, options: .init(limits: limits)) {
        FuzzDriver.exercise(value)
    }
    return 0
}

FuzzDriver.main(fuzzKeyed)
