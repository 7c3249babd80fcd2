import Foundation
import PFCore
import PFRealm

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
    /// A Realm database file, `.realm` (read-only).
    case realm
    /// One JSON Lines file of Parse objects (``JSONLinesStore``): a `.ndjson` path, or a
    /// `.jsonl` path that is an existing file.
    case jsonLines = "jsonl"
    /// Any other SQLite database (read-only): a `.sqlite`, `.sqlite3`, `.db` or `.sqlitedb`
    /// file (or an existing file of another name whose bytes are SQLite) that is neither
    /// pfarchive's own store nor a Core Data store, told apart by the tables it holds.
    case sqliteDatabase = "sqlite-db"

    /// What a path of this kind names when it is one file, for messages ("a Realm file"),
    /// or `nil` for kinds that are directories, zips or servers.
    public var fileDescription: String? {
        switch self {
        case .sqlite, .sqliteDatabase: "an SQLite file"
        case .coreData: "a Core Data store file"
        case .keyedArchive: "a keyed-archive file"
        case .realm: "a Realm file"
        case .jsonLines: "a JSON Lines file"
        case .parseExport, .mongoShape, .postgres: nil
        }
    }

    /// A name for messages, such as "the SQLite store".
    public var description: String {
        switch self {
        case .parseExport: "a Parse export"
        case .sqlite: "the SQLite store"
        case .coreData: "a Core Data store"
        case .mongoShape: "the Mongo shape (.jsonl directory)"
        case .jsonLines: "a JSON Lines file (.ndjson, or an existing .jsonl file)"
        case .postgres: "the PostgreSQL store"
        case .keyedArchive: "a keyed-archive store"
        case .realm: "a Realm file"
        case .sqliteDatabase: "an SQLite database"
        }
    }
}

