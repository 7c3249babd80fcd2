import Foundation
import OrderedCollections
import PFCore
import PFParse
import PFStores

/// Applies the JSON Patch that ``StoreDiff`` writes for two stores (`pfarchive diff --json`)
/// to a store, giving a new store: `patch(A, diff(A, B))` holds what B holds.
///
/// The patch addresses the *document view* of a store, the view ``StoreDiff``'s pointers name:
///
/// ```
/// { "<Class>":               { "<objectId>": {fields, typed, without objectId}, … },
///   "_Join:<field>:<Class>": { "<owningId>,<relatedId>": true, … },
///   "_SCHEMA":               { "<Class>": { "<field>": "Pointer<Team>", … }, … } }
/// ```
///
/// Every class of the store is in the view (empty when it has no objects), and so is every
/// class, relation and `_SCHEMA` class that an operation of the patch names below it, empty,
/// so that adding the first object of a class the store lacks applies. The view holds the whole
/// store in memory: patching a store is for the differences a comparison found, on stores that
/// fit in memory (the comparison itself is bounded; see ``StoreDiff``).
public enum StorePatch {
    /// The key of the schema in the document view.
    public static let schemaKey = "_SCHEMA"

    /// Reads a store into its document view.
    /// - Parameter store: any store reader.
    /// - Returns: the view (see the type's documentation).
    /// - Throws: what the store throws.
    public static func document(of store: any ObjectStoreReader) throws(PFError) -> PFValue {
        var view = OrderedDictionary<String, PFValue>()
        for className in try store.classNames() {
            var objects = OrderedDictionary<String, PFValue>()
            var counter = 0
            try store.forEachObject(in: className) { (object: ParseObject) throws(PFError) in
                counter += 1
                objects[object.objectId ?? "(no objectId #\(counter))"] = StoreDiff.value(of: object)
            }
            view[className] = .dictionary(objects)
        }
        for relation in try store.relations() {
            var rows = OrderedDictionary<String, PFValue>()
            try store.forEachJoinRow(of: relation) { (row: ParseJoinRow) throws(PFError) in
                rows["\(row.owningId),\(row.relatedId)"] = .bool(true)
            }
            view[relation.joinClassName] = .dictionary(rows)
        }
        var schema = OrderedDictionary<String, PFValue>()
        for (className, fields) in try store.schema().classes {
            schema[className] = .dictionary(OrderedDictionary(uniqueKeysWithValues: fields.map { ($0.key, PFValue.string($0.value.description)) }))
        }
        view[schemaKey] = .dictionary(schema)
        return .dictionary(view)
    }

    /// Applies a patch to a store's document view and returns the store it describes.
    /// - Parameters:
    ///   - patch: operations from `diff --json` on two stores.
    ///   - store: the store to start from (read whole).
    /// - Returns: a memory store holding the patched objects, join rows and schema, ready to be
    ///   imported into any destination.
    /// - Throws: ``PFCore/PFError`` when an operation does not apply or the result is not a
    ///   store's view (an object that is not a dictionary, a join key without a comma, …).
    public static func apply(_ patch: JSONPatch, to store: any ObjectStoreReader) throws(PFError) -> MemoryStore {
        let view = prepared(try document(of: store), for: patch)
        return try self.store(from: try patch.apply(to: view), location: store.location)
    }

    /// The view with an empty dictionary at every class, relation and schema class an
    /// operation names below it, so that JSON Patch's "the parent must exist" holds.
    static func prepared(_ view: PFValue, for patch: JSONPatch) -> PFValue {
        guard case .dictionary(var top) = view else { return view }
        for op in patch.operations {
            for pointer in [op.path] + (op.from.map { [$0] } ?? []) {
                let tokens = pointer.tokens
                guard tokens.count >= 2 else { continue }
                if top[tokens[0]] == nil { top[tokens[0]] = .dictionary([:]) }
                if tokens[0] == schemaKey, tokens.count >= 3, case .dictionary(var schema)? = top[schemaKey], schema[tokens[1]] == nil {
                    schema[tokens[1]] = .dictionary([:])
                    top[schemaKey] = .dictionary(schema)
                }
            }
        }
        return .dictionary(top)
    }

