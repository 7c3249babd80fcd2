import PFCore

// MARK: - Strings

extension JSONScanner {
    /// Scans a string value starting at its opening quote.
    /// - Parameters:
    ///   - i: the offset of the opening quote.
    ///   - quote: `"` (or `'` in lenient mode).
    /// - Returns: the offset just past the closing quote.
    /// - Parameter mangled: set when the string holds an escaped surrogate pair json-c
    ///   decodes wrongly (see ``JSONScanResult/jsonCMangledPairs``).
    func scanString(_ i: Int, quote: UInt8, mangled: inout Bool) throws(PFError) -> Int {
        var special = false
        let end = try scanStringBody(i, quote: quote, special: &special, mangled: &mangled)
        if end - i - 2 > maxStringBytes { try checkStringLength(i, end) }
        return end
    }

    /// Refuses a string token `open..<end` whose decoded bytes pass `maxStringBytes`, at its
    /// opening quote. Called only when its text is longer than the limit (escapes make the
    /// decoded string shorter, never longer), so before json-c builds it — a 500 MB string
    /// would otherwise cost json-c its copy and the reader two more.
    func checkStringLength(_ open: Int, _ end: Int) throws(PFError) {
        var decoded = 0
        walkDecodedString(open, end) { decoded += $0.count }
        guard decoded <= maxStringBytes else {
            throw PFLimits.exceeded("maxStringBytes", maxStringBytes, format: JSONError.format, offset: open).at(path(to: open))
        }
    }

    /// Scans an object key starting at its opening quote, and notes what the reader needs to
    /// keep keys whole through json-c: where `\u0000` escapes are (json-c keeps keys as C
    /// strings and would truncate them there) and which noncharacters U+FDD0…U+FDEF occur.
    /// - Returns: the offset just past the closing quote.
    @inline(__always)
    func scanKeyString(_ i: Int, quote: UInt8, notes: inout KeyNotes) throws(PFError) -> Int {
        var special = false
        let end = try scanStringBody(i, quote: quote, special: &special, mangled: &notes.jsonCMangledPairs)
        if end - i - 2 > maxStringBytes { try checkStringLength(i, end) }
        // Only keys with an escape or a non-ASCII byte need the second look (rare).
        if special { noteKeyContents(i + 1, end - 1, &notes) }
        return end
    }

    /// Whether json-c 0.16 decodes the escaped surrogate pair `high`, `low` wrongly: it
    /// writes U+FFFD for every character whose low 16 bits look like a surrogate
    /// (U+1D800…U+1DFFF of Sutton SignWriting, U+2D800…U+2DFFF of CJK Extension F, and
    /// likewise in every plane above).
    @inline(__always)
    static func jsonCMangles(high: UInt32, low: UInt32) -> Bool {
        PFUTF8.scalar(high: high, low: low) & 0xF800 == 0xD800
    }

    /// Records `\u0000` escapes, noncharacters U+FDD0…U+FDEF and anything beyond ASCII in the
    /// key text `start..<end` (already validated, so every escape is complete and inside the
    /// input; `byte` keeps any access in bounds anyway).
    private func noteKeyContents(_ start: Int, _ end: Int, _ notes: inout KeyNotes) {
        var j = start
        while j < end {
            let c = byte(j)
            if c == UInt8(ascii: "\\") {
                notes.escapedKeys = true
                guard byte(j + 1) == UInt8(ascii: "u") else {
                    j += 2
                    continue
                }
                var unit: UInt32 = 0
                for k in (j + 2)..<(j + 6) { unit = unit << 4 | (PFUTF8.hexDigit(byte(k)) ?? 0) }
                if unit == 0 { notes.nulKeyEscapes.append(j) }
                if unit >= 0x80 { notes.nonASCIIKeys = true }
                if unit >= 0xFDD0, unit <= 0xFDEF { notes.keyNoncharacters |= 1 << (unit - 0xFDD0) }
                j += 6
            } else if c == 0xEF, byte(j + 1) == 0xB7, byte(j + 2) >= 0x90, byte(j + 2) <= 0xAF {
                // U+FDD0…U+FDEF raw: EF B7 90…AF.
                notes.keyNoncharacters |= 1 << UInt32(byte(j + 2) &- 0x90)
                notes.nonASCIIKeys = true
                j += 3
            } else {
                if c >= 0x80 { notes.nonASCIIKeys = true }
                j += 1
            }
        }
    }

