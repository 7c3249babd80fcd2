import CPFJSONC
import Foundation
import OrderedCollections
import PFCore

/// A read-only view of one value of a parsed JSON document: nothing is copied until asked (a
/// string becomes a `String` when ``stringValue`` is read).
///
/// A strict document whose object keys are plain ASCII without escapes (a Parse export's
/// rows, most JSON in practice) is viewed straight over the input bytes, through the record
/// pfarchive's validating scanner makes as it goes; any other document (lenient mode, keys
/// beyond ASCII or with escapes, a `maxStringBytes` budget below the input's size) over
/// json-c's tree. Both show the same values, counts and errors.
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

    /// json-c's value (`nil` for `null` and for tape nodes).
    private let object: OpaquePointer?
    /// The value's entry in the document's tape, or -1 for a json-c node.
    private let index: Int
    private let document: JSONDocument
    private let generation: UInt64

    init(_ object: OpaquePointer?, _ document: JSONDocument, _ generation: UInt64) {
        self.object = object
        self.index = -1
        self.document = document
        self.generation = generation
    }

    init(tapeIndex index: Int, _ document: JSONDocument, _ generation: UInt64) {
        self.object = nil
        self.index = index
        self.document = document
        self.generation = generation
    }

    /// The node on the tape, or `nil` for a node of json-c's tree (checked alive). Every
    /// accessor is ``JSONSourceView``'s, written once over ``JSONValueSource``; this and
    /// ``tree`` only pick the document's source.
    @inline(__always)
    private var tape: JSONSourceView<JSONTape>? {
        precondition(document.generation == generation,
                     "a JSONNode was used after the withDocument closure that gave it returned; keep Swift values (value(), stringValue) instead")
        guard index >= 0 else { return nil }
        return JSONSourceView(source: document.tape, handle: index, document: document, generation: generation)
    }

    /// The node in json-c's tree (once ``tape`` has said it is not on the tape).
    @inline(__always)
    private var tree: JSONSourceView<JSONCSource> {
        JSONSourceView(source: document.tree, handle: object, document: document, generation: generation)
    }

    // MARK: - Scalars

    /// The value's kind.
    public var kind: Kind {
        if let tape { return tape.kind }
        return tree.kind
    }

    /// The value's kind and, for a scalar, its payload (a string is built here, so read it once).
    public var content: Content {
        if let tape { return tape.content }
        return tree.content
    }

    /// Whether the value is `null`.
    public var isNull: Bool {
        if let tape { return tape.kind == .null }
        return tree.kind == .null
    }

    /// The boolean, or `nil` for any other kind.
    public var boolValue: Bool? {
        if let tape { return tape.boolValue }
        return tree.boolValue
    }

    /// The integer of an ``Kind/int``, or `nil` for any other kind.
    public var intValue: Int64? {
        if let tape { return tape.intValue }
        return tree.intValue
    }

    /// The integer of a ``Kind/uint`` (above `Int64.max`), or `nil` for any other kind.
    public var uintValue: UInt64? {
        if let tape { return tape.uintValue }
        return tree.uintValue
    }

    /// Any number as a `Double` (integers converted, as ``PFValue/doubleValue`` does), or
    /// `nil` for any other kind.
    public var doubleValue: Double? {
        if let tape { return tape.doubleValue }
        return tree.doubleValue
    }

    /// The string (built on each call; read it once), or `nil` for any other kind.
    public var stringValue: String? {
        if let tape { return tape.stringValue }
        return tree.stringValue
    }

    /// Calls `body` with a string's UTF-8 bytes in place (no copy unless it has escapes; valid only inside
    /// `body`). In lenient mode they may hold invalid UTF-8, which ``stringValue`` repairs.
    /// - Parameter body: receives the bytes.
    /// - Returns: what `body` returns, or `nil` when the value is not a string.
    /// - Throws: what `body` throws.
    public func withStringBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R? {
        if let tape { return try tape.withStringBytes(body) }
        return try tree.withStringBytes(body)
    }

    // MARK: - Containers

    /// The number of elements of an array or members of an object (a repeated key counted
    /// once); 0 for any other kind.
    public var count: Int {
        if let tape { return tape.count }
        return tree.count
    }

    /// The element at `index` of an array, or `nil` when the value is not an array or the
    /// index is out of range.
    /// - Parameter index: a zero-based index.
    /// - Returns: the element.
    public func element(at index: Int) -> JSONNode? {
        if let tape { return tape.element(at: index) }
        return tree.element(at: index)
    }

    /// Calls `body` with each element of an array in order (nothing for other kinds).
    /// - Parameter body: receives the index and the element.
    /// - Throws: what `body` throws.
    public func forEachElement<E: Error>(_ body: (Int, JSONNode) throws(E) -> Void) throws(E) {
        if let tape { return try tape.forEachElement(body) }
        try tree.forEachElement(body)
    }

    /// The member named `name` of an object, or `nil` when there is none or the value is not
    /// an object. Names compare as Swift strings do (canonical equivalence), as the keys of
    /// ``PFValue/dictionary(_:)`` do.
    /// - Parameter name: the key.
    /// - Returns: the member's value.
    public func member(_ name: String) -> JSONNode? {
        if let tape { return tape.member(name) }
        return tree.member(name)
    }

    /// Calls `body` with each member of an object in document order (a repeated key once, at
    /// its first position, with its last value); nothing for other kinds.
    /// - Parameter body: receives the key and the value.
    /// - Throws: what `body` throws.
    public func forEachMember<E: Error>(_ body: (String, JSONNode) throws(E) -> Void) throws(E) {
        if let tape { return try tape.forEachMember(body) }
        try tree.forEachMember(body)
    }

    // MARK: - Copying out

    /// The value as a ``PFValue`` tree, as ``JSONReader/read(_:)-(Data)`` reads it (typed
    /// objects become dates, data and UIDs when the reader's `typedValues` is on).
    /// - Returns: the value.
    /// - Throws: ``PFError`` (`invalidValue`) for a malformed typed object in strict mode with
    ///   `typedValues` on, with the path below this node.
    public func value() throws(PFError) -> PFValue {
        if let tape { return try tape.value() }
        return try tree.value()
    }
}

