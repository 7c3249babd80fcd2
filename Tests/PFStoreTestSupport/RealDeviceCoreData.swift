import Foundation
import PFCore
import PFCoreData
import PFCoreDataTestSupport
import PFKeyedArchive
import PFStores

/// A Core Data store with the names real devices' stores have and Parse forbids: a
/// transformable dictionary (keyed archive) whose keys hold dots (`com.apple.Dataclass.Availability`
/// as in Accounts3, `com.apple.mobilenotes.SharingExtension` as in NoteStore), an attribute
/// named like knowledgeC's `_DKApplicationActivityMetadataKey__contentDescription`, attribute
/// names with a leading underscore, `$`, non-ASCII letters, reserved words, one that looks
/// encoded, one longer than PostgreSQL's 63 bytes, and a to-many relationship whose name
/// starts with `_` and whose join table name is longer than 63 bytes.
public enum RealDeviceCoreData {
    /// The to-many relationship: its join table `_Join:<name>:Account` is longer than 63 bytes.
    public static let notes = "_notesThatBelongToThisAccountOnThisDeviceAndMakeTheJoinTableLong"
    /// The long attribute name (70 bytes).
    public static let longName = "attribute" + String(repeating: "WithAVeryLongName", count: 3) + "ThatPostgresCannotHoldAsIs"

    /// The store's entities, for ``CoreDataStoreBuilder``: Account 1 (two rows, the first with
    /// every value, the second with none), Note 2 (three rows, two of the first account).
    public static func entities() throws -> [CoreDataStoreBuilder.Entity] {
        let archive = try KeyedArchiver.archivedData(withRootObject: properties)
        let account = CoreDataStoreBuilder.Entity(
            name: "Account",
            attributes: [
                .init("accountDescription", 700), .init("properties", 1800), .init("_DKApplicationActivityMetadataKey__contentDescription", 700),
                .init("_private", 300), .init("größe", 500), .init("$price", 200), .init("length", 700), .init("objectID", 700),
                .init("pf__lookalike", 700), .init(longName, 700),
            ],
            relationships: [.init(notes, to: "Note", inverse: "account", toMany: true)],
            rows: [
                [
                    "accountDescription": .text("iCloud"), "properties": .blob(archive),
                    "_DKApplicationActivityMetadataKey__contentDescription": .text("Safari"), "_private": .integer(-7),
                    "größe": .real(1.5), "$price": .integer(12), "length": .text("long"), "objectID": .text("0xDEAD"),
                    "pf__lookalike": .text("looks encoded"), longName: .text("long value"),
                ],
                ["accountDescription": .text("Local")],
            ])
        let note = CoreDataStoreBuilder.Entity(
            name: "Note", attributes: [.init("title", 700)],
            relationships: [.init("account", to: "Account", inverse: notes)],
            rows: [
                ["title": .text("first"), "account": .object("Account", 1)],
                ["title": .text("second"), "account": .object("Account", 1)],
                ["title": .text("third"), "account": .object("Account", 2)],
            ])
        return [account, note]
    }

    /// The model, as the store's model cache gives it.
    public static var model: CoreDataModel {
        get throws { try CoreDataStoreBuilder.model(try entities()) }
    }

    /// The transformable dictionary of the first account, with the keys of Accounts3 and Notes.
    public static let properties: PFValue = [
        "com.apple.Dataclass.Availability": ["com.apple.Dataclass.Notes": true, "enabled": 1],
        "com.apple.mobilenotes.SharingExtension": "enabled",
        "$money": 3, "_leading": "x", "plain": ["deeper.still": [["a.b": "c"]]],
    ]

    /// Writes the store into `directory` with ``CoreDataStoreBuilder`` (model cache included,
    /// so `pfarchive import` reads the real names without a model file).
    /// - Returns: the store's URL.
    public static func write(in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent("Accounts3.sqlite")
        try CoreDataStoreBuilder.write(try entities(), to: url)
        return url
    }

    /// The store opened as `pfarchive import` opens it: with the model from its cache.
    public static func open(_ url: URL) throws -> CoreDataObjectStore {
        try CoreDataObjectStore(url: url)
    }
}
