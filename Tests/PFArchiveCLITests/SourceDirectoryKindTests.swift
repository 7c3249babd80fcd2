import Foundation
import PFCore
import PFStores
import PFTestSupport
import Testing

/// A source directory is read as what its files are: mongoexport files (the Mongo shape)
/// whatever the directory's name, a Parse export of `<Class>.json` files, and a directory or
/// zip of other files is refused by name instead of importing nothing.
@Suite struct SourceDirectoryKindTests {
    func write(_ text: String, _ name: String, in dir: URL) throws {
        try Data(text.utf8).write(to: dir.appendingPathComponent(name))
    }

    @Test func theFirstKeyOfTheFirstDocumentTellsMongoexportFilesFromAnExport() throws {
        let dir = try SQLiteSource.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func kind(_ files: [String: String]) throws -> StoreKind {
            let sub = dir.appendingPathComponent(UUID().uuidString)
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
            for (name, text) in files { try write(text, name, in: sub) }
            return try StoreLocation.resolve(sub.path).kind
        }
        #expect(try kind(["Post.json": "{\"_id\":\"a\",\"title\":\"x\"}\n{\"_id\":\"b\"}\n"]) == .mongoShape)
        #expect(try kind(["Post.json": "\u{FEFF}\r\n  { \"_id\" : \"a\" }\n"]) == .mongoShape)
        // The class files decide, not the schema: an export may keep parse-server's `_SCHEMA`
        // documents (a real one did), and an empty class file says nothing.
        #expect(try kind(["_SCHEMA.json": "{\"_id\":\"Post\",\"objectId\":\"string\"}\n", "Post.json": "{\"results\":[]}"]) == .parseExport)
        #expect(try kind(["_SCHEMA.json": "{\"_id\":\"Post\",\"objectId\":\"string\"}\n", "Post.json": ""]) == .mongoShape)
        #expect(try kind(["_SCHEMA.json": "{\"_id\":\"Post\"}\n", "A.json": "", "Post.json": "{\"_id\":\"a\"}\n"]) == .mongoShape)
        #expect(try kind(["Post.json": "{\"results\":[{\"objectId\":\"a\"}]}"]) == .parseExport)
        // `mongoexport --jsonArray` (Parse forbids a field named `_id`, so no export starts so).
        #expect(try kind(["Post.json": "[{\"_id\":\"a\"}]"]) == .mongoShape)
        #expect(try kind(["Post.json": "[{\"objectId\":\"a\",\"_id\":\"b\"}]"]) == .parseExport)
        #expect(try kind(["Post.json": "{\"objectId\":\"a\",\"_id\":\"b\"}"]) == .parseExport)
        #expect(try kind(["_SCHEMA.json": "{\"results\":[]}", "Post.json": "{\"_id\":\"a\"}\n"]) == .mongoShape)
        #expect(try kind([:]) == .parseExport)
        #expect(try kind(["readme.txt": "{\"_id\":1}"]) == .parseExport)
    }

