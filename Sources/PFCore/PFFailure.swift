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
    /// Two keys of one dictionary spelled with different code points that are the same text
    /// under Unicode canonical equivalence (`"caf\u{E9}"` and `"cafe\u{301}"`): a
    /// ``PFValue`` dictionary keys by text, as Swift compares it, so it cannot hold both, and
    /// keeping one would lose the other's value.
    case equivalentKeys(first: String, second: String)

    public var code: PFError.Code {
        switch self {
        case .limitExceeded: .limitExceeded
        case .badKeyPath: .usage
        case .equivalentKeys: .unrepresentable
        }
    }

    public var message: String {
        switch self {
        case .limitExceeded(let limit, let value) where limit == "maxDepth" && value >= PFLimits.deepestSupported:
            "input exceeds \(limit) (\(value)), the deepest nesting pfarchive supports"
        case .limitExceeded(let limit, let value):
            "input exceeds \(limit) (\(value)); raise the limit only for trusted input"
        case .badKeyPath(let reason, let text):
            "\(reason) in key path '\(text)'"
        case .equivalentKeys(let first, let second):
            "keys \"\(Self.spelled(first))\" and \"\(Self.spelled(second))\" are one key under Unicode canonical equivalence, "
                + "which pfarchive's values follow: one could not be kept beside the other; expected keys that differ as text"
        }
    }

    /// A key with every non-ASCII scalar written `\u{…}`, so two spellings show apart.
    static func spelled(_ key: String) -> String {
        var out = ""
        for scalar in key.unicodeScalars {
            if scalar.isASCII && scalar.value >= 0x20 && scalar != "\"" && scalar != "\\" {
                out.unicodeScalars.append(scalar)
            } else {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return out
    }
}

/// Keys that one ``PFValue`` dictionary cannot hold apart.
public enum PFEquivalentKeys {
    /// Whether two keys that are equal Swift strings are spelled differently (so merging them
    /// would lose a value): their UTF-8 bytes differ.
    @inline(__always)
    public static func differ(_ kept: String, _ new: String) -> Bool { !kept.utf8.elementsEqual(new.utf8) }

    /// The error for two such keys of a format's input.
    /// - Parameters:
    ///   - kept: the key read first.
    ///   - new: the key read later, equal to `kept` as text.
    ///   - format: the format read.
    ///   - offset: where `new` is, when known.
    public static func error(_ kept: String, _ new: String, format: PFError.Format, offset: Int? = nil) -> PFError {
        let failure = PFCoreFailure.equivalentKeys(first: kept, second: new)
        guard let offset else { return PFError(failure, format: format, path: PFKeyPath([.key(new)])) }
        return PFError(failure, format: format, offset: offset, path: PFKeyPath([.key(new)]))
    }
}
