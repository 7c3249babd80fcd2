import Foundation
import OrderedCollections
import PFCore
import PFPropertyList

// MARK: - A keyed archive's records, one at a time

extension KeyedArchive {
    /// How ``readRecords(_:options:start:record:)`` found the graph's records.
    public enum RecordsShape: Sendable, Equatable {
        /// The root is an array (or set, or ordered set) of records.
        case array
        /// The root is a dictionary whose one key, `results`, holds the records' array.
        case results
    }

    /// Decodes the graph of a keyed archive in a binary property list and hands the value
    /// ``KeyedGraph/jsonValue(limits:)`` gives for each of its records to `record`, without
    /// building the object table, the graph or the tree: objects are decoded from the file's
    /// bytes (mapped for a file) by their number when they are needed.
    ///
    /// A first walk follows the references from `$top` exactly as ``KeyedGraph/init(table:options:)``
    /// does (same order, checks, limits and errors) and keeps one byte per object: whether
    /// it was reached, and by one reference or more. The records are then rendered one at a
    /// time with the `$id`/`$ref` numbering of the whole conversion, so the records written
    /// are the whole route's. Only a root that is an array, or a dictionary of one string key
    /// `results` holding an array, each reached by that one reference, has records here.
    /// - Parameters:
    ///   - bytes: the archive, a binary property list (not compressed).
    ///   - options: limits and allowed classes.
    ///   - start: called once, with the shape, before the first record.
    ///   - record: receives each record, in order.
    /// - Returns: `false`, having called neither closure, when the archive is not a binary
    ///   property list of that shape (the whole route then converts it).
    /// - Throws: ``PFError`` as the whole route does (reading, decoding, `maxDepth`), and
    ///   whatever the closures throw.
    public static func readRecords(
        _ bytes: Data, options: KeyedGraph.DecodingOptions = .init(),
        start: (RecordsShape) throws(PFError) -> Void, record: (PFValue) throws(PFError) -> Void
    ) throws(PFError) -> Bool {
        guard BinaryPlistReader.hasMagic(bytes) else { return false }
        let reader = BinaryPlistReader(options: .init(limits: options.limits))
        let done = try reader.withLazyArray(bytes, key: "$objects") { objects throws(PFError) -> Bool in
            guard objects.count > 0 else { return false }
            // The envelope is checked as the whole read checks it, with the first object.
            var plist = objects.members
            plist["$objects"] = .array([try objects.element(0)])
            let envelope = try KeyedObjectTable(plist: .dictionary(plist))
            var walker = LazyGraphWalker(envelope: envelope, count: objects.count, options: options)
            try walker.walk(&objects)
            guard let (shape, items) = try walker.records(&objects) else { return false }
            try start(shape)
            // The root renders at depth 0 and a results wrapper's array at 1; each must be
            // below maxDepth, as in the whole rendering.
            let depth = shape == .array ? 1 : 2
            guard depth <= options.limits.maxDepth else {
                throw PFError(KeyedArchiveFailure.graphTooDeep(maxDepth: options.limits.maxDepth), format: .keyedArchive)
            }
            for item in items {
                try record(try walker.render(item, depth: depth, inline: [], &objects))
            }
            return true
        }
        return done ?? false
    }
}

/// The object-table walk and the renderer of ``KeyedArchive/readRecords(_:options:start:record:)``:
/// ``GraphDecoder`` and ``GraphRenderer`` over objects decoded on demand, with a node named by
/// its object's number (`.node(i)`, `i` ≥ 0) or, for a container stored in place in an
/// object's field, by its place in that object's `inline` list (`.node(-1 - j)`).
struct LazyGraphWalker {
    let envelope: KeyedObjectTable
    let count: Int
    let options: KeyedGraph.DecodingOptions
    /// Per object: 0 not reached, 1 reached once, 2 reached more than once (a node), or
    /// ``scalar`` (a Foundation scalar in dictionary form).
    var reached: [UInt8]
    var nodes = 0
    var pending: [(object: Int, depth: Int)] = []
    /// Class dictionaries decoded, by object number (a few per archive).
    var classes: [Int: ArchivedClass] = [:]
    var assignedIDs: [Int: Int] = [:]
    var nextID = 1

