import Foundation
import PFCore

// MARK: - Walking a file by its large containers

extension BinaryPlistReader {
    /// Reads a file a piece at a time: every array, set or dictionary whose expanded tree has
    /// more than `threshold` nodes is walked member by member, and every other value — each
    /// member of a large container that is not itself large — is decoded whole and handed to
    /// `visit`, so memory is the file's (mapped) bytes, four bytes per object and the largest
    /// piece, never the tree.
    ///
    /// The file is checked first, as ``read(_:)`` checks it and with its errors, without
    /// keeping any value: the same depth, node, collection and string limits (the nodes of the
    /// whole expanded tree count against ``PFLimits/maxNodes``, shared objects as often as
    /// they are referenced), cycles, offsets, references and scalars. Only then are events
    /// handed out, each piece the value ``read(_:)`` has at its place: an object referenced
    /// twice is walked (or decoded) at each place, and a dictionary's repeated key keeps its
    /// first place and its last value.
    /// - Parameters:
    ///   - bytes: the file's bytes (mapped for a file: only the pages read are touched).
    ///   - threshold: a container of more expanded nodes than this is walked (tests make it small).
    ///   - keyOrder: the order in which a large dictionary's members are visited, given its
    ///     keys (`nil`: as stored); a deterministic CBOR map sorts them.
    ///   - visit: receives the events.
    /// - Returns: `false`, having visited nothing, when the root is not a container of more
    ///   than `threshold` nodes, or ``PFLimits/maxNodes`` does not fit 32 bits (read the file
    ///   whole).
    /// - Throws: ``PFError`` as ``read(_:)`` throws it, before any event; then what `visit`
    ///   throws, with the key path of its event's place prefixed.
    public func walk(
        _ bytes: Data, threshold: Int, keyOrder: (([String]) -> [Int])? = nil, visit: (PFDocumentEvent) throws(PFError) -> Void
    ) throws(PFError) -> Bool {
        let limits = options.limits
        guard bytes.count <= limits.maxInputBytes else {
            throw PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: BinaryPlistLayout.format, offset: 0)
        }
        guard limits.maxNodes < Int(BinaryPlistNodeTable.inProgress) else { return false }
        return try bytes.withBytes { buffer throws(PFError) -> Bool in
            let info = try BinaryPlistInfo.parse(buffer)
            var table = BinaryPlistNodeTable(count: info.numObjects)
            // The check: the whole read's, keeping node counts (4 bytes an object), no values.
            var checker = BinaryPlistScanner(buffer: buffer, info: info, limits: limits, sparse: true)
            _ = try checker.measure(info.topObject, depth: 0, table: &table)
            guard let rootOffset = try? checker.objectOffset(info.topObject),
                checker.isCollection(at: rootOffset), table[info.topObject] > threshold
            else { return false }
            // The walk: everything was checked, so pieces are decoded without depth or node
            // limits (a shared object decoded again at a deeper place passed the whole read).
            var unbounded = limits
            unbounded.maxDepth = .max
            unbounded.maxNodes = .max
            try PFDocumentEmitter.run(visit) { emitter throws(PFError) in
                let scanner = BinaryPlistScanner(buffer: buffer, info: info, limits: unbounded, sparse: true)
                var walker = BinaryPlistWalker(scanner: scanner, table: table, threshold: threshold, keyOrder: keyOrder, emitter: emitter)
                try walker.walk(info.topObject)
            }
            return true
        }
    }
}

// MARK: - Node counts

/// The expanded node count of each object the check reached (0: not yet, or a scalar;
/// ``inProgress`` while its members are checked), 32 bits an object: ``PFLimits/maxNodes``
/// must be below ``inProgress``.
struct BinaryPlistNodeTable {
    static let inProgress = UInt32.max
    private var counts: [UInt32]

    init(count: Int) {
        counts = Array(repeating: 0, count: count)
    }

    /// The expanded node count of `object` (1 for a scalar, as the whole read counts it).
    subscript(object: Int) -> Int {
        let n = counts[object]
        return n == 0 || n == Self.inProgress ? 1 : Int(n)
    }

    func state(_ object: Int) -> UInt32 { counts[object] }

    mutating func set(_ object: Int, _ state: UInt32) { counts[object] = state }
}

extension BinaryPlistScanner {
    /// Whether the object at `offset` is an array, set or dictionary.
    func isCollection(at offset: Int) -> Bool {
        switch BinaryPlistMarker(rawValue: buffer[offset] >> 4) {
        case .array?, .set?, .dictionary?: true
        default: false
        }
    }

