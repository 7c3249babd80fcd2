import PFCore

/// Every failure the SQLite store reports of its own, with its class and message in one
/// place; what all stores share (foreign data in the destination, a write outside
/// `begin(schema:)`…) is a ``PFStores/StoreFailure``, and opening the file an
/// ``PFSQLiteSource/SQLiteFileFailure``.
///
/// Errors made from a case carry it in ``PFCore/PFError/failure``; match it with
/// `error.failure(as: SQLiteStoreFailure.self)`. `location` names the store, `context` the
/// store and what was being done.
public enum SQLiteStoreFailure: PFFailure, Hashable {
    /// The file is a Core Data store.
    case coreDataStore(location: String)
    /// The file is an SQLite database of another program.
    case otherDatabase(location: String)
    /// The database lacks the tables `_TABLES` and `_SCHEMA`.
    case notPfarchiveStore(location: String)
    /// The database has `_TABLES` but no `_SCHEMA`.
    case noSchemaTable(location: String)
    /// A `_TABLES` row without name, tableName or kind.
    case incompleteTablesRow(location: String)
    /// A `_TABLES` row of a join table without owningClass and field.
    case incompleteJoinRow(location: String, name: String)
    /// A `_TABLES` row whose kind is neither `class` nor `join`.
    case badTableKind(location: String, name: String, kind: String)
    /// A `_SCHEMA` row without className, field, type or columnName.
    case incompleteSchemaRow(location: String)
    /// A `_SCHEMA` row of a class `_TABLES` does not list.
    case schemaUnknownClass(location: String, className: String)
    /// A write call after the write was finished.
    case writeFinished(location: String)
    /// A value SQLite cannot store (`what`, such as "the date …").
    case unrepresentable(key: String, what: String)
    /// A field's value cannot be written as JSON text (`code` and `problem`: the writer's).
    case unwritableField(key: String, code: PFError.Code, problem: String)
    /// A stored value out of shape (`place`: table, row and column; `problem` says how).
    case malformed(place: String, problem: String)
    /// A text longer than SQLite binds.
    case textTooLong(context: String, bytes: Int)
    /// A statement failed (`message` is SQLite's); `constraint` when a constraint refused it.
    case stepFailed(context: String, message: String, constraint: Bool)
    /// An error of SQLite through GRDB (`message` is SQLite's, `extendedCode` its extended
    /// result code); `invalid` when it is about the data rather than I/O.
    case sqlite(context: String, message: String, extendedCode: String, invalid: Bool)
    /// Any other error while querying (`problem` is its text).
    case other(context: String, problem: String)

    public var code: PFError.Code {
        switch self {
        case .otherDatabase: .unsupported
        case .coreDataStore, .notPfarchiveStore, .noSchemaTable, .incompleteTablesRow, .incompleteJoinRow,
            .badTableKind, .incompleteSchemaRow, .schemaUnknownClass, .malformed:
            .invalidValue
        case .writeFinished: .usage
        case .unrepresentable: .unrepresentable
        case .unwritableField(_, let code, _): code
        case .textTooLong: .limitExceeded
        case .stepFailed(_, _, let constraint): constraint ? .invalidValue : .io
        case .sqlite(_, _, _, let invalid): invalid ? .invalidValue : .io
        case .other: .io
        }
    }

    public var message: String {
        switch self {
        case .coreDataStore(let location): "\(location): a Core Data store, not a pfarchive SQLite store; read it as Core Data"
        case .otherDatabase(let location):
            "\(location): not a pfarchive SQLite store (nor a Core Data store); read it as an SQLite database (SQLiteDatabaseObjectStore, store kind sqlite-db)"
        case .notPfarchiveStore(let location):
            "\(location): not a pfarchive SQLite store; expected the tables _TABLES and _SCHEMA (see Docs/Stores.md)"
        case .noSchemaTable(let location): "\(location): has _TABLES but no _SCHEMA table; expected a pfarchive SQLite store"
        case .incompleteTablesRow(let location): "\(location): _TABLES has a row without name, tableName or kind"
        case .incompleteJoinRow(let location, let name): "\(location): _TABLES row \(name) is a join table without owningClass and field"
        case .badTableKind(let location, let name, let kind): "\(location): _TABLES row \(name) has kind '\(kind)'; expected 'class' or 'join'"
        case .incompleteSchemaRow(let location): "\(location): _SCHEMA has a row without className, field, type or columnName"
        case .schemaUnknownClass(let location, let className): "\(location): _SCHEMA names class \(className), which _TABLES does not list"
        case .writeFinished(let location): "\(location): the write was already finished"
        case .unrepresentable(let key, let what): "field '\(key)': \(what) cannot be stored in SQLite"
        case .unwritableField(let key, _, let problem): "field '\(key)': \(problem)"
        case .malformed(let place, let problem): "\(place): \(problem)"
        case .textTooLong(let context, let bytes): "\(context): a text of \(bytes) bytes is beyond SQLite's bind limit"
        case .stepFailed(let context, let message, _): "\(context): \(message)"
        case .sqlite(let context, let message, let extendedCode, _): "\(context): \(message) (SQLite \(extendedCode))"
        case .other(let context, let problem): "\(context): \(problem)"
        }
    }
}
