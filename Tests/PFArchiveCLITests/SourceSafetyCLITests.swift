import Foundation
import PFCore
import PFCoreDataTestSupport
import PFFormats
import PFParse
import PFStores
import PFTestSupport
import Testing

/// Nested archives decoded the same way by `import`, `convert` and `inspect` (issue 20,
/// failure 1, netusage), and SQLite sources left exactly as they were — nothing created,
/// changed or locked beside them — whether the read succeeds or fails (failure 5).
@Suite struct SourceSafetyCLITests {
    static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pfsafety-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    // MARK: - The netusage shape

    /// Foundation's NSKeyedArchiver (an independent writer): the inner dictionary, archived,
    /// inside NSData, archived again — what netusage's ZMAP holds.
    static func nestedArchive() throws -> Data {
        let dictionary: NSDictionary = ["confidence": NSNumber(value: 0.4), "level": NSNumber(value: 3), "label": "wifi"]
        let inner = try NSKeyedArchiver.archivedData(withRootObject: dictionary, requiringSecureCoding: false)
        return try NSKeyedArchiver.archivedData(withRootObject: NSData(data: inner), requiringSecureCoding: false)
    }

    /// netusage's exact shape: the NSData under the `$top` key `opaque`, not `root`.
    static func opaqueArchive() throws -> Data {
        let dictionary: NSDictionary = ["confidence": NSNumber(value: 0.4), "level": NSNumber(value: 3), "label": "wifi"]
        let inner = try NSKeyedArchiver.archivedData(withRootObject: dictionary, requiringSecureCoding: false)
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.encode(NSMutableData(data: inner), forKey: "opaque")
        archiver.finishEncoding()
        return archiver.encodedData
    }

    static let innerMembers: [String: PFValue] = ["confidence": 0.4, "level": 3, "label": "wifi"]

    static func hasInnerMembers(_ value: PFValue?) -> Bool {
        guard case .dictionary(let members)? = value else { return false }
        return members.count == innerMembers.count && innerMembers.allSatisfy { members[$0.key] == $0.value }
    }

    static func provisioningStore(_ url: URL, blob: Data, wal: Bool = false) throws {
        let entity = CoreDataStoreBuilder.Entity(
            name: "Provisioning",
            attributes: [
                .init("map", 1800, transformer: "NSSecureUnarchiveFromData"), .init("raw", 1000), .init("tag", 700),
                .init("opaque", 1800),
            ],
            rows: [
                ["map": .blob(blob), "raw": .blob(blob), "tag": .text("nested"), "opaque": .blob(try opaqueArchive())],
                ["map": .null, "raw": .blob(Data([1, 2, 3])), "tag": .text("plain")],
            ])
        try CoreDataStoreBuilder.write([entity], to: url, wal: wal)
    }

    @Test func aNestedArchiveInATransformableImportsDecodedAndConvertAndInspectAgree() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let blob = try Self.nestedArchive()
        let store = dir.appendingPathComponent("netusage.sqlite")
        try Self.provisioningStore(store, blob: blob)

