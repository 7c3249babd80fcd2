import PFCore

// MARK: - Strings

extension JSONScanner {
    /// Scans a string starting at its opening quote.
    /// - Parameters:
    ///   - i: the offset of the opening quote.
    ///   - quote: `"` (or `'` in lenient mode).
    ///   - isKey: whether the string is an object key, which must not contain U+0000
    ///     (json-c keeps keys as C strings and would silently truncate them).
    /// - Returns: the offset just past the closing quote.
    func scanString(_ i: Int, quote: UInt8, isKey: Bool) throws(PFError) -> Int {
        guard let p else { throw JSONError.unexpected(at: i, in: bytes, expected: "a string") }
        var j = i + 1
        while true {
            // Fast path: printable ASCII that needs no attention.
            while j < count {
                let c = p[j]
                if c >= 0x20, c < 0x80, c != quote, c != UInt8(ascii: "\\") { j += 1 } else { break }
            }
            guard j < count else {
                throw JSONError.make(.truncated, "unexpected end of input inside the string that starts at byte \(i); expected a closing quote",
                                     offset: count, in: bytes)
            }
            let c = p[j]
            if c == quote { return j + 1 }
            if c == UInt8(ascii: "\\") {
                j = try scanEscape(j, isKey: isKey)
            } else if c < 0x20 {
                // json-c would end a key at a raw NUL, so it is refused even in lenient mode.
                guard lenient, c != 0 else {
                    throw JSONError.make(
                        .syntax, "raw control character \(JSONError.describeByte(at: j, in: bytes)) in a string; expected it escaped (\\n, \\t, \\u00XX)",
                        offset: j, in: bytes)
                }
                j += 1
            } else if lenient {
                // Lenient mode lets invalid UTF-8 through; the tree walk replaces it with U+FFFD.
                j += 1
            } else {
                j = try validateUTF8(j)
            }
        }
    }

    /// Scans one escape sequence starting at its backslash.
    /// - Returns: the offset after the escape (after both halves of a surrogate pair).
    private func scanEscape(_ j: Int, isKey: Bool) throws(PFError) -> Int {
        guard j + 1 < count else {
            throw JSONError.unexpected(at: j + 1, in: bytes, expected: "an escape character")
        }
        switch byte(j + 1) {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return j + 2
        case UInt8(ascii: "'") where lenient:
            return j + 2
        case UInt8(ascii: "u"):
            let unit = try hex4(j + 2)
            if unit == 0, isKey {
                throw JSONError.make(
                    .unsupported, "object key contains U+0000 (\\u0000); keys with NUL are not supported (json-c would truncate them)",
                    offset: j, in: bytes)
            }
            if unit >= 0xD800, unit <= 0xDBFF {
                // A high surrogate must be followed by an escaped low surrogate.
                if j + 7 < count, byte(j + 6) == UInt8(ascii: "\\"), byte(j + 7) == UInt8(ascii: "u") {
                    let low = try hex4(j + 8)
                    if low >= 0xDC00, low <= 0xDFFF { return j + 12 }
                }
                guard lenient else {
                    throw JSONError.make(
                        .invalidValue, "lone high surrogate escape; expected a low surrogate escape (\\uDC00–\\uDFFF) to follow",
                        offset: j, in: bytes)
                }
                return j + 6
            }
            if unit >= 0xDC00, unit <= 0xDFFF, !lenient {
                throw JSONError.make(
                    .invalidValue, "lone low surrogate escape; expected it after a high surrogate escape (\\uD800–\\uDBFF)",
                    offset: j, in: bytes)
            }
            return j + 6
        default:
            throw JSONError.make(
                .syntax, "invalid escape \\\(JSONError.describeByte(at: j + 1, in: bytes)); expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX",
                offset: j, in: bytes)
        }
    }

    /// Reads four hex digits at `k`.
    private func hex4(_ k: Int) throws(PFError) -> UInt32 {
        var value: UInt32 = 0
        for n in k..<(k + 4) {
            guard n < count else { throw JSONError.unexpected(at: n, in: bytes, expected: "four hex digits after \\u") }
            let c = byte(n)
            let digit: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c &- UInt8(ascii: "a") &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c &- UInt8(ascii: "A") &+ 10
            default: throw JSONError.unexpected(at: n, in: bytes, expected: "four hex digits after \\u")
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    // MARK: - UTF-8

    /// Validates one multi-byte UTF-8 sequence (RFC 3629: no overlong forms, no surrogates,
    /// nothing above U+10FFFF).
    /// - Returns: the offset after the sequence.
    func validateUTF8(_ j: Int) throws(PFError) -> Int {
        let lead = byte(j)
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default:
            throw invalidUTF8(at: j, "is not a valid UTF-8 lead byte")
        }
        guard j + length <= count else { throw invalidUTF8(at: j, "starts a sequence the input truncates") }
        let second = byte(j + 1)
        guard second >= low, second <= high else {
            throw invalidUTF8(at: j, "starts an invalid sequence (overlong, surrogate or beyond U+10FFFF)")
        }
        var k = 2
        while k < length {
            let next = byte(j + k)
            guard next & 0xC0 == 0x80 else { throw invalidUTF8(at: j + k, "is not a continuation byte") }
            k += 1
        }
        return j + length
    }

    private func invalidUTF8(at j: Int, _ why: String) -> PFError {
        JSONError.make(.syntax, "invalid UTF-8: \(JSONError.describeByte(at: j, in: bytes)) \(why); expected UTF-8 text",
                       offset: j, in: bytes)
    }
}
