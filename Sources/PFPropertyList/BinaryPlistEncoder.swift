import Foundation
import PFCore

/// The writer's working state: flattens a tree into a numbered object table, then lays the
/// objects, the offset table and the trailer out in one `[UInt8]` buffer.
///
/// Pass one (``flatten(_:depth:)``) numbers objects in CF's order, interns equal scalars,
/// and encodes every scalar's bytes into `scalarBytes` right away; containers record their
/// children's indices in `refs`. Pass two (``serializedData()``) knows the object count, so it
/// can choose the reference width and write the containers.
struct BinaryPlistEncoder {
    /// One numbered object: a byte range of `scalarBytes`, or a container's range of `refs`.
    struct Entry {
        enum Kind: UInt8 { case scalar, array, dictionary }
        var kind: Kind
        var start: Int
        /// Bytes for a scalar; elements (members for a dictionary) for a container.
        var count: Int
    }

    let options: BinaryPlistWriter.Options
    var entries: [Entry] = []
    var scalarBytes: [UInt8] = []
    /// Children's object indices; a dictionary's keys, then its values.
    var refs: [Int] = []
    /// Indices of the children of the containers being flattened, moved to `refs` when a
    /// container is done (so the refs of one container stay contiguous without a
    /// per-container array).
    var pending: [Int] = []

    /// Open-addressing table of interned scalars: entry index, or -1 for an empty slot.
    var slots: [Int] = Array(repeating: -1, count: 1024)
    /// Each slot's full hash, beside it: a probe compares hashes before touching the entry
    /// and its bytes, and growing the table never hashes a scalar twice.
    var slotHashes: [UInt64] = Array(repeating: 0, count: 1024)
    var internedCount = 0
    /// The slots in use, so that clearing the table for the next value (the stream writers
    /// flatten a value per record, a keyed archive's per object) touches those only.
    var usedSlots: [Int] = []
    /// Per-writer hash seed, so colliding inputs cannot be prepared in advance.
    let seed = UInt64.random(in: 1...UInt64.max)

    static let format = BinaryPlistLayout.format

    init(options: BinaryPlistWriter.Options) {
        self.options = options
    }

    // MARK: - Pass one: numbering and scalars

    /// Numbers `value` and its children and returns its object index.
    mutating func flatten(_ value: PFValue, depth: Int) throws(PFError) -> Int {
        switch value {
        case .array(let items):
            try checkDepth(depth + 1)
            let index = newContainer(.array)
            let base = pending.count
            for (i, item) in items.enumerated() {
                if case .null = item, options.nullPolicy == .drop { continue }
                do throws(PFError) {
                    pending.append(try flatten(item, depth: depth + 1))
                } catch {
                    throw error.prefixed(.index(i))
                }
            }
            finishContainer(index, base: base)
            return index
        case .dictionary(let members):
            try checkDepth(depth + 1)
            let index = newContainer(.dictionary)
            let base = pending.count
            let drop = options.nullPolicy == .drop
            for (key, member) in members {
                if drop, case .null = member { continue }
                pending.append(internString(key))
            }
            for (key, member) in members {
                if drop, case .null = member { continue }
                do throws(PFError) {
                    pending.append(try flatten(member, depth: depth + 1))
                } catch {
                    throw error.prefixed(.key(key))
                }
            }
            finishContainer(index, base: base)
            return index
        case .string(let s):
            return internString(s)
        case .int(let v):
            let start = scalarBytes.count
            appendInt(v)
            return internScalar(from: start)
        case .uint(let v):
            if let small = Int64(exactly: v) { return try flatten(.int(small), depth: depth) }
            let start = scalarBytes.count
            scalarBytes.append(BinaryPlistMarker.Byte.int128)
            scalarBytes.append(contentsOf: repeatElement(0, count: 8))
            appendBigEndian(v, size: 8)
            return internScalar(from: start)
        case .double(let d):
            let start = scalarBytes.count
            scalarBytes.append(BinaryPlistMarker.Byte.float64)
            appendBigEndian(d.bitPattern, size: 8)
            return internScalar(from: start)
        case .bool(let b):
            let start = scalarBytes.count
            scalarBytes.append(b ? BinaryPlistMarker.Byte.trueValue : BinaryPlistMarker.Byte.falseValue)
            return internScalar(from: start)
        case .date(let date):
            let t = date.timeIntervalSinceReferenceDate
            guard t.isFinite else {
                throw PFError(BinaryPlistFailure.unwritableDate(t), path: .root)
            }
            let start = scalarBytes.count
            scalarBytes.append(BinaryPlistMarker.Byte.date)
            appendBigEndian(t.bitPattern, size: 8)
            return internScalar(from: start)
        case .data(let data):
            let start = scalarBytes.count
            appendMarker(BinaryPlistMarker.data, count: data.count)
            scalarBytes.append(contentsOf: data)
            return internScalar(from: start)
        case .uid(let uid):
            guard uid <= UInt64(UInt32.max) else {
                throw PFError(BinaryPlistFailure.unwritableUID(uid), path: .root)
            }
            let start = scalarBytes.count
            let size = uid <= 0xFF ? 1 : uid <= 0xFFFF ? 2 : 4
            scalarBytes.append((BinaryPlistMarker.uid.rawValue << 4) | UInt8(size - 1))
            appendBigEndian(uid, size: size)
            // UIDs are not interned (plistlib does not share them either): a keyed archive
            // holds one per reference, nearly all distinct, so hashing them costs more than
            // the few bytes sharing would save.
            entries.append(Entry(kind: .scalar, start: start, count: scalarBytes.count - start))
            return entries.count - 1
        case .null:
            guard options.nullPolicy == .writeNullMarker else {
                throw PFError(BinaryPlistFailure.unwritableNull, path: .root)
            }
            let start = scalarBytes.count
            scalarBytes.append(BinaryPlistMarker.Byte.null)
            return internScalar(from: start)
        }
    }

