import Foundation
import PFCore
import PFKeyedArchive

/// Generated Core Data stores in the shapes real devices' stores have, built with
/// ``CoreDataStoreBuilder``: inheritance flattened into one table, a to-one pointing at
/// subentity rows, to-many, ordered to-many and many-to-many relationships, transformables
/// holding a keyed archive inside data inside a keyed archive (netusage's `ZMAP`), binary and
/// UUID attributes, and a name two subentities both declare.
public enum CoreDataShapes {
    /// The innermost payload of the nested transformable (keys with dots, as Apple's).
    public static let innerPayload: PFValue = ["com.apple.networkd.level": 3, "label": "wifi", "ratio": 0.25]

    /// A keyed archive whose root is data holding a keyed archive of ``innerPayload``.
    public static func nestedArchive() throws -> Data {
        let inner = try KeyedArchive.archive(try KeyedGraph(json: innerPayload))
        return try KeyedArchive.archive(try KeyedGraph(json: .data(inner)))
    }

    /// A library, Z_ENT: Book 1 > GraphicNovel 2; Page 3; Media 4 (abstract) > Photo 5, Video 6;
    /// Playlist 7; Tag 8; Track 9. `Page.book` (to Book) points at Book and GraphicNovel rows
    /// (`Z1_BOOK`), `Book.cover` (to abstract Media) at Photos and Videos (`Z4_COVER`);
    /// `Book.pages` is its inverse to-many, `Book.tags`/`Tag.books` a many-to-many (`Z_1TAGS`),
    /// `Playlist.tracks` an ordered to-many (`Z_FOK_PLAYLIST`); Photo and Video both declare
    /// `caption` (`ZCAPTION1`, `ZCAPTION2`).
    public static func library() throws -> [CoreDataStoreBuilder.Entity] {
        let nested = try nestedArchive()
        let uuid = Data((0..<16).map { UInt8($0 * 17) })
        return [
            .init(
                name: "Book",
                attributes: [
                    .init("title", 700), .init("price", 400), .init("published", 900), .init("uniqueID", 1100),
                    .init("usage", 1800, transformer: "NSSecureUnarchiveFromData"), .init("thumbnail", 1000),
                ],
                relationships: [
                    .init("pages", to: "Page", inverse: "book", toMany: true), .init("tags", to: "Tag", inverse: "books", toMany: true),
                    .init("cover", to: "Media"),
                ],
                rows: [
                    [
                        "title": .text("Plain book"), "price": .real(12.5), "published": .real(700_000_000.25), "uniqueID": .blob(uuid),
                        "usage": .blob(nested), "thumbnail": .blob(Data([0, 1, 2, 0xFE, 0xFF])), "cover": .object("Photo", 5),
                        "tags": .objects([.init("Tag", 1), .init("Tag", 2)]),
                    ],
                    ["title": .text("No cover"), "published": .real(-31_536_000), "thumbnail": .blob(nested)],
                ]),
            .init(
                name: "GraphicNovel", superentity: "Book", attributes: [.init("illustrator", 700), .init("isColor", 800)],
                rows: [
                    [
                        "title": .text("Drawn"), "illustrator": .text("Moebius"), "isColor": .integer(1), "cover": .object("Video", 6),
                        "tags": .objects([.init("Tag", 2)]), "usage": .blob(nested),
                    ],
                    ["title": .text("Sketches"), "isColor": .integer(0)],
                ]),
            .init(
                name: "Page", attributes: [.init("number", 200), .init("text", 700)],
                relationships: [.init("book", to: "Book", inverse: "pages")],
                rows: [
                    ["number": .integer(1), "text": .text("one"), "book": .object("Book", 1)],
                    ["number": .integer(2), "text": .text("two"), "book": .object("Book", 1)],
                    ["number": .integer(1), "text": .text("drawn one"), "book": .object("GraphicNovel", 3)],
                    ["number": .integer(9), "text": .text("loose")],
                ]),
            .init(name: "Media", isAbstract: true, attributes: [.init("size", 300)], rows: []),
            .init(
                name: "Photo", superentity: "Media", attributes: [.init("caption", 700)],
                rows: [["Z_PK": .integer(5), "size": .integer(100), "caption": .text("a photo")]]),
            .init(
                name: "Video", superentity: "Media", attributes: [.init("caption", 700), .init("length", 500)],
                rows: [["Z_PK": .integer(6), "size": .integer(2_000), "caption": .text("a video"), "length": .real(61.5)]]),
            .init(
                name: "Playlist", attributes: [.init("name", 700)],
                relationships: [.init("tracks", to: "Track", inverse: "playlist", toMany: true, ordered: true)],
                rows: [["name": .text("mix")]]),
            .init(
                name: "Tag", attributes: [.init("name", 700)], relationships: [.init("books", to: "Book", inverse: "tags", toMany: true)],
                rows: [["name": .text("swift")], ["name": .text("sqlite")], ["name": .text("unused")]]),
            .init(
                name: "Track", attributes: [.init("name", 700)], relationships: [.init("playlist", to: "Playlist", inverse: "tracks")],
                rows: [
                    ["name": .text("first"), "playlist": .object("Playlist", 1)],
                    ["name": .text("second"), "playlist": .object("Playlist", 1)],
                ]),
        ]
    }
}
