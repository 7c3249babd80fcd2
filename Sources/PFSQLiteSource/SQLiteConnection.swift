import Foundation
internal import GRDBSQLite
import PFCore
import Synchronization

/// One SQLite value, by storage class.
package enum SQLiteValue: Sendable, Equatable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    package var int64: Int64? {
        if case .integer(let i) = self { return i }
        return nil
    }

    package var text: String? {
        if case .text(let s) = self { return s }
        return nil
    }

    package var blob: Data? {
        if case .blob(let d) = self { return d }
        return nil
    }

    package var isNull: Bool { self == .null }

    package var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let i): "\(i)"
        case .real(let d): "\(d)"
        case .text(let s): "'\(s.prefix(40))'"
        case .blob(let d): "a \(d.count)-byte blob"
        }
    }
}

/// A minimal SQLite connection over the C API, used only on the private copy of a database
/// (``StoreCopy``): the one reader of SQLite files that are not pfarchive's own store (Core Data
/// stores, any other SQLite database).
///
/// The reader uses SQLite's C API (the `GRDBSQLite` module that GRDB ships) rather than GRDB's
/// Swift layer: importing GRDB into a library module makes its many operator overloads
/// (`==`, `+`, `<=` on SQL expressions, with `Int` conforming) visible to every client module,
/// which pushed unrelated test expressions past the type checker's limits. Every call is
/// serialized by the mutex that holds the handle.
package final class SQLiteConnection: Sendable {
    /// The connection; `nil` once closed.
    fileprivate let handle: Mutex<OpaquePointer?>
    package let path: String
    /// The format errors are reported under (`Core Data`, `SQLite`).
    package let format: PFError.Format

    /// SQLite's result codes for a damaged file.
    package static let corruptCodes: Set<Int32> = [SQLITE_CORRUPT, SQLITE_NOTADB]

    package init(path: String, format: PFError.Format) throws(PFError) {
        self.path = path
        self.format = format
        var db: OpaquePointer?
        let code = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "code \(code)"
            if let db { sqlite3_close_v2(db) }
            throw Self.error(code, message, "SQLite cannot open the file", format: format)
        }
        handle = Mutex(db)
    }

    deinit { close() }

    package func close() {
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
    package func rows(_ sql: String, _ arguments: [SQLiteValue] = [], context: @autoclosure () -> String) throws(PFError) -> [[SQLiteValue]] {
        let result = handle.withLock { handle in
            Result { () throws(Failure) in try Self.rows(on: handle, sql, arguments) }
        }
        switch result {
        case .success(let rows):
            return rows
        case .failure(.closed):
            throw PFError(SQLiteFileFailure.closed(context: context()), format: format)
        case .failure(.sqlite(let code, let message)):
            throw Self.error(code, message, context(), format: format)
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

    static func value(_ statement: OpaquePointer, _ column: Int32) -> SQLiteValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(statement, column) else { return .text("") }
            let length = Int(sqlite3_column_bytes(statement, column))
            let bytes = UnsafeBufferPointer(start: text, count: max(0, length))
            // TEXT that is not UTF-8 (an app that stored bytes with CAST … AS TEXT) is kept as
            // its bytes: decoding it with replacement characters would lose them.
            guard let string = String(validating: bytes, as: UTF8.self) else { return .blob(Data(buffer: bytes)) }
            return .text(string)
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

    package static func error(_ code: Int32, _ message: String, _ context: String, format: PFError.Format) -> PFError {
        if corruptCodes.contains(code & 0xFF) {
            return PFError(SQLiteFileFailure.corrupt(context: context, message: message), format: format)
        }
        return PFError(SQLiteFileFailure.sqlite(context: context, message: message), format: format)
    }
}

extension SQLiteConnection {
    /// Quotes an SQL identifier (table and column names come from the file), the one home
    /// for this in the SQLite readers.
    package static func quote(_ identifier: String) -> String {
        "\"" + identifier.doublingEvery("\"") + "\""
    }

    /// The storage classes a query of `typeof(…)` columns finds over all its rows, one bit set
    /// per column (``StorageKinds``): one pass, with no index and nothing copied (`typeof`
    /// never reads a value's bytes, so a large blob costs nothing).
    /// - Parameters:
    ///   - sql: a query whose columns are each `typeof(column)`; identifiers from the file must
    ///     be quoted by the caller.
    ///   - context: what is being read, for the error.
    /// - Throws: as ``rows(_:_:context:)``.
    package func storageKinds(_ sql: String, context: @autoclosure () -> String) throws(PFError) -> [StorageKinds] {
        let result = handle.withLock { handle -> Result<[StorageKinds], Failure> in
            guard let handle else { return .failure(.closed) }
            var statement: OpaquePointer?
            var code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
            guard code == SQLITE_OK, let statement else { return .failure(.sqlite(code, String(cString: sqlite3_errmsg(handle)))) }
            defer { sqlite3_finalize(statement) }
            let count = Int(sqlite3_column_count(statement))
            var kinds = [StorageKinds](repeating: [], count: count)
            while true {
                code = sqlite3_step(statement)
                if code == SQLITE_DONE { return .success(kinds) }
                guard code == SQLITE_ROW else { return .failure(.sqlite(code, String(cString: sqlite3_errmsg(handle)))) }
                for column in 0..<count {
                    // `integer`, `real`, `text`, `blob` or `null`: the first letter tells.
                    switch sqlite3_column_text(statement, Int32(column))?.pointee {
                    case UInt8(ascii: "i"), UInt8(ascii: "r"): kinds[column].insert(.number)
                    case UInt8(ascii: "t"): kinds[column].insert(.text)
                    case UInt8(ascii: "b"): kinds[column].insert(.blob)
                    default: continue
                    }
                }
            }
        }
        switch result {
        case .success(let kinds):
            return kinds
        case .failure(.closed):
            throw PFError(SQLiteFileFailure.closed(context: context()), format: format)
        case .failure(.sqlite(let code, let message)):
            throw Self.error(code, message, context(), format: format)
        }
    }

    /// The storage classes found in a column, numbers (INTEGER and REAL) counting as one.
    package struct StorageKinds: OptionSet, Sendable {
        package let rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }
        /// INTEGER or REAL.
        package static let number = StorageKinds(rawValue: 1)
        /// TEXT.
        package static let text = StorageKinds(rawValue: 2)
        /// BLOB.
        package static let blob = StorageKinds(rawValue: 4)
    }

    /// Prepares a statement to be stepped a batch at a time (``SQLiteCursor``).
    package func cursor(_ sql: String, context: @autoclosure () -> String) throws(PFError) -> SQLiteCursor {
        let prepared: Result<OpaquePointer, PreparationFailure> = handle.withLock { handle in
            guard let handle else { return .failure(PreparationFailure(code: nil, message: "")) }
            var statement: OpaquePointer?
            let code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
            guard code == SQLITE_OK, let statement else {
                return .failure(PreparationFailure(code: code, message: String(cString: sqlite3_errmsg(handle))))
            }
            return .success(statement)
        }
        switch prepared {
        case .success(let statement):
            return SQLiteCursor(connection: self, statement: statement, context: context())
        case .failure(let failure):
            guard let code = failure.code else {
                throw PFError(SQLiteFileFailure.closed(context: context()), format: format)
            }
            throw Self.error(code, failure.message, context(), format: format)
        }
    }

    /// Steps a cursor's statement up to `count` rows, with the mutex held.
    fileprivate func step(_ statement: OpaquePointer, upTo count: Int) -> Result<(rows: [[SQLiteValue]], done: Bool), PreparationFailure> {
        handle.withLock { handle in
            guard let handle else { return .failure(PreparationFailure(code: nil, message: "")) }
            var out: [[SQLiteValue]] = []
            out.reserveCapacity(count)
            let columns = sqlite3_column_count(statement)
            while out.count < count {
                let code = sqlite3_step(statement)
                if code == SQLITE_DONE { return .success((out, true)) }
                guard code == SQLITE_ROW else {
                    return .failure(PreparationFailure(code: code, message: String(cString: sqlite3_errmsg(handle))))
                }
                var row: [SQLiteValue] = []
                row.reserveCapacity(Int(columns))
                for column in 0..<columns { row.append(Self.value(statement, column)) }
                out.append(row)
            }
            return .success((out, false))
        }
    }

    /// Why preparing or stepping failed: SQLite's code and message, or no code when closed.
    fileprivate struct PreparationFailure: Error {
        var code: Int32?
        var message: String
    }
}

/// A prepared statement read a batch of rows at a time, so a table of any size is read in
/// memory bounded by the batch. The connection's mutex is held only while a batch is stepped,
/// so the caller may run other queries on the same connection between batches.
package final class SQLiteCursor {
    private let connection: SQLiteConnection
    private var statement: OpaquePointer?
    private let context: String

    fileprivate init(connection: SQLiteConnection, statement: OpaquePointer, context: String) {
        self.connection = connection
        self.statement = statement
        self.context = context
    }

    deinit { finish() }

    /// The next rows (at most `count`), or an empty array once the statement is done.
    /// - Throws: ``PFCore/PFError`` `syntax` for a corrupt file, `usage` once the connection is
    ///   closed, else `invalidValue`, with SQLite's message.
    package func next(upTo count: Int) throws(PFError) -> [[SQLiteValue]] {
        guard let statement else { return [] }
        switch connection.step(statement, upTo: max(1, count)) {
        case .success(let batch):
            if batch.done { finish() }
            return batch.rows
        case .failure(let failure):
            finish()
            guard let code = failure.code else {
                throw PFError(SQLiteFileFailure.closed(context: context), format: connection.format)
            }
            throw SQLiteConnection.error(code, failure.message, context, format: connection.format)
        }
    }

    /// Finalizes the statement (done, failed, or abandoned).
    package func finish() {
        if let statement { sqlite3_finalize(statement) }
        statement = nil
    }
}
