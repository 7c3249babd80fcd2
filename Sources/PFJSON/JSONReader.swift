import CPFJSONC
import Foundation
import PFCore

/// Reads JSON text (RFC 8259) into a ``PFValue`` tree, through json-c, with pfarchive's own
/// strictness and safety checks on top.
///
/// Reading is two passes over the bytes: a fast pre-scan of pfarchive's own validates what
/// json-c does not (full UTF-8, the RFC 8259 number grammar, raw control characters, lone
/// surrogate escapes, 64-bit integer range, trailing bytes, keys containing U+0000, limits)
/// and counts the members of every object; then json-c's tokener builds its tree, which is
/// converted into a ``PFValue`` in one walk and freed.
///
/// ```swift
/// let value = try JSONReader().read(Data(#"{"a": [1, 2.5, "x"]}"#.utf8))
/// ```
///
/// See `Docs/JSON.md` for every policy and limit.
public struct JSONReader: Sendable {
    /// How forgiving the reader is.
    public enum Mode: Sendable {
        /// RFC 8259 exactly: every JSONTestSuite `n_` file is rejected, duplicate keys and a
        /// byte order mark are errors.
        case strict
        /// Sloppy JSON as found in the wild: comments, trailing commas, single-quoted
        /// strings, `NaN`/`Infinity`, a byte order mark, raw control characters, invalid
        /// UTF-8 (replaced by U+FFFD), lone surrogate escapes (U+FFFD) and duplicate keys
        /// (the last value wins). Limits, integer range and U+0000 in keys are still checked.
        case lenient
    }

    /// Reader settings, copied into each read.
    public struct Options: Sendable {
        /// Strict (default) or lenient syntax.
        public var mode: Mode
        /// Whether Parse's typed objects become typed values: `{"__type":"Date","iso":…}`
        /// a ``PFValue/date(_:)``, `{"__type":"Bytes","base64":…}` a ``PFValue/data(_:)``,
        /// and `{"CF$UID": N}` a ``PFValue/uid(_:)``. Default `true`.
        public var typedValues: Bool
        /// Resource budgets. The nesting depth is also capped at
        /// ``JSONReader/maximumSupportedDepth`` whatever `limits.maxDepth` says.
        public var limits: PFLimits
        /// Longest number token accepted, in bytes. Default 4096 (a 1 MB number would
        /// otherwise cost json-c a slow conversion for nothing a double can hold).
        public var maxNumberLength: Int = 4096

        /// Makes reader settings.
        /// - Parameters:
        ///   - mode: strict (default) or lenient syntax.
        ///   - typedValues: whether typed objects become dates, data and UIDs.
        ///   - limits: resource budgets.
        public init(mode: Mode = .strict, typedValues: Bool = true, limits: PFLimits = .default) {
            self.mode = mode
            self.typedValues = typedValues
            self.limits = limits
        }
    }

    /// The deepest nesting any read accepts, whatever the limits say: json-c frees its
    /// trees recursively and crashes on very deep ones, so its depth never goes past this.
    public static let maximumSupportedDepth = 512

    /// The settings used by ``read(_:)-(Data)``.
    public var options: Options

    /// Makes a reader.
    /// - Parameter options: the settings.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// Reads one JSON document.
    /// - Parameter bytes: UTF-8 JSON text.
    /// - Returns: the value tree.
    /// - Throws: ``PFError`` with code `syntax` (malformed text, invalid UTF-8, a byte order
    ///   mark in strict mode), `truncated` (the text ends inside a value), `invalidValue`
    ///   (integer beyond 64 bits, number overflowing a double, lone surrogate escape,
    ///   duplicate key in strict mode, malformed typed object), `unsupported` (a key
    ///   containing U+0000) or `limitExceeded` (a ``PFLimits`` budget or the number length).
    public func read(_ bytes: Data) throws(PFError) -> PFValue {
        let result: Result<PFValue, PFError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(PFError) -> PFValue in try read(buffer) }
        }
        return try result.get()
    }

    /// Reads one JSON document from raw bytes.
    /// - Parameter bytes: UTF-8 JSON text.
    /// - Returns: the value tree.
    /// - Throws: ``PFError`` as ``read(_:)-(Data)`` does.
    public func read(_ bytes: UnsafeRawBufferPointer) throws(PFError) -> PFValue {
        let limits = options.limits
        guard bytes.count <= limits.maxInputBytes else {
            throw PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: JSONError.format, offset: 0)
        }
        // json-c takes an `int` length.
        guard bytes.count < Int(Int32.max) else {
            throw JSONError.make(.unsupported, "inputs of 2 GiB or more are not supported", offset: 0, in: bytes)
        }
        var scanner = JSONScanner(bytes: bytes, options: options)
        let scan = try scanner.scan()
        let tree = try JSONCTree.parse(bytes, from: scan.start, options: options, scanner: scanner)
        defer { tree.release() }
        var converter = JSONTreeConverter(options: options, objectCounts: scan.objectCounts,
                                          objectOffsets: scan.objectOffsets, input: bytes)
        return try converter.convertRoot(tree.root)
    }
}
