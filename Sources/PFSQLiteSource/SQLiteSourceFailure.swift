import PFCore

/// Every failure the generic SQLite source reports beyond SQLite's own errors.
///
/// Errors made from a case carry it in ``PFCore/PFError/failure``; match it with
/// `error.failure(as: SQLiteSourceFailure.self)`.
public enum SQLiteSourceFailure: PFFailure, Hashable {
    /// `--tables` or a read named a table the database does not have.
    case noSuchTable(file: String, table: String, available: [String])
    /// `--date-column` named a column the database does not have.
    case noSuchDateColumn(file: String, column: String)
    /// A `--date-column` argument is not `TABLE.COLUMN=mac|mac-ns|unix|unix-ms`.
    case badDateColumn(String)
    /// With `--strict`: a payload that claims a format and does not decode, or a date
    /// column value that is not a date.
    case undecodable(file: String, table: String, objectId: String, column: String, reason: String)

    public var code: PFError.Code {
        switch self {
        case .noSuchTable, .noSuchDateColumn, .badDateColumn: .usage
        case .undecodable: .invalidValue
        }
    }

    public var message: String {
        switch self {
        case .noSuchTable(let file, let table, let available):
            let list = available.prefix(20).joined(separator: ", ") + (available.count > 20 ? " and \(available.count - 20) more (see inspect)" : "")
            return "\(file): no table \(table); the database has \(list.isEmpty ? "no tables" : list)"
        case .noSuchDateColumn(let file, let column):
            return "\(file): --date-column \(column): the database has no such table and column"
        case .badDateColumn(let text):
            return "--date-column \(text): expected TABLE.COLUMN=mac|mac-ns|unix|unix-ms, such as message.date=mac-ns"
        case .undecodable(let file, let table, let objectId, let column, let reason):
            return "\(file): \(table) \(objectId).\(column): \(reason) (--strict)"
        }
    }
}
