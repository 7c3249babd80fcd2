import Foundation
import OrderedCollections
import PFCore

// MARK: - CBORReader

/// Reads CBOR (RFC 8949) into a ``PFValue`` tree.
///
/// The reader is a scanner over the input bytes that never traps and never allocates in
/// proportion to a length the input merely claims. It enforces ``PFLimits``: nesting depth
/// (arrays, maps, tags and indefinite-length items all count), total nodes (a shared value
/// counts again at every reference), elements per array or map, and bytes per string.
///
/// See `Docs/CBOR.md` for the mapping of CBOR data items to ``PFValue`` and every policy.
public struct CBORReader: Sendable {
    /// How the reader treats its input.
    public struct Options: Sendable {
        /// The resource budgets enforced on the input.
        public var limits: PFLimits = .default

        /// Makes reader options.
        /// - Parameter limits: the resource budgets enforced on the input.
        public init(limits: PFLimits = .default) {
            self.limits = limits
        }
    }

    /// The options this reader uses.
    public var options: Options

    /// Makes a reader.
    /// - Parameter options: how the reader treats its input.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// Reads one CBOR data item that fills the whole input.
    ///
    /// - Parameter bytes: the encoded item, optionally prefixed by the self-describe tag
    ///   55799.
    /// - Returns: the decoded value tree.
    /// - Throws: ``PFError`` with code ``PFError/Code/truncated`` when the input ends inside
    ///   an item; ``PFError/Code/syntax`` for malformed bytes (reserved additional
    ///   information 28–30, a misplaced break, a bad indefinite-length chunk, a two-byte
    ///   simple value below 32, trailing bytes after the item);
    ///   ``PFError/Code/invalidValue`` for well-formed but invalid items (bad UTF-8, a
    ///   duplicate map key, a negative integer below `Int64.min`, a bad tag content, a
    ///   cyclic or dangling shared reference); ``PFError/Code/unsupported`` for valid CBOR
    ///   that pfarchive does not map (non-text map keys, bignums wider than 64 bits,
    ///   unassigned simple values, string references); ``PFError/Code/limitExceeded`` when
    ///   a ``PFLimits`` budget is exceeded. Every error carries the byte offset, and the key
    ///   path when it is about a value inside a container.
    public func read(_ bytes: Data) throws(PFError) -> PFValue {
        try CBORReader.scan(bytes, limits: options.limits) { (scanner: inout CBORScanner) throws(PFError) in
            try scanner.document()
        }
    }

    /// How a document holds records, for a record-at-a-time read (``readRecords(_:record:)``).
    public struct RecordsShape: Sendable, Equatable {
        /// Whether the records are the `results` array of a wrapper map (else the document
        /// is their array).
        public var wrapped: Bool
        /// How many members the wrapper has besides `results`; `nil` for an indefinite-length
        /// map (known only at its end).
        public var otherMembers: Int?
    }

    /// Whether the document (after any self-describe tags) is an array of records, definite
    /// or indefinite, or a map whose first key is `results` with an array as its value, as
    /// a Parse export's `{"results": […]}` is; reads only the first heads and that key.
    /// - Parameter bytes: the document.
    /// - Returns: the shape, or `nil` for any other document (``read(_:)`` reads it whole).
    public func recordsShape(_ bytes: Data) -> RecordsShape? {
        guard bytes.count <= options.limits.maxInputBytes else { return nil }
        return try? CBORReader.scan(bytes, limits: options.limits) { (scanner: inout CBORScanner) throws(PFError) -> RecordsShape? in
            scanner.recordsShape().map { RecordsShape(wrapped: $0.wrapped, otherMembers: $0.others) }
        }
    }

    /// Reads a document of ``recordsShape(_:)``'s shape as ``read(_:)`` does — every check,
    /// limit and nesting depth, shared values (tag 28) available to later records — but
    /// hands each record to `record` as soon as it is read, so memory is bounded by the
    /// largest record (and the shared values) besides the input's bytes.
    /// - Parameters:
    ///   - bytes: the document.
    ///   - record: receives each record, in order.
    /// - Returns: the wrapper's other members (read after the records), or `nil` when the
    ///   document is the records' array.
    /// - Throws: ``PFError`` as ``read(_:)`` does, ``CBORFailure/notRecords`` when the
    ///   document is not of a records shape, and whatever `record` throws.
    public func readRecords(
        _ bytes: Data, record: (PFValue) throws(PFError) -> Void
    ) throws(PFError) -> OrderedDictionary<String, PFValue>? {
        try CBORReader.scan(bytes, limits: options.limits) { (scanner: inout CBORScanner) throws(PFError) in
            try scanner.records(record)
        }
    }

