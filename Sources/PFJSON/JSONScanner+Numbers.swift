import Foundation
import PFCore

// MARK: - Numbers

extension JSONScanner {
    @inline(__always)
    private func isDigit(_ c: UInt8) -> Bool { c &- UInt8(ascii: "0") < 10 }

    /// The offset of the first non-digit at or after `start` (or `count`). Eight bytes at a
    /// time: a byte is a digit when its high nibble is 3 and its low nibble plus 6 stays
    /// below 16; neither test carries into the next byte, so the lowest flagged byte is
    /// exactly the first non-digit. `j + 8 <= count` keeps every load inside the input.
    @inline(__always)
    func skipDigits(_ start: Int) -> Int {
        var j = start
        while j + 8 <= count {
            let w = UnsafeRawPointer(p + j).loadUnaligned(as: UInt64.self)
            let notDigit = ((w & 0xF0F0_F0F0_F0F0_F0F0) ^ 0x3030_3030_3030_3030)
                | (((w & 0x0F0F_0F0F_0F0F_0F0F) &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0)
            if notDigit != 0 { return j + notDigit.trailingZeroBitCount >> 3 }
            j += 8
        }
        while j < count, isDigit(p[j]) { j += 1 }
        return j
    }

    /// Scans a number with RFC 8259's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    ///
    /// An integer must fit `Int64.min…UInt64.max` (json-c would saturate silently); a number
    /// with a fraction or exponent must not overflow a double (json-c would give ±inf).
    /// - Returns: the offset after the number.
    func scanNumber(_ i: Int) throws(PFError) -> Int {
        var j = i
        let negative = byte(j) == UInt8(ascii: "-")
        if negative { j += 1 }
        guard j < count, isDigit(byte(j)) else {
            throw JSONError.unexpected(at: j, in: bytes, expected: "a digit")
        }
        let intStart = j
        if byte(j) == UInt8(ascii: "0") {
            j += 1
            if j < count, isDigit(byte(j)) {
                throw JSONError.make(.leadingZero, offset: j - 1, in: bytes)
            }
        } else {
            j = skipDigits(j)
        }
        // Significant integer digits ("0" has none).
        let intDigits = byte(intStart) == UInt8(ascii: "0") ? 0 : j - intStart
        var isDouble = false
        // Zeros between the point and the first significant digit of "0.000…", and whether
        // any significant digit was seen there, for the overflow estimate.
        var fractionZeros = 0
        var fractionSignificant = false
        if j < count, byte(j) == UInt8(ascii: ".") {
            isDouble = true
            j += 1
            guard j < count, isDigit(byte(j)) else {
                throw JSONError.unexpected(at: j, in: bytes, expected: "a digit after '.'")
            }
            if intDigits == 0 {
                // Only "0.000…" needs the leading zeros counted.
                let zerosStart = j
                while j < count, byte(j) == UInt8(ascii: "0") { j += 1 }
                fractionZeros = j - zerosStart
                fractionSignificant = j < count && isDigit(byte(j))
            }
            j = skipDigits(j)
        }
        var exponent = 0
        if j < count, byte(j) | 0x20 == UInt8(ascii: "e") {
            isDouble = true
            j += 1
            var exponentNegative = false
            if j < count, byte(j) == UInt8(ascii: "+") || byte(j) == UInt8(ascii: "-") {
                exponentNegative = byte(j) == UInt8(ascii: "-")
                j += 1
            }
            guard j < count, isDigit(byte(j)) else {
                throw JSONError.unexpected(at: j, in: bytes, expected: "a digit in the exponent")
            }
            while j < count, isDigit(byte(j)) {
                // Saturate: anything past a million is far outside a double's range anyway.
                if exponent < 1_000_000 { exponent = exponent * 10 + Int(byte(j) &- UInt8(ascii: "0")) }
                j += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        guard j - i <= maxNumberLength else {
            throw JSONError.limit("maxNumberLength", maxNumberLength, offset: i, in: bytes)
        }
        if !isDouble {
            // 18 digits always fit; 19 or 20 need the exact check; more never fit.
            if intDigits > 18, !wideIntegersAsDoubles { try checkIntegerRange(i, digits: intStart..<j, negative: negative) }
            return j
        }
        // Decimal exponent of the leading significant digit; only numbers near or past
        // 1.8e308 need the exact (and slower) check.
        let leading: Int
        if intDigits > 0 {
            leading = intDigits - 1 + exponent
        } else if fractionSignificant {
            leading = exponent - fractionZeros - 1
        } else {
            return j  // zero, whatever the exponent
        }
        if leading >= 308 { try checkFinite(i, j) }
        return j
    }

    /// Fails when the integer with the decimal `digits` is outside `Int64.min…UInt64.max`.
    private func checkIntegerRange(_ i: Int, digits: Range<Int>, negative: Bool) throws(PFError) {
        guard digits.count <= 20 else { throw integerOutOfRange(i) }
        let (magnitude, overflow) = JSONNumber.checkedMagnitude(p, digits.lowerBound, digits.upperBound)
        if overflow { throw integerOutOfRange(i) }
        if negative, magnitude > UInt64(Int64.max) + 1 { throw integerOutOfRange(i) }
    }

    /// Scans a number in lenient mode, where json-c's own grammar decides what is valid
    /// (`-01`, `1.`, `.5`, `-Infinity`); this only finds the token's end and checks the
    /// integer range, the double range and the length.
    func scanLenientNumber(_ i: Int) throws(PFError) -> Int {
        var j = i
        if byte(j) == UInt8(ascii: "-"), j + 1 < count, byte(j + 1) | 0x20 == UInt8(ascii: "i") {
            return try scanLiteral(i + 1, "infinity")
        }
        var integer = true
        var digits = 0
        var magnitude: UInt64 = 0
        var overflow = false
        var hasExponent = false
        while j < count {
            let c = byte(j)
            if isDigit(c) {
                if integer {
                    let (m, o1) = magnitude.multipliedReportingOverflow(by: 10)
                    let (s, o2) = m.addingReportingOverflow(UInt64(c &- UInt8(ascii: "0")))
                    magnitude = s
                    overflow = overflow || o1 || o2
                }
                digits += 1
            } else if c == UInt8(ascii: "-") || c == UInt8(ascii: "+") {
                if j != i { integer = false }
            } else if c == UInt8(ascii: ".") {
                integer = false
            } else if c | 0x20 == UInt8(ascii: "e") {
                integer = false
                hasExponent = true
            } else {
                break
            }
            j += 1
        }
        guard j - i <= maxNumberLength else {
            throw JSONError.limit("maxNumberLength", maxNumberLength, offset: i, in: bytes)
        }
        if integer, digits > 0 {
            let negative = byte(i) == UInt8(ascii: "-")
            if overflow || (negative && magnitude > UInt64(Int64.max) + 1) { throw integerOutOfRange(i) }
        } else if hasExponent || digits > 300 {
            try checkFinite(i, j)
        }
        return j
    }

    /// Whether the strict number token `i..<end` is an integer beyond 64 bits (only asked
    /// with ``JSONReader/Options/wideIntegersAsDoubles``); such an integer must still be a
    /// finite double.
    func isWideInteger(_ i: Int, _ end: Int) throws(PFError) -> Bool {
        let negative = byte(i) == UInt8(ascii: "-")
        let digits = (negative ? i + 1 : i)..<end
        guard digits.count > 18 else { return false }
        for k in digits where !isDigit(byte(k)) { return false }
        do {
            try checkIntegerRange(i, digits: digits, negative: negative)
            return false
        } catch {
            try checkFinite(i, end)
            return true
        }
    }

    /// Converts the token `i..<end` exactly and fails when it overflows to ±infinity.
    private func checkFinite(_ i: Int, _ end: Int) throws(PFError) {
        // Rare (only huge magnitudes get here).
        let value = JSONNumber.strtodDouble(p, i, end)
        if value.isInfinite {
            throw JSONError.make(.doubleOverflow, offset: i, in: bytes)
        }
    }

    private func integerOutOfRange(_ i: Int) -> PFError {
        JSONError.make(.integerOutOfRange, offset: i, in: bytes)
    }
}
