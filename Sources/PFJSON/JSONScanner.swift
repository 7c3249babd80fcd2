import PFCore

/// What the pre-scan learned about a document that the tree walk needs.
struct JSONScanResult {
    /// Where the value starts (after a byte order mark skipped in lenient mode).
    var start: Int
    /// The member count of every object, in the order their `{` appear (pre-order);
    /// recorded only when duplicate keys are to be rejected, else empty.
    var objectCounts: [Int]
    /// The byte offset of every object's `{`, parallel to `objectCounts`.
    var objectOffsets: [Int]
    /// The offset of the backslash of every `\u0000` escape inside an object key, in order
    /// (almost always empty).
    var nulKeyEscapes: [Int]
    /// Which of the noncharacters U+FDD0…U+FDEF (bit k for U+FDD0 + k) occur in some key,
    /// raw or escaped: the reader picks an unused one to stand in for U+0000 in keys.
    var keyNoncharacters: UInt32
    /// Whether some key has a byte or an escape beyond ASCII. Distinct ASCII byte strings
    /// are always distinct Swift strings; other keys may be canonically equivalent (`é` and
    /// `e\u0301`) or repaired to the same U+FFFD in lenient mode, so they need uniquing.
    var nonASCIIKeys: Bool
    /// Whether some key holds an escape (`\"`, `\u0041`…): its text is not its bytes.
    var escapedKeys: Bool
    /// The deepest container nesting seen (0 for a scalar document), so json-c's tokener
    /// needs a depth stack no larger than `maxDepthSeen + 1`.
    var maxDepthSeen: Int
    /// Whether some string or key holds an escaped surrogate pair that json-c 0.16 decodes as
    /// U+FFFD (a character whose low 16 bits are D800…DFFF, such as U+2D800 of CJK
    /// Extension F, written `\uD876\uDC00`): json-c then parses a copy in which those pairs are raw UTF-8.
    var jsonCMangledPairs: Bool
    /// The integer tokens beyond 64 bits, kept only with
    /// ``JSONReader/Options/wideIntegersAsDoubles`` (otherwise they are errors): json-c then
    /// parses a copy in which each is spelled as a double of the same length.
    var wideIntegers: [Range<Int>] = []
}

/// Finds the first key that repeats in one object, in a second pass of the scanner that
/// runs only to name the key in a duplicate-key error.
final class JSONRepeatedKeyFinder {
    /// The pre-order slot of the object to look in.
    let slot: Int
    private var seen: Set<[UInt8]> = []
    /// The decoded bytes of the first repeated key, once found.
    private(set) var repeated: [UInt8]?

    init(slot: Int) {
        self.slot = slot
    }

    func add(_ key: [UInt8], slot: Int) {
        guard slot == self.slot, repeated == nil else { return }
        if !seen.insert(key).inserted { repeated = key }
    }
}

