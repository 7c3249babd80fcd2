import CPFJSONC
import Foundation
import OrderedCollections
import PFCore

/// The `PFValue` builder of every JSON route: turns a checked document — json-c's tree for
/// ``JSONReader/read(_:)-(Data)`` and its parallel batches, the scanner's tape for
/// ``JSONNode/value()`` — into a ``PFValue`` in one walk, typed values included (see
/// ``JSONValueSource``).
///
/// Key paths cost nothing on the way down: an error collects its path while it unwinds
/// (``PFCore/PFError/prefixed(_:)``). json-c's objects hold distinct keys (its hash table replaces the
/// value of a repeated key in place), so dictionaries are built without re-checking them; the
/// tape's objects that repeat a key say so (``JSONValueSource/mayRepeatKeys(_:)``) and are
/// merged. Repeated keys are rejected (``JSONReader/Options/rejectDuplicateKeys``) before the
/// walk, by ``JSONDuplicateKeys``.
struct JSONValueBuilder<Source: JSONValueSource> {
    /// The document.
    let source: Source
    let strict: Bool
    let typedValues: Bool
    let maxStringBytes: Int
    /// The noncharacter that stands for U+0000 in keys of this document, if any (see
    /// ``JSONReader``'s `withRewrittenTree`).
    let nulStandIn: Unicode.Scalar?
    /// Whether some key has a byte or escape beyond ASCII: such keys may be distinct bytes
    /// for json-c yet equal Swift strings (canonical equivalence, lenient U+FFFD repair).
    let keysNeedUniquing: Bool
    /// Recently built keys, direct-mapped by their bytes (see ``key(_:)``). A
    /// ``JSONReader/Session`` lends its cache for the walk and takes it back, so keys
    /// repeated across documents are built once.
    var keyCache: JSONKeyCache
    /// Recently built string values of 16 to 128 bytes (shorter ones are stored inline in the
    /// String), so that a repeated one (a URL, a client name, a date) is built once and shared.
    /// Only for large documents, where the table's set-up is lost in the walk.
    private var valueStrings: JSONKeyCache
    /// Templates of the object shapes seen in this walk (see ``convertShaped(_:count:)``).
    private var shapes = JSONShapeCache()
    /// The keys of the object being converted, before they are known to match a template.
    private var scratchKeys: [String] = []

    init(source: Source, options: JSONReader.Options, scan: JSONScanResult, input: UnsafeRawBufferPointer,
         nulStandIn: Unicode.Scalar?, keyCache: JSONKeyCache) {
        self.source = source
        self.keyCache = keyCache
        self.valueStrings = input.count >= 16384 ? JSONKeyCache(bits: 8, longest: 128) : .empty
        self.strict = options.mode == .strict
        self.typedValues = options.typedValues
        self.maxStringBytes = options.limits.maxStringBytes
        self.nulStandIn = nulStandIn
        self.keysNeedUniquing = scan.nonASCIIKeys
    }

    /// A builder for a whole document whose repeated keys are already checked (the tape's,
    /// by ``JSONTape/markDuplicates(reject:)``): objects that repeat a key say so through
    /// ``JSONValueSource/mayRepeatKeys(_:)`` and are merged, never rejected here.
    init(source: Source, checkedWith options: JSONReader.Options, input: UnsafeRawBufferPointer,
         keyCache: JSONKeyCache) {
        self.init(source: source, subtreeWith: options, nulStandIn: nil, keysNeedUniquing: false, keyCache: keyCache)
        if input.count >= 16384 { valueStrings = JSONKeyCache(bits: 8, longest: 128) }
    }

    /// A converter for a subtree of a document already checked (``JSONTreeChecker``,
    /// ``JSONDuplicateKeys``).
    init(source: Source, subtreeWith options: JSONReader.Options, nulStandIn: Unicode.Scalar?, keysNeedUniquing: Bool,
         keyCache: JSONKeyCache) {
        self.source = source
        self.keyCache = keyCache
        self.valueStrings = .empty
        self.strict = options.mode == .strict
        self.typedValues = options.typedValues
        self.maxStringBytes = options.limits.maxStringBytes
        self.nulStandIn = nulStandIn
        self.keysNeedUniquing = keysNeedUniquing
    }

    /// Converts the whole tree (or the subtree at `root`).
    mutating func convertRoot(_ root: Source.Value) throws(PFError) -> PFValue {
        try convert(root)
    }

