import PFCore
import PFParse

/// Every failure the PostgreSQL store reports of its own, with its class and message in one
/// place; what all stores share (a write outside `begin(schema:)`, a destination another
/// import is writing…) is a ``PFStores/StoreFailure``.
///
/// Errors made from a case carry it in ``PFCore/PFError/failure``; match it with
/// `error.failure(as: PostgresStoreFailure.self)`. `url` is the store's URL without its
/// password, `location` the store as messages name it.
public enum PostgresStoreFailure: PFFailure, Hashable {
    /// The row of a COPY the server refused, as its error's context names it.
    public struct CopyLine: Sendable, Hashable {
        /// The table the COPY wrote.
        public let table: String
        /// The row's line in the COPY data, from 1.
        public let line: Int
    }

    /// The text is not a `postgres://` URL.
    case notAURL(String)
    /// The URL names no host.
    case noHost(url: String)
    /// The URL's port is not a TCP port.
    case badPort(url: String, port: Int)
    /// The URL's `sslmode` is not one pfarchive knows.
    case badSSLMode(url: String, mode: String)
    /// A query on a closed connection (`doing`: what it was for).
    case connectionClosed(url: String, doing: String)
    /// The server or the connection failed (`detail`: the server's message, detail and place,
    /// or the connection's error; `sqlState` when the server sent one; `copyLine` when it
    /// refused a row of a COPY).
    case queryFailed(url: String, doing: String, detail: String, sqlState: String?, copyLine: CopyLine? = nil)
    /// The server refused the row of one object in a COPY (`detail` and `sqlState`: its
    /// ``queryFailed(url:doing:detail:sqlState:copyLine:)``'s).
    case rowRefused(location: String, table: String, objectId: String, sqlState: String?, detail: String)
    /// A COPY stream closed before its rows were sent.
    case copyEndedEarly(table: String)
    /// A `_SCHEMA` row whose document is not a JSON object.
    case schemaNotAnObject(location: String, className: String)
    /// A `_SCHEMA` field without a type parse-server knows.
    case schemaFieldType(location: String, className: String, field: String)
    /// A value cannot be written as JSON (`what`: where; `code` and `problem`: the writer's).
    case unwritableJSON(what: String, code: PFError.Code, problem: String)
    /// A `jsonb` text that is not JSON (`code` and `problem`: the reader's).
    case notJSON(what: String, code: PFError.Code, problem: String)
    /// A stored value that does not read as its column says (`objectId` nil: the row has none).
    case badColumnValue(location: String, className: String, objectId: String?, column: String, problem: String)
    /// A text that is neither a PostgreSQL point nor a polygon.
    case notAGeometry(String)
    /// A join table row with a NULL id (`after`: the previous pair, nil at the start).
    case nullJoinId(location: String, table: String, after: String?)
    /// Two field names shorten to one column name.
    case columnNameClash(location: String, className: String, field: String, other: String, column: String)
    /// A field's type in the data differs from the database's.
    case fieldTypeChanged(location: String, className: String, field: String, stored: String, incoming: String)
    /// A column of another SQL type than the field needs (`present` nil: unknown).
    case columnType(location: String, className: String, column: String, present: String?, expected: String)
    /// An object without an `objectId` (the table's primary key).
    case noObjectId(location: String, className: String, index: Int)
    /// An `objectId` longer than 120 characters or holding U+0000 (`prefix`: its first 40).
    case badObjectId(location: String, className: String, prefix: String)
    /// A value longer than PostgreSQL's 1 GB.
    case valueTooLong(location: String, className: String, objectId: String, column: String)
    /// A field value the column cannot hold (`problem` says how).
    case badFieldValue(location: String, className: String, objectId: String, field: String, problem: String)
    /// A date outside PostgreSQL's timestamps (`seconds` since 1970).
    case dateOutOfRange(location: String, className: String, objectId: String, field: String, seconds: Double)
    /// A Pointer to another class than the column, which existed before this import, holds.
    case pointerTargetFixed(location: String, className: String, objectId: String, field: String, pointsAt: String, target: String)
    /// A join row whose id is empty, longer than 120 characters or holds U+0000.
    case badJoinId(location: String, table: String, row: Int, owningId: String, relatedId: String)
    /// A table name longer than PostgreSQL's 63 bytes, which it would cut (one table's rows
    /// landing in another's): a class name, or a Relation's join table `_Join:<field>:<Class>`
    /// whose class leaves too little room for the field even shortened.
    case nameTooLong(location: String, what: String, name: String)

    /// PostgreSQL's longest identifier in bytes (`NAMEDATALEN` − 1).
    static let maxNameBytes = 63

