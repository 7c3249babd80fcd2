import Foundation
import PFParse
import PFStores
import PFTestSupport
import Testing

@testable import PFPostgresStore

/// Issue 24: SQLite types values, not columns. A column holding an INTEGER in one row and TEXT
/// (a REAL, a BLOB) in the next stopped the import into PostgreSQL ("holds a String but the
/// column is for Number"); such a column is now read as a String in every row.
@Suite(.serialized, .enabled(if: TestServer.available, TestServer.skipReason))
struct MixedSQLiteColumnPostgresTests {
    @Test func aColumnOfMixedStorageClassesImportsAsStrings() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pfmixed-pg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("settings.db")
        let made = try Peers.run(
            "/usr/bin/env", ["sqlite3", file.path],
            input: Data(
                """
                CREATE TABLE setting(id INTEGER PRIMARY KEY, value, size REAL);
                INSERT INTO setting VALUES (1, 42, 1.5), (2, 'n/a', 2.0), (3, 3.25, NULL), (4, X'FF00', 7), (5, NULL, 8);
                """.utf8))
        try #require(made.status == 0, "\(made.stderr)")
        try TestServer.withDatabase { url in
            let source = try SQLiteDatabaseObjectStore(url: file)
            defer { source.close() }
            let store = try PostgresStore.open(url: url)
            defer { store.close() }
            let report = try StoreImporter().run(from: source, to: store)
            #expect(report.totalObjects == 5)
            #expect(try store.schema().classes["setting"]?["value"]?.type == .string)
            #expect(try store.schema().classes["setting"]?["size"]?.type == .number, "REAL and INTEGER are both Numbers: not mixed")
            let values = Dictionary(uniqueKeysWithValues: try store.objects(in: "setting").map { ($0.objectId ?? "", $0.fields["value"]) })
            #expect(values["1"] == .string("42"))
            #expect(values["2"] == .string("n/a"))
            #expect(values["3"] == .string("3.25"))
            #expect(values["4"] == .string("x'ff00'"))
            let five = values["5"] ?? nil
            #expect(five == nil || five == .null, "NULL stays absent or null")
        }
    }

    /// With --decode-blobs, a BLOB column whose first value decodes to an Object and whose
    /// next one is not a payload (or does not decode) stopped the import ("holds a Bytes but
    /// the column is for Object"); such a value goes to the field <field>_as_bytes.
    @Test func aBlobColumnDecodedIntoSeveralTypesImports() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pfmixed-pg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("docs.db")
        let made = try Peers.run(
            "/usr/bin/env", ["sqlite3", file.path],
            input: Data(
                """
                CREATE TABLE doc(id INTEGER PRIMARY KEY, body BLOB);
                INSERT INTO doc VALUES (1, CAST('{"a":1}' AS BLOB)), (2, X'62706C6973743030FFFF'), (3, CAST('[1,2]' AS BLOB)), (4, X'0102');
                """.utf8))
        try #require(made.status == 0, "\(made.stderr)")
        try TestServer.withDatabase { url in
            let source = try SQLiteDatabaseObjectStore(url: file, options: .init(decodeBlobs: true))
            defer { source.close() }
            let store = try PostgresStore.open(url: url)
            defer { store.close() }
            let report = try StoreImporter().run(from: source, to: store)
            #expect(report.totalObjects == 4)
            let fields = try store.schema().classes["doc"]
            #expect(fields?["body"]?.type == .object && fields?["body_as_bytes"]?.type == .bytes && fields?["body_as_array"]?.type == .array)
            let objects = Dictionary(uniqueKeysWithValues: try store.objects(in: "doc").map { ($0.objectId ?? "", $0.fields) })
            #expect(objects["1"]?["body"] == .object(["a": .int(1)]))
            #expect(objects["2"]?["body_as_bytes"] == .bytes(Data([0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30, 0xFF, 0xFF])))
            #expect(objects["3"]?["body_as_array"] == .array([.int(1), .int(2)]))
            #expect(objects["4"]?["body_as_bytes"] == .bytes(Data([1, 2])))
        }
    }
}
