import Foundation
import PFCore
import PFStores
import PostgresNIO

/// What the stores put in `PFError.format`.
enum StoreFormat {
    static let name: PFError.Format = .postgres
}

// MARK: - URL

/// A `postgres://user:password@host:port/database` URL, taken apart.
public struct PostgresURL: Sendable, Equatable, CustomStringConvertible {
    /// The server's host name or address.
    public var host: String
    /// The server's port, 5432 unless the URL says.
    public var port: Int
    /// The user name (percent-decoded).
    public var username: String
    /// The password (percent-decoded), `nil` when the URL has none.
    public var password: String?
    /// The database name.
    public var database: String
    /// `sslmode` from the query: `disable`, `prefer` (default) or `require`.
    public var sslMode: String

    /// Whether a store argument names a PostgreSQL database (`postgres://` or `postgresql://`).
    /// - Parameter argument: a store argument.
    /// - Returns: `true` for a PostgreSQL URL.
    public static func isPostgresURL(_ argument: String) -> Bool {
        let lower = argument.lowercased()
        return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
    }

    /// Reads a URL.
    /// - Parameter string: `postgres://user:password@host:port/database[?sslmode=disable]`.
    /// - Throws: ``PFCore/PFError`` with code `usage` naming what is missing (the password is
    ///   never repeated in a message).
    public init(_ string: String) throws(PFError) {
        guard Self.isPostgresURL(string), let components = URLComponents(string: Self.escapingUserInfo(string)) else {
            throw PFError(PostgresStoreFailure.notAURL(Self.redact(string)), format: StoreFormat.name)
        }
        guard let host = components.host, !host.isEmpty else {
            throw PFError(PostgresStoreFailure.noHost(url: Self.redact(string)), format: StoreFormat.name)
        }
        self.host = host
        let port = components.port ?? 5432
        // A TCP port is 16 bits; a larger number must not wrap around to another port.
        guard (1...65_535).contains(port) else {
            throw PFError(PostgresStoreFailure.badPort(url: Self.redact(string), port: port), format: StoreFormat.name)
        }
        self.port = port
        self.username = components.user ?? "postgres"
        // libpq also takes the password as a query parameter.
        self.password = components.password ?? components.queryItems?.first { $0.name.lowercased() == "password" }?.value
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        self.database = path.isEmpty ? self.username : path
        self.sslMode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "prefer"
        guard ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"].contains(sslMode) else {
            throw PFError(PostgresStoreFailure.badSSLMode(url: description, mode: sslMode), format: StoreFormat.name)
        }
    }

    /// The same server with another database.
    /// - Parameter database: the database name.
    /// - Returns: the URL.
    public func with(database: String) -> PostgresURL {
        var copy = self
        copy.database = database
        return copy
    }

    /// The URL without its password, for messages: `postgres://user@host:port/database`.
    public var description: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "postgres://\(username)@\(h):\(port)/\(database)"
    }

    /// The URL with its password (for connecting other tools); never print it.
    public var urlWithPassword: String {
        var c = URLComponents()
        c.scheme = "postgres"
        c.host = host
        c.port = port
        c.user = username
        c.password = password
        c.path = "/" + database
        return c.string ?? description
    }

    /// A URL text with every password hidden (``PFStores/StoreLocation/redacted(_:)``).
    static func redact(_ text: String) -> String {
        StoreLocation.redacted(text)
    }

    /// The URL with its password percent-encoded where it holds what a URL may not (`@`,
    /// `/`, a space, …), so a password such as `p@ss/w0rd` in `alice:p@ss/w0rd@host` is read
    /// whole: the user information ends at the last `@` before the query
    /// (``PFStores/StoreLocation/URLParts``). `%` is kept, so an encoded password stays as it is.
    static func escapingUserInfo(_ text: String) -> String {
        guard let parts = StoreLocation.URLParts(text), let userInfo = parts.userInfo, let colon = parts.passwordColon else { return text }
        var allowed = CharacterSet.urlPasswordAllowed
        allowed.insert("%")
        let password = String(userInfo[userInfo.index(after: colon)...])
        guard let encoded = password.addingPercentEncoding(withAllowedCharacters: allowed), encoded != password else { return text }
        var out = parts.scheme + userInfo[..<colon] + ":" + encoded + "@" + parts.hostAndPath
        if let query = parts.query { out += "?" + query }
        if let fragment = parts.fragment { out += "#" + fragment }
        return out
    }
}

// MARK: - Session

/// One connection to a PostgreSQL server, used synchronously.
///
/// postgres-nio is asynchronous; the store API is not. The session owns a one-thread
/// `EventLoopGroup` that nothing else uses, and each call blocks the calling thread on the
/// query's `EventLoopFuture` (`wait()`). The caller is never one of the group's threads, so a
/// wait cannot deadlock, and the Swift concurrency pool is never blocked by NIO work.
final class PostgresSession {
    let url: PostgresURL
    private let group: MultiThreadedEventLoopGroup
    private var connection: PostgresConnection?
    private let logger: Logger