    public var code: PFError.Code {
        switch self {
        case .notAURL, .noHost, .badPort, .badSSLMode, .connectionClosed: .usage
        case .queryFailed, .copyEndedEarly: .io
        case .rowRefused(_, _, _, let sqlState, _):
            // SQLSTATE class 22 (data exception) and 23 (integrity constraint violation) blame the row's values;
            // any other class (connection, resources, the server) is a failure to write.
            if let sqlState, sqlState.hasPrefix("22") || sqlState.hasPrefix("23") { .invalidValue } else { .io }
        case .unwritableJSON(_, let code, _), .notJSON(_, let code, _): code
        case .notAGeometry: .syntax
        case .columnNameClash, .nameTooLong: .unrepresentable
        case .valueTooLong: .limitExceeded
        case .schemaNotAnObject, .schemaFieldType, .badColumnValue, .nullJoinId, .fieldTypeChanged, .columnType, .noObjectId,
            .badObjectId, .badFieldValue, .dateOutOfRange, .pointerTargetFixed, .badJoinId:
            .invalidValue
        }
    }

    public var message: String {
        switch self {
        case .notAURL(let text): "'\(text)' is not a postgres://user@host:port/database URL"
        case .noHost(let url): "\(url): the URL names no host; expected postgres://user@host:port/database"
        case .badPort(let url, let port): "\(url): port \(port) is not between 1 and 65535"
        case .badSSLMode(let url, let mode): "\(url): unknown sslmode '\(mode)'; expected disable, prefer or require"
        case .connectionClosed(let url, let doing): "\(url): the connection is closed (\(doing))"
        case .queryFailed(let url, let doing, let detail, _, _): "\(url): \(doing) failed: \(detail)"
        case .rowRefused(let location, let table, let objectId, _, let detail): "\(location): writing \(table) '\(objectId)' failed: \(detail)"
        case .copyEndedEarly(let table): "COPY into \(table) ended before its rows were sent"
        case .schemaNotAnObject(let location, let className): "\(location): the _SCHEMA row of \(className) is not a JSON object"
        case .schemaFieldType(let location, let className, let field):
            "\(location): _SCHEMA of \(className), field '\(field)' has no valid 'type'; expected one of \(ParseFieldType.known.map(\.rawValue).sorted().joined(separator: ", "))"
        case .unwritableJSON(let what, _, let problem): "\(what): \(problem)"
        case .notJSON(let what, _, let problem): "\(what): jsonb text is not JSON: \(problem)"
        case .badColumnValue(let location, let className, let objectId, let column, let problem):
            "\(location): \(className) \(objectId.map { "'\($0)'" } ?? "row"), column \(column): \(problem)"
        case .notAGeometry(let text): "'\(text)' is not a PostgreSQL point or polygon"
        case .nullJoinId(let location, let table, let after): "\(location): \(table) has a row with a NULL id after \(after ?? "the start")"
        case .columnNameClash(let location, let className, let field, let other, let column):
            "\(location): \(className): the fields '\(other)' and '\(field)' shorten to the same column \(column)"
        case .fieldTypeChanged(let location, let className, let field, let stored, let incoming):
            "\(location): \(className).\(field) is \(stored) in the database but \(incoming) in the data; parse-server keeps one type per field"
        case .columnType(let location, let className, let column, let present, let expected):
            "\(location): column \(className).\(column) is \(present ?? "of another type"); expected \(expected)"
        case .noObjectId(let location, let className, let index):
            "\(location): \(className) object \(index) of the batch has no objectId; it is the table's primary key"
        case .badObjectId(let location, let className, let prefix):
            "\(location): \(className) objectId '\(prefix)…' is longer than parse-server's 120 characters or holds U+0000"
        case .valueTooLong(let location, let className, let objectId, let column):
            "\(location): \(className) '\(objectId)' field \(column): the value is longer than PostgreSQL's 1 GB"
        case .badFieldValue(let location, let className, let objectId, let field, let problem):
            "\(location): \(className) '\(objectId)' field \(field): \(problem)"
        case .dateOutOfRange(let location, let className, let objectId, let field, let seconds):
            "\(location): \(className) '\(objectId)' field \(field): the date \(seconds) s since 1970 is outside PostgreSQL's timestamps"
        case .pointerTargetFixed(let location, let className, let objectId, let field, let pointsAt, let target):
            "\(location): \(className) '\(objectId)' field \(field): points at \(pointsAt) but the column existed before this import as Pointer<\(target)>; "
                + "parse-server keeps one target class per field, and pfarchive changes the type only of columns it creates (import into a new database)"
        case .badJoinId(let location, let table, let row, let owningId, let relatedId):
            "\(location): \(table) row \(row) (\(owningId) → \(relatedId)) has an id that is empty, longer than 120 characters or holds U+0000"
        case .nameTooLong(let location, let what, let name):
            "\(location): \(what) would be the table '\(name)', \(name.utf8.count) bytes; PostgreSQL names are at most "
                + "\(PostgresStoreFailure.maxNameBytes) bytes and it cuts longer ones, so it is not written (import this class into another store)"
        }
    }
}
