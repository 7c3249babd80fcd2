import Foundation
import OrderedCollections
import PFCore

/// Decodes the objects of a validated `bplist00` buffer into a ``PFValue`` tree.
///
/// Every object is decoded at most once and remembered by its index (CF does the same for
/// immutable objects), so a file whose objects share children costs time in proportion to
/// its size. The tree it yields may still be far larger than the file — 64 arrays each
/// holding the next one twice expand to 2^63 leaves — so every object also remembers how
/// many nodes its expanded subtree has, and a read fails with `limitExceeded` as soon as the
/// root's expansion would pass ``PFLimits/maxNodes``. An object that is reached again while
/// it is still being decoded is a cycle, and an error.
///
/// The scanner owns its tables and frees them when it goes away, so it cannot be copied.
struct BinaryPlistScanner: ~Copyable {
    let buffer: UnsafeRawBufferPointer
    let info: BinaryPlistInfo
    let limits: PFLimits
    /// The end of the object area (the offset table's start): no object byte lies past it.
    let objectsEnd: Int
    /// Decoded objects by index; meaningful where `nodeCounts[index] > 0`.
    ///
    /// This and the next two tables are flat buffers of `numObjects` entries, allocated
    /// together in `init` (this one first) and freed by `deinit`. Every index used with them is an object index
    /// that `objectRef(at:)` (or `BinaryPlistInfo.parse`, for the top object) checked to be
    /// below `numObjects`, so each access is in bounds by construction; plain buffers spare
    /// the per-access uniqueness and bounds checks of arrays held in a mutating struct.
    let values: UnsafeMutablePointer<PFValue>
    /// Per object: 0 not decoded yet, -1 being decoded (on the current path), else the node
    /// count of its expanded subtree (1 for a scalar).
    let nodeCounts: UnsafeMutablePointer<Int>
    /// Per object used as a dictionary key: 0 not hashed yet, else ``keyHash(_:_:)``.
    let keyHashes: UnsafeMutablePointer<UInt64>
    /// Hashes of the keys of the dictionaries being built, a stack: each dictionary's hashes
    /// start where the buffer ended when it began, and nested ones pop theirs when done.
    var keyScratch: [UInt64] = []
    /// Scratch open-addressing table for duplicate keys in large dictionaries (index + 1).
    var duplicateTable: ContiguousArray<Int> = []
    /// Whether the scanner remembers decoded objects in `memo` (only those of the record
    /// being read, see ``BinaryPlistScanner/readRecords(begin:record:)``) instead of the flat
    /// per-object tables, which are then empty: a streamed read of a large file keeps no
    /// table that grows with its object count.
    let sparse: Bool
    /// In sparse mode, the collections decoded (or being decoded: node count -1) since the
    /// last ``resetMemo(keeping:)``, and the long scalars.
    var memo = BinaryPlistSparseMemo()
    /// In sparse mode, short scalars decoded lately, kept across resets.
    var scalarCache = BinaryPlistScalarCache()
    /// `memo.count` right after the last ``resetMemo(keeping:)`` (-1 before the first): the
    /// memo only grows between resets, so an equal count means it holds just the ancestors.
    var memoCountAtReset = -1

    init(buffer: UnsafeRawBufferPointer, info: BinaryPlistInfo, limits: PFLimits, sparse: Bool = false) {
        self.buffer = buffer
        self.info = info
        self.limits = limits
        self.objectsEnd = info.offsetTableOffset
        self.sparse = sparse
        // numObjects entries of the offset table are really present in the file, so these
        // tables grow with the input's size, not with a count it merely claims.
        let n = sparse ? 0 : info.numObjects
        // The three tables in one allocation (a database decodes a small plist per row).
        let valueBytes = n * MemoryLayout<PFValue>.stride
        let storage = UnsafeMutableRawPointer.allocate(
            byteCount: max(valueBytes + n * (MemoryLayout<Int>.stride + MemoryLayout<UInt64>.stride), 1),
            alignment: max(MemoryLayout<PFValue>.alignment, MemoryLayout<Int>.alignment, MemoryLayout<UInt64>.alignment))
        self.values = storage.bindMemory(to: PFValue.self, capacity: n)
        values.initialize(repeating: .null, count: n)
        self.nodeCounts = (storage + valueBytes).bindMemory(to: Int.self, capacity: n)
        nodeCounts.initialize(repeating: 0, count: n)
        self.keyHashes = (storage + valueBytes + n * MemoryLayout<Int>.stride).bindMemory(to: UInt64.self, capacity: n)
        keyHashes.initialize(repeating: 0, count: n)
        // One allocation for the key hashes of a typical file's dictionaries, instead of
        // regrowing from empty for every small plist (a database holds one per row).
        keyScratch.reserveCapacity(min(n, 64))
    }

