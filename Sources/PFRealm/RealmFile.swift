import Foundation
import PFCore

/// A Realm database file (`.realm`) opened for reading, from the file format itself: no Realm
/// SDK and no realm-core library.
///
/// The file's bytes are held in memory and never written; every node reference, size and
/// count read from them is checked against the file before it is followed (see
/// ``RealmNode``), so a damaged or hostile file fails with a ``PFCore/PFError`` instead of a
/// crash, an unbounded allocation or an endless loop.
///
/// File format versions 20, 22, 23 and 24 are read (realm-core 10 and later: Realm Swift
/// 10.x and later, realm-js 10 and later, Kotlin, .NET); any other version fails with an
/// error naming the version found and the versions supported. Both the normal form (two top
/// references, the header's flag choosing one) and the streaming form written by
/// `writeCopy` and compaction (the top reference in a 16-byte footer) are read.
public final class RealmFile {
    /// The format name used in errors.
    public static let format: PFError.Format = .realm
    /// The file format versions this reader understands.
    public static let supportedVersions = [20, 22, 23, 24]
    /// The streaming form's footer cookie (the footer's second 64-bit word).
    static let footerCookie: UInt64 = 0x3034_1252_37E5_26C8

    /// The file's bytes.
    let bytes: [UInt8]
    /// The file format version of the active top reference.
    public let formatVersion: Int
    /// Whether the file is in the streaming form (top reference in the footer).
    public let isStreamingForm: Bool
    /// The reference of the group's top array; 0 for a file never committed to (no tables).
    let topRef: Int
    /// Whether the file was never committed to: it holds no tables.
    public var isNeverCommitted: Bool { topRef == 0 }
    /// The budgets enforced while reading.
    public let limits: PFLimits
    /// Values left before ``PFCore/PFLimits/maxNodes`` is exceeded.
    var nodeBudget: Int

    /// Whether bytes start like a Realm file: the `T-DB` mark at byte 16 of the header.
    /// - Parameter prefix: the first bytes of a file (at least 24 to say yes).
    /// - Returns: whether the mark is there.
    public static func hasRealmHeader<Bytes: Collection<UInt8>>(_ prefix: Bytes) -> Bool {
        let head = Array(prefix.prefix(24))
        return head.count == 24 && head[16] == 0x54 && head[17] == 0x2D && head[18] == 0x44 && head[19] == 0x42
    }

    /// Whether bytes whose name says nothing are a Realm file: the `T-DB` mark, the reserved
    /// byte 22 zero and the active slot's file format a version Realm has used (1–63). Four
    /// bytes alone are too weak for that: a JSON text can hold `T-DB` at byte 16
    /// (`[{"objectId":"XYT-DB1"…`), and the text's bytes never hold a zero.
    /// - Parameter prefix: the first bytes of a file (at least 24 to say yes).
    /// - Returns: whether they are a Realm file's header.
    public static func looksLikeRealmFile<Bytes: Collection<UInt8>>(_ prefix: Bytes) -> Bool {
        let head = Array(prefix.prefix(24))
        guard hasRealmHeader(head), head[22] == 0 else { return false }
        return (1 ... 63).contains(head[20 + Int(head[23] & 1)])
    }

