import Foundation
import OrderedCollections
import PFCore
import PFFormats
import PFKeyedArchive
import Testing

@testable import PFDiff

/// Random object graphs with sharing and cycles, through real keyed archives.
@Suite struct GraphPropertyTests {
    /// A random graph: nodes with a scalar and edges to other nodes (shared, cyclic or not).
    struct Graph: Sendable, CustomStringConvertible {
        var values: [Int64]
        var edges: [[Int]]
        var description: String { "values \(values) edges \(edges)" }

        static func random(using rng: inout some RandomNumberGenerator) -> Graph {
            let n = Int.random(in: 1...7, using: &rng)
            var g = Graph(values: (0..<n).map { _ in Int64.random(in: 0...3, using: &rng) }, edges: [])
            g.edges = (0..<n).map { _ in (0..<Int.random(in: 0...2, using: &rng)).map { _ in Int.random(in: 0..<n, using: &rng) } }
            return g
        }

        /// A small change: a value, or one edge retargeted, added or removed.
        func mutated(using rng: inout some RandomNumberGenerator) -> Graph {
            var g = self
            let node = Int.random(in: 0..<values.count, using: &rng)
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: g.values[node] += 1
            case 1: g.edges[node].append(Int.random(in: 0..<values.count, using: &rng))
            default:
                if g.edges[node].isEmpty { g.values[node] -= 1 } else { g.edges[node][Int.random(in: 0..<g.edges[node].count, using: &rng)] = Int.random(in: 0..<values.count, using: &rng) }
            }
            return g
        }

        /// The `$id`/`$ref` JSON shape, rendered from node 0 in document order.
        var shape: PFValue {
            var incoming = [Int](repeating: 0, count: values.count)
            var seen = Set<Int>()
            var stack = [0]
            incoming[0] = 1
            while let n = stack.popLast() {
                guard seen.insert(n).inserted else { continue }
                for m in edges[n] { incoming[m] += 1; stack.append(m) }
            }
            var ids: [Int: Int] = [:]
            var next = 1
            func render(_ n: Int) -> PFValue {
                if let id = ids[n] { return ["$ref": .int(Int64(id))] }
                var members: OrderedDictionary<String, PFValue> = ["$class": "Node"]
                if incoming[n] > 1 { ids[n] = next; members["$id"] = .int(Int64(next)); next += 1 }
                members["v"] = .int(values[n])
                members["links"] = ["$class": "NSArray", "NS.objects": .array(edges[n].map(render))]
                return .dictionary(members)
            }
            return render(0)
        }
    }

    static var graphOptions: DiffOptions {
        var o = DiffOptions()
        o.graph = true
        return o
    }

    static func throughArchive(_ shape: PFValue, container: KeyedArchiveContainer = .bplist) throws -> PFValue {
        try DiffInput.read(FormatIO.write(shape, as: .keyed, options: .init(keyedContainer: container))).value
    }

    @Test func archivesOfRandomGraphsRoundTripWithoutDifferences() throws {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<150 {
            let g = Graph.random(using: &rng)
            let a = try Self.throughArchive(g.shape)
            let b = try Self.throughArchive(a, container: .xmlplist)
            let result = ValueDiff.compare(a, b, options: Self.graphOptions)
            #expect(result.isEmpty, "\(g): \(result.differences.map(\.description))")
        }
    }

    @Test func patchTurnsOneRandomGraphIntoAnother() throws {
        var rng = SystemRandomNumberGenerator()
        var nonEmpty = 0
        for _ in 0..<200 {
            let g = Graph.random(using: &rng)
            let h = g.mutated(using: &rng)
            let a = try Self.throughArchive(g.shape), b = try Self.throughArchive(h.shape)
            let result = ValueDiff.compare(a, b, options: Self.graphOptions)
            if !result.isEmpty { nonEmpty += 1 }
            let patched = try result.patch.apply(to: a)
            let after = ValueDiff.compare(patched, b, options: Self.graphOptions)
            #expect(after.isEmpty, "\(g) → \(h): \(after.differences.map(\.description)) patch \(result.patch.jsonValue)")
            // The patched shape is itself a valid graph: it writes and reads as an archive.
            if after.isEmpty {
                let reread = try Self.throughArchive(patched)
                #expect(ValueDiff.compare(reread, b, options: Self.graphOptions).isEmpty, "\(g) → \(h)")
            }
        }
        #expect(nonEmpty > 50)
    }
}
