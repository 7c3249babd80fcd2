import Foundation
import OrderedCollections
import PFCore

extension KeyedGraph {
    /// How to turn an object table into a graph.
    public struct DecodingOptions: Sendable {
        /// Budgets: `maxDepth` bounds the nesting of references followed, `maxNodes` the
        /// number of collections and objects.
        public var limits: PFLimits
        /// The non-Foundation classes allowed to appear; `nil` allows any (they are kept as
        /// generic ``KeyedGraph/Object`` values and never instantiated).
        public var allowedClasses: Set<String>?

        /// Makes decoding options.
        public init(limits: PFLimits = .default, allowedClasses: Set<String>? = nil) {
            self.limits = limits
            self.allowedClasses = allowedClasses
        }
    }

    /// Decodes an object table into a graph.
    ///
    /// Each object is decoded once however often it is referenced, so shared sub-graphs
    /// (including an exponential "billion laughs" DAG) cost their size, not their expansion,
    /// and cycles are kept. The walk is iterative: a deep archive fails on `maxDepth`, never
    /// on the stack.
    /// - Parameters:
    ///   - table: a validated object table.
    ///   - options: limits and allowed classes.
    /// - Throws: ``PFError`` `invalidValue` naming the object (`$objects[N].key`) for a
    ///   malformed reference, class or Foundation object; `disallowed` for a class outside
    ///   `allowedClasses`; `limitExceeded` for depth or node budgets.
    public init(table: KeyedObjectTable, options: DecodingOptions = DecodingOptions()) throws(PFError) {
        var decoder = GraphDecoder(objects: table, store: GraphArena(), options: options)
        let top = try decoder.walk(table.topEntries)
        self.init(nodes: decoder.store.nodes, top: top)
    }
}

// MARK: - Where the walk reads objects and keeps nodes

/// Where a graph walk reads an archive's objects by number: the table in memory
/// (``KeyedObjectTable``), or a binary property list's `$objects` decoded on demand
/// (`BinaryPlistLazyArray`, ``KeyedArchive/readRecords(_:options:start:record:threshold:visit:)``).
protocol KeyedObjectSource {
    /// The number of objects, `$null` included.
    var objectCount: Int { get }
    /// Object `index` (below ``objectCount``).
    func object(at index: Int) throws(PFError) -> PFValue
    /// Whether the objects are in memory already, so that keeping one costs nothing
    /// (otherwise each is decoded when asked for, and a walk keeps a bounded number).
    var keepsObjects: Bool { get }
}

extension KeyedObjectTable: KeyedObjectSource {
    var objectCount: Int { objects.count }
    var keepsObjects: Bool { true }
    func object(at index: Int) -> PFValue { objects[index] }
}

/// What a graph walk keeps of the collections and objects (nodes) it reaches.
protocol GraphNodeStore {
    /// The nodes made so far, counted against ``PFLimits/maxNodes``.
    var count: Int { get }
    /// The value an object reached before stands for (noting one more reference to it), or
    /// `nil` the first time.
    mutating func revisit(_ object: Int) -> KeyedGraph.Value?
    /// Remembers the scalar a Foundation object in dictionary form stands for.
    mutating func remember(_ scalar: KeyedGraph.Value, for object: Int)
    /// A new node, for an object (`nil`: a container stored in place in an object's field).
    /// - Returns: the number ``KeyedGraph/Value/node(_:)`` names it by.
    mutating func add(object: Int?) -> Int
    /// The contents of node `slot`, once read.
    mutating func set(_ node: KeyedGraph.Node, at slot: Int)
}

/// The nodes of ``KeyedGraph/init(table:options:)``: an arena, in the order first met.
struct GraphArena: GraphNodeStore {
    var nodes: [KeyedGraph.Node] = []
    /// Object index → the value decoded for it, so every object is decoded once.
    var memo: [Int: KeyedGraph.Value] = [:]

