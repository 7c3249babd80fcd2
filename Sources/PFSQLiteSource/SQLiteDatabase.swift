import Foundation
import OrderedCollections
import PFCore
import Synchronization

/// Any SQLite database opened read-only as a source of objects: tables are classes, rows are
/// objects, declared foreign keys are Pointers, and the payloads hidden in columns (binary
/// and XML property lists, keyed archives, typedstreams, JSON, CBOR, gzip or zlib around
/// them) can be decoded (``Options/decodeBlobs``).
///
/// ```swift
/// let db = try SQLiteDatabase.open(url: URL(fileURLWithPath: "chat.db"),
///                                  options: .init(decodeBlobs: true, dateColumns: [try .init(parsing: "message.date=mac-ns")]))
/// defer { db.close() }
/// for table in db.tables {
///     try db.forEachRow(of: table.name) { row in print(row.objectId, row.value) }
/// }
/// ```
///
/// Opening copies the file with its `-wal`, `-shm` and `-journal` into a private temporary
/// directory (``StoreCopy``, shared with the Core Data reader) and opens only the copy, so
/// nothing is created, changed or locked beside the source, and changes that live only in the
/// `-wal` are read. ``close()`` deletes the copy.
///
/// Which tables become classes: ordinary tables of the main schema (`PRAGMA table_list`);
/// views, virtual tables (FTS, R*Tree), their shadow tables and SQLite's own `sqlite_*` tables
/// are skipped unless ``Options/includeInternal`` is set (``skipped`` says why each was).
public final class SQLiteDatabase: Sendable {
    /// How to open and read a database.
    public struct Options: Sendable {
        /// The decoding limits: every decoded payload stays within them (nested payloads share
        /// one budget per value).
        public var limits: PFLimits
        /// Only these tables (exact names), or every table when `nil`.
        public var tables: [String]?
        /// Whether views, virtual tables, shadow tables and `sqlite_*` tables are read too.
        /// Default `false`.
        public var includeInternal: Bool
        /// Whether BLOB values (and TEXT values that hold JSON or an XML property list) that
        /// hold a payload are decoded into typed values. Default `false`: bytes stay bytes.
        public var decodeBlobs: Bool
        /// With ``decodeBlobs``: whether a decoded value keeps its original bytes (or text)
        /// alongside, in the field `<field>_bytes` (``SQLiteTable/bytesFieldNames()``). Default `false`.
        public var keepOriginalBytes: Bool
        /// Columns read as dates (``SQLiteDateColumn``).
        public var dateColumns: [SQLiteDateColumn]
        /// Whether a payload that claims a format and does not decode, or a date column
        /// value that is not a date, stops the read (an error) instead of being reported in
        /// ``SQLiteRow/reports`` and kept as stored. Default `false`.
        public var strict: Bool
        /// Whether a column whose rows hold more than one kind of value among numbers (INTEGER
        /// or REAL), TEXT and BLOB (``SQLiteDatabase/mixedColumns(of:)``) is read as a String in
        /// every row — an integer in decimal, a real as Swift prints it, text as is, a blob as
        /// `x'…'` hex, never decoded — so that a destination typing each field by one type (a
        /// learned Parse schema, PostgreSQL's columns) can hold every row. Default `false`:
        /// each value keeps its own type. Foreign-key columns (Pointers) and date columns that
        /// hold dates are never widened.
        public var textForMixedColumns: Bool

        /// Makes options; every parameter defaults to the value documented on its property
        /// (``textForMixedColumns`` is `false`; set it afterwards).
        public init(
            limits: PFLimits = .default, tables: [String]? = nil, includeInternal: Bool = false, decodeBlobs: Bool = false,
            keepOriginalBytes: Bool = false, dateColumns: [SQLiteDateColumn] = [], strict: Bool = false
        ) {
            self.textForMixedColumns = false
            self.limits = limits
            self.tables = tables
            self.includeInternal = includeInternal
            self.decodeBlobs = decodeBlobs
            self.keepOriginalBytes = keepOriginalBytes
            self.dateColumns = dateColumns
            self.strict = strict
        }
    }

