internal import GRDB
import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFParse
import PFStores

// MARK: - How values are stored

/// How one field's values are kept in its column (see Docs/Stores.md, "SQLite").
enum ColumnStorage: String {
    /// `TEXT`: a String.
    case text
    /// No declared type (no affinity), so SQLite keeps an integer an INTEGER and a double a
    /// REAL: `3` and `3.0` stay apart.
    case number
    /// `INTEGER` 0 or 1.
    case boolean
    /// `INTEGER` milliseconds since 1970-01-01T00:00:00Z.
    case date
    /// `TEXT` objectId of the schema's target class.
    case pointer
    /// `TEXT` target class name, present when the object carries the Relation field.
    case relation
    /// `BLOB` raw bytes.
    case bytes
    /// `TEXT` Parse REST JSON of the value (Object, Array, File, GeoPoint, Polygon, ACL).
    case json

    init(type: ParseFieldType) {
        switch type {
        case .string: self = .text
        case .number: self = .number
        case .boolean: self = .boolean
        case .date: self = .date
        case .pointer: self = .pointer
        case .relation: self = .relation
        case .bytes: self = .bytes
        case .object, .array, .file, .geoPoint, .polygon, .acl, .unknown: self = .json
        }
    }

    /// The declared column type.
    var declaredType: String {
        switch self {
        case .text, .pointer, .relation, .json: "TEXT"
        case .number: ""
        case .boolean, .date: "INTEGER"
        case .bytes: "BLOB"
        }
    }
}

/// One field of a class and its column.
struct FieldLayout {
    var name: String
    var field: ParseSchema.Field
    var column: String
    var storage: ColumnStorage
}

/// One class table.
struct ClassLayout {
    var className: String
    var table: String
    var fields: OrderedDictionary<String, FieldLayout> = [:]
    /// Every column name, lowercased (SQLite compares names without case).
    var takenColumns: Set<String> = Set(SQLiteLayout.fixedColumns.map { $0.lowercased() } + ["rowid", "oid", "_rowid_"])

    mutating func freshColumn(for field: String) -> String {
        // The field keeps its name in `_SCHEMA.field`; only a name no SQLite column can have
        // (empty, or holding U+0000) gets an encoded column name.
        let name = ParseNameCoding.encodeField(field, policy: .sqliteColumn)
        var candidate = name
        var n = 2
        while takenColumns.contains(candidate.lowercased()) {
            candidate = "\(name)_\(n)"
            n += 1
        }
        takenColumns.insert(candidate.lowercased())
        return candidate
    }
}

/// One relation's join table.
struct JoinLayout {
    var key: ParseRelationKey
    var table: String
}

/// The tables of a store, as its `_TABLES` and `_SCHEMA` tables describe them.
struct SQLiteLayout {
    /// The columns every class table has first.
    static let fixedColumns = ["objectId", "createdAt", "updatedAt", "ACL", "_extra"]
    /// The layout version kept in `PRAGMA user_version`.
    static let version: Int64 = 1

    var classes: OrderedDictionary<String, ClassLayout> = [:]
    var joins: OrderedDictionary<ParseRelationKey, JoinLayout> = [:]
    var takenTables: Set<String> = ["_tables", "_schema"]

    static func quoted(_ name: String) -> String {
        "\"" + name.doublingEvery("\"") + "\""
    }

    /// A table name for a class or join table not taken yet: the name itself, or with `_2`,
    /// `_3`… appended; a name SQLite keeps for itself (`sqlite_…`, such as an imported
    /// database's `sqlite_sequence`) gets `T_` in front first, since no suffix frees it.
    mutating func freshTable(for name: String) -> String {
        let base = name.lowercased().hasPrefix("sqlite_") ? "T_" + name : name
        var candidate = base
        var n = 2
        while takenTables.contains(candidate.lowercased()) {
            candidate = "\(base)_\(n)"
            n += 1
        }
        takenTables.insert(candidate.lowercased())
        return candidate
    }

    // MARK: Loading

