import CPFJSONC
import Foundation
import OrderedCollections
import PFCore

/// A read-only view of one value of a parsed JSON document: nothing is copied until asked (a
/// string becomes a `String` when ``stringValue`` is read).
///
/// Every document is viewed as one tape (``JSONTape``). A strict document whose object keys
/// are plain ASCII without escapes (a Parse export's rows, most JSON in practice) is viewed
/// straight over the input bytes, through the record pfarchive's validating scanner makes as
/// it goes; any other document (lenient mode, keys beyond ASCII or with escapes, integers
/// beyond 64 bits, a `maxStringBytes` budget below the input's size) is read by json-c and
/// its tree copied into a tape of decoded values. Both show the same values, counts and errors.
///
/// Nodes are handed out by ``JSONReader/withDocument(_:_:)-(UnsafeRawBufferPointer,_)`` and
/// ``JSONReader/Session/withDocument(_:_:)-(UnsafeRawBufferPointer,_)`` and are valid **only
/// while that closure runs**: the tree is freed when it returns. Keep what you need as Swift
/// values (``value()``, ``stringValue``…) inside the closure. A node used afterwards stops
/// the program with a message (it never reads freed memory).
///
/// The view shows the document exactly as ``JSONReader/read(_:)-(Data)`` would read it with
/// `typedValues` off: object members in document order, a repeated key once, at its first
/// position, with its last value (or an error beforehand with
/// ``JSONReader/Options/rejectDuplicateKeys``), keys holding U+0000 whole, integers beyond
/// `Int64.max` as ``Kind/uint``. Parse's typed objects (`{"__type":"Date",…}`) are plain
/// objects here.
///
/// ```swift
/// let names = try JSONReader.Session().withDocument(bytes) { root throws(PFError) in
///     root.member("name")?.stringValue
/// }
/// ```
public struct JSONNode {
    /// The kinds of JSON values, with integers split as ``PFValue`` splits them.
    public enum Kind: Sendable, Hashable {
        /// `null`.
        case null
        /// `true` or `false`.
        case bool
        /// An integer that fits `Int64`.
        case int
        /// An integer above `Int64.max` (up to `UInt64.max`).
        case uint
        /// A number with a fraction or exponent.
        case double
        /// A string.
        case string
        /// An array.
        case array
        /// An object.
        case object
    }

    /// A value's kind with its scalar payload, read in one call.
    public enum Content {
        /// `null`.
        case null
        /// `true` or `false`.
        case bool(Bool)
        /// An integer that fits `Int64`.
        case int(Int64)
        /// An integer above `Int64.max`.
        case uint(UInt64)
        /// A number with a fraction or exponent.
        case double(Double)
        /// A string (built by this call).
        case string(String)
        /// An array: see ``JSONNode/count``, ``JSONNode/element(at:)``, ``JSONNode/forEachElement(_:)``.
        case array
        /// An object: see ``JSONNode/member(_:)``, ``JSONNode/forEachMember(_:)``.
        case object
    }

    /// The value's entry in the document's tape.
    private let index: Int
    private let document: JSONDocument
    private let generation: UInt64

    init(tapeIndex index: Int, _ document: JSONDocument, _ generation: UInt64) {
        self.index = index
        self.document = document
        self.generation = generation
    }

    /// Stops the program when the document has closed.
    @inline(__always)
    private func checkAlive() {
        precondition(document.generation == generation,
                     "a JSONNode was used after the withDocument closure that gave it returned; keep Swift values (value(), stringValue) instead")
    }

    /// The node's tape entry (checked alive).
    @inline(__always)
    private var entry: JSONTapeEntry {
        checkAlive()
        return document.tape.entries[index]
    }

    @inline(__always)
    private func child(tapeIndex: Int) -> JSONNode { JSONNode(tapeIndex: tapeIndex, document, generation) }

    // MARK: - Scalars

    /// The value's kind.
    public var kind: Kind { entry.kind }

