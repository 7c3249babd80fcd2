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
        guard visited.insert(n.ref).inserted else { throw damaged(.cycle(.clusterTree, ref: n.ref), at: n.ref) }
        guard depth < Self.maxTreeDepth else { throw damaged(.tooDeep(.clusterTree, levels: Self.maxTreeDepth), at: n.ref) }
        guard n.hasRefs, n.count >= 1 else { throw damaged(.noReferences(.clusterNode), at: n.ref) }
        if n.isInner {
            guard n.count >= 3 else { throw damaged(.tooFewSlots(.clusterInner, has: n.count, needs: 3), at: n.ref) }
            let keyOffsets = try childRef(n, 0).map { r throws(PFError) in try node(r) }
            let subDepth = try tagged(n, 1, .clusterDepth)
            guard subDepth >= 0, subDepth < 8 else { throw damaged(.clusterDepth(subDepth), at: n.ref) }
            for i in 3..<n.count {
                let childOffset: Int64
                if let keyOffsets {
                    childOffset = Int64(bitPattern: try uint(keyOffsets, i - 3))
                } else {
                    childOffset = Int64(i - 3) << (8 * subDepth)
                }
                try walkCluster(try child(n, i, .clusterChild), offset: offset &+ childOffset, depth: depth + 1, visited: &visited, body)
            }
            return
        }
        let first = try int(n, 0)
        var keys: [Int64] = []
        if first & 1 == 1 {
            let count = Int(first >> 1)
            guard count >= 0, count <= n.byteSize * 8 + 1_000 else { throw damaged(.clusterObjectCount(count), at: n.ref) }
            try spend(count, at: n.ref)
            keys = (0..<count).map { offset &+ Int64($0) }
        } else {
            let keyNode = try child(n, 0, .clusterKeys)
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
            throw damaged(.columnWithoutLeaf(column: column.name, slot: slot, slots: leaf.node.count), at: leaf.node.ref)
        }
        let n = try child(leaf.node, slot, .columnLeaf(column.name))
        let values: [RealmValue]
        if column.collection == .none {
            values = try leafValues(n, column)
        } else {
            // One collection per object: a reference to its root, or 0 when empty.
            guard n.hasRefs || n.count == 0 else { throw damaged(.noReferences(.collectionColumn(column.name)), at: n.ref) }
            var out: [RealmValue] = []
            out.reserveCapacity(n.count)
            for i in 0..<n.count {
                let ref = try childRef(n, i)
                out.append(try collection(ref, column, depth: 0))
            }
            values = out
        }
        guard values.count == leaf.keys.count else {
            throw damaged(.columnValues(column: column.name, values: values.count, objects: leaf.keys.count), at: n.ref)
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
        guard top.hasRefs else { throw damaged(.noReferences(.dictionary), at: top.ref) }
        guard top.count >= 2 else { throw damaged(.tooFewSlots(.dictionary, has: top.count, needs: 2), at: top.ref) }
        let keys = try stringValues(try child(top, 0, .dictionaryKeys), nullable: false)
        var valueType = valueColumn
        valueType.type = .mixed
        let values = try bptreeValues(try child(top, 1, .dictionaryValues), valueType, depth: depth)
        guard keys.count == values.count else { throw damaged(.dictionaryEntries(entries: nil, keys: keys.count, values: values.count), at: top.ref) }
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
                throw damaged(.tooFewSlots(.dictionaryCluster(column.name), has: leaf.node.count, needs: 3), at: leaf.node.ref)
            }
            let keys = try stringValues(try child(leaf.node, 1, .dictionaryKeys), nullable: false)
            let values = try mixedValues(try child(leaf.node, 2, .dictionaryValues))
            guard keys.count == leaf.keys.count, values.count == leaf.keys.count else {
                throw damaged(.dictionaryEntries(entries: leaf.keys.count, keys: keys.count, values: values.count), at: leaf.node.ref)
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
        guard leaf.hasRefs else { throw damaged(.noReferences(.mixedLeaf), at: leaf.ref) }
        guard leaf.count >= 1 else { throw damaged(.tooFewSlots(.mixedLeaf, has: leaf.count, needs: 1), at: leaf.ref) }
        let composite = try ints(try child(leaf, 0, .mixedComposite))
        func payload(_ i: Int) throws(PFError) -> RealmNode {
            guard i < leaf.count else { throw damaged(.tooFewSlots(.mixedLeaf, has: leaf.count, needs: i + 1), at: leaf.ref) }
            return try child(leaf, i, .mixedPayload(i))
        }
        var intsNode: RealmNode?
        var pairsNode: RealmNode?
        var strings: [[UInt8]?]?
        func intPayload(_ i: Int64) throws(PFError) -> Int64 {
            if intsNode == nil { intsNode = try payload(1) }
            guard let n = intsNode, i >= 0, i < Int64(n.count) else { throw damaged(.indexOutOfRange(.mixedInt, index: i, count: intsNode?.count ?? 0), at: leaf.ref) }
            return try int(n, Int(i))
        }
        func pairPayload(_ i: Int64) throws(PFError) -> (Int64, Int64) {
            if pairsNode == nil { pairsNode = try payload(2) }
            guard let n = pairsNode, i >= 0, i < Int64(n.count / 2) else { throw damaged(.indexOutOfRange(.mixedPair, index: i, count: (pairsNode?.count ?? 0) / 2), at: leaf.ref) }
            return (try int(n, Int(i) * 2), try int(n, Int(i) * 2 + 1))
        }
        func stringPayload(_ i: Int64) throws(PFError) -> [UInt8] {
            if strings == nil { strings = try blobLeaf(try payload(3), nullable: true, strings: true) }
            guard let s = strings, i >= 0, i < Int64(s.count), let value = s[Int(i)] else {
                throw damaged(.indexOutOfRange(.mixedString, index: i, count: strings?.count ?? 0), at: leaf.ref)
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
                guard b.count >= 12 else { throw damaged(.mixedBytes(.mixedObjectId, count: b.count), at: leaf.ref) }
                out.append(.objectId(Data(b.prefix(12))))
            case 17:
                let b = try stringPayload(data)
                guard b.count >= 16 else { throw damaged(.mixedBytes(.mixedUUID, count: b.count), at: leaf.ref) }
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
        guard leaf.count > 4 else { throw damaged(.tooFewSlots(.mixedLeaf, has: leaf.count, needs: 5), at: leaf.ref) }
        let refs = try child(leaf, 4, .mixedCollections)
        guard index >= 0, index < Int64(refs.count) else { throw damaged(.indexOutOfRange(.mixedCollection, index: index, count: refs.count), at: refs.ref) }
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
