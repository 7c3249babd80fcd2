import CPFJSONC
import Foundation
import OrderedCollections
import PFCore

/// What ``JSONNode`` stands on: an open document as a ``JSONValueSource``, with its key
/// cache and the generation that tells an open document from a closed one.
///
/// Two conform, one per source — ``JSONTapeNodes`` (the scanner's tape) and
/// ``JSONTreeNodes`` (json-c's tree) — and every node operation (`node…`) is written once,
/// in the extension below, over the source; a node holds the backing as an existential, so
/// it never branches on which it is. A node's value is a `UInt` handle: a tape entry index,
/// or json-c's pointer (0 for `null`).
protocol JSONNodeBacking: AnyObject {
    associatedtype Source: JSONValueSource
    /// The open document.
    var source: Source { get }
    /// Changes when a document opens and when it closes.
    var generation: UInt64 { get }
    /// Whether keys that are distinct bytes may be equal Swift strings (keys beyond ASCII):
    /// members are then merged by string.
    var keysNeedUniquing: Bool { get }
    /// A handle's value.
    func value(_ handle: UInt) -> Source.Value
    /// A value's handle.
    func handle(_ value: Source.Value) -> UInt
    /// A member's key, through the document's key cache.
    func key(_ member: Source.Member) -> String
    /// A subtree as a ``PFValue``, through the one value builder.
    func convert(_ value: Source.Value) throws(PFError) -> PFValue

    // The node operations (one implementation each, in the extension).
    func nodeKind(_ handle: UInt) -> JSONNode.Kind
    func nodeContent(_ handle: UInt) -> JSONNode.Content
    func nodeScalar(_ handle: UInt, _ wanted: JSONNode.Kind) -> JSONNode.Content
    func nodeStringBytes<R, E: Error>(_ handle: UInt, _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R?
    func nodeCount(_ handle: UInt) -> Int
    func nodeElement(_ handle: UInt, at index: Int) -> UInt?
    func nodeForEachElement<E: Error>(_ handle: UInt, _ body: (Int, UInt) throws(E) -> Void) throws(E)
    func nodeMember(_ handle: UInt, _ name: String) -> UInt?
    func nodeForEachMember<E: Error>(_ handle: UInt, _ body: (String, UInt) throws(E) -> Void) throws(E)
    func nodeValue(_ handle: UInt) throws(PFError) -> PFValue
}

extension JSONNodeBacking {
    func nodeKind(_ handle: UInt) -> JSONNode.Kind { source.kind(value(handle)) }

    func nodeContent(_ handle: UInt) -> JSONNode.Content {
        let v = value(handle)
        let source = source
        switch source.kind(v) {
        case .string: return .string(source.string(v))
        case .int: return .int(source.int(v))
        case .uint: return .uint(source.uint(v))
        case .double: return .double(source.double(v))
        case .bool: return .bool(source.bool(v))
        case .array: return .array
        case .object: return .object
        case .null: return .null
        }
    }

    /// The content when the kind is `wanted` (or, for `.double`, any number); `.null` otherwise.
    func nodeScalar(_ handle: UInt, _ wanted: JSONNode.Kind) -> JSONNode.Content {
        let kind = source.kind(value(handle))
        guard kind == wanted || (wanted == .double && (kind == .int || kind == .uint)) else { return .null }
        return nodeContent(handle)
    }

