import Foundation
import OrderedCollections
import PFArchive

/// A Core Data store with the names real devices' stores have and Parse forbids: a
/// transformable dictionary (keyed archive) whose keys hold dots (`com.apple.Dataclass.Availability`
/// as in Accounts3, `com.apple.mobilenotes.SharingExtension` as in NoteStore), an attribute
/// named like knowledgeC's `_DKApplicationActivityMetadataKey__contentDescription`, attribute
/// names with a leading underscore, `$`, non-ASCII letters, reserved words, one that looks
/// encoded, one longer than PostgreSQL's 63 bytes, and a to-many relationship whose name
/// starts with `_`.
public enum RealDeviceCoreData {
    /// The long attribute name (70 bytes).
    public static let longName = "attribute" + String(repeating: "WithAVeryLongName", count: 3) + "ThatPostgresCannotHoldAsIs"

    /// The model, as the store's model cache would give it.
    public static let model = CoreDataModel(
        entities: [
            CoreDataEntity(
                name: "Account",
                attributes: [
                    CoreDataAttribute(name: "accountDescription", type: .string, declaredBy: "Account"),
                    CoreDataAttribute(name: "properties", type: .transformable, declaredBy: "Account"),
                    CoreDataAttribute(name: "_DKApplicationActivityMetadataKey__contentDescription", type: .string, declaredBy: "Account"),
                    CoreDataAttribute(name: "_private", type: .integer64, declaredBy: "Account"),
                    CoreDataAttribute(name: "größe", type: .double, declaredBy: "Account"),
                    CoreDataAttribute(name: "$price", type: .integer32, declaredBy: "Account"),
                    CoreDataAttribute(name: "length", type: .string, declaredBy: "Account"),
                    CoreDataAttribute(name: "objectID", type: .string, declaredBy: "Account"),
                    CoreDataAttribute(name: "pf__lookalike", type: .string, declaredBy: "Account"),
                    CoreDataAttribute(name: longName, type: .string, declaredBy: "Account"),
                ],
                relationships: [
                    CoreDataRelationship(name: "_notes", destination: "Note", inverse: "account", isToMany: true, declaredBy: "Account")
                ]),
            CoreDataEntity(
                name: "Note",
                attributes: [CoreDataAttribute(name: "title", type: .string, declaredBy: "Note")],
                relationships: [
                    CoreDataRelationship(name: "account", destination: "Account", inverse: "_notes", isToMany: false, declaredBy: "Note")
                ]),
        ],
        source: .modelCache)

    /// The transformable dictionary of the first account, with the keys of Accounts3 and Notes.
    public static let properties: PFValue = [
        "com.apple.Dataclass.Availability": ["com.apple.Dataclass.Notes": true, "enabled": 1],
        "com.apple.mobilenotes.SharingExtension": "enabled",
        "$money": 3, "_leading": "x", "plain": ["deeper.still": [["a.b": "c"]]],
    ]

    /// Writes the store into `directory` with the sqlite3 shell.
    /// - Returns: the store's URL.
    public static func write(in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent("Accounts3.sqlite")
        let archive = try KeyedArchiver.archivedData(withRootObject: properties)
        let hex = archive.map { String(format: "%02x", $0) }.joined()
        func column(_ name: String) -> String { "\"Z" + name.uppercased().replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        let account = model.entities[0].attributes.map { column($0.name) + ($0.type == .string ? " VARCHAR" : $0.type == .transformable ? " BLOB" : "") }
        let sql = [
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
            "INSERT INTO Z_PRIMARYKEY VALUES (1,'Account',0,2),(2,'Note',0,3)",
            "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
            "INSERT INTO Z_METADATA VALUES (1,'5C0F2B1E-0000-4000-8000-0000000000AC',NULL)",
            "CREATE TABLE ZACCOUNT (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, \(account.joined(separator: ", ")))",
            "INSERT INTO ZACCOUNT VALUES (1,1,1,'iCloud',X'\(hex)','Safari',-7,1.5,12,'long','0xDEAD','looks encoded','long value')",
            "INSERT INTO ZACCOUNT VALUES (2,1,1,'Local',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL)",
            "CREATE TABLE ZNOTE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTITLE VARCHAR, ZACCOUNT INTEGER)",
            "INSERT INTO ZNOTE VALUES (1,2,1,'first',1),(2,2,1,'second',1),(3,2,1,'third',2)",
        ]
        let result = try Peers.run("/usr/bin/env", ["sqlite3", url.path] + sql)
        guard result.status == 0 else { throw PFError(.io, format: "test", "sqlite3 failed: \(result.stderr)") }
        return url
    }

    /// The store opened with ``model``.
    public static func open(_ url: URL) throws -> CoreDataObjectStore {
        CoreDataObjectStore(try CoreDataStore.open(url: url, model: model))
    }
}
