import Foundation
import PFCore

/// Writes a binary property list (`bplist00`) whose values arrive one at a time — the records
/// of a top-level array or results wrapper — in memory bounded by the largest value plus a
/// few bytes per object, instead of the whole tree ``BinaryPlistWriter`` holds.
///
/// A binary property list numbers its objects, and containers point at their children by
/// number, so a value's objects are written as soon as it is flattened: each value is
/// numbered depth-first (by the tree writer's own flattening), its objects take the next
/// free numbers and go straight to the output, and only each object's offset and each
/// record's number are kept (as differences from the one before, about a byte each). The container that holds
/// the records is written last, and the trailer names it as the top object; readers take
/// objects in any order. The offset-table width is chosen at the end, from the table's
/// offset; the reference width must be chosen before the first reference is written, so it
/// comes from an upper bound on the object count given up front (an input of `n` bytes
/// yields at most `n` objects: every JSON or CBOR value, key included, takes at least one
/// byte of its own).
///
/// Uniquing: CoreFoundation's writer (and Python's plistlib) write each distinct string,
/// number, date and data once, whatever the file's size. Here equal scalars are shared
/// within a value, as the tree writer shares them, and across values only when their
/// encoding is at most ``maxSharedLength`` bytes, and only the first ``maxSharedScalars``
/// of them (at most ``maxSharedBytes`` bytes in all): dictionary keys and short repeated
/// values, which are most of a record's objects, are written once; long or rare values may
/// be written again. The format permits duplicates, so the file reads back to the same
/// value; it is not byte for byte the tree writer's file (the root comes last and the
/// reference width may be larger).
///
/// ```swift
/// var writer = BinaryPlistStreamWriter(objectBound: input.count + 4)
/// var out: [UInt8] = []
/// for record in records { try writer.appendRecord(record, depth: 1, into: &out) }
/// let root = try writer.writeRecordArray(into: &out) { _ in }
/// try writer.finish(root: root, into: &out) { bytes in file.write(Data(bytes)) }
/// ```
public struct BinaryPlistStreamWriter {
    /// Where a long run of bytes (the records' array, the offset table) is handed off in
    /// pieces: it receives the bytes gathered so far, which are then dropped.
    public typealias Output = (UnsafeRawBufferPointer) throws(PFError) -> Void

    /// Scalars whose encoding is longer than this are never shared across values.
    public static let maxSharedLength = 64
    /// The most scalars shared across values.
    public static let maxSharedScalars = 1 << 18
    /// The most bytes of shared scalars kept.
    public static let maxSharedBytes = 8 << 20

    /// The writer's options (null policy and depth limit), as ``BinaryPlistWriter``'s.
    public let options: BinaryPlistWriter.Options
    /// Bytes per object reference, chosen from the object bound.
    public let objectRefSize: Int
    /// The object numbers available: every number is below this.
    let numberLimit: Int

    var encoder: BinaryPlistEncoder
    /// Each object's offset in the file, by number (rising, about a byte each).
    var offsets = DeltaList()
    /// The numbers of the records appended so far.
    var records = DeltaList()
    /// The first record's number (the root when the document is one record read whole).
    public var firstRecord: Int? { records.first }
    /// Bytes written so far (the next object's offset).
    var position = 0
    var shared = SharedScalars()
    /// Per value: each flattened object's number, and whether this value writes it.
    var numbers: [Int] = []
    var fresh: [Bool] = []
    /// A container's encoding, looked up among the shared objects.
    var containerKey: [UInt8] = []
    /// Whether UIDs are shared across values like other short scalars (a keyed archive's
    /// references to its classes and keys recur in every object).
    let sharesUIDs: Bool
    /// Whether short containers whose children are all shared are shared too.
    let sharesContainers: Bool

