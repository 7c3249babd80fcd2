import Foundation
import PFCore
import PFVersioning
import Testing

/// The resolution rules of Docs/Versioning.md, one by one, on small trees.
@Suite struct ResolutionTests {
    static func schema(
        fields: [FieldSchema], version: Int = 2, migrations: [MigrationStep] = [], policies: VersioningPolicies = VersioningPolicies()
    ) -> ArchiveSchema {
        ArchiveSchema(types: [TypeSchema(name: "Item", version: version, fields: fields, migrations: migrations)], policies: policies)
    }

    func migrate(_ tree: PFValue, _ schema: ArchiveSchema, options: MigrationOptions = MigrationOptions()) throws(PFError) -> MigrationOutcome {
        try Migrator(schema: schema, options: options).migrate(tree)
    }

    @Test func readerOnlyFieldTakesItsDefault() throws {
        let schema = Self.schema(fields: [FieldSchema("name", .string), FieldSchema("count", .int64, default: 5)])
        let out = try migrate(["$class": "Item", "$version": 1, "name": "a"], schema)
        #expect(out.tree == ["$class": "Item", "$version": 2, "name": "a", "count": 5])
        #expect(out.report.changes.map(\.change) == ["added field count = 5 (default)"])
    }

    @Test func readerOnlyFieldWithoutDefaultFailsNamingFieldAndVersions() throws {
        let schema = Self.schema(fields: [FieldSchema("name", .string), FieldSchema("count", .int64)])
        let error = try #require(throws: PFError.self) { try migrate(["items": [["$class": "Item", "$version": 1, "name": "a"]]], schema) }
        #expect(error.format == .migration)
        #expect(error.path == [.key("items"), .index(0), .key("count")])
        #expect(
            error.failure(as: VersioningFailure.self)
                == .object(what: "Item.count", versions: "archive has Item v1, reading as v2", .missingField(type: "int64")))
    }

    @Test func optionalFieldMayBeAbsentOrNull() throws {
        let schema = Self.schema(fields: [FieldSchema("note", .string, optional: true)])
        #expect(try migrate(["$class": "Item", "$version": 2], schema).report.isEmpty)
        #expect(try migrate(["$class": "Item", "$version": 2, "note": nil], schema).report.isEmpty)
        #expect(throws: PFError.self) { try migrate(["$class": "Item", "$version": 2, "note": 3], schema) }
    }

    @Test func fieldsMatchThroughAliases() throws {
        let schema = Self.schema(fields: [FieldSchema("fullName", .string, aliases: ["name"])])
        let out = try migrate(["$class": "Item", "$version": 1, "name": "a"], schema)
        #expect(out.tree == ["$class": "Item", "$version": 2, "fullName": "a"])
    }

    @Test func classesMatchThroughAliases() throws {
        var type = TypeSchema(name: "Item", version: 1, aliases: ["OldItem"], fields: [])
        type.fields = [FieldSchema("x", .int32)]
        let out = try migrate(["$class": "OldItem", "$version": 1, "x": 1], ArchiveSchema(types: [type]))
        #expect(out.tree == ["$class": "Item", "$version": 1, "x": 1])
    }

    @Test func writerOnlyFieldsArePreservedDroppedOrRefused() throws {
        let tree: PFValue = ["$class": "Item", "$version": 2, "name": "a", "extra": [1, 2]]
        let fields = [FieldSchema("name", .string)]
        let kept = try migrate(tree, Self.schema(fields: fields))
        #expect(kept.tree == tree)
        #expect(kept.unknownFields.entries[.root] == ["extra": [1, 2]])
        let dropped = try migrate(tree, Self.schema(fields: fields, policies: .init(unknownFields: .drop)))
        #expect(dropped.tree == ["$class": "Item", "$version": 2, "name": "a"])
        let error = try #require(throws: PFError.self) { try migrate(tree, Self.schema(fields: fields, policies: .init(unknownFields: .error))) }
        #expect(error.path == [.key("extra")])
    }

    @Test func integerNarrowingIsChecked() throws {
        let schema = Self.schema(fields: [FieldSchema("n", .int32)])
        #expect(try migrate(["$class": "Item", "$version": 2, "n": 2_147_483_647], schema).tree["n"] == 2_147_483_647)
        let error = try #require(throws: PFError.self) { try migrate(["$class": "Item", "$version": 2, "n": 2_147_483_648], schema) }
        #expect(
            error.failure(as: VersioningFailure.self)
                == .object(what: "Item.n", versions: "Item v2", .narrowing(value: "2147483648", type: "int32")))
        let step = MigrationStep(from: 1, [.changeType(field: "n", from: .int64, to: .int32)])
        let stepped = Self.schema(fields: [FieldSchema("n", .int32)], migrations: [step])
        let stepError = try #require(throws: PFError.self) { try migrate(["$class": "Item", "$version": 1, "n": -3_000_000_000], stepped) }
        #expect(
            stepError.failure(as: VersioningFailure.self)
                == .object(what: "Item.n", versions: "step v1 → v2", .narrowing(value: "-3000000000", type: "int32")))
    }

    @Test func promotionsFollowAvro() throws {
        let schema = Self.schema(fields: [FieldSchema("d", .double), FieldSchema("s", .string), FieldSchema("b", .data)])
        let out = try migrate(["$class": "Item", "$version": 2, "d": 3, "s": .data(Data("hé".utf8)), "b": "xy"], schema)
        #expect(out.tree["d"] == .double(3))
        #expect(out.tree["s"] == "hé")
        #expect(out.tree["b"] == .data(Data("xy".utf8)))
        #expect(throws: PFError.self) { try migrate(["$class": "Item", "$version": 2, "d": "3", "s": "", "b": ""], schema) }
    }

    @Test func unknownEnumSymbolUsesUnknownDefaultOrFails() throws {
        let lenient = Self.schema(fields: [FieldSchema("r", .enumeration(["a", "b"]), unknownDefault: "b")])
        #expect(try migrate(["$class": "Item", "$version": 2, "r": "z"], lenient).tree["r"] == "b")
        let strict = Self.schema(fields: [FieldSchema("r", .enumeration(["a", "b"]))])
        let error = try #require(throws: PFError.self) { try migrate(["$class": "Item", "$version": 2, "r": "z"], strict) }
        #expect(
            error.failure(as: VersioningFailure.self)
                == .object(what: "Item.r", versions: "Item v2", .unknownSymbol("z", symbols: ["a", "b"])))
    }

    @Test func newerVersionIsReadBestEffortOrRefused() throws {
        let tree: PFValue = ["$class": "Item", "$version": 5, "name": "a", "phone": "123"]
        let schema = Self.schema(fields: [FieldSchema("name", .string)], version: 3)
        let out = try migrate(tree, schema)
        #expect(out.tree == tree)
        #expect(out.report.notes.first?.contains("archive has Item v5, this build knows v3") == true)
        let reject = MigrationOptions(policies: .init(newerVersions: .reject))
        let error = try #require(throws: PFError.self) { try migrate(tree, schema, options: reject) }
        #expect(error.failure(as: VersioningFailure.self) == .newerVersion(type: "Item", written: 5, known: 3))
        #expect(error.code == .unsupported)
    }

    @Test func plainCodableTreesUseTheCallersRootTypeAndVersions() throws {
        let schema = Self.schema(fields: [FieldSchema("fullName", .string, aliases: ["name"]), FieldSchema("count", .int64, default: 0)])
        let options = MigrationOptions(rootType: "Item", writtenVersions: ["Item": 1])
        let out = try migrate(["name": "a"], schema, options: options)
        #expect(out.tree == ["fullName": "a", "count": 0])
    }

    @Test func customTransformsRunByName() throws {
        var transforms = TransformRegistry.standard
        transforms.register(field: "cents") { value, context in
            guard let d = value.doubleValue else { throw context.failure("expected a number of dollars") }
            return .int(Int64((d * 100).rounded()))
        }
        let step = MigrationStep(from: 1, [.transform(field: "dollars", using: "cents", into: "cents")])
        let schema = Self.schema(fields: [FieldSchema("cents", .int64)], migrations: [step])
        let options = MigrationOptions(transforms: transforms)
        let out = try migrate(["$class": "Item", "$version": 1, "dollars": 1.25], schema, options: options)
        #expect(out.tree == ["$class": "Item", "$version": 2, "cents": 125])
        let error = try #require(throws: PFError.self) { try migrate(["$class": "Item", "$version": 1, "dollars": "x"], schema, options: options) }
        #expect(error.message == "Item.dollars (v1 → v2): expected a number of dollars")
        #expect(error.path == [.key("dollars")])
    }

    @Test func sharedObjectsMigrateOnceAndStayShared() throws {
        let schema = try Golden.schema()
        let tree: PFValue = [
            ["$class": "Department", "$version": 1, "$id": 1, "title": "R&D"], ["$ref": 1],
        ]
        let out = try migrate(tree, schema)
        #expect(out.tree == [["$class": "Department", "$version": 2, "$id": 1, "name": "R&D", "floor": 0], ["$ref": 1]])
    }

    @Test func validatorReportsEverythingThatWouldFail() throws {
        let schema = Self.schema(fields: [FieldSchema("name", .string), FieldSchema("n", .int32)])
        let tree: PFValue = [["$class": "Item", "$version": 1, "n": 1], ["$class": "Item", "$version": 2, "name": 3, "n": 9_999_999_999]]
        let issues = SchemaValidator.validate(tree: tree, schema: schema)
        let errors = issues.filter { $0.severity == .error }
        #expect(errors.map(\.path) == [[.index(0), .key("name")], [.index(1), .key("name")], [.index(1), .key("n")]])
        #expect(issues.contains { $0.severity == .warning && $0.message.contains("Item v1 is older than v2") })
        #expect(SchemaValidator.validate(tree: ["$class": "Item", "$version": 2, "name": "a", "n": 1], schema: schema).isEmpty)
    }

    @Test func untrustedDepthFailsCleanly() throws {
        var tree: PFValue = ["$class": "Item", "$version": 2, "name": "a"]
        for _ in 0..<40 { tree = ["x": tree] }
        let schema = Self.schema(fields: [FieldSchema("name", .string)])
        var limits = PFLimits.default
        limits.maxDepth = 16
        let error = try #require(throws: PFError.self) { try migrate(tree, schema, options: MigrationOptions(limits: limits)) }
        #expect(error.code == .limitExceeded)
    }
}