/// A store argument resolved to a kind: a path, or a URL for a server.
///
/// Resolution follows the CLI contract (../shared/DESIGN.md): `postgres://…` and
/// `postgresql://…` are PostgreSQL; `.zip` is a Parse export; `.sqlite`, `.db` and
/// `.sqlite3` (and `.sqlitedb`) are the SQLite store unless the file is a Core Data store (it
/// has the `Z_PRIMARYKEY` and `Z_METADATA` tables) or another SQLite database (neither those
/// tables nor pfarchive's application id: ``StoreKind/sqliteDatabase``, read-only); an
/// existing file of any other name whose bytes are SQLite is told apart the same way;
/// `.storedata` is Core Data; a `.jsonl` directory (or a new `.jsonl` path) is the Mongo shape,
/// while an existing `.jsonl` file and any `.ndjson` path are one JSON Lines file of Parse
/// objects; `.archive` is a keyed archive; `.realm` is a Realm file; any other directory is a Parse export, and a
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
            throw PFError(StoreFailure.notAStoreArgument(argument), format: StoreFailure.format)
        }
        let lower = argument.lowercased()
        if lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://") {
            return StoreLocation(kind: .postgres, argument: argument)
        }
        if let scheme = lower.range(of: "://"), !lower[..<scheme.lowerBound].contains("/") {
            throw PFError(StoreFailure.unknownURLScheme(redacted(argument)), format: StoreFailure.format)
        }
        let url = URL(fileURLWithPath: argument)
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
        let ext = url.pathExtension.lowercased()
        let kind: StoreKind
        switch ext {
        case "zip": kind = .parseExport
        // A directory of mongoexport files, or one file of lines: what is there decides, and a
        // new path stays the Mongo shape it always was (name a new lines file `.ndjson`).
        case "jsonl": kind = exists && !isDirectory.boolValue ? .jsonLines : .mongoShape
        case "ndjson": kind = .jsonLines
        case "archive": kind = .keyedArchive
        case "storedata": kind = .coreData
        case "realm": kind = .realm
        case "sqlite", "sqlite3", "db", "sqlitedb":
            // Told from the bytes, never by opening the file (see sqliteKind(of:)).
            // A new file, or one that is not SQLite, is pfarchive's store (which refuses the latter).
            kind = (exists && !isDirectory.boolValue ? sqliteKind(of: url).storeKind : nil) ?? .sqlite
        default:
            // An existing file of another name (Safari's `History.db` has one, iOS's `Cookies`
            // and every file of an iOS backup none) whose bytes are SQLite or Realm is read as
            // what it holds.
            if exists && isDirectory.boolValue {
                kind = MongoShapeStore.looksLikeMongoShape(url) ? .mongoShape : .parseExport
                if kind == .parseExport, let bson = MongoShapeStore.mongodumpFile(in: url) {
                    throw PFError(StoreFailure.mongodumpBSON(path: argument, file: bson), format: StoreFailure.format)
                }
            } else if ext == "bson" {
                throw PFError(StoreFailure.mongodumpBSON(path: argument, file: url.lastPathComponent), format: StoreFailure.format)
            } else {
                kind = exists ? kindFromBytes(of: url) ?? .parseExport : .parseExport
                // One collection file of a Mongo dump is no class file: its `_id`s are no objectIds.
                if kind == .parseExport, exists, ext == "json", MongoShapeStore.firstKeyIsId(url) == true {
                    throw PFError(StoreFailure.mongoExportFile(argument), format: StoreFailure.format)
                }
            }
        }
        return StoreLocation(kind: kind, argument: argument, url: url)
    }

    /// What an existing file holds, told from its bytes alone whatever its name: an SQLite
    /// database (``sqliteKind(of:)``: pfarchive's store, a Core Data store or any other) or a
    /// Realm file (`RealmFile.looksLikeRealmFile`: its header's mark, reserved byte and format
    /// version); `nil` for anything else, and for what is not a regular file.
    /// - Parameter url: the file.
    /// - Returns: the store kind its bytes say, or `nil`.
    public static func kindFromBytes(of url: URL) -> StoreKind? {
        if let kind = sqliteKind(of: url).storeKind { return kind }
        guard let head = SQLiteFileSchema.leadingBytes(of: url, count: 24), RealmFile.looksLikeRealmFile(head) else { return nil }
        return .realm
    }

    /// Whether an SQLite file is a Core Data store: its schema (in the file, or in its `-wal`
    /// when never checkpointed) names both `Z_PRIMARYKEY` and `Z_METADATA`, and it is not one
    /// of pfarchive's own stores (application id ``pfarchiveApplicationID``).
    ///
    /// The check reads bytes only (the schema's pages in the file and the `-wal`), so it never opens
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

        /// The store such a file is read as, or `nil` when it is not SQLite.
        public var storeKind: StoreKind? {
            switch self {
            case .pfarchive: .sqlite
            case .coreData: .coreData
            case .other: .sqliteDatabase
            case .notSQLite: nil
            }
        }
    }

    /// Tells what an SQLite file is without opening it with SQLite: the 100-byte header's
    /// magic and application id, and the names of the tables in its schema (the
    /// `sqlite_schema` b-tree walked page by page, see `SQLiteFileSchema`). Each page is taken
    /// from the newest committed frame of the `-wal` when it holds one (a change not
    /// checkpointed yet), else from the file. Names found elsewhere in the bytes (a Core Data
    /// store kept in a blob) do not count.
    ///
    /// Only bytes are read, so deciding never creates, changes or locks a `-wal`, `-shm` or
    /// `-journal` file beside the source (opening a WAL database, even read-only, would).
    /// - Parameter url: the file.
    /// - Returns: its kind.
    public static func sqliteKind(of url: URL) -> SQLiteFileKind {
        guard let schema = SQLiteFileSchema.read(url) else {
            // An SQLite header whose schema cannot be walked is a damaged database: one of
            // pfarchive's stores still says so by its application id (its store then reports
            // the damage); any other is opened by the generic source, which reports it.
            // A file that starts with SQLite's magic but whose header is cut short is damaged too.
            guard SQLiteFileSchema.hasSQLiteMagic(url) else { return .notSQLite }
            guard let header = SQLiteFileSchema.header(of: url), SQLiteFileSchema.isSQLiteHeader(header) else { return .other }
            return header[header.startIndex + 68 ..< header.startIndex + 72].elementsEqual(pfarchiveApplicationIDBytes) ? .pfarchive : .other
        }
        if schema.applicationID == pfarchiveApplicationID { return .pfarchive }
        let tables = Set(schema.tableNames.map { $0.uppercased() })
        return tables.contains("Z_PRIMARYKEY") && tables.contains("Z_METADATA") ? .coreData : .other
    }

    private static let pfarchiveApplicationIDBytes: [UInt8] = [0x50, 0x46, 0x41, 0x72]

    /// The `PRAGMA application_id` of pfarchive's SQLite stores (`"PFAr"`), so tools and
    /// ``isCoreDataFile(_:)`` tell them apart from other SQLite files.
    public static let pfarchiveApplicationID: UInt32 = 0x5046_4172


    /// Hides every password of a URL argument, the one home for this in pfarchive.
    ///
    /// The user information ends at the last `@` before the query, so a password holding an
    /// unescaped `@` (`postgres://alice:p@ss@host/db`) is hidden whole; `password` and
    /// `sslpassword` query parameters (any case, names percent-encoded or not) are hidden
    /// too. Any scheme is handled (`postgres://`, `postgresql://`, upper case). A password
    /// holding an unescaped `?` or `#` is not a URL any parser reads the same way (escape it);
    /// when an `@` follows a `?` or `#` that may be part of a password, everything after the
    /// password's `:` is hidden (`postgres://alice:***`).
    /// With a password, an `@` in the database name must be escaped too (`%40`): it would be
    /// taken for the end of the password, which is then hidden with it — never shown.
    /// - Parameter argument: a path or URL.
    /// - Returns: the text with `user:password@` shown as `user:***@` and `password=…` as
    ///   `password=***`; a path without `://` unchanged.
    public static func redacted(_ argument: String) -> String {
        guard let parts = URLParts(argument) else { return argument }
        // An `@` after a `?` or `#` where a password may have begun: the `?` or `#` may be an
        // unescaped part of the password (`alice:p#ss@host`, `alice:p@a?ss@host`), and no
        // reading tells where it ends, so everything after the password's `:` is hidden.
        if parts.query?.contains("@") == true || parts.fragment?.contains("@") == true {
            let rest = argument.dropFirst(parts.scheme.count)
            let end = rest.firstIndex { $0 == "?" || $0 == "#" } ?? rest.endIndex
            if let userInfo = parts.userInfo, let colon = parts.passwordColon {
                return parts.scheme + userInfo[..<colon] + ":***"
            }
            if parts.userInfo == nil, !rest.hasPrefix("["), let colon = rest[..<end].firstIndex(of: ":") {
                // `host:5432/db?…` is a port; `host:5432?…@…` could be a password.
                let after = rest[rest.index(after: colon)..<end]
                let digits = after.prefix { $0.isASCII && $0.isNumber }
                if digits.isEmpty || after.dropFirst(digits.count).first != "/" {
                    return parts.scheme + rest[..<colon] + ":***"
                }
            }
        }
        var out = parts.scheme
        if let userInfo = parts.userInfo {
            if let colon = parts.passwordColon {
                out += userInfo[..<colon] + ":***@"
            } else {
                out += userInfo + "@"
            }
        }
        out += parts.hostAndPath
        if let query = parts.query {
            let items = query.split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
                let name = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
                guard isSecretParameter(String(name)) else { return String(item) }
                return name + "=***"
            }
            out += "?" + items.joined(separator: "&")
        }
        if let fragment = parts.fragment { out += "#" + fragment }
        return out
    }

    /// Whether a query parameter's name (as written, perhaps percent-encoded) carries a secret.
    static func isSecretParameter(_ name: String) -> Bool {
        // `password`, `sslpassword`, and any other `…password` a driver may add.
        (name.removingPercentEncoding ?? name).lowercased().hasSuffix("password")
    }

    /// A URL argument taken apart as pfarchive reads it: `scheme://[userinfo@]host[/path][?query][#fragment]`.
    ///
    /// Unlike RFC 3986 parsers, the user information ends at the *last* `@` before the query,
    /// so an unescaped `@` in a password stays in the password (``PFPostgresStore`` connects
    /// with it, and ``StoreLocation/redacted(_:)`` hides it whole).
    public struct URLParts: Sendable, Equatable {
        /// The scheme with `://`, as written.
        public var scheme: String
        /// The text between `://` and the last `@` before the query, `nil` without an `@`.
        public var userInfo: String?
        /// The host, port and path.
        public var hostAndPath: String
        /// The text after the first `?` that follows the user information, without the `?`.
        public var query: String?
        /// The text after `#`, without the `#`.
        public var fragment: String?

        /// The `:` that starts the password in ``userInfo``: its first `:`, when that comes
        /// before any `@` (`alice@[::1]/db/x@y` has no password: its first `@` ends the user).
        public var passwordColon: String.Index? {
            guard let userInfo, let colon = userInfo.firstIndex(of: ":") else { return nil }
            if let at = userInfo.firstIndex(of: "@"), at < colon { return nil }
            return colon
        }

        /// Takes a URL argument apart.
        /// - Parameter argument: the text.
        /// - Returns: `nil` when it has no `://` after a scheme (a path).
        public init?(_ argument: String) {
            guard let separator = argument.range(of: "://"),
                !argument[..<separator.lowerBound].isEmpty,
                !argument[..<separator.lowerBound].contains(where: { $0 == "/" || $0 == "?" || $0 == "#" || $0 == "@" })
            else { return nil }
            scheme = String(argument[..<separator.upperBound])
            var rest = argument[separator.upperBound...]
            if let hash = rest.firstIndex(of: "#") {
                fragment = String(rest[rest.index(after: hash)...])
                rest = rest[..<hash]
            }
            let question = rest.firstIndex(of: "?")
            let beforeQuery = rest[..<(question ?? rest.endIndex)]
            if let at = beforeQuery.lastIndex(of: "@") {
                userInfo = String(rest[..<at])
                rest = rest[rest.index(after: at)...]
            }
            if let question = rest.firstIndex(of: "?") {
                query = String(rest[rest.index(after: question)...])
                rest = rest[..<question]
            }
            hostAndPath = String(rest)
        }
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
    /// archives (``KeyedArchiveStore``), the Mongo shape (``MongoShapeStore``), Core Data
    /// stores (read-only, ``CoreDataObjectStore``), Realm files (read-only, ``RealmObjectStore``) and any
    /// other SQLite database (read-only, ``SQLiteDatabaseObjectStore``). A source must exist; a destination need not.
    public static var standard: StoreOpeners { standard(readerThreads: ProcessInfo.processInfo.activeProcessorCount) }

    /// ``standard`` with the number of threads a Parse export parses its rows on
    /// (``ParseExportStore/Options/workers``; 1 reads on the calling thread).
    /// - Parameter readerThreads: threads parsing rows, at least 1.
    /// - Returns: the openers.
    public static func standard(readerThreads: Int) -> StoreOpeners {
        var openers = StoreOpeners()
        let exportOptions = ParseExportStore.Options(workers: readerThreads)
        openers.register(
            .parseExport,
            reader: { (location: StoreLocation) throws(PFError) -> any ObjectStoreReader in
                let store = ParseExportStore(url: try existing(location), options: exportOptions)
                try store.requireExportFiles()
                return store
            },
            writer: { (location: StoreLocation) throws(PFError) -> any ObjectStoreWriter in
                ParseExportStore(url: file(location), options: exportOptions)
            })
        openers.registerFileStore(.keyedArchive) { KeyedArchiveStore(url: $0) }
        openers.registerFileStore(.mongoShape) { MongoShapeStore(directory: $0) }
        openers.registerFileStore(.jsonLines) { JSONLinesStore(url: $0) }
        openers.register(
            .coreData,
            reader: { (location: StoreLocation) throws(PFError) -> any ObjectStoreReader in
                try CoreDataObjectStore(url: try existing(location))
            },
            writer: nil)
        openers.register(
            .realm,
            reader: { (location: StoreLocation) throws(PFError) -> any ObjectStoreReader in
                try RealmObjectStore(url: try existing(location))
            },
            writer: nil)
        openers.register(
            .sqliteDatabase,
            reader: { (location: StoreLocation) throws(PFError) -> any ObjectStoreReader in
                try SQLiteDatabaseObjectStore(url: try existing(location))
            },
            writer: nil)
        return openers
    }

    /// Registers a store kept in a file or directory, read and written by one class.
    private mutating func registerFileStore<Store: ObjectStoreReader & ObjectStoreWriter & SendableMetatype>(
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
            throw PFError(StoreFailure.noSuchFile(path: "\(location)"), format: StoreFailure.format)
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
            throw PFError(StoreFailure.readingUnavailable(location: "\(location)", kind: location.kind), format: StoreFailure.format)
        }
        // One message for a directory where a file kind's file belongs (each reader had its
        // own: "no such file", or Foundation's "error 256").
        var isDirectory: ObjCBool = false
        if let expected = location.kind.fileDescription,
            FileManager.default.fileExists(atPath: Self.file(location).path, isDirectory: &isDirectory), isDirectory.boolValue
        {
            throw PFError(StoreFailure.sourceIsADirectory(path: "\(location)", expected: expected), format: StoreFailure.format)
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
            let why =
                location.kind == .coreData ? "Core Data stores are read-only"
                : location.kind == .realm ? "Realm files are read-only"
                : location.kind == .sqliteDatabase
                    ? "an SQLite database of another program is a read-only source; pfarchive never writes into it" : "writing \(location.kind) is not available in this build of pfarchive"
            throw PFError(StoreFailure.writingUnavailable(location: "\(location)", why: why), format: StoreFailure.format)
        }
        return try open(location)
    }
}
