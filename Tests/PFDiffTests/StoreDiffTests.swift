import Foundation
import PFParse
import PFSQLiteStore
import PFStoreTestSupport
import PFStores
import PropertyBased
import Testing

@testable import PFDiff

/// Stores compared as sets of objects, join rows and schema fields.
@Suite struct StoreDiffTests {
    static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pfdiff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static func players(teamOf x7: String = "a1", score: Int64 = 10, extra: Bool = false, dropX7: Bool = false,
        rivals: [ParseJoinRow] = [.init(owningId: "x7Tq", relatedId: "k2")]) throws -> MemoryStore {
        var objects = [
            try ParseObject(className: "Team", objectId: "a1", fields: ["name": .string("reds")]),
            try ParseObject(className: "Team", objectId: "b2", fields: ["name": .string("blues")]),
            try ParseObject(className: "Player", objectId: "k2", fields: ["score": .int(3)]),
        ]
        if !dropX7 {
            objects.append(try ParseObject(className: "Player", objectId: "x7Tq", fields: [
                "score": .int(score), "team": .pointer(ParsePointer(className: "Team", objectId: x7)),
            ]))
        }
        if extra { objects.append(try ParseObject(className: "Player", objectId: "z9", fields: ["score": .int(1)])) }
        return MemoryStore(objects: objects, joinRows: [ParseRelationKey(owningClass: "Player", field: "rivals", targetClass: "Player"): rivals])
    }

    static func lines(_ a: any ObjectStoreReader, _ b: any ObjectStoreReader, _ configure: (inout StoreDiff.Options) -> Void = { _ in }) throws -> [String] {
        var options = StoreDiff.Options()
        configure(&options)
        return try StoreDiff.differences(a, b, options: options).map(\.description)
    }

