import Foundation
import OrderedCollections
import PFCore

/// Decodes a keyed archive into Swift values with secure decoding: only classes in the
/// ``ArchiveClassRegistry`` are instantiated, and the type is checked at every use.
///
/// ```swift
/// let registry = ArchiveClassRegistry([Employee.self, Department.self])
/// let boss = try KeyedUnarchiver.unarchivedObject(ofType: Employee.self, from: data, registry: registry)
/// ```
///
/// Decoding is two-phase. Phase one runs ``ArchiveCoding/init(from:)`` for each object as it
/// is first needed; a reference to an object still being built (a cycle) is an error there,
/// and is decoded instead with ``decodeReference(_:forKey:assign:)``, whose closure runs in
/// phase two, once every object exists. Then ``ArchiveCoding/archiveDidDecode()`` runs on
/// each class instance, in decoding order.
public final class KeyedUnarchiver {
    /// How to decode.
    public struct Options: Sendable {
        /// Budgets: `maxDepth` bounds nested `init(from:)` calls.
        public var limits: PFLimits

        /// Makes decoding options.
        public init(limits: PFLimits = .default) { self.limits = limits }
    }

    struct Frame {
        var index: Int
        var object: OrderedDictionary<String, PFValue>
        var path: PFCodingPath
        var nextGenericKey = 0
    }

    /// The archive's object table.
    public let table: KeyedObjectTable
    /// The classes that may be instantiated.
    public let registry: ArchiveClassRegistry
    let options: Options
    /// Values decoded so far, by object index, so each object is decoded once (class
    /// instances keep their identity; values are reused).
    var cache: [Int: Any] = [:]
    var inProgress: Set<Int> = []
    var frames: [Frame] = []
    var deferred: [() throws -> Void] = []
    var decodedInstances: [any ArchiveCoding] = []
    var cachedVersions: [String: Int]?

    /// Makes an unarchiver over a validated table.
    public init(table: KeyedObjectTable, registry: ArchiveClassRegistry, options: Options = Options()) {
        self.table = table
        self.registry = registry
        self.options = options
    }

    /// Decodes the root object of an archive.
    /// - Parameters:
    ///   - type: the expected type of the root.
    ///   - data: the archive, in any container (bplist, XML plist, JSON, CBOR; compressed or not).
    ///   - registry: the classes that may be instantiated.
    ///   - options: limits.
    /// - Throws: ``PFError`` — `invalidValue` for a malformed archive or a type mismatch,
    ///   `disallowed` for a class outside the registry, `limitExceeded` for budgets — or
    ///   any error thrown by an ``ArchiveCoding/init(from:)``.
    public static func unarchivedObject<T: ArchiveRepresentable>(
        ofType type: T.Type, from data: Data, registry: ArchiveClassRegistry = ArchiveClassRegistry(),
        options: Options = Options()
    ) throws -> T {
        let table = try KeyedArchive.readTable(data, limits: options.limits).table
        let unarchiver = KeyedUnarchiver(table: table, registry: registry, options: options)
        return try unarchiver.decodeTopLevel(type, forKey: KeyedObjectTable.rootKey)
    }

    /// Decodes one `$top` entry and completes the graph (deferred references, then the
    /// decode hooks).
    /// - Throws: ``PFError`` `invalidValue` when `$top` has no such key.
    public func decodeTopLevel<T: ArchiveRepresentable>(_ type: T.Type, forKey key: String) throws -> T {
        guard let uid = table.top[key] else {
            throw PFError(KeyedArchiveFailure.noTopKey(key, keys: Array(table.top.keys)), format: .keyedArchive, path: [.key("$top")])
        }
        let path = PFCodingPath.root.appending(key: "$top").appending(key: key)
        guard uid != 0 else {
            throw PFError(KeyedArchiveFailure.topNil(key: key, type: "\(T.self)"), format: .keyedArchive, path: path.keyPath)
        }
        let index = try table.index(of: uid, at: path.keyPath)
        let value = try decodeObject(T.self, at: index)
        try finish()
        return value
    }

    /// Runs deferred references until none is left, then every decode hook.
    func finish() throws {
        while !deferred.isEmpty {
            let batch = deferred
            deferred = []
            for assign in batch { try assign() }
        }
        for instance in decodedInstances { try instance.archiveDidDecode() }
        decodedInstances.removeAll()
    }

    // MARK: - Versions

