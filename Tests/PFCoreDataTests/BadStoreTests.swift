import Foundation
import PFCompression
import PFCore
import PFCoreData
import PFSQLiteSource
import Testing

@Suite struct BadStoreTests {
    func withDirectory(_ body: (URL) throws -> Void) throws {
        let directory = try CoreDataFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }

    func openError(_ url: URL, options: CoreDataStore.Options = .init()) -> PFError? {
        do {
            let store = try CoreDataStore.open(url: url, options: options)
            store.close()
            return nil
        } catch {
            return error
        }
    }

    @Test func missingFileAndNonSQLiteFilesFailClearly() throws {
        try withDirectory { directory in
            let missing = openError(directory.appendingPathComponent("absent.sqlite"))
            #expect(missing?.code == .io)
            #expect(missing?.failure(as: SQLiteFileFailure.self) == .noSuchFile(path: directory.appendingPathComponent("absent.sqlite").path))
            let json = directory.appendingPathComponent("scores.sqlite")
            try Data(#"{"results": []}"#.utf8).write(to: json)
            let notSQLite = openError(json)
            #expect(notSQLite?.code == .syntax)
            #expect(notSQLite?.failure(as: SQLiteFileFailure.self) == .notSQLite(path: json.path))
            #expect(notSQLite?.location?.offset == 0)
            let empty = directory.appendingPathComponent("empty.sqlite")
            try Data().write(to: empty)
            #expect(openError(empty)?.code == .syntax)
        }
    }

    @Test func truncatedStoresFail() throws {
        try withDirectory { directory in
            let bytes = try Data(contentsOf: CoreDataFixtures.store("coredataplus/SampleModel2_V2.sqlite"))
            for cut in [50, 100, 4096, bytes.count / 2, bytes.count - 1] {
                let url = directory.appendingPathComponent("cut\(cut).sqlite")
                try bytes.prefix(cut).write(to: url)
                let error = openError(url)
                #expect(error?.code == .truncated, "cut at \(cut): \(String(describing: error))")
            }
        }
    }

    @Test func sqliteWithoutCoreDataTablesIsNotAStore() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("plain.sqlite")
            try CoreDataFixtures.sqlite(url, ["CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);"])
            let error = openError(url)
            #expect(error?.code == .invalidValue)
            #expect(error?.failure(as: CoreDataFailure.self) == .notCoreData(file: "plain.sqlite", found: ["NOTES"]), "\(String(describing: error))")
        }
    }

    @Test func corruptModelCacheFallsBackOrFails() throws {
        try withDirectory { directory in
            let url = try CoreDataFixtures.copy("coredataplus/SampleModel_V1.sqlite", to: directory)
            try CoreDataFixtures.sqlite(url, ["UPDATE Z_MODELCACHE SET Z_CONTENT = x'DEADBEEF00112233';"])
            let strict = openError(url, options: .init(requireModel: true))
            #expect(
                { if case .modelCacheUnusable(file: url.lastPathComponent, _)? = strict?.failure(as: CoreDataFailure.self) { true } else { false } }(),
                "\(String(describing: strict))")
            let store = try CoreDataStore.open(url: url)
            defer { store.close() }
            #expect(store.model.source == .inferred)
            #expect(store.modelCacheError != nil)
            #expect(store.guesses.contains { $0.contains("model cache is unreadable") })
            #expect(try store.rowCount(entity: "Car") == 115)
            let car = try #require(try store.firstObjects(entity: "Car", limit: 1).first)
            // Without a model, ZOWNER names no entity, so it stays the integer it holds.
            #expect(car["owner"] == 17)
            #expect(car["numberplate"] == "170")
            // A valid deflate stream around something that is not a model.
            let notAModel = try Compression.compress(Data("bplist00 but not really".utf8), as: .deflate)
            let hex = notAModel.map { String(format: "%02X", $0) }.joined()
            try CoreDataFixtures.sqlite(url, ["UPDATE Z_MODELCACHE SET Z_CONTENT = x'\(hex)';"])
            #expect(openError(url, options: .init(requireModel: true))?.format == .coreData)
        }
    }

    @Test func aBlobThatClaimsToBeAKeyedArchiveIsKeptAsBytes() throws {
        try withDirectory { directory in
            let url = try CoreDataFixtures.copy("coredataplus/SampleModel2_V2.sqlite", to: directory)
            let fake = Data("bplist00 NSKeyedArchiver $archiver but nothing else".utf8)
            let hex = fake.map { String(format: "%02X", $0) }.joined()
            try CoreDataFixtures.sqlite(url, ["UPDATE ZPAGE SET ZCONTENT = x'\(hex)' WHERE Z_PK = 1;"])
            let store = try CoreDataStore.open(url: url)
            defer { store.close() }
            var cursor = try store.objects(entity: "Page")
            let first = try #require(try cursor.next())
            #expect(first["content"] == .data(fake))
            let second = try #require(try cursor.next())
            #expect(second["content"]?["$class"] == "Content", "the next row decodes normally")
            #expect(cursor.reports.count == 1)
            #expect(cursor.reports.kept.first?.objectId == "Page-1")
            #expect(cursor.reports.kept.first?.column == "content")
            #expect(cursor.reports.kept.first?.message.contains("kept as bytes") == true)
        }
    }

    @Test func valuesOfTheWrongStorageClassAreKeptWithAWarning() throws {
        try withDirectory { directory in
            let url = try CoreDataFixtures.copy("coredataplus/SampleModel_V1.sqlite", to: directory)
            try CoreDataFixtures.sqlite(url, [
                "UPDATE ZPERSON SET ZUPDATEDAT = 'yesterday', ZID = x'0102' WHERE Z_PK = 1;",
                "UPDATE ZCAR SET ZOWNER = 'x' WHERE Z_PK = 1;",
            ])
            let store = try CoreDataStore.open(url: url)
            defer { store.close() }
            var cursor = try store.objects(entity: "Person")
            let person = try #require(try cursor.next())
            #expect(person["updatedAt"] == "yesterday")
            #expect(person["id"] == .data(Data([1, 2])))
            #expect(person["firstName"] == "Victoria")
            #expect(Set(cursor.reports.kept.map(\.column)) == ["updatedAt", "id"])
            var cars = try store.objects(entity: "Car")
            let car = try #require(try cars.next())
            #expect(car["owner"] == nil)
            #expect(cars.reports.kept.first?.column == "owner")
        }
    }

    @Test func unknownEntitiesAndRelationshipsAreUsageErrors() throws {
        let store = try CoreDataStore.open(url: CoreDataFixtures.store("coredataplus/SampleModel_V1.sqlite"))
        defer { store.close() }
        #expect(throws: PFError.self) { try store.rowCount(entity: "Nope") }
        #expect(throws: PFError.self) { try store.joinRows(entity: "Person", relationship: "nope") }
    }
}
