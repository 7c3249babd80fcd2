import PFCore

extension MongoExtendedJSON {
    /// Every failure reading or writing MongoDB Extended JSON and parse-server's document
    /// shape, with its class and message in one place. Errors made from a case carry it in
    /// ``PFCore/PFError/failure`` and the key path of the value in ``PFCore/PFError/path``
    /// (put together with ``PFCore/PFError/prefixed(_:)`` as the error unwinds); match it
    /// with `error.failure(as: MongoExtendedJSON.Failure.self)`.
    public enum Failure: PFFailure, Hashable {
        // Extended JSON
        /// A key starting with `$` that is not the only key of a wrapper.
        case dollarKey(String)
        /// A plain JSON integer above `Int64.max`.
        case integerBeyond64Bits(UInt64)
        /// A wrapper (other than `$binary`) with more keys than its own.
        case wrapperWithOtherKeys(wrapper: String, others: [String])
        /// A `$numberInt` whose payload is not a 32-bit integer string.
        case malformedNumberInt
        /// A `$numberLong` whose payload is not a 64-bit integer string.
        case malformedNumberLong
        /// A `$numberDouble` whose payload is not a number, `NaN` or an infinity.
        case malformedNumberDouble
        /// An `$oid` whose payload is not 24 hexadecimal digits.
        case malformedObjectId
        /// A `$date` whose text is not an ISO 8601 date-time (`text`), or whose payload is
        /// neither text nor milliseconds (`nil`).
        case malformedDate(text: String?)
        /// A `$binary` in neither the canonical nor the legacy shape.
        case malformedBinary
        /// A `$binary` whose `base64` is not base64.
        case binaryNotBase64
        /// A `$binary` subtype other than generic bytes (UUIDs, MD5, encrypted values).
        case binarySubtype(String)
        /// A BSON type Parse has no equivalent for (`$numberDecimal`, `$timestamp`, …).
        case noParseEquivalent(String)
        /// A `$` wrapper Extended JSON does not define.
        case unknownWrapper(String)

        // parse-server's document shape
        /// A document that is not a JSON object.
        case notAnObject
        /// An `_id` that is neither a string nor an integer.
        case badId
        /// A date column (`_created_at`, …) whose value is not a date.
        case notADate(key: String)
        /// `_rperm`/`_wperm` that is not an array.
        case permissionsNotArray(key: String)
        /// An `_rperm`/`_wperm` entry that is not a non-empty string.
        case permissionEntry(key: String)
        /// An `_acl` that is not an object.
        case aclNotObject
        /// An `_acl` entry other than `{"r":true,"w":true}`.
        case aclEntry
        /// A `_p_<field>` pointer string without `$` (`text` nil), or with a bad class or an
        /// empty id.
        case badPointer(key: String, text: String?)
        /// An `_auth_data_<provider>` key whose provider name parse-server refuses.
        case unknownAuthProvider(key: String)
        /// A key starting with `_` that parse-server does not define.
        case unknownInternalKey(String)

        // Writing
        /// A date beyond BSON's 64-bit milliseconds (seconds since 1970).
        case dateBeyondMilliseconds(Double)
        /// A nested object key that Parse reserves (`$` or `.`), which MongoDB cannot store.
        case reservedNestedKey(String)

        public var code: PFError.Code {
            switch self {
            case .dateBeyondMilliseconds, .reservedNestedKey: .unrepresentable
            default: .invalidValue
            }
        }

        public var message: String {
            switch self {
            case .dollarKey(let key): "key '\(key)' starts with '$' but is not the only key of an Extended JSON wrapper"
            case .integerBeyond64Bits(let u): "the integer \(u) is beyond BSON's 64-bit integers"
            case .wrapperWithOtherKeys(let key, let others):
                "an Extended JSON '\(key)' wrapper has other keys (\(others.joined(separator: ", "))); expected {\"\(key)\": …} alone"
            case .malformedNumberInt: "malformed $numberInt; expected {\"$numberInt\":\"<32-bit integer>\"}"
            case .malformedNumberLong: "malformed $numberLong; expected {\"$numberLong\":\"<64-bit integer>\"}"
            case .malformedNumberDouble:
                "malformed $numberDouble; expected {\"$numberDouble\":\"<number>\"}, \"NaN\", \"Infinity\" or \"-Infinity\""
            case .malformedObjectId: "malformed $oid; expected {\"$oid\":\"<24 hex digits>\"}"
            case .malformedDate(let text?): "malformed $date '\(text)' is not an ISO 8601 date-time; \(Self.expectedDate)"
            case .malformedDate(nil): "malformed $date; \(Self.expectedDate)"
            case .malformedBinary: "malformed $binary; expected {\"$binary\":{\"base64\":\"…\",\"subType\":\"00\"}}"
            case .binaryNotBase64: "malformed $binary: 'base64' is not valid base64"
            case .binarySubtype(let subType):
                "$binary subtype '\(subType)' has no Parse equivalent; expected subtype 00 (generic bytes)"
            case .noParseEquivalent(let key):
                "the BSON type \(key) has no Parse equivalent; Parse stores only strings, numbers, booleans, dates, binary, arrays and objects"
            case .unknownWrapper(let key):
                "unknown Extended JSON wrapper '\(key)'; expected $date, $numberInt, $numberLong, $numberDouble, $oid or $binary"
            case .notAnObject: "a document must be a JSON object"
            case .badId: "_id must be a string (the objectId) or an ObjectId"
            case .notADate(let key): "\(key) must be a date; expected {\"$date\":…}"
            case .permissionsNotArray(let key): "\(key) must be an array of user ids, '*' or 'role:<Name>'"
            case .permissionEntry(let key): "\(key) entries must be non-empty strings"
            case .aclNotObject: "_acl must be an object such as {\"<id>\":{\"r\":true,\"w\":true}}"
            case .aclEntry: "_acl entries must be {\"r\":true,\"w\":true}"
            case .badPointer(let key, nil): "\(key) must be a pointer string \"<Class>$<objectId>\""
            case .badPointer(let key, let text?):
                "\(key) must be a pointer string \"<Class>$<objectId>\" with a valid class and a non-empty id, not \"\(text)\""
            case .unknownAuthProvider(let key): "\(key) names no auth provider"
            case .unknownInternalKey(let key):
                "unknown internal key '\(key)'; parse-server cannot read it either (expected _id, _created_at, _updated_at, _p_<field>, _rperm, _wperm, _acl, _auth_data_<provider> or a _User internal)"
            case .dateBeyondMilliseconds(let seconds): "the date \(seconds)s since 1970 does not fit BSON's 64-bit milliseconds"
            case .reservedNestedKey(let key): "nested key '\(key)' contains '$' or '.', which Parse reserves; MongoDB cannot store it"
            }
        }

        static let expectedDate = "expected {\"$date\":\"YYYY-MM-DDTHH:MM:SS.mmmZ\"} or {\"$date\":{\"$numberLong\":\"<milliseconds>\"}}"
    }
}
