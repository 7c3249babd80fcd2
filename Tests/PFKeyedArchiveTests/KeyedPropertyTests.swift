import Foundation
import OrderedCollections
import PFCore
import PFKeyedArchive
import PFTestSupport
import PropertyBased
import Testing

/// A node of a random object graph: a value, edges decoded eagerly when they point forward
/// in creation order... no: every edge is decoded with decodeReference, so any shape works.
final class GraphNode: ArchiveCoding {
    static let archiveClassName = "GraphNode"
    var id: Int
    var edges: [String: GraphNode] = [:]

    init(id: Int) { self.id = id }

    func encode(with coder: KeyedArchiver) throws {
        coder.encode(id, forKey: "id")
        try coder.encode(edges.keys.sorted(), forKey: "edgeKeys")
        for key in edges.keys.sorted() { try coder.encode(edges[key], forKey: key) }
    }

    init(from coder: KeyedUnarchiver) throws {
        id = try coder.decode(Int.self, forKey: "id")
        for key in try coder.decode([String].self, forKey: "edgeKeys") {
            try coder.decodeReference(GraphNode.self, forKey: key) { [unowned self] in self.edges[key] = $0 }
        }
    }
}

/// A random graph: n nodes, random labelled edges (so some nodes are shared, some edges
/// close cycles), everything reachable from node 0.
struct RandomGraph: CustomStringConvertible {
    var count: Int
    var edges: [(from: Int, label: String, to: Int)]

    var description: String { "\(count) nodes: " + edges.map { "\($0.from)-\($0.label)->\($0.to)" }.joined(separator: " ") }

    static let generator = Generator<RandomGraph, Shrink.None<RandomGraph>>(run: { rng in
        let n = Int.random(in: 1...12, using: &rng)
        var edges: [(Int, String, Int)] = []
        for i in 1..<max(n, 1) { edges.append((Int.random(in: 0..<i, using: &rng), "t\(i)", i)) }  // a spanning tree
        for e in 0..<Int.random(in: 0...(2 * n), using: &rng) {  // extra edges: sharing and cycles
            edges.append((Int.random(in: 0..<n, using: &rng), "x\(e)", Int.random(in: 0..<n, using: &rng)))
        }
        return RandomGraph(count: n, edges: edges)
    })

    func build() -> [GraphNode] {
        let nodes = (0..<count).map(GraphNode.init)
        for e in edges { nodes[e.from].edges[e.label] = nodes[e.to] }
        return nodes
    }

    /// Breaks the cycles so the instances can be freed.
    static func unlink(_ nodes: [GraphNode]) { nodes.forEach { $0.edges = [:] } }
}

/// Codable values for the bridge.
struct Inner: Codable, Equatable {
    var label: String
    var score: Double?
}

struct Outer: Codable, Equatable {
    var name: String
    var count: Int
    var flags: [Bool]
    var matrix: [[Int]]
    var table: [String: Inner]
    var optional: Inner?
    var when: Date
    var bytes: Data
    var nickname: String?
}

final class SharedBox: Codable {
    var value: Int
    init(value: Int) { self.value = value }
}

struct TwoRefs: Codable {
    var first: SharedBox
    var second: SharedBox
}

