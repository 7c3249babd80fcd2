import Foundation
import OrderedCollections
import PFCore
import PFFormats
import PFJSON
import PFParse
import PFPropertyList
import PFSQLiteSource
@testable import PFSQLiteStore
import PFStores
import PFTestSupport
import PropertyBased
import Testing

/// Issue 24's direct route: a binary property list in a database column is written straight
/// as the REST JSON the SQLite store keeps, with no value tree in between. Where it writes,
/// the text must be byte for byte what the general way (`EmbeddedPayload` → `ParseValue` →
/// `JSONWriter`) stores, and every other reader of the object must see the value the general
/// way gives.
@Suite struct PreparedJSONTests {
    /// The general way's text for a payload: decoded as a blob is, read as a field value,
    /// written as the store's JSON columns are; `nil` where it does not end in JSON text.
    static func generalText(_ bytes: Data) -> [UInt8]? {
        guard case .decoded(let tree) = EmbeddedPayload.decode(bytes, options: .init(limits: .default)).outcome,
            let value = try? ParseValue(rest: tree, checkingNames: false)
        else { return nil }
        var out: [UInt8] = []
        do { try JSONWriter().write(value.restValue, into: &out) } catch { return nil }
        return out
    }

    /// The direct route's text, checked to append and to leave `out` alone when it gives up.
    static func directText(_ bytes: Data) -> [UInt8]? {
        var out: [UInt8] = Array("prefix".utf8)
        let root = BinaryPlistRESTJSON.append(bytes, limits: .default, to: &out)
        guard root != nil else {
            #expect(out == Array("prefix".utf8), "gave up and left its output as it was")
            return nil
        }
        #expect(out.starts(with: Array("prefix".utf8)))
        return Array(out.dropFirst(6))
    }

