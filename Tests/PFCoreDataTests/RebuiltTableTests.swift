import Foundation
import PFCore
@testable import PFCoreData
import Testing

/// A store whose tables another tool rebuilt (DB Browser's "import CSV", a hand migration):
/// columns without a declared type, so `Z_PK`, `Z_ENT` and the foreign keys hold TEXT such as
/// `'1'`, which `Z_ENT = 1` does not match (a real one, LPAR-development's `lpar_Model.sqlite`,
/// read as 0 rows with no warning). Built with the sqlite3 shell from ``LayoutRulesTests``'s
/// store, whose objects and pairs are the expected ones.
@Suite struct RebuiltTableTests {
    /// Every entity table rebuilt with untyped columns, each value stored as TEXT but NULLs.
    static let rebuild: [String] = {
        let tables: [(String, [String])] = [
            ("ZPOST", ["Z_PK", "Z_ENT", "Z_OPT", "ZCOVER", "Z3_COVER", "ZTITLE"]),
            ("ZTAG", ["Z_PK", "Z_ENT", "Z_OPT", "ZNAME"]),
            ("ZMEDIA", ["Z_PK", "Z_ENT", "Z_OPT", "ZSIZE", "ZCAPTION1", "ZCAPTION2", "ZRECORDED"]),
            ("ZPLAYLIST", ["Z_PK", "Z_ENT", "Z_OPT", "ZNAME"]),
            ("ZTRACK", ["Z_PK", "Z_ENT", "Z_OPT", "ZPLAYLIST", "Z_FOK_PLAYLIST", "ZNAME"]),
        ]
        return tables.flatMap { table, columns in
            // Attribute values keep their types (the keys are what the rebuild breaks).
            let keys: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT", "ZCOVER", "Z3_COVER", "ZPLAYLIST"]
            let select = columns.map { keys.contains($0) ? "CAST(\($0) AS TEXT)" : $0 }.joined(separator: ", ")
            return [
                "CREATE TABLE \(table)_new (\(columns.joined(separator: ", ")))",
                "INSERT INTO \(table)_new SELECT \(select) FROM \(table)",
                "DROP TABLE \(table)",
                "ALTER TABLE \(table)_new RENAME TO \(table)",
            ]
        }
    }()

    func withStores(_ extra: [String] = [], _ body: (_ original: CoreDataStore, _ rebuilt: CoreDataStore) throws -> Void) throws {
        let directory = try CoreDataFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let original = directory.appendingPathComponent("Original.sqlite")
        let rebuilt = directory.appendingPathComponent("Rebuilt.sqlite")
        _ = try CoreDataFixtures.sqlite(original, LayoutRulesTests.sql)
        _ = try CoreDataFixtures.sqlite(rebuilt, LayoutRulesTests.sql + Self.rebuild + extra)
        let types = try CoreDataFixtures.sqlite(rebuilt, ["SELECT DISTINCT typeof(Z_PK), typeof(Z_ENT) FROM ZTAG"])
        #expect(types == [["text", "text"]], "the rebuild keeps the keys as TEXT")
        let a = try CoreDataStore.open(url: original, model: LayoutRulesTests.model)
        defer { a.close() }
        let b = try CoreDataStore.open(url: rebuilt, model: LayoutRulesTests.model)
        defer { b.close() }
        try body(a, b)
    }

    @Test func textKeysReadAsTheIntegersTheyHold() throws {
        try withStores { original, rebuilt in
            for entity in ["Post", "Tag", "Photo", "Video", "Playlist", "Track"] {
                #expect(try rebuilt.rowCount(entity: entity) == original.rowCount(entity: entity), "\(entity)")
                let expected = try original.firstObjects(entity: entity, limit: 100)
                #expect(!expected.isEmpty)
                let objects = try rebuilt.firstObjects(entity: entity, limit: 100)
                #expect(objects == expected, "\(entity)")
            }
            for (entity, relationship) in [("Post", "tags"), ("Tag", "posts"), ("Playlist", "tracks")] {
                let expected = try original.joinRows(entity: entity, relationship: relationship)
                #expect(!expected.isEmpty)
                let pairs = try rebuilt.joinRows(entity: entity, relationship: relationship)
                #expect(pairs.map(\.owningId) == expected.map(\.owningId), "\(entity).\(relationship)")
                #expect(pairs.map(\.relatedId) == expected.map(\.relatedId), "\(entity).\(relationship)")
            }
            #expect(try rebuilt.unreadNotes() == [])
        }
    }

