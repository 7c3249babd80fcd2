import Foundation
import OrderedCollections
import PFCore

/// Reads binary property lists (`bplist00`) into ``PFValue`` trees.
///
/// The reader validates the trailer, every offset, count and object reference against the
/// file with overflow-checked arithmetic, decodes each object once (shared objects are
/// reused, not re-decoded), rejects reference cycles, and enforces ``PFLimits``: nesting
/// depth, the total number of nodes of the expanded tree, collection sizes and string
/// lengths. See `Docs/BinaryPlist.md` for the exact policies.
///
/// ```swift
/// let value = try BinaryPlistReader().read(bytes)
/// ```
public struct BinaryPlistReader: Sendable {
    /// How the reader treats its input.
    public struct Options: Sendable {
        /// The resource budgets for one read.
        public var limits: PFLimits = .default

        /// Makes options.
        /// - Parameter limits: the resource budgets for one read.
        public init(limits: PFLimits = .default) {
            self.limits = limits
        }
    }

    /// The options this reader uses.
    public var options: Options

    /// Makes a reader.
    /// - Parameter options: how to treat the input.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// Decodes a whole `bplist00` file.
    ///
    /// Null objects (`0x00`) read as ``PFValue/null``, sets (`0xC`) as arrays, 32-bit reals
    /// widen to `Double`, 128-bit integers are accepted when they fit `Int64` or `UInt64`,
    /// and a dictionary key that repeats keeps its first position and its last value.
    /// - Parameter bytes: the file's bytes.
    /// - Returns: the root object's value.
    /// - Throws: ``PFError`` with format `bplist` and code
    ///   ``PFError/Code/syntax`` (bad magic, trailer, marker, offset or reference),
    ///   ``PFError/Code/truncated`` (an object or count runs past the object area),
    ///   ``PFError/Code/unsupported`` (another version such as `bplist15`, or a v1x type),
    ///   ``PFError/Code/invalidValue`` (a cycle, a non-string key, a NaN or infinite date,
    ///   a non-ASCII byte in an ASCII string, an unpaired surrogate, a UID above
    ///   `UInt32.max`, a 128-bit integer outside 64 bits), or
    ///   ``PFError/Code/limitExceeded`` (`maxInputBytes`, `maxDepth`, `maxNodes`,
    ///   `maxCollectionCount`, `maxStringBytes`). Errors carry the byte offset of the
    ///   offending object or field and, when inside a collection, the key path to it.
    public func read(_ bytes: Data) throws(PFError) -> PFValue {
        let limits = options.limits
        guard bytes.count <= limits.maxInputBytes else {
            throw PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: BinaryPlistLayout.format, offset: 0)
        }
        return try bytes.withBytes { buffer throws(PFError) -> PFValue in
            let info = try BinaryPlistInfo.parse(buffer)
            var scanner = BinaryPlistScanner(buffer: buffer, info: info, limits: limits)
            return try scanner.decode(info.topObject, depth: 0).0
        }
    }

    /// How a file holds records, for a record-at-a-time read (``readRecords(_:record:)``).
    public struct RecordsShape: Sendable, Equatable {
        /// Whether the records are the `results` array of a wrapper dictionary (else the
        /// root is their array).
        public var wrapped: Bool
        /// How many members the wrapper has besides `results`.
        public var otherMembers: Int
    }

    /// Whether the file's root is an array (or set) of records, or a dictionary whose first
    /// key is `results` (held once) with an array as its value, as a Parse export's
    /// `{"results": […]}` is; decodes only the trailer, the root and the wrapper's keys.
    /// - Parameter bytes: the file's bytes.
    /// - Returns: the shape, or `nil` for any other root, and for a file whose trailer or
    ///   root is damaged (``read(_:)`` reports why).
    public func recordsShape(_ bytes: Data) -> RecordsShape? {
        guard bytes.count <= options.limits.maxInputBytes else { return nil }
        return bytes.withUnsafeBytes { buffer -> RecordsShape? in
            guard let info = try? BinaryPlistInfo.parse(buffer) else { return nil }
            var scanner = BinaryPlistScanner(buffer: buffer, info: info, limits: options.limits, sparse: true)
            return scanner.recordsLayout().map { RecordsShape(wrapped: $0.wrapper != nil, otherMembers: $0.others.count) }
        }
    }

    /// Decodes the records of a file of ``recordsShape(_:)``'s shape one at a time, handing
    /// each to `record` as soon as it is decoded, in memory bounded by the largest record
    /// (and the file's bytes): no table grows with the file's object count, and only the
    /// current record's objects are remembered (and a bounded cache of short scalars), so an
    /// object two records share is decoded in each. Every record is the value ``read(_:)`` gives for it, and every check and
    /// limit of ``read(_:)`` applies (the records' nodes count together against `maxNodes`).
    /// - Parameters:
    ///   - bytes: the file's bytes.
    ///   - record: receives each record, in order.
    /// - Returns: the wrapper's other members (after the records, in file order), or `nil`
    ///   when the root is the records' array.
    /// - Throws: ``PFError`` as ``read(_:)`` does, with ``BinaryPlistFailure/notRecords``
    ///   when the root is not of a records shape, and whatever `record` throws.
    public func readRecords(
        _ bytes: Data, record: (PFValue) throws(PFError) -> Void
    ) throws(PFError) -> OrderedDictionary<String, PFValue>? {
        let limits = options.limits
        guard bytes.count <= limits.maxInputBytes else {
            throw PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: BinaryPlistLayout.format, offset: 0)
        }
        return try bytes.withBytes { buffer throws(PFError) -> OrderedDictionary<String, PFValue>? in
            let info = try BinaryPlistInfo.parse(buffer)
            var scanner = BinaryPlistScanner(buffer: buffer, info: info, limits: limits, sparse: true)
            guard let layout = scanner.recordsLayout() else {
                throw PFError(BinaryPlistFailure.notRecords, offset: BinaryPlistLayout.headerSize)
            }
            return try scanner.readRecords(layout, record: record)
        }
    }

    /// Reads and validates the header and the 32-byte trailer without decoding any object.
    ///
    /// This is what `pfarchive inspect` prints. Object offsets are checked only when
    /// objects are read.
    /// - Parameter bytes: the file's bytes.
    /// - Returns: the trailer fields, the object count and the file size.
    /// - Throws: ``PFError`` with format `bplist` and code ``PFError/Code/syntax`` (not a
    ///   binary property list, or an inconsistent trailer), ``PFError/Code/truncated``
    ///   (shorter than 42 bytes) or ``PFError/Code/unsupported`` (a version other than `00`).
    public static func info(_ bytes: Data) throws(PFError) -> BinaryPlistInfo {
        try bytes.withBytes { buffer throws(PFError) in try BinaryPlistInfo.parse(buffer) }
    }

    /// Whether the bytes start with the magic `bplist00`.
    /// - Parameter bytes: the start of a file (or all of it).
    /// - Returns: `true` when the first eight bytes are `bplist00`.
    public static func hasMagic(_ bytes: Data) -> Bool {
        // One 8-byte load: every blob of a database is asked this first.
        guard bytes.count >= BinaryPlistLayout.headerSize else { return false }
        return bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) } == magicWord
    }

    /// `bplist00` as one native-endian word.
    private static let magicWord: UInt64 = BinaryPlistLayout.magic.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
}
