import Foundation
import PFCore
import PFParse
import PFSQLiteStore
import PFStores
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The SQLite store as a destination: what is refused, the lock, the new file's mode.
@Suite struct SQLiteDestinationTests {
    static func item() throws -> ParseObject { try ParseObject(className: "Item", objectId: "i1", fields: ["n": .int(1)]) }

    @Test func tablesThatAreNotTheStoresAreRefusedUnlessKept() throws {
        let dir = try SQLiteSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("app.sqlite")
        _ = try SQLiteSamples.copy(try SQLiteSamples.everyType(), to: url)
        _ = try SQLiteSamples.sqlite3(url, "CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES ('mine'); CREATE VIEW v AS SELECT 1")
        let before = try Data(contentsOf: url)
        let writer = SQLiteStore(url: url)
        let error = #expect(throws: PFError.self) { try writer.begin(schema: ParseSchema()) }
        #expect(
            error?.failure(as: StoreFailure.self)
                == .foreignEntries(path: url.path, first: "table notes", more: 1, store: "a pfarchive SQLite store", keepable: true),
            "\(String(describing: error))")
        #expect(try Data(contentsOf: url) == before)
        writer.foreignEntries = .keep
        try writer.begin(schema: ParseSchema())
        try writer.write([try Self.item()], className: "Item")
        try writer.commit()
        #expect(try SQLiteSamples.sqlite3(url, "SELECT body FROM notes") == "mine\n")
        #expect(try SQLiteStore(url: url).objects(in: "Item").count == 1)
    }

    /// A symbolic link is refused, as by every other store: its target was written in place,
    /// and a user's empty file behind it became an SQLite database.
    @Test func aSymbolicLinkIsRefusedAndItsTargetUntouched() throws {
        let dir = try SQLiteSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = dir.appendingPathComponent("notes.txt")
        try Data().write(to: target)
        let link = dir.appendingPathComponent("app.sqlite")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let writer = SQLiteStore(url: link)
        let error = #expect(throws: PFError.self) { try writer.begin(schema: ParseSchema()) }
        #expect(error?.failure(as: StoreFailure.self) == .notPfarchiveOutput(path: link.path, what: .symbolicLink), "\(String(describing: error))")
        #expect(try Data(contentsOf: target).isEmpty)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(names == ["app.sqlite", "notes.txt"], "\(names)")
    }

    @Test func databasesOfOtherProgramsAreNeverWrittenInto() throws {
        let dir = try SQLiteSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let other = dir.appendingPathComponent("other.sqlite")
        _ = try SQLiteSamples.sqlite3(other, "PRAGMA application_id = 42; CREATE TABLE t(x)")
        let text = dir.appendingPathComponent("text.db")
        try Data(String(repeating: "not a database ", count: 10).utf8).write(to: text)
        let plain = dir.appendingPathComponent("plain.sqlite")
        _ = try SQLiteSamples.sqlite3(plain, "CREATE TABLE t(x)")
        let expectations: [(URL, StoreFailure.Refusal)] = [
            (other, .otherApplication(applicationID: 42)), (text, .notSQLite), (plain, .sqliteWithoutStoreTables(firstTable: "table t")),
        ]
        for (url, expected) in expectations {
            let before = try Data(contentsOf: url)
            let writer = SQLiteStore(url: url)
            writer.foreignEntries = .keep
            let error = #expect(throws: PFError.self) { try writer.begin(schema: ParseSchema()) }
            #expect(error?.failure(as: StoreFailure.self) == .notPfarchiveOutput(path: url.path, what: expected), "\(String(describing: error))")
            #expect(try Data(contentsOf: url) == before)
        }
    }

    @Test func aSecondWriterIsRefusedAndANewFileGetsTheUmasksMode() throws {
        let dir = try SQLiteSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("new.sqlite")
        let first = SQLiteStore(url: url)
        try first.begin(schema: ParseSchema())
        try first.write([try Self.item()], className: "Item")
        let second = SQLiteStore(url: url)
        let error = #expect(throws: PFError.self) { try second.begin(schema: ParseSchema()) }
        #expect(error?.failure(as: StoreFailure.self) == .beingWritten(location: url.path, by: .process(pid: getpid())), "\(String(describing: error))")
        try first.commit()
        var status = stat()
        #expect(stat(url.path, &status) == 0 && status.st_mode & 0o7777 == Destination.newFileMode)
        try second.begin(schema: ParseSchema())
        try second.commit()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["new.sqlite"])
    }
}
