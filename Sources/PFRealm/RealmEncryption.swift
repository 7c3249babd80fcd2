import Crypto
import CryptoExtras
import PFCore

/// The page layout of encrypted Realm files, and their decryption.
///
/// An encrypted file is a sequence of 4096-byte pages. Page 0 and every 65th page after it
/// is a metadata page of 64 entries, one for each of the 64 data pages that follow it:
/// `{iv1: u32, hmac1: 28 bytes, iv2: u32, hmac2: 28 bytes}`, little-endian. A data page is
/// AES-256-CBC without padding under the key's first 32 bytes, its IV being `iv1`, the
/// page's offset in the decrypted file (u64) and 4 zero bytes; `hmac1` is the HMAC-SHA224 of
/// the page's ciphertext under the key's last 32 bytes. When `hmac1` does not match (a write
/// interrupted between the metadata and the page), `iv2`/`hmac2` describe the page's previous,
/// still valid contents. `iv1 == 0` marks a page never written.
///
/// Decryption checks every page's HMAC before using its bytes: a wrong key or a damaged page
/// fails with ``RealmFailure/pageHMAC(page:)``, never with garbage.
public enum RealmEncryption {
    /// The size of a page, data or metadata.
    public static let pageSize = 4096
    /// The size of one metadata entry.
    static let entrySize = 64
    /// Data pages described by one metadata page.
    public static let dataPagesPerMetadataPage = pageSize / entrySize

    /// Reads a key written as 128 hexadecimal digits.
    /// - Parameter hex: the digits (upper or lower case).
    /// - Returns: the 64 bytes.
    /// - Throws: ``RealmFailure/keyNotHex`` or ``RealmFailure/keyLength(_:)``.
    public static func key(hex: String) throws(PFError) -> [UInt8] {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { throw PFError(RealmFailure.keyNotHex, format: RealmFile.format) }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var i = 0
        while i < digits.count {
            guard let hi = nibble(digits[i]), let lo = nibble(digits[i + 1]) else {
                throw PFError(RealmFailure.keyNotHex, format: RealmFile.format)
            }
            out.append(hi << 4 | lo)
            i += 2
        }
        guard out.count == 64 else { throw PFError(RealmFailure.keyLength(out.count), format: RealmFile.format) }
        return out
    }

    /// The IV of a data page: the stored 32-bit IV, the page's decrypted offset, 4 zero bytes.
    static func iv(stored: ArraySlice<UInt8>, dataOffset: Int) -> [UInt8] {
        var iv = Array(stored)
        let offset = UInt64(dataOffset)
        for i in 0..<8 { iv.append(UInt8(truncatingIfNeeded: offset >> UInt64(8 * i))) }
        return iv + [0, 0, 0, 0]
    }

    /// Encrypts a file as realm-core lays encrypted files out (the inverse of
    /// ``decrypt(_:key:)``): `plain` padded with zeros to whole pages, a metadata page before
    /// every 64 data pages, each entry's current IV and HMAC set (`iv2`/`hmac2` left zero).
    /// pfarchive never writes Realm files; this builds encrypted inputs for its tests and its
    /// fuzz target (with the real encrypted fixture's IVs it rebuilds that file byte for byte).
    /// It is `package`: the tests and the fuzz targets are targets of this package, and a
    /// library user does not see it.
    /// - Parameters:
    ///   - plain: the plain file.
    ///   - key: the 64-byte key.
    ///   - ivs: each data page's stored IV (not 0, which marks a page never written).
    /// - Returns: the encrypted file.
    /// - Throws: ``RealmFailure/keyLength(_:)``, or what AES throws.
    package static func encrypt(_ plain: [UInt8], key: [UInt8], ivs: (Int) -> UInt32 = { UInt32(truncatingIfNeeded: $0 &+ 1) }) throws(PFError) -> [UInt8] {
        guard key.count == 64 else { throw PFError(RealmFailure.keyLength(key.count), format: RealmFile.format) }
        var data = plain
        if data.count % pageSize != 0 { data += [UInt8](repeating: 0, count: pageSize - data.count % pageSize) }
        let pages = data.count / pageSize
        let aesKey = SymmetricKey(data: key[0..<32])
        let hmacKey = Array(key[32..<64])
        var out: [UInt8] = []
        out.reserveCapacity(data.count + (pages / dataPagesPerMetadataPage + 1) * pageSize)
        for p in 0..<pages {
            if p % dataPagesPerMetadataPage == 0 { out += [UInt8](repeating: 0, count: pageSize) }
            let metadataStart = (p / dataPagesPerMetadataPage) * (dataPagesPerMetadataPage + 1) * pageSize
            let stored = ivs(p)
            let ivBytes = (0..<4).map { UInt8(truncatingIfNeeded: stored >> UInt32(8 * $0)) }
            let cipher: [UInt8]
            do {
                cipher = [UInt8](try AES._CBC.encrypt(
                    data[(p * pageSize)..<((p + 1) * pageSize)], using: aesKey,
                    iv: try AES._CBC.IV(ivBytes: iv(stored: ivBytes[...], dataOffset: p * pageSize)), noPadding: true))
            } catch {
                throw PFError(RealmFailure.cannotEncrypt(page: p, reason: "\(error)"), format: RealmFile.format)
            }
            let mac = RealmSHA224.hmac(key: hmacKey, message: cipher[...])
            let entry = metadataStart + (p % dataPagesPerMetadataPage) * entrySize
            out.replaceSubrange(entry..<(entry + 32), with: ivBytes + mac)
            out += cipher
        }
        return out
    }

