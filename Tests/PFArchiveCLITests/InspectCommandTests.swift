import Foundation
import PFCBOR
import PFCompression
import PFCore
import PFJSON
import PFTestSupport
import Testing

@Suite struct InspectCommandTests {
    let sample = Fixtures.repoRoot.appendingPathComponent("Samples/data/scores.json").path

    @Test func showsFormatSizeAndTree() throws {
        let result = try CLI.run(["inspect", sample])
        #expect(result.status == 0, "\(result.stderr)")
        let text = result.stdoutText
        #expect(text.contains("Format:      json (JSON)"))
        #expect(text.contains("Compression: none"))
        #expect(text.contains(#""playerName" => "Sean Plott""#))
        #expect(text.contains("2011-08-21T18:02:52.249Z"), "typed dates show as dates")
    }

    @Test func pathSelectsASubValueAndMissingPathFails() throws {
        let result = try CLI.run(["inspect", sample, "--path", "results[1].score"])
        #expect(result.status == 0)
        #expect(result.stdoutText.hasSuffix("Value:\n73453\n"))
        let missing = try CLI.run(["inspect", sample, "--path", "results[7]"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("results[7]"))
    }

    /// `--path` on an input shown by its classes and tables (it was ignored, the whole report
    /// printed with exit 0) is refused in one line that says how to reach a value inside.
    @Test func pathOnADatabaseOrStoreIsRefusedNotIgnored() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pf-inspect-path-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("plain.db")
        let made = try Peers.run("/usr/bin/env", ["sqlite3", database.path, "CREATE TABLE t(a); INSERT INTO t VALUES (1);"])
        #expect(made.status == 0, "\(made.stderr)")
        let real = Fixtures.repoRoot.appendingPathComponent("Tests/Fixtures/real")
        let inputs: [(String, String)] = [
            (database.path, "an SQLite database"),
            (real.appendingPathComponent("coredata/plaso/kik.sqlite").path, "a Core Data store"),
            (real.appendingPathComponent("parse").path, "a store of classes"),
            (real.appendingPathComponent("realm/js-simple.realm").path, "a Realm file"),
        ]
        for (input, kind) in inputs {
            let result = try CLI.run(["inspect", input, "--path", "results[0]"])
            #expect(result.status == 1, "\(input): \(result.stdoutText)")
            #expect(result.stdoutText.isEmpty)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines.first?.contains("this is \(kind)") == true, "\(result.stderr)")
            #expect(result.stderr.contains("pfarchive convert \(input) out.json"), "\(result.stderr)")
        }
    }

    @Test func jsonReportIsMachineReadable() throws {
        let input = try Data(contentsOf: URL(fileURLWithPath: sample))
        let gz = try Compression.compress(input, as: .gzip)
        let result = try CLI.run(["inspect", "-", "--json"], input: gz)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONReader().read(result.stdout)
        #expect(report["format"] == "json")
        #expect(report["compression"] == "gzip")
        #expect(report["size"] == .int(Int64(gz.count)))
        #expect(report["decodedSize"] == .int(Int64(input.count)))
        #expect(report["value"] == (try JSONReader().read(input)))
    }

    @Test func binaryPlistShowsItsTrailer() throws {
        let bplist = Fixtures.hostile.appendingPathComponent("bplist_valid_baseline.bplist").path
        let result = try CLI.run(["inspect", bplist])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.contains("Trailer:"))
        #expect(result.stdoutText.contains("objects"))
        let json = try CLI.run(["inspect", bplist, "--json"])
        let report = try JSONReader().read(json.stdout)
        #expect(report["details"]?["objectCount"] == 3)
    }

    @Test func saysWhenAPlistIsAKeyedArchive() throws {
        let keyed = Fixtures.hostile.appendingPathComponent("ka_valid_baseline.bplist").path
        let result = try CLI.run(["inspect", keyed])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.contains("Keyed:       an NSKeyedArchiver archive (version 100000)"))
        #expect(result.stdoutText.contains("$top keys: root"))
    }

    @Test func cborShowsTags() throws {
        let value: PFValue = ["when": .date(Date(timeIntervalSince1970: 1_300_000_000))]
        let cbor = try CBORWriter().write(value)
        let result = try CLI.run(["inspect", "-", "--json"], input: cbor)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONReader().read(result.stdout)
        #expect(report["format"] == "cbor")
        #expect(report["details"]?["tags"]?["1"] == 1)
    }

    @Test func unrecognisedInputFailsCleanly() throws {
        let result = try CLI.run(["inspect", "-"], input: Data([0xFF, 0x00, 0x13, 0x37]))
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("pfarchive: <stdin>: input: unrecognised format"))
    }
}

@Suite struct InspectCoreDataTests {
    let store = Fixtures.real.appendingPathComponent("coredata/coredataplus/SampleModel2_V2.sqlite").path

    @Test func showsTheRecoveredModelAndRowCounts() throws {
        let result = try CLI.run(["inspect", store])
        #expect(result.status == 0, "\(result.stderr)")
        let text = result.stdoutText
        #expect(text.contains("Format:      Core Data SQLite store (framework version 1344)"))
        #expect(text.contains("Entity Page — table ZPAGE, Z_ENT 4, 119 rows"))
        #expect(text.contains("  frontCover: Transformable (CoverTransformer)"))
        #expect(text.contains("  book -> Book (to-one, inverse pages)"))
        #expect(text.contains("Entity Author : Writer"))
    }

