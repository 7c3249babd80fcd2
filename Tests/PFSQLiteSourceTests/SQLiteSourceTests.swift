import Foundation
import OrderedCollections
import PFCore
import PFCoreDataTestSupport
import PFFormats
import PFJSON
import PFParse
import PFSQLiteSource
import PFStores
import PFTestSupport
import PFTypedStream
import Testing

/// Issue 24: any SQLite database as a source. Every database here is made by Python's
/// sqlite3 module or the sqlite3 shell, never by pfarchive.
@Suite struct SQLiteSourceTests {
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pf-sqlsrc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs a Python script (with `sys.argv[1]` the database path) and fails on its errors.
    static func python(_ script: String, _ arguments: [String]) throws -> Data {
        let result = try Peers.python(script, arguments)
        guard result.status == 0 else { throw PFError(.io, format: .sqlite, "python failed: \(result.stderr)") }
        return result.stdout
    }

    static func rows(_ url: URL, _ options: SQLiteDatabase.Options = .init(), table: String) throws -> [SQLiteRow] {
        let db = try SQLiteDatabase.open(url: url, options: options)
        defer { db.close() }
        var out: [SQLiteRow] = []
        try db.forEachRow(of: table) { out.append($0) }
        return out
    }

    static func json(_ text: String) throws -> PFValue {
        try JSONReader().read(Data(text.utf8))
    }

    // MARK: - Payloads

