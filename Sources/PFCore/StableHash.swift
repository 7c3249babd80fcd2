/// A 64-bit FNV-1a hash: the same bytes give the same value in every run and on every
/// platform (Swift's `Hasher` is seeded per process), so it can name things that outlive the
/// process: spill partitions, shortened names, import fingerprints.
package enum StableHash {
    /// The FNV-1a hash of some bytes.
    /// - Parameter bytes: the bytes, such as a string's `utf8`.
    /// - Returns: the 64-bit hash.
    @inlinable
    package static func fnv1a(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return hash
    }

    /// The hash as 16 lowercase hexadecimal digits.
    /// - Parameter bytes: the bytes.
    /// - Returns: the digits, zero-padded.
    package static func fnv1aHex(_ bytes: some Sequence<UInt8>) -> String {
        let hex = String(fnv1a(bytes), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
