import Foundation
import OrderedCollections
import PFCore
import PFSerialization

/// Archives a graph of ``ArchiveRepresentable`` values into an NSKeyedArchiver archive that
/// Foundation's `NSKeyedUnarchiver` (and plistlib, nska-deserialize, …) can read.
///
/// ```swift
/// let data = try KeyedArchiver.archivedData(withRootObject: employee)
/// ```
///
/// Each class instance gets one slot however often it is encoded, so shared references and
/// cycles survive. Objects are written from a work list rather than by recursion, so a long
/// chain (a linked list of a million nodes) archives without exhausting the stack.
public final class KeyedArchiver {
    /// How to archive.
    public struct Options: Sendable {
        /// The container to write the object table in.
        public var container: KeyedArchiveContainer
        /// The most objects one archive may hold.
        public var maxObjects: Int

        /// Makes archiving options.
        public init(container: KeyedArchiveContainer = .bplist, maxObjects: Int = PFLimits.default.maxNodes) {
            self.container = container
            self.maxObjects = maxObjects
        }
    }

    /// The object being written: its slot, its fields so far, and the next generic key.
    struct Frame {
        var uid: UInt64
        var fields = OrderedDictionary<String, PFValue>()
        var nextGenericKey = 0
        /// The archived class name, for the path (built only when an error or a caller asks).
        var className: String
        /// The object being written, when an ``edgePolicy`` needs to see it.
        var owner: KeyedArchiver.EdgeEnd?
        /// The key being encoded, for the ``edgePolicy``: references met while a collection
        /// is written belong to the field that holds the collection.
        var currentKey: String?

        /// The path names the object by its slot, not by the chain that led to it: objects
        /// are written from a work list, so a chain-shaped path would grow with the graph (a
        /// 100,000-node list made a 100,000-node path whose release overflowed the stack).
        var path: PFCodingPath { PFCodingPath.root.appending(key: "\(className)#\(uid)") }
    }

    /// An object whose slot is reserved and whose fields are still to be written.
    struct QueuedObject {
        var uid: UInt64
        var value: any ArchiveCoding
    }

    let options: Options
    var builder: ObjectTableBuilder
    var identities: [ObjectIdentifier: UInt64] = [:]
    /// Archived instances, kept alive so no `ObjectIdentifier` is reused while archiving.
    var retained: [AnyObject] = []
    var frames: [Frame] = []
    var queue: [QueuedObject] = []
    /// The `$class` reference of each archived dynamic type, so the class is looked up (and
    /// its `ArchivedClass` built and hashed) once per type rather than once per object.
    var classUIDsByType: [ObjectIdentifier: UInt64] = [:]
    /// Per type: whether it is a class (see ``isClass(_:)``).
    var classTypes: [ObjectIdentifier: Bool] = [:]
    var conditionals: [(uid: UInt64, key: String, object: ObjectIdentifier)] = []

    // MARK: Edge policy

    /// Decides, reference by reference, what is written for an edge from one object to
    /// another; `nil` (the default) writes every reference. PFGraphCopy's copy profiles
    /// implement it, so a pasteboard and a persistence archive of one graph differ only in
    /// the policy. With a policy set, objects are written breadth-first, so the policy sees
    /// each object first along a shortest path from the root.
    public var edgePolicy: (any KeyedArchiverEdgePolicy)?
    /// Objects written as placeholders by ``EdgeAction/external``, by their UID.
    public private(set) var externalObjects: [UInt64: any ArchiveCoding] = [:]
    var externalIdentities: [ObjectIdentifier: UInt64] = [:]
    /// Placeholder references (omitted or conditional edges), resolved in ``finishedTable()``.
    var placeholders: [PlaceholderTarget] = []
    var queueHead = 0

    enum PlaceholderTarget {
        case omitted
        case conditional(ObjectIdentifier)
    }

    /// Placeholder UIDs live far above any real slot (tables are bounded by `maxObjects`).
    static let placeholderBase: UInt64 = 1 << 62

