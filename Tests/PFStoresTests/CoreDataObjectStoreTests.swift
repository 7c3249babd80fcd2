import Foundation
import PFCore
import PFParse
import PFStores
import PFTestSupport
import Testing

/// The Core Data fixtures read through the store interface: every row of every entity comes
/// out as a Parse object whose fields agree with the schema derived from the model.
@Suite struct CoreDataObjectStoreTests {
    static var storeURLs: [URL] {
        let base = Fixtures.real.appendingPathComponent("coredata")
        return ["coredataplus/SampleModel_V1.sqlite", "coredataplus/SampleModel_V2.sqlite", "coredataplus/SampleModel2_V2.sqlite",
                "coredataplus/SampleModel3_V1.sqlite", "restkit/RKSeedDatabase.sqlite"].map { base.appendingPathComponent($0) }
    }

    @Test(arguments: storeURLs)
    func everyRowReadsAsAnObjectMatchingTheSchema(url: URL) throws {
        let before = try Data(contentsOf: url)
        let source = try CoreDataObjectStore(url: url)
        defer { source.close() }
        let schema = try source.schema()
        var total = 0
        for className in try source.classNames() {
            let objects = try source.objects(in: className)
            #expect(objects.count == (try source.store.rowCount(entity: className)), "\(className)")
            #expect(Set(objects.compactMap(\.objectId)).count == objects.count, "ids are unique in \(className)")
            let fields = try #require(schema.classes[className])
            for object in objects {
                #expect(object.className == className)
                for (key, value) in object.fields {
                    let declared = try #require(fields[key], "\(className).\(key) is not in the schema")
                    if case .object = value, declared.type == .object { continue }
                    guard let actual = ParseSchema.fieldType(of: value) else { continue }
                    #expect(actual.type == declared.type || declared.type == .object, "\(className).\(key): \(actual) vs \(declared)")
                    if let target = actual.targetClass, declared.type == .pointer {
                        // A pointer may name a subentity of the declared destination.
                        #expect(source.store.model.entity(named: target) != nil)
                    }
                }
            }
            total += objects.count
        }
        for relation in try source.relations() {
            let rows = try source.joinRows(of: relation)
            #expect(Set(rows).count == rows.count, "\(relation) rows are distinct")
            for row in rows {
                #expect(row.owningId.hasPrefix(relation.owningClass + "-"))
            }
        }
        #expect(total > 0)
        #expect(try Data(contentsOf: url) == before, "the source is never written")
    }

    @Test func joinRowsAgreeWithTheRelationFieldsDestination() throws {
        let url = Self.storeURLs[2]
        let source = try CoreDataObjectStore(url: url)
        defer { source.close() }
        var checked = 0
        for relation in try source.relations() {
            let target = try #require(relation.targetClass)
            let subtree = Set(source.store.model.subtree(of: try #require(source.store.model.entity(named: target))).map(\.name))
            for row in try source.joinRows(of: relation) {
                let prefix = String(row.relatedId.prefix { $0 != "-" })
                #expect(subtree.contains(prefix), "\(relation): \(row.relatedId) is not a \(target)")
                checked += 1
            }
        }
        #expect(checked > 0)
    }

    @Test func notACoreDataStoreIsAClearError() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-cd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("x.sqlite")
        try Data("not a database at all".utf8).write(to: file)
        #expect(throws: PFError.self) { try CoreDataObjectStore(url: file) }
    }
}
