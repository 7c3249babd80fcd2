import Foundation
import OrderedCollections
import PFCore
import PFCoreData
import PFParse
import PFSQLiteSource

/// A Core Data SQLite store as a read-only source of Parse-like objects, so it can be
/// imported into any other store.
///
/// Each concrete entity is a class (className = entity name); objects get the stable id
/// `<Entity>-<Z_PK>` (``PFCoreData/CoreDataStore/objectID(entity:primaryKey:)``); to-one
/// relationships are Pointers and to-many ones Relations whose pairs are join rows. The
/// store is opened through ``PFCoreData/CoreDataStore/open(url:model:options:)``, which
/// works on a private copy, so the user's files (`-wal`/`-shm` included) are never touched.
public final class CoreDataObjectStore: ObjectStoreReader {
    /// The opened Core Data store (model, layout, working copy).
    public let store: CoreDataStore
    /// Values kept as stored instead of converted, or left out, with where they are, over
    /// every read so far (the first 1,000 kept, all counted).
    public private(set) var reports = SQLiteRowReports()
    /// Called with each report as it is made (the CLI prints them on stderr), as
    /// ``SQLiteDatabaseObjectStore/onReport`` is.
    public var onReport: (@Sendable (SQLiteRowReport) -> Void)? {
        get { reports.onReport }
        set { reports.onReport = newValue }
    }
    private var closed = false
    /// Per class, the fields of attributes whose values are decoded payloads
    /// (``PFCoreData/CoreDataStore/decodesPayloads(of:)``): typed by their values
    /// (``ValueTypedFields``), not by the model.
    private lazy var decodedFields: [String: Set<String>] = {
        var out: [String: Set<String>] = [:]
        for entity in store.entities where !entity.isAbstract {
            let names = entity.fieldNames
            let fields = entity.attributes.filter { !$0.isTransient && store.decodesPayloads(of: $0) }.map { names[$0.name] ?? $0.name }
            if !fields.isEmpty { out[entity.name] = Set(fields) }
        }
        return out
    }()
    /// The decoded fields' types as read so far, and the fields values of another type moved to.
    private var learned = ParseSchema()
    /// Classes read whole.
    private var read: Set<String> = []
    /// Whether a read is only for the types (``schema()``'s first read of a class): its
    /// reports are made again, once, by the read that hands the objects on.
    private var learningOnly = false

    /// Opens a Core Data store read-only.
    /// - Parameters:
    ///   - url: the `.sqlite` (or `.storedata`) file.
    ///   - model: a compiled `.mom`/`.momd` to use instead of the model cached in the store.
    ///   - options: limits and reading options.
    /// - Throws: ``PFCore/PFError`` when the file is not a Core Data store or cannot be read.
    public init(url: URL, model: URL? = nil, options: CoreDataStore.Options = .init()) throws(PFError) {
        store = try CoreDataStore.open(url: url, model: model, options: options)
    }

    /// Wraps a store opened already.
    public init(_ store: CoreDataStore) {
        self.store = store
    }

    public var location: String { store.url.path }

    /// Rows whose `Z_ENT` names no entity read and columns no property is stored in
    /// (``PFCoreData/CoreDataStore/unreadNotes()``).
    public func unreadContents() -> [String] {
        do throws(PFError) {
            return try store.unreadNotes()
        } catch {
            return ["what the tables hold besides the model's objects could not be counted: \(error.message)"]
        }
    }

    /// The concrete (non-abstract) entities, in the store's entity order.
    public func classNames() throws(PFError) -> [String] {
        store.entities.filter { !$0.isAbstract }.map(\.name)
    }