    /// The value's kind and, for a scalar, its payload (a string is built here, so read it once).
    public var content: Content {
        checkAlive()
        let tape = document.tape
        switch tape.entries[index].kind {
        case .string: return .string(tape.string(index))
        case .int: return .int(tape.int(index))
        case .uint: return .uint(tape.uint(index))
        case .double: return .double(tape.double(index))
        case .bool: return .bool(tape.entries[index].flags & JSONTape.trueFlag != 0)
        case .array: return .array
        case .object: return .object
        case .null: return .null
        }
    }

    /// Whether the value is `null`.
    public var isNull: Bool { entry.kind == .null }

    /// The boolean, or `nil` for any other kind.
    public var boolValue: Bool? {
        let e = entry
        return e.kind == .bool ? e.flags & JSONTape.trueFlag != 0 : nil
    }

    /// The integer of an ``Kind/int``, or `nil` for any other kind.
    public var intValue: Int64? { entry.kind == .int ? document.tape.int(index) : nil }

    /// The integer of a ``Kind/uint`` (above `Int64.max`), or `nil` for any other kind.
    public var uintValue: UInt64? { entry.kind == .uint ? document.tape.uint(index) : nil }

    /// Any number as a `Double` (integers converted, as ``PFValue/doubleValue`` does), or
    /// `nil` for any other kind.
    public var doubleValue: Double? {
        checkAlive()
        let tape = document.tape
        switch tape.entries[index].kind {
        case .double: return tape.double(index)
        case .int: return Double(tape.int(index))
        case .uint: return Double(tape.uint(index))
        default: return nil
        }
    }

    /// The string (built on each call; read it once), or `nil` for any other kind.
    public var stringValue: String? { entry.kind == .string ? document.tape.string(index) : nil }

    /// Calls `body` with a string's UTF-8 bytes in place (no copy unless it has escapes; valid only inside
    /// `body`). In lenient mode they may hold invalid UTF-8, which ``stringValue`` repairs.
    /// - Parameter body: receives the bytes.
    /// - Returns: what `body` returns, or `nil` when the value is not a string.
    /// - Throws: what `body` throws.
    public func withStringBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R? {
        guard entry.kind == .string else { return nil }
        return try document.tape.withStringBytes(index, body)
    }

    // MARK: - Containers

    /// The number of elements of an array or members of an object (a repeated key counted
    /// once); 0 for any other kind.
    public var count: Int {
        let e = entry
        switch e.kind {
        case .array: return Int(e.count)
        case .object: return document.tape.memberCount(index)
        default: return 0
        }
    }

    /// The element at `index` of an array, or `nil` when the value is not an array or the
    /// index is out of range.
    /// - Parameter index: a zero-based index.
    /// - Returns: the element.
    public func element(at index: Int) -> JSONNode? {
        guard entry.kind == .array, let found = document.tape.element(of: self.index, at: index) else { return nil }
        return child(tapeIndex: found)
    }

    /// Calls `body` with each element of an array in order (nothing for other kinds).
    /// - Parameter body: receives the index and the element.
    /// - Throws: what `body` throws.
    public func forEachElement<E: Error>(_ body: (Int, JSONNode) throws(E) -> Void) throws(E) {
        let e = entry
        guard e.kind == .array else { return }
        var j = index + 1
        for k in 0..<Int(e.count) {
            try body(k, child(tapeIndex: j))
            j = Int(document.tape.entries[j].next)
        }
    }

