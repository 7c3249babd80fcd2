import Foundation
import PFCore

/// Parse's numbered error codes (from Parse's documentation, `errors.md`) that pfarchive reports.
///
/// Every ``PFError`` thrown by this module has format `Parse` and, where Parse defines a code
/// for the failure, ends its message with `(Parse error 105 InvalidFieldName)`; read it back
/// with ``PFCore/PFError/parseErrorCode``.
public enum ParseErrorCode: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// 101: the object does not exist (used for dangling Pointers).
    case objectNotFound = 101
    /// 103: a class name is not valid.
    case invalidClassName = 103
    /// 104: an object id is missing where one is required.
    case missingObjectId = 104
    /// 105: a field name is not valid or is reserved.
    case invalidFieldName = 105
    /// 106: a Pointer is malformed.
    case invalidPointer = 106
    /// 107: the JSON is not what Parse accepts.
    case invalidJSON = 107
    /// 111: a value has the wrong type for its field or operation.
    case incorrectType = 111
    /// 121: a key inside a nested object contains `$` or `.`.
    case invalidNestedKey = 121
    /// 122: a file name is not valid.
    case invalidFileName = 122
    /// 123: an ACL is malformed.
    case invalidACL = 123
    /// 142: a validation hook refused a value (Parse's `ValidationError`).
    case validationError = 142

    /// Parse's constant name, such as `InvalidFieldName`.
    public var name: String {
        switch self {
        case .objectNotFound: "ObjectNotFound"
        case .invalidClassName: "InvalidClassName"
        case .missingObjectId: "MissingObjectId"
        case .invalidFieldName: "InvalidFieldName"
        case .invalidPointer: "InvalidPointer"
        case .invalidJSON: "InvalidJSON"
        case .incorrectType: "IncorrectType"
        case .invalidNestedKey: "InvalidNestedKey"
        case .invalidFileName: "InvalidFileName"
        case .invalidACL: "InvalidACL"
        case .validationError: "ValidationError"
        }
    }

    public var description: String { "Parse error \(rawValue) \(name)" }
}

/// Which object an error is about, for the start of its message.
package struct ParseContext: Sendable {
    package var className: String?
    package var objectId: String?
    /// Whether field names and nested keys must follow Parse's rules (``ParseRules``); off
    /// for objects read from a store that may hold any name (Core Data, a keyed archive).
    package var checksNames = true

    package init(className: String? = nil, objectId: String? = nil, checksNames: Bool = true) {
        self.className = className
        self.objectId = objectId
        self.checksNames = checksNames
    }

    package static let none = ParseContext()

    package var prefix: String {
        switch (className, objectId) {
        case (let c?, let o?): "\(c) \(o): "
        case (let c?, nil): "\(c): "
        case (nil, let o?): "object \(o): "
        case (nil, nil): ""
        }
    }
}

extension PFError {
    /// The Parse error code this error carries, when it came from the Parse module with one.
    public var parseErrorCode: ParseErrorCode? {
        guard format == ParseFailure.format else { return nil }
        return (failure as? any ParseCodedFailure)?.parseCode
    }
}

/// A failure enum of the Parse modules (``ParseFailure``, the adapter's, the export reader's):
/// each case names the code Parse defines for it, which ends its message and which
/// ``PFCore/PFError/parseErrorCode`` reads back from the case.
public protocol ParseCodedFailure: PFFailure {
    /// The code Parse defines for the failure, or `nil` (the message then has no code).
    var parseCode: ParseErrorCode? { get }
}