    /// Makes a writer.
    /// - Parameters:
    ///   - options: the null policy and depth limit.
    ///   - objectBound: the most objects the file will hold (the references' width is the
    ///     smallest that numbers them); more fail with ``BinaryPlistFailure/tooManyObjects(objectRefSize:)``.
    ///   - sharesUIDs: whether equal UIDs are shared across values too (the tree writer shares
    ///     none; every reader resolves a shared reference to the same value).
    ///   - maxSharedScalars: the most scalars shared across values (at most ``maxSharedScalars``).
    ///   - sharesContainers: whether an array or dictionary is shared too when its children
    ///     are all objects written before (shared) and its encoding is at most
    ///     ``maxSharedLength`` bytes — an empty array, a keyed archive's `NSDictionary` of
    ///     shared keys and values. The tree writer shares no containers; every reader
    ///     resolves a shared container to the same value.
    public init(
        options: BinaryPlistWriter.Options = .init(), objectBound: Int, sharesUIDs: Bool = false,
        maxSharedScalars: Int = BinaryPlistStreamWriter.maxSharedScalars, sharesContainers: Bool = false
    ) {
        self.options = options
        self.sharesUIDs = sharesUIDs
        self.sharesContainers = sharesContainers
        shared.capacity = min(maxSharedScalars, Self.maxSharedScalars)
        encoder = BinaryPlistEncoder(options: options)
        objectRefSize = BinaryPlistEncoder.byteCount(max(1, objectBound))
        numberLimit = objectRefSize >= 8 ? Int.max : 1 << (8 * objectRefSize)
    }

    /// The objects written so far.
    public var objectCount: Int { offsets.count }
    /// The records appended so far.
    public var recordCount: Int { records.count }
    /// The scalars kept for sharing across values so far (it grows when a value written
    /// adds one, up to ``maxSharedScalars``).
    public var sharedScalarCount: Int { shared.items.count }

    /// Writes a value's objects and returns its object number.
    /// - Parameters:
    ///   - value: the value.
    ///   - depth: the containers around it in the document (its depth counts against
    ///     ``BinaryPlistWriter/Options/maxDepth`` as in the whole tree).
    ///   - out: receives the bytes.
    /// - Returns: the value's object number.
    /// - Throws: ``PFCore/PFError`` as ``BinaryPlistWriter/write(_:)`` does, with the key path
    ///   inside the value; nothing is written then.
    public mutating func write(_ value: PFValue, depth: Int, into out: inout [UInt8]) throws(PFError) -> Int {
        encoder.reset()
        _ = try encoder.flatten(value, depth: depth)
        let start = out.count
        // Number the objects: a scalar shared earlier keeps its number; the others take the
        // next ones, in the flattening order, which is also the order they are written in.
        numbers.removeAll(keepingCapacity: true)
        fresh.removeAll(keepingCapacity: true)
        encoder.scalarBytes.withUnsafeBytes { scalars in
            for entry in encoder.entries {
                let number = entry.kind == .scalar ? shared.find(scalars, entry.start, entry.count) : nil
                numbers.append(number ?? -1)
                fresh.append(number == nil)
            }
        }
        if sharesContainers {
            // The flattening numbers a container before its children, so going backwards every
            // child is settled before its container.
            for i in encoder.entries.indices.reversed() where encoder.entries[i].kind != .scalar {
                guard Self.containerEncoding(encoder.entries[i], refs: encoder.refs, numbers: numbers, fresh: fresh,
                    refSize: objectRefSize, into: &containerKey),
                    let number = containerKey.withUnsafeBytes({ key in shared.find(key, 0, key.count) })
                else { continue }
                numbers[i] = number
                fresh[i] = false
            }
        }
        var next = offsets.count
        encoder.scalarBytes.withUnsafeBytes { scalars in
            for (i, entry) in encoder.entries.enumerated() where fresh[i] {
                numbers[i] = next
                next += 1
                if entry.kind == .scalar {
                    if Self.isShareable(scalars, entry.start, entry.count, uids: sharesUIDs) {
                        shared.insert(scalars, entry.start, entry.count, number: numbers[i])
                    }
                } else if sharesContainers,
                    Self.containerEncoding(entry, refs: encoder.refs, numbers: numbers, fresh: fresh,
                        refSize: objectRefSize, into: &containerKey)
                {
                    containerKey.withUnsafeBytes { key in shared.insert(key, 0, key.count, number: numbers[i]) }
                }
            }
        }
        guard next <= numberLimit else {
            // A failed writer is not used again (its shared table may name numbers never written).
            throw PFError(BinaryPlistFailure.tooManyObjects(objectRefSize: objectRefSize), path: .root)
        }
        if position == 0 {
            out.append(contentsOf: BinaryPlistLayout.magic)
        }
        var at = position + (out.count - start)
        for (i, entry) in encoder.entries.enumerated() where fresh[i] {
            let before = out.count
            offsets.append(at)
            switch entry.kind {
            case .scalar:
                out.append(contentsOf: encoder.scalarBytes[entry.start..<(entry.start + entry.count)])
            case .array, .dictionary:
                BinaryPlistEncoder.appendMarker(entry.kind == .array ? .array : .dictionary, count: entry.count, to: &out)
                let n = entry.kind == .array ? entry.count : 2 * entry.count
                for ref in encoder.refs[entry.start..<(entry.start + n)] {
                    BinaryPlistEncoder.appendBigEndian(UInt64(numbers[ref]), size: objectRefSize, to: &out)
                }
            }
            at += out.count - before
        }
        position = at
        return numbers[0]
    }

