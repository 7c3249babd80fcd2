import Foundation
import OrderedCollections
import PFCore

// MARK: - Graph → JSON-shaped value

extension KeyedGraph {
    /// The graph as the value tree `pfarchive convert --from keyed --to json` writes.
    ///
    /// Foundation collections become arrays and dictionaries (sets and ordered sets become
    /// arrays), `NSNull` and nil become `null`, and every other object becomes a dictionary
    /// `{"$class": "Name", …fields}` (with `"$classes"` when its chain is not just the class
    /// and `NSObject`, and `"$version": N` when the archive records the class's version). A collection or object reached more than once — shared, or in a cycle —
    /// is written in full at its first occurrence in document order, with `"$id": N` (objects)
    /// or wrapped as `{"$id": N, "$value": …}` (arrays and dictionaries), and every later
    /// occurrence is `{"$ref": N}`. Keys that begin with `$` in dictionaries and fields are
    /// escaped with one more `$`, so they never collide with these markers. A dictionary whose
    /// keys are not all strings is written as `{"$class": "NSDictionary", "NS.keys": […],
    /// "NS.objects": […]}`. When `$top` has keys other than just `root`, the result is
    /// `{"$top": {key: value, …}}`.
    /// - Parameter limits: `maxDepth` bounds the nesting of the result.
    /// - Returns: the tree; dates and data stay `.date`/`.data` for the JSON writer's typed values.
    /// - Throws: ``PFError`` `limitExceeded` when the graph nests deeper than `maxDepth`.
    public func jsonValue(limits: PFLimits = .default) throws(PFError) -> PFValue {
        var renderer = GraphRenderer(nodes: CountedGraph(self), limits: limits)
        if top.count == 1, let root = top[KeyedObjectTable.rootKey] {
            return try renderer.render(root, depth: 0)
        }
        var members = OrderedDictionary<String, PFValue>()
        for (key, value) in top {
            members[key] = try renderer.render(value, depth: 1)
        }
        return .dictionary(["$top": .dictionary(members)])
    }

    /// Adds one `$` to keys that begin with `$`.
    static func escape(_ key: String) -> String { key.hasPrefix("$") ? "$" + key : key }

    /// Removes the `$` that ``escape(_:)`` added.
    static func unescape(_ key: String) -> String { key.hasPrefix("$$") ? String(key.dropFirst()) : key }
}

/// Where ``GraphRenderer`` finds the nodes it writes: a graph's arena (``CountedGraph``), or
/// objects read again from an archive's bytes (``KeyedArchive/readRecords(_:options:start:record:threshold:visit:)``).
protocol GraphNodes {
    /// Whether `index` names a node.
    func contains(_ index: Int) -> Bool
    /// Whether more than one reference leads to node `index` (it is then written with an `$id`).
    func isShared(_ index: Int) -> Bool
    /// The node `index` names (one that ``contains(_:)``).
    mutating func node(_ index: Int) throws(PFError) -> KeyedGraph.Node
    /// How many containers stored in place are kept (``release(to:)`` forgets those after).
    var mark: Int { get }
    /// Forgets the containers stored in place after `mark`: the nodes read since are written.
    mutating func release(to mark: Int)
}

/// A graph's nodes with, for every node reachable from `$top`, how many references lead to it.
struct CountedGraph: GraphNodes {
    let graph: KeyedGraph
    var referenceCounts: [Int]

    init(_ graph: KeyedGraph) {
        self.graph = graph
        referenceCounts = Array(repeating: 0, count: graph.nodes.count)
        var visited = Array(repeating: false, count: graph.nodes.count)
        var stack: [Int] = []
        func visit(_ value: KeyedGraph.Value, _ counts: inout [Int], _ stack: inout [Int]) {
            guard case .node(let index) = value, counts.indices.contains(index) else { return }
            counts[index] += 1
            if !visited[index] {
                visited[index] = true
                stack.append(index)
            }
        }
        for value in graph.top.values { visit(value, &referenceCounts, &stack) }
        while let index = stack.popLast() {
            for child in Self.children(of: graph.nodes[index]) { visit(child, &referenceCounts, &stack) }
        }
    }

