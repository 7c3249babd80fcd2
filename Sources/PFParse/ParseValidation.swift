import PFCore

/// One problem found in Parse data: severity, Parse code, which object and key path, and what.
public struct ParseIssue: Sendable, Equatable, CustomStringConvertible {
    /// How serious an issue is.
    public enum Severity: String, Sendable {
        /// Makes the data invalid (`validate` exits 1).
        case error
        /// Worth knowing, such as a dangling Pointer (`validate` still exits 0).
        case warning
    }

    /// Error or warning.
    public var severity: Severity
    /// Parse's error code, when Parse defines one.
    public var code: ParseErrorCode?
    /// The object's class.
    public var className: String?
    /// The object's id.
    public var objectId: String?
    /// The key path inside the object.
    public var path: PFKeyPath
    /// What is wrong and what was expected.
    public var message: String

    /// Makes an issue.
    /// - Parameters:
    ///   - severity: error or warning.
    ///   - code: Parse's code.
    ///   - className: the class.
    ///   - objectId: the object id.
    ///   - path: the key path.
    ///   - message: what is wrong.
    public init(
        _ severity: Severity = .error, code: ParseErrorCode?, className: String?, objectId: String?, path: PFKeyPath,
        message: String
    ) {
        self.severity = severity
        self.code = code
        self.className = className
        self.objectId = objectId
        self.path = path
        self.message = message
    }

    /// An issue made from an error (its Parse code and path).
    /// - Parameters:
    ///   - error: the error.
    ///   - className: the class.
    ///   - objectId: the object id.
    public init(_ error: PFError, className: String?, objectId: String?) {
        var message = error.message
        for prefix in [ParseContext(className: className, objectId: objectId).prefix, ParseContext(className: className).prefix]
        where !prefix.isEmpty && message.hasPrefix(prefix) {
            message.removeFirst(prefix.count)
            break
        }
        if let code = error.parseErrorCode, message.hasSuffix(" (\(code))") { message.removeLast(" (\(code))".count) }
        self.init(
            .error, code: error.parseErrorCode, className: className, objectId: objectId, path: error.path ?? .root,
            message: message)
    }

    /// One line: `error: GameScore Ed1nuqPvc at score: expected a Number … (Parse error 111 IncorrectType)`.
    public var description: String {
        var out = "\(severity.rawValue): \(className ?? "?") \(objectId ?? "(no objectId)")"
        if !path.isRoot { out += " at \(path)" }
        out += ": \(message)"
        if let code { out += " (\(code))" }
        return out
    }

    /// The issue as a ``PFError``.
    public var error: PFError {
        PFError(
            parse: ParseFailure.validation(message: message, code: code ?? .validationError), path: PFCodingPath.from(path),
            context: ParseContext(className: className, objectId: objectId))
    }
}

/// Where a model's ``ParseModel/validateParse(_:)`` records failures.
public struct ParseValidationReport: Sendable {
    /// The failures: property name (or key path) and message.
    public private(set) var failures: [(property: String, message: String)] = []

    /// An empty report.
    public init() {}

    /// Records a failure.
    /// - Parameters:
    ///   - property: the property (its mapped key path is reported).
    ///   - message: what is wrong.
    public mutating func fail(_ property: String, _ message: String) {
        failures.append((property, message))
    }
}

/// A check of one property's model-form value, run after decoding (`nil` when absent).
public struct ParsePropertyValidator: Sendable {
    package let check: @Sendable (PFValue?) -> String?

    /// A validator from a closure returning a failure message or `nil`.
    /// - Parameter check: the check; receives `nil` when the key is absent.
    public init(_ check: @escaping @Sendable (PFValue?) -> String?) { self.check = check }

    /// The key must be present and not null.
    public static let required = ParsePropertyValidator { v in
        v == nil || v == .null ? "is required" : nil
    }

    /// A present string or array must not be empty.
    public static let nonEmpty = ParsePropertyValidator { v in
        switch v {
        case .string(let s)?: s.isEmpty ? "must not be empty" : nil
        case .array(let a)?: a.isEmpty ? "must not be empty" : nil
        default: nil
        }
    }

    /// A present number must lie in a range.
    /// - Parameter range: the allowed range.
    /// - Returns: the validator.
    public static func range(_ range: ClosedRange<Double>) -> ParsePropertyValidator {
        ParsePropertyValidator { v in
            guard let v, let n = v.doubleValue else { return nil }
            return range.contains(n) ? nil : "must be in \(range.lowerBound)...\(range.upperBound), found \(n)"
        }
    }

    /// A present string may have at most `count` characters.
    /// - Parameter count: the maximum.
    /// - Returns: the validator.
    public static func maxLength(_ count: Int) -> ParsePropertyValidator {
        ParsePropertyValidator { v in
            guard case .string(let s)? = v, s.count > count else { return nil }
            return "must have at most \(count) characters, found \(s.count)"
        }
    }
}

extension PFCodingPath {
    package static func from(_ path: PFKeyPath) -> PFCodingPath {
        var node = PFCodingPath.root
        for c in path.components {
            switch c {
            case .key(let k): node = node.appending(key: k)
            case .index(let i): node = node.appending(index: i)
            }
        }
        return node
    }
}