    /// The schema from the model: attribute types mapped to Parse types (integers, decimals
    /// and floats → Number, UUID and URI → String, binary data → Bytes, transformable →
    /// Object), to-one relationships → Pointer and to-many → Relation with their destination.
    /// A `createdAt` or `updatedAt` Date attribute is Parse's own column of every object, not a
    /// field of the schema, as in every other store.
    ///
    /// A decoded payload is whatever was archived (a Transformable holds Strings, Arrays,
    /// Objects…): such a field takes its first non-null value's type, a value of another type
    /// goes to `<field>_as_<type>` (``ValueTypedFields``), and the field keeps the model's type
    /// only when every value is null. A class with such fields not read yet is read for this.
    public func schema() throws(PFError) -> ParseSchema {
        for className in decodedFields.keys.sorted() where !read.contains(className) {
            learningOnly = true
            defer { learningOnly = false }
            // A row that does not read stops only the read that hands its objects on (an
            // import of other classes with --classes never meets it).
            do throws(PFError) { try forEachObject(in: className) { _ in } } catch { continue }
        }
        var schema = modelSchema()
        for (className, fields) in learned.classes {
            for (name, field) in fields { schema.classes[className]?[name] = field }
        }
        return schema
    }

    /// ``schema()``: for a store with decoded payloads, their classes are read first, so a
    /// destination gets every field's type (and the model's Pointer targets) before any object.
    public func declaredSchema() throws(PFError) -> ParseSchema? { try schema() }

    /// The schema as the model declares it (``schema()``, without what the values say).
    private func modelSchema() -> ParseSchema {
        var schema = ParseSchema()
        for entity in store.entities where !entity.isAbstract {
            var fields = OrderedDictionary<String, ParseSchema.Field>()
            let unmapped = store.unmappedProperties(entity: entity.name)
            let names = entity.fieldNames
            for attribute in entity.attributes where !attribute.isTransient && unmapped[attribute.name] == nil {
                guard let type = Self.parseType(attribute.type) else { continue }
                if type == .date, attribute.name == "createdAt" || attribute.name == "updatedAt" { continue }
                fields[names[attribute.name] ?? attribute.name] = ParseSchema.Field(type)
            }
            for relationship in entity.relationships where !relationship.isTransient && unmapped[relationship.name] == nil {
                fields[names[relationship.name] ?? relationship.name] = ParseSchema.Field(
                    relationship.isToMany ? .relation : .pointer, targetClass: relationship.destination)
            }
            schema.classes[entity.name] = fields
        }
        return schema
    }

    public func estimatedObjectCount(in className: String) -> Int? {
        try? store.rowCount(entity: className)
    }

    /// Streams an entity's objects (see ``PFCoreData/CoreDataStore/objects(entity:batchSize:)``).
    /// A value that does not fit Parse's rules throws with the entity, row id and key.
    public func forEachObject(in className: String, _ body: (ParseObject) throws(PFError) -> Void) throws(PFError) {
        var cursor = try store.objects(entity: className)
        cursor.onReport = learningOnly ? nil : onReport
        defer { if !learningOnly { reports.absorb(cursor.reports) } }
        let decoded = decodedFields[className]
        // Moved fields take no name a property of the entity has.
        let taken = decoded == nil ? [] : Set((store.model.entity(named: className)?.fieldNames.values).map { $0.map { $0.lowercased() } } ?? [])
        while let row = try cursor.next() {
            var object: ParseObject
            do throws(PFError) {
                object = try parseObject(row, className: className)
                if let decoded { object = try typedByValues(object, decoded: decoded, taken: taken) }
            } catch {
                // The source is Core Data: Parse's rules judged the value, but the failure is
                // the store's, so it is not reported under Parse's name.
                var e = error
                e.format = .coreData
                let id = row["objectId"]?.stringValue ?? "?"
                // ParseObject's message may already start with the class and id: say them once.
                let object = "\(className) \(id): "
                if e.message.hasPrefix(object) { e.message.removeFirst(object.count) }
                e.message = "\(store.url.lastPathComponent): \(object)\(e.message)"
                throw e
            }
            try body(object)
        }
        read.insert(className)
    }

