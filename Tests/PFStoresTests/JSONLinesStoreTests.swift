import Foundation
import PFCore
import PFParse
import PFStores
import Testing

/// One JSON Lines file of Parse objects: resolution against the Mongo shape's `.jsonl`
/// directories, upserts, refusal of a file it did not write, and errors naming the line.
@Suite struct JSONLinesStoreTests {
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pfarchive-lines-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func object(_ id: String, _ score: Int64) throws -> ParseObject {
        try ParseObject(rest: ["objectId": .string(id), "score": .int(score)], className: "GameScore")
    }

    @Test func aFileIsJSONLinesAndADirectoryIsTheMongoShape() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try StoreLocation.resolve(dir.appendingPathComponent("new.ndjson").path).kind == .jsonLines)
        #expect(try StoreLocation.resolve(dir.appendingPathComponent("new.jsonl").path).kind == .mongoShape)
        let file = dir.appendingPathComponent("rows.jsonl")
        try Data().write(to: file)
        #expect(try StoreLocation.resolve(file.path).kind == .jsonLines)
        let folder = dir.appendingPathComponent("dump.jsonl")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        #expect(try StoreLocation.resolve(folder.path).kind == .mongoShape)
    }

    @Test func writesReplaceObjectsByIdAndKeepTheRest() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("scores.ndjson")
        let store = JSONLinesStore(url: url)
        var schema = ParseSchema()
        schema.classes["GameScore"] = ["score": ParseSchema.Field(.number)]
        schema.classes["Empty"] = [:]
        try store.begin(schema: schema)
        try store.write([try Self.object("a", 1), try Self.object("b", 2), try Self.object("a", 3)], className: "GameScore")
        try store.commit()
        #expect(try store.classNames() == ["GameScore", "Empty"])
        #expect(try store.objects(in: "GameScore").map { $0.objectId ?? "" } == ["b", "a"])
        #expect(try store.objects(in: "GameScore").last?.fields["score"] == .int(3))
        try store.begin(schema: ParseSchema())
        try store.write([try Self.object("b", 20), try Self.object("c", 30)], className: "GameScore")
        try store.commit()
        let reread = JSONLinesStore(url: url)
        #expect(try reread.objects(in: "GameScore").map { "\($0.objectId ?? ""):\($0.fields["score"].map { "\($0)" } ?? "")" }.count == 3)
        #expect(try reread.objects(in: "GameScore").map { $0.objectId ?? "" } == ["a", "b", "c"])
        #expect(try reread.schema().classes["Empty"] != nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["scores.ndjson"])
    }

    /// A commit whose new lines repeat no objectId, into a file without join rows, copies the
    /// lines as written; one that repeats an objectId, or adds join rows the file already has,
    /// reads them and keeps the last of each object and one of each join row. Both give the
    /// file a line-by-line reading gives.
    @Test func newLinesAreCopiedWhenNothingRepeatsAndFilteredWhenSomethingDoes() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("scores.ndjson")
        let relation = ParseRelationKey(owningClass: "GameScore", field: "fans", targetClass: "_User")
        let store = JSONLinesStore(url: url)
        try store.begin(schema: ParseSchema())
        try store.write([try Self.object("a", 1), try Self.object("b", 2)], className: "GameScore")
        try store.write([ParseJoinRow(owningId: "a", relatedId: "u1")], relation: relation)
        try store.commit()
        let lines = { () throws -> [String] in
            try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
        }
        #expect(try lines().filter { !$0.contains("_SCHEMA") } == [
            #"{"className":"GameScore","objectId":"a","score":1}"#,
            #"{"className":"GameScore","objectId":"b","score":2}"#,
            #"{"className":"_Join:fans:GameScore","owningId":"a","relatedId":"u1"}"#,
        ])
        #expect(try String(contentsOf: url, encoding: .utf8).hasSuffix("\n"))
        // The file now has a join row: the same row again is not written twice.
        try store.begin(schema: ParseSchema())
        try store.write([try Self.object("c", 3)], className: "GameScore")
        try store.write([ParseJoinRow(owningId: "a", relatedId: "u1"), ParseJoinRow(owningId: "b", relatedId: "u1")], relation: relation)
        try store.commit()
        #expect(try lines().filter { !$0.contains("_SCHEMA") } == [
            #"{"className":"GameScore","objectId":"a","score":1}"#,
            #"{"className":"GameScore","objectId":"b","score":2}"#,
            #"{"className":"_Join:fans:GameScore","owningId":"a","relatedId":"u1"}"#,
            #"{"className":"GameScore","objectId":"c","score":3}"#,
            #"{"className":"_Join:fans:GameScore","owningId":"b","relatedId":"u1"}"#,
        ])
        // An objectId written twice in one commit: only the last stays.
        try store.begin(schema: ParseSchema())
        try store.write([try Self.object("d", 4), try Self.object("d", 5)], className: "GameScore")
        try store.commit()
        #expect(try lines().filter { $0.contains(#""objectId":"d""#) } == [#"{"className":"GameScore","objectId":"d","score":5}"#])
        #expect(try JSONLinesStore(url: url).objects(in: "GameScore").map { $0.objectId ?? "" } == ["a", "b", "c", "d"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["scores.ndjson"])
    }

    /// A line the reader would refuse (here a string beyond `maxStringBytes`) is never copied
    /// unread: the commit reads the new lines back, refuses, and leaves the file as it was, as
    /// before the copy existed (a 200 MiB blob's base64 made a file nothing could read).
    @Test func aLineBeyondTheReadersLimitsIsNotCopiedUnread() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("long.ndjson")
        var limits = PFLimits()
        limits.maxStringBytes = 64
        #expect(JSONLinesStore.unreadLineBytes(limits) == 64)
        let store = JSONLinesStore(url: url, limits: limits)
        try store.begin(schema: ParseSchema())
        try store.write([try Self.object("a", 1)], className: "GameScore")
        try store.commit()
        let before = try Data(contentsOf: url)
        try store.begin(schema: ParseSchema())
        let long = try ParseObject(rest: ["objectId": "b", "name": .string(String(repeating: "x", count: 100))], className: "GameScore")
        try store.write([long], className: "GameScore")
        #expect(throws: PFError.self) { try store.commit() }
        #expect(try Data(contentsOf: url) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["long.ndjson"])
    }

    /// Each line names its class in `className`: that frames the line, and an object read back
    /// and written to an export has no `className` member (every row of a round trip through a
    /// JSON Lines file gained one).
    @Test func theClassNameFramingIsNotWrittenBackAsAField() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("scores.ndjson")
        let store = JSONLinesStore(url: url)
        try store.begin(schema: ParseSchema())
        try store.write([try Self.object("a", 1)], className: "GameScore")
        try store.commit()
        let read = try #require(try JSONLinesStore(url: url).objects(in: "GameScore").first)
        #expect(read.className == "GameScore")
        #expect(read.restValue.dictionaryValue?["className"] == nil, "\(read.restValue)")
        #expect(read.restValue.dictionaryValue?.keys.contains("score") == true)
    }

    /// Lines as Python's `json.dumps` writes them (a space after each `:` and `,`): the schema
    /// line is read as the schema, not as an object of a class `_SCHEMA`.
    @Test func aSchemaLineWithSpacesIsTheSchema() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("python.ndjson")
        try Data(
            """
            {"className": "_SCHEMA", "schema": {"className": "GameScore", "fields": {"score": {"type": "Number"}, "player": {"type": "String"}}}}
            { "className" : "_SCHEMA" , "schema": {"className": "Team", "fields": {"name": {"type": "String"}}}}
            {"className": "GameScore", "objectId": "a", "score": 1}
            {"className": "Team", "objectId": "t", "name": "x"}

            """.utf8
        ).write(to: url)
        let store = JSONLinesStore(url: url)
        #expect(try store.classNames() == ["GameScore", "Team"])
        let declared = try #require(try store.declaredSchema())
        #expect(declared.classes["GameScore"]?["score"]?.type == .number)
        #expect(declared.classes["GameScore"]?["player"]?.type == .string)
        #expect(declared.classes["Team"]?["name"]?.type == .string)
        #expect(try store.objects(in: "GameScore").map(\.objectId) == ["a"])
    }

    @Test func aFileItDidNotWriteIsRefusedAndLeftAlone() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("notes.ndjson")
        let text = Data("{\"note\":\"no className here\"}\n".utf8)
        try text.write(to: url)
        let store = JSONLinesStore(url: url)
        #expect(throws: PFError.self) { try store.begin(schema: ParseSchema()) }
        #expect(try Data(contentsOf: url) == text)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["notes.ndjson"])
    }

    @Test func aBadLineIsNamedByItsNumber() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("rows.ndjson")
        try Data("{\"className\":\"A\",\"objectId\":\"x\"}\n{\"className\":\"A\",\"objectId\":\"y\"}\n{\"className\":\"A\",\"objectId\":}\n".utf8).write(to: url)
        do {
            _ = try JSONLinesStore(url: url).classNames()
            Issue.record("a bad third line was accepted")
        } catch {
            #expect(error.location?.line == 3 && error.message.contains("line 3"), "\(error)")
        }
    }
}