    func nodeStringBytes<R, E: Error>(_ handle: UInt, _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R? {
        let v = value(handle)
        guard source.kind(v) == .string else { return nil }
        return try source.withStringBytes(v, body)
    }

    func nodeCount(_ handle: UInt) -> Int {
        let v = value(handle)
        switch source.kind(v) {
        case .array: return source.count(v)
        case .object: return mergesMembers(v) ? uniqueMembers(v).count : source.count(v)
        default: return 0
        }
    }

    func nodeElement(_ handle: UInt, at index: Int) -> UInt? {
        let v = value(handle)
        guard source.kind(v) == .array, index >= 0, index < source.count(v) else { return nil }
        return self.handle(source.element(v, at: index))
    }

    func nodeForEachElement<E: Error>(_ handle: UInt, _ body: (Int, UInt) throws(E) -> Void) throws(E) {
        let v = value(handle)
        let source = source
        guard source.kind(v) == .array else { return }
        var element: Source.Value?
        for k in 0..<source.count(v) {
            let current = source.element(v, k, after: element)
            element = current
            try body(k, self.handle(current))
        }
    }

    func nodeMember(_ handle: UInt, _ name: String) -> UInt? {
        let v = value(handle)
        guard source.kind(v) == .object else { return nil }
        if !keysNeedUniquing, JSONC.isPlainASCII(name) {
            // ASCII name, keys that are equal strings exactly when they are equal bytes: the
            // source's own lookup by bytes answers (the last value of a repeated key).
            var name = name
            let found = name.withUTF8 { bytes in source.member(v, named: UnsafeRawBufferPointer(bytes)) }
            return found.map(self.handle)
        }
        // A few names beyond ASCII equal an ASCII key as Swift strings (U+212A KELVIN SIGN is
        // canonically "K"), and keys beyond ASCII may be equal strings: compare as strings.
        return uniqueMembers(v)[name].map(self.handle)
    }

    func nodeForEachMember<E: Error>(_ handle: UInt, _ body: (String, UInt) throws(E) -> Void) throws(E) {
        let v = value(handle)
        let source = source
        guard source.kind(v) == .object else { return }
        if mergesMembers(v) {
            for (name, member) in uniqueMembers(v) { try body(name, self.handle(member)) }
            return
        }
        var entry = source.firstMember(v)
        while let current = entry {
            try body(key(current), self.handle(source.memberValue(current)))
            entry = source.nextMember(current, of: v)
        }
    }

    func nodeValue(_ handle: UInt) throws(PFError) -> PFValue {
        try convert(value(handle))
    }

    /// Whether an object's members must be merged before they are shown.
    @inline(__always)
    private func mergesMembers(_ object: Source.Value) -> Bool {
        keysNeedUniquing || source.mayRepeatKeys(object)
    }

    /// An object's members with keys that are equal Swift strings merged, the last value at
    /// the first position.
    private func uniqueMembers(_ object: Source.Value) -> OrderedDictionary<String, Source.Value> {
        var keys: [String] = []
        var values: [Source.Value] = []
        var entry = source.firstMember(object)
        while let current = entry {
            keys.append(key(current))
            values.append(source.memberValue(current))
            entry = source.nextMember(current, of: object)
        }
        return OrderedDictionary(zip(keys, values), uniquingKeysWith: { _, last in last })
    }
}

// MARK: - The two backings

/// Nodes over the scanner's tape. The tape (its storage reused between documents) and the
/// key cache belong to the open document.
final class JSONTapeNodes: JSONNodeBacking {
    // Unchecked exclusivity: touched on every node access; accesses never overlap (each
    // operation finishes before any caller code runs).
    @exclusivity(unchecked) private(set) var generation: UInt64 = 0
    @exclusivity(unchecked) var keyCache = JSONKeyCache.empty
    /// The open document's tape (empty when none is open).
    @exclusivity(unchecked) var tape = JSONTape(entries: [], input: UnsafeRawBufferPointer(start: nil, count: 0))
    private let options: JSONReader.Options

    init(options: JSONReader.Options) {
        self.options = options
    }

    var source: JSONTape { tape }
    var keysNeedUniquing: Bool { false }
    @inline(__always) func value(_ handle: UInt) -> Int { Int(bitPattern: handle) }
    @inline(__always) func handle(_ value: Int) -> UInt { UInt(bitPattern: value) }

    /// The key at tape entry `index` (plain ASCII without escapes), through the key cache.
    @inline(__always)
    func key(_ member: Int) -> String {
        let raw = tape.keyBytes(member)
        return keyCache.key(raw.start, length: raw.count, nulStandIn: nil)
    }

