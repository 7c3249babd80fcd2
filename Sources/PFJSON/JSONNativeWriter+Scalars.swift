import Foundation
import PFCore
import PFDoubleFormatting

/// JSON's spelling of scalars, appended to a byte buffer: what ``JSONWriter`` writes for
/// integers, doubles and strings, for code that assembles JSON text of its own (the SQLite
/// store's JSON columns) and must match the writer byte for byte.
public enum JSONText {
    /// Appends an integer in decimal.
    /// - Parameters:
    ///   - value: the integer.
    ///   - out: the buffer.
    public static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        appendInteger(value, into: &out)
    }

    @inline(__always)
    static func appendInteger<Sink: JSONByteSink>(_ value: Int64, into out: inout Sink) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        // magnitude handles Int64.min without overflow.
        appendUnsigned(value.magnitude, into: &out)
    }

    /// Appends an unsigned integer in decimal.
    /// - Parameters:
    ///   - value: the integer.
    ///   - out: the buffer.
    public static func appendUnsigned(_ value: UInt64, to out: inout [UInt8]) {
        appendUnsigned(value, into: &out)
    }

    @inline(__always)
    static func appendUnsigned<Sink: JSONByteSink>(_ value: UInt64, into out: inout Sink) {
        if value < 10 {
            out.append(UInt8(ascii: "0") &+ UInt8(value))
            return
        }
        // The digits (at most 20, for UInt64.max) from the right into a buffer on the stack,
        // then one append: no count of them first, and no closure for the sink to call.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var k = digits.count
            var v = value
            repeat {
                k -= 1
                digits[k] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v % 10)
                v /= 10
            } while v > 0
            out.appendBytes(UnsafeBufferPointer(rebasing: digits[k...]))
        }
    }

    /// Appends the shortest text that reads back to the same double, always with a `.` or an
    /// exponent so it reads back as a double (`1.0`, `1e+20`, `5e-324`, `-0.0`).
    /// - Parameters:
    ///   - value: a finite double.
    ///   - out: the buffer.
    /// - Returns: `false`, appending nothing, for NaN and the infinities (JSON has no spelling
    ///   for them).
    @discardableResult
    public static func appendDouble(_ value: Double, to out: inout [UInt8]) -> Bool {
        appendDouble(value, into: &out)
    }

    @inline(__always)
    static func appendDouble<Sink: JSONByteSink>(_ value: Double, into out: inout Sink) -> Bool {
        guard value.isFinite else { return false }
        // Swift's text for a Double (`description`) is the shortest round-trip form and is
        // valid JSON for every finite value: "1.0", "0.1", "1e-07", "1e+20", "-0.0".
        // PFDoubleFormat writes exactly that text without building a String.
        out.appendInPlace(maximum: PFDoubleFormat.scratchLength) { PFDoubleFormat.write(value, into: $0) }
        return true
    }

    /// Appends a quoted string, escaping `"`, `\`, control characters (short forms where JSON
    /// has them, `\u00XX` otherwise) and, when asked, `/`. Other characters are raw UTF-8.
    /// - Parameters:
    ///   - value: the string.
    ///   - escapingSlashes: whether `/` is written `\/`.
    ///   - out: the buffer.
    public static func appendString(_ value: String, escapingSlashes slash: Bool = false, to out: inout [UInt8]) {
        appendString(value, escapingSlashes: slash, into: &out)
    }

    @inline(__always)
    static func appendString<Sink: JSONByteSink>(_ value: String, escapingSlashes slash: Bool, into out: inout Sink) {
        var value = value
        value.withUTF8 { bytes in
            out.append(UInt8(ascii: "\""))
            var runStart = 0
            var i = 0
            let n = bytes.count
            while i < n {
                // Skip eight plain bytes at a time; a word that might hold a byte needing an
                // escape (or, with escapingSlashes, a '/') drops to the byte check below.
                if !slash, let base = bytes.baseAddress {
                    while i + 8 <= n {
                        let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                        if mayNeedEscape(word) { break }
                        i += 8
                    }
                    if i >= n { break }
                }
                let c = bytes[i]
                if c >= 0x20, c != UInt8(ascii: "\""), c != UInt8(ascii: "\\"), !(slash && c == UInt8(ascii: "/")) {
                    i += 1
                    continue
                }
                if runStart < i { out.appendBytes(UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
                out.append(UInt8(ascii: "\\"))
                switch c {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(c)
                case 0x0A: out.append(UInt8(ascii: "n"))
                case 0x09: out.append(UInt8(ascii: "t"))
                case 0x0D: out.append(UInt8(ascii: "r"))
                case 0x08: out.append(UInt8(ascii: "b"))
                case 0x0C: out.append(UInt8(ascii: "f"))
                default:
                    let hex: StaticString = "0123456789abcdef"
                    out.append(UInt8(ascii: "u"))
                    out.append(UInt8(ascii: "0"))
                    out.append(UInt8(ascii: "0"))
                    out.append(hex.utf8Start[Int(c >> 4)])
                    out.append(hex.utf8Start[Int(c & 0x0F)])
                }
                i += 1
                runStart = i
            }
            if runStart < n { out.appendBytes(UnsafeBufferPointer(rebasing: bytes[runStart..<n])) }
            out.append(UInt8(ascii: "\""))
        }
    }

    /// Whether a string's UTF-8 bytes hold a byte ``appendString(_:escapingSlashes:to:)``
    /// escapes (below 0x20, a quote or a backslash; `/` is not asked about).
    static func needsEscape(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = bytes.count
        if let base = bytes.baseAddress {
            while i + 8 <= n {
                if mayNeedEscape(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) { break }
                i += 8
            }
        }
        while i < n {
            let c = bytes[i]
            if c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") { return true }
            i += 1
        }
        return false
    }

    /// Whether any of the eight bytes in `word` is below 0x20, a quote or a backslash. May
    /// answer true for a clean word (the byte loop then decides), never false for one that
    /// needs an escape: the zero-byte test flags every real match.
    @inline(__always)
    static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- ones &* 0x20) & ~word & high
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let hasQuote = (quote &- ones) & ~quote & high
        let hasBackslash = (backslash &- ones) & ~backslash & high
        return (control | hasQuote | hasBackslash) != 0
    }
}

