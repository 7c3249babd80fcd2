import Foundation
import PFCore

/// A private copy of an SQLite database and its `-wal`, `-shm` and `-journal` files in a
/// temporary directory: how every SQLite source (a Core Data store, pfarchive's own store, any other SQLite database) is
/// read.
///
/// Opening a database in place, even read-only, can create or change `-wal`/`-shm` files next
/// to the user's data (SQLite does so for WAL databases) and takes locks a running app would
/// see, so readers only ever open this copy. The source files are read once, as plain files, by
/// the copy, and never opened by SQLite; recent changes that live only in a `-wal` are in the
/// copy too, and a hot `-journal` is rolled back in the copy, not in the source.
package struct StoreCopy: Sendable {
    /// The temporary directory that holds the copy.
    package let directory: URL
    /// The copied main file.
    package let database: URL
    /// Whether a `-wal` file was copied with it.
    package let hasWAL: Bool

    /// The 16 bytes every SQLite 3 database file starts with.
    package static let sqliteHeader = Data("SQLite format 3\0".utf8)

    /// Copies `source` (and `source-wal`, `source-shm` when present) into a new temporary
    /// directory, after checking that it is an SQLite file of plausible size.
    /// - Throws: ``PFError`` `io` when the file cannot be read or copied; `syntax` when it is
    ///   not an SQLite database; `truncated` when it is shorter than its header says.
    /// - Parameters:
    ///   - source: the database file.
    ///   - format: the format named in errors ("Core Data", "SQLite").
    package static func make(of source: URL, format: PFError.Format) throws(PFError) -> StoreCopy {
        let path = source.path
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw PFError(SQLiteFileFailure.noSuchFile(path: path), format: format)
        }
        let header: Data
        let size: Int
        do {
            let handle = try FileHandle(forReadingFrom: source)
            defer { try? handle.close() }
            header = try handle.read(upToCount: 100) ?? Data()
            size = Int(try handle.seekToEnd())
        } catch {
            throw PFError(SQLiteFileFailure.unreadable(path: path, reason: error.localizedDescription), format: format)
        }
        try checkHeader(header, fileSize: size, path: path, hasWAL: manager.fileExists(atPath: path + "-wal"), format: format)

        let directory = manager.temporaryDirectory.appendingPathComponent("pfarchive-sqlite-copy-\(UUID().uuidString)")
        let database = directory.appendingPathComponent("store.sqlite")
        var hasWAL = false
        // Removed on SIGINT/SIGTERM/SIGHUP too (the CLI's handlers): the copy holds the user's data.
        Interruption.shared.add(directory.path)
        do {
            try manager.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try manager.copyItem(at: source, to: database)
            for suffix in ["-wal", "-shm", "-journal"] where manager.fileExists(atPath: path + suffix) {
                try manager.copyItem(atPath: path + suffix, toPath: database.path + suffix)
                if suffix == "-wal" { hasWAL = true }
            }
            // A read-only source gives read-only copies; SQLite needs to write the copy's -shm.
            for suffix in ["", "-wal", "-shm", "-journal"] where manager.fileExists(atPath: database.path + suffix) {
                try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: database.path + suffix)
            }
        } catch {
            try? manager.removeItem(at: directory)
            Interruption.shared.remove(directory.path)
            throw PFError(SQLiteFileFailure.cannotCopy(path: path, reason: error.localizedDescription), format: format)
        }
        return StoreCopy(directory: directory, database: database, hasWAL: hasWAL)
    }

    /// Checks the 100-byte SQLite header: the magic string, and (without a `-wal`, which may
    /// hold pages the main file lacks) that the file is as long as its page count says.
    static func checkHeader(_ header: Data, fileSize: Int, path: String, hasWAL: Bool, format: PFError.Format = .coreData) throws(PFError) {
        guard header.count >= 16, header.prefix(16) == sqliteHeader else {
            throw PFError(SQLiteFileFailure.notSQLite(path: path), format: format, offset: 0)
        }
        guard header.count == 100 else {
            throw PFError(SQLiteFileFailure.headerCutShort(path: path, bytes: header.count), format: format, offset: header.count)
        }
        let bytes = [UInt8](header)
        var pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        if pageSize == 1 { pageSize = 65_536 }
        let pageCount = Int(bytes[28]) << 24 | Int(bytes[29]) << 16 | Int(bytes[30]) << 8 | Int(bytes[31])
        let changeCounter = bytes[24..<28]
        let validFor = bytes[92..<96]
        // The in-header size is only trustworthy when "version-valid-for" matches the change counter.
        guard !hasWAL, changeCounter.elementsEqual(validFor), pageCount > 0 else { return }
        let expected = pageSize.multipliedReportingOverflow(by: pageCount)
        if !expected.overflow, fileSize < expected.partialValue {
            throw PFError(
                SQLiteFileFailure.truncated(path: path, pages: pageCount, pageSize: pageSize, expected: expected.partialValue, fileSize: fileSize),
                format: format, offset: fileSize)
        }
    }

    /// Deletes the copy.
    package func remove() {
        try? FileManager.default.removeItem(at: directory)
        Interruption.shared.remove(directory.path)
    }
}
