import Foundation
import PFCoreDataTestSupport
import PFStoreTestSupport
import PFStores
import PFTestSupport
import PropertyBased
import Testing

/// Issue 20's store matrix: every source (Parse export directory and zip, SQLite, keyed
/// archive, Mongo shape, PostgreSQL, Core Data; Realm files, issue 25) into every destination, then back to a Parse
/// export, compared object by object and join row by join row — on the real files in
/// Tests/Fixtures/real and on generated exports with other exporters' quirks.
@Suite(.serialized) struct StoreMatrixTests {
    /// A new empty temporary directory.
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pf-matrix-input-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The store a generated export should read back as (the shape every destination holds).
    static func shape(forbiddenNames: Bool) -> StoreShape {
        var shape = StoreShape()
        shape.maxObjectsPerClass = 5
        shape.nulInStrings = false  // PostgreSQL text cannot hold U+0000 (Docs/Stores.md)
        shape.relationValuesInObjects = false
        shape.forbiddenNames = forbiddenNames
        return shape
    }

    @Test func theRealParseComExportSurvivesEveryPair() throws {
        let input = Fixtures.real.appendingPathComponent("parse")
        let expected = ParseExportStore(url: input)
        defer { expected.close() }
        let failures = try StoreMatrix.differences(input: input.path, inputKind: .exportDirectory, expected: expected)
        #expect(failures.isEmpty, "\(failures.count) pairs lost data:\n\(failures.joined(separator: "\n"))")
    }

    @Test(arguments: [
        "coredataplus/SampleModel_V1.sqlite", "coredataplus/SampleModel_V2.sqlite", "coredataplus/SampleModel2_V2.sqlite",
        "coredataplus/SampleModel3_V1.sqlite", "restkit/RKSeedDatabase.sqlite", "plaso/kik.sqlite",
    ])
    func theRealCoreDataStoresSurviveEveryPair(_ relative: String) throws {
        // A private copy: the matrix never touches the fixture (reading must not either).
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent(URL(fileURLWithPath: relative).lastPathComponent)
        try FileManager.default.copyItem(at: Fixtures.real.appendingPathComponent("coredata").appendingPathComponent(relative), to: store)
        let expected = try CoreDataObjectStore(url: store)
        defer { expected.close() }
        let failures = try StoreMatrix.differences(input: store.path, inputKind: nil, expected: expected)
        #expect(failures.isEmpty, "\(relative): \(failures.count) pairs lost data:\n\(failures.joined(separator: "\n"))")
    }

    /// Issue 25: each Realm fixture of formats 20–24 (a read-only source) into every
    /// destination and back to a Parse export, compared with what the Realm file holds.
    @Test(arguments: [
        "core-upgrade_4_23", "js-bundled", "js-simple", "js-tools-default", "js-tools-dict", "kotlin-asset", "studio-asset_file",
        "swift-template-default-v0", "swift-template-default-v1", "swift-template-default-v2", "swift-template-default-v3",
        "swift-template-default-v4", "swift-template-default-v5",
    ])
    func theRealRealmFilesSurviveEveryDestination(_ name: String) throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent(name + ".realm")
        try FileManager.default.copyItem(at: Fixtures.real.appendingPathComponent("realm").appendingPathComponent(name + ".realm"), to: file)
        let expected = try RealmObjectStore(url: file)
        defer { expected.close() }
        // The model (types and flags: required, indexed, primary key, embedded class) must
        // come back equal from every destination and from the export read back from it.
        let failures = try StoreMatrix.differences(input: file.path, inputKind: nil, expected: expected, sources: [], model: try expected.schema())
        #expect(failures.isEmpty, "\(name): \(failures.count) pairs lost data:\n\(failures.joined(separator: "\n"))")
    }

    @Test(arguments: [(1, true), (2, false), (3, true), (4, false)])
    func generatedExportsWithExportersQuirksSurviveEveryPair(_ seed: Int, _ parseCom: Bool) throws {
        let generated = StoreGen.store(Self.shape(forbiddenNames: true), seed: UInt64(seed))
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("export")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        let quirks: QuirkyExport.Quirks = parseCom ? .parseCom : .dashboard
        let expected = try QuirkyExport(quirks: quirks).write(generated, to: input)
        let failures = try StoreMatrix.differences(input: input.path, inputKind: .exportDirectory, expected: expected)
        #expect(failures.isEmpty, "seed \(seed), \(quirks): \(failures.count) pairs lost data:\n\(failures.joined(separator: "\n"))\n\(generated)")
    }

    /// The property: whatever a generated export holds (quirks and forbidden names included)
    /// comes back unchanged through every destination.
    @Test func nothingIsLostThroughAnyDestination() async {
        await propertyCheck(count: 12, input: StoreGen.store(Self.shape(forbiddenNames: true))) { generated in
            do {
                let folder = try Self.directory()
                defer { try? FileManager.default.removeItem(at: folder) }
                let input = folder.appendingPathComponent("export")
                try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
                let expected = try QuirkyExport(quirks: .parseCom).write(generated, to: input)
                let failures = try StoreMatrix.differences(
                    input: input.path, inputKind: .exportDirectory, expected: expected, sources: [])
                #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))\n\(generated)")
            } catch {
                Issue.record("\(error)\n\(generated)")
            }
        }
    }
}

