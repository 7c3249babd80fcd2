import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFParse
import PFParseExport
import PFStoreTestSupport
import PFStores
import PFTestSupport
import Testing

/// Relations that live only in join files (and schemas), empty class files, rules checked
/// against the input, and relation targets inferred from the related ids: `pfarchive copy`
/// and `pfarchive import` on exports with Parse.com's and other exporters' quirks (issue #20,
/// failures 2–4).
@Suite struct CopyRelationsCLITests {
    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("copyrel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func pointer(_ c: String, _ id: String) -> PFValue { ["__type": "Pointer", "className": .string(c), "objectId": .string(id)] }

    /// The members of Team.members, as (team name, player name).
    static let members: Set<[String]> = [["Reds", "Ann"], ["Reds", "Bob"], ["Blues", "Bob"], ["Blues", "Cy"]]

    /// A Parse.com-style export: no `_SCHEMA.json`; Team's rows do not carry their Relation
    /// field `members` (it lives only in the join file, named with U+A789 for `:`); an empty
    /// class as a 0-byte file and another as `{"results":[]}`; an empty join file; a Pointer
    /// to a class that was not exported (Coach).
    func writeQuirkyExport(to dir: URL) throws {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let players: PFValue = ["results": [
            ["objectId": "pAnn", "name": "Ann", "score": 3, "team": Self.pointer("Team", "tReds"), "coach": Self.pointer("Coach", "cGone")],
            ["objectId": "pBob", "name": "Bob", "score": 5],
            ["objectId": "pCy", "name": "Cy", "score": 1, "team": Self.pointer("Team", "tBlues")],
        ]]
        let teams: PFValue = ["results": [["objectId": "tReds", "name": "Reds"], ["objectId": "tBlues", "name": "Blues"]]]
        let joins: PFValue = ["results": [
            ["owningId": "tReds", "relatedId": "pAnn"], ["owningId": "tReds", "relatedId": "pBob"],
            ["owningId": "tBlues", "relatedId": "pBob"], ["owningId": "tBlues", "relatedId": "pCy"],
        ]]
        try JSONWriter().write(players).write(to: dir.appendingPathComponent("Player.json"))
        try JSONWriter().write(teams).write(to: dir.appendingPathComponent("Team.json"))
        try JSONWriter().write(joins).write(to: dir.appendingPathComponent("_Join\u{A789}members\u{A789}Team.json"))
        try Data().write(to: dir.appendingPathComponent("_Installation.json"))
        try Data(#"{"results":[]}"#.utf8).write(to: dir.appendingPathComponent("Empty.json"))
        try Data().write(to: dir.appendingPathComponent("_Join:fans:Team.json"))
    }

    func rows(_ file: URL) throws -> [OrderedDictionary<String, PFValue>] {
        try ParseExport.rows(fromJSON: Data(contentsOf: file)).rows.compactMap(\.dictionaryValue)
    }

    /// objectId → name of a class file's objects.
    func names(_ file: URL) throws -> [String: String] {
        var out: [String: String] = [:]
        for row in try rows(file) {
            if case .string(let id)? = row["objectId"], case .string(let name)? = row["name"] { out[id] = name }
        }
        return out
    }

    /// The join rows of a relation file as (owner name, member name).
    func members(_ out: URL, owner: String, target: String, field: String) throws -> [[String]] {
        let owners = try names(out.appendingPathComponent("\(owner).json"))
        let targets = try names(out.appendingPathComponent("\(target).json"))
        return try rows(out.appendingPathComponent("_Join:\(field):\(owner).json")).map { row in
            [owners[row["owningId"]?.stringValue ?? ""] ?? "?", targets[row["relatedId"]?.stringValue ?? ""] ?? "?"]
        }
    }

    // MARK: - Failure 2: relations and empty classes survive copy

    /// The real Parse.com export (AnglishWordbook): its 0-byte `_Join:users:_Role.json` and
    /// every class file come through, with every profile. On the old main the join file was
    /// missing from the copy.
    @Test(arguments: ["deep", "duplicate", "pasteboard"])
    func theRealExportKeepsEveryFile(profile: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let export = Fixtures.real.appendingPathComponent("parse")
        let out = dir.appendingPathComponent("out")
        let result = try CLI.run(["copy", export.path, out.path, "--profile", profile, "--seed", "7"])
        #expect(result.status == 0, "\(result.stderr)")
        let input = try FileManager.default.contentsOfDirectory(atPath: export.path).filter { $0.hasSuffix(".json") }.sorted()
        let output = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(output == input)
        #expect(try rows(out.appendingPathComponent("_Join:users:_Role.json")).isEmpty)
        for name in input where !name.hasPrefix("_Join") {
            let before = try rows(export.appendingPathComponent(name)).count
            #expect(try rows(out.appendingPathComponent(name)).count == before, "\(name)")
        }
    }

    /// Relation rows only in a join file: the default profile keeps every row and every
    /// class file (empty ones too), and adds no Relation field to the rows. On the old main
    /// the copy had no join file and no empty classes.
    @Test func joinOnlyRelationsSurviveTheDefaultProfile() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let export = dir.appendingPathComponent("export")
        try writeQuirkyExport(to: export)
        let out = dir.appendingPathComponent("out")
        let result = try CLI.run(["copy", export.path, out.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.contains("relation _Join:members:Team: target class Player inferred"), "\(result.stdoutText)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(files == ["Empty.json", "Player.json", "Team.json", "_Installation.json", "_Join:fans:Team.json", "_Join:members:Team.json"])
        #expect(Set(try members(out, owner: "Team", target: "Player", field: "members")) == Self.members)
        #expect(try rows(out.appendingPathComponent("_Join:members:Team.json")).count == 4)
        #expect(try rows(out.appendingPathComponent("Team.json")).allSatisfy { $0["members"] == nil && $0["fans"] == nil })
        #expect(try rows(out.appendingPathComponent("_Installation.json")).isEmpty)
        let ann = try rows(out.appendingPathComponent("Player.json")).first { $0["name"] == "Ann" }
        #expect(ann?["coach"] == Self.pointer("Coach", "cGone"), "a Pointer to a class not exported is kept")
    }

    /// A join row whose owner is no object of the export has nothing to hang on in the graph:
    /// the copy says so rather than dropping it silently.
    @Test func joinRowsOfMissingOwnersAreReported() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let export = dir.appendingPathComponent("export")
        try writeQuirkyExport(to: export)
        try JSONWriter().write(["results": [["owningId": "tGone", "relatedId": "pAnn"], ["owningId": "tReds", "relatedId": "pCy"]]])
            .write(to: export.appendingPathComponent("_Join:fans:Team.json"))
        let out = dir.appendingPathComponent("out")
        let result = try CLI.run(["copy", export.path, out.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.contains("1 row of _Join:fans:Team names an owner not in the input (not copied)"), "\(result.stdoutText)")
        #expect(try rows(out.appendingPathComponent("_Join:fans:Team.json")).map { $0["owningId"] } == ["tReds"])
    }

    /// `duplicate` gives every copied object a new id and rewrites both sides of each join row.
    @Test func duplicateRewritesBothSidesOfEachJoinRow() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let export = dir.appendingPathComponent("export")
        try writeQuirkyExport(to: export)
        let out = dir.appendingPathComponent("out")
        let result = try CLI.run(["copy", export.path, out.path, "--profile", "duplicate", "--seed", "3"])
        #expect(result.status == 0, "\(result.stderr)")
        let joins = try rows(out.appendingPathComponent("_Join:members:Team.json"))
        #expect(joins.count == 4)
        let old: Set<String> = ["tReds", "tBlues", "pAnn", "pBob", "pCy"]
        #expect(joins.allSatisfy { !old.contains($0["owningId"]?.stringValue ?? "tReds") && !old.contains($0["relatedId"]?.stringValue ?? "pAnn") })
        #expect(Set(try members(out, owner: "Team", target: "Player", field: "members")) == Self.members, "rows name the copies")
        let cy = try rows(out.appendingPathComponent("Player.json")).first { $0["name"] == "Cy" }
        let blues = try names(out.appendingPathComponent("Team.json")).first { $0.value == "Blues" }?.key
        #expect(blues != nil && cy?["team"] == Self.pointer("Team", blues ?? ""))
    }

    /// `omit` on the relation empties it (the join file stays, with no rows); `conditional`
    /// keeps the rows whose members are copied anyway.
    @Test func omitAndConditionalActOnJoinOnlyRelations() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let export = dir.appendingPathComponent("export")
        try writeQuirkyExport(to: export)
        let rules = dir.appendingPathComponent("rules.json")
        try Data(#"{"profiles":{"o":{"edges":{"Team.members":"omit"}},"c":{"edges":{"Team.members":"conditional","Player.team":"omit"}}}}"#.utf8)
            .write(to: rules)
        let omitted = dir.appendingPathComponent("omitted")
        let first = try CLI.run(["copy", export.path, omitted.path, "--rules", rules.path, "--profile", "o"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try rows(omitted.appendingPathComponent("_Join:members:Team.json")).isEmpty)
        #expect(try rows(omitted.appendingPathComponent("Player.json")).count == 3)
        // Rooted at the Reds: Ann and Bob are not reached other than through the relation, so
        // a conditional relation drops them.
        let rooted = dir.appendingPathComponent("rooted")
        let second = try CLI.run(["copy", export.path, rooted.path, "--rules", rules.path, "--profile", "c", "--root", "Team/tReds"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try rows(rooted.appendingPathComponent("_Join:members:Team.json")).isEmpty)
        #expect(try rows(rooted.appendingPathComponent("Team.json")).count == 1)
        // Copying everything, every member is copied, so the conditional rows are all kept.
        let all = dir.appendingPathComponent("all")
        let third = try CLI.run(["copy", export.path, all.path, "--rules", rules.path, "--profile", "c"])
        #expect(third.status == 0, "\(third.stderr)")
        #expect(Set(try members(all, owner: "Team", target: "Player", field: "members")) == Self.members)
    }

    /// `_SCHEMA.json` declares a relation too (with its target, so nothing is inferred), and
    /// a class it names without a file; the copy keeps both and the schema file as it was.
    @Test func theSchemaFileDeclaresRelationsAndIsKept() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let export = dir.appendingPathComponent("export")
        try writeQuirkyExport(to: export)
        try FileManager.default.removeItem(at: export.appendingPathComponent("_Join\u{A789}members\u{A789}Team.json"))
        let schema = Data(#"{"results":[{"className":"Team","fields":{"name":{"type":"String"},"members":{"type":"Relation","targetClass":"Player"}}},{"className":"Ghost","fields":{}}]}"#.utf8)
        try schema.write(to: export.appendingPathComponent("_SCHEMA.json"))
        let out = dir.appendingPathComponent("out")
        let result = try CLI.run(["copy", export.path, out.path, "--profile", "duplicate"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdoutText.contains("_Join:members:Team: target"), "the schema names the target")
        #expect(try Data(contentsOf: out.appendingPathComponent("_SCHEMA.json")) == schema)
        #expect(try rows(out.appendingPathComponent("Ghost.json")).isEmpty)
        #expect(try rows(out.appendingPathComponent("_Join:members:Team.json")).isEmpty, "declared, with no rows")
    }

    // MARK: - Failure 3: rules checked against the input

    /// A rule naming a key or class the input does not have is an error naming its JSON path,
    /// exit 1, with or without `--dry-run`, and for `import --rules`; the old main copied with
    /// exit 0. Relations from join files count as keys.
    @Test func rulesNamingWhatTheInputLacksAreErrors() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let export = dir.appendingPathComponent("export")
        try writeQuirkyExport(to: export)
        let cases: [(String, [String])] = [
            (#"{"profiles":{"p":{"edges":{"Player.nosuchkey":"copy"}}}}"#, [#"profiles.p.edges["Player.nosuchkey"]"#, "Player has no key nosuchkey (known: ACL, coach,"]),
            (#"{"profiles":{"p":{"attributes":{"Plyer.name":"omit"}}}}"#, ["profiles.p.attributes", "the input has no class Plyer"]),
            (#"{"rules":{"attributes":{"*.colour":"omit"}},"profiles":{"p":{}}}"#, ["rules.attributes", "no class of the input has a key colour"]),
            (#"{"profiles":{"base":{"edges":{"Team.member":"omit"}},"p":{"extends":"base"}}}"#, ["profiles.base.edges", "Team has no key member"]),
        ]
        for (i, (text, expected)) in cases.enumerated() {
            let rules = dir.appendingPathComponent("rules\(i).json")
            try Data(text.utf8).write(to: rules)
            for extra in [[], ["--dry-run"]] {
                let out = dir.appendingPathComponent("out\(i)")
                let result = try CLI.run(["copy", export.path, out.path, "--rules", rules.path, "--profile", "p"] + extra)
                #expect(result.status == 1, "\(text) \(extra)")
                #expect(result.stderr.hasPrefix("pfarchive: \(rules.path): "), "\(result.stderr)")
                for part in expected { #expect(result.stderr.contains(part), "\(result.stderr)") }
                #expect(result.stderr.split(separator: "\n").count == 1)
                #expect(!FileManager.default.fileExists(atPath: out.path))
            }
            let store = dir.appendingPathComponent("store\(i).sqlite")
            let imported = try CLI.run(["import", export.path, store.path, "--rules", rules.path, "--profile", "p"])
            #expect(imported.status == 1, "\(text)")
            #expect(imported.stderr.hasPrefix("pfarchive: \(rules.path): "), "\(imported.stderr)")
            for part in expected { #expect(imported.stderr.contains(part), "\(imported.stderr)") }
            #expect(!FileManager.default.fileExists(atPath: store.path))
        }
        // Keys the rows lack but the join files declare, and the built-in fields, are known.
        let good = dir.appendingPathComponent("good.json")
        try Data(#"{"profiles":{"p":{"edges":{"Team.members":"copy","Team.fans":"omit"},"attributes":{"*.name":"copy","_Installation.ACL":"omit"}}}}"#.utf8).write(to: good)
        let ok = try CLI.run(["copy", export.path, dir.appendingPathComponent("ok").path, "--rules", good.path, "--profile", "p"])
        #expect(ok.status == 0, "\(ok.stderr)")
        let okImport = try CLI.run(["import", export.path, dir.appendingPathComponent("ok.sqlite").path, "--rules", good.path, "--profile", "p"])
        #expect(okImport.status == 0, "\(okImport.stderr)")
    }

    /// A single class file: its objects' fields and Parse's built-in fields are its keys.
    @Test func aClassFileIsCheckedToo() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("Post.json")
        try Data(#"{"results":[{"objectId":"a","title":"x"}]}"#.utf8).write(to: file)
        let rules = dir.appendingPathComponent("rules.json")
        try Data(#"{"profiles":{"p":{"attributes":{"Post.ACL":"omit","Post.titel":"omit"}}}}"#.utf8).write(to: rules)
        let result = try CLI.run(["copy", file.path, dir.appendingPathComponent("out.json").path, "--rules", rules.path, "--profile", "p"])
        #expect(result.status == 1)
        #expect(result.stderr.contains(#"profiles.p.attributes["Post.titel"]: Post has no key titel (known: ACL, createdAt, objectId, title, updatedAt)"#), "\(result.stderr)")
    }

    // MARK: - Failure 4: relation targets inferred, every writer readable

    /// An export without `_SCHEMA.json` whose relation lives only in its join file goes into
    /// the Mongo shape with `relation<Player>` in `_SCHEMA`, reads back, and comes back out as
    /// an export with the same objects and join rows and the target in its schema. On the old
    /// main the Mongo writer wrote `relation<>` and the read back failed.
    @Test func aRelationWithoutSchemaPassesThroughTheMongoShape() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let export = dir.appendingPathComponent("export")
        try writeQuirkyExport(to: export)
        let mongo = dir.appendingPathComponent("shape.jsonl")
        let first = try CLI.run(["import", export.path, mongo.path, "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        let report = try JSONReader().read(first.stdout)
        let findings = (try report.value(atPath: "relationTargets"))?.arrayValue ?? []
        let found = findings.first { $0.dictionaryValue?["relation"] == "_Join:members:Team" }
        #expect(found?.dictionaryValue?["targetClass"] == "Player", "\(findings)")
        #expect(found?.dictionaryValue?["relatedIds"] == 3)
        #expect(try report.value(atPath: "danglingPointers[0].targetClass") == "Coach", "reported, not fatal")
        let schema = try String(contentsOf: mongo.appendingPathComponent("_SCHEMA.json"), encoding: .utf8)
        #expect(schema.contains(#""members":"relation<Player>""#), "\(schema)")
        #expect(!schema.contains("relation<>"))
        // Read as stored (parse-server's REST reader adds the Relation field to each object).
        var plain = MongoShapeStore.Options()
        plain.addRelationFields = false
        let stored = MongoShapeStore(directory: mongo, options: plain)
        // (Schemas differ on purpose: the store knows the target the export does not name.)
        let diff = try StoreComparison.firstDifference(expected: ParseExportStore(url: export), actual: stored, schema: .ignored)
        #expect(diff == nil, "\(diff ?? "")")
        let back = dir.appendingPathComponent("back")
        let second = try CLI.run(["import", mongo.path, back.path])
        #expect(second.status == 0, "\(second.stderr)")
        let backSchema = try ParseExportStore(url: back).schema()
        #expect(backSchema.classes["Team"]?["members"] == ParseSchema.Field(.relation, targetClass: "Player"))
        #expect(Set(try members(back, owner: "Team", target: "Player", field: "members")) == Self.members)
    }

    /// Related ids found in two classes, or in none: the target stays unknown and is reported
    /// by name with the ids; every writer still writes what its reader accepts (no
    /// `relation<>`), and the join rows come back.
    @Test(arguments: ["shape.jsonl", "store.sqlite", "export2", "store.archive"])
    func anUnknownTargetIsReportedAndEveryStoreReadsBack(_ destination: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let export = dir.appendingPathComponent("export")
        try writeQuirkyExport(to: export)
        // fans: one id is a Player, one a Team (ambiguous); ghosts: ids of no object.
        try JSONWriter().write(["results": [["owningId": "tReds", "relatedId": "pAnn"], ["owningId": "tReds", "relatedId": "tBlues"]]])
            .write(to: export.appendingPathComponent("_Join:fans:Team.json"))
        try JSONWriter().write(["results": [["owningId": "pAnn", "relatedId": "zz1"], ["owningId": "pBob", "relatedId": "zz2"]]])
            .write(to: export.appendingPathComponent("_Join:ghosts:Player.json"))
        let store = dir.appendingPathComponent(destination)
        let first = try CLI.run(["import", export.path, store.path])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdoutText.contains("relation _Join:fans:Team: target class unknown: its related ids are objects of Player and Team"), "\(first.stdoutText)")
        #expect(first.stdoutText.contains("relation _Join:ghosts:Player: target class unknown: none of its 2 related ids is an object of the source (zz1, zz2)"), "\(first.stdoutText)")
        #expect(first.stdoutText.contains("relation _Join:members:Team: target class Player inferred"))
        if destination.hasSuffix(".jsonl") {
            let schema = try String(contentsOf: store.appendingPathComponent("_SCHEMA.json"), encoding: .utf8)
            #expect(!schema.contains("relation<>") && !schema.contains("\"*\""), "\(schema)")
        }
        let back = dir.appendingPathComponent("back")
        let second = try CLI.run(["import", store.path, back.path])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(Set(try members(back, owner: "Team", target: "Player", field: "members")) == Self.members)
        #expect(try rows(back.appendingPathComponent("_Join:fans:Team.json")).count == 2)
        #expect(try rows(back.appendingPathComponent("_Join:ghosts:Player.json")).count == 2)
    }

    /// An export pfarchive wrote with encoded names (a field, a nested key and a Relation
    /// named with '.' and '$') is copied: the copy keeps the names as the files hold them, its
    /// `_SCHEMA.json` keeps the originals, and importing the copy gives the original names
    /// back. (copy once re-checked the decoded names against Parse's rules and failed.)
    @Test func anExportWithEncodedNamesIsCopiedAndReadsBackWithItsNames() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("src")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        let things: PFValue = ["results": [[
            "objectId": "t1", "pf__com_2e_apple_2e_key": 1, "pf___24_money": ["pf__a_2e_b": 2],
            "pf__fri_2e_ends": ["__type": "Relation", "className": "Thing"],
        ]]]
        let schema: PFValue = [
            "results": [["className": "Thing", "fields": [
                "pf__com_2e_apple_2e_key": ["type": "Number", "pfarchiveName": "com.apple.key"],
                "pf___24_money": ["type": "Object", "pfarchiveName": "$money"],
                "pf__fri_2e_ends": ["type": "Relation", "targetClass": "Thing", "pfarchiveName": "fri.ends"],
            ]]],
            "pfarchiveNameCoding": "pf__",
        ]
        try JSONWriter().write(things).write(to: source.appendingPathComponent("Thing.json"))
        try JSONWriter().write(schema).write(to: source.appendingPathComponent("_SCHEMA.json"))
        try JSONWriter().write(["results": [["owningId": "t1", "relatedId": "t1"]]] as PFValue)
            .write(to: source.appendingPathComponent("_Join:pf__fri_2e_ends:Thing.json"))
        let copy = dir.appendingPathComponent("copy")
        let run = try CLI.run(["copy", source.path, copy.path])
        #expect(run.status == 0, "\(run.stderr)")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: copy.path)) ?? []).sorted()
        #expect(names == ["Thing.json", "_Join:pf__fri_2e_ends:Thing.json", "_SCHEMA.json"], "\(names)")
        let row = try rows(copy.appendingPathComponent("Thing.json")).first
        #expect(row?["pf__com_2e_apple_2e_key"] == 1 && row?["pf___24_money"] == ["pf__a_2e_b": 2], "\(String(describing: row))")
        // Read back through a store that holds any name: the originals.
        let archive = dir.appendingPathComponent("back.archive")
        let back = try CLI.run(["import", copy.path, archive.path])
        #expect(back.status == 0 && back.stdoutText.contains("1 relation row"), "\(back.stderr)")
        let json = try CLI.run(["convert", archive.path, "-", "--to", "json"])
        for name in ["com.apple.key", "$money", "a.b", "fri.ends"] {
            #expect(json.stdoutText.contains("\"\(name)\""), "\(name) missing")
        }
    }
}