    /// The objects Python writes in every payload kind, with sorted keys so every container
    /// keeps the same order.
    static let payloadScript = #"""
import sys, sqlite3, plistlib, json, gzip, zlib, cbor2
obj = {"list": [1, 2, "three"], "n": 3, "name": "x\u00e9", "nested": {"ok": True}}
kinds = {
    "bplist": plistlib.dumps(obj, fmt=plistlib.FMT_BINARY),
    "xmlplist": plistlib.dumps(obj, fmt=plistlib.FMT_XML),
    "json": json.dumps(obj, sort_keys=True).encode(),
    "cbor": cbor2.dumps(cbor2.CBORTag(55799, obj)),
}
c = sqlite3.connect(sys.argv[1])
c.execute("CREATE TABLE payload(id INTEGER PRIMARY KEY, kind TEXT, wrap TEXT, b BLOB, t TEXT)")
for kind, raw in kinds.items():
    for wrap, data in (("none", raw), ("gzip", gzip.compress(raw)), ("zlib", zlib.compress(raw))):
        # TEXT: the text kinds as text; binary bytes as TEXT through CAST, as apps do.
        c.execute("INSERT INTO payload(kind, wrap, b, t) VALUES (?, ?, ?, CAST(? AS TEXT))", (kind, wrap, data, data))
c.commit()
print(json.dumps(obj, sort_keys=True))
"""#

    @Test func everyPayloadKindInBlobAndTextDecodesCompressedOrNot() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("payloads.db")
        let expectedText = String(decoding: try Self.python(Self.payloadScript, [file.path]), as: UTF8.self)
        let expected = try Self.json(expectedText.trimmingCharacters(in: .whitespacesAndNewlines))
        let before = try Data(contentsOf: file)

        let plain = try Self.rows(file, table: "payload")
        #expect(plain.count == 12)
        for row in plain {
            // Without --decode-blobs the stored bytes stay as they are.
            guard case .data = row.fields["b"] else { Issue.record("\(row.objectId): b is \(String(describing: row.fields["b"]))"); continue }
            #expect(row.reports.isEmpty)
        }
        let decoded = try Self.rows(file, .init(decodeBlobs: true, keepOriginalBytes: true), table: "payload")
        for (row, stored) in zip(decoded, plain) {
            let label = "\(row.fields["kind"]?.stringValue ?? "?") \(row.fields["wrap"]?.stringValue ?? "?")"
            #expect(row.fields["b"] == expected, "\(label) BLOB: \(String(describing: row.fields["b"]))")
            #expect(row.fields["t"] == expected, "\(label) TEXT: \(String(describing: row.fields["t"]))")
            #expect(row.fields["b_bytes"] == stored.fields["b"], "\(label): the original bytes are kept alongside")
            #expect(row.fields["t_bytes"] == stored.fields["t"], "\(label): the original text is kept alongside")
            #expect(row.reports.isEmpty, "\(label): \(row.reports)")
        }
        // inspect's census names each kind with its compression.
        let db = try SQLiteDatabase.open(url: file)
        let census = try db.census(of: "payload")
        db.close()
        #expect(census["b"]?.kinds["gzip bplist"] == 1)
        #expect(census["b"]?.kinds["zlib cbor"] == 1)
        #expect(census["b"]?.kinds["xmlplist"] == 1)
        #expect(census["t"]?.kinds["json (text)"] == 1)
        #expect(census["t"]?.kinds["xmlplist (text)"] == 1)
        #expect(census["t"]?.kinds["gzip json"] == 1, "gzip bytes CAST AS TEXT are not UTF-8: read as their bytes")
        #expect(census["b"]?.sample?.contains("\"nested\":{\"ok\":true}") == true, "\(String(describing: census["b"]?.sample))")
        #expect(try Data(contentsOf: file) == before)
    }

    /// Every column keeps a field of its own: a name Parse reads specially (`objectId`,
    /// `__type`, `className`…) gets `_sqlite`, then `_` while a column has that name; so do a
    /// composite Pointer's `<a>_<b>_ref`, a `_bytes` field and a name equal to an earlier
    /// one's as Swift compares strings (`é` precomposed and decomposed). Before, the later
    /// column replaced the earlier one's value (`objectId` was lost beside a column named
    /// `objectId_sqlite`), and an import dropped a `__type` column without a word.
    @Test func columnsWhoseFieldNamesWouldCollideEachKeepAFieldOfTheirOwn() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("names.db")
        _ = try Self.python(
            #"""
import sys, sqlite3, plistlib
c = sqlite3.connect(sys.argv[1])
c.execute('CREATE TABLE p(a INT, b INT, PRIMARY KEY(a, b))')
c.execute('INSERT INTO p VALUES (1, 2)')
c.execute('CREATE TABLE t(id INTEGER PRIMARY KEY, "objectId" TEXT, "objectId_sqlite" TEXT, payload BLOB, payload_bytes BLOB, x TEXT, '
          '"__type" TEXT, "className" TEXT, "OBJECTID_SQLITE_" TEXT, a INT, b INT, a_b_ref TEXT, "\u00e9" TEXT, "e\u0301" TEXT, '
          'FOREIGN KEY(a, b) REFERENCES p(a, b))')
c.execute("INSERT INTO t VALUES (7, 'first', 'second', ?, x'0102', 'last', 'Pointer', 'K', 'third', 1, 2, 'ref', 'pre', 'de')",
          (plistlib.dumps({"k": 1}, fmt=plistlib.FMT_BINARY),))
c.execute('CREATE TABLE u(id INTEGER PRIMARY KEY, "objectId" TEXT, payload BLOB)')
c.execute("INSERT INTO u VALUES (8, 'only', ?)", (plistlib.dumps({"k": 2}, fmt=plistlib.FMT_BINARY),))
c.commit()
"""#, [file.path])
        let options = SQLiteDatabase.Options(decodeBlobs: true, keepOriginalBytes: true)
        let t = try #require(try Self.rows(file, options, table: "t").first)
        let pointer: PFValue = ["__type": "Pointer", "className": "p", "objectId": "[1,2]"]
        let expected: [(String, PFValue)] = [
            ("id", .int(7)), ("objectId_sqlite__", "first"), ("objectId_sqlite", "second"), ("payload", ["k": 1]),
            ("payload_bytes_", try #require(t.originals.first?.value)), ("payload_bytes", .data(Data([1, 2]))),
            ("x", "last"), ("__type_sqlite", "Pointer"), ("className_sqlite", "K"), ("OBJECTID_SQLITE_", "third"),
            ("a", .int(1)), ("b", .int(2)), ("a_b_ref", "ref"), ("\u{E9}", "pre"), ("e\u{301}_", "de"), ("a_b_ref_", pointer),
        ]
        #expect(t.fields.keys.map { Array($0.unicodeScalars) } == expected.map { Array($0.0.unicodeScalars) })
        for (i, (key, value)) in expected.enumerated() { #expect(t.fields.values[i] == value, "\(key)") }
        #expect(Array(t.restObject.keys.prefix(2)) == ["objectId", "id"])
        #expect(t.restObject["objectId"] == .string("7"))

        let u = try #require(try Self.rows(file, options, table: "u").first)
        #expect(Array(u.fields.keys) == ["id", "objectId_sqlite", "payload", "payload_bytes"])
        #expect(u.fields["payload"] == ["k": 2])
        #expect(Array(u.restObject.keys) == ["objectId", "id", "objectId_sqlite", "payload", "payload_bytes"])
        // A field named objectId (a caller's own row) takes the first place.
        var own = u
        own.fields["objectId"] = .string("mine")
        #expect(Array(own.restObject.keys) == ["objectId", "id", "objectId_sqlite", "payload", "payload_bytes"])
        #expect(own.restObject["objectId"] == .string("mine"))

        // Imported, every value is still there, under the same names, and the schema's
        // Pointer is the composite key's own field.
        let store = try SQLiteDatabaseObjectStore(url: file, options: options)
        defer { store.close() }
        let object = try #require(try store.objects(in: "t").first)
        #expect(object.fields["__type_sqlite"] == .string("Pointer"))
        #expect(object.fields["objectId_sqlite__"] == .string("first") && object.fields["objectId_sqlite"] == .string("second"))
        #expect(object.fields["a_b_ref"] == .string("ref"))
        #expect(object.fields["a_b_ref_"] == .pointer(ParsePointer(className: "p", objectId: "[1,2]")))
        #expect(object.fields.count == expected.count)
        let schema = try store.schema()
        #expect(schema.classes["t"]?["a_b_ref_"]?.type == .pointer)
        #expect(schema.classes["t"]?["a_b_ref"]?.type == .string)

        // inspect: one census per column, keyed by field (two columns Swift takes for one
        // name were one line), and the field a renamed column is read under.
        let db = try SQLiteDatabase.open(url: file, options: .init(decodeBlobs: true))
        defer { db.close() }
        let census = try db.census(of: "t")
        #expect(census.count == 14, "\(census.keys)")
        #expect(census["e\u{301}_"]?.sample == "\"de\"" && census["\u{E9}"]?.sample == "\"pre\"")
        let columns = try #require(try db.summary()["tables"]?["t"]?["columns"]?.dictionaryValue)
        #expect(columns.count == 14)
        #expect(columns["objectId"]?["field"] == "objectId_sqlite__")
        #expect(columns["x"]?["field"] == nil)
    }

    /// A field moved to `<field>_as_<type>` in one row never takes the name another column's
    /// field has in other rows (`p_as_bytes`, the original bytes of a column `p_as` where it
    /// decoded); and a composite foreign key that is not a Pointer (its table is missing)
    /// takes no name, so the one that is keeps `<a>_<b>_ref`.
    @Test func movedFieldsAndCompositePointersTakeNoOtherFieldsName() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("moves.db")
        _ = try Self.python(
            #"""
import sys, sqlite3, plistlib
d = lambda v: plistlib.dumps(v, fmt=plistlib.FMT_BINARY)
c = sqlite3.connect(sys.argv[1])
c.execute('CREATE TABLE p(x INT, y INT, PRIMARY KEY(x, y))')
c.execute('INSERT INTO p VALUES (1, 2)')
c.execute('CREATE TABLE t(id INTEGER PRIMARY KEY, p BLOB, p_as BLOB, a INT, b INT, '
          'FOREIGN KEY(a, b) REFERENCES gone(x, y), FOREIGN KEY(a, b) REFERENCES p(x, y))')
c.execute("INSERT INTO t VALUES (1, ?, ?, 1, 2)", (d({"k": 1}), d({"k": 2})))
c.execute("INSERT INTO t VALUES (2, x'0066726f6d2d70', x'0066726f6d2d705f6173', 1, 2)")
c.commit()
"""#, [file.path])
        let store = try SQLiteDatabaseObjectStore(url: file, options: .init(decodeBlobs: true, keepOriginalBytes: true))
        defer { store.close() }
        let objects = try store.objects(in: "t")
        #expect(objects.count == 2)
        let first = try #require(objects.first), second = try #require(objects.last)
        #expect(first.fields["p"] == .object(["k": .int(1)]) && first.fields["p_as"] == .object(["k": .int(2)]))
        guard case .bytes(let pAsBytes)? = first.fields["p_as_bytes"] else {
            Issue.record("p_as_bytes: \(String(describing: first.fields["p_as_bytes"]))")
            return
        }
        #expect(pAsBytes.starts(with: Data("bplist00".utf8)), "p_as's original bytes")
        // Row 2: neither column decodes; each moves to a field of its own.
        #expect(second.fields["p_as_bytes"] == nil, "\(second.fields.keys)")
        #expect(second.fields["p_as_bytes_"] == .bytes(Data("\u{0}from-p".utf8)), "\(second.fields.keys)")
        #expect(second.fields["p_as_as_bytes"] == .bytes(Data("\u{0}from-p_as".utf8)), "\(second.fields.keys)")
        #expect(first.fields["a_b_ref"] == .pointer(ParsePointer(className: "p", objectId: "[1,2]")))
        #expect(first.fields["a_b_ref_"] == nil)
    }

    @Test func aRealKeyedArchiveInABlobDecodesAsTheArchiveItself() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let archive = Fixtures.real.appendingPathComponent("keyed/scf-NSAttributedString.archive")
        let file = dir.appendingPathComponent("keyed.db")
        _ = try Self.python(
            #"""
import sys, sqlite3, gzip
data = open(sys.argv[2], "rb").read()
c = sqlite3.connect(sys.argv[1])
c.execute("CREATE TABLE t(v BLOB)")
c.execute("INSERT INTO t VALUES (?)", (data,))
c.execute("INSERT INTO t VALUES (?)", (gzip.compress(data),))
c.commit()
"""#, [file.path, archive.path])
        let expected = EmbeddedPayload.decode(try Data(contentsOf: archive))
        guard case .decoded(let value) = expected.outcome else {
            Issue.record("the fixture does not decode: \(expected.outcome)")
            return
        }
        let rows = try Self.rows(file, .init(decodeBlobs: true), table: "t")
        #expect(rows.map(\.objectId) == ["1", "2"])
        #expect(rows.allSatisfy { $0.fields["v"] == value })
        let db = try SQLiteDatabase.open(url: file)
        defer { db.close() }
        let kinds = try db.census(of: "t")["v"]?.kinds ?? [:]
        #expect(kinds.keys.contains { $0.hasPrefix("keyed archive (NSAttributedString") || $0.hasPrefix("keyed archive") }, "\(kinds)")
        #expect(kinds.keys.contains { $0.hasPrefix("gzip keyed archive") }, "\(kinds)")
    }

    // MARK: - Hostile blobs

    /// Every file of the hostile corpus in a BLOB, once as is and once gzip-compressed.
    static func hostileDatabase(in dir: URL) throws -> (URL, [URL]) {
        let files = Fixtures.files(in: Fixtures.hostile) { !$0.hasSuffix(".md") && !$0.hasSuffix(".py") }
        let file = dir.appendingPathComponent("hostile.db")
        _ = try python(
            #"""
import sys, sqlite3, gzip
c = sqlite3.connect(sys.argv[1])
c.execute("CREATE TABLE blob(id INTEGER PRIMARY KEY, name TEXT, data BLOB)")
for path in sys.argv[2:]:
    data = open(path, "rb").read()
    name = path.rsplit("/", 1)[-1]
    c.execute("INSERT INTO blob(name, data) VALUES (?, ?)", (name, data))
    if len(data) < 1 << 20:
        c.execute("INSERT INTO blob(name, data) VALUES (?, ?)", ("gzip " + name, gzip.compress(data)))
c.commit()
"""#, [file.path] + files.map(\.path))
        return (file, files)
    }

    /// A payload that decodes but that a Parse object cannot hold (an integer beyond 64 bits, a
    /// UID outside a keyed archive) sends the row's decoded fields back to their stored bytes,
    /// with a report per field (an error with `strict`); `_bytes` fields keep the bytes, and a
    /// later row that decodes moves its value to `<field>_as_object`.
    @Test func decodedPayloadsAParseObjectCannotHoldAreKeptAsStored() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("unfit.db")
        _ = try Self.python(
            #"""
import sys, sqlite3, plistlib
d = lambda v: plistlib.dumps(v, fmt=plistlib.FMT_BINARY)
c = sqlite3.connect(sys.argv[1])
c.execute('CREATE TABLE t(id INTEGER PRIMARY KEY, a BLOB, b BLOB)')
c.execute("INSERT INTO t VALUES (1, ?, ?)", (d({"big": 2**64 - 1}), d({"ok": 1})))
c.execute("INSERT INTO t VALUES (2, ?, ?)", (d({"ok": 2}), d({"u": plistlib.UID(3)})))
c.execute("INSERT INTO t VALUES (3, ?, ?)", (d({"ok": 3}), d({"ok": 4})))
c.commit()
"""#, [file.path])
        let stored = try Self.rows(file, table: "t").map { row -> [PFValue?] in [row.fields["a"], row.fields["b"]] }
        let store = try SQLiteDatabaseObjectStore(url: file, options: .init(decodeBlobs: true, keepOriginalBytes: true))
        let objects = try store.objects(in: "t")
        let reports = store.reports.kept
        store.close()
        func bytes(_ value: PFValue??) -> ParseValue? {
            if case .data(let d)?? = value { return .bytes(d) }
            return nil
        }
        #expect(objects.count == 3)
        #expect(objects[0].fields["a"] == bytes(stored[0][0]) && objects[0].fields["b"] == bytes(stored[0][1]))
        #expect(objects[0].fields["a_bytes"] == bytes(stored[0][0]) && objects[0].fields["b_bytes"] == bytes(stored[0][1]))
        #expect(objects[1].fields["a"] == bytes(stored[1][0]) && objects[1].fields["b"] == bytes(stored[1][1]))
        #expect(objects[2].fields["a"] == nil && objects[2].fields["a_as_object"] == .object(["ok": .int(3)]))
        #expect(objects[2].fields["b_as_object"] == .object(["ok": .int(4)]))
        #expect(objects[2].restValue.dictionaryValue.map { Array($0.keys) } == ["objectId", "id", "a_bytes", "b_bytes", "a_as_object", "b_as_object"])
        #expect(reports.map { "\($0.objectId).\($0.column)" } == ["1.a", "1.b", "2.a", "2.b"])
        #expect(reports.allSatisfy { $0.message.hasPrefix("a decoded payload does not fit a Parse object (") }, "\(reports)")

        let strict = try SQLiteDatabaseObjectStore(url: file, options: .init(decodeBlobs: true, strict: true))
        defer { strict.close() }
        let error = #expect(throws: PFError.self) { _ = try strict.objects(in: "t") }
        guard case .undecodable(_, let table, let id, let column, _)? = error?.failure(as: SQLiteSourceFailure.self) else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(table == "t" && id == "1" && column == "a")
    }

    @Test func hostileBlobsAreReportedPerRowAndNeverStopTheRead() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (file, files) = try Self.hostileDatabase(in: dir)
        try #require(files.count > 70)
        var limits = PFLimits.default
        limits.maxDecompressedBytes = 64 << 20
        let store = try SQLiteDatabaseObjectStore(url: file, options: .init(limits: limits, decodeBlobs: true))
        defer { store.close() }
        let objects = try store.objects(in: "blob")
        #expect(objects.count >= files.count)
        #expect(store.reports.count > 20, "the corpus's broken archives are reported")
        for report in store.reports.kept {
            #expect(report.table == "blob" && report.column == "data" && Int(report.objectId) != nil, "\(report)")
            #expect(!report.message.isEmpty)
        }
        // A broken bplist is kept as its bytes; the valid baseline decodes.
        func name(_ object: ParseObject) -> String {
            if case .string(let s)? = object.fields["name"] { return s }
            return ""
        }
        let byName = Dictionary(objects.map { (name($0), $0) }, uniquingKeysWith: { a, _ in a })
        let broken = try Data(contentsOf: Fixtures.hostile.appendingPathComponent("bplist_trailer_only.bplist"))
        let kept: ParseValue? = byName["bplist_trailer_only.bplist"]?.fields["data"]
        #expect(kept == ParseValue.bytes(broken))
        let baseline: ParseValue? = byName["bplist_valid_baseline.bplist"]?.fields["data"]
        if case .bytes? = baseline { Issue.record("the valid baseline stays bytes") }
        let reported = Set(store.reports.kept.map(\.objectId))
        #expect(reported.contains(byName["bplist_trailer_only.bplist"]?.objectId ?? "?"))

        // The import goes on to the end and carries every row.
        let export = dir.appendingPathComponent("export")
        let report = try StoreImporter().run(
            from: try SQLiteDatabaseObjectStore(url: file, options: .init(limits: limits, decodeBlobs: true)), to: ParseExportStore(url: export))
        #expect(report.objectsPerClass["blob"] == objects.count)

        // --strict stops at the first one, naming the row and column.
        let strict = try SQLiteDatabaseObjectStore(url: file, options: .init(limits: limits, decodeBlobs: true, strict: true))
        defer { strict.close() }
        let error = #expect(throws: PFError.self) { _ = try strict.objects(in: "blob") }
        guard case .undecodable(_, let table, _, let column, _)? = error?.failure(as: SQLiteSourceFailure.self) else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(table == "blob" && column == "data")
    }

    // MARK: - Real Apple typedstreams

    /// Every string pytypedstream reads from each real typedstream, as JSON: `{name: [strings]}`.
    static let pytypedstreamStrings = #"""
import sys, json, typedstream
from typedstream.types import foundation as F
from typedstream import archiving as A
result = {}
for path in sys.argv[1:]:
    out, seen = [], set()
    def walk(o, d=0):
        if d > 200 or id(o) in seen: return
        seen.add(id(o))
        if isinstance(o, F.NSString): out.append(o.value); return
        if isinstance(o, F.NSArray):
            for e in o.elements: walk(e, d + 1)
            return
        if isinstance(o, F.NSDictionary):
            for k, v in o.contents.items(): walk(k, d + 1); walk(v, d + 1)
            return
        if isinstance(o, A.GenericArchivedObject):
            for c in o.contents:
                for v in getattr(c, "values", []): walk(v, d + 1)
            return
        for attr in ("values", "elements", "contents"):
            x = getattr(o, attr, None)
            if isinstance(x, (list, tuple)):
                for e in x: walk(e, d + 1)
    for root in A.Unarchiver.from_data(open(path, "rb").read()).decode_all(): walk(root)
    result[path.rsplit("/", 1)[-1]] = out
print(json.dumps(result))
"""#

    static func strings(in value: PFValue, into out: inout Set<String>) {
        switch value {
        case .string(let s): out.insert(s)
        case .array(let items): for item in items { strings(in: item, into: &out) }
        case .dictionary(let members):
            for (key, member) in members {
                out.insert(key)
                strings(in: member, into: &out)
            }
        default: break
        }
    }

    @Test func realAppleTypedstreamsInAChatDBShapedTableDecodeToWhatPytypedstreamReads() throws {
        let folder = Fixtures.repoRoot.appendingPathComponent(".venv/pytypedstream-sdist/pytypedstream-0.1.0/tests/data")
        let files = Fixtures.files(in: folder) { !$0.hasPrefix(".") }
        try #require(files.count == 3, "pytypedstream's real Apple typedstreams are missing: run scripts/setup.sh")
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("chat.db")
        _ = try Self.python(
            #"""
import sys, sqlite3
c = sqlite3.connect(sys.argv[1])
c.executescript('''
CREATE TABLE handle (ROWID INTEGER PRIMARY KEY AUTOINCREMENT UNIQUE, id TEXT NOT NULL, service TEXT NOT NULL);
CREATE TABLE chat (ROWID INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT UNIQUE NOT NULL, chat_identifier TEXT);
CREATE TABLE message (ROWID INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT UNIQUE NOT NULL, text TEXT,
    handle_id INTEGER DEFAULT 0, date INTEGER, attributedBody BLOB, is_from_me INTEGER DEFAULT 0);
CREATE TABLE chat_message_join (chat_id INTEGER REFERENCES chat (ROWID) ON DELETE CASCADE,
    message_id INTEGER REFERENCES message (ROWID) ON DELETE CASCADE, message_date INTEGER DEFAULT 0,
    PRIMARY KEY (chat_id, message_id));
''')
c.execute("INSERT INTO handle(id, service) VALUES ('+15555550100', 'iMessage')")
c.execute("INSERT INTO chat(guid, chat_identifier) VALUES ('iMessage;-;+15555550100', '+15555550100')")
for i, path in enumerate(sys.argv[2:]):
    c.execute("INSERT INTO message(guid, text, handle_id, date, attributedBody) VALUES (?, NULL, 1, ?, ?)",
              ("m%d" % i, 700000000000000000 + i, open(path, "rb").read()))
    c.execute("INSERT INTO chat_message_join VALUES (1, ?, 0)", (i + 1,))
c.commit()
"""#, [file.path] + files.map(\.path))
        let theirs = try #require(
            try JSONSerialization.jsonObject(with: try Self.python(Self.pytypedstreamStrings, files.map(\.path))) as? [String: [String]])
        let options = SQLiteDatabase.Options(decodeBlobs: true, dateColumns: [try SQLiteDateColumn(parsing: "message.date=mac-ns")])
        let rows = try Self.rows(file, options, table: "message")
        #expect(rows.count == 3)
        for (row, url) in zip(rows, files) {
            let name = url.lastPathComponent
            guard let body = row.fields["attributedBody"], body.isContainer else {
                Issue.record("\(name): attributedBody not decoded: \(String(describing: row.fields["attributedBody"]))")
                continue
            }
            var ours: Set<String> = []
            Self.strings(in: body, into: &ours)
            let expected = Set(theirs[name] ?? [])
            #expect(expected.count > 100, "\(name)")
            #expect(expected.isSubset(of: ours), "\(name): missing \(expected.subtracting(ours).sorted().prefix(10))")
            #expect(row.fields["handle_id"] == .int(1), "chat.db declares no foreign key on handle_id: it stays a number")
            if case .date = row.fields["date"] {} else { Issue.record("\(name): date is \(String(describing: row.fields["date"]))") }
        }
        // The join table's composite key and foreign keys.
        let joins = try Self.rows(file, table: "chat_message_join")
        #expect(joins.map(\.objectId) == ["[1,1]", "[1,2]", "[1,3]"])
        #expect(joins.first?.fields["message_id"] == ["__type": "Pointer", "className": "message", "objectId": "1"] as PFValue)
    }

    // MARK: - Read-only, WAL-aware

    /// `live/notes.db` under `dir`: a `note` table with one checkpointed row, and `sql`
    /// applied in a `-wal` that is never checkpointed.
    static func liveNotes(in dir: URL, applying sql: String) throws -> URL {
        let seed = dir.appendingPathComponent("seed/notes.db")
        try FileManager.default.createDirectory(at: seed.deletingLastPathComponent(), withIntermediateDirectories: true)
        try CoreDataStoreBuilder.sqlite3(seed, "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO note VALUES (1, 'checkpointed');")
        return try CoreDataStoreBuilder.liveWAL(of: seed, applying: sql, into: dir.appendingPathComponent("live"))
    }

    @Test func aLiveWALDatabaseIsReadThroughAPrivateCopyAndLeftByteIdentical() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let live = try Self.liveNotes(in: dir, applying: "INSERT INTO note VALUES (2, 'only in the wal'); CREATE TABLE late(x);")
        let folder = live.deletingLastPathComponent()
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ["notes.db", "notes.db-shm", "notes.db-wal"])
        var before: [String: Data] = [:]
        for name in names { before[name] = try Data(contentsOf: folder.appendingPathComponent(name)) }
        #expect(StoreLocation.sqliteKind(of: live) == .other)
        #expect(try StoreLocation.resolve(live.path).kind == .sqliteDatabase)

        let store = try SQLiteDatabaseObjectStore(url: live)
        #expect(try store.classNames() == ["late", "note"])
        let bodies = try store.objects(in: "note").map { object -> String in
            if case .string(let s)? = object.fields["body"] { return s }
            return "?"
        }
        #expect(bodies == ["checkpointed", "only in the wal"])
        let db = try SQLiteDatabase.open(url: live)
        _ = try db.summary()
        db.close()
        store.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == names, "nothing created beside the source")
        for name in names { #expect(try Data(contentsOf: folder.appendingPathComponent(name)) == before[name], "\(name) changed") }
    }

    /// The private copy holds the database's bytes even when the path is a symbolic link
    /// (FileManager copied the link itself, which SQLite refuses to open, so such a database
    /// could not be read).
    @Test func aDatabaseReachedThroughASymbolicLinkIsReadThroughACopyOfItsBytes() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let real = dir.appendingPathComponent("data/notes.db")
        try FileManager.default.createDirectory(at: real.deletingLastPathComponent(), withIntermediateDirectories: true)
        try CoreDataStoreBuilder.sqlite3(real, "PRAGMA journal_mode = WAL; CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO note VALUES (1, 'hi');")
        let relative = dir.appendingPathComponent("data/relative.db")
        try FileManager.default.createSymbolicLink(atPath: relative.path, withDestinationPath: "notes.db")
        let absolute = dir.appendingPathComponent("absolute.db")
        try FileManager.default.createSymbolicLink(atPath: absolute.path, withDestinationPath: real.path)
        let before = try FileManager.default.contentsOfDirectory(atPath: real.deletingLastPathComponent().path).sorted()
        for link in [relative, absolute] {
            let rows = try Self.rows(link, table: "note")
            #expect(rows.map { $0.fields["body"] } == [.string("hi")], "\(link.lastPathComponent)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: real.deletingLastPathComponent().path).sorted() == before, "nothing beside the target")
    }

    /// A live WAL database reached through a symbolic link (from another folder, and an
    /// alias beside it) is read with the `-wal` beside its target, as SQLite names it: rows
    /// that live only in the WAL were silently missing, read as if the file were alone.
    @Test func aLinkToALiveWALDatabaseReadsTheTargetsWAL() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let live = try Self.liveNotes(in: dir, applying: "INSERT INTO note VALUES (2, 'only in the wal');")
        let elsewhere = dir.appendingPathComponent("links/notes.db")
        try FileManager.default.createDirectory(at: elsewhere.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: elsewhere.path, withDestinationPath: live.path)
        let alias = live.deletingLastPathComponent().appendingPathComponent("alias.db")
        try FileManager.default.createSymbolicLink(atPath: alias.path, withDestinationPath: "notes.db")
        let folder = live.deletingLastPathComponent()
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        var before: [String: Data] = [:]
        for name in names where name != "alias.db" { before[name] = try Data(contentsOf: folder.appendingPathComponent(name)) }
        for link in [elsewhere, alias] {
            let rows = try Self.rows(link, table: "note")
            #expect(rows.map { $0.fields["body"] } == [.string("checkpointed"), .string("only in the wal")], "\(link.path)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == names, "nothing created beside the target")
        for (name, bytes) in before { #expect(try Data(contentsOf: folder.appendingPathComponent(name)) == bytes, "\(name) changed") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.deletingLastPathComponent().path) == ["notes.db"])
    }

    // MARK: - Tables, keys and foreign keys

    static let keysSQL = """
        CREATE TABLE artist(id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE album(title TEXT, artist_id INTEGER REFERENCES artist(id), year INTEGER);
        CREATE TABLE track(disc INTEGER, n INTEGER, album TEXT, PRIMARY KEY (disc, n)) WITHOUT ROWID;
        CREATE TABLE play(at REAL, disc INTEGER, n INTEGER, FOREIGN KEY (disc, n) REFERENCES track);
        CREATE TABLE loose(code TEXT PRIMARY KEY, v);
        CREATE TABLE byname(artist TEXT REFERENCES artist(name));
        CREATE TABLE "objectId"(createdAt TEXT, ACL INTEGER);
        CREATE VIEW named AS SELECT name FROM artist;
        CREATE VIRTUAL TABLE search USING fts5(body);
        INSERT INTO artist VALUES (10, 'Ada'), (20, 'Bo');
        INSERT INTO album VALUES ('First', 10, 1999), ('Second', NULL, 2001), ('Third', 20, 2003);
        INSERT INTO track VALUES (1, 2, 'First'), (1, 1, 'First');
        INSERT INTO play VALUES (1.5, 1, 2);
        INSERT INTO loose VALUES ('a', 1), (NULL, 2), (NULL, 3);
        INSERT INTO byname VALUES ('Ada');
        INSERT INTO "objectId" VALUES ('yesterday', 7);
        INSERT INTO search VALUES ('full text');
        """

    /// iMessage's chat.db has `_SqliteDatabaseProperties`; other apps have tables named with
    /// spaces or leading digits. Parse forbids such class names, and the import stopped on them.
    @Test func tablesParseForbidsAsClassNamesImportUnderValidNamesWithTheirPointers() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("chat.db")
        try CoreDataStoreBuilder.sqlite3(
            file,
            """
            CREATE TABLE _SqliteDatabaseProperties (key TEXT, value TEXT, UNIQUE(key));
            INSERT INTO _SqliteDatabaseProperties VALUES ('counter', '7');
            CREATE TABLE "deleted messages" (ROWID INTEGER PRIMARY KEY, guid TEXT);
            INSERT INTO "deleted messages" VALUES (4, 'g4');
            CREATE TABLE "1table" (a);
            INSERT INTO "1table" VALUES (1);
            CREATE TABLE T1table_sqlite (b);
            INSERT INTO T1table_sqlite VALUES (2);
            CREATE TABLE note (ROWID INTEGER PRIMARY KEY, gone INTEGER REFERENCES "deleted messages"(ROWID));
            INSERT INTO note VALUES (1, 4);
            """)
        let store = try SQLiteDatabaseObjectStore(url: file)
        defer { store.close() }
        #expect(store.classNameOfTable["_SqliteDatabaseProperties"] == "SqliteDatabaseProperties_sqlite")
        #expect(store.classNameOfTable["deleted messages"] == "deleted_messages_sqlite")
        #expect(store.classNameOfTable["1table"] == "T1table_sqlite_2", "a name already taken by a table gets a suffix")
        #expect(store.classNameOfTable["T1table_sqlite"] == "T1table_sqlite")
        #expect(store.classNameOfTable["note"] == "note")
        for name in try store.classNames() { #expect(ParseRules.classNameProblem(name) == nil, "\(name)") }
        let schema = try store.schema()
        #expect(schema.classes["note"]?["gone"] == ParseSchema.Field(.pointer, targetClass: "deleted_messages_sqlite"))

        let export = dir.appendingPathComponent("export")
        let report = try StoreImporter().run(from: try SQLiteDatabaseObjectStore(url: file), to: ParseExportStore(url: export))
        #expect(report.objectsPerClass["SqliteDatabaseProperties_sqlite"] == 1)
        #expect(report.objectsPerClass["deleted_messages_sqlite"] == 1)
        let back = try ParseExportStore(url: export)
        let note = try #require(try back.objects(in: "note").first)
        #expect(note.fields["gone"] == ParseValue.pointer(ParsePointer(className: "deleted_messages_sqlite", objectId: "4")))
    }

    /// SQLite types values, not columns: a column without a type holds `42` in one row and
    /// `'n/a'` in the next. The learned schema typed the field by its first value (Number), so
    /// the export's schema contradicted its rows and PostgreSQL refused the import; the object
    /// store now reads such a column as a String in every row. `convert` keeps each value's type.
    @Test func aColumnOfMixedStorageClassesIsOneStringFieldForTheStores() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("settings.db")
        try CoreDataStoreBuilder.sqlite3(
            file,
            """
            CREATE TABLE setting(id INTEGER PRIMARY KEY, value, size REAL, payload BLOB, stamp INTEGER, doc BLOB);
            INSERT INTO setting VALUES (1, 42, 1.5, X'0102', 700000000, CAST('{"a":1}' AS BLOB));
            INSERT INTO setting VALUES (2, 'n/a', 2.0, 'text', 700000001, X'62706C6973743030FFFF');
            INSERT INTO setting VALUES (3, 3.25, NULL, '{"a":1}', NULL, CAST('[1,2]' AS BLOB));
            INSERT INTO setting VALUES (4, X'FF00', 7, NULL, 700000002, NULL), (5, NULL, 8, NULL, 700000003, X'0102');
            """)
        let db = try SQLiteDatabase.open(url: file)
        #expect(try db.mixedColumns(of: "setting") == ["value", "payload"])
        db.close()
        // Read as it is (convert): each value keeps its storage class.
        let plain = try Self.rows(file, table: "setting")
        #expect(plain.map { $0.fields["value"] } == [.int(42), .string("n/a"), .double(3.25), .data(Data([0xFF, 0])), .null])

        let options = SQLiteDatabase.Options(decodeBlobs: true, dateColumns: [try SQLiteDateColumn(parsing: "setting.stamp=mac")])
        let store = try SQLiteDatabaseObjectStore(url: file, options: options)
        let export = dir.appendingPathComponent("export")
        let report = try StoreImporter().run(from: store, to: ParseExportStore(url: export))
        #expect(report.totalObjects == 5)
        let schema = try store.schema()
        store.close()
        #expect(schema.classes["setting"]?["value"]?.type == .string)
        #expect(schema.classes["setting"]?["payload"]?.type == .string, "a mixed column is never decoded")
        #expect(schema.classes["setting"]?["size"]?.type == .number)
        #expect(schema.classes["setting"]?["stamp"]?.type == .date)
        let back = try ParseExportStore(url: export)
        #expect(try back.schema().classes["setting"]?["value"]?.type == .string)
        let objects = try back.objects(in: "setting").sorted { ($0.objectId ?? "") < ($1.objectId ?? "") }
        #expect(objects.map { $0.fields["value"] } == [.string("42"), .string("n/a"), .string("3.25"), .string("x'ff00'"), .null])
        #expect(objects.map { $0.fields["payload"] } == [.string("x'0102'"), .string("text"), .string(#"{"a":1}"#), .null, .null])
        // Only BLOBs, but decoded into several types: a value of another type than the
        // field's first one goes to <field>_as_<type>, one type per field.
        #expect(schema.classes["setting"]?["doc"]?.type == .object)
        #expect(schema.classes["setting"]?["doc_as_bytes"]?.type == .bytes)
        #expect(schema.classes["setting"]?["doc_as_array"]?.type == .array)
        #expect(objects.map { $0.fields["doc"] } == [.object(["a": .int(1)]), nil, nil, .null, nil])
        #expect(objects.map { $0.fields["doc_as_bytes"] } == [nil, .bytes(Data([0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30, 0xFF, 0xFF])), nil, nil, .bytes(Data([1, 2]))])
        #expect(objects.map { $0.fields["doc_as_array"] } == [nil, nil, .array([.int(1), .int(2)]), nil, nil])
        // A moved field goes after the row's other fields, as the row with it renamed reads.
        let again = try SQLiteDatabaseObjectStore(url: file, options: options)
        let read = try again.objects(in: "setting")
        again.close()
        #expect(read.map { $0.restValue.dictionaryValue.map { Array($0.keys) } ?? [] } == [
            ["objectId", "id", "value", "size", "payload", "stamp", "doc"],
            ["objectId", "id", "value", "size", "payload", "stamp", "doc_as_bytes"],
            ["objectId", "id", "value", "size", "payload", "stamp", "doc_as_array"],
            ["objectId", "id", "value", "size", "payload", "stamp", "doc"],
            ["objectId", "id", "value", "size", "payload", "stamp", "doc_as_bytes"],
        ])
    }

    /// `mixedColumns` keeps the distinct combinations of kinds in one scan, and counts
    /// column by column when there are more than it keeps: both give the same columns.
    @Test func mixedColumnsAreFoundWithFewAndWithManyCombinationsOfKinds() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("wide.db")
        // Table `few`: 3 combinations. Table `many`: bits of the row number choose NULL or not
        // in seven columns (128 combinations); `m` holds a number, then text in a later row.
        try CoreDataStoreBuilder.sqlite3(
            file,
            """
            CREATE TABLE few(id INTEGER PRIMARY KEY, a, b TEXT);
            INSERT INTO few VALUES (1, 1, 'x'), (2, 2.5, NULL), (3, NULL, X'00');
            CREATE TABLE many(id INTEGER PRIMARY KEY, c0, c1, c2, c3, c4, c5, c6, m, r REAL);
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 299)
            INSERT INTO many SELECT i + 1, CASE WHEN i & 1 THEN 1 END, CASE WHEN i & 2 THEN 'a' END,
              CASE WHEN i & 4 THEN 2 END, CASE WHEN i & 8 THEN 3.5 END, CASE WHEN i & 16 THEN X'01' END,
              CASE WHEN i & 32 THEN 4 END, CASE WHEN i & 64 THEN 5 END, CASE WHEN i = 250 THEN 'n/a' ELSE i END, i FROM n;
            """)
        let db = try SQLiteDatabase.open(url: file)
        defer { db.close() }
        #expect(try db.mixedColumns(of: "few") == ["b"], "an integer and a real are both numbers; a NULL is no kind")
        #expect(try db.mixedColumns(of: "many") == ["m"])
    }

    /// A table of 65,536 rows or more whose rowids span as much is scanned in parts at once
    /// (one per core): a mixed column is found in any part, at either end, with negative
    /// rowids; small tables, rowids at both ends of Int64 (the span does not fit) and WITHOUT
    /// ROWID tables are scanned whole.
    @Test func mixedColumnsAreFoundInEveryPartOfALargeTable() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("spans.db")
        try CoreDataStoreBuilder.sqlite3(
            file,
            """
            CREATE TABLE late(id INTEGER PRIMARY KEY, a, b);
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 69999)
            INSERT INTO late SELECT i * 10 - 20000, i, 'x' FROM n;
            INSERT INTO late VALUES (2000000, 'n/a', 'y');
            CREATE TABLE early(a, b);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 69999)
            INSERT INTO early(rowid, a, b) SELECT i - 70000, i, i FROM n;
            INSERT INTO early(rowid, a, b) VALUES (-70000, X'01', 1);
            CREATE TABLE sparse(id INTEGER PRIMARY KEY, v);
            INSERT INTO sparse VALUES (1, 1), (1000000001, 'two'), (2000000001, 3);
            CREATE TABLE ends(k INTEGER PRIMARY KEY, v);
            INSERT INTO ends VALUES (-9223372036854775808, 1), (0, 'zero'), (9223372036854775807, 2);
            CREATE TABLE keyed(name TEXT PRIMARY KEY, v) WITHOUT ROWID;
            INSERT INTO keyed VALUES ('a', 1), ('b', 'two');
            """)
        let db = try SQLiteDatabase.open(url: file)
        defer { db.close() }
        #expect(try db.rowidRanges(of: try #require(db.table(named: "late")), parts: 2)?.count == 2)
        #expect(try db.rowidRanges(of: try #require(db.table(named: "early")), parts: 2)?.count == 2)
        #expect(try db.mixedColumns(of: "late") == ["a"], "text after numbers in the last row")
        #expect(try db.mixedColumns(of: "early") == ["a"], "a blob in the first row, before rowid 0")
        #expect(try db.rowidRanges(of: try #require(db.table(named: "sparse")), parts: 2) == nil, "3 rows: one scan")
        #expect(try db.rowidRanges(of: try #require(db.table(named: "sparse")), parts: 2, minimumRows: 1)?.count == 2)
        #expect(try db.mixedColumns(of: "sparse") == ["v"])
        #expect(try db.mixedColumns(of: "ends") == ["v"])
        #expect(try db.rowidRanges(of: try #require(db.table(named: "ends")), parts: 2, minimumRows: 1) == nil)
        #expect(try db.mixedColumns(of: "keyed") == ["v"])
        #expect(try db.rowidRanges(of: try #require(db.table(named: "keyed")), parts: 2, minimumRows: 1) == nil)
    }

    @Test func aTableWithoutRowsHasItsPointersInItsForeignKeysOrder() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("fk.db")
        _ = try Self.python(
            #"""
