import Foundation
import OrderedCollections
import PFCore
import PFFormats
import PFJSON
import PFPropertyList

/// A column read as a date (`--date-column TABLE.COLUMN=ENCODING`): Apple databases keep
/// times as numbers counted from 2001 (Mac absolute time) or 1970 (Unix time).
public struct SQLiteDateColumn: Sendable, Hashable, CustomStringConvertible {
    /// How the number counts time.
    public enum Encoding: String, Sendable, CaseIterable {
        /// Seconds since 2001-01-01 00:00:00 UTC (`NSDate`'s reference date, Core Data, most
        /// Apple databases).
        case mac
        /// Nanoseconds since 2001-01-01 00:00:00 UTC (`chat.db`'s `message.date` since macOS 10.13).
        case macNanoseconds = "mac-ns"
        /// Seconds since 1970-01-01 00:00:00 UTC.
        case unix
        /// Milliseconds since 1970-01-01 00:00:00 UTC.
        case unixMilliseconds = "unix-ms"

        /// The seconds since 1970 a stored number stands for.
        func unixSeconds(_ number: Double) -> Double {
            switch self {
            case .mac: number + PFDateFormat.unixToReferenceOffset
            case .macNanoseconds: number / 1e9 + PFDateFormat.unixToReferenceOffset
            case .unix: number
            case .unixMilliseconds: number / 1e3
            }
        }
    }

    /// The table.
    public var table: String
    /// The column.
    public var column: String
    /// The encoding.
    public var encoding: Encoding

    /// Makes a date column.
    public init(table: String, column: String, encoding: Encoding) {
        self.table = table
        self.column = column
        self.encoding = encoding
    }

    /// Parses `TABLE.COLUMN=ENCODING` (such as `message.date=mac-ns`); the table ends at the
    /// first `.`, the encoding starts after the last `=`.
    /// - Throws: ``PFCore/PFError`` `usage` (``SQLiteSourceFailure/badDateColumn(_:)``).
    public init(parsing text: String) throws(PFError) {
        guard let equals = text.lastIndex(of: "="), let dot = text[..<equals].firstIndex(of: "."),
            let encoding = Encoding(rawValue: String(text[text.index(after: equals)...]))
        else { throw PFError(SQLiteSourceFailure.badDateColumn(text), format: .sqlite) }
        table = String(text[..<dot])
        column = String(text[text.index(after: dot)..<equals])
        self.encoding = encoding
        guard !table.isEmpty, !column.isEmpty else { throw PFError(SQLiteSourceFailure.badDateColumn(text), format: .sqlite) }
    }

    public var description: String { "\(table).\(column)=\(encoding.rawValue)" }

    /// The date a stored value stands for, or why it stands for none.
    package func date(_ value: SQLiteValue) -> Result<Date, DateProblem> {
        let number: Double
        let shown: String
        switch value {
        case .integer(let i): (number, shown) = (Double(i), String(i))
        case .real(let d): (number, shown) = (d, "\(d)")
        case .text(let text):
            // A number stored as TEXT ("1710461864.507"), as SQLite's own date functions read it.
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (0x30...0x39).contains($0) || "+-.eE".utf8.contains($0) }),
                let parsed = Double(trimmed), parsed.isFinite
            else {
                return .failure(DateProblem(message: "TEXT is not a number of \(encoding.rawValue) time; kept as stored"))
            }
            (number, shown) = (parsed, "'\(trimmed)'")
        default: return .failure(DateProblem(message: "\(value.kind) is not a number of \(encoding.rawValue) time; kept as stored"))
        }
        let seconds = encoding.unixSeconds(number)
        // Years 0 to 9999, the dates every writer can hold.
        guard seconds.isFinite, PFDateFormat.writableUnixSeconds.contains(seconds) else {
            return .failure(DateProblem(message: "\(shown) is outside years 0-9999 as \(encoding.rawValue) time; kept as stored"))
        }
        return .success(Date(timeIntervalSince1970: seconds))
    }

    /// Why a value is not a date.
    public struct DateProblem: Error, Sendable {
        /// What was found.
        public var message: String
    }
}

