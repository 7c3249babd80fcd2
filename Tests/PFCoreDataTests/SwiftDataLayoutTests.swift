import Foundation
import PFCompression
import PFCore
@testable import PFCoreData
import PFCoreDataTestSupport
import PFKeyedArchive
import Testing

/// Two layouts SwiftData models use all the time, built with the sqlite3 shell as a real
/// SwiftData store (MetaCocktails' `PreloadedCocktails.store`, framework 1414) has them, with a
/// model cache archived as Core Data archives it:
/// - a composite attribute (a Swift struct, `NSCompositeAttributeDescription`, type 2100) is a
///   column per element, `Z<ELEMENT>`, or `Z<ELEMENT><n>` when the name is taken (`author.id`
///   in `ZID1` beside the entity's own `id` in `ZID`); before, the attribute was looked for in
///   one column `ZAUTHOR`, found missing, and 3,656 values of that store were left out without
///   a warning;
/// - a to-many relationship without an inverse keeps its owner's `Z_PK` in a column of the
///   destination's table, `Z<n><NAME>` (`ZINGREDIENT.Z1SPEC` for `Cocktail.spec`); before it
///   was "not read", and every cocktail lost its recipe.
@Suite struct SwiftDataLayoutTests {
    static func attribute(_ name: String, _ type: Int64, elements: [PFValue] = []) -> PFValue {
        var members: [String: PFValue] = [
            "$class": "NSAttributeDescription", "NSPropertyName": .string(name), "NSAttributeType": .int(type), "NSIsOptional": true,
        ]
        if !elements.isEmpty {
            members["$class"] = "NSCompositeAttributeDescription"
            // The class chain of the real archive.
            members["$classes"] = ["NSCompositeAttributeDescription", "NSAttributeDescription", "NSPropertyDescription", "NSObject"]
            members["NSCompositeElements"] = .array(elements)
        }
        return .dictionary(.init(uniqueKeysWithValues: members.sorted { $0.key < $1.key }))
    }

    static func modelCache() throws -> Data {
        let author = attribute("author", 2100, elements: [
            attribute("id", 1100), attribute("person", 700),
            // A struct in the struct.
            attribute("origin", 2100, elements: [attribute("place", 700), attribute("year", 300)]),
        ])
        // `moods` has no column (a model newer than the table): the rest of `tags` is still read.
        let tags = attribute("tags", 2100, elements: [attribute("flavors", 1000), attribute("moods", 1000)])
        let cocktail: PFValue = [
            "$class": "NSEntityDescription", "$id": 1, "NSEntityName": "Cocktail", "NSClassNameForEntity": "Cocktail",
            "NSIsAbstract": false,
            "NSProperties": [
                "id": attribute("id", 1100), "name": attribute("name", 700), "author": author, "tags": tags,
                "spec": [
                    "$class": "NSRelationshipDescription", "NSPropertyName": "spec", "_NSDestinationEntityName": "Ingredient",
                    "NSMaxCount": 0, "NSIsOrdered": false, "NSIsOptional": true,
                ],
            ],
        ]
        let ingredient: PFValue = [
            "$class": "NSEntityDescription", "$id": 2, "NSEntityName": "Ingredient", "NSClassNameForEntity": "Ingredient",
            "NSIsAbstract": false, "NSProperties": ["name": attribute("name", 700)],
        ]
        let model: PFValue = ["$class": "NSManagedObjectModel", "NSEntities": ["Cocktail": cocktail, "Ingredient": ingredient]]
        return try Compression.compress(try KeyedArchive.archive(try KeyedGraph(json: model)), as: .deflate)
    }

    static func sql() throws -> String {
        let cache = try modelCache().map { String(format: "%02X", $0) }.joined()
        let uuid = "X'9A8B7F4EE03E4BA89B0411464B65D799'"
        return """
            CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
            INSERT INTO Z_PRIMARYKEY VALUES (1,'Cocktail',0,2),(2,'Ingredient',0,3);
            CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
            INSERT INTO Z_METADATA VALUES (1,'4B40FEDE-880B-487F-A9E0-2C0C678F055E',NULL);
            CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);
            INSERT INTO Z_MODELCACHE VALUES (X'\(cache)');
            CREATE TABLE ZCOCKTAIL ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZYEAR INTEGER, ZNAME VARCHAR,
                ZPERSON VARCHAR, ZPLACE VARCHAR, ZID BLOB, ZID1 BLOB, ZFLAVORS BLOB );
            INSERT INTO ZCOCKTAIL VALUES (1,1,1,1946,'Sloe Walker','Kenny Remster','Denver',X'EAC34E2F3E984FFB857D23F36B761BB5',\(uuid),X'5B2261225D'),
                (2,1,1,NULL,'Plain',NULL,NULL,X'0BC44885679341 29B459FA925658B3F6',NULL,NULL);
            CREATE TABLE ZINGREDIENT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, Z1SPEC INTEGER, ZNAME VARCHAR );
            CREATE INDEX ZINGREDIENT_Z1SPEC_INDEX ON ZINGREDIENT (Z1SPEC);
            INSERT INTO ZINGREDIENT VALUES (1,2,1,1,'gin'),(2,2,1,1,'sloe gin'),(3,2,1,NULL,'unused');
            """.replacingOccurrences(of: "41 29", with: "4129")
    }

    func withStore(_ body: (CoreDataStore) throws -> Void) throws {
        let directory = try CoreDataFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("default.store")
        try CoreDataStoreBuilder.sqlite3(url, try Self.sql())
        let store = try CoreDataStore.open(url: url)
        defer { store.close() }
        try body(store)
    }

    @Test func compositeAttributesReadAsDictionariesOfTheirElements() throws {
        try withStore { store in
            let author = try #require(store.model.entity(named: "Cocktail")?.attributes.first { $0.name == "author" })
            #expect(author.isComposite)
            #expect(author.elements.map(\.name) == ["id", "person", "origin"])
            let objects = try store.firstObjects(entity: "Cocktail", limit: 10)
            #expect(objects.first?["id"] == "EAC34E2F-3E98-4FFB-857D-23F36B761BB5")
            #expect(objects.first?["author"] == [
                "id": "9A8B7F4E-E03E-4BA8-9B04-11464B65D799", "person": "Kenny Remster", "origin": ["place": "Denver", "year": 1946],
            ])
            #expect(objects.first?["tags"] == ["flavors": .data(Data(#"["a"]"#.utf8))])
            // A composite whose elements are all NULL is absent, as any NULL attribute is.
            #expect(objects.last?["author"] == nil && objects.last?["name"] == "Plain")
            #expect(store.unmappedProperties(entity: "Cocktail").isEmpty, "\(store.unmappedProperties(entity: "Cocktail"))")
            #expect(store.guesses.contains("Cocktail.tags: composite element moods with no column in ZCOCKTAIL; read without it"), "\(store.guesses)")
            #expect(try store.unreadNotes() == [])
        }
    }

    @Test func aToManyWithoutAnInverseIsReadFromTheDestinationsColumn() throws {
        try withStore { store in
            let pairs = try store.joinRows(entity: "Cocktail", relationship: "spec")
            #expect(pairs.map { [$0.owningId, $0.relatedId] } == [["Cocktail-1", "Ingredient-1"], ["Cocktail-1", "Ingredient-2"]])
            let objects = try store.firstObjects(entity: "Cocktail", limit: 1)
            #expect(objects.first?["spec"] == ["__type": "Relation", "className": "Ingredient"])
        }
    }
}
