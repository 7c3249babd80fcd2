import Foundation
import PFCoreDataTestSupport
import PFParse
import PFStores
import Testing

/// Core Data attributes named like the columns Parse keeps for itself: `objectId`,
/// `className` and `ACL` are read under `<name>_coreData` (an `ACL` string is no Parse ACL, and
/// failed the whole read on main); a `createdAt`/`updatedAt` date is Parse's own column.
@Suite struct CoreDataReservedNameTests {
    @Test func attributesNamedLikeParseColumnsAreKept() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pf-cd-reserved-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Reserved.sqlite")
        let entity = CoreDataStoreBuilder.Entity(
            name: "Note",
            attributes: [.init("ACL", 700), .init("objectId", 700), .init("className", 700), .init("title", 700)],
            rows: [["ACL": .text("staff only"), "objectId": .text("n-1"), "className": .text("Memo"), "title": .text("hi")]])
        try CoreDataStoreBuilder.write([entity], to: url)
        let source = try CoreDataObjectStore(url: url)
        defer { source.close() }
        let fields = try #require(try source.schema().classes["Note"])
        #expect(Set(fields.keys) == ["ACL_coreData", "objectId_coreData", "className_coreData", "title"])
        var objects: [ParseObject] = []
        try source.forEachObject(in: "Note") { objects.append($0) }
        #expect(objects.count == 1)
        #expect(objects.first?.fields["ACL_coreData"] == .string("staff only"))
        #expect(objects.first?.fields["objectId_coreData"] == .string("n-1"))
        #expect(objects.first?.fields["className_coreData"] == .string("Memo"))
        #expect(objects.first?.acl == nil)
    }

    /// A property already named like a renamed one (`objectId_coreData` beside `objectId`)
    /// keeps a field of its own (the later one replaced the earlier's value), and a to-many
    /// relationship whose name ends in `_coreData` is read by its own name (its join rows were
    /// looked up under the name with the suffix cut off, `tags`).
    @Test func propertiesNamedLikeRenamedOnesKeepTheirOwnFieldsAndJoinRows() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pf-cd-reserved-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Collide.sqlite")
        let entities: [CoreDataStoreBuilder.Entity] = [
            .init(
                name: "Note",
                attributes: [.init("objectId", 700), .init("objectId_coreData", 700)],
                relationships: [.init("tags_coreData", to: "Tag", inverse: "notes", toMany: true)],
                rows: [["objectId": .text("first"), "objectId_coreData": .text("second"), "tags_coreData": .objects([.init("Tag", 1)])]]),
            .init(
                name: "Tag", attributes: [.init("label", 700)],
                relationships: [.init("notes", to: "Note", inverse: "tags_coreData", toMany: true)],
                rows: [["label": .text("red")]]),
        ]
        try CoreDataStoreBuilder.write(entities, to: url)
        let source = try CoreDataObjectStore(url: url)
        defer { source.close() }
        let fields = try #require(try source.schema().classes["Note"])
        #expect(Set(fields.keys) == ["objectId_coreData_", "objectId_coreData", "tags_coreData"], "\(fields.keys)")
        var objects: [ParseObject] = []
        try source.forEachObject(in: "Note") { objects.append($0) }
        #expect(objects.first?.fields["objectId_coreData_"] == .string("first"))
        #expect(objects.first?.fields["objectId_coreData"] == .string("second"))
        let relation = try #require(try source.relations().first { $0.owningClass == "Note" })
        #expect(relation.field == "tags_coreData")
        var rows: [ParseJoinRow] = []
        try source.forEachJoinRow(of: relation) { rows.append($0) }
        #expect(rows.count == 1, "\(rows)")
    }
}