    /// The version the archive records for a class (`-[NSCoder versionForClassName:]`): the
    /// number the writer's ``ArchiveVersioned/archiveVersion`` had, not this build's.
    /// - Parameter name: the archived class name.
    /// - Returns: the recorded `$classversion`, 0 for a class the archive names without a
    ///   version (archives written by Foundation), or `nil` when no class of that name is in
    ///   the archive.
    public func version(forClassName name: String) -> Int? {
        classVersions[name]
    }

    /// Every class the archive names, with its recorded version (0 when none is recorded).
    public var classVersions: [String: Int] {
        if let cachedVersions { return cachedVersions }
        let versions = table.classVersions
        cachedVersions = versions
        return versions
    }

    // MARK: - Paths and errors

    /// The path of the field being decoded: `Employee#3.manager`.
    public var codingPath: PFKeyPath { frames.last?.path.keyPath ?? .root }

    func error(_ failure: KeyedArchiveFailure, key: String? = nil) -> PFError {
        var path = frames.last?.path ?? .root
        if let key { path = path.appending(key: key) }
        return PFError(failure, format: .keyedArchive, path: path.keyPath)
    }

    /// The error for a value of the wrong type, naming what was expected and what was found.
    public func typeMismatch(expected: String, found: String, key: String? = nil) -> PFError {
        error(.expected(expected, found: found), key: key)
    }

    // MARK: - Fields

    func field(_ key: String) -> PFValue? {
        frames.last?.object[KeyedArchiver.escape(key)]
    }

    /// Whether the object being decoded has a value for a key (nil counts as a value).
    public func containsValue(forKey key: String) -> Bool { field(key) != nil }

    /// Decodes a required value: present and not nil.
    /// - Throws: ``PFError`` `invalidValue` naming the key path when the key is missing, the
    ///   value is nil or of another type; `disallowed` for a class outside the registry.
    public func decode<T: ArchiveRepresentable>(_ type: T.Type, forKey key: String) throws -> T {
        guard let value = try decodeIfPresent(type, forKey: key) else {
            if containsValue(forKey: key) { throw error(.valueNil(type: "\(T.self)"), key: key) }
            throw error(.noValue(key: key, type: "\(T.self)"), key: key)
        }
        return value
    }

    /// Decodes an optional value: `nil` when the key is missing or holds `$null`.
    /// - Throws: ``PFError`` as ``decode(_:forKey:)`` for values that are present.
    public func decodeIfPresent<T: ArchiveRepresentable>(_ type: T.Type, forKey key: String) throws -> T? {
        guard let value = field(key) else { return nil }
        return try decodeField(value, as: type, key: key)
    }

    /// Decodes the next unkeyed value (`$0`, `$1`, …).
    public func decodeNext<T: ArchiveRepresentable>(_ type: T.Type) throws -> T? {
        guard !frames.isEmpty else { throw error(.unkeyedOutsideObject) }
        let key = "$\(frames[frames.count - 1].nextGenericKey)"
        frames[frames.count - 1].nextGenericKey += 1
        guard let value = frames.last?.object[key] else { return nil }
        return try decodeField(value, as: type, key: key)
    }

    /// Decodes bytes stored in place (`encodeBytes`).
    public func decodeBytes(forKey key: String) throws -> Data? {
        guard let value = field(key) else { return nil }
        guard case .data(let bytes) = value else { throw typeMismatch(expected: "bytes", found: value.kind.rawValue, key: key) }
        return bytes
    }

    /// Decodes a reference after every object exists: `assign` runs in phase two with the
    /// fully built object (or `nil`). Use it for back-pointers and cycles, and for long chains
    /// that would otherwise nest `init(from:)` calls deeply.
    /// - Throws: ``PFError`` when the field is present but not a reference.
    public func decodeReference<T: ArchiveRepresentable>(
        _ type: T.Type, forKey key: String, assign: @escaping (T?) throws -> Void
    ) throws {
        guard let value = field(key) else { return try assign(nil) }
        guard case .uid(let uid) = value else {
            throw typeMismatch(expected: "an object reference", found: value.kind.rawValue, key: key)
        }
        let path = (frames.last?.path ?? .root).appending(key: key)
        deferred.append { [unowned self] in
            guard uid != 0 else { return try assign(nil) }
            let index = try self.table.index(of: uid, at: path.keyPath)
            try assign(try self.decodeObject(T.self, at: index))
        }
    }

