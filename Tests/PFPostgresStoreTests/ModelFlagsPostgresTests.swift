import Foundation
import OrderedCollections
import PFCore
import PFParse
import PFStores
import Testing

@testable import PFPostgresStore

/// A source model's primary key and indexed fields (a Realm file's, issue 25) become
/// PostgreSQL's own: a unique index and an index on their columns.
@Suite(.serialized, .enabled(if: TestServer.available, TestServer.skipReason))
struct ModelFlagsPostgresTests {
    @Test func aPrimaryKeyGetsAUniqueIndexAndAnIndexedFieldAnIndex() throws {
        try TestServer.withDatabase { url in
            var name = ParseSchema.Field(.string)
            name.isPrimaryKey = true
            name.isRequired = true
            var age = ParseSchema.Field(.number)
            age.isIndexed = true
            var schema = ParseSchema()
            schema.classes["Person"] = ["name": name, "age": age, "nickname": .init(.string)]
            let objects = try ["Alice", "Bob"].enumerated().map { i, n in
                try ParseObject(className: "Person", objectId: n, fields: ["name": .string(n), "age": .int(Int64(30 + i))])
            }
            let store = try PostgresStore.open(url: url)
            defer { store.close() }
            try copy(MemoryStore(objects: objects, schema: schema), into: store)
            let rows = try store.session.query(#"SELECT indexdef FROM pg_indexes WHERE tablename = 'Person' ORDER BY indexname"#, doing: "test")
            let definitions = try rows.map { try Array($0)[0].decode(String.self) }
            #expect(definitions.contains { $0.contains("CREATE UNIQUE INDEX") && $0.hasSuffix("(name)") }, "\(definitions)")
            #expect(definitions.contains { !$0.contains("UNIQUE") && $0.hasSuffix("(age)") }, "\(definitions)")
            #expect(!definitions.contains { $0.contains("nickname") })
            // The unique index is PostgreSQL's own: a second Alice is refused.
            #expect(throws: PFError.self) {
                try store.session.query(#"INSERT INTO "Person" ("objectId", "name") VALUES ('other', 'Alice')"#, doing: "test")
            }
        }
    }
}

/// The model's flags in parse-server's `_SCHEMA` document: `required` (and pfarchive's
/// `primaryKey`, `embeddedClass`) on the field, the indexes in `indexes` under their names in
/// the database; read back equal, the flags included.
@Suite(.serialized, .enabled(if: TestServer.available, TestServer.skipReason))
struct ModelFlagsSchemaPostgresTests {
    @Test func longIndexNamesStayDistinctWithinPostgresLimit() {
        let stem = String(repeating: "measurementOfTheDay", count: 3)
        let a = ClassLayout.indexName("Reading", stem + "_min", unique: false)
        let b = ClassLayout.indexName("Reading", stem + "_max", unique: false)
        #expect(a != b, "two fields whose index names share 63 bytes get two indexes")
        #expect(a.utf8.count <= 63 && b.utf8.count <= 63)
        // A cut never splits a character.
        let wide = ClassLayout.indexName("Lecture", String(repeating: "é", count: 40), unique: true)
        #expect(wide.utf8.count <= 63 && !wide.contains("\u{FFFD}"))
        #expect(ClassLayout.indexName("Reading", "day", unique: true) == "Reading_key_day")
    }

    @Test func theFlagsAreInTheSchemaDocumentAndReadBack() throws {
        try TestServer.withDatabase { url in
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
                try ParseObject(className: "Person", objectId: n, fields: ["name": .string(n), "age": .int(Int64(30 + i))])
            }
            let store = try PostgresStore.open(url: url)
            defer { store.close() }
            try copy(MemoryStore(objects: objects, schema: schema), into: store)
            let reopened = try PostgresStore.open(url: url)
            defer { reopened.close() }
            let differences = schema.modelDifferences(from: try reopened.schema())
            #expect(differences.isEmpty, "\(differences)")
            let document = try reopened.schemaRows()["Person"]?.document ?? [:]
            #expect(document["fields"]?["name"] == ["type": "String", "required": true, "primaryKey": true])
            #expect(document["fields"]?["address"] == ["type": "Object", "embeddedClass": "Address"])
            #expect(document["fields"]?["nickname"] == ["type": "String"])
            // jsonb keeps an object's keys in its own order: compared as a dictionary.
            let indexes = Dictionary(uniqueKeysWithValues: (document["indexes"]?.dictionaryValue ?? [:]).map { ($0.key, $0.value) })
            #expect(indexes == ["_id_": ["_id": 1], "Person_key_name": ["name": 1], "Person_idx_age": ["age": 1]])
        }
    }
}

/// A `_SCHEMA` document as parse-server keeps it: `required` on a field and a single-field
/// index in `indexes` are the model's flags (the primary key's own unique index is not).
@Suite struct ModelFlagsSchemaDocumentTests {
    @Test func parseServersRequiredAndIndexesAreRead() throws {
        let document: PFValue = [
            "className": "Person",
            "fields": [
                "objectId": ["type": "String"], "name": ["type": "String", "required": true, "primaryKey": true],
                "age": ["type": "Number"], "city": ["type": "String"], "zip": ["type": "String"],
            ],
            "indexes": ["_id_": ["_id": 1], "age_1": ["age": 1], "city_zip": ["city": 1, "zip": 1], "Person_key_name": ["name": 1]],
        ]
        let layout = try ClassLayout(className: "Person", document: document, location: "test")
        #expect(layout.fields["name"]?.isRequired == true && layout.fields["name"]?.isPrimaryKey == true)
        #expect(layout.fields["name"]?.isIndexed == false)
        #expect(layout.fields["age"]?.isIndexed == true && layout.fields["age"]?.isRequired == false)
        #expect(layout.fields["city"]?.isIndexed == false && layout.fields["zip"]?.isIndexed == false)
    }
}
