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
/// json-c's tree. Both show the same values, counts and errors: every accessor is written
/// once, over the document's `JSONValueSource`.
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

    /// The document's nodes (checked alive before each use).
    private let backing: any JSONNodeBacking
    /// The value, as the backing spells it.
    private let handle: UInt
    private let generation: UInt64

    init(_ backing: any JSONNodeBacking, _ handle: UInt, _ generation: UInt64) {
        self.backing = backing
        self.handle = handle
        self.generation = generation
    }

    /// The backing, once it is known the document is still open; stops the program otherwise.
    @inline(__always)
    private var live: any JSONNodeBacking {
        precondition(backing.generation == generation,
                     "a JSONNode was used after the withDocument closure that gave it returned; keep Swift values (value(), stringValue) instead")
        return backing
    }

    // MARK: - Scalars

    /// The value's kind.
    public var kind: Kind { live.nodeKind(handle) }

    /// The value's kind and, for a scalar, its payload (a string is built here, so read it once).
    public var content: Content { live.nodeContent(handle) }

    /// Whether the value is `null`.
    public var isNull: Bool { live.nodeKind(handle) == .null }

    /// The boolean, or `nil` for any other kind.
    public var boolValue: Bool? {
        guard case .bool(let value) = live.nodeScalar(handle, .bool) else { return nil }
        return value
    }

    /// The integer of an ``Kind/int``, or `nil` for any other kind.
    public var intValue: Int64? {
        guard case .int(let value) = live.nodeScalar(handle, .int) else { return nil }
        return value
    }

    /// The integer of a ``Kind/uint`` (above `Int64.max`), or `nil` for any other kind.
    public var uintValue: UInt64? {
        guard case .uint(let value) = live.nodeScalar(handle, .uint) else { return nil }
        return value
    }

    /// Any number as a `Double` (integers converted, as ``PFValue/doubleValue`` does), or
    /// `nil` for any other kind.
    public var doubleValue: Double? {
        switch live.nodeScalar(handle, .double) {
        case .double(let value): return value
        case .int(let value): return Double(value)
        case .uint(let value): return Double(value)
        default: return nil
        }
    }

    /// The string (built on each call; read it once), or `nil` for any other kind.
    public var stringValue: String? {
        guard case .string(let value) = live.nodeScalar(handle, .string) else { return nil }
        return value
    }

    /// Calls `body` with a string's UTF-8 bytes in place (no copy unless it has escapes; valid only inside
    /// `body`). In lenient mode they may hold invalid UTF-8, which ``stringValue`` repairs.
    /// - Parameter body: receives the bytes.
    /// - Returns: what `body` returns, or `nil` when the value is not a string.
    /// - Throws: what `body` throws.
    public func withStringBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R? {
        try live.nodeStringBytes(handle, body)
    }

    // MARK: - Containers

    /// The number of elements of an array or members of an object (a repeated key counted
    /// once); 0 for any other kind.
    public var count: Int { live.nodeCount(handle) }

    /// The element at `index` of an array, or `nil` when the value is not an array or the
    /// index is out of range.
    /// - Parameter index: a zero-based index.
    /// - Returns: the element.
    public func element(at index: Int) -> JSONNode? {
        let backing = live
        return backing.nodeElement(handle, at: index).map { JSONNode(backing, $0, generation) }
    }

    /// Calls `body` with each element of an array in order (nothing for other kinds).
    /// - Parameter body: receives the index and the element.
    /// - Throws: what `body` throws.
    public func forEachElement<E: Error>(_ body: (Int, JSONNode) throws(E) -> Void) throws(E) {
        let backing = live
        let generation = generation
        try backing.nodeForEachElement(handle) { (k, element) throws(E) in
            try body(k, JSONNode(backing, element, generation))
        }
    }

    /// The member named `name` of an object, or `nil` when there is none or the value is not
    /// an object. Names compare as Swift strings do (canonical equivalence), as the keys of
    /// ``PFValue/dictionary(_:)`` do.
    /// - Parameter name: the key.
    /// - Returns: the member's value.
    public func member(_ name: String) -> JSONNode? {
        let backing = live
        return backing.nodeMember(handle, name).map { JSONNode(backing, $0, generation) }
    }

    /// Calls `body` with each member of an object in document order (a repeated key once, at
    /// its first position, with its last value); nothing for other kinds.
    /// - Parameter body: receives the key and the value.
    /// - Throws: what `body` throws.
    public func forEachMember<E: Error>(_ body: (String, JSONNode) throws(E) -> Void) throws(E) {
        let backing = live
        let generation = generation
        try backing.nodeForEachMember(handle) { (key, value) throws(E) in
            try body(key, JSONNode(backing, value, generation))
        }
    }

    // MARK: - Copying out

    /// The value as a ``PFValue`` tree, as ``JSONReader/read(_:)-(Data)`` reads it (typed
    /// objects become dates, data and UIDs when the reader's `typedValues` is on).
    /// - Returns: the value.
    /// - Throws: ``PFError`` (`invalidValue`) for a malformed typed object in strict mode with
    ///   `typedValues` on, with the path below this node.
    public func value() throws(PFError) -> PFValue {
        try live.nodeValue(handle)
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

/// Reading json-c values, shared by ``JSONCSource``, the checker and the parallel read.
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
