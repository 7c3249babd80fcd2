/// A side's rows by key while they fit in memory (``RowIndex``, with ``RowIndex/Record``
/// values): an open-addressing hash table in place of a `[String: Record]`, built for a
/// million keys looked up once each.
///
/// Entries sit in one array in the order they were first added (key, its hash, its value:
/// 72 bytes each for a record), and the table holds, per slot, the entry's number and 32 bits of its hash:
/// a lookup touches one slot and, almost always, only the entry it is after. A key's hash
/// (Swift's `Hasher`, seeded at random per process, so keys cannot be made to collide on
/// purpose) is computed once, where the row is read, and travels with the row
/// (``RowPass/KeyedRow``; ``RowIndex/hash(_:)``), so the thread that looks keys up does not hash them again.
/// Keys are compared in full: equal hashes are not taken for equal keys.
struct RowTable<Value> {
    /// A key, its hash and its value.
    struct Entry {
        var key: String
        var hash: Int
        var value: Value
    }

    /// The entries, in the order their keys were first added.
    private(set) var entries: [Entry] = []
    /// Per slot: 0 when empty, else the entry's number + 1 in the low 32 bits and the upper
    /// 32 bits of its hash above.
    private var slots: [UInt64] = []
    private var mask = 0

    var count: Int { entries.count }

    /// Room for `capacity` keys without growing.
    mutating func reserveCapacity(_ capacity: Int) {
        entries.reserveCapacity(capacity)
        if Self.slotCount(for: capacity) > slots.count { rehash(Self.slotCount(for: capacity)) }
    }

    /// At most half full: a power of two at least twice `count`, and at least 16.
    private static func slotCount(for count: Int) -> Int {
        var n = 16
        while n < count * 2 { n *= 2 }
        return n
    }

    private static func tag(_ hash: Int) -> UInt64 { UInt64(UInt(bitPattern: hash)) >> 32 }

    /// The number of the entry holding `key`, or `nil`.
    func find(_ key: String, hash: Int) -> Int? {
        guard !slots.isEmpty else { return nil }
        let tag = Self.tag(hash)
        return slots.withUnsafeBufferPointer { slots in
            entries.withUnsafeBufferPointer { entries in
                var i = hash & mask
                while true {
                    let slot = slots[i]
                    if slot == 0 { return nil }
                    if slot >> 32 == tag {
                        let n = Int(truncatingIfNeeded: slot & 0xFFFF_FFFF) - 1
                        if entries[n].key == key { return n }
                    }
                    i = (i + 1) & mask
                }
            }
        }
    }

    /// The number of the entry holding `key`, or `nil`, trying entry `hint` first: when the
    /// keys are looked up in about the order they were added (two exports of one database
    /// list their objects alike), the guess is right and the lookup reads the entries in
    /// order instead of a slot at random. A wrong guess costs one comparison of hashes.
    func find(_ key: String, hash: Int, hint: Int) -> Int? {
        if hint >= 0, hint < entries.count, entries[hint].hash == hash, entries[hint].key == key { return hint }
        return find(key, hash: hash)
    }

    /// Sets `key`'s value: a key already held keeps its place and takes the new value.
    mutating func set(_ key: String, hash: Int, _ value: Value) {
        if let n = find(key, hash: hash) {
            entries[n].value = value
            return
        }
        if (entries.count + 1) * 2 > slots.count { rehash(Self.slotCount(for: max(entries.count + 1, slots.count))) }
        entries.append(Entry(key: key, hash: hash, value: value))
        insert(entries.count - 1, hash: hash)
    }

    /// Changes entry `n`'s value in place.
    mutating func update(_ n: Int, _ body: (inout Value) -> Void) { body(&entries[n].value) }

    private mutating func insert(_ n: Int, hash: Int) {
        let value = Self.tag(hash) << 32 | UInt64(n + 1)
        let mask = self.mask
        slots.withUnsafeMutableBufferPointer { slots in
            var i = hash & mask
            while slots[i] != 0 { i = (i + 1) & mask }
            slots[i] = value
        }
    }

    private mutating func rehash(_ size: Int) {
        slots = Array(repeating: 0, count: size)
        mask = size - 1
        for n in entries.indices { insert(n, hash: entries[n].hash) }
    }

    /// Empties the table and frees its memory.
    mutating func removeAll() {
        entries = []
        slots = []
        mask = 0
    }
}

extension RowTable: Sendable where Value: Sendable {}
extension RowTable.Entry: Sendable where Value: Sendable {}
