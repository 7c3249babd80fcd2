import OrderedCollections
import PFCore

/// What names a destination store can hold, for ``ParseNameCoding``.
///
/// A Core Data store or a keyed archive can name a field anything; a Parse export, Parse
/// Server's MongoDB shape and its PostgreSQL schema cannot. Each store says which rules its
/// names follow, and names that break them are encoded (``ParseNameCoding``), not refused.
public struct ParseNamePolicy: Sendable, Hashable, CustomStringConvertible {
    /// A set of naming rules.
    public enum Rules: Sendable, Hashable {
        /// Any name.
        case unrestricted
        /// Parse's rules (``ParseRules``): fields match `^[A-Za-z][A-Za-z0-9_]*$` and are not
        /// a default column or reserved key; nested keys hold no `$` or `.`.
        case parse
        /// Any name but the empty one and those holding U+0000 (a SQLite identifier).
        case sqliteIdentifier
    }

    /// The destination, for messages (`Parse export`, `PostgreSQL`).
    public var destination: String
    /// The rules for field names (top-level keys of objects, relation fields).
    public var fields: Rules
    /// The rules for keys inside Object values (nested dictionaries, at any depth).
    public var nestedKeys: Rules
    /// The longest field name in UTF-8 bytes, when the destination has a limit.
    public var maxFieldBytes: Int?

    /// Makes a policy.
    /// - Parameters:
    ///   - destination: the destination's name, for messages.
    ///   - fields: the rules for field names.
    ///   - nestedKeys: the rules for nested keys.
    ///   - maxFieldBytes: the longest field name in UTF-8 bytes, if limited.
    public init(destination: String, fields: Rules, nestedKeys: Rules, maxFieldBytes: Int? = nil) {
        self.destination = destination
        self.fields = fields
        self.nestedKeys = nestedKeys
        self.maxFieldBytes = maxFieldBytes
    }

    /// Any name at all (a keyed archive, a memory store, a SQLite store's field names).
    public static let unrestricted = ParseNamePolicy(destination: "any store", fields: .unrestricted, nestedKeys: .unrestricted)
    /// A Parse export: Parse's rules for fields and nested keys.
    public static let parseExport = ParseNamePolicy(destination: "Parse export", fields: .parse, nestedKeys: .parse)
    /// Parse Server's MongoDB shape: Parse's rules (MongoDB forbids `$` and `.` in keys, and
    /// parse-server reads top-level `_` keys as its own).
    public static let mongoShape = ParseNamePolicy(destination: "Parse Server MongoDB shape", fields: .parse, nestedKeys: .parse)
    /// Parse Server's PostgreSQL schema: Parse's rules, and columns of at most 63 bytes
    /// (PostgreSQL's `NAMEDATALEN` − 1; longer identifiers are cut silently).
    public static let postgres = ParseNamePolicy(destination: "PostgreSQL", fields: .parse, nestedKeys: .parse, maxFieldBytes: 63)
    /// A column of pfarchive's SQLite store.
    public static let sqliteColumn = ParseNamePolicy(destination: "SQLite", fields: .sqliteIdentifier, nestedKeys: .unrestricted)

    /// Whether the policy changes no name at all.
    public var isUnrestricted: Bool { fields == .unrestricted && nestedKeys == .unrestricted && maxFieldBytes == nil }

    public var description: String { destination }

    /// Why a field name breaks the rules, or `nil` when the destination holds it as it is.
    /// - Parameters:
    ///   - name: the field name.
    ///   - className: its class (for Parse's `_Hooks` exception).
    /// - Returns: a phrase for a message.
    public func fieldProblem(_ name: String, className: String? = nil) -> String? {
        if let problem = Self.problem(name, fields, nested: false, className: className) { return problem }
        if let max = maxFieldBytes, name.utf8.count > max {
            return "'\(name)' is longer than \(max) bytes, the longest name \(destination) can hold"
        }
        return nil
    }

    /// Why a nested key breaks the rules, or `nil`.
    /// - Parameter key: a key of an Object value.
    /// - Returns: a phrase for a message.
    public func nestedKeyProblem(_ key: String) -> String? {
        Self.problem(key, nestedKeys, nested: true, className: nil)
    }

