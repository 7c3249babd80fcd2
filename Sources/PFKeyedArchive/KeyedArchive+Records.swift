import Foundation
import OrderedCollections
import PFCore
import PFPropertyList

// MARK: - A keyed archive's records, one at a time

extension KeyedArchive {
    /// How ``readRecords(_:options:start:record:threshold:visit:)`` found the graph's records.
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
    /// Every check and limit of ``decodeGraph(_:options:)`` applies with the same meaning
    /// and error: the property list is read through once as the whole read reads it (its
    /// nodes counted across the file), then the graph is walked from `$top` by the same
    /// walk, which keeps one byte per object (reached once, or more than once). The records
    /// are then written one at a time by the same renderer, with the `$id`/`$ref` numbering
    /// of the whole conversion. Only a root that is an array, or a dictionary of one string
    /// key `results` holding an array, each reached by that one reference, has records here.
    /// - Parameters:
    ///   - bytes: the archive, a binary property list (not compressed).
    ///   - options: limits and allowed classes.
    ///   - start: called once, with the shape, before the first record.
    ///   - record: receives each record, in order.
    ///   - threshold: when given, a graph that is not of records is walked by its large
    ///     containers (those of more members than this) through `visit` instead, as
    ///     ``walk(_:options:threshold:visit:)`` walks it (the archive is read and its graph
    ///     walked once either way).
    ///   - visit: receives the walk's events.
    /// - Returns: `false`, having called no closure, when the archive is not a binary
    ///   property list of that shape (nor walked; the whole route then converts it).
    /// - Throws: ``PFError`` as the whole route does (reading, decoding, `maxDepth`), and
    ///   whatever the closures throw.
    public static func readRecords(
        _ bytes: Data, options: KeyedGraph.DecodingOptions = .init(),
        start: (RecordsShape) throws(PFError) -> Void, record: (PFValue) throws(PFError) -> Void,
        threshold: Int? = nil, visit: (PFDocumentEvent) throws(PFError) -> Void = { _ in }
    ) throws(PFError) -> Bool {
        try walkLazily(bytes, options: options) { walk, top throws(PFError) -> Bool in
            guard let (shape, items) = try walk.records(top) else {
                guard let threshold else { return false }
                walk.store.inPlace.removeAll()
                return try walkRoot(&walk, top: top, limits: options.limits, threshold: threshold, visit: visit)
            }
            try start(shape)
            // The root renders at depth 0 and a results wrapper's array at 1; each must be
            // below maxDepth, as in the whole rendering.
            let depth = shape == .array ? 1 : 2
            guard depth <= options.limits.maxDepth else {
                throw PFError(KeyedArchiveFailure.graphTooDeep(maxDepth: options.limits.maxDepth), format: .keyedArchive)
            }
            var renderer = GraphRenderer(nodes: walk, limits: options.limits)
            for item in items {
                try record(try renderer.render(item, depth: depth))
                renderer.nodes.store.inPlace.removeAll(keepingCapacity: true)
            }
            return true
        }
    }

    /// The walk of a keyed archive in a binary property list from its (mapped) bytes, shared
    /// by ``readRecords(_:options:start:record:threshold:visit:)`` and ``walk(_:options:threshold:visit:)``:
    /// the property list is read through once as the whole read reads it, the envelope is
    /// checked with the first object, and the graph is walked from `$top` with every check
    /// and limit of ``decodeGraph(_:options:)``, keeping one byte per object. `body` is then
    /// given the walk, ready to render (objects are read again when asked for), and `$top`.
    /// - Returns: what `body` returns; `false` when the archive is not a binary property
    ///   list or its table is empty (the whole route reports that).
    static func walkLazily(
        _ bytes: Data, options: KeyedGraph.DecodingOptions,
        _ body: (inout GraphDecoder<BinaryPlistLazyArray, ReachedObjects>, OrderedDictionary<String, KeyedGraph.Value>)
            throws(PFError) -> Bool
    ) throws(PFError) -> Bool {
        guard BinaryPlistReader.hasMagic(bytes) else { return false }
        let reader = BinaryPlistReader(options: .init(limits: options.limits))
        let done = try reader.withLazyArray(bytes, key: "$objects") { objects throws(PFError) -> Bool in
            // An empty table fails the envelope check: the whole route says so.
            guard objects.count > 0 else { return false }
            // The envelope is checked as the whole read checks it, with the first object.
            var plist = objects.members
            plist["$objects"] = .array([try objects.element(0)])
            let envelope = try KeyedObjectTable(plist: .dictionary(plist))
            var walk = GraphDecoder(objects: objects, store: ReachedObjects(objectCount: objects.count), options: options)
            let top = try walk.walk(envelope.topEntries)
            walk.store.rendering = true
            return try body(&walk, top)
        }
        return done ?? false
    }
}