    static func children(of node: KeyedGraph.Node) -> [KeyedGraph.Value] {
        switch node {
        case .array(_, let items), .set(_, let items), .orderedSet(_, let items): return items
        case .dictionary(_, let keys, let values): return keys + values
        case .object(let object): return Array(object.fields.values)
        }
    }

    func contains(_ index: Int) -> Bool { graph.nodes.indices.contains(index) }
    func isShared(_ index: Int) -> Bool { referenceCounts[index] > 1 }
    func node(_ index: Int) -> KeyedGraph.Node { graph.nodes[index] }
    var mark: Int { 0 }
    func release(to mark: Int) {}
}

/// Writes nodes as the value tree of ``KeyedGraph/jsonValue(limits:)``, numbering shared
/// ones (`$id`) in the order they are first written.
struct GraphRenderer<Nodes: GraphNodes> {
    var nodes: Nodes
    let limits: PFLimits
    var assignedIDs: [Int: Int] = [:]
    var nextID = 1

    init(nodes: Nodes, limits: PFLimits) {
        self.nodes = nodes
        self.limits = limits
    }

    mutating func render(_ value: KeyedGraph.Value, depth: Int) throws(PFError) -> PFValue {
        guard case .node(let index) = value else { return value.scalarValue ?? .null }
        guard nodes.contains(index) else { return .null }
        // Only a shared node has an `$id`: the others never look one up.
        let shared = nodes.isShared(index)
        if shared, let id = assignedIDs[index] { return ["$ref": .int(Int64(id))] }
        guard depth < limits.maxDepth else {
            throw PFError(KeyedArchiveFailure.graphTooDeep(maxDepth: limits.maxDepth), format: .keyedArchive)
        }
        let id = shared ? newID(for: index) : nil
        return try render(node: nodes.node(index), id: id, depth: depth + 1)
    }

    /// Numbers a shared node, written now for the first time.
    mutating func newID(for index: Int) -> Int {
        defer { nextID += 1 }
        assignedIDs[index] = nextID
        return nextID
    }

    mutating func render(node: KeyedGraph.Node, id: Int?, depth: Int) throws(PFError) -> PFValue {
        func wrap(_ value: PFValue) -> PFValue {
            guard let id else { return value }
            return ["$id": .int(Int64(id)), "$value": value]
        }
        switch node {
        case .array(_, let items), .set(_, let items), .orderedSet(_, let items):
            var out: [PFValue] = []
            out.reserveCapacity(items.count)
            for item in items { out.append(try render(item, depth: depth)) }
            return wrap(.array(out))
        case .dictionary(let className, let keys, let values):
            if keys.allSatisfy({ if case .string = $0 { true } else { false } }) {
                var members = OrderedDictionary<String, PFValue>()
                for (key, value) in zip(keys, values) {
                    guard case .string(let name) = key else { continue }
                    members[KeyedGraph.escape(name)] = try render(value, depth: depth)
                }
                return wrap(.dictionary(members))
            }
            var object: OrderedDictionary<String, PFValue> = ["$class": .string(className ?? "NSDictionary")]
            if let id { object["$id"] = .int(Int64(id)) }
            var renderedKeys: [PFValue] = []
            var renderedValues: [PFValue] = []
            for key in keys { renderedKeys.append(try render(key, depth: depth)) }
            for value in values { renderedValues.append(try render(value, depth: depth)) }
            object["NS.keys"] = .array(renderedKeys)
            object["NS.objects"] = .array(renderedValues)
            return .dictionary(object)
        case .object(let object):
            var members: OrderedDictionary<String, PFValue> = ["$class": .string(object.archivedClass.name)]
            if object.archivedClass.chain != [object.archivedClass.name, "NSObject"] {
                members["$classes"] = .array(object.archivedClass.chain.map { .string($0) })
            }
            if let version = object.archivedClass.version { members["$version"] = .int(Int64(version)) }
            if let id { members["$id"] = .int(Int64(id)) }
            for (key, value) in object.fields {
                members[KeyedGraph.escape(key)] = try render(value, depth: depth)
            }
            return .dictionary(members)
        }
    }
}

// MARK: - JSON-shaped value → graph