@Suite struct KeyedPropertyTests {
    @Test func randomObjectGraphsKeepIdentity() async {
        await propertyCheck(count: 100, input: RandomGraph.generator) { graph in
            let nodes = graph.build()
            defer { RandomGraph.unlink(nodes) }
            do {
                let data = try KeyedArchiver.archivedData(withRootObject: nodes[0])
                let root = try KeyedUnarchiver.unarchivedObject(ofType: GraphNode.self, from: data, registry: ArchiveClassRegistry([GraphNode.self]))
                // Collect the decoded nodes by id.
                var decoded: [Int: GraphNode] = [:]
                var stack = [root]
                while let node = stack.popLast() {
                    if let known = decoded[node.id] { #expect(known === node, "one instance per id"); continue }
                    decoded[node.id] = node
                    stack.append(contentsOf: node.edges.values)
                }
                defer { RandomGraph.unlink(Array(decoded.values)) }
                #expect(decoded.count == graph.count, "\(graph)")
                // Same edges, and two edges share a target after decoding iff they did before.
                for e in graph.edges {
                    #expect(decoded[e.from]?.edges[e.label] === decoded[e.to], "\(graph)")
                }
            } catch {
                Issue.record("\(error) for \(graph)")
            }
        }
    }

    @Test func randomValueTreesRoundTripAsPFValue() async {
        var shape = ValueShape()
        shape.uid = false
        shape.nonFiniteDoubles = false
        await propertyCheck(count: 100, input: ValueGen.document(shape)) { value in
            do {
                // Binary only: random strings hold control characters, which XML 1.0 cannot
                // carry (the XML writer refuses them with `unrepresentable`, as it should).
                let data = try KeyedArchiver.archivedData(withRootObject: value)
                let back = try KeyedUnarchiver.unarchivedObject(ofType: PFValue.self, from: data)
                #expect(back == Self.escapedKeys(value))
            } catch {
                Issue.record("\(error) for \(value)")
            }
        }
    }

    @Test func randomValueTreesRoundTripThroughTheGraph() async {
        var shape = ValueShape()
        shape.uid = false
        await propertyCheck(count: 100, input: ValueGen.document(shape)) { value in
            do {
                // jsonValue escapes $-keys, so feed it what it would produce.
                let json = Self.escapedKeys(value)
                let graph = try KeyedGraph(json: json)
                #expect(try graph.jsonValue() == json)
                let back = try KeyedArchive.decodeGraph(KeyedArchive.archive(graph, container: .bplist)).jsonValue()
                #expect(back == json)
            } catch {
                Issue.record("\(error) for \(value)")
            }
        }
    }

    /// What jsonValue makes of a dictionary key: one more `$` on keys that begin with `$`.
    static func escapedKeys(_ value: PFValue) -> PFValue {
        switch value {
        case .array(let items): return .array(items.map(escapedKeys))
        case .dictionary(let members):
            return .dictionary(OrderedDictionary(uniqueKeysWithValues: members.map { (KeyedGraph.escapeForTests($0.key), escapedKeys($0.value)) }))
        default: return value
        }
    }

    static func string(_ rng: inout any SeededRandomNumberGenerator) -> String {
        ["", "a", "$dollar", "héllo ☃", "line\nbreak", "😀"].randomElement(using: &rng)!
    }

    static func inner(_ rng: inout any SeededRandomNumberGenerator) -> Inner {
        Inner(label: string(&rng), score: Bool.random(using: &rng) ? Double(Int.random(in: -100...100, using: &rng)) / 4 : nil)
    }

    static let outerGenerator = Generator<Outer, Shrink.None<Outer>>(run: { rng in
        var flags: [Bool] = []
        for _ in 0..<Int.random(in: 0...4, using: &rng) { flags.append(Bool.random(using: &rng)) }
        var matrix: [[Int]] = []
        for _ in 0..<Int.random(in: 0...3, using: &rng) {
            var row: [Int] = []
            for _ in 0..<Int.random(in: 0...3, using: &rng) { row.append(Int.random(in: -1000...1000, using: &rng)) }
            matrix.append(row)
        }
        var table: [String: Inner] = [:]
        for k in 0..<Int.random(in: 0...3, using: &rng) { table["k\(k)"] = inner(&rng) }
        var bytes = Data()
        for _ in 0..<Int.random(in: 0...8, using: &rng) { bytes.append(UInt8.random(in: 0...255, using: &rng)) }
        let name = string(&rng)
        let count = Int.random(in: Int.min...Int.max, using: &rng)
        let optional = Bool.random(using: &rng) ? inner(&rng) : nil
        let when = Date(timeIntervalSinceReferenceDate: Double(Int.random(in: -1_000_000_000...1_000_000_000, using: &rng)) / 8)
        let nickname = Bool.random(using: &rng) ? string(&rng) : nil
        return Outer(name: name, count: count, flags: flags, matrix: matrix, table: table, optional: optional, when: when, bytes: bytes, nickname: nickname)
    })

    @Test func codableBridgeRoundTripsRandomStructs() async {
        await propertyCheck(count: 100, input: Self.outerGenerator) { value in
            do {
                for container in [KeyedArchiveContainer.bplist, .xmlplist] {
                    let data = try KeyedArchiveEncoder(options: .init(container: container)).encode(value)
                    #expect(try KeyedArchiveDecoder().decode(Outer.self, from: data) == value)
                }
            } catch {
                Issue.record("\(error) for \(value)")
            }
        }
    }

    @Test func codableBridgeKeepsSharedClassInstances() throws {
        let box = SharedBox(value: 5)
        let data = try KeyedArchiveEncoder().encode(TwoRefs(first: box, second: box))
        let back = try KeyedArchiveDecoder().decode(TwoRefs.self, from: data)
        #expect(back.first === back.second && back.first.value == 5)
        let apart = try KeyedArchiveDecoder().decode(TwoRefs.self, from: KeyedArchiveEncoder().encode(TwoRefs(first: SharedBox(value: 1), second: SharedBox(value: 1))))
        #expect(apart.first !== apart.second)
    }

    @Test func codableBridgeErrorsNameTheCodingPath() throws {
        let data = try KeyedArchiveEncoder().encode(["outer": Inner(label: "x", score: 1)])
        struct Wrong: Decodable { var outer: [String: Int] }
        do {
            _ = try KeyedArchiveDecoder().decode(Wrong.self, from: data)
            Issue.record("decoded")
        } catch let DecodingError.keyNotFound(key, context) {
            Issue.record("unexpected keyNotFound \(key) \(context)")
        } catch let DecodingError.typeMismatch(_, context) {
            #expect(context.codingPath.map(\.stringValue).starts(with: ["outer"]), "\(context)")
            // The bridge's policy: the PFError rides along as the underlying error.
            let error = try #require(context.underlyingError as? PFError, "\(context)")
            #expect(error.format == .keyedArchive)
            #expect(error.path == PFKeyPath(codingPath: context.codingPath))
            let isExpected = if case .expected? = error.failure(as: KeyedArchiveFailure.self) { true } else { false }
            #expect(isExpected, "\(error)")
        }
    }

    @Test func codableBridgeEncodingErrorsCarryThePFError() throws {
        struct Nest: Encodable {
            var next: [Nest]
            static func deep(_ n: Int) -> Nest { n == 0 ? Nest(next: []) : Nest(next: [deep(n - 1)]) }
        }
        let encoder = KeyedArchiveEncoder(options: .init(limits: PFLimits(maxDepth: 4)))
        do {
            _ = try encoder.encode(Nest.deep(10))
            Issue.record("encoded")
        } catch let EncodingError.invalidValue(_, context) {
            let error = try #require(PFError(unwrapping: EncodingError.invalidValue(0, context)), "\(context)")
            #expect(error.failure(as: KeyedArchiveFailure.self) == .tooDeep(maxDepth: 4))
            #expect(error.code == .limitExceeded)
        }
    }
}

extension KeyedGraph {
    /// The key escaping jsonValue applies (one more `$` on `$`-keys).
    static func escapeForTests(_ key: String) -> String { key.hasPrefix("$") ? "$" + key : key }
}
