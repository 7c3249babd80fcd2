import Foundation
import OrderedCollections
import PFCore
import PFParse
import PFRealm

/// A Realm file (`.realm`) as a read-only source of Parse-like objects, so it can be
/// imported into any other store.
///
/// Each top-level model class is a class (the model's name, without the file's `class_`
/// prefix; a name Parse forbids as a class name, such as .NET's `__RemappedTypeObject`, is
/// made valid and marked `_realm` as ``SourceClassNames`` says: `RemappedTypeObject_realm`);
/// internal and sync tables (`metadata`, `pk`, `__*`, `flx_*`) are left out.
/// An object's objectId is its primary key as text where the class has one (an ObjectId as
/// 24 hex digits, a UUID in lowercase), otherwise `<Class>-<object key>`. Links are Pointers
/// (to that id), lists and sets of links arrays of Pointers in the list's order, embedded
/// objects nested Objects, dictionaries Objects; a link whose target is not in the file is
/// null (``RealmDatabase/unresolvedLinks`` lists them). Backlinks (inverse relationships)
/// are not stored: they are the links seen from the other side.
public final class RealmObjectStore: ObjectStoreReader {
    /// The opened file.
    public let database: RealmDatabase
    /// The file's path.
    public let url: URL
    /// Each top-level class's name as read, by its model name (``SourceClassNames``).
    public let classNameOfTable: [String: String]
    private let tableOfClass: [String: String]

