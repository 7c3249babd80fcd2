// The SQLite store (through GRDB); the layout is documented in Docs/Stores.md, "SQLite".
internal import GRDB
import Foundation
import OrderedCollections
import PFCore
import PFSQLiteSource
import PFParse
import PFStores

/// pfarchive's SQLite store: one table per class with typed columns, one join table per
/// relation, and the `_TABLES` and `_SCHEMA` tables that describe them (Docs/Stores.md,
/// "SQLite", has the layout for other tools).
///
/// ```swift
/// let store = SQLiteStore(url: URL(fileURLWithPath: "out.sqlite"))
/// try store.begin(schema: schema)
/// try store.write(objects, className: "Post")
/// try store.commit()
/// let posts = try store.objects(in: "Post")
/// ```
///
/// Writing keeps the ``PFStores/ObjectStoreWriter`` contract: a new file is written as a
/// temporary sibling (`.<name>.pfarchive-tmp-<pid>-<random>`) and renamed into place by
/// ``commit()``; an existing file is changed in one transaction, rolled back by ``abort()``
/// (or by SQLite itself when a killed run left a hot journal). Temporary siblings left by
/// killed runs are deleted when the next write begins. A write holds the file's lock
/// (``PFStores/Destination``) from ``begin(schema:)`` to ``commit()``/``abort()``; a file that
/// is not pfarchive's, or holds tables that are not the store's, is refused.
public final class SQLiteStore: ObjectStoreReader, ObjectStoreWriter, StoresPreparedJSON {
    /// The format name in errors.
    public static let format: PFError.Format = .sqlite

    /// The path, for messages.
    public let location: String
    /// The database file.
    public let url: URL

    private var readQueue: DatabaseQueue?
    private var readCopy: StoreCopy?
    private var readLayout: SQLiteLayout?
    private var session: WriteSession?

    /// What ``begin(schema:)`` does with tables of an existing file that are not the store's
    /// (see Docs/Security.md, "Destinations"): refuse them (the default), or leave them
    /// untouched beside the store's tables.
    public var foreignEntries: ForeignEntries = .refuse

    /// A store at a path (nothing is opened until it is read or written).
    /// - Parameter url: the `.sqlite` file.
    public init(url: URL) {
        self.url = url
        self.location = url.path
    }

    deinit {
        abort()
        close()
    }

    /// Adds the SQLite store's openers to a registry (reading checks, from the file's bytes
    /// and before SQLite opens anything, that it is one of pfarchive's stores).
    /// - Parameter openers: the registry.
    public static func register(in openers: inout StoreOpeners) {
        openers.register(
            .sqlite,
            reader: { (location: StoreLocation) throws(PFError) -> any ObjectStoreReader in
                let store = SQLiteStore(url: try StoreOpeners.existing(location))
                _ = try store.layout()
                return store
            },
            writer: { (location: StoreLocation) throws(PFError) -> any ObjectStoreWriter in
                SQLiteStore(url: StoreOpeners.file(location))
            })
    }

    // MARK: - Errors

    static func failure(_ error: any Error, _ context: String) -> PFError {
        if let error = error as? PFError { return error }
        if let error = error as? DatabaseError {
            let invalid =
                switch error.resultCode {
                case .SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_FORMAT, .SQLITE_MISMATCH: true
                case .SQLITE_CONSTRAINT: true
                default: false
                }
            return PFError(
                SQLiteStoreFailure.sqlite(
                    context: context, message: error.message ?? "\(error.resultCode)", extendedCode: "\(error.extendedResultCode)", invalid: invalid),
                format: format)
        }
        return PFError(SQLiteStoreFailure.other(context: context, problem: "\(error)"), format: format)
    }

    static func run<T>(_ queue: DatabaseQueue, _ context: @autoclosure () -> String, _ body: (Database) throws -> T) throws(PFError) -> T {
        do {
            return try queue.inDatabase(body)
        } catch {
            throw failure(error, context())
        }
    }

    // MARK: - Reading