    /// Same text where the direct route writes; returns whether it wrote.
    @discardableResult
    static func expectSame(_ bytes: Data, _ what: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        guard let direct = directText(bytes) else { return false }
        let general = generalText(bytes)
        #expect(general != nil, "the direct route wrote what the general way refuses: \(what())", sourceLocation: sourceLocation)
        #expect(direct == general, "\(what()): \(String(decoding: direct, as: UTF8.self)) vs \(general.map { String(decoding: $0, as: UTF8.self) } ?? "nil")",
                sourceLocation: sourceLocation)
        return true
    }

    @Test func plainPropertyListsAreWrittenByteForByteAsTheGeneralWay() async {
        var shape = ValueShape()
        shape.data = false
        shape.uid = false
        shape.bigUnsigned = false
        let written = Counter()
        await propertyCheck(count: 800, input: ValueGen.document(shape)) { tree in
            guard let bytes = try? BinaryPlistWriter().write(tree) else { return }
            if Self.expectSame(bytes, "\(tree)") { written.add() }
        }
        // Keys that are not printable ASCII or hold `$` (the generator's "Zürich", "CF$UID"…)
        // and years past 9999 make many give up; the rest must not.
        #expect(written.value >= 150, "the direct route wrote \(written.value) of 800")
    }

    @Test func everyValueKindGivesTheGeneralWaysTextOrGivesUp() async {
        var shape = ValueShape()
        shape.uid = true
        shape.nonFiniteDoubles = true
        shape.maxDepth = 6
        await propertyCheck(count: 800, input: ValueGen.tree(shape)) { tree in
            guard let bytes = try? BinaryPlistWriter().write(tree) else { return }
            Self.expectSame(bytes, "\(tree)")
        }
    }

    @Test func edgeCasesGiveUpWhereTheGeneralWayDiffersOrFails() throws {
        func bplist(_ value: PFValue) throws -> Data { try BinaryPlistWriter().write(value) }
        // Written: the kinds it takes, nested, with a shared object.
        let shared = PFValue.string("shared string longer than fifteen bytes")
        #expect(Self.expectSame(try bplist(["a": shared, "b": [shared, shared], "t": true, "d": .date(Date(timeIntervalSince1970: 1.0005))]), "kinds"))
        #expect(Self.expectSame(try bplist([.int(.min), .int(.max), .double(-0.0), .double(5e-324), "😀\u{2028}\"\\/"]), "scalars"))
        // Given up on: each of these is left to the general way.
        let givingUp: [PFValue] = [
            ["$archiver": "NSKeyedArchiver"], ["__type": "Pointer", "className": "A", "objectId": "b"],
            ["k": .data(Data([1, 2]))], ["k": .uid(3)], ["k": .double(.nan)], ["k": .uint(UInt64.max)],
            ["Zürich": 1], ["k\"q": 1], ["\u{1F}": 1], ["k": .date(Date(timeIntervalSince1970: 253_402_300_800))],
            "a root string", .int(1),
        ]
        for value in givingUp {
            #expect(Self.directText(try bplist(value)) == nil, "\(value)")
        }
        // Deeper than its depth limit, and damaged bytes.
        var deep = PFValue.int(1)
        for _ in 0..<(BinaryPlistRESTJSON.maxDepth + 1) { deep = .array([deep]) }
        #expect(Self.directText(try bplist(deep)) == nil)
        let good = try bplist(["a": [1, 2, 3]])
        for cut in stride(from: 8, to: good.count, by: 3) {
            #expect(Self.directText(good.prefix(cut)) == nil)
        }
        #expect(Self.directText(Data("bplist00".utf8)) == nil)
    }

    @Test func realPropertyListsOfTheFixturesAreWrittenAsTheGeneralWay() throws {
        var files = 0
        var written = 0
        let enumerator = FileManager.default.enumerator(at: Fixtures.root, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                let data = try? Data(contentsOf: url), data.count < 4 << 20, BinaryPlistReader.hasMagic(data)
            else { continue }
            files += 1
            if Self.expectSame(data, url.lastPathComponent) { written += 1 }
        }
        #expect(files >= 10, "binary property lists among the fixtures: \(files)")
        #expect(written >= 1, "written directly: \(written) of \(files)")
    }

    // MARK: - Through the source and the store

    /// A table of payloads Python's plistlib wrote, of every kind the direct route takes and
    /// of kinds it leaves to the general way, with rows that do not decode.
    static let payloads = #"""
import sys, sqlite3, plistlib, datetime
d = lambda v: plistlib.dumps(v, fmt=plistlib.FMT_BINARY)
c = sqlite3.connect(sys.argv[1])
c.execute("CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, payload BLOB)")
base = datetime.datetime(2023, 3, 8, 20, 26, 40)
rows = []
for i in range(300):
    p = {"id": i, "title": "item %d" % i, "tags": ["a", str(i % 7)], "score": i * 0.5, "ok": i % 2 == 0,
         "when": base + datetime.timedelta(seconds=i, microseconds=i * 1001), "meta": {"n": i % 100, "s": "é" * (i % 5)}}
    if i % 10 == 1: p["blob"] = b"\x00\x01"                      # data: the general way
    if i % 10 == 2: p["$archiver"] = "x"                         # a keyed archive's mark
    if i % 10 == 3: p = [1, "two", {"three": 3.0}]                # an array
    if i % 10 == 4: p["big"] = 2**64 - 1                          # beyond 64 bits: kept as stored
    if i % 10 == 5: p = b"bplist00 damaged"                       # not a property list
    if i % 10 == 6: p["__type"] = "Pointer"                       # Parse reads it as a type
    if i % 10 == 7: p = None
    rows.append((i + 1, "row %d" % i, p if isinstance(p, bytes) or p is None else d(p)))