    /// The member named `name` of an object, or `nil` when there is none or the value is not
    /// an object. Names compare as Swift strings do (canonical equivalence), as the keys of
    /// ``PFValue/dictionary(_:)`` do.
    /// - Parameter name: the key.
    /// - Returns: the member's value.
    public func member(_ name: String) -> JSONNode? {
        let e = entry
        guard e.kind == .object else { return nil }
        guard e.flags & JSONTape.stringKeysFlag == 0, JSONC.isPlainASCII(name) else {
            // A name or a key beyond ASCII: equal strings may be different bytes (U+212A
            // KELVIN SIGN is canonically "K"; "\u{E9}" is "e\u{301}"), so compare as strings.
            // The last match, for a scanned object with a repeated key; a copied one has merged.
            var found: Int?
            var j = index + 1
            for _ in 0..<Int(e.count) {
                if document.tapeKey(j) == name { found = j + 1 }
                j = Int(document.tape.entries[j + 1].next)
            }
            return found.map { child(tapeIndex: $0) }
        }
        // ASCII names and keys: equal strings are equal bytes.
        var name = name
        let found = name.withUTF8 { bytes in document.tape.member(of: index, named: UnsafeRawBufferPointer(bytes)) }
        guard let found else { return nil }
        return child(tapeIndex: found)
    }

    /// Calls `body` with each member of an object in document order (a repeated key once, at
    /// its first position, with its last value); nothing for other kinds.
    /// - Parameter body: receives the key and the value.
    /// - Throws: what `body` throws.
    public func forEachMember<E: Error>(_ body: (String, JSONNode) throws(E) -> Void) throws(E) {
        let e = entry
        guard e.kind == .object else { return }
        if e.flags & JSONTape.duplicatesFlag != 0 {
            for (key, value) in document.tape.uniqueMembers(of: index) {
                try body(document.tapeKey(key), child(tapeIndex: value))
            }
            return
        }
        var j = index + 1
        for _ in 0..<Int(e.count) {
            try body(document.tapeKey(j), child(tapeIndex: j + 1))
            j = Int(document.tape.entries[j + 1].next)
        }
    }

    // MARK: - Copying out

    /// The value as a ``PFValue`` tree, as ``JSONReader/read(_:)-(Data)`` reads it (typed
    /// objects become dates, data and UIDs when the reader's `typedValues` is on).
    /// - Returns: the value.
    /// - Throws: ``PFError`` (`invalidValue`) for a malformed typed object in strict mode with
    ///   `typedValues` on, with the path below this node.
    public func value() throws(PFError) -> PFValue {
        checkAlive()
        return try document.convert(tapeIndex: index)
    }
}

// MARK: - An object's member shape

extension JSONNode {
    /// Hashes what decides the types of the members of an object read from the tape, without
    /// decoding anything: each key's bytes as written (repeats included, in order), each
    /// value's kind (an integer of 19 digits or more with its digits, as it may not fit 64
    /// bits), and, for a value that is an object, its members named `first` or `second` whose
    /// values are strings (key and raw value bytes). Equal hashes (with the same `Hasher`
    /// seed) are equal shapes but for a 64-bit collision. `nil` when the node is not an object
    /// recorded by the scanner (a document copied from json-c's tree: the caller reads the
    /// bytes instead).
    ///
    /// The tape already holds every position the scanner found, so this costs a walk over a
    /// few entries per member instead of a second pass over the bytes.
    /// - Parameters:
    ///   - first: a member name of nested objects whose string value counts (Parse's `__type`).
    ///   - second: another (Parse's `className`).
    ///   - tag: a leading byte, so callers can keep these hashes apart from others of their own.
    /// - Returns: the shape's hash, or `nil`.
    package func memberShape(_ first: StaticString, _ second: StaticString, tag: UInt8) -> Int? {
        checkAlive()
        let p = document.tape.p
        return document.tape.entries.withUnsafeBufferPointer { entries -> Int? in
            guard index < entries.count, entries[index].kind == .object,
                entries[index].flags & JSONTape.storedFlag == 0
            else { return nil }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ShapeFeed.capacity) { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                var feed = ShapeFeed(buffer: base)
                feed.byte(tag)
                func isName(_ key: JSONTapeEntry, _ name: StaticString) -> Bool {
                    let n = Int(key.end) - Int(key.start)
                    return n == name.utf8CodeUnitCount && memcmp(p + Int(key.start), name.utf8Start, n) == 0
                }
                var j = index + 1
                for _ in 0..<Int(entries[index].count) {
                    let key = entries[j]
                    let value = entries[j + 1]
                    feed.run(p + Int(key.start), Int(key.end) - Int(key.start))
                    switch value.kind {
                    case .null: feed.byte(1)
                    case .bool: feed.byte(2)
                    case .int, .uint:
                        let n = Int(value.end) - Int(value.start)
                        if n >= 19 {
                            feed.byte(4)
                            feed.run(p + Int(value.start), n)
                        } else {
                            feed.byte(3)
                        }
                    case .double: feed.byte(5)
                    case .string: feed.byte(6)
                    case .array: feed.byte(7)
                    case .object:
                        feed.byte(8)
                        var k = j + 2
                        for _ in 0..<Int(value.count) {
                            let inner = entries[k]
                            let innerValue = entries[k + 1]
                            if innerValue.kind == .string, isName(inner, first) || isName(inner, second) {
                                feed.run(p + Int(inner.start), Int(inner.end) - Int(inner.start))
                                feed.run(p + Int(innerValue.start), Int(innerValue.end) - Int(innerValue.start))
                            }
                            k = Int(innerValue.next)
                        }
                    }
                    j = Int(value.next)
                }
                return feed.finalize()
            }
        }
    }
}

