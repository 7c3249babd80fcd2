import Foundation
import OrderedCollections
import PFCore
import PFParse
import PFStores
import Testing

@testable import PFPostgresStore

/// PostgreSQL cuts identifiers longer than 63 bytes with a NOTICE only. A Relation of a class
/// named in more than 32 bytes kept its field whole, so its join table `_Join:<field>:<Class>`
/// was cut: the import said "1 relation row", reading back gave none, and two such classes
/// sharing their first 49 bytes wrote into one join table. A class name over 63 bytes failed
/// with a false "relation … already exists". Both are refused now, in one message, before
/// anything is written; a relation whose table fits still imports.
@Suite(.serialized, .enabled(if: TestServer.available, TestServer.skipReason))
struct PostgresNameLengthTests {
    static func store(className: String, field: String = "members") throws -> MemoryStore {
        let objects = [
            try ParseObject(className: className, objectId: "p1", fields: ["n": .int(1)]),
            try ParseObject(className: className, objectId: "p2", fields: ["n": .int(2)]),
        ]
        let key = ParseRelationKey(owningClass: className, field: field, targetClass: className)
        return MemoryStore(objects: objects, joinRows: [key: [ParseJoinRow(owningId: "p1", relatedId: "p2")]])
    }

    @Test(arguments: [50, 55, 56])
    func aJoinTableLongerThanPostgresNamesIsRefused(classBytes: Int) throws {
        let className = "C" + String(repeating: "x", count: classBytes - 1)
        try TestServer.withDatabase { url in
            let store = try PostgresStore.open(url: url)
            defer { store.close() }
            #expect {
                try StoreImporter().run(from: Self.store(className: className), to: store)
            } throws: { error in
                let message = (error as? PFError)?.message ?? ""
                return message.contains("_Join:members:\(className)") && message.contains("at most 63 bytes") && !message.contains("\n")
            }
            #expect(try store.classNames().isEmpty, "nothing is written")
        }
    }

    @Test func aJoinTableThatFitsImportsAndReadsBack() throws {
        let className = "C" + String(repeating: "x", count: 48)  // 49 bytes: `_Join:members:` + 49 = 63
        try TestServer.withDatabase { url in
            let store = try PostgresStore.open(url: url)
            defer { store.close() }
            let report = try StoreImporter().run(from: Self.store(className: className), to: store)
            #expect(report.totalRelationRows == 1)
            let back = try PostgresStore.open(url: url)
            defer { back.close() }
            var rows: [ParseJoinRow] = []
            for relation in try back.relations() { try back.forEachJoinRow(of: relation) { rows.append($0) } }
            #expect(rows == [ParseJoinRow(owningId: "p1", relatedId: "p2")])
        }
    }

    @Test func aClassNameLongerThanPostgresNamesIsRefused() throws {
        let className = "C" + String(repeating: "y", count: 66)
        try TestServer.withDatabase { url in
            let store = try PostgresStore.open(url: url)
            defer { store.close() }
            let objects = [try ParseObject(className: className, objectId: "a", fields: ["n": .int(1)])]
            #expect {
                try StoreImporter().run(from: MemoryStore(objects: objects), to: store)
            } throws: { error in
                let message = (error as? PFError)?.message ?? ""
                return message.contains("class \(className)") && message.contains("67 bytes") && !message.contains("already exists")
            }
        }
    }
}