    // MARK: - Values

    private mutating func convert(_ object: Source.Value) throws(PFError) -> PFValue {
        switch source.kind(object) {
        case .string:
            guard let bytes = source.stringBytes(object) else {
                // Decoded on demand (the tape's strings with escapes): never longer than the text.
                let text = source.string(object)
                guard text.utf8.count <= maxStringBytes else {
                    throw PFLimits.exceeded("maxStringBytes", maxStringBytes, format: JSONError.format)
                }
                return .string(text)
            }
            let n = bytes.count
            guard n <= maxStringBytes else { throw PFLimits.exceeded("maxStringBytes", maxStringBytes, format: JSONError.format) }
            if n > 15, n <= valueStrings.longest, let chars = bytes.baseAddress {
                return .string(valueStrings.string(chars, length: n))
            }
            return .string(String(decoding: bytes, as: UTF8.self))
        case .int: return .int(source.int(object))
        case .uint: return .uint(source.uint(object))
        case .double: return .double(source.double(object))
        case .object: return try convertObject(object)
        case .array:
            let n = source.count(object)
            guard n > 0 else { return .array([]) }
            var items: [PFValue] = []
            items.reserveCapacity(n)  // the document's real length, not a claimed count
            var element: Source.Value?
            for k in 0..<n {
                let current = source.element(object, k, after: element)
                element = current
                do {
                    items.append(try convert(current))
                } catch {
                    throw error.prefixed(.index(k))
                }
            }
            return .array(items)
        case .bool: return .bool(source.bool(object))
        case .null: return .null
        }
    }

    // MARK: - Objects

    private mutating func convertObject(_ object: Source.Value) throws(PFError) -> PFValue {
        let n = source.count(object)
        if typedValues, n == 1 || n == 2 || source.mayRepeatKeys(object), let typed = try typedValue(object, count: n) {
            return typed
        }
        if !keysNeedUniquing, !source.mayRepeatKeys(object) {
            return try convertShaped(object, count: n)
        }
        var keys: [String] = []
        var values: [PFValue] = []
        keys.reserveCapacity(n)
        values.reserveCapacity(n)
        var entry = source.firstMember(object)
        while let current = entry {
            let name = key(current)
            do {
                values.append(try convert(source.memberValue(current)))
            } catch {
                throw error.prefixed(.key(name))
            }
            keys.append(name)
            entry = source.nextMember(current, of: object)
        }
        // Keys beyond ASCII: distinct bytes may still be equal Swift strings ("\u{E9}" and
        // "e\u{301}", or lenient U+FFFD repairs), and the tape's repeated keys: the last value
        // wins (rejectDuplicateKeys was checked before the walk).
        return .dictionary(OrderedDictionary(zip(keys, values), uniquingKeysWith: { _, last in last }))
    }

    /// Converts an object whose keys are ASCII: json-c's hash table made them distinct bytes,
    /// hence distinct strings (the U+0000 stand-in maps one-to-one), so they need no second
    /// check.
    ///
    /// Objects of one shape (the same keys in the same order) share their keys: the first
    /// one builds them, and later ones reuse that storage instead of an array of their own.
    /// Above 15 keys a dictionary also hashes its keys; there, later objects copy a template
    /// that holds the keys, their hash table and null values, and fill in their own values.
    private mutating func convertShaped(_ object: Source.Value, count n: Int) throws(PFError) -> PFValue {
        guard n > 0 else { return .dictionary([:]) }
        // Pass 1: the keys, and a fingerprint of the sequence to find a template by.
        let first = source.firstMember(object)
        var fingerprint = UInt64(truncatingIfNeeded: n) &* 0x9E37_79B9_7F4A_7C15
        var entry = first
        var k = 0
        while let current = entry {
            let raw = source.keyBytes(current)
            let (name, mixed) = keyCache.keyAndFingerprint(raw.start, length: raw.count, nulStandIn: nulStandIn)
            if k < scratchKeys.count { scratchKeys[k] = name } else { scratchKeys.append(name) }
            k += 1
            fingerprint = (fingerprint ^ mixed) &* 0xBF58_476D_1CE4_E5B9
            entry = source.nextMember(current, of: object)
        }
        guard k == n else { throw Self.inconsistentObject(count: n, entries: k) }
        let slot = Int(truncatingIfNeeded: fingerprint >> JSONShapeCache.shift)
        guard let template = shapes.template(slot, matching: scratchKeys, count: n) else {
            let keys = Array(scratchKeys[0..<n])
            let values = try convertValues(of: object, from: first, count: n) { keys[$0] }
            let members = OrderedDictionary(uncheckedUniqueKeys: keys, values: values)
            shapes.store(slot, members)
            return .dictionary(members)
        }
        guard n > JSONShapeCache.largestUnhashed else {
            // The new dictionary's keys are the template's array, shared.
            let values = try convertValues(of: object, from: first, count: n) { template.keys[$0] }
            return .dictionary(OrderedDictionary(uncheckedUniqueKeys: template.keys, values: values))
        }
        // Pass 2: the values, straight into a copy of the template's (null) values.
        var result = template
        var failure: (index: Int, error: PFError)?
        result.values.withUnsafeMutableBufferPointer { slots in
            var entry = first
            var k = 0
            while let current = entry, k < slots.count {
                do throws(PFError) {
                    slots[k] = try convert(source.memberValue(current))
                } catch {
                    failure = (k, error)
                    return
                }
                k += 1
                entry = source.nextMember(current, of: object)
            }
        }
        if let failure { throw failure.error.prefixed(.key(template.keys[failure.index])) }
        return .dictionary(result)
    }