/// Gathers the pieces of a shape in a small buffer hashed a buffer at a time (one `Hasher`
/// call per small piece costs more than the walk); the stream hashed does not depend on the
/// buffer's size. Each run goes in after its length, so pieces cannot run into each other.
private struct ShapeFeed {
    static let capacity = 512
    /// `capacity` bytes, the caller's.
    let buffer: UnsafeMutablePointer<UInt8>
    var used = 0
    var hasher = Hasher()

    mutating func flush() {
        hasher.combine(bytes: UnsafeRawBufferPointer(start: buffer, count: used))
        used = 0
    }

    mutating func byte(_ b: UInt8) {
        if used == Self.capacity { flush() }
        buffer[used] = b
        used += 1
    }

    mutating func run(_ start: UnsafePointer<UInt8>, _ count: Int) {
        let count = max(0, count)
        if used + 8 + count > Self.capacity { flush() }
        UnsafeMutableRawPointer(buffer + used).storeBytes(of: UInt64(count).littleEndian, as: UInt64.self)
        used += 8
        if count > Self.capacity - used {
            flush()
            hasher.combine(bytes: UnsafeRawBufferPointer(start: start, count: count))
        } else {
            (buffer + used).update(from: start, count: count)
            used += count
        }
    }

    mutating func finalize() -> Int {
        flush()
        return hasher.finalize()
    }
}

// MARK: - The document behind the nodes

/// What nodes of one document share: the generation that tells a live tree from a freed one,
/// the key cache, and how keys are read. A session keeps one and reuses it.
final class JSONDocument {
    // Unchecked exclusivity: these are touched on every node access and key, and the
    // runtime's dynamic check cost more than the rest of a member visit. Accesses never
    // overlap: `key(_:)` and `convert(_:)` finish before any caller code runs.
    /// Changes when a document opens and when it closes, so nodes of a closed one are caught.
    @exclusivity(unchecked) private(set) var generation: UInt64 = 0
    @exclusivity(unchecked) private var keyCache = JSONKeyCache.empty
    /// The open document's tape; its storage is reused.
    @exclusivity(unchecked) var tape = JSONTape(entries: [], input: UnsafeRawBufferPointer(start: nil, count: 0))
    /// The tape builder's stack of open containers, kept for reuse.
    @exclusivity(unchecked) var openContainers: [UInt32] = []
    /// The bytes a tape copied from json-c's tree points into, kept for reuse.
    private let sideBuffer = JSONSideBuffer()
    private let options: JSONReader.Options

    init(options: JSONReader.Options) {
        self.options = options
    }