    private static func problem(_ name: String, _ rules: Rules, nested: Bool, className: String?) -> String? {
        switch rules {
        case .unrestricted: return nil
        case .parse: return nested ? ParseRules.nestedKeyProblem(name) : ParseRules.fieldNameProblem(name, className: className)
        case .sqliteIdentifier:
            if name.isEmpty { return "an empty name cannot be a SQLite column" }
            if name.utf8.contains(0) { return "'\(name)' holds U+0000, which a SQLite column name cannot" }
            return nil
        }
    }
}

/// pfarchive's one reversible encoding of names a destination cannot hold.
///
/// A name the destination's ``ParseNamePolicy`` allows is kept as it is, unless it starts with
/// the prefix `pf__` (then it would look encoded, so it is encoded too). Any other name `n` is
/// written as `pf__` followed by `n`'s Unicode scalars, where
///
/// - ASCII letters and digits stay as they are;
/// - `_` becomes `__`;
/// - any other scalar becomes `_`, its code point in lowercase hexadecimal, and `_`
///   (`.` → `_2e_`, `$` → `_24_`, `é` → `_e9_`, U+1F600 → `_1f600_`).
///
/// So `com.apple.Dataclass.Availability` becomes `pf__com_2e_apple_2e_Dataclass_2e_Availability`
/// and `_DKApplicationActivityMetadataKey__contentDescription` becomes
/// `pf____DKApplicationActivityMetadataKey____contentDescription`. Every encoded name matches
/// Parse's `^[A-Za-z][A-Za-z0-9_]*$` and is never a reserved name.
///
/// When the destination limits a field name's length (PostgreSQL: 63 bytes) and the name (as
/// encoded) is longer, it is shortened to `pf___l` + 16 hexadecimal digits (a 64-bit FNV-1a
/// hash of the original name) + `_` + the start of the encoded name, cut to the limit. The
/// store keeps the original in its schema; ``decodeField(_:policy:originals:)`` takes that table.
///
/// The laws, for every string `n` and policy `p`: `decode(encode(n, p)) == n` (with the
/// originals table for shortened names); `encode(n, p)` satisfies `p`; `encode` is
/// injective; and `encode(n, p) == n` whenever `p` allows `n` and `n` does not start with
/// `pf__`. Decoding changes a name only when it is exactly what `encode` makes of some name
/// under the same policy, so a name from elsewhere that merely starts with `pf__` (such as
/// `pf__score`, which no policy would make of `score`) reads back as it is.
public enum ParseNameCoding {
    /// The prefix of every encoded name.
    public static let prefix = "pf__"
    private static let prefixBytes = Array(prefix.utf8)
    private static let longMarker = "_l"

    // MARK: - Names

    /// A field name as the destination can hold it.
    /// - Parameters:
    ///   - name: the original name.
    ///   - policy: the destination's rules.
    ///   - className: the class (for Parse's `_Hooks` exception).
    /// - Returns: `name`, or its encoding.
    public static func encodeField(_ name: String, policy: ParseNamePolicy, className: String? = nil) -> String {
        var out = name
        if policy.fieldProblem(name, className: className) != nil || hasPrefix(name) {
            out = prefix + body(name)
        }
        if let max = policy.maxFieldBytes, out.utf8.count > max {
            out = shortened(out, original: name, max: max)
        }
        return out
    }

    /// A nested key as the destination can hold it.
    /// - Parameters:
    ///   - key: the original key.
    ///   - policy: the destination's rules.
    /// - Returns: `key`, or its encoding.
    public static func encodeNestedKey(_ key: String, policy: ParseNamePolicy) -> String {
        if policy.nestedKeys == .unrestricted { return key }
        if policy.nestedKeyProblem(key) != nil || hasPrefix(key) { return prefix + body(key) }
        return key
    }