    /// The database's URL, as given.
    public let url: URL
    /// The tables read as classes, in the schema's order (by name).
    public let tables: [SQLiteTable]
    /// The tables, views and virtual tables left out, with why.
    public let skipped: OrderedDictionary<String, String>
    /// Those of ``skipped`` that were asked for (``Options/includeInternal``) and left out
    /// because SQLite cannot read them (most often for a collation, function or tokenizer only
    /// their app registers), with SQLite's reason.
    public let unreadable: OrderedDictionary<String, String>

    /// ``unreadable`` as the lines a reader shows, one each: `name: why; not read`.
    public var unreadableNotes: [String] { unreadable.map { name, why in "\(name): \(why); not read" } }
    /// The options the database was opened with.
    public let options: Options

    let connection: SQLiteConnection
    let copy: StoreCopy

    /// The format errors are reported under.
    static let format = PFError.Format.sqlite

    /// The private copy SQLite reads (inside a temporary directory deleted by ``close()``).
    public var workingCopy: URL { copy.database }

    /// The table named `name` (exactly), or `nil`.
    public func table(named name: String) -> SQLiteTable? { tables.first { $0.name == name } }

    // MARK: - Opening

    /// Opens any SQLite database read-only, through a private copy.
    /// - Parameters:
    ///   - url: the database file; a `-wal` (and `-shm`, `-journal`) beside it is copied too.
    ///   - options: what to read and how.
    /// - Returns: the open database.
    /// - Throws: ``PFCore/PFError`` — `io` when the file is missing or cannot be copied;
    ///   `syntax` when it is not SQLite or is corrupt; `truncated` when it is shorter than its
    ///   header says; `usage` (``SQLiteSourceFailure``) for a table or date column the
    ///   database does not have.
    public static func open(url: URL, options: Options = Options()) throws(PFError) -> SQLiteDatabase {
        let copy = try StoreCopy.make(of: url, format: format)
        do {
            return try SQLiteDatabase(url: url, copy: copy, options: options)
        } catch {
            copy.remove()
            throw error
        }
    }

    /// Row counts already taken, by table.
    private let counts = Mutex<[String: Int]>([:])

    private init(url: URL, copy: StoreCopy, options: Options) throws(PFError) {
        self.url = url
        self.copy = copy
        self.options = options
        connection = try Self.openCopy(copy.database.path, context: "\(url.lastPathComponent): opening")
        do {
            let (tables, skipped, unreadable) = try Self.readSchema(connection, file: url.lastPathComponent, options: options)
            self.tables = tables
            self.skipped = skipped
            self.unreadable = unreadable
        } catch {
            connection.close()
            throw error
        }
    }

