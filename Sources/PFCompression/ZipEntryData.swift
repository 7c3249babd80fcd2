import CPFZlib
import Foundation
import PFCore

/// Streams one zip entry's data — stored, or raw deflate through ``Inflater`` — with its
/// ``InflationGuard`` judging every chunk against the compressed bytes consumed *so far*.
///
/// ZIPFoundation's `extract` inflates with its own loop and never says how much compressed
/// data it has read, so the only ratio a consumer could check was against the whole entry's
/// compressed size: a 1 MB bomb of 1 GB was inflated to the end before a 1,000:1 ratio
/// could be seen (and a reader collecting the entry held all of it). Here the ratio is
/// checked as the gzip path checks it, so a bomb stops within the first MiB past the limit,
/// in memory bounded by one chunk.
///
/// The archive is read through `read(offset, count)`, so a file (`pread`) and bytes in memory
/// share this code. Entries are found by their index in the central directory, the order in
/// which ZIPFoundation lists them.
public struct ZipEntryData {
    /// One central-directory record: where an entry's data is and what it should be.
    public struct Record: Sendable, Equatable {
        /// 0 stored, 8 deflate.
        public var method: UInt16
        /// The CRC-32 of the uncompressed data.
        public var crc32: UInt32
        /// The size of the data in the archive.
        public var compressedSize: UInt64
        /// The size of the uncompressed data.
        public var uncompressedSize: UInt64
        /// Where the entry's local header starts.
        public var localHeaderOffset: UInt64
    }

    /// Reads `count` bytes at `offset` of the archive (fewer only at its end).
    public typealias Reader = (_ offset: UInt64, _ count: Int) throws(PFError) -> Data

    /// The central directory's records, in order.
    public let records: [Record]
    private let read: Reader
    private let format: PFError.Format

