import Foundation
import OrderedCollections
import PFCore
import PFParse

/// Where an encoder's containers write: a dictionary, an array or one value. Reference
/// types, because nested containers keep writing after they are handed out.
final class ParseEncodedObject {
    var dict = OrderedDictionary<String, PFValue>()
    /// Nested containers still being written, placed when the object is materialized.
    var pending: [(key: String, node: ParseEncodedNode)] = []
    /// Key paths of properties that were `nil` (for Delete on update).
    var nilPaths: [PFKeyPath] = []
}

final class ParseEncodedArray {
    var items: [ParseEncodedNode] = []
}

enum ParseEncodedNode {
    case value(PFValue)
    case object(ParseEncodedObject)
    case array(ParseEncodedArray)

    var materialized: PFValue {
        switch self {
        case .value(let v): return v
        case .object(let o):
            var d = o.dict
            for (key, node) in o.pending { d[key] = node.materialized }
            return .dictionary(d)
        case .array(let a): return .array(a.items.map(\.materialized))
        }
    }
}

/// The `Encoder` the adapter writes models with: one instance per value that is not a
/// scalar, building a ``PFValue`` (the REST form) that its parent places by key map.
final class ParseEncoderImpl: Encoder {
    let options: ParseAdapter.Options
    let cache: ParseModelCache
    let path: PFCodingPath
    let level: ParseLevel
    let typeTransformers: [ObjectIdentifier: ParseTransformer]
    var node: ParseEncodedNode?
    /// Whether `nil` properties are recorded and written according to the options.
    let isRoot: Bool
    /// Whether key maps, transformers and embedding are ignored: the tree of property names
    /// that key-path access (the KVC analogue) walks.
    let propertyNames: Bool

    var codingPath: [any CodingKey] { path.codingKeys }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(options: ParseAdapter.Options, cache: ParseModelCache, path: PFCodingPath, level: ParseLevel,
         typeTransformers: [ObjectIdentifier: ParseTransformer], isRoot: Bool, propertyNames: Bool = false) {
        self.propertyNames = propertyNames
        self.options = options
        self.cache = cache
        self.path = path
        self.level = level
        self.typeTransformers = typeTransformers
        self.isRoot = isRoot
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let object: ParseEncodedObject
        if case .object(let existing)? = node {
            object = existing
        } else {
            object = ParseEncodedObject()
            node = .object(object)
        }
        return KeyedEncodingContainer(ParseKeyedEncoding<Key>(impl: self, object: object, path: path, level: level))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: ParseEncodedArray
        if case .array(let existing)? = node {
            array = existing
        } else {
            array = ParseEncodedArray()
            node = .array(array)
        }
        return ParseUnkeyedEncoding(impl: self, array: array, path: path)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    var value: PFValue { node?.materialized ?? .dictionary([:]) }

    // MARK: - Encoding one value

    /// Encodes a value into its wire form: Parse types and scalars directly, the rest through
    /// `encode(to:)`, then the property's (or the type's) reverse transformer.
    func box<T: Encodable>(_ value: T, at: PFCodingPath, transformer: ParseTransformer?) throws -> PFValue {
        var out: PFValue
        if let special = try encodeSpecial(value, at) {
            out = special
        } else {
            var level = ParseLevel.plain
            var transformers = typeTransformers
            var info: ParseModelInfo?
            if !propertyNames, let modelType = T.self as? any ParseModel.Type {
                let found = cache.info(modelType)
                info = found
                level = .model(found, stub: nil)
                if !found.transformers.byType.isEmpty {
                    transformers.merge(found.transformers.byType, uniquingKeysWith: { _, model in model })
                }
            }
            let child = ParseEncoderImpl(
                options: options, cache: cache, path: at, level: level, typeTransformers: transformers, isRoot: false,
                propertyNames: propertyNames)
            try value.encode(to: child)
            out = child.value
            if let info, case .dictionary(let d) = out {
                // A nested model is a full embedded object unless a transformer says Pointer.
                var embedded: OrderedDictionary<String, PFValue> = ["__type": "Object", "className": .string(info.className)]
                for (k, v) in d where k != "__type" && k != "className" { embedded[k] = v }
                out = .dictionary(embedded)
            }
        }
        if !propertyNames, let t = transformer ?? (typeTransformers.isEmpty ? nil : typeTransformers[ObjectIdentifier(T.self)]) {
            do throws(PFError) { out = try t.reverseTransformedValue(out) } catch { throw error.at(at.keyPath) }
        }
        return out
    }

    func encodeSpecial<T: Encodable>(_ value: T, _ at: PFCodingPath) throws(PFError) -> PFValue? {
        switch value {
        case let s as String: return .string(s)
        case let b as Bool: return .bool(b)
        case let i as Int: return .int(Int64(i))
        case let d as Double: return try number(d, at)
        case let d as Date: return ParseValue.date(ParseDate.rounded(d)).restValue
        case let d as Data: return ParseValue.bytes(d).restValue
        case let u as URL: return .string(u.absoluteString)
        case let u as UUID: return .string(u.uuidString)
        case let v as PFValue: return v
        case let v as ParseValue: return v.restValue
        case let a as ParseACL: return a.restValue
        case let p as ParsePointer: return ParseValue.pointer(p).restValue
        case let f as ParseFile: return ParseValue.file(f).restValue
        case let g as ParseGeoPoint:
            if let problem = g.problem { throw PFError(parse: ParseFailure.badGeoPoint(problem: problem), path: at) }
            return ParseValue.geoPoint(g).restValue
        case let p as ParsePolygon: return ParseValue.polygon(p).restValue
        case let o as ParseObject: return o.encodedAsEmbedded(style: .rest)
        default: return nil
        }
    }

    func number(_ d: Double, _ at: PFCodingPath) throws(PFError) -> PFValue {
        guard d.isFinite else {
            throw PFError(parse: ParseAdapterFailure.notFinite(d), path: at)
        }
        return .double(d)
    }
}

// MARK: - Single value

extension ParseEncoderImpl: SingleValueEncodingContainer {
    func set(_ v: PFValue) { node = .value(v) }
    func encodeNil() throws { set(.null) }
    func encode(_ value: Bool) throws { set(.bool(value)) }
    func encode(_ value: String) throws { set(.string(value)) }
    func encode(_ value: Double) throws { set(try number(value, path)) }
    func encode(_ value: Float) throws { set(try number(Double(value), path)) }
    func encode(_ value: Int) throws { set(.int(Int64(value))) }
    func encode(_ value: Int8) throws { set(.int(Int64(value))) }
    func encode(_ value: Int16) throws { set(.int(Int64(value))) }
    func encode(_ value: Int32) throws { set(.int(Int64(value))) }
    func encode(_ value: Int64) throws { set(.int(value)) }
    func encode(_ value: UInt) throws { try encode(UInt64(value)) }
    func encode(_ value: UInt8) throws { set(.int(Int64(value))) }
    func encode(_ value: UInt16) throws { set(.int(Int64(value))) }
    func encode(_ value: UInt32) throws { set(.int(Int64(value))) }
    func encode(_ value: UInt64) throws {
        guard let i = Int64(exactly: value) else {
            throw PFError(parse: ParseFailure.integerBeyond64Bit(value), path: path)
        }
        set(.int(i))
    }
    func encode<T: Encodable>(_ value: T) throws { set(try box(value, at: path, transformer: nil)) }
}

// MARK: - Keyed

struct ParseKeyedEncoding<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let impl: ParseEncoderImpl
    let object: ParseEncodedObject
    let path: PFCodingPath
    let level: ParseLevel