    /// The values of an object's `n` members, in order, from its first entry on.
    /// - Parameter keyAt: the key of member `k`, for the path of an error.
    private mutating func convertValues(of object: Source.Value, from first: Source.Member?, count n: Int,
                                        keyAt: (Int) -> String) throws(PFError) -> [PFValue] {
        var values: [PFValue] = []
        values.reserveCapacity(n)
        var entry = first
        while let current = entry, values.count < n {
            do {
                values.append(try convert(source.memberValue(current)))
            } catch {
                throw error.prefixed(.key(keyAt(values.count)))
            }
            entry = source.nextMember(current, of: object)
        }
        guard values.count == n else { throw Self.inconsistentObject(count: n, entries: values.count) }
        return values
    }

    /// A member's key as a String, through the key cache.
    @inline(__always)
    private mutating func key(_ member: Source.Member) -> String {
        let raw = source.keyBytes(member)
        return keyCache.key(raw.start, length: raw.count, nulStandIn: nulStandIn)
    }

    /// json-c's member count and its list of entries disagree (never seen; checked so a
    /// dictionary is never built from keys and values of different counts).
    static func inconsistentObject(count: Int, entries: Int) -> PFError {
        PFError(JSONFailure.inconsistentObject(count: count, entries: entries), format: JSONError.format)
    }
}

/// The builder over json-c's tree (``JSONReader/read(_:)-(Data)``, parallel batches).
typealias JSONTreeConverter = JSONValueBuilder<JSONCSource>

extension JSONValueBuilder where Source == JSONCSource {
    init(options: JSONReader.Options, scan: JSONScanResult, input: UnsafeRawBufferPointer, nulStandIn: Unicode.Scalar?,
         keyCache: JSONKeyCache) {
        self.init(source: JSONCSource(), options: options, scan: scan, input: input, nulStandIn: nulStandIn,
                  keyCache: keyCache)
    }
}

/// Recently built object keys of at most 64 bytes (or, for a cache of values, strings of at
/// most ``longest`` bytes), direct-mapped by their bytes.
///
/// A key of up to 16 bytes is identified exactly by its length and its first and last eight
/// bytes (which together cover every byte; shorter keys are zero-padded in `head`); a longer
/// one also by the bytes between. The table has a power of two of slots, indexed by the top
/// bits of a mix of those words.
struct JSONKeyCache {
    struct Entry {
        var length: Int
        var head: UInt64
        var tail: UInt64
        var name: String
    }

    private(set) var entries: [Entry]
    /// 64 minus log2 of the slot count: `mixed >> shift` is a slot.
    let shift: UInt64

    /// A placeholder without slots (never looked up).
    static var empty: JSONKeyCache { JSONKeyCache(entries: [], shift: 63, longest: 0) }

    /// Moves the cache out of `cache`, leaving a placeholder (so the taker's stores do not
    /// copy the table).
    static func take(_ cache: inout JSONKeyCache) -> JSONKeyCache {
        var taken = JSONKeyCache.empty
        swap(&taken, &cache)
        return taken
    }

