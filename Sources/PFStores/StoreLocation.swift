import Foundation
import PFCore

/// The kinds of store a command-line argument can name.
public enum StoreKind: String, Sendable, CaseIterable, CustomStringConvertible {
    /// A directory or `.zip` of `<Class>.json` files.
    case parseExport = "parse-export"
    /// pfarchive's SQLite store (`.sqlite`, `.db`), see Docs/Stores.md.
    case sqlite
    /// An Apple Core Data SQLite store (read-only): a `.sqlite`/`.db` file with the tables
    /// `Z_PRIMARYKEY` and `Z_METADATA`, or a `.storedata` file.
    case coreData = "core-data"
    /// Parse Server's MongoDB shape: a `.jsonl` directory of mongoexport JSON lines.
    case mongoShape = "mongo"
    /// Parse Server's PostgreSQL schema on a server, `postgres://…`.
    case postgres
    /// A whole store in one keyed archive, `.archive`.
    case keyedArchive = "keyed-archive"

    /// A name for messages, such as "the SQLite store".
    public var description: String {
        switch self {
        case .parseExport: "a Parse export"
        case .sqlite: "the SQLite store"
        case .coreData: "a Core Data store"
        case .mongoShape: "the Mongo shape (.jsonl directory)"
        case .postgres: "the PostgreSQL store"
        case .keyedArchive: "a keyed-archive store"
        }
    }
}

/// A store argument resolved to a kind: a path, or a URL for a server.
///
/// Resolution follows the CLI contract (../shared/DESIGN.md): `postgres://…` and
/// `postgresql://…` are PostgreSQL; `.zip` is a Parse export; `.sqlite`, `.db` and
/// `.sqlite3` are the SQLite store unless the file is a Core Data store (it has the
/// `Z_PRIMARYKEY` and `Z_METADATA` tables); `.storedata` is Core Data; a `.jsonl` directory is
/// the Mongo shape; `.archive` is a keyed archive; any other directory is a Parse export, and a
/// path that does not exist yet with no known extension becomes a new Parse export directory.
public struct StoreLocation: Sendable, Equatable, CustomStringConvertible {
    /// The kind of store.
    public var kind: StoreKind
    /// The argument as given: a path or a URL.
    public var argument: String
    /// The file or directory, for kinds that live on disk.
    public var url: URL?

    /// Makes a location.
    /// - Parameters:
    ///   - kind: the kind.
    ///   - argument: the path or URL text.
    ///   - url: the file URL, for kinds on disk.
    public init(kind: StoreKind, argument: String, url: URL? = nil) {
        self.kind = kind
        self.argument = argument
        self.url = url
    }

    /// The argument, without a password when it is a URL (`postgres://user:***@host/db`).
    public var description: String { Self.redacted(argument) }