    /// Connects.
    /// - Parameter url: the server and database.
    /// - Throws: ``PFCore/PFError`` with code `io` when the server cannot be reached or refuses.
    init(url: PostgresURL) throws(PFError) {
        self.url = url
        var logger = Logger(label: "pfarchive.postgres")
        logger.logLevel = .critical
        self.logger = logger
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let tls: PostgresConnection.Configuration.TLS
            switch url.sslMode {
            case "disable", "allow": tls = .disable
            case "prefer": tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            default: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
            let configuration = PostgresConnection.Configuration(
                host: url.host, port: url.port, username: url.username, password: url.password,
                database: url.database, tls: tls)
            connection = try PostgresConnection.connect(
                on: group.next(), configuration: configuration, id: 1, logger: logger
            ).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw Self.describe(error, url: url, doing: "connecting")
        }
    }

    deinit { close() }

    /// Runs one statement and collects its rows.
    /// - Parameters:
    ///   - sql: the statement, with `$1`… placeholders.
    ///   - binds: the parameters.
    ///   - doing: what the statement is for, for messages.
    /// - Throws: ``PFCore/PFError`` with code `io` and the server's message.
    @discardableResult
    func query(_ sql: String, _ binds: PostgresBindings = PostgresBindings(), doing: @autoclosure () -> String) throws(PFError)
        -> PostgresQueryResult
    {
        guard let connection else {
            throw PFError(PostgresStoreFailure.connectionClosed(url: "\(url)", doing: doing()), format: StoreFormat.name)
        }
        do {
            return try connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).wait()
        } catch {
            throw Self.describe(error, url: url, doing: doing())
        }
    }

    /// Starts `COPY <table> FROM STDIN (FORMAT binary)` (``PostgresCopyStream``). No other
    /// statement may run on the session until the stream is finished or cancelled.
    /// - Parameters:
    ///   - table: a table name as it is (quoted by the stream).
    ///   - columns: its columns in the order of the rows (names as they are), or empty for
    ///     all of them.
    ///   - inFlight: the buffers of rows that may wait to be sent.
    /// - Throws: ``PFCore/PFError`` with code `usage` when the connection is closed.
    func copy(into table: String, columns: [String] = [], inFlight: Int) throws(PFError) -> PostgresCopyStream {
        guard let connection else {
            throw PFError(PostgresStoreFailure.connectionClosed(url: "\(url)", doing: "copying into \(table)"), format: StoreFormat.name)
        }
        return PostgresCopyStream(connection: connection, table: table, columns: columns, inFlight: inFlight, logger: logger)
    }

    /// Closes the connection and stops the event loop. Calling it twice does nothing.
    func close() {
        guard let connection else { return }
        self.connection = nil
        try? connection.close().wait()
        try? group.syncShutdownGracefully()
    }

    /// An error from postgres-nio as a ``PFError``: the server's message and SQLSTATE, or the
    /// connection failure, with the URL (no password) and what was being done.
    static func describe(_ error: any Error, url: PostgresURL, doing: String) -> PFError {
        if let pf = error as? PFError { return pf }
        var text: String
        var sqlState: String?
        var copyLine: PostgresStoreFailure.CopyLine?
        if let psql = error as? PSQLError {
            if let info = psql.serverInfo, let message = info[.message] {
                text = message
                if let detail = info[.detail] { text += " — \(detail)" }
                if let state = info[.sqlState] {
                    text += " (SQLSTATE \(state))"
                    sqlState = state
                }
                // Where a COPY failed: "COPY <table>, line N, column c: …".
                if let context = info[.locationContext], context.hasPrefix("COPY ") {
                    text += " at " + context.split(whereSeparator: \.isNewline).joined(separator: " ")
                    copyLine = Self.copyLine(context)
                }
            } else if let underlying = psql.underlying {
                text = "\(psql.code): \(underlying)"
            } else {
                text = "\(psql.code)"
            }
        } else {
            text = "\(error)"
        }
        if let password = url.password, !password.isEmpty { text = text.replacingOccurrences(of: password, with: "***") }
        return PFError(
            PostgresStoreFailure.queryFailed(url: "\(url)", doing: doing, detail: text, sqlState: sqlState, copyLine: copyLine),
            format: StoreFormat.name)
    }

    /// The table and line a COPY error's context names ("COPY <table>, line N[, column c: …]"),
    /// or nil when it names none.
    static func copyLine(_ context: String) -> PostgresStoreFailure.CopyLine? {
        let first = context.prefix { !$0.isNewline }
        guard first.hasPrefix("COPY "), let comma = first.range(of: ", line ") else { return nil }
        let table = first[first.index(first.startIndex, offsetBy: 5)..<comma.lowerBound]
        guard let line = Int(first[comma.upperBound...].prefix { $0.isNumber }) else { return nil }
        return PostgresStoreFailure.CopyLine(table: String(table), line: line)
    }
}