/// One row read as an object.
public struct SQLiteRow: Sendable {
    /// The row's stable object id (``SQLiteTable/Key``).
    public var objectId: String
    /// The fields, in column order: values in Parse's REST shape (``SQLiteDatabase`` documents
    /// the mapping).
    public var fields: OrderedDictionary<String, PFValue>
    /// What could not be read as asked (a payload that does not decode, a date that is not
    /// one), each kept as stored.
    public var reports: [SQLiteRowReport]
    /// The stored values of the fields that were decoded, in column order: a caller falls
    /// back to them when a decoded value does not fit its destination. (An array, not a
    /// dictionary: it is made for every row with a decoded payload, and a dictionary cost a
    /// hashed insertion and its own allocation each time.)
    public var originals: [(field: String, value: PFValue)]
    /// The decoded payloads held as prepared REST JSON, in column order, each a `null`
    /// placeholder in ``fields``: only in rows read with `preparingJSON` (the object store's
    /// read for a destination that stores JSON text), empty in every other row.
    package var prepared: [SQLitePreparedPayload] = []

    /// The row as one object in Parse's REST shape: `objectId` first, then the fields in
    /// order (a field named `objectId` takes that first place). What `convert --table`
    /// writes as a line and `import` reads as an object.
    public var restObject: OrderedDictionary<String, PFValue> {
        guard fields.index(forKey: "objectId") == nil else {
            var object = OrderedDictionary<String, PFValue>(minimumCapacity: fields.count + 1)
            object["objectId"] = .string(objectId)
            for (key, value) in fields { object[key] = value }
            return object
        }
        // The keys are unique already: no lookup per field.
        var keys = ["objectId"]
        keys.reserveCapacity(fields.count + 1)
        keys.append(contentsOf: fields.keys)
        var values = [PFValue.string(objectId)]
        values.reserveCapacity(fields.count + 1)
        values.append(contentsOf: fields.values)
        return OrderedDictionary(uncheckedUniqueKeys: keys, values: values)
    }
}

/// A payload column's value written straight as REST JSON from its bytes (a plain binary
/// property list, ``PFPropertyList``'s `BinaryPlistRESTJSON`): exactly the text a store
/// writes for the value ``decoded`` gives, made without that value.
package struct SQLitePreparedPayload: Sendable {
    /// The field.
    package let field: String
    /// The field's index in the row's fields (where it is a `null` placeholder).
    package let index: Int
    /// The value's compact REST JSON.
    package let json: [UInt8]
    /// Whether the value is an array (else a dictionary).
    package let isArray: Bool
    /// The bytes stored in the column.
    package let stored: Data
    /// The limits the payload was read under.
    package let limits: PFLimits

    /// The decoded value, as a row read without `preparingJSON` holds it.
    package var decoded: PFValue { Self.decoded(stored, limits: limits) }

    /// The value a row read without `preparingJSON` holds for a prepared payload's bytes.
    package static func decoded(_ stored: Data, limits: PFLimits) -> PFValue {
        SQLiteDatabase.convert(.blob(stored), decode: true, limits: limits).0
    }
}

/// Something a row held that a reader kept as stored (or left out) instead of converting,
/// with where it is: the one report of the generic SQLite source and the Core Data reader.
///
/// Its ``description`` is `table objectId.column: message`, the line `pfarchive` prints as a
/// warning.
public struct SQLiteRowReport: Sendable, Equatable, CustomStringConvertible {
    /// The table, or for a Core Data store the entity: the class the row becomes.
    public var table: String
    /// The row's object id.
    public var objectId: String
    /// The column, or for a Core Data store the attribute or relationship.
    public var column: String
    /// What was found and what was kept.
    public var message: String

    /// Makes a report.
    public init(table: String, objectId: String, column: String, message: String) {
        self.table = table
        self.objectId = objectId
        self.column = column
        self.message = message
    }

