import Foundation
import OrderedCollections
import PFCore

// MARK: - Keyed

struct ParseKeyedDecoding<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let impl: ParseDecoderImpl
    let dict: OrderedDictionary<String, PFValue>
    let path: PFCodingPath
    let level: ParseLevel
    let context: ParseContext

    var codingPath: [any CodingKey] { path.codingKeys }

    var allKeys: [Key] {
        switch level {
        case .plain:
            return dict.keys.compactMap { Key(stringValue: impl.options.keyStrategy == .convertToSnakeCase ? ParseKeyMap.camelCase($0) : $0) }
        case .model(let info, _):
            return dict.keys.compactMap { Key(stringValue: info.property(forKey: $0)) }
        }
    }

    /// The wire value of a key (a default when missing or null), its mapping (to build its
    /// path only when one is needed), and its property transformer.
    func lookup(_ key: Key) throws(PFError) -> (value: PFValue?, mapping: ParseKeyMap.Mapping, transformer: ParseTransformer?) {
        let name = key.stringValue
        switch level {
        case .plain:
            let k = impl.options.keyStrategy == .convertToSnakeCase ? ParseKeyMap.snakeCase(name) : name
            return (dict[k], .key(k), nil)
        case .model(let info, let stub):
            let mapping = info.mapping(for: name)
            if let stub, mapping != .excluded, mapping != .key("objectId"), mapping != .key("className") {
                throw ParseFailure.plain(
                    .usage,
                    "the Pointer to \(stub) is a stub without data, so '\(name)' cannot be read; fetch the object, read it with `include`, or declare the property as ParsePointer or ParseReference",
                    path: path, context: context)
            }
            var value: PFValue?
            if case .key(let k) = mapping {
                // The common case, without building a path.
                value = dict[k]
            } else {
                value = try mapping.lookup(in: dict, at: path).0
            }
            if value == nil || value == .null, let fallback = info.defaults[name] { value = fallback }
            return (value, mapping, info.transformers.isEmpty ? nil : info.transformers.byProperty[name])
        }
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
        let found = try lookup(key)
        return found.value == nil || found.value == .null
    }

    func require(_ key: Key) throws -> (PFValue, PFCodingPath, ParseTransformer?) {
        let found = try lookup(key)
        guard let value = found.value else {
            throw ParseFailure.plain(
                .invalidValue,
                "missing key for property '\(key.stringValue)'; give it a default in parseDefaults or make it optional",
                path: path(of: found.mapping), context: context)
        }
        return (value, path(of: found.mapping), found.transformer)
    }

    /// Decodes one property; in collecting mode a failure is recorded and a placeholder value
    /// keeps decoding going so every failure is found.
    func decodeValue<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        do {
            let found = try lookup(key)
            if found.transformer == nil, let value = found.value {
                // Fast paths for scalars: no transformer, no path, no container switch.
                switch value {
                case .string(let s): if let r = s as? T { return r }
                case .int(let i): if T.self == Int.self, let x = Int(exactly: i), let r = x as? T { return r }
                    if T.self == Double.self, let r = Double(i) as? T { return r }
                case .bool(let b): if let r = b as? T { return r }
                case .double(let d): if let r = d as? T { return r }
                default: break
                }
            }
            let (value, at, transformer) = try require(key)
            return try impl.unwrap(T.self, from: value, at: at, transformer: transformer)
        } catch {
            guard impl.record(error) else { throw error }
            return try T(from: ParsePlaceholderDecoder())
        }
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
        guard case .dictionary(let d) = value else { throw impl.mismatch("an object", value, at) }
        return KeyedDecodingContainer(ParseKeyedDecoding<NestedKey>(impl: impl, dict: d, path: at, level: .plain, context: context))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let (value, at, _) = try require(key)
        guard case .array(let items) = value else { throw impl.mismatch("an array", value, at) }
        return ParseUnkeyedDecoding(impl: impl, items: items, path: at)
    }

    func superDecoder() throws -> any Decoder {
        ParseDecoderImpl.detached(from: impl, value: .dictionary(dict), path: path)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        let found = try lookup(key)
        return ParseDecoderImpl.detached(from: impl, value: found.value ?? .null, path: path(of: found.mapping))
    }
}

extension ParseDecoderImpl {
    /// A separate decoder over a value, for `superDecoder`.
    static func detached(from impl: ParseDecoderImpl, value: PFValue, path: PFCodingPath) -> ParseDecoderImpl {
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
    let items: [PFValue]
    let path: PFCodingPath
    var currentIndex = 0

    init(impl: ParseDecoderImpl, items: [PFValue], path: PFCodingPath) {
        self.impl = impl
        self.items = items
        self.path = path
    }

    var codingPath: [any CodingKey] { path.codingKeys }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    mutating func next() throws -> (PFValue, PFCodingPath) {
        guard currentIndex < items.count else {
            throw ParseFailure.plain(
                .invalidValue, "the array has only \(items.count) elements", path: path.appending(index: currentIndex),
                context: impl.context)
        }
        defer { currentIndex += 1 }
        return (items[currentIndex], path.appending(index: currentIndex))
    }

    mutating func decodeNil() throws -> Bool {
        guard currentIndex < items.count else { return false }
        if items[currentIndex] == .null {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if currentIndex < items.count {
            switch items[currentIndex] {
            case .string(let s): if let r = s as? T { currentIndex += 1; return r }
            case .int(let i): if T.self == Int.self, let x = Int(exactly: i), let r = x as? T { currentIndex += 1; return r }
            default: break
            }
        }
        let (value, at) = try next()
        do {
            return try impl.unwrap(T.self, from: value, at: at, transformer: nil)
        } catch {
            guard impl.record(error) else { throw error }
            return try T(from: ParsePlaceholderDecoder())
        }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let (value, at) = try next()
        guard case .dictionary(let d) = value else { throw impl.mismatch("an object", value, at) }
        return KeyedDecodingContainer(ParseKeyedDecoding<NestedKey>(impl: impl, dict: d, path: at, level: .plain, context: impl.context))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, at) = try next()
        guard case .array(let inner) = value else { throw impl.mismatch("an array", value, at) }
        return ParseUnkeyedDecoding(impl: impl, items: inner, path: at)
    }

    mutating func superDecoder() throws -> any Decoder {
        let (value, at) = try next()
        return ParseDecoderImpl.detached(from: impl, value: value, path: at)
    }
}
