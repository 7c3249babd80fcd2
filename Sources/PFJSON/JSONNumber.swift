import Foundation

/// The one home of JSON number conversion: integers from their digits, doubles from their
/// text, rounded as json-c and `strtod` round. The scanner's range and overflow checks, the
/// tape's scalars and the rewrite of wide integers for json-c all convert through here.
enum JSONNumber {
    /// The magnitude of the integer token `start..<end` (a leading `-` skipped), and whether
    /// it overflowed 64 bits (the value is then meaningless).
    @inline(__always)
    static func checkedMagnitude(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> (value: UInt64, overflow: Bool) {
        var k = start
        if k < end, p[k] == UInt8(ascii: "-") { k += 1 }
        var value: UInt64 = 0
        var overflow = false
        while k < end {
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(UInt64(p[k] &- UInt8(ascii: "0")))
            overflow = overflow || o1 || o2
            value = s
            k += 1
        }
        return (value, overflow)
    }

    /// The magnitude of a validated integer token (a leading `-` skipped; the scanner checked
    /// that it fits 64 bits).
    @inline(__always)
    static func magnitude(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> UInt64 {
        var k = start
        if p[k] == UInt8(ascii: "-") { k += 1 }
        var value: UInt64 = 0
        while k < end {
            value = value &* 10 &+ UInt64(p[k] &- UInt8(ascii: "0"))
            k += 1
        }
        return value
    }

    /// Exact powers of ten for ``fastDouble(_:_:_:)``.
    private static let powersOfTen: [Double] = (0...22).map { (k: Int) -> Double in
        var value = 1.0
        for _ in 0..<k { value *= 10 }
        return value
    }

    /// The number token `start..<end` (RFC 8259 grammar, or any text `strtod` reads) as the
    /// nearest double, as json-c converts it (`strtod`, correctly rounded).
    ///
    /// Most tokens take Clinger's fast path: a decimal mantissa of at most 2^53 and a power of
    /// ten of at most 10^22 are both exact doubles, so one IEEE multiplication or division
    /// rounds exactly as `strtod` does. Longer mantissas and larger exponents go to `strtod`
    /// (the scanner bounded the token's length by `maxNumberLength`).
    @inline(__always)
    static func double(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Double {
        if let value = fastDouble(p, start, end) { return value }
        return strtodDouble(p, start, end)
    }

    /// Clinger's fast path over a validated number token, or `nil` when it does not apply.
    @inline(__always)
    static func fastDouble(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        var k = start
        let negative = p[k] == UInt8(ascii: "-")
        if negative { k += 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var scale = 0  // the decimal exponent the fraction digits add
        var seenPoint = false
        while k < end {
            let c = p[k]
            if c == UInt8(ascii: ".") {
                seenPoint = true
            } else if c &- UInt8(ascii: "0") < 10 {
                if mantissa != 0 || c != UInt8(ascii: "0") { digits += 1 }
                guard digits <= 19 else { return nil }
                mantissa = mantissa &* 10 &+ UInt64(c &- UInt8(ascii: "0"))
                if seenPoint { scale -= 1 }
            } else {
                break  // 'e' or 'E'
            }
            k += 1
        }
        var exponent = 0
        if k < end {
            k += 1  // past 'e'
            var exponentNegative = false
            if p[k] == UInt8(ascii: "+") || p[k] == UInt8(ascii: "-") {
                exponentNegative = p[k] == UInt8(ascii: "-")
                k += 1
            }
            while k < end {
                exponent = exponent * 10 + Int(p[k] &- UInt8(ascii: "0"))
                guard exponent <= 400 else { return nil }
                k += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        exponent += scale
        guard mantissa <= 1 << 53, exponent >= -22, exponent <= 22 else { return nil }
        var value = Double(mantissa)
        value = exponent < 0 ? value / powersOfTen[-exponent] : value * powersOfTen[exponent]
        return negative ? -value : value
    }

    /// The token through `strtod`, from a NUL-terminated copy.
    static func strtodDouble(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Double {
        let n = end - start
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: n + 1) { buffer in
            guard let base = buffer.baseAddress else { return .nan }  // (capacity ≥ 1: never nil)
            UnsafeMutableRawPointer(base).copyMemory(from: p + start, byteCount: n)
            buffer[n] = 0
            return strtod(base, nil)
        }
    }
}
