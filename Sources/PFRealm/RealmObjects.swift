import Foundation
import PFCore

extension RealmFile {
    /// One leaf of a table's cluster tree: its node and its objects' keys.
    struct ClusterLeaf {
        var node: RealmNode
        var keys: [Int64]
    }

    /// Calls `body` with each leaf of a table's cluster tree, in key order. Every node is
    /// visited at most once and the depth is bounded, so a cyclic or hostile tree fails.
    func forEachCluster(_ table: RealmTable, _ body: (ClusterLeaf) throws(PFError) -> Void) throws(PFError) {
        try forEachCluster(root: table.clusterRef, body)
    }

    /// Calls `body` with each leaf of the cluster tree at `root` (a table's, or a format-22
    /// dictionary's), in key order.
    func forEachCluster(root: Int64?, _ body: (ClusterLeaf) throws(PFError) -> Void) throws(PFError) {
        guard let root else { return }
        var visited = Set<Int>()
        try walkCluster(try node(root), offset: 0, depth: 0, visited: &visited, body)
    }

    private func walkCluster(
        _ n: RealmNode, offset: Int64, depth: Int, visited: inout Set<Int>, _ body: (ClusterLeaf) throws(PFError) -> Void
    ) throws(PFError) {
        guard visited.insert(n.ref).inserted else { throw damaged("the cluster tree refers to node \(n.ref) twice (a cycle)", at: n.ref) }
        guard depth < Self.maxTreeDepth else { throw damaged("cluster tree deeper than \(Self.maxTreeDepth) levels", at: n.ref) }
        guard n.hasRefs, n.count >= 1 else { throw damaged("a cluster node without references", at: n.ref) }
        if n.isInner {
            guard n.count >= 3 else { throw damaged("an inner cluster node with \(n.count) slots", at: n.ref) }
            let keyOffsets = try childRef(n, 0).map { r throws(PFError) in try node(r) }
            let subDepth = try tagged(n, 1, "cluster depth")
            guard subDepth >= 0, subDepth < 8 else { throw damaged("cluster depth \(subDepth)", at: n.ref) }
            for i in 3..<n.count {
                let childOffset: Int64
                if let keyOffsets {
                    childOffset = Int64(bitPattern: try uint(keyOffsets, i - 3))
                } else {
                    childOffset = Int64(i - 3) << (8 * subDepth)
                }
                try walkCluster(try child(n, i, "cluster child"), offset: offset &+ childOffset, depth: depth + 1, visited: &visited, body)
            }
            return
        }
        let first = try int(n, 0)
        var keys: [Int64] = []
        if first & 1 == 1 {
            let count = Int(first >> 1)
            guard count >= 0, count <= n.byteSize * 8 + 1_000 else { throw damaged("a cluster claims \(count) objects", at: n.ref) }
            try spend(count, at: n.ref)
            keys = (0..<count).map { offset &+ Int64($0) }
        } else {
            let keyNode = try child(n, 0, "cluster keys")
            try spend(keyNode.count, at: keyNode.ref)
            keys.reserveCapacity(keyNode.count)
            for i in 0..<keyNode.count { keys.append(offset &+ Int64(bitPattern: try uint(keyNode, i))) }
        }
        try body(ClusterLeaf(node: n, keys: keys))
    }

    /// The values of one column for every object of a cluster leaf.
    func columnValues(_ leaf: ClusterLeaf, _ column: RealmColumn) throws(PFError) -> [RealmValue] {
        let slot = column.leafIndex + 1
        guard slot < leaf.node.count else {
            throw damaged("the cluster has no leaf for column \(column.name) (slot \(slot) of \(leaf.node.count))", at: leaf.node.ref)
        }
        let n = try child(leaf.node, slot, "leaf of column \(column.name)")
        let values: [RealmValue]
        if column.collection == .none {
            values = try leafValues(n, column)
        } else {
            // One collection per object: a reference to its root, or 0 when empty.
            guard n.hasRefs || n.count == 0 else { throw damaged("the collection column \(column.name) holds no references", at: n.ref) }
            var out: [RealmValue] = []
            out.reserveCapacity(n.count)
            for i in 0..<n.count {
                let ref = try childRef(n, i)
                out.append(try collection(ref, column, depth: 0))
            }
            values = out
        }
        guard values.count == leaf.keys.count else {
            throw damaged("column \(column.name) has \(values.count) values for \(leaf.keys.count) objects", at: n.ref)
        }
        return values
    }

