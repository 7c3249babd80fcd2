import Foundation
import PFCore

/// Writes a ``PFValue`` tree as JSON text (RFC 8259, UTF-8).
///
/// The default engine is pfarchive's own serializer, which appends to a `[UInt8]` scratch
/// buffer; ``Engine/jsonC`` builds a json-c tree and lets json-c print it (used to
/// cross-check the two and for benchmarks).
///
/// ```swift
/// let bytes = try JSONWriter(options: .init(pretty: true)).write(["a": [1, 2.5, "x"]])
/// ```
///
/// Doubles are written as the shortest text that reads back to the same bits, always as
/// doubles (`1.0`, `1e+20`, `-0.0`); NaN and the infinities cannot be written.
public struct JSONWriter: Sendable {
    /// Which serializer produces the text.
    public enum Engine: Sendable {
        /// pfarchive's own serializer (fast, the default).
        case native
        /// json-c's `json_object_to_json_string_ext` over a json-c tree built from the value.
        case jsonC
    }

    /// Writer settings, copied into each write.
    public struct Options: Sendable {
        /// Two-space indentation, `"key": value`, and a trailing newline. Default `false`.
        public var pretty: Bool
        /// Whether dates, data and UIDs are written as typed objects
        /// (`{"__type":"Date","iso":…}`, `{"__type":"Bytes","base64":…}`, `{"CF$UID":N}`).
        /// When `false` they are `unrepresentable`. Default `true`.
        public var typedValues: Bool
        /// Whether object keys are written in UTF-8 byte order rather than tree order.
        /// Default `false`.
        public var sortedKeys: Bool
        /// Whether `/` is written as `\/`. Default `false`.
        public var escapeSlashes: Bool
        /// The serializer. Default ``Engine/native``.
        public var engine: Engine = .native
        /// Deepest nesting written; deeper trees are `limitExceeded` (the writer recurses).
        /// Default 512 (the json-c engine never goes past 512).
        public var maxDepth: Int = 512
        /// Whether a large value (native engine) is written on several threads when the
        /// machine has more than one processor: the writer cuts the tree into batches that
        /// threads write side by side, and puts their text in place. Default `true`. The text
        /// and the errors are the one-thread write's. See `Docs/JSON.md`.
        public var parallel: Bool = true
        /// Whether the text is for a PostgreSQL `jsonb` value: `jsonb` keeps numbers as
        /// `numeric`, which keeps digits after the point but not an exponent, so a double
        /// without a fraction is written with every integer digit and `.0`
        /// (`100000000000000000000.0`, never `1e+20`), and `jsonb` cannot hold U+0000, so a
        /// string or key holding it is `unrepresentable`. One thread only. Default `false`.
        @usableFromInline package var jsonb = false
        /// The least weight (about one per value; strings and data also by their length)
        /// written in parallel: about half a millisecond of writing, below which waking a
        /// thread costs more than it saves. Tests lower it to write small values both ways.
        var parallelThreshold = 32768
        /// The weight of one batch of a parallel write.
        var parallelBatchWeight = 4096

        /// Makes writer settings.
        /// - Parameters:
        ///   - pretty: indent with two spaces and end with a newline.
        ///   - typedValues: write dates, data and UIDs as typed objects.
        ///   - sortedKeys: write object keys in UTF-8 byte order.
        ///   - escapeSlashes: write `/` as `\/`.
        public init(pretty: Bool = false, typedValues: Bool = true, sortedKeys: Bool = false, escapeSlashes: Bool = false) {
            self.pretty = pretty
            self.typedValues = typedValues
            self.sortedKeys = sortedKeys
            self.escapeSlashes = escapeSlashes
        }
    }

    /// The settings used by ``write(_:)``.
    public var options: Options

    /// Makes a writer.
    /// - Parameter options: the settings.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// Writes a value as JSON.
    /// - Parameter value: the tree to write.
    /// - Returns: UTF-8 JSON text.
    /// - Throws: ``PFError`` with code `unrepresentable` and the value's key path for NaN or
    ///   ±infinity, a date outside years 0–9999, a UID above 4294967295, a date, data or UID
    ///   when `typedValues` is off, or (json-c engine only) a key containing U+0000;
    ///   `limitExceeded` for a tree deeper than `maxDepth`.
    public func write(_ value: PFValue) throws(PFError) -> Data {
        var buffer: [UInt8] = []
        try write(value, into: &buffer)
        return Data(buffer)
    }

    /// Appends a value as JSON to a buffer.
    /// - Parameters:
    ///   - value: the tree to write.
    ///   - buffer: where the text is appended; on error it is left as it was.
    /// - Throws: ``PFError`` as ``write(_:)`` does.
    public func write(_ value: PFValue, into buffer: inout [UInt8]) throws(PFError) {
        switch options.engine {
        case .native:
            var writer = JSONNativeWriter(options: options, out: buffer)
            buffer = []  // hand the storage over so appends do not copy it
            defer { buffer = writer.out }
            try writer.writeDocument(value)
        case .jsonC:
            try JSONCWriter(options: options).write(value, into: &buffer)
        }
    }
}