    var codingPath: [any CodingKey] { path.codingKeys }

    func mapping(_ key: Key) -> (ParseKeyMap.Mapping, ParseTransformer?) {
        switch level {
        case .plain:
            let name = impl.options.keyStrategy == .convertToSnakeCase ? ParseKeyMap.snakeCase(key.stringValue) : key.stringValue
            return (.key(name), nil)
        case .model(let info, _):
            return (info.mapping(for: key.stringValue), info.transformers.byProperty[key.stringValue])
        }
    }

    func place(_ value: PFValue, _ key: Key) throws {
        let (mapping, _) = mapping(key)
        do throws(PFError) {
            try mapping.store(value, into: &object.dict, property: key.stringValue)
        } catch {
            throw error.at(path.keyPath.appending(key: key.stringValue))
        }
    }

    func encodeValue<T: Encodable>(_ value: T, _ key: Key) throws {
        let (mapping, transformer) = mapping(key)
        if mapping == .excluded { return }
        let at = path.appending(key: mapping.topLevelKeys.first ?? key.stringValue)
        try place(try impl.box(value, at: at, transformer: transformer), key)
    }

    func encodeNil(forKey key: Key) throws {
        let (mapping, _) = mapping(key)
        if mapping == .excluded { return }
        try place(.null, key)
    }

    /// A `nil` optional: absent by default (recorded for Delete on update), `null` when the
    /// options ask for it.
    func encodeAbsent(_ key: Key) throws {
        let (mapping, _) = mapping(key)
        if mapping == .excluded { return }
        for k in mapping.topLevelKeys where mapping.topLevelKeys.count > 1 {
            object.nilPaths.append(path.keyPath.appending(key: k))
        }
        if mapping.topLevelKeys.count <= 1 {
            object.nilPaths.append(PFKeyPath(path.keyPath.components + mapping.keyPath.components))
        }
        if impl.options.nilEncoding == .null { try place(.null, key) }
    }