    /// Makes an archiver; encode top-level values with `encode(_:forKey:)`, then call
    /// ``finishEncoding()``.
    public init(options: Options = Options()) {
        self.options = options
        builder = ObjectTableBuilder(maxObjects: options.maxObjects)
    }

    /// Archives a root object under `$top.root` and returns the archive's bytes.
    /// - Parameters:
    ///   - root: the object (or value) to archive.
    ///   - options: container and limits.
    /// - Throws: ``PFError`` from the table or the container writer, or any error an
    ///   ``ArchiveCoding/encode(with:)`` throws.
    public static func archivedData(withRootObject root: some ArchiveRepresentable, options: Options = Options()) throws
        -> Data
    {
        let archiver = KeyedArchiver(options: options)
        try archiver.encode(root, forKey: KeyedObjectTable.rootKey)
        return try archiver.finishEncoding()
    }

    /// Completes the archive and returns its bytes in the configured container.
    /// - Throws: ``PFError`` from the container writer.
    public func finishEncoding() throws -> Data {
        try KeyedArchive.write(finishedTable(), container: options.container)
    }

    /// Completes the archive and returns its object table.
    public func finishedTable() throws -> KeyedObjectTable {
        try drain()
        resolvePlaceholders()
        // A conditional object is kept only if something encoded it unconditionally.
        for (uid, key, object) in conditionals {
            guard case .dictionary(var fields) = builder.objects[Int(uid)] else { continue }
            fields[key] = .uid(identities[object] ?? 0)
            builder.replace(uid, with: .dictionary(fields))
        }
        conditionals.removeAll()
        return builder.table
    }

    /// The slot an instance was written to, if it was (for a caller mapping originals to
    /// what an unarchiver makes of them).
    public func uid(of object: AnyObject) -> UInt64? { identities[ObjectIdentifier(object)] }

    /// The slot of the instance with this identifier, if it was written (the archiver keeps
    /// every written instance alive, so the identifier cannot have been reused).
    public func uid(ofIdentifier id: ObjectIdentifier) -> UInt64? { identities[id] }

    /// The path of the value being written, for errors.
    public var codingPath: PFKeyPath { frames.last?.path.keyPath ?? .root }

    // MARK: - Fields

    func set(_ value: PFValue, forKey key: String) {
        precondition(!frames.isEmpty, "Scalars can only be encoded inside an object's encode(with:).")
        frames[frames.count - 1].fields[Self.escape(key)] = value
    }

    /// Escapes caller keys that begin with `$` (`$x` → `$$x`), as NSKeyedArchiver does.
    /// (The byte test rejects nearly every key before the Character-based `hasPrefix`.)
    static func escape(_ key: String) -> String {
        key.utf8.first == UInt8(ascii: "$") && key.hasPrefix("$") ? "$" + key : key
    }

    /// Encodes a boolean in place.
    public func encode(_ value: Bool, forKey key: String) { set(.bool(value), forKey: key) }
    /// Encodes an integer in place.
    public func encode(_ value: Int, forKey key: String) { set(.int(Int64(value)), forKey: key) }
    /// Encodes an integer in place.
    public func encode(_ value: Int32, forKey key: String) { set(.int(Int64(value)), forKey: key) }
    /// Encodes an integer in place.
    public func encode(_ value: Int64, forKey key: String) { set(.int(value), forKey: key) }
    /// Encodes an unsigned integer in place.
    public func encode(_ value: UInt64, forKey key: String) { set(PFValue.integer(value) ?? .uint(value), forKey: key) }
    /// Encodes a double in place.
    public func encode(_ value: Double, forKey key: String) { set(.double(value), forKey: key) }
    /// Encodes a float in place (widened to double, as NSKeyedArchiver stores it).
    public func encode(_ value: Float, forKey key: String) { set(.double(Double(value)), forKey: key) }
    /// Encodes bytes in place (`encodeBytes(_:length:forKey:)`).
    public func encodeBytes(_ value: Data, forKey key: String) { set(.data(value), forKey: key) }