    /// Writes a record (see ``write(_:depth:into:)``) and keeps its number for
    /// ``writeRecordArray(into:flush:)``.
    public mutating func appendRecord(_ value: PFValue, depth: Int, into out: inout [UInt8]) throws(PFError) {
        records.append(try write(value, depth: depth, into: &out))
    }

    /// Writes the array of the records appended so far and returns its object number.
    /// - Parameters:
    ///   - out: receives the bytes.
    ///   - flush: hands off `out` whenever a mebibyte has gathered.
    public mutating func writeRecordArray(into out: inout [UInt8], flush: Output) throws(PFError) -> Int {
        try writeContainer(.array, count: records.count, refs: records, into: &out, flush: flush)
    }

    /// Writes an array of objects already written and returns its object number.
    /// - Parameters:
    ///   - count: the elements.
    ///   - refs: the elements' object numbers, `count` of them.
    ///   - out: receives the bytes.
    ///   - flush: hands off `out` whenever a mebibyte has gathered.
    public mutating func writeArray(count: Int, refs: [Int], into out: inout [UInt8], flush: Output) throws(PFError) -> Int {
        try writeContainer(.array, count: count, refs: refs, into: &out, flush: flush)
    }

    // The overloads below keep the element loop specialized (a generic `Sequence` parameter
    // called from another module is not).

    /// Writes an array of the objects numbered `refs` (already written).
    package mutating func writeArray(count: Int, refs: Range<Int>, into out: inout [UInt8], flush: Output) throws(PFError) -> Int {
        try writeContainer(.array, count: count, refs: refs, into: &out, flush: flush)
    }

    /// Writes an array of objects already written, their numbers kept in a ``PFCore/DeltaList``.
    package mutating func writeArray(count: Int, refs: DeltaList, into out: inout [UInt8], flush: Output) throws(PFError) -> Int {
        try writeContainer(.array, count: count, refs: refs, into: &out, flush: flush)
    }

    /// Writes `count` UIDs, each its own object, and returns the first one's number (the
    /// others follow it).
    /// - Parameters:
    ///   - count: the UIDs.
    ///   - uids: the UIDs, `count` of them.
    ///   - out: receives the bytes.
    ///   - flush: hands off `out` whenever a mebibyte has gathered.
    /// - Throws: ``BinaryPlistFailure/tooManyObjects(objectRefSize:)`` past the object bound,
    ///   ``BinaryPlistFailure/unwritableUID(_:)`` for a UID past 32 bits.
    package mutating func writeUIDs(count: Int, uids: DeltaList, into out: inout [UInt8], flush: Output) throws(PFError) -> Int {
        let first = offsets.count
        guard count <= numberLimit - first else {
            throw PFError(BinaryPlistFailure.tooManyObjects(objectRefSize: objectRefSize), path: .root)
        }
        if position == 0 {
            out.append(contentsOf: BinaryPlistLayout.magic)
            position = BinaryPlistLayout.headerSize
        }
        var mark = out.count
        var items = uids.makeIterator()
        for _ in 0..<count {
            guard let next = items.next() else { preconditionFailure("writeUIDs(count:uids:) was given fewer UIDs than count.") }
            guard let value = UInt64(exactly: next), value <= UInt64(UInt32.max) else {
                throw PFError(BinaryPlistFailure.unwritableUID(UInt64(truncatingIfNeeded: next)), path: .root)
            }
            offsets.append(position + out.count - mark)
            // As BinaryPlistEncoder writes a UID: the fewest of 1, 2 or 4 bytes.
            let size = value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : 4
            out.append((BinaryPlistMarker.uid.rawValue << 4) | UInt8(size - 1))
            BinaryPlistEncoder.appendBigEndian(value, size: size, to: &out)
            if out.count >= 1 << 20 { try handOff(&out, mark: &mark, flush) }
        }
        position += out.count - mark
        return first
    }

