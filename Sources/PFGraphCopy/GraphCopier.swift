import Foundation
import OrderedCollections
import PFCore
import PFKeyedArchive

/// The result of copying a graph.
public struct GraphCopyResult: Sendable {
    /// The original nodes (indices `0..<originalCount`, unchanged) followed by the copies.
    /// ``KeyedGraph/top`` holds the copied roots, so writing the graph writes the copy, with
    /// the originals that shared edges still reach.
    public var graph: KeyedGraph
    /// How many nodes the input had; every index from here on is a copy.
    public var originalCount: Int
    /// Original node → its copy, for every copied object and collection.
    public var map: [Int: Int]
    /// What the copy did.
    public var report: CopyReport

    /// Whether a node index is a copy.
    public func isCopy(_ index: Int) -> Bool { index >= originalCount }
}

/// Copies a ``PFKeyedArchive/KeyedGraph`` — a decoded keyed archive, a JSON value tree (with
/// `$class`, `$id`/`$ref`), or a set of Parse objects (``ParseGraph``) — with every edge and
/// attribute decided by ``CopyRules``.
///
/// ```swift
/// let copier = try GraphCopier(profile: .pasteboard, schema: schema)
/// let result = try copier.copy(graph)
/// ```
///
/// The walk is breadth-first from a work list (no recursion, whatever the graph's depth), so
/// an object's depth is its shortest distance from a root through copy edges. Identity is
/// kept: each original is copied at most once, so shared objects stay shared and cycles stay
/// cycles. Objects (nodes of a class, and dictionaries with string keys: untyped "values" that
/// belong to their owner and add no depth) are what rules apply to; arrays, sets and other
/// dictionaries are collections whose elements share the edge that holds them.
public struct GraphCopier: Sendable {
    /// The compiled profile and schema.
    public var rules: CopyRules
    /// Seeds the generators for reproducible ids; `nil` uses the system's randomness.
    public var seed: UInt64?
    /// The time `regenerate: now` writes.
    public var now: Date

    /// Makes a copier from compiled rules.
    public init(rules: CopyRules, seed: UInt64? = nil, now: Date = Date()) {
        self.rules = rules
        self.seed = seed
        self.now = now
    }

    /// Makes a copier for a profile.
    /// - Throws: ``PFCore/PFError`` from ``CopyRules/init(profile:schema:)``.
    public init(profile: CopyProfile, schema: CopySchema = CopySchema(), seed: UInt64? = nil, now: Date = Date()) throws(PFError) {
        self.init(rules: try CopyRules(profile: profile, schema: schema), seed: seed, now: now)
    }

    /// Copies what `roots` reach.
    /// - Parameters:
    ///   - graph: the graph.
    ///   - roots: the values to copy, by name; `nil` copies every ``KeyedGraph/top`` entry.
    /// - Returns: the copy, the original→copy map and the report.
    /// - Throws: ``PFCore/PFError`` `limitExceeded` past ``CopyProfile/maxObjects`` or, with
    ///   ``DepthOverflow/error``, past ``CopyProfile/maxDepth`` (naming the edge).
    public func copy(_ graph: KeyedGraph, roots: OrderedDictionary<String, KeyedGraph.Value>? = nil) throws(PFError) -> GraphCopyResult {
        var walk = CopyWalk(graph: graph, copier: self)
        let top = try walk.run(roots: roots ?? graph.top)
        let out = KeyedGraph(nodes: walk.out, top: top)
        var map: [Int: Int] = [:]
        map.reserveCapacity(walk.copiedCount)
        for (index, copy) in walk.memo.enumerated() where copy >= 0 { map[index] = Int(copy) }
        for (key, copy) in walk.collectionMemo { map[key / CopyWalk.actionCount] = copy }
        return GraphCopyResult(graph: out, originalCount: graph.nodes.count, map: map, report: walk.report)
    }

    /// Copies a value tree in the keyed JSON shape (`$class` objects, `$id`/`$ref` for shared
    /// values and cycles; a plain JSON tree is one too).
    /// - Returns: the copy in the same shape, and the report.
    /// - Throws: ``PFCore/PFError`` when the tree is not a valid graph, or as ``copy(_:roots:)``.
    public func copy(json: PFValue) throws(PFError) -> (value: PFValue, report: CopyReport) {
        let result = try copy(KeyedGraph(json: json))
        return (try result.graph.jsonValue(), result.report)
    }

