import PFCore

/// One node (Realm calls it an array) of a Realm file, checked against the file's bounds.
///
/// A node is an 8-byte header — 4 checksum bytes, a flags byte (bit 7: inner B+tree node,
/// bit 6: holds references, bit 5: context flag, bits 4–3: width type, bits 2–0: log2 of the
/// width plus one), a 24-bit big-endian element count — followed by the elements. Widths
/// under 8 bits are unsigned and packed little-endian; 8, 16, 32 and 64 bits are signed.
/// The whole payload lies inside the file once a node is made, so reading its elements
/// needs no further checks.
struct RealmNode {
    /// The node's offset in the file (its reference).
    let ref: Int
    /// The header's flags byte.
    let flags: UInt8
    /// The element count.
    let count: Int
    /// Bits per element (width type 0) or bytes per element (width type 1).
    let width: Int
    /// 0: width in bits; 1: width in bytes; 2: the count is a byte count.
    let widthType: Int
    /// The payload's size in bytes.
    let byteSize: Int

    var isInner: Bool { flags & 0x80 != 0 }
    var hasRefs: Bool { flags & 0x40 != 0 }
    var context: Bool { flags & 0x20 != 0 }
    var payload: Int { ref + 8 }
}

extension RealmFile {
    /// Deepest B+tree or cluster tree followed (a real tree of 2^64 elements is 8 levels deep).
    static let maxTreeDepth = 24

    /// The node at a reference, with its header and payload checked against the file.
    /// - Parameter value: a reference read from the file.
    /// - Throws: when the reference is not a node inside the file.
    func node(_ value: Int64) throws(PFError) -> RealmNode {
        guard value >= 24, value & 7 == 0, value <= Int64(bytes.count) - 8 else {
            throw damaged(.badReference(value, fileSize: bytes.count), at: Int(clamping: value))
        }
        let ref = Int(value)
        let flags = bytes[ref + 4]
        let count = Int(bytes[ref + 5]) << 16 | Int(bytes[ref + 6]) << 8 | Int(bytes[ref + 7])
        let width = (1 << Int(flags & 7)) >> 1
        let widthType = Int(flags >> 3) & 3
        let byteSize: Int
        switch widthType {
        case 0: byteSize = (count * width + 7) >> 3
        case 1: byteSize = count * width
        case 2: byteSize = count
        default: throw damaged(.unknownWidthType, at: ref)
        }
        guard byteSize <= bytes.count - ref - 8 else {
            throw PFError(RealmFailure.nodePastEnd(bytes: byteSize, ref: ref, fileSize: bytes.count), format: Self.format, offset: ref)
        }
        return RealmNode(ref: ref, flags: flags, count: count, width: width, widthType: widthType, byteSize: byteSize)
    }

