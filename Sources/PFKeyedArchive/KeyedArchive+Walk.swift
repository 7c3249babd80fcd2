import Foundation
import OrderedCollections
import PFCore
import PFPropertyList

// MARK: - A keyed archive walked by its large containers

extension KeyedArchive {
    /// The member count above which ``walk(_:options:threshold:visit:)`` walks a container
    /// member by member rather than rendering it whole.
    public static let largeMembers = 256

    /// The member count up to which a walked container's own containers are walked too
    /// (a wrapper such as `{"data": […], "meta": …}` leads to the large containers it holds).
    static let thinMembers = 16

    /// Decodes the graph of a keyed archive in a binary property list and hands the value
    /// ``KeyedGraph/jsonValue(limits:)`` gives for it to `visit` as a walk by its large
    /// containers, without building the object table, the graph or the tree: objects are
    /// decoded from the file's bytes (mapped for a file) by their number when they are
    /// written, as ``readRecords(_:options:start:record:threshold:visit:)`` decodes records.
    ///
    /// The root is walked: its members, and those of every container it leads to that
    /// holds more than `threshold` members or sits in a walked container of 16 members or
    /// fewer, are handed out one at a time (``PFCore/PFDocumentEvent/open(isObject:count:)``,
    /// ``PFCore/PFDocumentEvent/key(_:)``, ``PFCore/PFDocumentEvent/close``); every other
    /// member is rendered whole (``PFCore/PFDocumentEvent/value(_:)``). Shared containers
    /// keep their `{"$id": N, "$value": …}` wrapper and objects their `$class`, `$classes`,
    /// `$version` and `$id` members, numbered in the order of the whole rendering, so the
    /// events rebuild exactly ``KeyedGraph/jsonValue(limits:)``. A dictionary whose keys
    /// are not all strings, or repeat, is rendered whole.
    ///
    /// Every check and limit of ``decodeGraph(_:options:)`` applies with the same meaning
    /// and error, before the first event.
    /// - Parameters:
    ///   - bytes: the archive, a binary property list (not compressed).
    ///   - options: limits and allowed classes.
    ///   - threshold: the member count above which a container is walked (``largeMembers``
    ///     by default; tests make it small).
    ///   - visit: receives the events; its errors are prefixed with the key path of the
    ///     current place.
    /// - Returns: `false`, having called `visit` never, when the archive is not a binary
    ///   property list, its `$top` has keys other than `root`, or its root is not an array,
    ///   set, string-keyed dictionary or object (the whole route then converts it).
    /// - Throws: ``PFError`` as the whole route does (reading, decoding, `maxDepth`), and
    ///   whatever `visit` throws.
    public static func walk(
        _ bytes: Data, options: KeyedGraph.DecodingOptions = .init(), threshold: Int = largeMembers,
        visit: (PFDocumentEvent) throws(PFError) -> Void
    ) throws(PFError) -> Bool {
        do {
            return try walkLazily(bytes, options: options) { walk, top throws(PFError) -> Bool in
                try walkRoot(&walk, top: top, limits: options.limits, threshold: threshold, visit: visit)
            }
        } catch {
            // A damaged archive can break several rules, and the walk meets them in another
            // order than the whole read (a cycle under `$top` before a wrong `$archiver`): the
            // error is the whole read's, so both routes fail alike. (Only below 64 MiB: a larger
            // input is walked to keep it out of memory, and keeps the walk's error.)
            if bytes.count <= 64 << 20 {
                do throws(PFError) {
                    _ = try decodeGraph(bytes, options: options).jsonValue(limits: options.limits)
                } catch let whole {
                    throw whole
                }
            }
            throw error
        }
    }

    /// ``walk(_:options:threshold:visit:)`` after the graph's walk: `false` when the root is
    /// not walked.
    static func walkRoot<Nodes: GraphNodes>(
        _ nodes: inout Nodes, top: OrderedDictionary<String, KeyedGraph.Value>, limits: PFLimits, threshold: Int,
        visit: (PFDocumentEvent) throws(PFError) -> Void
    ) throws(PFError) -> Bool {
        guard top.count == 1, let root = top[KeyedObjectTable.rootKey], case .node(let index) = root, nodes.contains(index)
        else { return false }
        // The root is read once to see that it is walked (its containers in place forgotten).
        let mark = nodes.mark
        let rootNode = try nodes.node(index)
        nodes.release(to: mark)
        guard GraphRenderer<Nodes>.members(of: rootNode, id: nodes.isShared(index) ? 1 : nil) != nil else { return false }
        var renderer = GraphRenderer(nodes: nodes, limits: limits)
        try PFDocumentEmitter.run(visit) { emitter throws(PFError) in
            var emitter = emitter
            try renderer.walk(root, depth: 0, large: true, threshold: threshold, emitter: &emitter)
        }
        nodes = renderer.nodes
        return true
    }
}

