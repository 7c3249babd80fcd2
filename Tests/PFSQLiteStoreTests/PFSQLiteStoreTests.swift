import Foundation
import PFCore
import PFParse
import PFParseExport
import PFSQLiteSource
import PFSQLiteStore
import PFStoreTestSupport
import PFStores
import PFTestSupport
import PropertyBased
import Testing

/// Hand-built stores with every field type, and helpers shared by the SQLite tests.
enum SQLiteSamples {
    static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pfsqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static func date(_ ms: Int64) -> Date { Date(timeIntervalSince1970: Double(ms) / 1000) }

    static func acl() -> ParseACL {
        var acl = ParseACL()
        acl.setPublic(.init(read: true))
        acl.set(.init(read: true, write: true), for: "u1")
        acl.set(.init(write: true), forRole: "Admins")
        return acl
    }

    /// Objects with every Parse type, ACLs, pointers (one dangling) and a relation.
    static func everyType() throws -> MemoryStore {
        let user1 = try ParseObject(
            className: "_User", objectId: "u1", createdAt: date(1_431_996_830_112), updatedAt: date(1_431_996_830_999),
            acl: acl(), fields: ["username": .string("ann"), "bcryptPassword": .string("$2a$10$abc"), "age": .int(31)])
        let user2 = try ParseObject(
            className: "_User", objectId: "u2", createdAt: date(-86_400_001), acl: ParseACL(),
            fields: ["username": .string("bob"), "authData": .object(["facebook": .object(["id": .string("42")])])])
        let post = try ParseObject(
            className: "Post", objectId: "p1", createdAt: date(1_600_000_000_001), updatedAt: date(1_600_000_000_002),
            fields: [
                "title": .string("Héllo 🌍 \"quoted\"\n"),
                "score": .int(3), "ratio": .double(3.0), "big": .int(Int64.max), "neg": .double(-0.5),
                "published": .bool(true), "draft": .bool(false),
                "when": .date(date(1_234_567_890_123)),
                "author": .pointer(ParsePointer(className: "_User", objectId: "u1")),
                "editor": .pointer(ParsePointer(className: "_User", objectId: "missing")),
                "likes": .relation(className: "_User"),
                "meta": .object(["a": .int(1), "b": .double(1.0), "c": .array([.string("x"), .null]), "d": .date(date(5))]),
                "tags": .array([.string("a"), .int(2), .double(2.0), .pointer(ParsePointer(className: "_User", objectId: "u2"))]),
                "image": .file(ParseFile(name: "tfss-1-a.png", url: "http://files.parse.com/a.png")),
                "thumb": .file(ParseFile(name: "b.png")),
                "where": .geoPoint(ParseGeoPoint(latitude: 40.7128, longitude: -74.006)),
                "area": .polygon(ParsePolygon(coordinates: [
                    ParseGeoPoint(latitude: 0, longitude: 0), ParseGeoPoint(latitude: 1, longitude: 0), ParseGeoPoint(latitude: 0.5, longitude: 1),
                ])),
                "raw": .bytes(Data([0, 1, 2, 255])), "empty": .bytes(Data()),
                "nothing": .null, "emptyText": .string(""),
            ])
        // A second Post whose values have other types than the first one's: they must survive too.
        let odd = try ParseObject(
            className: "Post", objectId: "p2",
            fields: [
                "title": .int(7), "score": .string("high"), "published": .int(1), "when": .string("yesterday"),
                "author": .pointer(ParsePointer(className: "Team", objectId: "t1")), "meta": .array([]),
                "Title": .string("case differs"),
            ])
        let noId = try ParseObject(className: "Post", objectId: nil, fields: ["title": .string("unsaved")])
        let likes = ParseRelationKey(owningClass: "Post", field: "likes", targetClass: "_User")
        return MemoryStore(
            objects: [user1, user2, post, odd, noId],
            joinRows: [likes: [ParseJoinRow(owningId: "p1", relatedId: "u1"), ParseJoinRow(owningId: "p1", relatedId: "u2")]])
    }

