import Foundation

// MARK: - Detection

extension Compression {
    /// Which compression wraps these bytes, judged by their first bytes.
    ///
    /// - gzip: `1F 8B 08` (magic and the deflate method).
    /// - zlib: a CMF byte with method 8 (low nibble) and window size `CINFO` ≤ 7, and a FLG
    ///   byte such that `(CMF × 256 + FLG) % 31 == 0`.
    ///
    /// Raw deflate has no magic and is never guessed. The zlib test is 2 bytes with a 1-in-31
    /// check, so a few non-compressed inputs match it (for example a CBOR text string of 94
    /// bytes starts `78 5E`); JSON, XML and `bplist00` never do.
    /// - Parameter bytes: the start of the input (3 bytes suffice).
    /// - Returns: `.gzip`, `.zlib`, or `nil` when the bytes do not look compressed.
    public static func detect(_ bytes: Data) -> CompressionFormat? {
        var iterator = bytes.prefix(3).makeIterator()
        guard let first = iterator.next(), let second = iterator.next() else { return nil }
        if first == 0x1F && second == 0x8B && iterator.next() == 0x08 { return .gzip }
        let isDeflateMethod = first & 0x0F == 8
        let windowFits = first >> 4 <= 7
        let checkPasses = (UInt16(first) << 8 | UInt16(second)) % 31 == 0
        return isDeflateMethod && windowFits && checkPasses ? .zlib : nil
    }
}
