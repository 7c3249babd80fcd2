import Foundation
@testable import PFCoreData
import Testing

/// The layout rules no fixture store exercises, on a store built by hand with the sqlite3 shell
/// exactly as ../shared/notes/coredata.md describes real stores: a many-to-many join table
/// `Z_<ent><REL>`, an ordered to-many's `Z_FOK_<INVERSE>`, numeric suffixes when two
/// subentities declare the same attribute, and a `Z<n>_<REL>` entity column for a pointer to
/// a hierarchy.
@Suite struct LayoutRulesTests {
    // Z_ENT: Post 1, Tag 2, Media 3 (abstract) > Photo 4, Video 5, Playlist 6, Track 7.
    static let model = CoreDataModel(
        entities: [
            CoreDataEntity(
                name: "Post",
                attributes: [CoreDataAttribute(name: "title", type: .string, declaredBy: "Post")],
                relationships: [
                    CoreDataRelationship(name: "tags", destination: "Tag", inverse: "posts", isToMany: true, declaredBy: "Post"),
                    CoreDataRelationship(name: "cover", destination: "Media", inverse: nil, isToMany: false, declaredBy: "Post"),
                ]),
            CoreDataEntity(
                name: "Tag",
                attributes: [CoreDataAttribute(name: "name", type: .string, declaredBy: "Tag")],
                relationships: [CoreDataRelationship(name: "posts", destination: "Post", inverse: "tags", isToMany: true, declaredBy: "Tag")]),
            CoreDataEntity(name: "Media", isAbstract: true, attributes: [CoreDataAttribute(name: "size", type: .integer64, declaredBy: "Media")]),
            CoreDataEntity(
                name: "Photo", superentity: "Media",
                attributes: [
                    CoreDataAttribute(name: "size", type: .integer64, declaredBy: "Media"),
                    CoreDataAttribute(name: "caption", type: .string, declaredBy: "Photo"),
                ]),
            CoreDataEntity(
                name: "Video", superentity: "Media",
                attributes: [
                    CoreDataAttribute(name: "size", type: .integer64, declaredBy: "Media"),
                    CoreDataAttribute(name: "caption", type: .string, declaredBy: "Video"),
                    CoreDataAttribute(name: "recorded", type: .date, declaredBy: "Video"),
                ]),
            CoreDataEntity(
                name: "Playlist",
                attributes: [CoreDataAttribute(name: "name", type: .string, declaredBy: "Playlist")],
                relationships: [
                    CoreDataRelationship(name: "tracks", destination: "Track", inverse: "playlist", isToMany: true, isOrdered: true, declaredBy: "Playlist")
                ]),
            CoreDataEntity(
                name: "Track",
                attributes: [CoreDataAttribute(name: "name", type: .string, declaredBy: "Track")],
                relationships: [
                    CoreDataRelationship(name: "playlist", destination: "Playlist", inverse: "tracks", isToMany: false, declaredBy: "Track")
                ]),
        ],
        source: .modelCache)

