import PFCore

/// Every failure PFParse reports (reading REST JSON into objects and values, ACLs, schemas,
/// operations, names), with its class, its Parse code and its message in one place.
///
/// Messages have one shape, `<what>; <expected> (Parse error N Name)`: the code ends the
/// message when Parse defines one (``parseCode``), so ``PFCore/PFError/parseErrorCode`` reads
/// it back. An error about one object starts with that object (`GameScore x1: `), which the
/// thrower adds; match the case with `error.failure(as: ParseFailure.self)`.
public enum ParseFailure: ParseCodedFailure, Hashable {
    // Objects and names.
    /// A Parse object that is not a JSON object (`found` describes it).
    case objectNotJSONObject(found: String)
    /// `className` that is not a string.
    case classNameNotString
    /// The object's `className` differs from the class it was read as.
    case classNameDiffers(name: String, given: String)
    /// An object without a class name.
    case noClassName
    /// A class name Parse does not allow; `problem` says why (``ParseRules/classNameProblem(_:)``).
    case badClassName(problem: String)
    /// A field name Parse (or `destination`) does not allow; `problem` says why
    /// (``ParseRules/fieldNameProblem(_:className:)``).
    case badFieldName(problem: String, destination: String? = nil)
    /// A nested key Parse (or `destination`) does not allow; `problem` says why
    /// (``ParseRules/nestedKeyProblem(_:)``).
    case badNestedKey(problem: String, destination: String? = nil)
    /// `objectId` that is not a string (`found` describes it).
    case objectIdNotString(found: String)
    /// `createdAt` or `updatedAt` that is not an ISO 8601 date.
    case badTimestamp(key: String, found: String)
    /// A key read from a pointer stub, which has no data.
    case stubKey(String)
    /// A key path read through a pointer stub at `key`.
    case stubReadThrough(pointer: String, key: String)
    /// A key path that starts with an index.
    case keyPathStartsWithIndex(keyPath: String)
    /// A validation hook refused a value (its own message and code).
    case validation(message: String, code: ParseErrorCode)
    // Values.
    /// An unsigned integer beyond Parse's 64-bit signed numbers.
    case integerBeyond64Bit(UInt64)
    /// A keyed archive's UID, which Parse cannot hold.
    case uidNotParseValue
    /// A `Date` object whose `iso` is not ISO 8601.
    case dateNotISO8601(String)
    /// A `Date` object without an `iso` string.
    case malformedDate
    /// A `Bytes` object without a `base64` string.
    case malformedBytes
    /// A `Bytes` object whose `base64` is not base64.
    case bytesNotBase64
    /// A `Pointer` object without string `className` and `objectId`.
    case malformedPointer
    /// A `Relation` object without a `className`.
    case malformedRelation
    /// A `File` object without a non-empty `name`.
    case malformedFile
    /// A `File` object whose `url` is not a string.
    case fileURLNotString
    /// A `GeoPoint` object without numeric coordinates.
    case malformedGeoPoint
    /// A geo point out of range; `problem` says how (``ParseGeoPoint/problem``).
    case badGeoPoint(problem: String)
    /// A `Polygon` object without a `coordinates` array.
    case malformedPolygon
    /// A polygon coordinate that is not a `[latitude, longitude]` pair.
    case polygonCoordinate(index: Int)
    /// A polygon vertex out of range; `problem` says how.
    case polygonVertex(index: Int, problem: String)
    /// A polygon with fewer than 3 vertices.
    case polygonTooFewVertices(count: Int)
    // ACLs.
    /// An ACL that is not an object (`found` describes it).
    case aclNotObject(found: String)
    /// An empty ACL key (or a bare `role:`).
    case aclEmptyKey(String)
    /// An ACL entry that is not an object.
    case aclEntryNotObject(key: String, found: String)
    /// An ACL entry with a permission other than `read` and `write`.
    case aclUnknownPermission(key: String, permission: String)
    /// An ACL permission that is not a boolean.
    case aclPermissionNotBoolean(key: String, permission: String, found: String)
    // Schemas.
    /// A schema that is not `{"results":[…]}`, a class object or an array.
    case schemaShape(found: String)
    /// A schema entry that is not an object.
    case schemaEntryNotObject(index: Int)
    /// A schema field without a valid `type`.
    case schemaFieldNoType(field: String, className: String)
    /// A `_SCHEMA` field with an unknown type.
    case schemaFieldUnknownType(field: String, className: String)
    /// A schema entry with neither `className` nor `_id`.
    case schemaEntryUnnamed(index: Int)
    // Operations.
    /// An operation that cannot follow the pending one on `key`.
    case operationAfterPending(operation: String, pending: String, key: String)
    /// A relation operation mixing classes.
    case relationMixedClasses(key: String, className: String, odd: String, oddClass: String)
    /// An operation on a field holding another type (`found` is its schema type, or `null`/`nothing`).
    case operationNeedsType(operation: String, key: String, expected: String, found: String)
    /// A relation operation on a relation of another class.
    case relationClass(key: String, className: String, target: String)
    /// `__op` that is not a string.
    case opNotString
    /// An operation without its `objects` array.
    case opNeedsObjects(op: String)
    /// A relation operation whose objects are not Pointers.
    case opObjectsNotPointers(op: String)
    /// An Increment without a numeric `amount`.
    case incrementAmount
    /// A Batch without its `ops` array.
    case batchNeedsOps
    /// An unknown `__op`.
    case unknownOperation(String)

