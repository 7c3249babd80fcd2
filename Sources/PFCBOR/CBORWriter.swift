import Foundation
import PFCore

// MARK: - CBORWriter

/// Writes a ``PFValue`` tree as CBOR (RFC 8949).
///
/// Integers always use preferred serialization (the shortest head), lengths are always
/// definite, dates are tag 1 around Unix epoch seconds, and UIDs use ``CBORTag/uid``. See
/// `Docs/CBOR.md` for the full mapping.
public struct CBORWriter: Sendable {
    /// How the writer encodes.
    public struct Options: Sendable {
        /// RFC 8949 §4.2.1 core deterministic encoding: every float in its shortest exact
        /// form (half, single or double; NaN as `f9 7e00`) and map keys sorted by the
        /// bytewise order of their encodings. Off: floats are float64 and maps keep their order.
        public var canonical: Bool = false
        /// Prefixes the output with the self-describe tag 55799 (`D9 D9 F7`).
        public var selfDescribe: Bool = false
        /// Writes a value that occurs more than once (an array or map with at least one
        /// element, or a string or byte string of at least 8 bytes) once under tag 28 and
        /// refers to it with tag 29 afterwards. Values are matched by equality.
        public var shareValues: Bool = false
        /// The budgets the writer enforces (``PFLimits/maxDepth``).
        public var limits: PFLimits = .default

        /// Makes writer options.
        /// - Parameters:
        ///   - canonical: use RFC 8949 core deterministic encoding.
        ///   - selfDescribe: prefix the self-describe tag 55799.
        ///   - shareValues: write repeated values once, with tags 28/29.
        ///   - limits: the budgets the writer enforces.
        public init(
            canonical: Bool = false, selfDescribe: Bool = false, shareValues: Bool = false, limits: PFLimits = .default
        ) {
            self.canonical = canonical
            self.selfDescribe = selfDescribe
            self.shareValues = shareValues
            self.limits = limits
        }
    }

    /// The options this writer uses.
    public var options: Options

    /// Makes a writer.
    /// - Parameter options: how the writer encodes.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// Encodes a value tree as one CBOR data item.
    ///
    /// - Parameter value: the tree to write.
    /// - Returns: the encoded bytes.
    /// - Throws: ``PFError`` with code ``PFError/Code/limitExceeded`` (and the path of the
    ///   container) when the tree nests deeper than ``PFLimits/maxDepth``.
    public func write(_ value: PFValue) throws(PFError) -> Data {
        var encoder = CBOREncoder(options: options)
        if options.selfDescribe { encoder.head(6, CBORTag.selfDescribed) }
        if options.shareValues { encoder.planSharing(value) }
        try encoder.encode(value, depth: 0)
        return Data(encoder.bytes)
    }
}

// MARK: - Heads for writers that emit the contents themselves

extension CBORWriter {
    /// The head of a definite-length array of `count` elements (major type 4, the shortest
    /// argument): what ``write(_:)`` puts before the elements' encodings, for a writer that
    /// encodes the elements one at a time (`RecordStream`'s whole-tree CBOR).
    /// - Parameter count: the number of elements.
    /// - Returns: the head's bytes.
    public static func arrayHead(count: Int) -> [UInt8] {
        var encoder = CBOREncoder(options: Options())
        encoder.head(4, UInt64(max(0, count)))
        return encoder.bytes
    }

    /// The head of a definite-length map of `count` members (major type 5), as
    /// ``arrayHead(count:)``.
    /// - Parameter count: the number of members.
    /// - Returns: the head's bytes.
    public static func mapHead(count: Int) -> [UInt8] {
        var encoder = CBOREncoder(options: Options())
        encoder.head(5, UInt64(max(0, count)))
        return encoder.bytes
    }
}