/// pfarchive's own single-pass validator, run before json-c sees the bytes.
///
/// json-c accepts 16 of JSONTestSuite's `n_` files, validates UTF-8 only partly, saturates
/// out-of-range integers silently, truncates keys at U+0000 and crashes when freeing very
/// deep trees. This scanner checks all of that in one pass over the bytes, with no
/// allocation per token. When duplicate keys are to be rejected it records the member count
/// of each object so the tree walk can detect them (json-c keeps only the last); it records
/// where keys hold an escaped U+0000 so the reader can keep such keys whole. Errors carry
/// the byte offset.
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
    /// The longest string (value or key) accepted, decoded bytes: checked here, before json-c
    /// builds a string the limit refuses.
    let maxStringBytes: Int
    /// Whether to record per-object member counts and offsets (only `rejectDuplicateKeys`
    /// needs them).
    let recordObjects: Bool
    /// Whether an integer beyond 64 bits is kept (as a double) rather than refused.
    let wideIntegersAsDoubles: Bool

    /// What the scan notes about keys (see ``JSONScanResult``). Kept in a local of `scan`
    /// and passed `inout` to the key path only, so the scanner itself stays immutable and
    /// its hot methods take it without copies.
    struct KeyNotes {
        var nulKeyEscapes: [Int] = []
        var keyNoncharacters: UInt32 = 0
        var nonASCIIKeys = false
        var escapedKeys = false
        /// Set for an escaped surrogate pair json-c decodes wrongly, in a key or a value.
        var jsonCMangledPairs = false
        /// See ``JSONScanResult/wideIntegers``.
        var wideIntegers: [Range<Int>] = []
    }
    /// Set only for the second pass that names a repeated key.
    let finder: JSONRepeatedKeyFinder?

    init(bytes: UnsafeRawBufferPointer, base: UnsafeRawPointer, options: JSONReader.Options,
         finder: JSONRepeatedKeyFinder? = nil) {
        self.bytes = bytes
        self.p = base.assumingMemoryBound(to: UInt8.self)
        self.count = bytes.count
        self.lenient = options.mode == .lenient
        self.maxDepth = max(0, min(options.limits.maxDepth, JSONReader.maximumSupportedDepth))
        self.maxNodes = options.limits.maxNodes
        self.maxCollectionCount = options.limits.maxCollectionCount
        self.maxNumberLength = options.maxNumberLength
        self.maxStringBytes = options.limits.maxStringBytes
        self.recordObjects = options.rejectDuplicateKeys || finder != nil
        self.wideIntegersAsDoubles = options.wideIntegersAsDoubles && options.mode == .strict
        self.finder = finder
    }

    /// The first key that repeats in the object with pre-order index `slot` (counting every
    /// `{` of the document from 0), decoded; `nil` when there is none or the bytes do not scan.
    ///
    /// A second, linear pass over a document that already scanned, run only to name the key
    /// in a duplicate-key error.
    static func repeatedKey(in bytes: UnsafeRawBufferPointer, options: JSONReader.Options, slot: Int) -> String? {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return nil }
        let finder = JSONRepeatedKeyFinder(slot: slot)
        var scanner = JSONScanner(bytes: bytes, base: base, options: options, finder: finder)
        guard (try? scanner.scan()) != nil, let key = finder.repeated else { return nil }
        return String(decoding: key, as: UTF8.self)
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
    /// - Returns: where the value starts, the object member counts (when recorded) and what
    ///   the reader must know about the keys.
    /// - Throws: ``PFError`` (`syntax`, `truncated`, `invalidValue`, `unsupported`,
    ///   `limitExceeded`) at the first problem.
    mutating func scan() throws(PFError) -> JSONScanResult {
        // The work is in a non-mutating method: calling the scanner's helpers from a
        // mutating context made Swift copy the whole struct for each call.
        var none = JSONNoSink()
        return try scanDocument(&none)
    }

    /// Validates the whole document as ``scan()`` does and tells `sink` what it passes (a
    /// ``JSONTapeBuilder`` records every value; a ``JSONContainerRecorder`` the containers).
    mutating func scan<Sink: JSONScanSink>(into sink: inout Sink) throws(PFError) -> JSONScanResult {
        try scanDocument(&sink)
    }

    /// The scan, generic over what it tells as it goes (specialised: the pre-scan's
    /// ``JSONNoSink`` costs nothing).
    private func scanDocument<Sink: JSONScanSink>(_ sink: inout Sink) throws(PFError) -> JSONScanResult {
        var notes = KeyNotes()
        var start = 0
        if count >= 3, byte(0) == 0xEF, byte(1) == 0xBB, byte(2) == 0xBF {
            guard lenient else {
                throw JSONError.make(.byteOrderMark, offset: 0, in: bytes)
            }
            start = 3
        }
        var objectCounts: [Int] = []
        var objectOffsets: [Int] = []
        // The innermost open container lives in locals (`depth`, `members`, `slot`), so the
        // per-member path touches no array; `saved` holds the enclosing ones. Bounded by
        // maxDepth (at most 512). A small reservation stays under malloc's large-request
        // size; deeper documents grow it.
        var saved: [Frame] = []
        saved.reserveCapacity(min(maxDepth, 16))
        var depth = 0
        var maxDepthSeen = 0
        var members = 0
        var slot = -1  // -1 for an array; for an object its objectCounts slot (Int.max unrecorded)
        var nodes = 0

        var i = try skipSpace(start)
        valueLoop: while true {
            // A value is expected at i.
            nodes += 1
            if nodes > maxNodes { throw JSONError.limit("maxNodes", maxNodes, offset: i, in: bytes) }
            guard i < count else { throw JSONError.unexpected(at: i, in: bytes, expected: "a value") }
            let c = p[i]
            switch c {
            case UInt8(ascii: "{"):
                guard depth < maxDepth else { throw JSONError.limit("maxDepth", maxDepth, offset: i, in: bytes) }
                var newSlot = Int.max  // an object whose counts are not recorded
                if recordObjects {
                    objectOffsets.append(i)
                    objectCounts.append(0)
                    newSlot = objectCounts.count - 1
                }
                let open = i
                i = try skipSpace(i + 1)
                if i < count, p[i] == UInt8(ascii: "}") {
                    i += 1
                    sink.empty(.object, start: open, end: i)
                } else {
                    sink.open(.object, start: open)
                    if depth > 0 { saved.append(Frame(members: members, slot: slot)) }
                    depth += 1
                    if depth > maxDepthSeen { maxDepthSeen = depth }
                    members = 1
                    slot = newSlot
                    i = try scanKey(i, slot: slot, notes: &notes, sink: &sink)
                    continue valueLoop
                }
            case UInt8(ascii: "["):
                guard depth < maxDepth else { throw JSONError.limit("maxDepth", maxDepth, offset: i, in: bytes) }
                let open = i
                i = try skipSpace(i + 1)
                if i < count, p[i] == UInt8(ascii: "]") {
                    i += 1
                    sink.empty(.array, start: open, end: i)
                } else {
                    sink.open(.array, start: open)
                    if depth > 0 { saved.append(Frame(members: members, slot: slot)) }
                    depth += 1
                    if depth > maxDepthSeen { maxDepthSeen = depth }
                    members = 1
                    slot = -1
                    continue valueLoop
                }
            case UInt8(ascii: "\""):
                let start = i
                i = try scanString(i, quote: c, mangled: &notes.jsonCMangledPairs)
                sink.string(start: start, end: i)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = i
                i = lenient ? try scanLenientNumber(i) : try scanNumber(i)
                if wideIntegersAsDoubles, try isWideInteger(start, i) { notes.wideIntegers.append(start..<i) }
                sink.number(start: start, end: i)
            case UInt8(ascii: "t"):
                i = try scanLiteral(i, "true")
                sink.literal(.bool, true, start: i - 4)
            case UInt8(ascii: "f"):
                i = try scanLiteral(i, "false")
                sink.literal(.bool, false, start: i - 5)
            case UInt8(ascii: "n"):
                let start = i
                i = lenient && byte(i + 1) | 0x20 == UInt8(ascii: "a") ? try scanLiteral(i, "nan") : try scanLiteral(i, "null")
                sink.literal(.null, false, start: start)
            default:
                // Lenient mode only, which never records a tape.
                i = try scanLenientValue(i, mangled: &notes.jsonCMangledPairs)
            }

            // A value ended at i: close containers and find the next value.
            afterValue: while true {
                guard depth > 0 else {
                    let end = try skipSpace(i)
                    guard end == count else {
                        throw JSONError.make(.trailingData(found: JSONError.describeByte(at: end, in: bytes)), offset: end, in: bytes)
                    }
                    return JSONScanResult(start: start, objectCounts: objectCounts, objectOffsets: objectOffsets,
                                          nulKeyEscapes: notes.nulKeyEscapes, keyNoncharacters: notes.keyNoncharacters,
                                          nonASCIIKeys: notes.nonASCIIKeys, escapedKeys: notes.escapedKeys,
                                          maxDepthSeen: maxDepthSeen, jsonCMangledPairs: notes.jsonCMangledPairs,
                                          wideIntegers: notes.wideIntegers)
                }
                let top = slot >= 0
                i = try skipSpace(i)
                let c = byte(i)
                let close = top ? UInt8(ascii: "}") : UInt8(ascii: "]")
                var closing = i < count && c == close
                if !closing, i < count, c == UInt8(ascii: ",") {
                    i = try skipSpace(i + 1)
                    if lenient, i < count, byte(i) == close {
                        closing = true  // a trailing comma, which lenient mode allows
                    } else {
                        members += 1
                        guard members <= maxCollectionCount else {
                            throw JSONError.limit("maxCollectionCount", maxCollectionCount, offset: i, in: bytes)
                        }
                        if top { i = try scanKey(i, slot: slot, notes: &notes, sink: &sink) }
                        continue valueLoop
                    }
                }
                guard closing else {
                    throw JSONError.unexpected(at: i, in: bytes, expected: top ? "',' or '}'" : "',' or ']'")
                }
                i += 1
                sink.close(members: members, end: i)
                if recordObjects, slot >= 0, slot < objectCounts.count { objectCounts[slot] = members }
                depth -= 1
                if let frame = saved.popLast() {
                    members = frame.members
                    slot = frame.slot
                }
                continue afterValue
            }
        }
    }

    /// An open container: members so far and, for an object, its slot in `objectCounts`
    /// (`Int.max` when counts are not recorded; arrays have slot -1).
    struct Frame {
        var members: Int
        var slot: Int
    }

    /// Scans `"key" :` and the whitespace after it.
    /// - Parameter slot: the object's slot in `objectCounts`, for the repeated-key pass.
    /// - Returns: the offset of the member's value.
    private func scanKey<Sink: JSONScanSink>(_ i: Int, slot: Int, notes: inout KeyNotes, sink: inout Sink) throws(PFError) -> Int {
        let c = byte(i)
        guard i < count, c == UInt8(ascii: "\"") || (lenient && c == UInt8(ascii: "'")) else {
            throw JSONError.unexpected(at: i, in: bytes, expected: "a string key")
        }
        var j = try scanKeyString(i, quote: c, notes: &notes)
        sink.key(start: i, end: j)
        if let finder { finder.add(decodeString(i, j), slot: slot) }
        // `"key": value` and `"key":value` are nearly every member: check them first.
        if j < count, p[j] == UInt8(ascii: ":") {
            j += 1
        } else {
            j = try skipSpace(j)
            guard j < count, byte(j) == UInt8(ascii: ":") else {
                throw JSONError.unexpected(at: j, in: bytes, expected: "':' after an object key")
            }
            j += 1
        }
        if j + 1 < count {
            let d = p[j]
            if d == 0x20 {
                let e = p[j + 1]
                if e > 0x20, e != UInt8(ascii: "/") { return j + 1 }
            } else if d > 0x20, d != UInt8(ascii: "/") {
                return j
            }
        }
        return try skipSpace(j)
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
            } else if c == 0x0A {
                // Indentation follows a newline: skip it eight spaces at a time, and the
                // spaces that start the last word at once (`i + 8 <= count` keeps the load
                // inside the input).
                i += 1
                while i + 8 <= count {
                    let other = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) ^ 0x2020_2020_2020_2020
                    if other != 0 {
                        i += other.trailingZeroBitCount >> 3  // the first byte that is not a space
                        break
                    }
                    i += 8
                }
            } else if c == 0x20 || c == 0x0D || c == 0x09 {
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
            throw JSONError.make(.unterminatedComment, offset: count, in: bytes)
        }
        throw JSONError.unexpected(at: i, in: bytes, expected: "a value")
    }

    /// Scans one of `true`, `false`, `null` (any letter case in lenient mode, as json-c).
    @inline(__always)
    func scanLiteral(_ i: Int, _ word: StaticString) throws(PFError) -> Int {
        // `true`, `null` and `false` exactly as written: their last four bytes in one load
        // (and, for `false`, the first byte too).
        let n = word.utf8CodeUnitCount
        if n == 4 || n == 5, i + n <= count {
            let want = UnsafeRawPointer(word.utf8Start).loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
            let have = UnsafeRawPointer(p + i).loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
            if have == want, n == 4 || p[i] == word.utf8Start[0] { return i + n }
        }
        return try scanLiteralByByte(i, word)
    }

    /// ``scanLiteral(_:_:)`` a byte at a time: lenient mode's other spellings (`True`,
    /// `NULL`), `nan`, and the error naming the first byte that differs.
    private func scanLiteralByByte(_ i: Int, _ word: StaticString) throws(PFError) -> Int {
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

    /// Lenient-only values: single-quoted strings, `NaN`, `Infinity`, numbers that start with
    /// `.`, and literals that start with a capital (`True`, `FALSE`, `Null`); anything else is
    /// an error in both modes.
    private func scanLenientValue(_ i: Int, mangled: inout Bool) throws(PFError) -> Int {
        guard lenient else { throw JSONError.unexpected(at: i, in: bytes, expected: "a value") }
        let c = byte(i)
        switch c {
        case UInt8(ascii: "'"):
            return try scanString(i, quote: c, mangled: &mangled)
        case UInt8(ascii: "T"):
            return try scanLiteral(i, "true")
        case UInt8(ascii: "F"):
            return try scanLiteral(i, "false")
        case UInt8(ascii: "N"):
            // `NaN`, or `null` in capitals (json-c reads literals in any letter case).
            return byte(i + 1) | 0x20 == UInt8(ascii: "a") ? try scanLiteral(i, "nan") : try scanLiteral(i, "null")
        case UInt8(ascii: "I"), UInt8(ascii: "i"):
            return try scanLiteral(i, "infinity")
        case UInt8(ascii: "."):
            return try scanLenientNumber(i)
        default:
            throw JSONError.unexpected(at: i, in: bytes, expected: "a value")
        }
    }
}
