import PFCore

/// Decryption of encrypted Realm files (AES-256 pages with HMAC-SHA224).
enum RealmDecryption {
    /// Decrypts a whole file.
    static func decrypt(_ bytes: [UInt8], key: [UInt8]) throws(PFError) -> [UInt8] {
        guard key.count == 64 else {
            throw PFError(.usage, format: RealmFile.format, "an encryption key must be 64 bytes (128 hex digits), not \(key.count)")
        }
        throw PFError(.unsupported, format: RealmFile.format, "encrypted Realm files are not supported by this build yet")
    }
}