c.executemany("INSERT INTO item VALUES (?, ?, ?)", rows)
c.commit()
"""#

    static func database(in dir: URL) throws -> URL {
        let file = dir.appendingPathComponent("payloads.db")
        let result = try Peers.python(payloads, [file.path])
        guard result.status == 0 else { throw PFError(.io, format: .sqlite, "python failed: \(result.stderr)") }
        return file
    }

    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pf-prepared-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func preparedObjectsReadAsTheGeneralWaysObjectsEverywhereButTheStore() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.database(in: dir)
        func read(preparing: Bool, keepingBytes: Bool) throws -> ([ParseObject], [String]) {
            let store = try SQLiteDatabaseObjectStore(url: file, options: .init(decodeBlobs: true, keepOriginalBytes: keepingBytes))
            defer { store.close() }
            store.preparesJSON = preparing
            return (try store.objects(in: "item"), store.reports.kept.map(\.description))
        }
        for keepingBytes in [false, true] {
            let (general, generalReports) = try read(preparing: false, keepingBytes: keepingBytes)
            let (prepared, preparedReports) = try read(preparing: true, keepingBytes: keepingBytes)
            #expect(general.allSatisfy { $0.preparedFields.isEmpty })
            let withPrepared = prepared.filter { !$0.preparedFields.isEmpty }.count
            // Rows 0, 8 and 9 of every ten (an array in row 3 goes to `payload_as_array`,
            // which makes its value).
            #expect(withPrepared == 90, "objects holding prepared JSON: \(withPrepared)")
            #expect(prepared == general)
            #expect(prepared.map(\.fields) == general.map(\.fields))
            #expect(preparedReports == generalReports)
            #expect(generalReports.count >= 30)
        }
    }

    @Test func anImportIntoTheStoreKeepsWhatAnImportIntoMemoryKeeps() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.database(in: dir)
        let source = try SQLiteDatabaseObjectStore(url: file, options: .init(decodeBlobs: true))
        let memory = MemoryStore()
        _ = try StoreImporter().run(from: source, to: memory)
        source.close()
        let url = dir.appendingPathComponent("out.sqlite")
        let again = try SQLiteDatabaseObjectStore(url: file, options: .init(decodeBlobs: true))
        _ = try StoreImporter().run(from: again, to: SQLiteStore(url: url))
        #expect(!again.preparesJSON, "the import hands preparing back")
        again.close()
        let stored = SQLiteStore(url: url)
        defer { stored.close() }
        let expected = try memory.objects(in: "item")
        #expect(try stored.objects(in: "item") == expected)
        #expect(try stored.schema().classes["item"] == (try memory.schema().classes["item"]))
    }

    @Test func payloadsHoldingWhatJSONCannotAreKeptAsStoredAndNeverStopAnImport() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("unwritable.db")
        let made = try Peers.python(
            #"""