    /// Encodes a value or object by reference; `nil` is written as `$null`.
    /// At the top level (outside any `encode(with:)`), the value becomes a `$top` entry.
    /// - Throws: ``PFError`` `limitExceeded` past `maxObjects`, or what the value throws.
    public func encode<T: ArchiveRepresentable>(_ value: T?, forKey key: String) throws {
        if let edgePolicy, !frames.isEmpty, let owner = frames[frames.count - 1].owner {
            switch try edgePolicy.archiver(self, attributeActionForKey: key, of: owner) {
            case .keep: break
            case .omit: return
            case .replace(let replacement):
                set(.uid(try replacement.archiveReference(in: self)), forKey: key)
                return
            }
            frames[frames.count - 1].currentKey = key
        }
        let uid = try value.map { try $0.archiveReference(in: self) } ?? 0
        if frames.isEmpty {
            builder.top[key] = uid
            try drain()
        } else {
            set(.uid(uid), forKey: key)
        }
    }

    /// Encodes an object only if something else in the archive encodes it unconditionally;
    /// otherwise the field is `$null` (NSCoder's conditional objects).
    public func encodeConditional<T: ArchiveCoding & AnyObject>(_ object: T?, forKey key: String) {
        guard let object else { set(.uid(0), forKey: key); return }
        precondition(!frames.isEmpty, "Conditional objects can only be encoded inside an object's encode(with:).")
        let uid = frames[frames.count - 1].uid
        set(.uid(0), forKey: key)
        conditionals.append((uid, Self.escape(key), ObjectIdentifier(object)))
    }

    /// Encodes a value without a key, under the next generic key (`$0`, `$1`, …), as unkeyed
    /// `encode(_:)` does inside a keyed archive.
    public func encode<T: ArchiveRepresentable>(_ value: T?) throws {
        precondition(!frames.isEmpty, "Unkeyed values can only be encoded inside an object's encode(with:).")
        let key = "$\(frames[frames.count - 1].nextGenericKey)"
        frames[frames.count - 1].nextGenericKey += 1
        if edgePolicy != nil { frames[frames.count - 1].currentKey = key }
        let uid = try value.map { try $0.archiveReference(in: self) } ?? 0
        frames[frames.count - 1].fields[key] = .uid(uid)
    }

    // MARK: - Objects

    /// The reference for an ``ArchiveCoding`` value: the instance's existing slot, or a new
    /// slot whose contents are written from the work list.
    func reference<T: ArchiveCoding>(forObject value: T) throws -> UInt64 {
        var identity: ObjectIdentifier?
        if isClass(T.self) {
            // T is a class type (a generic parameter is always a concrete type here), so a
            // value of it is exactly one strong object reference and reinterpreting it as
            // AnyObject is sound; `value as AnyObject` went through the runtime's general
            // bridging cast for every object (a fifth of the archiving time).
            let instance = unsafeBitCast(value, to: AnyObject.self)
            let id = ObjectIdentifier(instance)
            if let edgePolicy, let frame = frames.last, let owner = frame.owner, let key = frame.currentKey {
                let target = EdgeEnd(object: value, identity: id, className: type(of: value).archiveClassName)
            switch try edgePolicy.archiver(self, actionForKey: key, from: owner, to: target) {
                case .encode: break
                case .omit: return placeholder(.omitted)
                case .conditional: return placeholder(.conditional(id))
                case .replace(let replacement): return try replacement.archiveReference(in: self)
                case .external: return try externalReference(value, id: id, instance: instance)
                }
            }
            if let uid = identities[id] { return uid }
            identity = id
            retained.append(instance)
        }
        let uid = try builder.reserve()
        if let identity { identities[identity] = uid }
        queue.append(QueuedObject(uid: uid, value: value))
        return uid
    }

    /// Whether `type` is a class, cached per type (the dynamic cast costs hundreds of
    /// instructions; the lookup a few dozen).
    @inline(__always)
    func isClass<T>(_ type: T.Type) -> Bool {
        let id = ObjectIdentifier(type)
        if let known = classTypes[id] { return known }
        let result = type is AnyClass
        classTypes[id] = result
        return result
    }