    @Test func goldenLinesForStores() throws {
        #expect(try Self.lines(Self.players(), Self.players()).isEmpty)
        #expect(try Self.lines(Self.players(), Self.players(teamOf: "b2")) == ["Player/x7Tq.team: Pointer Team/a1 → Team/b2"])
        #expect(try Self.lines(Self.players(), Self.players(score: 11)) == ["Player/x7Tq.score: 10 → 11"])
        #expect(try Self.lines(Self.players(), Self.players(extra: true)) == ["+ Player/z9"])
        #expect(try Self.lines(Self.players(extra: true), Self.players()) == ["- Player/z9"])
        #expect(try Self.lines(Self.players(), Self.players(rivals: [])) == ["- _Join:rivals:Player (x7Tq, k2)"])
        #expect(try Self.lines(Self.players(rivals: []), Self.players()) == ["+ _Join:rivals:Player (x7Tq, k2)"])
        #expect(try Self.lines(Self.players(), Self.players(dropX7: true)) == [
            "- Player/x7Tq", "- schema Player.team: \"Pointer<Team>\"",
        ])
        #expect(try Self.lines(Self.players(), Self.players(dropX7: true)) { $0.compareSchemas = false } == ["- Player/x7Tq"])
    }

    /// A class one store has without objects (an empty table, a class an export declares in
    /// `_SCHEMA.json` only) and the other lacks is a difference of its own: nothing else showed
    /// it ("no differences" between a database with an empty table and a copy without it). The
    /// patch adds or removes it, in both directions; a class with objects or fields shows as
    /// those, not as a line of its own.
    @Test func aClassInOneStoreOnlyIsADifference() throws {
        let withLog = MemoryStore(objects: try Self.players().objects(in: "Team"), schema: ParseSchema(["Team": ["name": .init(.string)], "Log": [:]]))
        let without = MemoryStore(objects: try Self.players().objects(in: "Team"), schema: ParseSchema(["Team": ["name": .init(.string)]]))
        #expect(try Self.lines(without, withLog) == ["+ class Log"])
        #expect(try Self.lines(withLog, without) == ["- class Log"])
        #expect(try Self.lines(withLog, without) { $0.compareSchemas = false } == ["- class Log"])
        for (a, b) in [(withLog, without), (without, withLog)] {
            let patched = try StorePatch.apply(try StorePatchTests.patch(a, b), to: a)
            #expect(try Self.lines(patched, b).isEmpty)
            #expect(try patched.classNames().sorted() == b.classNames().sorted())
            // A patch made without the schemas removes the class as well (its `_SCHEMA` entry made it again).
            let blind = try StorePatch.apply(try StorePatchTests.patch(a, b) { $0.compareSchemas = false }, to: a)
            #expect(try blind.classNames().sorted() == b.classNames().sorted())
        }
        // Fields without objects show as fields; a whole class of objects as its objects.
        let declared = MemoryStore(schema: ParseSchema(["Log": ["line": .init(.string)]]))
        #expect(try Self.lines(MemoryStore(), declared) == ["+ schema Log.line: \"String\""])
        let lost = try Self.lines(Self.players(), without)
        #expect(lost == [
            "- Player/k2", "- Player/x7Tq", "- _Join:rivals:Player (x7Tq, k2)",
            "- schema Player.score: \"Number\"", "- schema Player.team: \"Pointer<Team>\"",
        ], "\(lost)")
    }

    /// A relation one store knows with its target class and the other without (an export
    /// without _SCHEMA.json names it by its join file only) is one relation: equal join rows
    /// are equal; only the schema says the target differs. (Each row was listed removed and
    /// added again.)
    @Test func aRelationWithAndWithoutItsTargetClassComparesItsRows() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func export(_ name: String, schema: Bool, rows: [String]) throws -> ParseExportStore {
            let url = dir.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try Data(#"{"results":[{"objectId":"k2","score":3},{"objectId":"x7Tq","score":10}]}"#.utf8).write(to: url.appendingPathComponent("Player.json"))
            try Data(("{\"results\":[" + rows.joined(separator: ",") + "]}").utf8).write(to: url.appendingPathComponent("_Join:rivals:Player.json"))
            if schema {
                let declared = #"{"results":[{"className":"Player","fields":{"score":{"type":"Number"},"rivals":{"type":"Relation","targetClass":"Player"}}}]}"#
                try Data(declared.utf8).write(to: url.appendingPathComponent("_SCHEMA.json"))
            }
            return ParseExportStore(url: url)
        }
        let both = [#"{"owningId":"x7Tq","relatedId":"k2"}"#, #"{"owningId":"k2","relatedId":"x7Tq"}"#]
        let untargeted = try export("untargeted", schema: false, rows: both)
        let targeted = try export("targeted", schema: true, rows: both)
        #expect(try untargeted.relations().map(\.targetClass) == [nil])
        #expect(try targeted.relations().map(\.targetClass) == ["Player"])
        #expect(try Self.lines(untargeted, targeted) { $0.compareSchemas = false }.isEmpty)
        let fewer = try export("fewer", schema: false, rows: [both[0]])
        #expect(try Self.lines(fewer, targeted) { $0.compareSchemas = false } == ["+ _Join:rivals:Player (k2, x7Tq)"])
    }

    @Test func spilledComparisonMatchesInMemory() throws {
        var objects: [ParseObject] = []
        var changed: [ParseObject] = []
        for i in 0..<500 {
            let o = try ParseObject(className: "Item", objectId: "id\(i)", fields: ["n": .int(Int64(i))])
            objects.append(o)
            if i % 50 == 0 { changed.append(try o.replacingFields(["n": .int(-1)])) } else if i != 7 { changed.append(o) }
        }
        changed.append(try ParseObject(className: "Item", objectId: "new", fields: ["n": .int(0)]))
        let a = MemoryStore(objects: objects), b = MemoryStore(objects: changed)
        let inMemory = try Self.lines(a, b)
        let spillRoot = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: spillRoot) }
        let spilled = try Self.lines(a, b) { $0.objectsInMemory = 16; $0.partitions = 8; $0.temporaryDirectory = spillRoot }
        #expect(inMemory.count == 12)
        #expect(Set(spilled) == Set(inMemory))
        #expect(inMemory.contains("- Item/id7") && inMemory.contains("+ Item/new") && inMemory.contains("Item/id50.n: 50 → -1"))
        // The spill files are gone afterwards.
        #expect(try FileManager.default.contentsOfDirectory(atPath: spillRoot.path).isEmpty)
    }

    /// Generated exports imported into SQLite show no difference; a change in the SQLite copy
    /// is reported.
    @Test func generatedExportsEqualTheirSQLiteImport() async throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        await propertyCheck(count: 25, input: StoreGen.store(.parseExport)) { generated in
            do {
                let run = dir.appendingPathComponent(UUID().uuidString)
                try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: run) }
                let export = ParseExportStore(url: run.appendingPathComponent("export"))
                _ = try StoreImporter().run(from: generated.memoryStore(), to: export)
                let sqlite = SQLiteStore(url: run.appendingPathComponent("s.sqlite"))
                _ = try StoreImporter().run(from: ParseExportStore(url: export.url), to: sqlite)
                let same = try Self.lines(ParseExportStore(url: export.url), SQLiteStore(url: sqlite.url)) { $0.compareSchemas = false }
                #expect(same.isEmpty, "\(same.prefix(5))\n\(generated)")
                // Change one field of one object in a second SQLite copy.
                guard let victim = generated.objects.first(where: { $0.objectId != nil }) else { return }
                var fields = victim.fields
                fields["pfdiffMarker"] = .string("changed")
                let edited = MemoryStore(objects: generated.objects.map { $0.objectId == victim.objectId && $0.className == victim.className ? (try? $0.replacingFields(fields)) ?? $0 : $0 },
                    joinRows: generated.joinRows, schema: generated.schema)
                let other = SQLiteStore(url: run.appendingPathComponent("t.sqlite"))
                _ = try StoreImporter().run(from: edited, to: other)
                let found = try Self.lines(ParseExportStore(url: export.url), SQLiteStore(url: other.url)) { $0.compareSchemas = false }
                #expect(found == ["+ \(victim.className)/\(victim.objectId ?? "").pfdiffMarker: \"changed\""], "\(generated)")
            } catch {
                Issue.record("\(error)\n\(generated)")
            }
        }
    }
}
