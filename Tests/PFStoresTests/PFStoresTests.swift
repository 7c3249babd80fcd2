import Foundation
import PFCore
import PFCoreDataTestSupport
import PFParse
import PFStores
import PFTestSupport
import Testing

@Suite struct MemoryStoreTests {
    @Test func writesAreInvisibleUntilCommitAndGoneAfterAbort() throws {
        let store = MemoryStore()
        let a = try ParseObject(className: "Post", objectId: "a1", fields: ["title": .string("Hi")])
        try store.begin(schema: ParseSchema())
        try store.write([a], className: "Post")
        #expect(try store.objects(in: "Post").isEmpty)
        store.abort()
        #expect(try store.objects(in: "Post").isEmpty)
        try store.begin(schema: ParseSchema())
        try store.write([a], className: "Post")
        let key = ParseRelationKey(owningClass: "Post", field: "likes", targetClass: "_User")
        try store.write([ParseJoinRow(owningId: "a1", relatedId: "u1")], relation: key)
        try store.commit()
        #expect(try store.objects(in: "Post") == [a])
        #expect(try store.joinRows(of: key) == [ParseJoinRow(owningId: "a1", relatedId: "u1")])
        #expect(try store.schema().classes["Post"]?["title"]?.type == .string)
    }

    @Test func joinClassNamesParse() {
        #expect(ParseRelationKey(joinClassName: "_Join:likes:Post") == ParseRelationKey(owningClass: "Post", field: "likes"))
        #expect(ParseRelationKey(joinClassName: "_Join\u{A789}likes\u{A789}Post")?.joinClassName == "_Join:likes:Post")
        #expect(ParseRelationKey(joinClassName: "Post") == nil)
    }
}