    deinit {
        values.deinitialize(count: sparse ? 0 : info.numObjects)
        UnsafeMutableRawPointer(values).deallocate()  // the one allocation of all three tables
    }

    static let format = BinaryPlistLayout.format

    // MARK: - Objects

    /// Decodes object `index`, nested inside `depth` containers.
    /// - Returns: the value and the number of nodes in its expanded tree.
    mutating func decode(_ index: Int, depth: Int) throws(PFError) -> (PFValue, Int) {
        let state: Int
        if sparse {
            if let scalar = scalarCache[index] { return (scalar, 1) }
            let known = memo[index]
            if let known, known.nodes > 0 { return known }
            state = known?.nodes ?? 0
        } else {
            state = nodeCounts[index]
            if state > 0 { return (values[index], state) }
        }
        let offset = try objectOffset(index)
        if state < 0 {
            throw PFError(BinaryPlistFailure.cycle(index: index), offset: offset)
        }
        let marker = buffer[offset]
        let value: PFValue
        let count: Int
        switch BinaryPlistMarker(rawValue: marker >> 4) {
        case .array?, .set?:
            (value, count) = try decodeArray(index, at: offset, depth: depth + 1)
        case .dictionary?:
            (value, count) = try decodeDictionary(index, at: offset, depth: depth + 1)
        case let type?:
            value = try decodeScalar(type, marker: marker, at: offset)
            if sparse && scalarCache.keep(value, for: index) { return (value, 1) }
            count = 1
        case nil:
            throw PFError(BinaryPlistFailure.unknownMarker(marker), offset: offset)
        }
        if sparse {
            memo.set(index, value, nodes: count)
        } else {
            values[index] = value
            nodeCounts[index] = count
        }
        return (value, count)
    }

    /// Marks object `index` as being decoded: reaching it again before it is done is a cycle.
    @inline(__always)
    mutating func markInProgress(_ index: Int) {
        if sparse { memo.set(index, .null, nodes: -1) } else { nodeCounts[index] = -1 }
    }

    /// The offset of object `index` from the offset table, checked to lie in the object area.
    @inline(__always)
    func objectOffset(_ index: Int) throws(PFError) -> Int {
        let size = info.offsetIntSize
        let entry = info.offsetTableOffset + index * size  // index < numObjects: inside the table
        let raw = readUInt(at: entry, size: size)
        guard raw >= UInt64(BinaryPlistLayout.headerSize), raw < UInt64(objectsEnd) else {
            throw PFError(BinaryPlistFailure.objectOffset(index: index, raw: raw, objectsEnd: objectsEnd), offset: entry)
        }
        return Int(raw)
    }

    // MARK: - Collections

    private mutating func decodeArray(_ index: Int, at offset: Int, depth: Int) throws(PFError) -> (PFValue, Int) {
        try checkDepth(depth, at: offset)
        let (n, start) = try collectionCount(at: offset, refsPerElement: 1)
        markInProgress(index)
        var items: [PFValue] = []
        items.reserveCapacity(n)
        var nodes = 1
        let refSize = info.objectRefSize
        var p = start
        for i in 0..<n {
            let ref = try objectRef(at: p)
            p += refSize
            let (item, itemNodes) : (PFValue, Int)
            do throws(PFError) {
                (item, itemNodes) = try decode(ref, depth: depth)
            } catch {
                throw error.prefixed(.index(i))
            }
            nodes = try addNodes(nodes, itemNodes, at: offset)
            items.append(item)
        }
        return (.array(items), nodes)
    }

