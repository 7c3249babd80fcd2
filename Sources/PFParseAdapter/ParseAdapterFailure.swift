import PFCore
import PFParse

/// Every failure PFParseAdapter reports itself (the objects' and values' own problems are
/// ``PFParse/ParseFailure``'s), with its class, its Parse code and its message in one place.
///
/// As with ``PFParse/ParseFailure``, a message ends with Parse's code when Parse defines one
/// and starts with the object it is about; match the case with
/// `error.failure(as: ParseAdapterFailure.self)`.
public enum ParseAdapterFailure: ParseCodedFailure, Hashable {
    // Decoding.
    /// A value of another type than the property's (`found` describes it).
    case typeMismatch(expected: String, found: String)
    /// A number with a fraction (or out of range) where an integer of `type` is expected.
    case notAnInteger(type: String, number: Double)
    /// An integer that does not fit the property's integer `type`.
    case integerDoesNotFit(number: String, type: String)
    /// A string that is not an ISO 8601 date where a `Date` is expected.
    case dateNotISO8601(String)
    /// A nested object of another class than the model's.
    case nestedClassMismatch(expected: String, found: String)
    /// A model decoded from an object of another class.
    case classMismatch(model: String, modelClass: String, found: String)
    /// A type that asks for one of Parse's own types but is none of them.
    case notAParseType(String)
    /// A model property read through a Pointer stub, which has no data.
    case stubProperty(stub: String, property: String)
    /// A property without a key and without a default.
    case missingKey(property: String)
    /// An unkeyed container read past its array's end.
    case arrayTooShort(count: Int)
    /// A key-path mapping that meets a non-object on its way.
    case notAnObjectOnPath(at: String, steps: String, found: String)
    /// More than one validation failure (each `path: message`).
    case validationFailures([String])
    /// Another `DecodingError` from `Codable` code (its own description).
    case decoding(String)
    // Encoding.
    /// A key-path mapping whose first step already holds another value.
    case mappingCollision(property: String, steps: String, first: String, found: String)
    /// A property mapped to several keys that did not encode as a dictionary of them.
    case mappingNeedsDictionary(property: String, keys: [String])
    /// A NaN or infinite number.
    case notFinite(Double)
    /// A Pointer to an object without an objectId.
    case unsavedPointer(className: String)
    /// An `EncodingError` from `Codable` code (its own description).
    case encoding(String)
    /// Any other error from `Codable` code (its own description).
    case codable(String)
    // Models and transformers.
    /// No model type registered for a class.
    case noModelForClass(String, known: [String])
    /// The dispatch field is missing or not a string.
    case dispatchFieldMissing(String)
    /// No model type registered for a dispatch field's value.
    case noModelForTag(field: String, tag: String, known: [String])
    /// A transformer given a value it does not transform.
    case transformerMismatch(name: String, expected: String, found: String)
    /// A merge given something other than a JSON object.
    case mergeNeedsObject(found: String)

    /// The code Parse defines for the failure, or `nil` (the message then has no code).
    public var parseCode: ParseErrorCode? {
        switch self {
        case .typeMismatch, .notAnInteger, .integerDoesNotFit, .dateNotISO8601, .nestedClassMismatch, .notAnObjectOnPath,
            .dispatchFieldMissing, .noModelForTag, .transformerMismatch:
            .incorrectType
        case .classMismatch, .noModelForClass: .invalidClassName
        case .validationFailures: .validationError
        case .unsavedPointer: .missingObjectId
        case .mergeNeedsObject: .invalidJSON
        case .notAParseType, .stubProperty, .missingKey, .arrayTooShort, .decoding, .mappingCollision,
            .mappingNeedsDictionary, .notFinite, .encoding, .codable:
            nil
        }
    }

    public var code: PFError.Code {
        if let parseCode { return parseCode.errorCode }
        switch self {
        case .notAParseType, .stubProperty: return .usage
        case .mappingCollision, .mappingNeedsDictionary, .notFinite, .encoding: return .unrepresentable
        default: return .invalidValue
        }
    }

    public var message: String { parseCode.map { reason + " (\($0))" } ?? reason }

    /// The message without its Parse code.
    private var reason: String {
        switch self {
        case .typeMismatch(let expected, let found): "expected \(expected), found \(found)"
        case .notAnInteger(let type, let number): "expected an integer (\(type)), found the number \(number)"
        case .integerDoesNotFit(let number, let type): "the number \(number) does not fit \(type)"
        case .dateNotISO8601(let s): "expected a Date, found the string \"\(s)\" (not ISO 8601)"
        case .nestedClassMismatch(let expected, let found): "expected a \(expected) object, found a \(found)"
        case .classMismatch(let model, let modelClass, let found):
            "cannot decode \(model) (class \(modelClass)) from a \(found) object"
        case .notAParseType(let type): "\(type) is not one of Parse's own types"
        case .stubProperty(let stub, let property):
            "the Pointer to \(stub) is a stub without data, so '\(property)' cannot be read; fetch the object, read it with `include`, or declare the property as ParsePointer or ParseReference"
        case .missingKey(let property):
            "missing key for property '\(property)'; give it a default in parseDefaults or make it optional"
        case .arrayTooShort(let count): "the array has only \(count) elements"
        case .notAnObjectOnPath(let at, let steps, let found): "expected an object at \(at) to read '\(steps)', found \(found)"
        case .validationFailures(let issues): "\(issues.count) validation failures: " + issues.joined(separator: "; ")
        case .decoding(let text), .encoding(let text), .codable(let text): text
        case .mappingCollision(let property, let steps, let first, let found):
            "property '\(property)' maps to '\(steps)', but '\(first)' already holds \(found)"
        case .mappingNeedsDictionary(let property, let keys):
            "property '\(property)' maps to the keys \(keys.joined(separator: ", ")), so it must encode as a dictionary of them (use a struct or a transformer)"
        case .notFinite(let d): "\(d) is not a finite number; JSON and Parse cannot hold it"
        case .unsavedPointer(let className):
            "cannot write a Pointer to an unsaved \(className): it has no objectId; save it first or embed it"
        case .noModelForClass(let className, let known): "no model type for class '\(className)'; known: \(known.joined(separator: ", "))"
        case .dispatchFieldMissing(let field): "the dispatch field '\(field)' is missing or not a string"
        case .noModelForTag(let field, let tag, let known): "no model type for \(field) = '\(tag)'; known: \(known.joined(separator: ", "))"
        case .transformerMismatch(let name, let expected, let found): "\(name): expected \(expected), found \(found)"
        case .mergeNeedsObject(let found): "merge needs a JSON object, not \(found)"
        }
    }
}