    /// Copies a store into a new SQLite file and opens it for reading.
    static func copy(_ source: any ObjectStoreReader, to url: URL) throws -> SQLiteStore {
        let store = SQLiteStore(url: url)
        _ = try StoreImporter(options: .init(batchSize: 2)).run(from: source, to: store)
        return SQLiteStore(url: url)
    }

    static func expectSameContent(_ a: any ObjectStoreReader, _ b: any ObjectStoreReader) throws {
        #expect(try a.classNames() == b.classNames())
        for name in try a.classNames() {
            let left = try a.objects(in: name)
            let right = try b.objects(in: name)
            #expect(left.count == right.count, "\(name)")
            for (x, y) in zip(left, right) { #expect(x == y, "\(name) \(x.objectId ?? "-")") }
        }
        let relations = try a.relations()
        #expect(relations.map(\.joinClassName) == (try b.relations()).map(\.joinClassName))
        for relation in relations { #expect(try a.joinRows(of: relation) == b.joinRows(of: relation)) }
    }

    /// Runs `sqlite3` (the command-line shell) on a file, as another tool would read it.
    static func sqlite3(_ url: URL, _ sql: String) throws -> String {
        let result = try Peers.run("/usr/bin/sqlite3", [url.path, sql])
        return result.stdoutText
    }
}

@Suite struct SQLiteStoreRoundTripTests {
    @Test func everyTypeSurvivesARoundTrip() throws {
        let dir = try SQLiteSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try SQLiteSamples.everyType()
        let store = try SQLiteSamples.copy(source, to: dir.appendingPathComponent("out.sqlite"))
        try SQLiteSamples.expectSameContent(source, store)
        let schema = try store.schema()
        #expect(schema.classes["Post"]?["author"] == ParseSchema.Field(.pointer, targetClass: "_User"))
        #expect(schema.classes["Post"]?["likes"] == ParseSchema.Field(.relation, targetClass: "_User"))
        // Nothing but the temporary sibling's rename: no leftovers beside the store.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.sqlite"])
    }

    @Test func integersAndDoublesStayApartInSQLite() throws {
        let dir = try SQLiteSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("numbers.sqlite")
        let source = MemoryStore(objects: [
            try ParseObject(className: "N", objectId: "a", fields: ["v": .int(3)]),
            try ParseObject(className: "N", objectId: "b", fields: ["v": .double(3.0)]),
            try ParseObject(className: "N", objectId: "c", fields: ["v": .double(-0.0)]),
            try ParseObject(className: "N", objectId: "d", fields: ["v": .double(1e300)]),
            try ParseObject(className: "N", objectId: "e", fields: ["v": .int(-9_007_199_254_740_993)]),
        ])
        let store = try SQLiteSamples.copy(source, to: url)
        let values = try store.objects(in: "N").map { $0.fields["v"] }
        #expect(values == [.int(3), .double(3.0), .double(-0.0), .double(1e300), .int(-9_007_199_254_740_993)])
        if case .double(let z)? = values[2] { #expect(z.sign == .minus) }
        // What SQLite itself holds: an INTEGER and a REAL, not two integers.
        #expect(try SQLiteSamples.sqlite3(url, "SELECT objectId, typeof(v) FROM N ORDER BY rowid") == "a|integer\nb|real\nc|real\nd|real\ne|integer\n")
    }

    @Test func datesAreMillisecondsAndReadableBySQLite3() throws {
        let dir = try SQLiteSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("dates.sqlite")
        let source = MemoryStore(objects: [
            try ParseObject(className: "E", objectId: "a", createdAt: SQLiteSamples.date(1_431_996_830_112), fields: ["at": .date(SQLiteSamples.date(-1))])
        ])
        let store = try SQLiteSamples.copy(source, to: url)
        let object = try #require(try store.objects(in: "E").first)
        #expect(object.createdAt == SQLiteSamples.date(1_431_996_830_112))
        #expect(object.fields["at"] == .date(SQLiteSamples.date(-1)))
        #expect(
            try SQLiteSamples.sqlite3(url, "SELECT strftime('%Y-%m-%dT%H:%M:%fZ', createdAt / 1000.0, 'unixepoch'), at FROM E")
                == "2015-05-19T00:53:50.112Z|-1\n")
    }

    @Test func layoutIsDescribedForOtherTools() throws {
        let dir = try SQLiteSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("layout.sqlite")
        _ = try SQLiteSamples.copy(try SQLiteSamples.everyType(), to: url)
        #expect(
            try SQLiteSamples.sqlite3(url, "SELECT name, tableName, kind FROM _TABLES ORDER BY rowid")
                == "_User|_User|class\nPost|Post|class\n_Join:likes:Post|_Join:likes:Post|join\n")
        #expect(try SQLiteSamples.sqlite3(url, "SELECT type, targetClass FROM _SCHEMA WHERE className = 'Post' AND field = 'author'") == "Pointer|_User\n")
        // Title and title differ in Parse but not to SQLite: the second gets its own column.
        #expect(try SQLiteSamples.sqlite3(url, "SELECT columnName FROM _SCHEMA WHERE className = 'Post' AND field = 'Title'") == "Title_2\n")
        #expect(try SQLiteSamples.sqlite3(url, "SELECT u.username FROM Post p JOIN _User u ON u.objectId = p.author") == "ann\n")
        #expect(try SQLiteSamples.sqlite3(url, "SELECT count(*) FROM \"_Join:likes:Post\" WHERE owningId = 'p1'") == "2\n")
        #expect(try SQLiteSamples.sqlite3(url, "SELECT json_extract(\"where\", '$.latitude') FROM Post WHERE objectId = 'p1'") == "40.7128\n")
        let indexes = try SQLiteSamples.sqlite3(url, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Post' ORDER BY name")
        #expect(indexes.contains("idx:Post:author"))
        #expect(try SQLiteSamples.sqlite3(url, "PRAGMA application_id") == "\(Int32(bitPattern: StoreLocation.pfarchiveApplicationID))\n")
    }

    @Test func fieldsAndClassesAddedLaterGetColumnsAndUpsertsReplace() throws {
        let dir = try SQLiteSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("grow.sqlite")
        _ = try SQLiteSamples.copy(MemoryStore(objects: [try ParseObject(className: "A", objectId: "1", fields: ["x": .int(1)])]), to: url)
        let second = MemoryStore(objects: [
            try ParseObject(className: "A", objectId: "1", fields: ["y": .string("new")]),
            try ParseObject(className: "A", objectId: "2", fields: ["x": .int(2)]),
            try ParseObject(className: "B", objectId: "b", fields: ["z": .bool(true)]),
        ])
        let store = SQLiteStore(url: url)
        _ = try StoreImporter().run(from: second, to: store)
        let reread = SQLiteStore(url: url)
        #expect(try reread.classNames() == ["A", "B"])
        #expect(try reread.objects(in: "A") == [
            try ParseObject(className: "A", objectId: "1", fields: ["y": .string("new")]),
            try ParseObject(className: "A", objectId: "2", fields: ["x": .int(2)]),
        ])
        #expect(try reread.objects(in: "B").count == 1)
    }

