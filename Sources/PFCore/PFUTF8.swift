/// UTF-8 helpers the decoders share.
public enum PFUTF8 {
    /// Writes the UTF-8 form of a scalar value (one to four bytes) at `dst`.
    ///
    /// The caller guarantees room for the bytes the value needs and a value that is a Unicode
    /// scalar (not a surrogate, at most U+10FFFF): the decoders call it after checking it.
    /// - Parameters:
    ///   - scalar: the scalar value.
    ///   - dst: where the bytes go.
    /// - Returns: the number of bytes written.
    @inlinable @inline(__always)
    public static func encode(_ scalar: UInt32, into dst: UnsafeMutablePointer<UInt8>) -> Int {
        if scalar < 0x80 {
            dst[0] = UInt8(truncatingIfNeeded: scalar)
            return 1
        }
        if scalar < 0x800 {
            dst[0] = UInt8(truncatingIfNeeded: 0xC0 | scalar >> 6)
            dst[1] = UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F)
            return 2
        }
        if scalar < 0x10000 {
            dst[0] = UInt8(truncatingIfNeeded: 0xE0 | scalar >> 12)
            dst[1] = UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F)
            dst[2] = UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F)
            return 3
        }
        dst[0] = UInt8(truncatingIfNeeded: 0xF0 | scalar >> 18)
        dst[1] = UInt8(truncatingIfNeeded: 0x80 | scalar >> 12 & 0x3F)
        dst[2] = UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F)
        dst[3] = UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F)
        return 4
    }
}
