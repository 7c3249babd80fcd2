import Foundation
import PFJSON
import PFTestSupport
import Testing

/// `pfarchive diff` and `pfarchive patch`, run as a user would.
@Suite struct DiffCommandTests {
    let sample = Fixtures.repoRoot.appendingPathComponent("Samples/data/scores.json").path

    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pfarchive-diff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func write(_ text: String, _ name: String, in dir: URL) throws -> String {
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    @Test func exitStatusTextAndSummary() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = try write(#"{"results":[{"score":10},{"score":7}],"gone":true,"n":1}"#, "a.json", in: dir)
        let b = try write(#"{"results":[{"score":10},{"score":12}],"new":null,"n":1.0}"#, "b.json", in: dir)
        let different = try CLI.run(["diff", a, b])
        #expect(different.status == 1, "\(different.stderr)")
        #expect(different.stdoutText == """
            results[1].score: 7 → 12
            - gone: true
            n: 1 → 1.0
            + new: null
            4 differences: 1 added, 1 removed, 2 changed

            """)
        #expect(different.stderr.isEmpty)
        let loose = try CLI.run(["diff", a, b, "--loose", "--ignore", "results[*].score"])
        #expect(loose.stdoutText == "- gone: true\n+ new: null\n2 differences: 1 added, 1 removed\n")
        let same = try CLI.run(["diff", a, a])
        #expect(same.status == 0)
        #expect(same.stdoutText == "no differences\n")
        let brief = try CLI.run(["diff", a, b, "--brief"])
        #expect(brief.status == 1)
        #expect(brief.stdoutText == "\(a) and \(b) differ\n")
        #expect(try CLI.run(["diff", a, a, "--brief"]).stdoutText.isEmpty)
    }

    /// The real export into a JSON Lines file and back: each step compares equal to the export
    /// (a JSON Lines file beside a store was refused as "a file"; the way back added a
    /// `className` member to every row).
    @Test func anExportThroughAJSONLinesFileComparesEqual() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let export = Fixtures.real.appendingPathComponent("parse").path
        let lines = dir.appendingPathComponent("export.ndjson").path
        let back = dir.appendingPathComponent("back").path
        #expect(try CLI.run(["import", export, lines]).status == 0)
        let first = try CLI.run(["diff", export, lines])
        #expect(first.status == 0, "\(first.stdoutText)\(first.stderr)")
        #expect(try CLI.run(["import", lines, back]).status == 0)
        let second = try CLI.run(["diff", export, back])
        #expect(second.status == 0, "\(second.stdoutText.prefix(400))\(second.stderr)")
    }

    /// Each real Core Data store imported into pfarchive's SQLite store compares equal to it
    /// (every object was reported as having lost its `className`; SampleModel_V1/V2's
    /// `Person.updatedAt` Date attribute, Parse's own column, was reported as a schema field lost).
    @Test(arguments: [
        "coredata/restkit/RKSeedDatabase.sqlite", "coredata/coredataplus/SampleModel2_V2.sqlite",
        "coredata/coredataplus/SampleModel_V1.sqlite", "coredata/coredataplus/SampleModel_V2.sqlite",
        "coredata/coredataplus/SampleModel3_V1.sqlite",
    ])
    func aCoreDataStoreAndItsImportCompareEqual(_ store: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Fixtures.real.appendingPathComponent(store).path
        let imported = dir.appendingPathComponent("imported.sqlite").path
        #expect(try CLI.run(["import", source, imported]).status == 0)
        let result = try CLI.run(["diff", source, imported])
        #expect(result.status == 0, "\(result.stdoutText.prefix(400))\(result.stderr)")
    }

    /// The real Parse export (Parse.com's: `_Role` rows without their `users` Relation field)
    /// imported into each file store compares equal. On main the MongoDB shape differed by five
    /// "+ _Role/….users: Relation<_User>": its reader gives rows the Relation field its schema
    /// declares, which says nothing the schema and the join rows do not.
    @Test(arguments: ["imported.sqlite", "imported.jsonl", "imported-export", "imported.zip", "imported.archive"])
    func theRealExportAndItsImportIntoEachStoreCompareEqual(_ name: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Fixtures.real.appendingPathComponent("parse").path
        let imported = dir.appendingPathComponent(name).path
        let run = try CLI.run(["import", source, imported])
        #expect(run.status == 0, "\(run.stderr)")
        let result = try CLI.run(["diff", source, imported, "--stores"])
        #expect(result.status == 0, "\(result.stdoutText.prefix(400))\(result.stderr)")
        #expect(result.stdoutText.contains("no differences (260 and 260 objects)"))
    }

    /// A document with a keyed archive's shape that does not decode as one (a damaged
    /// archive, plistlib's JSON rendering with `$bytes_hex` data) is compared as the tree
    /// `convert` keeps: its conversions compare equal (exit 2, "object has no $class", on main).
    @Test(arguments: [
        "keyed/bpylist2-neg-invalid_uid_archive.bplist", "EXPECTED/keyed/dp-primitives.bplist.plistlib.json",
        "EXPECTED/keyed/scf-NSAttributedString.archive.plistlib.json",
    ])
    func anArchiveShapedDocumentThatIsNoArchiveComparesAsItsTree(_ file: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Fixtures.real.appendingPathComponent(file).path
        for name in ["copy.cbor", "copy.json"] {
            let out = dir.appendingPathComponent(name).path
            let converted = try CLI.run(["convert", source, out])
            #expect(converted.status == 0, "\(converted.stderr)")
            let result = try CLI.run(["diff", source, out])
            #expect(result.status == 0, "\(name): \(result.stdoutText.prefix(400))\(result.stderr)")
        }
    }

    @Test func troubleExitsTwoWithOneLine() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = try write(#"{"a":1}"#, "a.json", in: dir)
        let bad = try write(#"{"a":"#, "bad.json", in: dir)
        for arguments in [["diff", a, bad], ["diff", a, dir.appendingPathComponent("missing.json").path],
            ["diff", a, "--ignore", "x..y", a], ["diff", a], ["diff", a, dir.path]]
        {
            let run = try CLI.run(arguments)
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count >= 1)
            #expect(run.stdout.isEmpty, "\(arguments)")
        }
        let run = try CLI.run(["diff", a, bad])
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("pfarchive: \(bad): "))
    }

    @Test func jsonPatchRebuildsBInAnyFormat() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let b = try write(#"{"results":[{"score":1338,"playerName":"Sean Plott"}],"extra":[1,2,3]}"#, "b.json", in: dir)
        let diff = try CLI.run(["diff", sample, b, "--json"])
        #expect(diff.status == 1, "\(diff.stderr)")
        let patch = dir.appendingPathComponent("p.json")
        try diff.stdout.write(to: patch)
        for out in ["rebuilt.json", "rebuilt.bplist", "rebuilt.cbor"] {
            let path = dir.appendingPathComponent(out).path
            let applied = try CLI.run(["patch", sample, patch.path, path])
            #expect(applied.status == 0, "\(applied.stderr)")
            let check = try CLI.run(["diff", path, b])
            #expect(check.status == 0, "\(out): \(check.stdoutText)")
        }
        // An empty diff is an empty patch.
        let none = try CLI.run(["diff", sample, sample, "--json"])
        #expect(none.status == 0)
        #expect(none.stdoutText == "[]\n")
    }

    @Test func patchFailuresNameTheOperationAndWriteNothing() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = try write(#"{"a":[1,2]}"#, "a.json", in: dir)
        let patch = try write(#"[{"op":"add","path":"/b","value":1},{"op":"remove","path":"/a/9"}]"#, "p.json", in: dir)
        let out = dir.appendingPathComponent("out.json").path
        let run = try CLI.run(["patch", a, patch, out])
        #expect(run.status == 1)
        #expect(run.stderr == "pfarchive: \(patch): JSON Patch: operation 1 (remove /a/9): index 9 is out of range (2 items)\n")
        #expect(!FileManager.default.fileExists(atPath: out))
        let notAPatch = try write(#"{"op":"add"}"#, "q.json", in: dir)
        #expect(try CLI.run(["patch", a, notAPatch, out]).status == 1)
    }

    @Test func keyedArchivesCompareAsGraphs() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let shared = try write(#"{"$class":"Holder","a":{"$class":"P","$id":1,"n":1},"b":{"$ref":1}}"#, "s.json", in: dir)
        let copies = try write(#"{"$class":"Holder","a":{"$class":"P","n":1},"b":{"$class":"P","n":1}}"#, "c.json", in: dir)
        let sa = dir.appendingPathComponent("s.archive").path, ca = dir.appendingPathComponent("c.xml").path
        #expect(try CLI.run(["convert", shared, sa, "--to", "keyed"]).status == 0)
        #expect(try CLI.run(["convert", copies, ca, "--to", "keyed", "--container", "xmlplist"]).status == 0)
        let run = try CLI.run(["diff", sa, ca])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stdoutText == "~ b: shared with a in A; a separate copy in B\n1 difference: 1 sharing\n")
        let real = Fixtures.real.appendingPathComponent("keyed/bpylist2-circular_archive.bplist").path
        let rewritten = dir.appendingPathComponent("circular.xml").path
        #expect(try CLI.run(["convert", real, rewritten, "--from", "keyed", "--to", "keyed", "--container", "xmlplist"]).status == 0)
        #expect(try CLI.run(["diff", real, rewritten]).status == 0)
    }

    @Test func storesCompareAsObjectSets() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let export = Fixtures.real.appendingPathComponent("parse").path
        let store = dir.appendingPathComponent("s.sqlite").path
        #expect(try CLI.run(["import", export, store]).status == 0)
        let same = try CLI.run(["diff", export, store])
        #expect(same.status == 0, "\(same.stdoutText)\(same.stderr)")
        #expect(same.stdoutText.hasPrefix("no differences ("))
        // A copy of the export with one object's field changed and one object gone.
        let copy = dir.appendingPathComponent("copy")
        try FileManager.default.copyItem(at: URL(fileURLWithPath: export), to: copy)
        let comments = copy.appendingPathComponent("NameWord.json")
        guard case .dictionary(var top) = try JSONReader(options: .init(typedValues: false)).read(Data(contentsOf: comments)),
            case .array(var rows) = top["results"], rows.count > 2,
            case .dictionary(var first) = rows[0], let id = first["objectId"]?.stringValue,
            let goneId = rows[1]["objectId"]?.stringValue
        else { Issue.record("unexpected Comment.json"); return }
        first["pfdiffNote"] = "changed"
        rows[0] = .dictionary(first)
        rows.remove(at: 1)
        top["results"] = .array(rows)
        try JSONWriter(options: .init(typedValues: false)).write(.dictionary(top)).write(to: comments)
        let changed = try CLI.run(["diff", store, copy.path, "--no-schema"])
        #expect(changed.status == 1, "\(changed.stderr)")
        let lines = changed.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.contains("+ NameWord/\(id).pfdiffNote: \"changed\""), "\(lines)")
        #expect(lines.contains("- NameWord/\(goneId)"), "\(lines)")
        #expect(lines.last == "2 differences: 1 added, 1 removed")
        #expect(try CLI.run(["diff", store, copy.path, "--brief"]).stdoutText == "\(store) and \(copy.path) differ\n")
        #expect(try CLI.run(["diff", store, sample]).status == 2)
    }

    /// `diff --json` on two stores, applied by `patch` to the first, writes a store equal to
    /// the second (the real Parse export and an edited copy of it).
    @Test func storePatchRebuildsBFromA() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let export = Fixtures.real.appendingPathComponent("parse").path
        let copy = dir.appendingPathComponent("copy")
        try FileManager.default.copyItem(at: URL(fileURLWithPath: export), to: copy)
        let words = copy.appendingPathComponent("NameWord.json")
        guard case .dictionary(var top) = try JSONReader(options: .init(typedValues: false)).read(Data(contentsOf: words)),
            case .array(var rows) = top["results"], rows.count > 2,
            case .dictionary(var first) = rows[0]
        else { Issue.record("unexpected NameWord.json"); return }
        first["pfpatchNote"] = "changed"
        rows[0] = .dictionary(first)
        rows.remove(at: 1)
        top["results"] = .array(rows)
        try JSONWriter(options: .init(typedValues: false)).write(.dictionary(top)).write(to: words)
        let diff = try CLI.run(["diff", export, copy.path, "--json"])
        #expect(diff.status == 1, "\(diff.stderr)")
        let patch = dir.appendingPathComponent("drift.json")
        try Data(diff.stdout).write(to: patch)
        let out = dir.appendingPathComponent("rebuilt.sqlite").path
        let applied = try CLI.run(["patch", export, patch.path, out])
        #expect(applied.status == 0, "\(applied.stderr)")
        let check = try CLI.run(["diff", out, copy.path])
        #expect(check.status == 0, "\(check.stdoutText)\(check.stderr)")
        // A store's patch needs a store destination; a bad patch writes nothing.
        #expect(try CLI.run(["patch", export, patch.path, "-"]).status == 2)
        let bad = try write(#"[{"op":"remove","path":"/NameWord/nonexistent"}]"#, "bad.json", in: dir)
        let refused = try CLI.run(["patch", export, bad, dir.appendingPathComponent("never.sqlite").path])
        #expect(refused.status == 1)
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("never.sqlite").path))
    }

    /// A Realm file is a store: diff compares it with its import, object by object.
    @Test func realmFilesCompareWithTheirImport() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let realm = Fixtures.real.appendingPathComponent("realm/js-simple.realm").path
        let store = dir.appendingPathComponent("s.sqlite").path
        #expect(try CLI.run(["import", realm, store]).status == 0)
        let same = try CLI.run(["diff", realm, store])
        #expect(same.status == 0, "\(same.stdoutText)\(same.stderr)")
        #expect(same.stdoutText.hasPrefix("no differences ("))
    }

    /// patch(A, diff(A, B)) is B for pairs of the real property lists and keyed archives of
    /// every writer in the fixtures (each file with the next and the third after it, by
    /// name), the output named as B is: a keyed archive patched into a plain tree, a plain tree
    /// patched into a graph, two writers' spellings of one graph. On main, 13 of 93 pairs
    /// failed (a graph written as a plain plist could not hold its nulls; a `$ref` before its
    /// `$id`).
    @Test func patchTurnsEachRealFileIntoAnother() throws {
        let real = Fixtures.real
        var files: [URL] = []
        for folder in ["keyed", "keyed/linux-corelibs", "bplist", "xmlplist"] {
            let dir = real.appendingPathComponent(folder)
            files += try FileManager.default.contentsOfDirectory(at: dir, includingPropertiesForKeys: nil)
                .filter { !$0.hasDirectoryPath && !$0.lastPathComponent.hasSuffix(".md") && !$0.lastPathComponent.hasPrefix(".") }
        }
        files.sort { $0.lastPathComponent < $1.lastPathComponent }
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var patched = 0
        for step in [1, 3] {
            for (i, a) in files.enumerated() {
                let b = files[(i + step) % files.count]
                let patch = dir.appendingPathComponent("patch.json")
                let diff = try CLI.run(["diff", a.path, b.path, "--json"])
                guard diff.status != 2 else { continue }  // an input that does not read
                try diff.stdout.write(to: patch)
                let out = dir.appendingPathComponent("out.\(b.pathExtension)")
                let applied = try CLI.run(["patch", a.path, patch.path, out.path])
                #expect(applied.status == 0, "\(a.lastPathComponent) → \(b.lastPathComponent): \(applied.stderr)")
                guard applied.status == 0 else { continue }
                let again = try CLI.run(["diff", out.path, b.path])
                #expect(again.status == 0, "\(a.lastPathComponent) → \(b.lastPathComponent): \(again.stdoutText.prefix(300))")
                patched += 1
            }
        }
        #expect(patched >= 60)
    }
}
