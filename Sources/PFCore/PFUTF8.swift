import Foundation

/// UTF-8 helpers the decoders share: the one home of UTF-8 encoding, UTF-16 surrogate pairs,
/// hex digits and JSON string escapes, used by every JSON path and the property list coders.
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

    // MARK: - UTF-16 surrogate pairs

    /// Whether a UTF-16 code unit is a high (leading) surrogate, D800…DBFF.
    @inlinable @inline(__always)
    public static func isHighSurrogate(_ unit: UInt32) -> Bool { unit & 0xFC00 == 0xD800 }

    /// Whether a UTF-16 code unit is a low (trailing) surrogate, DC00…DFFF.
    @inlinable @inline(__always)
    public static func isLowSurrogate(_ unit: UInt32) -> Bool { unit & 0xFC00 == 0xDC00 }

    /// The scalar value a surrogate pair stands for (`high` in D800…DBFF, `low` in DC00…DFFF).
    /// - Parameters:
    ///   - high: the high surrogate.
    ///   - low: the low surrogate.
    /// - Returns: a value in U+10000…U+10FFFF.
    @inlinable @inline(__always)
    public static func scalar(high: UInt32, low: UInt32) -> UInt32 {
        0x10000 + ((high & 0x3FF) << 10) + (low & 0x3FF)
    }

    /// The surrogate pair of a scalar value in U+10000…U+10FFFF (the inverse of
    /// ``scalar(high:low:)``).
    /// - Parameter scalar: the scalar value.
    /// - Returns: the high and low surrogates.
    @inlinable @inline(__always)
    public static func surrogates(of scalar: UInt32) -> (high: UInt32, low: UInt32) {
        let offset = scalar &- 0x10000
        return (0xD800 | (offset >> 10 & 0x3FF), 0xDC00 | (offset & 0x3FF))
    }

    // MARK: - Hex digits

    /// The value of one hex digit (`0-9`, `a-f`, `A-F`), or `nil`.
    /// - Parameter c: the byte.
    /// - Returns: 0…15.
    @inlinable @inline(__always)
    public static func hexDigit(_ c: UInt8) -> UInt32? {
        if c &- UInt8(ascii: "0") < 10 { return UInt32(c &- UInt8(ascii: "0")) }
        let lower = c | 0x20
        if lower &- UInt8(ascii: "a") < 6 { return UInt32(lower &- UInt8(ascii: "a") &+ 10) }
        return nil
    }

    /// The code unit of the four hex digits at `p` (the `XXXX` of `\uXXXX`), or `nil` when one
    /// is not a hex digit. The caller guarantees four readable bytes.
    /// - Parameter p: the first digit.
    /// - Returns: 0…0xFFFF.
    @inlinable @inline(__always)
    public static func hex4(_ p: UnsafePointer<UInt8>) -> UInt32? {
        var unit: UInt32 = 0
        for k in 0..<4 {
            guard let digit = hexDigit(p[k]) else { return nil }
            unit = unit << 4 | digit
        }
        return unit
    }

    // MARK: - JSON string escapes

    /// Decodes the text of a JSON string (between its quotes, escapes already validated by a
    /// scanner) and hands the result to `emit` in pieces, in order: runs without escapes as
    /// they are, each escape as the UTF-8 of what it stands for.
    ///
    /// `\b \f \n \r \t` are control characters, any other escaped byte stands for itself
    /// (`\" \\ \/`, and `\'` of lenient JSON); `\uXXXX` is a UTF-16 code unit, a high and a
    /// low surrogate escape in a row one character, and a lone surrogate U+FFFD (as json-c
    /// decodes it). Bytes outside escapes are copied as they are (invalid UTF-8 included). An
    /// escape cut short by the end of `raw` ends the output. The output is never longer than
    /// `raw`: every escape is at least as long as the bytes it stands for.
    /// - Parameters:
    ///   - raw: the string's text.
    ///   - emit: receives each piece (valid only during the call).
    @inlinable
    public static func decodeJSONString(_ raw: UnsafeRawBufferPointer, _ emit: (UnsafeRawBufferPointer) -> Void) {
        guard let src = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let n = raw.count
        var i = 0
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4) { scratch in
            guard let out = scratch.baseAddress else { return }  // (capacity 4: never nil)
            while i < n {
                // The run up to the next backslash (or the end), in one piece.
                let stop = memchr(src + i, Int32(UInt8(ascii: "\\")), n - i)
                    .map { UnsafePointer<UInt8>($0.assumingMemoryBound(to: UInt8.self)) - src } ?? n
                if stop > i { emit(UnsafeRawBufferPointer(start: src + i, count: stop - i)) }
                i = stop
                guard i + 1 < n else { return }
                let e = src[i + 1]
                i += 2
                var scalar: UInt32
                switch e {
                case UInt8(ascii: "b"): scalar = 0x08
                case UInt8(ascii: "f"): scalar = 0x0C
                case UInt8(ascii: "n"): scalar = 0x0A
                case UInt8(ascii: "r"): scalar = 0x0D
                case UInt8(ascii: "t"): scalar = 0x09
                case UInt8(ascii: "u"):
                    guard i + 4 <= n, let unit = hex4(src + i) else { return }
                    i += 4
                    scalar = unit
                    if isHighSurrogate(unit), i + 6 <= n, src[i] == UInt8(ascii: "\\"), src[i + 1] == UInt8(ascii: "u"),
                        let low = hex4(src + i + 2), isLowSurrogate(low) {
                        scalar = Self.scalar(high: unit, low: low)
                        i += 6
                    } else if unit & 0xF800 == 0xD800 {
                        scalar = 0xFFFD  // a lone surrogate is no character
                    }
                default: scalar = UInt32(e)  // \" \\ \/ \'
                }
                emit(UnsafeRawBufferPointer(start: out, count: encode(scalar, into: out)))
            }
        }
    }

    /// Decodes the text of a JSON string into `out`, as ``decodeJSONString(_:_:)`` does.
    /// - Parameters:
    ///   - raw: the string's text (between its quotes).
    ///   - out: at least `raw.count` bytes.
    /// - Returns: the number of bytes written.
    @inlinable
    public static func decodeJSONString(_ raw: UnsafeRawBufferPointer, into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        guard let dst = out.baseAddress else { return 0 }
        var o = 0
        decodeJSONString(raw) { piece in
            // Within `out`: the output is never longer than `raw`.
            guard let base = piece.baseAddress, o + piece.count <= out.count else { return }
            (dst + o).update(from: base.assumingMemoryBound(to: UInt8.self), count: piece.count)
            o += piece.count
        }
        return o
    }
}