    /// The report a copy would give, without keeping the copy (a dry run).
    /// - Throws: as ``copy(_:roots:)``.
    public func plan(_ graph: KeyedGraph, roots: OrderedDictionary<String, KeyedGraph.Value>? = nil) throws(PFError) -> CopyReport {
        var walk = CopyWalk(graph: graph, copier: self)
        _ = try walk.run(roots: roots ?? graph.top)
        return walk.report
    }
}

// MARK: - The walk

/// One copy operation's state.
struct CopyWalk {
    typealias Value = KeyedGraph.Value
    typealias Node = KeyedGraph.Node

    static let actionCount = 5

    enum WorkKind {
        case object
        /// A collection: its elements follow the rule of the edge that holds it.
        case collection(rule: EdgeAction?, ownerType: String, ownerNode: Int, key: String)
    }

    struct Work {
        var original: Int
        var copy: Int
        var depth: Int
        var path: Int
        var kind: WorkKind
    }

    /// What an edge target becomes.
    enum Resolved {
        case value(Value)
        case dropped
        case truncated
    }

    let graph: KeyedGraph
    let rules: CopyRules
    let profile: CopyProfile
    let now: Date
    var out: [Node]
    /// Object copies by original index (-1: not copied).
    var memo: [Int32]
    /// Collection copies by original index × action.
    var collectionMemo: [Int: Int] = [:]
    /// Typed objects, breadth-first.
    var queue: [Work] = []
    var head = 0
    /// Collections and untyped dictionaries: part of the object being filled, at its depth,
    /// so they are filled before the next object (keeping the walk breadth-first by depth).
    var immediate: [Work] = []
    var report: CopyReport
    var copiedCount = 0
    /// Nodes holding conditional placeholders (`.node(-1 - original)`).
    var conditionalSites: [Int] = []
    /// Pointer dictionaries written for `reference` edges: (node, target original).
    var references: [(node: Int, target: Int)] = []
    var generator: IDGenerator

    init(graph: KeyedGraph, copier: GraphCopier) {
        self.graph = graph
        rules = copier.rules
        profile = copier.rules.profile
        now = copier.now
        out = graph.nodes
        memo = Array(repeating: -1, count: graph.nodes.count)
        report = CopyReport(profile: copier.rules.profile.name)
        generator = IDGenerator(seed: copier.seed)
    }

    // MARK: Node kinds

    func typeName(_ index: Int) -> String? {
        if case .object(let object) = graph.nodes[index] { return object.archivedClass.name }
        return nil
    }

    /// Objects are class nodes and dictionaries whose keys are all strings.
    func isObjectLike(_ index: Int) -> Bool {
        switch graph.nodes[index] {
        case .object: return true
        case .dictionary(_, let keys, _): return keys.allSatisfy { if case .string = $0 { true } else { false } }
        default: return false
        }
    }

    static func reportName(_ type: String?) -> String { type ?? "(value)" }

    func validIndex(_ value: Value) -> Int? {
        guard case .node(let index) = value, index >= 0, index < graph.nodes.count else { return nil }
        return index
    }

    // MARK: Running

    mutating func run(roots: OrderedDictionary<String, Value>) throws(PFError) -> OrderedDictionary<String, Value> {
        var top = OrderedDictionary<String, Value>()
        for (key, value) in roots {
            guard let index = validIndex(value) else {
                top[key] = value
                continue
            }
            if isObjectLike(index) {
                top[key] = .node(try copyObject(index, depth: 0, path: CopyRules.rootPath))
            } else {
                // A root collection: its objects are roots too (depth 0).
                top[key] = .node(try copyCollection(index, rule: .copy, ownerType: "(root)", ownerNode: index, key: key, depth: -1, path: CopyRules.rootPath))
            }
            try drain()
        }
        finishConditionals()
        finishReferences()
        if profile.regenerateIdentities { rewritePointers() }
        return top
    }

