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
        var decoder = GraphDecoder(table: table, options: options)
        self = try decoder.decode()
    }
}

/// The iterative table → graph walk behind ``KeyedGraph/init(table:options:)``.
struct GraphDecoder {
    let table: KeyedObjectTable
    let options: KeyedGraph.DecodingOptions
    var nodes: [KeyedGraph.Node] = []
    /// Object index → the value decoded for it, so every object is decoded once.
    var memo: [Int: KeyedGraph.Value] = [:]
    /// Containers whose slot exists but whose contents are still to be read.
    var pending: [(node: Int, object: Int, archivedClass: ArchivedClass, depth: Int)] = []

    init(table: KeyedObjectTable, options: KeyedGraph.DecodingOptions) {
        self.table = table
        self.options = options
    }

    mutating func decode() throws(PFError) -> KeyedGraph {
        var top = OrderedDictionary<String, KeyedGraph.Value>()
        for (key, uid) in table.top {
            top[key] = try value(forUID: uid, depth: 1, at: [.key("$top"), .key(key)])
            try drain()
        }
        return KeyedGraph(nodes: nodes, top: top)
    }

    mutating func drain() throws(PFError) {
        while let item = pending.popLast() {
            try fill(node: item.node, object: item.object, archivedClass: item.archivedClass, depth: item.depth)
        }
    }

    // MARK: - References

    /// The value an object reference stands for, creating a node slot (to be filled later)
    /// for collections and objects.
    mutating func value(forUID uid: UInt64, depth: Int, at path: @autoclosure () -> PFKeyPath) throws(PFError)
        -> KeyedGraph.Value
    {
        let index = try table.index(of: uid, at: path())
        if index == 0 { return .null }
        if let known = memo[index] { return known }
        let objectPath: PFKeyPath = [.key("$objects"), .index(index)]
        if let scalar = KeyedGraph.Value(scalar: table.objects[index]) { return scalar }
        switch table.objects[index] {
        case .null, .bool, .int, .uint, .double, .string, .data, .date, .uid, .array:
            throw KeyedObjectTable.invalid(.graphObjectKind(found: table.objects[index].kind.rawValue), objectPath)
        case .dictionary(let object):
            let archivedClass = try table.archivedClass(of: object, at: objectPath)
            if let scalar = try table.foundationScalar(object, of: archivedClass, at: objectPath) {
                memo[index] = scalar
                return scalar
            }
            try check(archivedClass, at: objectPath)
            guard depth <= options.limits.maxDepth else {
                throw PFError(KeyedArchiveFailure.referencesTooDeep(maxDepth: options.limits.maxDepth), format: .keyedArchive, path: objectPath)
            }
            guard nodes.count < options.limits.maxNodes else {
                throw PFLimits.exceeded("maxNodes", options.limits.maxNodes, format: .keyedArchive)
            }
            let slot = nodes.count
            nodes.append(.array(className: nil, items: []))
            memo[index] = .node(slot)
            pending.append((slot, index, archivedClass, depth))
            return .node(slot)
        }
    }

    func check(_ archivedClass: ArchivedClass, at path: PFKeyPath) throws(PFError) {
        guard let allowed = options.allowedClasses else { return }
        let name = archivedClass.name
        guard KeyedGraph.FoundationClass.all.contains(name) || allowed.contains(name) else {
            throw PFError(KeyedArchiveFailure.classNotAllowed(name), format: .keyedArchive, path: path)
        }
    }

    // MARK: - Filling nodes

