import PFCore
import PFParse

/// Every failure PFParseExport reports itself (the rows' own problems are PFParse's), with its
/// class and message in one place. Messages about the JSON's shape end with Parse's code,
/// `(Parse error 107 InvalidJSON)`, as ``PFParse/ParseErrorCode`` describes.
///
/// Errors made from a case carry it in ``PFCore/PFError/failure``; match it with
/// `error.failure(as: ParseExportFailure.self)`.
public enum ParseExportFailure: ParseCodedFailure, Hashable {
    /// The rows array of a streamed export is malformed: ``RowsProblem`` says how.
    case rows(RowsProblem)
    /// The export has two `results` members.
    case twoResults
    /// An object with `results` and `objectId` or `__type`.
    case ambiguousResults
    /// `results` is not an array of objects.
    case resultsNotArray
    /// The document is not an object, an array of objects or `{"results":[…]}` (`found` describes it).
    case notADocument(found: String)
    /// The chunked reader was fed after it finished.
    case feedAfterFinish
    /// A directory could not be listed (`reason` is the system's).
    case cannotList(path: String, reason: String)

    /// How the rows array of a streamed export is malformed.
    public enum RowsProblem: Sendable, Hashable, CustomStringConvertible {
        /// The file ends inside the rows array.
        case endsInsideRows
        /// The file ends inside a row.
        case endsInsideRow
        /// A trailing comma before `]`.
        case trailingComma
        /// Neither `,` nor `]` after a row.
        case expectedCommaOrBracket
        /// An empty row (a stray `,`).
        case emptyRow
        /// No `}` after the results array.
        case expectedClosingBrace
        /// Data after the rows.
        case dataAfterRows

        public var description: String {
            switch self {
            case .endsInsideRows: "the file ends inside the rows array"
            case .endsInsideRow: "the file ends inside a row"
            case .trailingComma: "a trailing comma before ']'"
            case .expectedCommaOrBracket: "expected ',' or ']' after a row"
            case .emptyRow: "an empty row (a stray ',')"
            case .expectedClosingBrace: "expected '}' after the results array"
            case .dataAfterRows: "unexpected data after the rows"
            }
        }
    }

    public var code: PFError.Code {
        switch self {
        case .rows, .twoResults, .ambiguousResults, .resultsNotArray, .notADocument: .syntax
        case .feedAfterFinish: .usage
        case .cannotList: .io
        }
    }

    /// The code Parse defines for the failure (invalid JSON for the document's shape), or `nil`.
    public var parseCode: ParseErrorCode? {
        switch self {
        case .rows, .twoResults, .ambiguousResults, .resultsNotArray, .notADocument: .invalidJSON
        case .feedAfterFinish, .cannotList: nil
        }
    }

    public var message: String { parseCode.map { reason + " (\($0))" } ?? reason }

    /// The message without its Parse code.
    private var reason: String {
        switch self {
        case .rows(let problem): "\(problem)"
        case .twoResults: "the export has two 'results' members"
        case .ambiguousResults: "an object with 'results' and 'objectId' or '__type' is neither one object nor an export"
        case .resultsNotArray: "'results' must be an array of objects"
        case .notADocument(let found): "a Parse document must be an object, an array of objects or {\"results\":[…]}, not \(found)"
        case .feedAfterFinish: "feed(_:_:) after finish(_:)"
        case .cannotList(let path, let reason): "cannot list \(path): \(reason)"
        }
    }
}