    /// A store whose metadata plist is empty (macOS's NotesV7.storedata) says so instead of
    /// "framework version null".
    @Test func emptyMetadataSaysItHasNoFrameworkVersion() throws {
        let dir = try SQLiteSource.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let copy = dir.appendingPathComponent("Store.sqlite")
        try FileManager.default.copyItem(atPath: Fixtures.real.appendingPathComponent("coredata/restkit/RKSeedDatabase.sqlite").path, toPath: copy.path)
        let emptied = try Peers.python(
            "import sqlite3, plistlib, sys\nc = sqlite3.connect(sys.argv[1])\nc.execute('UPDATE Z_METADATA SET Z_PLIST = ?', (plistlib.dumps({}, fmt=plistlib.FMT_BINARY),))\nc.commit()",
            [copy.path])
        #expect(emptied.status == 0, "\(emptied.stderr)")
        let result = try CLI.run(["inspect", copy.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.contains("Format:      Core Data SQLite store (no framework version in its metadata)\n"), "\(result.stdoutText)")
    }

    @Test func jsonAndGraph() throws {
        let json = try CLI.run(["inspect", store, "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let report = try JSONReader().read(json.stdout)
        #expect(report["format"] == "coredata")
        #expect(report["entities"]?["Book"]?["rows"] == 2)
        let graph = try CLI.run(["inspect", store, "--graph", "dot"])
        #expect(graph.status == 0, "\(graph.stderr)")
        #expect(graph.stdoutText.hasPrefix("digraph model {"))
        #expect(graph.stdoutText.contains("pages * / book"))
    }

    @Test func aPlainSQLiteFileFailsWithExitOne() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pfcli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: store))
        let cut = directory.appendingPathComponent("cut.sqlite")
        try bytes.prefix(8192).write(to: cut)
        let result = try CLI.run(["inspect", cut.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("truncated"))
    }
}

/// `inspect` of a store given as a directory or `.zip` (as `import` names them): the real
/// Parse.com export, a zip of it and the Mongo shape made from it show their classes, counts,
/// field types and relations, as text and JSON, and nothing is written beside them.
@Suite struct InspectExportCommandTests {
    @Test func exportsZipsAndTheMongoShapeShowTheirClasses() throws {
        let dir = try SQLiteSource.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let export = dir.appendingPathComponent("export")
        try FileManager.default.copyItem(at: Fixtures.real.appendingPathComponent("parse"), to: export)
        let zip = dir.appendingPathComponent("export.zip")
        let zipped = try Peers.python(
            "import sys, zipfile, os\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n    for n in sorted(os.listdir(sys.argv[2])): z.write(os.path.join(sys.argv[2], n), n)",
            [zip.path, export.path])
        #expect(zipped.status == 0, "\(zipped.stderr)")
        let mongo = dir.appendingPathComponent("mongo.jsonl")
        let made = try CLI.run(["import", export.path, mongo.path])
        #expect(made.status == 0, "\(made.stderr)")
        let before = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()

        for (path, title) in [(export.path, "Parse export"), (zip.path, "Parse export"), (mongo.path, "Parse Server MongoDB shape")] {
            let text = try CLI.run(["inspect", path])
            #expect(text.status == 0, "\(path): \(text.stderr)")
            #expect(text.stdoutText.contains("Format:      \(title)"), "\(text.stdoutText)")
            #expect(text.stdoutText.contains("Class NameWord — 254 objects"), "\(text.stdoutText)")
            #expect(text.stdoutText.contains("Class _Role — 5 objects"), "\(text.stdoutText)")
            #expect(text.stdoutText.contains("  users: Relation<_User>"), "\(text.stdoutText)")
            #expect(text.stdoutText.contains("  parentComment: Pointer<Comment>"), "\(text.stdoutText)")
            let json = try CLI.run(["inspect", path, "--json"])
            #expect(json.status == 0, "\(path): \(json.stderr)")
            let summary = try JSONReader().read(json.stdout)
            #expect(summary["classes"]?["NameWord"]?["objects"] == .int(254))
            #expect(summary["format"] == .string(path == mongo.path ? "mongo" : "parse-export"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == before)

        // A directory without class files says so; a file that is no export is read as a file.
        let empty = dir.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let none = try CLI.run(["inspect", empty.path])
        #expect(none.status == 0 && none.stdoutText.contains("Classes:     none (no <Class>.json files)"), "\(none.stdoutText)\(none.stderr)")
        let misnamed = dir.appendingPathComponent("plist.zip")
        try FileManager.default.copyItem(at: Fixtures.real.appendingPathComponent("bplist/rustplist-utf16.bplist"), to: misnamed)
        let plist = try CLI.run(["inspect", misnamed.path])
        #expect(plist.status == 0 && plist.stdoutText.contains("binary property list"), "\(plist.stdoutText)\(plist.stderr)")
    }
}