    @Test func abortLeavesANewFileAbsentAndAnExistingOneByteIdentical() throws {
        let dir = try SQLiteSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("abort.sqlite")
        let fresh = SQLiteStore(url: url)
        try fresh.begin(schema: ParseSchema())
        try fresh.write([try ParseObject(className: "A", objectId: "1", fields: [:])], className: "A")
        fresh.abort()
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)

        _ = try SQLiteSamples.copy(try SQLiteSamples.everyType(), to: url)
        let before = try Data(contentsOf: url)
        let existing = SQLiteStore(url: url)
        try existing.begin(schema: ParseSchema(["New": ["f": .init(.string)]]))
        try existing.write([try ParseObject(className: "Post", objectId: "p1", fields: ["extraField": .int(1)])], className: "Post")
        try existing.write([ParseJoinRow(owningId: "x", relatedId: "y")], relation: ParseRelationKey(owningClass: "Post", field: "likes"))
        existing.abort()
        #expect(try Data(contentsOf: url) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["abort.sqlite"])
    }

    @Test func staleTemporarySiblingsOfDeadRunsAreRemoved() throws {
        let dir = try SQLiteSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("s.sqlite")
        // pid 2^22+1 is above Linux's pid_max default range, so no process has it.
        let stale = dir.appendingPathComponent(".s.sqlite.pfarchive-4194305-ABC.tmp")
        try Data("partial".utf8).write(to: stale)
        let live = dir.appendingPathComponent(".s.sqlite.pfarchive-\(getpid())-DEF.tmp")
        try Data("mine".utf8).write(to: live)
        _ = try SQLiteSamples.copy(MemoryStore(objects: [try ParseObject(className: "A", objectId: "1", fields: [:])]), to: url)
        #expect(!FileManager.default.fileExists(atPath: stale.path))
        #expect(FileManager.default.fileExists(atPath: live.path))
    }

    /// Where a value out of shape was, by its failure case.
    static func malformedPlace(_ error: PFError?) -> String? {
        guard case .malformed(let place, _)? = error?.failure(as: SQLiteStoreFailure.self) else { return nil }
        return place
    }

    @Test func malformedRowsAreErrorsNamingTableRowAndColumn() throws {
        let dir = try SQLiteSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("bad.sqlite")
        _ = try SQLiteSamples.copy(try SQLiteSamples.everyType(), to: url)
        _ = try SQLiteSamples.sqlite3(url, "UPDATE Post SET meta = '{not json' WHERE objectId = 'p1'")
        let error = #expect(throws: PFError.self) { try SQLiteStore(url: url).objects(in: "Post") }
        #expect(error?.code == .invalidValue)
        #expect(Self.malformedPlace(error)?.hasSuffix("table Post, row 1, column meta") == true, "\(String(describing: error))")

        _ = try SQLiteSamples.sqlite3(url, "UPDATE Post SET meta = NULL, \"when\" = 'soon' WHERE objectId = 'p1'")
        let dateError = #expect(throws: PFError.self) { try SQLiteStore(url: url).objects(in: "Post") }
        #expect(Self.malformedPlace(dateError)?.hasSuffix("column when") == true, "\(String(describing: dateError))")
        #expect(dateError?.message.hasSuffix("column when: expected INTEGER milliseconds since 1970, found TEXT") == true)
    }

    @Test func otherFilesAreNotSQLiteStores() throws {
        let dir = try SQLiteSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = dir.appendingPathComponent("text.sqlite")
        try Data("hello, not a database at all, just some text to fill the header".utf8).write(to: text)
        let notSQLite = #expect(throws: PFError.self) { try SQLiteStore(url: text).classNames() }
        #expect(notSQLite?.failure(as: SQLiteFileFailure.self) == .notSQLite(path: SQLiteStore(url: text).location))
        let absent = dir.appendingPathComponent("absent.sqlite")
        let missing = #expect(throws: PFError.self) { try SQLiteStore(url: absent).classNames() }
        #expect(missing?.failure(as: SQLiteFileFailure.self) == .noSuchFile(path: SQLiteStore(url: absent).location))
        let foreign = dir.appendingPathComponent("foreign.sqlite")
        _ = try SQLiteSamples.sqlite3(foreign, "CREATE TABLE t(x)")
        let error = #expect(throws: PFError.self) { try SQLiteStore(url: foreign).classNames() }
        #expect(error?.failure(as: SQLiteStoreFailure.self) == .otherDatabase(location: SQLiteStore(url: foreign).location), "\(String(describing: error))")
        let before = try Data(contentsOf: foreign)
        let writer = SQLiteStore(url: foreign)
        #expect(throws: PFError.self) { try writer.begin(schema: ParseSchema()) }
        #expect(try Data(contentsOf: foreign) == before)
    }
}

