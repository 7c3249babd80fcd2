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
    let p: UnsafePointer<UInt8>?
    let count: Int
    let lenient: Bool
    let maxDepth: Int
    let maxNodes: Int
    let maxCollectionCount: Int
    let maxNumberLength: Int

    init(bytes: UnsafeRawBufferPointer, options: JSONReader.Options) {
        self.bytes = bytes
        self.p = bytes.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) }
        self.count = bytes.count
        self.lenient = options.mode == .lenient
        self.maxDepth = max(0, min(options.limits.maxDepth, JSONReader.maximumSupportedDepth))
        self.maxNodes = options.limits.maxNodes
        self.maxCollectionCount = options.limits.maxCollectionCount
        self.maxNumberLength = options.maxNumberLength
    }

    // MARK: - Bytes

    /// The byte at `i`; callers check `i < count` first (the `guard` keeps it safe anyway).
    @inline(__always)
    func byte(_ i: Int) -> UInt8 {
        guard let p, i >= 0, i < count else { return 0 }
        return p[i]
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
        // The open containers: kind, members so far and (for objects) the slot in objectCounts.
        // Bounded by maxDepth (at most 512), so reserving is safe.
        var isObject: [Bool] = []
        var members: [Int] = []
        var slots: [Int] = []
        isObject.reserveCapacity(maxDepth + 1)
        members.reserveCapacity(maxDepth + 1)
        slots.reserveCapacity(maxDepth + 1)
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
                guard isObject.count < maxDepth else { throw JSONError.limit("maxDepth", maxDepth, offset: i, in: bytes) }
                objectOffsets.append(i)
                objectCounts.append(0)
                i = try skipSpace(i + 1)
                if i < count, byte(i) == UInt8(ascii: "}") {
                    i += 1
                } else {
                    slots.append(objectCounts.count - 1)
                    isObject.append(true)
                    members.append(1)
                    i = try scanKey(i)
                    continue valueLoop
                }
            case UInt8(ascii: "["):
                guard isObject.count < maxDepth else { throw JSONError.limit("maxDepth", maxDepth, offset: i, in: bytes) }
                i = try skipSpace(i + 1)
                if i < count, byte(i) == UInt8(ascii: "]") {
                    i += 1
                } else {
                    slots.append(-1)
                    isObject.append(false)
                    members.append(1)
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
                guard let top = isObject.last else {
                    let end = try skipSpace(i)
                    guard end == count else {
                        throw JSONError.make(
                            .syntax,
                            "unexpected \(JSONError.describeByte(at: end, in: bytes)) after the top-level value; expected only whitespace",
                            offset: end, in: bytes)
                    }
                    return JSONScanResult(start: start, objectCounts: objectCounts, objectOffsets: objectOffsets)
                }
                i = try skipSpace(i)
                let c = byte(i)
                let close = top ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if i < count, c == UInt8(ascii: ",") {
                    i = try skipSpace(i + 1)
                    if lenient, i < count, byte(i) == close {
                        // A trailing comma, which lenient mode allows.
                        i += 1
                        closeContainer(top, &isObject, &members, &slots, &objectCounts)
                        continue afterValue
                    }
                    let n = members[members.count - 1] + 1
                    guard n <= maxCollectionCount else {
                        throw JSONError.limit("maxCollectionCount", maxCollectionCount, offset: i, in: bytes)
                    }
                    members[members.count - 1] = n
                    if top { i = try scanKey(i) }
                    continue valueLoop
                }
                if i < count, c == close {
                    i += 1
                    closeContainer(top, &isObject, &members, &slots, &objectCounts)
                    continue afterValue
                }
                throw JSONError.unexpected(at: i, in: bytes, expected: top ? "',' or '}'" : "',' or ']'")
            }
        }
    }

    private func closeContainer(_ object: Bool, _ isObject: inout [Bool], _ members: inout [Int], _ slots: inout [Int],
                                _ objectCounts: inout [Int]) {
        let n = members.removeLast()
        let slot = slots.removeLast()
        _ = isObject.removeLast()
        if object, slot >= 0, slot < objectCounts.count { objectCounts[slot] = n }
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
            switch byte(i) {
            case 0x20, 0x0A, 0x0D, 0x09:
                i += 1
            case UInt8(ascii: "/") where lenient:
                i = try skipComment(i)
            default:
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
