import Foundation
import OrderedCollections
import PFCore
import PFFormats
import PFJSON

/// What a column holds, as `inspect` shows it.
public struct SQLiteColumnCensus: Sendable, Equatable {
    /// Kind → count, most frequent first: `integer`, `real`, `text`, `null`, `bytes`, or a
    /// payload as ``PFFormats/EmbeddedPayload/Identification`` names it (`keyed archive
    /// (NSDictionary)`, `gzip bplist`, `typedstream`, `json`; `json (text)` for a payload held
    /// as TEXT; `bytes (not a valid bplist)` for one that claims a format and does not decode).
    public var kinds: OrderedDictionary<String, Int>
    /// The first non-NULL value, shown short: a payload decoded to compact JSON, a date
    /// column as its ISO 8601 date and stored number.
    public var sample: String?
}

extension SQLiteDatabase {
    /// What every column of a table holds, from every row (a batch in memory at a time; each
    /// payload is identified within the limits and dropped).
    /// - Parameter tableName: the table.
    /// - Returns: field → census, in column order, keyed by the field each column is read
    ///   under (``SQLiteTable/fieldNames``: unique, where two column names may be equal as
    ///   Swift compares strings).
    /// - Throws: ``PFCore/PFError`` `usage` for an unknown table; SQLite's errors.
    public func census(of tableName: String) throws(PFError) -> OrderedDictionary<String, SQLiteColumnCensus> {
        let table = try known(tableName)
        let (sql, leading) = query(table)
        let cursor = try connection.cursor(sql, context: "\(url.lastPathComponent): reading \(table.name)")
        defer { cursor.finish() }
        var counts = Array(repeating: [String: Int](), count: table.columns.count)
        var samples = [String?](repeating: nil, count: table.columns.count)
        var dates: [Int: SQLiteDateColumn] = [:]
        for (i, column) in table.columns.enumerated() {
            dates[i] = options.dateColumns.first { $0.table == table.name && $0.column == column.name }
        }
        while true {
            let rows = try cursor.next(upTo: 256)
            if rows.isEmpty { break }
            for raw in rows {
                for i in table.columns.indices where leading + i < raw.count {
                    let value = raw[leading + i]
                    counts[i][kind(of: value), default: 0] += 1
                    if samples[i] == nil, !value.isNull { samples[i] = sample(value, date: dates[i]) }
                }
            }
        }
        var out = OrderedDictionary<String, SQLiteColumnCensus>()
        for i in table.columns.indices {
            let sorted = counts[i].sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            out[table.fieldNames[i]] = SQLiteColumnCensus(
                kinds: OrderedDictionary(uniqueKeysWithValues: sorted.map { ($0.key, $0.value) }), sample: samples[i])
        }
        return out
    }

    /// The kind of one value, for the census.
    func kind(of value: SQLiteValue) -> String {
        switch value {
        case .null: return "null"
        case .integer: return "integer"
        case .real: return "real"
        case .text(let s):
            guard Self.textMayHoldPayload(s) else { return "text" }
            let identification = EmbeddedPayload.identify(Data(s.utf8), limits: options.limits)
            return identification.kind == nil ? "text" : "\(identification) (text)"
        case .blob(let b):
            return EmbeddedPayload.identify(b, limits: options.limits).description
        }
    }

    /// A short text for one value: decoded when it is a payload, a date when its column is one.
    func sample(_ value: SQLiteValue, date: SQLiteDateColumn?) -> String {
        if let date, case .success(let d) = date.date(value) {
            return "\(PFDateFormat.iso8601Milliseconds(d) ?? "?") (\(Self.text(value)) \(date.encoding.rawValue))"
        }
        let (converted, _, decoded) = Self.convert(value, decode: true, limits: options.limits)
        switch value {
        case .blob(let b) where !decoded: return "\(b.count) bytes: " + b.prefix(16).map { String(format: "%02x", $0) }.joined()
        case .text(let s) where !decoded: return Self.shorten("\"" + s + "\"")
        default: break
        }
        let json = (try? JSONWriter(options: .init(sortedKeys: false)).write(converted)).map { String(decoding: $0, as: UTF8.self) }
        return Self.shorten(json ?? "\(converted)")
    }

    static func shorten(_ text: String, to count: Int = 160) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: "\\n")
        return flat.count <= count ? flat : String(flat.prefix(count)) + "…"
    }

    /// The database as a value for `inspect --json`: each table's kind, key, row count,
    /// columns (declared type, census, sample) and foreign keys, and the tables skipped.
    /// - Parameter census: whether to read every row for the census (otherwise counts only).
    public func summary(census: Bool = true) throws(PFError) -> PFValue {
        var tablesOut = OrderedDictionary<String, PFValue>()
        for table in tables {
            var columns = OrderedDictionary<String, PFValue>()
            let counts = census ? try self.census(of: table.name) : [:]
            for (i, column) in table.columns.enumerated() {
                let field = table.fieldNames[i]
                var c: OrderedDictionary<String, PFValue> = ["type": .string(column.declaredType)]
                // The field the column is read under, when it is not the column's name.
                if !column.name.unicodeScalars.elementsEqual(field.unicodeScalars) {
                    c["field"] = .string(field)
                }
                if column.primaryKeyPosition > 0 { c["primaryKey"] = .int(Int64(column.primaryKeyPosition)) }
                if let d = options.dateColumns.first(where: { $0.table == table.name && $0.column == column.name }) {
                    c["date"] = .string(d.encoding.rawValue)
                }
                if let census = counts[field] {
                    c["kinds"] = .dictionary(census.kinds.mapValues { .int(Int64($0)) })
                    c["sample"] = census.sample.map { .string($0) } ?? .null
                }
                // A name Swift takes for an earlier column's is listed under its field.
                columns[columns[column.name] == nil ? column.name : field] = .dictionary(c)
            }
            var fks: [PFValue] = []
            for fk in table.foreignKeys {
                var f: OrderedDictionary<String, PFValue> = [
                    "columns": .array(fk.columns.map { .string($0) }), "table": .string(fk.parentTable),
                    "parentColumns": .array(fk.parentColumns.map { .string($0) }),
                ]
                if fk.isPointer, let field = fk.pointerField { f["pointer"] = .string(field) }
                if let note = fk.note { f["notPointer"] = .string(note) }
                fks.append(.dictionary(f))
            }
            tablesOut[table.name] = [
                "kind": .string(table.kind.rawValue), "key": .string(table.key.description),
                "rows": .int(Int64(try rowCount(of: table.name))), "columns": .dictionary(columns), "foreignKeys": .array(fks),
            ]
        }
        return [
            "database": .string(url.lastPathComponent),
            "tables": .dictionary(tablesOut),
            "skipped": .dictionary(skipped.mapValues { .string($0) }),
        ]
    }
}