    /// The original of a field name read from a store written with `policy`; any name
    /// `encodeField` did not make is returned as it is.
    /// - Parameters:
    ///   - name: a field name read from the store.
    ///   - policy: the rules the store's names follow.
    ///   - originals: shortened names and their originals, from the store's schema.
    /// - Returns: the original name.
    public static func decodeField(_ name: String, policy: ParseNamePolicy, originals: [String: String] = [:]) -> String {
        guard hasPrefix(name) else { return name }
        if let original = originals[name] { return original }
        guard let decoded = unbody(name.utf8.dropFirst(prefixBytes.count)) else { return name }
        // Only what `encodeField` makes is decoded: a name that merely looks encoded stays.
        return policy.fieldProblem(decoded) != nil || hasPrefix(decoded) ? decoded : name
    }

    /// The original of a nested key read from a store written with `policy`; any key
    /// `encodeNestedKey` did not make is returned as it is.
    /// - Parameters:
    ///   - key: a nested key read from the store.
    ///   - policy: the rules the store's names follow.
    /// - Returns: the original key.
    public static func decodeNestedKey(_ key: String, policy: ParseNamePolicy) -> String {
        guard policy.nestedKeys != .unrestricted, hasPrefix(key),
              let decoded = unbody(key.utf8.dropFirst(prefixBytes.count))
        else { return key }
        return policy.nestedKeyProblem(decoded) != nil || hasPrefix(decoded) ? decoded : key
    }

    /// Whether a name starts with the prefix `pf__` (so it is encoded, or would be).
    /// - Parameter name: a name.
    /// - Returns: `true` when it starts with `pf__`.
    public static func hasPrefix(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { $0.starts(with: prefixBytes) }
    }

    /// The escaped scalars of a name.
    static func body(_ name: String) -> String {
        var out = ""
        out.reserveCapacity(name.utf8.count + 8)
        for scalar in name.unicodeScalars {
            let v = scalar.value
            if (v >= 0x30 && v <= 0x39) || (v >= 0x41 && v <= 0x5A) || (v >= 0x61 && v <= 0x7A) {
                out.unicodeScalars.append(scalar)
            } else if v == 0x5F {
                out += "__"
            } else {
                out += "_" + String(v, radix: 16) + "_"
            }
        }
        return out
    }

    /// Reads an escaped body back, or `nil` when it is not exactly what ``body(_:)`` writes.
    static func unbody(_ bytes: Substring.UTF8View) -> String? {
        var out = String.UnicodeScalarView()
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b != 0x5F {
                let isAlnum = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                guard isAlnum else { return nil }
                out.append(Unicode.Scalar(b))
                i = bytes.index(after: i)
                continue
            }
            i = bytes.index(after: i)
            guard i < bytes.endIndex else { return nil }
            if bytes[i] == 0x5F {
                out.append("_")
                i = bytes.index(after: i)
                continue
            }
            var value: UInt32 = 0
            var digits = 0
            while i < bytes.endIndex, bytes[i] != 0x5F {
                let d = bytes[i]
                let digit: UInt32
                switch d {
                case 0x30...0x39: digit = UInt32(d - 0x30)
                case 0x61...0x66: digit = UInt32(d - 0x61 + 10)
                default: return nil
                }
                // Canonical: no leading zero, at most six digits (U+10FFFF).
                if digits == 0, digit == 0 { return nil }
                digits += 1
                guard digits <= 6 else { return nil }
                value = value << 4 | digit
                i = bytes.index(after: i)
            }
            guard digits > 0, i < bytes.endIndex, let scalar = Unicode.Scalar(value) else { return nil }
            // A scalar written escaped must be one `body` escapes (not a letter, digit or `_`).
            let isPlain = (value >= 0x30 && value <= 0x39) || (value >= 0x41 && value <= 0x5A) || (value >= 0x61 && value <= 0x7A)
                || value == 0x5F
            guard !isPlain else { return nil }
            out.append(scalar)
            i = bytes.index(after: i)
        }
        return String(out)
    }

    /// A name cut to `max` bytes that still names its original uniquely (with the store's table).
    static func shortened(_ encoded: String, original: String, max: Int) -> String {
        let head = prefix + longMarker + StableHash.fnv1aHex(original.utf8) + "_"
        let room = Swift.max(0, max - head.utf8.count)
        // The tail is ASCII when it was encoded; a long name the rules allow may not be, so it
        // is cut at a scalar boundary.
        var tail = ""
        var used = 0
        for scalar in encoded.unicodeScalars {
            let n = String(scalar).utf8.count
            guard used + n <= room else { break }
            tail.unicodeScalars.append(scalar)
            used += n
        }
        return head + tail
    }

    /// Whether a name is a shortened one (its original is only in the store's table).
    /// - Parameter name: a name read from a store.
    /// - Returns: `true` for `pf___l<hash>_…`.
    public static func isShortened(_ name: String) -> Bool {
        name.hasPrefix(prefix + longMarker)
    }
}

