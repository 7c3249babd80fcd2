import Foundation
import PFCoreData
import PFCoreDataTestSupport
import PFStoreTestSupport
import Testing

/// The stores ``CoreDataStoreBuilder`` generates read as real ones do: the model comes from
/// the generated `Z_MODELCACHE` (inheritance, relationships and inverses included), rows of
/// subentities from their root's table, Pointers into a hierarchy name the row's entity, and
/// every kind of relationship gives its pairs.
@Suite struct GeneratedStoreTests {
    func withStore(_ entities: [CoreDataStoreBuilder.Entity], _ body: (CoreDataStore, URL) throws -> Void) throws {
        let directory = try CoreDataFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Generated.sqlite")
        try CoreDataStoreBuilder.write(entities, to: url)
        let store = try CoreDataStore.open(url: url)
        defer { store.close() }
        try body(store, url)
    }

    @Test func theModelCacheDescribesInheritanceAndRelationships() throws {
        let entities = try CoreDataShapes.library()
        try withStore(entities) { store, url in
            #expect(store.model.source == .modelCache)
            #expect(store.model == (try CoreDataStoreBuilder.model(entities)))
            #expect(store.model.entity(named: "GraphicNovel")?.superentity == "Book")
            #expect(store.model.entity(named: "GraphicNovel")?.relationship(named: "pages")?.declaredBy == "Book")
            #expect(store.model.entity(named: "Media")?.isAbstract == true)
            #expect(store.guesses.isEmpty, "\(store.guesses)")
            // Z_PRIMARYKEY as real stores have it: Z_SUPER, and Z_MAX on roots only.
            let keys = try CoreDataFixtures.sqlite(url, ["SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT"])
            #expect(keys.prefix(6) == [["1", "Book", "0", "4"], ["2", "GraphicNovel", "1", "0"], ["3", "Page", "0", "4"],
                                      ["4", "Media", "0", "6"], ["5", "Photo", "4", "0"], ["6", "Video", "4", "0"]])
            let columns = try CoreDataFixtures.sqlite(url, ["SELECT name FROM pragma_table_info('ZPAGE')"]).compactMap(\.first)
            #expect(columns.contains("ZBOOK") && columns.contains("Z1_BOOK"))
            let media = try CoreDataFixtures.sqlite(url, ["SELECT name FROM pragma_table_info('ZMEDIA')"]).compactMap(\.first)
            #expect(media.contains("ZCAPTION1") && media.contains("ZCAPTION2"))
        }
    }

    @Test func rowsPointersAndPairsReadBack() throws {
        try withStore(try CoreDataShapes.library()) { store, _ in
            let novels = try store.firstObjects(entity: "GraphicNovel", limit: 10)
            #expect(novels.map { $0["objectId"] } == ["GraphicNovel-3", "GraphicNovel-4"])
            #expect(novels.first?["title"] == "Drawn")
            #expect(novels.first?["isColor"] == true)
            #expect(novels.first?["usage"] == CoreDataShapes.innerPayload)
            #expect(novels.first?["cover"] == ["__type": "Pointer", "className": "Video", "objectId": "Video-6"])
            let pages = try store.firstObjects(entity: "Page", limit: 10)
            #expect(pages.map { $0["book"]?["objectId"] } == ["Book-1", "Book-1", "GraphicNovel-3", nil])
            #expect(pages[2]["book"]?["className"] == "GraphicNovel")
            let books = try store.firstObjects(entity: "Book", limit: 10)
            #expect(books.first?["thumbnail"] == .data(Data([0, 1, 2, 0xFE, 0xFF])))
            #expect(books.last?["thumbnail"] == .data(try CoreDataShapes.nestedArchive()))
            #expect(books.first?["uniqueID"] == "00112233-4455-6677-8899-AABBCCDDEEFF")
            #expect(try store.firstObjects(entity: "Video", limit: 1).first?["caption"] == "a video")
            #expect(try store.firstObjects(entity: "Photo", limit: 1).first?["caption"] == "a photo")

            #expect(try store.joinRows(entity: "Book", relationship: "pages").map(\.relatedId) == ["Page-1", "Page-2"])
            #expect(try store.joinRows(entity: "GraphicNovel", relationship: "pages").map(\.relatedId) == ["Page-3"])
            let tags = try store.joinRows(entity: "Book", relationship: "tags").map { [$0.owningId, $0.relatedId] }
            #expect(tags == [["Book-1", "Tag-1"], ["Book-1", "Tag-2"]])
            #expect(try store.joinRows(entity: "GraphicNovel", relationship: "tags").map(\.relatedId) == ["Tag-2"])
            let books2 = try store.joinRows(entity: "Tag", relationship: "books").filter { $0.owningId == "Tag-2" }
            #expect(Set(books2.map(\.relatedId)) == ["Book-1", "GraphicNovel-3"])
            let tracks = try store.joinRows(entity: "Playlist", relationship: "tracks")
            #expect(tracks.map(\.relatedId) == ["Track-1", "Track-2"])
            #expect(tracks.map(\.position) == [1024, 2048])
        }
    }

    @Test func theRealDeviceNamesStoreReadsItsNamesWithoutAModelFile() throws {
        let directory = try CoreDataFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try RealDeviceCoreData.write(in: directory)
        let store = try CoreDataStore.open(url: url)
        defer { store.close() }
        #expect(store.model.source == .modelCache)
        #expect(store.model == (try RealDeviceCoreData.model))
        let account = try #require(try store.firstObjects(entity: "Account", limit: 1).first)
        #expect(account[RealDeviceCoreData.longName] == "long value")
        #expect(account["größe"] == 1.5)
        #expect(account["$price"] == 12)
        #expect(account["properties"]?["com.apple.mobilenotes.SharingExtension"] == "enabled")
        #expect(account["properties"]?["com.apple.Dataclass.Availability"]?["com.apple.Dataclass.Notes"] == true)
        let notes = try store.joinRows(entity: "Account", relationship: RealDeviceCoreData.notes).map { [$0.owningId, $0.relatedId] }
        #expect(notes == [["Account-1", "Note-1"], ["Account-1", "Note-2"], ["Account-2", "Note-3"]])
    }
}
