/// Skips the plain bytes of a JSON string eight at a time: the row cutters and the row-shape
/// hash (PFStores) look for the end of a string only at a quote or a backslash.
package enum PlainStringBytes {
    /// The offset of the first `"` or `\` at or after `from`, found a word at a time; when the
    /// last full word before `count` holds neither, the offset from where fewer than eight
    /// bytes are left (the caller goes on byte by byte from there).
    /// - Parameters:
    ///   - base: the bytes.
    ///   - from: where to start.
    ///   - count: how many bytes `base` holds.
    @inline(__always)
    package static func skip(_ base: UnsafeRawPointer, from: Int, count: Int) -> Int {
        var j = from
        while count - j >= 8 {
            // Byte k of the word is at bits 8k…8k+7 on any platform. A word holds a zero byte
            // exactly when `(v - 0x01…) & ~v & 0x80…` is not zero, and the lowest flagged byte
            // is a real one (borrows only run upward).
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: j, as: UInt64.self))
            let quotes = word ^ 0x2222_2222_2222_2222
            let slashes = word ^ 0x5C5C_5C5C_5C5C_5C5C
            let found = ((quotes &- 0x0101_0101_0101_0101) & ~quotes | (slashes &- 0x0101_0101_0101_0101) & ~slashes)
                & 0x8080_8080_8080_8080
            if found != 0 { return j + found.trailingZeroBitCount >> 3 }
            j += 8
        }
        return j
    }
}