extension SQLiteStoreRoundTripTests {
    @Test func aBatchHoldingAnotherClassIsRefusedWithTheSharedCase() throws {
        let dir = try SQLiteSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = SQLiteStore(url: dir.appendingPathComponent("batch.sqlite"))
        try store.begin(schema: ParseSchema())
        defer { store.abort() }
        let objects = [try ParseObject(className: "A", objectId: "1", fields: [:]), try ParseObject(className: "B", objectId: "2", fields: [:])]
        let error = #expect(throws: PFError.self) { try store.write(objects, className: "A") }
        #expect(error?.failure(as: StoreFailure.self)
            == .wrongClassInBatch(location: store.location, index: 1, objectId: "2", className: "B", batchClass: "A"), "\(String(describing: error))")
    }
}

@Suite struct SQLiteStorePropertyTests {
    @Test func generatedStoresRoundTripThroughSQLite() async throws {
        let dir = try SQLiteSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        await propertyCheck(count: 60, input: StoreGen.store(.parseExport)) { generated in
            do {
                let url = dir.appendingPathComponent("\(UUID().uuidString).sqlite")
                let source = generated.memoryStore()
                let store = try SQLiteSamples.copy(source, to: url)
                let diff = try StoreComparison.firstDifference(expected: source, actual: store)
                #expect(diff == nil, "\(diff ?? "")\n\(generated)")
                store.close()
                try? FileManager.default.removeItem(at: url)
            } catch {
                Issue.record("\(error)\n\(generated)")
            }
        }
    }