    /// A list, set or dictionary from its root reference (`nil`: empty).
    func collection(_ ref: Int64?, _ column: RealmColumn, depth: Int) throws(PFError) -> RealmValue {
        switch column.collection {
        case .list, .none:
            guard let ref else { return .list([]) }
            return .list(try bptreeValues(try node(ref), column))
        case .set:
            guard let ref else { return .set([]) }
            return .set(try bptreeValues(try node(ref), column))
        case .dictionary:
            guard let ref else { return .dictionary([]) }
            guard formatVersion >= 23 else { return try clusterDictionary(ref, column) }
            return try dictionary(try node(ref), valueColumn: column, depth: depth)
        }
    }

    /// Every element of a collection's B+tree.
    func bptreeValues(_ root: RealmNode, _ column: RealmColumn, depth: Int = 0) throws(PFError) -> [RealmValue] {
        var visited = Set<Int>()
        var out: [RealmValue] = []
        for leaf in try bptreeLeaves(root, visited: &visited) {
            if column.type == .mixed {
                out += try mixedValues(leaf, depth: depth)
            } else {
                // Lists of links store keys as they are (no null).
                out += try leafValues(leaf, column, linkAdjust: 0)
            }
            guard out.count <= limits.maxCollectionCount else {
                throw PFLimits.exceeded("maxCollectionCount", limits.maxCollectionCount, format: Self.format, offset: leaf.ref)
            }
        }
        return out
    }

    /// A dictionary: `[keys, values]`, two B+trees of the same size (string keys, Mixed values).
    func dictionary(_ top: RealmNode, valueColumn: RealmColumn, depth: Int) throws(PFError) -> RealmValue {
        guard top.hasRefs, top.count >= 2 else { throw damaged("a dictionary with \(top.count) slots", at: top.ref) }
        let keys = try stringValues(try child(top, 0, "dictionary keys"), nullable: false)
        var valueType = valueColumn
        valueType.type = .mixed
        let values = try bptreeValues(try child(top, 1, "dictionary values"), valueType, depth: depth)
        guard keys.count == values.count else { throw damaged("a dictionary with \(keys.count) keys and \(values.count) values", at: top.ref) }
        return .dictionary(zip(keys, values).map { (key: Self.text($0.0 ?? []), value: $0.1) })
    }

    /// A dictionary of a format-22 file (realm-core 11 and 12): a cluster tree of its own,
    /// each entry an object keyed by its key's hash, with the key in column 0 (a string
    /// leaf), the value in column 1 (Mixed) and, after a hash collision, a third column.
    /// Entries come in hash order; they are returned sorted by key (by UTF-8 bytes), the
    /// order later formats store them in.
    func clusterDictionary(_ root: Int64, _ column: RealmColumn) throws(PFError) -> RealmValue {
        var entries: [(key: [UInt8], value: RealmValue)] = []
        try forEachCluster(root: root) { (leaf) throws(PFError) in
            guard leaf.node.count >= 3 else {
                throw damaged("a dictionary cluster of \(column.name) with \(leaf.node.count) slots, not keys and values", at: leaf.node.ref)
            }
            let keys = try stringValues(try child(leaf.node, 1, "dictionary keys"), nullable: false)
            let values = try mixedValues(try child(leaf.node, 2, "dictionary values"))
            guard keys.count == leaf.keys.count, values.count == leaf.keys.count else {
                throw damaged("a dictionary cluster with \(leaf.keys.count) entries, \(keys.count) keys and \(values.count) values", at: leaf.node.ref)
            }
            for (key, value) in zip(keys, values) { entries.append((key ?? [], value)) }
            guard entries.count <= limits.maxCollectionCount else {
                throw PFLimits.exceeded("maxCollectionCount", limits.maxCollectionCount, format: Self.format, offset: leaf.node.ref)
            }
        }
        entries.sort { $0.key.lexicographicallyPrecedes($1.key) }
        return .dictionary(entries.map { (key: Self.text($0.key), value: $0.value) })
    }

