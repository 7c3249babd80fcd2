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

    static let bad: [(String, String, PFKeyPath)] = [
        (#"{"schemaVersion": 1, "types": {}, "extra": 1}"#, "unknown key \"extra\"", [.key("extra")]),
        (#"{"schemaVersion": 2, "types": {"Item": {"version": 1, "fields": []}}}"#, "schemaVersion is 2", [.key("schemaVersion")]),
        (wrap(#"{"version": 1, "fields": [{"name": "a", "type": "string", "defualt": 1}]}"#), "unknown key \"defualt\"",
         [.key("types"), .key("Item"), .key("fields"), .index(0), .key("defualt")]),
        (wrap(#"{"version": 1, "fields": [{"name": "a", "type": "strng"}]}"#), "unknown type \"strng\"",
         [.key("types"), .key("Item"), .key("fields"), .index(0), .key("type")]),
        (wrap(#"{"version": 1, "fields": [{"name": "a", "type": "int32", "default": "x"}]}"#), "default of Item.a is string, expected int32",
         [.key("types"), .key("Item"), .key("fields"), .index(0), .key("default")]),
        (wrap(#"{"version": 1, "fields": [{"name": "a", "type": "int32"}], "reserved": ["a"]}"#), "reuses a reserved",
         [.key("types"), .key("Item"), .key("fields"), .index(0)]),
        (wrap(#"{"version": 2, "fields": [], "migrations": [{"from": 1, "ops": [{"op": "renameFeild", "from": "a", "to": "b"}]}]}"#),
         "unknown op \"renameFeild\"", [.key("types"), .key("Item"), .key("migrations"), .index(0), .key("ops"), .index(0), .key("op")]),
        (wrap(#"{"version": 2, "fields": [], "migrations": [{"from": 1, "ops": [{"op": "changeType", "field": "a", "from": "double", "to": "int32"}]}]}"#),
         "changeType from double to int32 is not allowed", [.key("types"), .key("Item"), .key("migrations"), .index(0), .key("ops"), .index(0)]),
        (wrap(#"{"version": 2, "fields": [], "migrations": [{"from": 2, "ops": []}]}"#), "not below the current version",
         [.key("types"), .key("Item"), .key("migrations"), .index(0), .key("from")]),
        (wrap(#"{"version": 2, "fields": [], "migrations": [{"from": 1, "ops": [{"op": "transform", "field": "a", "using": "nope"}]}]}"#),
         "unknown field transform \"nope\"", [.key("types"), .key("Item"), .key("migrations"), .index(0), .key("ops"), .index(0), .key("using")]),
        (wrap(#"{"version": 1, "fields": [{"name": "d", "type": {"ref": "Nowhere"}}]}"#), "ref \"Nowhere\" names no type",
         [.key("types"), .key("Item"), .key("fields"), .index(0), .key("type")]),
        (wrap(#"{"version": 1, "fields": [{"name": "a", "type": "string"}, {"name": "b", "type": "string", "aliases": ["a"]}]}"#),
         "\"a\" is used twice", [.key("types"), .key("Item"), .key("fields"), .index(1)]),
    ]

    @Test(arguments: 0..<bad.count)
    func badSchemasFailWithTheirPath(index: Int) throws {
        let (text, message, path) = Self.bad[index]
        let error = try #require(throws: PFError.self) { try load(text) }
        #expect(error.format == .schema)
        #expect(error.message.hasPrefix("s.json: "))
        #expect(error.message.contains(message), "\(error.message)")
        #expect(error.path == path)
    }

    @Test func malformedJSONNamesTheFile() throws {
        let error = try #require(throws: PFError.self) { try load("{") }
        #expect(error.message.hasPrefix("s.json: "))
    }
}
