import Foundation
import OrderedCollections
import PFCore

/// Decodes any `Decodable` value from a keyed archive: the Codable bridge's other half.
///
/// Decoding is driven by the Swift type you ask for, so no class is ever looked up by the
/// name an archive gives it: a field's object is read as whatever type the `init(from:)`
/// asks for, and must have the matching shape (an object or `NSDictionary` for a keyed
/// container, an `NSArray`/`NSSet`/`NSOrderedSet` for an unkeyed one). A class instance
/// stored once and referenced twice comes back as one instance.
public struct KeyedArchiveDecoder: Sendable {
    /// Decoding options.
    public struct Options: Sendable {
        /// Budgets: `maxDepth` bounds nesting.
        public var limits: PFLimits = .default

        /// Makes decoding options.
        public init(limits: PFLimits = .default) { self.limits = limits }
    }

    /// The options every decode uses.
    public var options: Options

    /// The `userInfo` key under which every `Decoder` this type hands out offers the
    /// archive's class versions, a `[String: Int]` (class name → recorded version), so an
    /// `init(from:)` can ask which version wrote it.
    public static let classVersionsKey: CodingUserInfoKey = {
        guard let key = CodingUserInfoKey(rawValue: "pfarchive.classVersions") else {
            preconditionFailure("A non-empty raw value always makes a CodingUserInfoKey.")
        }
        return key
    }()

    /// Makes a decoder.
    public init(options: Options = Options()) { self.options = options }

    /// Decodes the value at `$top.root` of an archive in any container.
    /// - Throws: `DecodingError` with the coding path (`typeMismatch`, `keyNotFound`,
    ///   `valueNotFound`, `dataCorrupted`); a `typeMismatch` or `dataCorrupted` carries the
    ///   ``PFCore/PFError`` (a ``KeyedArchiveFailure`` or the table's error) as its
    ///   `underlyingError`. ``PFError`` itself for a malformed archive container.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try decode(type, from: KeyedArchive.readTable(data, limits: options.limits).table)
    }

    /// Decodes the value at `$top.root` of an object table.
    public func decode<T: Decodable>(_ type: T.Type, from table: KeyedObjectTable) throws -> T {
        guard let root = table.top[KeyedObjectTable.rootKey] else {
            throw PFError(KeyedArchiveFailure.noRoot, format: .keyedArchive).decodingError(codingPath: [])
        }
        let state = ArchiveDecodingState(table: table, options: options)
        return try state.decode(type, from: .uid(root), path: .root)
    }
}

// MARK: - Shared state

final class ArchiveDecodingState {
    let table: KeyedObjectTable
    let options: KeyedArchiveDecoder.Options
    /// Class instances already decoded, by object index, so identity survives.
    var instances: [Int: AnyObject] = [:]
    var inProgress: Set<Int> = []
    var depth = 0
    /// The archive's class versions, read once.
    lazy var classVersions: [String: Int] = table.classVersions

    init(table: KeyedObjectTable, options: KeyedArchiveDecoder.Options) {
        self.table = table
        self.options = options
    }

    /// A `DecodingError.dataCorrupted` at `path` carrying the failure's ``PFCore/PFError``.
    func corrupted(_ failure: KeyedArchiveFailure, _ path: PFCodingPath) -> DecodingError {
        corrupted(PFError(failure, format: .keyedArchive, path: path.keyPath), path)
    }

    /// A `DecodingError.dataCorrupted` at `path` carrying `error`.
    func corrupted(_ error: PFError, _ path: PFCodingPath) -> DecodingError {
        error.at(path.keyPath).decodingError(codingPath: path.codingKeys)
    }

    /// A `DecodingError.typeMismatch` at `path` carrying the failure's ``PFCore/PFError``.
    func mismatch(_ type: Any.Type, _ failure: KeyedArchiveFailure, _ path: PFCodingPath) -> DecodingError {
        mismatch(type, PFError(failure, format: .keyedArchive, path: path.keyPath), path)
    }

    /// A `DecodingError.typeMismatch` at `path` carrying `error`.
    func mismatch(_ type: Any.Type, _ error: PFError, _ path: PFCodingPath) -> DecodingError {
        error.at(path.keyPath).typeMismatch(type, codingPath: path.codingKeys)
    }

