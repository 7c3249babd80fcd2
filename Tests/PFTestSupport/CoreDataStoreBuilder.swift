import Foundation
import OrderedCollections
import PFArchive

/// Writes Core Data SQLite stores with the `sqlite3` shell, in the layout real stores have
/// (../shared/notes/coredata.md): `Z_PRIMARYKEY`, `Z_METADATA` with a binary-plist `Z_PLIST`,
/// a `Z_MODELCACHE` holding raw DEFLATE around a keyed archive of `NSManagedObjectModel`, and
/// one `Z<ENTITY>` table per (root) entity with `Z_PK`, `Z_ENT`, `Z_OPT` and `Z<ATTRIBUTE>`
/// columns. Optionally in WAL mode, with changes left only in the `-wal`.
public enum CoreDataStoreBuilder {
    /// An attribute: its name, `NSAttributeType` code (700 string, 300 int64, 1000 binary,
    /// 1800 transformable, …) and value transformer.
    public struct Attribute: Sendable {
        public var name: String
        public var typeCode: Int64
        public var transformer: String?

        public init(_ name: String, _ typeCode: Int64, transformer: String? = nil) {
            self.name = name
            self.typeCode = typeCode
            self.transformer = transformer
        }

        var column: String { "Z" + name.uppercased() }
        var sqlType: String {
            switch typeCode {
            case 100, 200, 300, 800: "INTEGER"
            case 500, 600: "FLOAT"
            case 700: "VARCHAR"
            case 900: "TIMESTAMP"
            default: "BLOB"
            }
        }
    }

    /// A value in a row.
    public enum Value: Sendable {
        case null
        case integer(Int64)
        case text(String)
        case blob(Data)

        var sql: String {
            switch self {
            case .null: "NULL"
            case .integer(let i): "\(i)"
            case .text(let s): "'" + s.replacingOccurrences(of: "'", with: "''") + "'"
            case .blob(let d): "X'" + d.map { String(format: "%02X", $0) }.joined() + "'"
            }
        }
    }

    /// A root entity with no relationships, and its rows (attribute name → value; `Z_PK` is
    /// the row's position, from 1).
    public struct Entity: Sendable {
        public var name: String
        public var attributes: [Attribute]
        public var rows: [[String: Value]]

        public init(name: String, attributes: [Attribute], rows: [[String: Value]]) {
            self.name = name
            self.attributes = attributes
            self.rows = rows
        }

        var table: String { "Z" + name.uppercased() }
    }

    /// The `Z_MODELCACHE.Z_CONTENT` bytes for entities: raw DEFLATE around a keyed archive.
    public static func modelCache(_ entities: [Entity]) throws -> Data {
        var described = OrderedDictionary<String, PFValue>()
        for entity in entities {
            var properties = OrderedDictionary<String, PFValue>()
            for attribute in entity.attributes {
                var property: OrderedDictionary<String, PFValue> = [
                    "$class": "NSAttributeDescription", "NSPropertyName": .string(attribute.name),
                    "NSAttributeType": .int(attribute.typeCode), "NSIsOptional": true,
                ]
                if let transformer = attribute.transformer { property["NSValueTransformerName"] = .string(transformer) }
                properties[attribute.name] = .dictionary(property)
            }
            described[entity.name] = [
                "$class": "NSEntityDescription", "NSEntityName": .string(entity.name),
                "NSClassNameForEntity": .string(entity.name), "NSProperties": .dictionary(properties),
            ]
        }
        let model: PFValue = ["$class": "NSManagedObjectModel", "NSEntities": .dictionary(described)]
        let archive = try KeyedArchive.archive(try KeyedGraph(json: model))
        return try Compression.compress(archive, as: .deflate)
    }

    /// The SQL that creates a store with these entities (in WAL mode when asked).
    public static func sql(_ entities: [Entity], wal: Bool = false) throws -> String {
        let metadata = try BinaryPlistWriter().write([
            "NSStoreType": "SQLite", "NSPersistenceFrameworkVersion": 1044,
            "NSStoreModelVersionHashesVersion": 3,
        ])
        var lines: [String] = []
        if wal { lines.append("PRAGMA journal_mode=WAL;") }
        lines.append("CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);")
        lines.append("CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);")
        lines.append("CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);")
        lines.append("INSERT INTO Z_METADATA VALUES (1, '6A3C9E10-0000-4000-8000-00000000CD01', \(Value.blob(metadata).sql));")
        lines.append("INSERT INTO Z_MODELCACHE VALUES (\(Value.blob(try modelCache(entities)).sql));")
        for (offset, entity) in entities.enumerated() {
            let ent = offset + 1
            lines.append("INSERT INTO Z_PRIMARYKEY VALUES (\(ent), '\(entity.name)', 0, \(entity.rows.count));")
            let columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
                + entity.attributes.map { "\($0.column) \($0.sqlType)" }
            lines.append("CREATE TABLE \(entity.table) (\(columns.joined(separator: ", ")));")
            for (index, row) in entity.rows.enumerated() {
                let values = ["\(index + 1)", "\(ent)", "1"] + entity.attributes.map { (row[$0.name] ?? .null).sql }
                lines.append("INSERT INTO \(entity.table) VALUES (\(values.joined(separator: ", ")));")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes a store at `url` (which must not exist) with the sqlite3 shell.
    public static func write(_ entities: [Entity], to url: URL, wal: Bool = false) throws {
        try sqlite3(url, try sql(entities, wal: wal))
    }

    /// Runs SQL on a database with the sqlite3 shell.
    @discardableResult
    public static func sqlite3(_ url: URL, _ sql: String) throws -> String {
        let result = try Peers.run("/usr/bin/env", ["sqlite3", url.path], input: Data(sql.utf8))
        guard result.status == 0 else {
            throw PFError(.io, format: "sqlite3", "sqlite3 \(url.lastPathComponent) failed (\(result.status)): \(result.stderr)")
        }
        return result.stdoutText
    }

    /// Puts a WAL-mode database into `directory` as a running app leaves it: the file, its
    /// `-wal` holding `sql`'s changes (never checkpointed) and its `-shm`. The shell copies the
    /// three files while its connection is still open (it would checkpoint them away on exit).
    /// - Returns: the copy's URL (same file name as `database`).
    public static func liveWAL(of database: URL, applying sql: String, into directory: URL) throws -> URL {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = database.path
        try sqlite3(database, """
            PRAGMA journal_mode=WAL;
            PRAGMA wal_autocheckpoint=0;
            \(sql)
            .shell cp '\(path)' '\(path)-wal' '\(path)-shm' '\(directory.path)/'
            """)
        return directory.appendingPathComponent(database.lastPathComponent)
    }

    /// Every file in a directory with its bytes, to compare before and after a read (equal
    /// bytes: equal listings and equal SHA-256 digests).
    public static func directorySnapshot(_ directory: URL) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            out[name] = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) ?? Data()
        }
        return out
    }
}
