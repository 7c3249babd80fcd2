import Foundation
import OrderedCollections
import PFCore
import PFParse

/// A store held in memory: the reference implementation of both store protocols, for tests,
/// small jobs and as the target that other stores' round trips are compared in.
public final class MemoryStore: ObjectStoreReader, ObjectStoreWriter {
    public let location: String
    /// The committed objects per class, in insertion order, keyed by objectId (objects without
    /// an id are keyed by their position, `#<n>`).
    public private(set) var objectsByClass: OrderedDictionary<String, OrderedDictionary<String, ParseObject>>
    /// The committed join rows per relation.
    public private(set) var joinRowsByRelation: OrderedDictionary<ParseRelationKey, OrderedSet<ParseJoinRow>>
    /// The committed schema (merged over imports); inferred from the objects when empty.
    public private(set) var storedSchema: ParseSchema

    private var pending: (objects: OrderedDictionary<String, OrderedDictionary<String, ParseObject>>,
                          joins: OrderedDictionary<ParseRelationKey, OrderedSet<ParseJoinRow>>,
                          schema: ParseSchema)?

    /// Makes a store.
    /// - Parameters:
    ///   - location: a name for messages.
    ///   - objects: objects to start with (any classes).
    ///   - joinRows: join rows to start with.
    ///   - schema: a schema to start with; inferred from `objects` when `nil`.
    public init(
        location: String = "memory", objects: [ParseObject] = [],
        joinRows: [ParseRelationKey: [ParseJoinRow]] = [:], schema: ParseSchema? = nil
    ) {
        self.location = location
        var byClass = OrderedDictionary<String, OrderedDictionary<String, ParseObject>>()
        for object in objects { Self.insert(object, into: &byClass) }
        self.objectsByClass = byClass
        var joins = OrderedDictionary<ParseRelationKey, OrderedSet<ParseJoinRow>>()
        for key in joinRows.keys.sorted() { joins[key] = OrderedSet(joinRows[key] ?? []) }
        self.joinRowsByRelation = joins
        self.storedSchema = schema ?? ParseSchema()
    }

    private static func insert(
        _ object: ParseObject, into byClass: inout OrderedDictionary<String, OrderedDictionary<String, ParseObject>>
    ) {
        let key = object.objectId ?? "#\(byClass[object.className]?.count ?? 0)"
        byClass[object.className, default: [:]][key] = object
    }

    // MARK: Reading

    public func classNames() throws(PFError) -> [String] {
        var names = OrderedSet(storedSchema.classes.keys)
        names.append(contentsOf: objectsByClass.keys)
        return Array(names)
    }

    public func schema() throws(PFError) -> ParseSchema {
        var schema = storedSchema
        for (className, objects) in objectsByClass {
            if schema.classes[className] == nil { schema.classes[className] = [:] }
            for object in objects.values { schema.addFields(of: object) }
        }
        return schema
    }

    public func estimatedObjectCount(in className: String) -> Int? { objectsByClass[className]?.count ?? 0 }

    public func forEachObject(in className: String, _ body: (ParseObject) throws(PFError) -> Void) throws(PFError) {
        guard let objects = objectsByClass[className] else { return }
        for object in objects.values { try body(object) }
    }

    public func relations() throws(PFError) -> [ParseRelationKey] {
        let schema = try schema()
        var keys = OrderedSet(joinRowsByRelation.keys.map { ParseRelationKey(owningClass: $0.owningClass, field: $0.field) })
        for (className, fields) in schema.classes {
            for (name, field) in fields where field.type == .relation {
                keys.append(ParseRelationKey(owningClass: className, field: name))
            }
        }
        return keys.sorted().map {
            ParseRelationKey(owningClass: $0.owningClass, field: $0.field, targetClass: schema.classes[$0.owningClass]?[$0.field]?.targetClass)
        }
    }

    public func forEachJoinRow(of relation: ParseRelationKey, _ body: (ParseJoinRow) throws(PFError) -> Void) throws(PFError) {
        let key = ParseRelationKey(owningClass: relation.owningClass, field: relation.field)
        for (k, rows) in joinRowsByRelation where ParseRelationKey(owningClass: k.owningClass, field: k.field) == key {
            for row in rows { try body(row) }
        }
    }

    public func close() {}

    // MARK: Writing

    public func begin(schema: ParseSchema) throws(PFError) {
        var merged = storedSchema
        merged.merge(schema, replacing: true)
        pending = (objectsByClass, joinRowsByRelation, merged)
    }

    public func extend(schema: ParseSchema) throws(PFError) {
        guard var state = pending else { throw Self.notBegun(location) }
        pending = nil
        state.schema.merge(schema, replacing: false)
        pending = state
    }

    public func write(_ objects: [ParseObject], className: String) throws(PFError) {
        guard var state = pending else { throw Self.notBegun(location) }
        pending = nil  // so `state` is the only reference and is not copied on write
        for object in objects { Self.insert(object, into: &state.objects) }
        pending = state
    }

    public func write(_ rows: [ParseJoinRow], relation: ParseRelationKey) throws(PFError) {
        guard var state = pending else { throw Self.notBegun(location) }
        pending = nil
        let key = ParseRelationKey(owningClass: relation.owningClass, field: relation.field)
        state.schema.addRelation(relation)
        state.joins[key, default: []].append(contentsOf: rows)
        pending = state
    }

    public func commit() throws(PFError) {
        guard let pending else { throw Self.notBegun(location) }
        objectsByClass = pending.objects
        joinRowsByRelation = pending.joins
        storedSchema = pending.schema
        self.pending = nil
    }

    public func abort() { pending = nil }

    static func notBegun(_ location: String) -> PFError {
        PFError(StoreFailure.notWriting(location: location), format: StoreFailure.format)
    }
}