    public var description: String { "\(table) \(objectId).\(column): \(message)" }
}

extension SQLiteValue {
    /// The storage class's name, for messages.
    package var kind: String {
        switch self {
        case .null: "NULL"
        case .integer: "an INTEGER"
        case .real: "a REAL"
        case .text: "TEXT"
        case .blob: "a BLOB"
        }
    }
}

// MARK: - Reading rows

extension SQLiteDatabase {
    /// The select list and order of a table: its id columns first, then its columns.
    func query(_ table: SQLiteTable) -> (sql: String, leading: Int) {
        let columns = table.columns.map { SQLiteConnection.quote($0.name) }
        let from = SQLiteConnection.quote(table.name)
        switch table.key {
        case .integerPrimaryKey(let c):
            return ("SELECT \(columns.joined(separator: ", ")) FROM \(from) ORDER BY \(SQLiteConnection.quote(c))", 0)
        case .rowid(let r):
            return ("SELECT \(r), \(columns.joined(separator: ", ")) FROM \(from) ORDER BY \(r)", 1)
        case .columns(let cs, let r?):
            _ = cs
            return ("SELECT \(r), \(columns.joined(separator: ", ")) FROM \(from) ORDER BY \(r)", 1)
        case .columns(let cs, nil):
            let order = cs.map { SQLiteConnection.quote($0) }.joined(separator: ", ")
            return ("SELECT \(columns.joined(separator: ", ")) FROM \(from) ORDER BY \(order)", 0)
        case .ordinal:
            return ("SELECT \(columns.isEmpty ? "*" : columns.joined(separator: ", ")) FROM \(from)", 0)
        }
    }

    /// Calls `body` with each row of a table as an object, in key order (rowid, or the
    /// primary key of a WITHOUT ROWID table), a batch of rows in memory at a time.
    /// - Parameters:
    ///   - tableName: the table.
    ///   - batchSize: rows read from SQLite at a time.
    ///   - body: called with each row.
    /// - Throws: ``PFCore/PFError``: `usage` for an unknown table; SQLite's errors; with
    ///   ``Options/strict``, the first payload or date that cannot be read
    ///   (``SQLiteSourceFailure/undecodable(file:table:objectId:column:reason:)``); what `body` throws.
    public func forEachRow(of tableName: String, batchSize: Int = 256, _ body: (SQLiteRow) throws(PFError) -> Void) throws(PFError) {
        // Without decoding a row costs little to make: one thread makes them while this one
        // runs `body`.
        let workers = options.decodeBlobs ? max(1, ProcessInfo.processInfo.activeProcessorCount) : 1
        try forEachBatch(of: tableName, batchSize: batchSize, workers: workers, transform: { $0 }) { (rows: [SQLiteRow]) throws(PFError) in
            for row in rows { try body(row) }
        }
    }

    /// Reads a table a batch of rows at a time, turns each batch into an output with
    /// `transform` on every core (rows are made there too: payloads decoded), and calls
    /// `body` with the outputs in key order on this thread, so what `body` sees is exactly
    /// what a serial loop gives and memory holds a few batches.
    ///
    /// This is how a caller does its own per-row work (writing a JSON line, building an
    /// object) in parallel as well: `transform` runs on several threads at once.
    /// - Parameters:
    ///   - tableName: the table.
    ///   - batchSize: rows read from SQLite at a time.
    ///   - workers: threads running `transform` at once (default: the processor count).
    ///   - transform: turns a batch of rows, in key order, into an output.
    ///   - body: called with each batch's output, in key order.
    /// - Throws: as ``forEachRow(of:batchSize:_:)``; the error of the first failing batch in
    ///   key order (after the outputs before it were handed to `body`); what `transform` or
    ///   `body` throws.
    public func forEachBatch<Output: Sendable>(
        of tableName: String, batchSize: Int = 256, workers: Int = ProcessInfo.processInfo.activeProcessorCount,
        transform: @escaping @Sendable ([SQLiteRow]) throws(PFError) -> Output,
        _ body: (Output) throws(PFError) -> Void
    ) throws(PFError) {
        try forEachBatch(of: tableName, batchSize: batchSize, workers: workers, preparingJSON: false, transform: transform, body)
    }