    mutating func allocate(_ node: Node) throws(PFError) -> Int {
        guard copiedCount < profile.maxObjects else {
            throw PFError(GraphCopyFailure.tooManyNodes(maxObjects: profile.maxObjects), format: .graphCopy)
        }
        copiedCount += 1
        out.append(node)
        return out.count - 1
    }

    mutating func copyObject(_ index: Int, depth: Int, path: Int) throws(PFError) -> Int {
        if memo[index] >= 0 { return Int(memo[index]) }
        let copy = try allocate(graph.nodes[index])
        memo[index] = Int32(truncatingIfNeeded: copy)
        let type = typeName(index)
        report.copiedObjects[Self.reportName(type), default: 0] += 1
        let work = Work(original: index, copy: copy, depth: depth, path: path, kind: .object)
        if type == nil { immediate.append(work) } else { queue.append(work) }
        return copy
    }

    mutating func copyCollection(
        _ index: Int, rule: EdgeAction?, ownerType: String, ownerNode: Int, key: String, depth: Int, path: Int
    ) throws(PFError) -> Int {
        let memoKey = index * Self.actionCount + Self.actionIndex(rule)
        if let known = collectionMemo[memoKey] { return known }
        let copy = try allocate(graph.nodes[index])
        collectionMemo[memoKey] = copy
        report.copiedObjects["(collection)", default: 0] += 1
        immediate.append(Work(original: index, copy: copy, depth: depth, path: path, kind: .collection(rule: rule, ownerType: ownerType, ownerNode: ownerNode, key: key)))
        return copy
    }

    static func actionIndex(_ action: EdgeAction?) -> Int {
        switch action {
        case nil, .copy: 0
        case .share: 1
        case .omit: 2
        case .conditional: 3
        case .reference: 4
        }
    }

    mutating func drain() throws(PFError) {
        while true {
            let work: Work
            if let next = immediate.popLast() {
                work = next
            } else if head < queue.count {
                work = queue[head]
                head += 1
            } else {
                break
            }
            switch work.kind {
            case .object: try fillObject(work)
            case .collection(let rule, let ownerType, let ownerNode, let key):
                try fillCollection(work, rule: rule, ownerType: ownerType, ownerNode: ownerNode, key: key)
            }
        }
        queue.removeAll(keepingCapacity: true)
        head = 0
    }

    // MARK: Objects

    mutating func fillObject(_ work: Work) throws(PFError) {
        let type = typeName(work.original)
        switch graph.nodes[work.original] {
        case .object(var object):
            var fields = OrderedDictionary<String, Value>()
            fields.reserveCapacity(object.fields.count)
            for (key, value) in object.fields {
                if let new = try field(key, value, ownerType: type, work: work) { fields[key] = new }
            }
            object.fields = fields
            out[work.copy] = .object(object)
        case .dictionary(let className, let keys, let values):
            var newKeys: [Value] = []
            var newValues: [Value] = []
            for (k, value) in zip(keys, values) {
                guard case .string(let key) = k else { continue }
                if let new = try field(key, value, ownerType: type, work: work) {
                    newKeys.append(k)
                    newValues.append(new)
                }
            }
            out[work.copy] = .dictionary(className: className, keys: newKeys, values: newValues)
        default:
            break
        }
    }

    /// The copy of one field, or `nil` to leave it out.
    mutating func field(_ key: String, _ value: Value, ownerType: String?, work: Work) throws(PFError) -> Value? {
        guard let target = validIndex(value) else {
            return try attribute(key, value, ownerType: ownerType, path: work.path)
        }
        if rules.hasAttributeRule(ownerType: ownerType, key: key, path: work.path) {
            let action = rules.attributeAction(ownerType: ownerType, key: key, path: work.path)
            if action != .copy { return try attribute(key, value, ownerType: ownerType, path: work.path) }
        }
        let rule = rules.ruleAction(ownerType: ownerType, key: key, path: work.path)
        let name = Self.reportName(ownerType)
        if isObjectLike(target) {
            let action = rules.edgeAction(rule: rule, targetIsTyped: typeName(target) != nil)
            switch try resolve(target, action: action, ownerType: name, work: work, key: key) {
            case .value(let v): return v
            case .dropped, .truncated: return .null
            }
        }
        // A collection: its object elements follow the edge's rule.
        return .node(try copyCollection(target, rule: rule, ownerType: name, ownerNode: work.original, key: key, depth: work.depth, path: work.path))
    }