    /// The read connection, on a private copy of the file (and its `-wal`, `-shm`,
    /// `-journal`): reading never creates, changes or locks anything beside the source, WAL
    /// mode or not, whether the read succeeds or fails. What the file is, is decided from its
    /// bytes before anything is copied or opened.
    private func reader() throws(PFError) -> DatabaseQueue {
        if let readQueue { return readQueue }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw PFError(SQLiteFileFailure.noSuchFile(path: location), format: Self.format)
        }
        switch StoreLocation.sqliteKind(of: url) {
        case .pfarchive:
            break
        case .coreData:
            throw PFError(SQLiteStoreFailure.coreDataStore(location: location), format: Self.format)
        case .other:
            throw PFError(SQLiteStoreFailure.otherDatabase(location: location), format: Self.format)
        case .notSQLite:
            throw PFError(SQLiteFileFailure.notSQLite(path: location), format: Self.format)
        }
        let copy = try StoreCopy.make(of: url, format: Self.format)
        var config = Configuration()
        config.label = "pfarchive.sqlite.read"
        // The copy is private: opened read-write so SQLite can use its own -shm or roll back a
        // copied hot journal, and made query-only so nothing is ever written to it.
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA query_only = 1") }
        do {
            let queue = try DatabaseQueue(path: copy.database.path, configuration: config)
            readQueue = queue
            readCopy = copy
            return queue
        } catch {
            copy.remove()
            throw Self.failure(error, "\(location): cannot open")
        }
    }

    private func layout() throws(PFError) -> SQLiteLayout {
        if let readLayout { return readLayout }
        let queue = try reader()
        let location = self.location
        let layout = try Self.run(queue, "\(location): reading _TABLES and _SCHEMA") { db in
            guard try db.tableExists("_TABLES") else {
                throw PFError(SQLiteStoreFailure.notPfarchiveStore(location: location), format: Self.format)
            }
            return try SQLiteLayout.load(db, location: location)
        }
        readLayout = layout
        return layout
    }

    public func classNames() throws(PFError) -> [String] {
        Array(try layout().classes.keys)
    }

    public func schema() throws(PFError) -> ParseSchema {
        var schema = ParseSchema()
        for (name, layout) in try layout().classes {
            var fields = OrderedDictionary<String, ParseSchema.Field>()
            for (field, f) in layout.fields { fields[field] = f.field }
            schema.classes[name] = fields
        }
        return schema
    }

    public func estimatedObjectCount(in className: String) -> Int? {
        guard let layout = try? layout(), let table = layout.classes[className]?.table, let queue = try? reader() else { return nil }
        return try? queue.inDatabase { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(SQLiteLayout.quoted(table))") }
    }

    public func forEachObject(in className: String, _ body: (ParseObject) throws(PFError) -> Void) throws(PFError) {
        guard let layout = try layout().classes[className] else { return }
        let fields = Array(layout.fields.values)
        let columns = (["rowid"] + SQLiteLayout.fixedColumns + fields.map(\.column)).map(SQLiteLayout.quoted).joined(separator: ", ")
        let sql = "SELECT \(columns) FROM \(SQLiteLayout.quoted(layout.table)) ORDER BY rowid"
        let location = self.location
        try Self.run(try reader(), "\(location): reading \(className)") { db in
            let rows = try Row.fetchCursor(db, sql: sql)
            while let row = try rows.next() {
                let object = try Self.object(row, layout: layout, fields: fields, location: location)
                try body(object)
            }
        }
    }

    private static func object(_ row: Row, layout: ClassLayout, fields: [FieldLayout], location: String) throws(PFError) -> ParseObject {
        let rowid: Int64 = row[0] ?? 0
        func place(_ column: String) -> String { "\(location): table \(layout.table), row \(rowid), column \(column)" }
        var values = OrderedDictionary<String, ParseValue>()
        values.reserveCapacity(fields.count)
        for (i, field) in fields.enumerated() {
            let dbValue: DatabaseValue = row[6 + i]
            if let value = try SQLiteValueCodec.fieldValue(dbValue, field, where: { place(field.column) }) {
                values[field.name] = value
            }
        }
        let extra: DatabaseValue = row[5]
        switch extra.storage {
        case .null: break
        case .string(let text):
            for (key, value) in try SQLiteValueCodec.extraFields(text, where: { place("_extra") }) { values[key] = value }
        default: throw SQLiteValueCodec.malformed(place("_extra"), "expected TEXT JSON, found \(SQLiteValueCodec.describe(extra))")
        }
        let objectId: DatabaseValue = row[1]
        var id: String?
        switch objectId.storage {
        case .null: id = nil
        case .string(let s): id = s
        default: throw SQLiteValueCodec.malformed(place("objectId"), "expected TEXT, found \(SQLiteValueCodec.describe(objectId))")
        }
        func date(_ index: Int, _ name: String) throws(PFError) -> Date? {
            let v: DatabaseValue = row[index]
            switch v.storage {
            case .null: return nil
            case .int64(let ms): return Date(timeIntervalSince1970: Double(ms) / 1000)
            default: throw SQLiteValueCodec.malformed(place(name), "expected INTEGER milliseconds since 1970, found \(SQLiteValueCodec.describe(v))")
            }
        }
        let createdAt = try date(2, "createdAt")
        let updatedAt = try date(3, "updatedAt")
        var acl: ParseACL?
        let aclValue: DatabaseValue = row[4]
        switch aclValue.storage {
        case .null: break
        case .string(let text):
            do {
                acl = try ParseACL(rest: try SQLiteValueCodec.reader.read(Data(text.utf8)))
            } catch {
                throw SQLiteValueCodec.malformed(place("ACL"), "expected an ACL as JSON: \(error.description)")
            }
        default: throw SQLiteValueCodec.malformed(place("ACL"), "expected TEXT JSON, found \(SQLiteValueCodec.describe(aclValue))")
        }
        do {
            return try ParseObject(
                className: layout.className, objectId: id, createdAt: createdAt, updatedAt: updatedAt, acl: acl, fields: values,
                checkingNames: false)
        } catch {
            throw SQLiteValueCodec.malformed("\(location): table \(layout.table), row \(rowid)", error.description)
        }
    }

    public func relations() throws(PFError) -> [ParseRelationKey] {
        let layout = try layout()
        var keys = OrderedDictionary<ParseRelationKey, ParseRelationKey>()
        for (key, join) in layout.joins { keys[key] = join.key }
        for (className, c) in layout.classes {
            for (name, field) in c.fields where field.field.type == .relation {
                let key = ParseRelationKey(owningClass: className, field: name)
                if keys[key] == nil { keys[key] = ParseRelationKey(owningClass: className, field: name, targetClass: field.field.targetClass) }
            }
        }
        return keys.keys.sorted().compactMap { keys[$0] }
    }

    public func forEachJoinRow(of relation: ParseRelationKey, _ body: (ParseJoinRow) throws(PFError) -> Void) throws(PFError) {
        guard let join = try layout().joins[ParseRelationKey(owningClass: relation.owningClass, field: relation.field)] else { return }
        let sql = "SELECT rowid, owningId, relatedId FROM \(SQLiteLayout.quoted(join.table)) ORDER BY rowid"
        let location = self.location
        try Self.run(try reader(), "\(location): reading \(join.table)") { db in
            let rows = try Row.fetchCursor(db, sql: sql)
            while let row = try rows.next() {
                guard let owning = row[1] as String?, let related = row[2] as String? else {
                    let rowid: Int64 = row[0] ?? 0
                    throw SQLiteValueCodec.malformed("\(location): table \(join.table), row \(rowid)", "expected TEXT owningId and relatedId")
                }
                try body(ParseJoinRow(owningId: owning, relatedId: related))
            }
        }
    }

    /// Closes the read connection and deletes its private copy. Calling it twice does nothing.
    public func close() {
        try? readQueue?.close()
        readQueue = nil
        readCopy?.remove()
        readCopy = nil
        readLayout = nil
    }

    // MARK: - Writing

    public func begin(schema: ParseSchema) throws(PFError) {
        guard session == nil else {
            throw PFError(StoreFailure.beganTwice(location: location), format: Self.format)
        }
        close()
        let session = try WriteSession(destination: url, location: location, foreignEntries: foreignEntries)
        do {
            try session.prepare(schema: schema)
        } catch {
            session.discard()
            throw error
        }
        self.session = session
    }

    public func extend(schema: ParseSchema) throws(PFError) {
        guard let session else { throw notBegun() }
        try session.extend(schema: schema)
    }

    public func write(_ objects: [ParseObject], className: String) throws(PFError) {
        guard let session else { throw notBegun() }
        try session.write(objects, className: className)
    }

    public func write(_ rows: [ParseJoinRow], relation: ParseRelationKey) throws(PFError) {
        guard let session else { throw notBegun() }
        try session.write(rows, relation: relation)
    }

    public func commit() throws(PFError) {
        guard let session else { throw notBegun() }
        self.session = nil
        do {
            try session.commit()
        } catch {
            session.discard()
            throw error
        }
    }

    public func abort() {
        session?.discard()
        session = nil
    }

    private func notBegun() -> PFError {
        PFError(StoreFailure.notWriting(location: location), format: Self.format)
    }
}
