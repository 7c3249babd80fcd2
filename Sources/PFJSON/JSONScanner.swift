import PFCore

/// What the pre-scan learned about a document that the tree walk needs.
struct JSONScanResult {
    /// Where the value starts (after a byte order mark skipped in lenient mode).
    var start: Int
    /// The member count of every object, in the order their `{` appear (pre-order).
    var objectCounts: [Int]
    /// The byte offset of every object's `{`, parallel to `objectCounts`.
    var objectOffsets: [Int]
}

/// pfarchive's own single-pass validator, run before json-c sees the bytes.
///
/// json-c accepts 16 of JSONTestSuite's `n_` files, validates UTF-8 only partly, saturates
/// out-of-range integers silently, truncates keys at U+0000 and crashes when freeing very
/// deep trees. This scanner checks all of that in one pass over the bytes, with no
/// allocation per token, and records the member count of each object so the tree walk can
/// detect duplicate keys (json-c keeps only the last). Errors carry the byte offset.
struct JSONScanner {
    let bytes: UnsafeRawBufferPointer
    /// The first byte; the reader refuses empty input before scanning, so this is never
    /// dangling, and every access is guarded by `< count`.
    let p: UnsafePointer<UInt8>
    let count: Int
    let lenient: Bool
    let maxDepth: Int
    let maxNodes: Int
    let maxCollectionCount: Int
    let maxNumberLength: Int

    init(bytes: UnsafeRawBufferPointer, base: UnsafeRawPointer, options: JSONReader.Options) {
        self.bytes = bytes
        self.p = base.assumingMemoryBound(to: UInt8.self)
        self.count = bytes.count
        self.lenient = options.mode == .lenient
        self.maxDepth = max(0, min(options.limits.maxDepth, JSONReader.maximumSupportedDepth))
        self.maxNodes = options.limits.maxNodes
        self.maxCollectionCount = options.limits.maxCollectionCount
        self.maxNumberLength = options.maxNumberLength
    }

    // MARK: - Bytes

    /// The byte at `i`, or 0 outside the input (callers check `i < count` where it matters;
    /// the unsigned comparison keeps every access in bounds anyway).
    @inline(__always)
    func byte(_ i: Int) -> UInt8 {
        UInt(bitPattern: i) < UInt(bitPattern: count) ? p[i] : 0
    }

    // MARK: - Document

    /// Validates the whole document.
    /// - Returns: the object member counts and where the value starts.
    /// - Throws: ``PFError`` (`syntax`, `truncated`, `invalidValue`, `unsupported`,
    ///   `limitExceeded`) at the first problem.
    mutating func scan() throws(PFError) -> JSONScanResult {
        var start = 0
        if count >= 3, byte(0) == 0xEF, byte(1) == 0xBB, byte(2) == 0xBF {
            guard lenient else {
                throw JSONError.make(.syntax, "UTF-8 byte order mark; strict JSON must not start with one (lenient mode skips it)",
                                     offset: 0, in: bytes)
            }
            start = 3
        }
        var objectCounts: [Int] = []
        var objectOffsets: [Int] = []
        // The open containers. Bounded by maxDepth (at most 512), so reserving is safe.
        var stack: [Frame] = []
        stack.reserveCapacity(maxDepth + 1)
        var nodes = 0

        var i = try skipSpace(start)
        valueLoop: while true {
            // A value is expected at i.
            nodes += 1
            if nodes > maxNodes { throw JSONError.limit("maxNodes", maxNodes, offset: i, in: bytes) }
            guard i < count else { throw JSONError.unexpected(at: i, in: bytes, expected: "a value") }
            let c = byte(i)
            switch c {
            case UInt8(ascii: "{"):
                guard stack.count < maxDepth else { throw JSONError.limit("maxDepth", maxDepth, offset: i, in: bytes) }
                objectOffsets.append(i)
                objectCounts.append(0)
                i = try skipSpace(i + 1)
                if i < count, byte(i) == UInt8(ascii: "}") {
                    i += 1
                } else {
                    stack.append(Frame(members: 1, slot: objectCounts.count - 1))
                    i = try scanKey(i)
                    continue valueLoop
                }
            case UInt8(ascii: "["):
                guard stack.count < maxDepth else { throw JSONError.limit("maxDepth", maxDepth, offset: i, in: bytes) }
                i = try skipSpace(i + 1)
                if i < count, byte(i) == UInt8(ascii: "]") {
                    i += 1
                } else {
                    stack.append(Frame(members: 1, slot: -1))
                    continue valueLoop
                }
            case UInt8(ascii: "\""):
                i = try scanString(i, quote: c, isKey: false)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                i = lenient ? try scanLenientNumber(i) : try scanNumber(i)
            case UInt8(ascii: "t"):
                i = try scanLiteral(i, "true")
            case UInt8(ascii: "f"):
                i = try scanLiteral(i, "false")
            case UInt8(ascii: "n"):
                i = lenient && byte(i + 1) | 0x20 == UInt8(ascii: "a") ? try scanLiteral(i, "nan") : try scanLiteral(i, "null")
            default:
                i = try scanLenientValue(i)
            }

            // A value ended at i: close containers and find the next value.
            afterValue: while true {
                guard let frame = stack.last else {
                    let end = try skipSpace(i)
                    guard end == count else {
                        throw JSONError.make(
                            .syntax,
                            "unexpected \(JSONError.describeByte(at: end, in: bytes)) after the top-level value; expected only whitespace",
                            offset: end, in: bytes)
                    }
                    return JSONScanResult(start: start, objectCounts: objectCounts, objectOffsets: objectOffsets)
                }
                let top = frame.slot >= 0
                i = try skipSpace(i)
                let c = byte(i)
                let close = top ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if i < count, c == UInt8(ascii: ",") {
                    i = try skipSpace(i + 1)
                    if lenient, i < count, byte(i) == close {
                        // A trailing comma, which lenient mode allows.
                        i += 1
                        closeFrame(&stack, &objectCounts)
                        continue afterValue
                    }
                    let n = frame.members + 1
                    guard n <= maxCollectionCount else {
                        throw JSONError.limit("maxCollectionCount", maxCollectionCount, offset: i, in: bytes)
                    }
                    stack[stack.count - 1].members = n
                    if top { i = try scanKey(i) }
                    continue valueLoop
                }
                if i < count, c == close {
                    i += 1
                    closeFrame(&stack, &objectCounts)
                    continue afterValue
                }
                throw JSONError.unexpected(at: i, in: bytes, expected: top ? "',' or '}'" : "',' or ']'")
            }
        }
    }

