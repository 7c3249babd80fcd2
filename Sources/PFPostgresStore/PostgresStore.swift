import Foundation
import OrderedCollections
import PFCore
import PFParse
import PFStores
import PostgresNIO

/// A store in Parse Server's PostgreSQL schema, on a real PostgreSQL server: one table per
/// class with the column types parse-server's `PostgresStorageAdapter` uses, `_Join:<field>:<Class>`
/// tables for relations and the `_SCHEMA` table, so parse-server can serve what is written.
///
/// ```swift
/// let store = try PostgresStore.open(url: "postgres://parse@127.0.0.1:5432/app")
/// defer { store.close() }
/// try store.forEachObject(in: "GameScore") { print($0.objectId ?? "") }
/// ```
///
/// Reading streams pages of rows in `objectId` order (keyset pagination, no `OFFSET`), so
/// memory is bounded by a page of objects. Writing happens in one transaction from
/// ``begin(schema:)`` to ``commit()``: tables for new classes are created inside it, objects and
/// join rows go in with `COPY … FROM STDIN (FORMAT binary)` into temporary staging tables, merged
/// into the class and join tables with `INSERT … SELECT … ON CONFLICT` (an object whose objectId
/// is there is replaced; a table the transaction created is loaded directly and keyed after),
/// several batches on their way while the server loads earlier ones, and
/// ``abort()`` rolls all of it back. See `Docs/Stores.md` ("Parse Server PostgreSQL") for the mapping and what it loses.
///
/// The API is synchronous: every call blocks the calling thread on postgres-nio's future, on
/// an event loop the store owns. Use one store from one thread at a time.
public final class PostgresStore: ObjectStoreReader, ObjectStoreWriter {
    /// The database URL without its password.
    public let location: String
    /// The server and database.
    public let url: PostgresURL
    let session: PostgresSession
    /// The rows read per page.
    let pageSize: Int

    /// The writer's state between ``begin(schema:)`` and ``commit()``/``abort()``.
    var transaction: WriteState?
    /// The names the last write encoded.
    public internal(set) var encodedNames = ParseNameTally()
    /// How objects and join rows go in: `COPY` into a staging table merged into the class's
    /// table (the default), or the multi-row `INSERT … ON CONFLICT` of earlier versions, kept
    /// as the tests' oracle for what COPY must produce.
    var writeMethod = WriteMethod.copy
    /// The rows a staging table takes before it is merged (and a new one started).
    var copySegmentRows = 50_000
    /// The rows a COPY straight into a table this transaction created takes before it ends
    /// (and a new one starts): no merge waits for it, so it runs as long as this allows
    /// (each end waits for the server to load every row sent, with nothing in flight). Its
    /// objectIds are kept for messages: 16 bytes each for ids up to 15 bytes.
    var directCopySegmentRows = 1_000_000
    /// The batches of COPY rows that may be on their way to the server at once.
    var copyBatchesInFlight = 4
    /// The COPY open in the transaction (``CopySegment``).
    var copying: CopySegment?
    /// Staging tables made so far by this store (their names are numbered).
    var stagingTables = 0
    /// The hash values of the objectIds written in this transaction to each table it created
    /// (``CopySegment/direct``): an id not among them cannot be in the table yet.
    var writtenIds: [String: Set<Int>] = [:]
    /// Parse Server's naming and PostgreSQL's 63-byte identifiers: other names are encoded
    /// (``PFParse/ParseNameCoding``), their originals kept in `_SCHEMA`.
    public var namePolicy: ParseNamePolicy { .postgres }

    /// Connects to a database.
    /// - Parameters:
    ///   - url: `postgres://user:password@host:port/database` (`?sslmode=disable|prefer|require`).
    ///   - pageSize: the rows read per query when streaming (default 500).
    /// - Returns: the store; call ``close()`` when done.
    /// - Throws: ``PFCore/PFError`` with code `usage` for a bad URL, `io` when the server
    ///   cannot be reached, refuses the login, or the database does not exist.
    public static func open(url: String, pageSize: Int = 500) throws(PFError) -> PostgresStore {
        try PostgresStore(url: PostgresURL(url), pageSize: pageSize)
    }

    /// Connects to a database.
    /// - Parameters:
    ///   - url: the server and database.
    ///   - pageSize: the rows read per query when streaming.
    /// - Throws: as ``open(url:pageSize:)``.
    public init(url: PostgresURL, pageSize: Int = 500) throws(PFError) {
        self.url = url
        self.location = url.description
        self.pageSize = max(1, pageSize)
        self.session = try PostgresSession(url: url)
    }

