import Foundation
import OrderedCollections
import PFCore
import PFSerialization

/// Archives any `Encodable` value as an NSKeyedArchiver archive: the Codable bridge.
///
/// ```swift
/// let data = try KeyedArchiveEncoder().encode(team)
/// let back = try KeyedArchiveDecoder().decode(Team.self, from: data)
/// ```
///
/// Keyed containers become objects of a class named after the Swift type (see
/// ``ClassNameStrategy``) with one field per key; `[String: X]` dictionaries become
/// `NSDictionary`, unkeyed containers `NSArray`; strings, data, dates, URLs and UUIDs become
/// their Foundation objects, numbers and booleans are stored in place in fields. A class
/// instance encoded twice is stored once, so shared references survive (and a cycle of class
/// instances archives; decoding one needs ``ArchiveCoding`` instead, since `init(from:)`
/// cannot receive an object that is still being built).
public struct KeyedArchiveEncoder: Sendable {
    /// How keyed containers name their class in the archive.
    public enum ClassNameStrategy: Sendable {
        /// `String(reflecting:)`: `MyApp.Employee` (the default; what Foundation writes for
        /// Swift classes).
        case qualifiedTypeName
        /// `String(describing:)`: `Employee`.
        case typeName
        /// A name of your choosing per type.
        case custom(@Sendable (Any.Type) -> String)

        func name(for type: Any.Type) -> String {
            switch self {
            case .qualifiedTypeName: String(reflecting: type)
            case .typeName: String(describing: type)
            case .custom(let name): name(type)
            }
        }
    }

    /// Encoding options.
    public struct Options: Sendable {
        /// The container of the archive.
        public var container: KeyedArchiveContainer = .bplist
        /// How keyed containers name their class.
        public var classNames: ClassNameStrategy = .qualifiedTypeName
        /// Budgets: `maxDepth` bounds nesting, `maxNodes` the number of objects.
        public var limits: PFLimits = .default

        /// Makes encoding options.
        public init(container: KeyedArchiveContainer = .bplist, classNames: ClassNameStrategy = .qualifiedTypeName,
                    limits: PFLimits = .default) {
            self.container = container
            self.classNames = classNames
            self.limits = limits
        }
    }

    /// The options every encode uses.
    public var options: Options

    /// Makes an encoder.
    public init(options: Options = Options()) { self.options = options }

    /// Encodes a value as an archive with the value at `$top.root`.
    /// - Throws: `EncodingError.invalidValue` with the coding path for what an archive cannot
    ///   hold, carrying the ``PFCore/PFError`` as its `underlyingError`, or ``PFError`` itself
    ///   from the object table.
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        try KeyedArchive.write(encodeTable(value), container: options.container)
    }

    /// Encodes a value into an object table.
    public func encodeTable<T: Encodable>(_ value: T) throws -> KeyedObjectTable {
        let state = ArchiveEncodingState(options: options)
        state.builder.top[KeyedObjectTable.rootKey] = try state.reference(for: value, path: .root)
        return state.builder.table
    }
}

// MARK: - Shared state

/// What every nested encoder of one `encode` call shares: the table and the identities.
final class ArchiveEncodingState {
    let options: KeyedArchiveEncoder.Options
    var builder: ObjectTableBuilder
    var identities: [ObjectIdentifier: UInt64] = [:]
    var retained: [AnyObject] = []
    var depth = 0

    init(options: KeyedArchiveEncoder.Options) {
        self.options = options
        builder = ObjectTableBuilder(maxObjects: options.limits.maxNodes)
    }

    /// A number or boolean to store in place, or `nil` for anything else.
    static func inlineScalar(_ value: Any) -> PFValue? {
        switch value {
        case let v as Bool: .bool(v)
        case let v as Int: .int(Int64(v))
        case let v as Int8: .int(Int64(v))
        case let v as Int16: .int(Int64(v))
        case let v as Int32: .int(Int64(v))
        case let v as Int64: .int(v)
        case let v as UInt: PFValue.integer(v)
        case let v as UInt8: .int(Int64(v))
        case let v as UInt16: .int(Int64(v))
        case let v as UInt32: .int(Int64(v))
        case let v as UInt64: PFValue.integer(v)
        case let v as Double: .double(v)
        case let v as Float: .double(Double(v))
        default: nil
        }
    }

