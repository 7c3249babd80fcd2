import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFParse

// MARK: - Keyed

struct ParseKeyedDecoding<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let impl: ParseDecoderImpl
    let object: ParseWireObject
    let path: PFCodingPath
    let level: ParseLevel
    let context: ParseContext
    /// What each key resolves to, kept by the decoder per key type (see ``ParseKeyTable``).
    let table: ParseKeyTable

    init(impl: ParseDecoderImpl, object: ParseWireObject, path: PFCodingPath, level: ParseLevel,
         context: ParseContext) {
        self.impl = impl
        self.object = object
        self.path = path
        self.level = level
        self.context = context
        self.table = impl.keyTable(for: Key.self, level: level)
        table.restart()
    }

    var codingPath: [any CodingKey] { path.codingKeys }

    var allKeys: [Key] {
        switch level {
        case .plain:
            return object.keys.compactMap { Key(stringValue: impl.options.keyStrategy == .convertToSnakeCase ? ParseKeyMap.camelCase($0) : $0) }
        case .model(let info, _):
            return object.keys.compactMap { Key(stringValue: info.property(forKey: $0)) }
        }
    }

    /// The wire value of a key (a default when missing or null) and the key's entry in the
    /// table (valid until the next lookup in the same table).
    func lookup(_ key: Key) throws(PFError) -> (value: ParseWire?, entry: Int) {
        let name = key.stringValue
        let e = table.index(of: name)
        if case .model(_, let stub?) = level, !table.entries[e].readableThroughStub {
            throw PFError(
                parse: ParseAdapterFailure.stubProperty(stub: "\(stub)", property: name),
                path: path, context: context)
        }
        var value: ParseWire?
        if table.entries[e].wireKey != nil {
            // The common case: one key, usually at the same position as in the last object.
            value = table.value(e, in: object)
        } else {
            value = try table.entries[e].mapping.lookup(in: object, at: path).0
        }
        if value?.isNull ?? true, let fallback = table.entries[e].fallback { value = .value(fallback) }
        return (value, e)
    }

    /// The coding path of a mapped key (built only for errors and nested values).
    func path(of mapping: ParseKeyMap.Mapping) -> PFCodingPath {
        switch mapping {
        case .key(let k): path.appending(key: k)
        case .path(let steps): steps.reduce(path) { $0.appending(key: $1) }
        case .keys(let keys): path.appending(key: keys.first ?? "")
        case .excluded: path
        }
    }

    func contains(_ key: Key) -> Bool {
        if case .model(_, let stub?) = level {
            // A stub answers for every mapped property, so reading one fails loudly.
            _ = stub
            return true
        }
        return (try? lookup(key).value) != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        try lookup(key).value?.isNull ?? true
    }

    func require(_ key: Key) throws -> (ParseWire, PFCodingPath, ParseTransformer?) {
        let found = try lookup(key)
        let entry = table.entries[found.entry]
        guard let value = found.value else { throw missing(key, entry.mapping) }
        return (value, path(of: entry.mapping), entry.transformer)
    }

    func missing(_ key: Key, _ mapping: ParseKeyMap.Mapping) -> PFError {
        PFError(
            parse: ParseAdapterFailure.missingKey(property: key.stringValue),
            path: path(of: mapping), context: context)
    }

    /// Decodes one property; in collecting mode a failure is recorded and a placeholder value
    /// keeps decoding going so every failure is found.
    func decodeValue<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        do {
            let found = try lookup(key)
            let transformer = table.entries[found.entry].transformer
            let mapping = table.entries[found.entry].mapping
            guard let value = found.value else { throw missing(key, mapping) }
            if transformer != nil {
                return try impl.unwrap(T.self, from: value, at: path(of: mapping), transformer: transformer)
            }
            // Scalars: no transformer, no path, no container switch.
            return try ParseScalars.read(T.self, value) {
                try impl.unwrap(T.self, from: value, at: path(of: mapping), transformer: nil)
            }
        } catch {
            guard impl.record(error) else { throw error }
            return try T(from: ParsePlaceholderDecoder())
        }
    }

    /// `contains`, `decodeNil` and `decode` in one lookup (the protocol's default takes three).
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        if case .model(_, _?) = level {
            // A stub: the default's order of checks gives its error.
            guard contains(key), try !decodeNil(forKey: key) else { return nil }
            return try decodeValue(T.self, key)
        }
        let found: (value: ParseWire?, entry: Int)
        do {
            found = try lookup(key)
        } catch {
            return nil  // as `contains`, which answers false when the lookup fails
        }
        if found.value?.isNull ?? true {
            // A double optional (`T??`) keeps a null apart from a missing key: `.some(nil)`.
            if found.value != nil, let nullable = T.self as? any ParseExplicitNull.Type { return nullable.explicitNull as? T }
            return nil
        }
        return try decodeValue(T.self, key)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decodeValue(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decodeValue(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decodeValue(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decodeValue(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decodeValue(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decodeValue(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decodeValue(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decodeValue(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decodeValue(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decodeValue(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decodeValue(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decodeValue(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decodeValue(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decodeValue(type, key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decodeValue(type, key) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let (value, at, _) = try require(key)
        guard let inner = value.object else { throw impl.mismatch("an object", value, at) }
        return KeyedDecodingContainer(ParseKeyedDecoding<NestedKey>(impl: impl, object: inner, path: at, level: .plain, context: context))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let (value, at, _) = try require(key)
        guard let items = value.array else { throw impl.mismatch("an array", value, at) }
        return ParseUnkeyedDecoding(impl: impl, items: items, path: at)
    }

    func superDecoder() throws -> any Decoder {
        ParseDecoderImpl.detached(from: impl, value: object.wire, path: path)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        let found = try lookup(key)
        let at = path(of: table.entries[found.entry].mapping)
        return ParseDecoderImpl.detached(from: impl, value: found.value ?? .value(.null), path: at)
    }
}

extension ParseDecoderImpl {
    /// A separate decoder over a value, for `superDecoder`.
    static func detached(from impl: ParseDecoderImpl, value: ParseWire, path: PFCodingPath) -> ParseDecoderImpl {
        let copy = ParseDecoderImpl(value: value, options: impl.options, cache: impl.cache, collect: false)
        copy.path = path
        copy.context = impl.context
        copy.typeTransformers = impl.typeTransformers
        return copy
    }
}

// MARK: - Unkeyed

struct ParseUnkeyedDecoding: UnkeyedDecodingContainer {
    let impl: ParseDecoderImpl
    let items: ParseWireArray
    let path: PFCodingPath
    var currentIndex = 0

    init(impl: ParseDecoderImpl, items: ParseWireArray, path: PFCodingPath) {
        self.impl = impl
        self.items = items
        self.path = path
    }

    var codingPath: [any CodingKey] { path.codingKeys }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    mutating func next() throws -> (ParseWire, PFCodingPath) {
        let (value, at) = try nextLazily()
        return (value, at())
    }

    /// The next element and a function that builds its path (only nested values and errors
    /// need one).
    mutating func nextLazily() throws -> (ParseWire, () -> PFCodingPath) {
        guard currentIndex < items.count else {
            throw PFError(
                parse: ParseAdapterFailure.arrayTooShort(count: items.count), path: path.appending(index: currentIndex),
                context: impl.context)
        }
        let index = currentIndex
        let base = path
        currentIndex += 1
        return (items[index], { base.appending(index: index) })
    }

    mutating func decodeNil() throws -> Bool {
        guard currentIndex < items.count else { return false }
        if items[currentIndex].isNull {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, at) = try nextLazily()
        do {
            // Strings and integers only, as before: a type transformer for Bool or Double
            // still applies to array elements.
            return try ParseScalars.read(T.self, value, stringsAndIntegersOnly: true) {
                try impl.unwrap(T.self, from: value, at: at(), transformer: nil)
            }
        } catch {
            guard impl.record(error) else { throw error }
            return try T(from: ParsePlaceholderDecoder())
        }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let (value, at) = try next()
        guard let object = value.object else { throw impl.mismatch("an object", value, at) }
        return KeyedDecodingContainer(ParseKeyedDecoding<NestedKey>(impl: impl, object: object, path: at, level: .plain, context: impl.context))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, at) = try next()
        guard let inner = value.array else { throw impl.mismatch("an array", value, at) }
        return ParseUnkeyedDecoding(impl: impl, items: inner, path: at)
    }

    mutating func superDecoder() throws -> any Decoder {
        let (value, at) = try next()
        return ParseDecoderImpl.detached(from: impl, value: value, path: at)
    }
}

// MARK: - Key tables

/// What the keys of one `CodingKey` type resolve to at one level (a model's key map,
/// defaults and transformers, or the plain strategy), kept by the decoder for as long as it
/// lives (a whole export decoded serially with
/// ``ParseAdapter/decodeExport(_:fromJSON:limits:parallelism:)``, or one slice of rows in a
/// parallel decode).
///
/// Synthesized `init(from:)` asks for keys in the same order every time, so a cursor finds a
/// key's entry with one string comparison; each entry remembers where its wire key sat in the
/// last dictionary, which rows of one export share, so finding the value needs no hashing.
/// Both are guesses checked before use: other orders and shapes only take the slower path.
final class ParseKeyTable {
    struct Entry {
        /// The key's `stringValue` (a property name).
        let name: String
        let mapping: ParseKeyMap.Mapping
        /// The single wire key of a `.key` mapping.
        let wireKey: String?
        let fallback: PFValue?
        let transformer: ParseTransformer?
        /// Whether the property may be read from a Pointer stub (`objectId`, `className`,
        /// excluded properties).
        let readableThroughStub: Bool
        /// Where `wireKey` was found in the last dictionary.
        var slot: Int
    }

    /// At most this many entries: key types with data-derived keys (dictionaries decoded
    /// through `Codable`) start over rather than grow.
    static let capacity = 48

    let info: ParseModelInfo?
    let strategy: ParseKeyMap.KeyStrategy
    // Unchecked exclusivity: touched for every key read; no access outlives the method that
    // makes it, and none calls out while one is open.
    @exclusivity(unchecked) private(set) var entries: [Entry] = []
    @exclusivity(unchecked) private var cursor = 0

    init(info: ParseModelInfo?, strategy: ParseKeyMap.KeyStrategy) {
        self.info = info
        self.strategy = strategy
    }

    /// A new container starts at the first key.
    @inline(__always)
    func restart() { cursor = 0 }

    /// The entry of a key, resolved on first use.
    @inline(__always)
    func index(of name: String) -> Int {
        let c = cursor
        if c < entries.count, entries[c].name == name {
            cursor = c + 1
            return c
        }
        // The same key again (`contains`, then `decode`).
        if c > 0, c <= entries.count, entries[c - 1].name == name { return c - 1 }
        return slowIndex(of: name)
    }

    private func slowIndex(of name: String) -> Int {
        if let found = entries.firstIndex(where: { $0.name == name }) {
            cursor = found + 1
            return found
        }
        if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
        entries.append(resolve(name))
        cursor = entries.count
        return entries.count - 1
    }

    private func resolve(_ name: String) -> Entry {
        guard let info else {
            let k = strategy == .convertToSnakeCase ? ParseKeyMap.snakeCase(name) : name
            return Entry(name: name, mapping: .key(k), wireKey: k, fallback: nil, transformer: nil,
                         readableThroughStub: true, slot: 0)
        }
        let mapping = info.mapping(for: name)
        var wireKey: String?
        if case .key(let k) = mapping { wireKey = k }
        let stubReadable = mapping == .excluded || mapping == .key("objectId") || mapping == .key("className")
        return Entry(name: name, mapping: mapping, wireKey: wireKey, fallback: info.defaults[name],
                     transformer: info.transformers.isEmpty ? nil : info.transformers.byProperty[name],
                     readableThroughStub: stubReadable, slot: 0)
    }

    /// The value of entry `e`'s wire key in an object: for a dictionary, at the remembered
    /// position when the key is still there, else by hashing (and the position is remembered);
    /// for a node, json-c's own hash lookup.
    @inline(__always)
    func value(_ e: Int, in object: ParseWireObject) -> ParseWire? {
        switch object {
        case .dict(let dict): return value(e, in: dict).map(ParseWire.value)
        case .node(let node):
            guard let k = entries[e].wireKey else { return nil }
            return node.member(k).map(ParseWire.node)
        }
    }

    @inline(__always)
    func value(_ e: Int, in dict: OrderedDictionary<String, PFValue>) -> PFValue? {
        guard let k = entries[e].wireKey else { return nil }
        let slot = entries[e].slot
        if slot < dict.count, dict.keys[slot] == k { return dict.values[slot] }
        guard let found = dict.index(forKey: k) else { return nil }
        entries[e].slot = found
        return dict.values[found]
    }
}

// MARK: - Scalars without casts

/// Reads `String`, `Int`, `Double` and `Bool` straight out of a value, comparing metatypes
/// instead of casting (a cast to a generic type, or an `Optional<T>` result, costs runtime
/// calls and metadata lookups in unspecialized code).
enum ParseScalars {
    /// The scalar in `value` when `T` is its type, else what `otherwise` gives.
    @inline(__always)
    static func read<T>(_ type: T.Type, _ wire: ParseWire, stringsAndIntegersOnly: Bool = false,
                        otherwise: () throws -> T) rethrows -> T {
        guard case .value(let value) = wire else {
            guard case .node(let node) = wire else { return try otherwise() }
            return try read(T.self, node, stringsAndIntegersOnly: stringsAndIntegersOnly, otherwise: otherwise)
        }
        switch value {
        case .string(let s):
            // Each cast is exact: T is the payload's type.
            if T.self == String.self { return exactCast(s, to: T.self) }
        case .int(let i):
            if T.self == Int.self, let x = Int(exactly: i) { return exactCast(x, to: T.self) }
            if !stringsAndIntegersOnly, T.self == Double.self { return exactCast(Double(i), to: T.self) }
        case .bool(let b):
            if !stringsAndIntegersOnly, T.self == Bool.self { return exactCast(b, to: T.self) }
        case .double(let d):
            if !stringsAndIntegersOnly, T.self == Double.self { return exactCast(d, to: T.self) }
        default: break
        }
        return try otherwise()
    }

    /// ``read(_:_:stringsAndIntegersOnly:otherwise:)`` for a node (the same rules).
    @inline(__always)
    static func read<T>(_ type: T.Type, _ node: JSONNode, stringsAndIntegersOnly: Bool,
                        otherwise: () throws -> T) rethrows -> T {
        if T.self == String.self {
            if let s = node.stringValue { return exactCast(s, to: T.self) }
        } else if T.self == Int.self {
            if let i = node.intValue, let x = Int(exactly: i) { return exactCast(x, to: T.self) }
        } else if !stringsAndIntegersOnly {
            if T.self == Double.self {
                switch node.kind {
                case .double, .int:
                    if let d = node.doubleValue { return exactCast(d, to: T.self) }
                default: break
                }
            } else if T.self == Bool.self {
                if let b = node.boolValue { return exactCast(b, to: T.self) }
            }
        }
        return try otherwise()
    }
}

/// An optional property type whose `nil` stands for a present null. A model property of a
/// double optional type (`String??`) decodes a key holding null as `.some(nil)` and a
/// missing key as `nil`, and encodes them back the same way (synthesized `Encodable` writes
/// `.some(nil)` as null and leaves `nil` out), so a round trip keeps null and missing apart.
protocol ParseExplicitNull {
    /// The optional's `nil`.
    static var explicitNull: Self { get }
}

extension Optional: ParseExplicitNull {
    static var explicitNull: Self { nil }
}