    /// ``forEachBatch(of:batchSize:workers:transform:_:)``, with `preparingJSON`: a decoded
    /// payload that can be written straight as REST JSON is (``SQLiteRow/prepared``), for a
    /// reader that hands it on as prepared JSON.
    package func forEachBatch<Output: Sendable>(
        of tableName: String, batchSize: Int = 256, workers: Int, preparingJSON: Bool,
        transform: @escaping @Sendable ([SQLiteRow]) throws(PFError) -> Output,
        _ body: (Output) throws(PFError) -> Void
    ) throws(PFError) {
        let table = try known(tableName)
        let (sql, leading) = query(table)
        let cursor = try connection.cursor(sql, context: "\(url.lastPathComponent): reading \(table.name)")
        defer { cursor.finish() }
        let mixed = options.textForMixedColumns ? try mixedColumns(of: tableName) : []
        let reader = RowReader(database: self, table: table, leading: leading, mixed: mixed, preparingJSON: preparingJSON && options.decodeBlobs)
        let map = OrderedParallelMap<(rows: [[SQLiteValue]], first: Int64), Output, PFError>(workers: max(1, workers)) { batch throws(PFError) in
            var out: [SQLiteRow] = []
            out.reserveCapacity(batch.rows.count)
            for (i, raw) in batch.rows.enumerated() { out.append(try reader.read(raw, ordinal: batch.first + Int64(i))) }
            return try transform(out)
        }
        var ordinal: Int64 = 1
        do throws(PFError) {
            while true {
                let rows = try cursor.next(upTo: batchSize)
                if rows.isEmpty { break }
                try map.submit((rows, ordinal), deliver: body)
                ordinal += Int64(rows.count)
            }
            try map.finish(deliver: body)
        } catch {
            map.cancel()
            throw error
        }
    }

    /// Turns raw rows of one table into ``SQLiteRow``s.
    struct RowReader: Sendable {
        let database: SQLiteDatabase
        let table: SQLiteTable
        let leading: Int
        let dates: [String: SQLiteDateColumn]
        /// Column index → the foreign key whose one column it is (a Pointer).
        let pointers: [Int: SQLiteForeignKey]
        /// Composite foreign keys that are Pointers, with the indexes of their columns in key order.
        let composite: [(SQLiteForeignKey, [Int])]
        let keyIndexes: [Int]
        let file: String
        /// Columns read as Strings (``Options/textForMixedColumns``).
        let mixed: Set<String>
        /// Per column, the field it is read under (``SQLiteTable/fieldNames``), worked
        /// out once per table instead of once per row.
        let fieldNames: [String]
        /// Per column, the field its original bytes go to with ``Options/keepOriginalBytes``.
        let bytesNames: [String]
        /// Per column, its date encoding, if it is a date column.
        let dateColumns: [SQLiteDateColumn?]
        /// Per column, whether it is read as a String (``mixed``).
        let mixedColumns: [Bool]
        /// Whether a payload that can be written straight as REST JSON is (``SQLiteRow/prepared``).
        let preparingJSON: Bool

