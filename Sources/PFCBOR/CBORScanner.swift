import Foundation
import OrderedCollections
import PFCore

// MARK: - CBORScanner

/// The reader's engine: a cursor over the input bytes that decodes one data item at a time.
///
/// Every read of the input goes through a bounds check against `end`; every length the input
/// declares is checked against the bytes that remain before anything is allocated for it.
/// Errors carry the offset of the item at fault; containers add their index or key to the
/// error's path as it propagates, so the happy path never builds a path.
struct CBORScanner {
    static let format: PFError.Format = .cbor

    let base: UnsafeRawPointer
    let end: Int
    let limits: PFLimits
    /// `limits.maxStringBytes` as an unsigned bound (a negative limit allows nothing).
    let maxStringBytes: UInt64
    /// `limits.maxCollectionCount` as an unsigned bound.
    let maxCollectionCount: UInt64

    /// The offset of the next byte to read.
    var pos = 0
    /// Values produced so far, a shared value counted at each reference.
    var nodes = 0
    /// Data items read (tags, breaks and string chunks excluded).
    var items = 0
    /// The deepest nesting level entered (for the height of shareable values).
    var deepest = 0
    var tagCounts: [UInt64: Int] = [:]
    var hasIndefiniteLengths = false
    /// How many `undefined` values were read (as null).
    var undefinedCount = 0
    var hasSelfDescribeTag = false
    /// The values marked with tag 28, in order of appearance.
    var shareables: [Shareable] = []
    /// Scratch open-addressing table for duplicate keys in large maps (index + 1; 0 is empty).
    var duplicateTable: ContiguousArray<Int> = []
    /// Recently read long map keys, by a hash of their bytes (allocated on first use).
    var keyCache: [CachedKey] = []
    /// Set for the check before a walk (``CBORReader/walk(_:threshold:keyOrder:visit:)``):
    /// containers are counted and measured, their members not kept.
    var measure: CBORMeasure?
    /// Set for the walk that follows the check: where each shareable value's content starts,
    /// read again there at each reference (nothing shared is kept).
    var sharedContent: [Int]?

    /// A map key read earlier: where its bytes are in the input, and its string.
    struct CachedKey {
        var offset: Int
        var count: Int
        var string: String
    }

    /// A value marked shareable: still being read (a reference to it would be a cycle) or
    /// complete, with the nodes it counts and the levels it nests.
    enum Shareable {
        case pending
        case ready(PFValue, nodes: Int, height: Int)
    }

    init(base: UnsafeRawPointer, count: Int, limits: PFLimits) {
        self.base = base
        self.end = count
        self.limits = limits
        self.maxStringBytes = UInt64(clamping: limits.maxStringBytes)
        self.maxCollectionCount = UInt64(clamping: limits.maxCollectionCount)
    }

    // MARK: - Document

    /// Reads the single top-level item and checks that nothing follows it.
    mutating func document() throws(PFError) -> PFValue {
        let value = try value(depth: 0)
        guard pos == end else {
            let extra = end - pos
            throw PFError(CBORFailure.trailingBytes(extra), offset: pos)
        }
        return value
    }

    // MARK: - Bytes

    @inline(__always)
    func byte(at offset: Int) -> UInt8 {
        base.load(fromByteOffset: offset, as: UInt8.self)
    }

    /// Reads the argument that follows an initial byte whose additional information is `ai`
    /// (0–27), advancing past it.
    @inline(__always)
    mutating func argument(_ ai: UInt8, itemStart: Int) throws(PFError) -> UInt64 {
        if ai < 24 { return UInt64(ai) }
        switch ai {
        case 24:
            guard end - pos >= 1 else { throw truncatedHead(itemStart) }
            let v = byte(at: pos)
            pos += 1
            return UInt64(v)
        case 25:
            guard end - pos >= 2 else { throw truncatedHead(itemStart) }
            let v = base.loadUnaligned(fromByteOffset: pos, as: UInt16.self).bigEndian
            pos += 2
            return UInt64(v)
        case 26:
            guard end - pos >= 4 else { throw truncatedHead(itemStart) }
            let v = base.loadUnaligned(fromByteOffset: pos, as: UInt32.self).bigEndian
            pos += 4
            return UInt64(v)
        case 27:
            guard end - pos >= 8 else { throw truncatedHead(itemStart) }
            let v = base.loadUnaligned(fromByteOffset: pos, as: UInt64.self).bigEndian
            pos += 8
            return v
        default:
            throw PFError(CBORFailure.reservedAdditionalInfo(ai, initial: byte(at: itemStart)), offset: itemStart)
        }
    }

