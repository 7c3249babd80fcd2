import Foundation
import OrderedCollections
import PFCore

// MARK: - What the scanner tells as it goes

/// Receives the values of a document in text order while ``JSONScanner`` validates it.
///
/// The pre-scan passes ``JSONNoSink`` (every call compiles away); ``JSONTapeBuilder`` records
/// a ``JSONTape``. Offsets are byte offsets into the input.
protocol JSONScanSink {
    /// A non-empty array or object opens at `start` (its bracket).
    mutating func open(_ kind: JSONNode.Kind, start: Int)
    /// An empty array or object spans `start..<end`.
    mutating func empty(_ kind: JSONNode.Kind, start: Int, end: Int)
    /// The innermost open container closes just before `end`, with `members` elements or members.
    mutating func close(members: Int, end: Int)
    /// An object key spans `start..<end`, quotes included.
    mutating func key(start: Int, end: Int)
    /// A string value spans `start..<end`, quotes included.
    mutating func string(start: Int, end: Int)
    /// A number spans `start..<end`.
    mutating func number(start: Int, end: Int)
    /// `true`, `false` (kind `.bool`) or `null` starts at `start`.
    mutating func literal(_ kind: JSONNode.Kind, _ value: Bool, start: Int)
}

/// The sink of the plain pre-scan: records nothing.
struct JSONNoSink: JSONScanSink {
    @inline(__always) mutating func open(_ kind: JSONNode.Kind, start: Int) {}
    @inline(__always) mutating func empty(_ kind: JSONNode.Kind, start: Int, end: Int) {}
    @inline(__always) mutating func close(members: Int, end: Int) {}
    @inline(__always) mutating func key(start: Int, end: Int) {}
    @inline(__always) mutating func string(start: Int, end: Int) {}
    @inline(__always) mutating func number(start: Int, end: Int) {}
    @inline(__always) mutating func literal(_ kind: JSONNode.Kind, _ value: Bool, start: Int) {}
}

// MARK: - The tape

/// One value, or one object key, of a scanned document.
///
/// Entries are in text order: a container is followed by its contents (an object by key,
/// value, key, value…), and `next` is the index just past its subtree, so siblings are one
/// jump apart.
struct JSONTapeEntry {
    /// The value's kind (`.string` for a key).
    var kind: JSONNode.Kind
    /// ``JSONTape/trueFlag`` for `true`; ``JSONTape/duplicatesFlag`` for an object with a
    /// repeated key; ``JSONTape/storedFlag`` for an entry copied from json-c's tree;
    /// ``JSONTape/stringKeysFlag`` for an object with a key beyond ASCII.
    var flags: UInt8
    /// Where the value starts: a string's first byte after the quote, a number's or
    /// literal's first byte, a container's bracket.
    var start: UInt32
    /// Where it ends: a string's closing quote, the byte after a number, literal or container.
    var end: UInt32
    /// The index of the entry after this value's subtree.
    var next: UInt32
    /// A container's elements or members (a repeated key counted each time); for an object
    /// key, a fingerprint of its bytes (``JSONTapeBuilder/fingerprint(_:_:_:)``), so that
    /// keys are compared byte by byte only when their fingerprints agree.
    var count: UInt32
}

/// Records a document's values as the scanner validates it: no allocation per value, and
/// nothing is decoded until a node asks.
struct JSONTapeBuilder: JSONScanSink {
    /// The entries so far (reused between documents: `removeAll(keepingCapacity:)`).
    var entries: [JSONTapeEntry]
    /// The indices of the open containers.
    var openContainers: [UInt32]
    /// The input's first byte (for telling integers from doubles).
    let p: UnsafePointer<UInt8>

    /// Takes the storage of `entries` and `openContainers` (left empty), so the builder holds
    /// the only reference and empties them in place: copies of the arrays would make
    /// `removeAll(keepingCapacity:)` allocate fresh storage and free the old, once a document.
    init(reusing entries: inout [JSONTapeEntry], _ openContainers: inout [UInt32], input p: UnsafePointer<UInt8>) {
        self.entries = []
        self.openContainers = []
        swap(&self.entries, &entries)
        swap(&self.openContainers, &openContainers)
        self.p = p
        self.entries.removeAll(keepingCapacity: true)
        self.openContainers.removeAll(keepingCapacity: true)
    }