extension JSONText {
    /// ``appendDouble(_:jsonb:into:)`` into an array (for the inlinable plain writer,
    /// ``JSONWriter/appendPlain(_:to:)``).
    @usableFromInline
    static func appendDouble(_ value: Double, jsonb: Bool, to out: inout [UInt8]) -> Bool {
        appendDouble(value, jsonb: jsonb, into: &out)
    }

    /// Appends a double as the writer spells it (``appendDouble(_:into:)``; for `jsonb`, one
    /// without a fraction in full digits with `.0`, see ``JSONWriter/Options/jsonb``), or
    /// returns `false` for NaN and ±infinity.
    @inline(__always)
    static func appendDouble<Sink: JSONByteSink>(_ value: Double, jsonb: Bool, into out: inout Sink) -> Bool {
        guard jsonb, value.isFinite, value.rounded(.towardZero) == value else { return appendDouble(value, into: &out) }
        if abs(value) < 1e15, let i = Int64(exactly: value) {
            if value.sign == .minus, i == 0 { out.append(UInt8(ascii: "-")) }
            appendInteger(i, into: &out)
            out.append(UInt8(ascii: "."))
            out.append(UInt8(ascii: "0"))
        } else {
            // Every digit of the integer (a double above 1e15 is a whole number).
            for b in String(format: "%.1f", value).utf8 { out.append(b) }
        }
        return true
    }
}

// MARK: - The writer's scalars

extension JSONNativeWriter {
    mutating func writeInteger(_ value: Int64) {
        JSONText.appendInteger(value, into: &text)
    }

    mutating func writeUnsigned(_ value: UInt64) {
        JSONText.appendUnsigned(value, into: &text)
    }

    /// Writes a double (see ``JSONText/appendDouble(_:to:)``; for `jsonb`, one without a
    /// fraction in full digits with `.0`, see ``JSONWriter/Options/jsonb``).
    mutating func writeDouble(_ value: Double) throws(PFError) {
        guard JSONText.appendDouble(value, jsonb: options.jsonb, into: &text) else { throw JSONWriterError.nonFinite(value) }
    }

    /// Writes a quoted string (see ``JSONText/appendString(_:escapingSlashes:to:)``).
    mutating func writeString(_ value: String) {
        JSONText.appendString(value, escapingSlashes: options.escapeSlashes, into: &text)
    }
}