extension KeyedGraph {
    /// Builds a graph from the value-tree form that ``jsonValue(limits:)`` writes: the
    /// inverse conversion, `pfarchive convert --to keyed`.
    ///
    /// Dictionaries become `NSDictionary`, arrays `NSArray`, dates `NSDate`, data `NSData`,
    /// `null` inside collections `NSNull`; `{"$class": …}` dictionaries become objects of that
    /// class (or, for `NSDictionary`/`NSArray`-family names with `NS.keys`/`NS.objects`, those
    /// collections); `$id`/`$ref` pairs become one shared node.
    /// - Parameters:
    ///   - json: the value tree.
    ///   - limits: `maxDepth` and `maxNodes` budgets.
    /// - Throws: ``PFError`` `invalidValue` naming the key path for a `$ref` to an unknown
    ///   `$id`, a duplicate `$id`, a `$class` that is not a string, or a CF$UID reference.
    public init(json: PFValue, limits: PFLimits = .default) throws(PFError) {
        var builder = GraphBuilder(limits: limits)
        if case .dictionary(let members) = json, members.count == 1, case .dictionary(let entries)? = members["$top"] {
            for (key, value) in entries {
                builder.top[key] = try builder.value(value, depth: 1, path: .root.appending(key: "$top").appending(key: key))
            }
        } else {
            builder.top[KeyedObjectTable.rootKey] = try builder.value(json, depth: 0, path: .root)
        }
        self.init(nodes: builder.nodes, top: builder.top)
    }
}

struct GraphBuilder {
    let limits: PFLimits
    var nodes: [KeyedGraph.Node] = []
    var top = OrderedDictionary<String, KeyedGraph.Value>()
    var ids: [Int64: Int] = [:]
    /// Nodes made for earlier records of a streamed archive (``KeyedArchiveStreamWriter``),
    /// which count against `maxNodes` with this builder's, as in one tree.
    var nodeBase = 0
    /// The `$id`s earlier records of a streamed archive defined: naming or referring to one
    /// fails with ``KeyedArchiveFailure/idAcrossRecords(_:)`` (the document is archived whole).
    var earlierIDs: Set<Int64> = []

    init(limits: PFLimits) { self.limits = limits }

    static func invalid(_ failure: KeyedArchiveFailure, _ path: PFCodingPath) -> PFError {
        PFError(failure, format: .keyedJSON, path: path.keyPath)
    }

    mutating func newNode() throws(PFError) -> Int {
        guard nodes.count < limits.maxNodes - min(nodeBase, limits.maxNodes) else {
            throw PFLimits.exceeded("maxNodes", limits.maxNodes, format: .keyedJSON)
        }
        nodes.append(.array(className: nil, items: []))
        return nodes.count - 1
    }

    mutating func slot(_ preassigned: Int?) throws(PFError) -> Int {
        if let preassigned { return preassigned }
        return try newNode()
    }

    mutating func register(_ idValue: PFValue?, slot: Int, path: PFCodingPath) throws(PFError) {
        guard let idValue else { return }
        guard let id = idValue.int64Value else {
            throw Self.invalid(.idKind(found: idValue.kind.rawValue), path.appending(key: "$id"))
        }
        guard !earlierIDs.contains(id) else { throw Self.invalid(.idAcrossRecords(id), path.appending(key: "$id")) }
        guard ids[id] == nil else { throw Self.invalid(.idTwice(id), path.appending(key: "$id")) }
        ids[id] = slot
    }

