import Foundation
import OrderedCollections
import PFCore

// MARK: - Maps

extension CBORScanner {
    mutating func map(_ ai: UInt8, depth: Int, start: Int) throws(PFError) -> PFValue {
        let inner = try enter(depth, start: start)
        var members = OrderedDictionary<String, PFValue>()
        if ai == 31 {
            hasIndefiniteLengths = true
            while true {
                guard pos < end else { throw missingBreak("map", start) }
                if byte(at: pos) == 0xFF {
                    pos += 1
                    guard measure == nil else {
                        measure?.members = members.count
                        return .dictionary([:])
                    }
                    return .dictionary(members)
                }
                guard members.count < limits.maxCollectionCount else { throw collectionLimit(start) }
                try member(into: &members, depth: inner)
            }
        }
        let n = try argument(ai, itemStart: start)
        guard n <= maxCollectionCount else { throw collectionLimit(start) }
        let count = Int(n)
        let map = count <= 15 ? try smallMap(count, depth: inner) : try largeMap(count, depth: inner)
        measure?.members = count
        return map
    }

    /// Reads a definite-length map of more than 15 members. Keys and values are collected
    /// first, checked for duplicates with a cheap hash of their bytes, and then handed to the
    /// dictionary, which hashes each key once and never compares keys.
    mutating func largeMap(_ count: Int, depth: Int) throws(PFError) -> PFValue {
        // Every member takes at least two bytes.
        let capacity = min(count, (end - pos) / 2)
        var keys = ContiguousArray<String>()
        var values = ContiguousArray<PFValue>()
        var keyOffsets = ContiguousArray<Int>()
        // The check before a walk keeps the keys (for duplicates), not the values.
        let keep = measure == nil
        keys.reserveCapacity(capacity)
        if keep { values.reserveCapacity(capacity) }
        keyOffsets.reserveCapacity(capacity)
        for _ in 0..<count {
            keyOffsets.append(pos)
            let key = try key(depth: depth)
            do throws(PFError) {
                let value = try value(depth: depth)
                if keep { values.append(value) }
            } catch {
                throw error.prefixed(.key(key))
            }
            keys.append(key)
        }
        if let duplicate = firstDuplicate(keys) {
            let key = keys[duplicate]
            throw PFError(CBORFailure.duplicateKey(key), offset: keyOffsets[duplicate], path: PFKeyPath([.key(key)]))
        }
        // The hash above is of the bytes; keys beyond ASCII may still be one key to Swift
        // ("caf\u{E9}", "cafe\u{301}"), which a dictionary cannot hold apart.
        if keys.contains(where: { $0.utf8.contains { $0 >= 0x80 } }) {
            var seen: [String: Int] = [:]
            for (i, key) in keys.enumerated() {
                if let j = seen[key] { throw PFEquivalentKeys.error(keys[j], key, format: Self.format, offset: keyOffsets[i]) }
                seen[key] = i
            }
        }
        guard keep else { return .dictionary([:]) }
        return .dictionary(OrderedDictionary(uncheckedUniqueKeys: keys, values: values))
    }

    /// The index of the first key that repeats an earlier one, found with an open-addressing
    /// table of key indices that is reused across maps (and left empty after each use).
    mutating func firstDuplicate(_ keys: ContiguousArray<String>) -> Int? {
        var size = 32
        while size < keys.count * 2 { size <<= 1 }
        if duplicateTable.count < size { duplicateTable = ContiguousArray(repeating: 0, count: size) }
        let mask = size - 1
        var found: Int?
        for i in keys.indices {
            var slot = Int(truncatingIfNeeded: Self.cheapHash(keys[i])) & mask
            while duplicateTable[slot] != 0 {
                if keys[duplicateTable[slot] - 1] == keys[i] {
                    found = i
                    break
                }
                slot = (slot + 1) & mask
            }
            if found != nil { break }
            duplicateTable[slot] = i + 1
        }
        for slot in 0..<size { duplicateTable[slot] = 0 }
        return found
    }

