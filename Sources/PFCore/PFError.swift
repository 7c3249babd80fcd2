/// The error every pfarchive reader and writer throws: what went wrong, where, and what was
/// expected.
///
/// A syntax error in bytes carries a ``Location`` (byte offset, and line and column for text
/// formats); an error about a value carries the ``path`` of that value in the tree. The
/// ``description`` is one line, ready for a command line:
/// `JSON: unexpected character 'x' at line 1, column 5 (byte 4); expected a value`.
public struct PFError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The class of failure.
    public enum Code: String, Sendable {
        /// The bytes do not follow the format's grammar.
        case syntax
        /// The input ends before the value does.
        case truncated
        /// Well-formed, but a value is out of range or not allowed where it stands.
        case invalidValue
        /// A valid feature of the format that pfarchive does not read or write.
        case unsupported
        /// A configured limit (``PFLimits``) was exceeded.
        case limitExceeded
        /// The value tree holds something the target format cannot represent.
        case unrepresentable
        /// Secure decoding refused a class that is not allowed.
        case disallowed
        /// Reading or writing a file failed.
        case io
        /// The caller asked for something that makes no sense (a bad key path, option, …).
        case usage
    }

    /// A position in the input.
    public struct Location: Sendable, Equatable, CustomStringConvertible {
        /// Zero-based byte offset.
        public var offset: Int
        /// One-based line, for text formats.
        public var line: Int?
        /// One-based column (in bytes), for text formats.
        public var column: Int?

        /// Makes a location.
        public init(offset: Int, line: Int? = nil, column: Int? = nil) {
            self.offset = offset
            self.line = line
            self.column = column
        }

        public var description: String {
            if let line, let column { return "line \(line), column \(column) (byte \(offset))" }
            return "byte \(offset)"
        }
    }

    /// The class of failure.
    public var code: Code
    /// The format or component that failed, such as `JSON`, `bplist` or `gzip`.
    public var format: String
    /// What went wrong and, where it helps, what was expected.
    public var message: String
    /// Where in the input, when the error is about bytes.
    public var location: Location?
    /// Which value, when the error is about a value in a tree.
    public var path: PFKeyPath?

    /// Makes an error.
    /// - Parameters:
    ///   - code: the class of failure.
    ///   - format: the format or component that failed.
    ///   - message: what went wrong and what was expected.
    ///   - location: where in the input.
    ///   - path: which value.
    public init(_ code: Code, format: String, _ message: String, location: Location? = nil, path: PFKeyPath? = nil) {
        self.code = code
        self.format = format
        self.message = message
        self.location = location
        self.path = path
    }

    /// Makes an error at a byte offset.
    public init(_ code: Code, format: String, _ message: String, offset: Int, path: PFKeyPath? = nil) {
        self.init(code, format: format, message, location: Location(offset: offset), path: path)
    }

    public var description: String {
        var out = "\(format): \(message)"
        if let location { out += " at \(location)" }
        if let path, !path.isRoot { out += " (at \(path))" }
        return out
    }

    /// The same error with a path attached (kept if one is already there).
    public func at(_ path: PFKeyPath) -> PFError {
        var copy = self
        if copy.path == nil || copy.path?.isRoot == true { copy.path = path }
        return copy
    }
}
