import Foundation
import PFSQLiteSource

/// The table names of an SQLite database, read from its bytes without SQLite: the
/// `sqlite_schema` b-tree is walked from page 1, each page taken from the newest committed
/// frame of the `-wal` when there is one, else from the file.
///
/// Reading only bytes keeps ``StoreLocation/sqliteKind(of:)`` from creating, changing or
/// locking a `-wal`, `-shm` or `-journal` file beside the source, which opening the database
/// with SQLite (even read-only) would do. Walking the real schema, rather than searching the
/// bytes for names, keeps a database whose rows merely *contain* another database (a Core Data
/// store kept in a blob) from being taken for that database.
///
/// The input is untrusted: every page number, offset and count is checked, each page is
/// visited at most once, and a schema of more than ``maxPages`` pages is refused.
struct SQLiteFileSchema {
    /// The `application_id` of the database header (offset 68).
    let applicationID: UInt32
    /// The names of the tables in `sqlite_schema`, as written there.
    let tableNames: Set<String>

    /// The most schema pages walked; a schema needing more is taken as unreadable.
    static let maxPages = 100_000

    /// Reads the header and the table names of the SQLite file at `url` and its `-wal`, or
    /// `nil` when the bytes are not an SQLite database whose schema can be walked.
    static func read(_ url: URL) -> SQLiteFileSchema? {
        guard let main = PageFile(url) else { return nil }
        defer { main.close() }
        // Beside the file a symbolic link leads to, where SQLite keeps it.
        let wal = PageFile(URL(fileURLWithPath: StoreCopy.resolvedPath(url.path) + "-wal"))
        defer { wal?.close() }
        let frames = wal.map { WALFrames(of: $0) }
        // The WAL's page size when it holds committed frames (a database never checkpointed
        // may have nothing in its file yet), else the file header's.
        let pageSize: Int
        if let frames, let size = frames.pageSize {
            pageSize = size
        } else if let header = main.read(at: 0, count: 100), isSQLiteHeader(header), let size = pageSizeOf(header) {
            pageSize = size
        } else {
            return nil
        }
        func page(_ number: Int) -> [UInt8]? {
            if let frames, let offset = frames.pages[number], let wal {
                return wal.read(at: offset, count: pageSize)
            }
            let (start, overflow) = (number - 1).multipliedReportingOverflow(by: pageSize)
            guard number >= 1, !overflow else { return nil }
            return main.read(at: start, count: pageSize)
        }
        guard let first = page(1), isSQLiteHeader(first), pageSizeOf(first) == pageSize else { return nil }
        let reserved = Int(first[20])
        let usable = pageSize - reserved
        guard usable >= 480 else { return nil }
        let applicationID = first[68..<72].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }

