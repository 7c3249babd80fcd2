import PFCore

/// Every failure the CBOR reader and writer report, with its class and message in one place.
///
/// Errors made from a case carry it in ``PFCore/PFError/failure``; match it with
/// `error.failure(as: CBORFailure.self)`. Byte positions in a case are offsets into the input.
public enum CBORFailure: PFFailure, Hashable {
    /// The input is empty.
    case emptyInput
    /// The input ends where a data item should start.
    case expectedItem
    /// The input ends where a map key should start.
    case expectedMapKey
    /// The input ends inside the head of the data item at `start`.
    case truncatedHead(start: Int)
    /// The input ends inside a tag's head.
    case truncatedTagHead
    /// A string (`what`) at `start` declares more bytes than remain.
    case truncatedPayload(what: String, start: Int, declared: UInt64, remaining: Int)
    /// The indefinite-length `what` at `start` has no break.
    case missingBreak(what: String, start: Int)
    /// Bytes follow the top-level item.
    case trailingBytes(Int)
    /// Additional information 28–30 in the initial byte `initial`.
    case reservedAdditionalInfo(UInt8, initial: UInt8)
    /// A tag head with additional information past 27.
    case tagAdditionalInfo(UInt8)
    /// An indefinite length on a major type that does not allow one.
    case indefiniteNotAllowed(initial: UInt8)
    /// A chunk of another type inside an indefinite-length string (`what`) at `start`.
    case badChunk(initial: UInt8, what: String, start: Int)
    /// A simple value below 32 encoded in two bytes (not well-formed: 0–23 belong in the
    /// initial byte, 24–31 are reserved).
    case twoByteSimple(UInt8)
    /// A break (0xff) outside an indefinite-length item.
    case strayBreak
    /// A simple value pfarchive gives no meaning.
    case unassignedSimple(UInt8)
    /// Invalid UTF-8 at `at` in the text string at `start`.
    case invalidUTF8(at: Int, string: Int)
    /// Invalid UTF-8 at `at` in the chunk at `chunk`.
    case invalidUTF8InChunk(at: Int, chunk: Int)
    /// A negative integer below `Int64.min` (the head's argument is given).
    case negativeTooSmall(UInt64)
    /// A map key appears twice.
    case duplicateKey(String)
    /// A map key that is not a text string (described).
    case nonTextKey(String)
    /// A tag 0 date that is not RFC 3339.
    case badDate(String)
    /// String references (tag 25/256) are not supported.
    case stringReferences(tag: UInt64)
    /// A number pfarchive's values cannot hold: a decimal fraction (tag 4), bigfloat (tag 5)
    /// or rational (tag 30).
    case numberTag(tag: UInt64)
    /// A bignum wider than 64 bits.
    case bignumTooWide
    /// A negative bignum below `Int64.min`.
    case negativeBignumTooSmall
    /// A shared reference (tag 29) names no value marked with tag 28.
    case unknownSharedReference(index: UInt64, marked: Int)
    /// A shared reference points into the value that contains it.
    case cyclicSharedReference(index: UInt64)
    /// A tag encloses a value of the wrong kind (described).
    case tagContent(tag: UInt64, expected: String, found: String)
    /// The writer was given a value nesting deeper than `maxDepth`.
    case tooDeep(maxDepth: Int)
    /// A record-at-a-time read of a document that is neither an array nor a map whose
    /// first key is `results` with an array as its value.
    case notRecords

    public var code: PFError.Code {
        switch self {
        case .emptyInput, .expectedItem, .expectedMapKey, .truncatedHead, .truncatedTagHead, .truncatedPayload,
            .missingBreak:
            .truncated
        case .trailingBytes, .reservedAdditionalInfo, .tagAdditionalInfo, .indefiniteNotAllowed, .badChunk,
            .twoByteSimple, .strayBreak:
            .syntax
        case .unassignedSimple, .notRecords, .nonTextKey, .stringReferences, .numberTag, .bignumTooWide, .negativeBignumTooSmall: .unsupported
        case .invalidUTF8, .invalidUTF8InChunk, .negativeTooSmall, .duplicateKey, .badDate, .unknownSharedReference,
            .cyclicSharedReference, .tagContent:
            .invalidValue
        case .tooDeep: .limitExceeded
        }
    }