    /// The object reference for any encodable value.
    func reference<T: Encodable>(for value: T, path: PFCodingPath) throws -> UInt64 {
        if let scalar = Self.inlineScalar(value) { return try builder.scalarReference(scalar) }
        switch value {
        case let s as String: return try builder.scalarReference(.string(s))
        case let d as Data: return try builder.scalarReference(.data(d))
        case let d as Date: return try builder.dateReference(d)
        case let u as URL:
            let relative = try builder.scalarReference(.string(u.absoluteString))
            let uid = try builder.reserve()
            try builder.fill(uid, with: ["NS.base": .uid(0), "NS.relative": .uid(relative)], class: .foundation("NSURL"))
            return uid
        case let u as UUID:
            let uid = try builder.reserve()
            try builder.fill(uid, with: ["NS.uuidbytes": .data(withUnsafeBytes(of: u.uuid) { Data($0) })], class: .foundation("NSUUID"))
            return uid
        default: break
        }
        var reserved: UInt64?
        if type(of: value) is AnyClass {
            let instance = value as AnyObject
            let id = ObjectIdentifier(instance)
            if let uid = identities[id] { return uid }
            let uid = try builder.reserve()
            identities[id] = uid
            retained.append(instance)
            reserved = uid
        }
        guard depth < options.limits.maxDepth else {
            throw PFError(KeyedArchiveFailure.tooDeep(maxDepth: options.limits.maxDepth), format: .keyedArchive,
                          path: path.keyPath).encodingError(value)
        }
        depth += 1
        defer { depth -= 1 }
        let encoder = ArchiveValueEncoder(state: self, path: path)
        try value.encode(to: encoder)
        let isDictionary = value is any StringKeyedDictionaryMarker
        let version = (T.self as? any ArchiveVersioned.Type)?.archiveVersion
        return try encoder.finish(
            into: reserved, className: options.classNames.name(for: T.self), version: version, asDictionary: isDictionary)
    }
}

/// Swift dictionaries with string keys, which archive as `NSDictionary`.
protocol StringKeyedDictionaryMarker {}
extension Dictionary: StringKeyedDictionaryMarker where Key == String {}

// MARK: - The encoder

/// A container's contents while it is being written. Boxes are classes so a nested container
/// keeps writing into its parent's storage after `nestedContainer` returns.
final class KeyedBox {
    var fields = OrderedDictionary<String, Slot>()
}

final class UnkeyedBox {
    var items: [Slot] = []
}

/// A field or element: a finished value, or a nested container still open.
enum Slot {
    case value(PFValue)
    case keyed(KeyedBox)
    case unkeyed(UnkeyedBox)
}

/// The `Encoder` for one value: collects what its container writes, then becomes an object.
final class ArchiveValueEncoder: Encoder {
    enum Storage {
        case empty
        case keyed(KeyedBox)
        case unkeyed(UnkeyedBox)
        case single(UInt64)
    }

