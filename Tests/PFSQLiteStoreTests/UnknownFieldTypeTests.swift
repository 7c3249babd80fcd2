import Foundation
import PFCore
import PFParse
import PFStores
import PFSQLiteStore
import Testing

/// A schema field of a type Parse did not define when pfarchive was written (a newer Parse
/// Server's) is kept as `ParseFieldType.unknown` with its name as read, and written back
/// unchanged by the SQLite store (`_SCHEMA.type`) and the Mongo store (`_SCHEMA.json`), each
/// way between them, with the field's values (issue 22).
@Suite struct UnknownFieldTypeTests {
    static let vector = ParseFieldType(rawValue: "Vector")

    static func source() throws -> MemoryStore {
        var schema = ParseSchema()
        schema.classes["Sensor"] = ["name": .init(.string), "reading": .init(vector)]
        let reading = try ParseValue(rest: ["__type": "Vector", "values": [1.5, -2, 3]])
        let objects = try [
            ParseObject(className: "Sensor", objectId: "s1", fields: ["name": .string("north"), "reading": reading]),
            ParseObject(className: "Sensor", objectId: "s2", fields: ["name": .string("south")]),
        ]
        return MemoryStore(objects: objects, schema: schema)
    }

    static func expectSameObjects(_ a: any ObjectStoreReader, _ b: any ObjectStoreReader, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let left = try a.objects(in: "Sensor").sorted { ($0.objectId ?? "") < ($1.objectId ?? "") }
        let right = try b.objects(in: "Sensor").sorted { ($0.objectId ?? "") < ($1.objectId ?? "") }
        #expect(left.map(\.fields) == right.map(\.fields), sourceLocation: sourceLocation)
    }

    /// The `Sensor` line of a Mongo store's `_SCHEMA.json`.
    static func mongoSchemaLine(_ dump: URL) throws -> String {
        let text = try String(contentsOf: dump.appendingPathComponent("_SCHEMA.json"), encoding: .utf8)
        return text.split(separator: "\n").map(String.init).first { $0.contains("\"Sensor\"") } ?? ""
    }

    @Test func theEnumKeepsAnUnknownName() {
        #expect(Self.vector == .unknown("Vector"))
        #expect(Self.vector.rawValue == "Vector" && !Self.vector.isKnown)
        #expect(ParseFieldType(rawValue: "vector") != Self.vector, "names are case-sensitive")
    }

    @Test func anUnknownTypeSurvivesSQLiteAndMongoEachWay() throws {
        let dir = try SQLiteSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try Self.source()

        // Memory → SQLite: `_SCHEMA.type` holds the name as given.
        let first = try SQLiteSamples.copy(source, to: dir.appendingPathComponent("a.sqlite"))
        defer { first.close() }
        #expect(try SQLiteSamples.sqlite3(dir.appendingPathComponent("a.sqlite"), "SELECT type FROM _SCHEMA WHERE field = 'reading'") == "Vector\n")
        #expect(try first.schema().classes["Sensor"]?["reading"] == ParseSchema.Field(Self.vector))
        try Self.expectSameObjects(source, first)

        // SQLite → Mongo: `_SCHEMA.json` spells it as read, and the Mongo store reads it back.
        let dump = dir.appendingPathComponent("dump.jsonl")
        _ = try StoreImporter().run(from: first, to: MongoShapeStore(directory: dump))
        let mongoLine = try Self.mongoSchemaLine(dump)
        #expect(mongoLine.contains("\"reading\":\"Vector\""), "\(mongoLine)")
        let mongo = MongoShapeStore(directory: dump)
        #expect(try mongo.schema().classes["Sensor"]?["reading"] == ParseSchema.Field(Self.vector))
        try Self.expectSameObjects(source, mongo)

        // Mongo → Mongo: the `_SCHEMA` document is written back byte for byte.
        let dump2 = dir.appendingPathComponent("dump2.jsonl")
        _ = try StoreImporter().run(from: mongo, to: MongoShapeStore(directory: dump2))
        #expect(try Self.mongoSchemaLine(dump2) == mongoLine)

        // Mongo → SQLite: the same `_SCHEMA` row as the first store's.
        let second = try SQLiteSamples.copy(mongo, to: dir.appendingPathComponent("b.sqlite"))
        defer { second.close() }
        #expect(try SQLiteSamples.sqlite3(dir.appendingPathComponent("b.sqlite"), "SELECT type FROM _SCHEMA WHERE field = 'reading'") == "Vector\n")
        #expect(try second.schema() == first.schema())
        try Self.expectSameObjects(source, second)
    }

    /// parse-server spells its types in lower case in MongoDB: a newer one's `_SCHEMA`
    /// document with a type this pfarchive does not know is read and written back unchanged.
    @Test func aNewerParseServersMongoSchemaIsKept() throws {
        let dir = try SQLiteSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let dump = dir.appendingPathComponent("dump.jsonl")
        try FileManager.default.createDirectory(at: dump, withIntermediateDirectories: true)
        let schemaLine = #"{"_id":"Sensor","objectId":"string","updatedAt":"date","createdAt":"date","name":"string","reading":"vector","_rperm":"array","_wperm":"array"}"#
        try Data((schemaLine + "\n").utf8).write(to: dump.appendingPathComponent("_SCHEMA.json"))
        try Data(#"{"_id":"s1","name":"north","reading":{"__type":"Vector","values":[1.5]}}"#.utf8 + [0x0A]).write(to: dump.appendingPathComponent("Sensor.json"))
        let mongo = MongoShapeStore(directory: dump)
        #expect(try mongo.schema().classes["Sensor"]?["reading"] == ParseSchema.Field(.unknown("vector")))

        let dump2 = dir.appendingPathComponent("dump2.jsonl")
        _ = try StoreImporter().run(from: mongo, to: MongoShapeStore(directory: dump2))
        #expect(try Self.mongoSchemaLine(dump2) == schemaLine)
        try Self.expectSameObjects(mongo, MongoShapeStore(directory: dump2))
    }
}
