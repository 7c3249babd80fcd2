import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFParse
import PFStores
import Testing

@testable import PFPostgresStore

/// A Pointer field whose values point at more than one class (a to-one relationship to a Core
/// Data entity with subentities; a Mongo or Parse export's Pointer field holding several
/// classes) survives PostgreSQL, where parse-server keeps one target class per Pointer
/// column: such a field becomes a `jsonb` column of REST pointers, an Object to parse-server,
/// noted in `_SCHEMA`'s `_pfarchive.pointers`, and reads back as exactly the pointers written.
/// Before this, the first foreign class was refused ("parse-server keeps one target class
/// per field"), which stopped the import of the real SampleModel2_V2 store.
@Suite(.serialized, .enabled(if: TestServer.available, TestServer.skipReason))
struct MultiClassPointerTests {
    static func pointer(_ className: String, _ id: String) -> ParseValue { .pointer(ParsePointer(className: className, objectId: id)) }

    /// Pages pointing at a Book, at GraphicNovels (a subclass in the source) and at nothing;
    /// the first batch holds only Books, so the column is made as parse-server's text first.
    static func store() throws -> MemoryStore {
        var objects: [ParseObject] = []
        objects.append(try ParseObject(className: "Book", objectId: "b1", fields: ["title": .string("plain")]))
        objects.append(try ParseObject(className: "GraphicNovel", objectId: "g1", fields: ["title": .string("drawn")]))
        let targets: [ParseValue?] = [
            pointer("Book", "b1"), pointer("Book", "b1"), nil, pointer("GraphicNovel", "g1"), pointer("Book", "b1"),
            pointer("GraphicNovel", "g1"), pointer("Missing", "m1"),
        ]
        for (i, target) in targets.enumerated() {
            var fields: OrderedDictionary<String, ParseValue> = ["number": .int(Int64(i))]
            if let target { fields["book"] = target }
            fields["author"] = pointer("_User", "u\(i % 2)")
            objects.append(try ParseObject(className: "Page", objectId: "p\(i)", fields: fields))
        }
        var schema = ParseSchema()
        schema.classes["Book"] = ["title": .init(.string)]
        schema.classes["GraphicNovel"] = ["title": .init(.string)]
        schema.classes["Page"] = [
            "number": .init(.number), "book": .init(.pointer, targetClass: "Book"), "author": .init(.pointer, targetClass: "_User"),
        ]
        return MemoryStore(objects: objects, schema: schema)
    }