    @Test func generatedExportsImportIntoSQLiteAndBack() async throws {
        let dir = try SQLiteSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        await propertyCheck(count: 40, input: StoreGen.store(.parseExport)) { generated in
            do {
                let run = dir.appendingPathComponent(UUID().uuidString)
                try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: run) }
                // memory → Parse export → SQLite → Parse export
                let export = ParseExportStore(url: run.appendingPathComponent("export"))
                _ = try StoreImporter().run(from: generated.memoryStore(), to: export)
                let sqlite = try SQLiteSamples.copy(ParseExportStore(url: export.url), to: run.appendingPathComponent("s.sqlite"))
                let back = ParseExportStore(url: run.appendingPathComponent("back"))
                _ = try StoreImporter(options: .init(batchSize: 3)).run(from: sqlite, to: back)
                let diff = try StoreComparison.firstDifference(
                    expected: generated.memoryStore(), actual: ParseExportStore(url: back.url), schema: .covers)
                #expect(diff == nil, "\(diff ?? "")\n\(generated)")
            } catch {
                Issue.record("\(error)\n\(generated)")
            }
        }
    }

    @Test func theRealParseExportSurvivesSQLite() throws {
        // The real Parse.com export, read as objects (through PFParse) and copied in and out.
        let export = Fixtures.real.appendingPathComponent("parse")
        var objects: [ParseObject] = []
        var joins: [ParseRelationKey: [ParseJoinRow]] = [:]
        for url in try ParseExport.classFiles(in: export) {
            let name = ParseExport.className(forFile: url)
            let data = try Data(contentsOf: url)
            if let key = ParseRelationKey(joinClassName: name) {
                let rows = try ParseExport.rows(fromJSON: data).rows
                joins[key] = rows.compactMap { row in
                    guard let o = row["owningId"]?.stringValue, let r = row["relatedId"]?.stringValue else { return nil }
                    return ParseJoinRow(owningId: o, relatedId: r)
                }
            } else {
                objects += try ParseExport.objects(fromJSON: data, className: name)
            }
        }
        #expect(objects.count > 100)
        let dir = try SQLiteSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = MemoryStore(objects: objects, joinRows: joins)
        let store = try SQLiteSamples.copy(source, to: dir.appendingPathComponent("real.sqlite"))
        // The SQLite schema also names _Role.users, the relation the join file implies.
        let diff = try StoreComparison.firstDifference(expected: source, actual: store, schema: .covers)
        #expect(diff == nil, "\(diff ?? "")")
        #expect(try store.schema().classes["_Role"]?["users"] == ParseSchema.Field(.relation))
    }
}