    /// An open container: members so far and, for an object, its slot in `objectCounts`
    /// (arrays have slot -1).
    struct Frame {
        var members: Int
        var slot: Int
    }

    @inline(__always)
    private func closeFrame(_ stack: inout [Frame], _ objectCounts: inout [Int]) {
        guard let frame = stack.popLast() else { return }
        if frame.slot >= 0, frame.slot < objectCounts.count { objectCounts[frame.slot] = frame.members }
    }

    /// Scans `"key" :` and the whitespace after it.
    /// - Returns: the offset of the member's value.
    private func scanKey(_ i: Int) throws(PFError) -> Int {
        let c = byte(i)
        guard i < count, c == UInt8(ascii: "\"") || (lenient && c == UInt8(ascii: "'")) else {
            throw JSONError.unexpected(at: i, in: bytes, expected: "a string key")
        }
        var j = try scanString(i, quote: c, isKey: true)
        j = try skipSpace(j)
        guard j < count, byte(j) == UInt8(ascii: ":") else {
            throw JSONError.unexpected(at: j, in: bytes, expected: "':' after an object key")
        }
        return try skipSpace(j + 1)
    }

    // MARK: - Whitespace and literals

    /// Skips JSON whitespace (and, in lenient mode, `/* */` and `//` comments).
    @inline(__always)
    func skipSpace(_ start: Int) throws(PFError) -> Int {
        var i = start
        while i < count {
            let c = p[i]
            if c > 0x20 {
                // Most calls land here at once: the next token follows without whitespace.
                guard lenient, c == UInt8(ascii: "/") else { return i }
                i = try skipComment(i)
            } else if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 {
                i += 1
            } else {
                return i
            }
        }
        return i
    }

    private func skipComment(_ i: Int) throws(PFError) -> Int {
        let next = byte(i + 1)
        if i + 1 < count, next == UInt8(ascii: "/") {
            var j = i + 2
            while j < count, byte(j) != 0x0A { j += 1 }
            return j
        }
        if i + 1 < count, next == UInt8(ascii: "*") {
            var j = i + 2
            while j + 1 < count {
                if byte(j) == UInt8(ascii: "*"), byte(j + 1) == UInt8(ascii: "/") { return j + 2 }
                j += 1
            }
            throw JSONError.make(.truncated, "unterminated /* comment; expected '*/'", offset: count, in: bytes)
        }
        throw JSONError.unexpected(at: i, in: bytes, expected: "a value")
    }

    /// Scans one of `true`, `false`, `null` (any letter case in lenient mode, as json-c).
    func scanLiteral(_ i: Int, _ word: StaticString) throws(PFError) -> Int {
        let n = word.utf8CodeUnitCount
        let w = word.utf8Start
        var k = 0
        while k < n {
            let have = byte(i + k)
            let want = w[k]
            guard i + k < count, have == want || (lenient && have | 0x20 == want) else {
                throw JSONError.unexpected(at: i + k, in: bytes, expected: "'\(word)'")
            }
            k += 1
        }
        return i + n
    }

    /// Lenient-only values: single-quoted strings, `NaN`, `Infinity` and numbers that start
    /// with `.`; anything else is an error in both modes.
    private func scanLenientValue(_ i: Int) throws(PFError) -> Int {
        guard lenient else { throw JSONError.unexpected(at: i, in: bytes, expected: "a value") }
        let c = byte(i)
        switch c {
        case UInt8(ascii: "'"):
            return try scanString(i, quote: c, isKey: false)
        case UInt8(ascii: "N"):
            return try scanLiteral(i, "nan")
        case UInt8(ascii: "I"), UInt8(ascii: "i"):
            return try scanLiteral(i, "infinity")
        case UInt8(ascii: "."):
            return try scanLenientNumber(i)
        default:
            throw JSONError.unexpected(at: i, in: bytes, expected: "a value")
        }
    }
}