    func encode(_ value: Bool, forKey key: Key) throws { try encodeValue(value, key) }
    func encode(_ value: String, forKey key: Key) throws { try encodeValue(value, key) }
    func encode(_ value: Double, forKey key: Key) throws { try encodeValue(value, key) }
    func encode(_ value: Float, forKey key: Key) throws { try encodeValue(Double(value), key) }
    func encode(_ value: Int, forKey key: Key) throws { try encodeValue(value, key) }
    func encode(_ value: Int8, forKey key: Key) throws { try encodeValue(Int(value), key) }
    func encode(_ value: Int16, forKey key: Key) throws { try encodeValue(Int(value), key) }
    func encode(_ value: Int32, forKey key: Key) throws { try encodeValue(Int(value), key) }
    func encode(_ value: Int64, forKey key: Key) throws { try encodeValue(value, key) }
    func encode(_ value: UInt, forKey key: Key) throws { try encodeValue(value, key) }
    func encode(_ value: UInt8, forKey key: Key) throws { try encodeValue(Int(value), key) }
    func encode(_ value: UInt16, forKey key: Key) throws { try encodeValue(Int(value), key) }
    func encode(_ value: UInt32, forKey key: Key) throws { try encodeValue(Int(value), key) }
    func encode(_ value: UInt64, forKey key: Key) throws { try encodeValue(value, key) }
    func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try encodeValue(value, key) }

    func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try present(value, key) }
    func encodeIfPresent(_ value: String?, forKey key: Key) throws { try present(value, key) }
    func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try present(value, key) }
    func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try present(value, key) }
    func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try present(value, key) }
    func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try present(value, key) }
    func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try present(value, key) }
    func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try present(value, key) }
    func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try present(value, key) }
    func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try present(value, key) }
    func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try present(value, key) }
    func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try present(value, key) }
    func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try present(value, key) }
    func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try present(value, key) }
    func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { try present(value, key) }

    func present<T: Encodable>(_ value: T?, _ key: Key) throws {
        if let value { try encodeValue(value, key) } else { try encodeAbsent(key) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let nested = ParseEncodedObject()
        let name = mapping(key).0.topLevelKeys.first ?? key.stringValue
        object.pending.append((name, .object(nested)))
        return KeyedEncodingContainer(ParseKeyedEncoding<NestedKey>(impl: impl, object: nested, path: path.appending(key: name), level: .plain))
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = ParseEncodedArray()
        let name = mapping(key).0.topLevelKeys.first ?? key.stringValue
        object.pending.append((name, .array(nested)))
        return ParseUnkeyedEncoding(impl: impl, array: nested, path: path.appending(key: name))
    }

    func superEncoder() -> any Encoder { ParseReferencingEncoder(parent: impl, object: object, key: "super", path: path) }
    func superEncoder(forKey key: Key) -> any Encoder {
        ParseReferencingEncoder(parent: impl, object: object, key: mapping(key).0.topLevelKeys.first ?? key.stringValue, path: path)
    }
}

// MARK: - Unkeyed

struct ParseUnkeyedEncoding: UnkeyedEncodingContainer {
    let impl: ParseEncoderImpl
    let array: ParseEncodedArray
    let path: PFCodingPath

    var codingPath: [any CodingKey] { path.codingKeys }
    var count: Int { array.items.count }

    mutating func encodeNil() throws { array.items.append(.value(.null)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        let at = path.appending(index: array.items.count)
        array.items.append(.value(try impl.box(value, at: at, transformer: nil)))
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = ParseEncodedObject()
        let at = path.appending(index: array.items.count)
        array.items.append(.object(nested))
        return KeyedEncodingContainer(ParseKeyedEncoding<NestedKey>(impl: impl, object: nested, path: at, level: .plain))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = ParseEncodedArray()
        let at = path.appending(index: array.items.count)
        array.items.append(.array(nested))
        return ParseUnkeyedEncoding(impl: impl, array: nested, path: at)
    }
    mutating func superEncoder() -> any Encoder {
        let slot = ParseEncodedObject()
        array.items.append(.object(slot))
        return ParseReferencingEncoder(parent: impl, object: slot, key: nil, path: path.appending(index: array.items.count - 1))
    }
}

/// An encoder whose result lands in a parent's slot (for `superEncoder`).
final class ParseReferencingEncoder: Encoder {
    let inner: ParseEncoderImpl
    init(parent: ParseEncoderImpl, object: ParseEncodedObject, key: String?, path: PFCodingPath) {
        inner = ParseEncoderImpl(
            options: parent.options, cache: parent.cache, path: key.map { path.appending(key: $0) } ?? path, level: .plain,
            typeTransformers: parent.typeTransformers, isRoot: false)
        if let key {
            let slot = ParseEncodedObject()
            inner.node = .object(slot)
            object.pending.append((key, .object(slot)))
        } else {
            inner.node = .object(object)
        }
    }
    var codingPath: [any CodingKey] { inner.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> { inner.container(keyedBy: type) }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { inner.unkeyedContainer() }
    func singleValueContainer() -> any SingleValueEncodingContainer { inner.singleValueContainer() }
}