    /// Starts a tape document (``tape`` is already filled); returns the generation of its nodes.
    func openTape(keyCache: inout JSONKeyCache) -> UInt64 {
        self.keyCache = JSONKeyCache.take(&keyCache)
        generation &+= 1
        return generation
    }

    /// Fills ``tape`` with a copy of json-c's tree (``JSONTreeTapeWriter``); its root is entry 0.
    func copyTree(_ root: OpaquePointer?, nulStandIn: Unicode.Scalar?, keysNeedUniquing: Bool) throws(PFError) {
        var writer = JSONTreeTapeWriter(reusing: &tape.entries, nulStandIn: nulStandIn, keysNeedUniquing: keysNeedUniquing)
        writer.write(root)
        // Entries hold 32-bit offsets and indices: a side buffer past them (numbers take 8
        // bytes each, so an input under 2 GiB can need 8 GiB) is refused, never truncated.
        guard writer.bytes.count <= Int(UInt32.max), writer.entries.count < Int(UInt32.max) else {
            writer.entries.removeAll(keepingCapacity: false)
            tape.entries = writer.entries
            throw PFError(JSONFailure.viewTooLarge, format: JSONError.format)
        }
        tape = JSONTape(entries: writer.entries, input: sideBuffer.hold(writer.bytes))
    }

    /// Ends the document: its nodes stop working and the key cache goes back.
    func close(keyCache: inout JSONKeyCache) {
        generation &+= 1
        keyCache = JSONKeyCache.take(&self.keyCache)
        tape.entries.removeAll(keepingCapacity: true)
    }

    /// The key at tape entry `index` (its bytes as written, or decoded for a copied tree), through the key cache.
    @inline(__always)
    func tapeKey(_ index: Int) -> String {
        let e = tape.entries[index]
        return keyCache.key(UnsafeRawPointer(tape.p + Int(e.start)), length: Int(e.end - e.start), nulStandIn: nil)
    }

    /// A tape subtree as a ``PFValue``, as ``JSONReader/read(_:)-(Data)`` reads it: the one
    /// value builder over the tape, typed values included (the tape is already checked, so
    /// repeated keys merge here and are never rejected).
    func convert(tapeIndex index: Int) throws(PFError) -> PFValue {
        var builder = JSONValueBuilder(source: tape, subtreeWith: options, nulStandIn: nil, keysNeedUniquing: false,
                                       keyCache: JSONKeyCache.take(&keyCache))
        defer { keyCache = builder.keyCache }
        return try builder.convertRoot(index)
    }
}

// MARK: - Checks made before a view opens

/// The checks ``JSONReader`` makes on json-c's tree before converting it (repeated keys with
/// `rejectDuplicateKeys`, through ``JSONDuplicateKeys``; `maxStringBytes`), made without
/// building values, so a node view fails exactly where a read would, before any node is seen.
struct JSONTreeChecker {
    let rejectDuplicates: Bool
    let maxStringBytes: Int
    /// Whether a string may be longer than `maxStringBytes` (not when the whole input is not).
    let checkStrings: Bool
    let scan: JSONScanResult
    let input: UnsafeRawBufferPointer
    let nulStandIn: Unicode.Scalar?

    /// Whether a document needs the walk at all: only with `rejectDuplicateKeys`, or when it
    /// is longer than `maxStringBytes` (json-c's strings are never longer than their text).
    static func isNeeded(_ options: JSONReader.Options, inputCount: Int) -> Bool {
        options.rejectDuplicateKeys || inputCount > options.limits.maxStringBytes
    }

    init(options: JSONReader.Options, scan: JSONScanResult, input: UnsafeRawBufferPointer, nulStandIn: Unicode.Scalar?) {
        self.rejectDuplicates = options.rejectDuplicateKeys
        self.maxStringBytes = options.limits.maxStringBytes
        self.checkStrings = input.count > options.limits.maxStringBytes
        self.scan = scan
        self.input = input
        self.nulStandIn = nulStandIn
    }

