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
            var name = ParseSchema.Field("String")
            name.isPrimaryKey = true
            name.isRequired = true
            var age = ParseSchema.Field("Number")
            age.isIndexed = true
            var schema = ParseSchema()
            schema.classes["Person"] = ["name": name, "age": age, "nickname": .init("String")]
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
