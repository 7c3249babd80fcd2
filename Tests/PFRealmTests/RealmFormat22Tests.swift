import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFParse
import PFSQLiteStore
import PFStores
import PFTestSupport
import Testing

@testable import PFRealm

/// Format-22 dictionaries (a cluster tree per dictionary, keyed by hash) and typed-link
/// properties, in files written by ``RealmTestWriter``: no public fixture holds a non-empty one.
@Suite("Realm format-22 dictionaries and typed links") struct RealmFormat22Tests {
    /// `class_Owner {tags: dictionary<string, mixed>, link: typedLink}` and
    /// `class_Target {n: int}` (2 objects); the dictionary's entries are in hash order
    /// (`c`, `a`, `b`) and its `c` holds a typed link; `link` points at `linkKey`.
    static func makeFile(version: UInt8, linkKey: Int64) -> [UInt8] {
        var w = RealmTestWriter()
        let tagged = RealmTestWriter.tagged
        // The dictionary's values: a Mixed leaf [composite, ints, int pairs, strings].
        let strings = w.mediumStrings(["x"])
        let pairs = w.ints([1, 1])  // Target (table key 1), object key 1
        let composite = w.ints([
            (0 << 8) | (2 << 5) | 17,  // c: typed link, pair 0
            (1 << 8) | 1,  // a: int 1, inline
            (0 << 8) | (3 << 5) | 3,  // b: string 0
        ])
        let values = w.refs([composite, 0, pairs, strings])
        let keys = w.mediumStrings(["c", "a", "b"])
        let hashes = w.ints([7_000_000_000, 9_100_000_000, 9_200_000_000])
        let dictionary = w.refs([hashes, keys, values])
        let ownerLeaf = w.refs([tagged(1), w.refs([dictionary]), w.ints([2, linkKey + 1])])
        let ownerAttrs: [Int64] = [64 | 16, 16]
        let ownerSpec = w.refs([
            w.ints([6 | 2 << 16, 16]), w.shortStrings(["tags", "link"]), w.ints(ownerAttrs), 0, 0,
            w.ints([0 | 6 << 16 | ownerAttrs[0] << 22, 1 | 16 << 16 | ownerAttrs[1] << 22]),
        ])
        let owner = w.refs([ownerSpec, 0, ownerLeaf, tagged(0), 0, 0, 0, 0, 0, 0, 0, 0, tagged(0)])
        let targetSpec = w.refs([w.ints([0]), w.shortStrings(["n"]), w.ints([0]), 0, 0, w.ints([0])])
        let target = w.refs([targetSpec, 0, w.refs([tagged(2), w.ints([10, 20])]), tagged(1), 0, 0, 0, 0, 0, 0, 0, 0, tagged(0)])
        let top = w.refs([w.shortStrings(["class_Owner", "class_Target"]), w.refs([owner, target]), tagged(Int64(w.bytes.count + 64))])
        return w.file(top: top, version: version)
    }

    @Test func aFormat22DictionaryReadsSortedByKeyWithItsTypedLink() throws {
        let db = try RealmDatabase(RealmFile(bytes: Self.makeFile(version: 22, linkKey: 0)))
        let owner = try #require(db.table(named: "Owner"))
        #expect(owner.columns.map(\.collection) == [.dictionary, .none])
        #expect(owner.columns[1].type == .typedLink)
        let target: PFValue = ["$class": "Target", "$id": 1]
        let expected: PFValue = ["Owner": [["_key": 0, "tags": ["a": 1, "b": "x", "c": target], "link": ["$class": "Target", "$id": 0]]],
                                 "Target": [["_key": 0, "n": 10], ["_key": 1, "n": 20]]]
        #expect(try db.document() == expected)
        guard case .dictionary(let tags)? = try db.document()["Owner"]?[0]?["tags"]?.dictionaryValue.map(PFValue.dictionary) else {
            Issue.record("no tags")
            return
        }
        #expect(Array(tags.keys) == ["a", "b", "c"], "sorted by key, as formats 23 and later store them")
        #expect(db.unresolvedLinkCount == 0)
    }

    @Test func aTypedLinkToAMissingObjectIsNullAndReported() throws {
        let db = try RealmDatabase(RealmFile(bytes: Self.makeFile(version: 22, linkKey: 5)))
        let document = try db.document()
        #expect(document["Owner"]?[0]?["link"] == .null)
        #expect(db.unresolvedLinkCount == 1)
        #expect(db.unresolvedLinks == ["Owner.link -> Target key 5"])
    }

    /// A typed-link property is typed from the model (an Object: each value names its class),
    /// not left to its values; it keeps that type through a store and back.
    @Test func aTypedLinkPropertyIsAnObjectFieldOfTheSchema() throws {
        let dir = try RealmStoreTests.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("typed.realm")
        try Data(Self.makeFile(version: 22, linkKey: 0)).write(to: url)
        let realm = try RealmObjectStore(url: url)
        let schema = try realm.schema()
        #expect(schema.classes["Owner"]?["link"] == ParseSchema.Field(.object))
        #expect(schema.classes["Owner"]?["link"]?.isRequired == false)
        #expect(schema.classes["Owner"]?["tags"] == ParseSchema.Field(.object))
        let sqlite = SQLiteStore(url: dir.appendingPathComponent("typed.sqlite"))
        _ = try StoreImporter().run(from: realm, to: sqlite)
        sqlite.close()
        let back = SQLiteStore(url: dir.appendingPathComponent("typed.sqlite"))
        defer { back.close() }
        #expect(schema.modelDifferences(from: try back.schema()).isEmpty)
        #expect(try back.objects(in: "Owner").first?.fields["link"] == .object(["$class": .string("Target"), "$id": .int(0)]))
    }