    /// A connection to the private copy that never writes to it either (`query_only`).
    private static func openCopy(_ path: String, context: @autoclosure () -> String) throws(PFError) -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, format: format)
        do {
            _ = try connection.rows("PRAGMA query_only = 1", context: context())
        } catch {
            connection.close()
            throw error
        }
        return connection
    }

    deinit {
        connection.close()
        copy.remove()
    }

    /// Closes the database and deletes the private copy. Later reads fail with an error.
    public func close() {
        connection.close()
        copy.remove()
    }

    /// The number of rows of a table.
    /// - Throws: ``PFCore/PFError`` `usage` for an unknown table; SQLite's errors.
    /// (Counted once per table: the copy never changes, and a count reads the whole table.)
    public func rowCount(of table: String) throws(PFError) -> Int {
        let table = try self.known(table)
        if let counted = counts.withLock({ $0[table.name] }) { return counted }
        let rows = try connection.rows(
            "SELECT COUNT(*) FROM \(SQLiteConnection.quote(table.name))", context: "\(url.lastPathComponent): counting \(table.name)")
        let count = rows.first?.first?.int64.flatMap { Int(exactly: $0) } ?? 0
        counts.withLock { $0[table.name] = count }
        return count
    }

    /// The columns of a table whose non-NULL values are of more than one kind among numbers
    /// (INTEGER or REAL, which a Number holds alike), TEXT and BLOB: SQLite types values, not
    /// columns, so a column without a type (or with NUMERIC affinity) can hold `42` in one row
    /// and `'n/a'` in the next. One scan of the table, no value read.
    /// - Throws: ``PFCore/PFError`` `usage` for an unknown table; SQLite's errors.
    public func mixedColumns(of tableName: String) throws(PFError) -> Set<String> {
        let table = try known(tableName)
        guard !table.columns.isEmpty else { return [] }
        // Each value's storage class as SQLite steps the rows, without `DISTINCT` (which
        // builds an index of the combinations, most of the scan's time).
        let types = table.columns.map { "typeof(\(SQLiteConnection.quote($0.name)))" }
        let select = "SELECT \(types.joined(separator: ", ")) FROM \(SQLiteConnection.quote(table.name))"
        let context = "\(url.lastPathComponent): reading the kinds of values in \(table.name)"
        var kinds: [SQLiteConnection.StorageKinds]
        if let parts = try rowidRanges(of: table, parts: ProcessInfo.processInfo.activeProcessorCount) {
            // A large table is scanned in parts at once, each part on a connection of its own
            // (the scan is the serial start of reading a table).
            let path = copy.database.path
            let found = try OrderedParallelMap<String, [SQLiteConnection.StorageKinds], PFError>.map(
                parts.map { "\(select) WHERE \($0)" }, workers: parts.count
            ) { sql throws(PFError) in
                let part = try Self.openCopy(path, context: context)
                defer { part.close() }
                return try part.storageKinds(sql, context: context)
            }
            kinds = Array(repeating: [], count: table.columns.count)
            for part in found { for (i, kind) in part.enumerated() where i < kinds.count { kinds[i].formUnion(kind) } }
        } else {
            kinds = try connection.storageKinds(select, context: context)
        }
        var mixed: Set<String> = []
        for (column, kind) in zip(table.columns, kinds) where kind.rawValue.nonzeroBitCount > 1 { mixed.insert(column.name) }
        return mixed
    }

    /// `WHERE` conditions that split a table of rowids into `parts` ranges of rowids, or `nil`
    /// for a table without a rowid, one of fewer than `minimumRows` rows or whose rowids span
    /// less than 65,536 (where a connection per part costs more than it saves: each reads the
    /// schema), or one part.
    package func rowidRanges(of table: SQLiteTable, parts: Int, minimumRows: Int = 65_536) throws(PFError) -> [String]? {
        guard let rowid = Self.rowid(of: table), parts > 1 else { return nil }
        // One aggregate per query: SQLite reads `min` and `max` of the rowid from the b-tree's
        // ends only then (both in one query scan the table).
        let from = SQLiteConnection.quote(table.name)
        let bounds = try connection.rows(
            "SELECT (SELECT min(\(rowid)) FROM \(from)), (SELECT max(\(rowid)) FROM \(from))",
            context: "\(url.lastPathComponent): reading the rowids of \(table.name)")
        guard let row = bounds.first, row.count == 2, let low = row[0].int64, let high = row[1].int64 else { return nil }
        let span = high.subtractingReportingOverflow(low)
        guard !span.overflow, span.partialValue >= 65_536, try rowCount(of: table.name) >= minimumRows else { return nil }
        let step = span.partialValue / Int64(parts)
        let starts = (0..<parts).map { low + step * Int64($0) }
        return starts.indices.map { i in
            i + 1 < starts.count ? "\(rowid) >= \(starts[i]) AND \(rowid) < \(starts[i + 1])" : "\(rowid) >= \(starts[i])"
        }
    }

    /// How a table's rowid is named in a query (quoted when it is a column), or `nil` for a
    /// table without one (WITHOUT ROWID) or a view.
    static func rowid(of table: SQLiteTable) -> String? {
        switch table.key {
        case .integerPrimaryKey(let column): SQLiteConnection.quote(column)
        case .rowid(let name), .columns(_, let name?): name
        case .columns(_, nil), .ordinal: nil
        }
    }

    func known(_ name: String) throws(PFError) -> SQLiteTable {
        guard let table = table(named: name) else {
            throw PFError(SQLiteSourceFailure.noSuchTable(file: url.lastPathComponent, table: name, available: tables.map(\.name)), format: Self.format)
        }
        return table
    }

    // MARK: - Schema

    /// An SQLite error's own words, without the context in front (`no such collation sequence: PHONEBOOK`).
    static func reason(of error: PFError) -> String {
        switch error.failure(as: SQLiteFileFailure.self) {
        case .sqlite(_, let message)?, .corrupt(_, let message)?: message
        default: error.message
        }
    }

    /// Reads the tables, their columns, keys and foreign keys.
    static func readSchema(
        _ connection: SQLiteConnection, file: String, options: Options
    ) throws(PFError) -> ([SQLiteTable], skipped: OrderedDictionary<String, String>, unreadable: OrderedDictionary<String, String>) {
        let context = "\(file): reading the schema"
        // schema, name, type (table, view, shadow, virtual), ncol, wr (WITHOUT ROWID), strict
        let list = try connection.rows("PRAGMA main.table_list", context: context)
        var candidates: [(name: String, type: String, withoutRowID: Bool)] = []
        for row in list where row.count >= 5 {
            guard let name = row[1].text, let type = row[2].text else { continue }
            // The schema table itself is not data.
            if ["sqlite_temp_master", "sqlite_schema", "sqlite_master", "sqlite_temp_schema"].contains(name.lowercased()) { continue }
            candidates.append((name, type, (row[4].int64 ?? 0) != 0))
        }
        candidates.sort { $0.name < $1.name }
        let wanted = options.tables.map(Set.init)
        if let wanted {
            let names = Set(candidates.map(\.name))
            if let missing = wanted.sorted().first(where: { !names.contains($0) }) {
                throw PFError(
                    SQLiteSourceFailure.noSuchTable(file: file, table: missing, available: candidates.filter { $0.type == "table" }.map(\.name)),
                    format: format)
            }
        }
        // Every ordinary table's schema is read (foreign keys resolve against them all, so a
        // Pointer is made even to a table left out by `tables`), then the selection is kept.
        var all: [SQLiteTable] = []
        var selected: Set<String> = []
        var skipped = OrderedDictionary<String, String>()
        var unreadable = OrderedDictionary<String, String>()
        for candidate in candidates {
            let name = candidate.name
            let asked = wanted?.contains(name) == true
            var kind: SQLiteTable.Kind
            switch candidate.type {
            case "table": kind = name.lowercased().hasPrefix("sqlite_") ? .internal : .table
            case "view": kind = .view
            case "virtual": kind = .virtual
            case "shadow": kind = .shadow
            default: kind = .internal
            }
            let chosen = asked || (wanted == nil && (kind == .table || options.includeInternal))
            if kind != .table && !chosen {
                if wanted == nil { skipped[name] = "\(kind.rawValue); read with --internal-tables or --tables \(name)" }
                continue
            }
            guard kind != .table else {
                all.append(try readTable(connection, name: name, kind: kind, withoutRowID: candidate.withoutRowID, context: context))
                if chosen { selected.insert(name) }
                continue
            }
            // A view or virtual table may need what only its app has (a collation such as
            // Android's PHONEBOOK, an FTS tokenizer such as Apple's): it is skipped with the
            // reason, and only one asked for by name stops the read, naming it.
            do throws(PFError) {
                let context = "\(file): reading \(name)"
                let table = try readTable(connection, name: name, kind: kind, withoutRowID: candidate.withoutRowID, context: context)
                // Its rows are compiled now, where what its app alone has is asked for.
                _ = try connection.rows("SELECT * FROM main.\(SQLiteConnection.quote(name)) LIMIT 0", context: context)
                all.append(table)
            } catch {
                if asked { throw error }
                skipped[name] = "\(kind.rawValue) SQLite cannot read (\(SQLiteDatabase.reason(of: error)))"
                if chosen { unreadable[name] = skipped[name] }
                continue
            }
            if chosen { selected.insert(name) }
        }
        // Foreign keys become Pointers only to tables whose identity the referenced columns are.
        let byName = Dictionary(all.map { ($0.name.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })
        var tables: [SQLiteTable] = []
        for var table in all where selected.contains(table.name) {
            for fk in table.foreignKeys.indices {
                let key = table.foreignKeys[fk]
                guard let parent = byName[key.parentTable.lowercased()] else {
                    table.foreignKeys[fk].pointerField = nil
                    table.foreignKeys[fk].note = "the database has no table \(key.parentTable)"
                    continue
                }
                table.foreignKeys[fk].parentTable = parent.name
                let referenced = key.parentColumns.isEmpty ? parent.identityColumns : key.parentColumns
                guard let identity = parent.identityColumns, let referenced,
                    referenced.count == identity.count,
                    Set(referenced.map { $0.lowercased() }) == Set(identity.map { $0.lowercased() })
                else {
                    table.foreignKeys[fk].pointerField = nil
                    table.foreignKeys[fk].note = "it references \(key.parentColumns.joined(separator: ", ")), not the key of \(parent.name)"
                    continue
                }
                // The child's columns in the order of the parent's key.
                var ordered: [String] = []
                for column in identity {
                    guard let at = referenced.firstIndex(where: { $0.lowercased() == column.lowercased() }) else { continue }
                    ordered.append(key.columns[at])
                }
                table.foreignKeys[fk].columnsInKeyOrder = ordered
                // A composite key's Pointer gets a field of its own, beside its columns.
                if key.columns.count > 1, let base = key.pointerField {
                    table.foreignKeys[fk].pointerField = table.names.claim(base)
                }
            }
            tables.append(table)
        }
        for column in options.dateColumns {
            guard let table = tables.first(where: { $0.name == column.table }) else {
                if byName[column.table.lowercased()] != nil || skipped[column.table] != nil { continue }
                throw PFError(SQLiteSourceFailure.noSuchDateColumn(file: file, column: column.description), format: format)
            }
            guard table.columns.contains(where: { $0.name == column.column }) else {
                throw PFError(SQLiteSourceFailure.noSuchDateColumn(file: file, column: column.description), format: format)
            }
        }
        return (tables, skipped, unreadable)
    }

    static func readTable(
        _ connection: SQLiteConnection, name: String, kind: SQLiteTable.Kind, withoutRowID: Bool, context: String
    ) throws(PFError) -> SQLiteTable {
        var columns: [SQLiteColumn] = []
        // cid, name, type, notnull, dflt_value, pk, hidden (0 normal, 1 hidden, 2/3 generated)
        for row in try connection.rows("PRAGMA main.table_xinfo(\(SQLiteConnection.quote(name)))", context: context) where row.count >= 7 {
            guard let columnName = row[1].text else { continue }
            let hidden = row[6].int64 ?? 0
            if hidden == 1 { continue }
            columns.append(
                SQLiteColumn(
                    name: columnName, declaredType: row[2].text ?? "", notNull: (row[3].int64 ?? 0) != 0,
                    primaryKeyPosition: Int(clamping: row[5].int64 ?? 0)))
        }
        let keyColumns = columns.filter { $0.primaryKeyPosition > 0 }.sorted { $0.primaryKeyPosition < $1.primaryKeyPosition }
        let names = Set(columns.map { $0.name.lowercased() })
        let rowidName = kind == .view || withoutRowID ? nil : ["rowid", "_rowid_", "oid"].first { !names.contains($0) }
        let key: SQLiteTable.Key
        // A declared key SQLite keeps in an index of its own (origin `pk`) is no rowid alias:
        // `INTEGER PRIMARY KEY DESC` is one such (it may hold NULL and non-integers).
        var keyHasIndex = false
        if kind == .table, !withoutRowID, keyColumns.count == 1 {
            // seq, name, unique, origin, partial
            keyHasIndex = try connection.rows("PRAGMA main.index_list(\(SQLiteConnection.quote(name)))", context: context)
                .contains { $0.count >= 4 && $0[3].text == "pk" }
        }
        if keyColumns.count == 1, let only = keyColumns.first, only.declaredType.uppercased() == "INTEGER", !withoutRowID, kind == .table, !keyHasIndex {
            // INTEGER PRIMARY KEY: the column is the rowid.
            key = .integerPrimaryKey(only.name)
        } else if !keyColumns.isEmpty {
            key = .columns(keyColumns.map(\.name), rowid: rowidName)
        } else if let rowidName {
            key = .rowid(rowidName)
        } else {
            key = .ordinal
        }
        var foreignKeys: [SQLiteForeignKey] = []
        let fieldNames = SourceFieldNames(columns: columns.map(\.name), suffix: "_sqlite")
        if kind == .table {
            // id, seq, table, from, to, on_update, on_delete, match
            var grouped = OrderedDictionary<Int64, SQLiteForeignKey>()
            for row in try connection.rows("PRAGMA main.foreign_key_list(\(SQLiteConnection.quote(name)))", context: context) where row.count >= 5 {
                guard let id = row[0].int64, let parent = row[2].text, let from = row[3].text else { continue }
                var fk = grouped[id] ?? SQLiteForeignKey(columns: [], parentTable: parent, parentColumns: [])
                fk.columns.append(from)
                if let to = row[4].text { fk.parentColumns.append(to) }
                grouped[id] = fk
            }
            for (_, var fk) in grouped.sorted(by: { $0.key < $1.key }) {
                if fk.parentColumns.count != fk.columns.count { fk.parentColumns = [] }
                if fk.columns.count == 1, let at = columns.firstIndex(where: { $0.name == fk.columns[0] }) {
                    fk.pointerField = fieldNames.fields[at]
                } else {
                    // Claimed by `readTables` once the key is known to be a Pointer.
                    fk.pointerField = fk.columns.joined(separator: "_") + "_ref"
                }
                foreignKeys.append(fk)
            }
        }
        return SQLiteTable(
            name: name, kind: kind, columns: columns, key: key, withoutRowID: withoutRowID, foreignKeys: foreignKeys,
            names: fieldNames)
    }
}