    /// Resolves a store argument.
    /// - Parameter argument: a path or URL.
    /// - Returns: the location.
    /// - Throws: ``PFCore/PFError`` with code `usage` for an empty argument, `-`, or a URL
    ///   scheme that is not a store.
    public static func resolve(_ argument: String) throws(PFError) -> StoreLocation {
        guard !argument.isEmpty, argument != "-" else {
            throw PFError(.usage, format: StoreFailure.format, "a store must be a path or a postgres:// URL, not '\(argument)'")
        }
        let lower = argument.lowercased()
        if lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://") {
            return StoreLocation(kind: .postgres, argument: argument)
        }
        if let scheme = lower.range(of: "://"), !lower[..<scheme.lowerBound].contains("/") {
            throw PFError(
                .usage, format: StoreFailure.format,
                "\(redacted(argument)): unknown store URL scheme; expected a path or postgres://user@host/db")
        }
        let url = URL(fileURLWithPath: argument)
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
        let ext = url.pathExtension.lowercased()
        let kind: StoreKind
        switch ext {
        case "zip": kind = .parseExport
        case "jsonl": kind = .mongoShape
        case "archive": kind = .keyedArchive
        case "storedata": kind = .coreData
        case "sqlite", "sqlite3", "db":
            // Told from the bytes, never by opening the file (see sqliteKind(of:)).
            kind = exists && !isDirectory.boolValue && sqliteKind(of: url) == .coreData ? .coreData : .sqlite
        default:
            kind = .parseExport
        }
        return StoreLocation(kind: kind, argument: argument, url: url)
    }

    /// Whether an SQLite file is a Core Data store: its schema (in the file, or in its `-wal`
    /// when never checkpointed) names both `Z_PRIMARYKEY` and `Z_METADATA`, and it is not one
    /// of pfarchive's own stores (application id ``pfarchiveApplicationID``).
    ///
    /// The check reads bytes only (the start of the file and of the `-wal`), so it never opens
    /// the database and never creates or changes `-wal`/`-shm` files beside the user's data.
    /// - Parameter url: the file.
    /// - Returns: whether it looks like a Core Data store.
    public static func isCoreDataFile(_ url: URL) -> Bool {
        sqliteKind(of: url) == .coreData
    }

    /// What an SQLite file holds, told from its bytes alone.
    public enum SQLiteFileKind: String, Sendable {
        /// One of pfarchive's SQLite stores (application id ``StoreLocation/pfarchiveApplicationID``).
        case pfarchive
        /// An Apple Core Data store (`Z_PRIMARYKEY` and `Z_METADATA` tables).
        case coreData = "core-data"
        /// Any other SQLite database.
        case other
        /// Not an SQLite database at all (or not readable).
        case notSQLite = "not-sqlite"
    }

    /// Tells what an SQLite file is without opening it with SQLite: the 100-byte header's
    /// magic and application id, and the table names in the first pages — of the file, or of
    /// the newest copy of page 1 in its `-wal` when the file has not been checkpointed yet.
    ///
    /// Only bytes are read, so deciding never creates, changes or locks a `-wal`, `-shm` or
    /// `-journal` file beside the source (opening a WAL database, even read-only, would).
    /// - Parameter url: the file.
    /// - Returns: its kind.
    public static func sqliteKind(of url: URL) -> SQLiteFileKind {
        let main = readPrefix(of: url, count: 4 << 20) ?? Data()
        let wal = readPrefix(of: URL(fileURLWithPath: url.path + "-wal"), count: 4 << 20)
        var header = main
        if !hasSQLiteHeader(main), let wal, let page = newestFirstPage(inWAL: wal) { header = page }
        guard header.count >= 100, hasSQLiteHeader(header) else { return .notSQLite }
        let id = header[header.startIndex + 68 ..< header.startIndex + 72].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        if id == pfarchiveApplicationID { return .pfarchive }
        var bytes = main
        if let wal { bytes.append(wal) }
        if bytes.range(of: Data("Z_PRIMARYKEY".utf8)) != nil && bytes.range(of: Data("Z_METADATA".utf8)) != nil {
            return .coreData
        }
        return .other
    }

    private static func hasSQLiteHeader(_ bytes: Data) -> Bool {
        bytes.count >= 100 && bytes.prefix(16) == Data("SQLite format 3\0".utf8)
    }

    /// The newest image of page 1 in the bytes of a `-wal` file (32-byte header, then frames of
    /// a 24-byte header and one page), or `nil` when it holds none.
    static func newestFirstPage(inWAL wal: Data) -> Data? {
        let bytes = [UInt8](wal)
        guard bytes.count >= 32 else { return nil }
        func be32(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
        let pageSize = be32(8) == 1 ? 65_536 : be32(8)
        guard pageSize >= 512, pageSize <= 65_536 else { return nil }
        var offset = 32
        var found: Data?
        while offset + 24 + pageSize <= bytes.count {
            if be32(offset) == 1 { found = Data(bytes[(offset + 24)..<(offset + 24 + pageSize)]) }
            offset += 24 + pageSize
        }
        return found
    }

    /// The `PRAGMA application_id` of pfarchive's SQLite stores (`"PFAr"`), so tools and
    /// ``isCoreDataFile(_:)`` tell them apart from other SQLite files.
    public static let pfarchiveApplicationID: UInt32 = 0x5046_4172

    private static func readPrefix(of url: URL, count: Int) -> Data? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        return try? handle.read(upToCount: count)
    }

    /// Hides the password of a URL argument.
    /// - Parameter argument: a path or URL.
    /// - Returns: the text with `user:password@` shown as `user:***@`.
    public static func redacted(_ argument: String) -> String {
        guard let scheme = argument.range(of: "://"), let at = argument[scheme.upperBound...].firstIndex(of: "@") else {
            return argument
        }
        let credentials = argument[scheme.upperBound ..< at]
        guard let colon = credentials.firstIndex(of: ":") else { return argument }
        return String(argument[..<colon]) + ":***" + String(argument[at...])
    }
}

// MARK: - Openers

/// Opens stores by kind. PFStores registers the kinds it implements; modules outside it
/// (PFSQLiteStore, a PostgreSQL module) add theirs with ``register(_:reader:writer:)``:
///
/// ```swift
/// var openers = StoreOpeners.standard
/// SQLiteStore.register(in: &openers)
/// let reader = try openers.reader(for: StoreLocation.resolve("App.sqlite"))
/// ```
public struct StoreOpeners: Sendable {
    /// Opens a store for reading.
    public typealias ReaderOpener = @Sendable (StoreLocation) throws(PFError) -> any ObjectStoreReader
    /// Opens (or prepares to create) a store for writing.
    public typealias WriterOpener = @Sendable (StoreLocation) throws(PFError) -> any ObjectStoreWriter