        init(database: SQLiteDatabase, table: SQLiteTable, leading: Int, mixed: Set<String> = [], preparingJSON: Bool = false) {
            self.mixed = mixed
            self.preparingJSON = preparingJSON
            self.database = database
            self.table = table
            self.leading = leading
            file = database.url.lastPathComponent
            var dates: [String: SQLiteDateColumn] = [:]
            for column in database.options.dateColumns where column.table == table.name { dates[column.column] = column }
            self.dates = dates
            let index = Dictionary(table.columns.enumerated().map { ($0.element.name, $0.offset) }, uniquingKeysWith: { a, _ in a })
            var pointers: [Int: SQLiteForeignKey] = [:]
            var composite: [(SQLiteForeignKey, [Int])] = []
            for fk in table.foreignKeys where fk.isPointer {
                let indexes = fk.columnsInKeyOrder.compactMap { index[$0] }
                guard indexes.count == fk.columnsInKeyOrder.count else { continue }
                if fk.columns.count == 1, let only = indexes.first, pointers[only] == nil {
                    pointers[only] = fk
                } else if fk.columns.count > 1 {
                    composite.append((fk, indexes))
                }
            }
            self.pointers = pointers
            self.composite = composite
            keyIndexes = (table.identityColumns ?? []).compactMap { index[$0] }
            let fieldNames = table.fieldNames
            self.fieldNames = fieldNames
            let keepBytes = database.options.keepOriginalBytes
            bytesNames = keepBytes ? table.bytesFieldNames().fields : fieldNames.map { _ in "" }
            dateColumns = table.columns.map { dates[$0.name] }
            mixedColumns = table.columns.map { mixed.contains($0.name) }
        }

        func read(_ raw: [SQLiteValue], ordinal: Int64) throws(PFError) -> SQLiteRow {
            let values = raw.dropFirst(leading)
            let id = objectId(raw, ordinal: ordinal)
            var fields = Fields(capacity: table.columns.count + composite.count)
            var reports: [SQLiteRowReport] = []
            var originals: [(field: String, value: PFValue)] = []
            var prepared: [SQLitePreparedPayload] = []
            let options = database.options
            for (offset, column) in table.columns.enumerated() {
                let value = values[values.startIndex + offset]
                let field = fieldNames[offset]
                if let fk = pointers[offset] {
                    fields.set(field, SQLiteDatabase.pointer(fk.parentTable, [value]))
                    continue
                }
                if let dateColumn = dateColumns[offset], !value.isNull {
                    switch dateColumn.date(value) {
                    case .success(let date):
                        fields.set(field, .date(date))
                        continue
                    case .failure(let problem):
                        try report(&reports, id, column.name, problem.message)
                    }
                }
                if mixedColumns[offset] {
                    fields.set(field, value.isNull ? .null : .string(SQLiteDatabase.text(value)))
                    continue
                }
                if preparingJSON, case .blob(let bytes) = value,
                    let payload = Self.prepared(field, at: fields.keys.count, bytes, limits: options.limits)
                {
                    fields.set(field, .null)
                    prepared.append(payload)
                    originals.append((field, .data(bytes)))
                    if options.keepOriginalBytes { fields.set(bytesNames[offset], .data(bytes)) }
                    continue
                }
                let (converted, problem, decoded) = SQLiteDatabase.convert(value, decode: options.decodeBlobs, limits: options.limits)
                fields.set(field, converted)
                if let problem { try report(&reports, id, column.name, problem) }
                if decoded {
                    let stored = SQLiteDatabase.plain(value)
                    originals.append((field, stored))
                    if options.keepOriginalBytes { fields.set(bytesNames[offset], stored) }
                }
            }
            for (fk, indexes) in composite {
                guard let field = fk.pointerField else { continue }
                fields.set(field, SQLiteDatabase.pointer(fk.parentTable, indexes.map { values[values.startIndex + $0] }))
            }
            var row = SQLiteRow(objectId: id, fields: fields.dictionary, reports: reports, originals: originals)
            row.prepared = prepared
            return row
        }

        /// A blob written straight as REST JSON, when it is a plain binary property list
        /// that ``PFPropertyList``'s `BinaryPlistRESTJSON` writes (else `nil`: the general way).
        static func prepared(_ field: String, at index: Int, _ bytes: Data, limits: PFLimits) -> SQLitePreparedPayload? {
            guard BinaryPlistReader.hasMagic(bytes) else { return nil }
            var json: [UInt8] = []
            json.reserveCapacity(bytes.count + bytes.count / 2 + 64)
            guard let root = BinaryPlistRESTJSON.append(bytes, limits: limits, to: &json) else { return nil }
            return SQLitePreparedPayload(field: field, index: index, json: json, isArray: root == .array, stored: bytes, limits: limits)
        }