    /// Writes a dictionary of objects already written and returns its object number.
    /// - Parameters:
    ///   - keys: the keys' object numbers (strings written with ``write(_:depth:into:)``).
    ///   - values: the values' object numbers, one per key.
    ///   - out: receives the bytes.
    public mutating func writeDictionary(keys: [Int], values: [Int], into out: inout [UInt8]) throws(PFError) -> Int {
        precondition(keys.count == values.count, "A dictionary has one value per key.")
        return try writeContainer(.dictionary, count: keys.count, refs: keys + values, into: &out, flush: { _ throws(PFError) in }, handsOff: false)
    }

    /// Writes a dictionary of objects already written and returns its object number, handing
    /// `out` to `flush` whenever a mebibyte has gathered (a dictionary of many members).
    /// - Parameters:
    ///   - keys: the keys' object numbers (strings written with ``write(_:depth:into:)``).
    ///   - values: the values' object numbers, one per key.
    ///   - out: receives the bytes.
    ///   - flush: receives what gathered in `out`.
    /// - Throws: what `flush` throws; ``BinaryPlistFailure/tooManyObjects(objectRefSize:)`` past the object bound.
    public mutating func writeDictionary(keys: [Int], values: [Int], into out: inout [UInt8], flush: Output) throws(PFError) -> Int {
        precondition(keys.count == values.count, "A dictionary has one value per key.")
        return try writeContainer(.dictionary, count: keys.count, refs: keys + values, into: &out, flush: flush)
    }

    /// Writes a container of `count` elements (members) whose references `refs` gives.
    private mutating func writeContainer(
        _ type: BinaryPlistMarker, count: Int, refs: some Sequence<Int>, into out: inout [UInt8], flush: Output,
        handsOff: Bool = true
    ) throws(PFError) -> Int {
        let number = offsets.count
        guard number < numberLimit else {
            throw PFError(BinaryPlistFailure.tooManyObjects(objectRefSize: objectRefSize), path: .root)
        }
        if position == 0 {
            out.append(contentsOf: BinaryPlistLayout.magic)
            position = BinaryPlistLayout.headerSize
        }
        offsets.append(position)
        var mark = out.count
        BinaryPlistEncoder.appendMarker(type, count: count, to: &out)
        let n = type == .dictionary ? 2 * count : count
        var items = refs.makeIterator()
        for _ in 0..<n {
            guard let ref = items.next() else { preconditionFailure("A container was given fewer references than its count.") }
            BinaryPlistEncoder.appendBigEndian(UInt64(ref), size: objectRefSize, to: &out)
            // Without a `flush` the bytes stay in `out` (handing them to nothing lost them).
            if handsOff && out.count >= 1 << 20 { try handOff(&out, mark: &mark, flush) }
        }
        position += out.count - mark
        return number
    }

    /// Counts the bytes gathered since `mark`, then hands `out` to `flush` and empties it.
    private mutating func handOff(_ out: inout [UInt8], mark: inout Int, _ flush: Output) throws(PFError) {
        position += out.count - mark
        try out.withBytes { raw throws(PFError) in try flush(raw) }
        out.removeAll(keepingCapacity: true)
        mark = 0
    }

    /// Writes the offset table and the trailer, naming `root` as the top object, and hands
    /// everything gathered to `flush`.
    /// - Parameters:
    ///   - root: the top object's number (a record array, a dictionary or one record).
    ///   - out: the bytes not yet handed off.
    ///   - flush: receives the rest of the file.
    public mutating func finish(root: Int, into out: inout [UInt8], flush: Output) throws(PFError) {
        let tableOffset = position
        let offsetSize = BinaryPlistEncoder.byteCount(tableOffset)
        var mark = out.count
        for offset in offsets {
            BinaryPlistEncoder.appendBigEndian(UInt64(offset), size: offsetSize, to: &out)
            if out.count >= 1 << 20 { try handOff(&out, mark: &mark, flush) }
        }
        // Trailer: five unused bytes and the sort version, the two widths, the object count,
        // the top object and the table's offset.
        out.append(contentsOf: repeatElement(0, count: 6))
        out.append(UInt8(offsetSize))
        out.append(UInt8(objectRefSize))
        BinaryPlistEncoder.appendBigEndian(UInt64(offsets.count), size: 8, to: &out)
        BinaryPlistEncoder.appendBigEndian(UInt64(root), size: 8, to: &out)
        BinaryPlistEncoder.appendBigEndian(UInt64(tableOffset), size: 8, to: &out)
        try handOff(&out, mark: &mark, flush)
    }