    // Offsets are below 2 GiB (the reader refuses larger inputs), so they fit UInt32.
    @inline(__always)
    private mutating func append(_ kind: JSONNode.Kind, _ flags: UInt8, _ start: Int, _ end: Int) {
        let next = UInt32(truncatingIfNeeded: entries.count + 1)
        entries.append(JSONTapeEntry(kind: kind, flags: flags, start: UInt32(truncatingIfNeeded: start),
                                     end: UInt32(truncatingIfNeeded: end), next: next, count: 0))
    }

    @inline(__always)
    mutating func open(_ kind: JSONNode.Kind, start: Int) {
        openContainers.append(UInt32(truncatingIfNeeded: entries.count))
        append(kind, 0, start, start)
    }

    @inline(__always)
    mutating func empty(_ kind: JSONNode.Kind, start: Int, end: Int) {
        append(kind, 0, start, end)
    }

    @inline(__always)
    mutating func close(members: Int, end: Int) {
        guard let index = openContainers.popLast() else { return }
        let k = Int(index)
        entries[k].end = UInt32(truncatingIfNeeded: end)
        entries[k].next = UInt32(truncatingIfNeeded: entries.count)
        entries[k].count = UInt32(truncatingIfNeeded: members)
    }

    @inline(__always)
    mutating func key(start: Int, end: Int) {
        append(.string, 0, start + 1, end - 1)
        entries[entries.count - 1].count = Self.fingerprint(p, start + 1, end - 1)
    }

    /// A 32-bit digest of the bytes `start..<end`: their length and their first and last
    /// four bytes (equal keys always have equal fingerprints).
    @inline(__always)
    static func fingerprint(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> UInt32 {
        let n = end - start
        var head: UInt32 = 0
        var tail: UInt32 = 0
        if n >= 4 {
            // Both four-byte windows lie inside the key.
            head = UnsafeRawPointer(p + start).loadUnaligned(as: UInt32.self)
            tail = UnsafeRawPointer(p + end - 4).loadUnaligned(as: UInt32.self)
        } else {
            for k in 0..<n { head |= UInt32(p[start + k]) << (8 * UInt32(k)) }
        }
        return (head &* 0x9E37_79B1) ^ tail ^ UInt32(truncatingIfNeeded: n)
    }

    @inline(__always)
    mutating func string(start: Int, end: Int) {
        append(.string, 0, start + 1, end - 1)
    }

    @inline(__always)
    mutating func number(start: Int, end: Int) {
        append(Self.numberKind(p, start, end), 0, start, end)
    }

    @inline(__always)
    mutating func literal(_ kind: JSONNode.Kind, _ value: Bool, start: Int) {
        let length = kind == .null ? 4 : value ? 4 : 5
        append(kind, value ? JSONTape.trueFlag : 0, start, start + length)
    }

    /// The kind of a validated number token, as json-c tells it: a fraction or exponent
    /// makes a double; an integer above `Int64.max` is a `.uint`.
    static func numberKind(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> JSONNode.Kind {
        var k = start
        while k < end {
            let c = p[k]
            if c == UInt8(ascii: ".") || c | 0x20 == UInt8(ascii: "e") { return .double }
            k += 1
        }
        // 19 digits or more may pass Int64.max (a negative one never becomes a uint).
        guard end - start >= 19, p[start] != UInt8(ascii: "-") else { return .int }
        return JSONNumber.magnitude(p, start, end) > UInt64(Int64.max) ? .uint : .int
    }
}

/// A document's values as ``JSONNode`` views them, every document alike.
///
/// Most tapes are recorded by the validating scanner (strict mode, object keys of plain ASCII
/// without escapes, no `maxStringBytes` check needed): strings are decoded, numbers converted
/// and keys built only when a node asks, straight from the input bytes (which must outlive
/// the tape: it is used only inside the reader's `withDocument`). Any other document is read
/// by json-c and its tree copied into a tape (``JSONTreeTapeWriter``) whose "input" is a side
/// buffer: its entries carry ``storedFlag`` (a string's or key's decoded bytes, a number's
/// 8-byte value), its objects are already merged (a repeated key once, at its first position,
/// with its last value) and ``stringKeysFlag`` marks objects whose names must be compared as
/// Swift strings.
struct JSONTape {
    static let trueFlag: UInt8 = 1
    static let duplicatesFlag: UInt8 = 2
    /// The entry was copied from json-c's tree: a string's or key's bytes are decoded (never
    /// unescaped again), a number's are its `Int64`, `UInt64` or `Double` bit pattern.
    static let storedFlag: UInt8 = 4
    /// An object with a key beyond ASCII: a name equals a key as Swift strings do (canonical
    /// equivalence), not byte for byte.
    static let stringKeysFlag: UInt8 = 8

    var entries: [JSONTapeEntry]
    /// The input.
    let input: UnsafeRawBufferPointer
    /// The input's first byte (for the empty placeholder tape of a closed document, a static
    /// empty string's, never read: a closed document has no nodes).
    let p: UnsafePointer<UInt8>

    init(entries: [JSONTapeEntry], input: UnsafeRawBufferPointer) {
        self.entries = entries
        self.input = input
        self.p = input.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? ("" as StaticString).utf8Start
    }

    // MARK: Scalars

    /// The 8 stored bytes of a number copied from json-c's tree.
    @inline(__always)
    private func stored(_ e: JSONTapeEntry) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(p + Int(e.start)).loadUnaligned(as: UInt64.self))
    }

