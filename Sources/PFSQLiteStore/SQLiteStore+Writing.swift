internal import GRDB
internal import GRDBSQLite
import Foundation
import OrderedCollections
import PFCore
import PFParse
import PFStores

/// One write transaction of a ``SQLiteStore``: into a temporary sibling for a new file, or
/// into the file itself (one SQLite transaction) for an existing one.
final class WriteSession {
    let destination: URL
    let location: String
    /// The temporary sibling being written, for a new destination.
    let temporary: URL?
    private var queue: DatabaseQueue?
    private var layout = SQLiteLayout()
    /// The upsert statement's SQL per class, rebuilt when a column is added.
    private var upserts: [String: String] = [:]

    /// The claim on the destination (its lock), released when the session ends.
    private let claim: Destination
    private let foreignEntries: ForeignEntries

    init(destination: URL, location: String, foreignEntries: ForeignEntries) throws(PFError) {
        self.destination = destination
        self.location = location
        self.foreignEntries = foreignEntries
        let fm = FileManager.default
        claim = try Destination.claim(destination, format: SQLiteStore.format)
        var isDirectory: ObjCBool = false
        let exists = fm.fileExists(atPath: destination.path, isDirectory: &isDirectory)
        if exists && isDirectory.boolValue {
            throw claim.refusal(.directoryWhereFileBelongs("an SQLite file"))
        }
        // As every other store: a symbolic link (whose target was written in place, even a
        // user's empty file turned into a database) or a FIFO or device is not written (and
        // not read either: opening a FIFO would wait for a writer).
        var status = stat()
        if lstat(destination.path, &status) == 0 {
            switch status.st_mode & S_IFMT {
            case S_IFREG, S_IFDIR: break
            case S_IFLNK: throw claim.refusal(.symbolicLink)
            default: throw claim.refusal(.notARegularFile)
            }
        }
        if exists, let head = Destination.prefix(of: destination, count: 100), !head.isEmpty {
            guard head.count >= 100, head.starts(with: Array("SQLite format 3\0".utf8)) else {
                throw claim.refusal(.notSQLite)
            }
            let applicationID = head[68 ..< 72].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            if applicationID != 0, applicationID != StoreLocation.pfarchiveApplicationID {
                throw claim.refusal(.otherApplication(applicationID: applicationID))
            }
        }
        if exists {
            temporary = nil
        } else {
            // Created here, mode 0600 while it is written; commit gives it the umask's mode.
            let staged = claim.temporarySibling()
            let fd = open(staged.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                Destination.forget(staged)
                throw PFError(StoreFailure.cannotCreateStaged(location: location, staged: staged.path, reason: String(cString: strerror(errno))), format: SQLiteStore.format)
            }
            _ = Foundation.close(fd)
            temporary = staged
        }
        var config = Configuration()
        config.label = "pfarchive.sqlite.write"
        // The transaction spans many calls (begin, write…, commit).
        config.allowsUnsafeTransactions = true
        config.foreignKeysEnabled = false
        do {
            queue = try DatabaseQueue(path: (temporary ?? destination).path, configuration: config)
        } catch {
            if let temporary {
                try? fm.removeItem(at: temporary)
                Destination.forget(temporary)
            }
            throw SQLiteStore.failure(error, "\(location): cannot open for writing")
        }
    }

    // MARK: Transaction

    private func database() throws(PFError) -> DatabaseQueue {
        guard let queue else { throw PFError(SQLiteStoreFailure.writeFinished(location: location), format: SQLiteStore.format) }
        return queue
    }

    func prepare(schema: ParseSchema) throws(PFError) {
        let isNew = temporary != nil
        let location = self.location
        layout = try SQLiteStore.run(try database(), "\(location): starting the write") { db in
            if isNew {
                // A fresh file nobody else sees: no journal, no syncs until commit, which
                // syncs the file before renaming it into place.
                // 8 MiB of page cache: bulk appends gain little from more, and memory stays flat.
                try db.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -8192")
            }
            try db.execute(sql: "BEGIN IMMEDIATE")
            if !isNew { try foreignCheck(db) }
            try SQLiteLayout.createMetadata(db)
            var layout = try SQLiteLayout.load(db, location: location)
            try Self.declare(schema, in: &layout, db)
            return layout
        }
    }

