import Foundation
import OrderedCollections
import PFCore
import PFParse
import PFStores

// MARK: - Column kinds

/// The PostgreSQL type of a column, as parse-server's `PostgresStorageAdapter` chooses it.
enum ColumnKind: Equatable, Sendable {
    case varchar120, text, double, boolean, timestamp, jsonb, point, polygon, textArray

    /// The column for a Parse field type; `nil` for `Relation` (a join table) and `ACL`
    /// (`_rperm`/`_wperm`).
    init?(parseType: ParseFieldType) {
        switch parseType {
        case .string, .pointer, .file: self = .text
        case .number: self = .double
        case .boolean: self = .boolean
        case .date: self = .timestamp
        case .object, .array, .bytes: self = .jsonb
        case .geoPoint: self = .point
        case .polygon: self = .polygon
        case .relation, .acl, .unknown: return nil
        }
    }

    /// The kind of an existing column, from `information_schema.columns` (`data_type`, `udt_name`).
    init?(dataType: String, udtName: String) {
        switch dataType {
        case "character varying": self = .varchar120
        case "text": self = .text
        case "double precision": self = .double
        case "boolean": self = .boolean
        case "timestamp with time zone": self = .timestamp
        case "jsonb": self = .jsonb
        case "point": self = .point
        case "polygon": self = .polygon
        case "ARRAY" where udtName == "_text": self = .textArray
        default: return nil
        }
    }

    /// The type in `CREATE TABLE`, spelled as parse-server spells it.
    var sqlType: String {
        switch self {
        case .varchar120: "varChar(120)"
        case .text: "text"
        case .double: "double precision"
        case .boolean: "boolean"
        case .timestamp: "timestamp with time zone"
        case .jsonb: "jsonb"
        case .point: "point"
        case .polygon: "polygon"
        case .textArray: "text[]"
        }
    }

    /// The cast on a parameter bound for this column.
    var cast: String {
        switch self {
        case .varchar120, .text: "::text"
        case .double: "::double precision"
        case .boolean: "::boolean"
        case .timestamp: "::timestamptz"
        case .jsonb: "::jsonb"
        case .point: "::point"
        case .polygon: "::polygon"
        case .textArray: "::text[]"
        }
    }

    /// What a `SELECT` reads: the column, or its text for types postgres-nio does not decode.
    func selectExpression(_ column: String) -> String {
        switch self {
        case .jsonb, .point, .polygon: "\(quoted(column))::text"
        default: quoted(column)
        }
    }

    /// A Parse field type for a column that the schema does not describe.
    var inferredParseType: ParseFieldType? {
        switch self {
        case .text, .varchar120: .string
        case .double: .number
        case .boolean: .boolean
        case .timestamp: .date
        case .jsonb: .object
        case .point: .geoPoint
        case .polygon: .polygon
        case .textArray: nil
        }
    }
}

/// An SQL identifier in double quotes.
func quoted(_ name: String) -> String {
    "\"" + name.doublingEvery("\"") + "\""
}

// MARK: - Number kinds

/// What the Number values written to a field were, kept in the class's `_SCHEMA` document so
/// that integers and doubles read back as they were written (the column is `double precision`).
enum NumberKind: String, Sendable {
    case integer, double, mixed

    func merged(with other: NumberKind?) -> NumberKind {
        guard let other, other != self else { return self }
        return .mixed
    }
}

// MARK: - Class layout