    /// Opens a Realm file read-only (its bytes are read once; nothing is written or locked).
    /// - Parameters:
    ///   - url: the `.realm` file.
    ///   - key: the 64-byte key of an encrypted file.
    ///   - limits: the decoding limits.
    /// - Throws: ``PFCore/PFError`` when the file is not a readable Realm file.
    public init(url: URL, key: [UInt8]? = nil, limits: PFLimits = .default) throws(PFError) {
        self.url = url
        do {
            database = try RealmDatabase(url: url, key: key, limits: limits)
        } catch {
            throw Self.located(error, url)
        }
        classNameOfTable = SourceClassNames.make(for: database.topLevelClasses.map(\.name), suffix: "_realm")
        tableOfClass = Dictionary(classNameOfTable.map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// The class a model class is read as.
    func className(ofTable name: String) -> String { classNameOfTable[name] ?? name }

    private static func located(_ error: PFError, _ url: URL) -> PFError {
        var e = error
        if !e.message.hasPrefix(url.lastPathComponent + ": ") { e.message = "\(url.lastPathComponent): \(e.message)" }
        return e
    }

    public var location: String { url.path }

    /// Tables that hold rows but are no model class and no table an SDK keeps for itself
    /// (``PFRealm/RealmDatabase/tablesOutsideTheModel()``): data written without an SDK
    /// (realm-core's own files), one line each with the way to read it.
    public func unreadContents() -> [String] { Self.unreadNotes(database, file: url.lastPathComponent) }

    /// The lines of ``unreadContents()`` for a database read from `file`.
    public static func unreadNotes(_ database: RealmDatabase, file: String) -> [String] {
        database.tablesOutsideTheModel().map { table, count in
            "\(table): \(count) row\(count == 1 ? "" : "s") in a table that is not a model class (no class_ prefix); "
                + "not read (pfarchive convert \(file) out.json --internal-tables writes it)"
        }
    }

    /// The top-level model classes, in the file's order.
    public func classNames() throws(PFError) -> [String] { database.topLevelClasses.map { className(ofTable: $0.name) } }

    /// The schema from the file's specs: integers, floats and doubles → Number, bool →
    /// Boolean, string, ObjectId, UUID and Decimal128 → String, data → Bytes, date → Date,
    /// a link → Pointer to its class (Object for an embedded class), lists and sets → Array,
    /// dictionaries → Object, a typed link (whose values name their class) → Object. A Mixed
    /// property has no one type: it is typed by its first non-null value, as a destination
    /// that imports the objects types it (the class's objects are read for this; a Mixed
    /// property null in every object is left out, as the destination leaves it). Each field
    /// carries the model's flags: required (not optional), indexed, primary key, and the
    /// embedded class of an embedded object.
    public func schema() throws(PFError) -> ParseSchema {
        // Read once per store: typing a Mixed property reads its class's objects.
        if let known = learnedSchema { return known }
        var schema = try modelSchema()
        for table in database.topLevelClasses {
            let mixed = zip(table.columns, Self.fieldNames(of: table)).filter { $0.0.type == .mixed && $0.0.collection == .none }.map(\.1)
            let name = className(ofTable: table.name)
            guard !mixed.isEmpty, let declared = schema.classes[name] else { continue }
            var learned = ParseSchema()
            try forEachObject(in: name) { (object) throws(PFError) in learned.addFields(of: object) }
            // In the class's field order, as the model lists them.
            var fields = OrderedDictionary<String, ParseSchema.Field>()
            for field in Self.fieldNames(of: table) {
                if let declaredField = declared[field] {
                    fields[field] = declaredField
                } else if mixed.contains(field), let learnedField = learned.classes[name]?[field] {
                    fields[field] = learnedField
                }
            }
            schema.classes[name] = fields
        }
        learnedSchema = schema
        return schema
    }

    /// The schema with its Mixed properties typed, once ``schema()`` has read it.
    private var learnedSchema: ParseSchema?

    /// The schema the model declares (``schema()`` without its Mixed properties): what an
    /// import begins with, leaving each Mixed property to be typed by its first value.
    public func declaredSchema() throws(PFError) -> ParseSchema? { try modelSchema() }

    /// The schema from the file's specs alone (``schema()``, Mixed properties left out).
    func modelSchema() throws(PFError) -> ParseSchema {
        var schema = ParseSchema()
        for table in database.topLevelClasses {
            var fields = OrderedDictionary<String, ParseSchema.Field>()
            for (column, name) in zip(table.columns, Self.fieldNames(of: table)) {
                guard var field = parseField(column) else { continue }
                // The model's flags travel with the field (pfarchive's SQLite store and
                // PostgreSQL index them; every store keeps the values themselves).
                field.isRequired = !column.isNullable && column.collection == .none && column.type != .mixed
                field.isIndexed = column.isIndexed
                field.isPrimaryKey = column.name == table.primaryKey
                if column.type == .link || column.type == .linkList, let target = column.targetTable,
                    database.tables.indices.contains(target), database.tables[target].isEmbedded
                {
                    field.embeddedClass = database.tables[target].name
                }
                fields[name] = field
            }
            schema.classes[className(ofTable: table.name)] = fields
        }
        return schema
    }

    func parseField(_ column: RealmColumn) -> ParseSchema.Field? {
        switch column.collection {
        case .list, .set: return ParseSchema.Field(.array)
        case .dictionary: return ParseSchema.Field(.object)
        case .none: break
        }
        switch column.type {
        case .int, .float, .double: return ParseSchema.Field(.number)
        case .bool: return ParseSchema.Field(.boolean)
        case .string, .objectId, .uuid, .decimal: return ParseSchema.Field(.string)
        case .binary: return ParseSchema.Field(.bytes)
        case .timestamp: return ParseSchema.Field(.date)
        case .link, .linkList:
            guard let i = column.targetTable, database.tables.indices.contains(i) else { return nil }
            let target = database.tables[i]
            return target.isEmbedded ? ParseSchema.Field(.object) : ParseSchema.Field(.pointer, targetClass: className(ofTable: target.name))
        // A typed link names its target in each value (`{"$class": …, "$id": …}`): an Object.
        case .typedLink: return ParseSchema.Field(.object)
        // Mixed has no one type: the field is left to the destination, which types it by its
        // first value (Docs/Realm.md, "Mixed"); lists, sets and dictionaries of Mixed are
        // Arrays and Objects above.
        case .mixed, .backlink: return nil
        }
    }

    public func estimatedObjectCount(in className: String) -> Int? {
        guard let table = database.table(named: tableOfClass[className] ?? className) else { return nil }
        return try? database.objectCount(table)
    }

    /// Streams a class's objects in key order.
    public func forEachObject(in className: String, _ body: (ParseObject) throws(PFError) -> Void) throws(PFError) {
        guard let table = database.table(named: tableOfClass[className] ?? className), table.isModelClass, !table.isEmbedded else {
            throw PFError(StoreFailure.noClass(location: url.lastPathComponent, className: className), format: RealmFile.format)
        }
        do {
            let names = Self.fieldNames(of: table)
            try database.forEachObject(of: table) { (object) throws(PFError) in
                var row = OrderedDictionary<String, PFValue>()
                row["objectId"] = .string(Self.objectId(database.identity(of: object, in: table), key: object.key, table: table))
                for (i, (column, value)) in zip(table.columns, object.values).enumerated() {
                    row[names[i]] = try parseValue(value, origin: "\(table.name).\(column.name)", depth: 0)
                }
                let parsed: ParseObject
                do throws(PFError) {
                    parsed = try ParseObject(rest: .dictionary(row), className: className, checkingNames: false)
                } catch {
                    var e = error
                    e.format = RealmFile.format
                    e.message = "\(className) \(row["objectId"]?.stringValue ?? "?"): \(e.message)"
                    throw e
                }
                try body(parsed)
            }
        } catch {
            throw Self.located(error, url)
        }
    }

    /// The objectId of an object: its primary key as text, or `<Class>-<key>`.
    static func objectId(_ identity: PFValue, key: Int64, table: RealmTable) -> String {
        guard table.primaryKey != nil else { return "\(table.name)-\(key)" }
        switch identity {
        case .string(let s): return s
        case .int(let i): return String(i)
        case .null: return "\(table.name)-null"
        default: return identity.description
        }
    }

    /// A value in Parse's REST shape.
    func parseValue(_ value: RealmValue, origin: String, depth: Int) throws(PFError) -> PFValue {
        guard depth < 100 else { throw PFLimits.exceeded("maxDepth", 100, format: RealmFile.format) }
        switch value {
        case .link(let table, let key):
            switch try database.resolve(table: table, key: key, from: origin) {
            case .embedded(let t, let object)?:
                var out = OrderedDictionary<String, PFValue>()
                for (column, v) in zip(t.columns, object.values) {
                    out[column.name] = try parseValue(v, origin: "\(t.name).\(column.name)", depth: depth + 1)
                }
                return .dictionary(out)
            case .object(let t, let id)?:
                return [
                    "__type": ParseFieldType.pointer.restTag, "className": .string(className(ofTable: t.name)),
                    "objectId": .string(Self.objectId(id, key: key, table: t)),
                ]
            case nil:
                return .null
            }
        case .typedLink:
            return try database.json(value, origin: origin)
        case .list(let a), .set(let a):
            var out: [PFValue] = []
            for element in a { out.append(try parseValue(element, origin: origin, depth: depth + 1)) }
            return .array(out)
        case .dictionary(let entries):
            var out = OrderedDictionary<String, PFValue>()
            for entry in entries { out[entry.key] = try parseValue(entry.value, origin: origin, depth: depth + 1) }
            return .dictionary(out)
        default:
            return database.plain(value)
        }
    }

    /// The links read as null so far because their target is not in the file.
    public func unresolvedLinks() -> UnresolvedLinks {
        UnresolvedLinks(count: database.unresolvedLinkCount, listed: database.unresolvedLinks)
    }

    /// Lists of links are arrays of Pointers, so there are no join rows.
    public func relations() throws(PFError) -> [ParseRelationKey] { [] }

    public func forEachJoinRow(of relation: ParseRelationKey, _ body: (ParseJoinRow) throws(PFError) -> Void) throws(PFError) {}

    /// Nothing to release: the file's bytes are held in memory.
    public func close() {}

    /// The fields a class's properties are read under, in order: names Parse keeps for itself
    /// get `_realm` (`_` appended while another property has that name).
    static func fieldNames(of table: RealmTable) -> [String] {
        SourceFieldNames(columns: table.columns.map(\.name), suffix: "_realm").fields
    }
}