    public var message: String {
        switch self {
        case .emptyInput: "empty input; expected a CBOR data item"
        case .notRecords:
            "the top-level item is not an array of records or a map whose first key, results, holds one; read the document whole"
        case .expectedItem: "unexpected end of input; expected a data item"
        case .expectedMapKey: "unexpected end of input; expected a map key"
        case .truncatedHead(let start):
            "unexpected end of input in the head of the data item at byte \(start); expected its argument bytes"
        case .truncatedTagHead: "unexpected end of input in a tag head"
        case .truncatedPayload(let what, let start, let declared, let remaining):
            "unexpected end of input: the \(what) at byte \(start) declares \(declared) bytes, only \(remaining) remain"
        case .missingBreak(let what, let start):
            "unexpected end of input: the indefinite-length \(what) at byte \(start) has no break (0xff)"
        case .trailingBytes(let extra):
            "\(extra) trailing byte\(extra == 1 ? "" : "s") after the top-level data item; expected the end of input"
        case .reservedAdditionalInfo(let ai, let initial):
            "reserved additional information \(ai) in initial byte 0x\(hex(initial)); expected 0–27 or 31"
        case .tagAdditionalInfo(let ai): "tag with additional information \(ai); expected 0 through 27"
        case .indefiniteNotAllowed(let initial):
            "initial byte 0x\(hex(initial)) asks for an indefinite length, which major type \(initial >> 5) does not allow"
        case .badChunk(let initial, let what, let start):
            "chunk with initial byte 0x\(hex(initial)) inside the indefinite-length \(what) at byte \(start); expected a definite-length \(what) or a break"
        case .twoByteSimple(let v): "simple value \(v) encoded in two bytes; expected 32 or more there (0–23 go in the initial byte, 24–31 are reserved)"
        case .strayBreak: "break (0xff) outside an indefinite-length item; expected a data item"
        case .unassignedSimple(let v):
            "simple value \(v) has no meaning in pfarchive; expected false, true, null, undefined or a float"
        case .invalidUTF8(let at, let string):
            "invalid UTF-8 at byte \(at) in the text string at byte \(string); expected UTF-8 text"
        case .invalidUTF8InChunk(let at, let chunk):
            "invalid UTF-8 at byte \(at) in the chunk at byte \(chunk); expected UTF-8 text (a chunk may not split a character)"
        case .negativeTooSmall(let v):
            "negative integer below Int64.min (-1 - \(v)); expected a value pfarchive's integers can hold"
        case .duplicateKey(let key): "duplicate map key \"\(key)\"; expected each key once"
        case .nonTextKey(let what): "map key is \(what), not a text string; pfarchive reads only text-string keys"
        case .badDate(let text): "tag 0 date \"\(text)\" is not an RFC 3339 date/time; expected text like 2013-03-21T20:04:00Z"
        case .stringReferences(let tag):
            "tag \(tag) (string references) is not supported; re-encode without string referencing"
        case .numberTag(let tag):
            "tag \(tag) (\(tag == 4 ? "decimal fraction" : tag == 5 ? "bigfloat" : "rational number")) is not read: its two integers "
                + "would read as an array, no longer a number, and pfarchive's numbers are 64-bit integers and doubles; "
                + "re-encode it as a float or a string"
        case .bignumTooWide: "bignum wider than 64 bits; pfarchive integers hold Int64.min through UInt64.max"
        case .negativeBignumTooSmall: "negative bignum below Int64.min; pfarchive integers hold Int64.min through UInt64.max"
        case .unknownSharedReference(let index, let marked):
            "shared reference \(index) names no shareable value (\(marked) marked with tag 28 so far)"
        case .cyclicSharedReference(let index):
            "cyclic shared reference not representable: reference \(index) points into the value that contains it"
        case .tagContent(let tag, let expected, let found): "tag \(tag) encloses \(found); expected \(expected)"
        case .tooDeep(let maxDepth): "value nests deeper than maxDepth (\(maxDepth)); readers would refuse it"
        }
    }
}

extension PFError {
    /// A CBOR error made from a failure case.
    init(_ failure: CBORFailure, offset: Int, path: PFKeyPath? = nil) {
        self.init(failure, format: .cbor, offset: offset, path: path)
    }
}