/// Everything the store knows about one class: its Parse fields, its table's columns and the
/// `_SCHEMA` document it came from.
struct ClassLayout {
    /// The columns every class table has besides its fields.
    static let baseColumns: OrderedDictionary<String, ColumnKind> = [
        "objectId": .varchar120, "createdAt": .timestamp, "updatedAt": .timestamp,
        "_rperm": .textArray, "_wperm": .textArray,
    ]
    /// parse-server's private `_User` columns (created as parse-server creates them; never
    /// fields of a ``ParseObject``).
    static let userPrivateColumns: OrderedDictionary<String, ColumnKind> = [
        "_hashed_password": .text,
        "_email_verify_token_expires_at": .timestamp, "_email_verify_token": .text,
        "_account_lockout_expires_at": .timestamp, "_failed_login_count": .double,
        "_perishable_token": .text, "_perishable_token_expires_at": .timestamp,
        "_password_changed_at": .timestamp, "_password_history": .jsonb,
    ]
    /// parse-server's default `_User` fields.
    static let userDefaultFields: OrderedDictionary<String, ParseSchema.Field> = [
        "username": .init(.string), "email": .init(.string), "emailVerified": .init(.boolean),
        "authData": .init(.object),
    ]
    /// The `_User` field a Parse export calls `bcryptPassword` is parse-server's `_hashed_password`.
    static let passwordField = "bcryptPassword"
    static let passwordColumn = "_hashed_password"

    var className: String
    /// The Parse fields (no default columns), Relations included.
    var fields: OrderedDictionary<String, ParseSchema.Field>
    /// The table's columns, when the table exists.
    var columns: OrderedDictionary<String, ColumnKind>
    /// What Number fields held when written.
    var numberKinds: [String: NumberKind]
    /// The `_SCHEMA` document as read (kept so that class-level permissions and indexes survive).
    var document: OrderedDictionary<String, PFValue>
    /// Encoded field names and their originals (``PFParse/ParseNameCoding``), kept in the
    /// note as `names`; `nil` when no name of the class was encoded.
    var originalNames: [String: String]?
    /// Pointer fields whose values point at more than one class (a to-one relationship to a
    /// Core Data entity with subentities, a Pointer field of a Mongo or Parse export holding
    /// several classes). parse-server keeps one target class per Pointer column, so such a
    /// field is a `jsonb` column of REST pointers (`{"__type":"Pointer","className":…,
    /// "objectId":…}`), an `Object` field for parse-server, and a Pointer to pfarchive: the
    /// note keeps it as `pointers: {field: declared target class}`.
    var multiClassPointers: Set<String> = []

    var isUser: Bool { className == "_User" }

    /// The columns a table of this class must have.
    var wantedColumns: OrderedDictionary<String, ColumnKind> {
        var out = Self.baseColumns
        if isUser { out.merge(Self.userPrivateColumns) { a, _ in a } }
        for (name, field) in fields {
            if isUser, name == Self.passwordField { continue }
            if let kind = columnKind(name, field) { out[name] = kind }
        }
        return out
    }

    /// The column kind of a field: a multi-class Pointer is `jsonb`, the rest as parse-server
    /// types them (``ColumnKind/init(parseType:)``).
    func columnKind(_ name: String, _ field: ParseSchema.Field) -> ColumnKind? {
        multiClassPointers.contains(name) ? .jsonb : ColumnKind(parseType: field.type)
    }

    /// The column a field is stored in.
    func column(forField name: String) -> String {
        isUser && name == Self.passwordField ? Self.passwordColumn : name
    }

    /// A field spec of the stored `_SCHEMA` document: `{"type":<name>}`.
    static func spec(_ type: ParseFieldType) -> PFValue { ["type": type.restTag] }

    /// Whether a field name is one of the columns every class has.
    static func isDefaultField(_ name: String) -> Bool {
        ParseRules.defaultColumns.contains(name) || name == "_rperm" || name == "_wperm"
    }

    // MARK: _SCHEMA documents