    func decodeField<T: ArchiveRepresentable>(_ value: PFValue, as type: T.Type, key: String) throws -> T? {
        switch value {
        case .uid(let uid):
            guard uid != 0 else { return nil }
            let index = try table.index(of: uid, at: ((frames.last?.path ?? .root).appending(key: key)).keyPath)
            return try decodeObject(type, at: index)
        default:
            return try T.unarchive(from: self, inlineValue: value)
        }
    }

    /// Makes the object with `uid` decode as an existing instance, without calling its
    /// ``ArchiveCoding/init(from:)``: how a copy keeps an edge pointing at an original
    /// (see ``KeyedArchiver/EdgeAction/external``).
    /// - Throws: ``PFError`` `invalidValue` when the UID is not in the table.
    public func substitute(_ object: any ArchiveCoding, forUID uid: UInt64) throws {
        let index = try table.index(of: uid, at: [.key("$objects")])
        cache[index] = object
    }

    /// The value already decoded for a UID, if any.
    public func decodedValue(forUID uid: UInt64) -> Any? {
        guard uid < UInt64(table.objects.count) else { return nil }
        return cache[Int(uid)]
    }

    // MARK: - Objects

    /// Decodes the object at a table index as `T`, from the cache when already decoded.
    public func decodeObject<T: ArchiveRepresentable>(_ type: T.Type, at index: Int) throws -> T {
        if index == 0 { throw typeMismatch(expected: "\(T.self)", found: "nil") }
        if let cached = cache[index] {
            if let value = cached as? T { return value }
            // A class instance keeps its identity: asking for it as another class is an error.
            // As a value (its tree, say) it is simply decoded again.
            if Swift.type(of: cached) is AnyClass, T.self is AnyClass {
                throw typeMismatch(expected: "\(T.self)", found: "\(Swift.type(of: cached)) (object \(index))")
            }
        }
        let value = try T.unarchive(from: self, objectAt: index)
        // The instance takes the place of a value decoded first (a generated model reads an
        // object as a tree under one key and as its class under another): every later
        // reference must get this instance. (Cached under the value, each reference made a
        // new instance, whose own references made new ones: two views pointing at each other
        // in a real nib never finished decoding, memory growing without bound.)
        if let cached = cache[index] {
            if !(Swift.type(of: cached) is AnyClass), Swift.type(of: value) is AnyClass { cache[index] = value }
        } else {
            cache[index] = value
        }
        return value
    }

    /// The object dictionary at an index, with its class.
    public func objectDictionary(at index: Int) throws -> (fields: OrderedDictionary<String, PFValue>, archivedClass: ArchivedClass)? {
        guard case .dictionary(let object) = table.objects[index] else { return nil }
        return (object, try table.archivedClass(of: object, at: [.key("$objects"), .index(index)]))
    }

    /// Instantiates a registered class for the object at `index`: the secure-decoding gate.
    func instantiate<T: ArchiveCoding>(_ type: T.Type, at index: Int) throws -> T {
        let objectPath: PFKeyPath = [.key("$objects"), .index(index)]
        guard let (object, archivedClass) = try objectDictionary(at: index) else {
            throw typeMismatch(expected: T.archiveClassName, found: "\(table.objects[index].kind.rawValue) (object \(index))")
        }
        guard let registered = registry.type(forClassName: archivedClass.name) else {
            throw PFError(KeyedArchiveFailure.classNotRegistered(archivedClass.name), format: .keyedArchive, path: objectPath)
        }
        guard let concrete = registered as? T.Type else {
            throw typeMismatch(expected: T.archiveClassName, found: "\(archivedClass.name) (object \(index))")
        }
        guard !inProgress.contains(index) else {
            throw error(.selfReference(index: index, className: archivedClass.name))
        }
        guard frames.count < options.limits.maxDepth else {
            throw PFError(KeyedArchiveFailure.objectsTooDeep(maxDepth: options.limits.maxDepth), format: .keyedArchive, path: objectPath)
        }
        inProgress.insert(index)
        let parent = frames.last?.path ?? .root
        frames.append(Frame(index: index, object: object, path: parent.appending(key: "\(archivedClass.name)#\(index)")))
        defer {
            frames.removeLast()
            inProgress.remove(index)
        }
        let value = try concrete.init(from: self)
        if Swift.type(of: value) is AnyClass { decodedInstances.append(value) }
        return value
    }
}