    @Test func aDictionaryClusterWithoutItsValuesFailsCleanly() throws {
        var bytes = Self.makeFile(version: 22, linkKey: 0)
        // Every byte flipped in turn: a clean error or a read, never a crash.
        for offset in stride(from: 24, to: bytes.count, by: 3) {
            let saved = bytes[offset]
            bytes[offset] ^= 0x5A
            do {
                _ = try RealmDatabase(RealmFile(bytes: bytes)).document()
            } catch {}
            bytes[offset] = saved
        }
    }
}

/// Unresolved links reach the import report (issue 25: "dangling or unresolved links are null
/// and reported").
@Suite("Realm unresolved links in the import report") struct RealmUnresolvedLinkReportTests {
    @Test func anImportReportsTheLinksItReadAsNull() throws {
        let dir = try RealmStoreTests.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("dangling.realm")
        try Data(RealmFormat22Tests.makeFile(version: 22, linkKey: 5)).write(to: url)
        let export = dir.appendingPathComponent("export")
        let report = try StoreImporter().run(from: RealmObjectStore(url: url), to: ParseExportStore(url: export))
        #expect(report.unresolvedLinks == UnresolvedLinks(count: 1, listed: ["Owner.link -> Target key 5"]))
        #expect(report.lines.contains("unresolved link, read as null: Owner.link -> Target key 5"))
        #expect(try ParseExportStore(url: export).objects(in: "Owner").first?.fields["link"] == .null)
        let cli = try CLI.run(["import", url.path, dir.appendingPathComponent("db.sqlite").path, "--json"])
        #expect(cli.status == 0, "\(cli.stderr)")
        let json = try JSONReader().read(cli.stdout)
        #expect(json["unresolvedLinkCount"] == 1)
        #expect(json["unresolvedLinks"] == ["Owner.link -> Target key 5"])
        // A file whose links all resolve reports none.
        let clean = try StoreImporter().run(from: RealmObjectStore(url: RealmFixtures.url("js-simple")), to: ParseExportStore(url: dir.appendingPathComponent("clean")))
        #expect(clean.unresolvedLinks == UnresolvedLinks())
    }
}

/// A Mixed property is typed by its first non-null value in the Realm store's schema, as an
/// import's destination types it, so `diff` of a file and its import finds no difference.
@Suite("Realm Mixed properties in the schema") struct RealmMixedSchemaTests {
    /// `class_Item {m: mixed, n: mixed}`: `m` is null, then "x", then 7; `n` null in both.
    static func makeFile() -> [UInt8] {
        var w = RealmTestWriter()
        let tagged = RealmTestWriter.tagged
        let strings = w.mediumStrings(["x"])
        let m = w.refs([w.ints([0, (0 << 8) | (3 << 5) | 3, (7 << 8) | 1]), 0, 0, strings])
        let n = w.refs([w.ints([0, 0, 0]), 0, 0, 0])
        let leaf = w.refs([tagged(3), m, n])
        let attrs: [Int64] = [16, 16]
        let spec = w.refs([
            w.ints([6, 6]), w.shortStrings(["m", "n"]), w.ints(attrs), 0, 0,
            w.ints([0 | 6 << 16 | attrs[0] << 22, 1 | 6 << 16 | attrs[1] << 22]),
        ])
        let item = w.refs([spec, 0, leaf, tagged(0), 0, 0, 0, 0, 0, 0, 0, 0, tagged(0)])
        let top = w.refs([w.shortStrings(["class_Item"]), w.refs([item]), tagged(Int64(w.bytes.count + 64))])
        return w.file(top: top, version: 23)
    }

    @Test func aMixedPropertyIsTypedByItsFirstValueAndAFileDiffsEqualToItsImport() throws {
        let dir = try RealmStoreTests.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("mixed.realm")
        try Data(Self.makeFile()).write(to: url)
        let realm = try RealmObjectStore(url: url)
        #expect(try realm.objects(in: "Item").map { $0.fields["m"] } == [.null, .string("x"), .int(7)])
        #expect(try realm.schema().classes["Item"] == ["m": ParseSchema.Field(.string)], "n is null everywhere: left out")
        #expect(try realm.declaredSchema()?.classes["Item"] == [:], "an import begins without the Mixed fields")
        for destination in ["db.sqlite", "export"] {
            let out = dir.appendingPathComponent(destination).path
            let imported = try CLI.run(["import", url.path, out])
            #expect(imported.status == 0, "\(imported.stderr)")
            let diff = try CLI.run(["diff", url.path, out])
            #expect(diff.status == 0 && diff.stdoutText.hasPrefix("no differences"), "\(destination): \(diff.stdoutText)\(diff.stderr)")
        }
    }
}
