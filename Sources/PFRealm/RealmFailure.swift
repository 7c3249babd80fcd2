import PFCore

/// Every failure PFRealm reports (reading a file, its encryption and keys, and its damaged or
/// unsupported nodes), each with its class and message in one place. Errors made from a case carry it in ``PFCore/PFError/failure``;
/// match it with `error.failure(as: RealmFailure.self)`.
public enum RealmFailure: PFFailure, Hashable {
    /// An encryption key that is not 64 bytes.
    case keyLength(Int)
    /// A key written as something other than 128 hexadecimal digits.
    case keyNotHex
    /// A file without the `T-DB` mark whose size is a whole number of 4 KiB pages: most
    /// likely an encrypted file, given without `--key`.
    case encryptedWithoutKey
    /// A key was given but the file is not encrypted (it carries the plain `T-DB` mark).
    case notEncrypted
    /// An encrypted file whose size is not a whole number of 4 KiB pages.
    case encryptedSize(Int)
    /// Neither of a page's two HMACs matches its bytes: a wrong key or a damaged page.
    case pageHMAC(page: Int)
    /// A page whose metadata entry says it was never written, inside the file's data.
    case pageNeverWritten(page: Int)
    /// A file format version outside ``RealmFile/supportedVersions``.
    case unsupportedVersion(Int)
    /// The file could not be read (`reason` is the system's).
    case cannotRead(path: String, reason: String)
    /// No `T-DB` mark at byte 16 (`decrypted`: after decrypting with the given key).
    case noRealmMark(decrypted: Bool)
    /// A node of `bytes` bytes at `ref` that runs past the end of a file of `fileSize` bytes.
    case nodePastEnd(bytes: Int, ref: Int, fileSize: Int)
    /// A file shorter than the 24-byte header.
    case shorterThanHeader(bytes: Int)
    /// A streaming-form file too short to hold its 16-byte footer.
    case streamingFooterMissing
    /// A streaming-form file whose footer lacks its cookie.
    case streamingFooterCookie
    /// A file whose active top reference is 0 while the other slot holds one, or a
    /// streaming-form file whose footer's top reference is 0.
    case noTopReference
    /// A top reference past the end of the file.
    case topPastEnd(top: UInt64, fileSize: Int)
    /// A node that breaks the format; the ``Damage`` says which and how.
    case damaged(Damage)
    /// A column of a type this reader does not know.
    case unknownColumnType(table: String, column: Int, type: Int64)
    /// A Mixed value of a type this reader does not know.
    case unknownMixedType(Int64)
    /// A collection of another type than a list or dictionary nested in a Mixed value.
    case nestedCollectionType(Int64)
    /// The test encryptor (`RealmEncryption.encrypt`, package access) could not encrypt a data page.
    case cannotEncrypt(page: Int, reason: String)

    public var code: PFError.Code {
        switch self {
        case .keyLength, .keyNotHex: .usage
        case .encryptedWithoutKey, .notEncrypted, .pageHMAC, .pageNeverWritten, .noTopReference: .invalidValue
        case .encryptedSize, .shorterThanHeader, .nodePastEnd, .streamingFooterMissing, .topPastEnd: .truncated
        case .unsupportedVersion, .unknownColumnType, .unknownMixedType, .nestedCollectionType: .unsupported
        case .cannotEncrypt: .invalidValue
        case .cannotRead: .io
        case .streamingFooterCookie, .damaged, .noRealmMark: .syntax
        }
    }

    public var message: String {
        switch self {
        case .keyLength(let n):
            "an encryption key must be 64 bytes (128 hexadecimal digits), not \(n) bytes"
        case .keyNotHex:
            "an encryption key must be 128 hexadecimal digits (64 bytes)"
        case .encryptedWithoutKey:
            "not a Realm file, or an encrypted one (no T-DB mark at byte 16); give an encrypted file's 64-byte key with --key"
        case .notEncrypted:
            "the file is not encrypted (its header has the plain T-DB mark); read it without --key"
        case .encryptedSize(let n):
            "an encrypted Realm file is a whole number of 4096-byte pages; this one has \(n) bytes (truncated?)"
        case .pageHMAC(let page):
            "wrong encryption key, or a damaged file: the HMAC of data page \(page) does not match"
        case .pageNeverWritten(let page):
            "damaged encrypted file: data page \(page) was never written"
        case .unsupportedVersion(let v):
            "file format version \(v) is not supported; supported versions: 20, 22, 23 and 24 (Realm 10 and later)"
        case .cannotRead(let path, let reason): "cannot read \(path): \(reason)"
        case .noRealmMark(let decrypted):
            decrypted
                ? "no T-DB mark at byte 16 after decryption: a wrong key (its first 32 bytes, the AES half), or not a Realm file"
                : "not a Realm file (no T-DB mark at byte 16)"
        case .nodePastEnd(let bytes, let ref, let size):
            "damaged or truncated file: node of \(bytes) bytes at \(ref) runs past the end of the file (\(size) bytes)"
        case .shorterThanHeader(let n): "not a Realm file: \(n) bytes, shorter than the 24-byte header"
        case .streamingFooterMissing: "streaming-form file without its 16-byte footer"
        case .streamingFooterCookie: "streaming-form file without its footer cookie (truncated?)"
        case .noTopReference: "the active top reference is 0 (a damaged header)"
        case .topPastEnd(let top, let size): "top reference \(top) is past the end of the file (\(size) bytes)"
        case .damaged(let damage): "damaged file: \(damage)"
        case .unknownColumnType(let table, let column, let type): "table \(table): column \(column) has the unknown type \(type)"
        case .unknownMixedType(let type): "a Mixed value of type \(type)"
        case .nestedCollectionType(let type): "a collection of type \(type) nested in a Mixed value"
        case .cannotEncrypt(let page, let reason): "cannot encrypt data page \(page): \(reason)"
        }
    }
}