    /// One edge target under an action.
    mutating func resolve(_ target: Int, action: EdgeAction, ownerType: String, work: Work, key: String) throws(PFError) -> Resolved {
        report.countEdge(ownerType, action)
        let typed = typeName(target) != nil
        switch action {
        case .copy:
            let depth = typed ? work.depth + 1 : max(work.depth, 0)
            if typed, let maxDepth = profile.maxDepth, depth > maxDepth {
                let edge = CopyReport.Edge(ownerType: ownerType, ownerNode: work.original, key: key)
                if profile.onDepthExceeded == .error {
                    throw PFError(GraphCopyFailure.edgeTooDeep(edge: "\(edge)", maxDepth: maxDepth), format: .graphCopy)
                }
                report.truncatedEdgeCount += 1
                if report.truncatedEdges.count < CopyReport.listLimit { report.truncatedEdges.append(edge) }
                return .truncated
            }
            if memo[target] >= 0 { return .value(.node(Int(memo[target]))) }
            let path = work.path >= 0 ? rules.path(from: work.path, through: key) : CopyRules.noPath
            return .value(.node(try copyObject(target, depth: depth, path: path)))
        case .share:
            return .value(.node(target))
        case .omit:
            return .dropped
        case .conditional:
            if conditionalSites.last != work.copy { conditionalSites.append(work.copy) }
            return .value(.node(-1 - target))
        case .reference:
            guard let type = typeName(target) else { return .dropped }
            let pointer = try allocate(
                .dictionary(className: nil, keys: [.string("__type"), .string("className"), .string("objectId")],
                            values: [.string("Pointer"), .string(type), .string(identity(of: target, in: graph.nodes) ?? "#\(target)")]))
            report.copiedObjects["(reference)", default: 0] += 1
            references.append((pointer, target))
            return .value(.node(pointer))
        }
    }

    // MARK: Collections

    mutating func fillCollection(_ work: Work, rule: EdgeAction?, ownerType: String, ownerNode: Int, key: String) throws(PFError) {
        var truncated = false
        // Elements are resolved as edges of the collection's owner.
        let ownerWork = Work(original: ownerNode, copy: work.copy, depth: work.depth, path: work.path, kind: .object)
        func items(_ values: [Value], walk: inout CopyWalk) throws(PFError) -> [Value?] {
            var result: [Value?] = []
            result.reserveCapacity(values.count)
            for value in values {
                guard let target = walk.validIndex(value) else {
                    result.append(value)
                    continue
                }
                if walk.isObjectLike(target) {
                    let action = walk.rules.edgeAction(rule: rule, targetIsTyped: walk.typeName(target) != nil)
                    switch try walk.resolve(target, action: action, ownerType: ownerType, work: ownerWork, key: key) {
                    case .value(let v): result.append(v)
                    case .dropped: result.append(nil)
                    case .truncated:
                        truncated = true
                        result.append(nil)
                    }
                } else {
                    result.append(.node(try walk.copyCollection(target, rule: rule, ownerType: ownerType, ownerNode: ownerNode, key: key, depth: work.depth, path: work.path)))
                }
            }
            return result
        }
        let node: Node
        switch graph.nodes[work.original] {
        case .array(let className, let values):
            let copied = try items(values, walk: &self)
            node = .array(className: className, items: truncated ? [] : copied.compactMap { $0 })
        case .set(let className, let values):
            let copied = try items(values, walk: &self)
            node = .set(className: className, items: truncated ? [] : copied.compactMap { $0 })
        case .orderedSet(let className, let values):
            let copied = try items(values, walk: &self)
            node = .orderedSet(className: className, items: truncated ? [] : copied.compactMap { $0 })
        case .dictionary(let className, let keys, let values):
            let newKeys = try items(keys, walk: &self)
            let newValues = try items(values, walk: &self)
            var k: [Value] = []
            var v: [Value] = []
            if !truncated {
                for (a, b) in zip(newKeys, newValues) {
                    guard let a, let b else { continue }
                    k.append(a)
                    v.append(b)
                }
            }
            node = .dictionary(className: className, keys: k, values: v)
        case .object:
            return
        }
        out[work.copy] = node
        if truncated {
            // "Collections → empty": one edge cut empties the to-many (already counted).
        }
    }

