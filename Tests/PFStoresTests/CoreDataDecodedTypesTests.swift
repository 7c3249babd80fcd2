import Foundation
import PFCore
import PFCoreDataTestSupport
import PFKeyedArchive
import PFParse
import PFStores
import Testing

/// A Transformable attribute holds whatever the app archived into it (plaso's real
/// `Accounts3.sqlite`: Strings, Booleans, Arrays and Dictionaries in one `value` column), and a
/// Binary one read with `decodeBlobs` holds Objects. The schema said Object and Bytes: an
/// import into PostgreSQL stopped ("holds a Array but the column is for Object"), and every
/// export written failed `validate` against its own `_SCHEMA.json`. Such a field is typed by its
/// values now, as an SQLite table's columns are: the first non-null value's type, a value of
/// another type in `<field>_as_<type>`.
@Suite struct CoreDataDecodedTypesTests {
    static func store(in directory: URL) throws -> URL {
        func archive(_ value: PFValue) throws -> CoreDataStoreBuilder.Value { .blob(try KeyedArchiver.archivedData(withRootObject: value)) }
        let plist = try KeyedArchiver.archivedData(withRootObject: ["n": 1, "s": "x"] as PFValue)
        let entity = CoreDataStoreBuilder.Entity(
            name: "Setting",
            attributes: [.init("key", 700), .init("value", 1800), .init("blob", 1000), .init("value_as_array", 700)],
            rows: [
                ["key": .text("a"), "value": try archive("text"), "blob": .blob(plist)],
                ["key": .text("b"), "value": try archive(["x", "y"]), "blob": .blob(Data([1, 2, 3]))],
                ["key": .text("c"), "value": try archive(["k": true])],
                ["key": .text("d"), "value_as_array": .text("a column of that name")],
                ["key": .text("e"), "value": try archive("more text"), "blob": .blob(plist)],
            ])
        let url = directory.appendingPathComponent("Settings.sqlite")
        try CoreDataStoreBuilder.write([entity], to: url)
        return url
    }

    @Test func decodedFieldsAreTypedByTheirValues() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pf-cd-decoded-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try Self.store(in: directory)
        for decodeBlobs in [false, true] {
            let source = try CoreDataObjectStore(url: url, options: .init(decodeBlobs: decodeBlobs))
            defer { source.close() }
            // The classes are read first: a destination gets the values' types before any object.
            #expect(try source.declaredSchema()?.classes["Setting"]?["value"]?.type == .string)
            let fields = try #require(try source.schema().classes["Setting"])
            #expect(fields["value"]?.type == .string)
            #expect(fields["value_as_array_"]?.type == .array, "a moved field takes no name a property has")
            #expect(fields["value_as_object"]?.type == .object)
            #expect(fields["value_as_array"]?.type == .string)
            #expect(fields["blob"]?.type == (decodeBlobs ? .object : .bytes))
            #expect(fields["blob_as_bytes"]?.type == (decodeBlobs ? .bytes : nil))
            let objects = try source.objects(in: "Setting")
            #expect(objects.map { $0.fields["value"] } == [.string("text"), nil, nil, nil, .string("more text")])
            #expect(objects[1].fields["value_as_array_"] == .array([.string("x"), .string("y")]))
            #expect(objects[2].fields["value_as_object"] == .object(["k": .bool(true)]))
            // Every value is of its field's type: what validate checks in an export's rows.
            for object in objects {
                for (key, value) in object.fields {
                    guard let type = value.fieldType else { continue }
                    #expect(fields[key]?.type == type, "\(key): \(type) in a field of \(String(describing: fields[key]))")
                }
            }
        }
    }

    /// Imported into an export, the rows agree with the export's own `_SCHEMA.json`, and the
    /// export compares equal to the store it came from.
    @Test func anExportOfThemAgreesWithItsOwnSchema() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pf-cd-decoded-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try CoreDataObjectStore(url: try Self.store(in: directory), options: .init(decodeBlobs: true))
        defer { source.close() }
        let export = ParseExportStore(url: directory.appendingPathComponent("export"))
        _ = try StoreImporter().run(from: source, to: export)
        let written = ParseExportStore(url: export.url)
        let fields = try #require(try written.schema().classes["Setting"])
        var checked = 0
        for object in try written.objects(in: "Setting") {
            for (key, value) in object.fields {
                guard let type = value.fieldType else { continue }
                #expect(fields[key]?.type == type, "\(key): \(type) in a field of \(String(describing: fields[key]))")
                checked += 1
            }
        }
        #expect(checked >= 12)
    }
}