// MARK: - Model

/// A table (or view, or virtual table) read as a class.
public struct SQLiteTable: Sendable, Equatable {
    /// What kind of schema object it is.
    public enum Kind: String, Sendable, Equatable {
        /// An ordinary table.
        case table
        /// A view (no rowid: rows get their ordinal number as id).
        case view
        /// A virtual table (FTS, R*Tree, …), read through its module.
        case virtual = "virtual table"
        /// A shadow table holding a virtual table's data.
        case shadow = "shadow table"
        /// One of SQLite's own tables (`sqlite_sequence`, `sqlite_stat1`, …).
        case `internal` = "SQLite internal table"
    }

    /// How a row's object id is made (stable across runs on the same file).
    public enum Key: Sendable, Equatable, CustomStringConvertible {
        /// An `INTEGER PRIMARY KEY` column (the rowid): the id is the integer in decimal.
        case integerPrimaryKey(String)
        /// A declared primary key that is not the rowid, one column or several: the id is the
        /// value's text (one column) or a JSON array of the values (several); a row whose key
        /// holds NULL (SQLite allows it outside WITHOUT ROWID tables) gets `rowid:<n>` when the
        /// table has a rowid (named here).
        case columns([String], rowid: String?)
        /// No declared key: the rowid in decimal (read under this name: `rowid`, `_rowid_` or
        /// `oid`, whichever no column uses).
        case rowid(String)
        /// Neither key nor rowid (a view): the row's ordinal number, from 1, in the view's order.
        case ordinal

