import Foundation
import PFCoreDataTestSupport
import PFTestSupport
import Testing

/// Issue 24 through the command line: `inspect`, `convert --table` and `import` on an SQLite
/// database made by the sqlite3 shell.
@Suite struct SQLiteDatabaseCommandTests {
    /// A new directory of its own for one test.
    static func temporaryDirectory(_ prefix: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static func database(in dir: URL) throws -> URL {
        let url = dir.appendingPathComponent("chat.db")
        // 62706C6973743030 is "bplist00": a claimed binary plist that does not decode.
        try CoreDataStoreBuilder.sqlite3(
            url,
            """
            CREATE TABLE handle(ROWID INTEGER PRIMARY KEY, id TEXT);
            CREATE TABLE message(ROWID INTEGER PRIMARY KEY, text TEXT, handle_id INTEGER REFERENCES handle(ROWID), date INTEGER, payload BLOB);
            INSERT INTO handle VALUES (1, '+15555550100');
            INSERT INTO message VALUES (1, 'hi', 1, 700000000000000000, CAST('{"a":[1,2]}' AS BLOB));
            INSERT INTO message VALUES (2, 'broken', NULL, 0, X'62706C6973743030FFFF');
            """)
        return url
    }

    /// A database with an AUTOINCREMENT table has `sqlite_sequence`; with `--internal-tables`
    /// it is a class, which pfarchive's store keeps in `T_sqlite_sequence` (SQLite keeps
    /// `sqlite_…` names for itself; looking for a free `sqlite_sequence_2`… never ended).
    @Test func sqliteSequenceImportsWithInternalTables() throws {
        let dir = try Self.temporaryDirectory("pf-cli-sqlseq")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("seq.db")
        try CoreDataStoreBuilder.sqlite3(db, "CREATE TABLE a(id INTEGER PRIMARY KEY AUTOINCREMENT, v); INSERT INTO a(v) VALUES ('x'), ('y');")
        let out = dir.appendingPathComponent("out.sqlite")
        let run = try CLI.run(["import", db.path, out.path, "--internal-tables"])
        #expect(run.status == 0 && run.stdoutText.contains("imported 3 objects of 2 classes"), "\(run.stdoutText) \(run.stderr)")
        let tables = try CoreDataStoreBuilder.sqlite3(out, "SELECT tableName FROM _TABLES WHERE name = 'sqlite_sequence';")
        #expect(tables.trimmingCharacters(in: .whitespacesAndNewlines) == "T_sqlite_sequence", "\(tables)")
        let diff = try CLI.run(["diff", db.path, out.path, "--internal-tables"])
        #expect(diff.status == 0 && diff.stdoutText.hasPrefix("no differences"), "\(diff.stdoutText) \(diff.stderr)")
    }

    /// `INTEGER PRIMARY KEY DESC` is no rowid alias (SQLite keeps it in an index): a NULL key
    /// is `rowid:<n>` and a REAL key its text, as for any declared key, not a row number.
    @Test func integerPrimaryKeyDescIsADeclaredKey() throws {
        let dir = try Self.temporaryDirectory("pf-cli-sqldesc")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("desc.db")
        try CoreDataStoreBuilder.sqlite3(db, "CREATE TABLE t(x INTEGER PRIMARY KEY DESC, y); INSERT INTO t VALUES (1, 'one'), (NULL, 'n'), (2.5, 'real');")
        let run = try CLI.run(["convert", db.path, "-", "--table", "t"])
        let ids = run.stdoutText.split(separator: "\n").compactMap { line in line.split(separator: ",").first }
        #expect(run.status == 0 && ids == [#"{"objectId":"1""#, #"{"objectId":"rowid:2""#, #"{"objectId":"2.5""#], "\(run.stdoutText) \(run.stderr)")
    }

    /// A database's names and values may hold line breaks and escape sequences: a warning
    /// stays one line and `inspect` shows them escaped, never raw on the terminal.
    @Test func controlCharactersInNamesAndValuesAreShownEscaped() throws {
        let dir = try Self.temporaryDirectory("pf-cli-sqlctl")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("ctl.db")
        try CoreDataStoreBuilder.sqlite3(db, """
            CREATE TABLE "a
            b\u{1B}[2J" (id INTEGER PRIMARY KEY, payload BLOB, note TEXT);
            INSERT INTO "a
            b\u{1B}[2J" VALUES (1, X'62706C6973743030FFFF', 'x' || char(27) || '[31m' || char(13) || 'y');
            """)
        let run = try CLI.run(["convert", db.path, dir.appendingPathComponent("out.jsonl").path, "--decode-blobs"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.contains("a\\nb\\u{1B}[2J"), "\(run.stderr)")
        let inspect = try CLI.run(["inspect", db.path])
        #expect(inspect.status == 0 && !inspect.stdoutText.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x0D }, "\(inspect.stdoutText)")
    }

    /// A table or date column the database does not have is a usage error (exit 2), as
    /// Docs/SQLite.md says, in every command.
    @Test func unknownTablesAndDateColumnsAreUsageErrors() throws {
        let dir = try Self.temporaryDirectory("pf-cli-sqlusage")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.database(in: dir)
        for args in [["inspect", db.path, "--tables", "nosuch"], ["convert", db.path, "-", "--tables", "nosuch"],
                     ["import", db.path, dir.appendingPathComponent("o.sqlite").path, "--tables", "nosuch"],
                     ["convert", db.path, "-", "--date-column", "nosuch.date=mac"]] {
            let run = try CLI.run(args)
            #expect(run.status == 2 && run.stderr.split(separator: "\n").count == 1 && run.stderr.contains("nosuch"), "\(args): \(run.stderr)")
        }
    }

    @Test func inspectConvertTableAndImportReadAnySQLiteDatabase() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-cli-sqldb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.database(in: dir)
        let before = try Data(contentsOf: db)

        let inspect = try CLI.run(["inspect", db.path, "--date-column", "message.date=mac-ns"])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        #expect(inspect.stdoutText.contains("payload: BLOB — bytes ×1 (not a valid bplist), json ×1"), "\(inspect.stdoutText)")
        #expect(inspect.stdoutText.contains("e.g. 2023-03-08T20:26:40.000Z (700000000000000000 mac-ns)"), "\(inspect.stdoutText)")

        let lines = try CLI.run(["convert", db.path, "-", "--table", "message", "--decode-blobs", "--date-column", "message.date=mac-ns"])
        #expect(lines.status == 0)
        let rows = lines.stdoutText.split(separator: "\n")
        #expect(rows.count == 2)
        #expect(rows.first == #"{"objectId":"1","ROWID":1,"text":"hi","handle_id":{"__type":"Pointer","className":"handle","objectId":"1"},"date":{"__type":"Date","iso":"2023-03-08T20:26:40.000Z"},"payload":{"a":[1,2]}}"#)
        // The hostile blob: one warning line naming table, row and column; the read goes on.
        #expect(lines.stderr.hasPrefix("pfarchive: warning: \(db.path): message 2.payload: what looks like a bplist but does not decode"), "\(lines.stderr)")

        let out = dir.appendingPathComponent("out.jsonl")
        #expect(try CLI.run(["convert", db.path, out.path, "--table", "handle"]).status == 0)
        #expect(try String(contentsOf: out, encoding: .utf8) == #"{"objectId":"1","ROWID":1,"id":"+15555550100"}"# + "\n")

        let strict = try CLI.run(["convert", db.path, "-", "--table", "message", "--decode-blobs", "--strict"])
        #expect(strict.status == 1)
        #expect(strict.stderr.split(separator: "\n").count == 1 && strict.stderr.contains("message 2.payload"), "\(strict.stderr)")

        let export = dir.appendingPathComponent("export")
        let imported = try CLI.run(["import", db.path, export.path, "--decode-blobs"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdoutText.contains("imported 3 objects of 2 classes"), "\(imported.stdoutText)")
        let refused = try CLI.run(["import", export.path, db.path])
        #expect(refused.status == 1 && refused.stderr.contains("read-only"), "\(refused.stderr)")
        let badDate = try CLI.run(["inspect", db.path, "--date-column", "message.date"])
        #expect(badDate.status == 2)

        #expect(try Data(contentsOf: db) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["chat.db", "export", "out.jsonl"])
    }

    /// A `.jsonl` OUTPUT without `--table` holds the rows of the only table (as with
    /// `--table`); a database of several tables, or a store, is refused naming what to do,
    /// where it wrote everything as one line before; nothing is left behind.
    @Test func jsonLinesWithoutTableTakeTheOnlyTableOrNameThem() throws {
        let dir = try SQLiteSource.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.database(in: dir)
        let out = dir.appendingPathComponent("out.jsonl")
        let several = try CLI.run(["convert", db.path, out.path])
        #expect(several.status == 1)
        #expect(several.stderr == "pfarchive: \(out.path): JSON lines hold the rows of one table; name it with --table (tables: handle, message), or convert to .json for the whole file\n")
        let sequence = try CLI.run(["convert", db.path, dir.appendingPathComponent("out.cborseq").path])
        #expect(sequence.status == 1 && sequence.stderr.contains("a CBOR sequence of \(db.path)'s tables cannot be written; write one table to a .jsonl file with --table"), "\(sequence.stderr)")

        let one = dir.appendingPathComponent("one.db")
        try CoreDataStoreBuilder.sqlite3(one, "CREATE TABLE t(a, b); INSERT INTO t VALUES (1, 'x'), (2, NULL);")
        let lines = try CLI.run(["convert", one.path, out.path])
        #expect(lines.status == 0, "\(lines.stderr)")
        #expect(try String(contentsOf: out, encoding: .utf8) == #"{"objectId":"1","a":1,"b":"x"}"# + "\n" + #"{"objectId":"2","a":2,"b":null}"# + "\n")

        let store = dir.appendingPathComponent("store.sqlite")
        #expect(try CLI.run(["import", one.path, store.path]).status == 0)
        let refused = try CLI.run(["convert", store.path, dir.appendingPathComponent("store.jsonl").path])
        #expect(refused.status == 1 && refused.stderr.contains("import it into a .ndjson file"), "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["chat.db", "one.db", "out.jsonl", "store.sqlite"])
    }

    /// `diff` reads an SQLite database as `import` does with the same options, so the import's
    /// own options prove it lost nothing; without them the decoded payloads and dates differ
    /// from the stored bytes and numbers (`diff` had none of these options).
    @Test func diffReadsTheDatabaseWithTheImportsOptions() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-cli-sqldiff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.database(in: dir)
        let options = ["--decode-blobs", "--date-column", "message.date=mac-ns", "--tables", "message,handle"]
        for name in ["out.sqlite", "export", "out.ndjson"] {
            let dest = dir.appendingPathComponent(name)
            let imported = try CLI.run(["import", db.path, dest.path] + options)
            #expect(imported.status == 0, "\(name): \(imported.stderr)")
            let same = try CLI.run(["diff", db.path, dest.path] + options)
            #expect(same.status == 0, "\(name): \(same.stdoutText) \(same.stderr)")
            #expect(same.stdoutText.contains("no differences (3 and 3 objects)"), "\(name): \(same.stdoutText)")
            // The hostile blob is named once on stderr, as import names it.
            #expect(same.stderr.split(separator: "\n").count == 1 && same.stderr.contains("message 2.payload"), "\(same.stderr)")
            let plain = try CLI.run(["diff", db.path, dest.path])
            #expect(plain.status == 1, "\(name): \(plain.stdoutText)")
            #expect(plain.stdoutText.contains("message/1.payload") && plain.stdoutText.contains("message/1.date"), "\(name): \(plain.stdoutText)")
        }
        // patch reads the database as diff does: an empty patch with the options rebuilds
        // the import; without them, the stored bytes and numbers.
        let patch = dir.appendingPathComponent("none.json")
        try Data("[]".utf8).write(to: patch)
        let export = dir.appendingPathComponent("export")
        for (name, extra) in [("patched.sqlite", options), ("raw.sqlite", [])] {
            let out = dir.appendingPathComponent(name)
            let patched = try CLI.run(["patch", db.path, patch.path, out.path] + extra)
            #expect(patched.status == 0, "\(patched.stderr)")
            let compared = try CLI.run(["diff", out.path, export.path])
            #expect(compared.status == (extra.isEmpty ? 1 : 0), "\(name): \(compared.stdoutText)")
        }
        // Files: --decode-blobs decodes payloads in data values before comparing.
        let inner = dir.appendingPathComponent("inner.json")
        try Data(#"{"p":{"__type":"Bytes","base64":"eyJhIjpbMSwyXX0="}}"#.utf8).write(to: inner)
        let outer = dir.appendingPathComponent("outer.json")
        try Data(#"{"p":{"a":[1,2]}}"#.utf8).write(to: outer)
        #expect(try CLI.run(["diff", inner.path, outer.path]).status == 1)
        let decoded = try CLI.run(["diff", inner.path, outer.path, "--decode-blobs"])
        #expect(decoded.status == 0, "\(decoded.stdoutText) \(decoded.stderr)")
    }

    /// A file with SQLite's magic whose header is cut short is a damaged SQLite database for
    /// inspect, convert and import: one line naming SQLite, exit 1 (inspect said "Core Data",
    /// convert "unrecognised format").
    @Test func aCutSQLiteHeaderIsReportedAsSQLiteByInspectConvertAndImport() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-cli-sqlcut-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let cut = dir.appendingPathComponent("cut.db")
        try Data("SQLite format 3\0".utf8 + [UInt8](repeating: 0, count: 50)).write(to: cut)
        for arguments in [["inspect", cut.path], ["convert", cut.path, "-"], ["import", cut.path, dir.appendingPathComponent("out.sqlite").path]] {
            let run = try CLI.run(arguments)
            #expect(run.status == 1, "\(arguments)")
            #expect(run.stderr == "pfarchive: \(cut.path): SQLite: the 100-byte SQLite header is cut short (66 bytes) at byte 66\n", "\(arguments)")
        }
        // diff tells a store from its bytes too, whatever the name (it took `cut.bin` for a
        // file and refused "a store against a file").
        let nameless = dir.appendingPathComponent("cut.bin")
        try FileManager.default.copyItem(at: cut, to: nameless)
        let store = dir.appendingPathComponent("store.sqlite")
        let tiny = dir.appendingPathComponent("tiny.db")
        try CoreDataStoreBuilder.sqlite3(tiny, "CREATE TABLE t(x); INSERT INTO t VALUES (1);")
        #expect(try CLI.run(["import", tiny.path, store.path]).status == 0)
        try FileManager.default.removeItem(at: tiny)
        let diff = try CLI.run(["diff", nameless.path, store.path])
        #expect(diff.status == 2)
        #expect(diff.stderr == "pfarchive: \(nameless.path): SQLite: the 100-byte SQLite header is cut short (66 bytes) at byte 66\n", "\(diff.stderr)")
        try FileManager.default.removeItem(at: nameless)
        try FileManager.default.removeItem(at: store)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["cut.db"])
    }

    /// Two stores with different classes differ by those classes' objects: a store is not
    /// asked for a class it does not have (an SQLite database, a Core Data store and a Realm
    /// file refuse one: "no table b; the database has a", exit 2).
    @Test func storesWithDifferentTablesDifferByTheirObjects() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-cli-sqltables-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let one = dir.appendingPathComponent("one.db"), two = dir.appendingPathComponent("two.db")
        try CoreDataStoreBuilder.sqlite3(one, "CREATE TABLE a(x); INSERT INTO a VALUES (1);")
        try CoreDataStoreBuilder.sqlite3(two, "CREATE TABLE b(y); INSERT INTO b VALUES (2);")
        let diff = try CLI.run(["diff", one.path, two.path, "--no-schema"])
        #expect(diff.status == 1, "\(diff.stderr)")
        #expect(diff.stdoutText == "- a/1\n+ b/1\n2 differences: 1 added, 1 removed\n", "\(diff.stdoutText)")
        let json = try CLI.run(["diff", one.path, two.path, "--no-schema", "--json"])
        #expect(json.status == 1, "\(json.stderr)")
        #expect(json.stdoutText.contains(#""op":"remove","path":"/a/1""#), "\(json.stdoutText)")
    }