extension GraphRenderer {
    /// Whether `node` (numbered `id` when shared) is written member by member, and how:
    /// a dictionary (`isObject`) of `count` members or an array; `nil` for a dictionary
    /// whose keys are not all strings or repeat (rendered whole, as a tree collapses them).
    /// A shared array or dictionary is the one member `$value` of its wrapper.
    static func members(of node: KeyedGraph.Node, id: Int?) -> (isObject: Bool, count: Int)? {
        switch node {
        case .array(_, let items), .set(_, let items), .orderedSet(_, let items):
            return (false, items.count)
        case .dictionary(_, let keys, _):
            var names = Set<String>()
            names.reserveCapacity(keys.count)
            for key in keys {
                guard case .string(let name) = key, names.insert(name).inserted else { return nil }
            }
            return (true, keys.count)
        case .object(let object):
            var header = 1
            if object.archivedClass.chain != [object.archivedClass.name, "NSObject"] { header += 1 }
            if object.archivedClass.version != nil { header += 1 }
            if id != nil { header += 1 }
            return (true, header + object.fields.count)
        }
    }

    /// Writes `value` at `depth` as ``render(_:depth:)`` renders it, as events: a container
    /// that is walked (`large`, or of more than `threshold` members) opens, hands out its
    /// members (walked in turn) and closes; anything else is one value rendered whole.
    mutating func walk(
        _ value: KeyedGraph.Value, depth: Int, large: Bool, threshold: Int, emitter: inout PFDocumentEmitter
    ) throws(PFError) {
        let mark = nodes.mark
        defer { nodes.release(to: mark) }
        guard case .node(let index) = value, nodes.contains(index), !(nodes.isShared(index) && assignedIDs[index] != nil) else {
            return try emitter.emit(.value(render(value, depth: depth)))
        }
        guard depth < limits.maxDepth else {
            throw PFError(KeyedArchiveFailure.graphTooDeep(maxDepth: limits.maxDepth), format: .keyedArchive)
        }
        let id = nodes.isShared(index) ? newID(for: index) : nil
        let node = try nodes.node(index)
        guard let shape = Self.members(of: node, id: id), large || shape.count > threshold else {
            return try emitter.emit(.value(render(node: node, id: id, depth: depth + 1)))
        }
        let inner = shape.count <= KeyedArchive.thinMembers
        let childDepth = depth + 1
        func member(_ key: String, _ value: PFValue, _ emitter: inout PFDocumentEmitter) throws(PFError) {
            try emitter.emit(.key(key))
            emitter.enter(.key(key))
            defer { emitter.leave() }
            try emitter.emit(.value(value))
        }
        // A shared array or dictionary: `{"$id": N, "$value": …}` around it.
        let wrapped: Bool
        if let id, !isObjectNode(node) {
            wrapped = true
            try emitter.emit(.open(isObject: true, count: 2))
            try member("$id", .int(Int64(id)), &emitter)
            try emitter.emit(.key("$value"))
            emitter.enter(.key("$value"))
        } else {
            wrapped = false
        }
        try emitter.emit(.open(isObject: shape.isObject, count: shape.count))
        switch node {
        case .array(_, let items), .set(_, let items), .orderedSet(_, let items):
            for (i, item) in items.enumerated() {
                emitter.enter(.index(i))
                defer { emitter.leave() }
                try walk(item, depth: childDepth, large: inner, threshold: threshold, emitter: &emitter)
            }
        case .dictionary(_, let keys, let values):
            for (key, item) in zip(keys, values) {
                guard case .string(let name) = key else { continue }
                let escaped = KeyedGraph.escape(name)
                try emitter.emit(.key(escaped))
                emitter.enter(.key(escaped))
                defer { emitter.leave() }
                try walk(item, depth: childDepth, large: inner, threshold: threshold, emitter: &emitter)
            }
        case .object(let object):
            try member("$class", .string(object.archivedClass.name), &emitter)
            if object.archivedClass.chain != [object.archivedClass.name, "NSObject"] {
                try member("$classes", .array(object.archivedClass.chain.map { .string($0) }), &emitter)
            }
            if let version = object.archivedClass.version { try member("$version", .int(Int64(version)), &emitter) }
            if let id { try member("$id", .int(Int64(id)), &emitter) }
            for (key, item) in object.fields {
                let escaped = KeyedGraph.escape(key)
                try emitter.emit(.key(escaped))
                emitter.enter(.key(escaped))
                defer { emitter.leave() }
                try walk(item, depth: childDepth, large: inner, threshold: threshold, emitter: &emitter)
            }
        }
        try emitter.emit(.close)
        if wrapped {
            emitter.leave()
            try emitter.emit(.close)
        }
    }

    private func isObjectNode(_ node: KeyedGraph.Node) -> Bool {
        if case .object = node { true } else { false }
    }
}