    /// A tape subtree as a ``PFValue``, as ``JSONReader/read(_:)-(Data)`` reads it (the tape
    /// is already checked, so repeated keys merge here and are never rejected).
    func convert(_ value: Int) throws(PFError) -> PFValue {
        var builder = JSONValueBuilder(source: tape, subtreeWith: options, nulStandIn: nil, keysNeedUniquing: false,
                                       keyCache: JSONKeyCache.take(&keyCache))
        defer { keyCache = builder.keyCache }
        return try builder.convertRoot(value)
    }

    /// Starts a document (``tape`` is already filled); returns the generation of its nodes.
    func open(keyCache: inout JSONKeyCache) -> UInt64 {
        self.keyCache = JSONKeyCache.take(&keyCache)
        generation &+= 1
        return generation
    }

    /// Ends the document: its nodes stop working and the key cache goes back.
    func close(keyCache: inout JSONKeyCache) {
        generation &+= 1
        keyCache = JSONKeyCache.take(&self.keyCache)
        tape.entries.removeAll(keepingCapacity: true)
    }
}

/// Nodes over json-c's tree, freed when the document closes.
final class JSONTreeNodes: JSONNodeBacking {
    @exclusivity(unchecked) private(set) var generation: UInt64 = 0
    @exclusivity(unchecked) private var keyCache = JSONKeyCache.empty
    @exclusivity(unchecked) private(set) var source = JSONCSource()
    private let options: JSONReader.Options

    init(options: JSONReader.Options) {
        self.options = options
    }

    var keysNeedUniquing: Bool { source.keysNeedUniquing }
    @inline(__always) func value(_ handle: UInt) -> OpaquePointer? { OpaquePointer(bitPattern: handle) }
    @inline(__always) func handle(_ value: OpaquePointer?) -> UInt { UInt(bitPattern: value) }

    @inline(__always)
    func key(_ member: UnsafeMutablePointer<lh_entry>) -> String {
        keyCache.key(member, nulStandIn: source.nulStandIn)
    }

    func convert(_ value: OpaquePointer?) throws(PFError) -> PFValue {
        var converter = JSONTreeConverter(subtreeWith: options, nulStandIn: source.nulStandIn,
                                          keysNeedUniquing: source.keysNeedUniquing, keyCache: JSONKeyCache.take(&keyCache))
        defer { keyCache = converter.keyCache }
        return try converter.convertRoot(value)
    }

    /// Starts a document; returns the generation of its nodes.
    func open(keyCache: inout JSONKeyCache, nulStandIn: Unicode.Scalar?, keysNeedUniquing: Bool) -> UInt64 {
        self.keyCache = JSONKeyCache.take(&keyCache)
        source = JSONCSource()
        source.nulStandIn = nulStandIn
        source.keysNeedUniquing = keysNeedUniquing
        generation &+= 1
        return generation
    }

    /// Ends the document: its nodes stop working and the key cache goes back.
    func close(keyCache: inout JSONKeyCache) {
        generation &+= 1
        keyCache = JSONKeyCache.take(&self.keyCache)
    }
}

/// What node views of one reader or session share: a backing for each source (a session
/// keeps them, and their storage, from one document to the next).
final class JSONDocument {
    let tapeNodes: JSONTapeNodes
    let treeNodes: JSONTreeNodes
    /// The tape builder's stack of open containers, kept for reuse.
    @exclusivity(unchecked) var openContainers: [UInt32] = []

    init(options: JSONReader.Options) {
        tapeNodes = JSONTapeNodes(options: options)
        treeNodes = JSONTreeNodes(options: options)
    }

    /// The tape of the document being read or viewed (its storage is reused).
    var tape: JSONTape {
        get { tapeNodes.tape }
        _modify { yield &tapeNodes.tape }
        set { tapeNodes.tape = newValue }
    }
}