    /// Claims `length` payload bytes of the string that starts at `itemStart`, checking the
    /// string limit and the bytes remaining, and returns where they start.
    @inline(__always)
    mutating func payload(_ length: UInt64, itemStart: Int, what: String) throws(PFError) -> Int {
        // A length past the end is a truncation (or a corrupt head), whatever the limit says.
        guard length <= UInt64(end - pos) else {
            throw PFError(
                CBORFailure.truncatedPayload(what: what, start: itemStart, declared: length, remaining: end - pos),
                offset: itemStart)
        }
        guard length <= maxStringBytes else {
            throw PFLimits.exceeded("maxStringBytes", limits.maxStringBytes, format: Self.format, offset: itemStart)
        }
        let count = Int(length)
        let start = pos
        pos += count
        return start
    }

    /// Decodes UTF-8 text at `offset`, rejecting invalid sequences.
    @inline(__always)
    func text(at offset: Int, count: Int, itemStart: Int) throws(PFError) -> String {
        let p = (base + offset).assumingMemoryBound(to: UInt8.self)
        let buffer = UnsafeBufferPointer(start: p, count: count)
        if UTF8Check.isASCII(p, count: count) { return String(decoding: buffer, as: UTF8.self) }
        // `String(decoding:)` validates as it builds, replacing bad sequences with U+FFFD (a
        // valid sequence, so a repaired string never has the input's bytes): the string is
        // exact if and only if its bytes are the input's.
        var string = String(decoding: buffer, as: UTF8.self)
        let exact = string.withUTF8 { utf8 in
            guard utf8.count == count, let start = utf8.baseAddress else { return false }
            return memcmp(start, p, count) == 0
        }
        if exact { return string }
        let bad = UTF8Check.firstInvalid(p, count: count) ?? 0
        throw PFError(CBORFailure.invalidUTF8(at: offset + bad, string: itemStart), offset: offset + bad)
    }

    // MARK: - Items

    /// Reads an item's initial byte and counts the item against `maxNodes`.
    @inline(__always)
    mutating func head() throws(PFError) -> UInt8 {
        let start = pos
        guard pos < end else { throw PFError(CBORFailure.expectedItem, offset: pos) }
        let initial = byte(at: pos)
        pos += 1
        nodes += 1
        guard nodes <= limits.maxNodes else {
            throw PFLimits.exceeded("maxNodes", limits.maxNodes, format: Self.format, offset: start)
        }
        items += 1
        return initial
    }

    /// Reads one data item at nesting level `depth` (the number of enclosing arrays, maps and tags).
    mutating func value(depth: Int) throws(PFError) -> PFValue {
        let start = pos
        let initial = try head()
        let ai = initial & 0x1F
        switch initial >> 5 {
        case 0:
            guard ai != 31 else { throw indefiniteNotAllowed(initial, at: start) }
            let v = try argument(ai, itemStart: start)
            return v <= UInt64(Int64.max) ? .int(Int64(v)) : .uint(v)
        case 1:
            guard ai != 31 else { throw indefiniteNotAllowed(initial, at: start) }
            let v = try argument(ai, itemStart: start)
            guard v <= UInt64(Int64.max) else {
                throw PFError(CBORFailure.negativeTooSmall(v), offset: start)
            }
            return .int(-1 - Int64(v))
        case 2:
            if ai == 31 { return try indefiniteString(major: 2, start: start) }
            let n = try argument(ai, itemStart: start)
            let p = try payload(n, itemStart: start, what: "byte string")
            return .data(Data(bytes: base + p, count: Int(n)))
        case 3:
            if ai == 31 { return try indefiniteString(major: 3, start: start) }
            let n = try argument(ai, itemStart: start)
            let p = try payload(n, itemStart: start, what: "text string")
            return .string(try text(at: p, count: Int(n), itemStart: start))
        case 4:
            guard measure == nil else { return try measured(initial, depth: depth, start: start) }
            return try array(ai, depth: depth, start: start)
        case 5:
            guard measure == nil else { return try measured(initial, depth: depth, start: start) }
            return try map(ai, depth: depth, start: start)
        case 6:
            // A tag is not a value of its own: its content is.
            nodes -= 1
            items -= 1
            guard ai != 31 else { throw indefiniteNotAllowed(initial, at: start) }
            let tag = try argument(ai, itemStart: start)
            return try tagged(tag, depth: depth, start: start)
        default:
            return try simple(ai, start: start)
        }
    }

    /// Checks that one more nesting level is allowed and records it.
    @inline(__always)
    mutating func enter(_ depth: Int, start: Int) throws(PFError) -> Int {
        let inner = depth + 1
        guard inner <= limits.maxDepth else {
            throw PFLimits.exceeded("maxDepth", limits.maxDepth, format: Self.format, offset: start)
        }
        if inner > deepest { deepest = inner }
        return inner
    }