    /// The store a document view describes.
    /// - Parameters:
    ///   - document: a view, as ``document(of:)`` makes it.
    ///   - location: a name for messages.
    /// - Throws: ``PFCore/PFError`` `invalidValue` with the path of what is not a view.
    public static func store(from document: PFValue, location: String = "patched store") throws(PFError) -> MemoryStore {
        guard case .dictionary(let top) = document else {
            throw PFError(DiffFailure.patchedStoreNotDictionary, format: .jsonPatch)
        }
        var schema = ParseSchema()
        if let value = top[schemaKey] {
            guard case .dictionary(let classes) = value else {
                throw PFError(DiffFailure.patchedSchemaNotDictionary, format: .jsonPatch, path: PFKeyPath([.key(schemaKey)]))
            }
            for (className, fieldsValue) in classes {
                guard case .dictionary(let fields) = fieldsValue else {
                    throw PFError(DiffFailure.patchedSchemaClassNotDictionary, format: .jsonPatch, path: PFKeyPath([.key(schemaKey), .key(className)]))
                }
                var out = OrderedDictionary<String, ParseSchema.Field>()
                for (field, type) in fields {
                    guard case .string(let text) = type else {
                        throw PFError(DiffFailure.patchedFieldTypeNotString, format: .jsonPatch,
                            path: PFKeyPath([.key(schemaKey), .key(className), .key(field)]))
                    }
                    out[field] = Self.field(text)
                }
                schema.classes[className] = out
            }
        }
        var objects: [ParseObject] = []
        var joins: [ParseRelationKey: [ParseJoinRow]] = [:]
        for (name, value) in top where name != schemaKey {
            guard case .dictionary(let members) = value else {
                throw PFError(DiffFailure.patchedClassNotDictionary, format: .jsonPatch, path: PFKeyPath([.key(name)]))
            }
            if let relation = ParseRelationKey(joinClassName: name) {
                let key = ParseRelationKey(owningClass: relation.owningClass, field: relation.field,
                    targetClass: schema.classes[relation.owningClass]?[relation.field]?.targetClass)
                var rows: [ParseJoinRow] = []
                for (pair, present) in members {
                    guard present == .bool(true), let comma = pair.firstIndex(of: ",") else {
                        throw PFError(DiffFailure.patchedJoinRow, format: .jsonPatch,
                            path: PFKeyPath([.key(name), .key(pair)]))
                    }
                    rows.append(ParseJoinRow(owningId: String(pair[..<comma]), relatedId: String(pair[pair.index(after: comma)...])))
                }
                // A relation the patch emptied and whose field it removed from the schema is
                // gone (an empty relation would declare the field again in the new store).
                if rows.isEmpty && schema.classes[relation.owningClass]?[relation.field] == nil { continue }
                joins[key, default: []] += rows
                continue
            }
            if schema.classes[name] == nil { schema.classes[name] = [:] }
            for (objectId, fields) in members {
                guard case .dictionary(var m) = fields else {
                    throw PFError(DiffFailure.patchedObjectNotDictionary, format: .jsonPatch, path: PFKeyPath([.key(name), .key(objectId)]))
                }
                m.updateValue(.string(objectId), forKey: "objectId", insertingAt: 0)
                do {
                    objects.append(try ParseObject(rest: .dictionary(m), className: name, checkingNames: false))
                } catch {
                    throw error.at(PFKeyPath([.key(name), .key(objectId)]))
                }
            }
        }
        return MemoryStore(location: location, objects: objects, joinRows: joins, schema: schema)
    }

    /// A schema field from its description (`Number`, `Pointer<Team>`, `Relation<_User>`).
    static func field(_ text: String) -> ParseSchema.Field {
        if text.hasSuffix(">"), let open = text.firstIndex(of: "<") {
            return ParseSchema.Field(ParseFieldType(rawValue: String(text[..<open])), targetClass: String(text[text.index(after: open)..<text.index(before: text.endIndex)]))
        }
        return ParseSchema.Field(ParseFieldType(rawValue: text))
    }
}
