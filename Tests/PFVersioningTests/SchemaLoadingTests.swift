import Foundation
import PFCore
import PFVersioning
import Testing

/// Schema files load strictly: every mistake is an error naming the file and key path.
@Suite struct SchemaLoadingTests {
    func load(_ text: String) throws(PFError) -> ArchiveSchema {
        try ArchiveSchema.load(Data(text.utf8), path: "s.json")
    }

    static func wrap(_ type: String) -> String {
        #"{"schemaVersion": 1, "types": {"Item": \#(type)}}"#
    }

    @Test func theSampleSchemaLoads() throws {
        let schema = try Golden.schema()
        #expect(schema.types.keys.elements == ["Employee", "Department"])
        #expect(schema.types["Employee"]?.version == 3)
        #expect(schema.types["Employee"]?.migrations.count == 2)
        #expect(schema.type(forClassName: "Staff")?.name == "Employee")
        #expect(schema.types["Employee"]?.classicLayouts[1]?.count == 5)
    }

    static let bad: [(String, VersioningFailure.SchemaProblem, PFKeyPath)] = [
        (#"{"schemaVersion": 1, "types": {}, "extra": 1}"#, .unknownKey("extra", in: "the schema", allowed: ["policies", "schemaVersion", "types"]), [.key("extra")]),
        (#"{"schemaVersion": 2, "types": {"Item": {"version": 1, "fields": []}}}"#, .schemaVersion(found: "2", expected: 1), [.key("schemaVersion")]),
        (wrap(#"{"version": 1, "fields": [{"name": "a", "type": "string", "defualt": 1}]}"#), .unknownKey("defualt", in: "a field", allowed: ["aliases", "default", "name", "optional", "type", "unknownDefault"]),
         [.key("types"), .key("Item"), .key("fields"), .index(0), .key("defualt")]),
        (wrap(#"{"version": 1, "fields": [{"name": "a", "type": "strng"}]}"#), .unknownType("strng", known: ["any", "bool", "data", "date", "double", "int32", "int64", "string"]),
         [.key("types"), .key("Item"), .key("fields"), .index(0), .key("type")]),
        (wrap(#"{"version": 1, "fields": [{"name": "a", "type": "int32", "default": "x"}]}"#), .badDefault(type: "Item", field: "a", .wrongKind(found: "string", expected: "int32")),
         [.key("types"), .key("Item"), .key("fields"), .index(0), .key("default")]),
        (wrap(#"{"version": 1, "fields": [{"name": "a", "type": "int32"}], "reserved": ["a"]}"#), .reservedName(type: "Item", field: "a"),
         [.key("types"), .key("Item"), .key("fields"), .index(0)]),
        (wrap(#"{"version": 2, "fields": [], "migrations": [{"from": 1, "ops": [{"op": "renameFeild", "from": "a", "to": "b"}]}]}"#),
         .unknownOp("renameFeild"), [.key("types"), .key("Item"), .key("migrations"), .index(0), .key("ops"), .index(0), .key("op")]),
        (wrap(#"{"version": 2, "fields": [], "migrations": [{"from": 1, "ops": [{"op": "changeType", "field": "a", "from": "double", "to": "int32"}]}]}"#),
         .changeTypeNotAllowed(from: "double", to: "int32"), [.key("types"), .key("Item"), .key("migrations"), .index(0), .key("ops"), .index(0)]),
        (wrap(#"{"version": 2, "fields": [], "migrations": [{"from": 2, "ops": []}]}"#), .stepNotBelowVersion(from: 2, version: 2),
         [.key("types"), .key("Item"), .key("migrations"), .index(0), .key("from")]),
        (wrap(#"{"version": 2, "fields": [], "migrations": [{"from": 1, "ops": [{"op": "transform", "field": "a", "using": "nope"}]}]}"#),
         .unknownFieldTransform("nope", registered: TransformRegistry.standard.fieldTransformNames), [.key("types"), .key("Item"), .key("migrations"), .index(0), .key("ops"), .index(0), .key("using")]),
        (wrap(#"{"version": 1, "fields": [{"name": "d", "type": {"ref": "Nowhere"}}]}"#), .unknownReference("Nowhere"),
         [.key("types"), .key("Item"), .key("fields"), .index(0), .key("type")]),
        (wrap(#"{"version": 1, "fields": [{"name": "a", "type": "string"}, {"name": "b", "type": "string", "aliases": ["a"]}]}"#),
         .fieldNameTwice("a", type: "Item"), [.key("types"), .key("Item"), .key("fields"), .index(1)]),
    ]

    @Test(arguments: 0..<bad.count)
    func badSchemasFailWithTheirPath(index: Int) throws {
        let (text, problem, path) = Self.bad[index]
        let error = try #require(throws: PFError.self) { try load(text) }
        #expect(error.format == .schema)
        #expect(error.failure(as: VersioningFailure.self) == .schema(file: "s.json", problem), "\(error.message)")
        #expect(error.path == path)
    }

    @Test func malformedJSONNamesTheFile() throws {
        let error = try #require(throws: PFError.self) { try load("{") }
        #expect(error.message.hasPrefix("s.json: "))
    }
}