    /// The object index a reference names; `nil` for `$null`.
    func index(_ value: PFValue, _ path: PFCodingPath) throws -> Int? {
        guard case .uid(let uid) = value else { return nil }
        if uid == 0 { return nil }
        do {
            return try table.index(of: uid, at: path.keyPath)
        } catch {
            throw corrupted(error, path)
        }
    }

    /// The scalar a field value stands for: in place, or an object in the table.
    func scalar(_ value: PFValue, _ path: PFCodingPath) throws -> KeyedGraph.Value {
        switch value {
        case .uid(let uid):
            guard let index = try index(value, path) else { return .null }
            let object = table.objects[index]
            if case .null = object {
                throw corrupted(.nullObject(uid: uid), path)
            }
            if let scalar = KeyedGraph.Value(scalar: object) { return scalar }
            switch object {
            case .dictionary(let fields):
                do {
                    let objectPath: PFKeyPath = [.key("$objects"), .index(index)]
                    if let scalar = try table.foundationScalar(fields, of: table.archivedClass(of: fields, at: objectPath), at: objectPath) {
                        return scalar
                    }
                } catch {
                    throw corrupted(error, path)
                }
                return .node(index)
            default:
                throw corrupted(.objectKind(uid: uid, kind: object.kind.rawValue), path)
            }
        case .array, .dictionary: return .node(-1)
        default: return KeyedGraph.Value(scalar: value) ?? .null
        }
    }

    func isNil(_ value: PFValue) -> Bool {
        switch value {
        case .null, .uid(0): return true
        case .uid(let uid):
            guard uid < UInt64(table.objects.count), case .dictionary(let fields) = table.objects[Int(uid)],
                let cls = try? table.archivedClass(of: fields, at: .root)
            else { return false }
            return cls.name == "NSNull"
        default: return false
        }
    }

    // MARK: - Typed decoding

    func decode<T: Decodable>(_ type: T.Type, from value: PFValue, path: PFCodingPath) throws -> T {
        if T.self == String.self {
            guard case .string(let s) = try scalar(value, path) else { throw mismatch(T.self, .expected("a string"), path) }
            return s as! T  // T is String here
        }
        if T.self == Data.self {
            guard case .data(let d) = try scalar(value, path) else { throw mismatch(T.self, .expected("data"), path) }
            return d as! T
        }
        if T.self == Date.self {
            guard case .date(let d) = try scalar(value, path) else { throw mismatch(T.self, .expected("an NSDate"), path) }
            return d as! T
        }
        if T.self == URL.self || T.self == UUID.self {
            guard let index = try index(value, path) else { throw mismatch(T.self, .expected("an object"), path) }
            let unarchiver = KeyedUnarchiver(table: table, registry: ArchiveClassRegistry())
            do {
                if T.self == URL.self { return try URL.unarchive(from: unarchiver, objectAt: index) as! T }
                return try UUID.unarchive(from: unarchiver, objectAt: index) as! T
            } catch let error as PFError {
                throw corrupted(error, path)
            }
        }
        let objectIndex = try index(value, path)
        if let objectIndex, let instance = instances[objectIndex] {
            guard let typed = instance as? T else {
                throw mismatch(T.self, .alreadyDecoded(index: objectIndex, type: "\(Swift.type(of: instance))"), path)
            }
            return typed
        }
        if let objectIndex, inProgress.contains(objectIndex) {
            throw corrupted(.cycle(index: objectIndex), path)
        }
        guard depth < options.limits.maxDepth else {
            throw corrupted(.tooDeep(maxDepth: options.limits.maxDepth), path)
        }
        depth += 1
        if let objectIndex { inProgress.insert(objectIndex) }
        defer {
            depth -= 1
            if let objectIndex { inProgress.remove(objectIndex) }
        }
        let decoded = try T(from: ArchiveValueDecoder(state: self, value: value, path: path))
        if let objectIndex, Swift.type(of: decoded) is AnyClass {
            instances[objectIndex] = decoded as AnyObject
        }
        return decoded
    }

