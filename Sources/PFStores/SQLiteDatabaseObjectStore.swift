import Foundation
import OrderedCollections
import PFCore
import PFParse
import PFSQLiteSource

/// Any SQLite database (neither a Core Data store nor pfarchive's own store) as a read-only
/// source of Parse-like objects, so it can be imported into any other store.
///
/// Each table is a class and each row an object (``PFSQLiteSource/SQLiteDatabase``): the
/// objectId from the INTEGER PRIMARY KEY, the declared primary key or the rowid; declared
/// foreign keys to tables that are read become Pointers; INTEGER and REAL are Numbers, TEXT a
/// String, BLOB Bytes, NULL null; `--date-column` columns are Dates; with
/// ``PFSQLiteSource/SQLiteDatabase/Options/decodeBlobs`` payloads become typed values. The
/// database is read through a private copy, so the user's files (`-wal`/`-shm` included) are
/// never touched.
///
/// A table's class is its own name when Parse allows it as a class name; a name Parse forbids
/// (one starting with `_` or a digit, or holding spaces, dots or other marks, such as
/// iMessage's `_SqliteDatabaseProperties`) becomes a valid one — marks replaced by `_`, leading
/// `_` dropped, `T` before a leading digit, then `_sqlite` appended (`SqliteDatabaseProperties_sqlite`,
/// `deleted_messages_sqlite`), with `_2`, `_3`… if that is taken — and Pointers to it follow
/// (``classNameOfTable``). The same database always gives the same names.
///
/// The schema is learned from the values while the objects are read
/// (``declaredSchema()`` is `nil`): SQLite types values, not columns. A column whose rows hold
/// numbers, TEXT or BLOBs mixed (`42` in one row, `'n/a'` in the next) is read as a String in
/// every row (``PFSQLiteSource/SQLiteDatabase/Options/textForMixedColumns``), so every
/// destination — PostgreSQL's typed columns too — holds every row under one field type. A
/// value of another type than its field's first value (with `decodeBlobs`, a payload that
/// decoded in one row and stayed bytes in the next) goes to the field `<field>_as_<type>`.
public final class SQLiteDatabaseObjectStore: ObjectStoreReader {
    /// The opened database.
    public let database: SQLiteDatabase
    /// Values kept as stored instead of decoded, with where they are, over every read so far
    /// (the first 1,000 kept, all counted).
    public private(set) var reports = SQLiteRowReports()
    /// Called with each report as it is made (the CLI prints them on stderr).
    public var onReport: (@Sendable (SQLiteRowReport) -> Void)? {
        get { reports.onReport }
        set { reports.onReport = newValue }
    }
    /// Each table's class name, by table name (``SQLiteDatabaseObjectStore`` says how a name
    /// Parse forbids is made valid).
    public let classNameOfTable: [String: String]
    private let tableOfClass: [String: String]
    private let renamesTables: Bool
    private var learned = ParseSchema()
    private var read: Set<String> = []
    private var closed = false
    /// Whether a decoded payload that can be written straight as REST JSON is handed on as
    /// prepared JSON (``PFParse/ParsePreparedValue``) instead of a value: set by an import
    /// into a store that writes such JSON as it is (``StoresPreparedJSON``).
    package var preparesJSON = false