    static let sql = [
        "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
        "INSERT INTO Z_PRIMARYKEY VALUES (1,'Post',0,2),(2,'Tag',0,3),(3,'Media',0,3),(4,'Photo',3,0),(5,'Video',3,0),(6,'Playlist',0,1),(7,'Track',0,3)",
        "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
        "INSERT INTO Z_METADATA VALUES (1,'5C0F2B1E-0000-4000-8000-000000000001',NULL)",
        "CREATE TABLE ZPOST (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCOVER INTEGER, Z3_COVER INTEGER, ZTITLE VARCHAR)",
        "INSERT INTO ZPOST VALUES (1,1,1,2,5,'Hello'),(2,1,1,NULL,NULL,'Second')",
        "CREATE TABLE ZTAG (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR)",
        "INSERT INTO ZTAG VALUES (1,2,1,'swift'),(2,2,1,'sqlite'),(3,2,1,'unused')",
        "CREATE TABLE Z_1TAGS (Z_1POSTS INTEGER, Z_2TAGS INTEGER, PRIMARY KEY (Z_1POSTS, Z_2TAGS))",
        "INSERT INTO Z_1TAGS VALUES (1,1),(1,2),(2,2)",
        "CREATE TABLE ZMEDIA (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZSIZE INTEGER, ZCAPTION1 VARCHAR, ZCAPTION2 VARCHAR, ZRECORDED TIMESTAMP)",
        // Photo (4) fills ZCAPTION2 and Video (5) ZCAPTION1: the suffix order is not the Z_ENT order.
        "INSERT INTO ZMEDIA VALUES (1,4,1,100,NULL,'a photo',NULL),(2,5,1,2000,'a video',NULL,-31536000),(3,4,1,50,NULL,'another',NULL)",
        "CREATE TABLE ZPLAYLIST (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR)",
        "INSERT INTO ZPLAYLIST VALUES (1,6,1,'mix')",
        "CREATE TABLE ZTRACK (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPLAYLIST INTEGER, Z_FOK_PLAYLIST INTEGER, ZNAME VARCHAR)",
        "INSERT INTO ZTRACK VALUES (1,7,1,1,3072,'third'),(2,7,1,1,1024,'first'),(3,7,1,1,2048,'second')",
    ]

    func withStore(_ body: (CoreDataStore) throws -> Void) throws {
        let directory = try CoreDataFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Layout.sqlite")
        try CoreDataFixtures.sqlite(url, Self.sql)
        let store = try CoreDataStore.open(url: url, model: Self.model)
        defer { store.close() }
        try body(store)
    }

    @Test func manyToManyPairsComeFromTheJoinTableBothWays() throws {
        try withStore { store in
            let tags = try store.joinRows(entity: "Post", relationship: "tags")
            #expect(tags.map { [$0.owningId, $0.relatedId] } == [["Post-1", "Tag-1"], ["Post-1", "Tag-2"], ["Post-2", "Tag-2"]])
            let posts = try store.joinRows(entity: "Tag", relationship: "posts")
            #expect(Set(posts.map { [$0.owningId, $0.relatedId] }) == [["Tag-1", "Post-1"], ["Tag-2", "Post-1"], ["Tag-2", "Post-2"]])
        }
    }

    @Test func orderedToManyFollowsZFOK() throws {
        try withStore { store in
            let rows = try store.joinRows(entity: "Playlist", relationship: "tracks")
            #expect(rows.map(\.relatedId) == ["Track-2", "Track-3", "Track-1"])
            #expect(rows.map(\.position) == [1024, 2048, 3072])
        }
    }

    @Test func suffixedColumnsAreMatchedByWhichRowsFillThem() throws {
        try withStore { store in
            let photos = try store.firstObjects(entity: "Photo", limit: 10)
            #expect(photos.map { $0["caption"]?.stringValue } == ["a photo", "another"])
            let videos = try store.firstObjects(entity: "Video", limit: 10)
            #expect(videos.first?["caption"]?.stringValue == "a video")
            #expect(videos.first?["size"]?.int64Value == 2000)
            // TIMESTAMP seconds since 2001, negative allowed: one year before the reference date.
            #expect(videos.first?["recorded"] == .date(Date(timeIntervalSinceReferenceDate: -31_536_000)))
            #expect(store.guesses.allSatisfy { !$0.contains("caption") }, "resolved from the data, not guessed: \(store.guesses)")
        }
    }

    @Test func aPointerIntoAHierarchyNamesTheRowsConcreteEntity() throws {
        try withStore { store in
            let posts = try store.firstObjects(entity: "Post", limit: 10)
            #expect(posts.first?["cover"] == ["__type": "Pointer", "className": "Video", "objectId": "Video-2"])
            #expect(posts.last?["cover"] == nil)
        }
    }
}