    static let scalar: UInt8 = 3

    init(envelope: KeyedObjectTable, count: Int, options: KeyedGraph.DecodingOptions) {
        self.envelope = envelope
        self.count = count
        self.options = options
        reached = Array(repeating: 0, count: count)
    }

    // MARK: - Objects

    func index(of uid: UInt64, at path: @autoclosure () -> PFKeyPath) throws(PFError) -> Int {
        guard uid < UInt64(count) else {
            throw KeyedObjectTable.invalid(.referenceOutOfRange(uid, objects: count), path())
        }
        return Int(uid)
    }

    /// The class of an object in dictionary form, its class dictionary decoded once.
    mutating func archivedClass(
        of object: OrderedDictionary<String, PFValue>, at path: PFKeyPath, _ objects: inout BinaryPlistLazyArray
    ) throws(PFError) -> ArchivedClass {
        if case .uid(let uid)? = object["$class"], uid < UInt64(count), let known = classes[Int(uid)] { return known }
        let found = try KeyedObjectTable.archivedClass(of: object, at: path, objectCount: count) { i throws(PFError) in
            try objects.element(i)
        }
        if case .uid(let uid)? = object["$class"], classes.count < 4096 { classes[Int(uid)] = found }
        return found
    }

    /// What object `index` is: a scalar (stored in place, or a Foundation scalar in
    /// dictionary form), or a node with its object and class.
    enum Resolved {
        case scalar(KeyedGraph.Value)
        case node(OrderedDictionary<String, PFValue>, ArchivedClass)
    }

    mutating func resolve(_ index: Int, _ objects: inout BinaryPlistLazyArray) throws(PFError) -> Resolved {
        let objectPath: PFKeyPath = [.key("$objects"), .index(index)]
        let value = try objects.element(index)
        if let scalar = KeyedGraph.Value(scalar: value) { return .scalar(scalar) }
        guard case .dictionary(let object) = value else {
            throw KeyedObjectTable.invalid(.graphObjectKind(found: value.kind.rawValue), objectPath)
        }
        let archivedClass = try archivedClass(of: object, at: objectPath, &objects)
        if let scalar = try envelope.foundationScalar(object, of: archivedClass, at: objectPath) { return .scalar(scalar) }
        return .node(object, archivedClass)
    }

    // MARK: - The walk (GraphDecoder's order, checks and errors)

    mutating func walk(_ objects: inout BinaryPlistLazyArray) throws(PFError) {
        for (key, uid) in envelope.top {
            _ = try reference(uid, depth: 1, at: [.key("$top"), .key(key)], &objects)
            while let item = pending.popLast() {
                guard case .node(let object, let archivedClass) = try resolve(item.object, &objects) else { continue }
                var inline: [KeyedGraph.Node] = []
                _ = try fill(object, archivedClass, index: item.object, depth: item.depth, inline: &inline, &objects)
            }
        }
    }

    /// ``GraphDecoder/value(forUID:depth:at:)``: counts the reference and, the first time a
    /// node is reached, checks it and queues it.
    mutating func reference(
        _ uid: UInt64, depth: Int, at path: @autoclosure () -> PFKeyPath, _ objects: inout BinaryPlistLazyArray
    ) throws(PFError) -> KeyedGraph.Value {
        let index = try self.index(of: uid, at: path())
        if index == 0 { return .null }
        switch reached[index] {
        case 0: break
        case Self.scalar: return .node(index)  // resolved again when rendered
        default:
            reached[index] = 2
            return .node(index)
        }
        let objectPath: PFKeyPath = [.key("$objects"), .index(index)]
        guard case .node(_, let archivedClass) = try resolve(index, &objects) else {
            reached[index] = Self.scalar
            return .node(index)
        }
        try check(archivedClass, at: objectPath)
        guard depth <= options.limits.maxDepth else {
            throw PFError(KeyedArchiveFailure.referencesTooDeep(maxDepth: options.limits.maxDepth), format: .keyedArchive, path: objectPath)
        }
        try countNode()
        reached[index] = 1
        pending.append((index, depth))
        return .node(index)
    }

