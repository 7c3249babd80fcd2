import Foundation
import OrderedCollections
import PFCore
import PFParse
import PFStoreTestSupport
import PFStores
import PFTestSupport
import PostgresNIO
import PropertyBased
import Testing

@testable import PFPostgresStore

/// Objects and join rows go into PostgreSQL by `COPY` into staging tables merged with
/// `INSERT … SELECT … ON CONFLICT`. What that leaves in the database must be what the multi-row
/// `INSERT … ON CONFLICT` of earlier versions left (`WriteMethod.insert`, kept as the oracle):
/// the same imports are run both ways into two new databases and their
/// `pg_dump --data-only` outputs compared byte for byte — rows in the tables' physical order,
/// every column as PostgreSQL prints it, `_SCHEMA` included.
@Suite(.serialized, .enabled(if: TestServer.available, TestServer.skipReason))
struct CopyImportTests {
    // MARK: - Helpers

    /// `pg_dump` of the PostgreSQL installation scripts/postgres.sh uses (the newest under
    /// /usr/lib/postgresql), or `PFARCHIVE_PG_DUMP`.
    static let pgDump: String? = {
        if let path = ProcessInfo.processInfo.environment["PFARCHIVE_PG_DUMP"], !path.isEmpty { return path }
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.sorted { $0.compare($1, options: .numeric) == .orderedAscending }.reversed()
            .map { "\(root)/\($0)/bin/pg_dump" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// `pg_dump --schema-only`, then `pg_dump --data-only`, of a database, without the
    /// `\restrict` lines that carry a random key: the tables, their columns and keys (COPY
    /// adds the primary key of a table it created after loading it), then the rows.
    static func dump(_ url: String) throws -> String {
        try dump(url, "--schema-only") + "\n" + dump(url, "--data-only")
    }

    static func dump(_ url: String, _ part: String) throws -> String {
        let path = try #require(pgDump, "no pg_dump under /usr/lib/postgresql/*/bin (set PFARCHIVE_PG_DUMP)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = [part, "--no-owner", "--dbname", url]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let problem = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PFError(.io, format: .postgres, "pg_dump failed: \(String(decoding: problem, as: UTF8.self))")
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("\\restrict") && !$0.hasPrefix("\\unrestrict") }.joined(separator: "\n")
    }

    /// Runs `imports` into a new database written by INSERT and into another written by COPY
    /// (staging tables of `segmentRows` rows, so that several are merged), and returns both dumps.
    static func dumps(segmentRows: Int = 4, _ imports: (PostgresStore) throws -> Void) throws -> (insert: String, copy: String) {
        var results: [String] = []
        for method in [WriteMethod.insert, .copy] {
            results.append(
                try TestServer.withDatabase { url in
                    let store = try PostgresStore.open(url: url)
                    defer { store.close() }
                    store.writeMethod = method
                    store.copySegmentRows = segmentRows
                    store.directCopySegmentRows = segmentRows
                    store.copyBatchesInFlight = 2
                    try imports(store)
                    return try dump(url)
                })
        }
        return (results[0], results[1])
    }

    /// The first line where two dumps differ, for the failure message.
    static func firstDifference(_ a: String, _ b: String) -> String {
        let x = a.split(separator: "\n", omittingEmptySubsequences: false)
        let y = b.split(separator: "\n", omittingEmptySubsequences: false)
        for i in 0..<max(x.count, y.count) where (i < x.count ? x[i] : nil) != (i < y.count ? y[i] : nil) {
            return "line \(i + 1):\n  INSERT: \(i < x.count ? String(x[i]) : "<end>")\n  COPY:   \(i < y.count ? String(y[i]) : "<end>")"
        }
        return "none"
    }

    static func expectSame(_ dumps: (insert: String, copy: String), sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(dumps.insert.contains("COPY public."), "the dump holds no table data", sourceLocation: sourceLocation)
        #expect(dumps.insert == dumps.copy, "\(firstDifference(dumps.insert, dumps.copy))", sourceLocation: sourceLocation)
    }

    // MARK: - Data

    /// Strings COPY's text format must escape or that PostgreSQL reads specially elsewhere.
    static let oddStrings: [String] = [
        "tab\there", "line\nfeed", "carriage\rreturn\r\n", "back\\slash \\N \\. \\\\", "\\N", "\\.", "NULL", "",
        "\"quoted\" 'single'", "{braces,and,commas}", "(1,2)", "ünïcödé e\u{301} 北区 🎉 \u{10FFFF} \u{FEFF}\u{2028}\u{2029}",
        "\u{1}\u{1F}\u{7F}\u{85}\u{A0}", String(repeating: "long ", count: 2_000),
    ]

    /// Every Parse type, with odd strings, names to encode, odd ACL keys, dates before year 1
    /// and after 9999 and to the microsecond, huge, tiny and non-finite numbers.
    static func oddStore() throws -> MemoryStore {
        var objects: [ParseObject] = []
        var acl = ParseACL()
        acl.set(.init(read: true, write: true), for: "role:A\"b\\c")
        acl.set(.init(read: true), for: "user,with,commas")
        acl.set(.init(write: true), for: "{brace}")
        acl.setPublic(.init(read: true))
        let dates: [Double] = [
            1_400_000_000.123456, -2_000_000_000.456789, -65_000_000_000, 327_000_000_000.5, 0, -0.000001, 946_684_800,
            -62_135_596_800, -62_135_596_800.000001,
        ]
        let numbers: [ParseValue] = [
            .int(.max), .int(.min), .int(9_007_199_254_740_993), .double(1e308), .double(-0.0),
            .double(.leastNonzeroMagnitude), .double(.greatestFiniteMagnitude), .double(.infinity), .double(-.infinity),
            .double(.nan), .double(0.1), .int(0),
        ]
        for (i, text) in oddStrings.enumerated() {
            var fields: OrderedDictionary<String, ParseValue> = [
                "text": .string(text),
                "größe": .int(Int64(i)),
                "$price": .double(Double(i) + 0.5),
                "when": .date(Date(timeIntervalSince1970: dates[i % dates.count])),
                "number": numbers[i % numbers.count],
                "nested": .object([
                    "text": .string(text), "a.b": .int(1), "$c": .array([.string(text), .double(2.5), .int(-3), .null]),
                    "deep": .object(["d": .date(Date(timeIntervalSince1970: 1_500_000_000.25)), "big": .int(.min)]),
                ]),
                "list": .array([.string(text), .object(["k": .bool(true)]), .array([])]),
                "blob": .bytes(Data((0...255).map { UInt8(($0 + i) % 256) })),
                "photo": .file(ParseFile(name: "tfss-\(i)-\(text.prefix(8)).png")),
                "place": .geoPoint(ParseGeoPoint(latitude: -90 + Double(i), longitude: 180 - Double(i) * 0.125)),
                "area": .polygon(ParsePolygon(coordinates: [
                    ParseGeoPoint(latitude: 0, longitude: -0.0), ParseGeoPoint(latitude: 1e-7, longitude: 179.99999999),
                ])),
                "owner": .pointer(ParsePointer(className: "_User", objectId: "u\(i % 2 + 1)")),
                "flag": .bool(i % 2 == 0),
            ]
            if i % 3 == 0 { fields["text"] = .null }
            if i % 4 == 1 { fields.removeValue(forKey: "nested") }
            objects.append(
                try ParseObject(
                    className: "Odd", objectId: "odd\(i)", createdAt: Date(timeIntervalSince1970: dates[(i + 3) % dates.count]),
                    updatedAt: i % 2 == 0 ? nil : Date(timeIntervalSince1970: dates[(i + 5) % dates.count]),
                    acl: i % 3 == 2 ? nil : (i % 3 == 1 ? ParseACL() : acl), fields: fields, checkingNames: false))
        }
        let sample = try Sample.store()
        var schema = try sample.schema()
        schema.classes["Odd"] = ["tags": .init(.relation, targetClass: "Post")]
        let tags = ParseRelationKey(owningClass: "Odd", field: "tags", targetClass: "Post")
        var joinRows = try sample.relations().reduce(into: [ParseRelationKey: [ParseJoinRow]]()) { $0[$1] = try sample.joinRows(of: $1) }
        joinRows[tags] = (0..<oddStrings.count).flatMap { i in
            [ParseJoinRow(owningId: "odd\(i)", relatedId: "p1"), ParseJoinRow(owningId: "odd\(i)", relatedId: "p\(i % 2 + 1)")]
        }
        return MemoryStore(objects: try sample.objects(in: "_User") + sample.objects(in: "Post") + objects, joinRows: joinRows, schema: schema)
    }

    // MARK: - Tests

    @Test func everyParseTypeAndOddValuesAsTheInsertImport() throws {
        let source = try Self.oddStore()
        let dumps = try Self.dumps { store in try copy(source, into: store, batch: 3) }
        Self.expectSame(dumps)
        // The data is really there: the odd strings escaped as pg_dump's COPY prints them.
        #expect(dumps.copy.contains("line\\nfeed") && dumps.copy.contains("carriage\\rreturn\\r\\n"))
        #expect(dumps.copy.contains(#"{"role:A\\"b\\\\c","user,with,commas",*}"#))
        #expect(dumps.copy.contains("BC"))
    }

    @Test func upsertsAsTheInsertImport() throws {
        let first = try Self.oddStore()
        // Replaces some objects (fields changed, dropped and added; a new class; a Number
        // field's kind becoming mixed) and keeps the others.
        var replaced: [ParseObject] = []
        for i in [1, 4, 7] {
            replaced.append(
                try ParseObject(
                    className: "Odd", objectId: "odd\(i)", createdAt: Date(timeIntervalSince1970: 1_600_000_000),
                    fields: ["text": .string("replaced \(i)\t\\"), "number": .double(Double(i) / 3), "added": .string("new column")]))
        }
        replaced.append(try ParseObject(className: "Odd", objectId: "odd-new", fields: ["added": .string("new row")]))
        replaced.append(try ParseObject(className: "Fresh", objectId: "f1", fields: ["n": .int(1)]))
        let second = MemoryStore(objects: replaced)
        let dumps = try Self.dumps { store in
            try copy(first, into: store, batch: 3)
            try copy(first, into: store, batch: 5)
            try copy(second, into: store, batch: 2)
        }
        Self.expectSame(dumps)
        #expect(dumps.copy.contains("replaced 4"))
    }

    @Test func anObjectIdRepeatedInOneImportAsTheInsertImport() throws {
        // The later row replaces the earlier, whether in the same batch, the next one or in
        // another staging table.
        let dumps = try Self.dumps(segmentRows: 3) { store in
            try store.begin(schema: ParseSchema())
            for round in 0..<4 {
                let batch = try (0..<3).map { i in
                    try ParseObject(className: "Again", objectId: "a\((i + round) % 4)", fields: ["round": .int(Int64(round)), "i": .int(Int64(i))])
                }
                try store.write(batch + [batch[0]], className: "Again")
                try store.write([ParseJoinRow(owningId: "a1", relatedId: "x"), ParseJoinRow(owningId: "a1", relatedId: "x")],
                    relation: ParseRelationKey(owningClass: "Again", field: "rel", targetClass: "Again"))
            }
            try store.commit()
        }
        Self.expectSame(dumps)
    }

    @Test func multiClassPointersAndRelationsAsTheInsertImport() throws {
        let source = try MultiClassPointerTests.store()
        Self.expectSame(try Self.dumps(segmentRows: 2) { store in try copy(source, into: store, batch: 2) })
        Self.expectSame(try Self.dumps(segmentRows: 1_000) { store in try copy(source, into: store, batch: 2) })
    }

    /// COPY finds each column's field where the previous object had it, and by name
    /// otherwise: objects whose fields come in other orders, with some absent, null or of
    /// another Number kind, still fill the same columns as the INSERT (which finds every field
    /// by name).
    @Test func fieldsInAnyOrderAsTheInsertImport() throws {
        let names = ["a", "b", "c", "d", "e", "f"]
        var objects: [ParseObject] = []
        for i in 0..<40 {
            var fields = OrderedDictionary<String, ParseValue>()
            let rotation = (i / 3) % names.count
            for (k, name) in (names[rotation...] + names[..<rotation]).enumerated() where (i + k) % 7 != 0 {
                switch name {
                case "a": fields[name] = .string("a\(i)")
                case "b": fields[name] = i % 5 == 0 ? .double(Double(i) + 0.25) : .int(Int64(i))
                case "c": fields[name] = i % 4 == 0 ? .null : .bool(i % 2 == 0)
                case "d": fields[name] = .object(["k": .int(Int64(i)), "s": .string("x")])
                case "e": fields[name] = .pointer(ParsePointer(className: "Target", objectId: "t\(i % 3)"))
                default: fields[name] = .date(Date(timeIntervalSince1970: 1_600_000_000 + Double(i)))
                }
            }
            objects.append(try ParseObject(className: "Shuffled", objectId: "s\(i)", fields: fields))
        }
        let source = MemoryStore(objects: objects)
        Self.expectSame(try Self.dumps(segmentRows: 1_000) { store in try copy(source, into: store, batch: 9) })
    }

    @Test func generatedStoresAsTheInsertImport() async throws {
        await propertyCheck(count: 6, input: StoreGen.store()) { generated in
            let source = generated.memoryStore()
            let dumps = try Self.dumps(segmentRows: 5) { store in try copy(source, into: store, batch: 3) }
            #expect(dumps.insert == dumps.copy, "\(Self.firstDifference(dumps.insert, dumps.copy))\n\(generated)")
        }
    }

    @Test func randomObjectsAsTheInsertImport() async throws {
        await propertyCheck(count: 6, input: RandomParse.stores) { objects in
            let source = MemoryStore(objects: objects)
            let dumps = try Self.dumps(segmentRows: 7) { store in try copy(source, into: store, batch: 4) }
            #expect(dumps.insert == dumps.copy, "\(Self.firstDifference(dumps.insert, dumps.copy))")
        }
    }

    /// A row the server refuses in batch N of a COPY (a date before PostgreSQL's 4714 BC), or
    /// one pfarchive refuses before sending it (U+0000 in a string), leaves the database
    /// exactly as it was, whether the batches before it were still in the staging table or
    /// already merged; the error names the object, and the store writes again afterwards.
    @Test func aFailureMidCopyLeavesTheDatabaseExactlyAsBefore() throws {
        try TestServer.withDatabase { url in
            let store = try PostgresStore.open(url: url)
            defer { store.close() }
            try copy(try Self.oddStore(), into: store, batch: 4)
            let before = try Self.dump(url)
            let tooOld = Date(timeIntervalSince1970: -220_000_000_000)
            for segmentRows in [1_000, 2] {
                for (field, bad, what) in [("when", ParseValue.date(tooOld), "out of range"), ("text", .string("nul\u{0}here"), "U+0000")] {
                    store.copySegmentRows = segmentRows
                    store.directCopySegmentRows = segmentRows
                    var objects = try (0..<20).map { i in
                        try ParseObject(className: "Odd", objectId: "odd\(i)", fields: ["text": .string("overwritten \(i)")])
                    }
                    objects.append(contentsOf: try (0..<20).map { i in try ParseObject(className: "Later", objectId: "l\(i)", fields: ["n": .int(Int64(i))]) })
                    objects[10] = try ParseObject(className: "Odd", objectId: "odd10", fields: [field: bad])
                    #expect {
                        try copy(MemoryStore(objects: objects), into: store, batch: 3)
                    } throws: { error in
                        guard let e = error as? PFError else { return false }
                        // The object is named by the case (with the server's SQLSTATE when the
                        // server refused it); the problem is the server's or the writer's text.
                        let object: String? =
                            switch e.failure(as: PostgresStoreFailure.self) {
                            case .rowRefused(_, _, let id, _?, _)?, .badFieldValue(_, _, let id, _, _)?: id
                            default: nil
                            }
                        // A value the server refuses (SQLSTATE class 22) is the data's fault, not an I/O failure.
                        return object == "odd10" && e.code == .invalidValue && e.message.contains(what) && !e.message.contains("\n")
                    }
                    #expect(try Self.dump(url) == before, "segments of \(segmentRows) rows, \(what)")
                }
            }
            // The connection is usable again, and the same objects go in without the bad one.
            try copy(MemoryStore(objects: [try ParseObject(className: "Odd", objectId: "odd10", fields: ["text": .string("fine")])]), into: store)
            #expect(try store.objects(in: "Odd").first { $0.objectId == "odd10" }?.fields["text"] == .string("fine"))
        }
    }
}