        /// A row's fields as they are made, in order: every name a row can have is its own
        /// (``SQLiteTable/fieldNames``, the composite Pointers' and `_bytes` fields are made
        /// unique), so they are handed to the dictionary at once, with no lookup per field.
        struct Fields {
            var keys: [String] = []
            var values: [PFValue] = []

            init(capacity: Int) {
                keys.reserveCapacity(capacity)
                values.reserveCapacity(capacity)
            }

            @inline(__always)
            mutating func set(_ key: String, _ value: PFValue) {
                keys.append(key)
                values.append(value)
            }

            var dictionary: OrderedDictionary<String, PFValue> {
                OrderedDictionary(uncheckedUniqueKeys: keys, values: values)
            }
        }

        func report(_ reports: inout [SQLiteRowReport], _ id: String, _ column: String, _ message: String) throws(PFError) {
            if database.options.strict {
                throw PFError(
                    SQLiteSourceFailure.undecodable(file: file, table: table.name, objectId: id, column: column, reason: message),
                    format: SQLiteDatabase.format)
            }
            reports.append(SQLiteRowReport(table: table.name, objectId: id, column: column, message: message))
        }

        func objectId(_ raw: [SQLiteValue], ordinal: Int64) -> String {
            switch table.key {
            case .integerPrimaryKey:
                if let i = keyIndexes.first, let v = raw[leading + i].int64 { return String(v) }
                return "row-\(ordinal)"
            case .rowid:
                return raw.first?.int64.map { String($0) } ?? "row-\(ordinal)"
            case .columns(_, let rowid):
                let key = keyIndexes.map { raw[leading + $0] }
                if let id = SQLiteDatabase.identity(key) { return id }
                if rowid != nil, let r = raw.first?.int64 { return "rowid:\(r)" }
                return "row-\(ordinal)"
            case .ordinal:
                return String(ordinal)
            }
        }
    }