    private init(entries: [Entry], shift: UInt64, longest: Int) {
        self.longest = longest
        self.entries = entries
        self.shift = shift
    }

    /// A cache of 2^`bits` slots (1…12).
    /// - Parameters:
    ///   - bits: log2 of the slot count.
    ///   - longest: the longest string (in bytes) the cache keeps.
    init(bits: Int, longest: Int = 64) {
        self.longest = longest
        let b = max(1, min(bits, 12))
        entries = Array(repeating: Entry(length: -1, head: 0, tail: 0, name: ""), count: 1 << b)
        shift = UInt64(64 - b)
    }

    /// A cache sized to a document: a row of a few hundred bytes holds a few dozen keys, and
    /// filling and freeing 256 slots would cost it more than the keys themselves.
    init(forInputOf count: Int) {
        self.init(bits: count < 1024 ? 5 : count < 8192 ? 6 : count < 65536 ? 8 : 9)
    }

    /// The key of a json-c member entry as a String, through the cache.
    ///
    /// Objects of one shape repeat the same keys thousands of times, so short keys go
    /// through this small direct-mapped cache: a hit costs a few loads and compares instead of
    /// UTF-8 validation (and, above 15 bytes, an allocation), and equal keys share storage.
    /// - Parameter nulStandIn: the noncharacter standing for U+0000 in this document's keys
    ///   (see ``JSONReader``'s `withRewrittenTree`); a cache used with one must be fresh.
    @inline(__always)
    mutating func key(_ entry: UnsafeMutablePointer<lh_entry>, nulStandIn: Unicode.Scalar?) -> String {
        // json-c keys are NUL-terminated C strings (it has no length for them).
        guard let chars = pf_json_entry_key(entry) else { return "" }
        return key(UnsafeRawPointer(chars), length: strlen(chars), nulStandIn: nulStandIn)
    }

    /// A key from its bytes (`length` of them at `raw`) as a String, through the cache.
    @inline(__always)
    mutating func key(_ raw: UnsafeRawPointer, length: Int, nulStandIn: Unicode.Scalar?) -> String {
        keyAndFingerprint(raw, length: length, nulStandIn: nulStandIn).name
    }

    /// The key of a json-c member entry and a 64-bit fingerprint of its bytes (equal keys
    /// have equal fingerprints; keys above 16 bytes may share one with others).
    @inline(__always)
    mutating func keyAndFingerprint(_ entry: UnsafeMutablePointer<lh_entry>,
                                    nulStandIn: Unicode.Scalar?) -> (name: String, fingerprint: UInt64) {
        guard let chars = pf_json_entry_key(entry) else { return ("", 0) }
        return keyAndFingerprint(UnsafeRawPointer(chars), length: strlen(chars), nulStandIn: nulStandIn)
    }

