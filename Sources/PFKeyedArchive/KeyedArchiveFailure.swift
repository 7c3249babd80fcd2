import PFCore

/// The failures of the keyed archive's Codable bridge (``KeyedArchiveDecoder`` and
/// ``KeyedArchiveEncoder``), with their messages in one place.
///
/// The bridge throws them as `DecodingError`/`EncodingError` whose context carries the
/// ``PFCore/PFError`` as its `underlyingError`; `PFError(unwrapping:)` gets it back.
public enum KeyedArchiveFailure: PFFailure, Hashable {
    /// The archive's `$top` has no `root`.
    case noRoot
    /// A value is not what the Swift type asks for: `expected` names it, `found` (if known)
    /// what the archive holds.
    case expected(String, found: String? = nil)
    /// A number does not fit the integer type asked for.
    case doesNotFit(String, type: String)
    /// A reference names an object that is `$null`.
    case nullObject(uid: UInt64)
    /// A reference names an object of a kind no scalar or container is read from.
    case objectKind(uid: UInt64, kind: String)
    /// A shared object was decoded before as another type.
    case alreadyDecoded(index: Int, type: String)
    /// An object refers back to itself while it is being decoded.
    case cycle(index: Int)
    /// Values nest deeper than `maxDepth`.
    case tooDeep(maxDepth: Int)
    /// A dictionary object whose `NS.keys` and `NS.objects` differ in length.
    case dictionaryLengths(className: String)
    /// A dictionary with a key that is not a string, decoded into a keyed container.
    case nonStringDictionaryKey

    public var code: PFError.Code {
        switch self {
        case .tooDeep: .limitExceeded
        default: .invalidValue
        }
    }

    public var message: String {
        switch self {
        case .noRoot: "the archive's $top has no root"
        case .expected(let what, let found?): "expected \(what), found \(found)"
        case .expected(let what, nil): "expected \(what)"
        case .doesNotFit(let value, let type): "\(value) does not fit \(type)"
        case .nullObject(let uid): "object \(uid) is null"
        case .objectKind(let uid, let kind): "object \(uid) is \(kind)"
        case .alreadyDecoded(let index, let type): "object \(index) was already decoded as \(type)"
        case .cycle(let index):
            "object \(index) refers back to itself while it is being decoded; Codable cannot rebuild cycles, use ArchiveCoding"
        case .tooDeep(let maxDepth): "values nest deeper than maxDepth (\(maxDepth))"
        case .dictionaryLengths(let className): "\(className) needs NS.keys and NS.objects of equal length"
        case .nonStringDictionaryKey: "dictionary keys must be strings to decode into a keyed container"
        }
    }
}