    /// Checks object `index`, nested inside `depth` containers, exactly as
    /// ``decode(_:depth:)`` does — the same checks in the same order, the same errors and key
    /// paths — without keeping any value: a collection's expanded node count goes to `table`
    /// (shared collections are checked once, as the whole read decodes them once).
    /// - Returns: the expanded node count, and the value of a scalar.
    mutating func measure(_ index: Int, depth: Int, table: inout BinaryPlistNodeTable) throws(PFError) -> (nodes: Int, scalar: PFValue?) {
        let state = table.state(index)
        if state != 0 && state != BinaryPlistNodeTable.inProgress { return (Int(state), nil) }
        let offset = try objectOffset(index)
        if state == BinaryPlistNodeTable.inProgress {
            throw PFError(BinaryPlistFailure.cycle(index: index), offset: offset)
        }
        let marker = buffer[offset]
        let nodes: Int
        switch BinaryPlistMarker(rawValue: marker >> 4) {
        case .array?, .set?:
            try checkDepth(depth + 1, at: offset)
            let (n, start) = try collectionCount(at: offset, refsPerElement: 1)
            table.set(index, BinaryPlistNodeTable.inProgress)
            var sum = 1
            for i in 0..<n {
                let ref = try objectRef(at: start + i * info.objectRefSize)
                let itemNodes: Int
                do throws(PFError) {
                    itemNodes = try measure(ref, depth: depth + 1, table: &table).nodes
                } catch {
                    throw error.prefixed(.index(i))
                }
                sum = try addNodes(sum, itemNodes, at: offset)
            }
            nodes = sum
        case .dictionary?:
            try checkDepth(depth + 1, at: offset)
            let (n, start) = try collectionCount(at: offset, refsPerElement: 2)
            table.set(index, BinaryPlistNodeTable.inProgress)
            let refSize = info.objectRefSize
            let valuesStart = start + n * refSize  // checked by collectionCount
            var sum = 1
            for i in 0..<n {
                let keyRef = try objectRef(at: start + i * refSize)
                let valueRef = try objectRef(at: valuesStart + i * refSize)
                let key = try measure(keyRef, depth: depth + 1, table: &table).scalar
                guard case .string(let name)? = key else {
                    // A collection key: the whole read has decoded it (checked above) and names its kind.
                    let kind = key?.kind ?? (BinaryPlistMarker(rawValue: buffer[(try? objectOffset(keyRef)) ?? offset] >> 4) == .dictionary ? .dictionary : .array)
                    throw PFError(
                        BinaryPlistFailure.keyNotString(index: i, kind: kind.rawValue),
                        offset: (try? objectOffset(keyRef)) ?? offset, path: .root)
                }
                let valueNodes: Int
                do throws(PFError) {
                    valueNodes = try measure(valueRef, depth: depth + 1, table: &table).nodes
                } catch {
                    throw error.prefixed(.key(name))
                }
                sum = try addNodes(sum, valueNodes, at: offset)
            }
            nodes = sum
        case let type?:
            // Scalars are decoded (every check of their bytes) and not remembered: a key
            // reached again needs its text.
            return (1, try decodeScalar(type, marker: marker, at: offset))
        case nil:
            throw PFError(BinaryPlistFailure.unknownMarker(marker), offset: offset)
        }
        table.set(index, UInt32(nodes))  // nodes ≤ maxNodes < UInt32.max
        return (nodes, nil)
    }
}

// MARK: - The walk

/// Hands out the events of a checked file (``BinaryPlistReader/walk(_:threshold:keyOrder:visit:)``).
struct BinaryPlistWalker: ~Copyable {
    var scanner: BinaryPlistScanner
    let table: BinaryPlistNodeTable
    let threshold: Int
    let keyOrder: (([String]) -> [Int])?
    var emitter: PFDocumentEmitter

    init(scanner: consuming BinaryPlistScanner, table: BinaryPlistNodeTable, threshold: Int,
         keyOrder: (([String]) -> [Int])?, emitter: PFDocumentEmitter) {
        self.scanner = scanner
        self.table = table
        self.threshold = threshold
        self.keyOrder = keyOrder
        self.emitter = emitter
    }

    func emit(_ event: PFDocumentEvent) throws(PFError) {
        try emitter.emit(event)
    }

    /// Walks object `index`: a large collection member by member, anything else as one piece.
    mutating func walk(_ index: Int) throws(PFError) {
        let offset = try scanner.objectOffset(index)
        let marker = BinaryPlistMarker(rawValue: scanner.buffer[offset] >> 4)
        guard table[index] > threshold, marker == .array || marker == .set || marker == .dictionary else {
            // Only this piece's objects are remembered while it is decoded.
            scanner.resetMemo(keeping: [])
            return try emit(.value(try scanner.decode(index, depth: 0).0))
        }
        let refSize = scanner.info.objectRefSize
        if marker != .dictionary {
            let (n, start) = try scanner.collectionCount(at: offset, refsPerElement: 1)
            try emit(.open(isObject: false, count: n))
            for i in 0..<n {
                emitter.enter(.index(i))
                try walk(try scanner.objectRef(at: start + i * refSize))
                emitter.leave()
            }
            return try emit(.close)
        }
        let (n, start) = try scanner.collectionCount(at: offset, refsPerElement: 2)
        // A repeated key keeps its first place and takes the last value (Swift's string
        // equality, as the whole read's dictionary).
        var keys: [String] = []
        var values: [Int] = []
        var seen: [String: Int] = [:]
        for i in 0..<n {
            scanner.resetMemo(keeping: [])
            guard case .string(let key) = try scanner.decode(try scanner.objectRef(at: start + i * refSize), depth: 0).0 else { continue }
            let value = try scanner.objectRef(at: start + (n + i) * refSize)
            if let at = seen[key] {
                values[at] = value
            } else {
                seen[key] = keys.count
                keys.append(key)
                values.append(value)
            }
        }
        seen = [:]
        try emit(.open(isObject: true, count: keys.count))
        for k in keyOrder?(keys) ?? Array(keys.indices) {
            emitter.enter(.key(keys[k]))
            try emit(.key(keys[k]))
            try walk(values[k])
            emitter.leave()
        }
        try emit(.close)
    }
}