    /// Reads a `_SCHEMA` row.
    /// - Parameters:
    ///   - className: the row's class.
    ///   - document: its `schema` column.
    ///   - location: the store, for messages.
    init(className: String, document: PFValue, location: String) throws(PFError) {
        self.className = className
        self.columns = [:]
        self.fields = [:]
        self.numberKinds = [:]
        guard case .dictionary(let doc) = document else {
            throw PFError(PostgresStoreFailure.schemaNotAnObject(location: "\(location)", className: className), format: StoreFormat.name)
        }
        self.document = doc
        if case .dictionary(let fieldSpecs)? = doc["fields"] {
            for (name, spec) in fieldSpecs {
                if Self.isDefaultField(name) || name.hasPrefix("_") { continue }
                guard case .string(let typeName)? = spec["type"], case let type = ParseFieldType(rawValue: typeName), type.isKnown else {
                    throw PFError(PostgresStoreFailure.schemaFieldType(location: "\(location)", className: className, field: name), format: StoreFormat.name)
                }
                if type == .acl { continue }
                var field = ParseSchema.Field(type, targetClass: spec["targetClass"]?.stringValue)
                field.readOptions(spec)
                fields[name] = field
            }
        }
        // Indexed: a single-field index in parse-server's `indexes` (not a primary key's own).
        ParseSchema.markIndexed(&fields, indexes: doc["indexes"], skipping: Set(fields.keys.map { Self.indexName(className, $0, unique: true) }))
        // parse-server's password column is the `bcryptPassword` field of a Parse export.
        if isUser, doc["fields"]?[Self.passwordColumn] != nil { fields[Self.passwordField] = .init(.string) }
        if case .dictionary(let note)? = doc[Self.noteKey], case .dictionary(let kinds)? = note["numberKinds"] {
            for (name, value) in kinds {
                if let s = value.stringValue, let kind = NumberKind(rawValue: s) { numberKinds[name] = kind }
            }
        }
        if case .dictionary(let note)? = doc[Self.noteKey], case .dictionary(let pointers)? = note["pointers"] {
            for (name, target) in pointers where !Self.isDefaultField(name) && !name.hasPrefix("_") {
                fields[name] = ParseSchema.Field(.pointer, targetClass: target.stringValue)
                multiClassPointers.insert(name)
            }
        }
        if case .dictionary(let note)? = doc[Self.noteKey], case .dictionary(let names)? = note["names"] {
            var table: [String: String] = [:]
            for (stored, original) in names { if let o = original.stringValue { table[stored] = o } }
            originalNames = table
        }
    }

    /// A new class.
    init(className: String, fields: OrderedDictionary<String, ParseSchema.Field>) {
        self.className = className
        self.fields = fields
        self.columns = [:]
        self.numberKinds = [:]
        self.document = [:]
    }

    /// The name of the index pfarchive makes for a model's primary key (`unique`) or indexed
    /// field: `<Class>_key_<field>` or `<Class>_idx_<field>`. A name longer than PostgreSQL's
    /// 63 bytes is cut at a character boundary and ends in `_` and the 16 hex digits of its
    /// hash, so two long names that share their beginning still get two indexes.
    static func indexName(_ className: String, _ field: String, unique: Bool) -> String {
        let name = className + (unique ? "_key_" : "_idx_") + field
        guard name.utf8.count > 63 else { return name }
        var head = ""
        var used = 0
        for scalar in name.unicodeScalars {
            let n = String(scalar).utf8.count
            guard used + n <= 63 - 17 else { break }
            head.unicodeScalars.append(scalar)
            used += n
        }
        return head + "_" + StableHash.fnv1aHex(name.utf8)
    }

    /// The indexes of a field's model flags, with whether each is unique: a primary key's
    /// unique index, and an indexed field's index (both for a primary key that is also indexed).
    func modelIndexes(of name: String) -> [(name: String, unique: Bool)] {
        guard let field = fields[name], !multiClassPointers.contains(name) else { return [] }
        var out: [(name: String, unique: Bool)] = []
        if field.isPrimaryKey { out.append((Self.indexName(className, name, unique: true), true)) }
        if field.isIndexed { out.append((Self.indexName(className, name, unique: false), false)) }
        return out
    }

    /// The key under which pfarchive keeps its note in a `_SCHEMA` document (parse-server
    /// reads only `className`, `fields`, `classLevelPermissions` and `indexes`).
    static let noteKey = "_pfarchive"

