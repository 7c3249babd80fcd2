import Foundation
import PFCore
import PFParse
import PFStores
import PFStoreTestSupport
import PFSQLiteStore
import PFTestSupport
import Testing

/// The Realm fixtures through the store interface: into every file-based destination and
/// read back unchanged.
@Suite("Realm store") struct RealmStoreTests {
    static func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pfrealm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test(arguments: RealmFixtures.readable)
    func objectsMatchTheFileAndSurviveEveryDestination(_ name: String) throws {
        let url = RealmFixtures.url(name)
        let before = try Data(contentsOf: url)
        let source = try RealmObjectStore(url: url)
        let classes = try source.classNames()
        let schema = try source.schema()
        #expect(Array(schema.classes.keys) == classes)
        for className in classes {
            let table = try #require(source.database.table(named: className))
            let objects = try source.objects(in: className)
            #expect(objects.count == (try source.database.objectCount(table)))
            #expect(Set(objects.compactMap(\.objectId)).count == objects.count, "\(name).\(className): ids are unique")
        }
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let destinations: [(String, () -> any ObjectStoreReader & ObjectStoreWriter)] = [
            ("parse export", { ParseExportStore(url: dir.appendingPathComponent("export")) }),
            ("keyed archive", { KeyedArchiveStore(url: dir.appendingPathComponent("store.archive")) }),
            ("mongo shape", { MongoShapeStore(directory: dir.appendingPathComponent("store.jsonl")) }),
            ("sqlite", { SQLiteStore(url: dir.appendingPathComponent("store.sqlite")) }),
        ]
        for (kind, make) in destinations {
            let writer = make()
            try StoreTransfer.copy(from: source, to: writer)
            let readBack = make()
            defer { readBack.close() }
            let diff = try StoreComparison.firstDifference(expected: source, actual: readBack, schema: .covers)
            #expect(diff == nil, "\(name) → \(kind): \(diff ?? "")")
            // And on to a Parse export, which must hold the same again.
            let export = ParseExportStore(url: dir.appendingPathComponent("back-\(kind.replacingOccurrences(of: " ", with: "-"))"))
            try StoreTransfer.copy(from: readBack, to: export)
            let exportDiff = try StoreComparison.firstDifference(expected: source, actual: ParseExportStore(url: export.url), schema: .covers)
            #expect(exportDiff == nil, "\(name) → \(kind) → parse export: \(exportDiff ?? "")")
        }
        #expect(try Data(contentsOf: url) == before, "the source is never written")
    }

    /// A real .NET file (88 classes): its class `__RemappedTypeObject`, a name Parse keeps for
    /// itself, is read as `RemappedTypeObject_realm` (an export refused the whole import, a
    /// JSON Lines file was written that its own reader refused, the Mongo shape dropped the
    /// class), and its empty classes with an `_id` primary key keep the field's name in the
    /// Mongo shape (it read back as `pf____id`).
    @Test func classesParseForbidsAndEmptyClassesTravelToEveryDestination() throws {
        let source = try RealmObjectStore(url: RealmFixtures.url("dotnet-guids"))
        let classes = try source.classNames()
        #expect(classes.count == 88)
        #expect(classes.contains("RemappedTypeObject_realm") && !classes.contains("__RemappedTypeObject"))
        #expect(classes.allSatisfy { ParseRules.classNameProblem($0) == nil && !$0.hasPrefix("_") }, "\(classes)")
        #expect(try source.schema().classes["CounterObject"]?["_id"] != nil)
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let destinations: [(String, () -> any ObjectStoreReader & ObjectStoreWriter)] = [
            ("parse export", { ParseExportStore(url: dir.appendingPathComponent("export")) }),
            ("json lines", { JSONLinesStore(url: dir.appendingPathComponent("store.ndjson")) }),
            ("keyed archive", { KeyedArchiveStore(url: dir.appendingPathComponent("store.archive")) }),
            ("mongo shape", { MongoShapeStore(directory: dir.appendingPathComponent("store.jsonl")) }),
            ("sqlite", { SQLiteStore(url: dir.appendingPathComponent("store.sqlite")) }),
        ]
        for (kind, make) in destinations {
            try StoreTransfer.copy(from: source, to: make())
            let readBack = make()
            defer { readBack.close() }
            #expect(try readBack.classNames().count == 88, "\(kind)")
            let diff = try StoreComparison.firstDifference(expected: source, actual: readBack, schema: .covers)
            #expect(diff == nil, "\(kind): \(diff ?? "")")
            let counter = try readBack.schema().classes["CounterObject"] ?? [:]
            #expect(counter["_id"] != nil, "\(kind): \(counter)")
        }
    }