    /// The members of a keyed container: an object's fields, or an `NSDictionary`'s entries.
    func keyedMembers(_ value: PFValue, _ path: PFCodingPath) throws -> OrderedDictionary<String, PFValue> {
        if case .dictionary(let inline) = value { return inline }
        guard let index = try index(value, path), case .dictionary(let object) = table.objects[index] else {
            throw mismatch([String: Any].self, .expected("an object or a dictionary"), path)
        }
        let objectPath: PFKeyPath = [.key("$objects"), .index(index)]
        let archivedClass: ArchivedClass
        do { archivedClass = try table.archivedClass(of: object, at: objectPath) } catch { throw corrupted(error, path) }
        guard KeyedGraph.FoundationClass.dictionaries.contains(archivedClass.name) else {
            var fields = object
            fields.removeValue(forKey: "$class")
            return fields
        }
        guard case .array(let keys)? = object["NS.keys"], case .array(let values)? = object["NS.objects"], keys.count == values.count
        else { throw corrupted(.dictionaryLengths(className: archivedClass.name), path) }
        var members = OrderedDictionary<String, PFValue>()
        for (key, member) in zip(keys, values) {
            guard case .string(let name) = try scalar(key, path) else {
                throw mismatch(String.self, .nonStringDictionaryKey, path)
            }
            members[KeyedArchiver.escape(name)] = member
        }
        return members
    }

    /// The elements of an unkeyed container.
    func unkeyedElements(_ value: PFValue, _ path: PFCodingPath) throws -> [PFValue] {
        if case .array(let inline) = value { return inline }
        guard let index = try index(value, path) else { throw mismatch([Any].self, .expected("an array", found: "nil"), path) }
        let unarchiver = KeyedUnarchiver(table: table, registry: ArchiveClassRegistry())
        do {
            return try unarchiver.elementIndices(at: index, expected: "NSArray").map { .uid(UInt64($0)) }
        } catch let error as PFError {
            throw mismatch([Any].self, error, path)
        }
    }
}

// MARK: - The decoder

struct ArchiveValueDecoder: Decoder {
    let state: ArchiveDecodingState
    let value: PFValue
    let path: PFCodingPath
    var codingPath: [any CodingKey] { path.keyPath.codingKeys }
    var userInfo: [CodingUserInfoKey: Any] { [KeyedArchiveDecoder.classVersionsKey: state.classVersions] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(ArchiveKeyedDecodingContainer<Key>(state: state, members: try state.keyedMembers(value, path), path: path))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        ArchiveUnkeyedDecodingContainer(state: state, elements: try state.unkeyedElements(value, path), path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        ArchiveSingleValueDecodingContainer(state: state, value: value, path: path)
    }
}

/// Numbers, with narrowing checked.
func archiveNumber<T: BinaryInteger>(_ type: T.Type, _ value: KeyedGraph.Value, state: ArchiveDecodingState, path: PFCodingPath) throws -> T {
    let result: T?
    switch value {
    case .int(let i): result = T(exactly: i)
    case .uint(let u): result = T(exactly: u)
    case .double(let d): result = d.isFinite ? T(exactly: d) : nil
    case .bool(let b): result = b ? 1 : 0
    default: throw state.mismatch(T.self, .expected("a number", found: "\(value)"), path)
    }
    guard let result else { throw state.mismatch(T.self, .doesNotFit("\(value)", type: "\(T.self)"), path) }
    return result
}

func archiveDouble(_ value: KeyedGraph.Value, state: ArchiveDecodingState, path: PFCodingPath) throws -> Double {
    switch value {
    case .double(let d): return d
    case .int(let i): return Double(i)
    case .uint(let u): return Double(u)
    default: throw state.mismatch(Double.self, .expected("a number", found: "\(value)"), path)
    }
}

func archiveBool(_ value: KeyedGraph.Value, state: ArchiveDecodingState, path: PFCodingPath) throws -> Bool {
    switch value {
    case .bool(let b): return b
    case .int(0): return false
    case .int(1): return true
    default: throw state.mismatch(Bool.self, .expected("a boolean", found: "\(value)"), path)
    }
}

struct ArchiveKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let state: ArchiveDecodingState
    let members: OrderedDictionary<String, PFValue>
    let path: PFCodingPath
    var codingPath: [any CodingKey] { path.keyPath.codingKeys }
    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: KeyedGraph.unescape($0)) } }

    func contains(_ key: Key) -> Bool { members[KeyedArchiver.escape(key.stringValue)] != nil }

    func member(_ key: Key) throws -> PFValue {
        guard let value = members[KeyedArchiver.escape(key.stringValue)] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No value for key \"\(key.stringValue)\"."))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { state.isNil(try member(key)) }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        let p = path.appending(key: key.stringValue)
        return try archiveBool(state.scalar(try member(key), p), state: state, path: p)
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        let p = path.appending(key: key.stringValue)
        return try archiveDouble(state.scalar(try member(key), p), state: state, path: p)
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try decode(Double.self, forKey: key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }

    func integer<T: BinaryInteger>(_ type: T.Type, _ key: Key) throws -> T {
        let p = path.appending(key: key.stringValue)
        return try archiveNumber(type, state.scalar(try member(key), p), state: state, path: p)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let value = try member(key)
        let p = path.appending(key: key.stringValue)
        if state.isNil(value) {
            throw DecodingError.valueNotFound(T.self, .init(codingPath: p.keyPath.codingKeys, debugDescription: "Value is nil."))
        }
        return try state.decode(type, from: value, path: p)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let p = path.appending(key: key.stringValue)
        return KeyedDecodingContainer(ArchiveKeyedDecodingContainer<NestedKey>(state: state, members: try state.keyedMembers(try member(key), p), path: p))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let p = path.appending(key: key.stringValue)
        return ArchiveUnkeyedDecodingContainer(state: state, elements: try state.unkeyedElements(try member(key), p), path: p)
    }

    func superDecoder() throws -> any Decoder {
        ArchiveValueDecoder(state: state, value: members["super"] ?? .null, path: path.appending(key: "super"))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ArchiveValueDecoder(state: state, value: try member(key), path: path.appending(key: key.stringValue))
    }
}