    /// Reads the layout of a store, or an empty layout when it has no `_TABLES` table yet.
    static func load(_ db: Database, location: String) throws -> SQLiteLayout {
        var layout = SQLiteLayout()
        guard try db.tableExists("_TABLES") else { return layout }
        guard try db.tableExists("_SCHEMA") else {
            throw PFError(SQLiteStoreFailure.noSchemaTable(location: location), format: SQLiteStore.format)
        }
        let tables = try Row.fetchAll(db, sql: "SELECT name, tableName, kind, owningClass, field, targetClass FROM _TABLES ORDER BY rowid")
        for row in tables {
            guard let name: String = row[0], let table: String = row[1], let kind: String = row[2] else {
                throw PFError(SQLiteStoreFailure.incompleteTablesRow(location: location), format: SQLiteStore.format)
            }
            layout.takenTables.insert(table.lowercased())
            switch kind {
            case "class":
                layout.classes[name] = ClassLayout(className: name, table: table)
            case "join":
                guard let owning: String = row[3], let field: String = row[4] else {
                    throw PFError(SQLiteStoreFailure.incompleteJoinRow(location: location, name: name), format: SQLiteStore.format)
                }
                let key = ParseRelationKey(owningClass: owning, field: field, targetClass: row[5])
                layout.joins[ParseRelationKey(owningClass: owning, field: field)] = JoinLayout(key: key, table: table)
            default:
                throw PFError(SQLiteStoreFailure.badTableKind(location: location, name: name, kind: kind), format: SQLiteStore.format)
            }
        }
        // A store written before pfarchive kept the model's flags has no `options` column: it
        // reads as it always did, every field without flags (and is not changed by reading).
        let options = try hasOptionsColumn(db) ? "options" : "NULL"
        let fields = try Row.fetchAll(db, sql: "SELECT className, field, type, targetClass, columnName, \(options) FROM _SCHEMA ORDER BY className, position")
        for row in fields {
            guard let className: String = row[0], let name: String = row[1], let type: String = row[2], let column: String = row[4] else {
                throw PFError(SQLiteStoreFailure.incompleteSchemaRow(location: location), format: SQLiteStore.format)
            }
            guard layout.classes[className] != nil else {
                throw PFError(SQLiteStoreFailure.schemaUnknownClass(location: location, className: className), format: SQLiteStore.format)
            }
            var field = ParseSchema.Field(ParseFieldType(rawValue: type), targetClass: row[3])
            if let text: String = row[5] {
                do throws(PFError) {
                    field.readOptions(try JSONReader().read(Data(text.utf8)))
                } catch {
                    throw PFError(
                        SQLiteStoreFailure.malformed(place: "\(location): _SCHEMA options of \(className).\(name)", problem: "not JSON: \(error.message)"),
                        format: SQLiteStore.format)
                }
            }
            layout.classes[className]?.fields[name] = FieldLayout(name: name, field: field, column: column, storage: ColumnStorage(type: field.type))
            layout.classes[className]?.takenColumns.insert(column.lowercased())
        }
        return layout
    }

    // MARK: Changing

