import Foundation
import PFVersioning
import Testing

/// Schema changes that break old archives (or old builds) are caught before release.
@Suite struct CompatibilityTests {
    static let v1 = ArchiveSchema(types: [
        TypeSchema(name: "Item", version: 1, fields: [FieldSchema("name", .string), FieldSchema("count", .int32)])
    ])

    func v2(_ fields: [FieldSchema], steps: [MigrationStep] = [], version: Int = 2) -> ArchiveSchema {
        ArchiveSchema(types: [TypeSchema(name: "Item", version: version, fields: fields, migrations: steps)])
    }

    @Test func addingAFieldWithADefaultIsFullyCompatible() {
        let new = v2([FieldSchema("name", .string), FieldSchema("count", .int32), FieldSchema("tag", .string, default: "")])
        #expect(SchemaCompatibility.check(old: Self.v1, new: new, mode: .full).isEmpty)
    }

    @Test func promotionIsBackwardButNotForwardCompatible() {
        let new = v2([FieldSchema("name", .string), FieldSchema("count", .int64)])
        #expect(SchemaCompatibility.check(old: Self.v1, new: new, mode: .backward).isEmpty)
        let forward = SchemaCompatibility.check(old: Self.v1, new: new, mode: .forward)
        #expect(forward.map(\.description) == ["forward: Item.count: narrowing int64 → int32 fails for values outside int32's range"])
    }

    @Test func addingARequiredFieldBreaksBackward() {
        let new = v2([FieldSchema("name", .string), FieldSchema("count", .int32), FieldSchema("tag", .string)])
        let issues = SchemaCompatibility.check(old: Self.v1, new: new)
        #expect(issues.map(\.description) == ["backward: Item.tag: Item v1 archives lack it and it has no default; add a default or make it optional"])
        let fixed = v2(new.types["Item"]!.fields, steps: [MigrationStep(from: 1, [.addField("tag", default: "x")])])
        #expect(SchemaCompatibility.check(old: Self.v1, new: fixed).isEmpty)
    }

    @Test func removingARequiredFieldBreaksForward() {
        let new = v2([FieldSchema("name", .string)], steps: [MigrationStep(from: 1, [.removeField("count")])])
        #expect(SchemaCompatibility.check(old: Self.v1, new: new, mode: .backward).isEmpty)
        let forward = SchemaCompatibility.check(old: Self.v1, new: new, mode: .forward)
        #expect(forward.map(\.field) == ["count"])
    }

    @Test func narrowingAndUnrelatedTypeChangesBreak() {
        let narrowed = SchemaCompatibility.check(
            old: v2([FieldSchema("n", .int64)], version: 1), new: v2([FieldSchema("n", .int32)]))
        #expect(narrowed.first?.message.contains("narrowing int64 → int32") == true)
        let retyped = SchemaCompatibility.check(old: v2([FieldSchema("n", .string)], version: 1), new: v2([FieldSchema("n", .date)]))
        #expect(retyped.first?.message.contains("not a promotion") == true)
    }

    @Test func versionsMustGrowAndChangesNeedABump() {
        let same = SchemaCompatibility.check(old: Self.v1, new: v2([FieldSchema("name", .string)], version: 1))
        #expect(same.contains { $0.message.contains("the version stayed v1") })
        let down = SchemaCompatibility.check(old: v2([], version: 3), new: v2([], version: 2))
        #expect(down.first?.message.contains("version went down") == true)
    }

    @Test func removingATypeBreaksBackward() {
        let new = ArchiveSchema(types: [TypeSchema(name: "Other", version: 1, fields: [])])
        #expect(SchemaCompatibility.check(old: Self.v1, new: new).first?.message.contains("was removed") == true)
    }

    @Test func theSampleChainIsBackwardCompatibleWithEachRelease() throws {
        let current = try Golden.schema()
        // Release 1's schema, as it shipped.
        let release1 = ArchiveSchema(types: [
            TypeSchema(name: "Staff", version: 1, fields: [
                FieldSchema("name", .string), FieldSchema("salary", .int32), FieldSchema("starRating", .int32),
                FieldSchema("nickname", .string), FieldSchema("department", .reference("Department"), optional: true),
            ]),
            TypeSchema(name: "Department", version: 1, fields: [FieldSchema("title", .string)]),
        ])
        #expect(SchemaCompatibility.check(old: release1, new: current, mode: .backward).isEmpty)
        // Old builds cannot read today's archives: starRating is gone and had no default.
        let forward = SchemaCompatibility.check(old: release1, new: current, mode: .forward)
        #expect(forward.contains { $0.description.contains("Staff") && $0.description.contains("writes it as Employee") })
    }
}
