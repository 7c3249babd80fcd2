import Foundation
import OrderedCollections
import PFCore
import PFKeyedArchive
import PFParse

/// One Parse relation's join rows (`_Join:<field>:<owningClass>`).
public struct ParseRelationRows: Sendable, Equatable {
    /// The class that declares the relation.
    public var owningClass: String
    /// The relation field.
    public var field: String
    /// `(owningId, relatedId)` pairs.
    public var rows: [ParseJoinRow]
    /// The related class when a schema names it; `nil` to take it from a Relation field in
    /// the rows, or else to infer it from the related ids (``RelationTargetInference``).
    public var targetClass: String?

    /// Makes join rows.
    public init(owningClass: String, field: String, rows: [ParseJoinRow] = [], targetClass: String? = nil) {
        self.owningClass = owningClass
        self.field = field
        self.rows = rows
        self.targetClass = targetClass
    }

    /// The export's file name for these rows.
    public var joinClassName: String { "_Join:\(field):\(owningClass)" }
}

/// A set of Parse objects with their relations' join rows: what an export holds.
public struct ParseObjectSet: Sendable {
    /// The objects.
    public var objects: [ParseObject]
    /// The relations' members.
    public var relations: [ParseRelationRows]

    /// Makes a set.
    public init(objects: [ParseObject], relations: [ParseRelationRows] = []) {
        self.objects = objects
        self.relations = relations
    }
}

/// Parse objects as a copyable graph, and back. Identity is `className` + `objectId`: a
/// Pointer to an object of the set becomes an edge to its node; a relation becomes a
/// collection of its members (from the join rows); everything else is a value. Pointers to
/// objects outside the set stay Pointer values.
///
/// A relation is a Relation field in the rows, or a ``ParseRelationRows`` of the set (a join
/// file, a schema's Relation field) whose field the rows do not carry, as in Parse.com's
/// exports: every object of the owning class then gets the field in the graph (so copy rules
/// act on it), and ``objectSet(_:nodes:)`` gives it back as join rows only, not as a field.
/// The target class is the schema's, else the Relation field's, else the one class that
/// holds the related ids (``RelationTargetInference``); while it cannot be told, each member
/// is a Pointer value naming no class (an untyped value, under the relation's edge rule).
public enum ParseGraph {
    /// The collection class that marks a relation field in the graph: `ParseRelation:<Target>`.
    static let relationPrefix = "ParseRelation:"
    /// The collection class of a relation the rows do not carry: `ParseJoin:<Target>`
    /// (an empty target when it is unknown).
    static let joinOnlyPrefix = "ParseJoin:"

    /// The target class of each relation of the set that no schema names and no row's
    /// Relation field states, inferred from the related ids.
    /// - Parameter set: the objects and join rows.
    /// - Returns: one finding per such relation, in the set's order.
    public static func relationTargets(_ set: ParseObjectSet) -> [RelationTargetInference] {
        var stated = Set<String>()
        for object in set.objects {
            guard case .dictionary(let fields) = object.typedValue else { continue }
            for (key, value) in fields {
                if case .dictionary(let d) = value, d["__type"] == .string("Relation"), case .string? = d["className"] {
                    stated.insert("\(object.className)\u{0}\(key)")
                }
            }
        }
        let unknown = set.relations.filter { $0.targetClass == nil && !stated.contains("\($0.owningClass)\u{0}\($0.field)") }
        guard !unknown.isEmpty else { return [] }
        var classesOfId: [String: [String]] = [:]
        for object in set.objects {
            guard let id = object.objectId else { continue }
            if classesOfId[id]?.contains(object.className) != true { classesOfId[id, default: []].append(object.className) }
        }
        return unknown.map { relation in
            RelationTargetInference(
                ParseRelationKey(owningClass: relation.owningClass, field: relation.field),
                relatedIds: relation.rows.lazy.map(\.relatedId)) { classesOfId[$0] ?? [] }
        }
    }