        public var description: String {
            switch self {
            case .integerPrimaryKey(let c): "INTEGER PRIMARY KEY \(c)"
            case .columns(let cs, _): "PRIMARY KEY (\(cs.joined(separator: ", ")))"
            case .rowid: "rowid"
            case .ordinal: "row number"
            }
        }
    }

    /// The table's name.
    public var name: String
    /// Its kind.
    public var kind: Kind
    /// Its columns, in order (hidden columns of virtual tables left out).
    public var columns: [SQLiteColumn]
    /// How object ids are made.
    public var key: Key
    /// Whether it is a `WITHOUT ROWID` table.
    public var withoutRowID: Bool
    /// Its declared foreign keys.
    public var foreignKeys: [SQLiteForeignKey]
    /// The names of its fields: ``fieldNames``, and every name its rows use (composite
    /// Pointers' fields too), which a further field (`<field>_bytes`) must not take.
    var names: SourceFieldNames

    /// Per column, in order, the field it is read under: its own name, or for a name Parse
    /// keeps for itself (`objectId`, `className`, `createdAt`, `updatedAt`, `ACL`, `__type`)
    /// `<name>_sqlite`, with `_` appended while another column or field has that name (the
    /// names of a table's fields are unique, compared without case).
    public var fieldNames: [String] { names.fields }