    /// Writes into `key` the encoding of a container whose children are all shared objects
    /// (numbered before this value) and returns `true`; returns `false`, leaving `key`
    /// undefined, when a child is not or the encoding is longer than ``maxSharedLength``.
    /// The encoding names the container's type and its children's numbers, so equal
    /// encodings are equal values.
    static func containerEncoding(
        _ entry: BinaryPlistEncoder.Entry, refs: [Int], numbers: [Int], fresh: [Bool], refSize: Int, into key: inout [UInt8]
    ) -> Bool {
        let n = entry.kind == .dictionary ? 2 * entry.count : entry.count
        // The marker takes 1 byte, 2 more past 14 elements.
        guard 1 + n * refSize <= maxSharedLength else { return false }
        for ref in refs[entry.start..<(entry.start + n)] where fresh[ref] { return false }
        key.removeLast(key.count)
        BinaryPlistEncoder.appendMarker(entry.kind == .array ? .array : .dictionary, count: entry.count, to: &key)
        for ref in refs[entry.start..<(entry.start + n)] {
            BinaryPlistEncoder.appendBigEndian(UInt64(numbers[ref]), size: refSize, to: &key)
        }
        return key.count <= maxSharedLength
    }

    /// Whether a scalar's encoding may be shared across values: short, and not a UID
    /// unless `uids` (the tree writer shares no UIDs).
    static func isShareable(_ scalars: UnsafeRawBufferPointer, _ start: Int, _ count: Int, uids: Bool) -> Bool {
        count <= maxSharedLength && (uids || scalars[start] >> 4 != BinaryPlistMarker.uid.rawValue)
    }
}

// MARK: - Storage

extension BinaryPlistStreamWriter {
    /// A bounded open-addressing table of short scalar encodings and their object numbers.
    struct SharedScalars {
        struct Item {
            var start: Int32
            var count: Int32
            var number: Int
        }

        var bytes: [UInt8] = []
        var items: [Item] = []
        /// The most items kept.
        var capacity = BinaryPlistStreamWriter.maxSharedScalars
        /// Item index per slot, or -1.
        var slots: [Int32] = Array(repeating: -1, count: 1024)
        var slotHashes: [UInt64] = Array(repeating: 0, count: 1024)
        let seed = UInt64.random(in: 1...UInt64.max)

        func find(_ raw: UnsafeRawBufferPointer, _ start: Int, _ count: Int) -> Int? {
            guard count <= BinaryPlistStreamWriter.maxSharedLength, !items.isEmpty else { return nil }
            let hash = BinaryPlistEncoder.hash(raw, start, count, seed: seed)
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: hash) & mask
            return bytes.withUnsafeBytes { kept in
                while true {
                    let candidate = Int(slots[slot])
                    if candidate < 0 { return nil }
                    if slotHashes[slot] == hash {
                        let item = items[candidate]
                        guard Int(item.count) == count else {
                            slot = (slot + 1) & mask
                            continue
                        }
                        guard count > 0, let a = kept.baseAddress, let b = raw.baseAddress else { return item.number }
                        if memcmp(a + Int(item.start), b + start, count) == 0 { return item.number }
                    }
                    slot = (slot + 1) & mask
                }
            }
        }

        /// Keeps a scalar's encoding under `number`, unless the table is full.
        mutating func insert(_ raw: UnsafeRawBufferPointer, _ start: Int, _ count: Int, number: Int) {
            guard items.count < capacity,
                bytes.count + count <= BinaryPlistStreamWriter.maxSharedBytes
            else { return }
            if (items.count + 1) * 2 > slots.count { grow() }
            let hash = BinaryPlistEncoder.hash(raw, start, count, seed: seed)
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(items.count)
            slotHashes[slot] = hash
            items.append(Item(start: Int32(bytes.count), count: Int32(count), number: number))
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[start..<(start + count)]))
        }

        private mutating func grow() {
            var grown = [Int32](repeating: -1, count: slots.count * 2)
            var grownHashes = [UInt64](repeating: 0, count: slots.count * 2)
            let mask = grown.count - 1
            for old in slots.indices where slots[old] >= 0 {
                var slot = Int(truncatingIfNeeded: slotHashes[old]) & mask
                while grown[slot] >= 0 { slot = (slot + 1) & mask }
                grown[slot] = slots[old]
                grownHashes[slot] = slotHashes[old]
            }
            slots = grown
            slotHashes = grownHashes
        }
    }
}