extension BinaryPlistLazyArray: KeyedObjectSource {
    var objectCount: Int { count }
    var keepsObjects: Bool { false }
    func object(at index: Int) throws(PFError) -> PFValue { try element(index) }
}

/// The nodes of ``KeyedArchive/readRecords(_:options:start:record:threshold:visit:)``'s walk, named by their
/// objects' numbers: not kept, only how many references reach each object. After the walk
/// (``rendering``), an object's node is read again from the archive when it is written, and
/// a container stored in place in its fields is kept, numbered after the objects, until
/// its record is written.
struct ReachedObjects: GraphNodeStore {
    let objectCount: Int
    /// Per object: 0 not reached (or a scalar), 1 reached by one reference, 2 by more.
    var reached: [UInt8]
    /// The nodes the walk reached.
    var walked = 0
    /// Whether the walk is over: references are then only resolved, no longer counted.
    var rendering = false
    /// While rendering, the containers stored in place in the fields of the objects read.
    var inPlace: [KeyedGraph.Node] = []

    // While rendering, fewer than the walk counted, so no budget check fails again.
    var count: Int { rendering ? inPlace.count : walked }

    init(objectCount: Int) {
        self.objectCount = objectCount
        reached = Array(repeating: 0, count: objectCount)
    }

    mutating func revisit(_ object: Int) -> KeyedGraph.Value? {
        guard reached[object] != 0 else { return nil }
        if !rendering { reached[object] = 2 }
        return .node(object)
    }

    // A Foundation scalar in dictionary form is rare: it is read again when met again.
    func remember(_ scalar: KeyedGraph.Value, for object: Int) {}

    mutating func add(object: Int?) -> Int {
        if let object {
            reached[object] = 1
            walked += 1
            return object
        }
        guard rendering else {
            walked += 1
            return -1
        }
        inPlace.append(.array(className: nil, items: []))
        return objectCount + inPlace.count - 1
    }

    mutating func set(_ node: KeyedGraph.Node, at slot: Int) {
        guard rendering, slot >= objectCount else { return }
        inPlace[slot - objectCount] = node
    }
}

extension GraphDecoder: GraphNodes where Store == ReachedObjects {
    func contains(_ index: Int) -> Bool { index >= 0 && index < store.objectCount + store.inPlace.count }
    func isShared(_ index: Int) -> Bool { index < store.objectCount && store.reached[index] > 1 }
    var mark: Int { store.inPlace.count }
    mutating func release(to mark: Int) { store.inPlace.removeSubrange(mark...) }

    /// The node of object `index`, read again from the archive (the walk checked it), or a
    /// container stored in place.
    mutating func node(_ index: Int) throws(PFError) -> KeyedGraph.Node {
        guard index < store.objectCount else { return store.inPlace[index - store.objectCount] }
        guard case .dictionary(let object) = try objects.object(at: index) else { return .array(className: nil, items: []) }
        let (archivedClass, kind) = try archivedClass(of: object, at: [.key("$objects"), .index(index)])
        return try fill(object, index: index, archivedClass: archivedClass, kind: kind, depth: 0)
    }

    /// The records of the graph after the walk, when its root holds them (see
    /// ``KeyedArchive/readRecords(_:options:start:record:threshold:visit:)``), as the values to render.
    mutating func records(_ top: OrderedDictionary<String, KeyedGraph.Value>) throws(PFError)
        -> (KeyedArchive.RecordsShape, [KeyedGraph.Value])?
    {
        func onlyReference(_ value: KeyedGraph.Value) -> Int? {
            guard case .node(let index) = value, index < store.objectCount, store.reached[index] == 1 else { return nil }
            return index
        }
        guard top.count == 1, let root = top[KeyedObjectTable.rootKey].flatMap(onlyReference) else { return nil }
        switch try node(root) {
        case .array(_, let items), .set(_, let items), .orderedSet(_, let items):
            return (.array, items)
        case .dictionary(_, let keys, let values):
            guard keys == [.string("results")], let array = onlyReference(values[0]) else { return nil }
            switch try node(array) {
            case .array(_, let items), .set(_, let items), .orderedSet(_, let items): return (.results, items)
            default: return nil
            }
        case .object: return nil
        }
    }
}