// MARK: - Counting

/// The names a store writer encoded, per class and field, for the import report.
public struct ParseNameTally: Sendable, Equatable {
    /// What was encoded in one field of a class.
    public struct Entry: Sendable, Equatable {
        /// The field's name as stored, when it differs from the original.
        public var storedName: String?
        /// How many nested keys inside the field's values were encoded (each occurrence).
        public var nestedKeys: Int = 0

        /// Makes an entry.
        /// - Parameters:
        ///   - storedName: the stored name of the field, when encoded.
        ///   - nestedKeys: nested keys encoded.
        public init(storedName: String? = nil, nestedKeys: Int = 0) {
            self.storedName = storedName
            self.nestedKeys = nestedKeys
        }
    }

    /// Per class, per original field name.
    public var classes: OrderedDictionary<String, OrderedDictionary<String, Entry>> = [:]

    /// An empty tally.
    public init() {}

    /// Whether nothing was encoded.
    public var isEmpty: Bool { classes.isEmpty }
    /// Fields whose own name was encoded.
    public var encodedFields: Int { classes.values.reduce(0) { $0 + $1.values.filter { $0.storedName != nil }.count } }
    /// Nested keys encoded, every occurrence.
    public var encodedNestedKeys: Int { classes.values.reduce(0) { $0 + $1.values.reduce(0) { $0 + $1.nestedKeys } } }

    /// Notes a field whose name was stored as `stored`.
    /// - Parameters:
    ///   - field: the original name.
    ///   - stored: the stored name.
    ///   - className: the class.
    public mutating func field(_ field: String, storedAs stored: String, className: String) {
        classes[className, default: [:]][field, default: Entry()].storedName = stored
    }

    /// Adds encoded nested keys of a field.
    /// - Parameters:
    ///   - count: how many keys.
    ///   - field: the original field name.
    ///   - className: the class.
    public mutating func nestedKeys(_ count: Int, field: String, className: String) {
        guard count > 0 else { return }
        classes[className, default: [:]][field, default: Entry()].nestedKeys += count
    }

    /// Adds another tally's counts.
    /// - Parameter other: the other tally.
    public mutating func merge(_ other: ParseNameTally) {
        for (className, fields) in other.classes {
            for (field, entry) in fields {
                var mine = classes[className, default: [:]][field, default: Entry()]
                if let stored = entry.storedName { mine.storedName = stored }
                mine.nestedKeys += entry.nestedKeys
                classes[className, default: [:]][field] = mine
            }
        }
    }
}

// MARK: - Objects, values and schemas

extension ParseNameCoding {
    /// An object with every field name and nested key the policy forbids encoded.
    /// - Parameters:
    ///   - object: the object, with its original names.
    ///   - policy: the destination's rules.
    ///   - tally: where encoded names are counted.
    /// - Returns: the object as the destination can hold it (the same object when nothing changes).
    public static func encode(_ object: ParseObject, policy: ParseNamePolicy, tally: inout ParseNameTally) -> ParseObject {
        encodedIfChanged(object, policy: policy, tally: &tally) ?? object
    }

    /// An object with every field name and nested key the policy forbids encoded, or `nil`
    /// when it has none: a writer then keeps the object it has (and its array of objects)
    /// instead of a copy.
    /// - Parameters:
    ///   - object: the object, with its original names.
    ///   - policy: the destination's rules.
    ///   - tally: where encoded names are counted.
    /// - Returns: the object as the destination can hold it, or `nil` when that is `object`.
    public static func encodedIfChanged(_ object: ParseObject, policy: ParseNamePolicy, tally: inout ParseNameTally) -> ParseObject? {
        var kept = KeptFields()
        return encodedIfChanged(object, policy: policy, tally: &tally, kept: &kept)
    }

