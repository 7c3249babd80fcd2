import Foundation
import PFCompression
import PFCore
import PFCoreData
import PFCoreDataTestSupport
import PFKeyedArchive
import PFPropertyList
import Testing

/// Payloads nested in a generated store's blobs: transformables decoded through every level,
/// Binary attributes kept unless `decodeBlobs`, damaged payloads kept with a warning, and the
/// census `inspect` prints.
@Suite struct NestedPayloadStoreTests {
    static func archive(_ value: PFValue) throws -> Data { try KeyedArchive.archive(try KeyedGraph(json: value)) }

    static let inner: PFValue = ["com.apple.key": "value", "n": 2]

    /// Rows: an archive in data in an archive; gzip around a bplist; an XML plist; a
    /// typedstream-looking header that is not one; plain bytes.
    static func rows() throws -> [[String: CoreDataStoreBuilder.Value]] {
        let nested = try archive(.data(try archive(inner)))
        let gzipPlist = try Compression.compress(try BinaryPlistWriter().write(["z": 1]), as: .gzip)
        let xml = try XMLPlistWriter().write(["x": "y"])
        let fakeStream = Data([0x04, 0x0B]) + Data("streamtyped".utf8) + Data([0x81, 0xFF, 0xFF])
        return [
            ["map": .blob(nested), "raw": .blob(nested)],
            ["map": .blob(gzipPlist), "raw": .blob(xml)],
            ["map": .blob(fakeStream), "raw": .blob(Data([0xDE, 0xAD]))],
        ]
    }

    func withStore(_ options: CoreDataStore.Options = .init(), _ body: (CoreDataStore) throws -> Void) throws {
        let directory = try CoreDataFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Nested.sqlite")
        let entity = CoreDataStoreBuilder.Entity(
            name: "Item", attributes: [.init("map", 1800), .init("raw", 1000)], rows: try Self.rows())
        try CoreDataStoreBuilder.write([entity], to: url, wal: true)
        let store = try CoreDataStore.open(url: url, options: options)
        defer { store.close() }
        #expect(store.model.source == .modelCache)
        try body(store)
    }

    @Test func transformablesAreDecodedThroughEveryLevelAndBinaryKeepsItsBytes() throws {
        try withStore { store in
            var cursor = try store.objects(entity: "Item")
            var objects: [PFValue] = []
            while let object = try cursor.next() { objects.append(object) }
            #expect(objects.count == 3)
            #expect(objects[0]["map"] == Self.inner)
            #expect(objects[0]["raw"] == .data(try Self.archive(.data(try Self.archive(Self.inner)))))
            #expect(objects[1]["map"] == ["z": 1])
            if case .data = objects[2]["map"] {} else { Issue.record("a damaged typedstream stays bytes: \(String(describing: objects[2]["map"]))") }
            #expect(cursor.reports.count == 1)
            #expect(cursor.reports.kept.first?.column == "map")
            #expect(cursor.reports.kept.first?.message.contains("typedstream") == true, "\(cursor.reports.kept)")
        }
    }

    @Test func decodeBlobsDecodesBinaryAttributesToo() throws {
        try withStore(.init(decodeBlobs: true)) { store in
            let objects = try store.firstObjects(entity: "Item", limit: 3)
            #expect(objects[0]["raw"] == Self.inner)
            #expect(objects[1]["raw"] == ["x": "y"])
            #expect(objects[2]["raw"] == .data(Data([0xDE, 0xAD])))
        }
    }

    @Test func decodeTransformablesOffKeepsEveryBlob() throws {
        try withStore(.init(decodeTransformables: false)) { store in
            let objects = try store.firstObjects(entity: "Item", limit: 3)
            if case .data = objects[0]["map"] {} else { Issue.record("kept as bytes: \(String(describing: objects[0]["map"]))") }
        }
    }

    @Test func theCensusCountsWhatEachBlobColumnHolds() throws {
        try withStore { store in
            let census = try store.blobCensus(entity: "Item")
            #expect(census["map"] == ["bytes (not a valid typedstream)": 1, "gzip bplist": 1, "keyed archive (NSData)": 1])
            #expect(census["raw"] == ["bytes": 1, "keyed archive (NSData)": 1, "xmlplist": 1])
            #expect(CoreDataStore.censusText(["keyed archive (NSDictionary)": 12, "bplist": 3, "bytes": 1])
                == "keyed archive ×12 (NSDictionary), bplist ×3, bytes ×1")
            let summary = try store.summary(census: true)
            #expect(summary["entities"]?["Item"]?["blobs"]?["map"]?["gzip bplist"] == 1)
            #expect(try store.summary()["entities"]?["Item"]?["blobs"] == nil, "no census unless asked")
        }
    }

    @Test func theCensusOfARealStoreNamesItsTransformablesRootClasses() throws {
        let store = try CoreDataStore.open(url: CoreDataFixtures.store("coredataplus/SampleModel2_V2.sqlite"))
        defer { store.close() }
        #expect(try store.blobCensus(entity: "Page")["content"] == ["keyed archive (Content)": 119])
        #expect(try store.blobCensus(entity: "Book")["frontCover"] == ["keyed archive (CoreDataPlus_Tests.Cover)": 2])
        // Decoding Binary attributes too changes nothing in stores whose blobs are all transformables.
        let blobs = try CoreDataStore.open(url: CoreDataFixtures.store("coredataplus/SampleModel2_V2.sqlite"), options: .init(decodeBlobs: true))
        defer { blobs.close() }
        #expect(try blobs.firstObjects(entity: "Page", limit: 5) == (try store.firstObjects(entity: "Page", limit: 5)))
    }

    @Test(arguments: CoreDataFixtures.stores)
    func everyRealStoreReadsWithoutPayloadWarnings(_ relative: String) throws {
        let store = try CoreDataStore.open(url: CoreDataFixtures.store(relative), options: .init(decodeBlobs: true))
        defer { store.close() }
        for entity in store.entities {
            let warnings = try store.forEachObject(entity: entity.name) { _ in }
            #expect(warnings.kept.filter { $0.message.contains("kept as bytes") }.isEmpty, "\(entity.name): \(warnings.kept)")
        }
    }
}