    // MARK: Attributes

    mutating func attribute(_ key: String, _ value: Value, ownerType: String?, path: Int) throws(PFError) -> Value? {
        let action = rules.attributeAction(ownerType: ownerType, key: key, path: path)
        if action != .copy { report.attributes[Self.reportName(ownerType), default: [:]][action.name, default: 0] += 1 }
        switch action {
        case .copy:
            return value
        case .omit:
            return nil
        case .set(let constant):
            return try graphValue(constant)
        case .regenerate(let kind):
            switch kind {
            case .now: return .date(now)
            case .uuid: return .string(generator.uuid())
            case .objectId: return .string(generator.objectId(avoiding: existingObjectIds()))
            }
        }
    }

    var cachedObjectIds: Set<String>?

    /// Every `objectId` in the original graph, so a regenerated one never repeats one.
    mutating func existingObjectIds() -> Set<String> {
        if let cachedObjectIds { return cachedObjectIds }
        var ids = Set<String>()
        for node in graph.nodes {
            if case .object(let object) = node, case .string(let id)? = object.fields["objectId"] { ids.insert(id) }
        }
        cachedObjectIds = ids
        return ids
    }

    /// A constant from a rule as graph values (new nodes for collections).
    mutating func graphValue(_ value: PFValue) throws(PFError) -> Value {
        if let scalar = Value(scalar: value) { return scalar }
        switch value {
        case .array(let items):
            var converted: [Value] = []
            for item in items { converted.append(try graphValue(item)) }
            return .node(try allocate(.array(className: nil, items: converted)))
        case .dictionary(let members):
            var values: [Value] = []
            for item in members.values { values.append(try graphValue(item)) }
            return .node(try allocate(.dictionary(className: nil, keys: members.keys.map { .string($0) }, values: values)))
        default:
            return .null
        }
    }

    // MARK: Finishing

    /// The identity of an object: its `objectId`, else its first declared identity attribute.
    func identity(of index: Int, in nodes: [Node]) -> String? {
        guard case .object(let object) = nodes[index] else { return nil }
        func text(_ value: Value?) -> String? {
            switch value {
            case .string(let s)?: s
            case .int(let i)?: String(i)
            case .uint(let u)?: String(u)
            default: nil
            }
        }
        if let id = text(object.fields["objectId"]) { return id }
        for key in rules.schema.types[object.archivedClass.name]?.identity ?? [] {
            if let id = text(object.fields[key]) { return id }
        }
        return nil
    }

    /// Conditional edges point at the target's copy, or are dropped when there is none.
    mutating func finishConditionals() {
        func resolve(_ value: Value) -> Value? {
            guard case .node(let n) = value, n < 0 else { return value }
            let target = -1 - n
            guard target < memo.count, memo[target] >= 0 else { return nil }
            return .node(Int(memo[target]))
        }
        var sites = Set<Int>()
        for site in conditionalSites where sites.insert(site).inserted {
            var dropped: [String] = []
            switch out[site] {
            case .object(var object):
                for (key, value) in object.fields {
                    guard case .node(let n) = value, n < 0 else { continue }
                    if let v = resolve(value) { object.fields[key] = v } else {
                        object.fields[key] = .null
                        dropped.append(key)
                    }
                }
                out[site] = .object(object)
            case .array(let c, let items):
                out[site] = .array(className: c, items: items.compactMap { v in let r = resolve(v); if r == nil { dropped.append("[]") }; return r })
            case .set(let c, let items):
                out[site] = .set(className: c, items: items.compactMap { v in let r = resolve(v); if r == nil { dropped.append("[]") }; return r })
            case .orderedSet(let c, let items):
                out[site] = .orderedSet(className: c, items: items.compactMap { v in let r = resolve(v); if r == nil { dropped.append("[]") }; return r })
            case .dictionary(let c, let keys, let values):
                let stringKeys = keys.allSatisfy { if case .string = $0 { true } else { false } }
                var k: [Value] = []
                var v: [Value] = []
                for (a, b) in zip(keys, values) {
                    let ra = resolve(a)
                    let rb = resolve(b)
                    if let ra, let rb {
                        k.append(ra)
                        v.append(rb)
                    } else if stringKeys, let ra {
                        // An untyped object's field: nil, like a class object's.
                        k.append(ra)
                        v.append(.null)
                        if case .string(let name) = ra { dropped.append(name) }
                    } else {
                        dropped.append("[]")
                    }
                }
                out[site] = .dictionary(className: c, keys: k, values: v)
            }
            let original = originalOf(site)
            for key in dropped {
                report.droppedConditionalCount += 1
                if report.droppedConditionals.count < CopyReport.listLimit {
                    report.droppedConditionals.append(CopyReport.Edge(ownerType: Self.reportName(original.flatMap(typeName)), ownerNode: original ?? site, key: key))
                }
            }
        }
    }