    /// Rolls back an open transaction and disconnects. Calling it twice does nothing.
    public func close() {
        abort()
        session.close()
    }

    // MARK: - Databases

    /// Creates a database on the server of `serverURL` (connecting to that URL's database).
    /// - Parameters:
    ///   - name: the new database's name.
    ///   - serverURL: any database URL on the server.
    /// - Throws: ``PFCore/PFError`` with code `io` (for instance when it exists).
    public static func createDatabase(named name: String, serverURL: String) throws(PFError) {
        let admin = try PostgresSession(url: PostgresURL(serverURL))
        defer { admin.close() }
        try admin.query("CREATE DATABASE \(quoted(name))", doing: "creating database \(name)")
    }

    /// Drops a database (if it exists) on the server of `serverURL`.
    /// - Parameters:
    ///   - name: the database to drop.
    ///   - serverURL: another database's URL on the server.
    /// - Throws: ``PFCore/PFError`` with code `io`.
    public static func dropDatabase(named name: String, serverURL: String) throws(PFError) {
        let admin = try PostgresSession(url: PostgresURL(serverURL))
        defer { admin.close() }
        try admin.query("DROP DATABASE IF EXISTS \(quoted(name)) WITH (FORCE)", doing: "dropping database \(name)")
    }

    // MARK: - Reading

    /// Whether a table exists in the connection's schema.
    func tableExists(_ name: String) throws(PFError) -> Bool {
        var binds = PostgresBindings()
        binds.append(name)
        let rows = try session.query(
            "SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1",
            binds, doing: "looking for table \(name)")
        return !rows.isEmpty
    }