    func check(_ root: OpaquePointer?) throws(PFError) {
        if rejectDuplicates {
            var duplicates = JSONDuplicateKeys(source: JSONCSource(scan: scan, nulStandIn: nulStandIn), input: input)
            try duplicates.reject(root)
        }
        if checkStrings { try checkStringLengths(root) }
    }

    private func checkStringLengths(_ object: OpaquePointer?) throws(PFError) {
        guard let object else { return }
        let type = json_object_get_type(object)
        if type == json_type_string {
            _ = try JSONC.checkedLength(object, maxBytes: maxStringBytes)
        } else if type == json_type_array {
            let n = json_object_array_length(object)
            for k in 0..<n {
                do {
                    try checkStringLengths(json_object_array_get_idx(object, k))
                } catch {
                    throw error.prefixed(.index(k))
                }
            }
        } else if type == json_type_object {
            var entry = pf_json_object_first_entry(object)
            while let current = entry {
                do {
                    try checkStringLengths(pf_json_entry_value(current))
                } catch {
                    throw error.prefixed(.key(keyName(current)))
                }
                entry = pf_json_entry_next(current)
            }
        }
    }

    private func keyName(_ entry: UnsafeMutablePointer<lh_entry>) -> String {
        guard let chars = pf_json_entry_key(entry) else { return "" }
        return JSONKeyCache.makeKey(UnsafeRawPointer(chars), strlen(chars), nulStandIn)
    }
}

// MARK: - json-c values

/// Reading json-c values, shared by the tree converter, the checker and the tree's copy into a tape.
enum JSONC {
    /// The kind of a non-NULL json-c value.
    @inline(__always)
    static func kind(_ object: OpaquePointer) -> JSONNode.Kind {
        let type = json_object_get_type(object)
        if type == json_type_string { return .string }
        if type == json_type_int {
            // json-c stores values above Int64.max as uint64 and clamps get_int64 to Int64.max.
            if json_object_get_int64(object) == Int64.max, json_object_get_uint64(object) > UInt64(Int64.max) {
                return .uint
            }
            return .int
        }
        if type == json_type_double { return .double }
        if type == json_type_object { return .object }
        if type == json_type_array { return .array }
        if type == json_type_boolean { return .bool }
        return .null
    }

    /// A string value's bytes in the tree.
    @inline(__always)
    static func stringBytes(_ object: OpaquePointer) -> UnsafeRawBufferPointer {
        let n = Int(json_object_get_string_len(object))
        guard n > 0, let chars = json_object_get_string(object) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: chars, count: n)
    }

    /// A string value's length, within `maxStringBytes`.
    @inline(__always)
    static func checkedLength(_ object: OpaquePointer, maxBytes: Int) throws(PFError) -> Int {
        let n = Int(json_object_get_string_len(object))
        guard n <= maxBytes else {
            throw PFLimits.exceeded("maxStringBytes", maxBytes, format: JSONError.format)
        }
        return n
    }

    /// A string value as a String.
    ///
    /// The pre-scan validated UTF-8 in strict mode; in lenient mode this repairs invalid
    /// sequences to U+FFFD, which is the documented lenient policy.
    @inline(__always)
    static func string(_ object: OpaquePointer) -> String {
        String(decoding: stringBytes(object), as: UTF8.self)
    }

    /// A string value as a String, within `maxStringBytes`.
    @inline(__always)
    static func string(_ object: OpaquePointer, maxBytes: Int) throws(PFError) -> String {
        _ = try checkedLength(object, maxBytes: maxBytes)
        return string(object)
    }

    /// Whether `name` is ASCII without U+0000 (so it compares with json-c's keys byte for byte).
    @inline(__always)
    static func isPlainASCII(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { bytes in
            for b in bytes where b == 0 || b >= 0x80 { return false }
            return true
        }
    }
}
