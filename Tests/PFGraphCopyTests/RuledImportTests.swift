import Foundation
import PFCore
import PFGraphCopy
import PFParse
import PFStoreTestSupport
import PFStores
import PFTestSupport
import PropertyBased
import Testing

/// `pfarchive import --rules`: a store read through copy rules (``RuledStoreReader``).
@Suite struct RuledImportTests {
    /// Two classes: A with an attribute to drop, a Pointer, an array of Pointers, a Relation
    /// with join rows and an ACL; B plain.
    static func store() throws -> MemoryStore {
        let b1 = try ParseObject(className: "B", objectId: "b1", fields: ["name": .string("first")])
        let b2 = try ParseObject(className: "B", objectId: "b2", fields: ["name": .string("second")])
        let acl = try ParseACL(rest: ["*": ["read": true]])
        let a = try ParseObject(
            className: "A", objectId: "a1", createdAt: Date(timeIntervalSince1970: 1_000), updatedAt: nil, acl: acl,
            fields: [
                "name": .string("alpha"), "secret": .string("hunter2"),
                "b": .pointer(ParsePointer(className: "B", objectId: "b1")),
                "bs": .array([.pointer(ParsePointer(className: "B", objectId: "b1")), .pointer(ParsePointer(className: "B", objectId: "b2"))]),
                "friends": .relation(className: "B"), "score": .int(7),
            ])
        let friends = ParseRelationKey(owningClass: "A", field: "friends", targetClass: "B")
        return MemoryStore(objects: [a, b1, b2], joinRows: [friends: [ParseJoinRow(owningId: "a1", relatedId: "b2")]])
    }

    static func rules(_ edit: (CopyProfile) throws(PFError) -> CopyProfile) throws -> CopyRules {
        try CopyRules(profile: try edit(try RuledStoreReader.importProfile(CopyRulesFile())))
    }

    static func importing(_ rules: CopyRules, classes: [String]? = nil) throws -> MemoryStore {
        let reader = try RuledStoreReader(source: try store(), rules: rules, importedClasses: classes)
        let destination = MemoryStore()
        _ = try StoreImporter(options: .init(classes: classes)).run(from: reader, to: destination)
        return destination
    }

    @Test func rulesDropSetAndFilterFieldsAndRelations() throws {
        let rules = try Self.rules { (p: CopyProfile) throws(PFError) -> CopyProfile in
            try p.attribute("A.secret", .omit).attribute("*.name", .set(.string("x"))).attribute("A.ACL", .omit)
                .attribute("A.stamp", .set(.int(1))).edge("A.b", .conditional).edge("A.bs", .omit).edge("A.friends", .omit)
        }
        // Only A: the conditional Pointer to B goes, and so do the omitted ones.
        let onlyA = try Self.importing(rules, classes: ["A"])
        let a = try #require(try onlyA.objects(in: "A").first)
        #expect(Array(a.fields.keys) == ["name", "bs", "score", "stamp"])
        #expect(a.fields["name"] == .string("x") && a.fields["bs"] == .array([]) && a.fields["stamp"] == .int(1))
        #expect(a.acl == nil && a.objectId == "a1" && a.createdAt == Date(timeIntervalSince1970: 1_000))
        #expect(try onlyA.relations().isEmpty)
        let schema = try onlyA.schema().classes["A"]
        #expect(schema?["secret"] == nil && schema?["b"] == nil && schema?["friends"] == nil && schema?["stamp"] == ParseSchema.Field(.number))
        // With B imported too, the conditional Pointer stays.
        let both = try Self.importing(rules)
        #expect(try both.objects(in: "A").first?.fields["b"] == .pointer(ParsePointer(className: "B", objectId: "b1")))
        #expect(try both.objects(in: "B").map { $0.fields["name"] } == [.string("x"), .string("x")])
    }

    @Test func withoutRulesEverythingIsImportedAsIs() async {
        await propertyCheck(count: 20, input: StoreGen.store()) { generated in
            do {
                let source = generated.memoryStore()
                let reader = try RuledStoreReader(source: source, rules: try Self.rules { $0 })
                let destination = MemoryStore()
                _ = try StoreImporter().run(from: reader, to: destination)
                let diff = try StoreComparison.firstDifference(expected: source, actual: destination)
                #expect(diff == nil, "\(diff ?? "")\n\(generated)")
            } catch {
                Issue.record("\(error)\n\(generated)")
            }
        }
    }

    @Test func rulesThatNeedARootOrChangeObjectIdsAreRefused() throws {
        let path = try Self.rules { (p: CopyProfile) throws(PFError) -> CopyProfile in try p.edge("department.head", .omit) }
        let newIds = try Self.rules { (p: CopyProfile) throws(PFError) -> CopyProfile in try p.attribute("*.objectId", .regenerate(.objectId)) }
        for rules in [path, newIds, try CopyRules(profile: .duplicate)] {
            #expect(throws: PFError.self) { _ = try RuledStoreReader(source: try Self.store(), rules: rules) }
        }
        let error = try #require(throws: PFError.self) { _ = try RuledStoreReader(source: try Self.store(), rules: newIds) }
        #expect(error.failure(as: StoreFailure.self) == .importObjectIdRules)
    }

    @Test func theCLIImportsTheSampleExportWithARulesFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ruled-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let rulesFile = dir.appendingPathComponent("rules.json")
        try Data(#"{"rulesVersion": 1, "rules": {"attributes": {"_User.bcryptPassword": "omit"}, "edges": {"Post.likes": "omit"}}}"#.utf8)
            .write(to: rulesFile)
        let sample = Fixtures.repoRoot.appendingPathComponent("Samples/stores/export")
        let out = dir.appendingPathComponent("out.sqlite")
        let result = try CLI.run(["import", sample.path, out.path, "--rules", rulesFile.path])
        #expect(result.status == 0, "\(result.stderr)")
        let back = dir.appendingPathComponent("back")
        #expect(try CLI.run(["import", out.path, back.path]).status == 0)
        let users = try String(contentsOf: back.appendingPathComponent("_User.json"), encoding: .utf8)
        #expect(!users.contains("bcryptPassword") && users.contains("uAnn0001"))
        #expect(!FileManager.default.fileExists(atPath: back.appendingPathComponent("_Join:likes:Post.json").path))
        // Usage errors: --profile alone, path rules; a malformed rules file is bad input.
        #expect(try CLI.run(["import", sample.path, dir.appendingPathComponent("x.sqlite").path, "--profile", "import"]).status == 2)
        try Data(#"{"rulesVersion": 1, "rules": {"edges": {"post.author": "omit"}}}"#.utf8).write(to: rulesFile)
        #expect(try CLI.run(["import", sample.path, dir.appendingPathComponent("y.sqlite").path, "--rules", rulesFile.path]).status == 2)
        try Data("{".utf8).write(to: rulesFile)
        let bad = try CLI.run(["import", sample.path, dir.appendingPathComponent("z.sqlite").path, "--rules", rulesFile.path])
        #expect(bad.status == 1 && bad.stderr.contains("rules.json"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("y.sqlite").path))
    }
}
