import PFCore

/// Failures of reading encrypted Realm files (and of their keys), each with its class and
/// message in one place. Errors made from a case carry it in ``PFCore/PFError/failure``;
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

    public var code: PFError.Code {
        switch self {
        case .keyLength, .keyNotHex: .usage
        case .encryptedWithoutKey, .notEncrypted, .pageHMAC, .pageNeverWritten: .invalidValue
        case .encryptedSize: .truncated
        case .unsupportedVersion: .unsupported
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
        }
    }
}
