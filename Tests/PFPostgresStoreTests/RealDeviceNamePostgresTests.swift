import Foundation
import OrderedCollections
import PFCore
import PFParse
import PFStoreTestSupport
import PFStores
import Testing

@testable import PFPostgresStore

/// Issue 20, failure 1, into PostgreSQL: a real device's Core Data names (dotted keys in a
/// transformable dictionary, `_DK…`, `$`, non-ASCII, reserved and look-alike names, and one
/// longer than PostgreSQL's 63-byte identifiers) are encoded, kept in `_SCHEMA`, and read
/// back as they were.
@Suite(.serialized, .enabled(if: TestServer.available, TestServer.skipReason))
struct RealDeviceNamePostgresTests {
    func withSource(_ body: (CoreDataObjectStore, URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pfnames-pg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try RealDeviceCoreData.open(try RealDeviceCoreData.write(in: directory))
        defer { source.close() }
        try body(source, directory)
    }

    /// Fields without Relation markers (PostgreSQL adds them to every object), by class and id.
    static func fields(_ store: any ObjectStoreReader) throws -> [String: [String: OrderedDictionary<String, ParseValue>]] {
        var out: [String: [String: OrderedDictionary<String, ParseValue>]] = [:]
        for className in try store.classNames() {
            for object in try store.objects(in: className) {
                out[className, default: [:]][object.objectId ?? ""] = object.fields.filter {
                    if case .relation = $0.value { return false } else { return true }
                }.mapValues(jsonbOrdered)
            }
        }
        return out
    }

    @Test func importsAndReadsBackTheOriginalNames() throws {
        try withSource { source, directory in
            try TestServer.withDatabase { url in
                let expected = try Self.fields(source)
                let store = try PostgresStore.open(url: url)
                defer { store.close() }
                let report = try StoreImporter().run(from: source, to: store)
                #expect(report.totalObjects == 5)
                let long = try #require(report.encodedNames.classes["Account"]?[RealDeviceCoreData.longName]?.storedName)
                #expect(long.utf8.count == 63 && ParseNameCoding.isShortened(long))
                #expect(try Self.fields(store) == expected)
                let relation = try #require(try store.relations().first { $0.owningClass == "Account" })
                #expect(relation.field == RealDeviceCoreData.notes)
                #expect(try store.joinRows(of: relation).count == 3)
                // Its join table's name fits PostgreSQL's 63 bytes (the field is shortened).
                let joins = try store.session.query(
                    #"SELECT table_name::text FROM information_schema.tables WHERE table_name LIKE '\_Join:%'"#, doing: "test")
                let names = try joins.map { try Array($0)[0].decode(String.self) }
                #expect(names.count == 1 && names.allSatisfy { $0.utf8.count <= 63 && $0.hasPrefix("_Join:pf___l") }, "\(names)")
                // The original names are in _SCHEMA for any reader.
                let rows = try store.session.query(#"SELECT "schema"::text FROM "_SCHEMA" WHERE "className" = 'Account'"#, doing: "test")
                let text = try #require(rows.first.map { try Array($0)[0].decode(String.self) })
                #expect(text.contains(RealDeviceCoreData.longName))
                #expect(text.contains("_DKApplicationActivityMetadataKey__contentDescription"))

                // Back to a Parse export, with the names as the source had them.
                let export = directory.appendingPathComponent("back")
                _ = try StoreImporter().run(from: store, to: ParseExportStore(url: export))
                let back = ParseExportStore(url: export)
                #expect(try Self.fields(back) == expected)
                let backRelation = try #require(try back.relations().first { $0.owningClass == "Account" })
                #expect(backRelation.field == RealDeviceCoreData.notes)
                #expect(try back.joinRows(of: backRelation).count == 3)
            }
        }
    }

    @Test func strictNamesRefusesAsBefore() throws {
        try withSource { source, _ in
            try TestServer.withDatabase { url in
                let store = try PostgresStore.open(url: url)
                defer { store.close() }
                var options = StoreImporter.Options()
                options.strictNames = true
                let error = #expect(throws: PFError.self) { try StoreImporter(options: options).run(from: source, to: store) }
                #expect(error?.parseErrorCode == .invalidFieldName || error?.parseErrorCode == .invalidNestedKey)
                #expect(try store.classNames().isEmpty)
            }
        }
    }
}
