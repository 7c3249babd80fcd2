import PFCore

/// Every failure in opening and querying an SQLite file read-only (``StoreCopy`` and the
/// connection over it), shared by the generic SQLite source, the Core Data reader and the
/// SQLite store's checks, with its class and message in one place.
///
/// Errors made from a case carry it in ``PFCore/PFError/failure``; match it with
/// `error.failure(as: SQLiteFileFailure.self)`. `context` names the file and what was being
/// read.
public enum SQLiteFileFailure: PFFailure, Hashable {
    /// No file at `path`.
    case noSuchFile(path: String)
    /// The file could not be read (`reason` is the system's).
    case unreadable(path: String, reason: String)
    /// The file could not be copied aside (`reason` is the system's).
    case cannotCopy(path: String, reason: String)
    /// The file does not start with the SQLite header.
    case notSQLite(path: String)
    /// The 100-byte SQLite header is cut short.
    case headerCutShort(path: String, bytes: Int)
    /// The file is shorter than its header's page count says.
    case truncated(path: String, pages: Int, pageSize: Int, expected: Int, fileSize: Int)
    /// The database was closed.
    case closed(context: String)
    /// SQLite reports the file corrupt (`message` is SQLite's).
    case corrupt(context: String, message: String)
    /// Any other SQLite error (`message` is SQLite's).
    case sqlite(context: String, message: String)

    public var code: PFError.Code {
        switch self {
        case .noSuchFile, .unreadable, .cannotCopy: .io
        case .notSQLite, .corrupt: .syntax
        case .headerCutShort, .truncated: .truncated
        case .closed: .usage
        case .sqlite: .invalidValue
        }
    }

    public var message: String {
        switch self {
        case .noSuchFile(let path): "\(path): no such file; expected an SQLite database"
        case .unreadable(let path, let reason): "\(path): cannot be read: \(reason)"
        case .cannotCopy(let path, let reason): "\(path): cannot copy the database to a temporary directory: \(reason)"
        case .notSQLite(let path): "\(path): not an SQLite database; expected the header \"SQLite format 3\\0\""
        case .headerCutShort(let path, let bytes): "\(path): the 100-byte SQLite header is cut short (\(bytes) bytes)"
        case .truncated(let path, let pages, let pageSize, let expected, let fileSize):
            "\(path): truncated: the header says \(pages) pages of \(pageSize) bytes (\(expected) bytes) but the file has \(fileSize)"
        case .closed(let context): "\(context): the database is closed"
        case .corrupt(let context, let message): "\(context): the SQLite file is corrupt (\(message))"
        case .sqlite(let context, let message): "\(context): SQLite: \(message)"
        }
    }
}