    /// Reads the input as ``read(_:)`` does and reports what it holds, for `pfarchive inspect`.
    ///
    /// - Parameters:
    ///   - bytes: the encoded item.
    ///   - limits: the resource budgets enforced on the input.
    /// - Returns: the tags seen (tag number → how many times), the number of data items (tags
    ///   and breaks are not items; a shared reference is one item), and whether the input uses
    ///   indefinite lengths or starts with the self-describe tag, and how many `undefined`
    ///   values it holds.
    /// - Throws: ``PFError`` exactly when ``read(_:)`` would throw.
    public static func info(_ bytes: Data, limits: PFLimits = .default) throws(PFError) -> CBORInfo {
        try scan(bytes, limits: limits) { (scanner: inout CBORScanner) throws(PFError) in
            // The check a walk makes first (the whole read's, with its errors), keeping no
            // container: what is counted does not need the tree.
            scanner.measure = CBORMeasure(threshold: .max)
            _ = try scanner.document()
            return CBORInfo(
                tags: scanner.tagCounts, items: scanner.items, hasIndefiniteLengths: scanner.hasIndefiniteLengths,
                hasSelfDescribeTag: scanner.hasSelfDescribeTag, undefinedValues: scanner.undefinedCount)
        }
    }

    /// ``info(_:limits:)`` for a CBOR sequence (RFC 8742): the counts over all its items.
    /// - Parameters:
    ///   - bytes: the items, one after another.
    ///   - limits: the resource budgets, over the whole sequence.
    /// - Returns: the tags, items, indefinite lengths and `undefined` values of every item.
    /// - Throws: ``PFError`` for an item that does not read, or a sequence beyond the limits.
    public static func sequenceInfo(_ bytes: Data, limits: PFLimits = .default) throws(PFError) -> CBORInfo {
        try scan(bytes, limits: limits) { (scanner: inout CBORScanner) throws(PFError) in
            scanner.measure = CBORMeasure(threshold: .max)
            while scanner.pos < scanner.end { _ = try scanner.value(depth: 0) }
            return CBORInfo(
                tags: scanner.tagCounts, items: scanner.items, hasIndefiniteLengths: scanner.hasIndefiniteLengths,
                hasSelfDescribeTag: scanner.hasSelfDescribeTag, undefinedValues: scanner.undefinedCount)
        }
    }

    /// Whether the bytes plausibly start with CBOR.
    ///
    /// The strong sign is the self-describe tag 55799 (`D9 D9 F7`). The weaker sign is a
    /// first byte that is an array or map header (`0x80`–`0x9B`, `0x9F`, `0xA0`–`0xBB`,
    /// `0xBF`) whose declared element count fits in the bytes that follow (one byte at least
    /// per array element, two per map member). Such a first byte cannot start JSON, an XML or
    /// binary property list, gzip or zlib, which all begin with ASCII or `0x1F`/`0x78`. A
    /// top-level scalar is CBOR too but is not recognised: it is indistinguishable from text.
    ///
    /// - Parameter bytes: the start of the input (a few bytes are enough when the count is
    ///   small; the count check looks at the whole input).
    /// - Returns: `true` when the input starts like CBOR by the rules above.
    public static func hasMagic(_ bytes: Data) -> Bool {
        let head = Array(bytes.prefix(9))
        guard let first = head.first else { return false }
        if head.count >= 3, head[0] == 0xD9, head[1] == 0xD9, head[2] == 0xF7 { return true }
        let major = first >> 5
        let ai = first & 0x1F
        guard major == 4 || major == 5 else { return false }
        if ai == 31 { return bytes.count >= 2 }
        let argumentBytes: Int
        switch ai {
        case 0..<24: argumentBytes = 0
        case 24: argumentBytes = 1
        case 25: argumentBytes = 2
        case 26: argumentBytes = 4
        case 27: argumentBytes = 8
        default: return false
        }
        guard head.count >= 1 + argumentBytes else { return false }
        var count: UInt64 = argumentBytes == 0 ? UInt64(ai) : 0
        for i in 0..<argumentBytes { count = count << 8 | UInt64(head[1 + i]) }
        let perElement: UInt64 = major == 5 ? 2 : 1
        let available = UInt64(bytes.count - 1 - argumentBytes)
        return count <= available / perElement
    }

    // MARK: - Scanning

    /// Runs `body` over a scanner of `bytes`, after the checks every entry point shares.
    static func scan<T>(
        _ bytes: Data, limits: PFLimits, _ body: (inout CBORScanner) throws(PFError) -> T
    ) throws(PFError) -> T {
        guard bytes.count <= limits.maxInputBytes else {
            throw PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: CBORScanner.format, offset: 0)
        }
        guard !bytes.isEmpty else {
            throw PFError(CBORFailure.emptyInput, offset: 0)
        }
        return try bytes.withBytes { raw throws(PFError) -> T in
            guard let base = raw.baseAddress else {
                throw PFError(CBORFailure.emptyInput, offset: 0)
            }
            var scanner = CBORScanner(base: base, count: raw.count, limits: limits)
            return try body(&scanner)
        }
    }
}