    private mutating func decodeDictionary(_ index: Int, at offset: Int, depth: Int) throws(PFError) -> (PFValue, Int) {
        try checkDepth(depth, at: offset)
        let (n, start) = try collectionCount(at: offset, refsPerElement: 2)
        markInProgress(index)
        // Keys and values are collected first and handed to the dictionary in one go, which
        // then hashes each key once and never compares keys. That needs the keys to be
        // unique, which `uniqueKeyHashes` checks with per-object cached hashes; a dictionary
        // with a repeated (or non-ASCII) key takes the general path instead.
        var keys = ContiguousArray<String>()
        var values = ContiguousArray<PFValue>()
        keys.reserveCapacity(n)
        values.reserveCapacity(n)
        var nodes = 1
        let refSize = info.objectRefSize
        let valuesStart = start + n * refSize  // checked by collectionCount
        var allASCII = true
        let base = keyScratch.count
        // Nested dictionaries push their hashes after ours and pop them before we go on.
        defer { keyScratch.removeLast(keyScratch.count - base) }
        for i in 0..<n {
            let keyRef = try objectRef(at: start + i * refSize)
            let valueRef = try objectRef(at: valuesStart + i * refSize)
            let (keyValue, _) = try decode(keyRef, depth: depth)
            guard case .string(let key) = keyValue else {
                throw PFError(
                    BinaryPlistFailure.keyNotString(index: i, kind: keyValue.kind.rawValue),
                    offset: (try? objectOffset(keyRef)) ?? offset, path: .root)
            }
            let (value, valueNodes): (PFValue, Int)
            do throws(PFError) {
                (value, valueNodes) = try decode(valueRef, depth: depth)
            } catch {
                throw error.prefixed(.key(key))
            }
            nodes = try addNodes(nodes, valueNodes, at: offset)
            if allASCII {
                let hash = keyHash(keyRef, key)
                if hash == Self.nonASCIIKey { allASCII = false } else { keyScratch.append(hash) }
            }
            keys.append(key)
            values.append(value)
        }
        if allASCII && !hasDuplicateKey(keys, hashesAt: base) {
            return (.dictionary(OrderedDictionary(uncheckedUniqueKeys: keys, values: values)), nodes)
        }
        // A repeated key keeps its first position and takes the last value, as CF and
        // plistlib do. (Non-ASCII keys come here too: Swift's `String ==` is canonical
        // equivalence, under which even "\u{212A}" (Kelvin) equals "K", so only ASCII keys
        // can be told apart by their bytes.)
        var members = OrderedDictionary<String, PFValue>(minimumCapacity: n)
        for i in 0..<n { members[keys[i]] = values[i] }
        return (.dictionary(members), nodes)
    }

    /// `keyHashes` marker for a key that is not all ASCII.
    static let nonASCIIKey: UInt64 = 2

    /// A hash of the UTF-8 bytes of string object `ref` (with the low bit set), computed once
    /// per object, or ``nonASCIIKey`` when the string has a non-ASCII byte.
    @inline(__always)
    mutating func keyHash(_ ref: Int, _ key: String) -> UInt64 {
        let cached = sparse ? 0 : keyHashes[ref]
        if cached != 0 { return cached }
        var key = key
        let hash = key.withUTF8 { bytes -> UInt64 in
            var h: UInt64 = 0x243F_6A88_85A3_08D3 ^ UInt64(bytes.count)
            var high: UInt8 = 0
            for byte in bytes {
                high |= byte
                h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            }
            if high >= 0x80 { return Self.nonASCIIKey }
            h ^= h >> 29
            h = h &* 0xBF58_476D_1CE4_E5B9
            return (h ^ (h >> 32)) | 1
        }
        if !sparse { keyHashes[ref] = hash }
        return hash
    }

    /// Whether two of `keys` (all ASCII, their hashes in `keyScratch[base...]`) are equal.
    mutating func hasDuplicateKey(_ keys: ContiguousArray<String>, hashesAt base: Int) -> Bool {
        let n = keys.count
        let hashes = keyScratch[base...]
        if n <= 16 {
            for i in 1..<max(n, 1) {
                let h = hashes[base + i]
                for j in 0..<i where hashes[base + j] == h && keys[j] == keys[i] { return true }
            }
            return false
        }
        var size = 32
        while size < n * 2 { size <<= 1 }
        if duplicateTable.count < size { duplicateTable = ContiguousArray(repeating: 0, count: size) }
        let mask = size - 1
        var found = false
        for i in 0..<n where !found {
            let h = hashes[base + i]
            var slot = Int(truncatingIfNeeded: h >> 7) & mask
            while duplicateTable[slot] != 0 {
                let j = duplicateTable[slot] - 1
                if hashes[base + j] == h && keys[j] == keys[i] {
                    found = true
                    break
                }
                slot = (slot + 1) & mask
            }
            if !found { duplicateTable[slot] = i + 1 }
        }
        for slot in 0..<size { duplicateTable[slot] = 0 }
        return found
    }