    func int(_ index: Int) -> Int64 {
        let e = entries[index]
        if e.flags & Self.storedFlag != 0 { return Int64(bitPattern: stored(e)) }
        let m = JSONNumber.magnitude(p, Int(e.start), Int(e.end))
        return p[Int(e.start)] == UInt8(ascii: "-") ? Int64(bitPattern: 0 &- m) : Int64(bitPattern: m)
    }

    func uint(_ index: Int) -> UInt64 {
        let e = entries[index]
        if e.flags & Self.storedFlag != 0 { return stored(e) }
        return JSONNumber.magnitude(p, Int(e.start), Int(e.end))
    }

    /// A double token, converted as json-c converts it (``JSONNumber/double(_:_:_:)``).
    func double(_ index: Int) -> Double {
        let e = entries[index]
        if e.flags & Self.storedFlag != 0 { return Double(bitPattern: stored(e)) }
        return JSONNumber.double(p, Int(e.start), Int(e.end))
    }

    /// The raw text of a string (between its quotes).
    @inline(__always)
    func rawString(_ index: Int) -> UnsafeRawBufferPointer {
        let e = entries[index]
        return UnsafeRawBufferPointer(start: p + Int(e.start), count: Int(e.end - e.start))
    }

    /// Whether a string's text holds an escape (never for a string stored decoded).
    @inline(__always)
    func hasEscape(_ index: Int, _ raw: UnsafeRawBufferPointer) -> Bool {
        guard let base = raw.baseAddress, raw.count > 0, entries[index].flags & Self.storedFlag == 0 else { return false }
        return memchr(base, Int32(UInt8(ascii: "\\")), raw.count) != nil
    }

    /// A string value (invalid UTF-8, possible only in lenient mode, is repaired to U+FFFD).
    func string(_ index: Int) -> String {
        let raw = rawString(index)
        guard hasEscape(index, raw) else { return String(decoding: raw, as: UTF8.self) }
        // Escapes only shorten the text, so its length bounds the decoded bytes.
        return String(unsafeUninitializedCapacity: raw.count) { PFUTF8.decodeJSONString(raw, into: $0) }
    }