        var names = Set<String>()
        // Every page is queued once; a tree of more pages than a schema could need is refused.
        var queued: Set<Int> = [1]
        var pending = [1]
        func queue(_ number: Int) -> Bool {
            guard queued.insert(number).inserted else { return true }
            pending.append(number)
            return queued.count <= maxPages
        }
        while let number = pending.popLast() {
            guard let bytes = number == 1 ? first : page(number), bytes.count == pageSize else { return nil }
            let header = number == 1 ? 100 : 0
            guard header + 8 <= bytes.count else { return nil }
            let kind = bytes[header]
            let cells = Int(bytes[header + 3]) << 8 | Int(bytes[header + 4])
            let interior = kind == 0x05
            guard interior || kind == 0x0D else { return nil }
            let pointers = header + (interior ? 12 : 8)
            guard pointers + 2 * cells <= usable else { return nil }
            if interior, !queue(be32(bytes, header + 8)) { return nil }
            for i in 0..<cells {
                let cell = Int(bytes[pointers + 2 * i]) << 8 | Int(bytes[pointers + 2 * i + 1])
                guard cell >= pointers + 2 * cells, cell < usable else { return nil }
                if interior {
                    guard cell + 4 <= usable, queue(be32(bytes, cell)) else { return nil }
                } else if let name = tableName(inLeafCell: bytes, at: cell, usable: usable) {
                    names.insert(name)
                }
            }
        }
        return SQLiteFileSchema(applicationID: applicationID, tableNames: names)
    }

    /// The name of the table a leaf cell of `sqlite_schema` describes, or `nil` for an index,
    /// view or trigger, or a cell whose type and name do not lie in the page (they always do
    /// in a sound file: they come first and are short, and only a record's tail overflows).
    private static func tableName(inLeafCell page: [UInt8], at start: Int, usable: Int) -> String? {
        var at = start
        guard let payload = varint(page, &at, end: usable), varint(page, &at, end: usable) != nil else { return nil }
        // The part of the payload kept on this page (the file format's local payload rule).
        let maxLocal = usable - 35
        var local = Int(clamping: payload)
        if local > maxLocal {
            let minLocal = (usable - 12) * 32 / 255 - 23
            let k = minLocal + (local - minLocal) % (usable - 4)
            local = k <= maxLocal ? k : minLocal
        }
        let end = min(usable, at + local)
        let record = at
        guard let headerSize = varint(page, &at, end: end), headerSize <= UInt64(end - record) else { return nil }
        let bodyStart = record + Int(headerSize)
        guard let typeSerial = varint(page, &at, end: bodyStart), let nameSerial = varint(page, &at, end: bodyStart),
              typeSerial >= 13, typeSerial % 2 == 1, nameSerial >= 13, nameSerial % 2 == 1 else { return nil }
        // Lengths come from untrusted varints (up to 2^63): each is checked against what is
        // left of the page before any arithmetic on it.
        guard (typeSerial - 13) / 2 <= UInt64(end - bodyStart) else { return nil }
        let nameStart = bodyStart + Int((typeSerial - 13) / 2)
        guard (nameSerial - 13) / 2 <= UInt64(end - nameStart) else { return nil }
        let nameLength = Int((nameSerial - 13) / 2)
        // Text in a UTF-8 database (Core Data's and pfarchive's are); a UTF-16 database's
        // schema never reads "table" here, so it lists no tables and is "any SQLite database".
        guard page[bodyStart..<nameStart].elementsEqual("table".utf8) else { return nil }
        return String(decoding: page[nameStart..<(nameStart + nameLength)], as: UTF8.self)
    }

    /// An SQLite varint (1–9 bytes, big-endian, seven bits a byte except the ninth's eight).
    private static func varint(_ bytes: [UInt8], _ at: inout Int, end: Int) -> UInt64? {
        var value: UInt64 = 0
        for i in 0..<9 {
            guard at < end, at < bytes.count else { return nil }
            let byte = bytes[at]
            at += 1
            if i == 8 { return value << 8 | UInt64(byte) }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { return value }
        }
        return value
    }

    /// The first 100 bytes of the file at `url` (the database header), read as the walk reads
    /// pages (only from a regular file), or `nil`.
    static func header(of url: URL) -> [UInt8]? {
        leadingBytes(of: url, count: 100)
    }

    /// The first `count` bytes of the file at `url` (fewer when it is shorter), read only from
    /// a regular file, or `nil`.
    static func leadingBytes(of url: URL, count: Int) -> [UInt8]? {
        guard let file = PageFile(url) else { return nil }
        defer { file.close() }
        return file.read(at: 0, count: min(count, file.size))
    }

    /// Whether a file starts with SQLite's 16-byte magic, `SQLite format 3\0` (its header may
    /// still be cut short).
    static func hasSQLiteMagic(_ url: URL) -> Bool {
        guard let file = PageFile(url) else { return false }
        defer { file.close() }
        return file.read(at: 0, count: 16).map { $0.elementsEqual("SQLite format 3\0".utf8) } ?? false
    }

    static func isSQLiteHeader<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        bytes.count >= 100 && bytes.prefix(16).elementsEqual("SQLite format 3\0".utf8)
    }

    /// The page size in a database header (offset 16; 1 means 65,536), when valid.
    private static func pageSizeOf(_ header: [UInt8]) -> Int? {
        let raw = Int(header[16]) << 8 | Int(header[17])
        let size = raw == 1 ? 65_536 : raw
        return size >= 512 && size <= 65_536 && size & (size - 1) == 0 ? size : nil
    }

    private static func be32(_ bytes: [UInt8], _ at: Int) -> Int {
        Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
    }

    /// A file read at offsets, only if it is a regular file (opening a FIFO named `x.sqlite`
    /// would wait for a writer forever).
    private final class PageFile {
        private let handle: FileHandle
        let size: Int

        init?(_ url: URL) {
            var status = stat()
            guard stat(url.path, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
                  let handle = try? FileHandle(forReadingFrom: url) else { return nil }
            self.handle = handle
            self.size = Int(status.st_size)
        }

        func read(at offset: Int, count: Int) -> [UInt8]? {
            guard offset >= 0, count >= 0, offset <= size, count <= size - offset else { return nil }
            do {
                try handle.seek(toOffset: UInt64(offset))
                guard let data = try handle.read(upToCount: count), data.count == count else { return nil }
                return [UInt8](data)
            } catch { return nil }
        }

        func close() { try? handle.close() }
    }

    /// The committed frames of a `-wal` file: for each page, the offset of its newest image.
    /// Frames count only while their salts match the header's and their running checksum is
    /// right, and only up to the last commit frame (a frame whose "database size" is non-zero),
    /// exactly the frames SQLite itself would read. The whole `-wal` is read for that, as SQLite
    /// does when it opens one, a frame at a time (never all of it in memory): a `-wal` of
    /// gigabytes makes resolving the path take as long as reading it.
    private struct WALFrames {
        var pageSize: Int?
        var pages: [Int: Int] = [:]

        init(of wal: PageFile) {
            guard let header = wal.read(at: 0, count: 32) else { return }
            let magic = be32(header, 0)
            guard magic == 0x377F_0682 || magic == 0x377F_0683 else { return }
            let bigEndian = magic == 0x377F_0683
            let raw = be32(header, 8)
            let size = raw == 1 ? 65_536 : raw
            guard size >= 512, size <= 65_536, size & (size - 1) == 0 else { return }
            var sum = Self.checksum(header[0..<24], bigEndian: bigEndian, seed: (0, 0))
            guard sum.0 == UInt32(be32(header, 24)), sum.1 == UInt32(be32(header, 28)) else { return }
            var pending: [Int: Int] = [:]
            var offset = 32
            while let frame = wal.read(at: offset, count: 24 + size) {
                guard frame[8..<16].elementsEqual(header[16..<24]) else { break }
                sum = Self.checksum(frame[0..<8], bigEndian: bigEndian, seed: sum)
                sum = Self.checksum(frame[24...], bigEndian: bigEndian, seed: sum)
                guard sum.0 == UInt32(be32(frame, 16)), sum.1 == UInt32(be32(frame, 20)) else { break }
                pending[be32(frame, 0)] = offset + 24
                if be32(frame, 4) != 0 {
                    pages.merge(pending) { _, new in new }
                    pending.removeAll(keepingCapacity: true)
                    pageSize = size
                }
                offset += 24 + size
            }
        }

        /// SQLite's WAL checksum over 8-byte steps, words in the byte order the magic names.
        private static func checksum(_ bytes: ArraySlice<UInt8>, bigEndian: Bool, seed: (UInt32, UInt32)) -> (UInt32, UInt32) {
            var (s0, s1) = seed
            var at = bytes.startIndex
            func word(_ i: Int) -> UInt32 {
                let b = (UInt32(bytes[i]), UInt32(bytes[i + 1]), UInt32(bytes[i + 2]), UInt32(bytes[i + 3]))
                return bigEndian ? b.0 << 24 | b.1 << 16 | b.2 << 8 | b.3 : b.3 << 24 | b.2 << 16 | b.1 << 8 | b.0
            }
            while at + 8 <= bytes.endIndex {
                s0 = s0 &+ word(at) &+ s1
                s1 = s1 &+ word(at + 4) &+ s0
                at += 8
            }
            return (s0, s1)
        }
    }
}