    /// The code Parse defines for the failure, or `nil` (the message then has no code).
    public var parseCode: ParseErrorCode? {
        switch self {
        case .objectNotJSONObject, .badGeoPoint, .polygonVertex, .schemaShape, .schemaEntryNotObject, .schemaEntryUnnamed,
            .opNotString, .opNeedsObjects, .batchNeedsOps, .unknownOperation:
            .invalidJSON
        case .classNameNotString, .classNameDiffers, .noClassName, .badClassName: .invalidClassName
        case .badFieldName: .invalidFieldName
        case .badNestedKey: .invalidNestedKey
        case .malformedPointer, .opObjectsNotPointers: .invalidPointer
        case .aclNotObject, .aclEmptyKey, .aclEntryNotObject, .aclUnknownPermission, .aclPermissionNotBoolean: .invalidACL
        case .validation(_, let code): code
        case .stubKey, .stubReadThrough, .keyPathStartsWithIndex: nil
        case .objectIdNotString, .badTimestamp, .integerBeyond64Bit, .uidNotParseValue, .dateNotISO8601, .malformedDate,
            .malformedBytes, .bytesNotBase64, .malformedRelation, .malformedFile, .fileURLNotString, .malformedGeoPoint,
            .malformedPolygon, .polygonCoordinate, .polygonTooFewVertices, .schemaFieldNoType, .schemaFieldUnknownType,
            .operationAfterPending, .relationMixedClasses, .operationNeedsType, .relationClass, .incrementAmount:
            .incorrectType
        }
    }

    public var code: PFError.Code {
        guard let parseCode else { return .usage }
        return parseCode.errorCode
    }

    public var message: String { parseCode.map { reason + " (\($0))" } ?? reason }