    /// The object with each decoded field of another type than that field's first value moved
    /// (``ValueTypedFields``); then the types of the fields met for the first time are learned.
    private func typedByValues(_ object: ParseObject, decoded: Set<String>, taken: Set<String>) throws(PFError) -> ParseObject {
        let className = object.className
        var result = object
        if let known = learned.classes[className],
            let fields = ValueTypedFields.movingConflicts(object.fields, known: known, taken: taken, among: decoded)
        {
            result = try object.replacingFields(fields)
        }
        for (key, value) in result.fields where learned.classes[className]?[key] == nil && (decoded.contains(key) || !taken.contains(key.lowercased())) {
            if let field = ParseSchema.fieldType(of: value) { learned.classes[className, default: [:]][key] = field }
        }
        return result
    }

    /// The row as a Parse object. A `createdAt`/`updatedAt` attribute is Parse's own date; a
    /// row whose value there Parse refuses (text kept as stored) keeps it under
    /// `<key>_coreData`, with a report, instead of failing the whole read.
    private func parseObject(_ row: PFValue, className: String) throws(PFError) -> ParseObject {
        var row = row
        while true {
            do throws(PFError) {
                return try ParseObject(rest: row, className: className, checkingNames: false)
            } catch {
                guard case .badTimestamp(let key, _)? = error.failure(as: ParseFailure.self),
                    key == "createdAt" || key == "updatedAt",
                    case .dictionary(var members) = row, let value = members.removeValue(forKey: key)
                else { throw error }
                // Not a property's field either: in rows where that property is NULL (left
                // out), the moved value would share its field.
                let fields = Set((store.model.entity(named: className)?.fieldNames.values).map(Array.init) ?? [])
                var moved = key + "_coreData"
                while members[moved] != nil || fields.contains(moved) { moved += "_" }
                members[moved] = value
                row = .dictionary(members)
                if !learningOnly {
                    reports.add(
                        SQLiteRowReport(
                            table: className, objectId: row["objectId"]?.stringValue ?? "?", column: key,
                            message: "not a date Parse accepts for \(key); kept as \(moved)"))
                }
            }
        }
    }

    /// Every stored to-many relationship of a concrete entity.
    public func relations() throws(PFError) -> [ParseRelationKey] {
        var keys: [ParseRelationKey] = []
        for entity in store.entities where !entity.isAbstract {
            let unmapped = store.unmappedProperties(entity: entity.name)
            let names = entity.fieldNames
            for relationship in entity.relationships
            where relationship.isToMany && !relationship.isTransient && unmapped[relationship.name] == nil {
                keys.append(
                    ParseRelationKey(
                        owningClass: entity.name, field: names[relationship.name] ?? relationship.name,
                        targetClass: relationship.destination))
            }
        }
        return keys
    }

    /// The pairs of a to-many relationship (ordered relationships in their order).
    public func forEachJoinRow(of relation: ParseRelationKey, _ body: (ParseJoinRow) throws(PFError) -> Void) throws(PFError) {
        // The relationship whose field this is (a field is not always its relationship's name).
        let names = store.model.entity(named: relation.owningClass)?.fieldNames ?? [:]
        let name = names.first { $0.value == relation.field }?.key ?? relation.field
        for row in try store.joinRows(entity: relation.owningClass, relationship: name) {
            try body(ParseJoinRow(owningId: row.owningId, relatedId: row.relatedId))
        }
    }

    public func close() {
        guard !closed else { return }
        closed = true
        store.close()
    }

    deinit { close() }

    /// The Parse type of a Core Data attribute type, or `nil` for types that are not stored.
    static func parseType(_ type: CoreDataAttributeType) -> ParseFieldType? {
        switch type {
        case .integer16, .integer32, .integer64, .decimal, .double, .float: .number
        case .string, .uuid, .uri, .objectID: .string
        case .boolean: .boolean
        case .date: .date
        case .binaryData: .bytes
        case .transformable, .composite: .object
        case .undefined, .unknown: nil
        }
    }

}