    mutating func fill(node slot: Int, object index: Int, archivedClass: ArchivedClass, depth: Int) throws(PFError) {
        guard case .dictionary(let object) = table.objects[index] else { return }
        let path: PFKeyPath = [.key("$objects"), .index(index)]
        let name = archivedClass.name
        typealias F = KeyedGraph.FoundationClass
        if F.arrays.contains(name) {
            nodes[slot] = .array(className: name, items: try references(object, "NS.objects", depth: depth, at: path))
        } else if F.sets.contains(name) {
            nodes[slot] = .set(className: name, items: try references(object, "NS.objects", depth: depth, at: path))
        } else if F.orderedSets.contains(name) {
            var items: [KeyedGraph.Value] = []
            var i = 0
            while let reference = object["NS.object.\(i)"] {
                items.append(try self.reference(reference, depth: depth, at: path.appending(key: "NS.object.\(i)")))
                i += 1
            }
            nodes[slot] = .orderedSet(className: name, items: items)
        } else if F.dictionaries.contains(name) {
            let keys = try references(object, "NS.keys", depth: depth, at: path)
            let values = try references(object, "NS.objects", depth: depth, at: path)
            guard keys.count == values.count else {
                throw KeyedObjectTable.invalid(.collectionLengths(className: name, keys: keys.count, values: values.count), path)
            }
            nodes[slot] = .dictionary(className: name, keys: keys, values: values)
        } else {
            var fields = OrderedDictionary<String, KeyedGraph.Value>()
            for (key, value) in object where key != "$class" {
                fields[key] = try field(value, depth: depth, inlineDepth: 0, at: path.appending(key: key))
            }
            nodes[slot] = .object(KeyedGraph.Object(archivedClass: archivedClass, fields: fields))
        }
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
            guard inlineDepth < options.limits.maxDepth, nodes.count < options.limits.maxNodes else {
                throw PFLimits.exceeded("maxNodes", options.limits.maxNodes, format: .keyedArchive)
            }
            let slot = nodes.count
            nodes.append(.array(className: nil, items: []))
            var values: [KeyedGraph.Value] = []
            values.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                values.append(try field(item, depth: depth, inlineDepth: inlineDepth + 1, at: path.appending(index: i)))
            }
            nodes[slot] = .array(className: nil, items: values)
            return .node(slot)
        case .dictionary(let members):
            guard inlineDepth < options.limits.maxDepth, nodes.count < options.limits.maxNodes else {
                throw PFLimits.exceeded("maxNodes", options.limits.maxNodes, format: .keyedArchive)
            }
            let slot = nodes.count
            nodes.append(.dictionary(className: nil, keys: [], values: []))
            var keys: [KeyedGraph.Value] = []
            var values: [KeyedGraph.Value] = []
            for (key, item) in members {
                keys.append(.string(key))
                values.append(try field(item, depth: depth, inlineDepth: inlineDepth + 1, at: path.appending(key: key)))
            }
            nodes[slot] = .dictionary(className: nil, keys: keys, values: values)
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
        let name = archivedClass.name
        typealias F = KeyedGraph.FoundationClass
        if F.nulls.contains(name) { return .null }
        if F.strings.contains(name) {
            if let s = object["NS.string"]?.stringValue { return .string(s) }
            if case .data(let bytes)? = object["NS.bytes"] {
                guard let s = String(validating: bytes, as: UTF8.self) else {
                    throw KeyedObjectTable.invalid(.stringBytesNotUTF8(className: name), path.appending(key: "NS.bytes"))
                }
                return .string(s)
            }
            throw KeyedObjectTable.invalid(.noString(className: name), path)
        }
        if F.data.contains(name) {
            if case .data(let bytes)? = object["NS.data"] ?? object["NS.bytes"] { return .data(bytes) }
            throw KeyedObjectTable.invalid(.noData(className: name), path)
        }
        if F.dates.contains(name) {
            guard let time = object["NS.time"]?.doubleValue, time.isFinite else {
                throw KeyedObjectTable.invalid(.dateNotFinite, path.appending(key: "NS.time"))
            }
            return .date(Date(timeIntervalSinceReferenceDate: time))
        }
        if F.numbers.contains(name) {
            // NSNumber is normally stored in place; a dictionary form carries NS.intval/NS.dblval.
            if let v = object["NS.intval"], let i = v.int64Value { return .int(i) }
            if let d = object["NS.dblval"]?.doubleValue { return .double(d) }
            throw KeyedObjectTable.invalid(.numberWithoutValue, path)
        }
        return nil
    }

}