import sys, sqlite3
c = sqlite3.connect(sys.argv[1])
c.execute("CREATE TABLE parent(id INTEGER PRIMARY KEY)")
c.execute("CREATE TABLE child(id INTEGER PRIMARY KEY, a REFERENCES parent(id), b REFERENCES parent(id), c REFERENCES parent(id), d REFERENCES parent(id), e REFERENCES parent(id), f REFERENCES parent(id))")
c.commit()
"""#, [file.path])
        let store = try SQLiteDatabaseObjectStore(url: file)
        defer { store.close() }
        let keys = store.database.tables.first { $0.name == "child" }?.foreignKeys.compactMap(\.pointerField) ?? []
        #expect(keys.count == 6)
        // The store written from it has its columns in this order in every run (a dictionary's
        // order changed from run to run).
        #expect(Array(try store.schema().classes["child"]?.keys ?? []) == keys)
    }

    @Test func keysForeignKeysAndWhichTablesAreRead() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("music.sqlite")
        try CoreDataStoreBuilder.sqlite3(file, Self.keysSQL)
        let db = try SQLiteDatabase.open(url: file)
        defer { db.close() }
        #expect(db.tables.map(\.name) == ["album", "artist", "byname", "loose", "objectId", "play", "track"])
        #expect(db.skipped.keys.contains("named") && db.skipped.keys.contains("search"))
        #expect(db.skipped.keys.contains("search_data"), "FTS shadow tables are skipped")
        func ids(_ table: String) throws -> [String] {
            var out: [String] = []
            try db.forEachRow(of: table) { out.append($0.objectId) }
            return out
        }
        #expect(try ids("artist") == ["10", "20"])
        #expect(try ids("album") == ["1", "2", "3"])
        #expect(try ids("track") == ["[1,1]", "[1,2]"])
        #expect(try ids("loose") == ["a", "rowid:2", "rowid:3"])
        var album: [SQLiteRow] = []
        try db.forEachRow(of: "album") { album.append($0) }
        #expect(album.map { $0.fields["artist_id"] } == [
            ["__type": "Pointer", "className": "artist", "objectId": "10"], .null,
            ["__type": "Pointer", "className": "artist", "objectId": "20"],
        ])
        var play: [SQLiteRow] = []
        try db.forEachRow(of: "play") { play.append($0) }
        #expect(play.first?.fields["disc_n_ref"] == ["__type": "Pointer", "className": "track", "objectId": "[1,2]"] as PFValue)
        #expect(play.first?.fields["disc"] == .int(1), "a composite key's columns keep their values")
        var byname: [SQLiteRow] = []
        try db.forEachRow(of: "byname") { byname.append($0) }
        #expect(byname.first?.fields["artist"] == .string("Ada"), "a key to a column that is not the parent's key stays a value")
        var reserved: [SQLiteRow] = []
        try db.forEachRow(of: "objectId") { reserved.append($0) }
        #expect(Array(reserved.first?.fields.keys ?? []) == ["createdAt_sqlite", "ACL_sqlite"])

        // Stable across runs: a second open gives the same ids.
        let again = try SQLiteDatabase.open(url: file)
        defer { again.close() }
        var second: [String] = []
        try again.forEachRow(of: "track") { second.append($0.objectId) }
        #expect(second == (try ids("track")))

        // --tables selects; a view or virtual table named there is read.
        let some = try SQLiteDatabase.open(url: file, options: .init(tables: ["named", "search", "album"]))
        defer { some.close() }
        #expect(some.tables.map(\.name) == ["album", "named", "search"])
        var named: [SQLiteRow] = []
        try some.forEachRow(of: "named") { named.append($0) }
        #expect(named.map(\.objectId) == ["1", "2"])
        var album2: [SQLiteRow] = []
        try some.forEachRow(of: "album") { album2.append($0) }
        #expect(album2.first?.fields["artist_id"] == album.first?.fields["artist_id"], "a Pointer to a table left out is still made")
        let missing = #expect(throws: PFError.self) { _ = try SQLiteDatabase.open(url: file, options: .init(tables: ["nope"])) }
        #expect(missing?.failure(as: SQLiteSourceFailure.self) == .noSuchTable(file: "music.sqlite", table: "nope", available: [
            "album", "artist", "byname", "loose", "objectId", "play", "track",
        ]))
    }

    // MARK: - Dates

    @Test func dateColumnsReadAppleAndUnixTimes() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("times.db")
        try CoreDataStoreBuilder.sqlite3(
            file,
            """
            CREATE TABLE t(mac REAL, ns INTEGER, unix INTEGER, ms INTEGER, bad);
            INSERT INTO t VALUES (0, 700000000123000000, 1700000000, 1700000000123, 'soon');
            INSERT INTO t VALUES (NULL, -1000000000, 0, -1000, 1e300);
            INSERT INTO t VALUES (NULL, 797000000000000100, ' 1710461864.507', NULL, '0x10');
            """)
        let columns = try ["t.mac=mac", "t.ns=mac-ns", "t.unix=unix", "t.ms=unix-ms", "t.bad=unix"].map { try SQLiteDateColumn(parsing: $0) }
        let rows = try Self.rows(file, .init(dateColumns: columns), table: "t")
        func iso(_ value: PFValue?) -> String? {
            guard case .date(let d)? = value else { return nil }
            return PFDateFormat.iso8601Milliseconds(d)
        }
        #expect(iso(rows[0].fields["mac"]) == "2001-01-01T00:00:00.000Z")
        #expect(iso(rows[0].fields["ns"]) == "2023-03-08T20:26:40.123Z")
        #expect(iso(rows[0].fields["unix"]) == "2023-11-14T22:13:20.000Z")
        #expect(iso(rows[0].fields["ms"]) == "2023-11-14T22:13:20.123Z")
        #expect(rows[0].fields["bad"] == .string("soon"))
        #expect(rows[0].reports.map(\.column) == ["bad"])
        #expect(rows[1].fields["mac"] == .null)
        #expect(iso(rows[1].fields["ns"]) == "2000-12-31T23:59:59.000Z")
        #expect(iso(rows[1].fields["ms"]) == "1969-12-31T23:59:59.000Z")
        #expect(rows[1].fields["bad"] == .double(1e300))
        #expect(rows[1].reports.first?.message.contains("outside years 0-9999") == true)
        // A number stored as TEXT is a number (as SQLite's date functions read it); other text
        // is kept; an integer in a message is shown as the integer stored.
        #expect(iso(rows[2].fields["unix"]) == "2024-03-15T00:17:44.507Z")
        #expect(rows[2].fields["bad"] == .string("0x10"))
        #expect(rows[2].reports.map(\.message) == ["TEXT is not a number of unix time; kept as stored"])
        #expect(rows[2].fields["ns"] != nil)
        let farNS = try Self.rows(file, .init(dateColumns: [try SQLiteDateColumn(parsing: "t.ns=unix")]), table: "t")
        #expect(farNS[2].reports.first?.message == "797000000000000100 is outside years 0-9999 as unix time; kept as stored")
        #expect(throws: PFError.self) { _ = try SQLiteDateColumn(parsing: "nodot=mac") }
        #expect(throws: PFError.self) { _ = try SQLiteDateColumn(parsing: "t.mac=fortnights") }
        let unknown = #expect(throws: PFError.self) {
            _ = try SQLiteDatabase.open(url: file, options: .init(dateColumns: [try SQLiteDateColumn(parsing: "t.nope=mac")]))
        }
        #expect(unknown?.code == .usage)
        // inspect's sample shows the date.
        let db = try SQLiteDatabase.open(url: file, options: .init(dateColumns: columns))
        defer { db.close() }
        #expect(try db.census(of: "t")["ns"]?.sample == "2023-03-08T20:26:40.123Z (700000000123000000 mac-ns)")
    }

    // MARK: - Resolution

    @Test func resolutionTellsAnySQLiteDatabaseFromCoreDataAndPfarchiveStores() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let other = dir.appendingPathComponent("app.sqlite")
        try CoreDataStoreBuilder.sqlite3(other, "CREATE TABLE z(x);")
        let coreData = dir.appendingPathComponent("cd.sqlite")
        try CoreDataStoreBuilder.sqlite3(coreData, "CREATE TABLE Z_PRIMARYKEY(Z_ENT); CREATE TABLE Z_METADATA(Z_VERSION);")
        let ours = dir.appendingPathComponent("ours.sqlite")
        try CoreDataStoreBuilder.sqlite3(ours, "PRAGMA application_id = 1346781554; CREATE TABLE _TABLES(x);")
        let noExtension = dir.appendingPathComponent("Cookies")
        try CoreDataStoreBuilder.sqlite3(noExtension, "CREATE TABLE cookies(name);")
        let sqlitedb = dir.appendingPathComponent("AddressBook.sqlitedb")
        try CoreDataStoreBuilder.sqlite3(sqlitedb, "CREATE TABLE ABPerson(name);")
        #expect(try StoreLocation.resolve(other.path).kind == .sqliteDatabase)
        #expect(try StoreLocation.resolve(coreData.path).kind == .coreData)
        #expect(try StoreLocation.resolve(ours.path).kind == .sqlite)
        #expect(try StoreLocation.resolve(noExtension.path).kind == .sqliteDatabase)
        #expect(try StoreLocation.resolve(sqlitedb.path).kind == .sqliteDatabase)
        #expect(try StoreLocation.resolve(dir.appendingPathComponent("new.sqlite").path).kind == .sqlite, "a new file is pfarchive's store")
        #expect(try StoreLocation.resolve(dir.appendingPathComponent("newdir").path).kind == .parseExport)
        // Read-only: never a destination.
        let writer = #expect(throws: PFError.self) { _ = try StoreOpeners.standard.writer(for: StoreLocation.resolve(other.path)) }
        #expect(writer?.code == .unsupported)
        #expect(try StoreOpeners.standard.reader(for: StoreLocation.resolve(other.path)).classNames() == ["z"])
    }
}