    /// The graph of a set: one object node per Parse object, `$top` entries `Class/objectId`.
    /// - Returns: the graph and the node of each identified object.
    /// - Throws: ``PFCore/PFError`` `invalidValue` when two objects share an identity.
    public static func graph(_ set: ParseObjectSet) throws(PFError) -> (graph: KeyedGraph, nodes: [ParsePointer: Int]) {
        var index: [ParsePointer: Int] = [:]
        index.reserveCapacity(set.objects.count)
        for (i, object) in set.objects.enumerated() {
            guard let id = object.objectId else { continue }
            let pointer = ParsePointer(className: object.className, objectId: id)
            guard index.updateValue(i, forKey: pointer) == nil else {
                throw PFError(GraphCopyFailure.duplicateIdentity("\(pointer)"), format: .parseGraph, path: [.index(i)])
            }
        }
        var members: [String: [String: [String]]] = [:]  // "Class\0field" → owningId → related ids
        var declared: [String: OrderedDictionary<String, String?>] = [:]  // Class → field → target
        for relation in set.relations {
            let key = "\(relation.owningClass)\u{0}\(relation.field)"
            if members[key] == nil { members[key] = [:] }
            for row in relation.rows {
                members[key, default: [:]][row.owningId, default: []].append(row.relatedId)
            }
            declared[relation.owningClass, default: [:]][relation.field] = .some(relation.targetClass)
        }
        for finding in relationTargets(set) {
            declared[finding.relation.owningClass]?[finding.relation.field] = .some(finding.relation.targetClass)
        }
        var builder = Builder(index: index, nodes: [])
        builder.nodes.reserveCapacity(set.objects.count * 2)
        for object in set.objects {
            builder.nodes.append(.object(KeyedGraph.Object(archivedClass: ArchivedClass(name: object.className, chain: [object.className]))))
        }
        var top = OrderedDictionary<String, KeyedGraph.Value>()
        for (i, object) in set.objects.enumerated() {
            guard case .dictionary(let fields) = object.typedValue else { continue }
            var converted = OrderedDictionary<String, KeyedGraph.Value>()
            func relation(_ key: String, target: String?, prefix: String) throws(PFError) -> KeyedGraph.Value {
                let ids = object.objectId.flatMap { members["\(object.className)\u{0}\(key)"]?[$0] } ?? []
                var items: [KeyedGraph.Value] = []
                for id in ids {
                    // With the target unknown, a member is a Pointer value naming no class.
                    items.append(try builder.convert(["__type": "Pointer", "className": .string(target ?? ""), "objectId": .string(id)]))
                }
                builder.nodes.append(.array(className: prefix + (target ?? ""), items: items))
                return .node(builder.nodes.count - 1)
            }
            for (key, value) in fields {
                if case .dictionary(let d) = value, d["__type"] == .string("Relation"), case .string(let target)? = d["className"] {
                    converted[key] = try relation(key, target: target, prefix: relationPrefix)
                } else {
                    converted[key] = try builder.convert(value)
                }
            }
            // Relations the rows do not carry (Parse.com exports): from the join rows and schema.
            for (key, target) in declared[object.className] ?? [:] where converted[key] == nil && object.objectId != nil {
                converted[key] = try relation(key, target: target, prefix: joinOnlyPrefix)
            }
            builder.nodes[i] = .object(KeyedGraph.Object(archivedClass: ArchivedClass(name: object.className, chain: [object.className]), fields: converted))
            top[object.objectId.map { "\(object.className)/\($0)" } ?? "\(object.className)#\(i)"] = .node(i)
        }
        return (KeyedGraph(nodes: builder.nodes, top: top), index)
    }

    struct Builder {
        let index: [ParsePointer: Int]
        var nodes: [KeyedGraph.Node]

