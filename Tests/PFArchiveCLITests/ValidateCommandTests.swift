import Foundation
import PFCompression
import PFJSON
import PFTestSupport
import Testing

@Suite struct ValidateCommandTests {
    let export = Fixtures.real.appendingPathComponent("parse")

    func temporaryExport(_ files: [String: String]) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pfparse-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for (name, text) in files { try Data(text.utf8).write(to: dir.appendingPathComponent(name)) }
        return dir
    }

    @Test func realExportPassesWithADanglingPointerWarning() throws {
        let result = try CLI.run(["validate", export.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText == """
            warning: Comment Sew2MPHk57 at parentComment: dangling Pointer: Comment/null is not in the export (Parse error 101 ObjectNotFound)
            0 errors, 1 warning in 260 objects of 3 classes and 0 relation rows

            """)
    }

    @Test func everyViolationIsListedAndExitsOne() throws {
        let dir = try temporaryExport([
            "GameScore.json": #"""
                {"results":[
                 {"objectId":"g1","score":1,"player":{"__type":"Pointer","className":"_User","objectId":"u1"},"where":{"__type":"GeoPoint","latitude":10,"longitude":20}},
                 {"objectId":"g2","score":"high","bad-key":1,"player":{"__type":"Pointer","className":"Team","objectId":"t1"}},
                 {"objectId":"g3","where":{"__type":"GeoPoint","latitude":95,"longitude":0},"ACL":{"*":{"read":"yes"}},"when":{"__type":"Date","iso":"soon"}}
                ]}
                """#,
            "_User.json": #"{"results":[{"objectId":"u1","username":"ann"}]}"#,
            "bad class.json": #"[{"objectId":"x"}]"#,
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLI.run(["validate", dir.path])
        #expect(result.status == 1)
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        func has(_ parts: String...) -> Bool { lines.contains { line in parts.allSatisfy { line.contains($0) } } }
        #expect(has("error: GameScore g2 at score:", "expected Number, found String", "(Parse error 111 IncorrectType)"))
        #expect(has("error: GameScore g2 at bad-key:", "(Parse error 105 InvalidFieldName)"))
        #expect(has("error: GameScore g2 at player:", "expected Pointer<_User>, found a Pointer to Team", "111"))
        #expect(has("error: GameScore g3 at where:", "latitude 95.0 is outside [-90, 90]"))
        #expect(has("error: GameScore g3 at ACL.*.read:", "(Parse error 123 InvalidACL)"))
        #expect(has("error: GameScore g3 at when:", "malformed Date"))
        #expect(has("error: bad class", "(Parse error 103 InvalidClassName)"))
        #expect(lines.last == "7 errors, 0 warnings in 5 objects of 3 classes")
    }

    @Test func schemaFileInBothShapes() throws {
        let dir = try temporaryExport([
            "GameScore.json": #"[{"objectId":"g1","score":1.5,"owner":{"__type":"Pointer","className":"_User","objectId":"u1"},"note":"x"}]"#,
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let rest = dir.appendingPathComponent("schema.json.txt")
        try Data(#"{"results":[{"className":"GameScore","fields":{"score":{"type":"String"},"owner":{"type":"Pointer","targetClass":"Player"}}}]}"#.utf8).write(to: rest)
        let result = try CLI.run(["validate", dir.appendingPathComponent("GameScore.json").path, "--schema", rest.path])
        #expect(result.status == 1)
        #expect(result.stdoutText.contains("error: GameScore g1 at score: expected String, found Number"))
        #expect(result.stdoutText.contains("error: GameScore g1 at owner: expected Pointer<Player>, found a Pointer to _User"))
        #expect(result.stdoutText.contains("warning: GameScore g1 at note: field 'note' is not in the schema"))

        let mongo = dir.appendingPathComponent("mongo.txt")
        try Data(#"[{"_id":"GameScore","score":"number","owner":"*_User","note":"string","_metadata":{}}]"#.utf8).write(to: mongo)
        let ok = try CLI.run(["validate", dir.appendingPathComponent("GameScore.json").path, "--schema", mongo.path])
        #expect(ok.status == 0, "\(ok.stdoutText)")
        #expect(ok.stdoutText == "0 errors, 0 warnings in 1 object of 1 class\n")
    }

    @Test func jsonReportZipAndMissingInput() throws {
        let json = try CLI.run(["validate", export.path, "--json"])
        #expect(json.status == 0)
        let report = try JSONReader().read(json.stdout)
        #expect(report["warnings"] == 1)
        #expect(report["issues"]?[0]?["code"] == 101)
        #expect(report["issues"]?[0]?["path"] == "parentComment")
        let zip = try CLI.run(["validate", "/nonexistent/export.zip"])
        #expect(zip.status == 1)
        #expect(zip.stderr.contains("no such file"))
        let missing = try CLI.run(["validate", "/nonexistent/dir"])
        #expect(missing.status == 1)
        #expect(try CLI.run(["validate"]).status == 2)
        let help = try CLI.run(["validate", "--help"])
        #expect(help.stdoutText.contains("pfarchive validate export/ --json > report.json"))
    }

    /// The real export zipped by Python's zipfile (in a folder, deflated, the join table with
    /// U+A789 in its name) validates exactly like the directory.
    @Test func zipExportValidatesLikeTheDirectory() throws {
        let dir = try temporaryExport([:])
        defer { try? FileManager.default.removeItem(at: dir) }
        let zipURL = dir.appendingPathComponent("export.zip")
        let script = """
            import os, sys, zipfile
            src, out = sys.argv[1], sys.argv[2]
            with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("__MACOSX/export/._Comment.json", b"junk")
                for name in sorted(os.listdir(src)):
                    z.write(os.path.join(src, name), "export/" + name.replace(":", "\\ua789"))
            """
        let made = try Peers.python(script, [export.path, zipURL.path])
        try #require(made.status == 0, "\(made.stderr)")
        let fromZip = try CLI.run(["validate", zipURL.path])
        let fromDirectory = try CLI.run(["validate", export.path])
        #expect(fromZip.status == 0, "\(fromZip.stderr)")
        #expect(fromZip.stdoutText == fromDirectory.stdoutText)
        #expect(fromZip.stdoutText.contains("in 260 objects of 3 classes and 0 relation rows"))

        var corrupt = try Data(contentsOf: zipURL)
        corrupt.removeLast(30)
        try corrupt.write(to: zipURL)
        let bad = try CLI.run(["validate", zipURL.path])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("export.zip") && bad.stderr.contains("zip"), "\(bad.stderr)")
    }


    /// An export's `_SCHEMA.json` is its schema, not a class: the export pfarchive writes
    /// (with one, and with a name it encoded) validates clean, as a directory and as a zip;
    /// the schema file's types are the ones checked; `--schema` overrides it.
    @Test func anExportsSchemaFileIsItsSchema() throws {
        let source = try temporaryExport([
            "GameScore.json": #"{"results":[{"objectId":"g1","score":3,"bad key":"x"}]}"#,
        ])
        let written = source.deletingLastPathComponent().appendingPathComponent("pfvalidate-\(UUID().uuidString)")
        defer { for u in [source, written] { try? FileManager.default.removeItem(at: u) } }
        let imported = try CLI.run(["import", source.appendingPathComponent("GameScore.json").path, written.path])
        try #require(imported.status == 0, "\(imported.stderr)")
        try #require(FileManager.default.fileExists(atPath: written.appendingPathComponent("_SCHEMA.json").path))
        let clean = try CLI.run(["validate", written.path])
        #expect(clean.status == 0, "\(clean.stdoutText)\(clean.stderr)")
        #expect(clean.stdoutText == "0 errors, 0 warnings in 1 object of 1 class\n")

        let zipURL = written.appendingPathExtension("zip")
        defer { try? FileManager.default.removeItem(at: zipURL) }
        let made = try Peers.python("""
            import os, sys, zipfile
            with zipfile.ZipFile(sys.argv[2], "w") as z:
                for name in sorted(os.listdir(sys.argv[1])): z.write(os.path.join(sys.argv[1], name), "export/" + name)
            """, [written.path, zipURL.path])
        try #require(made.status == 0, "\(made.stderr)")
        #expect(try CLI.run(["validate", zipURL.path]).stdoutText == clean.stdoutText)

        // The schema file's own types are checked against the rows.
        let schema = written.appendingPathComponent("_SCHEMA.json")
        var text = try String(contentsOf: schema, encoding: .utf8)
        text = text.replacing(#/"score":\s*\{\s*"type":\s*"Number"/#, with: #""score": {"type": "String""#)
        try #require(!text.contains("Number"), "\(text)")
        try Data(text.utf8).write(to: schema)
        let typed = try CLI.run(["validate", written.path])
        #expect(typed.status == 1)
        #expect(typed.stdoutText.contains("at score:") && typed.stdoutText.contains("expected String, found Number"), "\(typed.stdoutText)")
        // --schema wins over the export's own.
        let other = source.appendingPathComponent("schema.txt")
        try Data(#"{"results":[{"className":"GameScore","fields":{"score":{"type":"Number"}}}]}"#.utf8).write(to: other)
        #expect(try CLI.run(["validate", written.path, "--schema", other.path]).status == 0)
    }

    /// A directory of mongoexport files is named for what it is, in one line.
    @Test func theMongoShapeIsNamedNotReadAsBrokenJSON() throws {
        let dir = try temporaryExport([
            "GameScore.json": #"{"_id":"g1","score":1}"# + "\n" + #"{"_id":"g2","score":2}"# + "\n",
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLI.run(["validate", dir.path])
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("MongoDB shape") && result.stderr.contains("pfarchive import"), "\(result.stderr)")
    }
    @Test func convertParseRoundTripsAndGivesTheTypedTree() throws {
        let comment = export.appendingPathComponent("Comment.json")
        let original = try JSONReader(options: .init(typedValues: false)).read(try Data(contentsOf: comment))
        let same = try CLI.run(["convert", comment.path, "-", "--from", "parse", "--to", "parse"])
        #expect(same.status == 0, "\(same.stderr)")
        #expect(try JSONReader(options: .init(typedValues: false)).read(same.stdout) == original)
        let typed = try CLI.run(["convert", comment.path, "-", "--from", "parse", "--to", "json"])
        #expect(typed.status == 0)
        let tree = try JSONReader().read(typed.stdout)
        if case .date? = tree["results"]?[0]?["createdAt"] {} else { Issue.record("createdAt should be a typed date") }
        let empty = try CLI.run(["convert", export.appendingPathComponent("_Join:users:_Role.json").path, "-", "--from", "parse", "--to", "parse"])
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect(empty.stdoutText == #"{"results":[]}"#)
        let bad = try CLI.run(["convert", "-", "-", "--from", "parse", "--to", "parse"], input: Data(#"[{"className":"GameScore","a.b":1}]"#.utf8))
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("(Parse error 105 InvalidFieldName)"))
        #expect(bad.stderr.contains(#"[0]["a.b"]"#))
    }

    /// A single INPUT whose bytes are plainly no class file (a plist, a typedstream, an
    /// SQLite or Realm file, compressed bytes that are none of these) fails with one line on
    /// stderr naming what it is, instead of a JSON syntax error at byte 0 reported as a
    /// violation on stdout. A compressed class file is read through.
    @Test func anInputThatIsNoClassFileIsNamedInOneLine() throws {
        let real = Fixtures.real
        let directory = try temporaryExport([:])
        defer { try? FileManager.default.removeItem(at: directory) }
        let gzipped = directory.appendingPathComponent("GameScore.json.gz")
        try Compression.compress(Data(#"[{"objectId":"a"}]"#.utf8), as: .gzip).write(to: gzipped)
        let read = try CLI.run(["validate", gzipped.path])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdoutText.contains("0 errors, 0 warnings in 1 object of 1 class"), "\(read.stdoutText)")
        let gzippedPlist = directory.appendingPathComponent("Plist.json.gz")
        try Compression.compress(Data(contentsOf: real.appendingPathComponent("bplist/bpylist2-date_past.bplist")), as: .gzip).write(to: gzippedPlist)
        let cases: [(URL, String)] = [
            (real.appendingPathComponent("bplist/bpylist2-date_past.bplist"), "a binary property list"),
            (real.appendingPathComponent("realm/core-upgrade_4_23.realm"), "a Realm file"),
            (real.appendingPathComponent("coredata/coredataplus/SampleModel_V2.sqlite"), "an SQLite database"),
            (gzippedPlist, "a binary property list"),
        ]
        for (file, kind) in cases {
            let result = try CLI.run(["validate", file.path])
            #expect(result.status == 1, "\(file.lastPathComponent)")
            #expect(result.stdoutText.isEmpty, "\(file.lastPathComponent)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stderr.contains("\(file.lastPathComponent): \(kind), not a Parse class file"), "\(result.stderr)")
        }
        // A broken class file is still a violation with its position.
        let broken = try temporaryExport(["Broken.json": "[{\"objectId\":"])
        defer { try? FileManager.default.removeItem(at: broken) }
        let result = try CLI.run(["validate", broken.appendingPathComponent("Broken.json").path])
        #expect(result.status == 1)
        #expect(result.stdoutText.contains("error: Broken (no objectId): Broken.json: JSON: unexpected end of input"))
    }
}