    /// The Mongo shape made from the real Parse.com export, copied to a directory named
    /// `dump`: it imports and diffs as the `.jsonl` directory does (it failed on line 2 of
    /// the first file, read as a Parse export).
    @Test func mongoexportFilesInAnyDirectoryReadAsTheMongoShape() throws {
        let dir = try SQLiteSource.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let export = Fixtures.real.appendingPathComponent("parse")
        let mongo = dir.appendingPathComponent("mongo.jsonl")
        let made = try CLI.run(["import", export.path, mongo.path])
        #expect(made.status == 0, "\(made.stderr)")
        let dump = dir.appendingPathComponent("dump")
        try FileManager.default.copyItem(at: mongo, to: dump)
        let before = try FileManager.default.contentsOfDirectory(atPath: dump.path).sorted()

        let inspected = try CLI.run(["inspect", dump.path])
        #expect(inspected.status == 0 && inspected.stdoutText.contains("Format:      Parse Server MongoDB shape"), "\(inspected.stdoutText)\(inspected.stderr)")
        let store = dir.appendingPathComponent("out.sqlite")
        let imported = try CLI.run(["import", dump.path, store.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        let diffed = try CLI.run(["diff", export.path, dump.path])
        #expect(diffed.status == 0 && diffed.stdoutText.hasPrefix("no differences"), "\(diffed.stdoutText)\(diffed.stderr)")
        let stored = try CLI.run(["diff", dump.path, store.path])
        #expect(stored.status == 0, "\(stored.stdoutText)\(stored.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dump.path).sorted() == before)
    }

    /// A dump's class-level permissions (parse-server's `_metadata.class_permissions`) go
    /// into a new Mongo-shape destination as they were; any other destination, which cannot
    /// hold them, gets a warning naming the classes they restricted (restored without them,
    /// the class would be open to everyone). Open-to-all permissions need no word.
    @Test func classLevelPermissionsAreCarriedOrTheirLossIsNamed() throws {
        let dir = try SQLiteSource.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let dump = dir.appendingPathComponent("dump")
        try FileManager.default.createDirectory(at: dump, withIntermediateDirectories: true)
        let closed = #"{"find":{"role:Narrator":true},"get":{"role:Narrator":true},"create":{"role:Narrator":true},"update":{},"delete":{},"addField":{}}"#
        let open = #"{"find":{"*":true},"get":{"*":true},"count":{"*":true},"create":{"*":true},"update":{"*":true},"delete":{"*":true},"addField":{"*":true},"protectedFields":{"*":[]}}"#
        let schema = [
            #"{"_id":"Secret","objectId":"string","note":"string","_metadata":{"class_permissions":"# + closed + "}}",
            #"{"_id":"Public","objectId":"string","n":"number","_metadata":{"class_permissions":"# + open + "}}",
        ]
        try Data((schema.joined(separator: "\n") + "\n").utf8).write(to: dump.appendingPathComponent("_SCHEMA.json"))
        try Data((#"{"_id":"s1","note":"x"}"# + "\n").utf8).write(to: dump.appendingPathComponent("Secret.json"))
        try Data((#"{"_id":"p1","n":1}"# + "\n").utf8).write(to: dump.appendingPathComponent("Public.json"))

        let mongo = dir.appendingPathComponent("copy.jsonl")
        let kept = try CLI.run(["import", dump.path, mongo.path])
        #expect(kept.status == 0 && !kept.stderr.contains("class-level"), "\(kept.stderr)")
        let written = try String(contentsOf: mongo.appendingPathComponent("_SCHEMA.json"), encoding: .utf8)
        let secretLine = try #require(written.split(separator: "\n").first { $0.contains(#""_id":"Secret""#) })
        #expect(secretLine.contains(#""class_permissions":{"find":{"role:Narrator":true}"#), "\(secretLine)")

        let export = dir.appendingPathComponent("export")
        let warned = try CLI.run(["import", dump.path, export.path])
        #expect(warned.status == 0, "\(warned.stderr)")
        let lines = warned.stderr.split(separator: "\n").filter { $0.contains("class-level permissions") }
        #expect(lines.count == 1 && lines[0].contains("of 1 class (Secret)") && lines[0].contains("opens a class without them to everyone"), "\(warned.stderr)")
    }

    /// A real parse-server seed dump names its join collection `_Join roles _Role.json` and
    /// holds collections no Parse class can be (`_dummy`): the join rows import, and every
    /// command that reads the dump says in a warning line what it does not read.
    @Test func aDumpsOddJoinSpellingImportsAndUnreadCollectionsAreNamed() throws {
        let dir = try SQLiteSource.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let dump = dir.appendingPathComponent("database_seed")
        try FileManager.default.createDirectory(at: dump, withIntermediateDirectories: true)
        let files = [
            "_Role.json": #"{"_id":"r1","name":"admin"}"# + "\n" + #"{"_id":"r2","name":"staff"}"# + "\n",
            "_Join roles _Role.json": #"{"_id":{"$oid":"5a1b2c3d4e5f60718293a4b5"},"relatedId":"r2","owningId":"r1"}"# + "\n",
            "_dummy.json": #"{"_id":"d1","x":1}"# + "\n",
            "_SCHEMA.json": #"{"_id":"_Role","objectId":"string","name":"string","roles":"relation<_Role>"}"# + "\n",
        ]
        for (name, text) in files { try Data(text.utf8).write(to: dump.appendingPathComponent(name)) }
        let out = dir.appendingPathComponent("out.sqlite")
        let imported = try CLI.run(["import", dump.path, out.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdoutText.contains("and 1 relation row"), "\(imported.stdoutText)")
        #expect(imported.stderr.contains("warning: \(dump.path): _dummy.json: a collection no Parse class can be"), "\(imported.stderr)")
        for command in [["inspect", dump.path], ["diff", dump.path, out.path], ["codegen", dump.path]] {
            let run = try CLI.run(command)
            #expect(run.status == 0, "\(command): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").filter { $0.contains("_dummy.json") }.count == 1, "\(command): \(run.stderr)")
        }
        let diffed = try CLI.run(["diff", dump.path, out.path])
        #expect(diffed.stdoutText.hasPrefix("no differences"), "\(diffed.stdoutText)")
    }

    /// A directory or zip of other files is not an export of no classes: import, inspect and
    /// diff refuse it in one line naming what it holds, and no destination appears. An empty
    /// directory stays an empty export.
    @Test func aDirectoryOrZipWithoutClassFilesIsRefusedByName() throws {
        let dir = try SQLiteSource.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let lines = dir.appendingPathComponent("lines")
        try FileManager.default.createDirectory(at: lines, withIntermediateDirectories: true)
        try write("{\"_id\":\"a\"}\n", "Post.jsonl", in: lines)
        try write("notes", "readme.txt", in: lines)
        try write("", ".DS_Store", in: lines)
        let zip = dir.appendingPathComponent("other.zip")
        let zipped = try Peers.python(
            "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n    z.writestr('data/items.csv', 'a,b\\n')\n    z.writestr('__MACOSX/._x.json', '')",
            [zip.path])
        #expect(zipped.status == 0, "\(zipped.stderr)")

        for (source, held) in [(lines, "(it holds Post.jsonl, readme.txt)"), (zip, "(it holds data/items.csv)")] {
            let out = dir.appendingPathComponent("out-\(source.lastPathComponent).sqlite")
            for arguments in [["import", source.path, out.path], ["inspect", source.path], ["diff", source.path, source.path]] {
                let run = try CLI.run(arguments)
                #expect(run.status == (arguments[0] == "diff" ? 2 : 1), "\(arguments): \(run.stdoutText)\(run.stderr)")
                #expect(run.stderr.contains("holds no <Class>.json file \(held); expected a Parse export"), "\(arguments): \(run.stderr)")
                #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }

        // An export unpacked into a folder of its own: that folder is named.
        let unpacked = dir.appendingPathComponent("download")
        try FileManager.default.createDirectory(at: unpacked.appendingPathComponent("MyApp"), withIntermediateDirectories: true)
        try write("{\"results\":[]}", "MyApp/Post.json", in: unpacked)
        let nested = try CLI.run(["import", unpacked.path, dir.appendingPathComponent("nested.sqlite").path])
        #expect(nested.status == 1 && nested.stderr.contains("(it holds MyApp/); the export is in \(unpacked.path)/MyApp: give that folder"),
                "\(nested.stderr)")

        let empty = dir.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let nothing = try CLI.run(["import", empty.path, dir.appendingPathComponent("empty.sqlite").path])
        #expect(nothing.status == 0 && (nothing.stdoutText + nothing.stderr).contains("imported 0 objects"), "\(nothing.stderr)")
    }

    /// A directory named like a file store is refused with one message by every command that
    /// reads stores (it was "no such file", or Foundation's "error 256" for `.realm` and `.ndjson`).
    @Test func aDirectoryNamedLikeAFileStoreIsNamedAsADirectory() throws {
        let dir = try SQLiteSource.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cases = [("realm", "a Realm file"), ("sqlite", "an SQLite file"), ("db", "an SQLite file"), ("archive", "a keyed-archive file"),
                     ("ndjson", "a JSON Lines file"), ("storedata", "a Core Data store file")]
        for (ext, expected) in cases {
            let source = dir.appendingPathComponent("store.\(ext)")
            try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
            let out = dir.appendingPathComponent("out-\(ext).sqlite")
            for arguments in [["import", source.path, out.path], ["codegen", source.path], ["diff", source.path, source.path]] {
                let run = try CLI.run(arguments)
                #expect(run.status == (arguments[0] == "diff" ? 2 : 1), "\(arguments): \(run.stderr)")
                #expect(run.stderr.contains("store.\(ext): store: is a directory, expected \(expected)\n"), "\(arguments): \(run.stderr)")
                #expect(run.stderr.split(separator: "\n").count == 1 && !run.stderr.contains("NSCocoaErrorDomain"),
                        "\(arguments): \(run.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
    }

    /// A JSON Lines store refuses a repeated key with the format's words, not an option of
    /// the library the user cannot set.
    @Test func aRepeatedKeyInAJSONLinesSourceSaysSoPlainly() throws {
        let dir = try SQLiteSource.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("objects.ndjson")
        try write("{\"className\":\"Post\",\"objectId\":\"a\",\"n\":{\"x\":1,\"x\":2}}\n", "objects.ndjson", in: dir)
        let run = try CLI.run(["import", source.path, dir.appendingPathComponent("out.sqlite").path])
        #expect(run.status == 1)
        #expect(run.stderr.contains("duplicate key in an object (2 members, 1 distinct key); expected each key once"), "\(run.stderr)")
        #expect(!run.stderr.contains("rejectDuplicateKeys"))
    }
}
