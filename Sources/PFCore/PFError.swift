/// The error every pfarchive reader and writer throws: what went wrong, where, and what was
/// expected.
///
/// A syntax error in bytes carries a ``Location`` (byte offset, and line and column for text
/// formats); an error about a value carries the ``path`` of that value in the tree. The
/// ``description`` is one line, ready for a command line:
/// `JSON: unexpected character 'x' at line 1, column 5 (byte 4); expected a value`.
///
/// An error made from a module's failure case (a ``PFFailure``) carries that case in
/// ``failure``, so code and tests can match what went wrong without reading the text:
/// `error.failure(as: PlistFailure.self) == .badTrailer`.
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

    /// The format or component that failed. Its ``description`` is the name every message
    /// starts with, such as `JSON` or `bplist`.
    public enum Format: String, Sendable, CaseIterable, CustomStringConvertible {
        // Serialization formats.
        /// JSON text.
        case json = "JSON"
        /// A binary property list.
        case bplist
        /// An XML property list.
        case xmlPlist = "XML plist"
        /// CBOR (RFC 8949).
        case cbor = "CBOR"
        /// NeXTSTEP/Apple typedstream.
        case typedstream
        /// An `NSKeyedArchiver` archive.
        case keyedArchive = "keyed archive"
        /// The JSON form of a keyed archive's object graph.
        case keyedJSON = "keyed JSON"
        /// A zip archive.
        case zip
        /// A zlib stream.
        case zlib
        /// A gzip file.
        case gzip
        /// Raw deflate data.
        case deflate
        // Components.
        /// The bytes given to a reader, before any format is chosen.
        case input
        /// A file being written.
        case output
        /// A key path's text form (``PFKeyPath``).
        case keyPath = "key path"
        /// A JSON Pointer (RFC 6901).
        case jsonPointer = "JSON Pointer"
        /// A JSON Patch (RFC 6902).
        case jsonPatch = "JSON Patch"
        /// Comparing two values or stores.
        case diff
        /// A versioned document's migration.
        case migration
        /// A versioned document's schema file.
        case schema
        /// A Core Data SQLite store.
        case coreData = "Core Data"
        /// A Core Data model (`.mom`, `.momd`, `.xcdatamodeld`).
        case coreDataModel = "Core Data model"
        /// The Parse object model and its adapter.
        case parse = "Parse"
        /// A graph of Parse objects being copied.
        case parseGraph = "parse"
        /// Copying an object graph between stores.
        case graphCopy = "graph copy"
        /// A copy rules file.
        case copyRules = "copy rules"
        // Stores.
        /// Any store (the store protocols and the in-memory store).
        case store
        /// A store written as a keyed archive.
        case storeArchive = "store archive"
        /// A Parse export (a directory or zip of JSON files).
        case parseExport = "Parse export"
        /// A MongoDB-shaped export.
        case mongoShape = "Mongo shape"
        /// A SQLite store.
        case sqlite = "SQLite"
        /// A PostgreSQL store.
        case postgres
        /// A Realm file.
        case realm = "Realm"

        /// The name messages use.
        public var description: String { rawValue }
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
    public var format: Format
    /// What went wrong and, where it helps, what was expected.
    public var message: String
    /// Where in the input, when the error is about bytes.
    public var location: Location?
    /// Which value, when the error is about a value in a tree.
    public var path: PFKeyPath?
    /// The module's failure case this error was made from, if it was made from one; match
    /// it with ``failure(as:)``.
    public var failure: (any PFFailure)?

    /// Makes an error.
    /// - Parameters:
    ///   - code: the class of failure.
    ///   - format: the format or component that failed.
    ///   - message: what went wrong and what was expected.
    ///   - location: where in the input.
    ///   - path: which value.
    public init(_ code: Code, format: Format, _ message: String, location: Location? = nil, path: PFKeyPath? = nil) {
        self.code = code
        self.format = format
        self.message = message
        self.location = location
        self.path = path
    }

    /// Makes an error at a byte offset.
    public init(_ code: Code, format: Format, _ message: String, offset: Int, path: PFKeyPath? = nil) {
        self.init(code, format: format, message, location: Location(offset: offset), path: path)
    }

    /// Makes an error from a module's failure case, which gives its code and message.
    /// - Parameters:
    ///   - failure: what went wrong.
    ///   - format: the format or component that failed.
    ///   - location: where in the input.
    ///   - path: which value.
    public init(_ failure: some PFFailure, format: Format, location: Location? = nil, path: PFKeyPath? = nil) {
        self.init(failure.code, format: format, failure.message, location: location, path: path)
        self.failure = failure
    }

    /// Makes an error from a module's failure case at a byte offset.
    public init(_ failure: some PFFailure, format: Format, offset: Int, path: PFKeyPath? = nil) {
        self.init(failure, format: format, location: Location(offset: offset), path: path)
    }

    /// The failure case this error was made from, if it is of type `type`.
    /// - Parameter type: a module's failure enum, such as `CompressionFailure`.
    /// - Returns: the case, or `nil` when the error was made from another type or from text.
    public func failure<F: PFFailure>(as type: F.Type) -> F? { failure as? F }

    public static func == (lhs: PFError, rhs: PFError) -> Bool {
        guard lhs.code == rhs.code, lhs.format == rhs.format, lhs.message == rhs.message,
            lhs.location == rhs.location, lhs.path == rhs.path
        else { return false }
        switch (lhs.failure, rhs.failure) {
        case (nil, nil): return true
        case (let l?, let r?): return l.isEqual(to: r)
        default: return false
        }
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

    /// The same error with `component` put in front of its path: readers and writers call
    /// this while an error unwinds through a tree walk, so a path costs nothing until
    /// something fails.
    public func prefixed(_ component: PFKeyPath.Component) -> PFError {
        var copy = self
        copy.path = PFKeyPath([component] + (path?.components ?? []))
        return copy
    }

    /// The same error with `prefix` put in front of its path.
    public func prefixed(by prefix: PFKeyPath) -> PFError {
        var copy = self
        copy.path = PFKeyPath(prefix.components + (path?.components ?? []))
        return copy
    }
}
