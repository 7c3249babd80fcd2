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
