import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFKeyedArchive
import PFParseExport
import PFTestSupport
import Testing

/// `pfarchive copy` through the built binary, on the Employee/Department/Manager org chart as
/// a Parse export, a JSON graph and a keyed archive.
@Suite struct CopyCommandTests {
    static let rules = Fixtures.repoRoot.appendingPathComponent("Samples/graphcopy/rules.json").path

    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("copycli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func pointer(_ c: String, _ id: String) -> PFValue { ["__type": "Pointer", "className": .string(c), "objectId": .string(id)] }

    /// R&D (head Dana, employees as a Relation); Dana ← Ann ← Bob, Cy (manager Pointers,
    /// reports as arrays of Pointers).
    func writeExport(to dir: URL) throws {
        func employee(_ id: String, _ eid: String, _ name: String, manager: String?, reports: [String]) -> PFValue {
            var d: OrderedDictionary<String, PFValue> = [
                "objectId": .string(id), "employeeID": .string(eid), "name": .string(name), "notes": "private",
                "department": Self.pointer("Department", "rnd"), "reports": .array(reports.map { Self.pointer("Employee", $0) }),
                "createdAt": "2020-01-01T00:00:00.000Z", "updatedAt": "2020-01-02T00:00:00.000Z",
            ]
            d["manager"] = manager.map { Self.pointer("Employee", $0) } ?? .null
            return .dictionary(d)
        }
        let employees: PFValue = ["results": [
            employee("dana", "E1", "Dana", manager: nil, reports: ["ann"]),
            employee("ann", "E2", "Ann", manager: "dana", reports: ["bob", "cy"]),
            employee("bob", "E3", "Bob", manager: "ann", reports: []),
            employee("cy", "E4", "Cy", manager: "ann", reports: []),
        ]]
        let departments: PFValue = ["results": [[
            "objectId": "rnd", "name": "R&D", "head": Self.pointer("Employee", "dana"),
            "employees": ["__type": "Relation", "className": "Employee"],
        ]]]
        let joins: PFValue = ["results": .array(["dana", "ann", "bob", "cy"].map { ["owningId": "rnd", "relatedId": .string($0)] })]
        try JSONWriter().write(employees).write(to: dir.appendingPathComponent("Employee.json"))
        try JSONWriter().write(departments).write(to: dir.appendingPathComponent("Department.json"))
        try JSONWriter().write(joins).write(to: dir.appendingPathComponent("_Join:employees:Department.json"))
    }

    func objects(_ file: URL) throws -> [String: OrderedDictionary<String, PFValue>] {
        let rows = try ParseExport.rows(fromJSON: Data(contentsOf: file)).rows
        var out: [String: OrderedDictionary<String, PFValue>] = [:]
        for case .dictionary(let d) in rows { if case .string(let name)? = d["name"] { out[name] = d } }
        return out
    }

    @Test func duplicateOfAnnRegeneratesIdsAndRewritesPointers() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let export = dir.appendingPathComponent("export")
        try FileManager.default.createDirectory(at: export, withIntermediateDirectories: true)
        try writeExport(to: export)
        let out = dir.appendingPathComponent("out")
        let result = try CLI.run(["copy", export.path, out.path, "--rules", Self.rules, "--profile", "duplicate", "--root", "Employee/ann", "--seed", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(names == ["Department.json", "Employee.json", "_Join:employees:Department.json"], "every class and relation of the export has a file")
        #expect(try ParseExport.rows(fromJSON: Data(contentsOf: out.appendingPathComponent("Department.json"))).rows.isEmpty, "only Ann's team is copied; the department is shared")
        let copied = try objects(out.appendingPathComponent("Employee.json"))
        #expect(Set(copied.keys) == ["Ann", "Bob", "Cy"])
        let ids = copied.values.compactMap { if case .string(let s)? = $0["objectId"] { s } else { nil } }
        #expect(Set(ids).count == 3 && Set(ids).isDisjoint(with: ["dana", "ann", "bob", "cy"]))
        let employeeIDs = copied.values.compactMap { $0["employeeID"] }
        #expect(!employeeIDs.contains("E2") && Set(employeeIDs.map { "\($0)" }).count == 3, "identity attributes regenerated")
        guard let ann = copied["Ann"], let bob = copied["Bob"], case .string(let annID)? = ann["objectId"] else {
            Issue.record("missing objects")
            return
        }
        #expect(bob["manager"] == Self.pointer("Employee", annID), "a Pointer to a copied object names the copy")
        #expect(ann["manager"] == .null, "conditional back-pointer: Dana was not copied")
        #expect(ann["department"] == Self.pointer("Department", "rnd"), "shared: the original department")
        #expect(ann["notes"] == "private", "duplicate keeps notes")
        if case .array(let reports)? = ann["reports"] {
            #expect(reports.allSatisfy { r in copied.values.contains { $0["objectId"] == r.dictionaryValue?["objectId"] } })
        }
    }

    @Test func pasteboardDryRunPrintsThePlanAndWritesNothing() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try writeExport(to: dir)
        let out = dir.appendingPathComponent("never")
        let result = try CLI.run(["copy", dir.path, out.path, "--rules", Self.rules, "--profile", "pasteboard", "--root", "Department/rnd", "--dry-run"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let plan = try JSONReader().read(result.stdout)
        // The department owns its employees (copied); head is a reference; managers are
        // back-pointers, kept because every manager is copied too.
        #expect(try plan.value(atPath: "copiedObjects.Department") == 1)
        #expect(try plan.value(atPath: "copiedObjects.Employee") == 4)
        #expect(try plan.value(atPath: "edges.Department.reference") == 1)
        #expect(try plan.value(atPath: "droppedConditionalCount") == 0)
        #expect(try plan.value(atPath: "profile") == "pasteboard")
    }

    @Test func unknownTypeOrKeyInRulesFailsWithItsPath() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try writeExport(to: dir)
        let cases: [(String, String)] = [
            (#"{"types": {"Employee": {"attributes": ["name"]}}, "profiles": {"p": {"edges": {"Manager.boss": "copy"}}}}"#, "profiles.p.edges"),
            (#"{"types": {"Employee": {"attributes": ["name"]}}, "profiles": {"p": {"attributes": {"Employee.salary": "omit"}}}}"#, "unknown key salary"),
            (#"{"types": {"Employee": {"attributes": ["name"]}}, "profiles": {"p": {"edges": {"*.boss": "share"}}}}"#, "no declared type has the key boss"),
            (#"{"types": {"Employee": {"attributes": ["name"], "colour": 1}}}"#, "unknown member \"colour\""),
            (#"{"types": {"Employee": {"attributes": ["name"]}}, "rules": {"edges": {"Employee.name": "copy"}}}"#, "is an attribute"),
        ]
        for (i, (rules, expected)) in cases.enumerated() {
            let file = dir.appendingPathComponent("rules\(i).txt")
            try Data(rules.utf8).write(to: file)
            let out = dir.appendingPathComponent("out\(i)")
            let result = try CLI.run(["copy", dir.path, out.path, "--rules", file.path, "--profile", "p"])
            #expect(result.status == 1, "\(rules)")
            #expect(result.stderr.contains(expected), "\(result.stderr)")
            #expect(result.stderr.contains(file.path))
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
        let bad = try CLI.run(["copy", dir.path, dir.appendingPathComponent("x").path, "--no-such-flag"])
        #expect(bad.status == 2)
    }

    @Test func jsonGraphCopiesKeepSharingAndCycles() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let graph: PFValue = [
            "team": ["$class": "Employee", "$id": 1, "name": "Ann", "manager": ["$class": "Employee", "$id": 2, "name": "Dana", "manager": nil],
                     "reports": [["$class": "Employee", "name": "Bob", "manager": ["$ref": 1]]]],
            "boss": ["$ref": 2],
        ]
        let input = dir.appendingPathComponent("org.json")
        try JSONWriter().write(graph).write(to: input)
        // A deep copy of the whole document has the same shape.
        let out = dir.appendingPathComponent("copy.json")
        let deep = try CLI.run(["copy", input.path, out.path])
        #expect(deep.status == 0, "\(deep.stderr)")
        #expect(try JSONReader().read(Data(contentsOf: out)) == graph)
        // Pasteboard from `team` under the sample's rules: reports are owned (copied), Ann's
        // manager is a back-pointer to Dana, who is not copied, so it is null; Bob's manager
        // is the copy of Ann (a cycle).
        let paste = dir.appendingPathComponent("paste.json")
        let result = try CLI.run(["copy", input.path, paste.path, "--rules", Self.rules, "--profile", "pasteboard", "--root", "team"])
        #expect(result.status == 0, "\(result.stderr)")
        let expected: PFValue = ["$class": "Employee", "$id": 1, "name": "Ann", "manager": nil, "reports": [["$class": "Employee", "name": "Bob", "manager": ["$ref": 1]]]]
        #expect(try JSONReader().read(Data(contentsOf: paste)) == expected)
        // Without rules, pasteboard keeps undeclared typed edges only conditionally.
        let bare = try CLI.run(["copy", input.path, "-", "--profile", "pasteboard", "--root", "team"])
        #expect(try JSONReader().read(bare.stdout) == ["$class": "Employee", "name": "Ann", "manager": nil, "reports": []])
        // The same copy through a keyed archive.
        let archive = dir.appendingPathComponent("org.archive")
        try KeyedArchive.archive(try KeyedGraph(json: graph)).write(to: archive)
        let archived = dir.appendingPathComponent("paste.archive")
        let keyed = try CLI.run(["copy", archive.path, archived.path, "--rules", Self.rules, "--profile", "pasteboard", "--root", "team"])
        #expect(keyed.status == 0, "\(keyed.stderr)")
        #expect(try KeyedArchive.decodeGraph(Data(contentsOf: archived)).jsonValue() == expected)
    }

    /// A `.zip` export is an export (it was read as a JSON document and refused at byte 0):
    /// the real export zipped by Python's zipfile copies as its directory does.
    @Test func aZipExportCopiesAsItsDirectoryDoes() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let export = Fixtures.real.appendingPathComponent("parse")
        let zip = dir.appendingPathComponent("export.zip")
        let script = #"""
import os, sys, zipfile
source, target = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
    for name in sorted(os.listdir(source)):
        z.write(os.path.join(source, name), name)
"""#
        let zipped = try Peers.python(script, [export.path, zip.path])
        try #require(zipped.status == 0, "\(zipped.stderr)")
        let fromZip = try CLI.run(["copy", zip.path, dir.appendingPathComponent("fromZip").path])
        #expect(fromZip.status == 0, "\(fromZip.stderr)")
        let fromDirectory = try CLI.run(["copy", export.path, dir.appendingPathComponent("fromDirectory").path])
        #expect(fromDirectory.status == 0, "\(fromDirectory.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("fromDirectory").path).sorted()
        #expect(names.contains("NameWord.json"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("fromZip").path).sorted() == names)
        for name in names {
            let a = try Data(contentsOf: dir.appendingPathComponent("fromZip").appendingPathComponent(name))
            let b = try Data(contentsOf: dir.appendingPathComponent("fromDirectory").appendingPathComponent(name))
            #expect(a == b, "\(name)")
        }
    }

    @Test func aFailedCopyLeavesNoOutput() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try writeExport(to: dir)
        let rules = dir.appendingPathComponent("tiny.rules")
        try Data(#"{"profiles": {"tiny": {"extends": "deep", "maxObjects": 2}}}"#.utf8).write(to: rules)
        let out = dir.appendingPathComponent("out")
        let result = try CLI.run(["copy", dir.path, out.path, "--rules", rules.path, "--profile", "tiny"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("maxObjects"))
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let single = dir.appendingPathComponent("one.json")
        let failed = try CLI.run(["copy", dir.appendingPathComponent("Employee.json").path, single.path, "--root", "Employee/nobody"])
        #expect(failed.status == 1 && failed.stderr.contains("no such object"))
        #expect(!FileManager.default.fileExists(atPath: single.path))
    }

    /// Apple's real typedstreams (pytypedstream's samples) are copied as typedstreams: the
    /// copy under the deep profile is the stream `convert` writes from the file's tree, byte
    /// for byte, and `diff` finds nothing between it and Apple's file. On main the input was
    /// taken for a keyed archive ("CBOR: … trailing bytes"), and a tree that went through the
    /// keyed JSON form (`$values` written `$$values`) did not write back.
    @Test(arguments: ["Emacs.clr", "Empty2D macOS 10.14.gcx", "Empty2D macOS 13.gcx"])
    func realTypedstreamsAreCopiedAsTypedstreams(_ name: String) throws {
        let source = Fixtures.repoRoot.appendingPathComponent(".venv/pytypedstream-sdist/pytypedstream-0.1.0/tests/data/\(name)")
        try #require(FileManager.default.fileExists(atPath: source.path), "run scripts/setup.sh")
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let copied = dir.appendingPathComponent("copy.typedstream"), converted = dir.appendingPathComponent("tree.typedstream")
        let copy = try CLI.run(["copy", source.path, copied.path, "--quiet"])
        #expect(copy.status == 0, "\(copy.stderr)")
        #expect(try CLI.run(["convert", source.path, converted.path]).status == 0)
        #expect(try Data(contentsOf: copied) == Data(contentsOf: converted))
        let diff = try CLI.run(["diff", source.path, copied.path])
        #expect(diff.status == 0, "\(diff.stdoutText)")
        // The JSON form of the copy converts back to the same stream too.
        let json = dir.appendingPathComponent("copy.json"), again = dir.appendingPathComponent("again.typedstream")
        #expect(try CLI.run(["convert", source.path, dir.appendingPathComponent("tree.json").path]).status == 0)
        #expect(try CLI.run(["copy", dir.appendingPathComponent("tree.json").path, json.path, "--quiet"]).status == 0)
        let back = try CLI.run(["convert", json.path, again.path])
        #expect(back.status == 0, "\(back.stderr)")
        #expect(try Data(contentsOf: again) == Data(contentsOf: converted))
    }

    /// A class value (`#`, such as an old nib's NSMatrix prototype cell class) keeps its
    /// class version through `copy`: the graph escapes a class value's `$version` as
    /// `$$version`, which the typedstream writer did not read back (a real nib lost
    /// NSActionCell's version 17 to 0). Made with `convert`, as the tree of that nib has it.
    @Test func aClassValueKeepsItsVersionThroughACopy() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tree = ##"{"$class":"Matrix","$version":3,"$values":[{"types":"#i","values":[{"$classRef":"NSActionCell","$version":17,"$classes":["NSActionCell","NSCell","NSObject"],"$versions":[17,65,0]},5]}]}"##
        let json = dir.appendingPathComponent("matrix.json"), stream = dir.appendingPathComponent("matrix.typedstream")
        try Data(tree.utf8).write(to: json)
        #expect(try CLI.run(["convert", json.path, stream.path]).status == 0)
        let copied = dir.appendingPathComponent("copy.typedstream")
        let copy = try CLI.run(["copy", stream.path, copied.path, "--quiet"])
        #expect(copy.status == 0, "\(copy.stderr)")
        let back = try CLI.run(["convert", copied.path, "-", "--to", "json"])
        #expect(back.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == tree, "\(back.stdoutText)\(back.stderr)")
        let diff = try CLI.run(["diff", stream.path, copied.path])
        #expect(diff.status == 0, "\(diff.stdoutText)")
    }

    /// A property list or CBOR document that is not a keyed archive is copied as a JSON
    /// document is and written back in its own format (it was refused: "keyed archive:
    /// missing $archiver"): real plists (rust-plist's, bpylist2's) under every profile, a
    /// CBOR document, and `--root` into one.
    @Test(arguments: ["bplist/rustplist-binary.bplist", "bplist/rustplist-utf16.bplist", "bplist/bpylist2-array_long.bplist",
                      "bplist/bpylist2-date_past.bplist", "xmlplist/rustplist-xml.plist", "xmlplist/rustplist-book.plist"])
    func plainPropertyListsAreCopiedAsDocuments(_ name: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Fixtures.real.appendingPathComponent(name)
        let bytes = try Data(contentsOf: source)
        for profile in ["deep", "shallow", "duplicate", "pasteboard", "persistence"] {
            let output = dir.appendingPathComponent("\(profile)-" + source.lastPathComponent)
            let copy = try CLI.run(["copy", source.path, output.path, "--profile", profile, "--quiet"])
            #expect(copy.status == 0, "\(name) \(profile): \(copy.stderr)")
            let written = try Data(contentsOf: output)
            #expect(written.starts(with: Array("bplist00".utf8)) == bytes.starts(with: Array("bplist00".utf8)), "\(name) \(profile)")
            let diff = try CLI.run(["diff", source.path, output.path])
            #expect(diff.status == 0, "\(name) \(profile): \(diff.stdoutText)\(diff.stderr)")
        }
    }

    @Test func aCBORDocumentAndARootInAPlistAreCopied() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = dir.appendingPathComponent("doc.json"), cbor = dir.appendingPathComponent("doc.cbor")
        try Data(#"{"team":{"name":"reds","players":[{"n":1},{"n":2}]},"season":2024}"#.utf8).write(to: json)
        #expect(try CLI.run(["convert", json.path, cbor.path]).status == 0)
        let copied = dir.appendingPathComponent("copy.cbor")
        let copy = try CLI.run(["copy", cbor.path, copied.path, "--quiet"])
        #expect(copy.status == 0, "\(copy.stderr)")
        #expect(try CLI.run(["diff", cbor.path, copied.path]).status == 0)
        let plist = dir.appendingPathComponent("doc.plist"), part = dir.appendingPathComponent("part.plist")
        #expect(try CLI.run(["convert", json.path, plist.path]).status == 0)
        let rooted = try CLI.run(["copy", plist.path, part.path, "--root", "team.players[1]", "--quiet"])
        #expect(rooted.status == 0, "\(rooted.stderr)")
        let back = try CLI.run(["convert", part.path, "-", "--to", "json"])
        #expect(back.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == #"{"n":2}"#, "\(back.stdoutText)\(back.stderr)")
        // A keyed archive that is damaged is still reported as one, not copied as a document.
        let damaged = Fixtures.real.appendingPathComponent("keyed/bpylist2-neg-invalid_uid_archive.bplist")
        let refused = try CLI.run(["copy", damaged.path, dir.appendingPathComponent("x.bplist").path])
        #expect(refused.status == 1 && refused.stderr.contains("keyed archive: object reference 10 is out of range"), "\(refused.stderr)")
    }

    /// Bytes no format is detected in are refused as `convert` refuses them, not parsed as
    /// JSON ("JSON: unexpected character 'I'" for an old nib's classes.nib).
    @Test func undetectedInputsAreNamedAsConvertNamesThem() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cases: [(String, Data, String)] = [
            ("classes.nib", Data("{\n    IBClasses = ({CLASS = Controller; SUPERCLASS = NSObject; });\n    IBVersion = 1;\n}\n".utf8),
             "an old-style (OpenStep) property list or .strings file, which pfarchive does not read"),
            ("new.plist", Data("bplist15".utf8) + Data(repeating: 0, count: 40), "a binary property list of version 15"),
            ("notes.txt", Data("hello".utf8), "unrecognised format"),
        ]
        for (name, bytes, expected) in cases {
            let input = dir.appendingPathComponent(name), output = dir.appendingPathComponent("out-" + name)
            try bytes.write(to: input)
            let copy = try CLI.run(["copy", input.path, output.path])
            let convert = try CLI.run(["convert", input.path, "-", "--to", "json"])
            #expect(copy.status == 1 && copy.stderr.contains(expected), "\(name): \(copy.stderr)")
            #expect(copy.stderr == convert.stderr, "\(name)")
            #expect(!FileManager.default.fileExists(atPath: output.path))
        }
    }

    /// A store file is no graph: one line naming what it is and the command that copies a
    /// store under rules, instead of a JSON or CBOR error at byte 0 or 1.
    @Test func aStoreFileIsRefusedInOneLine() throws {
        let real = Fixtures.real
        for (path, kind) in [("realm/core-upgrade_4_23.realm", "a Realm file"), ("coredata/coredataplus/SampleModel_V1.sqlite", "an SQLite database")] {
            let dir = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let result = try CLI.run(["copy", real.appendingPathComponent(path).path, dir.appendingPathComponent("out.json").path])
            #expect(result.status == 1)
            #expect(result.stderr.split(separator: "\n").count == 1)
            #expect(result.stderr.contains("\(kind), a store, not a graph"), "\(result.stderr)")
            #expect(result.stderr.contains("--rules"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        }
    }

    /// A `--root` that leads nowhere names the step as a key path (`[5]`, `missing`), not as
    /// Swift prints the enum (`index(5)`, `key("missing")`).
    @Test func aRootThatLeadsNowhereNamesTheStepAsAKeyPath() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("graph.json")
        try Data(#"{"items":[{"$class":"P","n":1}],"name":"x"}"#.utf8).write(to: input)
        for (root, step) in [("items[5]", "no value at [5]"), ("missing", "no value at missing"), ("name.x", "nothing at x")] {
            let result = try CLI.run(["copy", input.path, dir.appendingPathComponent("out.json").path, "--root", root])
            #expect(result.status == 1)
            #expect(result.stderr.contains("--root \(root): \(step)"), "\(result.stderr)")
        }
    }
}