    func write<T: ArchiveCoding>(_ value: T, at uid: UInt64) throws {
        let dynamicType = type(of: value)
        var owner: EdgeEnd?
        if edgePolicy != nil {
            // The identity of a class instance, without a dynamic cast (see reference(forObject:)).
            let identity = isClass(T.self) ? ObjectIdentifier(unsafeBitCast(value, to: AnyObject.self)) : nil
            owner = EdgeEnd(object: value, identity: identity, className: dynamicType.archiveClassName)
        }
        frames.append(Frame(uid: uid, className: dynamicType.archiveClassName, owner: owner))
        do {
            try value.encode(with: self)
        } catch {
            frames.removeLast()
            throw error
        }
        let frame = frames.removeLast()
        let typeID = ObjectIdentifier(dynamicType)
        let classUID: UInt64
        if let known = classUIDsByType[typeID] {
            classUID = known
        } else {
            // The class dictionary carries the type's name, chain and version.
            classUID = try builder.classReference(dynamicType.archivedClass)
            classUIDsByType[typeID] = classUID
        }
        builder.fill(uid, with: frame.fields, classUID: classUID)
    }

    /// Writes queued objects until none is left: the iterative heart of archiving.
    func drain() throws {
        guard frames.isEmpty else { return }
        if edgePolicy != nil {
            // Breadth-first, so a policy meets every object first at its shortest distance.
            while queueHead < queue.count {
                let item = queue[queueHead]
                queueHead += 1
                try write(item.value, at: item.uid)
            }
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
            return
        }
        while !queue.isEmpty {
            let item = queue.removeLast()
            try write(item.value, at: item.uid)
        }
    }

    // MARK: - Edge policy support

    func placeholder(_ target: PlaceholderTarget) -> UInt64 {
        placeholders.append(target)
        return Self.placeholderBase + UInt64(placeholders.count - 1)
    }

    /// An object written as an empty placeholder of its class, once per instance, for a
    /// caller that substitutes the original when unarchiving (a copy's shared edges).
    func externalReference<T: ArchiveCoding>(_ value: T, id: ObjectIdentifier, instance: AnyObject) throws -> UInt64 {
        if let uid = externalIdentities[id] { return uid }
        let uid = try builder.reserve()
        retained.append(instance)
        externalIdentities[id] = uid
        externalObjects[uid] = value
        builder.fill(uid, with: [:], classUID: try builder.classReference(T.archivedClass))
        return uid
    }

    /// Replaces placeholder references: an omitted edge, or a conditional one whose target
    /// was never written, becomes `$null` in a field and disappears from a collection (with
    /// its key, in a dictionary); a conditional edge whose target was written points at it.
    func resolvePlaceholders() {
        guard !placeholders.isEmpty else { return }
        func resolve(_ uid: UInt64) -> UInt64? {
            guard uid >= Self.placeholderBase else { return uid }
            let index = Int(uid - Self.placeholderBase)
            guard placeholders.indices.contains(index) else { return nil }
            switch placeholders[index] {
            case .omitted: return nil
            case .conditional(let object): return identities[object]
            }
        }
        for index in builder.objects.indices {
            guard case .dictionary(var fields) = builder.objects[index] else { continue }
            var changed = false
            // Parallel arrays (NS.keys / NS.objects) lose the same positions.
            var dropped = Set<Int>()
            for (key, value) in fields {
                if case .uid(let uid) = value, uid >= Self.placeholderBase {
                    fields[key] = .uid(resolve(uid) ?? 0)
                    changed = true
                } else if case .array(let items) = value {
                    for (i, item) in items.enumerated() {
                        if case .uid(let uid) = item, uid >= Self.placeholderBase, resolve(uid) == nil { dropped.insert(i) }
                    }
                }
            }
            for (key, value) in fields {
                guard case .array(let items) = value,
                    items.contains(where: { if case .uid(let u) = $0 { u >= Self.placeholderBase } else { false } })
                else { continue }
                var kept: [PFValue] = []
                for (i, item) in items.enumerated() where !dropped.contains(i) {
                    if case .uid(let uid) = item { kept.append(.uid(resolve(uid) ?? 0)) } else { kept.append(item) }
                }
                fields[key] = .array(kept)
                changed = true
            }
            if !dropped.isEmpty {
                // The parallel array without placeholders (NS.keys of a dictionary whose
                // values were dropped) loses the same positions.
                for (key, value) in fields {
                    guard case .array(let items) = value, items.count > 0,
                        !items.contains(where: { if case .uid(let u) = $0 { u >= Self.placeholderBase } else { false } }),
                        key == "NS.keys"
                    else { continue }
                    fields[key] = .array(items.enumerated().filter { !dropped.contains($0.offset) }.map(\.element))
                }
            }
            if changed { builder.replace(UInt64(index), with: .dictionary(fields)) }
        }
        placeholders.removeAll()
    }