    /// The message without its Parse code.
    private var reason: String {
        switch self {
        case .objectNotJSONObject(let found): "a Parse object must be a JSON object, not \(found)"
        case .classNameNotString: "'className' must be a string"
        case .classNameDiffers(let name, let given): "the object's className '\(name)' differs from its class '\(given)'"
        case .noClassName: "the object has no className; name its class (a class file is named <Class>.json)"
        case .badClassName(let problem): problem
        case .badFieldName(let problem, let destination), .badNestedKey(let problem, let destination):
            destination.map { problem + " (\($0))" } ?? problem
        case .objectIdNotString(let found): "objectId must be a string, not \(found)"
        case .badTimestamp(let key, let found):
            "\(key) must be an ISO 8601 date such as \"2015-05-19T00:53:50.112Z\", not \(found)"
        case .stubKey(let key):
            "is a pointer stub without data, so its key '\(key)' cannot be read; fetch the object (or read it with `include`) first"
        case .stubReadThrough(let pointer, let key):
            "the Pointer to \(pointer) is a stub without data, so '\(key)' cannot be read through it; fetch it or read with `include`"
        case .keyPathStartsWithIndex(let keyPath): "key path '\(keyPath)' must start with a key"
        case .validation(let message, _): message
        case .integerBeyond64Bit(let u): "the integer \(u) is beyond Parse's 64-bit numbers"
        case .uidNotParseValue: "a keyed-archive UID is not a Parse value"
        case .dateNotISO8601(let iso):
            "malformed Date: '\(iso)' is not ISO 8601; expected {\"__type\":\"Date\",\"iso\":\"YYYY-MM-DDTHH:MM:SS.MMMZ\"}"
        case .malformedDate: "malformed Date: expected {\"__type\":\"Date\",\"iso\":\"YYYY-MM-DDTHH:MM:SS.MMMZ\"}"
        case .malformedBytes: "malformed Bytes: expected {\"__type\":\"Bytes\",\"base64\":\"…\"}"
        case .bytesNotBase64: "malformed Bytes: 'base64' is not valid base64"
        case .malformedPointer:
            "malformed Pointer: expected {\"__type\":\"Pointer\",\"className\":…,\"objectId\":…} with string members"
        case .malformedRelation: "malformed Relation: expected {\"__type\":\"Relation\",\"className\":…}"
        case .malformedFile: "malformed File: expected {\"__type\":\"File\",\"name\":…} with a non-empty name"
        case .fileURLNotString: "malformed File: 'url' must be a string"
        case .malformedGeoPoint: "malformed GeoPoint: expected numeric 'latitude' and 'longitude'"
        case .badGeoPoint(let problem): problem
        case .malformedPolygon: "malformed Polygon: expected 'coordinates', an array of [latitude, longitude] pairs"
        case .polygonCoordinate(let i): "malformed Polygon: coordinate \(i) is not a [latitude, longitude] pair"
        case .polygonVertex(let i, let problem): "Polygon vertex \(i): \(problem)"
        case .polygonTooFewVertices(let count): "malformed Polygon: it has \(count) vertices; Parse requires at least 3"
        case .aclNotObject(let found): "ACL must be an object of {\"read\":true,\"write\":true} entries, not \(found)"
        case .aclEmptyKey(let key): "ACL key '\(key)' is empty; expected a user id, '*' or 'role:<Name>'"
        case .aclEntryNotObject(let key, let found): "ACL entry '\(key)' must be an object such as {\"read\":true}, not \(found)"
        case .aclUnknownPermission(let key, let permission):
            "ACL entry '\(key)' has permission '\(permission)'; expected only 'read' and 'write'"
        case .aclPermissionNotBoolean(let key, let permission, let found):
            "ACL permission '\(permission)' of '\(key)' must be a boolean, not \(found)"
        case .schemaShape(let found): "a schema must be {\"results\":[…]}, a class object or an array, not \(found)"
        case .schemaEntryNotObject(let i): "schema entry \(i) must be an object"
        case .schemaFieldNoType(let field, let className): "field '\(field)' of \(className) has no valid 'type'"
        case .schemaFieldUnknownType(let field, let className): "_SCHEMA field '\(field)' of \(className) has an unknown type"
        case .schemaEntryUnnamed(let i): "schema entry \(i) has neither 'className' nor '_id'"
        case .operationAfterPending(let operation, let pending, let key):
            "cannot apply \(operation) after a pending \(pending) on '\(key)'"
        case .relationMixedClasses(let key, let className, let odd, let oddClass):
            "relation '\(key)' holds \(className) objects; \(odd) is a \(oddClass)"
        case .operationNeedsType(let operation, let key, let expected, let found):
            "\(operation) on '\(key)' needs \(expected), but the field holds \(found)"
        case .relationClass(let key, let className, let target): "relation '\(key)' holds \(className) objects, not \(target)"
        case .opNotString: "'__op' must be a string"
        case .opNeedsObjects(let op): "\(op) needs 'objects', an array"
        case .opObjectsNotPointers(let op): "\(op) objects must be Pointers"
        case .incrementAmount: "Increment needs a numeric 'amount'"
        case .batchNeedsOps: "Batch needs 'ops', an array"
        case .unknownOperation(let op):
            "unknown operation '\(op)'; expected Delete, Increment, Add, AddUnique, Remove, AddRelation, RemoveRelation or Batch"
        }
    }

    /// The format of every Parse error.
    package static let format: PFError.Format = .parse

    /// A short description of a value's kind for messages: "a string", "the number 3".
    package static func describe<Input: ParseRESTInput>(_ value: Input) -> String {
        switch value.restCase {
        case .null: "null"
        case .bool(let b): "the boolean \(b)"
        case .int(let i): "the integer \(i)"
        case .uint(let u): "the integer \(u)"
        case .double(let d): "the number \(d)"
        case .string(let s): s.count > 40 ? "a string" : "the string \"\(s)\""
        case .data: "bytes"
        case .date: "a date"
        case .array: "an array"
        case .dictionary:
            if let t = value.restMember("__type")?.restString { "a \(t) object" } else { "an object" }
        case .uid: "a UID"
        }
    }
}

extension ParseErrorCode {
    /// The class of failure an error with this code has: ``PFCore/PFError/Code/syntax`` for
    /// JSON Parse does not accept, ``PFCore/PFError/Code/invalidValue`` for the rest.
    public var errorCode: PFError.Code { self == .invalidJSON ? .syntax : .invalidValue }
}

extension PFError {
    /// An error of the Parse modules made from a failure case (``ParseFailure`` or the
    /// adapter's), with format `Parse`; its message starts with the object `context` names.
    package init(parse failure: some PFFailure, path: PFCodingPath = .root, context: ParseContext = .none) {
        self = PFError(failure, format: ParseFailure.format, path: path.keyPath).withContext(context)
    }
}