        // import: the transformable's inner dictionary arrives decoded; Binary keeps its bytes.
        let out = dir.appendingPathComponent("export")
        let imported = try CLI.run(["import", store.path, out.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        let rows = try FormatIO.read(try Data(contentsOf: out.appendingPathComponent("Provisioning.json"))).value
        let objects = rows["results"]?.arrayValue ?? rows.arrayValue ?? []
        let first = try #require(objects.first { $0["objectId"] == "Provisioning-1" })
        #expect(Self.hasInnerMembers(first["map"]), "\(String(describing: first["map"]))")
        #expect(first["raw"] == .data(blob), "a Binary attribute keeps its bytes by default")
        // The $top marker of an archive whose only $top key is not root is kept; the export
        // holds it encoded (Parse forbids '$' in nested keys) and reading the export decodes it.
        let top = ParseNameCoding.encodeNestedKey("$top", policy: .parseExport)
        #expect(Self.hasInnerMembers(first["opaque"]?[top]?["opaque"]), "\(String(describing: first["opaque"]))")
        let read = try ParseExportStore(url: out).objects(in: "Provisioning").first { $0.objectId == "Provisioning-1" }
        guard case .object(let opaque)? = read?.fields["opaque"], case .object(let inner)? = opaque["$top"] else {
            Issue.record("the export does not read back with $top: \(String(describing: read?.fields["opaque"]))")
            return
        }
        #expect(inner["opaque"] != nil)

        // import --decode-blobs: the Binary attribute is decoded too.
        let decodedOut = dir.appendingPathComponent("export-blobs")
        let withBlobs = try CLI.run(["import", store.path, decodedOut.path, "--decode-blobs"])
        #expect(withBlobs.status == 0, "\(withBlobs.stderr)")
        let decodedRows = try FormatIO.read(try Data(contentsOf: decodedOut.appendingPathComponent("Provisioning.json"))).value
        let decodedFirst = try #require((decodedRows["results"]?.arrayValue ?? []).first { $0["objectId"] == "Provisioning-1" })
        #expect(Self.hasInnerMembers(decodedFirst["raw"]))

        // convert and inspect of the blob itself show the same value.
        let file = dir.appendingPathComponent("map.archive")
        try blob.write(to: file)
        let converted = try CLI.run(["convert", file.path, "-", "--from", "keyed", "--decode-blobs"])
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(Self.hasInnerMembers(try FormatIO.read(converted.stdout).value))
        let plain = try CLI.run(["convert", file.path, "-", "--from", "keyed"])
        if case .data = try FormatIO.read(plain.stdout).value {} else { Issue.record("without --decode-blobs convert keeps the bytes: \(plain.stdoutText)") }
        let inspected = try CLI.run(["inspect", file.path, "--from", "keyed", "--decode-blobs", "--json"])
        #expect(inspected.status == 0, "\(inspected.stderr)")
        #expect(Self.hasInnerMembers(try FormatIO.read(inspected.stdout).value["value"]))

        // inspect of the store says what each blob column holds.
        let census = try CLI.run(["inspect", store.path])
        #expect(census.status == 0, "\(census.stderr)")
        #expect(census.stdoutText.contains("map: Transformable (NSSecureUnarchiveFromData) — keyed archive ×1 (NSData)"), "\(census.stdoutText)")
        #expect(census.stdoutText.contains("raw: Binary — bytes ×1, keyed archive ×1 (NSData)"), "\(census.stdoutText)")
    }

    @Test func decodeBlobsIsNamedInTheHelpOfConvertInspectAndImport() throws {
        for command in ["convert", "inspect", "import"] {
            let help = try CLI.run([command, "--help"])
            #expect(help.stdoutText.contains("--decode-blobs"), "\(command)")
        }
    }

    // MARK: - Nothing beside an SQLite source

    /// Runs `import SOURCE DIR/out` and checks that every file beside the source has the same
    /// name and bytes afterwards; returns the run.
    @discardableResult
    static func importLeavesSourceAlone(_ source: URL, expectSuccess: Bool, extra: [String] = []) throws -> Peers.Result {
        let folder = source.deletingLastPathComponent()
        let before = try CoreDataStoreBuilder.directorySnapshot(folder)
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("pfsafety-out-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try CLI.run(["import", source.path, out.path] + extra)
        if expectSuccess {
            #expect(result.status == 0, "\(result.stderr)")
        } else {
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
        let after = try CoreDataStoreBuilder.directorySnapshot(folder)
        #expect(after.keys.sorted() == before.keys.sorted(), "files beside the source: \(before.keys.sorted()) → \(after.keys.sorted())")
        for (name, bytes) in before { #expect(after[name] == bytes, "\(name) changed") }
        return result
    }

    @Test func anOrdinaryWALDatabaseIsReadWithNothingCreatedBesideIt() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Python's sqlite3: one chat.db checkpointed (no -wal), one copied while its -wal is live.
        let script = #"""
import sqlite3, shutil, sys, os
d = sys.argv[1]
os.makedirs(d + "/closed"); os.makedirs(d + "/live")
for name in ("closed", "work"):
    c = sqlite3.connect(f"{d}/{name}/chat.db" if name == "closed" else f"{d}/chat.db")
    c.execute("PRAGMA journal_mode=WAL"); c.execute("PRAGMA wal_autocheckpoint=0")
    c.execute("CREATE TABLE message (ROWID INTEGER PRIMARY KEY, text TEXT, date INTEGER)")
    c.executemany("INSERT INTO message (text, date) VALUES (?, ?)", [("hello", 1), ("world", 2)])
    c.commit()
    if name == "work":
        c.execute("INSERT INTO message (text, date) VALUES ('only in the WAL', 3)"); c.commit()
        for suffix in ("", "-wal", "-shm"):
            shutil.copy(f"{d}/chat.db{suffix}", f"{d}/live/chat.db{suffix}")
    c.close()
"""#
        let made = try Peers.python(script, [dir.path])
        try #require(made.status == 0, "\(made.stderr)")
        let closed = dir.appendingPathComponent("closed/chat.db")
        let live = dir.appendingPathComponent("live/chat.db")
        #expect(try FileManager.default.contentsOfDirectory(atPath: closed.deletingLastPathComponent().path) == ["chat.db"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: live.deletingLastPathComponent().path).sorted() == ["chat.db", "chat.db-shm", "chat.db-wal"])
        // Any SQLite database is a read-only source (issue 24): read through a private copy,
        // the -wal's rows included, with nothing created or changed beside it.
        for source in [closed, live] {
            try Self.importLeavesSourceAlone(source, expectSuccess: true)
            let before = try CoreDataStoreBuilder.directorySnapshot(source.deletingLastPathComponent())
            let rows = try CLI.run(["convert", source.path, "-", "--table", "message"])
            #expect(rows.status == 0, "\(rows.stderr)")
            #expect(rows.stdoutText.contains("only in the WAL") == (source == live), "\(rows.stdoutText)")
            #expect(try CoreDataStoreBuilder.directorySnapshot(source.deletingLastPathComponent()) == before)
        }
        // Its companion files given by mistake are named as what they are (a -wal's leading
        // byte, '7', was taken for a JSON number), and their database named as the way in.
        for (suffix, kind) in [("-wal", "write-ahead log (-wal)"), ("-shm", "WAL index (-shm)")] {
            for command in ["inspect", "convert"] {
                let result = try CLI.run([command, live.path + suffix] + (command == "convert" ? ["-"] : []))
                #expect(result.status == 1)
                #expect(result.stderr.contains("an SQLite \(kind), not a database: give its database file"), "\(result.stderr)")
            }
        }
        let journal = dir.appendingPathComponent("chat.db-journal")
        try Data([0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7] + [UInt8](repeating: 0, count: 504)).write(to: journal)
        #expect(try CLI.run(["inspect", journal.path]).stderr.contains("an SQLite rollback journal (-journal), not a database"))
        // A file that is not SQLite at all, named .db.
        let text = dir.appendingPathComponent("notes/notes.db")
        try FileManager.default.createDirectory(at: text.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("just text".utf8).write(to: text)
        try Self.importLeavesSourceAlone(text, expectSuccess: false)
    }

    @Test func aCoreDataStoreWithALiveWALIsReadWithNothingChangedBesideIt() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let work = dir.appendingPathComponent("App.sqlite")
        try Self.provisioningStore(work, blob: try Self.nestedArchive(), wal: true)
        let store = try CoreDataStoreBuilder.liveWAL(
            of: work, applying: "UPDATE ZPROVISIONING SET ZTAG = 'only in the WAL' WHERE Z_PK = 2;", into: dir.appendingPathComponent("live"))
        let wal = try #require(FileManager.default.contents(atPath: store.path + "-wal"))
        #expect(wal.count > 32, "a -wal with frames")
        let out = dir.appendingPathComponent("out")
        let before = try CoreDataStoreBuilder.directorySnapshot(store.deletingLastPathComponent())
        let result = try CLI.run(["import", store.path, out.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try CoreDataStoreBuilder.directorySnapshot(store.deletingLastPathComponent()) == before)
        let rows = try FormatIO.read(try Data(contentsOf: out.appendingPathComponent("Provisioning.json"))).value
        #expect((rows["results"]?.arrayValue ?? []).contains { $0["tag"] == "only in the WAL" }, "what only the -wal holds is read")
        try Self.importLeavesSourceAlone(store, expectSuccess: true, extra: ["--decode-blobs"])

        // A failing read: Z_METADATA's plist broken, only in the -wal.
        let broken = try CoreDataStoreBuilder.liveWAL(
            of: work, applying: "UPDATE Z_METADATA SET Z_PLIST = X'00FF00FF';", into: dir.appendingPathComponent("broken"))
        let failed = try Self.importLeavesSourceAlone(broken, expectSuccess: false)
        #expect(failed.stderr.contains("Z_METADATA"), "\(failed.stderr)")
    }

    @Test func pfarchivesOwnStoreInWALModeIsReadWithNothingChangedBesideIt() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let work = dir.appendingPathComponent("app.sqlite")
        try SQLiteSource.make(work, players: 3, scores: 5)
        // WAL mode, checkpointed: the file alone, no -wal or -shm.
        let closed = dir.appendingPathComponent("closed/app.sqlite")
        try FileManager.default.createDirectory(at: closed.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: work, to: closed)
        try CoreDataStoreBuilder.sqlite3(closed, "PRAGMA journal_mode=WAL;")
        #expect(try FileManager.default.contentsOfDirectory(atPath: closed.deletingLastPathComponent().path) == ["app.sqlite"])
        try Self.importLeavesSourceAlone(closed, expectSuccess: true)

        // WAL mode with a live -wal holding a change the file lacks.
        let live = try CoreDataStoreBuilder.liveWAL(
            of: work, applying: "UPDATE Player SET name = 'only in the WAL' WHERE objectId = 'p1';", into: dir.appendingPathComponent("live"))
        let out = dir.appendingPathComponent("out")
        let before = try CoreDataStoreBuilder.directorySnapshot(live.deletingLastPathComponent())
        let result = try CLI.run(["import", live.path, out.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try CoreDataStoreBuilder.directorySnapshot(live.deletingLastPathComponent()) == before)
        let players = try FormatIO.read(try Data(contentsOf: out.appendingPathComponent("Player.json"))).value
        #expect((players["results"]?.arrayValue ?? []).contains { $0["name"] == "only in the WAL" }, "what only the -wal holds is read")

        // A failing read: the store's _TABLES dropped, only in the -wal.
        let broken = try CoreDataStoreBuilder.liveWAL(of: work, applying: "DROP TABLE _TABLES;", into: dir.appendingPathComponent("broken"))
        let failed = try Self.importLeavesSourceAlone(broken, expectSuccess: false)
        #expect(failed.stderr.contains("_TABLES"), "\(failed.stderr)")
    }
}