    /// ``encodedIfChanged(_:policy:tally:)`` for a run of objects: `kept` remembers the field
    /// names the last objects kept as they are, by position, so objects that share their key
    /// order (a class's rows) have each name checked once, not once per object.
    /// - Parameters:
    ///   - object: the object, with its original names.
    ///   - policy: the destination's rules.
    ///   - tally: where encoded names are counted.
    ///   - kept: the names known to be kept; start with an empty one and pass it to every call.
    /// - Returns: the object as the destination can hold it, or `nil` when that is `object`.
    public static func encodedIfChanged(
        _ object: ParseObject, policy: ParseNamePolicy, tally: inout ParseNameTally, kept: inout KeptFields
    ) -> ParseObject? {
        if policy.isUnrestricted { return nil }
        if kept.className != object.className || kept.policy != policy {
            kept = KeptFields(className: object.className, policy: policy)
        }
        return recode(object, tally: &tally, .encode(policy), kept: &kept)
    }

    /// Field names known to stay as they are under one policy in one class, by their position
    /// in the objects (``encodedIfChanged(_:policy:tally:kept:)``): asking whether a name is the
    /// one remembered at its position costs a comparison of equal strings, not a check of the
    /// name against the rules.
    public struct KeptFields: Sendable {
        /// The class the names are of; `nil`: nothing is remembered.
        var className: String?
        var policy: ParseNamePolicy?
        var names: [String] = []

        /// Nothing known yet.
        public init() {}

        init(className: String, policy: ParseNamePolicy) {
            self.className = className
            self.policy = policy
        }
    }

    /// An object read from a store written with `policy`, with its original names.
    /// - Parameters:
    ///   - object: the object as stored.
    ///   - policy: the rules the store's names follow.
    ///   - originals: shortened field names and their originals, from the store's schema.
    /// - Returns: the object with the original names (the same object when nothing changes).
    public static func decode(_ object: ParseObject, policy: ParseNamePolicy, originals: [String: String] = [:]) -> ParseObject {
        if policy.isUnrestricted { return object }
        var ignored = ParseNameTally()
        var kept = KeptFields()
        return recode(object, tally: &ignored, .decode(policy, originals: originals), kept: &kept) ?? object
    }

    /// Which way names are recoded (no closures: one made per call cost an allocation per
    /// nested value).
    private enum Recoding {
        case encode(ParseNamePolicy)
        case decode(ParseNamePolicy, originals: [String: String])

        /// Whether nested keys change at all.
        var recodesKeys: Bool {
            switch self {
            case .encode(let policy), .decode(let policy, _): policy.nestedKeys != .unrestricted
            }
        }

        func field(_ name: String, className: String) -> String {
            switch self {
            case .encode(let policy): ParseNameCoding.encodeField(name, policy: policy, className: className)
            case .decode(let policy, let originals): ParseNameCoding.decodeField(name, policy: policy, originals: originals)
            }
        }

        /// Whether `key` surely stays as it is (answered without building a string): what
        /// nearly every nested key does, so ``key(_:)`` is called only for the others.
        func keeps(_ key: String) -> Bool {
            switch self {
            case .encode(let policy), .decode(let policy, _):
                guard policy.nestedKeys != .unrestricted else { return true }
                if case .encode = self, policy.nestedKeys == .parse {
                    // Parse's rule itself (``ParseRules/nestedKeyProblem(_:)`` without its
                    // message), asked of every nested key of every row.
                    return !ParseNameCoding.hasPrefix(key) && !ParseRules.hasReservedCharacter(key)
                }
                if ParseNameCoding.hasPrefix(key) { return false }
                if case .encode = self { return policy.nestedKeyProblem(key) == nil }
                return true
            }
        }

        func key(_ key: String) -> String {
            switch self {
            case .encode(let policy): ParseNameCoding.encodeNestedKey(key, policy: policy)
            case .decode(let policy, _): ParseNameCoding.decodeNestedKey(key, policy: policy)
            }
        }
    }