    /// Per column, the field its original bytes go to with
    /// ``SQLiteDatabase/Options/keepOriginalBytes`` (`<field>_bytes`, `_` appended while
    /// taken), and every name the table's rows may then use (lowercased), which a field made
    /// later (`<field>_as_<type>`) must not take.
    package func bytesFieldNames() -> (fields: [String], taken: Set<String>) {
        var names = names
        let bytes = names.fields.map { names.claim($0 + "_bytes") }
        return (bytes, names.taken)
    }

    /// Every name the table's rows may use (lowercased): its columns and fields, composite
    /// Pointers' fields, and with `keepingBytes` the `_bytes` fields.
    package func takenFieldNames(keepingBytes: Bool) -> Set<String> {
        keepingBytes ? bytesFieldNames().taken : names.taken
    }

    /// The columns an id is made of, when ids are made of column values.
    public var identityColumns: [String]? {
        switch key {
        case .integerPrimaryKey(let c): [c]
        case .columns(let cs, _): cs
        case .rowid, .ordinal: nil
        }
    }
}

/// A column of a table.
public struct SQLiteColumn: Sendable, Equatable {
    /// Its name.
    public var name: String
    /// Its declared type as written (`INTEGER`, `varchar(20)`, empty).
    public var declaredType: String
    /// Whether it is declared NOT NULL.
    public var notNull: Bool
    /// Its position in the primary key, from 1, or 0.
    public var primaryKeyPosition: Int
}

/// A declared foreign key (`PRAGMA foreign_key_list`).
public struct SQLiteForeignKey: Sendable, Equatable {
    /// The child columns.
    public var columns: [String]
    /// The parent table.
    public var parentTable: String
    /// The parent columns as declared (empty when the declaration names none: the parent's
    /// primary key).
    public var parentColumns: [String]
    /// The field holding the Pointer: the column's own field for a one-column key (its value
    /// becomes the Pointer; ``SQLiteTable/fieldNames``), `<col1>_<col2>_ref` beside the columns
    /// for a composite one (`_` appended while taken); `nil` when the key cannot be a Pointer
    /// (``note`` says why) and the columns keep their values.
    public var pointerField: String?
    /// The child columns in the order of the parent's key columns (set when a Pointer is made).
    public var columnsInKeyOrder: [String] = []
    /// Why the key is not a Pointer, when it is not.
    public var note: String?

    /// Makes a foreign key.
    public init(columns: [String], parentTable: String, parentColumns: [String]) {
        self.columns = columns
        self.parentTable = parentTable
        self.parentColumns = parentColumns
    }

    /// Whether the key becomes a Pointer.
    public var isPointer: Bool { pointerField != nil && !columnsInKeyOrder.isEmpty }
}
