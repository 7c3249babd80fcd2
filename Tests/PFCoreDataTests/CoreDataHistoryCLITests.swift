import Foundation
import PFCore
import PFTestSupport
import Testing

/// A Core Data store's persistent history (`ACHANGE`, `ATRANSACTION`, `ATRANSACTIONSTRING`)
/// through the tool: `inspect` says it is left out and how to read it; `--internal-tables`
/// reads it in `inspect`, `convert`, `import` and `diff` (it was refused by `import`, and
/// ignored by `convert` and `inspect`, so a Notes store's 19,694 changes were lost unsaid).
@Suite struct CoreDataHistoryCLITests {
    @Test func theHistoryIsNamedWhenLeftOutAndReadWithInternalTables() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-cd-history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try CoreDataFixtures.copy("coredataplus/SampleModel2_V2.sqlite", to: dir)
        let changes = try CoreDataFixtures.sqlite(store, ["SELECT COUNT(*) FROM ACHANGE"]).first?.first.flatMap { Int($0) }
        #expect(changes == 126)

        let plain = try CLI.run(["inspect", store.path])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdoutText.contains("Persistent history (left out of conversions; --internal-tables reads it): ACHANGE (126 rows)"), "\(plain.stdoutText)")
        #expect(!plain.stdoutText.contains("Entity CHANGE"))
        let all = try CLI.run(["inspect", store.path, "--internal-tables"])
        #expect(all.stdoutText.contains("Entity CHANGE — table ACHANGE") && !all.stdoutText.contains("Persistent history"), "\(all.stdoutText)")

        let json = dir.appendingPathComponent("all.json")
        #expect(try CLI.run(["convert", store.path, json.path, "--internal-tables"]).status == 0)
        let count = try Peers.python("import json, sys; print(len(json.load(open(sys.argv[1]))['CHANGE']))", [json.path])
        #expect(count.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "126", "\(count.stderr)")
        // As Core Data's history model declares them: a transaction's timestamp is a date, and
        // a change's transaction and a transaction's interned strings are links.
        let shapes = try Peers.python(
            """
            import json, sys
            d = json.load(open(sys.argv[1]))
            t, c = d['TRANSACTION'][0], d['CHANGE'][0]
            print(t['timestamp']['__type'], c['transactionid']['__type'], c['transactionid']['className'],
                  sorted({v['className'] for k, v in t.items() if k.endswith('ts') and isinstance(v, dict)}))
            """, [json.path])
        #expect(shapes.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "Date Pointer TRANSACTION ['TRANSACTIONSTRING']", "\(shapes.stdoutText)\(shapes.stderr)")

        let imported = dir.appendingPathComponent("all.sqlite")
        let run = try CLI.run(["import", store.path, imported.path, "--internal-tables"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try CoreDataFixtures.sqlite(imported, ["SELECT COUNT(*) FROM \"CHANGE\""]).first?.first == "126")
        let diff = try CLI.run(["diff", store.path, imported.path, "--internal-tables"])
        #expect(diff.status == 0 && diff.stdoutText.hasPrefix("no differences"), "\(diff.stdoutText)\(diff.stderr)")
        // Without the option an import leaves the history out, as before.
        let model = dir.appendingPathComponent("model.sqlite")
        #expect(try CLI.run(["import", store.path, model.path]).status == 0)
        #expect(try CoreDataFixtures.sqlite(model, ["SELECT COUNT(*) FROM sqlite_master WHERE name = 'CHANGE'"]).first?.first == "0")
    }

    /// A change's tombstone columns (`ZTOMBSTONE0`…, declared BLOB) hold the deleted object's
    /// values of any type: read as stored, without a warning per value (a knowledgeC store
    /// printed 1,014 "text where Binary was expected").
    @Test func tombstonesOfAnyTypeAreReadWithoutWarnings() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-cd-tombstone-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try CoreDataFixtures.copy("coredataplus/SampleModel2_V2.sqlite", to: dir)
        try CoreDataFixtures.sqlite(store, [
            "ALTER TABLE ACHANGE ADD COLUMN ZTOMBSTONE0 BLOB",
            "UPDATE ACHANGE SET ZTOMBSTONE0 = CASE Z_PK % 3 WHEN 0 THEN 'deleted title' WHEN 1 THEN 42 ELSE X'0102' END",
        ])
        let json = dir.appendingPathComponent("all.json")
        let run = try CLI.run(["convert", store.path, json.path, "--internal-tables"])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        let kinds = try Peers.python(
            "import json, sys; print(sorted({type(c.get('tombstone0')).__name__ for c in json.load(open(sys.argv[1]))['CHANGE']}))", [json.path])
        #expect(kinds.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "['dict', 'int', 'str']", "\(kinds.stdoutText)\(kinds.stderr)")
    }
}

/// What `inspect` prints of an inferred model is the same in every process: join tables were
/// read, and subentities' shared columns matched, in a dictionary's order, which Swift seeds
/// per process (Kik's join-table guesses and Apple Notes' "by Z_ENT order" guesses came out
/// shuffled from one run to the next).
@Suite struct InferredModelOrderCLITests {
    @Test(arguments: ["plaso/kik.sqlite"])
    func inspectIsTheSameInEveryProcess(_ path: String) throws {
        let store = CoreDataFixtures.store(path)
        let first = try CLI.run(["inspect", store.path])
        #expect(first.status == 0, "\(first.stderr)")
        for _ in 0..<5 {
            let again = try CLI.run(["inspect", store.path])
            #expect(again.stdout == first.stdout)
        }
        let joins = first.stdoutText.split(separator: "\n").filter { $0.contains("- join table ") }
        #expect(joins.count == 4 && joins == joins.sorted(), "\(joins)")
    }
}