    /// The object with its names recoded, or `nil` when none changes. Nothing is copied until
    /// a name or nested key actually changes: for an object the destination holds as it is
    /// (nearly every one) nothing is built at all.
    private static func recode(
        _ object: ParseObject, tally: inout ParseNameTally, _ recoding: Recoding, kept: inout KeptFields
    ) -> ParseObject? {
        let recodesKeys = recoding.recodesKeys
        // A memo without a class is not kept (decoding, embedded objects).
        let remembers = kept.className != nil
        let fields = object.fields
        // The views once, not per field (each use of `fields.keys` or `fields.values` retained
        // and released its storage).
        let fieldKeys = fields.keys.elements
        let fieldValues = fields.values.elements
        // Filled from the first field that changes on (with the fields before it, as they are).
        var keys: [String]?
        var values: [ParseValue]?
        var renamed: [String: String] = [:]
        for i in fieldKeys.indices {
            let field = fieldKeys[i]
            let stored: String
            if remembers, i < kept.names.count, kept.names[i] == field {
                stored = field
            } else {
                stored = recoding.field(field, className: object.className)
                if remembers, stored == field {
                    if i < kept.names.count { kept.names[i] = field } else if i == kept.names.count { kept.names.append(field) }
                }
            }
            if stored != field {
                renamed[field] = stored
                tally.field(field, storedAs: stored, className: object.className)
            }
            var count = 0
            // Only Objects, Arrays and embedded objects hold keys.
            let new: ParseValue?
            switch fieldValues[i] {
            case .object, .array, .embedded: new = recodesKeys ? recode(fieldValues[i], recoding, count: &count) : nil
            default: new = nil
            }
            if new != nil { tally.nestedKeys(count, field: field, className: object.className) }
            if keys == nil {
                guard stored != field || new != nil else { continue }
                keys = Array(fieldKeys[..<i])
                values = Array(fieldValues[..<i])
                keys?.reserveCapacity(fields.count)
                values?.reserveCapacity(fields.count)
            }
            keys?.append(stored)
            values?.append(new ?? fieldValues[i])
        }
        guard let keys, let values else { return nil }
        var copy = object
        // Two originals share an encoding only when two shortened names hash alike; the
        // store's table of originals then refuses the pair (never a trap here).
        copy.fields = OrderedDictionary(zip(keys, values), uniquingKeysWith: { first, _ in first })
        if let order = copy.sourceKeyOrder { copy.sourceKeyOrder = order.map { renamed[$0] ?? $0 } }
        return copy
    }

    /// A value with its nested keys recoded, or `nil` when none changes (then nothing was
    /// copied: the common case costs one look at each key).
    private static func recode(_ value: ParseValue, _ recoding: Recoding, count: inout Int) -> ParseValue? {
        switch value {
        case .object(let d):
            // Filled from the first member that changes on (with the members before it).
            var out: OrderedDictionary<String, ParseValue>?
            let memberKeys = d.keys.elements
            let memberValues = d.values.elements
            for i in memberKeys.indices {
                let k = memberKeys[i]
                // `__type` marks a typed value in REST JSON; it is not a name of the data (told
                // by length first: a comparison with a literal is not the cheap one of equal strings).
                let newKey = (k.utf8.count == 6 && k == "__type") || recoding.keeps(k) ? k : recoding.key(k)
                if newKey != k { count += 1 }
                // Scalars hold no keys: no call, no copy of the value.
                let new: ParseValue?
                switch memberValues[i] {
                case .object, .array, .embedded: new = recode(memberValues[i], recoding, count: &count)
                default: new = nil
                }
                if out == nil {
                    guard newKey != k || new != nil else { continue }
                    var head = OrderedDictionary<String, ParseValue>(minimumCapacity: d.count)
                    for j in memberKeys.indices[..<i] { head[memberKeys[j]] = memberValues[j] }
                    out = head
                }
                out?[newKey] = new ?? memberValues[i]
            }
            return out.map { .object($0) }
        case .array(let items):
            var out: [ParseValue]?
            for i in items.indices {
                switch items[i] {
                case .object, .array, .embedded: break
                default: continue
                }
                if let new = recode(items[i], recoding, count: &count) {
                    if out == nil { out = items }
                    out?[i] = new
                }
            }
            return out.map { .array($0) }
        case .embedded(let object):
            var inner = ParseNameTally()
            var kept = KeptFields()
            let new = recode(object, tally: &inner, recoding, kept: &kept)
            count += inner.encodedFields + inner.encodedNestedKeys
            return new.map { .embedded($0) }
        default:
            return nil
        }
    }