    /// Element `i` of an integer node, signed for widths of 8 bits and more.
    func int(_ node: RealmNode, _ i: Int) throws(PFError) -> Int64 {
        guard i >= 0, i < node.count else { throw damaged(.indexOutOfRange(.node, index: Int64(i), count: node.count), at: node.ref) }
        guard node.widthType == 0 else { throw damaged(.notKind(.node, expected: .integers), at: node.ref) }
        let p = node.payload
        switch node.width {
        case 0: return 0
        case 1: return Int64(bytes[p + i >> 3] >> UInt8(i & 7) & 1)
        case 2: return Int64(bytes[p + i >> 2] >> UInt8((i & 3) * 2) & 3)
        case 4: return Int64(bytes[p + i >> 1] >> UInt8((i & 1) * 4) & 15)
        case 8: return Int64(Int8(bitPattern: bytes[p + i]))
        case 16: return Int64(Int16(bitPattern: UInt16(le: bytes, p + 2 * i, 2)))
        case 32: return Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: UInt64(le: bytes, p + 4 * i, 4))))
        case 64: return Int64(bitPattern: UInt64(le: bytes, p + 8 * i, 8))
        default: throw damaged(.width(.node, node.width), at: node.ref)
        }
    }

    /// Element `i` of an unsigned node (Realm's key arrays): every width unsigned.
    func uint(_ node: RealmNode, _ i: Int) throws(PFError) -> UInt64 {
        guard i >= 0, i < node.count else { throw damaged(.indexOutOfRange(.node, index: Int64(i), count: node.count), at: node.ref) }
        guard node.widthType == 0 else { throw damaged(.notKind(.node, expected: .integers), at: node.ref) }
        switch node.width {
        case 8, 16, 32, 64: return UInt64(le: bytes, node.payload + node.width / 8 * i, node.width / 8)
        default: return UInt64(bitPattern: try int(node, i))
        }
    }

    /// Every element of an integer node.
    func ints(_ node: RealmNode) throws(PFError) -> [Int64] {
        try spend(node.count, at: node.ref)
        var out: [Int64] = []
        out.reserveCapacity(node.count)
        for i in 0..<node.count { out.append(try int(node, i)) }
        return out
    }

    /// A child reference of a node that has references: `nil` for 0 (no child) and for a
    /// tagged integer (odd).
    func childRef(_ node: RealmNode, _ i: Int) throws(PFError) -> Int64? {
        let v = try int(node, i)
        return v == 0 || v & 1 == 1 ? nil : v
    }

    /// A child node that must be present.
    func child(_ parent: RealmNode, _ i: Int, _ what: RealmFailure.Part) throws(PFError) -> RealmNode {
        guard let ref = try childRef(parent, i) else { throw damaged(.missing(what, slot: i), at: parent.ref) }
        return try node(ref)
    }

    /// A tagged integer (`value >> 1` of an odd element) of a node with references.
    func tagged(_ node: RealmNode, _ i: Int, _ what: RealmFailure.Part) throws(PFError) -> Int64 {
        let v = try int(node, i)
        guard v & 1 == 1 else { throw damaged(.notTagged(what, slot: i), at: node.ref) }
        return v >> 1
    }

    /// The raw payload bytes `[start, start + count)` of a node; the range is checked.
    func payloadBytes(_ node: RealmNode, from start: Int, count: Int) throws(PFError) -> ArraySlice<UInt8> {
        guard start >= 0, count >= 0, start <= node.byteSize, count <= node.byteSize - start else {
            throw damaged(.rangeOutsideNode(start: start, count: count, byteSize: node.byteSize), at: node.ref)
        }
        return bytes[(node.payload + start)..<(node.payload + start + count)]
    }

    /// The leaves of a B+tree (or a single leaf), in order. Inner nodes are
    /// `[offsets or elements-per-child, children…, tagged total]`; each node is visited once.
    func bptreeLeaves(_ root: RealmNode, depth: Int = 0, visited: inout Set<Int>) throws(PFError) -> [RealmNode] {
        guard visited.insert(root.ref).inserted else { throw damaged(.cycle(.bTree, ref: root.ref), at: root.ref) }
        guard root.isInner else { return [root] }
        guard depth < Self.maxTreeDepth else { throw damaged(.tooDeep(.bTree, levels: Self.maxTreeDepth), at: root.ref) }
        guard root.hasRefs else { throw damaged(.noReferences(.bTreeInner), at: root.ref) }
        guard root.count >= 2 else { throw damaged(.tooFewSlots(.bTreeInner, has: root.count, needs: 2), at: root.ref) }
        var leaves: [RealmNode] = []
        for i in 1..<(root.count - 1) {
            let c = try child(root, i, .bTreeChild)
            leaves += try bptreeLeaves(c, depth: depth + 1, visited: &visited)
        }
        return leaves
    }
}

extension UInt64 {
    /// A little-endian unsigned integer of `size` bytes at `offset` (in bounds: checked by the caller).
    init(le bytes: [UInt8], _ offset: Int, _ size: Int) {
        var v: UInt64 = 0
        var i = size - 1
        while i >= 0 {
            v = v << 8 | UInt64(bytes[offset + i])
            i -= 1
        }
        self = v
    }
}

extension UInt16 {
    init(le bytes: [UInt8], _ offset: Int, _ size: Int) {
        self = UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }
}