extension CopyImportTests {
    /// Dates stored by either write method are the exact milliseconds PostgreSQL prints
    /// (`16:12:41.59+00`, not `.589999`), and `ParseDate`'s reading gives them back.
    @Test func millisecondDatesAreStoredExactly() throws {
        let isos = ["2015-06-13T16:12:41.590Z", "2015-06-15T00:09:50.465Z", "1969-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"]
        var objects: [ParseObject] = []
        for (i, iso) in isos.enumerated() {
            let date = try #require(ParseDate.date(from: iso))
            objects.append(try ParseObject(className: "Talk", objectId: "t\(i)", createdAt: date, fields: ["when": .date(date)]))
        }
        let dumps = try Self.dumps { store in try copy(MemoryStore(objects: objects), into: store) }
        Self.expectSame(dumps)
        for printed in ["2015-06-13 16:12:41.59+00", "2015-06-15 00:09:50.465+00", "1969-12-31 23:59:59.999+00", "9999-12-31 23:59:59.999+00"] {
            #expect(dumps.copy.components(separatedBy: printed).count == 3, "\(printed) twice (createdAt and when)")
        }
        #expect(!dumps.copy.contains("999999+00") && !dumps.copy.contains(".589999"), "\(dumps.copy)")
    }
}

/// COPY's binary format, without a server.
@Suite struct CopyBinaryTests {
    /// The microseconds are the date's nearest millisecond (a Parse date's precision), and what
    /// a bound `INSERT` parameter sends (``PostgresTimestamp``). postgres-nio's own `Date`
    /// encoding truncates: a Parse date's milliseconds, which a `Double` holds only nearly,
    /// lost a microsecond a third of the time (`.590Z` stored as `.589999`), and it traps
    /// beyond 64 bits of microseconds.
    @Test func timestampsAreTheNearestMilliseconds() {
        let cases: [(Double, Int64)] = [
            (946_684_800, 0), (1_400_000_000.123456, 453_315_200_123_000), (1_400_000_000.1235, 453_315_200_124_000),
            (-0.000001, -946_684_800_000_000), (-62_135_596_800, -63_082_281_600_000_000),
            (-62_135_596_800.5, -63_082_281_600_500_000), (327_000_000_000, 326_053_315_200_000_000),
        ]
        for (s, micros) in cases {
            let date = Date(timeIntervalSince1970: s)
            #expect(CopyBinary.microseconds(date) == micros, "\(s)")
            var bound = ByteBuffer()
            PostgresTimestamp(microseconds: micros).encode(into: &bound, context: .default)
            #expect(bound.readInteger(as: Int64.self) == micros)
        }
        // Real dates a Parse export holds, each a whole number of milliseconds.
        for (iso, micros) in [("2015-06-13T16:12:41.590Z", Int64(487_527_161_590_000)), ("2015-06-15T00:09:50.465Z", 487_642_190_465_000),
                              ("9999-12-31T23:59:59.999Z", 252_455_615_999_999_000)] {
            let date = try? #require(ParseDate.date(from: iso))
            #expect(date.flatMap(CopyBinary.microseconds) == micros, "\(iso)")
        }
        var early = 0
        for ms in 0..<1000 {
            let date = Date(timeIntervalSince1970: 1_434_211_961 + Double(ms) / 1000)
            var nio = ByteBuffer()
            date.encode(into: &nio, context: .default)
            if let truncated = nio.readInteger(as: Int64.self), truncated % 1000 != 0 { early += 1 }
            #expect(CopyBinary.microseconds(date).map { $0 % 1000 } == 0, "\(ms) ms")
        }
        #expect(early > 0, "postgres-nio's truncation no longer loses a microsecond: this test shows nothing")
        #expect(CopyBinary.microseconds(Date(timeIntervalSince1970: 1e300)) == nil)
        #expect(CopyBinary.microseconds(Date(timeIntervalSince1970: -1e300)) == nil)
        #expect(CopyBinary.microseconds(Date(timeIntervalSince1970: .nan)) == nil)
    }