    /// Calls `body` with a string's decoded bytes.
    func withStringBytes<R, E: Error>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let raw = rawString(index)
        guard hasEscape(index, raw) else { return try body(raw) }
        let result: Result<R, E> = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: raw.count) { buffer in
            let n = PFUTF8.decodeJSONString(raw, into: buffer)
            return Result { () throws(E) -> R in try body(UnsafeRawBufferPointer(start: buffer.baseAddress, count: n)) }
        }
        return try result.get()
    }

    // MARK: Objects

    /// Whether the key at `keyIndex` has exactly the bytes `name`.
    @inline(__always)
    func keyEquals(_ keyIndex: Int, _ name: UnsafeRawBufferPointer) -> Bool {
        let e = entries[keyIndex]
        let n = Int(e.end - e.start)
        guard n == name.count else { return false }
        guard n > 0, let base = name.baseAddress else { return true }
        return memcmp(p + Int(e.start), base, n) == 0
    }

    /// The value index of the member named `name` (its last value when the key repeats).
    func member(of object: Int, named name: UnsafeRawBufferPointer) -> Int? {
        let e = entries[object]
        let repeats = e.flags & Self.duplicatesFlag != 0
        var j = object + 1
        var found: Int?
        for _ in 0..<e.count {
            if keyEquals(j, name) {
                found = j + 1
                if !repeats { return found }
            }
            j = Int(entries[j + 1].next)
        }
        return found
    }

    /// Whether keys `a` and `b` have the same bytes.
    @inline(__always)
    private func sameKey(_ a: Int, _ b: Int) -> Bool {
        let ea = entries[a]
        let eb = entries[b]
        guard ea.count == eb.count else { return false }  // the fingerprints differ
        let n = Int(ea.end - ea.start)
        guard n == Int(eb.end - eb.start) else { return false }
        return memcmp(p + Int(ea.start), p + Int(eb.start), n) == 0
    }

    /// The key indices of an object's members, in order.
    func keyIndices(of object: Int) -> [Int] {
        var out: [Int] = []
        out.reserveCapacity(Int(entries[object].count))
        var j = object + 1
        for _ in 0..<entries[object].count {
            out.append(j)
            j = Int(entries[j + 1].next)
        }
        return out
    }

    /// The number of distinct keys of an object: pairwise for small objects, through a
    /// sort by a hash of each key's bytes for large ones (linear-logarithmic, whatever the input).
    func distinctKeys(_ object: Int) -> Int {
        let n = Int(entries[object].count)
        if n <= 32 {
            // Each key against the keys before it, walking the tape (no allocation).
            var distinct = 0
            var a = object + 1
            for _ in 0..<n {
                var b = object + 1
                var repeated = false
                while b != a {
                    if sameKey(a, b) {
                        repeated = true
                        break
                    }
                    b = Int(entries[b + 1].next)
                }
                if !repeated { distinct += 1 }
                a = Int(entries[a + 1].next)
            }
            return distinct
        }
        let keys = keyIndices(of: object)
        var hashed = keys.map { (hash: keyHash($0), key: $0) }
        hashed.sort { $0.hash < $1.hash }
        var distinct = 0
        var runStart = 0
        for a in hashed.indices {
            if hashed[a].hash != hashed[runStart].hash { runStart = a }
            // Keys of one hash are compared among themselves (collisions are rare).
            if !hashed[runStart..<a].contains(where: { sameKey($0.key, hashed[a].key) }) { distinct += 1 }
        }
        return distinct
    }

    /// A 64-bit FNV-1a hash of a key's bytes.
    private func keyHash(_ keyIndex: Int) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in rawString(keyIndex) { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
        return h
    }

    /// Marks every object with a repeated key, or throws at the first (in pre-order, with
    /// its key path) when `reject` is set: the one check, ``JSONDuplicateKeys``.
    mutating func markDuplicates(reject: Bool) throws(PFError) {
        guard !entries.isEmpty else { return }
        var repeating: [Int] = []
        do {
            // The check's copy of the tape is gone before the flags are set (no copy of entries).
            var check = JSONDuplicateKeys(source: self, input: input)
            if reject {
                try check.reject(0)
                return
            }
            check.forEachRepeating(0) { repeating.append($0) }
        }
        for index in repeating { entries[index].flags |= Self.duplicatesFlag }
    }

    /// An object's members with repeated keys merged (the last value at the first position):
    /// key index → value index.
    func uniqueMembers(of object: Int) -> [(key: Int, value: Int)] {
        var out: [(key: Int, value: Int)] = []
        var position: [Data: Int] = [:]
        for k in keyIndices(of: object) {
            let name = Data(rawString(k))
            if let at = position[name] {
                out[at].value = k + 1
            } else {
                position[name] = out.count
                out.append((k, k + 1))
            }
        }
        return out
    }

    /// The member count with a repeated key counted once.
    func memberCount(_ object: Int) -> Int {
        let e = entries[object]
        return e.flags & Self.duplicatesFlag != 0 ? uniqueMembers(of: object).count : Int(e.count)
    }

    /// The value index of element `position` of an array.
    func element(of array: Int, at position: Int) -> Int? {
        guard position >= 0, position < Int(entries[array].count) else { return nil }
        var j = array + 1
        for _ in 0..<position { j = Int(entries[j].next) }
        return j
    }

    /// The text of a value, for reading it again whole.
    func text(_ index: Int) -> UnsafeRawBufferPointer {
        let e = entries[index]
        let start = e.kind == .string ? Int(e.start) - 1 : Int(e.start)
        let end = e.kind == .string ? Int(e.end) + 1 : Int(e.end)
        return UnsafeRawBufferPointer(rebasing: input[start..<end])
    }
}