    /// Reads a Realm file.
    /// - Parameters:
    ///   - url: the `.realm` file (it is only read).
    ///   - key: the 64-byte encryption key of an encrypted file, or `nil`.
    ///   - limits: the budgets enforced (``PFCore/PFLimits/maxInputBytes`` caps the file).
    /// - Throws: ``PFCore/PFError`` when the file cannot be read, is not a Realm file, is
    ///   encrypted and no (or a wrong) key is given, or has an unsupported format version.
    public convenience init(url: URL, key: [UInt8]? = nil, limits: PFLimits = .default) throws(PFError) {
        let data: Data
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            if let size = attributes[.size] as? Int, size > limits.maxInputBytes {
                throw PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: Self.format)
            }
            data = try Data(contentsOf: url, options: .mappedIfSafe)
        } catch let error as PFError {
            throw error
        } catch {
            throw PFError(RealmFailure.cannotRead(path: url.path, reason: error.localizedDescription), format: Self.format)
        }
        try self.init(bytes: [UInt8](data), key: key, limits: limits)
    }

    /// Reads a Realm file from its bytes.
    /// - Parameters:
    ///   - bytes: the whole file.
    ///   - key: the 64-byte encryption key of an encrypted file (decrypted page by page,
    ///     each page's HMAC checked, by ``RealmEncryption/decrypt(_:key:)``), or `nil`.
    ///   - limits: the budgets enforced.
    /// - Throws: ``PFCore/PFError`` as ``init(url:key:limits:)``; with a key, the
    ///   ``RealmFailure`` cases of a wrong key, a damaged page or a file that is not encrypted.
    public init(bytes input: [UInt8], key: [UInt8]? = nil, limits: PFLimits = .default) throws(PFError) {
        guard input.count <= limits.maxInputBytes else {
            throw PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: Self.format)
        }
        var bytes = input
        if let key {
            // A plain file read with a key would otherwise fail its first page's HMAC: say why.
            guard !Self.hasRealmHeader(input) else { throw PFError(RealmFailure.notEncrypted, format: Self.format, offset: 16) }
            bytes = try RealmEncryption.decrypt(input, key: key)
        }
        guard bytes.count >= 24 else {
            throw PFError(RealmFailure.shorterThanHeader(bytes: bytes.count), format: Self.format)
        }
        guard Self.hasRealmHeader(bytes) else {
            if key == nil && bytes.count % RealmEncryption.pageSize == 0 {
                throw PFError(RealmFailure.encryptedWithoutKey, format: Self.format)  // the message names byte 16
            }
            throw PFError(RealmFailure.noRealmMark(decrypted: key != nil), format: Self.format)  // the message names byte 16
        }
        let slot = Int(bytes[23] & 1)
        let version = Int(bytes[20 + slot])
        var top = Self.uint64(bytes, at: slot * 8)
        // A file created and never committed to (realm-core's new, empty file: both top
        // references 0, format version 0 until the first commit) holds no tables: an empty
        // database. One slot 0 while the other holds a reference is damage, not emptiness.
        guard top != 0 || Self.uint64(bytes, at: (1 - slot) * 8) != 0 else {
            self.bytes = bytes
            self.formatVersion = version
            self.isStreamingForm = false
            self.topRef = 0
            self.limits = limits
            self.nodeBudget = limits.maxNodes
            return
        }
        guard Self.supportedVersions.contains(version) else {
            throw PFError(RealmFailure.unsupportedVersion(version), format: Self.format, offset: 20 + slot)
        }
        var streaming = false
        if slot == 0 && top == UInt64.max {
            streaming = true
            guard bytes.count >= 24 + 16 else {
                throw PFError(RealmFailure.streamingFooterMissing, format: Self.format, offset: bytes.count)
            }
            // A decrypted file is whole pages: its footer ends before the zeros that fill the last one.
            var end = bytes.count
            if key != nil {
                while end > bytes.count - RealmEncryption.pageSize, end > 40, bytes[end - 1] == 0 { end -= 1 }
            }
            let footer = end - 16
            guard Self.uint64(bytes, at: footer + 8) == Self.footerCookie else {
                throw PFError(RealmFailure.streamingFooterCookie, format: Self.format, offset: footer + 8)
            }
            top = Self.uint64(bytes, at: footer)
        }
        guard top != 0 else {
            throw PFError(RealmFailure.noTopReference, format: Self.format, offset: slot * 8)
        }
        guard top < UInt64(bytes.count) else {
            throw PFError(RealmFailure.topPastEnd(top: top, fileSize: bytes.count), format: Self.format, offset: slot * 8)
        }
        self.bytes = bytes
        self.formatVersion = version
        self.isStreamingForm = streaming
        self.topRef = Int(top)
        self.limits = limits
        self.nodeBudget = limits.maxNodes
    }

    /// A little-endian 64-bit word; the caller has checked `offset + 8 <= bytes.count`.
    static func uint64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in (0..<8).reversed() { value = value << 8 | UInt64(bytes[offset + i]) }
        return value
    }

    /// Counts `n` values read against ``PFCore/PFLimits/maxNodes``.
    func spend(_ n: Int, at offset: Int) throws(PFError) {
        nodeBudget -= n
        if nodeBudget < 0 { throw PFLimits.exceeded("maxNodes", limits.maxNodes, format: Self.format, offset: offset) }
    }

    /// An error about the node at `ref`.
    func damaged(_ damage: RealmFailure.Damage, at ref: Int) -> PFError {
        PFError(RealmFailure.damaged(damage), format: Self.format, offset: ref)
    }
}
