import ArgumentParser
import Foundation
import OrderedCollections
import PFArchive
import Synchronization

/// `--tables` and `--date-column`: which tables of an SQLite database are read, and which
/// columns are dates (`inspect`, `convert`, `import`).
struct SQLiteTableOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "For an SQLite database: read only these tables (comma-separated); a view or virtual table named here is read too.",
            valueName: "names"))
    var tables: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            For an SQLite database: read a column as dates (repeatable): mac (seconds since 2001), mac-ns \
            (nanoseconds since 2001, chat.db's message.date), unix (seconds since 1970) or unix-ms.
            """, valueName: "TABLE.COLUMN=mac|mac-ns|unix|unix-ms"))
    var dateColumn: [String] = []

    func validate() throws {
        for text in dateColumn {
            do { _ = try SQLiteDateColumn(parsing: text) } catch { throw ValidationError(error.message) }
        }
        if let tables, tables.split(separator: ",", omittingEmptySubsequences: false).contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
            throw ValidationError("--tables must be table names separated by commas, such as message,handle.")
        }
    }

    /// The tables asked for, or `nil` for all.
    var tableList: [String]? { tables.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } } }

    /// The date columns (checked by ``validate()``).
    var dateColumns: [SQLiteDateColumn] { dateColumn.compactMap { try? SQLiteDateColumn(parsing: $0) } }

    /// The options given, by name (``SQLiteInput/refuse(_:for:)``).
    var given: [String] { (tables == nil ? [] : ["--tables"]) + (dateColumn.isEmpty ? [] : ["--date-column"]) }
}

/// `--keep-blob-bytes` and `--strict`: how `convert` and `import` treat decoded payloads of an
/// SQLite database.
struct SQLiteDecodingOptions: ParsableArguments {
    @Flag(name: .long, help: "For an SQLite database with --decode-blobs: keep each decoded value's original bytes too, in the field <field>_bytes (_ appended while taken).")
    var keepBlobBytes = false

    @Flag(
        name: .long,
        help: "For an SQLite database: stop at the first payload that claims a format and does not decode (or date that is not one) instead of keeping it as stored with a warning.")
    var strict = false

    /// The options given, by name (``SQLiteInput/refuse(_:for:)``).
    var given: [String] { (keepBlobBytes ? ["--keep-blob-bytes"] : []) + (strict ? ["--strict"] : []) }
}

/// How `import`, `diff` and `patch` read an SQLite database or Core Data store given as a
/// store, so a diff with an import's options compares what it wrote with what it read.
struct SQLiteSourceOptions: ParsableArguments {
    @OptionGroup var blobs: BlobDecodingOption

    @OptionGroup(title: "SQLite databases") var tables: SQLiteTableOptions

    @Flag(name: .long, help: "For an SQLite database: also read views, virtual, shadow and sqlite_* tables. For a Core Data store: also its persistent-history tables (ACHANGE, ATRANSACTION, ATRANSACTIONSTRING).")
    var internalTables = false

    @OptionGroup var decoding: SQLiteDecodingOptions

    /// Registers SQLite databases and Core Data stores in `openers`, read with these options;
    /// `reporter` names the values kept as stored.
    func register(in openers: inout StoreOpeners, limits: PFLimits = .default, reporter: SQLiteInput.Reporter) {
        openers.registerSQLiteDatabase(
            SQLiteDatabase.Options(
                limits: limits, tables: tables.tableList, includeInternal: internalTables, decodeBlobs: blobs.decodeBlobs,
                keepOriginalBytes: decoding.keepBlobBytes, dateColumns: tables.dateColumns, strict: decoding.strict),
            reporter: reporter)
        openers.registerCoreData(decodeBlobs: blobs.decodeBlobs, limits: limits, includeHistory: internalTables, reporter: reporter)
    }

    /// The options given that only an SQLite database reads (all but `--decode-blobs`, which
    /// Core Data stores and files read too, and `--internal-tables`, which Core Data stores
    /// read too).
    var sqliteOnlyGiven: [String] { tables.given + (internalTables ? ["--internal-tables"] : []) + decoding.given }

    /// Refuses the options only an SQLite database reads when none of the stores is one:
    /// they would be ignored without a word (`--internal-tables` is read by a Core Data store).
    /// - Throws: `ValidationError` naming the options and the stores' arguments.
    func requireSQLiteDatabase(among stores: [StoreLocation]) throws {
        guard !stores.contains(where: { $0.kind == .sqliteDatabase }) else { return }
        let readByCoreData = stores.contains { $0.kind == .coreData }
        try SQLiteInput.refuse(sqliteOnlyGiven.filter { !(readByCoreData && $0 == "--internal-tables") }, for: stores.map(\.argument))
    }

    /// The commands' store openers with SQLite databases and Core Data stores read with these
    /// options.
    func openers(realmKey: [UInt8]?, limits: PFLimits, reporter: SQLiteInput.Reporter) -> StoreOpeners {
        var openers = StoreOpeners.commands(realmKey: realmKey)
        register(in: &openers, limits: limits, reporter: reporter)
        return openers
    }
}

/// Reading any SQLite database (neither a Core Data store nor pfarchive's own) in the commands.
enum SQLiteInput {
    /// Refuses options that only an SQLite database (not a store, a Core Data store or another
    /// file) reads, given for inputs none of which is one, instead of ignoring them.
    /// - Parameters:
    ///   - options: the options given, by name (none: nothing is refused).
    ///   - inputs: the inputs, none of which is an SQLite database.
    /// - Throws: `ValidationError`: `--tables applies to an SQLite database that is not a store; a.json is not one.`
    static func refuse(_ options: [String], for inputs: [String]) throws {
        guard let last = options.last else { return }
        // A missing file is reported as missing by the command, not as the wrong kind.
        guard inputs.allSatisfy({ $0 == "-" || $0.contains("://") || FileManager.default.fileExists(atPath: $0) }) else { return }
        let named = options.count == 1 ? last : options.dropLast().joined(separator: ", ") + " and " + last
        let verb = options.count == 1 ? "applies" : "apply"
        let which = inputs.map { "\($0 == "-" ? "standard input" : $0) \(what($0))" }.joined(separator: " and ")
        throw ValidationError("\(named) \(verb) to an SQLite database that is not a store (such as chat.db); \(which).")
    }

    /// What an input is, for ``refuse(_:for:)``: `is a Core Data store`, `is not an SQLite database`….
    private static func what(_ input: String) -> String {
        if input == "-" || input.contains("://") { return "is not an SQLite database file" }
        switch StoreLocation.sqliteKind(of: URL(fileURLWithPath: input)) {
        case .coreData: return "is a Core Data store"
        case .pfarchive: return "is a pfarchive SQLite store"
        case .other: return "is not read as an SQLite database here"
        case .notSQLite:
            // A Realm file's internal tables are `convert --internal-tables`'s to write.
            let handle = FileHandle(forReadingAtPath: input)
            defer { try? handle?.close() }
            if let head = try? handle?.read(upToCount: 24), RealmFile.looksLikeRealmFile(head) {
                return "is a Realm file (pfarchive convert \(input) out.json --internal-tables writes its tables without the class_ prefix)"
            }
            return "is not an SQLite database"
        }
    }

    /// A row count for `inspect`: `1 row`, `2 rows` (`0 rows` when unknown).
    static func rows(_ count: PFValue?) -> String {
        "\(count?.scalarDescription ?? "0") row\(count?.int64Value == 1 ? "" : "s")"
    }

    /// Prints what rows kept as stored, one warning line each (the first 100, then a count).
    /// Reports may come from several reading threads; the count is behind a `Mutex`.
    final class Reporter: Sendable {
        let file: String
        private let made = Mutex(0)

        init(file: String) { self.file = file }

        /// How many reports were made.
        var count: Int { made.withLock { $0 } }

        func report(_ report: SQLiteRowReport) {
            let number = made.withLock { count in
                count += 1
                return count
            }
            if number <= 100 {
                UnreadWarnings.show(["\(report)"], file: file)
            }
        }

        func finish() {
            let count = count
            if count > 100 {
                UnreadWarnings.show(["\(count - 100) more values kept as stored"], file: file)
            }
        }
    }

    /// A batch of rows as JSON lines: the lines, the rows' reports, and the error of the
    /// first row that could not be written (the lines and reports are those before it).
    struct JSONLinesBatch: Sendable {
        var lines: [UInt8] = []
        var reports: [SQLiteRowReport] = []
        var failure: PFError?
    }

    /// Makes the lines of a batch of rows (run on several threads at once).
    @Sendable static func jsonLines(_ rows: [SQLiteRow]) -> JSONLinesBatch {
        var batch = JSONLinesBatch()
        batch.lines.reserveCapacity(rows.count * 256)
        for row in rows {
            batch.reports.append(contentsOf: row.reports)
            do throws(PFError) {
                try appendJSONLine(row, to: &batch.lines)
            } catch {
                batch.failure = error
                break
            }
        }
        return batch
    }

    /// One row as one line of JSON lines: `{"objectId": …, fields…}` in Parse's REST shape,
    /// written by PFJSON's writer (compact, typed values), then a newline. The one place
    /// `convert --table` makes a line.
    static func appendJSONLine(_ row: SQLiteRow, to buffer: inout [UInt8]) throws(PFError) {
        guard row.fields.index(forKey: "objectId") == nil else {
            try lineWriter.write(.dictionary(row.restObject), into: &buffer)
            buffer.append(UInt8(ascii: "\n"))
            return
        }
        // The bytes of `restObject` written, without building it per row: `{"objectId":…`,
        // then the fields' object with its `{` turned into the comma between them.
        let start = buffer.count
        buffer.append(contentsOf: #"{"objectId":"#.utf8)
        JSONText.appendString(row.objectId, to: &buffer)
        let fields = buffer.count
        do throws(PFError) {
            try lineWriter.write(.dictionary(row.fields), into: &buffer)
        } catch {
            buffer.removeSubrange(start...)
            throw error
        }
        if buffer.count - fields == 2 {
            buffer.remove(at: fields)  // `{}`: the line is `{"objectId":…}`
        } else {
            buffer[fields] = UInt8(ascii: ",")
        }
        buffer.append(UInt8(ascii: "\n"))
    }

    /// The writer of a line: the same bytes as `JSONWriter()`, without weighing each row for
    /// writing it on several threads (the batches of rows already are).
    static let lineWriter: JSONWriter = {
        var options = JSONWriter.Options()
        options.parallel = false
        return JSONWriter(options: options)
    }()
}

extension StoreOpeners {
    /// Registers the generic SQLite source with the commands' options.
    mutating func registerSQLiteDatabase(_ options: SQLiteDatabase.Options, reporter: SQLiteInput.Reporter?) {
        register(
            .sqliteDatabase,
            reader: { (location: StoreLocation) throws(PFError) -> any ObjectStoreReader in
                let store = try SQLiteDatabaseObjectStore(url: try StoreOpeners.existing(location), options: options)
                if let reporter { store.onReport = { reporter.report($0) } }
                return store
            },
            writer: nil)
    }
}

extension Convert {
    /// Converts an SQLite database: one table as JSON lines (`--table`), or every table as
    /// `{"Table": [objects…]}` in the output format.
    func convertSQLite(limits: PFLimits) throws {
        let options = SQLiteDatabase.Options(
            limits: limits, tables: table.map { [$0] } ?? sqliteTables.tableList, includeInternal: internalTables,
            decodeBlobs: blobs.decodeBlobs, keepOriginalBytes: sqliteDecoding.keepBlobBytes, dateColumns: sqliteTables.dateColumns,
            strict: sqliteDecoding.strict)
        let reporter = SQLiteInput.Reporter(file: input)
        let db: SQLiteDatabase
        do {
            db = try SQLiteDatabase.open(url: URL(fileURLWithPath: input), options: options)
        } catch {
            throw CLIFailure.opening(error, file: input)
        }
        defer { db.close() }
        UnreadWarnings.show(db.unreadableNotes, file: input)
        if let table = try table ?? onlyTableForRecords(db.tables.map(\.name), kind: "table") {
            try writeJSONLines(db, table: table, reporter: reporter)
            reporter.finish()
            return
        }
        var document = OrderedDictionary<String, PFValue>()
        do {
            for t in db.tables {
                var rows: [PFValue] = []
                try db.forEachRow(of: t.name) { (row: SQLiteRow) throws(PFError) in
                    row.reports.forEach(reporter.report)
                    rows.append(.dictionary(row.restObject))
                }
                document[t.name] = .array(rows)
            }
        } catch {
            throw CLIFailure(file: input, error)
        }
        reporter.finish()
        try writeOutput(.dictionary(document))
    }

    /// Streams one table as JSON lines to OUTPUT (written as ``PFStores/Destination/writeFile(to:format:name:_:)``
    /// writes a file: a staged sibling renamed into place when done, or a device or FIFO in
    /// place) or standard output, a batch of lines in memory at a time.
    func writeJSONLines(_ db: SQLiteDatabase, table: String, reporter: SQLiteInput.Reporter) throws {
        // Set when writing OUTPUT failed, so that failure is reported rather than the read's.
        var outputFailure: Error?
        func lines(_ write: (UnsafeRawBufferPointer) throws(PFError) -> Void) throws(PFError) {
            var buffer: [UInt8] = []
            buffer.reserveCapacity(1 << 20)
            func flush() throws(PFError) {
                var failure: PFError?
                buffer.withUnsafeBytes { bytes in
                    do throws(PFError) { try write(bytes) } catch { failure = error }
                }
                if let failure {
                    if outputFailure == nil {
                        outputFailure = CLIFailure(failure.message)  // it names OUTPUT
                    }
                    throw failure
                }
                buffer.removeAll(keepingCapacity: true)
            }
            // Lines are made on every core, a batch at a time; this thread prints the
            // warnings and writes the lines in key order.
            try db.forEachBatch(of: table, transform: SQLiteInput.jsonLines) { (batch: SQLiteInput.JSONLinesBatch) throws(PFError) in
                batch.reports.forEach(reporter.report)
                buffer.append(contentsOf: batch.lines)
                if let error = batch.failure { throw error }
                if buffer.count >= 1 << 20 { try flush() }
            }
            try flush()
        }
        do {
            if output == "-" {
                try lines { bytes throws(PFError) in
                    do throws(StandardOutput.WriteError) {
                        try StandardOutput.writeAll(Data(bytes), to: STDOUT_FILENO)
                    } catch {
                        outputFailure = CLIFailure("standard output: cannot write: \(error.reason)")
                        throw PFError(CommandLineFailure.outputFailed(output: output), format: .output)
                    }
                }
            } else {
                try Destination.writeFile(to: try FileIO.outputFile(output), format: .output, name: output, lines)
            }
        } catch let error as PFError {
            if let outputFailure { throw outputFailure }
            // OUTPUT's own failures (its staging, rename or device) name it already.
            if error.format == .output { throw CLIFailure(error.message) }
            throw CLIFailure(file: input, error)
        }
    }
}

extension Inspect {
    /// Prints an SQLite database's tables: kind, key, rows, columns with what each holds
    /// (kinds and counts, archive classes, a sample value) and foreign keys.
    func inspectSQLite(limits: PFLimits) throws {
        let options = SQLiteDatabase.Options(
            limits: limits, tables: sqliteTables.tableList, includeInternal: internalTables, dateColumns: sqliteTables.dateColumns)
        let summary: PFValue
        do {
            let db = try SQLiteDatabase.open(url: URL(fileURLWithPath: input), options: options)
            defer { db.close() }
            summary = try db.summary()
        } catch {
            throw CLIFailure.opening(error, file: input)
        }
        if json {
            try writeJSONSummary(summary, format: "sqlite")
            return
        }
        var lines = ["File:        \(input)", "Format:      SQLite database (read-only source)"]
        for (name, table) in summary["tables"]?.dictionaryValue ?? [:] {
            lines.append(
                "Table \(name) — \(table["kind"]?.stringValue ?? "?"), id from \(table["key"]?.stringValue ?? "?"), \(SQLiteInput.rows(table["rows"]))")
            for (column, info) in table["columns"]?.dictionaryValue ?? [:] {
                var line = "  \(column): \(info["type"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? "(no type)")"
                if let field = info["field"]?.stringValue { line += " (read as \(field))" }
                if let date = info["date"]?.stringValue { line += " as \(date) dates" }
                if let kinds = info["kinds"]?.dictionaryValue {
                    line += " — " + CoreDataStore.censusText(kinds.compactMapValues { $0.int64Value.flatMap { Int(exactly: $0) } })
                }
                lines.append(line)
                if let sample = info["sample"]?.stringValue { lines.append("      e.g. \(sample)") }
            }
            for fk in table["foreignKeys"]?.arrayValue ?? [] {
                let columns = (fk["columns"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ", ")
                var line = "  (\(columns)) -> \(fk["table"]?.stringValue ?? "?")"
                if let pointer = fk["pointer"]?.stringValue { line += ": Pointer in \(pointer)" }
                if let why = fk["notPointer"]?.stringValue { line += ": not a Pointer, \(why)" }
                lines.append(line)
            }
        }
        for (name, why) in summary["skipped"]?.dictionaryValue ?? [:] {
            lines.append("Skipped \(name): \(why.stringValue ?? "")")
        }
        // Names and samples are the database's: control characters (a line break, an escape
        // sequence) are shown escaped, never written to the terminal raw.
        try StandardOutput.writeLines(lines.map(CLIFailure.oneLine))
    }
}