    /// A fast, non-cryptographic hash of a string's UTF-8 bytes, for duplicate detection only.
    @inline(__always)
    static func cheapHash(_ key: String) -> UInt64 {
        var key = key
        return key.withUTF8 { bytes in
            var hash: UInt64 = 0x243F_6A88_85A3_08D3 ^ UInt64(bytes.count)
            guard let base = bytes.baseAddress else { return hash }
            let raw = UnsafeRawPointer(base)
            var i = 0
            while i + 8 <= bytes.count {
                hash = (hash ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
                hash ^= hash >> 29
                i += 8
            }
            while i < bytes.count {
                hash = (hash ^ UInt64(bytes[i])) &* 0x0000_0100_0000_01B3
                i += 1
            }
            return hash ^ (hash >> 32)
        }
    }

    /// Reads a definite-length map of at most 15 members, the common case: such a dictionary
    /// has no hash table, so keys are checked for duplicates by comparison and the storage
    /// is built directly.
    @inline(__always)
    mutating func smallMap(_ count: Int, depth: Int) throws(PFError) -> PFValue {
        var keys = ContiguousArray<String>()
        var values = ContiguousArray<PFValue>()
        // The check before a walk keeps the keys (for duplicates), not the values.
        let keep = measure == nil
        keys.reserveCapacity(count)
        if keep { values.reserveCapacity(count) }
        for _ in 0..<count {
            let keyStart = pos
            let key = try key(depth: depth)
            for earlier in keys where earlier == key {
                if PFEquivalentKeys.differ(earlier, key) { throw PFEquivalentKeys.error(earlier, key, format: Self.format, offset: keyStart) }
                throw PFError(CBORFailure.duplicateKey(key), offset: keyStart, path: PFKeyPath([.key(key)]))
            }
            do throws(PFError) {
                let value = try value(depth: depth)
                if keep { values.append(value) }
            } catch {
                throw error.prefixed(.key(key))
            }
            keys.append(key)
        }
        guard keep else { return .dictionary([:]) }
        return .dictionary(OrderedDictionary(uncheckedUniqueKeys: keys, values: values))
    }

    /// Reads one key/value pair into `members`, rejecting duplicate keys.
    @inline(__always)
    mutating func member(into members: inout OrderedDictionary<String, PFValue>, depth: Int) throws(PFError) {
        let keyStart = pos
        let key = try key(depth: depth)
        var value: PFValue
        do throws(PFError) {
            value = try self.value(depth: depth)
        } catch {
            throw error.prefixed(.key(key))
        }
        // The check before a walk keeps the keys (for duplicates), not the values.
        if measure != nil { value = .null }
        if let at = members.index(forKey: key) {
            if PFEquivalentKeys.differ(members.keys[at], key) { throw PFEquivalentKeys.error(members.keys[at], key, format: Self.format, offset: keyStart) }
            throw PFError(CBORFailure.duplicateKey(key), offset: keyStart, path: PFKeyPath([.key(key)]))
        }
        members[key] = value
    }

    /// Reads a map key, which must decode to a text string.
    @inline(__always)
    mutating func key(depth: Int) throws(PFError) -> String {
        let start = pos
        guard pos < end else {
            throw PFError(CBORFailure.expectedMapKey, offset: pos)
        }
        let initial = byte(at: pos)
        if initial >> 5 == 3, initial & 0x1F != 31 {
            // The common case, a definite-length text string, without building a PFValue.
            pos += 1
            items += 1
            let n = try argument(initial & 0x1F, itemStart: start)
            let p = try payload(n, itemStart: start, what: "text string")
            if n >= 8 && n <= 128 { return try cachedKey(at: p, count: Int(n), itemStart: start) }
            return try text(at: p, count: Int(n), itemStart: start)
        }
        // An array or map, even behind tags, can never be a text-string key: refuse it before
        // reading it. Reading it first recursed key → map → key … once per level with large
        // frames, and 511 levels of map-in-key overflowed an 8 MiB stack under ASan (found by
        // FuzzCBOR; Tests/Fixtures/regressions/cbor/).
        var look = pos
        while look < end, byte(at: look) >> 5 == 6 { look = try skipTagHead(at: look) }
        // The tags' content must be in hand to tell. Without it the key's read would stop at a
        // tag it refuses (25/256, string references) before the end, so where the input was
        // cut would decide the error: a sequence fed in chunks failed otherwise than read
        // whole (found by FuzzCBOR; Tests/Fixtures/regressions/cbor/).
        guard look < end else { throw PFError(CBORFailure.expectedItem, offset: look) }
        if byte(at: look) >> 5 == 4 || byte(at: look) >> 5 == 5 {
            throw PFError(CBORFailure.nonTextKey(byte(at: look) >> 5 == 4 ? "an array" : "a map"), offset: start)
        }
        let key = try value(depth: depth)
        guard case .string(let text) = key else {
            throw PFError(CBORFailure.nonTextKey(Self.describe(key)), offset: start)
        }
        return text
    }

    /// The offset after the tag head (initial byte and argument) at `offset`, without
    /// reading the tag's content.
    func skipTagHead(at offset: Int) throws(PFError) -> Int {
        let ai = byte(at: offset) & 0x1F
        let size: Int
        switch ai {
        case 0..<24: size = 0
        case 24: size = 1
        case 25: size = 2
        case 26: size = 4
        case 27: size = 8
        default: throw PFError(CBORFailure.tagAdditionalInfo(ai), offset: offset)
        }
        guard end - offset > size else {
            throw PFError(CBORFailure.truncatedTagHead, offset: offset)
        }
        return offset + 1 + size
    }

    /// A key of 8–128 bytes, reused from the cache when the same bytes were read before.
    ///
    /// Keys repeat across the objects of a document, and making a string costs a UTF-8 check
    /// and, past 15 bytes, an allocation each time; a hit costs a hash and a `memcmp`.
    @inline(__always)
    mutating func cachedKey(at p: Int, count n: Int, itemStart: Int) throws(PFError) -> String {
        let first = base.loadUnaligned(fromByteOffset: p, as: UInt64.self)
        let last = base.loadUnaligned(fromByteOffset: p + n - 8, as: UInt64.self)
        let hash = (first &* 0x9E37_79B9_7F4A_7C15) ^ (last &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(n)
        let slot = Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) >> 56)
        if keyCache.isEmpty {
            keyCache = Array(repeating: CachedKey(offset: 0, count: 0, string: ""), count: 256)
        }
        let entry = keyCache[slot]
        if entry.count == n && memcmp(base + entry.offset, base + p, n) == 0 { return entry.string }
        let string = try text(at: p, count: n, itemStart: itemStart)
        keyCache[slot] = CachedKey(offset: p, count: n, string: string)
        return string
    }
}
