import Foundation
import PFCore

extension RealmFile {
    // MARK: Strings and binaries

    /// Every string of a string leaf or B+tree (`nil` for null), as bytes without the
    /// terminating zero. Handles the three leaf forms: short (fixed slots, the last byte of a
    /// slot saying how much of it is padding), medium (offsets, a blob and a null list), big
    /// (one blob node per string, context flag set).
    func stringValues(_ root: RealmNode, nullable: Bool) throws(PFError) -> [[UInt8]?] {
        var visited = Set<Int>()
        var out: [[UInt8]?] = []
        for leaf in try bptreeLeaves(root, visited: &visited) { out += try blobLeaf(leaf, nullable: nullable, strings: true) }
        return out
    }

    /// The values of one string or binary leaf. Strings carry a terminating zero in the
    /// medium and big forms, which is dropped.
    func blobLeaf(_ n: RealmNode, nullable: Bool, strings: Bool) throws(PFError) -> [[UInt8]?] {
        try spend(n.count, at: n.ref)
        var out: [[UInt8]?] = []
        out.reserveCapacity(n.count)
        if n.hasRefs && n.context {
            // Big: one blob per value.
            for i in 0..<n.count {
                guard let ref = try childRef(n, i) else {
                    out.append(nil)
                    continue
                }
                let blob = try node(ref)
                guard blob.widthType == 2, !blob.hasRefs else { throw damaged(.notKind(.bigString, expected: .bytes), at: blob.ref) }
                var value = Array(try payloadBytes(blob, from: 0, count: blob.count))
                if strings {
                    guard value.last == 0 else { throw damaged(.unterminatedString(big: true), at: blob.ref) }
                    value.removeLast()
                }
                out.append(value)
            }
        } else if n.hasRefs {
            // Medium (small blobs): [offsets, blob, nulls].
            guard n.count >= 2 else { throw damaged(.tooFewSlots(.mediumString, has: n.count, needs: 2), at: n.ref) }
            let offsets = try child(n, 0, .stringOffsets)
            let blob = try child(n, 1, .stringBlob)
            let nulls = n.count > 2 ? try childRef(n, 2).map { r throws(PFError) in try node(r) } : nil
            guard blob.widthType == 2 else { throw damaged(.notKind(.stringBlob, expected: .bytes), at: blob.ref) }
            try spend(offsets.count, at: offsets.ref)
            var begin: Int64 = 0
            for i in 0..<offsets.count {
                let end = try int(offsets, i)
                guard end >= begin, end <= Int64(blob.count) else {
                    throw damaged(.stringOffset(end, blobBytes: blob.count), at: offsets.ref)
                }
                if let nulls, i < nulls.count, try int(nulls, i) != 0 {
                    out.append(nil)
                } else {
                    var value = Array(try payloadBytes(blob, from: Int(begin), count: Int(end - begin)))
                    if strings {
                        guard value.last == 0 else { throw damaged(.unterminatedString(big: false), at: blob.ref) }
                        value.removeLast()
                    }
                    out.append(value)
                }
                begin = end
            }
        } else {
            // Short: fixed slots of `width` bytes.
            guard n.widthType == 1 else { throw damaged(.notKind(.shortString, expected: .fixedSlots), at: n.ref) }
            let w = n.width
            for i in 0..<n.count {
                if w == 0 {
                    out.append(nullable ? nil : [])
                    continue
                }
                let slot = n.payload + i * w
                let pad = Int(bytes[slot + w - 1])
                if pad == w {
                    out.append(nil)
                    continue
                }
                guard pad <= w - 1 else { throw damaged(.shortStringPadding(pad, width: w), at: n.ref) }
                out.append(Array(bytes[slot..<(slot + w - 1 - pad)]))
            }
        }
        return out
    }

    /// Bytes as a string (invalid UTF-8 repaired).
    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    // MARK: Column leaves