    /// A schema with its field names encoded for the policy.
    /// - Parameters:
    ///   - schema: the schema with original names.
    ///   - policy: the destination's rules.
    /// - Returns: the schema as the destination can hold it.
    public static func encode(_ schema: ParseSchema, policy: ParseNamePolicy) -> ParseSchema {
        if policy.isUnrestricted { return schema }
        return ParseSchema(schema.classes.mapValuesKeepingOrder { className, fields in
            OrderedDictionary(fields.map { (encodeField($0.key, policy: policy, className: className), $0.value) }, uniquingKeysWith: { a, _ in a })
        })
    }

    /// A schema read from a store written with `policy`, with its original field names.
    /// - Parameters:
    ///   - schema: the schema as stored.
    ///   - policy: the rules the store's names follow.
    ///   - originals: shortened names and their originals, per class.
    /// - Returns: the schema with original names.
    public static func decode(_ schema: ParseSchema, policy: ParseNamePolicy, originals: [String: [String: String]] = [:]) -> ParseSchema {
        if policy.isUnrestricted { return schema }
        return ParseSchema(schema.classes.mapValuesKeepingOrder { className, fields in
            let table = originals[className] ?? [:]
            return OrderedDictionary(fields.map { (decodeField($0.key, policy: policy, originals: table), $0.value) }, uniquingKeysWith: { a, _ in a })
        })
    }

    /// The first name of an object that the policy forbids, as Parse's error (for
    /// `--strict-names`, which refuses such names instead of encoding them).
    /// - Parameters:
    ///   - object: the object with its original names.
    ///   - policy: the destination's rules.
    /// - Returns: the error (Parse code 105 for a field, 121 for a nested key), or `nil`.
    public static func firstProblem(in object: ParseObject, policy: ParseNamePolicy) -> PFError? {
        if policy.isUnrestricted { return nil }
        let context = ParseContext(className: object.className, objectId: object.objectId)
        for (field, value) in object.fields {
            if let problem = policy.fieldProblem(field, className: object.className) {
                return PFError(parse: ParseFailure.badFieldName(problem: problem, destination: policy.destination), path: PFCodingPath.root.appending(key: field), context: context)
            }
            if policy.nestedKeys != .unrestricted, let (path, problem) = nestedProblem(value, policy: policy, path: PFCodingPath.root.appending(key: field)) {
                return PFError(parse: ParseFailure.badNestedKey(problem: problem, destination: policy.destination), path: path, context: context)
            }
        }
        return nil
    }

    private static func nestedProblem(_ value: ParseValue, policy: ParseNamePolicy, path: PFCodingPath) -> (PFCodingPath, String)? {
        switch value {
        case .object(let d):
            for (k, member) in d {
                if k != "__type", let problem = policy.nestedKeyProblem(k) { return (path.appending(key: k), problem) }
                if let found = nestedProblem(member, policy: policy, path: path.appending(key: k)) { return found }
            }
        case .array(let items):
            for (i, item) in items.enumerated() {
                if let found = nestedProblem(item, policy: policy, path: path.appending(index: i)) { return found }
            }
        case .embedded(let object):
            for (k, member) in object.fields {
                if let problem = policy.fieldProblem(k, className: object.className) { return (path.appending(key: k), problem) }
                if let found = nestedProblem(member, policy: policy, path: path.appending(key: k)) { return found }
            }
        default:
            break
        }
        return nil
    }
}

extension OrderedDictionary {
    /// The dictionary with each value transformed, keys and order kept.
    func mapValuesKeepingOrder<T>(_ transform: (Key, Value) -> T) -> OrderedDictionary<Key, T> {
        OrderedDictionary<Key, T>(uniqueKeysWithValues: map { ($0.key, transform($0.key, $0.value)) })
    }
}