    /// Opens a database read-only.
    /// - Parameters:
    ///   - url: the database file.
    ///   - options: tables, decoding and date columns;
    ///     ``PFSQLiteSource/SQLiteDatabase/Options/textForMixedColumns`` is always on.
    /// - Throws: ``PFCore/PFError`` when the file is not a readable SQLite database.
    public init(url: URL, options: SQLiteDatabase.Options = .init()) throws(PFError) {
        var options = options
        options.textForMixedColumns = true
        database = try SQLiteDatabase.open(url: url, options: options)
        classNameOfTable = SourceClassNames.make(for: database.tables.map(\.name), suffix: "_sqlite")
        tableOfClass = Dictionary(classNameOfTable.map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        renamesTables = classNameOfTable.contains { $0 != $1 }
    }

    private func className(ofTable table: String) -> String { classNameOfTable[table] ?? table }

    private func table(ofClass className: String) -> String { tableOfClass[className] ?? className }

    public var location: String { database.url.path }

    /// The classes of the tables read (``classNameOfTable``).
    public func classNames() throws(PFError) -> [String] { database.tables.map { className(ofTable: $0.name) } }

    /// The views and virtual tables asked for (`--internal-tables`) that SQLite cannot read
    /// without their app, each with why.
    public func unreadContents() -> [String] { database.unreadableNotes }

    /// `nil`: the schema is learned from the values while they are read.
    public func declaredSchema() throws(PFError) -> ParseSchema? { nil }

    /// The schema: foreign keys as Pointers to their table, and every other field typed by its
    /// first non-null value (a date column's Date, a decoded payload's Object or Array) (a class not read yet is read for this).
    public func schema() throws(PFError) -> ParseSchema {
        for table in database.tables where !read.contains(table.name) {
            try forEachObject(in: className(ofTable: table.name)) { _ in }
        }
        var schema = ParseSchema()
        for table in database.tables {
            var fields = OrderedDictionary<String, ParseSchema.Field>()
            // In the foreign keys' order: a dictionary's order changes from run to run, and
            // with it the columns of a store written from a table without rows.
            let pointers = table.foreignKeys.compactMap { fk in fk.isPointer ? fk.pointerField.map { ($0, className(ofTable: fk.parentTable)) } : nil }
            let pointerFields = Dictionary(pointers, uniquingKeysWith: { a, _ in a })
            let name = className(ofTable: table.name)
            for (name, field) in learned.classes[name] ?? [:] {
                fields[name] = pointerFields[name].map { ParseSchema.Field(.pointer, targetClass: $0) } ?? field
            }
            for (name, _) in pointers where fields[name] == nil {
                fields[name] = pointerFields[name].map { ParseSchema.Field(.pointer, targetClass: $0) }
            }
            schema.classes[name] = fields
        }
        return schema
    }

    public func estimatedObjectCount(in className: String) -> Int? {
        try? database.rowCount(of: table(ofClass: className))
    }

    /// Streams a table's rows as objects. A decoded payload that a Parse object cannot hold
    /// is kept as stored, with a report (an error with `strict`).
    ///
    /// Rows become objects on every core, a batch at a time; this thread learns the schema
    /// and calls `body` in key order, so reports, errors and objects come exactly as from a
    /// serial loop.
    public func forEachObject(in className: String, _ body: (ParseObject) throws(PFError) -> Void) throws(PFError) {
        let maker = ObjectMaker(
            tableName: table(ofClass: className), className: className, file: database.url.lastPathComponent,
            strict: database.options.strict, classNameOfTable: renamesTables ? classNameOfTable : nil,
            classNameIsValid: ParseRules.classNameProblem(className) == nil)
        let workers = database.options.decodeBlobs ? max(1, ProcessInfo.processInfo.activeProcessorCount) : 1
        var settled = FieldTypes()
        let taken = takenFieldNames(of: maker.tableName)
        try database.forEachBatch(of: maker.tableName, workers: workers, preparingJSON: preparesJSON, transform: maker.objects) { (made: [MadeObject]) throws(PFError) in
            // Read in place through a pointer: iterating the array, or passing an element on,
            // copies each item (a retain per value it holds, and a release after).
            try made.withUnsafeBufferPointer { (made: UnsafeBufferPointer<MadeObject>) throws(PFError) in
                guard let base = made.baseAddress else { return }
                for i in made.indices {
                    try deliver(base + i, className: className, taken: taken, settled: &settled, body)
                }
            }
        }
        read.insert(className)
        if learned.classes[className] == nil { learned.classes[className] = [:] }
    }

    /// Records a made object's reports, then learns its fields and hands it to `body` (or
    /// throws its error).
    ///
    /// Rows of a table mostly have the same fields of the same types: an object whose fields
    /// and types are those of an earlier one that moved nothing (`settled`) has nothing to move
    /// and nothing to learn either (the learned schema only grows), so both are skipped.
    private func deliver(
        _ item: UnsafePointer<MadeObject>, className: String, taken: Set<String>, settled: inout FieldTypes,
        _ body: (ParseObject) throws(PFError) -> Void
    ) throws(PFError) {
        for report in item.pointee.reports { reports.add(report) }
        guard case .success(var object) = item.pointee.object else {
            if case .failure(let error) = item.pointee.object { throw error }
            return
        }
        if !settled.matches(object) {
            if let moved = try movingConflicts(object, className: className, taken: taken) {
                object = moved
            } else {
                settled = FieldTypes(object)
            }
            learned.addFields(of: object)
        }
        try body(object)
    }

    /// The field names of an object in order, each with its schema type (`nil` for null).
    struct FieldTypes {
        var keys: [String] = []
        var types: [ParseFieldType?] = []

        init() {}

        init(_ object: ParseObject) {
            keys = Array(object.storedFields.keys)
            types = keys.indices.map { object.fieldType(at: $0) }
        }

        /// Whether the object has exactly these fields, in this order, of these types
        /// (prepared values are told by their type, not made).
        func matches(_ object: ParseObject) -> Bool {
            let fields = object.storedFields
            guard !keys.isEmpty, fields.count == keys.count else { return false }
            for (i, key) in fields.keys.enumerated() {
                guard key == keys[i], object.fieldType(at: i) == types[i] else { return false }
            }
            return true
        }
    }

    /// One row made into an object: the reports to record first, then the object (or the
    /// error to throw). The row itself stays with the worker that made it, which frees its
    /// values (glibc frees into the allocating thread's arena, so that is also the cheap place).
    struct MadeObject: Sendable {
        var reports: [SQLiteRowReport]
        var object: Result<ParseObject, PFError>
    }

    /// Turns rows of one table into objects; what it needs of the store, so it runs on any
    /// thread.
    struct ObjectMaker: Sendable {
        let tableName: String
        let className: String
        let file: String
        let strict: Bool
        /// The class names of tables, when some differ from the table's name.
        let classNameOfTable: [String: String]?
        /// Whether Parse accepts ``className`` (checked once, not per row).
        let classNameIsValid: Bool

        /// The objects of a batch of rows, in order; stops after the first error.
        @Sendable func objects(_ rows: [SQLiteRow]) -> [MadeObject] {
            var out: [MadeObject] = []
            out.reserveCapacity(rows.count)
            for row in rows {
                let made = object(row)
                // Asked before the append, which then takes the item without copying it.
                let failed = if case .failure = made.object { true } else { false }
                out.append(made)
                if failed { break }
            }
            return out
        }

        func object(_ row: SQLiteRow) -> MadeObject {
            var reports = row.reports
            let made: Result<ParseObject, PFError>
            if let classNameOfTable {
                var fitted = row
                SQLiteDatabaseObjectStore.renamePointerTargets(in: &fitted, classNameOfTable)
                made = object(fitted, reports: &reports, id: row.objectId)
            } else {
                // No copy of the row (a retain per value it holds).
                made = object(row, reports: &reports, id: row.objectId)
            }
            return MadeObject(reports: reports, object: made)
        }

        /// The object of `row`, or the error; a decoded payload a Parse object cannot hold is
        /// kept as stored instead, with a report in `reports` (an error when `strict`).
        func object(_ row: SQLiteRow, reports: inout [SQLiteRowReport], id: String) -> Result<ParseObject, PFError> {
            do throws(PFError) {
                return .success(try SQLiteDatabaseObjectStore.object(row, className: className, classNameIsValid: classNameIsValid))
            } catch {
                guard !row.originals.isEmpty else { return .failure(located(error, id: id)) }
                // A decoded payload a Parse object cannot hold: keep what was stored.
                var plain = row
                plain.prepared = []
                for (field, stored) in row.originals { plain.fields[field] = stored }
                let message = "a decoded payload does not fit a Parse object (\(error.message)); kept as stored"
                for field in row.originals.map(\.field).sorted() {
                    if strict {
                        return .failure(
                            PFError(
                                SQLiteSourceFailure.undecodable(file: file, table: tableName, objectId: id, column: field, reason: message),
                                format: .sqlite))
                    }
                    reports.append(SQLiteRowReport(table: tableName, objectId: id, column: field, message: message))
                }
                do throws(PFError) {
                    return .success(try SQLiteDatabaseObjectStore.object(plain, className: className))
                } catch {
                    return .failure(located(error, id: id))
                }
            }
        }

        func located(_ error: PFError, id: String) -> PFError {
            SQLiteDatabaseObjectStore.located(error, file: file, className: className, id: id)
        }
    }

    /// Every name a table's rows may use (its columns' fields, composite Pointers, `_bytes`
    /// fields), lowercased: a moved field (``movingConflicts(_:className:taken:)``) takes none
    /// of them, so it never shares a field with another column in another row.
    private func takenFieldNames(of tableName: String) -> Set<String> {
        database.tables.first { $0.name == tableName }?.takenFieldNames(keepingBytes: database.options.keepOriginalBytes) ?? []
    }

    /// The object with each field whose value is of another type than the field's first
    /// value (a payload that decoded in one row and stayed bytes in the next, a JSON object
    /// then an array) moved to the field `<field>_as_<type>` (`payload_as_bytes`, `_` appended
    /// while a column, another field of the table or a field learned with another type has that
    /// name) at the end, so every destination holds every row under one type per field and
    /// nothing is lost; `nil` when nothing conflicts.
    ///
    /// The values are moved as made: a field's value does not depend on its name (names are
    /// not checked), so this is the object the row with the field renamed gives.
    private func movingConflicts(_ object: ParseObject, className: String, taken: Set<String>) throws(PFError) -> ParseObject? {
        guard let known = learned.classes[className] else { return nil }
        // Told by the fields' types first, so an object whose prepared values stay (nothing
        // moves) never has them made.
        let keys = object.storedFields.keys
        guard keys.indices.contains(where: { i in
            guard let type = object.fieldType(at: i), let was = known[keys[i]]?.type else { return false }
            return was != type
        }), let fields = ValueTypedFields.movingConflicts(object.fields, known: known, taken: taken)
        else { return nil }
        do throws(PFError) {
            // No source key order: the object writes `objectId` then its fields in order, as
            // the renamed row's object did (a row has no timestamps or ACL).
            return try ParseObject(
                className: object.className, objectId: object.objectId, createdAt: object.createdAt, updatedAt: object.updatedAt,
                acl: object.acl, fields: fields, checkingNames: false)
        } catch {
            throw located(error, className: className, id: object.objectId ?? "")
        }
    }

    /// Points the row's Pointers at their tables' class names.
    static func renamePointerTargets(in row: inout SQLiteRow, _ classNameOfTable: [String: String]) {
        for (key, value) in row.fields {
            guard case .dictionary(var pointer) = value, pointer["__type"] == ParseFieldType.pointer.restTag,
                case .string(let target)? = pointer["className"], let renamed = classNameOfTable[target], renamed != target
            else { continue }
            pointer["className"] = .string(renamed)
            row.fields[key] = .dictionary(pointer)
        }
    }

    /// The object of a row: `{"objectId": …, fields…}` read as REST JSON, without building it;
    /// the row's prepared payloads are held as prepared JSON, each made from its stored bytes
    /// when something reads it.
    static func object(_ row: SQLiteRow, className: String, classNameIsValid: Bool = false) throws(PFError) -> ParseObject {
        /// The general way: the decoded values in place of the placeholders.
        func general() throws(PFError) -> ParseObject {
            var fields = row.fields
            for payload in row.prepared { fields[payload.field] = payload.decoded }
            return try ParseObject.reading(className: className, objectId: row.objectId, restFields: fields, classNameIsValid: classNameIsValid)
        }
        // A field the REST object reads specially (a column named `ACL`, which the source
        // renames today) needs its value, not a placeholder.
        if row.prepared.contains(where: { ParseObject.readsSpecially($0.field) }) { return try general() }
        var object = try ParseObject.reading(
            className: className, objectId: row.objectId, restFields: row.fields, classNameIsValid: classNameIsValid)
        guard !row.prepared.isEmpty else { return object }
        let prepared = row.prepared.map { payload in
            let (stored, limits) = (payload.stored, payload.limits)
            return ParsePreparedField(
                index: payload.index, key: payload.field,
                value: ParsePreparedValue(json: payload.json, type: payload.isArray ? .array : .object) {
                    // Made as a row read without preparing makes it (which cannot fail for
                    // what is prepared: no __type, no integer beyond 64 bits).
                    (try? ParseValue(rest: SQLitePreparedPayload.decoded(stored, limits: limits), checkingNames: false)) ?? .bytes(stored)
                })
        }
        // (Attaching fails only if the object's fields are not the row's, in order.)
        return object.attachPrepared(prepared) ? object : try general()
    }

    private func located(_ error: PFError, className: String, id: String) -> PFError {
        Self.located(error, file: database.url.lastPathComponent, className: className, id: id)
    }

    static func located(_ error: PFError, file: String, className: String, id: String) -> PFError {
        var e = error
        e.format = .sqlite
        let object = "\(className) \(id): "
        if e.message.hasPrefix(object) { e.message.removeFirst(object.count) }
        e.message = "\(file): \(object)\(e.message)"
        return e
    }

    /// Foreign keys are Pointers, so there are no join rows.
    public func relations() throws(PFError) -> [ParseRelationKey] { [] }

    public func forEachJoinRow(of relation: ParseRelationKey, _ body: (ParseJoinRow) throws(PFError) -> Void) throws(PFError) {}

    public func close() {
        guard !closed else { return }
        closed = true
        database.close()
    }

    deinit { close() }
}