    /// Decrypts a whole encrypted file, checking each data page's HMAC.
    /// - Parameters:
    ///   - file: the encrypted file's bytes.
    ///   - key: the 64-byte key (AES key, then HMAC key).
    /// - Returns: the decrypted file: its data pages in order.
    /// - Throws: ``RealmFailure`` cases for a key of the wrong size, a file that is not a
    ///   whole number of pages, a page whose HMAC matches neither entry (a wrong key or
    ///   damage), or a page never written.
    public static func decrypt(_ file: [UInt8], key: [UInt8]) throws(PFError) -> [UInt8] {
        guard key.count == 64 else { throw PFError(RealmFailure.keyLength(key.count), format: RealmFile.format) }
        guard !file.isEmpty, file.count % pageSize == 0 else {
            throw PFError(RealmFailure.encryptedSize(file.count), format: RealmFile.format, offset: file.count)
        }
        let aesKey = SymmetricKey(data: key[0..<32])
        let hmacKey = Array(key[32..<64])
        let pages = file.count / pageSize
        var out: [UInt8] = []
        out.reserveCapacity(file.count)
        var dataPage = 0
        var page = 0
        while page < pages {
            let metadata = page * pageSize
            page += 1
            var index = 0
            while index < dataPagesPerMetadataPage && page < pages {
                let entry = metadata + index * entrySize
                let cipher = file[(page * pageSize)..<((page + 1) * pageSize)]
                let iv1 = file[entry..<(entry + 4)], iv2 = file[(entry + 32)..<(entry + 36)]
                let never = iv1.allSatisfy { $0 == 0 }
                var stored: ArraySlice<UInt8>?
                if !never {
                    let mac = RealmSHA224.hmac(key: hmacKey, message: cipher)
                    if mac[...] == file[(entry + 4)..<(entry + 32)] {
                        stored = iv1
                    } else if !iv2.allSatisfy({ $0 == 0 }), mac[...] == file[(entry + 36)..<(entry + 64)] {
                        stored = iv2
                    }
                }
                if let stored {
                    do {
                        let plain = try AES._CBC.decrypt(
                            cipher, using: aesKey, iv: try AES._CBC.IV(ivBytes: iv(stored: stored, dataOffset: dataPage * pageSize)),
                            noPadding: true)
                        out.append(contentsOf: plain)
                    } catch {
                        throw PFError(RealmFailure.pageHMAC(page: dataPage), format: RealmFile.format, offset: page * pageSize)
                    }
                } else if cipher.allSatisfy({ $0 == 0 }) {
                    // Space the file grew by and never wrote (or a page of a file shrunk and
                    // grown again): zeros, as realm-core reads it.
                    out.append(contentsOf: cipher)
                } else if never {
                    throw PFError(RealmFailure.pageNeverWritten(page: dataPage), format: RealmFile.format, offset: page * pageSize)
                } else {
                    throw PFError(RealmFailure.pageHMAC(page: dataPage), format: RealmFile.format, offset: page * pageSize)
                }
                page += 1
                dataPage += 1
                index += 1
            }
        }
        return out
    }
}
