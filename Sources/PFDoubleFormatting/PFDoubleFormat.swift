/// The shortest text that reads back as the same `Double`, written straight into a byte
/// buffer: exactly the text of `Double.description` for every finite value ("1.0", "0.1",
/// "1e-07", "1e+16", "-0.0", "5e-324", "1.7976931348623157e+308"), without building a String.
///
/// The digits come from Schubfach (Raffaello Giulietti, "The Schubfach way to render doubles",
/// 2020, the algorithm of Java's `Double.toString` since JDK 19): the shortest decimal in the
/// rounding interval of the double, the closest one when several are shortest. It takes a
/// few 64-bit multiplications per value, where the standard library's conversion costs
/// several times as much and hands back a String. The layout follows Swift's: positional
/// notation from 0.0001 up to 2^53, exponential (two exponent digits at least) outside.
public enum PFDoubleFormat {
    /// The largest text this writes: "-2.2250738585072014e-308" is 24 bytes.
    public static let maximumLength = 24

    /// The room ``write(_:into:)`` needs: the text, with space for 8-byte stores past its
    /// end, then the digits.
    public static let scratchLength = 96

    /// Appends the text of `value`.
    /// - Returns: `false`, appending nothing, for NaN and the infinities (JSON and most text
    ///   formats have no spelling for them).
    @inlinable
    @discardableResult
    public static func appendShortest(_ value: Double, to out: inout [UInt8]) -> Bool {
        guard value.isFinite else { return false }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: scratchLength) { buffer in
            let n = write(value, into: buffer.baseAddress!)
            out.append(contentsOf: UnsafeBufferPointer(start: buffer.baseAddress!, count: n))
        }
        return true
    }

    /// Writes the text of a finite `value` at the start of `p`, for a writer with a buffer of
    /// its own: ``scratchLength`` bytes must be writable there, and the bytes after the text
    /// are left undefined.
    /// - Returns: the number of bytes of text (at most ``maximumLength``); 0, writing nothing,
    ///   for NaN and the infinities.
    public static func write(_ value: Double, into p: UnsafeMutablePointer<UInt8>) -> Int {
        guard value.isFinite else { return 0 }
        var n = 0
        if value.sign == .minus {
            p[0] = UInt8(ascii: "-")
            n = 1
        }
        guard value != 0 else {
            p[n] = UInt8(ascii: "0"); p[n + 1] = UInt8(ascii: "."); p[n + 2] = UInt8(ascii: "0")
            return n + 3
        }
        if value.magnitude.bitPattern < 32 {
            // The 31 smallest subnormals (up to 1.5e-322) have so few digits that the
            // shortest can be two digits shorter than Schubfach's first estimate, which it
            // does not search; the standard library's text is right for them.
            var text = value.description
            return text.withUTF8 { bytes in
                UnsafeMutableRawPointer(p).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
                return bytes.count
            }
        }
        var (f, e) = decimal(value.magnitude)
        // f × 10^e with f > 0: drop f's trailing zeros, so f holds exactly the digits shown.
        while f % 10 == 0 {
            f /= 10
            e += 1
        }
        let count = digitCount(f)
        // f's places, eight at a time, at p[48..<72] (f < 10^20), so its digits end at p[72];
        // only the words that hold some of its digits are written.
        let digits = UnsafeMutableRawPointer(p + 48)
        if count > 16 { digits.storeBytes(of: eightDigits(f / 10_000_000_000_000_000), as: UInt64.self) }
        if count > 8 { digits.storeBytes(of: eightDigits(f / 100_000_000 % 100_000_000), toByteOffset: 8, as: UInt64.self) }
        digits.storeBytes(of: eightDigits(f % 100_000_000), toByteOffset: 16, as: UInt64.self)
        let first = UnsafeRawPointer(digits + 24 - count)
        // value = 0.d1d2…dn × 10^point
        let point = count + e
        let text = UnsafeMutableRawPointer(p + n)
        if point < -3 || value.magnitude > 0x1p53 {
            return n + writeExponential(first, count: count, exponent: point - 1, into: text)
        }
        return n + writePositional(first, count: count, point: point, into: text)
    }

    // MARK: - Layout

    /// "d.ddde±XX" (no fraction for one digit: "1e-07").
    private static func writeExponential(_ first: UnsafeRawPointer, count: Int, exponent: Int,
                                         into p: UnsafeMutableRawPointer) -> Int {
        p.storeBytes(of: first.load(as: UInt8.self), as: UInt8.self)
        var n = 1
        if count > 1 {
            p.storeBytes(of: UInt8(ascii: "."), toByteOffset: 1, as: UInt8.self)
            copy(first + 1, count - 1, to: p + 2)
            n = count + 1
        }
        let x = exponent.magnitude
        let sign: UInt8 = exponent < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+")
        p.storeBytes(of: UInt8(ascii: "e"), toByteOffset: n, as: UInt8.self)
        p.storeBytes(of: sign, toByteOffset: n + 1, as: UInt8.self)
        if x >= 100 {
            p.storeBytes(of: 0x30 &+ UInt8(truncatingIfNeeded: x / 100), toByteOffset: n + 2, as: UInt8.self)
            p.storeBytes(of: 0x30 &+ UInt8(truncatingIfNeeded: x / 10 % 10), toByteOffset: n + 3, as: UInt8.self)
            p.storeBytes(of: 0x30 &+ UInt8(truncatingIfNeeded: x % 10), toByteOffset: n + 4, as: UInt8.self)
            return n + 5
        }
        p.storeBytes(of: 0x30 &+ UInt8(truncatingIfNeeded: x / 10), toByteOffset: n + 2, as: UInt8.self)
        p.storeBytes(of: 0x30 &+ UInt8(truncatingIfNeeded: x % 10), toByteOffset: n + 3, as: UInt8.self)
        return n + 4
    }

    /// "0.000ddd", "ddd.ddd" or "ddd000.0".
    private static func writePositional(_ first: UnsafeRawPointer, count: Int, point: Int,
                                        into p: UnsafeMutableRawPointer) -> Int {
        let zeros = UInt64(0x3030_3030_3030_3030)  // "00000000"
        if point <= 0 {
            // 0.0001 ≤ value < 1: point is -3…0, so "0." and up to three zeros in one store.
            p.storeBytes(of: zeros, as: UInt64.self)
            p.storeBytes(of: UInt8(ascii: "."), toByteOffset: 1, as: UInt8.self)
            copy(first, count, to: p + 2 - point)
            return 2 - point + count
        }
        if point >= count {
            // An integer below 2^53: at most 16 places, padded with zeros, then ".0".
            copy(first, count, to: p)
            p.storeBytes(of: zeros, toByteOffset: count, as: UInt64.self)
            p.storeBytes(of: zeros, toByteOffset: count + 8, as: UInt64.self)
            p.storeBytes(of: UInt8(ascii: "."), toByteOffset: point, as: UInt8.self)
            p.storeBytes(of: UInt8(ascii: "0"), toByteOffset: point + 1, as: UInt8.self)
            return point + 2
        }
        // The point falls between the digits.
        copy(first, point, to: p)
        p.storeBytes(of: UInt8(ascii: "."), toByteOffset: point, as: UInt8.self)
        copy(first + point, count - point, to: p + point + 1)
        return count + 1
    }

    /// Copies `n` (≤ 24) bytes eight at a time; up to seven more bytes past the end of both
    /// are read and written, which the scratch layout leaves room for.
    @inline(__always)
    private static func copy(_ source: UnsafeRawPointer, _ n: Int, to target: UnsafeMutableRawPointer) {
        var k = 0
        while k < n {
            target.storeBytes(of: source.loadUnaligned(fromByteOffset: k, as: UInt64.self), toByteOffset: k, as: UInt64.self)
            k += 8
        }
    }

    /// The eight decimal digits of `n` (< 10^8, leading zeros included) as ASCII, first digit
    /// in the lowest byte: the number is split into halves, quarters and digits in parallel
    /// lanes of one 64-bit word.
    @inline(__always)
    static func eightDigits(_ n: UInt64) -> UInt64 {
        let high = n / 10000
        // Two 4-digit numbers in 32-bit lanes (the first in the low lane).
        let x = high | (n &- high &* 10000) << 32
        // Each split into two 2-digit numbers in 16-bit lanes (x / 100 = x × 5243 >> 19 for
        // x < 10^4).
        let hundreds = ((x &* 5243) >> 19) & 0x0000_007F_0000_007F
        let y = hundreds | (x &- hundreds &* 100) << 16
        // Each split into two digits in 8-bit lanes (y / 10 = y × 103 >> 10 for y < 100).
        let tens = ((y &* 103) >> 10) & 0x000F_000F_000F_000F
        let z = tens | (y &- tens &* 10) << 8
        return z | 0x3030_3030_3030_3030
    }

    /// 10^0 … 10^19.
    private static let powersOf10: [UInt64] = [
        1, 10, 100, 1000, 10000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000,
        10_000_000_000, 100_000_000_000, 1_000_000_000_000, 10_000_000_000_000, 100_000_000_000_000,
        1_000_000_000_000_000, 10_000_000_000_000_000, 100_000_000_000_000_000,
        1_000_000_000_000_000_000, 10_000_000_000_000_000_000,
    ]

    /// The number of decimal digits of `f` (1…20).
    @inline(__always)
    private static func digitCount(_ f: UInt64) -> Int {
        // log10(f) from its bit length (1233 / 4096 ≈ log10(2)), then one correction.
        let guess = ((64 - (f | 1).leadingZeroBitCount) &* 1233) >> 12  // 0…19
        return guess + (f >= powersOf10[guess] ? 1 : 0)
    }

    // MARK: - Schubfach

    /// The shortest decimal f × 10^e in the rounding interval of a finite `v` > 0 (f may have
    /// trailing zeros), the closest to `v` when there are several.
    static func decimal(_ v: Double) -> (f: UInt64, e: Int) {
        let bits = v.bitPattern
        let t = bits & (1 << 52 - 1)
        let bq = Int(bits >> 52)  // v > 0: no sign bit
        if bq != 0 {
            let mq = 1075 - bq  // v = c × 2^-mq
            let c = 1 << 52 | t
            if mq > 0, mq < 53 {
                // An integer below 2^53 needs no search: its digits are its own.
                let f = c >> UInt64(mq)
                if f << UInt64(mq) == c { return (f, 0) }
            }
            return decimal(q: -mq, c: c, dk: 0)
        }
        // Subnormal: widen small significands so the interval holds enough digits.
        return t < 3 ? decimal(q: -1074, c: 10 * t, dk: -1) : decimal(q: -1074, c: t, dk: 0)
    }

    private static func decimal(q: Int, c: UInt64, dk: Int) -> (f: UInt64, e: Int) {
        let out: UInt64 = c & 1
        let cb = c << 2
        let cbr = cb + 2
        let cbl: UInt64
        let k: Int
        if c != 1 << 52 || q == -1074 {
            // Regular spacing: the interval is symmetric.
            cbl = cb - 2
            k = floorLog10Pow2(q)
        } else {
            // At a power of two the spacing below is half that above.
            cbl = cb - 1
            k = floorLog10ThreeQuartersPow2(q)
        }
        let h = q + floorLog2Pow10(-k) + 2
        let index = 2 * (k - powersOfTenFirstExponent)
        let g1 = powersOfTen[index]
        let g0 = powersOfTen[index + 1]
        let vb = roundOdd(g1, g0, cb << UInt64(h))
        let vbl = roundOdd(g1, g0, cbl << UInt64(h))
        let vbr = roundOdd(g1, g0, cbr << UInt64(h))
        let s = vb >> 2
        if s >= 100 {
            // One digit fewer, if a multiple of ten lies in the interval.
            let sp10 = 10 * (s / 10)
            let tp10 = sp10 + 10
            let upin = vbl + out <= sp10 << 2
            let wpin = (tp10 << 2) + out <= vbr
            if upin != wpin { return (upin ? sp10 : tp10, k) }
        }
        let t = s + 1
        let uin = vbl + out <= s << 2
        let win = (t << 2) + out <= vbr
        if uin != win { return (uin ? s : t, k + dk) }
        // Both or neither in the interval: the closer one, the even one on a tie.
        let cmp = Int64(bitPattern: vb &- (s + t) << 1)
        return (cmp < 0 || (cmp == 0 && s & 1 == 0) ? s : t, k + dk)
    }

    /// floor(g × cp / 2^127) with the bit below it made sticky (round to odd), where
    /// g = g1 × 2^63 + g0.
    @inline(__always)
    private static func roundOdd(_ g1: UInt64, _ g0: UInt64, _ cp: UInt64) -> UInt64 {
        let x1 = g0.multipliedFullWidth(by: cp).high
        let (y1, y0) = g1.multipliedFullWidth(by: cp)
        let z = (y0 >> 1) + x1
        let vbp = y1 + (z >> 63)
        return vbp | ((z & (1 << 63 - 1)) + (1 << 63 - 1)) >> 63
    }

    /// floor(e × log10(2)), for |e| ≤ 5456721.
    @inline(__always)
    static func floorLog10Pow2(_ e: Int) -> Int { (e * 661_971_961_083) >> 41 }

    /// floor(e × log10(2) + log10(3/4)), for |e| ≤ 2500.
    @inline(__always)
    static func floorLog10ThreeQuartersPow2(_ e: Int) -> Int { (e * 661_971_961_083 - 274_743_187_321) >> 41 }

    /// floor(e × log2(10)), for |e| ≤ 1233.
    @inline(__always)
    static func floorLog2Pow10(_ e: Int) -> Int { (e * 913_124_641_741) >> 38 }
}