// MARK: - The node view, written once

/// One value of an open document seen through its ``JSONValueSource``: every ``JSONNode``
/// accessor, written once and specialised for the tape and for json-c's tree (a node picks
/// its document's source and calls the same accessor here).
struct JSONSourceView<Source: JSONValueSource> {
    let source: Source
    /// The value in the source.
    let handle: Source.Value
    let document: JSONDocument
    let generation: UInt64

    @inline(__always)
    private func child(_ value: Source.Value) -> JSONNode { source.node(value, document, generation) }

    @inline(__always)
    var kind: JSONNode.Kind { source.kind(handle) }

    @inline(__always)
    var content: JSONNode.Content {
        switch source.kind(handle) {
        case .string: return .string(source.string(handle))
        case .int: return .int(source.int(handle))
        case .uint: return .uint(source.uint(handle))
        case .double: return .double(source.double(handle))
        case .bool: return .bool(source.bool(handle))
        case .array: return .array
        case .object: return .object
        case .null: return .null
        }
    }

    @inline(__always)
    var boolValue: Bool? { kind == .bool ? source.bool(handle) : nil }

    @inline(__always)
    var intValue: Int64? { kind == .int ? source.int(handle) : nil }

    @inline(__always)
    var uintValue: UInt64? { kind == .uint ? source.uint(handle) : nil }

    @inline(__always)
    var doubleValue: Double? {
        switch source.kind(handle) {
        case .double: return source.double(handle)
        case .int: return Double(source.int(handle))
        case .uint: return Double(source.uint(handle))
        default: return nil
        }
    }

    @inline(__always)
    var stringValue: String? { kind == .string ? source.string(handle) : nil }

    @inline(__always)
    func withStringBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R? {
        guard kind == .string else { return nil }
        return try source.withStringBytes(handle, body)
    }

    /// Whether an object's members must be merged as strings (a repeated key, or keys beyond
    /// ASCII whose distinct bytes may be equal strings).
    @inline(__always)
    private var merges: Bool { source.keysNeedUniquing || source.mayRepeatKeys(handle) }

    var count: Int {
        switch source.kind(handle) {
        case .array: return source.count(handle)
        case .object: return merges ? uniqueMembers().count : source.count(handle)
        default: return 0
        }
    }

    func element(at k: Int) -> JSONNode? {
        guard source.kind(handle) == .array, k >= 0, k < source.count(handle) else { return nil }
        return child(source.element(handle, at: k))
    }

    func forEachElement<E: Error>(_ body: (Int, JSONNode) throws(E) -> Void) throws(E) {
        guard source.kind(handle) == .array else { return }
        var element: Source.Value?
        for k in 0..<source.count(handle) {
            let current = source.element(handle, k, after: element)
            element = current
            try body(k, child(current))
        }
    }

    func member(_ name: String) -> JSONNode? {
        guard source.kind(handle) == .object else { return nil }
        if !source.keysNeedUniquing, JSONC.isPlainASCII(name) {
            // All keys and the name are ASCII without U+0000: equal strings are equal bytes.
            return source.member(handle, plainASCII: name).map(child)
        }
        // A name beyond ASCII may still equal an ASCII key as Swift strings (U+212A KELVIN
        // SIGN is canonically "K"): compare as strings.
        return uniqueMembers()[name].map(child)
    }

