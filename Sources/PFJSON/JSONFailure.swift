import PFCore

/// Every failure the JSON reader and writer report, with its class and message in one place:
/// what went wrong and what was expected (the error carries where).
///
/// Errors made from a case carry it in ``PFCore/PFError/failure``; match it with
/// `error.failure(as: JSONFailure.self)`. `found` describes a byte (`character 'x'`,
/// `byte 0x00`); `expected` names what the grammar allows there.
public enum JSONFailure: PFFailure, Hashable {
    // Reading.
    /// An unexpected byte.
    case unexpected(found: String, expected: String)
    /// The input ends where more was expected.
    case unexpectedEnd(expected: String)
    /// Data after the top-level value (`found` describes it, when known).
    case trailingData(found: String?)
    /// json-c refused the text: `description` is json-c's, `code` the class it maps to.
    case jsonC(String, code: PFError.Code)
    /// A UTF-8 byte order mark in strict mode.
    case byteOrderMark
    /// A `/*` comment without its end.
    case unterminatedComment
    /// A string (starting at byte `start`) without its closing quote.
    case unterminatedString(start: Int)
    /// A raw control character in a string.
    case rawControlCharacter(found: String)
    /// An escape that does not exist.
    case invalidEscape(found: String)
    /// A high surrogate escape without a low one after it.
    case loneHighSurrogate
    /// A low surrogate escape without a high one before it.
    case loneLowSurrogate
    /// Bytes that are not UTF-8.
    case invalidUTF8(found: String, UTF8Problem)
    /// A number with a leading zero.
    case leadingZero
    /// A number past a double's range.
    case doubleOverflow
    /// An integer outside -2^63…2^64-1.
    case integerOutOfRange
    /// An integer too wide to be rewritten as a double for json-c.
    case integerTooWideForDouble
    /// An input of 2 GiB or more.
    case inputTooLarge
    /// A document whose values, copied for a node view, need more than 4 GiB or 4 Gi entries.
    case viewTooLarge
    /// U+0000 in keys of a document whose keys use every stand-in noncharacter.
    case nulKeysExhausted
    /// A repeated key while duplicate keys are refused.
    case duplicateKey(members: Int, distinct: Int)
    /// json-c listed another number of members than it reported.
    case inconsistentObject(count: Int, entries: Int)
    /// A typed object (`__type`, `CF$UID`) that is malformed.
    case malformedTyped(TypedValueProblem)
    // Writing.
    /// A value with no plain JSON form (`what`) while typed values are off.
    case typedValuesOff(String)
    /// A value nests deeper than `maxDepth`.
    case tooDeep(maxDepth: Int)
    /// NaN or an infinity (rendered).
    case nonFinite(String)
    /// A date outside years 0–9999 (seconds since 1970).
    case dateOutOfRange(secondsSince1970: Double)
    /// A UID above 32 bits.
    case uidTooLarge(UInt64)
    /// A key with U+0000, which json-c cannot hold.
    case nulKey
    /// A string with U+0000 in jsonb text.
    case nulInJSONB
    /// json-c could not allocate a tokener.
    case tokenerAllocation
    /// json-c could not allocate a node.
    case nodeAllocation
    /// json-c could not serialize the tree.
    case serializeFailed
    /// A part of a parallel write went missing.
    case partLost

    /// How bytes fail to be UTF-8.
    public enum UTF8Problem: Sendable, Hashable, CustomStringConvertible {
        /// Not a lead byte.
        case notLeadByte
        /// A sequence the input cuts short.
        case truncatedSequence
        /// An overlong, surrogate or out-of-range sequence.
        case invalidSequence
        /// Not a continuation byte.
        case notContinuation

        public var description: String {
            switch self {
            case .notLeadByte: "is not a valid UTF-8 lead byte"
            case .truncatedSequence: "starts a sequence the input truncates"
            case .invalidSequence: "starts an invalid sequence (overlong, surrogate or beyond U+10FFFF)"
            case .notContinuation: "is not a continuation byte"
            }
        }
    }

    /// How a typed object is malformed.
    public enum TypedValueProblem: Sendable, Hashable, CustomStringConvertible {
        /// `CF$UID` is not an integer 0…4294967295.
        case uid
        /// A Date's `iso` is not ISO 8601 text.
        case dateISO
        /// A Bytes value's `base64` is not a string.
        case base64NotString
        /// A Bytes value's `base64` is invalid (`reason`, at character `offset`).
        case base64Invalid(reason: String, offset: Int)

        public var description: String {
            switch self {
            case .uid: "a CF$UID reference must be an integer 0…4294967295"
            case .dateISO: "a Date's iso must be ISO 8601 text such as 2011-06-10T18:33:42.123Z"
            case .base64NotString: "a Bytes value's base64 must be a string"
            case .base64Invalid(let reason, let offset): "a Bytes value's base64 is invalid (\(reason) at character \(offset))"
            }
        }
    }