    /// realm-core's own files keep data in tables without the `class_` prefix: every command
    /// names them (convert wrote `{}` and import "0 objects" without a word); the tables an
    /// SDK keeps for itself (`metadata`, `flx_*`…) are not listed.
    @Test func tablesOutsideTheModelAreNamed() throws {
        let core = try RealmObjectStore(url: RealmFixtures.url("core-upgrade_4_23"))
        let notes = core.unreadContents()
        #expect(notes.contains { $0.hasPrefix("table: 40 rows in a table that is not a model class") }, "\(notes)")
        #expect(notes.allSatisfy { $0.hasSuffix("--internal-tables writes it)") && !$0.hasPrefix("metadata") })
        for name in RealmFixtures.readable where !name.hasPrefix("core-") {
            #expect(try RealmObjectStore(url: RealmFixtures.url(name)).unreadContents() == [], "\(name)")
        }
        let run = try CLI.run(["convert", RealmFixtures.url("core-upgrade_4_23").path, "-", "--to", "json"])
        #expect(run.status == 0)
        #expect(run.stderr.contains("warning:") && run.stderr.contains("table: 40 rows"), "\(run.stderr)")
        let all = try CLI.run(["convert", RealmFixtures.url("core-upgrade_4_23").path, "-", "--to", "json", "--internal-tables"])
        #expect(all.status == 0 && !all.stderr.contains("warning:"), "\(all.stderr)")
        // import has no such flag for a Realm file: the refusal names the convert that has.
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let refused = try CLI.run(["import", RealmFixtures.url("core-upgrade_4_23").path, dir.appendingPathComponent("x.sqlite").path, "--internal-tables"])
        #expect(refused.status != 0 && refused.stderr.contains("is a Realm file (pfarchive convert") && refused.stderr.contains("--internal-tables writes"), "\(refused.stderr)")
    }

    @Test func linksArePointersToThePrimaryKeyOrTheKeyId() throws {
        let simple = try RealmObjectStore(url: RealmFixtures.url("js-simple"))
        let alice = try #require(try simple.objects(in: "Person").first { $0.objectId == "Alice" })
        #expect(alice.fields["bestFriend"]?.restValue == ["__type": "Pointer", "className": "Person", "objectId": "Bob"])
        let v5 = try RealmObjectStore(url: RealmFixtures.url("swift-template-default-v5"))
        #expect(try v5.classNames() == ["Person", "Pet"], "the embedded Address is not a class of its own")
        let john = try #require(try v5.objects(in: "Person").first { $0.objectId == "Person-0" })
        #expect(john.fields["address"]?.restValue == ["street": "Broadway", "city": "New York"])
        #expect(
            john.fields["pets"]?.restValue
                == [["__type": "Pointer", "className": "Pet", "objectId": "Pet-0"], ["__type": "Pointer", "className": "Pet", "objectId": "Pet-1"]])
        let schema = try v5.schema()
        #expect(schema.classes["Person"]?["address"]?.type == .object)
        #expect(schema.classes["Person"]?["pets"]?.type == .array)
    }

    /// Issue 25: primary key, indexed, optional and embedded travel in the shared schema, and
    /// the SQLite store makes the primary key and the indexes its own.
    @Test func modelFlagsReachTheSchemaAndBecomeSQLiteIndexes() throws {
        let simple = try RealmObjectStore(url: RealmFixtures.url("js-simple"))
        let person = try #require(try simple.schema().classes["Person"])
        #expect(person["name"]?.isPrimaryKey == true && person["name"]?.isRequired == true && person["name"]?.isIndexed == false)
        #expect(person["age"]?.isIndexed == true && person["age"]?.isRequired == false && person["age"]?.isPrimaryKey == false)
        #expect(person["bestFriend"]?.isRequired == false)
        let v5 = try RealmObjectStore(url: RealmFixtures.url("swift-template-default-v5"))
        #expect(try v5.schema().classes["Person"]?["address"]?.embeddedClass == "Address")
        #expect(try v5.schema().classes["Person"]?["pets"]?.embeddedClass == nil)
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("app.sqlite")
        try StoreTransfer.copy(from: simple, to: SQLiteStore(url: db))
        let script = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            for name, sql in db.execute("select name, sql from sqlite_master where type = 'index' and sql is not null order by name"):
                print(sql)
            try:
                table = db.execute("select tableName from _TABLES where name = 'Person'").fetchone()[0]
                db.execute('insert into "%s" (objectId, name) values (?, ?)' % table, ("other", "Alice"))
                print("duplicate accepted")
            except sqlite3.IntegrityError:
                print("duplicate refused")
            """
        let result = try Peers.run(Peers.python, ["-c", script, db.path])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("CREATE UNIQUE INDEX") && $0.hasSuffix(#"("name")"#) }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("CREATE INDEX") && $0.hasSuffix(#"("age")"#) }, "\(lines)")
        #expect(lines.last == "duplicate refused")
    }

    @Test func realmIsAReadOnlyStoreKind() throws {
        let location = try StoreLocation.resolve(RealmFixtures.url("js-simple").path)
        #expect(location.kind == .realm)
        let openers = StoreOpeners.standard
        #expect(openers.canRead(.realm))
        #expect(!openers.canWrite(.realm))
        #expect(throws: PFError.self) { try openers.writer(for: location) }
        let reader = try openers.reader(for: location)
        #expect(try reader.classNames() == ["Person"])
    }
}