    /// A leaf of Mixed values: `[composite, ints, int pairs, strings, refs, keys]`. Each
    /// composite element is `value << 8 | payload index << 5 | (type + 1)`, or 0 for null.
    func mixedValues(_ leaf: RealmNode, depth: Int = 0) throws(PFError) -> [RealmValue] {
        guard depth < limits.maxDepth, depth < 64 else { throw PFLimits.exceeded("maxDepth", limits.maxDepth, format: Self.format, offset: leaf.ref) }
        guard leaf.hasRefs, leaf.count >= 1 else { throw damaged("a Mixed leaf without its composite array", at: leaf.ref) }
        let composite = try ints(try child(leaf, 0, "Mixed composite"))
        func payload(_ i: Int) throws(PFError) -> RealmNode {
            guard i < leaf.count else { throw damaged("a Mixed leaf without its payload \(i)", at: leaf.ref) }
            return try child(leaf, i, "Mixed payload \(i)")
        }
        var intsNode: RealmNode?
        var pairsNode: RealmNode?
        var strings: [[UInt8]?]?
        func intPayload(_ i: Int64) throws(PFError) -> Int64 {
            if intsNode == nil { intsNode = try payload(1) }
            guard let n = intsNode, i >= 0, i < Int64(n.count) else { throw damaged("Mixed int payload \(i) out of range", at: leaf.ref) }
            return try int(n, Int(i))
        }
        func pairPayload(_ i: Int64) throws(PFError) -> (Int64, Int64) {
            if pairsNode == nil { pairsNode = try payload(2) }
            guard let n = pairsNode, i >= 0, i < Int64(n.count / 2) else { throw damaged("Mixed pair payload \(i) out of range", at: leaf.ref) }
            return (try int(n, Int(i) * 2), try int(n, Int(i) * 2 + 1))
        }
        func stringPayload(_ i: Int64) throws(PFError) -> [UInt8] {
            if strings == nil { strings = try blobLeaf(try payload(3), nullable: true, strings: true) }
            guard let s = strings, i >= 0, i < Int64(s.count), let value = s[Int(i)] else {
                throw damaged("Mixed string payload \(i) out of range", at: leaf.ref)
            }
            return value
        }
        var out: [RealmValue] = []
        out.reserveCapacity(composite.count)
        for value in composite {
            if value == 0 {
                out.append(.null)
                continue
            }
            let data = value >> 8
            let inPayload = (value & 0xE0) >> 5
            switch (value & 0x1F) - 1 {
            case 0: out.append(.int(inPayload != 0 ? try intPayload(data) : data))
            case 1: out.append(.bool(data != 0))
            case 2: out.append(.string(Self.text(try stringPayload(data))))
            case 4: out.append(.binary(Data(try stringPayload(data))))
            case 8:
                let (s, ns) = try pairPayload(data)
                out.append(.timestamp(seconds: s, nanoseconds: Int32(truncatingIfNeeded: ns)))
            case 9: out.append(.float(Float(bitPattern: UInt32(truncatingIfNeeded: try intPayload(data)))))
            case 10: out.append(.double(Double(bitPattern: UInt64(bitPattern: try intPayload(data)))))
            case 11:
                let (lo, hi) = try pairPayload(data)
                out.append(RealmDecimal.bid128(low: UInt64(bitPattern: lo), high: UInt64(bitPattern: hi)))
            case 15:
                let b = try stringPayload(data)
                guard b.count >= 12 else { throw damaged("a Mixed ObjectId of \(b.count) bytes", at: leaf.ref) }
                out.append(.objectId(Data(b.prefix(12))))
            case 17:
                let b = try stringPayload(data)
                guard b.count >= 16 else { throw damaged("a Mixed UUID of \(b.count) bytes", at: leaf.ref) }
                out.append(.uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))))
            case 16:
                let (tableKey, key) = try pairPayload(data)
                out.append(.typedLink(table: tableKey, key: key))
            case 12:
                out.append(.typedLink(table: -1, key: try intPayload(data)))
            default:
                if inPayload == 4 {
                    out.append(try nestedCollection(leaf, index: data, type: (value & 0x1F) - 1, depth: depth))
                } else {
                    throw PFError(RealmFailure.unknownMixedType((value & 0x1F) - 1), format: Self.format, offset: leaf.ref)
                }
            }
        }
        return out
    }

    /// A list or dictionary nested in a Mixed value (format 24).
    private func nestedCollection(_ leaf: RealmNode, index: Int64, type: Int64, depth: Int) throws(PFError) -> RealmValue {
        guard leaf.count > 4 else { throw damaged("a Mixed leaf without its collection references", at: leaf.ref) }
        let refs = try child(leaf, 4, "Mixed collections")
        guard index >= 0, index < Int64(refs.count) else { throw damaged("Mixed collection \(index) out of range", at: refs.ref) }
        let ref = try childRef(refs, Int(index))
        var column = RealmColumn(
            name: "", type: .mixed, isNullable: true, isIndexed: false, collection: .list, targetClass: nil, originProperty: nil,
            leafIndex: 0, targetTable: nil, enumKeysRef: nil)
        // Realm's collection types: 19 a list, 21 a dictionary (20, a set, does not nest).
        switch type {
        case 19:
            guard let ref else { return .list([]) }
            return .list(try bptreeValues(try node(ref), column, depth: depth + 1))
        case 21:
            guard let ref else { return .dictionary([]) }
            column.collection = .dictionary
            return try dictionary(try node(ref), valueColumn: column, depth: depth + 1)
        default:
            throw PFError(RealmFailure.nestedCollectionType(type), format: Self.format, offset: refs.ref)
        }
    }
}
