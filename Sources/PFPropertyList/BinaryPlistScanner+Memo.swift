import PFCore

// MARK: - What a sparse read remembers

/// The collections a sparse read (``BinaryPlistScanner``'s record and lazy-array modes) has
/// decoded, or is decoding, since the last ``removeAll()``: one record's or one element's.
///
/// It is asked about every reference the element's collections hold, so it is an
/// open-addressing table with a multiplicative hash of the object number, and it forgets in
/// time proportional to what it holds: a `Dictionary` hashes with SipHash (a third of a keyed
/// archive's streamed conversion went there) and clears in time proportional to its capacity.
struct BinaryPlistSparseMemo {
    /// Per slot: the entry's position + 1, or 0 when empty. A power of two long, at least
    /// twice the entries; empty until the first entry (every scanner has a memo, and a whole
    /// read never uses it).
    private var slots: [Int] = []
    /// Per entry: its object, its slot, and what was decoded (node count -1: being decoded).
    private var objects: [Int] = []
    private var slotOfEntry: [Int] = []
    private var entries: [(value: PFValue, nodes: Int)] = []
    private var shift: UInt64

    private static let initialBits: UInt64 = 6
    /// Past this many slots, ``removeAll()`` frees the table: one huge element does not keep
    /// its memory for the rest of the read.
    private static let keptSlots = 1 << 14

    init() {
        shift = 64 - Self.initialBits
    }

    /// The number of objects remembered.
    var count: Int { objects.count }

    @inline(__always)
    private func home(_ object: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(truncatingIfNeeded: object) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The slot of `object`, or the empty slot where it would go.
    @inline(__always)
    private func slot(of object: Int) -> Int {
        let mask = slots.count - 1
        var s = home(object)
        while true {
            let position = slots[s]
            if position == 0 || objects[position - 1] == object { return s }
            s = (s + 1) & mask
        }
    }

    /// What was remembered for `object`, if anything.
    subscript(object: Int) -> (value: PFValue, nodes: Int)? {
        guard !slots.isEmpty else { return nil }
        let position = slots[slot(of: object)]
        guard position != 0 else { return nil }
        return entries[position - 1]
    }

    /// Remembers `value` (`nodes` -1: being decoded) for `object`, replacing what was there.
    mutating func set(_ object: Int, _ value: PFValue, nodes: Int) {
        if slots.isEmpty { slots = Array(repeating: 0, count: 1 << Self.initialBits) }
        let s = slot(of: object)
        let position = slots[s]
        if position != 0 {
            entries[position - 1] = (value, nodes)
            return
        }
        objects.append(object)
        slotOfEntry.append(s)
        entries.append((value, nodes))
        slots[s] = objects.count
        if objects.count * 2 > slots.count { grow() }
    }

    private mutating func grow() {
        slots = Array(repeating: 0, count: slots.count * 2)
        shift -= 1
        for (i, object) in objects.enumerated() {
            let s = slot(of: object)
            slots[s] = i + 1
            slotOfEntry[i] = s
        }
    }

    /// Forgets everything, in time proportional to what was remembered.
    mutating func removeAll() {
        if slots.count > Self.keptSlots {
            self = BinaryPlistSparseMemo()
            return
        }
        for s in slotOfEntry { slots[s] = 0 }
        objects.removeAll(keepingCapacity: true)
        slotOfEntry.removeAll(keepingCapacity: true)
        entries.removeAll(keepingCapacity: true)
    }
}

/// Scalars a sparse read decoded lately, kept across elements and records (unlike
/// ``BinaryPlistSparseMemo``): the keys of a keyed archive's objects, their class
/// references and common values are the same few objects in every element. Direct-mapped
/// by object number and holding only short scalars, so its memory is fixed; decoding a
/// scalar depends on its bytes only, so a value found here is the one decoding would give.
struct BinaryPlistScalarCache {
    /// Per slot: the object whose value it holds (object numbers are not negative), or -1.
    /// Empty until the first value is kept: every scanner has a cache, and a whole read (or a
    /// small payload, such as one of a database's blobs) keeps nothing in it, so it must cost
    /// nothing there.
    private var objects: [Int] = []
    private var values: [PFValue] = []
    private static let size = 1 << 12
    /// The longest string or data kept, in bytes.
    static let maxBytes = 64

    init() {}

    subscript(object: Int) -> PFValue? {
        guard !objects.isEmpty else { return nil }
        let s = object & (Self.size - 1)
        // Not `cond ? values[s] : nil`: PFValue is ExpressibleByNilLiteral, so that `nil`
        // would be `.null`, found.
        guard objects[s] == object else { return nil }
        return values[s]
    }

    /// Keeps `value`, the scalar decoded for `object`, unless it is a long string or data.
    /// - Returns: whether it was kept.
    mutating func keep(_ value: PFValue, for object: Int) -> Bool {
        switch value {
        case .string(let s) where s.utf8.count > Self.maxBytes: return false
        case .data(let d) where d.count > Self.maxBytes: return false
        case .array, .dictionary: return false
        default: break
        }
        if objects.isEmpty {
            objects = Array(repeating: -1, count: Self.size)
            values = Array(repeating: .null, count: Self.size)
        }
        let s = object & (Self.size - 1)
        objects[s] = object
        values[s] = value
        return true
    }
}
