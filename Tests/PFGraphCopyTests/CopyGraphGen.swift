import Foundation
import OrderedCollections
import PFGraphCopy
import PFKeyedArchive
import PropertyBased
import Testing

/// A random object graph for copy properties: `count` objects of class `Node` (each with an
/// `objectId` and an `id`), labelled to-one edges (a spanning tree from node 0 plus extra
/// edges: sharing and cycles), to-many `many` arrays (sometimes one array shared by two
/// objects), and Pointer dictionaries naming other nodes (as a Parse export stores them).
struct CopyGraphCase: CustomStringConvertible {
    var count: Int
    var edges: [(from: Int, label: String, to: Int)]
    var many: [(from: Int, to: [Int])]
    var sharedArrayOwners: [Int]
    var pointers: [(from: Int, to: Int)]
    var actions: [String: EdgeAction]
    var maxDepth: Int

    var description: String {
        "\(count) nodes; edges " + edges.map { "\($0.from)-\($0.label)->\($0.to)" }.joined(separator: " ")
            + "; many \(many); shared \(sharedArrayOwners); pointers \(pointers); actions \(actions.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.rawValue)" }); maxDepth \(maxDepth)"
    }

    static let labels = ["a", "b", "c", "d"]

    static let generator = Generator<CopyGraphCase, Shrink.None<CopyGraphCase>>(run: { rng in
        let n = Int.random(in: 1...14, using: &rng)
        var edges: [(Int, String, Int)] = []
        var used = Set<String>()
        func add(_ from: Int, _ to: Int, rng: inout any SeededRandomNumberGenerator) {
            for _ in 0..<4 {
                let label = labels.randomElement(using: &rng) ?? "a"
                if used.insert("\(from).\(label)").inserted {
                    edges.append((from, label, to))
                    return
                }
            }
        }
        for i in 1..<max(n, 1) { add(Int.random(in: 0..<i, using: &rng), i, rng: &rng) }
        for _ in 0..<Int.random(in: 0...(2 * n), using: &rng) {
            add(Int.random(in: 0..<n, using: &rng), Int.random(in: 0..<n, using: &rng), rng: &rng)
        }
        var many: [(Int, [Int])] = []
        for i in 0..<n where Bool.random(using: &rng) && Bool.random(using: &rng) {
            many.append((i, (0..<Int.random(in: 0...3, using: &rng)).map { _ in Int.random(in: 0..<n, using: &rng) }))
        }
        var shared: [Int] = []
        if n > 1, Bool.random(using: &rng) { shared = [Int.random(in: 0..<n, using: &rng), Int.random(in: 0..<n, using: &rng)] }
        let pointers = (0..<Int.random(in: 0...n, using: &rng)).map { _ in (Int.random(in: 0..<n, using: &rng), Int.random(in: 0..<n, using: &rng)) }
        var actions: [String: EdgeAction] = [:]
        let choices: [EdgeAction] = [.copy, .share, .omit, .conditional]
        for label in labels + ["many", "shared"] { actions[label] = choices.randomElement(using: &rng) ?? .copy }
        return CopyGraphCase(count: n, edges: edges, many: many, sharedArrayOwners: shared, pointers: pointers, actions: actions, maxDepth: Int.random(in: 0...4, using: &rng))
    })

    /// The graph: nodes 0..<count are the objects; arrays and Pointer dictionaries follow.
    func graph() -> KeyedGraph {
        var fields = (0..<count).map { i -> OrderedDictionary<String, KeyedGraph.Value> in
            ["objectId": .string("obj\(i)"), "id": .int(Int64(i))]
        }
        var extra: [KeyedGraph.Node] = []
        for e in edges { fields[e.from][e.label] = .node(e.to) }
        for m in many {
            extra.append(.array(className: nil, items: m.to.map { .node($0) }))
            fields[m.from]["many"] = .node(count + extra.count - 1)
        }
        if sharedArrayOwners.count == 2 {
            extra.append(.array(className: nil, items: [.node(0)]))
            for owner in sharedArrayOwners { fields[owner]["shared"] = .node(count + extra.count - 1) }
        }
        for (k, p) in pointers.enumerated() {
            extra.append(.dictionary(className: nil, keys: ["__type", "className", "objectId"].map { .string($0) },
                                     values: [.string("Pointer"), .string("Node"), .string("obj\(p.to)")]))
            fields[p.from]["ptr\(k)"] = .node(count + extra.count - 1)
        }
        let objects = fields.map { KeyedGraph.Node.object(KeyedGraph.Object(archivedClass: ArchivedClass(name: "Node"), fields: $0)) }
        return KeyedGraph(nodes: objects + extra, top: ["root": .node(0)])
    }

    /// Shortest distances from node 0 over the given labels (to-one and `many`).
    func distances(through labels: Set<String>) -> [Int: Int] {
        var out: [Int: Int] = [0: 0]
        var queue = [0]
        var head = 0
        while head < queue.count {
            let node = queue[head]
            head += 1
            var next: [Int] = edges.filter { $0.from == node && labels.contains($0.label) }.map(\.to)
            if labels.contains("many") { next += many.filter { $0.from == node }.flatMap(\.to) }
            if labels.contains("shared"), sharedArrayOwners.count == 2, sharedArrayOwners.contains(node) { next.append(0) }
            for t in next where out[t] == nil {
                out[t] = (out[node] ?? 0) + 1
                queue.append(t)
            }
        }
        return out
    }
}

extension KeyedGraph {
    /// Every node index reachable from a value.
    func reachable(from start: Value) -> Set<Int> {
        var seen = Set<Int>()
        var stack: [Value] = [start]
        while let value = stack.popLast() {
            guard case .node(let i) = value, nodes.indices.contains(i), seen.insert(i).inserted else { continue }
            switch nodes[i] {
            case .object(let o): stack.append(contentsOf: o.fields.values)
            case .array(_, let items), .set(_, let items), .orderedSet(_, let items): stack.append(contentsOf: items)
            case .dictionary(_, let keys, let values): stack.append(contentsOf: keys + values)
            }
        }
        return seen
    }

    func fields(_ index: Int) -> OrderedDictionary<String, Value> {
        if case .object(let o) = nodes[index] { return o.fields }
        return [:]
    }

    func items(_ value: Value?) -> [Value]? {
        guard case .node(let i)? = value, nodes.indices.contains(i), case .array(_, let items) = nodes[i] else { return nil }
        return items
    }
}