    var count: Int { nodes.count }
    func revisit(_ object: Int) -> KeyedGraph.Value? { memo[object] }
    mutating func remember(_ scalar: KeyedGraph.Value, for object: Int) { memo[object] = scalar }

    mutating func add(object: Int?) -> Int {
        let slot = nodes.count
        nodes.append(.array(className: nil, items: []))
        if let object { memo[object] = .node(slot) }
        return slot
    }

    mutating func set(_ node: KeyedGraph.Node, at slot: Int) { nodes[slot] = node }
}

// MARK: - The walk

/// The iterative walk from `$top` behind ``KeyedGraph/init(table:options:)`` and
/// ``KeyedArchive/readRecords(_:options:start:record:threshold:visit:)``: it follows every reference once,
/// checking objects, classes and budgets in one order, and hands the nodes to its store.
struct GraphDecoder<Objects: KeyedObjectSource, Store: GraphNodeStore> {
    let objects: Objects
    var store: Store
    let options: KeyedGraph.DecodingOptions
    /// A class dictionary read: the class, and what its objects stand for.
    typealias ClassEntry = (archivedClass: ArchivedClass, kind: KeyedGraph.FoundationClass.Kind)
    /// Class dictionaries read, by reference: an archive has a few, searched in order (every
    /// object asks, and hashing its reference cost more), and any past those by hash.
    var classList: [(uid: UInt64, entry: ClassEntry)] = []
    var moreClasses: [UInt64: ClassEntry] = [:]
    /// Nodes whose slot exists but whose contents are still to be read.
    var pending: [Pending] = []
    /// From a source that does not keep its objects, the entries of `pending` that hold
    /// their object (at most ``heldBudget``, all at `heldFloor` or above): the others read
    /// it again when their node is filled.
    var held = 0
    var heldFloor = 0
    /// The most objects `pending` holds from a source that does not keep them: the newest,
    /// which are filled first (a record's own containers), not the oldest (the other
    /// records of a root array), so memory stays bounded whatever the array's length.
    static var heldBudget: Int { 8192 }

    /// A node to fill: where it goes, its object, and that object when it is held.
    struct Pending {
        var node: Int
        var object: Int
        var archivedClass: ArchivedClass
        var kind: KeyedGraph.FoundationClass.Kind
        var depth: Int
        var members: OrderedDictionary<String, PFValue>?
    }

    init(objects: Objects, store: Store, options: KeyedGraph.DecodingOptions) {
        self.objects = objects
        self.store = store
        self.options = options
    }

    /// Follows the references from `$top`, each entry's sub-graph in full before the next; an
    /// entry written in place (a top-level `encodeBool`) is that value.
    /// - Returns: the value of each entry.
    mutating func walk(_ top: OrderedDictionary<String, PFValue>) throws(PFError) -> OrderedDictionary<String, KeyedGraph.Value> {
        var values = OrderedDictionary<String, KeyedGraph.Value>()
        for (key, entry) in top {
            if case .uid(let uid) = entry {
                values[key] = try value(forUID: uid, depth: 1, at: [.key("$top"), .key(key)])
            } else {
                values[key] = try field(entry, depth: 0, inlineDepth: 0, at: [.key("$top"), .key(key)])
            }
            while let item = pending.popLast() {
                heldFloor = min(heldFloor, pending.count)
                let object: OrderedDictionary<String, PFValue>
                if let members = item.members {
                    object = members
                    if !objects.keepsObjects { held -= 1 }
                } else {
                    guard case .dictionary(let members) = try objects.object(at: item.object) else { continue }
                    object = members
                }
                let node = try fill(object, index: item.object, archivedClass: item.archivedClass, kind: item.kind, depth: item.depth)
                store.set(node, at: item.node)
            }
        }
        return values
    }

    /// Adds `item` to `pending`, holding its object within ``heldBudget`` (the oldest held
    /// one lets go of its object when the budget is spent).
    mutating func push(_ item: Pending) {
        guard !objects.keepsObjects else {
            pending.append(item)
            return
        }
        if held == Self.heldBudget {
            while pending[heldFloor].members == nil { heldFloor += 1 }
            pending[heldFloor].members = nil
            heldFloor += 1
            held -= 1
        }
        held += 1
        pending.append(item)
    }