    mutating func countNode() throws(PFError) {
        guard nodes < options.limits.maxNodes else {
            throw PFLimits.exceeded("maxNodes", options.limits.maxNodes, format: .keyedArchive)
        }
        nodes += 1
    }

    func check(_ archivedClass: ArchivedClass, at path: PFKeyPath) throws(PFError) {
        guard let allowed = options.allowedClasses else { return }
        let name = archivedClass.name
        guard KeyedGraph.FoundationClass.all.contains(name) || allowed.contains(name) else {
            throw PFError(KeyedArchiveFailure.classNotAllowed(name), format: .keyedArchive, path: path)
        }
    }

    /// ``GraphDecoder/fill(node:object:archivedClass:depth:)``: the node of object `index`,
    /// its references followed with ``reference(_:depth:at:_:)`` (which the walk counts,
    /// and the renderer, after the walk, only resolves).
    mutating func fill(
        _ object: OrderedDictionary<String, PFValue>, _ archivedClass: ArchivedClass, index: Int, depth: Int,
        inline: inout [KeyedGraph.Node], _ objects: inout BinaryPlistLazyArray
    ) throws(PFError) -> KeyedGraph.Node {
        let path: PFKeyPath = [.key("$objects"), .index(index)]
        let name = archivedClass.name
        typealias F = KeyedGraph.FoundationClass
        if F.arrays.contains(name) {
            return .array(className: name, items: try references(object, "NS.objects", depth: depth, at: path, &objects))
        } else if F.sets.contains(name) {
            return .set(className: name, items: try references(object, "NS.objects", depth: depth, at: path, &objects))
        } else if F.orderedSets.contains(name) {
            var items: [KeyedGraph.Value] = []
            var i = 0
            while let item = object["NS.object.\(i)"] {
                items.append(try reference(item, depth: depth, at: path.appending(key: "NS.object.\(i)"), &objects))
                i += 1
            }
            return .orderedSet(className: name, items: items)
        } else if F.dictionaries.contains(name) {
            let keys = try references(object, "NS.keys", depth: depth, at: path, &objects)
            let values = try references(object, "NS.objects", depth: depth, at: path, &objects)
            guard keys.count == values.count else {
                throw KeyedObjectTable.invalid(.collectionLengths(className: name, keys: keys.count, values: values.count), path)
            }
            return .dictionary(className: name, keys: keys, values: values)
        }
        var fields = OrderedDictionary<String, KeyedGraph.Value>()
        for (key, value) in object where key != "$class" {
            fields[key] = try field(value, depth: depth, inlineDepth: 0, at: path.appending(key: key), inline: &inline, &objects)
        }
        return .object(KeyedGraph.Object(archivedClass: archivedClass, fields: fields))
    }

