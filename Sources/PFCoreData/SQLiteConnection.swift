import Foundation
internal import GRDBSQLite
import PFCore
import Synchronization

/// One SQLite value, by storage class.
enum SQLiteValue: Sendable, Equatable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    var int64: Int64? {
        if case .integer(let i) = self { return i }
        return nil
    }

    var text: String? {
        if case .text(let s) = self { return s }
        return nil
    }

    var blob: Data? {
        if case .blob(let d) = self { return d }
        return nil
    }

    var isNull: Bool { self == .null }

    var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let i): "\(i)"
        case .real(let d): "\(d)"
        case .text(let s): "'\(s.prefix(40))'"
        case .blob(let d): "a \(d.count)-byte blob"
        }
    }
}

/// A minimal SQLite connection over the C API, used only on the private copy of a store.
///
/// The reader uses SQLite's C API (the `GRDBSQLite` module that GRDB ships) rather than GRDB's
/// Swift layer: importing GRDB into a library module makes its many operator overloads
/// (`==`, `+`, `<=` on SQL expressions, with `Int` conforming) visible to every client module,
/// which pushed unrelated test expressions past the type checker's limits. Every call is
/// serialized by the mutex that holds the handle.
final class SQLiteConnection: Sendable {
    /// The connection; `nil` once closed.
    private let handle: Mutex<OpaquePointer?>
    let path: String

    /// SQLite's result codes for a damaged file.
    static let corruptCodes: Set<Int32> = [SQLITE_CORRUPT, SQLITE_NOTADB]

    init(path: String) throws(PFError) {
        self.path = path
        var db: OpaquePointer?
        let code = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "code \(code)"
            if let db { sqlite3_close_v2(db) }
            throw Self.error(code, message, "SQLite cannot open the file")
        }
        handle = Mutex(db)
    }

    deinit { close() }

    func close() {
        handle.withLock { handle in
            if let open = handle { sqlite3_close_v2(open) }
            handle = nil
        }
    }

    /// Runs one statement and returns all its rows (callers keep result sets small, for
    /// example a batch of `LIMIT n` rows).
    /// - Parameters:
    ///   - sql: the statement; identifiers from the file must be quoted by the caller.
    ///   - arguments: integer or text values for `?` placeholders.
    ///   - context: what is being read, for the error.
    /// - Throws: ``PFError`` `syntax` for a corrupt file, else `invalidValue`, with SQLite's message.
    func rows(_ sql: String, _ arguments: [SQLiteValue] = [], context: @autoclosure () -> String) throws(PFError) -> [[SQLiteValue]] {
        let result = handle.withLock { handle in
            Result { () throws(Failure) in try Self.rows(on: handle, sql, arguments) }
        }
        switch result {
        case .success(let rows):
            return rows
        case .failure(.closed):
            throw PFError(CoreDataFailure.closed(context: context()), format: .coreData)
        case .failure(.sqlite(let code, let message)):
            throw Self.error(code, message, context())
        }
    }

    /// Why ``rows(on:_:_:)`` failed (the caller adds what was being read).
    private enum Failure: Error {
        case closed
        case sqlite(Int32, String)
    }

    /// ``rows(_:_:context:)`` with the mutex held.
    private static func rows(on handle: OpaquePointer?, _ sql: String, _ arguments: [SQLiteValue]) throws(Failure) -> [[SQLiteValue]] {
        guard let handle else { throw .closed }
        var statement: OpaquePointer?
        var code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw .sqlite(code, String(cString: sqlite3_errmsg(handle)))
        }
        defer { sqlite3_finalize(statement) }
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            switch argument {
            case .integer(let i): sqlite3_bind_int64(statement, index, i)
            case .real(let d): sqlite3_bind_double(statement, index, d)
            case .text(let s): sqlite3_bind_text(statement, index, s, -1, Self.transient)
            case .null, .blob: sqlite3_bind_null(statement, index)
            }
        }
        var out: [[SQLiteValue]] = []
        let count = sqlite3_column_count(statement)
        while true {
            code = sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw .sqlite(code, String(cString: sqlite3_errmsg(handle)))
            }
            var row: [SQLiteValue] = []
            row.reserveCapacity(Int(count))
            for column in 0..<count { row.append(Self.value(statement, column)) }
            out.append(row)
        }
        return out
    }

    private static func value(_ statement: OpaquePointer, _ column: Int32) -> SQLiteValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(statement, column) else { return .text("") }
            let length = Int(sqlite3_column_bytes(statement, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: max(0, length)), as: UTF8.self))
        case SQLITE_BLOB:
            let length = Int(sqlite3_column_bytes(statement, column))
            guard length > 0, let bytes = sqlite3_column_blob(statement, column) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: length))
        default:
            return .null
        }
    }

    /// `SQLITE_TRANSIENT`, which the C macro spells as `(sqlite3_destructor_type)-1`.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    static func error(_ code: Int32, _ message: String, _ context: String) -> PFError {
        if corruptCodes.contains(code & 0xFF) {
            return PFError(CoreDataFailure.corrupt(context: context, message: message), format: .coreData)
        }
        return PFError(CoreDataFailure.sqlite(context: context, message: message), format: .coreData)
    }
}