    // MARK: - References

    func index(of uid: UInt64, at path: @autoclosure () -> PFKeyPath) throws(PFError) -> Int {
        guard uid < UInt64(objects.objectCount) else {
            throw KeyedObjectTable.invalid(.referenceOutOfRange(uid, objects: objects.objectCount), path())
        }
        return Int(uid)
    }

    /// The class of an object in dictionary form (``KeyedObjectTable/archivedClass(of:at:)``)
    /// and what its objects stand for, each class dictionary read once.
    mutating func archivedClass(of object: OrderedDictionary<String, PFValue>, at path: PFKeyPath) throws(PFError)
        -> ClassEntry
    {
        let objects = self.objects
        let read = { () throws(PFError) -> ClassEntry in
            let found = try KeyedObjectTable.archivedClass(of: object, at: path, objectCount: objects.objectCount) {
                i throws(PFError) in try objects.object(at: i)
            }
            return (found, KeyedGraph.FoundationClass.kind(of: found.name))
        }
        guard case .uid(let uid)? = object["$class"] else { return try read() }
        for known in classList where known.uid == uid { return known.entry }
        if let known = moreClasses[uid] { return known }
        let found = try read()
        if classList.count < 16 { classList.append((uid, found)) } else { moreClasses[uid] = found }
        return found
    }

    /// The value an object reference stands for, creating a node (to be filled later) for
    /// collections and objects the first time one is reached.
    mutating func value(forUID uid: UInt64, depth: Int, at path: @autoclosure () -> PFKeyPath) throws(PFError)
        -> KeyedGraph.Value
    {
        let index = try self.index(of: uid, at: path())
        if index == 0 { return .null }
        if let known = store.revisit(index) { return known }
        let objectPath: PFKeyPath = [.key("$objects"), .index(index)]
        let object = try objects.object(at: index)
        if let scalar = KeyedGraph.Value(scalar: object) { return scalar }
        guard case .dictionary(let members) = object else {
            throw KeyedObjectTable.invalid(.graphObjectKind(found: object.kind.rawValue), objectPath)
        }
        let (archivedClass, kind) = try archivedClass(of: members, at: objectPath)
        let objects = self.objects
        if let scalar = try KeyedObjectTable.foundationScalar(
            members, of: archivedClass, kind: kind, at: objectPath, objectCount: objects.objectCount, lookup: { i throws(PFError) in try objects.object(at: i) })
        {
            store.remember(scalar, for: index)
            return scalar
        }
        try check(archivedClass, at: objectPath)
        guard depth <= options.limits.maxDepth else {
            throw PFError(KeyedArchiveFailure.referencesTooDeep(maxDepth: options.limits.maxDepth), format: .keyedArchive, path: objectPath)
        }
        guard store.count < options.limits.maxNodes else {
            throw PFLimits.exceeded("maxNodes", options.limits.maxNodes, format: .keyedArchive)
        }
        let slot = store.add(object: index)
        push(Pending(node: slot, object: index, archivedClass: archivedClass, kind: kind, depth: depth, members: members))
        return .node(slot)
    }

    func check(_ archivedClass: ArchivedClass, at path: PFKeyPath) throws(PFError) {
        guard let allowed = options.allowedClasses else { return }
        let name = archivedClass.name
        guard KeyedGraph.FoundationClass.all.contains(name) || allowed.contains(name) else {
            throw PFError(KeyedArchiveFailure.classNotAllowed(name), format: .keyedArchive, path: path)
        }
    }

    // MARK: - Filling nodes

