import Foundation
import PFCore
import PFParse
import PFSQLiteStore
import PFStores
import PFTestSupport
import Testing

/// A source model's flags (required, indexed, primary key, embedded class; a Realm file's,
/// issue 25) are kept in the store's `_SCHEMA.options`, and a store written before pfarchive
/// kept them still opens and reads unchanged.
@Suite struct ModelFlagsSQLiteTests {
    /// A class with every flag: `name` the required primary key, `age` indexed, `address` an
    /// embedded object, `nickname` none.
    static func flaggedSource() throws -> MemoryStore {
        var name = ParseSchema.Field(.string)
        name.isPrimaryKey = true
        name.isRequired = true
        var age = ParseSchema.Field(.number)
        age.isIndexed = true
        var address = ParseSchema.Field(.object)
        address.embeddedClass = "Address"
        var schema = ParseSchema()
        schema.classes["Person"] = ["name": name, "age": age, "address": address, "nickname": .init(.string)]
        let objects = try ["Alice", "Bob"].enumerated().map { i, n in
            try ParseObject(
                className: "Person", objectId: n,
                fields: ["name": .string(n), "age": .int(Int64(30 + i)), "address": .object(["city": .string("Oslo")])])
        }
        return MemoryStore(objects: objects, schema: schema)
    }

    @Test func theModelsFlagsSurviveTheStore() throws {
        let dir = try SQLiteSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("flags.sqlite")
        let source = try Self.flaggedSource()
        _ = try SQLiteSamples.copy(source, to: url)
        let reopened = SQLiteStore(url: url)
        defer { reopened.close() }
        let differences = try source.schema().modelDifferences(from: try reopened.schema())
        #expect(differences.isEmpty, "\(differences)")
        #expect(
            try SQLiteSamples.sqlite3(url, "SELECT field, options FROM _SCHEMA ORDER BY position")
                == "name|{\"required\":true,\"primaryKey\":true}\nage|{\"indexed\":true}\naddress|{\"embeddedClass\":\"Address\"}\nnickname|\n")
    }

    @Test func aStoreWrittenBeforeTheFlagsReadsUnchangedAndIsMigratedByAWrite() throws {
        let dir = try SQLiteSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("old.sqlite")
        try FileManager.default.copyItem(at: Fixtures.root.appendingPathComponent("stores/pfarchive-layout1-js-simple.sqlite"), to: url)
        let before = try Data(contentsOf: url)

        // Read as it always was: the same fields, no flags, every object; the file untouched.
        let old = SQLiteStore(url: url)
        let schema = try old.schema()
        #expect(Array(schema.classes["Person"]?.keys ?? []) == ["name", "bestFriend", "age"])
        #expect(schema.classes["Person"]?["bestFriend"] == ParseSchema.Field(.pointer, targetClass: "Person"))
        #expect(schema.classes["Person"]?.values.allSatisfy { !$0.hasModelFlags } == true)
        #expect(try old.objects(in: "Person").map(\.objectId) == ["Bob", "Alice", "Charlie"])
        old.close()
        #expect(try Data(contentsOf: url) == before)
        #expect(try SQLiteSamples.sqlite3(url, "SELECT count(*) FROM pragma_table_info('_SCHEMA') WHERE name = 'options'") == "0\n")

        // A write adds `_SCHEMA.options`; the old class keeps its fields, the new its flags.
        var dog = ParseSchema.Field(.string)
        dog.isPrimaryKey = true
        var schemaAdded = ParseSchema()
        schemaAdded.classes["Dog"] = ["tag": dog]
        let added = MemoryStore(objects: [try ParseObject(className: "Dog", objectId: "d1", fields: ["tag": .string("d1")])], schema: schemaAdded)
        let writer = SQLiteStore(url: url)
        _ = try StoreImporter().run(from: added, to: writer)
        writer.close()
        let migrated = SQLiteStore(url: url)
        defer { migrated.close() }
        let after = try migrated.schema()
        #expect(after.classes["Person"]?.values.allSatisfy { !$0.hasModelFlags } == true)
        #expect(after.classes["Dog"]?["tag"]?.isPrimaryKey == true)
        #expect(try migrated.objects(in: "Person").count == 3)
        #expect(try SQLiteSamples.sqlite3(url, "SELECT count(*) FROM pragma_table_info('_SCHEMA') WHERE name = 'options'") == "1\n")
    }
}
