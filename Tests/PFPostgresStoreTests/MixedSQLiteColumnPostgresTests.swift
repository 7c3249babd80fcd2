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
            #expect(try store.schema().classes["setting"]?["value"]?.type == "String")
            #expect(try store.schema().classes["setting"]?["size"]?.type == "Number", "REAL and INTEGER are both Numbers: not mixed")
            let values = Dictionary(uniqueKeysWithValues: try store.objects(in: "setting").map { ($0.objectId ?? "", $0.fields["value"]) })
            #expect(values["1"] == .string("42"))
            #expect(values["2"] == .string("n/a"))
            #expect(values["3"] == .string("3.25"))
            #expect(values["4"] == .string("x'ff00'"))
            let five = values["5"] ?? nil
            #expect(five == nil || five == .null, "NULL stays absent or null")
        }
    }
}