    mutating func references(
        _ object: OrderedDictionary<String, PFValue>, _ key: String, depth: Int, at path: PFKeyPath,
        _ objects: inout BinaryPlistLazyArray
    ) throws(PFError) -> [KeyedGraph.Value] {
        guard let list = object[key] else {
            throw KeyedObjectTable.invalid(.missingKey(key), path)
        }
        guard case .array(let items) = list else {
            throw KeyedObjectTable.invalid(.referencesKind(key: key, found: list.kind.rawValue), path.appending(key: key))
        }
        var values: [KeyedGraph.Value] = []
        values.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            values.append(try reference(item, depth: depth, at: path.appending(key: key).appending(index: i), &objects))
        }
        return values
    }

    mutating func reference(
        _ item: PFValue, depth: Int, at path: @autoclosure () -> PFKeyPath, _ objects: inout BinaryPlistLazyArray
    ) throws(PFError) -> KeyedGraph.Value {
        guard case .uid(let uid) = item else {
            throw KeyedObjectTable.invalid(.notAReference(found: item.kind.rawValue), path())
        }
        if rendering { return .node(try index(of: uid, at: path())) }
        return try reference(uid, depth: depth + 1, at: path(), &objects)
    }

    /// Whether the walk is over: references are then resolved, not counted again.
    var rendering = false

    mutating func field(
        _ value: PFValue, depth: Int, inlineDepth: Int, at path: PFKeyPath, inline: inout [KeyedGraph.Node],
        _ objects: inout BinaryPlistLazyArray
    ) throws(PFError) -> KeyedGraph.Value {
        switch value {
        case .uid(let uid):
            if rendering { return .node(try index(of: uid, at: path)) }
            return try reference(uid, depth: depth + 1, at: path, &objects)
        case .array(let items):
            guard inlineDepth < options.limits.maxDepth else {
                throw PFLimits.exceeded("maxNodes", options.limits.maxNodes, format: .keyedArchive)
            }
            if !rendering { try countNode() }
            let slot = inline.count
            inline.append(.array(className: nil, items: []))
            var values: [KeyedGraph.Value] = []
            values.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                values.append(try field(item, depth: depth, inlineDepth: inlineDepth + 1, at: path.appending(index: i), inline: &inline, &objects))
            }
            inline[slot] = .array(className: nil, items: values)
            return .node(-1 - slot)
        case .dictionary(let members):
            guard inlineDepth < options.limits.maxDepth else {
                throw PFLimits.exceeded("maxNodes", options.limits.maxNodes, format: .keyedArchive)
            }
            if !rendering { try countNode() }
            let slot = inline.count
            inline.append(.dictionary(className: nil, keys: [], values: []))
            var keys: [KeyedGraph.Value] = []
            var values: [KeyedGraph.Value] = []
            for (key, item) in members {
                keys.append(.string(key))
                values.append(try field(item, depth: depth, inlineDepth: inlineDepth + 1, at: path.appending(key: key), inline: &inline, &objects))
            }
            inline[slot] = .dictionary(className: nil, keys: keys, values: values)
            return .node(-1 - slot)
        case .null, .bool, .int, .uint, .double, .string, .data, .date:
            return KeyedGraph.Value(scalar: value) ?? .null
        }
    }

    // MARK: - Rendering (GraphRenderer's numbering)

    /// The records of the graph, when its root holds them (see
    /// ``KeyedArchive/readRecords(_:options:start:record:)``), as references to render.
    mutating func records(_ objects: inout BinaryPlistLazyArray) throws(PFError) -> (KeyedArchive.RecordsShape, [KeyedGraph.Value])? {
        rendering = true
        guard envelope.top.count == 1, let uid = envelope.top[KeyedObjectTable.rootKey], uid > 0, uid < UInt64(count),
            reached[Int(uid)] == 1
        else { return nil }
        var inline: [KeyedGraph.Node] = []
        switch try node(Int(uid), inline: &inline, &objects) {
        case .array(_, let items), .set(_, let items), .orderedSet(_, let items):
            return (.array, items)
        case .dictionary(_, let keys, let values):
            guard keys.count == 1, case .string("results") = try keyString(keys[0], inline: inline, &objects),
                case .node(let array) = values[0], array > 0,
                reached[array] == 1
            else { return nil }
            switch try node(array, inline: &inline, &objects) {
            case .array(_, let items), .set(_, let items), .orderedSet(_, let items): return (.results, items)
            default: return nil
            }
        case .object, nil: return nil
        }
    }

    /// The node of object `index`, or `nil` when it is a scalar.
    mutating func node(_ index: Int, inline: inout [KeyedGraph.Node], _ objects: inout BinaryPlistLazyArray) throws(PFError)
        -> KeyedGraph.Node?
    {
        guard case .node(let object, let archivedClass) = try resolve(index, &objects) else { return nil }
        return try fill(object, archivedClass, index: index, depth: 0, inline: &inline, &objects)
    }

    /// ``GraphRenderer/render(_:depth:)``; `inline` is the list the value's `.node(-1 - j)` names.
    mutating func render(_ value: KeyedGraph.Value, depth: Int, inline: [KeyedGraph.Node], _ objects: inout BinaryPlistLazyArray)
        throws(PFError) -> PFValue
    {
        guard case .node(let index) = value else { return value.scalarValue ?? .null }
        if index < 0 {
            // A container stored in place: reached once, never shared.
            guard depth < options.limits.maxDepth else {
                throw PFError(KeyedArchiveFailure.graphTooDeep(maxDepth: options.limits.maxDepth), format: .keyedArchive)
            }
            return try render(node: inline[-1 - index], id: nil, depth: depth + 1, inline: inline, &objects)
        }
        if reached[index] == Self.scalar {
            guard case .scalar(let scalar) = try resolve(index, &objects) else { return .null }
            return scalar.scalarValue ?? .null
        }
        if let id = assignedIDs[index] { return ["$ref": .int(Int64(id))] }
        var ownInline: [KeyedGraph.Node] = []
        guard let node = try node(index, inline: &ownInline, &objects) else { return .null }
        guard depth < options.limits.maxDepth else {
            throw PFError(KeyedArchiveFailure.graphTooDeep(maxDepth: options.limits.maxDepth), format: .keyedArchive)
        }
        var id: Int?
        if reached[index] > 1 {
            id = nextID
            assignedIDs[index] = nextID
            nextID += 1
        }
        return try render(node: node, id: id, depth: depth + 1, inline: ownInline, &objects)
    }

    /// ``GraphRenderer/render(node:id:depth:)``.
    mutating func render(
        node: KeyedGraph.Node, id: Int?, depth: Int, inline: [KeyedGraph.Node], _ objects: inout BinaryPlistLazyArray
    ) throws(PFError) -> PFValue {
        func wrap(_ value: PFValue) -> PFValue {
            guard let id else { return value }
            return ["$id": .int(Int64(id)), "$value": value]
        }
        switch node {
        case .array(_, let items), .set(_, let items), .orderedSet(_, let items):
            var out: [PFValue] = []
            out.reserveCapacity(items.count)
            for item in items { out.append(try render(item, depth: depth, inline: inline, &objects)) }
            return wrap(.array(out))
        case .dictionary(let className, let keys, let values):
            var names: [String] = []
            names.reserveCapacity(keys.count)
            for key in keys {
                guard case .string(let name) = try keyString(key, inline: inline, &objects) else { break }
                names.append(name)
            }
            if names.count == keys.count {
                var members = OrderedDictionary<String, PFValue>()
                for (name, value) in zip(names, values) {
                    members[KeyedGraph.escape(name)] = try render(value, depth: depth, inline: inline, &objects)
                }
                return wrap(.dictionary(members))
            }
            var object: OrderedDictionary<String, PFValue> = ["$class": .string(className ?? "NSDictionary")]
            if let id { object["$id"] = .int(Int64(id)) }
            var renderedKeys: [PFValue] = []
            var renderedValues: [PFValue] = []
            for key in keys { renderedKeys.append(try render(key, depth: depth, inline: inline, &objects)) }
            for value in values { renderedValues.append(try render(value, depth: depth, inline: inline, &objects)) }
            object["NS.keys"] = .array(renderedKeys)
            object["NS.objects"] = .array(renderedValues)
            return .dictionary(object)
        case .object(let object):
            var members = GraphRenderer.header(of: object.archivedClass, id: id)
            for (key, value) in object.fields {
                members[KeyedGraph.escape(key)] = try render(value, depth: depth, inline: inline, &objects)
            }
            return .dictionary(members)
        }
    }

    /// A dictionary key as the graph holds it: a string key is a `.string` there, whether
    /// stored in place or as an object (which the graph decodes to its scalar).
    mutating func keyString(_ key: KeyedGraph.Value, inline: [KeyedGraph.Node], _ objects: inout BinaryPlistLazyArray)
        throws(PFError) -> KeyedGraph.Value
    {
        guard case .node(let index) = key, index > 0, reached[index] == Self.scalar,
            case .scalar(let scalar) = try resolve(index, &objects)
        else { return key }
        return scalar
    }
}
