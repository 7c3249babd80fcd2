import Foundation
import PFCore
import PFCoreData
import Testing

@Suite struct StoreSafetyTests {
    /// Opens, reads every entity and relationship, and closes.
    static func readEverything(_ url: URL) throws {
        let store = try CoreDataStore.open(url: url, options: .init(includeHistory: true))
        defer { store.close() }
        for entity in store.entities {
            try store.forEachObject(entity: entity.name) { _ in }
            for relationship in entity.relationships where relationship.isToMany {
                _ = try? store.joinRows(entity: entity.name, relationship: relationship.name)
            }
        }
    }

    @Test(arguments: CoreDataFixtures.stores)
    func sourceFilesStayByteIdentical(_ relative: String) throws {
        let url = CoreDataFixtures.store(relative)
        let before = CoreDataFixtures.snapshot(url)
        let listing = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path).sorted()
        try Self.readEverything(url)
        #expect(CoreDataFixtures.snapshot(url) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path).sorted() == listing)
    }

    @Test func liveWALIsReadAndLeftUntouched() throws {
        let directory = try CoreDataFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let work = try CoreDataFixtures.copy("coredataplus/SampleModel3_V1.sqlite", to: directory, as: "work.sqlite")
        let live = directory.appendingPathComponent("live")
        try FileManager.default.createDirectory(at: live, withIntermediateDirectories: true)
        // Copy the three files while sqlite3 still holds the connection, so the change lives
        // only in the -wal (the shell would checkpoint it away on exit).
        try CoreDataFixtures.sqlite(work, [
            "PRAGMA journal_mode=WAL;", "PRAGMA wal_autocheckpoint=0;",
            "UPDATE ZUSER SET ZNAME='only in the WAL' WHERE Z_PK=1;",
            ".shell cp \(work.path) \(work.path)-wal \(work.path)-shm \(live.path)/",
        ])
        let store = live.appendingPathComponent("work.sqlite")
        let wal = try #require(FileManager.default.contents(atPath: store.path + "-wal"))
        #expect(wal.count > 32, "a live WAL with frames")
        let before = CoreDataFixtures.snapshot(store)
        let listing = try FileManager.default.contentsOfDirectory(atPath: live.path).sorted()
        #expect(listing == ["work.sqlite", "work.sqlite-shm", "work.sqlite-wal"])

        let opened = try CoreDataStore.open(url: store)
        let first = try #require(try opened.firstObjects(entity: "User", limit: 1).first)
        #expect(first["name"] == "only in the WAL", "the reader sees what only the WAL holds")
        opened.close()
        try Self.readEverything(store)

        #expect(CoreDataFixtures.snapshot(store) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: live.path).sorted() == listing)
    }

    @Test func theTemporaryCopyIsRemovedOnClose() throws {
        let source = CoreDataFixtures.store("coredataplus/SampleModel3_V1.sqlite")
        let store = try CoreDataStore.open(url: source)
        let copy = store.workingCopy
        #expect(copy.path != source.path)
        #expect(FileManager.default.fileExists(atPath: copy.path))
        store.close()
        #expect(!FileManager.default.fileExists(atPath: copy.path))
        #expect(!FileManager.default.fileExists(atPath: copy.deletingLastPathComponent().path))
        #expect(throws: PFError.self) { try store.rowCount(entity: "User") }
    }
}