    private mutating func internString(_ s: String) -> Int {
        let start = scalarBytes.count
        appendString(s)
        return internScalar(from: start)
    }

    private func checkDepth(_ depth: Int) throws(PFError) {
        guard depth <= options.maxDepth else {
            throw PFError(BinaryPlistFailure.tooDeep(maxDepth: options.maxDepth), path: .root)
        }
    }

    // MARK: - Entries

    private mutating func newContainer(_ kind: Entry.Kind) -> Int {
        entries.append(Entry(kind: kind, start: 0, count: 0))
        return entries.count - 1
    }

    /// Moves the container's children from `pending` to `refs`.
    private mutating func finishContainer(_ index: Int, base: Int) {
        let start = refs.count
        refs.append(contentsOf: pending[base...])
        pending.removeSubrange(base...)
        let total = refs.count - start
        entries[index].start = start
        entries[index].count = entries[index].kind == .dictionary ? total / 2 : total
    }
}

// MARK: - Interning

extension BinaryPlistEncoder {
    /// Makes the scalar just encoded at `scalarBytes[start...]` an object, or, when an
    /// equal one exists, drops the new bytes and returns the existing object's index.
    ///
    /// Scalars are interned by their encoded bytes: an encoding names its type and value
    /// exactly, so `1`, `1.0` and `true` stay apart, `0.0` and `-0.0` stay apart, and strings
    /// are compared by their exact characters (Swift's `String ==` would merge canonically
    /// equivalent strings such as `"é"` and `"e\u{301}"` and change the text) — this is
    /// how CF's value equality behaves for property list scalars.
    mutating func internScalar(from start: Int) -> Int {
        let count = scalarBytes.count - start
        let hash = hashBytes(start, count)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let candidate = slots[slot]
            if candidate < 0 { break }
            if slotHashes[slot] == hash {
                let entry = entries[candidate]
                if entry.count == count && bytesEqual(entry.start, start, count) {
                    scalarBytes.removeLast(count)
                    return candidate
                }
            }
            slot = (slot + 1) & mask
        }
        entries.append(Entry(kind: .scalar, start: start, count: count))
        let index = entries.count - 1
        slots[slot] = index
        slotHashes[slot] = hash
        usedSlots.append(slot)
        internedCount += 1
        if internedCount * 2 > slots.count { growSlots() }
        return index
    }

    private mutating func growSlots() {
        var grown = [Int](repeating: -1, count: slots.count * 2)
        var grownHashes = [UInt64](repeating: 0, count: slots.count * 2)
        let mask = grown.count - 1
        usedSlots.removeLast(usedSlots.count)
        for old in slots.indices where slots[old] >= 0 {
            let hash = slotHashes[old]
            var slot = Int(truncatingIfNeeded: hash) & mask
            while grown[slot] >= 0 { slot = (slot + 1) & mask }
            grown[slot] = slots[old]
            grownHashes[slot] = hash
            usedSlots.append(slot)
        }
        slots = grown
        slotHashes = grownHashes
    }

    /// A seeded 64-bit hash of `scalarBytes[start..<start + count]`, eight bytes at a time.
    private func hashBytes(_ start: Int, _ count: Int) -> UInt64 {
        scalarBytes.withUnsafeBytes { raw in Self.hash(raw, start, count, seed: seed) }
    }

    /// A seeded 64-bit hash of `raw[start..<start + count]`, eight bytes at a time (the one
    /// scalar hash of the tree writer and ``BinaryPlistStreamWriter``'s shared scalars).
    static func hash(_ raw: UnsafeRawBufferPointer, _ start: Int, _ count: Int, seed: UInt64) -> UInt64 {
        var h = seed ^ (UInt64(count) &* 0x9E37_79B9_7F4A_7C15)
        var i = start
        let end = start + count
        while i + 8 <= end {
            h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
            h ^= h >> 29
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < end {
            tail |= UInt64(raw[i]) << shift
            shift += 8
            i += 1
        }
        // Final avalanche (MurmurHash3's fmix64), so the low bits used as slots depend on
        // every input bit.
        h ^= tail
        h ^= h >> 33
        h = h &* 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        h = h &* 0xC4CE_B9FE_1A85_EC53
        h ^= h >> 33
        return h
    }

    /// Empties the encoder for the next value, keeping its buffers' capacity (the stream
    /// writer flattens one record at a time). The interning table's used slots are cleared
    /// while it is small (not the whole table: a keyed archive's objects intern a few scalars
    /// each), and it is made small again after a large value.
    mutating func reset() {
        entries.removeAll(keepingCapacity: true)
        scalarBytes.removeAll(keepingCapacity: true)
        refs.removeAll(keepingCapacity: true)
        pending.removeAll(keepingCapacity: true)
        guard internedCount > 0 else { return }
        internedCount = 0
        if slots.count > 4096 {
            slots = Array(repeating: -1, count: 1024)
            slotHashes = Array(repeating: 0, count: 1024)
        } else {
            for slot in usedSlots { slots[slot] = -1 }
        }
        usedSlots.removeLast(usedSlots.count)
    }

    private func bytesEqual(_ a: Int, _ b: Int, _ count: Int) -> Bool {
        scalarBytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return count == 0 }
            return memcmp(base + a, base + b, count) == 0
        }
    }
}