    let state: ArchiveEncodingState
    let path: PFCodingPath
    var storage = Storage.empty
    var codingPath: [any CodingKey] { path.keyPath.codingKeys }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(state: ArchiveEncodingState, path: PFCodingPath) {
        self.state = state
        self.path = path
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let box: KeyedBox
        if case .keyed(let existing) = storage {
            box = existing
        } else {
            box = KeyedBox()
            storage = .keyed(box)
        }
        return KeyedEncodingContainer(ArchiveKeyedContainer<Key>(state: state, box: box, path: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let box: UnkeyedBox
        if case .unkeyed(let existing) = storage {
            box = existing
        } else {
            box = UnkeyedBox()
            storage = .unkeyed(box)
        }
        return ArchiveUnkeyedContainer(state: state, box: box, path: path)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { ArchiveSingleValueContainer(encoder: self) }

    /// Writes what the container collected and returns the value's reference.
    func finish(into reserved: UInt64?, className: String, version: Int?, asDictionary: Bool) throws -> UInt64 {
        switch storage {
        case .empty:
            // A value that encoded nothing is an empty object.
            let uid = try reserved ?? state.builder.reserve()
            try state.builder.fill(uid, with: [:], class: ArchivedClass(name: className, version: version))
            return uid
        case .keyed(let box):
            return try state.write(box, into: reserved, className: asDictionary ? nil : className, version: version)
        case .unkeyed(let box):
            return try state.write(box, into: reserved)
        case .single(let reference):
            guard let reserved else { return reference }
            // A class instance whose whole encoding is one value: its slot holds a copy.
            state.builder.setObject(state.builder.objects[Int(reference)], at: Int(reserved))
            return reserved
        }
    }
}

extension ArchiveEncodingState {
    /// Writes a keyed box as an object of `className`, or as an `NSDictionary` when `nil`.
    func write(_ box: KeyedBox, into reserved: UInt64? = nil, className: String?, version: Int? = nil) throws -> UInt64 {
        let uid = try reserved ?? builder.reserve()
        if let className {
            var fields = OrderedDictionary<String, PFValue>()
            for (key, slot) in box.fields { fields[key] = try field(slot) }
            try builder.fill(uid, with: fields, class: ArchivedClass(name: className, version: version))
        } else {
            var keys: [PFValue] = []
            var values: [PFValue] = []
            for (key, slot) in box.fields {
                keys.append(.uid(try builder.scalarReference(.string(KeyedGraph.unescape(key)))))
                values.append(.uid(try reference(slot)))
            }
            try builder.fill(uid, with: ["NS.keys": .array(keys), "NS.objects": .array(values)], class: .foundation("NSDictionary"))
        }
        return uid
    }

    /// Writes an unkeyed box as an `NSArray`.
    func write(_ box: UnkeyedBox, into reserved: UInt64? = nil) throws -> UInt64 {
        let uid = try reserved ?? builder.reserve()
        var items: [PFValue] = []
        items.reserveCapacity(box.items.count)
        for slot in box.items { items.append(.uid(try reference(slot))) }
        try builder.fill(uid, with: ["NS.objects": .array(items)], class: .foundation("NSArray"))
        return uid
    }

    /// A slot as an object field: numbers in place, the rest by reference.
    func field(_ slot: Slot) throws -> PFValue {
        switch slot {
        case .value(let value): value
        case .keyed(let box): .uid(try write(box, className: nil))
        case .unkeyed(let box): .uid(try write(box))
        }
    }

    /// A slot as a collection element: always a reference.
    func reference(_ slot: Slot) throws -> UInt64 {
        switch slot {
        case .value(.uid(let uid)): uid
        case .value(let scalar): try builder.scalarReference(scalar)
        case .keyed(let box): try write(box, className: nil)
        case .unkeyed(let box): try write(box)
        }
    }
}

struct ArchiveKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let state: ArchiveEncodingState
    let box: KeyedBox
    let path: PFCodingPath
    var codingPath: [any CodingKey] { path.keyPath.codingKeys }

    func set(_ value: PFValue, _ key: Key) { box.fields[KeyedArchiver.escape(key.stringValue)] = .value(value) }

    mutating func encodeNil(forKey key: Key) throws { set(.uid(0), key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(.uid(try state.builder.scalarReference(.string(value))), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(.double(value), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(.double(Double(value)), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(.int(value), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(PFValue.integer(value) ?? .uint(value), key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if let scalar = ArchiveEncodingState.inlineScalar(value) { return set(scalar, key) }
        set(.uid(try state.reference(for: value, path: path.appending(key: key.stringValue))), key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let nested = KeyedBox()
        box.fields[KeyedArchiver.escape(key.stringValue)] = .keyed(nested)
        return KeyedEncodingContainer(ArchiveKeyedContainer<NestedKey>(state: state, box: nested, path: path.appending(key: key.stringValue)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = UnkeyedBox()
        box.fields[KeyedArchiver.escape(key.stringValue)] = .unkeyed(nested)
        return ArchiveUnkeyedContainer(state: state, box: nested, path: path.appending(key: key.stringValue))
    }

    mutating func superEncoder() -> any Encoder {
        let box = self.box
        return SuperEncoder(state: state, path: path.appending(key: "super")) { box.fields["super"] = $0 }
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let box = self.box
        let name = KeyedArchiver.escape(key.stringValue)
        return SuperEncoder(state: state, path: path.appending(key: key.stringValue)) { box.fields[name] = $0 }
    }
}

struct ArchiveUnkeyedContainer: UnkeyedEncodingContainer {
    let state: ArchiveEncodingState
    let box: UnkeyedBox
    let path: PFCodingPath
    var codingPath: [any CodingKey] { path.keyPath.codingKeys }
    var count: Int { box.items.count }

    mutating func encodeNil() throws { box.items.append(.value(.uid(try state.builder.nullObjectReference()))) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        box.items.append(.value(.uid(try state.reference(for: value, path: path.appending(index: count)))))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = KeyedBox()
        box.items.append(.keyed(nested))
        return KeyedEncodingContainer(ArchiveKeyedContainer<NestedKey>(state: state, box: nested, path: path.appending(index: count - 1)))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = UnkeyedBox()
        box.items.append(.unkeyed(nested))
        return ArchiveUnkeyedContainer(state: state, box: nested, path: path.appending(index: count - 1))
    }

    mutating func superEncoder() -> any Encoder {
        let box = self.box
        let index = box.items.count
        box.items.append(.value(.uid(0)))
        return SuperEncoder(state: state, path: path.appending(index: index)) { box.items[index] = $0 }
    }
}

/// An encoder for `superEncoder()`: whatever it collects is stored into the parent's slot.
final class SuperEncoder: Encoder {
    let inner: ArchiveValueEncoder
    let store: (Slot) -> Void
    var codingPath: [any CodingKey] { inner.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(state: ArchiveEncodingState, path: PFCodingPath, store: @escaping (Slot) -> Void) {
        inner = ArchiveValueEncoder(state: state, path: path)
        self.store = store
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let container = inner.container(keyedBy: type)
        if case .keyed(let box) = inner.storage { store(.keyed(box)) }
        return container
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let container = inner.unkeyedContainer()
        if case .unkeyed(let box) = inner.storage { store(.unkeyed(box)) }
        return container
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SuperSingleValueContainer(encoder: inner, store: store)
    }
}

struct SuperSingleValueContainer: SingleValueEncodingContainer {
    let encoder: ArchiveValueEncoder
    let store: (Slot) -> Void
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { store(.value(.uid(0))) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        if let scalar = ArchiveEncodingState.inlineScalar(value) { return store(.value(scalar)) }
        store(.value(.uid(try encoder.state.reference(for: value, path: encoder.path))))
    }
}

struct ArchiveSingleValueContainer: SingleValueEncodingContainer {
    let encoder: ArchiveValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.storage = .single(try encoder.state.builder.nullObjectReference()) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.storage = .single(try encoder.state.reference(for: value, path: encoder.path))
    }
}