    /// Refuses tables and views that are not the store's (`_TABLES`, `_SCHEMA`, the tables
    /// `_TABLES` lists, SQLite's own `sqlite_…`), unless they are to be kept.
    private func foreignCheck(_ db: Database) throws {
        let hasTables = try db.tableExists("_TABLES")
        var own: Set<String> = ["_tables", "_schema"]
        if hasTables {
            for name in try String.fetchAll(db, sql: "SELECT tableName FROM _TABLES") { own.insert(name.lowercased()) }
        }
        let all = try String.fetchAll(db, sql: "SELECT type || ' ' || name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
        let foreign = all.filter { entry in
            guard let space = entry.firstIndex(of: " ") else { return true }
            return !own.contains(entry[entry.index(after: space)...].lowercased())
        }
        if !hasTables, !foreign.isEmpty, foreignEntries == .keep {
            // Keeping foreign tables is for a pfarchive store that has some; a database of
            // another program is never written into.
            throw claim.refusal(.sqliteWithoutStoreTables(firstTable: foreign[0]))
        }
        try claim.refuse(foreign, store: "a pfarchive SQLite store", policy: foreignEntries)
    }

    /// Adds the classes and fields of a schema learned after ``prepare(schema:)``.
    func extend(schema: ParseSchema) throws(PFError) {
        var layout = self.layout
        try SQLiteStore.run(try database(), "\(location): extending the schema") { db in
            try Self.declare(schema, in: &layout, db)
        }
        self.layout = layout
    }

    /// Creates the tables and columns of a schema's classes and fields that the file lacks.
    private static func declare(_ schema: ParseSchema, in layout: inout SQLiteLayout, _ db: Database) throws {
        for (className, fields) in schema.classes {
            try layout.ensureClass(className, db)
            for (name, field) in fields where !ParseRules.defaultColumns.contains(name) {
                try layout.ensureField(name, field, className: className, db)
            }
        }
    }

    func write(_ objects: [ParseObject], className: String) throws(PFError) {
        guard !objects.isEmpty else { return }
        let location = self.location
        var layout = self.layout
        var upsert = upserts[className]
        try SQLiteStore.run(try database(), "\(location): writing \(className)") { db in
            // Fields the schema did not announce get a column first.
            let before = layout.classes[className]?.fields.count
            try layout.ensureClass(className, db)
            var known = layout.classes[className]?.fields ?? [:]
            // The objects are read in place through a pointer: iterating the array, or passing an
            // element on, copies each one (a retain per string and collection it holds, a release after).
            try objects.withUnsafeBufferPointer { objects in
                guard let base = objects.baseAddress else { return }
                for i in objects.indices {
                    guard base[i].className == className else {
                        throw PFError(StoreFailure.wrongClassInBatch(location: location, index: i, objectId: base[i].objectId, className: base[i].className, batchClass: className), format: SQLiteStore.format)
                    }
                    for (key, field) in Self.fieldsWithoutColumn(base + i, known: known) {
                        try layout.ensureField(key, field, className: className, db)
                        known = layout.classes[className]?.fields ?? [:]
                    }
                }
            }
            guard let classLayout = layout.classes[className] else { return }
            if upsert == nil || before != classLayout.fields.count { upsert = Self.upsertSQL(classLayout) }
            let fields = classLayout.fields
            // The one-row statement is prepared only when a row needs it (a layout that grows
            // every batch would otherwise compile two statements per batch).
            var single: SQLiteRowBinder?
            let oneRow = upsert ?? ""
            func binderForOneRow() throws -> SQLiteRowBinder {
                if let single { return single }
                let made = SQLiteRowBinder(statement: try db.cachedStatement(sql: oneRow).sqliteStatement, connection: db.sqliteConnection)
                single = made
                return made
            }
            // Most rows go in statements of several rows: each statement run costs about as
            // much as inserting a row (SQLite's own insert is most of an import's writing).
            let rowsPerStatement = Self.rowsPerStatement(columns: SQLiteLayout.fixedColumns.count + fields.count, db.sqliteConnection)
            var chunkBinder: SQLiteRowBinder?
            if objects.count >= rowsPerStatement, rowsPerStatement > 1 {
                let chunk = try db.cachedStatement(sql: Self.upsertSQL(classLayout, rows: rowsPerStatement))
                chunkBinder = SQLiteRowBinder(statement: chunk.sqliteStatement, connection: db.sqliteConnection)
            }
            try objects.withUnsafeBufferPointer { objects in
                guard let base = objects.baseAddress else { return }
                var i = 0
                if var chunk = chunkBinder {
                    while objects.count - i >= rowsPerStatement {
                        chunk.reset()
                        for j in i..<(i + rowsPerStatement) { try chunk.bind(base + j, fields: fields) }
                        do throws(PFError) {
                            try chunk.step(context: "\(location): writing \(className)")
                        } catch {
                            // The import stops here either way. The rows are written again one
                            // at a time only so that the error names the row it is about, and
                            // only while the transaction is still open (never outside it).
                            // (The failed statement may have inserted some of its rows: a new
                            // file is written without a journal, which is what undoes a failed
                            // statement; its rows are upserted again, and the file is deleted.)
                            if sqlite3_get_autocommit(db.sqliteConnection) == 0 {
                                var binder = try binderForOneRow()
                                for j in i..<(i + rowsPerStatement) { try Self.writeOne(base + j, &binder, fields, location, className) }
                            }
                            throw error
                        }
                        i += rowsPerStatement
                    }
                }
                if i < objects.count {
                    var binder = try binderForOneRow()
                    while i < objects.count {
                        try Self.writeOne(base + i, &binder, fields, location, className)
                        i += 1
                    }
                }
            }
        }
        self.layout = layout
        upserts[className] = upsert
    }

    /// Binds and inserts one object with the one-row statement of `binder`.
    private static func writeOne(
        _ object: UnsafePointer<ParseObject>, _ binder: inout SQLiteRowBinder, _ fields: OrderedDictionary<String, FieldLayout>,
        _ location: String, _ className: String
    ) throws(PFError) {
        binder.reset()
        try binder.bind(object, fields: fields)
        try binder.step(context: "\(location): writing \(className) \(object.pointee.objectId ?? "(no objectId)")")
    }

    /// How many rows one insert statement takes: 16, fewer when that many rows would pass
    /// the connection's limit on a statement's parameters.
    static func rowsPerStatement(columns: Int, _ connection: OpaquePointer?) -> Int {
        let limit = Int(sqlite3_limit(connection, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
        return max(1, min(16, limit / max(1, columns)))
    }

    /// The fields of an object that have no column yet, typed by their values (nulls and the
    /// default columns need none). Keys mostly come in the layout's order, so each is compared
    /// with the layout's key at the same position before it is hashed; only keys are read
    /// (reading the values copied each one, a retain and a release per field).
    static func fieldsWithoutColumn(
        _ object: UnsafePointer<ParseObject>, known: OrderedDictionary<String, FieldLayout>
    ) -> [(String, ParseSchema.Field)] {
        var missing: [(String, ParseSchema.Field)] = []
        var position = 0
        let keys = known.keys
        // The stored fields, with prepared values typed without being made.
        for (i, key) in object.pointee.storedFields.keys.enumerated() {
            if position < keys.count, keys[position] == key {
                position += 1
            } else if let at = known.index(forKey: key) {
                position = at + 1
            } else if let field = object.pointee.schemaField(at: i), !ParseRules.defaultColumns.contains(key) {
                missing.append((key, field))
            }
        }
        return missing
    }

    /// The upsert of `rows` objects of a class: rows of one statement are inserted in order,
    /// each as its own statement would (a later row with an earlier one's `objectId` updates it).
    static func upsertSQL(_ layout: ClassLayout, rows: Int = 1) -> String {
        let columns = SQLiteLayout.fixedColumns + layout.fields.values.map(\.column)
        let quoted = columns.map(SQLiteLayout.quoted)
        let updates = quoted.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        let row = "(\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
        return """
            INSERT INTO \(SQLiteLayout.quoted(layout.table)) (\(quoted.joined(separator: ", "))) \
            VALUES \(Array(repeating: row, count: max(1, rows)).joined(separator: ", ")) \
            ON CONFLICT ("objectId") DO UPDATE SET \(updates)
            """
    }

    func write(_ rows: [ParseJoinRow], relation: ParseRelationKey) throws(PFError) {
        guard !rows.isEmpty else { return }
        var layout = self.layout
        try SQLiteStore.run(try database(), "\(location): writing \(relation.joinClassName)") { db in
            let join = try layout.ensureJoin(relation, db)
            let statement = try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO \(SQLiteLayout.quoted(join.table)) (\"owningId\", \"relatedId\") VALUES (?, ?)")
            var binder = SQLiteRowBinder(statement: statement.sqliteStatement, connection: db.sqliteConnection)
            for row in rows {
                binder.reset()
                binder.text(row.owningId)
                binder.text(row.relatedId)
                try binder.step(context: "\(location): writing \(relation.joinClassName)")
            }
        }
        self.layout = layout
    }

    func commit() throws(PFError) {
        let queue = try database()
        let layout = self.layout
        try SQLiteStore.run(queue, "\(location): committing") { db in
            try layout.indexPointers(db)
            try db.execute(sql: "COMMIT")
        }
        do {
            try queue.close()
        } catch {
            throw SQLiteStore.failure(error, "\(location): closing")
        }
        self.queue = nil
        defer { claim.release() }
        guard let temporary else { return }
        // Give the finished file the umask's mode and sync it, rename it into place (one step
        // on the same file system), then sync the directory so the rename itself is durable.
        do throws(PFError) {
            try Destination.settle(temporary, like: nil, format: SQLiteStore.format)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            Destination.forget(temporary)
            throw error
        }
        try claim.replace(with: temporary)
    }

    /// Rolls back (existing file) or deletes the temporary sibling (new file). Never throws.
    func discard() {
        if let queue {
            if temporary == nil {
                _ = try? queue.inDatabase { db in
                    if db.isInsideTransaction { try db.execute(sql: "ROLLBACK") }
                }
            }
            try? queue.close()
            self.queue = nil
        }
        if let temporary {
            for suffix in ["", "-journal", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: temporary.path + suffix)
            }
            Destination.forget(temporary)
        }
        claim.release()
    }
}