    @Test func headerRowsAndArraysAreInTheBinaryLayout() {
        #expect(Array(CopyBinary.header().readableBytesView) == Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [UInt8](repeating: 0, count: 8))
        #expect(Array(CopyBinary.trailer().readableBytesView) == [0xFF, 0xFF])
        var buffer: [UInt8] = []
        CopyBinary.beginRow(columns: 3, in: &buffer)
        CopyBinary.appendNull(to: &buffer)
        #expect(CopyBinary.append("é\t", to: &buffer))
        CopyBinary.append(true, to: &buffer)
        #expect(buffer == [0, 3, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 3, 0xC3, 0xA9, 0x09, 0, 0, 0, 1, 1])
        buffer.removeAll()
        #expect(CopyBinary.appendTextArray([String](), to: &buffer))
        #expect(buffer == [0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 25])
        buffer.removeAll()
        #expect(CopyBinary.appendTextArray(["*", "r"], to: &buffer))
        #expect(
            buffer
                == [0, 0, 0, 30, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 25, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 1, 0x2A, 0, 0, 0, 1, 0x72])
        buffer.removeAll()
        #expect(CopyBinary.appendJSONB(Array("{}".utf8), to: &buffer))
        CopyBinary.appendPoint(x: 1, y: -2, to: &buffer)
        let jsonStart = CopyBinary.beginJSONB(in: &buffer)
        buffer.append(contentsOf: Array("[1]".utf8))
        #expect(CopyBinary.endJSONB(jsonStart, in: &buffer))
        #expect(
            buffer
                == [0, 0, 0, 3, 1, 0x7B, 0x7D, 0, 0, 0, 16, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0, 0xC0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 1, 0x5B, 0x31, 0x5D])
    }

    /// The plain route to `jsonb` text (no REST tree built) writes exactly what the REST
    /// tree's writer writes, or leaves the buffer as it was for the writer to take over.
    @Test func plainJSONIsTheRESTWritersText() async {
        await propertyCheck(count: 60, input: RandomParse.stores) { objects in
            for object in objects {
                for value in object.fields.values { Self.checkPlain(value) }
            }
        }
        var deep = ParseValue.array([.int(1)])
        for _ in 0..<70 { deep = .array([deep]) }
        let plain: ParseValue = .object([
            "x": .double(-1000.5), "zone": .string("北区-3 \"q\" \\ / \n\t\u{1}"), "tags": .array([.string("a"), .int(-7), .bool(false), .null]),
            "weapons": .array([.object(["name": .string("sword"), "uses": .int(Int64.min)])]), "tiny": .double(5e-324), "e": .object([:]), "a": .array([]),
        ])
        var bytes: [UInt8] = []
        #expect(PostgresJSON.appendPlain(plain, into: &bytes))
        for value in [plain, deep, .double(3), .double(-0.0), .double(1e20), .double(.nan), .string("nul\u{0}"), .object(["k\u{0}": .int(1)]),
                      .array([.int(1), .date(Date(timeIntervalSince1970: 1.5))]), .object(["p": .pointer(ParsePointer(className: "A", objectId: "b"))]),
                      .bytes(Data([1, 2])), .geoPoint(ParseGeoPoint(latitude: 1.5, longitude: 2))] as [ParseValue] {
            Self.checkPlain(value)
        }
        // A string without escapes goes in as one copy; one with a character to escape (or
        // U+0000, refused) anywhere in or across the eight-byte words takes the escaping route.
        for special in ["\"", "\\", "\n", "\u{1F}", "\u{0}", "é", "/", "\u{7F}"] {
            for length in 0..<20 {
                for position in 0...length {
                    var text = String(repeating: "a", count: length)
                    text.insert(contentsOf: special, at: text.index(text.startIndex, offsetBy: position))
                    Self.checkPlain(.object([text: .array([.string(text), .int(Int64(length) - 9)])]))
                }
            }
        }
    }

    static func checkPlain(_ value: ParseValue) {
        let before: [UInt8] = Array("prefix".utf8)
        var bytes = before
        let plain = PostgresJSON.appendPlain(value, into: &bytes)
        var expected = before
        let written = Result { () throws(PFError) in try PostgresJSON.write(value.restValue, into: &expected, what: "test") }
        if plain {
            #expect((try? written.get()) != nil, "\(value)")
            #expect(String(decoding: bytes, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        } else {
            #expect(bytes == before, "\(value)")
        }
    }

    /// An ACL's readers and writers are the `text[]` of its keys that may read (write), in order.
    @Test func aclsAreTheArraysOfTheirKeys() {
        var acl = ParseACL()
        acl.set(.init(read: true, write: true), for: "role:A\"b\\c")
        acl.set(.init(read: true), for: "北区 🎉")
        acl.set(.init(write: true), for: "{brace}")
        acl.setPublic(.init(read: true))
        for write in [false, true] {
            var expected: [UInt8] = []
            #expect(CopyBinary.appendTextArray(acl.entries.filter { write ? $0.value.write : $0.value.read }.map(\.key), to: &expected))
            var buffer: [UInt8] = []
            #expect(CopyBinary.appendACL(acl, write: write, to: &buffer))
            #expect(buffer == expected)
        }
        var empty: [UInt8] = []
        #expect(CopyBinary.appendACL(ParseACL(), write: false, to: &empty))
        #expect(empty == [0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 25])
    }

    /// The statement after postgres-nio's `COPY "`: names quoted whatever they hold, and
    /// postgres-nio's own ending commented out.
    @Test func theStatementQuotesNamesAndAsksForBinary() {
        #expect(
            PostgresCopyStream.statementTail(table: #"we"ird"#, columns: [#"a"b"#, "c d\n--"])
                == #"we""ird" ("a""b", "c d"# + "\n" + #"--") FROM STDIN WITH (FORMAT binary) --"#)
        #expect(PostgresCopyStream.statementTail(table: "T", columns: []) == #"T" FROM STDIN WITH (FORMAT binary) --"#)
    }
}