import sys, sqlite3, plistlib, datetime
d = lambda v: plistlib.dumps(v, fmt=plistlib.FMT_BINARY)
c = sqlite3.connect(sys.argv[1])
c.execute("CREATE TABLE item(id INTEGER PRIMARY KEY, payload BLOB)")
c.execute("INSERT INTO item VALUES (1, ?)", (d({"x": float("nan"), "ok": 1}),))
c.execute("INSERT INTO item VALUES (2, ?)", (d({"when": datetime.datetime(9999, 12, 31, 23, 59, 59, 999900)}),))
c.execute("INSERT INTO item VALUES (3, ?)", (d([1.5, float("-inf")]),))
c.execute("INSERT INTO item VALUES (4, ?)", (d({"ok": 4}),))
c.commit()
"""#, [file.path])
        #expect(made.status == 0, "\(made.stderr)")
        let source = try SQLiteDatabaseObjectStore(url: file, options: .init(decodeBlobs: true))
        let url = dir.appendingPathComponent("out.sqlite")
        _ = try StoreImporter().run(from: source, to: SQLiteStore(url: url))
        let reports = source.reports.kept.map(\.description)
        source.close()
        #expect(reports == [
            "item 1.payload: a decoded payload holds nan at x, which no JSON can hold; kept as stored",
            "item 2.payload: a decoded payload holds a date outside years 0-9999 (253402300799.9999 s since 1970) at when, which no JSON can hold; kept as stored",
            "item 3.payload: a decoded payload holds -inf at [1], which no JSON can hold; kept as stored",
        ])
        let stored = SQLiteStore(url: url)
        defer { stored.close() }
        let objects = try stored.objects(in: "item")
        #expect(objects.count == 4)
        for object in objects.prefix(3) {
            guard case .bytes(let bytes)? = object.fields["payload"] else {
                Issue.record("\(object.fields)")
                continue
            }
            #expect(BinaryPlistReader.hasMagic(bytes))
        }
        // The fourth row's decoded object has no Bytes column to go in.
        #expect(objects.last?.fields["payload_as_object"] == .object(["ok": .int(4)]))
    }

    // MARK: - The carrier

    static func prepared(_ value: ParseValue) throws -> ParsePreparedValue {
        var json: [UInt8] = []
        try JSONWriter().write(value.restValue, into: &json)
        guard let type = value.fieldType else { throw PFError(.invalidValue, format: .json, "no type") }
        return ParsePreparedValue(json: json, type: type) { value }
    }

    @Test func aPreparedFieldIsMadeOnEveryOtherReadAndDroppedOnAChange() throws {
        let value = ParseValue.object(["n": .int(1), "when": .date(Date(timeIntervalSince1970: 2))])
        var object = try ParseObject(className: "Item", objectId: "a", fields: ["name": .string("x"), "payload": .null, "after": .int(2)])
        #expect(!object.attachPrepared([ParsePreparedField(index: 0, key: "name", value: try Self.prepared(value))]), "not a null placeholder")
        #expect(!object.attachPrepared([ParsePreparedField(index: 1, key: "missing", value: try Self.prepared(value))]))
        #expect(!object.attachPrepared([ParsePreparedField(index: 3, key: "payload", value: try Self.prepared(value))]))
        #expect(object.preparedFields.isEmpty)
        #expect(object.attachPrepared([ParsePreparedField(index: 1, key: "payload", value: try Self.prepared(value))]))
        #expect(object.storedFields["payload"] == .null)
        #expect(object.fields["payload"] == value)
        #expect(Array(object.fields.keys) == ["name", "payload", "after"])
        #expect(object.fieldType(at: 1) == .object && object.schemaField(at: 1)?.type == .object)
        let plain = try ParseObject(className: "Item", objectId: "a", fields: ["name": .string("x"), "payload": value, "after": .int(2)])
        #expect(object == plain)
        var schema = ParseSchema()
        schema.addFields(of: object)
        #expect(schema.classes["Item"]?["payload"]?.type == .object)
        var changed = object
        try changed.set(.int(3), forKey: "after")
        #expect(changed.preparedFields.isEmpty && changed.fields["payload"] == value && changed.fields["after"] == .int(3))
    }

    @Test func aPreparedValueWhoseColumnHasAnotherTypeGoesToExtraAsItsValue() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("extra.sqlite")
        let value = ParseValue.array([.int(1), .string("two"), .date(Date(timeIntervalSince1970: 3.25))])
        var object = try ParseObject(className: "Item", objectId: "a", fields: ["payload": .null, "loose": .null])
        #expect(object.attachPrepared([
            ParsePreparedField(index: 0, key: "payload", value: try Self.prepared(value)),
            ParsePreparedField(index: 1, key: "loose", value: try Self.prepared(.object(["k": .string("v")]))),
        ]))
        let store = SQLiteStore(url: url)
        var schema = ParseSchema()
        schema.classes["Item"] = ["payload": ParseSchema.Field(.string)]
        try store.begin(schema: schema)
        try store.write([object], className: "Item")
        try store.commit()
        store.close()
        let reopened = SQLiteStore(url: url)
        defer { reopened.close() }
        let read = try reopened.objects(in: "Item")
        #expect(read.first?.fields["payload"] == value)
        #expect(read.first?.fields["loose"] == .object(["k": .string("v")]))
    }
}

/// A count shared with a property check's closure.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}