        mutating func convert(_ value: PFValue) throws(PFError) -> KeyedGraph.Value {
            if let scalar = KeyedGraph.Value(scalar: value) { return scalar }
            switch value {
            case .array(let items):
                var converted: [KeyedGraph.Value] = []
                converted.reserveCapacity(items.count)
                for item in items { converted.append(try convert(item)) }
                nodes.append(.array(className: nil, items: converted))
                return .node(nodes.count - 1)
            case .dictionary(let members):
                if members["__type"] == .string("Pointer"), case .string(let c)? = members["className"], case .string(let id)? = members["objectId"],
                    let target = index[ParsePointer(className: c, objectId: id)]
                {
                    return .node(target)
                }
                var values: [KeyedGraph.Value] = []
                for member in members.values { values.append(try convert(member)) }
                nodes.append(.dictionary(className: nil, keys: members.keys.map { .string($0) }, values: values))
                return .node(nodes.count - 1)
            default:
                throw PFError(GraphCopyFailure.unrepresentable(kind: value.kind.rawValue), format: .parseGraph)
            }
        }
    }

    /// The Parse objects of some nodes of a graph (a copy's new nodes, say), with the join
    /// rows of their relation fields.
    /// - Parameters:
    ///   - graph: the graph.
    ///   - nodes: the object nodes to convert, in order.
    /// - Throws: ``PFCore/PFError`` when a node is not a Parse object, a Pointer target has no
    ///   `objectId`, or ``PFParse/ParseObject/init(rest:className:)`` rejects a field.
    public static func objectSet(_ graph: KeyedGraph, nodes: [Int]) throws(PFError) -> ParseObjectSet {
        var objects: [ParseObject] = []
        var relations: OrderedDictionary<String, ParseRelationRows> = [:]
        for n in nodes {
            guard graph.nodes.indices.contains(n), case .object(let object) = graph.nodes[n] else { continue }
            let className = object.archivedClass.name
            var rest = OrderedDictionary<String, PFValue>()
            let ownerId: String? = if case .string(let id)? = object.fields["objectId"] { id } else { nil }
            for (key, value) in object.fields {
                if case .node(let m) = value, graph.nodes.indices.contains(m), case .array(let c?, let items) = graph.nodes[m],
                    c.hasPrefix(relationPrefix) || c.hasPrefix(joinOnlyPrefix)
                {
                    let inRow = c.hasPrefix(relationPrefix)
                    let target = String(c.dropFirst(inRow ? relationPrefix.count : joinOnlyPrefix.count))
                    if inRow { rest[key] = ["__type": "Relation", "className": .string(target)] }
                    let joinKey = "_Join:\(key):\(className)"
                    var rows = relations[joinKey] ?? ParseRelationRows(owningClass: className, field: key, targetClass: target.isEmpty ? nil : target)
                    defer { relations[joinKey] = rows }
                    guard let ownerId else { continue }
                    for item in items {
                        if case .dictionary(let d) = try restValue(item, graph: graph, path: [.key(key)]), case .string(let id)? = d["objectId"] {
                            rows.rows.append(ParseJoinRow(owningId: ownerId, relatedId: id))
                        }
                    }
                } else {
                    rest[key] = try restValue(value, graph: graph, path: [.key(key)])
                }
            }
            objects.append(try ParseObject(rest: .dictionary(rest), className: className))
        }
        return ParseObjectSet(objects: objects, relations: Array(relations.values))
    }

    static func restValue(_ value: KeyedGraph.Value, graph: KeyedGraph, path: PFKeyPath) throws(PFError) -> PFValue {
        if let scalar = value.scalarValue { return scalar }
        guard case .node(let n) = value, graph.nodes.indices.contains(n) else { return .null }
        switch graph.nodes[n] {
        case .object(let object):
            guard case .string(let id)? = object.fields["objectId"] else {
                throw PFError(GraphCopyFailure.pointerWithoutId(className: object.archivedClass.name), format: .parseGraph, path: path)
            }
            return ["__type": "Pointer", "className": .string(object.archivedClass.name), "objectId": .string(id)]
        case .array(_, let items), .set(_, let items), .orderedSet(_, let items):
            var out: [PFValue] = []
            for (i, item) in items.enumerated() { out.append(try restValue(item, graph: graph, path: path.appending(index: i))) }
            return .array(out)
        case .dictionary(_, let keys, let values):
            var out = OrderedDictionary<String, PFValue>()
            for (k, v) in zip(keys, values) {
                guard case .string(let key) = k else { continue }
                out[key] = try restValue(v, graph: graph, path: path.appending(key: key))
            }
            return .dictionary(out)
        }
    }
}
