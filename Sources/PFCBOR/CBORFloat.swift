// MARK: - Half-precision floats

/// Conversions between `Double` and IEEE 754 half-precision bit patterns, written out by
/// hand because `Float16` is not available on every platform pfarchive builds on.
enum CBORFloat {
    /// The value of a half-precision bit pattern (exact: every half is a double).
    static func double(fromHalf bits: UInt16) -> Double {
        let exponent = Int((bits >> 10) & 0x1F)
        let mantissa = Double(bits & 0x3FF)
        let magnitude: Double
        switch exponent {
        case 0: magnitude = mantissa * 0x1p-24
        case 31: magnitude = mantissa == 0 ? .infinity : .nan
        default: magnitude = (mantissa + 1024) * Double(sign: .plus, exponent: exponent - 25, significand: 1)
        }
        return bits & 0x8000 != 0 ? -magnitude : magnitude
    }

    /// The half-precision bit pattern of `value` when it is exactly representable (NaN is
    /// not: callers write the canonical NaN themselves).
    static func halfBits(exactly value: Double) -> UInt16? {
        let sign: UInt16 = value.sign == .minus ? 0x8000 : 0
        let a = value.magnitude
        if a.isNaN { return nil }
        if a == 0 { return sign }
        if a.isInfinite { return sign | 0x7C00 }
        if a >= 0x1p-14 {
            guard a <= 65504 else { return nil }
            // Normal half: 10 fraction bits after the leading 1.
            let scaled = a.significand * 1024
            guard scaled == scaled.rounded(.towardZero) else { return nil }
            let fraction = UInt16(scaled) - 1024
            let biased = UInt16(Int(a.exponent) + 15)
            return sign | biased << 10 | fraction
        }
        // Subnormal half: a multiple of 2^-24 below 2^-14.
        let scaled = a * 0x1p24
        guard scaled == scaled.rounded(.towardZero), scaled < 1024 else { return nil }
        return sign | UInt16(scaled)
    }
}

// MARK: - UTF-8 validation

/// A UTF-8 validator that reports where the first bad byte is (RFC 3629: no overlong forms,
/// no surrogates, nothing above U+10FFFF).
enum UTF8Check {
    /// Whether all `count` bytes at `p` are ASCII.
    @inline(__always)
    static func isASCII(_ p: UnsafePointer<UInt8>, count n: Int) -> Bool {
        var i = 0
        while i + 8 <= n {
            if UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < n {
            if p[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    /// The index of the first byte that is not part of a valid UTF-8 sequence, or `nil` when
    /// all `count` bytes at `p` are valid.
    @inline(__always)
    static func firstInvalid(_ p: UnsafePointer<UInt8>, count n: Int) -> Int? {
        var i = 0
        // ASCII runs eight bytes at a time.
        while i + 8 <= n {
            let word = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
            if word & 0x8080_8080_8080_8080 != 0 { break }
            i += 8
        }
        while i < n {
            if p[i] < 0x80 {
                i += 1
                continue
            }
            return slowPath(p, count: n, from: i)
        }
        return nil
    }

    static func slowPath(_ p: UnsafePointer<UInt8>, count n: Int, from start: Int) -> Int? {
        var i = start
        while i < n {
            let b0 = p[i]
            if b0 < 0x80 {
                i += 1
                continue
            }
            if b0 < 0xC2 { return i }
            if b0 < 0xE0 {
                guard i + 1 < n, p[i + 1] & 0xC0 == 0x80 else { return i }
                i += 2
            } else if b0 < 0xF0 {
                guard i + 2 < n else { return i }
                let lo: UInt8 = b0 == 0xE0 ? 0xA0 : 0x80
                let hi: UInt8 = b0 == 0xED ? 0x9F : 0xBF
                guard p[i + 1] >= lo, p[i + 1] <= hi, p[i + 2] & 0xC0 == 0x80 else { return i }
                i += 3
            } else if b0 < 0xF5 {
                guard i + 3 < n else { return i }
                let lo: UInt8 = b0 == 0xF0 ? 0x90 : 0x80
                let hi: UInt8 = b0 == 0xF4 ? 0x8F : 0xBF
                guard p[i + 1] >= lo, p[i + 1] <= hi, p[i + 2] & 0xC0 == 0x80, p[i + 3] & 0xC0 == 0x80 else {
                    return i
                }
                i += 4
            } else {
                return i
            }
        }
        return nil
    }
}