    /// Creates the metadata tables of a new store, or brings an existing store's up to date:
    /// `_SCHEMA.options` (the model's flags, a JSON object; NULL for none) is added to a store
    /// written before pfarchive kept them. Only a write does this.
    static func createMetadata(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS "_TABLES" (
              name TEXT NOT NULL PRIMARY KEY, tableName TEXT NOT NULL UNIQUE COLLATE NOCASE,
              kind TEXT NOT NULL, owningClass TEXT, field TEXT, targetClass TEXT);
            CREATE TABLE IF NOT EXISTS "_SCHEMA" (
              className TEXT NOT NULL, field TEXT NOT NULL, type TEXT NOT NULL, targetClass TEXT,
              columnName TEXT NOT NULL, position INTEGER NOT NULL, options TEXT, PRIMARY KEY (className, field));
            PRAGMA application_id = \(Int32(bitPattern: StoreLocation.pfarchiveApplicationID));
            PRAGMA user_version = \(version);
            """)
        if try !hasOptionsColumn(db) { try db.execute(sql: #"ALTER TABLE "_SCHEMA" ADD COLUMN options TEXT"#) }
    }

    /// Whether `_SCHEMA` has the `options` column (stores written by pfarchive before it kept
    /// the model's flags do not).
    static func hasOptionsColumn(_ db: Database) throws -> Bool {
        try Row.fetchAll(db, sql: #"PRAGMA table_info("_SCHEMA")"#).contains { ($0["name"] as String?)?.lowercased() == "options" }
    }

    /// The `_SCHEMA.options` text of a field: its model's flags as a JSON object, or NULL.
    static func optionsText(_ field: ParseSchema.Field) throws -> String? {
        let options = field.modelOptions(indexed: true)
        guard !options.isEmpty else { return nil }
        return String(decoding: try JSONWriter().write(.dictionary(options)), as: UTF8.self)
    }

    /// Creates the table of a class when it has none.
    mutating func ensureClass(_ className: String, _ db: Database) throws {
        guard classes[className] == nil else { return }
        let table = freshTable(for: className)
        let q = Self.quoted(table)
        try db.execute(sql: """
            CREATE TABLE \(q) ("objectId" TEXT UNIQUE, "createdAt" INTEGER, "updatedAt" INTEGER, "ACL" TEXT, "_extra" TEXT)
            """)
        try db.execute(sql: "INSERT INTO _TABLES (name, tableName, kind) VALUES (?, ?, 'class')", arguments: [className, table])
        classes[className] = ClassLayout(className: className, table: table)
    }

    /// Adds a field (and its column) to a class when it has none by that name.
    mutating func ensureField(_ name: String, _ field: ParseSchema.Field, className: String, _ db: Database) throws {
        try ensureClass(className, db)
        guard var layout = classes[className], layout.fields[name] == nil else { return }
        let column = layout.freshColumn(for: name)
        let storage = ColumnStorage(type: field.type)
        let declared = storage.declaredType.isEmpty ? "" : " " + storage.declaredType
        try db.execute(sql: "ALTER TABLE \(Self.quoted(layout.table)) ADD COLUMN \(Self.quoted(column))\(declared)")
        try db.execute(
            sql: "INSERT INTO _SCHEMA (className, field, type, targetClass, columnName, position, options) VALUES (?, ?, ?, ?, ?, ?, ?)",
            arguments: [className, name, field.type.rawValue, field.targetClass, column, layout.fields.count, try Self.optionsText(field)])
        layout.fields[name] = FieldLayout(name: name, field: field, column: column, storage: storage)
        classes[className] = layout
    }

    /// Creates the join table of a relation when it has none.
    mutating func ensureJoin(_ relation: ParseRelationKey, _ db: Database) throws -> JoinLayout {
        let key = ParseRelationKey(owningClass: relation.owningClass, field: relation.field)
        if let join = joins[key] { return join }
        let table = freshTable(for: relation.joinClassName)
        let q = Self.quoted(table)
        try db.execute(sql: """
            CREATE TABLE \(q) ("owningId" TEXT NOT NULL, "relatedId" TEXT NOT NULL, UNIQUE ("owningId", "relatedId"));
            CREATE INDEX \(Self.quoted("idx:" + table + ":relatedId")) ON \(q) ("relatedId");
            """)
        try db.execute(
            sql: "INSERT INTO _TABLES (name, tableName, kind, owningClass, field, targetClass) VALUES (?, ?, 'join', ?, ?, ?)",
            arguments: [relation.joinClassName, table, relation.owningClass, relation.field, relation.targetClass])
        let join = JoinLayout(key: relation, table: table)
        joins[key] = join
        return join
    }

    /// Indexes every pointer column (after the bulk writes, which is faster than keeping the
    /// indexes up to date row by row).
    func indexPointers(_ db: Database) throws {
        for layout in classes.values {
            for field in layout.fields.values where field.storage == .pointer {
                let name = Self.quoted("idx:" + layout.table + ":" + field.column)
                try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(name) ON \(Self.quoted(layout.table)) (\(Self.quoted(field.column)))")
            }
            // The source model's primary key (unique) and indexed fields (a Realm model's).
            for field in layout.fields.values where field.field.isPrimaryKey || field.field.isIndexed {
                let unique = field.field.isPrimaryKey
                let name = Self.quoted((unique ? "key:" : "model:") + layout.table + ":" + field.column)
                try db.execute(
                    sql: "CREATE \(unique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(name) ON \(Self.quoted(layout.table)) (\(Self.quoted(field.column)))")
            }
        }
    }
}