    /// Writes a Foundation-style object (a collection, `NSDate`, `NSUUID`, …) directly.
    func writeFoundationObject(_ className: String, fields: OrderedDictionary<String, PFValue>) throws -> UInt64 {
        let uid = try builder.reserve()
        builder.fill(uid, with: fields, classUID: try builder.foundationClassReference(className))
        return uid
    }
}

extension ObjectTableBuilder {
    /// Replaces an entry (used to resolve conditional objects once the archive is complete).
    mutating func replace(_ uid: UInt64, with value: PFValue) {
        setObject(value, at: Int(uid))
    }
}

/// Decides what a ``KeyedArchiver`` writes for each field and each object reference of the
/// object being encoded: the hook through which a copy profile (PFGraphCopy) shapes an
/// archive. Set it as ``KeyedArchiver/edgePolicy``.
public protocol KeyedArchiverEdgePolicy: AnyObject {
    /// What to write for a reference from `owner`'s field `key` to the object `target` (for a
    /// collection, once per element).
    /// - Throws: any error, which ends archiving (a depth limit set to fail, say).
    func archiver(
        _ archiver: KeyedArchiver, actionForKey key: String, from owner: KeyedArchiver.EdgeEnd, to target: KeyedArchiver.EdgeEnd
    ) throws -> KeyedArchiver.EdgeAction
    /// What to write for `owner`'s field `key`, asked before the value is encoded (scalars
    /// written in place are not asked).
    /// - Throws: any error, which ends archiving.
    func archiver(_ archiver: KeyedArchiver, attributeActionForKey key: String, of owner: KeyedArchiver.EdgeEnd)
        throws -> KeyedArchiver.AttributeAction
}

extension KeyedArchiver {
    /// One end of an edge, as an ``KeyedArchiverEdgePolicy`` sees it.
    public struct EdgeEnd {
        /// The object (or value) being encoded.
        public let object: any ArchiveCoding
        /// Its identity when it is a class instance; `nil` for a value (a struct).
        public let identity: ObjectIdentifier?
        /// Its archived class name.
        public let className: String
    }

    /// What an ``KeyedArchiverEdgePolicy`` decides for one object reference.
    public enum EdgeAction: Sendable {
        /// Write the object (once; later references share it).
        case encode
        /// Write `$null` in a field; leave the element out of a collection.
        case omit
        /// Point at the object only if it is written through another edge (NSCoder's
        /// conditional objects); otherwise as ``omit``.
        case conditional
        /// Write this value instead of the object (an identity, such as a Parse Pointer).
        case replace(PFValue)
        /// Write an empty placeholder of the object's class, listed in
        /// ``KeyedArchiver/externalObjects`` so an unarchiver can substitute the original
        /// (``KeyedUnarchiver/substitute(_:forUID:)``).
        case external
    }

    /// What an ``KeyedArchiverEdgePolicy`` decides for one field.
    public enum AttributeAction: Sendable {
        /// Encode the field's value.
        case keep
        /// Leave the field out (decoding sees no value: the type's default).
        case omit
        /// Encode this value instead.
        case replace(PFValue)
    }
}