    /// parse-server's class-level permissions for a new class: everything open.
    static let defaultCLPs: PFValue = .dictionary([
        "find": ["*": .bool(true)], "count": ["*": .bool(true)], "get": ["*": .bool(true)], "create": ["*": .bool(true)],
        "update": ["*": .bool(true)], "delete": ["*": .bool(true)], "addField": ["*": .bool(true)],
        "protectedFields": ["*": .array([])],
    ])

    /// The `_SCHEMA` document to store: the one read, with `fields` and the note rewritten.
    var schemaDocument: PFValue {
        var doc = document
        doc["className"] = .string(className)
        var specs = OrderedDictionary<String, PFValue>()
        specs["objectId"] = Self.spec(.string)
        specs["createdAt"] = Self.spec(.date)
        specs["updatedAt"] = Self.spec(.date)
        for (name, field) in fields {
            if isUser, name == Self.passwordField { continue }
            // parse-server wants a Relation's targetClass; one that is unknown is declared by
            // its join table alone (which the reader lists).
            if field.type == .relation, field.targetClass?.isEmpty ?? true { continue }
            // parse-server sees a multi-class Pointer as the Object (jsonb) it is stored as.
            if multiClassPointers.contains(name) {
                specs[name] = Self.spec(.object)
                continue
            }
            // `required` is parse-server's; `primaryKey` and `embeddedClass` pfarchive's.
            specs[name] = .dictionary(field.restSpec)
        }
        specs["_rperm"] = ["type": ParseFieldType.array.restTag, "contents": Self.spec(.string)]
        specs["_wperm"] = ["type": ParseFieldType.array.restTag, "contents": Self.spec(.string)]
        if isUser { specs[Self.passwordColumn] = Self.spec(.string) }
        // Keep fields of the old document this import does not know (e.g. parse-server's own).
        if case .dictionary(let old)? = document["fields"] {
            for (name, spec) in old where specs[name] == nil && (name.hasPrefix("_") || Self.isDefaultField(name)) {
                if name != "ACL" { specs[name] = spec }
            }
        }
        doc["fields"] = .dictionary(specs)
        if doc["classLevelPermissions"] == nil { doc["classLevelPermissions"] = Self.defaultCLPs }
        // The model's indexes, where parse-server keeps a class's indexes (by their names in
        // the database), beside those the document listed.
        var indexes = doc["indexes"]?.dictionaryValue ?? [:]
        for name in fields.keys where !(isUser && name == Self.passwordField) {
            for (index, _) in modelIndexes(of: name) { indexes[index] = .dictionary([name: .int(1)]) }
        }
        if !indexes.isEmpty {
            if indexes["_id_"] == nil { indexes.updateValue(.dictionary(["_id": .int(1)]), forKey: "_id_", insertingAt: 0) }
            doc["indexes"] = .dictionary(indexes)
        }
        var note = OrderedDictionary<String, PFValue>()
        if !numberKinds.isEmpty {
            var kinds = OrderedDictionary<String, PFValue>()
            for name in numberKinds.keys.sorted() { kinds[name] = .string(numberKinds[name]?.rawValue ?? "mixed") }
            note["numberKinds"] = .dictionary(kinds)
        }
        if !multiClassPointers.isEmpty {
            var pointers = OrderedDictionary<String, PFValue>()
            for name in multiClassPointers.sorted() { pointers[name] = fields[name]?.targetClass.map(PFValue.string) ?? .null }
            note["pointers"] = .dictionary(pointers)
        }
        if let originalNames {
            var names = OrderedDictionary<String, PFValue>()
            for stored in originalNames.keys.sorted() { names[stored] = .string(originalNames[stored] ?? stored) }
            note["names"] = .dictionary(names)
        }
        if !note.isEmpty { doc[Self.noteKey] = .dictionary(note) }
        return .dictionary(doc)
    }
}
