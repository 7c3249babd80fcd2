import Foundation
import PFCore
import PFJSON
import PFRealm
import PFStores
import PFTestSupport
import Testing

/// `pfarchive convert`, `inspect` and `import` on Realm files.
@Suite("Realm CLI") struct RealmCLITests {
    @Test(arguments: RealmFixtures.readable)
    func convertWritesTheDocument(_ name: String) throws {
        let url = RealmFixtures.url(name)
        let before = try Data(contentsOf: url)
        let dir = try RealmStoreTests.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.json")
        let result = try CLI.run(["convert", url.path, out.path, "--internal-tables"])
        #expect(result.status == 0, "\(result.stderr)")
        let written = try JSONReader().read(try Data(contentsOf: out))
        let db = try RealmDatabase(url: url)
        #expect(written == (try JSONReader().read(try JSONWriter().write(try db.document(includeInternal: true)))))
        #expect(try Data(contentsOf: url) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path).filter { $0.hasPrefix(name + ".realm.") }
            == [name + ".realm.expected.json"], "nothing appears beside the source")
    }

    /// `--table` names a Realm file's class: its objects as JSON lines, whatever the output's
    /// extension; an unknown class lists the classes; a file that is neither an SQLite
    /// database nor a Realm file refuses the option.
    @Test func convertTableWritesOneClassAsJSONLines() throws {
        let url = RealmFixtures.url("js-simple")
        let dir = try RealmStoreTests.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let document = try RealmDatabase(url: url).document()
        let people = try #require(document["Person"]?.arrayValue)
        for name in ["people.jsonl", "people.json"] {
            let out = dir.appendingPathComponent(name)
            let run = try CLI.run(["convert", url.path, out.path, "--table", "Person"])
            #expect(run.status == 0, "\(run.stderr)")
            let lines = String(decoding: try Data(contentsOf: out), as: UTF8.self).split(separator: "\n")
            #expect(try lines.map { try JSONReader().read(Data($0.utf8)) } == people, "\(name)")
        }
        let unknown = try CLI.run(["convert", url.path, "-", "--table", "Nobody"])
        #expect(unknown.status == 1 && unknown.stderr.contains("no class Nobody; classes: Person"), "\(unknown.stderr)")
        let json = dir.appendingPathComponent("in.json")
        try Data("[1]".utf8).write(to: json)
        let neither = try CLI.run(["convert", json.path, "-", "--table", "Person"])
        #expect(neither.status == 2 && neither.stderr.contains("--table applies to an SQLite database or a Realm file"), "\(neither.stderr)")
    }

    @Test func inspectShowsVersionSchemaAndCounts() throws {
        let result = try CLI.run(["inspect", RealmFixtures.url("swift-template-default-v5").path])
        #expect(result.status == 0, "\(result.stderr)")
        let text = result.stdoutText
        #expect(text.contains("Realm file format 20 (normal)"))
        #expect(text.contains("Class Address (embedded) — 1 object\n"))
        #expect(text.contains("Class Person — 3 objects"))
        #expect(text.contains("  pets: list<Pet> (required)"))
        #expect(text.contains("  address: Address? (optional)"))
        let simple = try CLI.run(["inspect", RealmFixtures.url("js-simple").path, "--json"])
        #expect(simple.status == 0, "\(simple.stderr)")
        let report = try JSONReader().read(simple.stdout)
        #expect(report["format"] == "realm")
        #expect(report["formatVersion"] == 23)
        #expect(report["classes"]?["Person"]?["primaryKey"] == "name")
        #expect(report["classes"]?["Person"]?["objects"] == 3)
        #expect(report["classes"]?["Person"]?["properties"]?["bestFriend"]?["target"] == "Person")
        #expect(report["classes"]?["metadata"] == nil, "internal tables are hidden unless asked for")
        #expect(report["internalTables"]?["metadata"] == 1)
        let asked = try CLI.run(["inspect", RealmFixtures.url("js-simple").path, "--internal-tables"])
        #expect(asked.status == 0, "\(asked.stderr)")
        #expect(asked.stdoutText.contains("Internal table metadata — 1 object\n"))
        // Listed once: not again in the line that says how to show them.
        #expect(!asked.stdoutText.contains("--internal-tables shows them"), "\(asked.stdoutText)")
        #expect(text.contains("--internal-tables shows them"))
        #expect(asked.stdoutText.contains("  version: int (required)"), "\(asked.stdoutText)")
        #expect(!text.contains("Internal table metadata"))
    }

    @Test func refusedFilesFailWithOneLine() throws {
        let dir = try RealmStoreTests.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let truncated = dir.appendingPathComponent("cut.realm")
        try Data(try Data(contentsOf: RealmFixtures.url("core-upgrade_4_23")).prefix(9000)).write(to: truncated)
        let cases: [(URL, String)] = [
            (RealmFixtures.url("old-format-10"), "file format version 10 is not supported; supported versions: 20, 22, 23 and 24"),
            (RealmFixtures.url("java-ios-alltypes-default-encrypted"), "encrypted"),
            (truncated, "footer"),
        ]
        for (url, message) in cases {
            let out = dir.appendingPathComponent("out.json")
            for arguments in [["convert", url.path, out.path], ["inspect", url.path]] {
                let result = try CLI.run(arguments)
                #expect(result.status == 1, "\(arguments)")
                #expect(result.stderr.contains(message), "\(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
    }

    @Test func importReadsARealmFileAndRefusesToWriteOne() throws {
        let dir = try RealmStoreTests.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let export = dir.appendingPathComponent("export")
        let result = try CLI.run(["import", RealmFixtures.url("js-tools-default").path, export.path])
        #expect(result.status == 0, "\(result.stderr)")
        let store = ParseExportStore(url: export)
        #expect(try store.objects(in: "Parent").count == 5)
        #expect(try store.objects(in: "Child").count == 6)
        let refused = try CLI.run(["import", export.path, dir.appendingPathComponent("new.realm").path])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("Realm files are read-only"), "\(refused.stderr)")
    }

    /// A Realm file whose name says nothing (an iOS backup names its files by a hash) is told
    /// from its header by every command, as SQLite files are: `import` read it as a Parse
    /// export ("not a readable zip archive"), `diff` as a file against a store.
    @Test func aRealmFileOfAnyNameIsReadAsOneByImportAndDiff() throws {
        let dir = try RealmStoreTests.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let nameless = dir.appendingPathComponent("3d0d7e5fb2ce288813306e4d4636395e047a3d28")
        try FileManager.default.copyItem(at: RealmFixtures.url("js-tools-default"), to: nameless)
        #expect(try StoreLocation.resolve(nameless.path).kind == .realm)
        #expect(StoreLocation.kindFromBytes(of: nameless) == .realm)
        #expect(StoreLocation.kindFromBytes(of: dir) == nil, "a directory is not told from bytes")
        let store = dir.appendingPathComponent("copy.sqlite")
        let imported = try CLI.run(["import", nameless.path, store.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        let same = try CLI.run(["diff", nameless.path, store.path])
        #expect(same.status == 0, "\(same.stdoutText) \(same.stderr)")
        #expect(same.stdoutText.contains("no differences (11 and 11 objects)"), "\(same.stdoutText)")
        let againstTheFixture = try CLI.run(["diff", RealmFixtures.url("js-tools-default").path, nameless.path])
        #expect(againstTheFixture.status == 0, "\(againstTheFixture.stdoutText) \(againstTheFixture.stderr)")
        // Bytes that are neither stay what they were: a file of another kind.
        let text = dir.appendingPathComponent("notes")
        try Data("{\"a\": 1}".utf8).write(to: text)
        #expect(StoreLocation.kindFromBytes(of: text) == nil)
        #expect(try StoreLocation.resolve(text.path).kind == .parseExport)
        let mixed = try CLI.run(["diff", text.path, nameless.path])
        #expect(mixed.status == 2)
        #expect(mixed.stderr.contains("cannot compare a store (\(nameless.path)) with a file"), "\(mixed.stderr)")
        #expect(mixed.stderr.contains("give --stores to read the file as a store"), "\(mixed.stderr)")
        // `T-DB` at byte 16 of a JSON text is not a Realm file: a Parse class file still imports.
        let game = dir.appendingPathComponent("Game.json")
        try Data(#"[{"objectId":"XYT-DB1","v":1}]"#.utf8).write(to: game)
        #expect(RealmFile.hasRealmHeader(try Data(contentsOf: game)))
        #expect(!RealmFile.looksLikeRealmFile(try Data(contentsOf: game)))
        #expect(StoreLocation.kindFromBytes(of: game) == nil)
        let gameImport = try CLI.run(["import", game.path, dir.appendingPathComponent("game.ndjson").path])
        #expect(gameImport.status == 0, "\(gameImport.stderr)")
        #expect(try CLI.run(["diff", game.path, game.path]).status == 0)
        #expect(try CLI.run(["convert", game.path, "-"]).stdoutText.contains("XYT-DB1"))
        // A file side that does not exist is missing (it was "a store against a file").
        let gone = dir.appendingPathComponent("gone")
        let missing = try CLI.run(["diff", nameless.path, gone.path])
        #expect(missing.status == 2)
        #expect(missing.stderr == "pfarchive: \(gone.path): no such file\n", "\(missing.stderr)")
    }
}
