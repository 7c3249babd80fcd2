import Foundation
import PFCompression
import PFCore

/// Reads the files of a `.zip` archive (PKWARE APPNOTE): the central directory, then each
/// entry's stored or deflated data, checked against its CRC-32 and size. Enough for Parse
/// exports, which are plain zips of `<Class>.json` files; ZIP64, encryption and other
/// compression methods are refused with an error, never guessed at.
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
        /// Where the entry's local header starts.
        public var localHeaderOffset: Int
        /// Whether the entry is a directory.
        public var isDirectory: Bool { name.hasSuffix("/") }
    }

    /// The archive's bytes.
    public let bytes: Data
    /// The entries, in central-directory order.
    public let entries: [Entry]
    /// Budgets: `maxDecompressedBytes` caps each entry, `maxCollectionCount` the entry count.
    public let limits: PFLimits

    static let format = "zip"

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
    /// - Throws: ``PFCore/PFError`` (`syntax` or `unsupported`) naming the byte offset when the
    ///   archive is truncated, malformed, ZIP64, split or has too many entries.
    public init(_ bytes: Data, limits: PFLimits = .default) throws(PFError) {
        self.bytes = bytes
        self.limits = limits
        let b = Array(bytes)
        // The end-of-central-directory record is 22 bytes plus a comment of at most 65,535.
        guard b.count >= 22 else { throw Self.error("too short for a zip archive (no end of central directory)", at: 0) }
        var eocd: Int?
        var i = b.count - 22
        let lowest = max(0, b.count - 22 - 65_535)
        while i >= lowest {
            if Self.u32(b, i) == 0x0605_4B50 { eocd = i; break }
            i -= 1
        }
        guard let eocd else { throw Self.error("no end-of-central-directory record (not a zip archive, or truncated)", at: b.count) }
        let disk = Self.u16(b, eocd + 4), cdDisk = Self.u16(b, eocd + 6)
        let count = Int(Self.u16(b, eocd + 10))
        let cdSize = Int(Self.u32(b, eocd + 12)), cdOffset = Int(Self.u32(b, eocd + 16))
        guard disk == 0, cdDisk == 0 else { throw Self.error("split (multi-disk) archives are not supported", at: eocd, code: .unsupported) }
        guard count != 0xFFFF, cdSize != 0xFFFF_FFFF, cdOffset != 0xFFFF_FFFF else {
            throw Self.error("ZIP64 archives are not supported", at: eocd, code: .unsupported)
        }
        guard count <= limits.maxCollectionCount else {
            throw PFLimits.exceeded("maxCollectionCount", limits.maxCollectionCount, format: Self.format)
        }
        // Offsets are at most 2^32 and sizes 2^32, so these sums cannot overflow a 64-bit Int.
        guard cdOffset + cdSize <= eocd else { throw Self.error("the central directory lies outside the archive", at: eocd) }
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        var p = cdOffset
        for _ in 0..<count {
            guard p + 46 <= eocd, Self.u32(b, p) == 0x0201_4B50 else {
                throw Self.error("expected a central directory header", at: p)
            }
            let flags = Self.u16(b, p + 8), method = Self.u16(b, p + 10)
            let crc = Self.u32(b, p + 16)
            let compressed = Int(Self.u32(b, p + 20)), uncompressed = Int(Self.u32(b, p + 24))
            let nameLength = Int(Self.u16(b, p + 28)), extraLength = Int(Self.u16(b, p + 30))
            let commentLength = Int(Self.u16(b, p + 32))
            let local = Int(Self.u32(b, p + 42))
            let end = p + 46 + nameLength + extraLength + commentLength
            guard end <= eocd else { throw Self.error("a central directory header runs past its end", at: p) }
            let name = String(decoding: b[(p + 46)..<(p + 46 + nameLength)], as: UTF8.self)
            guard flags & 1 == 0 else { throw Self.error("'\(name)' is encrypted", at: p, code: .unsupported) }
            guard compressed != 0xFFFF_FFFF, uncompressed != 0xFFFF_FFFF, local != 0xFFFF_FFFF else {
                throw Self.error("'\(name)' is a ZIP64 entry, which is not supported", at: p, code: .unsupported)
            }
            entries.append(Entry(name: name, method: method, crc32: crc, compressedSize: compressed,
                                 uncompressedSize: uncompressed, localHeaderOffset: local))
            p = end
        }
        self.entries = entries
    }

    /// The uncompressed contents of an entry, checked against its size and CRC-32.
    /// - Parameter entry: one of ``entries``.
    /// - Returns: the data.
    /// - Throws: ``PFCore/PFError`` naming the entry: an unsupported method, a bad local
    ///   header, data outside the archive, a size or CRC mismatch, or inflate errors.
    public func contents(of entry: Entry) throws(PFError) -> Data {
        guard entry.uncompressedSize <= limits.maxDecompressedBytes else {
            throw PFLimits.exceeded("maxDecompressedBytes", limits.maxDecompressedBytes, format: Self.format)
        }
        let p = entry.localHeaderOffset
        guard p + 30 <= bytes.count else { throw Self.error("'\(entry.name)': the local header lies outside the archive", at: p) }
        let head = Array(bytes[(bytes.startIndex + p)..<(bytes.startIndex + p + 30)])
        guard Self.u32(head, 0) == 0x0403_4B50 else { throw Self.error("'\(entry.name)': expected a local file header", at: p) }
        let start = p + 30 + Int(Self.u16(head, 26)) + Int(Self.u16(head, 28))
        guard start + entry.compressedSize <= bytes.count else {
            throw Self.error("'\(entry.name)': the data runs past the end of the archive", at: p)
        }
        let raw = bytes[(bytes.startIndex + start)..<(bytes.startIndex + start + entry.compressedSize)]
        let data: Data
        switch entry.method {
        case 0: data = Data(raw)
        case 8:
            var entryLimits = limits
            entryLimits.maxDecompressedBytes = entry.uncompressedSize
            do throws(PFError) {
                data = try Compression.decompress(Data(raw), from: .deflate, limits: entryLimits)
            } catch {
                throw Self.error("'\(entry.name)': \(error.message)", at: start)
            }
        default:
            throw Self.error("'\(entry.name)' uses compression method \(entry.method); only stored (0) and deflate (8) are supported",
                             at: p, code: .unsupported)
        }
        guard data.count == entry.uncompressedSize else {
            throw Self.error("'\(entry.name)': \(data.count) bytes, but the directory says \(entry.uncompressedSize)", at: start)
        }
        guard Self.crc32(data) == entry.crc32 else { throw Self.error("'\(entry.name)': CRC-32 mismatch (corrupt data)", at: start) }
        return data
    }

    // MARK: - Helpers

    static func u16(_ b: [UInt8], _ i: Int) -> UInt16 {
        guard i >= 0, i + 2 <= b.count else { return 0 }
        return UInt16(b[i]) | UInt16(b[i + 1]) << 8
    }

    static func u32(_ b: [UInt8], _ i: Int) -> UInt32 {
        guard i >= 0, i + 4 <= b.count else { return 0 }
        return UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }

    static func error(_ message: String, at offset: Int, code: PFError.Code = .syntax) -> PFError {
        PFError(code, format: format, message, offset: offset)
    }

    static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// CRC-32 (IEEE, as zip and gzip use).
    static func crc32(_ data: Data) -> UInt32 {
        let table = crcTable
        var c: UInt32 = 0xFFFF_FFFF
        data.withUnsafeBytes { raw in
            for byte in raw { c = table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        }
        return c ^ 0xFFFF_FFFF
    }
}
