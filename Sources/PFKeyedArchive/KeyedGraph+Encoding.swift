import Foundation
import OrderedCollections
import PFCore

extension KeyedGraph {
    /// The graph as an NSKeyedArchiver object table: collections as their Foundation classes
    /// (`NS.objects`, `NS.keys`, `NS.object.N`), dates as `NSDate`, `null` in collections as
    /// the archive's one `NSNull`, generic objects with their fields as archived.
    ///
    /// Only what is reachable from ``top`` is written; each node once, so sharing and cycles
    /// survive. Equal strings, numbers and data are stored once, as CF's writer does.
    /// - Throws: ``PFError`` `limitExceeded` past `maxNodes` objects.
    public func objectTable(limits: PFLimits = .default) throws(PFError) -> KeyedObjectTable {
        var encoder = GraphEncoder(graph: self, builder: ObjectTableBuilder(maxObjects: limits.maxNodes))
        for (key, value) in top {
            encoder.builder.top[key] = try encoder.reference(value)
            try encoder.drain()
        }
        return encoder.builder.table
    }
}

/// Where ``GraphEncoder`` puts the objects it makes: a whole table in memory
/// (``ObjectTableBuilder``), or a binary property list written as they come
/// (``KeyedArchiveStreamWriter``). A reserved object is filled once, later, in any order.
protocol KeyedObjectWriting {
    /// A new object reference, whose object is written later with ``fill(_:with:class:)``.
    mutating func reserve() throws(PFError) -> UInt64
    /// Writes a reserved object: its fields, then its `$class`.
    mutating func fill(_ uid: UInt64, with fields: OrderedDictionary<String, PFValue>, class archivedClass: ArchivedClass)
        throws(PFError)
    /// The reference to a string, number, boolean or data object.
    mutating func scalarReference(_ value: PFValue) throws(PFError) -> UInt64
    /// The reference to an `NSDate` object.
    mutating func dateReference(_ date: Date) throws(PFError) -> UInt64
    /// The reference to the archive's `NSNull` object.
    mutating func nullObjectReference() throws(PFError) -> UInt64
}

extension ObjectTableBuilder: KeyedObjectWriting {}

/// Makes a graph's keyed objects: the one home of how a value becomes objects (Foundation
/// collections with `NS.objects`/`NS.keys`, `$class` objects with their fields, scalars).
struct GraphEncoder<Builder: KeyedObjectWriting> {
    let graph: KeyedGraph
    var builder: Builder
    var nodeUIDs: [Int: UInt64] = [:]
    var pending: [(node: Int, uid: UInt64)] = []

    /// The object reference for a value held by a collection (everything is an object there).
    mutating func reference(_ value: KeyedGraph.Value) throws(PFError) -> UInt64 {
        switch value {
        case .null: return try builder.nullObjectReference()
        case .bool(let b): return try builder.scalarReference(.bool(b))
        case .int(let i): return try builder.scalarReference(.int(i))
        case .uint(let u): return try builder.scalarReference(.uint(u))
        case .double(let d): return try builder.scalarReference(.double(d))
        case .string(let s): return try builder.scalarReference(.string(s))
        case .data(let d): return try builder.scalarReference(.data(d))
        case .date(let d): return try builder.dateReference(d)
        case .node(let index):
            if let uid = nodeUIDs[index] { return uid }
            let uid = try builder.reserve()
            nodeUIDs[index] = uid
            pending.append((index, uid))
            return uid
        }
    }

    /// A field of a generic object: numbers, booleans and data in place (as `encodeInt`,
    /// `encodeBool` and `encodeBytes` write them), nil as `$null`, the rest as references.
    mutating func field(_ value: KeyedGraph.Value) throws(PFError) -> PFValue {
        switch value {
        case .null: return .uid(0)
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .uint(let u): return .uint(u)
        case .double(let d): return .double(d)
        case .data(let d): return .data(d)
        case .string, .date: return .uid(try reference(value))
        case .node(let index):
            // Containers that were stored in place stay in place.
            if graph.nodes.indices.contains(index) {
                switch graph.nodes[index] {
                case .array(nil, let items):
                    var out: [PFValue] = []
                    for item in items { out.append(try field(item)) }
                    return .array(out)
                case .dictionary(nil, let keys, let values):
                    var out = OrderedDictionary<String, PFValue>()
                    for (key, item) in zip(keys, values) {
                        guard case .string(let name) = key else { continue }
                        out[name] = try field(item)
                    }
                    return .dictionary(out)
                default: break
                }
            }
            return .uid(try reference(value))
        }
    }

    mutating func drain() throws(PFError) {
        while let (index, uid) = pending.popLast() {
            try write(graph.nodes[index], at: uid)
        }
    }

    mutating func references(_ items: [KeyedGraph.Value]) throws(PFError) -> PFValue {
        var out: [PFValue] = []
        out.reserveCapacity(items.count)
        for item in items { out.append(.uid(try reference(item))) }
        return .array(out)
    }

    mutating func write(_ node: KeyedGraph.Node, at uid: UInt64) throws(PFError) {
        switch node {
        case .array(let className, let items):
            try builder.fill(uid, with: ["NS.objects": try references(items)], class: .foundation(className ?? "NSArray"))
        case .set(let className, let items):
            try builder.fill(uid, with: ["NS.objects": try references(items)], class: .foundation(className))
        case .orderedSet(let className, let items):
            var fields = OrderedDictionary<String, PFValue>()
            for (i, item) in items.enumerated() { fields["NS.object.\(i)"] = .uid(try reference(item)) }
            try builder.fill(uid, with: fields, class: .foundation(className))
        case .dictionary(let className, let keys, let values):
            let fields: OrderedDictionary<String, PFValue> = [
                "NS.keys": try references(keys), "NS.objects": try references(values),
            ]
            try builder.fill(uid, with: fields, class: .foundation(className ?? "NSDictionary"))
        case .object(let object):
            var fields = OrderedDictionary<String, PFValue>()
            for (key, value) in object.fields { fields[key] = try field(value) }
            try builder.fill(uid, with: fields, class: object.archivedClass)
        }
    }
}
