/// One module's closed set of failures: each case knows its class of failure and its
/// one-line message, so every message a module can produce is written in one place.
///
/// A reader or writer throws a ``PFError`` made from a case, which keeps the case for
/// callers that want to match it instead of the text:
///
/// ```swift
/// throw PFError(CompressionFailure.presetDictionary, format: .zlib, offset: 2)
/// // …
/// catch let error as PFError where error.failure(as: CompressionFailure.self) == .presetDictionary
/// ```
public protocol PFFailure: Sendable, Equatable {
    /// The class of failure.
    var code: PFError.Code { get }
    /// What went wrong and, where it helps, what was expected: the text after the format
    /// name in ``PFError/description``, without the location or path.
    var message: String { get }
}

extension PFFailure {
    /// Whether `other` is the same case of the same failure type.
    func isEqual(to other: any PFFailure) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}

/// The failures PFCore itself reports: exceeded limits and malformed key paths.
public enum PFCoreFailure: PFFailure, Hashable {
    /// A ``PFLimits`` budget, named by its property, was exceeded.
    case limitExceeded(limit: String, value: Int)
    /// The text form of a ``PFKeyPath`` is malformed: `reason` says how.
    case badKeyPath(_ reason: String, text: String)

    public var code: PFError.Code {
        switch self {
        case .limitExceeded: .limitExceeded
        case .badKeyPath: .usage
        }
    }

    public var message: String {
        switch self {
        case .limitExceeded(let limit, let value):
            "input exceeds \(limit) (\(value)); raise the limit only for trusted input"
        case .badKeyPath(let reason, let text):
            "\(reason) in key path '\(text)'"
        }
    }
}