@Suite struct StoreLocationTests {
    func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pfstores-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func argumentsResolveByShape() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try StoreLocation.resolve(dir.path).kind == .parseExport)
        #expect(try StoreLocation.resolve(dir.appendingPathComponent("new-export").path).kind == .parseExport)
        #expect(try StoreLocation.resolve("export.zip").kind == .parseExport)
        #expect(try StoreLocation.resolve(dir.appendingPathComponent("new.sqlite").path).kind == .sqlite)
        #expect(try StoreLocation.resolve("x.db").kind == .sqlite)
        #expect(try StoreLocation.resolve("App.storedata").kind == .coreData)
        #expect(try StoreLocation.resolve("dump.jsonl").kind == .mongoShape)
        #expect(try StoreLocation.resolve("all.archive").kind == .keyedArchive)
        let pg = try StoreLocation.resolve("postgres://ann:secret@localhost:5432/app")
        #expect(pg.kind == .postgres)
        #expect(pg.description == "postgres://ann:***@localhost:5432/app")
        #expect(try StoreLocation.resolve("PostgreSQL://localhost/app").kind == .postgres)
        #expect(throws: PFError.self) { try StoreLocation.resolve("mysql://localhost/app") }
        #expect(throws: PFError.self) { try StoreLocation.resolve("-") }
    }

    @Test func coreDataStoresAreToldApartByTheirTables() throws {
        let coreData = Fixtures.real.appendingPathComponent("coredata/coredataplus/SampleModel_V1.sqlite")
        let before = try Data(contentsOf: coreData)
        #expect(try StoreLocation.resolve(coreData.path).kind == .coreData)
        #expect(try Data(contentsOf: coreData) == before)
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // An SQLite header without Core Data's tables, and a file that is not SQLite at all.
        let plain = dir.appendingPathComponent("plain.sqlite")
        try (Data("SQLite format 3\0".utf8) + Data(repeating: 0, count: 200)).write(to: plain)
        // Issue 24: an SQLite file that is neither Core Data nor pfarchive's is any SQLite database.
        #expect(try StoreLocation.resolve(plain.path).kind == .sqliteDatabase)
        let text = dir.appendingPathComponent("text.db")
        try Data("Z_PRIMARYKEY Z_METADATA".utf8).write(to: text)
        #expect(try StoreLocation.resolve(text.path).kind == .sqlite)
    }

    @Test func sqliteFilesAreClassifiedFromTheirBytesIncludingAWALOnlyFirstPage() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let other = dir.appendingPathComponent("other.db")
        try CoreDataStoreBuilder.sqlite3(other, "PRAGMA journal_mode=WAL; CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        #expect(StoreLocation.sqliteKind(of: other) == .other)
        #expect(StoreLocation.sqliteKind(of: Fixtures.real.appendingPathComponent("coredata/restkit/RKSeedDatabase.sqlite")) == .coreData)
        #expect(StoreLocation.sqliteKind(of: dir.appendingPathComponent("missing.db")) == .notSQLite)
        let text = dir.appendingPathComponent("text.db")
        try Data(repeating: 0x41, count: 300).write(to: text)
        #expect(StoreLocation.sqliteKind(of: text) == .notSQLite)
        // The application id set by a change that lives only in the -wal: page 1 comes from there.
        let live = try CoreDataStoreBuilder.liveWAL(
            of: other, applying: "PRAGMA application_id = \(Int32(bitPattern: StoreLocation.pfarchiveApplicationID)); INSERT INTO t VALUES (2);",
            into: dir.appendingPathComponent("live"))
        let main = try Data(contentsOf: live)
        #expect(main[68..<72].elementsEqual([0, 0, 0, 0]), "the file itself still has no application id")
        #expect(StoreLocation.sqliteKind(of: live) == .pfarchive)
        #expect(try CoreDataStoreBuilder.directorySnapshot(live.deletingLastPathComponent()).keys.sorted() == ["other.db", "other.db-shm", "other.db-wal"])
    }

    @Test func aDatabaseHoldingACoreDataStoreInABlobIsNotCoreData() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A forensic-style table of files, one of them a whole Core Data store, and the two
        // table names in text too: before, finding the names anywhere in the bytes made this
        // database "Core Data", which then refused it.
        let coreData = Fixtures.real.appendingPathComponent("coredata/coredataplus/SampleModel_V1.sqlite")
        let files = dir.appendingPathComponent("files.db")
        try CoreDataStoreBuilder.sqlite3(files, """
            CREATE TABLE file (name TEXT, note TEXT, body BLOB);
            INSERT INTO file VALUES ('SampleModel_V1.sqlite', 'tables Z_PRIMARYKEY and Z_METADATA', readfile('\(coreData.path)'));
            """)
        #expect(StoreLocation.sqliteKind(of: files) == .other)
        #expect(try StoreLocation.resolve(files.path).kind == .sqliteDatabase)
        // The same rows written only to a live -wal.
        let empty = dir.appendingPathComponent("wal.db")
        try CoreDataStoreBuilder.sqlite3(empty, "PRAGMA journal_mode=WAL; CREATE TABLE file (name TEXT, body BLOB);")
        let live = try CoreDataStoreBuilder.liveWAL(
            of: empty, applying: "INSERT INTO file VALUES ('x', readfile('\(coreData.path)'));", into: dir.appendingPathComponent("live"))
        #expect(StoreLocation.sqliteKind(of: live) == .other)
    }

    @Test func coreDataTablesAreFoundInASchemaOfManyPagesAndInTheWAL() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // 400 tables with long definitions: the schema b-tree has interior pages, and the two
        // Core Data tables are created last, far from page 1.
        let columns = (0..<30).map { "ZATTRIBUTE_WITH_A_LONG_NAME_\($0) VARCHAR" }.joined(separator: ", ")
        let tables = (0..<400).map { "CREATE TABLE ZENTITY\($0) (Z_PK INTEGER PRIMARY KEY, \(columns));" }.joined(separator: "\n")
        let store = dir.appendingPathComponent("Big.sqlite")
        try CoreDataStoreBuilder.sqlite3(store, "PRAGMA page_size=1024; PRAGMA journal_mode=WAL;\n" + tables)
        #expect(StoreLocation.sqliteKind(of: store) == .other)
        let live = try CoreDataStoreBuilder.liveWAL(
            of: store, applying: "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR); CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY);",
            into: dir.appendingPathComponent("live"))
        let pages = try Data(contentsOf: live).count / 1024
        #expect(pages > 100, "the schema spans many pages")
        #expect(StoreLocation.sqliteKind(of: live) == .coreData, "the two tables exist only in the -wal")
        // A -wal whose frames fail their checksum is not read: the file's own schema counts.
        let wal = URL(fileURLWithPath: live.path + "-wal")
        var walBytes = try Data(contentsOf: wal)
        walBytes[walBytes.count - 1] ^= 0xFF
        try walBytes.write(to: wal)
        #expect(StoreLocation.sqliteKind(of: live) == .other)
    }

    @Test func damagedSchemaPagesEndTheWalk() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("t.db")
        try CoreDataStoreBuilder.sqlite3(source, "PRAGMA page_size=512; CREATE TABLE Z_PRIMARYKEY (a); CREATE TABLE Z_METADATA (b);")
        let good = try Data(contentsOf: source)
        #expect(StoreLocation.sqliteKind(of: source) == .coreData)
        // Page 1 made an interior page whose right child is itself (a cycle), cell counts and
        // offsets past the page, and a truncated file: each ends as "some SQLite database".
        var mutations: [Data] = []
        var cycle = good
        cycle[100] = 0x05
        cycle.replaceSubrange(108..<112, with: [0, 0, 0, 1])
        mutations.append(cycle)
        var count = good
        count.replaceSubrange(103..<105, with: [0xFF, 0xFF])
        mutations.append(count)
        var pointer = good
        pointer.replaceSubrange(108..<110, with: [0xFF, 0xF0])
        mutations.append(pointer)
        mutations.append(good.prefix(300))
        // A record whose type is a 9-byte varint (2^64 - 1): its length must not be added to
        // an offset unchecked (that trapped).
        var huge = good
        let table = try #require(huge.range(of: Data("tableZ_PRIMARYKEY".utf8))).lowerBound
        try #require(huge[table - 6] == 6, "a six-byte record header before the type")
        huge[table - 6] = 11
        for k in 1...9 { huge[table - 6 + k] = 0xFF }
        huge[table - 6 + 10] = 37
        mutations.append(huge)
        for (i, bytes) in mutations.enumerated() {
            let file = dir.appendingPathComponent("bad\(i).db")
            try bytes.write(to: file)
            #expect(StoreLocation.sqliteKind(of: file) == .other, "mutation \(i)")
        }
        // One of pfarchive's stores whose schema page is damaged is still said to be one (its
        // store then reports the damage), not "some other database".
        let own = dir.appendingPathComponent("own.db")
        try CoreDataStoreBuilder.sqlite3(own, "PRAGMA page_size=512; PRAGMA application_id=\(Int32(bitPattern: StoreLocation.pfarchiveApplicationID)); CREATE TABLE t (x);")
        var ownBytes = try Data(contentsOf: own)
        ownBytes.replaceSubrange(103..<105, with: [0xFF, 0xFF])
        try ownBytes.write(to: own)
        #expect(StoreLocation.sqliteKind(of: own) == .pfarchive)
        // SQLite's magic with the rest of the 100-byte header cut short is a damaged database
        // (the generic source says so, as SQLite), not a file of some other format.
        let cut = dir.appendingPathComponent("cut.sqlite")
        try Data("SQLite format 3\0".utf8 + [UInt8](repeating: 0, count: 50)).write(to: cut)
        #expect(StoreLocation.sqliteKind(of: cut) == .other)
        try Data("SQLite format".utf8).write(to: cut)
        #expect(StoreLocation.sqliteKind(of: cut) == .notSQLite)
    }

    @Test func randomlyDamagedSQLiteFilesAreClassifiedWithoutTrapOrHang() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // The schema walk reads untrusted bytes: damage a real Core Data store (several schema
        // pages) and a live -wal at random places, and truncate them; every answer must come
        // back (the test's own time bounds a hang) and only ever be one of the kinds.
        let store = Fixtures.real.appendingPathComponent("coredata/coredataplus/SampleModel2_V2.sqlite")
        let good = try Data(contentsOf: store)
        let small = dir.appendingPathComponent("small.db")
        try CoreDataStoreBuilder.sqlite3(small, "PRAGMA page_size=512; PRAGMA journal_mode=WAL; CREATE TABLE t (x);")
        let live = try CoreDataStoreBuilder.liveWAL(
            of: small, applying: "CREATE TABLE Z_PRIMARYKEY (a); CREATE TABLE Z_METADATA (b);", into: dir.appendingPathComponent("live"))
        let wal = try Data(contentsOf: URL(fileURLWithPath: live.path + "-wal"))
        #expect(StoreLocation.sqliteKind(of: live) == .coreData)
        var random = SplitMix64(seed: 24)
        let file = dir.appendingPathComponent("damaged.db")
        for round in 0..<400 {
            var bytes = round % 2 == 0 ? good : try Data(contentsOf: live)
            var sidecar = wal
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                if round % 4 == 3 {
                    sidecar[Int.random(in: 0..<sidecar.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                } else {
                    bytes[Int.random(in: 0..<min(bytes.count, 16_384), using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
            }
            if round % 5 == 4 { bytes = bytes.prefix(Int.random(in: 0..<bytes.count, using: &random)) }
            try bytes.write(to: file)
            if round % 2 == 1 { try sidecar.write(to: URL(fileURLWithPath: file.path + "-wal")) } else {
                try? FileManager.default.removeItem(at: URL(fileURLWithPath: file.path + "-wal"))
            }
            let kind = StoreLocation.sqliteKind(of: file)
            #expect([.coreData, .other, .notSQLite, .pfarchive].contains(kind))
        }
    }

    @Test func unavailableKindsSaySo() throws {
        let openers = StoreOpeners.standard
        let error = #expect(throws: PFError.self) { try openers.reader(for: StoreLocation.resolve("postgres://localhost/app")) }
        #expect(error?.code == .unsupported)
        #expect(error?.failure(as: StoreFailure.self) == .readingUnavailable(location: "postgres://localhost/app", kind: .postgres))
        var withMemory = StoreOpeners()
        withMemory.register(.keyedArchive, reader: nil, writer: { location in MemoryStore(location: location.argument) })
        #expect(withMemory.canWrite(.keyedArchive) && !withMemory.canRead(.keyedArchive))
        #expect(try withMemory.writer(for: StoreLocation.resolve("x.archive")).location == "x.archive")
        let coreData = #expect(throws: PFError.self) { try withMemory.writer(for: StoreLocation.resolve("x.storedata")) }
        #expect(coreData?.failure(as: StoreFailure.self) == .writingUnavailable(location: "x.storedata", why: "Core Data stores are read-only"))
    }
}

@Suite struct StoreImporterTests {
    static func sample() throws -> MemoryStore {
        let likes = ParseRelationKey(owningClass: "Post", field: "likes", targetClass: "_User")
        return MemoryStore(
            objects: [
                try ParseObject(className: "_User", objectId: "u1", fields: ["name": .string("ann")]),
                try ParseObject(
                    className: "Post", objectId: "p1",
                    fields: [
                        "author": .pointer(ParsePointer(className: "_User", objectId: "u1")),
                        "editor": .pointer(ParsePointer(className: "_User", objectId: "gone")),
                        "team": .pointer(ParsePointer(className: "Team", objectId: "t1")),
                        "next": .pointer(ParsePointer(className: "Post", objectId: "p2")),
                        "seen": .array([.pointer(ParsePointer(className: "Post", objectId: "p9"))]),
                    ]),
                try ParseObject(className: "Post", objectId: "p2", fields: ["likes": .relation(className: "_User")]),
                try ParseObject(className: "Comment", objectId: "c1", fields: ["post": .pointer(ParsePointer(className: "Post", objectId: "p1"))]),
            ],
            joinRows: [likes: [ParseJoinRow(owningId: "p1", relatedId: "u1"), ParseJoinRow(owningId: "", relatedId: "u1")]])
    }

    @Test func copiesEverythingAndReportsDanglingPointersAndRejectedRows() throws {
        let source = try Self.sample()
        let destination = MemoryStore(location: "dest")
        var updates: [StoreImporter.Progress] = []
        let report = try StoreImporter(options: .init(batchSize: 1)).run(from: source, to: destination) { updates.append($0) }
        #expect(report.objectsPerClass == ["_User": 1, "Post": 2, "Comment": 1])
        #expect(report.relationRows == ["_Join:likes:Post": 1])
        let dangling = report.danglingPointers.map { "\($0.className) \($0.objectId) \($0.key) \($0.target)" }
        #expect(dangling.sorted() == ["Post p1 editor _User/gone", "Post p1 seen[0] Post/p9", "Post p1 team Team/t1"])
        #expect(report.danglingPointerCount == 3)
        #expect(report.rejected == [.init(className: "_Join:likes:Post", id: "→u1", reason: "a join row needs both owningId and relatedId")])
        #expect(try destination.objects(in: "Post") == source.objects(in: "Post"))
        #expect(updates.last?.objectsDone == 4)
        #expect(updates.first?.objectsEstimated == 4)
        #expect(report.lines.last == "imported 4 objects of 3 classes and 1 relation row into dest; 3 dangling pointers, 1 rejected")
    }

    @Test func onlyTheClassesAskedForAndTheirRelations() throws {
        let destination = MemoryStore()
        let report = try StoreImporter(options: .init(classes: ["Comment", "_User"])).run(from: try Self.sample(), to: destination)
        #expect(Array(report.objectsPerClass.keys) == ["_User", "Comment"])
        #expect(report.relationRows.isEmpty)
        #expect(report.danglingPointerCount == 0)  // Post is in the source, only left out
        let error = #expect(throws: PFError.self) {
            try StoreImporter(options: .init(classes: ["Nope"])).run(from: try Self.sample(), to: MemoryStore())
        }
        #expect(error?.code == .usage)
    }

    /// A MemoryStore seen through a reader that can hand each object over twice, or fail
    /// after a class as a malformed file would.
    final class ScriptedReader: ObjectStoreReader {
        let inner: MemoryStore
        let failAfter: String?
        let passes: Int
        init(_ inner: MemoryStore, failAfter: String? = nil, passes: Int = 1) {
            self.inner = inner
            self.failAfter = failAfter
            self.passes = passes
        }
        var location: String { "scripted" }
        func classNames() throws(PFError) -> [String] { try inner.classNames() }
        func schema() throws(PFError) -> ParseSchema { try inner.schema() }
        func estimatedObjectCount(in className: String) -> Int? { nil }
        func forEachObject(in className: String, _ body: (ParseObject) throws(PFError) -> Void) throws(PFError) {
            for _ in 0..<passes { try inner.forEachObject(in: className, body) }
            if className == failAfter { throw PFError(.syntax, format: .json, "unexpected character", offset: 17) }
        }
        func relations() throws(PFError) -> [ParseRelationKey] { try inner.relations() }
        func forEachJoinRow(of relation: ParseRelationKey, _ body: (ParseJoinRow) throws(PFError) -> Void) throws(PFError) {
            try inner.forEachJoinRow(of: relation, body)
        }
        func close() {}
    }

    @Test func aReaderErrorAbortsTheWriter() throws {
        let existing = try ParseObject(className: "Old", objectId: "o1", fields: [:])
        let destination = MemoryStore(objects: [existing])
        let error = #expect(throws: PFError.self) {
            try StoreImporter(options: .init(batchSize: 1)).run(from: ScriptedReader(try Self.sample(), failAfter: "Post"), to: destination)
        }
        #expect(error?.location?.offset == 17)
        #expect(try destination.classNames() == ["Old"])
        #expect(try destination.objects(in: "Old") == [existing])
    }

    @Test func repeatedObjectIdsAreCounted() throws {
        let source = MemoryStore(objects: [try ParseObject(className: "A", objectId: "1", fields: [:])])
        let report = try StoreImporter().run(from: ScriptedReader(source, passes: 2), to: MemoryStore())
        #expect(report.duplicateObjectIds == 1)
        #expect(report.objectsPerClass["A"] == 2)
    }
}
