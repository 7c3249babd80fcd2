import Foundation
import PFCore
import PFCoreData
import Testing

@Suite struct StoreContentsTests {
    @Test(arguments: CoreDataFixtures.stores)
    func rowCountsMatchSQLitePerZENT(_ relative: String) throws {
        let expected = try CoreDataFixtures.countsByZENT(relative)
        let store = try CoreDataStore.open(url: CoreDataFixtures.store(relative))
        defer { store.close() }
        var seen: [Int64: Int] = [:]
        for entity in store.entities {
            let id = try #require(store.entityID(entity.name), "\(entity.name) has a Z_ENT")
            let count = try store.rowCount(entity: entity.name)
            var streamed = 0
            try store.forEachObject(entity: entity.name, batchSize: 7) { object in
                #expect(object["className"] == .string(entity.name))
                streamed += 1
            }
            #expect(count == streamed, "\(relative) \(entity.name): counted \(count), streamed \(streamed)")
            seen[id] = count
        }
        // Every Z_ENT with rows belongs to a recovered entity, with the same count.
        for (ent, count) in expected { #expect(seen[ent] == count, "\(relative) Z_ENT \(ent): sqlite3 counts \(count), store gives \(seen[ent] ?? -1)") }
        #expect(seen.values.reduce(0, +) == expected.values.reduce(0, +))
    }

    @Test func historyTablesAreSkippedUnlessAskedFor() throws {
        let url = CoreDataFixtures.store("coredataplus/SampleModel2_V2.sqlite")
        let plain = try CoreDataStore.open(url: url)
        defer { plain.close() }
        #expect(plain.entities.map(\.name) == ["Book", "GraphicNovel", "Feedback", "Page", "Writer", "Author"])
        let withHistory = try CoreDataStore.open(url: url, options: .init(includeHistory: true))
        defer { withHistory.close() }
        #expect(try withHistory.rowCount(entity: "CHANGE") == 126)
        #expect(try withHistory.rowCount(entity: "TRANSACTIONSTRING") == 2)
        #expect(withHistory.tableName(entity: "CHANGE") == "ACHANGE")
    }

    @Test func datesUUIDsAndPointersOfSampleModel() throws {
        let store = try CoreDataStore.open(url: CoreDataFixtures.store("coredataplus/SampleModel_V1.sqlite"))
        defer { store.close() }
        let person = try #require(try store.firstObjects(entity: "Person", limit: 1).first)
        #expect(person["objectId"] == "Person-1")
        #expect(person["firstName"] == "Victoria")
        #expect(person["updatedAt"] == .date(Date(timeIntervalSinceReferenceDate: 639503569.638733)))
        #expect(person["id"] == "FEFE4176-912D-429F-9C83-662FFF641115")
        #expect(person["isDriving"] == nil, "transient attributes are not stored")
        #expect(person["cars"] == ["__type": "Relation", "className": "Car"])
        let car = try #require(try store.firstObjects(entity: "Car", limit: 1).first)
        #expect(car["objectId"] == "Car-1")
        #expect(car["owner"] == ["__type": "Pointer", "className": "Person", "objectId": "Person-17"])
        #expect(car["numberPlate"] == "170")
        #expect(car["color"] == nil, "NULL columns are left out")
        let limited = try store.firstObjects(entity: "ExpensiveSportCar", limit: 5)
        #expect(limited.count == 5)
        #expect(limited.allSatisfy { $0["isLimitedEdition"]?.boolValue != nil })
    }

    @Test func transformablesDecimalsAndPolymorphicPointers() throws {
        let store = try CoreDataStore.open(url: CoreDataFixtures.store("coredataplus/SampleModel2_V2.sqlite"))
        defer { store.close() }
        let books = try store.firstObjects(entity: "Book", limit: 10)
        let first = try #require(books.first)
        #expect(first["objectId"] == "Book-1")
        #expect(first["frontCover"]?["$class"] == "CoreDataPlus_Tests.Cover")
        #expect(first["frontCover"]?["text"]?.stringValue != nil)
        #expect(first["price"] == .double(3.3333333332999993))
        #expect(first["publishedAt"] == .date(Date(timeIntervalSinceReferenceDate: 737057651.669581)))
        #expect(first["uniqueID"] == "173EF017-8551-4A76-AD07-19D8830FDC80")
        #expect(first["author"] == ["__type": "Pointer", "className": "Author", "objectId": "Author-1"])
        #expect(first["pages"] == ["__type": "Relation", "className": "Page"])
        let novel = try #require(try store.firstObjects(entity: "GraphicNovel", limit: 1).first)
        #expect(novel["objectId"] == "GraphicNovel-3")
        #expect(novel["isBlackAndWhite"] == true)
        let page = try #require(try store.firstObjects(entity: "Page", limit: 1).first)
        #expect(page["content"] == ["$class": "Content", "text": "content for page 19"])
        // ZBOOK = 3 with Z1_BOOK = 2: the pointer names the subentity.
        #expect(page["book"] == ["__type": "Pointer", "className": "GraphicNovel", "objectId": "GraphicNovel-3"])
        #expect(page["isBookmarked"] == false)
        #expect(page["number"] == 19)
    }

    @Test func inferredModelReadsTheLegacyStore() throws {
        let store = try CoreDataStore.open(url: CoreDataFixtures.store("restkit/RKSeedDatabase.sqlite"))
        defer { store.close() }
        #expect(store.model.source == .inferred)
        #expect(store.guesses.contains { $0.contains("no model cache") })
        #expect(store.guesses.contains { $0.contains("ZTWEET.ZUSER") })
        let tweet = try #require(try store.firstObjects(entity: "Tweet", limit: 1).first)
        #expect(tweet["objectId"] == "Tweet-61")
        #expect(tweet["createdat"] == .date(Date(timeIntervalSinceReferenceDate: 319512340)), "an INTEGER timestamp")
        #expect(tweet["user"] == ["__type": "Pointer", "className": "User", "objectId": "User-7"])
        #expect(tweet["statusid"] == 37684000310951936)
    }

    /// A store without a model cache whose objects are linked only through many-to-many join
    /// tables (Kik's, from plaso's test data): both sides of each are named from the table's
    /// and columns' names, and their pairs are exactly the table's rows as sqlite3 reads them.
    @Test func inferredModelReadsManyToManyJoinTables() throws {
        let url = CoreDataFixtures.store("plaso/kik.sqlite")
        let store = try CoreDataStore.open(url: url)
        defer { store.close() }
        #expect(store.model.source == .inferred)
        #expect(store.guesses.contains { $0.contains("join table Z_3MESSAGES is read as the many-to-many relationships KikChat.messages and KikMessage.chat") })
        #expect(!store.guesses.contains { $0.contains("not read") }, "\(store.guesses)")
        // (table, owning column, related column, owner, relationship, owner entity, related entity) for each side.
        let sides: [(String, String, String, String, String, String)] = [
            ("Z_3MESSAGES", "Z_3CHAT", "Z_5MESSAGES", "KikChat", "messages", "KikMessage"),
            ("Z_3MESSAGES", "Z_5MESSAGES", "Z_3CHAT", "KikMessage", "chat", "KikChat"),
            ("Z_6MEMBERS", "Z_6MEMBERSINVERSE", "Z_6MEMBERS", "KikUser", "members", "KikUser"),
            ("Z_6MEMBERS", "Z_6MEMBERS", "Z_6MEMBERSINVERSE", "KikUser", "membersinverse", "KikUser"),
            ("Z_6ADMINSINVERSE", "Z_6ADMINSINVERSE", "Z_6ADMINS", "KikUser", "admins", "KikUser"),
            ("Z_6ADMINSINVERSE", "Z_6ADMINS", "Z_6ADMINSINVERSE", "KikUser", "adminsinverse", "KikUser"),
        ]
        var total = 0
        for (table, owning, related, owner, relationship, destination) in sides {
            let expected = try CoreDataFixtures.sqlite(url, ["SELECT \(owning), \(related) FROM \(table)"]).map { "\(owner)-\($0[0])>\(destination)-\($0[1])" }
            let rows = try store.joinRows(entity: owner, relationship: relationship)
            #expect(Set(rows.map { "\($0.owningId)>\($0.relatedId)" }) == Set(expected), "\(owner).\(relationship)")
            #expect(rows.count == expected.count)
            total += rows.count
        }
        #expect(total == 2 * (61 + 4 + 1))
    }

    /// Without a model: join tables of other entities that end in the same names (`Z_1TAGS`,
    /// `Z_3TAGS`) keep their own pairs; a relationship that is its own inverse (`Z_1FRIENDS`
    /// with `Z_1FRIENDS1`) invents no second relationship; history tombstones still decode.
    @Test func inferredJoinTablesAreMatchedByTheirEntitiesNumbers() throws {
        let dir = try CoreDataFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("m2m.sqlite")
        let plist = "62706c6973743030d1010251611001080b0d000000000000010100000000000000030000000000000000000000000000000f"  // {"a": 1}
        var sql = [
            "ATTACH '\(CoreDataFixtures.store("plaso/kik.sqlite").path)' AS k",
            "CREATE TABLE Z_METADATA AS SELECT * FROM k.Z_METADATA",
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
            "INSERT INTO Z_PRIMARYKEY VALUES (1,'A',0,2),(2,'B',0,2),(3,'C',0,2),(4,'D',0,2),(5,'Person',0,2),(16001,'CHANGE',0,1)",
            "CREATE TABLE Z_1TAGS (Z_1ITEMS INTEGER, Z_2TAGS INTEGER, PRIMARY KEY (Z_1ITEMS, Z_2TAGS))",
            "INSERT INTO Z_1TAGS VALUES (1,1)",
            "CREATE TABLE Z_3TAGS (Z_3ITEMS INTEGER, Z_4TAGS INTEGER, PRIMARY KEY (Z_3ITEMS, Z_4TAGS))",
            "INSERT INTO Z_3TAGS VALUES (2,2)",
            "CREATE TABLE Z_5FRIENDS (Z_5FRIENDS INTEGER, Z_5FRIENDS1 INTEGER, PRIMARY KEY (Z_5FRIENDS, Z_5FRIENDS1))",
            "INSERT INTO Z_5FRIENDS VALUES (1,2)",
            "CREATE TABLE ACHANGE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZTOMBSTONE0 BLOB)",
            "INSERT INTO ACHANGE VALUES (1,16001,1,2,X'\(plist)')",
        ]
        for (id, table) in [(1, "ZA"), (2, "ZB"), (3, "ZC"), (4, "ZD"), (5, "ZPERSON")] {
            sql.append("CREATE TABLE \(table) (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR)")
            sql.append("INSERT INTO \(table) VALUES (1,\(id),1,'one'),(2,\(id),1,'two')")
        }
        try CoreDataFixtures.sqlite(url, sql)
        let store = try CoreDataStore.open(url: url, options: .init(includeHistory: true))
        defer { store.close() }
        #expect(store.model.source == .inferred)
        func pairs(_ entity: String, _ relationship: String) throws -> [String] {
            try store.joinRows(entity: entity, relationship: relationship).map { "\($0.owningId)>\($0.relatedId)" }
        }
        #expect(try pairs("A", "tags") == ["A-1>B-1"])
        #expect(try pairs("B", "items") == ["B-1>A-1"])
        #expect(try pairs("C", "tags") == ["C-2>D-2"])
        #expect(try pairs("D", "items") == ["D-2>C-2"])
        #expect(store.model.entity(named: "Person")?.relationships.isEmpty == true)
        #expect(store.guesses.contains { $0.contains("Z_5FRIENDS") && $0.contains("not read") }, "\(store.guesses)")
        var tombstones: [PFValue] = []
        try store.forEachObject(entity: "CHANGE") { tombstones.append($0["tombstone0"] ?? .null) }
        #expect(tombstones == [["a": 1]])
    }

    @Test func toManyJoinRowsAgreeWithTheInversePointers() throws {
        let store = try CoreDataStore.open(url: CoreDataFixtures.store("coredataplus/SampleModel2_V2.sqlite"))
        defer { store.close() }
        var expected: [String: Set<String>] = [:]  // owner class → "owner>related"
        try store.forEachObject(entity: "Page") { page in
            guard let book = page["book"], let owner = book["objectId"]?.stringValue, let ownerClass = book["className"]?.stringValue,
                let id = page["objectId"]?.stringValue
            else { return }
            expected[ownerClass, default: []].insert("\(owner)>\(id)")
        }
        for owner in ["Book", "GraphicNovel"] {
            let rows = try store.joinRows(entity: owner, relationship: "pages")
            #expect(Set(rows.map { "\($0.owningId)>\($0.relatedId)" }) == expected[owner] ?? [])
            #expect(rows.allSatisfy { $0.relatedClassName == "Page" && $0.position == nil })
        }
        #expect((expected["Book"]?.count ?? 0) + (expected["GraphicNovel"]?.count ?? 0) == 119)
        let books = try store.joinRows(entity: "Author", relationship: "books")
        #expect(Set(books.map(\.relatedId)) == ["Book-1", "Book-2", "GraphicNovel-3"])
        #expect(Set(books.map(\.owningId)) == ["Author-1"])
        #expect(throws: PFError.self) { try store.joinRows(entity: "Page", relationship: "book") }
    }

    @Test func personCarsPairsCoverEveryOwnedCar() throws {
        let store = try CoreDataStore.open(url: CoreDataFixtures.store("coredataplus/SampleModel_V1.sqlite"))
        defer { store.close() }
        let rows = try store.joinRows(entity: "Person", relationship: "cars")
        var owned = 0
        for entity in ["Car", "SportCar", "ExpensiveSportCar"] {
            try store.forEachObject(entity: entity) { car in if car["owner"] != nil { owned += 1 } }
        }
        #expect(rows.count == owned)
        #expect(Set(rows.map(\.relatedClassName)).isSubset(of: ["Car", "SportCar", "ExpensiveSportCar"]))
    }
}