    /// The id text of key values: one value's text (an integer in decimal, a real as Swift
    /// prints it, text as is, a blob as `x'…'` hex), or several as a JSON array; `nil` when a
    /// value is NULL.
    static func identity(_ values: [SQLiteValue]) -> String? {
        guard !values.isEmpty, !values.contains(where: \.isNull) else { return nil }
        if values.count == 1, let only = values.first { return text(only) }
        let array = PFValue.array(values.map { v in
            switch v {
            case .integer(let i): .int(i)
            case .real(let d): .double(d)
            default: .string(text(v))
            }
        })
        guard let data = try? JSONWriter(options: .init(typedValues: false)).write(array) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    static func text(_ value: SQLiteValue) -> String {
        switch value {
        case .integer(let i): String(i)
        case .real(let d): "\(d)"
        case .text(let s): s
        case .blob(let b): "x'" + b.map { String(format: "%02x", $0) }.joined() + "'"
        case .null: ""
        }
    }

    /// A Pointer to the row of `table` whose key is `values`, or null when a value is NULL.
    static func pointer(_ table: String, _ values: [SQLiteValue]) -> PFValue {
        guard let id = identity(values) else { return .null }
        return ["__type": "Pointer", "className": .string(table), "objectId": .string(id)]
    }

    /// A stored value as is: integers and reals → numbers, text → a string, a blob → bytes.
    static func plain(_ value: SQLiteValue) -> PFValue {
        switch value {
        case .null: .null
        case .integer(let i): .int(i)
        case .real(let d): .double(d)
        case .text(let s): .string(s)
        case .blob(let b): .data(b)
        }
    }

    /// A value, decoded when asked and it holds a payload: the value, why a claimed payload
    /// was kept as stored (or nested payloads were), and whether it was decoded.
    static func convert(_ value: SQLiteValue, decode: Bool, limits: PFLimits) -> (PFValue, String?, Bool) {
        let bytes: Data
        switch value {
        case .blob(let b) where decode: bytes = b
        case .text(let s) where decode && Self.textMayHoldPayload(s): bytes = Data(s.utf8)
        default: return (plain(value), nil, false)
        }
        let (decoded, problem) = decodePayload(bytes, limits: limits)
        guard let decoded else { return (plain(value), problem, false) }
        return (decoded, problem, true)
    }

    /// The payload in a column's bytes, decoded (with nested payloads), or `nil` when the
    /// bytes are kept as stored; and what to report: why a claimed payload was kept, or which
    /// nested payloads were. The one reading of payload columns, for this source and the Core
    /// Data reader's Transformable attributes.
    /// - Parameters:
    ///   - bytes: a blob, or the UTF-8 of text that may hold one.
    ///   - limits: the decoding limits.
    package static func decodePayload(_ bytes: Data, limits: PFLimits) -> (value: PFValue?, problem: String?) {
        let result = EmbeddedPayload.decode(bytes, options: .init(limits: limits))
        switch result.outcome {
        case .decoded(let decoded):
            if holdsUnwritable(decoded), let why = unwritable(decoded, path: "") {
                return (nil, "a decoded payload holds \(why), which no JSON can hold; kept as stored")
            }
            guard !result.notes.isEmpty else { return (decoded, nil) }
            let text = result.notes.prefix(3).map(\.description).joined(separator: "; ")
            let more = result.notes.count > 3 ? " (and \(result.notes.count - 3) more)" : ""
            return (decoded, "nested payloads kept as bytes: \(text)\(more)")
        case .bytes:
            return (nil, nil)
        case .undecodable(let why):
            return (nil, why)
        }
    }

    /// Whether ``unwritable(_:path:)`` finds something: walked without making a path (every
    /// decoded payload is asked).
    static func holdsUnwritable(_ value: PFValue) -> Bool {
        switch value {
        case .array(let items): items.contains(where: holdsUnwritable)
        case .dictionary(let members): members.values.contains(where: holdsUnwritable)
        default: isUnwritableScalar(value)
        }
    }

    /// A number JSON has no form for (NaN, an infinity) or a date outside years 0–9999.
    static func isUnwritableScalar(_ value: PFValue) -> Bool {
        switch value {
        case .double(let d): !d.isFinite
        case .date(let date): !PFDateFormat.writesRoundedMilliseconds(date)
        default: false
        }
    }

    /// What in a decoded value JSON cannot hold — NaN, an infinity, a date outside years
    /// 0–9999 (a property list or CBOR may hold them) — said with where it is; `nil` when it
    /// can be written. Such a payload is kept as stored: every destination (JSON lines, the
    /// stores' JSON columns, PostgreSQL's `jsonb`) would refuse the whole row.
    static func unwritable(_ value: PFValue, path: @autoclosure () -> String) -> String? {
        switch value {
        case .double(let d) where isUnwritableScalar(value):
            return "\(d) at \(shown(path()))"
        case .date(let date) where isUnwritableScalar(value):
            return "a date outside years 0-9999 (\(date.timeIntervalSince1970) s since 1970) at \(shown(path()))"
        case .array(let items):
            for (i, item) in items.enumerated() {
                if let why = unwritable(item, path: "\(path())[\(i)]") { return why }
            }
            return nil
        case .dictionary(let members):
            for (key, member) in members {
                if let why = unwritable(member, path: path().isEmpty ? key : "\(path()).\(key)") { return why }
            }
            return nil
        default:
            return nil
        }
    }

    private static func shown(_ path: String) -> String { path.isEmpty ? "its root" : path }

    /// Whether text may hold a payload (JSON, an XML property list): it starts, after white
    /// space, with `{`, `[` or `<`. Cheap, so plain text is never handed to a decoder.
    static func textMayHoldPayload(_ text: String) -> Bool {
        for byte in text.utf8 {
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF: continue
            case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "<"): return true
            default: return false
            }
        }
        return false
    }
}