    mutating func array(_ ai: UInt8, depth: Int, start: Int) throws(PFError) -> PFValue {
        let inner = try enter(depth, start: start)
        // The check before a walk counts elements and keeps none.
        let keep = measure == nil
        var elements: [PFValue] = []
        if ai == 31 {
            hasIndefiniteLengths = true
            var count = 0
            while true {
                guard pos < end else { throw missingBreak("array", start) }
                if byte(at: pos) == 0xFF {
                    pos += 1
                    measure?.members = count
                    return .array(elements)
                }
                guard count < limits.maxCollectionCount else { throw collectionLimit(start) }
                do throws(PFError) {
                    let element = try value(depth: inner)
                    if keep { elements.append(element) }
                } catch {
                    throw error.prefixed(.index(count))
                }
                count += 1
            }
        }
        let n = try argument(ai, itemStart: start)
        guard n <= maxCollectionCount else { throw collectionLimit(start) }
        let count = Int(n)
        // Every element takes at least one byte: reserve no more than the input can hold.
        if keep { elements.reserveCapacity(min(count, end - pos)) }
        for i in 0..<count {
            do throws(PFError) {
                let element = try value(depth: inner)
                if keep { elements.append(element) }
            } catch {
                throw error.prefixed(.index(i))
            }
        }
        measure?.members = count
        return .array(elements)
    }

    /// Reads the chunks of an indefinite-length byte (`major` 2) or text (3) string.
    mutating func indefiniteString(major: UInt8, start: Int) throws(PFError) -> PFValue {
        hasIndefiniteLengths = true
        let what = major == 2 ? "byte string" : "text string"
        var bytes: [UInt8] = []
        while true {
            guard pos < end else { throw missingBreak("indefinite-length \(what)", start) }
            let initial = byte(at: pos)
            if initial == 0xFF {
                pos += 1
                break
            }
            let chunkStart = pos
            guard initial >> 5 == major, initial & 0x1F != 31 else {
                throw PFError(CBORFailure.badChunk(initial: initial, what: what, start: start), offset: chunkStart)
            }
            pos += 1
            let n = try argument(initial & 0x1F, itemStart: chunkStart)
            let p = try payload(n, itemStart: chunkStart, what: "\(what) chunk")
            guard n <= maxStringBytes &- UInt64(bytes.count) else {
                throw PFLimits.exceeded("maxStringBytes", limits.maxStringBytes, format: Self.format, offset: start)
            }
            if major == 3, let bad = UTF8Check.firstInvalid(
                (base + p).assumingMemoryBound(to: UInt8.self), count: Int(n))
            {
                throw PFError(CBORFailure.invalidUTF8InChunk(at: p + bad, chunk: chunkStart), offset: p + bad)
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(start: base + p, count: Int(n)))
        }
        return major == 2 ? .data(Data(bytes)) : .string(String(decoding: bytes, as: UTF8.self))
    }

    /// Reads a major-type-7 item: a simple value or a float.
    mutating func simple(_ ai: UInt8, start: Int) throws(PFError) -> PFValue {
        switch ai {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 23:
            undefinedCount += 1
            return .null  // undefined reads as null (counted, for convert's warning)
        case 24:
            guard pos < end else { throw truncatedHead(start) }
            let v = byte(at: pos)
            pos += 1
            guard v >= 32 else {
                throw PFError(CBORFailure.twoByteSimple(v), offset: start)
            }
            throw unassignedSimple(v, start)
        case 25:
            guard end - pos >= 2 else { throw truncatedHead(start) }
            let bits = base.loadUnaligned(fromByteOffset: pos, as: UInt16.self).bigEndian
            pos += 2
            return .double(CBORFloat.double(fromHalf: bits))
        case 26:
            guard end - pos >= 4 else { throw truncatedHead(start) }
            let bits = base.loadUnaligned(fromByteOffset: pos, as: UInt32.self).bigEndian
            pos += 4
            return .double(Double(Float(bitPattern: bits)))
        case 27:
            guard end - pos >= 8 else { throw truncatedHead(start) }
            let bits = base.loadUnaligned(fromByteOffset: pos, as: UInt64.self).bigEndian
            pos += 8
            return .double(Double(bitPattern: bits))
        case 28, 29, 30:
            throw PFError(CBORFailure.reservedAdditionalInfo(ai, initial: 0xE0 | ai), offset: start)
        case 31:
            throw PFError(CBORFailure.strayBreak, offset: start)
        default:
            throw unassignedSimple(ai, start)
        }
    }
}
