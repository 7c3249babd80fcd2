import Foundation
import PFCompression
import PFCore
import ZIPFoundation

/// Reads the files of a `.zip` archive held in memory, through ZIPFoundation: the central
/// directory, then each entry's stored or deflated data, checked against its CRC-32 and
/// size. Every entry is bounded while it inflates (``PFCompression/InflationGuard``): it may
/// not grow past its declared size, ``PFCore/PFLimits/maxDecompressedBytes`` or
/// ``PFCore/PFLimits/maxCompressionRatio``, so a zip bomb stops early.
///
/// ```swift
/// let zip = try ZipReader(bytes)
/// for entry in zip.entries where entry.name.hasSuffix(".json") {
///     let json = try zip.contents(of: entry)
/// }
/// ```
public struct ZipReader: Sendable {
    /// One file (or directory) in the archive.
    public struct Entry: Sendable, Equatable {
        /// The path inside the archive, `/`-separated (directories end with `/`).
        public var name: String
        /// The compression method: 0 stored, 8 deflate.
        public var method: UInt16
        /// The CRC-32 of the uncompressed data.
        public var crc32: UInt32
        /// The size of the data in the archive.
        public var compressedSize: Int
        /// The size of the uncompressed data.
        public var uncompressedSize: Int
        /// Whether the entry is a directory.
        public var isDirectory: Bool { name.hasSuffix("/") }
    }

    /// The archive's bytes.
    public let bytes: Data
    /// The entries, in central-directory order.
    public let entries: [Entry]
    /// Budgets: `maxDecompressedBytes` and `maxCompressionRatio` bound each entry,
    /// `maxCollectionCount` the entry count.
    public let limits: PFLimits

    static let format: PFError.Format = .zip

    /// Whether bytes start like a zip archive (`PK\u{3}\u{4}`, or `PK\u{5}\u{6}` when empty).
    /// - Parameter bytes: the file's first bytes.
    /// - Returns: `true` for a zip signature.
    public static func isZip(_ bytes: Data) -> Bool {
        let head = Array(bytes.prefix(4))
        return head == [0x50, 0x4B, 0x03, 0x04] || head == [0x50, 0x4B, 0x05, 0x06]
    }

    /// Reads the central directory.
    /// - Parameters:
    ///   - bytes: the archive.
    ///   - limits: budgets for the entries.
    /// - Throws: ``PFCore/PFError`` `syntax` when the archive is truncated or malformed,
    ///   `limitExceeded` when it has more than `maxCollectionCount` entries.
    public init(_ bytes: Data, limits: PFLimits = .default) throws(PFError) {
        self.bytes = bytes
        self.limits = limits
        guard bytes.count <= limits.maxInputBytes else {
            throw PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: Self.format)
        }
        let archive = try Self.open(bytes)
        var entries: [Entry] = []
        for entry in archive {
            guard entries.count < limits.maxCollectionCount else {
                throw PFLimits.exceeded("maxCollectionCount", limits.maxCollectionCount, format: Self.format)
            }
            entries.append(Entry(
                name: entry.path, method: entry.isCompressed ? 8 : 0, crc32: entry.checksum,
                compressedSize: Int(clamping: entry.compressedSize), uncompressedSize: Int(clamping: entry.uncompressedSize)))
        }
        self.entries = entries
    }

    /// The uncompressed contents of an entry, checked against its size and CRC-32.
    /// - Parameter entry: one of ``entries``.
    /// - Returns: the data.
    /// - Throws: ``PFCore/PFError`` naming the entry: `limitExceeded` when it would inflate
    ///   past the limits, `invalidValue` past its declared size, `syntax` for a CRC or size
    ///   mismatch, an unsupported method or corrupt data.
    public func contents(of entry: Entry) throws(PFError) -> Data {
        guard let index = entries.firstIndex(where: { $0.name == entry.name }) else {
            throw PFError(CompressionFailure.zipNoSuchEntry("'\(entry.name)'"), format: Self.format)
        }
        let found = entries[index]
        var budget = InflationGuard(name: "'\(entry.name)'", declaredSize: UInt64(found.uncompressedSize),
                                    compressedSize: UInt64(found.compressedSize), limits: limits, format: Self.format)
        try budget.checkDeclared()
        if found.isDirectory { return Data() }
        // Inflated chunk by chunk with the ratio judged against the compressed bytes read so
        // far (ZipEntryData), so a bomb stops within a MiB past the ratio instead of being
        // collected here whole first.
        let bytes = self.bytes
        let directory = try ZipEntryData(size: UInt64(bytes.count), format: Self.format, maxRecords: limits.maxCollectionCount) {
            (offset: UInt64, count: Int) throws(PFError) -> Data in
            let start = bytes.startIndex + Int(clamping: min(offset, UInt64(bytes.count)))
            return bytes[start..<min(start + count, bytes.endIndex)]
        }
        var data = Data()
        data.reserveCapacity(Int(clamping: min(UInt64(found.uncompressedSize), 64 << 20)))
        do throws(PFError) {
            try directory.stream(index, budget: &budget, chunkSize: Inflater.chunkSize) { chunk throws(PFError) in
                data.append(contentsOf: chunk)
            }
        } catch {
            var e = error
            if case .zipChecksumMismatch? = e.failure(as: CompressionFailure.self) { e.code = .syntax }
            throw e
        }
        return data
    }

    // MARK: - Helpers

    static func open(_ bytes: Data) throws(PFError) -> Archive {
        guard ZipEntryData.hasEndRecord(bytes) else {
            throw PFError(FormatsFailure.zipUnreadable(detail: "no end of central directory record"), format: Self.format)
        }
        do {
            return try Archive(data: bytes, accessMode: .read)
        } catch {
            throw PFError(FormatsFailure.zipUnreadable(detail: describe(error)), format: Self.format)
        }
    }

    static func describe(_ error: any Error) -> String {
        if let e = error as? Archive.ArchiveError { return "\(e)" }
        return error.localizedDescription
    }
}