    /// The string scanner shared by values and keys; `special` becomes `true` when the
    /// string holds an escape or a byte outside printable ASCII, `mangled` when it holds an
    /// escaped surrogate pair json-c decodes wrongly.
    @inline(__always)
    private func scanStringBody(_ i: Int, quote: UInt8, special: inout Bool, mangled: inout Bool) throws(PFError) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let quoteMask = ones &* UInt64(quote)
        let slashMask = ones &* UInt64(UInt8(ascii: "\\"))
        var j = i + 1
        while true {
            var c: UInt8 = 0
            found: do {
                // Fast path, eight bytes at a time (`j + 8 <= count` keeps the load inside the
                // input): flag every byte that needs attention (>= 0x80, < 0x20, the quote or a
                // backslash). A borrow only starts at a real hit and only carries upward, so
                // the lowest flagged byte is the first real one.
                while j + 8 <= count {
                    let w = UnsafeRawPointer(p + j).loadUnaligned(as: UInt64.self)
                    let hits = (w | (w &- ones &* 0x20) | ((w ^ quoteMask) &- ones) | ((w ^ slashMask) &- ones)) & high
                    if hits != 0 {
                        j += hits.trailingZeroBitCount >> 3  // < 8, so j < count
                        c = p[j]
                        break found
                    }
                    j += 8
                }
                // The last few bytes one by one.
                while j < count {
                    c = p[j]
                    if c >= 0x20, c < 0x80, c != quote, c != UInt8(ascii: "\\") { j += 1 } else { break found }
                }
                throw JSONError.make(.unterminatedString(start: i), offset: count, in: bytes)
            }
            if c == quote { return j + 1 }
            special = true
            if c == UInt8(ascii: "\\") {
                j = try scanEscape(j, mangled: &mangled)
            } else if c < 0x20 {
                // json-c would end a string at a raw NUL, so it is refused even in lenient mode.
                guard lenient, c != 0 else {
                    throw JSONError.make(.rawControlCharacter(found: JSONError.describeByte(at: j, in: bytes)), offset: j, in: bytes)
                }
                j += 1
            } else if lenient {
                // Lenient mode lets invalid UTF-8 through; the tree walk replaces it with U+FFFD.
                j += 1
            } else {
                // A run of non-ASCII text (CJK, say) is validated here without going back to
                // the word loop for every character.
                repeat {
                    j = try validateUTF8Inline(j)
                } while j < count && p[j] >= 0x80
            }
        }
    }

    /// Validates the UTF-8 sequence at `j` (`j < count`): the common two- and three-byte
    /// forms inline, everything else through ``validateUTF8(_:)``.
    /// - Returns: the offset after the sequence.
    @inline(__always)
    private func validateUTF8Inline(_ j: Int) throws(PFError) -> Int {
        let lead = p[j]
        if lead & 0xF0 == 0xE0, lead != 0xE0, lead != 0xED, j + 3 <= count {
            // E1…EC, EE, EF: any two continuation bytes are valid (no overlong or surrogate).
            if p[j + 1] & 0xC0 == 0x80, p[j + 2] & 0xC0 == 0x80 { return j + 3 }
        } else if lead >= 0xC2, lead <= 0xDF, j + 2 <= count, p[j + 1] & 0xC0 == 0x80 {
            return j + 2
        }
        return try validateUTF8(j)
    }

    /// Scans one escape sequence starting at its backslash.
    /// - Parameter mangled: set for a surrogate pair json-c decodes wrongly.
    /// - Returns: the offset after the escape (after both halves of a surrogate pair).
    private func scanEscape(_ j: Int, mangled: inout Bool) throws(PFError) -> Int {
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
            if PFUTF8.isHighSurrogate(unit) {
                // A high surrogate must be followed by an escaped low surrogate.
                if j + 7 < count, byte(j + 6) == UInt8(ascii: "\\"), byte(j + 7) == UInt8(ascii: "u") {
                    let low = try hex4(j + 8)
                    if PFUTF8.isLowSurrogate(low) {
                        if JSONScanner.jsonCMangles(high: unit, low: low) { mangled = true }
                        return j + 12
                    }
                }
                guard lenient else {
                    throw JSONError.make(.loneHighSurrogate, offset: j, in: bytes)
                }
                return j + 6
            }
            if PFUTF8.isLowSurrogate(unit), !lenient {
                throw JSONError.make(.loneLowSurrogate, offset: j, in: bytes)
            }
            return j + 6
        default:
            throw JSONError.make(.invalidEscape(found: JSONError.describeByte(at: j + 1, in: bytes)), offset: j, in: bytes)
        }
    }

    /// Reads four hex digits at `k`.
    private func hex4(_ k: Int) throws(PFError) -> UInt32 {
        var value: UInt32 = 0
        for n in k..<(k + 4) {
            guard n < count else { throw JSONError.unexpected(at: n, in: bytes, expected: "four hex digits after \\u") }
            guard let digit = PFUTF8.hexDigit(byte(n)) else {
                throw JSONError.unexpected(at: n, in: bytes, expected: "four hex digits after \\u")
            }
            value = value << 4 | digit
        }
        return value
    }

    /// The decoded bytes of the string token `open..<end` (quotes included), which the scan
    /// has already validated. Used only by the rare collecting pass. Mirrors json-c: lone
    /// surrogate escapes (lenient mode) become U+FFFD, invalid UTF-8 stays as it is.
    func decodeString(_ open: Int, _ end: Int) -> [UInt8] {
        var out: [UInt8] = []
        walkDecodedString(open, end) { out.append(contentsOf: $0) }
        return out
    }

    /// Hands the decoded bytes of the string token `open..<end` to `sink` in pieces
    /// (``PFCore/PFUTF8/decodeJSONString(_:_:)``), so a length is counted without building the string.
    func walkDecodedString(_ open: Int, _ end: Int, _ sink: (UnsafeRawBufferPointer) -> Void) {
        let start = open + 1
        let stop = min(end - 1, count)
        guard start < stop else { return }
        PFUTF8.decodeJSONString(UnsafeRawBufferPointer(start: p + start, count: stop - start), sink)
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
            throw invalidUTF8(at: j, .notLeadByte)
        }
        guard j + length <= count else { throw invalidUTF8(at: j, .truncatedSequence) }
        let second = byte(j + 1)
        guard second >= low, second <= high else {
            throw invalidUTF8(at: j, .invalidSequence)
        }
        var k = 2
        while k < length {
            let next = byte(j + k)
            guard next & 0xC0 == 0x80 else { throw invalidUTF8(at: j + k, .notContinuation) }
            k += 1
        }
        return j + length
    }

    private func invalidUTF8(at j: Int, _ problem: JSONFailure.UTF8Problem) -> PFError {
        JSONError.make(.invalidUTF8(found: JSONError.describeByte(at: j, in: bytes), problem), offset: j, in: bytes)
    }
}
