import Foundation
import PFCore
import PropertyBased

/// Random SQLite databases of other programs, as SQL for the `sqlite3` shell (so pfarchive
/// never writes them): tables with every key form (INTEGER PRIMARY KEY, rowid only, a TEXT
/// key, a composite key, WITHOUT ROWID), columns of every declared type holding matching
/// values and NULLs, and foreign keys (one-column and composite) to rows that exist.
public enum SQLiteDatabaseGen {
    /// A generated database: the SQL that makes it and a line per table, for failure messages.
    public struct Database: Sendable, CustomStringConvertible {
        /// The statements (one transaction).
        public var sql: String
        /// A summary of the tables.
        public var tables: [String]

        public var description: String { tables.joined(separator: "\n") }
    }

    enum KeyForm: CaseIterable { case integerPrimaryKey, rowid, text, composite, withoutRowID }

    static let types = ["INTEGER", "REAL", "TEXT", "BLOB", "NUMERIC", ""]
    /// Ordinary names, names a Parse object reads specially, and one the renamed `objectId`
    /// would take (every column must still keep a field of its own).
    static let columnNames = [
        "name", "count", "score", "data", "note", "createdAt", "objectId", "a.b", "Ünïcode", "value", "flag", "ACL",
        "__type", "className", "objectId_sqlite",
    ]
    static let texts = ["", "hello", "it's", "日本語", "😀 emoji", "line\nbreak", "{\"json\":1}", "  spaced  ", "a\"quote", "0"]

    /// Databases of one to four tables, up to six rows each.
    public static func database() -> Generator<Database, Shrink.None<Database>> {
        Generator(run: { rng in make(&rng) })
    }

    static func make(_ rng: inout any SeededRandomNumberGenerator) -> Database {
        var statements = ["BEGIN;"]
        var summary: [String] = []
        // Parents first: a table's foreign keys point at earlier tables' keys.
        var keys: [(table: String, form: KeyForm, values: [[String]])] = []
        let count = Int.random(in: 1...4, using: &rng)
        for t in 0..<count {
            let name = "t\(t)"
            let form = KeyForm.allCases.randomElement(using: &rng) ?? .rowid
            var columns: [(name: String, type: String)] = []
            var used: Set<String> = []
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                guard let column = columnNames.randomElement(using: &rng), used.insert(column.lowercased()).inserted else { continue }
                columns.append((column, types.randomElement(using: &rng) ?? ""))
            }
            var definitions: [String] = []
            var keyColumns: [String] = []
            switch form {
            case .integerPrimaryKey:
                definitions.append("id INTEGER PRIMARY KEY")
            case .rowid:
                break
            case .text:
                definitions.append("code TEXT PRIMARY KEY NOT NULL")
                keyColumns = ["code"]
            case .composite, .withoutRowID:
                definitions += ["k1 TEXT NOT NULL", "k2 INTEGER NOT NULL"]
                keyColumns = ["k1", "k2"]
            }
            for column in columns { definitions.append("\(quote(column.name)) \(column.type)") }
            // A foreign key to an earlier table with a key made of columns.
            let parent = keys.filter { $0.form != .rowid && !$0.values.isEmpty }.randomElement(using: &rng)
            var fkColumns: [String] = []
            if let parent, Bool.random(using: &rng) {
                switch parent.form {
                case .integerPrimaryKey:
                    definitions.append("parent_id INTEGER REFERENCES \(parent.table)(id)")
                    fkColumns = ["parent_id"]
                case .text:
                    definitions.append("parent_code TEXT REFERENCES \(parent.table)")
                    fkColumns = ["parent_code"]
                case .composite, .withoutRowID:
                    definitions += ["p1 TEXT", "p2 INTEGER", "FOREIGN KEY (p2, p1) REFERENCES \(parent.table)(k2, k1)"]
                    fkColumns = ["p1", "p2"]
                case .rowid:
                    break
                }
            }
            if !keyColumns.isEmpty, form != .text { definitions.append("PRIMARY KEY (\(keyColumns.joined(separator: ", ")))") }
            statements.append("CREATE TABLE \(name) (\(definitions.joined(separator: ", ")))\(form == .withoutRowID ? " WITHOUT ROWID" : "");")
            var rows: [[String]] = []
            var seen: Set<[String]> = []
            for r in 0..<Int.random(in: 0...6, using: &rng) {
                var names: [String] = []
                var values: [String] = []
                var key: [String] = []
                switch form {
                case .integerPrimaryKey:
                    let id = String(Int.random(in: -5...1000, using: &rng) * 7 + r)
                    key = [id]
                    names.append("id")
                    values.append(id)
                case .rowid:
                    break
                case .text:
                    key = ["'k\(Int.random(in: 0...50, using: &rng))'"]
                    names.append("code")
                    values += key
                case .composite, .withoutRowID:
                    key = ["'\(["x", "y", "z"].randomElement(using: &rng) ?? "x")'", String(Int.random(in: 0...3, using: &rng))]
                    names += ["k1", "k2"]
                    values += key
                }
                if !key.isEmpty { guard seen.insert(key).inserted else { continue } }
                for column in columns {
                    names.append(quote(column.name))
                    values.append(literal(column.type, &rng))
                }
                if let parent, !fkColumns.isEmpty {
                    let target = Int.random(in: 0...3, using: &rng) == 0 ? nil : parent.values.randomElement(using: &rng)
                    switch parent.form {
                    case .composite, .withoutRowID:
                        names += ["p1", "p2"]
                        values += target ?? ["NULL", "NULL"]
                    default:
                        names.append(fkColumns[0])
                        values.append(target?.first ?? "NULL")
                    }
                }
                if !key.isEmpty { rows.append(key) }
                statements.append("INSERT INTO \(name) (\(names.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")));")
                if names.isEmpty { statements[statements.count - 1] = "INSERT INTO \(name) DEFAULT VALUES;" }
            }
            keys.append((name, form, rows))
            summary.append("\(name) \(form) \(columns.map { "\($0.name) \($0.type)" }) fk \(fkColumns)")
        }
        statements.append("COMMIT;")
        return Database(sql: statements.joined(separator: "\n") + "\n", tables: summary)
    }

    static func quote(_ name: String) -> String { "\"" + name.doublingEvery("\"") + "\"" }

    /// A literal of a declared type, NULL one time in five.
    static func literal(_ type: String, _ rng: inout any SeededRandomNumberGenerator) -> String {
        if Int.random(in: 0..<5, using: &rng) == 0 { return "NULL" }
        switch type {
        case "INTEGER": return String(Int64.random(in: -1 << 40...1 << 40, using: &rng))
        case "REAL": return String(Double(Int.random(in: -100_000...100_000, using: &rng)) / 64)
        case "NUMERIC": return Bool.random(using: &rng) ? String(Int.random(in: -1000...1000, using: &rng)) : "2.5"
        case "BLOB":
            let bytes = (0..<Int.random(in: 0...12, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            return "X'" + bytes.map { String(format: "%02X", $0) }.joined() + "'"
        case "TEXT":
            return "'" + (texts.randomElement(using: &rng) ?? "").doublingEvery("'") + "'"
        default:
            // No declared type: text here (a column whose rows hold several storage classes has
            // no one Parse type; the generic source types a field by its first value).
            return "'free text \(Int.random(in: 0...9, using: &rng))'"
        }
    }
}