    public var code: PFError.Code {
        switch self {
        case .unexpected, .trailingData, .byteOrderMark, .rawControlCharacter, .invalidEscape, .invalidUTF8, .leadingZero: .syntax
        case .unexpectedEnd, .unterminatedComment, .unterminatedString: .truncated
        case .jsonC(_, let code): code
        case .loneHighSurrogate, .loneLowSurrogate, .doubleOverflow, .integerOutOfRange, .duplicateKey, .malformedTyped: .invalidValue
        case .integerTooWideForDouble, .inputTooLarge, .viewTooLarge, .nulKeysExhausted, .inconsistentObject: .unsupported
        case .typedValuesOff, .nonFinite, .dateOutOfRange, .uidTooLarge, .nulKey, .nulInJSONB: .unrepresentable
        case .tooDeep: .limitExceeded
        case .tokenerAllocation, .nodeAllocation, .serializeFailed, .partLost: .io
        }
    }

    public var message: String {
        switch self {
        case .unexpected(let found, let expected): "unexpected \(found); expected \(expected)"
        case .unexpectedEnd(let expected): "unexpected end of input; expected \(expected)"
        case .trailingData(let found?): "unexpected \(found) after the top-level value; expected only whitespace"
        case .trailingData(nil): "unexpected data after the top-level value; expected only whitespace"
        case .jsonC(let description, _): "json-c: \(description)"
        case .byteOrderMark: "UTF-8 byte order mark; strict JSON must not start with one (lenient mode skips it)"
        case .unterminatedComment: "unterminated /* comment; expected '*/'"
        case .unterminatedString(let start):
            "unexpected end of input inside the string that starts at byte \(start); expected a closing quote"
        case .rawControlCharacter(let found): "raw control character \(found) in a string; expected it escaped (\\n, \\t, \\u00XX)"
        case .invalidEscape(let found):
            "invalid escape \\\(found); expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX"
        case .loneHighSurrogate: "lone high surrogate escape; expected a low surrogate escape (\\uDC00–\\uDFFF) to follow"
        case .loneLowSurrogate: "lone low surrogate escape; expected it after a high surrogate escape (\\uD800–\\uDBFF)"
        case .invalidUTF8(let found, let problem): "invalid UTF-8: \(found) \(problem); expected UTF-8 text"
        case .leadingZero: "leading zero in a number; expected '.', 'e' or the end of the number"
        case .doubleOverflow: "number overflows a 64-bit double (magnitude above 1.8e308); expected a finite number"
        case .integerOutOfRange:
            "integer out of 64-bit range; expected -9223372036854775808…18446744073709551615 (write it as a string or a double to keep it)"
        case .integerTooWideForDouble: "integer beyond 64 bits cannot be read as a double"
        case .inputTooLarge: "inputs of 2 GiB or more are not supported"
        case .viewTooLarge: "the document's values need more than 4 GiB to be viewed node by node; read it as a whole value instead"
        case .nulKeysExhausted:
            "object key contains U+0000 (\\u0000) in a document whose keys use all of U+FDD0…U+FDEF; such keys cannot be kept whole through json-c"
        case .duplicateKey(let members, let distinct):
            "duplicate key in an object (\(members) members, \(distinct) distinct \(distinct == 1 ? "key" : "keys")); expected each key once"
        case .inconsistentObject(let count, let entries): "json-c reported an object of \(count) members but listed \(entries)"
        case .malformedTyped(let problem): "\(problem)"
        case .typedValuesOff(let what):
            "\(what) has no plain JSON form; use JSONWriter.Options(typedValues: true) to write it as a typed object"
        case .tooDeep(let maxDepth):
            "value nests deeper than maxDepth (\(maxDepth)); raise JSONWriter.Options.maxDepth (json-c engine: at most 512)"
        case .nonFinite(let value):
            "\(value) has no JSON form; replace NaN and infinities (for example with null or a string) before writing"
        case .dateOutOfRange(let seconds): "date \(seconds) s since 1970 is outside years 0–9999; JSON typed dates cannot hold it"
        case .uidTooLarge(let uid): "UID \(uid) is above 4294967295; CF$UID references are 32-bit"
        case .nulKey: "key contains U+0000, which json-c cannot hold; use the native engine"
        case .nulInJSONB: "a string holds U+0000, which PostgreSQL text and jsonb cannot store"
        case .tokenerAllocation: "json-c could not allocate a tokener"
        case .nodeAllocation: "json-c could not allocate a node"
        case .serializeFailed: "json-c could not serialize the tree"
        case .partLost: "a part of a parallel write went missing"
        }
    }
}