    /// The node of object `index` (a dictionary of class `archivedClass`, whose objects
    /// stand for `kind`), its references followed with ``value(forUID:depth:at:)``.
    mutating func fill(
        _ object: OrderedDictionary<String, PFValue>, index: Int, archivedClass: ArchivedClass,
        kind: KeyedGraph.FoundationClass.Kind, depth: Int
    ) throws(PFError) -> KeyedGraph.Node {
        let path: PFKeyPath = [.key("$objects"), .index(index)]
        let name = archivedClass.name
        switch kind {
        case .array:
            return .array(className: name, items: try references(object, "NS.objects", depth: depth, at: path))
        case .set:
            return .set(className: name, items: try references(object, "NS.objects", depth: depth, at: path))
        case .orderedSet:
            var items: [KeyedGraph.Value] = []
            var i = 0
            while let reference = object["NS.object.\(i)"] {
                items.append(try self.reference(reference, depth: depth, at: path.appending(key: "NS.object.\(i)")))
                i += 1
            }
            return .orderedSet(className: name, items: items)
        case .dictionary:
            let keys = try references(object, "NS.keys", depth: depth, at: path)
            let values = try references(object, "NS.objects", depth: depth, at: path)
            guard keys.count == values.count else {
                throw KeyedObjectTable.invalid(.collectionLengths(className: name, keys: keys.count, values: values.count), path)
            }
            return .dictionary(className: name, keys: keys, values: values)
        case .null, .string, .data, .date, .number, .object:
            break
        }
        var fields = OrderedDictionary<String, KeyedGraph.Value>()
        for (key, value) in object where key != "$class" {
            fields[key] = try field(value, depth: depth, inlineDepth: 0, at: path.appending(key: key))
        }
        return .object(KeyedGraph.Object(archivedClass: archivedClass, fields: fields))
    }

    /// An array of references under `key`, such as `NS.objects`.
    mutating func references(_ object: OrderedDictionary<String, PFValue>, _ key: String, depth: Int, at path: PFKeyPath)
        throws(PFError) -> [KeyedGraph.Value]
    {
        guard let list = object[key] else {
            throw KeyedObjectTable.invalid(.missingKey(key), path)
        }
        guard case .array(let items) = list else {
            throw KeyedObjectTable.invalid(.referencesKind(key: key, found: list.kind.rawValue), path.appending(key: key))
        }
        var values: [KeyedGraph.Value] = []
        values.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            values.append(try reference(item, depth: depth, at: path.appending(key: key).appending(index: i)))
        }
        return values
    }

    mutating func reference(_ item: PFValue, depth: Int, at path: @autoclosure () -> PFKeyPath) throws(PFError)
        -> KeyedGraph.Value
    {
        guard case .uid(let uid) = item else {
            throw KeyedObjectTable.invalid(.notAReference(found: item.kind.rawValue), path())
        }
        return try value(forUID: uid, depth: depth + 1, at: path())
    }

    /// A field of a generic object: a reference, a scalar in place, or a container in place
    /// (whose references are followed too).
    mutating func field(_ value: PFValue, depth: Int, inlineDepth: Int, at path: PFKeyPath) throws(PFError)
        -> KeyedGraph.Value
    {
        switch value {
        case .uid(let uid): return try self.value(forUID: uid, depth: depth + 1, at: path)
        case .array(let items):
            // In-place containers are bounded by the container format's own depth limit.
            guard inlineDepth < options.limits.maxDepth, store.count < options.limits.maxNodes else {
                throw PFLimits.exceeded("maxNodes", options.limits.maxNodes, format: .keyedArchive)
            }
            let slot = store.add(object: nil)
            var values: [KeyedGraph.Value] = []
            values.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                values.append(try field(item, depth: depth, inlineDepth: inlineDepth + 1, at: path.appending(index: i)))
            }
            store.set(.array(className: nil, items: values), at: slot)
            return .node(slot)
        case .dictionary(let members):
            guard inlineDepth < options.limits.maxDepth, store.count < options.limits.maxNodes else {
                throw PFLimits.exceeded("maxNodes", options.limits.maxNodes, format: .keyedArchive)
            }
            let slot = store.add(object: nil)
            var keys: [KeyedGraph.Value] = []
            var values: [KeyedGraph.Value] = []
            for (key, item) in members {
                keys.append(.string(key))
                values.append(try field(item, depth: depth, inlineDepth: inlineDepth + 1, at: path.appending(key: key)))
            }
            store.set(.dictionary(className: nil, keys: keys, values: values), at: slot)
            return .node(slot)
        case .null, .bool, .int, .uint, .double, .string, .data, .date:
            return KeyedGraph.Value(scalar: value) ?? .null
        }
    }
}