    /// The element count of the collection at `offset` and where its references start,
    /// checked against the object area, ``PFLimits/maxCollectionCount`` and overflow.
    @inline(__always)
    func collectionCount(at offset: Int, refsPerElement: Int) throws(PFError) -> (Int, Int) {
        let (n, start) = try lengthAndStart(at: offset)
        let (perElement, o1) = info.objectRefSize.multipliedReportingOverflow(by: refsPerElement)
        let (bytes, o2) = n.multipliedReportingOverflow(by: perElement)
        guard !o1, !o2, bytes <= objectsEnd - start else {
            throw PFError(
                BinaryPlistFailure.referencesTruncated(count: n, bytes: o2 ? nil : bytes, remaining: objectsEnd - start),
                offset: offset)
        }
        guard n <= limits.maxCollectionCount else {
            throw PFLimits.exceeded("maxCollectionCount", limits.maxCollectionCount, format: Self.format, offset: offset)
        }
        return (n, start)
    }

    /// An object reference at `p` (inside a range `collectionCount` checked), checked
    /// against numObjects.
    @inline(__always)
    func objectRef(at p: Int) throws(PFError) -> Int {
        let raw = readUInt(at: p, size: info.objectRefSize)
        guard raw < UInt64(info.numObjects) else {
            throw PFError(BinaryPlistFailure.objectReference(raw, numObjects: info.numObjects), offset: p)
        }
        return Int(raw)
    }

    @inline(__always)
    func checkDepth(_ depth: Int, at offset: Int) throws(PFError) {
        guard depth <= limits.maxDepth else {
            throw PFLimits.exceeded("maxDepth", limits.maxDepth, format: Self.format, offset: offset)
        }
    }

    @inline(__always)
    func addNodes(_ a: Int, _ b: Int, at offset: Int) throws(PFError) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        guard !overflow, sum <= limits.maxNodes else {
            throw PFLimits.exceeded("maxNodes", limits.maxNodes, format: Self.format, offset: offset)
        }
        return sum
    }

    // MARK: - Lengths

    /// The count in the marker at `offset` (its low nibble, or the integer object after it
    /// when the nibble is `0xF`) and where the payload starts.
    @inline(__always)
    func lengthAndStart(at offset: Int) throws(PFError) -> (Int, Int) {
        let nibble = buffer[offset] & 0x0F
        guard nibble == BinaryPlistMarker.extendedCount else { return (Int(nibble), offset + 1) }
        let intOffset = offset + 1
        guard intOffset < objectsEnd else {
            throw PFError(BinaryPlistFailure.extendedCountMissing, offset: intOffset)
        }
        let intMarker = buffer[intOffset]
        guard intMarker >= BinaryPlistMarker.Byte.int8, intMarker <= BinaryPlistMarker.Byte.int64 else {
            throw PFError(BinaryPlistFailure.extendedCountMarker(intMarker), offset: intOffset)
        }
        let size = 1 << Int(intMarker & 0x0F)
        try require(intOffset + 1, size, "extended count")
        let raw = readUInt(at: intOffset + 1, size: size)
        guard raw <= UInt64(Int.max) else {
            throw PFError(BinaryPlistFailure.extendedCountRange(raw), offset: intOffset)
        }
        return (Int(raw), intOffset + 1 + size)
    }

    /// Checks that `length` bytes starting at `start` (≤ the object area's end) lie in the
    /// object area.
    @inline(__always)
    func require(_ start: Int, _ length: Int, _ what: @autoclosure () -> String) throws(PFError) {
        guard start <= objectsEnd, length <= objectsEnd - start else {
            throw PFError(BinaryPlistFailure.objectTruncated(what: what(), length: length, start: start, remaining: max(0, objectsEnd - start)), offset: start)
        }
    }

    /// The big-endian unsigned integer of `size` (1...8) bytes at `p`; the caller checked
    /// that the bytes are present.
    @inline(__always)
    func readUInt(at p: Int, size: Int) -> UInt64 {
        switch size {
        case 1: return UInt64(buffer[p])
        case 2: return UInt64(UInt16(bigEndian: buffer.loadUnaligned(fromByteOffset: p, as: UInt16.self)))
        case 4: return UInt64(UInt32(bigEndian: buffer.loadUnaligned(fromByteOffset: p, as: UInt32.self)))
        case 8: return UInt64(bigEndian: buffer.loadUnaligned(fromByteOffset: p, as: UInt64.self))
        default:
            var v: UInt64 = 0
            for i in p..<(p + size) { v = v << 8 | UInt64(buffer[i]) }
            return v
        }
    }
}