    /// The options only an SQLite database reads (`--tables`, `--date-column`,
    /// `--keep-blob-bytes`, `--strict`, and `--internal-tables` where a Realm file does not
    /// read it) are refused, exit 2 and one line naming them and the inputs, when no input is
    /// one: every command ignored them without a word, so `import app.sqlite out --tables t`
    /// copied every table. `--decode-blobs` stays (files and Core Data stores read it), and
    /// beside one SQLite database the options are read as before.
    @Test func optionsOnlyAnSQLiteDatabaseReadsAreRefusedForOtherInputs() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-cli-sqlonly-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.database(in: dir)
        let json = dir.appendingPathComponent("a.json")
        try Data(#"{"a": 1}"#.utf8).write(to: json)
        let store = dir.appendingPathComponent("store.sqlite")
        #expect(try CLI.run(["import", db.path, store.path, "--tables", "handle"]).status == 0)
        let refused: [([String], String)] = [
            (["convert", json.path, "-", "--tables", "t"], "--tables applies to an SQLite database that is not a store (such as chat.db); \(json.path) is not an SQLite database"),
            (["convert", store.path, "-", "--strict", "--keep-blob-bytes"], "--keep-blob-bytes and --strict apply to an SQLite database that is not a store (such as chat.db); \(store.path) is a pfarchive SQLite store"),
            (["inspect", json.path, "--date-column", "t.c=mac"], "--date-column applies to an SQLite database that is not a store (such as chat.db); \(json.path) is not an SQLite database"),
            (["import", store.path, dir.appendingPathComponent("out.ndjson").path, "--tables", "handle", "--internal-tables"],
             "--tables and --internal-tables apply to an SQLite database that is not a store (such as chat.db); \(store.path) is a pfarchive SQLite store"),
            (["diff", json.path, json.path, "--strict"], "--strict applies to an SQLite database that is not a store (such as chat.db); \(json.path) is not an SQLite database and \(json.path) is not an SQLite database"),
            (["diff", store.path, store.path, "--tables", "handle"], "--tables applies to an SQLite database that is not a store (such as chat.db); \(store.path) is a pfarchive SQLite store and \(store.path) is a pfarchive SQLite store"),
            (["patch", json.path, json.path, dir.appendingPathComponent("o.json").path, "--keep-blob-bytes"],
             "--keep-blob-bytes applies to an SQLite database that is not a store (such as chat.db); \(json.path) is not an SQLite database"),
            (["convert", store.path, "-", "--table", "handle"],
             "--table applies to an SQLite database that is not a store (such as chat.db) and to a Realm file; \(store.path) is a pfarchive SQLite store, read whole: for one class as lines, import it with --classes into a .ndjson file"),
        ]
        for (arguments, message) in refused {
            let run = try CLI.run(arguments)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.stderr.hasPrefix("pfarchive: \(message)"), "\(arguments): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(arguments)")
            // Thrown by the command's run(), the error still points to the command's own help.
            #expect(run.stderr.hasSuffix("; see 'pfarchive \(arguments[0]) --help' for more information\n"), "\(run.stderr)")
        }
        // A missing input is reported as missing, not as the wrong kind.
        let missing = try CLI.run(["convert", dir.appendingPathComponent("nope.json").path, "-", "--tables", "t"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no such file"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.ndjson").path))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("o.json").path))
        // Beside an SQLite database the options are read; --decode-blobs is read by any input.
        let same = try CLI.run(["diff", db.path, store.path, "--tables", "handle"])
        #expect(same.status == 0, "\(same.stdoutText) \(same.stderr)")
        #expect(try CLI.run(["diff", json.path, json.path, "--decode-blobs"]).status == 0)
        #expect(try CLI.run(["convert", json.path, "-", "--decode-blobs"]).status == 0)
        // --strict stops diff at the payload that does not decode, with the line convert and
        // import print: the database's path first (it began "pfarchive: SQLite: chat.db: …").
        let convert = try CLI.run(["convert", db.path, "-", "--decode-blobs", "--strict"])
        #expect(convert.status == 1)
        for order in [[store.path, db.path], [db.path, store.path]] {
            let strict = try CLI.run(["diff"] + order + ["--decode-blobs", "--strict"])
            #expect(strict.status == 2)
            #expect(strict.stderr == convert.stderr, "\(strict.stderr)")
            #expect(strict.stderr.hasPrefix("pfarchive: \(db.path): SQLite: message 2.payload: "), "\(strict.stderr)")
        }
    }

    /// `--internal-tables` reads views, virtual, shadow and `sqlite_*` tables in `inspect` and
    /// `import` as it does in `convert`; without it they are skipped (and named as such).
    /// A table and a column named with a double quote followed by a combining mark (one Swift
    /// Character that is not `"`): the quote must still be doubled in every SQL statement, or
    /// the name ends early ("unrecognized token" on main). Read, converted, imported into the
    /// SQLite store and compared equal.
    @Test func namesWithAQuoteAndACombiningMarkAreQuotedScalarByScalar() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-cli-sqlquote-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("quotes.db")
        let table = "t\"\u{301}x", column = "c\"\u{301}"
        let quote = { (name: String) in "\"" + name.unicodeScalars.map { $0 == "\"" ? "\"\"" : String($0) }.joined() + "\"" }
        try CoreDataStoreBuilder.sqlite3(
            db,
            """
            CREATE TABLE \(quote(table))(id INTEGER PRIMARY KEY, \(quote(column)) TEXT);
            INSERT INTO \(quote(table)) VALUES (1, 'one'), (2, 'two');
            """)
        let inspect = try CLI.run(["inspect", db.path])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let lines = try CLI.run(["convert", db.path, "-", "--table", table])
        #expect(lines.status == 0, "\(lines.stderr)")
        #expect(lines.stdoutText.split(separator: "\n").count == 2, "\(lines.stdoutText)")
        #expect(lines.stdoutText.contains("one") && lines.stdoutText.contains("two"))
        let store = dir.appendingPathComponent("store.sqlite").path
        let imported = try CLI.run(["import", db.path, store])
        #expect(imported.status == 0, "\(imported.stderr)")
        let compared = try CLI.run(["diff", db.path, store])
        #expect(compared.status == 0, "\(compared.stdoutText)\(compared.stderr)")
    }

    /// Views that need what only their app has (an Android contacts database's PHONEBOOK
    /// collation, a function it registers) are skipped with the reason under
    /// `--internal-tables`, a warning line each for convert and import, instead of failing the
    /// whole read as "reading the schema"; named with `--tables`, one fails naming itself.
    @Test func viewsOnlyTheirAppCanReadAreSkippedWithTheReason() throws {
        let dir = try SQLiteSource.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("contacts2.db")
        let made = try Peers.python("""
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            c.create_collation("PHONEBOOK", lambda a, b: (a > b) - (a < b))
            c.create_function("_STRIPPED", 1, lambda s: s)
            c.execute("CREATE TABLE raw(id INTEGER PRIMARY KEY, name TEXT)")
            c.execute("INSERT INTO raw(name) VALUES ('ann'), ('bob')")
            c.execute("CREATE VIEW view_contacts AS SELECT name FROM raw ORDER BY name COLLATE PHONEBOOK")
            c.execute("CREATE VIEW view_phones AS SELECT _STRIPPED(name) AS n FROM raw")
            c.execute("CREATE VIEW plain AS SELECT name FROM raw")
            c.commit()
            """, [db.path])
        try #require(made.status == 0, "\(made.stderr)")
        let inspected = try CLI.run(["inspect", db.path, "--internal-tables"])
        #expect(inspected.status == 0, "\(inspected.stderr)")
        #expect(inspected.stdoutText.contains("Skipped view_contacts: view SQLite cannot read (no such collation sequence: PHONEBOOK)"), "\(inspected.stdoutText)")
        #expect(inspected.stdoutText.contains("Table plain — view"), "\(inspected.stdoutText)")
        let converted = try CLI.run(["convert", db.path, dir.appendingPathComponent("all.json").path, "--internal-tables"])
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(converted.stderr.contains("warning: \(db.path): view_phones: view SQLite cannot read (no such function: _STRIPPED); not read"), "\(converted.stderr)")
        let imported = try CLI.run(["import", db.path, dir.appendingPathComponent("out.sqlite").path, "--internal-tables"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.split(separator: "\n").filter { $0.contains("not read") }.count == 2, "\(imported.stderr)")
        #expect(imported.stdoutText.contains("imported 4 objects of 2 classes"), "\(imported.stdoutText)")
        let named = try CLI.run(["inspect", db.path, "--tables", "view_contacts"])
        #expect(named.status == 1)
        #expect(named.stderr.contains("reading view_contacts") && named.stderr.contains("PHONEBOOK"), "\(named.stderr)")
    }

    @Test func internalTablesFlagAppliesToInspectAndImport() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-cli-sqldb-internal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("people.db")
        try CoreDataStoreBuilder.sqlite3(
            db,
            """
            CREATE TABLE person(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT);
            INSERT INTO person(name) VALUES ('ann'), ('bob');
            CREATE VIEW names AS SELECT name FROM person ORDER BY name;
            """)
        let before = try Data(contentsOf: db)

        let plain = try CLI.run(["inspect", db.path])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(!plain.stdoutText.contains("Table names") && plain.stdoutText.contains("Skipped names: view; read with --internal-tables or --tables names"), "\(plain.stdoutText)")
        #expect(plain.stdoutText.contains("Skipped sqlite_sequence: SQLite internal table"), "\(plain.stdoutText)")
        let all = try CLI.run(["inspect", db.path, "--internal-tables"])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.stdoutText.contains("Table names — view") && all.stdoutText.contains("Table sqlite_sequence — "), "\(all.stdoutText)")
        #expect(!all.stdoutText.contains("Skipped"), "\(all.stdoutText)")

        let some = dir.appendingPathComponent("some")
        let imported = try CLI.run(["import", db.path, some.path, "--json"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: some.path).filter { $0.hasSuffix(".json") && !$0.hasPrefix("_") }.sorted() == ["person.json"])
        let every = dir.appendingPathComponent("every")
        let importedAll = try CLI.run(["import", db.path, every.path, "--internal-tables"])
        #expect(importedAll.status == 0, "\(importedAll.stderr)")
        #expect(importedAll.stdoutText.contains("imported 5 objects of 3 classes"), "\(importedAll.stdoutText)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: every.path).filter { $0.hasSuffix(".json") && !$0.hasPrefix("_") }.sorted() == ["names.json", "person.json", "sqlite_sequence.json"])

        #expect(try Data(contentsOf: db) == before)
    }
}