    var reverseMemo: [Int: Int]?

    /// The original a copy came from (for reports; built only when a conditional is dropped).
    mutating func originalOf(_ copy: Int) -> Int? {
        if reverseMemo == nil {
            var reverse: [Int: Int] = [:]
            for (i, c) in memo.enumerated() where c >= 0 { reverse[Int(c)] = i }
            for (key, c) in collectionMemo { reverse[c] = key / Self.actionCount }
            reverseMemo = reverse
        }
        return reverseMemo?[copy]
    }

    /// A reference to an object that was copied names the copy (whose id may be new).
    mutating func finishReferences() {
        for (node, target) in references where memo[target] >= 0 {
            guard let id = identity(of: Int(memo[target]), in: out),
                case .dictionary(let c, let keys, var values) = out[node]
            else { continue }
            values[2] = .string(id)
            out[node] = .dictionary(className: c, keys: keys, values: values)
        }
    }

    /// `duplicate`: every Pointer dictionary in the copy that names a copied object by its
    /// old id names the copy's new id.
    mutating func rewritePointers() {
        var renamed: [String: [String: String]] = [:]
        for (index, copy) in memo.enumerated() where copy >= 0 {
            guard let type = typeName(index), let old = identity(of: index, in: graph.nodes), let new = identity(of: Int(copy), in: out),
                old != new
            else { continue }
            renamed[type, default: [:]][old] = new
        }
        guard !renamed.isEmpty else { return }
        for index in graph.nodes.count..<out.count {
            guard case .dictionary(let c, let keys, var values) = out[index], keys.count == values.count,
                let typeAt = keys.firstIndex(of: .string("__type")), values[typeAt] == .string("Pointer"),
                let classAt = keys.firstIndex(of: .string("className")), let idAt = keys.firstIndex(of: .string("objectId")),
                case .string(let className) = values[classAt], case .string(let id) = values[idAt],
                let new = renamed[className]?[id]
            else { continue }
            values[idAt] = .string(new)
            out[index] = .dictionary(className: c, keys: keys, values: values)
        }
    }
}

// MARK: - Generators

/// Fresh ids: random, or from a seed for reproducible output.
struct IDGenerator {
    var rng: SplitMix64?
    var issued = Set<String>()

    init(seed: UInt64?) { rng = seed.map { SplitMix64(seed: $0) } }

    mutating func next() -> UInt64 {
        guard var seeded = rng else { return UInt64.random(in: .min ... .max) }
        let value = seeded.next()
        rng = seeded
        return value
    }

    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)

    /// A 10-character id not issued before and not among `existing`.
    mutating func objectId(avoiding existing: Set<String>) -> String {
        while true {
            var bytes: [UInt8] = []
            var bits = next()
            for _ in 0..<10 {
                bytes.append(Self.alphabet[Int(bits % 62)])
                bits /= 62
            }
            let id = String(decoding: bytes, as: UTF8.self)
            if !existing.contains(id), issued.insert(id).inserted { return id }
        }
    }

    /// A UUID string, version 4 layout.
    mutating func uuid() -> String {
        let a = next()
        let b = next()
        var bytes: [UInt8] = (0..<8).map { UInt8(truncatingIfNeeded: a >> ($0 * 8)) } + (0..<8).map { UInt8(truncatingIfNeeded: b >> ($0 * 8)) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let uuid = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        return uuid.uuidString
    }
}