struct ArchiveUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let state: ArchiveDecodingState
    let elements: [PFValue]
    let path: PFCodingPath
    var currentIndex = 0
    var codingPath: [any CodingKey] { path.keyPath.codingKeys }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    init(state: ArchiveDecodingState, elements: [PFValue], path: PFCodingPath) {
        self.state = state
        self.elements = elements
        self.path = path
    }

    mutating func next() throws -> (PFValue, PFCodingPath) {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "Unkeyed container is at end."))
        }
        defer { currentIndex += 1 }
        return (elements[currentIndex], path.appending(index: currentIndex))
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { return false }
        if state.isNil(elements[currentIndex]) {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        let (value, p) = try next()
        return try archiveBool(state.scalar(value, p), state: state, path: p)
    }

    mutating func decode(_ type: Double.Type) throws -> Double {
        let (value, p) = try next()
        return try archiveDouble(state.scalar(value, p), state: state, path: p)
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, p) = try next()
        if let integerType = T.self as? any BinaryInteger.Type {
            return try archiveNumber(integerType, state.scalar(value, p), state: state, path: p) as! T
        }
        if T.self == Float.self { return Float(try archiveDouble(state.scalar(value, p), state: state, path: p)) as! T }
        if T.self == Double.self { return try archiveDouble(state.scalar(value, p), state: state, path: p) as! T }
        if T.self == Bool.self { return try archiveBool(state.scalar(value, p), state: state, path: p) as! T }
        return try state.decode(type, from: value, path: p)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (value, p) = try next()
        return KeyedDecodingContainer(ArchiveKeyedDecodingContainer<NestedKey>(state: state, members: try state.keyedMembers(value, p), path: p))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, p) = try next()
        return ArchiveUnkeyedDecodingContainer(state: state, elements: try state.unkeyedElements(value, p), path: p)
    }

    mutating func superDecoder() throws -> any Decoder {
        let (value, p) = try next()
        return ArchiveValueDecoder(state: state, value: value, path: p)
    }
}

struct ArchiveSingleValueDecodingContainer: SingleValueDecodingContainer {
    let state: ArchiveDecodingState
    let value: PFValue
    let path: PFCodingPath
    var codingPath: [any CodingKey] { path.keyPath.codingKeys }

    func decodeNil() -> Bool { state.isNil(value) }

    func decode(_ type: Bool.Type) throws -> Bool { try archiveBool(state.scalar(value, path), state: state, path: path) }
    func decode(_ type: Double.Type) throws -> Double { try archiveDouble(state.scalar(value, path), state: state, path: path) }
    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let integerType = T.self as? any BinaryInteger.Type {
            return try archiveNumber(integerType, state.scalar(value, path), state: state, path: path) as! T
        }
        if T.self == Double.self { return try decode(Double.self) as! T }
        if T.self == Float.self { return try decode(Float.self) as! T }
        if T.self == Bool.self { return try decode(Bool.self) as! T }
        return try state.decode(type, from: value, path: path)
    }
}