    @Test func pagingByTextKeysReadsEveryRowOnceInIntegerOrder() throws {
        // 300 tags: more than one batch, and '10' sorts before '9' as text.
        let rows = (4...300).map { "('\($0)','2','1','tag \($0)')" }.joined(separator: ",")
        try withStores(["INSERT INTO ZTAG VALUES \(rows)"]) { _, rebuilt in
            var cursor = try rebuilt.objects(entity: "Tag", batchSize: 7)
            var ids: [String] = []
            while let object = try cursor.next() { ids.append(object["objectId"]?.stringValue ?? "?") }
            #expect(ids == (1...300).map { "Tag-\($0)" })
        }
    }

    @Test func rowsAndColumnsTheModelDoesNotReadAreNamed() throws {
        let extra = [
            "ALTER TABLE ZTAG ADD COLUMN ZCOLOUR",
            "UPDATE ZTAG SET ZCOLOUR = 'red' WHERE Z_PK IN ('1', '2')",
            "ALTER TABLE ZTAG ADD COLUMN ZEMPTY",
            "INSERT INTO ZTAG (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES ('9', '42', '1', 'from another model')",
            // A row of the abstract entity Media is no object either.
            "INSERT INTO ZMEDIA (Z_PK, Z_ENT, Z_OPT, ZSIZE) VALUES ('9', '3', '1', 1)",
        ]
        try withStores(extra) { _, rebuilt in
            let notes = try rebuilt.unreadNotes()
            #expect(notes == [
                "ZMEDIA: 1 row whose Z_ENT (3) names no entity of the model read from this table; not read",
                "ZTAG: 1 row whose Z_ENT (42) names no entity of the model read from this table; not read",
                "ZTAG.ZCOLOUR: 2 values in a column no property of the model is stored in; not read",
            ])
        }
    }
}

/// A store without a model cache (its model inferred) whose to-one foreign key is not named
/// after its destination (Apple's Recipes sample: `ZRECIPE.ZTYPE` → RecipeType): Core Data's
/// index on the column says it is probably one, and the guesses say so instead of nothing.
@Suite struct InferredForeignKeyTests {
    @Test func anIndexedIntegerColumnNamedLikeNoEntityIsListedAsAProbableForeignKey() throws {
        let directory = try CoreDataFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Recipes.sqlite")
        _ = try CoreDataFixtures.sqlite(url, [
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
            "INSERT INTO Z_PRIMARYKEY VALUES (1,'Recipe',0,1),(2,'RecipeType',0,5)",
            "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
            "CREATE TABLE ZRECIPE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTYPE INTEGER, ZSERVINGS INTEGER, ZNAME VARCHAR)",
            "CREATE INDEX ZRECIPE_ZTYPE_INDEX ON ZRECIPE (ZTYPE)",
            "INSERT INTO ZRECIPE VALUES (1,1,1,4,2,'Tarte')",
            "CREATE TABLE ZRECIPETYPE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR)",
            "INSERT INTO ZRECIPETYPE VALUES (4,2,1,'Dessert')",
        ])
        let store = try CoreDataStore.open(url: url)
        defer { store.close() }
        #expect(store.model.source == .inferred)
        #expect(store.guesses.contains { $0.hasPrefix("ZRECIPE.ZTYPE is indexed as Core Data indexes a to-one relationship's foreign key") }, "\(store.guesses)")
        #expect(!store.guesses.contains { $0.contains("ZSERVINGS") })
        #expect(try store.firstObjects(entity: "Recipe", limit: 1).first?["type"] == 4)
    }
}