extension KeyedObjectTable {
    /// The scalar a Foundation object in dictionary form stands for: `NSString`/
    /// `NSMutableString` (`NS.string` or UTF-8 `NS.bytes`), `NSData`/`NSMutableData`
    /// (`NS.data`), `NSDate` (`NS.time`), `NSNumber` and `NSNull`; `nil` for other classes.
    /// - Throws: ``PFError`` `invalidValue` when such an object lacks its value.
    public func foundationScalar(_ object: OrderedDictionary<String, PFValue>, of archivedClass: ArchivedClass, at path: PFKeyPath)
        throws(PFError) -> KeyedGraph.Value?
    {
        try Self.foundationScalar(
            object, of: archivedClass, kind: KeyedGraph.FoundationClass.kind(of: archivedClass.name), at: path,
            objectCount: objects.count) { objects[$0] }
    }

    /// ``foundationScalar(_:of:at:)`` over a table read lazily (`lookup` gives the object at an
    /// index below `objectCount`), for a class whose objects stand for `kind`
    /// (``KeyedGraph/FoundationClass/kind(of:)``). A value may be in place or a reference to
    /// it (`NS.data` → `$objects[3]`, as some archivers write an NSMutableData's bytes).
    static func foundationScalar(
        _ object: OrderedDictionary<String, PFValue>, of archivedClass: ArchivedClass,
        kind: KeyedGraph.FoundationClass.Kind, at path: PFKeyPath, objectCount: Int,
        lookup: (Int) throws(PFError) -> PFValue
    ) throws(PFError) -> KeyedGraph.Value? {
        let name = archivedClass.name
        // A member in place, or the object its reference names (`nil` for a missing member or `$null`).
        func member(_ key: String) throws(PFError) -> PFValue? {
            guard let value = object[key] else { return nil }
            guard case .uid(let uid) = value else { return value }
            guard uid < UInt64(objectCount) else {
                throw KeyedObjectTable.invalid(.referenceOutOfRange(uid, objects: objectCount), path.appending(key: key))
            }
            return uid == 0 ? nil : try lookup(Int(uid))
        }
        switch kind {
        case .null:
            return .null
        case .string:
            if let s = try member("NS.string")?.stringValue { return .string(s) }
            if case .data(let bytes)? = try member("NS.bytes") {
                guard let s = String(validating: bytes, as: UTF8.self) else {
                    throw KeyedObjectTable.invalid(.stringBytesNotUTF8(className: name), path.appending(key: "NS.bytes"))
                }
                return .string(s)
            }
            throw KeyedObjectTable.invalid(.noString(className: name), path)
        case .data:
            var value = try member("NS.data")
            if value == nil { value = try member("NS.bytes") }
            if case .data(let bytes)? = value { return .data(bytes) }
            throw KeyedObjectTable.invalid(.noData(className: name), path)
        case .date:
            guard let time = object["NS.time"]?.doubleValue, time.isFinite else {
                throw KeyedObjectTable.invalid(.dateNotFinite, path.appending(key: "NS.time"))
            }
            return .date(Date(timeIntervalSinceReferenceDate: time))
        case .number:
            // NSNumber is normally stored in place; a dictionary form carries NS.intval/NS.dblval.
            if let v = object["NS.intval"], let i = v.int64Value { return .int(i) }
            if let d = object["NS.dblval"]?.doubleValue { return .double(d) }
            throw KeyedObjectTable.invalid(.numberWithoutValue, path)
        case .array, .set, .orderedSet, .dictionary, .object:
            return nil
        }
    }
}