    /// Converts one value; `preassigned` is the node slot a `$id`/`$value` wrapper reserved.
    mutating func value(_ json: PFValue, depth: Int, path: PFCodingPath, into preassigned: Int? = nil) throws(PFError)
        -> KeyedGraph.Value
    {
        guard depth <= limits.maxDepth else {
            throw PFError(KeyedArchiveFailure.jsonTooDeep(maxDepth: limits.maxDepth), format: .keyedJSON, path: path.keyPath)
        }
        switch json {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .uint(let u): return .uint(u)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .data(let d): return .data(d)
        case .date(let d): return .date(d)
        case .uid:
            throw Self.invalid(.uidInGraph, path)
        case .array(let items):
            let slot = try slot(preassigned)
            var values: [KeyedGraph.Value] = []
            values.reserveCapacity(items.count)
            for (i, item) in items.enumerated() { values.append(try value(item, depth: depth + 1, path: path.appending(index: i))) }
            nodes[slot] = .array(className: "NSArray", items: values)
            return .node(slot)
        case .dictionary(let members):
            if members.count == 1, let reference = members["$ref"] {
                guard let id = reference.int64Value, let slot = ids[id] else {
                    if let id = reference.int64Value, earlierIDs.contains(id) {
                        throw Self.invalid(.idAcrossRecords(id), path.appending(key: "$ref"))
                    }
                    throw Self.invalid(.unknownReference(reference.scalarDescription), path.appending(key: "$ref"))
                }
                return .node(slot)
            }
            if members.count == 2, let inner = members["$value"], members["$id"] != nil {
                guard inner.isContainer else {
                    throw Self.invalid(.wrappedValueKind(found: inner.kind.rawValue), path.appending(key: "$value"))
                }
                let slot = try newNode()
                try register(members["$id"], slot: slot, path: path)
                return try value(inner, depth: depth, path: path.appending(key: "$value"), into: slot)
            }
            if let classValue = members["$class"] {
                return try object(members, classValue: classValue, depth: depth, path: path, into: preassigned)
            }
            let slot = try slot(preassigned)
            var keys: [KeyedGraph.Value] = []
            var values: [KeyedGraph.Value] = []
            keys.reserveCapacity(members.count)
            values.reserveCapacity(members.count)
            for (key, item) in members {
                keys.append(.string(KeyedGraph.unescape(key)))
                values.append(try value(item, depth: depth + 1, path: path.appending(key: key)))
            }
            nodes[slot] = .dictionary(className: "NSDictionary", keys: keys, values: values)
            return .node(slot)
        }
    }

    mutating func object(
        _ members: OrderedDictionary<String, PFValue>, classValue: PFValue, depth: Int, path: PFCodingPath,
        into preassigned: Int?
    ) throws(PFError) -> KeyedGraph.Value
    {
        guard let name = classValue.stringValue, !name.isEmpty else {
            throw Self.invalid(.classNameKind(found: classValue.kind.rawValue), path.appending(key: "$class"))
        }
        var chain: [String]?
        if let classes = members["$classes"] {
            guard case .array(let items) = classes, let names = Optional(items.compactMap(\.stringValue)),
                names.count == items.count, names.first == name
            else {
                throw Self.invalid(.classesChain(startingWith: name), path.appending(key: "$classes"))
            }
            chain = names
        }
        var version: Int?
        if let recorded = members["$version"] {
            guard let number = recorded.int64Value, let small = Int(exactly: number), small >= 0 else {
                throw Self.invalid(.versionKind(found: recorded.scalarDescription), path.appending(key: "$version"))
            }
            version = small
        }
        let slot = try slot(preassigned)
        try register(members["$id"], slot: slot, path: path)
        var fields = OrderedDictionary<String, KeyedGraph.Value>()
        for (key, item) in members where key != "$class" && key != "$classes" && key != "$id" && key != "$version" {
            fields[KeyedGraph.unescape(key)] = try value(item, depth: depth + 1, path: path.appending(key: key))
        }
        typealias F = KeyedGraph.FoundationClass
        if F.dictionaries.contains(name), let keys = fields["NS.keys"], let values = fields["NS.objects"],
            case .array(_, let keyItems)? = node(keys), case .array(_, let valueItems)? = node(values)
        {
            guard keyItems.count == valueItems.count else {
                throw Self.invalid(.keysAndObjectsLengths, path)
            }
            nodes[slot] = .dictionary(className: name, keys: keyItems, values: valueItems)
        } else if F.arrays.union(F.sets).union(F.orderedSets).contains(name), fields.count == 1,
            let items = fields["NS.objects"], case .array(_, let values)? = node(items)
        {
            if F.sets.contains(name) {
                nodes[slot] = .set(className: name, items: values)
            } else if F.orderedSets.contains(name) {
                nodes[slot] = .orderedSet(className: name, items: values)
            } else {
                nodes[slot] = .array(className: name, items: values)
            }
        } else {
            nodes[slot] = .object(
                KeyedGraph.Object(archivedClass: ArchivedClass(name: name, chain: chain, version: version), fields: fields))
        }
        return .node(slot)
    }

    func node(_ value: KeyedGraph.Value) -> KeyedGraph.Node? {
        guard case .node(let index) = value, nodes.indices.contains(index) else { return nil }
        return nodes[index]
    }
}