    private var readers: [StoreKind: ReaderOpener] = [:]
    private var writers: [StoreKind: WriterOpener] = [:]

    /// No kinds at all.
    public init() {}

    /// The kinds this module implements: Parse exports (``ParseExportStore``), keyed
    /// archives (``KeyedArchiveStore``), the Mongo shape (``MongoShapeStore``), and Core Data
    /// stores (read-only, ``CoreDataObjectStore``). A source must exist; a destination need not.
    public static var standard: StoreOpeners { standard(readerThreads: ProcessInfo.processInfo.activeProcessorCount) }

    /// ``standard`` with the number of threads a Parse export parses its rows on
    /// (``ParseExportStore/Options/workers``; 1 reads on the calling thread).
    /// - Parameter readerThreads: threads parsing rows, at least 1.
    /// - Returns: the openers.
    public static func standard(readerThreads: Int) -> StoreOpeners {
        var openers = StoreOpeners()
        let exportOptions = ParseExportStore.Options(workers: readerThreads)
        openers.registerFileStore(.parseExport) { ParseExportStore(url: $0, options: exportOptions) }
        openers.registerFileStore(.keyedArchive) { KeyedArchiveStore(url: $0) }
        openers.registerFileStore(.mongoShape) { MongoShapeStore(directory: $0) }
        openers.register(
            .coreData,
            reader: { (location: StoreLocation) throws(PFError) -> any ObjectStoreReader in
                try CoreDataObjectStore(url: try existing(location))
            },
            writer: nil)
        return openers
    }

    /// Registers a store kept in a file or directory, read and written by one class.
    private mutating func registerFileStore<Store: ObjectStoreReader & ObjectStoreWriter>(
        _ kind: StoreKind, _ make: @escaping @Sendable (URL) -> Store
    ) {
        register(
            kind,
            reader: { (location: StoreLocation) throws(PFError) -> any ObjectStoreReader in make(try StoreOpeners.existing(location)) },
            writer: { (location: StoreLocation) throws(PFError) -> any ObjectStoreWriter in make(StoreOpeners.file(location)) })
    }

    /// The location's file URL.
    /// - Parameter location: a resolved argument.
    /// - Returns: its URL (from the argument when it has none).
    public static func file(_ location: StoreLocation) -> URL {
        location.url ?? URL(fileURLWithPath: location.argument)
    }

    /// The location's file URL, which must exist (a source).
    /// - Parameter location: a resolved argument.
    /// - Returns: its URL.
    /// - Throws: ``PFCore/PFError`` with code `io` when nothing is there.
    public static func existing(_ location: StoreLocation) throws(PFError) -> URL {
        let url = file(location)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw PFError(.io, format: StoreFailure.format, "\(location): no such file or directory")
        }
        return url
    }

    /// Adds or replaces the openers of a kind.
    /// - Parameters:
    ///   - kind: the kind.
    ///   - reader: opens it for reading; `nil` when the kind is write-only.
    ///   - writer: opens it for writing; `nil` when the kind is read-only.
    public mutating func register(_ kind: StoreKind, reader: ReaderOpener?, writer: WriterOpener?) {
        readers[kind] = reader
        writers[kind] = writer
    }

    /// Whether a kind can be read.
    public func canRead(_ kind: StoreKind) -> Bool { readers[kind] != nil }

    /// Whether a kind can be written.
    public func canWrite(_ kind: StoreKind) -> Bool { writers[kind] != nil }

    /// Opens a store for reading.
    /// - Parameter location: the resolved argument.
    /// - Returns: the reader.
    /// - Throws: ``PFCore/PFError`` with code `unsupported` when the kind is not available in
    ///   this build, or what the opener throws.
    public func reader(for location: StoreLocation) throws(PFError) -> any ObjectStoreReader {
        guard let open = readers[location.kind] else {
            throw PFError(
                .unsupported, format: StoreFailure.format,
                "\(location): reading \(location.kind) is not available in this build of pfarchive")
        }
        return try open(location)
    }

    /// Opens a store for writing.
    /// - Parameter location: the resolved argument.
    /// - Returns: the writer (nothing is written before ``ObjectStoreWriter/begin(schema:)``).
    /// - Throws: ``PFCore/PFError`` with code `unsupported` when the kind cannot be written in
    ///   this build (Core Data stores are read-only), or what the opener throws.
    public func writer(for location: StoreLocation) throws(PFError) -> any ObjectStoreWriter {
        guard let open = writers[location.kind] else {
            let why = location.kind == .coreData ? "Core Data stores are read-only" : "writing \(location.kind) is not available in this build of pfarchive"
            throw PFError(.unsupported, format: StoreFailure.format, "\(location): \(why)")
        }
        return try open(location)
    }
}