    static func schemaDocument(_ store: PostgresStore, _ className: String) throws -> PFValue {
        let rows = try store.session.query(#"SELECT "schema"::text FROM "_SCHEMA" WHERE "className" = '\#(className)'"#, doing: "test")
        let text = try #require(rows.first.map { try Array($0)[0].decode(String.self) })
        return try JSONReader().read(Data(text.utf8))
    }

    static func columnType(_ store: PostgresStore, _ table: String, _ column: String) throws -> String? {
        try store.columns(of: table)[column]??.sqlType
    }

    @Test func aPointerFieldHoldingSeveralClassesReadsBackExactly() throws {
        try TestServer.withDatabase { url in
            let source = try Self.store()
            let store = try PostgresStore.open(url: url)
            defer { store.close() }
            try copy(source, into: store, batch: 2)
            // Exactly the pointers written, with their classes; the single-class field untouched.
            let pages = try objectsById(store, "Page")
            for expected in try source.objects(in: "Page") {
                let read = try #require(pages[expected.objectId ?? ""])
                #expect(read.fields == expected.fields, "\(expected.objectId ?? "")")
            }
            #expect(try store.schema().classes["Page"]?["book"] == .init(.pointer, targetClass: "Book"))
            #expect(try store.schema().classes["Page"]?["author"] == .init(.pointer, targetClass: "_User"))
            // parse-server sees an Object (jsonb) field holding REST pointers; the note says it is a Pointer.
            let document = try Self.schemaDocument(store, "Page")
            #expect(document["fields"]?["book"] == ["type": "Object"])
            #expect(document["fields"]?["author"] == ["type": "Pointer", "targetClass": "_User"])
            #expect(document["_pfarchive"]?["pointers"] == ["book": "Book"])
            #expect(try Self.columnType(store, "Page", "book") == "jsonb")
            #expect(try Self.columnType(store, "Page", "author") == "text")
            let cell = try store.session.query(#"SELECT "book"::text FROM "Page" WHERE "objectId" = 'p0'"#, doing: "test")
            let stored = try JSONReader().read(Data(try #require(cell.first.map { try Array($0)[0].decode(String.self) }).utf8))
            #expect(stored["__type"] == "Pointer" && stored["className"] == "Book" && stored["objectId"] == "b1" && stored.dictionaryValue?.count == 3)

            // A second import into the same database adds to the multi-class field as it is.
            let more = try ParseObject(className: "Page", objectId: "p9", fields: ["book": Self.pointer("GraphicNovel", "g1")])
            let only = try ParseObject(className: "Page", objectId: "p8", fields: ["book": Self.pointer("Book", "b1")])
            try copy(MemoryStore(objects: [only, more]), into: store)
            #expect(try objectsById(store, "Page")["p9"]?.fields["book"] == Self.pointer("GraphicNovel", "g1"))
            #expect(try objectsById(store, "Page")["p8"]?.fields["book"] == Self.pointer("Book", "b1"))
        }
    }

    @Test func backToAParseExportEqualsTheSource() throws {
        try TestServer.withDatabase { url in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pf-multipointer-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let source = try Self.store()
            let store = try PostgresStore.open(url: url)
            defer { store.close() }
            _ = try StoreImporter(options: .init(batchSize: 2)).run(from: source, to: store)
            _ = try StoreImporter().run(from: store, to: ParseExportStore(url: directory))
            let back = ParseExportStore(url: directory)
            defer { back.close() }
            #expect(try back.schema().classes["Page"]?["book"] == .init(.pointer, targetClass: "Book"))
            for className in ["Book", "GraphicNovel", "Page"] {
                let read = try objectsById(back, className)
                for expected in try source.objects(in: className) {
                    #expect(read[expected.objectId ?? ""]?.fields == expected.fields, "\(className) \(expected.objectId ?? "")")
                }
            }
        }
    }

    @Test func aSingleClassFieldStaysParseServersTextColumn() throws {
        try TestServer.withDatabase { url in
            let store = try PostgresStore.open(url: url)
            defer { store.close() }
            let page = try ParseObject(className: "Page", objectId: "p1", fields: ["book": Self.pointer("Book", "b1")])
            try copy(MemoryStore(objects: [page]), into: store)
            #expect(try Self.columnType(store, "Page", "book") == "text")
            let document = try Self.schemaDocument(store, "Page")
            #expect(document["fields"]?["book"] == ["type": "Pointer", "targetClass": "Book"])
            #expect(document["_pfarchive"]?["pointers"] == nil)
        }
    }

    @Test func aColumnThatExistedBeforeTheImportKeepsItsType() throws {
        try TestServer.withDatabase { url in
            let store = try PostgresStore.open(url: url)
            defer { store.close() }
            let first = try ParseObject(className: "Page", objectId: "p1", fields: ["book": Self.pointer("Book", "b1")])
            try copy(MemoryStore(objects: [first]), into: store)
            // The source declares Pointer<Book> (as a Core Data store does) and holds a subclass's row.
            let foreign = try ParseObject(className: "Page", objectId: "p2", fields: ["book": Self.pointer("GraphicNovel", "g1")])
            var schema = ParseSchema()
            schema.classes["Page"] = ["book": .init(.pointer, targetClass: "Book")]
            #expect {
                try copy(MemoryStore(objects: [foreign], schema: schema), into: store)
            } throws: { error in
                guard let e = error as? PFError else { return false }
                guard case .pointerTargetFixed(_, "Page", "p2", "book", "GraphicNovel", "Book")? = e.failure(as: PostgresStoreFailure.self) else { return false }
                return !e.message.contains("\n")
            }
            // Rolled back: the column, its _SCHEMA entry and the objects are as the first import left them.
            #expect(try Self.columnType(store, "Page", "book") == "text")
            #expect(try Self.schemaDocument(store, "Page")["fields"]?["book"] == ["type": "Pointer", "targetClass": "Book"])
            #expect(try store.objects(in: "Page").map(\.objectId) == ["p1"])
        }
    }

    @Test func aPointerFieldWithoutATargetClassTakesItsFirstValuesClass() throws {
        try TestServer.withDatabase { url in
            let store = try PostgresStore.open(url: url)
            defer { store.close() }
            var schema = ParseSchema()
            schema.classes["Page"] = ["book": .init(.pointer)]
            let pages = [
                try ParseObject(className: "Page", objectId: "p1", fields: ["book": Self.pointer("Book", "b1")]),
                try ParseObject(className: "Page", objectId: "p2", fields: ["book": Self.pointer("Book", "b2")]),
            ]
            try copy(MemoryStore(objects: pages, schema: schema), into: store)
            #expect(try store.schema().classes["Page"]?["book"] == .init(.pointer, targetClass: "Book"))
            #expect(try store.objects(in: "Page").map { $0.fields["book"] } == pages.map { $0.fields["book"] })
        }
    }
}
