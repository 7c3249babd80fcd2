import Foundation
import PFCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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
        // SQLite keeps a database's `-wal` and `-journal` beside the file a symbolic link
        // leads to, not beside the link: they are looked for there (a link's own name would
        // find none, and the copy would silently lack what lives only in them).
        let companions = resolvedPath(path)
        try checkHeader(header, fileSize: size, path: path, hasWAL: manager.fileExists(atPath: companions + "-wal"), format: format)

        let directory = manager.temporaryDirectory.appendingPathComponent("pfarchive-sqlite-copy-\(UUID().uuidString)")
        let database = directory.appendingPathComponent("store.sqlite")
        var hasWAL = false
        // Removed on SIGINT/SIGTERM/SIGHUP too (the CLI's handlers): the copy holds the user's data.
        Interruption.shared.add(directory.path)
        do {
            try manager.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try copyContents(of: path, to: database.path)
            for suffix in ["-wal", "-shm", "-journal"] where manager.fileExists(atPath: companions + suffix) {
                try copyContents(of: companions + suffix, to: database.path + suffix)
                if suffix == "-wal" { hasWAL = true }
            }
        } catch {
            try? manager.removeItem(at: directory)
            Interruption.shared.remove(directory.path)
            let reason = (error as? CopyError)?.description ?? error.localizedDescription
            throw PFError(SQLiteFileFailure.cannotCopy(path: path, reason: reason), format: format)
        }
        return StoreCopy(directory: directory, database: database, hasWAL: hasWAL)
    }

    /// The path with every symbolic link resolved (`realpath`), as SQLite resolves a
    /// database's name before naming its `-wal` and `-journal`; the path itself when it
    /// cannot be resolved.
    package static func resolvedPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Copies the bytes of the file at `source` (a symbolic link is followed) into a new file
    /// `destination`, mode 0600 (SQLite writes the copy's `-shm`, even for a read-only source),
    /// with `sendfile` on Linux, else a mebibyte at a time: `FileManager.copyItem`
    /// copies in 4 KiB steps (a system call each, most of the serial start of a large read)
    /// and copies a symbolic link as a link, which SQLite refuses to open.
    /// - Throws: ``CopyError`` naming the failed call and `errno`'s text.
    static func copyContents(of source: String, to destination: String) throws(CopyError) {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw CopyError(call: "open \(source)") }
        defer { _ = close(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw CopyError(call: "create \(destination)") }
        var closed = false
        defer { if !closed { _ = close(output) } }
        // In the kernel first (no trip of every byte through this process: most of a large
        // read's serial start); a file system or kernel that cannot (`ENOSYS`, `EINVAL`,
        // `EOPNOTSUPP`) falls back to the loop below from where it stopped.
        // An early end (a pseudo file system's files report none) is left to the loop too.
        #if os(Linux)
            var info = stat()
            let size = fstat(input, &info) == 0 ? Int(info.st_size) : Int.max
            var copied = 0
            while true {
                let moved = sendfile(output, input, nil, 1 << 30)
                if moved == 0 {
                    guard copied >= size else { break }
                    closed = true
                    guard close(output) == 0 else { throw CopyError(call: "close \(destination)") }
                    return
                }
                if moved > 0 {
                    copied += moved
                    continue
                }
                if errno == EINTR { continue }
                if [ENOSYS, EINVAL, EOPNOTSUPP].contains(errno) { break }
                throw CopyError(call: "copy \(source)")
            }
        #endif
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let got = read(input, buffer, chunk)
            if got == 0 { break }
            if got < 0 {
                if errno == EINTR { continue }
                throw CopyError(call: "read \(source)")
            }
            var done = 0
            while done < got {
                let put = write(output, buffer + done, got - done)
                if put < 0 {
                    if errno == EINTR { continue }
                    throw CopyError(call: "write \(destination)")
                }
                done += put
            }
        }
        closed = true
        guard close(output) == 0 else { throw CopyError(call: "close \(destination)") }
    }

    /// A system call of ``copyContents(of:to:)`` that failed, with `errno`'s text.
    struct CopyError: Error, CustomStringConvertible {
        let description: String

        /// Takes `errno` now, before anything else can change it.
        init(call: String) { description = "\(call): \(String(cString: strerror(errno)))" }
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