    /// The values of one leaf of a column (or of a collection's B+tree) of a given element type.
    /// - Parameters:
    ///   - leaf: the leaf.
    ///   - column: the column (type, nullability, link target, enumerated strings).
    ///   - linkAdjust: what is added to an object key when stored (1 in link columns, where 0
    ///     is null; 0 in lists of links).
    func leafValues(_ leaf: RealmNode, _ column: RealmColumn, linkAdjust: Int64 = 1) throws(PFError) -> [RealmValue] {
        switch column.type {
        case .int:
            if column.isNullable {
                let all = try ints(leaf)
                guard let null = all.first else { return [] }
                return all.dropFirst().map { $0 == null ? .null : .int($0) }
            }
            return try ints(leaf).map { .int($0) }
        case .bool:
            return try ints(leaf).map { $0 == 3 && column.isNullable ? .null : .bool($0 != 0) }
        case .string:
            if let enumRef = column.enumKeysRef {
                let keys = try stringValues(try node(enumRef), nullable: column.isNullable)
                return try ints(leaf).map { (i: Int64) throws(PFError) -> RealmValue in
                    guard i >= 0, i < Int64(keys.count) else { throw damaged(.indexOutOfRange(.enumeratedString, index: i, count: keys.count), at: leaf.ref) }
                    return keys[Int(i)].map { .string(Self.text($0)) } ?? .null
                }
            }
            return try blobLeaf(leaf, nullable: column.isNullable, strings: true).map { $0.map { .string(Self.text($0)) } ?? .null }
        case .binary:
            return try blobLeaf(leaf, nullable: column.isNullable, strings: false).map { $0.map { .binary(Data($0)) } ?? .null }
        case .float:
            guard leaf.widthType == 1, leaf.width == 4 || leaf.count == 0 else { throw damaged(.width(.floatLeaf, leaf.width), at: leaf.ref) }
            try spend(leaf.count, at: leaf.ref)
            return (0..<leaf.count).map { i in
                let bits = UInt32(truncatingIfNeeded: UInt64(le: bytes, leaf.payload + 4 * i, 4))
                return column.isNullable && bits == 0x7fc0_00aa ? .null : .float(Float(bitPattern: bits))
            }
        case .double:
            guard leaf.widthType == 1, leaf.width == 8 || leaf.count == 0 else { throw damaged(.width(.doubleLeaf, leaf.width), at: leaf.ref) }
            try spend(leaf.count, at: leaf.ref)
            return (0..<leaf.count).map { i in
                let bits = UInt64(le: bytes, leaf.payload + 8 * i, 8)
                return column.isNullable && bits == 0x7ff8_0000_0000_00aa ? .null : .double(Double(bitPattern: bits))
            }
        case .timestamp:
            guard leaf.hasRefs else { throw damaged(.noReferences(.timestampLeaf), at: leaf.ref) }
            guard leaf.count >= 2 else { throw damaged(.tooFewSlots(.timestampLeaf, has: leaf.count, needs: 2), at: leaf.ref) }
            let seconds = try ints(try child(leaf, 0, .timestampSeconds))
            let nanos = try child(leaf, 1, .timestampNanoseconds)
            guard let null = seconds.first, nanos.count == seconds.count - 1 else {
                throw damaged(.timestampHalves(seconds: seconds.count - 1, nanoseconds: nanos.count), at: leaf.ref)
            }
            var out: [RealmValue] = []
            out.reserveCapacity(nanos.count)
            for i in 0..<nanos.count {
                let s = seconds[i + 1]
                out.append(s == null ? .null : .timestamp(seconds: s, nanoseconds: Int32(truncatingIfNeeded: try int(nanos, i))))
            }
            return out
        case .objectId:
            return try fixedBytes(leaf, size: 12).map { $0.map { .objectId(Data($0)) } ?? .null }
        case .uuid:
            return try fixedBytes(leaf, size: 16).map { b in
                guard let b else { return .null }
                return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
            }
        case .decimal:
            return try decimals(leaf)
        case .link, .linkList:
            guard let target = column.targetTable else { throw damaged(.linkWithoutTarget(column: column.name), at: leaf.ref) }
            return try ints(leaf).map { v in
                let key = v &- linkAdjust
                if linkAdjust == 1 && v == 0 { return .null }
                return .link(table: target, key: key)
            }
        case .mixed:
            return try mixedValues(leaf)
        case .typedLink:
            // Pairs: the target table's key + 1 (31 bits) and the object's key + 1; 0 is null.
            let all = try ints(leaf)
            guard all.count % 2 == 0 else { throw damaged(.typedLinkValues(all.count), at: leaf.ref) }
            return stride(from: 0, to: all.count, by: 2).map { i in
                all[i] == 0 ? .null : .typedLink(table: (all[i] &- 1) & 0x7FFF_FFFF, key: all[i + 1] &- 1)
            }
        case .backlink:
            return []
        }
    }

    /// ObjectId and UUID leaves: blocks of a null bitmap byte and 8 values. realm-core makes
    /// them byte arrays of width type "multiply" (width 1 once they hold a byte, width 0 while
    /// empty); width type "ignore" (a plain byte node) is read the same way.
    func fixedBytes(_ leaf: RealmNode, size: Int) throws(PFError) -> [[UInt8]?] {
        guard leaf.widthType == 2 || (leaf.widthType == 1 && (leaf.width == 1 || leaf.byteSize == 0)) else {
            throw damaged(.notKind(.fixedBytesLeaf, expected: .bytes), at: leaf.ref)
        }
        let block = 1 + 8 * size
        let full = leaf.byteSize / block
        let rest = leaf.byteSize % block
        let count = full * 8 + (rest > 0 ? (rest - 1) / size : 0)
        try spend(count, at: leaf.ref)
        var out: [[UInt8]?] = []
        out.reserveCapacity(count)
        for i in 0..<count {
            let start = leaf.payload + (i / 8) * block
            let isNull = bytes[start] >> UInt8(i % 8) & 1 == 1
            let at = start + 1 + (i % 8) * size
            out.append(isNull ? nil : Array(bytes[at..<(at + size)]))
        }
        return out
    }

    /// Decimal128 leaves: 16-byte values before format 24; 4, 8 or 16 bytes (BID32, BID64,
    /// BID128) from format 24.
    func decimals(_ leaf: RealmNode) throws(PFError) -> [RealmValue] {
        guard leaf.widthType == 1 || leaf.count == 0 else { throw damaged(.notKind(.decimalLeaf, expected: .fixedSlots), at: leaf.ref) }
        try spend(leaf.count, at: leaf.ref)
        var out: [RealmValue] = []
        for i in 0..<leaf.count {
            switch leaf.width {
            case 16:
                let low = UInt64(le: bytes, leaf.payload + 16 * i, 8)
                let high = UInt64(le: bytes, leaf.payload + 16 * i + 8, 8)
                out.append(RealmDecimal.bid128(low: low, high: high))
            case 8:
                out.append(RealmDecimal.bid64(UInt64(le: bytes, leaf.payload + 8 * i, 8)))
            case 4:
                out.append(RealmDecimal.bid32(UInt32(truncatingIfNeeded: UInt64(le: bytes, leaf.payload + 4 * i, 4))))
            case 0:
                out.append(.decimal("0"))
            default:
                throw damaged(.width(.decimalLeaf, leaf.width), at: leaf.ref)
            }
        }
        return out
    }
}
