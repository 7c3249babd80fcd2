import Foundation
import PFStoreTestSupport
import PFStores
import PFTestSupport
import Testing

/// Builds SQLite stores with the `sqlite3` shell, straight from the layout in Docs/Stores.md
/// (so the documented layout is one another tool can write), for `pfarchive import` to read.
enum SQLiteSource {
    static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pfimport-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @discardableResult
    static func sqlite3(_ url: URL, _ sql: String) throws -> String {
        let result = try Peers.run("/usr/bin/sqlite3", [url.path], input: Data(sql.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdoutText
    }

    /// A store with `players` Players and `scores` Scores (each with a pointer to a player,
    /// an int, a double, a date and an ACL) and a relation Player.friends.
    static func make(_ url: URL, players: Int, scores: Int) throws {
        try sqlite3(url, """
            PRAGMA application_id = 1346781554;
            PRAGMA user_version = 1;
            CREATE TABLE "_TABLES" (name TEXT NOT NULL PRIMARY KEY, tableName TEXT NOT NULL UNIQUE COLLATE NOCASE,
              kind TEXT NOT NULL, owningClass TEXT, field TEXT, targetClass TEXT);
            CREATE TABLE "_SCHEMA" (className TEXT NOT NULL, field TEXT NOT NULL, type TEXT NOT NULL, targetClass TEXT,
              columnName TEXT NOT NULL, position INTEGER NOT NULL, PRIMARY KEY (className, field));
            INSERT INTO _TABLES VALUES ('Player', 'Player', 'class', NULL, NULL, NULL), ('Score', 'Score', 'class', NULL, NULL, NULL),
              ('_Join:friends:Player', '_Join:friends:Player', 'join', 'Player', 'friends', 'Player');
            INSERT INTO _SCHEMA VALUES ('Player', 'name', 'String', NULL, 'name', 0), ('Player', 'friends', 'Relation', 'Player', 'friends', 1),
              ('Score', 'player', 'Pointer', 'Player', 'player', 0), ('Score', 'points', 'Number', NULL, 'points', 1),
              ('Score', 'ratio', 'Number', NULL, 'ratio', 2), ('Score', 'at', 'Date', NULL, 'at', 3);
            CREATE TABLE "Player" ("objectId" TEXT UNIQUE, "createdAt" INTEGER, "updatedAt" INTEGER, "ACL" TEXT, "_extra" TEXT, "name" TEXT, "friends" TEXT);
            CREATE TABLE "Score" ("objectId" TEXT UNIQUE, "createdAt" INTEGER, "updatedAt" INTEGER, "ACL" TEXT, "_extra" TEXT,
              "player" TEXT, "points", "ratio", "at" INTEGER);
            CREATE TABLE "_Join:friends:Player" ("owningId" TEXT NOT NULL, "relatedId" TEXT NOT NULL, UNIQUE ("owningId", "relatedId"));
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(players))
              INSERT INTO Player SELECT 'p' || i, 1431996830112 + i, NULL, NULL, NULL, 'player ' || i, NULL FROM n;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(scores))
              INSERT INTO Score SELECT 's' || i, 1600000000000 + i, 1600000000000 + 2 * i, '{"*":{"read":true}}', NULL,
                'p' || (i % \(players) + 1), i, i * 0.5, 1234567890123 + i FROM n;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(players))
              INSERT INTO "_Join:friends:Player" SELECT 'p' || i, 'p' || (i % \(players) + 1) FROM n;
            """)
    }
}

@Suite struct ImportCommandTests {
    @Test func importsSQLiteIntoANewSQLiteStoreAndReportsIt() throws {
        let dir = try SQLiteSource.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("source.sqlite")
        try SQLiteSource.make(source, players: 3, scores: 10)
        try SQLiteSource.sqlite3(source, "UPDATE Score SET player = 'nobody' WHERE objectId = 's4'")
        let dest = dir.appendingPathComponent("dest.sqlite")
        let result = try CLI.run(["import", source.path, dest.path, "--batch-size", "3"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)  // piped: no progress bar
        #expect(result.stdoutText == """
            Player: 3 objects
            Score: 10 objects
            _Join:friends:Player: 3 relation rows
            dangling pointer: Score s4 at player -> Player/nobody
            imported 13 objects of 2 classes and 3 relation rows into \(dest.path); 1 dangling pointer, 0 rejected

            """)
        #expect(try SQLiteSource.sqlite3(dest, "SELECT count(*), sum(points), typeof(ratio) FROM Score WHERE objectId = 's2'") == "1|2|real\n")
        #expect(try SQLiteSource.sqlite3(dest, "SELECT count(*) FROM \"_Join:friends:Player\"") == "3\n")

        // Both files hold the same objects: importing back gives the same report.
        let json = try CLI.run(["import", dest.path, dir.appendingPathComponent("again.sqlite").path, "--json", "--classes", "Score"])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.stdoutText.contains(#""objects": {"#))
        #expect(json.stdoutText.contains(#""Score": 10"#))
        #expect(json.stdoutText.contains(#""danglingPointerCount": 0"#))  // Player left out, not missing
    }

    @Test func aBadRowStopsTheImportAndLeavesDestinationsAlone() throws {
        let dir = try SQLiteSource.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("source.sqlite")
        try SQLiteSource.make(source, players: 2, scores: 5)
        try SQLiteSource.sqlite3(source, "UPDATE Score SET \"at\" = 'soon' WHERE objectId = 's3'")

        let fresh = dir.appendingPathComponent("fresh.sqlite")
        let result = try CLI.run(["import", source.path, fresh.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("table Score, row 3, column at: expected INTEGER milliseconds since 1970, found TEXT"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fresh.path))

        let existing = dir.appendingPathComponent("existing.sqlite")
        try SQLiteSource.make(existing, players: 4, scores: 1)
        let before = try Data(contentsOf: existing)
        let again = try CLI.run(["import", source.path, existing.path])
        #expect(again.status == 1)
        #expect(try Data(contentsOf: existing) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["existing.sqlite", "source.sqlite"])
    }

    @Test func aCoreDataStoreImportsIntoSQLiteAndStaysUntouched() throws {
        let dir = try SQLiteSource.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Fixtures.real.appendingPathComponent("coredata/coredataplus/SampleModel_V1.sqlite")
        let before = try Data(contentsOf: source)
        let dest = dir.appendingPathComponent("app.sqlite")
        let result = try CLI.run(["import", source.path, dest.path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Data(contentsOf: source) == before)
        // Every entity's rows, as sqlite3 counts them per Z_ENT in the source.
        let cars = try SQLiteSource.sqlite3(source, "SELECT count(*) FROM ZCAR WHERE Z_ENT = 1")
        let people = try SQLiteSource.sqlite3(source, "SELECT count(*) FROM ZPERSON")
        #expect(try SQLiteSource.sqlite3(dest, "SELECT count(*) FROM Car; SELECT count(*) FROM Person") == cars + people)
        #expect(result.stdoutText.contains(#""Car": \#(cars.dropLast())"#), "\(result.stdoutText)")
        #expect(try SQLiteSource.sqlite3(dest, "SELECT kind FROM _TABLES WHERE name = 'Person'") == "class\n")
    }

    @Test func coreDataValuesKeptAsStoredOrLeftOutAreWarnedAbout() throws {
        let dir = try SQLiteSource.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("App.sqlite")
        try FileManager.default.copyItem(at: Fixtures.real.appendingPathComponent("coredata/coredataplus/SampleModel_V1.sqlite"), to: source)
        // A string attribute holding a blob and a to-one foreign key that is not an integer,
        // as a damaged or hand-edited store has them.
        try SQLiteSource.sqlite3(source, "UPDATE ZPERSON SET ZID = x'0102' WHERE Z_PK = 1; UPDATE ZCAR SET ZOWNER = 'x' WHERE Z_PK = 1;")
        // Text where the model has the date Parse calls updatedAt: kept, under another name.
        try SQLiteSource.sqlite3(source, "UPDATE ZPERSON SET ZUPDATEDAT = 'yesterday' WHERE Z_PK = 2;")
        let result = try CLI.run(["import", source.path, dir.appendingPathComponent("out.sqlite").path])
        #expect(result.status == 0, "\(result.stderr)")
        let warnings = result.stderr.split(separator: "\n").filter { $0.hasPrefix("pfarchive: warning: \(source.path): ") }
        #expect(warnings.count == 4, "\(result.stderr)")
        #expect(try SQLiteSource.sqlite3(dir.appendingPathComponent("out.sqlite"), "SELECT count(*) FROM Person WHERE _extra LIKE '%yesterday%' OR updatedAt_coreData = 'yesterday'") == "1\n")
        #expect(warnings.contains { $0.contains("Person-1") && $0.contains(".id") }, "\(result.stderr)")
        #expect(warnings.contains { $0.contains("Car-1") && $0.contains("owner") && $0.contains("left out") }, "\(result.stderr)")

        // convert reads the same store as one document, with the same warnings.
        let json = dir.appendingPathComponent("app.json")
        let converted = try CLI.run(["convert", source.path, json.path])
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(converted.stderr.split(separator: "\n").filter { $0.hasPrefix("pfarchive: warning: ") }.count == 4, "\(converted.stderr)")
    }

    @Test func convertWritesACoreDataStoreOrAPfarchiveStoreAsOneDocument() throws {
        let dir = try SQLiteSource.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Fixtures.real.appendingPathComponent("coredata/coredataplus/SampleModel2_V2.sqlite")
        let before = try Data(contentsOf: source)
        let json = dir.appendingPathComponent("app.json")
        let result = try CLI.run(["convert", source.path, json.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Data(contentsOf: source) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["app.json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: [[String: Any]]])
        // Every entity's rows as sqlite3 counts them, and every to-many pair as a join row.
        // Book's rows are those of entity 1 in ZBOOK (GraphicNovel, a sub-entity, shares the table).
        let books = Int(try SQLiteSource.sqlite3(source, "SELECT count(*) FROM ZBOOK WHERE Z_ENT = 1").trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(document["Book"]?.count == books)
        #expect(document["GraphicNovel"]?.count == 1)
        let pairs = Int(
            try SQLiteSource.sqlite3(source, "SELECT count(*) FROM ZPAGE p JOIN ZBOOK b ON p.ZBOOK = b.Z_PK WHERE b.Z_ENT = 1")
                .trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(document["_Join:pages:Book"]?.count == pairs, "\(document.keys.sorted())")
        #expect(document["Book"]?.first?["objectId"] as? String == "Book-1")

        // pfarchive's own store: the import of that store converts to the same objects.
        let store = dir.appendingPathComponent("app.sqlite")
        #expect(try CLI.run(["import", source.path, store.path]).status == 0)
        let again = dir.appendingPathComponent("again.json")
        let fromStore = try CLI.run(["convert", store.path, again.path])
        #expect(fromStore.status == 0, "\(fromStore.stderr)")
        let diff = try CLI.run(["diff", json.path, again.path])
        #expect(diff.status == 0, "\(diff.stdoutText)")
    }

    @Test func usageErrorsExitTwo() throws {
        let dir = try SQLiteSource.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("source.sqlite")
        try SQLiteSource.make(source, players: 1, scores: 1)
        #expect(try CLI.run(["import", source.path]).status == 2)
        #expect(try CLI.run(["import", source.path, dir.appendingPathComponent("o.sqlite").path, "--batch-size", "0"]).status == 2)
        let missing = try CLI.run(["import", source.path, dir.appendingPathComponent("o.sqlite").path, "--classes", "Nope"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("no class Nope"))
        let coreData = try CLI.run(["import", source.path, dir.appendingPathComponent("App.storedata").path])
        #expect(coreData.status == 1)
        #expect(coreData.stderr.contains("Core Data stores are read-only"), "\(coreData.stderr)")
        // Nothing listens on port 1: a clear error naming the URL (without its password).
        let pg = try CLI.run(["import", source.path, "postgres://ann:secret@127.0.0.1:1/app"])
        #expect(pg.status == 1)
        #expect(!pg.stderr.contains("secret"), "\(pg.stderr)")
        // Commands that read files only name such an argument in 'no such file', and a
        // password holding an unescaped '#' or '?' is never repeated either.
        for arguments in [
            ["inspect", "postgres://ann:secret@127.0.0.1:1/app"], ["validate", "postgres://ann:secret@127.0.0.1:1/app"],
            ["copy", "postgres://ann:secret@127.0.0.1:1/app", dir.appendingPathComponent("c.zip").path],
            ["import", source.path, "postgres://ann:sec#ret@127.0.0.1:1/app"], ["import", source.path, "postgres://ann:sec?ret@127.0.0.1:1/app"],
            // diff prints its own errors (exit 2): they are redacted as the others are.
            ["diff", "postgres://ann:secret@127.0.0.1:1/app", source.path], ["diff", source.path, "postgres://ann:sec#ret@127.0.0.1:1/app"],
            ["patch", "postgres://ann:secret@127.0.0.1:1/app", source.path, dir.appendingPathComponent("p.sqlite").path],
        ] {
            let run = try CLI.run(arguments)
            #expect(run.status != 0 && !run.stderr.contains("ret@") && !run.stderr.contains("secret"), "\(arguments): \(run.stderr)")
        }
        let nothing = try CLI.run(["import", dir.appendingPathComponent("none.sqlite").path, dir.appendingPathComponent("o.sqlite").path])
        #expect(nothing.status == 1)
        #expect(nothing.stderr.contains("no such file"))
        let help = try CLI.run(["import", "--help"])
        #expect(help.stdoutText.contains("pfarchive import export/ app.sqlite"))
    }

    /// Kills an import half way (SIGKILL), checks the destination is consistent, and checks
    /// that running the import again completes it.
    @Test(arguments: [false, true])
    func aKilledImportLeavesAConsistentDestinationAndReRunningCompletesIt(existing: Bool) throws {
        let dir = try SQLiteSource.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("source.sqlite")
        let scores = 300_000
        try SQLiteSource.make(source, players: 1000, scores: scores)
        let dest = dir.appendingPathComponent("dest.sqlite")
        if existing { try SQLiteSource.make(dest, players: 5, scores: 2) }
        let before = existing ? try Data(contentsOf: dest) : nil

        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = ["import", source.path, dest.path, "--batch-size", "500"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait until the import has written a good part (the temporary sibling, or the
        // rollback journal of the existing file, has grown), then kill it.
        let deadline = Date().addingTimeInterval(300)
        var killed = false
        while process.isRunning && Date() < deadline {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            let partial = names.filter { $0.hasPrefix(".dest.sqlite.pfarchive-") || $0 == "dest.sqlite-journal" }
            let written = partial.compactMap { try? FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent($0).path)[.size] as? Int }
            let grown = existing
                ? ((try? FileManager.default.attributesOfItem(atPath: dest.path)[.size] as? Int) ?? 0) > (before?.count ?? 0) + (4 << 20)
                : written.contains { $0 > 4 << 20 }
            if grown {
                kill(process.processIdentifier, SIGKILL)
                killed = true
                break
            }
            usleep(20_000)
        }
        process.waitUntilExit()
        #expect(killed, "the import finished before it could be killed; make the source larger")
        #expect(process.terminationReason == .uncaughtSignal)

        // Consistent: a new destination is absent; an existing one reads as before (SQLite
        // rolls back the hot journal the killed run left).
        if existing {
            #expect(try SQLiteSource.sqlite3(dest, "SELECT count(*) FROM Score; SELECT count(*) FROM Player;") == "2\n5\n")
        } else {
            #expect(!FileManager.default.fileExists(atPath: dest.path))
        }

        let rerun = try CLI.run(["import", source.path, dest.path])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(try SQLiteSource.sqlite3(dest, "SELECT count(*), count(DISTINCT objectId), sum(points) FROM Score") == "\(scores)|\(scores)|\(scores * (scores + 1) / 2)\n")
        #expect(try SQLiteSource.sqlite3(dest, "SELECT count(*) FROM Player; PRAGMA integrity_check;") == "1000\nok\n")
        // Nothing is left beside the store: the killed run's temporary sibling was removed.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["dest.sqlite", "source.sqlite"])
    }
}

@Suite struct ImportRoundTripCommandTests {
    /// Parse export → SQLite → Parse export, through the CLI, for the sample and the real
    /// Parse.com export: the same objects, relations and schema come back.
    @Test(arguments: ["Samples/stores/export", "Tests/Fixtures/real/parse"])
    func exportToSQLiteAndBack(_ path: String) throws {
        let dir = try SQLiteSource.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let export = Fixtures.repoRoot.appendingPathComponent(path)
        let sqlite = dir.appendingPathComponent("store.sqlite")
        let back = dir.appendingPathComponent("back")
        let first = try CLI.run(["import", export.path, sqlite.path])
        #expect(first.status == 0, "\(first.stderr)")
        let second = try CLI.run(["import", sqlite.path, back.path])
        #expect(second.status == 0, "\(second.stderr)")
        let original = ParseExportStore(url: export)
        let copy = ParseExportStore(url: back)
        let diff = try StoreComparison.firstDifference(expected: original, actual: copy, schema: .covers)
        #expect(diff == nil, "\(diff ?? "")")
    }

    /// One class file of a real Parse export imports as an export of that class, and
    /// `inspect` shows the store it made (classes, counts, field types) without writing a file
    /// beside it.
    @Test func oneClassFileImportsAndInspectShowsTheStore() throws {
        let dir = try SQLiteSource.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = Fixtures.real.appendingPathComponent("parse/Comment.json")
        let sqlite = dir.appendingPathComponent("comments.sqlite")
        let result = try CLI.run(["import", file.path, sqlite.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.hasSuffix("imported 1 object of 1 class and 0 relation rows into \(sqlite.path); 3 dangling pointers, 0 rejected\n"), "\(result.stdoutText)")
        let text = try CLI.run(["inspect", sqlite.path])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdoutText.hasPrefix("File:        \(sqlite.path)\nFormat:      pfarchive SQLite store\nClass Comment — 1 object\n  by: Pointer<_User>\n"), "\(text.stdoutText)")
        #expect(text.stdoutText.contains("  upvotes: Number\n"))
        let json = try CLI.run(["inspect", sqlite.path, "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        #expect(report["format"] as? String == "pfarchive-sqlite")
        let comment = (report["classes"] as? [String: Any])?["Comment"] as? [String: Any]
        #expect(comment?["objects"] as? Int == 1)
        #expect((comment?["fields"] as? [String: String])?["parentWord"] == "Pointer<Word>")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["comments.sqlite"])
        // A file that is neither a class file nor a zip still says what an export is.
        let other = dir.appendingPathComponent("notes.txt")
        try Data("hello".utf8).write(to: other)
        let refused = try CLI.run(["import", other.path, dir.appendingPathComponent("x.sqlite").path])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("a Parse export is a directory, a .zip of class files or one <Class>.json file"), "\(refused.stderr)")
    }

    @Test func theSampleReportsItsDanglingPointerAndKeepsNumbersApart() throws {
        let dir = try SQLiteSource.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sqlite = dir.appendingPathComponent("out.sqlite")
        let result = try CLI.run(["import", Fixtures.repoRoot.appendingPathComponent("Samples/stores/export").path, sqlite.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.contains("dangling pointer: Post pGone003 at author -> _User/uDeleted"), "\(result.stdoutText)")
        #expect(result.stdoutText.contains("_Join:likes:Post: 3 relation rows"))
        #expect(try SQLiteSource.sqlite3(sqlite, "SELECT typeof(views), typeof(rating), rating FROM Post WHERE objectId = 'pHello01'") == "integer|real|4.0\n")
        #expect(try SQLiteSource.sqlite3(sqlite, "SELECT count(*) FROM Draft") == "0\n")
    }
}