/// Generated Core Data stores (``CoreDataStoreBuilder``, with a model cache, read as
/// `pfarchive import` reads them) through every pair: the real-device names store, and a
/// library with inheritance, to-ones pointing at subentity rows (one field holding several
/// classes, which PostgreSQL keeps as REST pointers), to-many, ordered and many-to-many
/// relationships, nested transformables (an archive in data in an archive) and binary, UUID,
/// decimal and date attributes.
@Suite(.serialized) struct GeneratedCoreDataMatrixTests {
    @Test(arguments: ["names", "library"])
    func generatedCoreDataStoresSurviveEveryPair(_ shape: String) throws {
        let folder = try StoreMatrixTests.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store: URL
        if shape == "names" {
            store = try RealDeviceCoreData.write(in: folder)
        } else {
            store = folder.appendingPathComponent("Library.sqlite")
            try CoreDataStoreBuilder.write(try CoreDataShapes.library(), to: store, wal: true)
        }
        let expected = try CoreDataObjectStore(url: store)
        defer { expected.close() }
        #expect(expected.store.model.source == .modelCache)
        let failures = try StoreMatrix.differences(input: store.path, inputKind: nil, expected: expected)
        #expect(failures.isEmpty, "\(shape): \(failures.count) pairs lost data:\n\(failures.joined(separator: "\n"))")
    }

    /// The property: whatever a random Core Data store holds (names Parse forbids,
    /// transformables with dotted keys, every attribute type, NULLs, a to-one and its to-many
    /// inverse) comes back unchanged through every destination.
    @Test func nothingIsLostFromRandomCoreDataStores() async {
        await propertyCheck(count: 8, input: CoreDataGen.store()) { entities in
            do {
                let folder = try StoreMatrixTests.directory()
                defer { try? FileManager.default.removeItem(at: folder) }
                let store = folder.appendingPathComponent("Random.sqlite")
                try CoreDataStoreBuilder.write(entities, to: store)
                let expected = try CoreDataObjectStore(url: store)
                defer { expected.close() }
                let failures = try StoreMatrix.differences(input: store.path, inputKind: nil, expected: expected, sources: [])
                #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))\n\(entities.map { "\($0.name): \($0.attributes.map { "\($0.name) \($0.typeCode)" }) \($0.rows.count) rows" })")
            } catch {
                Issue.record("\(error)")
            }
        }
    }
}

/// Issue 24: any SQLite database (written by the sqlite3 shell, never by pfarchive) as a
/// source through every destination and back.
@Suite(.serialized) struct GeneratedSQLiteDatabaseMatrixTests {
    /// The property: random tables (every key form, declared types, NULLs, one-column and
    /// composite foreign keys) import into every destination store and back with nothing lost,
    /// and the source stays byte-identical.
    @Test func nothingIsLostFromRandomSQLiteDatabases() async {
        await propertyCheck(count: 10, input: SQLiteDatabaseGen.database()) { database in
            do {
                let folder = try StoreMatrixTests.directory()
                defer { try? FileManager.default.removeItem(at: folder) }
                let file = folder.appendingPathComponent("random.db")
                try CoreDataStoreBuilder.sqlite3(file, database.sql)
                let before = try Data(contentsOf: file)
                #expect(StoreLocation.sqliteKind(of: file) == .other)
                #expect(try StoreLocation.resolve(file.path).kind == .sqliteDatabase)
                let expected = try SQLiteDatabaseObjectStore(url: file)
                defer { expected.close() }
                // Every column of every row is a field of its own (none replaces another), beside
                // one field per composite Pointer.
                for table in expected.database.tables {
                    let composite = table.foreignKeys.filter { $0.isPointer && $0.columns.count > 1 }.count
                    try expected.database.forEachRow(of: table.name) { row in
                        #expect(row.fields.count == table.columns.count + composite, "\(table.name) \(row.objectId): \(row.fields.keys)")
                        #expect(Set(row.fields.keys).count == row.fields.count)
                    }
                }
                // The model (types and flags: required, indexed, primary key, embedded class) must
        // come back equal from every destination and from the export read back from it.
        let failures = try StoreMatrix.differences(input: file.path, inputKind: nil, expected: expected, sources: [], model: try expected.schema())
                #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))\n\(database)\n\(database.sql)")
                #expect(try Data(contentsOf: file) == before)
                #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["random.db"])
            } catch {
                Issue.record("\(error)\n\(database)\n\(database.sql)")
            }
        }
    }
}