    /// The `_SCHEMA` rows, by class name (join tables left out).
    func schemaRows() throws(PFError) -> OrderedDictionary<String, ClassLayout> {
        guard try tableExists("_SCHEMA") else { return [:] }
        let rows = try session.query(
            #"SELECT "className", "schema"::text FROM "_SCHEMA" ORDER BY "className""#, doing: "reading _SCHEMA")
        var out = OrderedDictionary<String, ClassLayout>()
        for row in rows {
            let cells = Array(row)
            guard cells.count == 2, let name = try? cells[0].decode(String.self) else { continue }
            if ParseRules.isJoinClassName(name) { continue }
            let text = (try? cells[1].decode(String?.self)) ?? nil
            let document = try text.map { (t) throws(PFError) in try PostgresJSON.value(t, what: "\(location): _SCHEMA row \(name)") } ?? .dictionary([:])
            out[name] = try ClassLayout(className: name, document: document, location: location)
        }
        return out
    }

    /// The columns of a table, in table order (empty when it does not exist).
    func columns(of table: String) throws(PFError) -> OrderedDictionary<String, ColumnKind?> {
        var binds = PostgresBindings()
        binds.append(table)
        let rows = try session.query(
            """
            SELECT column_name::text, data_type::text, udt_name::text FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position
            """, binds, doing: "reading the columns of \(table)")
        var out = OrderedDictionary<String, ColumnKind?>()
        for row in rows {
            let cells = Array(row)
            guard cells.count == 3, let name = try? cells[0].decode(String.self),
                let type = try? cells[1].decode(String.self), let udt = try? cells[2].decode(String.self)
            else { continue }
            out[name] = ColumnKind(dataType: type, udtName: udt)
        }
        return out
    }

    public func classNames() throws(PFError) -> [String] {
        Array(try schemaRows().keys)
    }

    public func schema() throws(PFError) -> ParseSchema {
        var schema = ParseSchema()
        for (name, layout) in try schemaRows() {
            schema.classes[name] = layout.fields
            if let table = layout.originalNames {
                schema = ParseNameCoding.decode(schema, policy: namePolicy, originals: [name: table])
            }
        }
        return schema
    }

    public func estimatedObjectCount(in className: String) -> Int? {
        var binds = PostgresBindings()
        binds.append(quoted(className))
        guard let rows = try? session.query(
            "SELECT reltuples::float8 FROM pg_class WHERE oid = to_regclass($1)", binds, doing: "estimating \(className)"),
            let first = rows.first, let estimate = try? Array(first)[0].decode(Double.self)
        else { return nil }
        if estimate >= 0 { return Int(exactly: estimate.rounded()) }
        guard let counted = try? session.query("SELECT count(*) FROM \(quoted(className))", doing: "counting \(className)"),
            let row = counted.first, let n = try? Array(row)[0].decode(Int64.self)
        else { return nil }
        return Int(n)
    }

    /// The layout of a class for reading: its fields from `_SCHEMA` and the table's columns.
    func readLayout(_ className: String) throws(PFError) -> ClassLayout? {
        let columns = try columns(of: className)
        guard !columns.isEmpty else { return nil }
        var layout = try schemaRows()[className] ?? ClassLayout(className: className, fields: [:])
        for (name, kind) in columns {
            guard let kind else { continue }
            layout.columns[name] = kind
        }
        return layout
    }

    public func forEachObject(in className: String, _ body: (ParseObject) throws(PFError) -> Void) throws(PFError) {
        guard let layout = try readLayout(className) else { return }
        let reader = RowReader(layout: layout, location: location)
        let select = reader.selected.map { $0.kind.selectExpression($0.column) }.joined(separator: ", ")
        var last: String?
        while true {
            var binds = PostgresBindings()
            var sql = "SELECT \(select) FROM \(quoted(className))"
            if let last {
                binds.append(last)
                sql += #" WHERE "objectId" > $1"#
            }
            sql += #" ORDER BY "objectId" LIMIT \#(pageSize)"#
            let rows = try session.query(sql, binds, doing: "reading \(className)")
            for row in rows {
                let object = try reader.object(from: row)
                last = object.objectId
                if let table = layout.originalNames {
                    try body(ParseNameCoding.decode(object, policy: .postgres, originals: table))
                } else {
                    try body(object)
                }
            }
            if rows.count < pageSize { return }
        }
    }

    public func relations() throws(PFError) -> [ParseRelationKey] {
        var keys = OrderedDictionary<ParseRelationKey, String?>()
        for (className, layout) in try schemaRows() {
            for (name, field) in layout.fields where field.type == .relation {
                let original = layout.originalNames.map { ParseNameCoding.decodeField(name, policy: namePolicy, originals: $0) } ?? name
                keys[ParseRelationKey(owningClass: className, field: original)] = field.targetClass
            }
        }
        let tables = try session.query(
            """
            SELECT table_name::text FROM information_schema.tables
            WHERE table_schema = current_schema() AND table_name LIKE '\\_Join:%' ORDER BY table_name
            """, doing: "listing join tables")
        let rows = try schemaRows()
        for row in tables {
            guard let name = try? Array(row)[0].decode(String.self), var key = ParseRelationKey(joinClassName: name) else { continue }
            if let table = rows[key.owningClass]?.originalNames {
                key.field = ParseNameCoding.decodeField(key.field, policy: namePolicy, originals: table)
            }
            if keys[key] == nil { keys[key] = .some(nil) }
        }
        return keys.keys.sorted().map {
            ParseRelationKey(owningClass: $0.owningClass, field: $0.field, targetClass: keys[$0] ?? nil)
        }
    }

    public func forEachJoinRow(of relation: ParseRelationKey, _ body: (ParseJoinRow) throws(PFError) -> Void) throws(PFError) {
        var stored = ParseRelationKey(owningClass: relation.owningClass, field: relation.field)
        if try schemaRows()[relation.owningClass]?.originalNames != nil {
            stored.field = storedName(relation.field, relation: true, className: relation.owningClass)
        }
        let table = stored.joinClassName
        guard try tableExists(table) else { return }
        var last: (String, String)?
        while true {
            var binds = PostgresBindings()
            var sql = #"SELECT "relatedId"::text, "owningId"::text FROM \#(quoted(table))"#
            if let last {
                binds.append(last.0)
                binds.append(last.1)
                sql += #" WHERE ("relatedId", "owningId") > ($1, $2)"#
            }
            sql += #" ORDER BY "relatedId", "owningId" LIMIT \#(pageSize)"#
            let rows = try session.query(sql, binds, doing: "reading \(table)")
            for row in rows {
                let cells = Array(row)
                guard cells.count == 2, let related = try? cells[0].decode(String.self),
                    let owning = try? cells[1].decode(String.self)
                else {
                    throw PFError(
                        PostgresStoreFailure.nullJoinId(location: "\(location)", table: table, after: last.map { "\($0.1) → \($0.0)" }), format: StoreFormat.name)
                }
                last = (related, owning)
                try body(ParseJoinRow(owningId: owning, relatedId: related))
            }
            if rows.count < pageSize { return }
        }
    }
}