    /// Reads the central directory (through ZIP64's end record when the archive has one).
    /// - Parameters:
    ///   - size: the archive's size in bytes.
    ///   - format: the `PFError.format` of errors.
    ///   - maxRecords: the most records accepted (`maxCollectionCount`).
    ///   - read: reads bytes of the archive.
    /// - Throws: ``PFCore/PFError`` `syntax` when the directory is malformed or cut short,
    ///   `limitExceeded` past `maxRecords`.
    public init(size: UInt64, format: PFError.Format, maxRecords: Int, read: @escaping Reader) throws(PFError) {
        self.read = read
        self.format = format
        func corrupt(_ what: String) -> PFError { PFError(CompressionFailure.zipDirectoryMalformed(what), format: format) }
        // The end-of-central-directory record: its signature in the last 64 KiB + 22 bytes.
        let tailCount = Int(min(size, UInt64(Self.tailLength)))
        let tail = [UInt8](try read(size - UInt64(tailCount), tailCount))
        guard let end = Self.endRecord(in: tail) else { throw corrupt("no end record") }
        var count = UInt64(Self.u16(tail, end + 10))
        var directorySize = UInt64(Self.u32(tail, end + 12))
        var directoryOffset = UInt64(Self.u32(tail, end + 16))
        if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            // ZIP64: the locator (20 bytes) precedes the end record and points at the ZIP64 end.
            guard end >= 20, Self.u32(tail, end - 20) == 0x0706_4B50 else { throw corrupt("no ZIP64 locator") }
            let zip64End = Self.u64(tail, end - 20 + 8)
            let record = [UInt8](try read(zip64End, 56))
            guard record.count == 56, Self.u32(record, 0) == 0x0606_4B50 else { throw corrupt("no ZIP64 end record") }
            count = Self.u64(record, 32)
            directorySize = Self.u64(record, 40)
            directoryOffset = Self.u64(record, 48)
        }
        guard count <= UInt64(max(0, maxRecords)) else {
            throw PFLimits.exceeded("maxCollectionCount", maxRecords, format: format)
        }
        guard directoryOffset <= size, directorySize <= size - directoryOffset, directorySize <= UInt64(Int.max) else {
            throw corrupt("it lies outside the archive")
        }
        let directory = [UInt8](try read(directoryOffset, Int(directorySize)))
        var records: [Record] = []
        var at = 0
        for _ in 0..<count {
            guard at + 46 <= directory.count, Self.u32(directory, at) == 0x0201_4B50 else { throw corrupt("record \(records.count)") }
            let nameLength = Int(Self.u16(directory, at + 28)), extraLength = Int(Self.u16(directory, at + 30))
            let commentLength = Int(Self.u16(directory, at + 32))
            guard at + 46 + nameLength + extraLength + commentLength <= directory.count else { throw corrupt("record \(records.count)") }
            var record = Record(
                method: Self.u16(directory, at + 10), crc32: Self.u32(directory, at + 16),
                compressedSize: UInt64(Self.u32(directory, at + 20)), uncompressedSize: UInt64(Self.u32(directory, at + 24)),
                localHeaderOffset: UInt64(Self.u32(directory, at + 42)))
            // ZIP64 extra field (id 1): the 8-byte values of the fields saturated above, in order.
            var extra = at + 46 + nameLength
            let extraEnd = extra + extraLength
            while extra + 4 <= extraEnd {
                let id = Self.u16(directory, extra), length = Int(Self.u16(directory, extra + 2))
                guard extra + 4 + length <= extraEnd else { break }
                if id == 1 {
                    var field = extra + 4
                    func next() -> UInt64? {
                        guard field + 8 <= extra + 4 + length else { return nil }
                        defer { field += 8 }
                        return Self.u64(directory, field)
                    }
                    if record.uncompressedSize == 0xFFFF_FFFF, let v = next() { record.uncompressedSize = v }
                    if record.compressedSize == 0xFFFF_FFFF, let v = next() { record.compressedSize = v }
                    if record.localHeaderOffset == 0xFFFF_FFFF, let v = next() { record.localHeaderOffset = v }
                }
                extra += 4 + length
            }
            records.append(record)
            at = extraEnd + commentLength
        }
        self.records = records
    }

    /// Streams an entry's uncompressed data to `body` in chunks of at most `chunkSize` bytes
    /// (64 KiB at most for deflated data), checking each against `budget` and the whole against
    /// the record's CRC-32 and size.
    /// - Parameters:
    ///   - index: the entry's index in ``records``.
    ///   - budget: the entry's guard; its compressed size is the record's.
    ///   - chunkSize: bytes of the archive read at a time.
    ///   - body: receives the data.
    /// - Throws: ``PFCore/PFError`` from `budget` (`limitExceeded`, `invalidValue` past the
    ///   declared size) as soon as a chunk crosses it; `invalidValue` for a CRC or size
    ///   mismatch, corrupt deflate data or an unsupported method; what `read` or `body` throws.
    public func stream(
        _ index: Int, budget: inout InflationGuard, chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws(PFError) -> Void
    ) throws(PFError) {
        guard records.indices.contains(index) else {
            throw PFError(CompressionFailure.zipNoSuchEntry(budget.name), format: format)
        }
        let record = records[index]
        let header = [UInt8](try read(record.localHeaderOffset, 30))
        guard header.count == 30, Self.u32(header, 0) == 0x0403_4B50 else {
            throw PFError(CompressionFailure.zipLocalHeaderMissing(budget.name), format: format)
        }
        let (start, overflow) = record.localHeaderOffset.addingReportingOverflow(30 + UInt64(Self.u16(header, 26)) + UInt64(Self.u16(header, 28)))
        guard !overflow else { throw PFError(CompressionFailure.zipDataOutside(budget.name), format: format) }
        var crc = CPFZlib.crc32(0, nil, 0)
        func deliver(_ chunk: UnsafeRawBufferPointer, compressedSoFar: UInt64) throws(PFError) {
            guard chunk.count > 0 else { return }
            try budget.consume(chunk.count, compressedSoFar: compressedSoFar)
            crc = CPFZlib.crc32(crc, chunk.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(chunk.count))
            try body(chunk)
        }
        // The inflater's own limits are off: the guard judges, against the entry's name.
        let inflater: Inflater?
        switch record.method {
        case 0: inflater = nil
        case 8: inflater = try Inflater(format: .deflate, limits: PFLimits(maxDecompressedBytes: .max, maxCompressionRatio: .max))
        default:
            throw PFError(CompressionFailure.zipMethod(budget.name, method: record.method), format: format)
        }
        var offset: UInt64 = 0
        let step = max(1, chunkSize)
        while offset < record.compressedSize {
            let count = Int(min(UInt64(step), record.compressedSize - offset))
            let data = try read(start + offset, count)
            guard data.count == count else {
                throw PFError(CompressionFailure.zipEntryTruncated(budget.name), format: format)
            }
            offset += UInt64(count)
            try data.withBytes { (raw: UnsafeRawBufferPointer) throws(PFError) in
                guard let inflater else { return try deliver(raw, compressedSoFar: offset) }
                try inflater.process(raw) { (out: UnsafeRawBufferPointer) throws(PFError) in
                    try deliver(out, compressedSoFar: UInt64(inflater.bytesIn))
                }
            }
        }
        if let inflater {
            do { try inflater.finish() } catch {
                throw PFError(CompressionFailure.zipDeflateCutShort(budget.name), format: format)
            }
        }
        guard UInt32(truncatingIfNeeded: crc) == record.crc32, budget.total == record.uncompressedSize else {
            throw PFError(CompressionFailure.zipChecksumMismatch(budget.name), format: format)
        }
    }

    /// The bytes at the end of a zip that hold its end-of-central-directory record: the
    /// record (22 bytes) and its comment (at most 65,535).
    static let tailLength = 65_557

    /// Where the end-of-central-directory record starts in a zip's last bytes, the last
    /// signature found, or `nil` when there is none.
    static func endRecord(in tail: [UInt8]) -> Int? {
        guard tail.count >= 22 else { return nil }
        return stride(from: tail.count - 22, through: 0, by: -1).first(where: { u32(tail, $0) == 0x0605_4B50 })
    }

    /// Whether a file ends as a zip must: with an end-of-central-directory record in its last
    /// 64 KiB. Checked before a file is handed to ZIPFoundation, which looks for that record
    /// a byte at a time from the end through the *whole* file (a `seek` and a `read` per byte:
    /// about a minute for 200 MB), so any large file that is not a zip is told in one read.
    /// - Parameter path: the file.
    /// - Returns: `false` for a file that cannot be read, is shorter than the record, or has
    ///   no record signature where it belongs.
    public static func hasEndRecord(atPath path: String) -> Bool {
        guard let file = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? file.close() }
        guard let size = try? file.seekToEnd() else { return false }
        let count = min(size, UInt64(tailLength))
        guard (try? file.seek(toOffset: size - count)) != nil, let tail = try? file.read(upToCount: Int(count)) else { return false }
        return endRecord(in: [UInt8](tail)) != nil
    }

    /// Whether bytes in memory end as a zip must (``hasEndRecord(atPath:)``).
    /// - Parameter bytes: the whole archive.
    /// - Returns: `false` when there is no end record in the last 64 KiB.
    public static func hasEndRecord(_ bytes: Data) -> Bool {
        endRecord(in: [UInt8](bytes.suffix(tailLength))) != nil
    }

    static func u16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
    static func u32(_ b: [UInt8], _ i: Int) -> UInt32 { UInt32(u16(b, i)) | UInt32(u16(b, i + 2)) << 16 }
    static func u64(_ b: [UInt8], _ i: Int) -> UInt64 { UInt64(u32(b, i)) | UInt64(u32(b, i + 4)) << 32 }
}