    func forEachMember<E: Error>(_ body: (String, JSONNode) throws(E) -> Void) throws(E) {
        guard source.kind(handle) == .object else { return }
        if merges {
            for (name, member) in uniqueMembers() { try body(name, child(member)) }
            return
        }
        var member = source.firstMember(handle)
        while let current = member {
            try body(key(current), child(source.memberValue(current)))
            member = source.nextMember(current, of: handle)
        }
    }

    func value() throws(PFError) -> PFValue {
        try document.convert(source, handle)
    }

    /// A member's key, through the document's key cache.
    @inline(__always)
    private func key(_ member: Source.Member) -> String {
        let raw = source.keyBytes(member)
        return document.key(raw.start, raw.count, nulStandIn: source.nulStandIn)
    }

    /// The object's members with keys that are equal Swift strings merged, the last value at
    /// the first position.
    private func uniqueMembers() -> OrderedDictionary<String, Source.Value> {
        var keys: [String] = []
        var values: [Source.Value] = []
        var member = source.firstMember(handle)
        while let current = member {
            keys.append(key(current))
            values.append(source.memberValue(current))
            member = source.nextMember(current, of: handle)
        }
        return OrderedDictionary(zip(keys, values), uniquingKeysWith: { _, last in last })
    }
}

// MARK: - The document behind the nodes

/// What nodes of one document share: the generation that tells a live tree from a freed one,
/// the key cache, and how keys are read. A session keeps one and reuses it.
final class JSONDocument {
    // Unchecked exclusivity: these are touched on every node access and key, and the
    // runtime's dynamic check cost more than the rest of a member visit. Accesses never
    // overlap: `key(_:_:nulStandIn:)` and `convert(_:_:)` finish before any caller code runs.
    /// Changes when a document opens and when it closes, so nodes of a closed one are caught.
    @exclusivity(unchecked) private(set) var generation: UInt64 = 0
    @exclusivity(unchecked) private var keyCache = JSONKeyCache.empty
    /// The open json-c document as a source (its U+0000 stand-in and whether keys need
    /// uniquing); unused for a tape document.
    @exclusivity(unchecked) private(set) var tree = JSONCSource()
    /// The open document's tape (empty for a json-c document); its storage is reused.
    @exclusivity(unchecked) var tape = JSONTape(entries: [], input: UnsafeRawBufferPointer(start: nil, count: 0))
    /// The tape builder's stack of open containers, kept for reuse.
    @exclusivity(unchecked) var openContainers: [UInt32] = []
    private let options: JSONReader.Options

    init(options: JSONReader.Options) {
        self.options = options
    }

    /// Starts a document; returns the generation of its nodes.
    func open(keyCache: inout JSONKeyCache, nulStandIn: Unicode.Scalar?, keysNeedUniquing: Bool) -> UInt64 {
        self.keyCache = JSONKeyCache.take(&keyCache)
        tree.nulStandIn = nulStandIn
        tree.keysNeedUniquing = keysNeedUniquing
        generation &+= 1
        return generation
    }

    /// Starts a tape document (``tape`` is already filled); returns the generation of its nodes.
    func openTape(keyCache: inout JSONKeyCache) -> UInt64 {
        open(keyCache: &keyCache, nulStandIn: nil, keysNeedUniquing: false)
    }

    /// Ends the document: its nodes stop working and the key cache goes back.
    func close(keyCache: inout JSONKeyCache) {
        generation &+= 1
        keyCache = JSONKeyCache.take(&self.keyCache)
        tape.entries.removeAll(keepingCapacity: true)
    }

    /// A key from its bytes, through the key cache.
    @inline(__always)
    func key(_ start: UnsafeRawPointer, _ count: Int, nulStandIn: Unicode.Scalar?) -> String {
        keyCache.key(start, length: count, nulStandIn: nulStandIn)
    }

    /// A subtree as a ``PFValue``, as ``JSONReader/read(_:)-(Data)`` reads it: the one value
    /// builder over the document's source, typed values included (the document is already
    /// checked, so a tape's repeated keys merge here and are never rejected).
    func convert<Source: JSONValueSource>(_ source: Source, _ value: Source.Value) throws(PFError) -> PFValue {
        var builder = JSONValueBuilder(source: source, subtreeWith: options, nulStandIn: source.nulStandIn,
                                       keysNeedUniquing: source.keysNeedUniquing, keyCache: JSONKeyCache.take(&keyCache))
        defer { keyCache = builder.keyCache }
        return try builder.convertRoot(value)
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

/// Reading json-c values, shared by the tree converter, the checker and ``JSONNode``.
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