    @inline(__always)
    mutating func keyAndFingerprint(_ raw: UnsafeRawPointer, length: Int,
                                            nulStandIn: Unicode.Scalar?) -> (name: String, fingerprint: UInt64) {
        var head: UInt64 = 0
        var tail: UInt64 = 0
        if length >= 8 {
            // In bounds: the key has `length` (8 or more) bytes, so both 8-byte windows,
            // [0, 8) and [length - 8, length), lie inside it; up to 16 bytes they cover it.
            head = raw.loadUnaligned(as: UInt64.self)
            tail = raw.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self)
        } else if length >= 4 {
            // Two 4-byte windows that overlap on equal bytes: together, the key's bytes in order.
            let low = UInt64(raw.loadUnaligned(as: UInt32.self))
            let high = UInt64(raw.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self))
            head = low | high << (8 * UInt64(length - 4))
        } else if length >= 2 {
            let low = UInt64(raw.loadUnaligned(as: UInt16.self))
            let high = UInt64(raw.loadUnaligned(fromByteOffset: length - 2, as: UInt16.self))
            head = low | high << (8 * UInt64(length - 2))
        } else if length == 1 {
            head = UInt64(raw.load(as: UInt8.self))
        }
        let mixed = (head ^ (tail &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(length)) &* 0xBF58_476D_1CE4_E5B9
        guard length <= longest else { return (Self.makeKey(raw, length, nulStandIn), mixed) }
        let slot = Int(truncatingIfNeeded: mixed >> shift)  // < entries.count
        if let name = lookup(slot, length: length, head: head, tail: tail, raw: raw) { return (name, mixed) }
        let name = Self.makeKey(raw, length, nulStandIn)
        store(slot, Entry(length: length, head: head, tail: tail, name: name))
        return (name, mixed)
    }

    /// Builds a key from its bytes (validated by the pre-scan in strict mode; in lenient mode
    /// invalid UTF-8 becomes U+FFFD, the documented policy), restoring U+0000 if needed.
    static func makeKey(_ raw: UnsafeRawPointer, _ length: Int, _ nulStandIn: Unicode.Scalar?) -> String {
        let name = String(decoding: UnsafeRawBufferPointer(start: raw, count: length), as: UTF8.self)
        guard let standIn = nulStandIn else { return name }
        return restoringNUL(name, standIn)
    }

    /// `name` with every `standIn` scalar turned back into U+0000.
    static func restoringNUL(_ name: String, _ standIn: Unicode.Scalar) -> String {
        guard name.unicodeScalars.contains(standIn) else { return name }
        var out = String.UnicodeScalarView()
        for scalar in name.unicodeScalars { out.append(scalar == standIn ? "\u{0}" : scalar) }
        return String(out)
    }

    /// The longest string the cache keeps (64 bytes for keys). Up to 16 bytes, a string's
    /// length and first and last eight bytes identify it; longer ones are also compared byte
    /// for byte.
    let longest: Int

    /// A string value's bytes as a String, through the cache (for a cache of values, which
    /// never hold the U+0000 stand-in of keys).
    @inline(__always)
    mutating func string(_ raw: UnsafeRawPointer, length: Int) -> String {
        keyAndFingerprint(raw, length: length, nulStandIn: nil).name
    }

    @inline(__always)
    func lookup(_ slot: Int, length: Int, head: UInt64, tail: UInt64, raw: UnsafeRawPointer) -> String? {
        // `slot` comes from `mixed >> shift`, so it is below entries.count. The fields are
        // read in place: copying the entry would retain and release its name.
        guard entries[slot].length == length, entries[slot].head == head, entries[slot].tail == tail else { return nil }
        guard length > 16 else { return entries[slot].name }
        // The bytes between the first and last eight (a cached name is native UTF-8 of
        // exactly `length` bytes, since it was built from bytes of that length).
        let same = entries[slot].name.utf8.withContiguousStorageIfAvailable { stored in
            stored.count == length && memcmp(stored.baseAddress! + 8, raw + 8, length - 16) == 0
        }
        return same == true ? entries[slot].name : nil
    }

    @inline(__always)
    mutating func store(_ slot: Int, _ entry: Entry) {
        entries[slot] = entry
    }
}

/// Templates of object shapes (a sequence of keys), direct-mapped by a fingerprint of the
/// sequence. Each template is a dictionary of one shape, whose keys every dictionary of that
/// shape shares; above ``largestUnhashed`` keys its values are null, since those dictionaries
/// are copies of the template with their values replaced.
struct JSONShapeCache {
    /// 64 minus log2 of the slot count: `fingerprint >> shift` is a slot.
    static let shift: UInt64 = 64 - 6
    /// The most keys a dictionary holds without a hash table (OrderedDictionary hashes its
    /// keys above 15).
    static let largestUnhashed = 15
    private var templates: [OrderedDictionary<String, PFValue>?] = []

    /// The template in `slot` when its keys are exactly the first `count` of `keys`, in order.
    @inline(__always)
    func template(_ slot: Int, matching keys: [String], count: Int) -> OrderedDictionary<String, PFValue>? {
        guard slot < templates.count, let template = templates[slot], template.count == count,
            count <= keys.count
        else { return nil }
        let stored = template.keys
        for k in 0..<count where stored[k] != keys[k] { return nil }
        return template
    }

    /// Makes `members` (with null values, when it has more than ``largestUnhashed`` keys)
    /// the template of `slot`.
    mutating func store(_ slot: Int, _ members: OrderedDictionary<String, PFValue>) {
        if templates.isEmpty { templates = Array(repeating: nil, count: 1 << (64 - Self.shift)) }
        var template = members
        if template.count > Self.largestUnhashed {
            template.values.withUnsafeMutableBufferPointer { $0.update(repeating: .null) }
        }
        templates[slot] = template
    }
}
