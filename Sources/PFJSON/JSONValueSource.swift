import CPFJSONC
import Foundation
import PFCore

/// A checked JSON document as the value builder reads it: kinds, scalars, elements, members
/// and key bytes, whatever holds them.
///
/// Two conform: ``JSONCSource`` (json-c's tree, which ``JSONReader/read(_:)-(Data)`` and its
/// parallel batches convert) and ``JSONTape`` (the record the validating scanner makes, which
/// node views stand on). ``JSONValueBuilder`` — the one `PFValue` builder, typed values
/// included — is written once over this protocol and specialised for each, in the manner of
/// a generic decoder over several formats. Both hold documents the pre-scan has validated,
/// so nothing here fails; the builder makes the checks that depend on options.
protocol JSONValueSource {
    /// A value of the document.
    associatedtype Value
    /// A position in an object's list of members.
    associatedtype Member

    /// The value's kind.
    func kind(_ value: Value) -> JSONNode.Kind
    /// A `.bool`'s value.
    func bool(_ value: Value) -> Bool
    /// An `.int`'s value.
    func int(_ value: Value) -> Int64
    /// A `.uint`'s value.
    func uint(_ value: Value) -> UInt64
    /// A `.double`'s value.
    func double(_ value: Value) -> Double
    /// A `.string`'s decoded bytes in place, or `nil` when they must be decoded (``string(_:)``).
    func stringBytes(_ value: Value) -> UnsafeRawBufferPointer?
    /// A `.string`'s value, built.
    func string(_ value: Value) -> String
    /// The elements of an array, or the members of an object as the source holds them (a
    /// repeated key counted each time when ``mayRepeatKeys(_:)``).
    func count(_ value: Value) -> Int
    /// Element `k` of an array; `previous` is element `k - 1` (`nil` for the first), so a
    /// source that walks its elements in order need not search.
    func element(_ array: Value, _ k: Int, after previous: Value?) -> Value
    /// The first member of an object, or `nil` when it is empty.
    func firstMember(_ object: Value) -> Member?
    /// The member after `member` in `object`, or `nil` after the last.
    func nextMember(_ member: Member, of object: Value) -> Member?
    /// A member's key bytes (valid while the document is): the key as written when it has no
    /// escape, json-c's decoded key otherwise.
    func keyBytes(_ member: Member) -> (start: UnsafeRawPointer, count: Int)
    /// A member's value.
    func memberValue(_ member: Member) -> Value
    /// Whether the object may hold a key more than once (its members must then be merged,
    /// the last value at the first position).
    func mayRepeatKeys(_ object: Value) -> Bool

    // For the repeated-key check (``JSONDuplicateKeys``):
    /// The members the object was written with, a repeated key counted each time; `slot` is
    /// its index among the document's objects in pre-order.
    func writtenMembers(_ object: Value, slot: Int) -> Int
    /// The object's distinct keys, as the keys of ``PFValue/dictionary(_:)`` tell them apart.
    func distinctKeys(_ object: Value) -> Int
    /// The offset of the object's `{` in the input.
    func objectOffset(_ object: Value, slot: Int) -> Int
    /// A key from ``keyBytes(_:)``, as a String (for key paths).
    func keyName(_ start: UnsafeRawPointer, _ count: Int) -> String
}

// MARK: - json-c's tree

/// json-c's tree as a ``JSONValueSource``: a value is a `json_object` (`nil` for `null`), a
/// member an entry of the object's hash table, in insertion order. json-c keeps one member per
/// distinct key.
struct JSONCSource: JSONValueSource {
    /// The pre-scan's member count and `{` offset of every object (recorded only with
    /// ``JSONReader/Options/rejectDuplicateKeys``).
    var objectCounts: [Int] = []
    var objectOffsets: [Int] = []
    /// Whether some key is beyond ASCII (distinct bytes may then be equal strings).
    var keysNeedUniquing = false
    /// The noncharacter standing for U+0000 in this document's keys, if any.
    var nulStandIn: Unicode.Scalar?

    init() {}

    /// The source of a document the pre-scan described in `scan`.
    init(scan: JSONScanResult, nulStandIn: Unicode.Scalar?) {
        objectCounts = scan.objectCounts
        objectOffsets = scan.objectOffsets
        keysNeedUniquing = scan.nonASCIIKeys
        self.nulStandIn = nulStandIn
    }

    @inline(__always) func kind(_ value: OpaquePointer?) -> JSONNode.Kind {
        guard let value else { return .null }
        return JSONC.kind(value)
    }

    @inline(__always) func bool(_ value: OpaquePointer?) -> Bool { json_object_get_boolean(value) != 0 }
    @inline(__always) func int(_ value: OpaquePointer?) -> Int64 { json_object_get_int64(value) }
    @inline(__always) func uint(_ value: OpaquePointer?) -> UInt64 { json_object_get_uint64(value) }
    @inline(__always) func double(_ value: OpaquePointer?) -> Double { json_object_get_double(value) }

    @inline(__always) func stringBytes(_ value: OpaquePointer?) -> UnsafeRawBufferPointer? {
        guard let value else { return nil }
        return JSONC.stringBytes(value)
    }

    @inline(__always) func string(_ value: OpaquePointer?) -> String {
        guard let value else { return "" }
        return JSONC.string(value)
    }

    @inline(__always) func count(_ value: OpaquePointer?) -> Int {
        guard let value else { return 0 }
        let type = json_object_get_type(value)
        if type == json_type_array { return json_object_array_length(value) }
        if type == json_type_object { return Int(json_object_object_length(value)) }
        return 0
    }

    @inline(__always) func element(_ array: OpaquePointer?, _ k: Int, after previous: OpaquePointer??) -> OpaquePointer? {
        json_object_array_get_idx(array, k)
    }

    @inline(__always) func firstMember(_ object: OpaquePointer?) -> UnsafeMutablePointer<lh_entry>? {
        guard let object else { return nil }
        return pf_json_object_first_entry(object)
    }

    @inline(__always) func nextMember(_ member: UnsafeMutablePointer<lh_entry>, of object: OpaquePointer?) -> UnsafeMutablePointer<lh_entry>? {
        pf_json_entry_next(member)
    }

    @inline(__always) func keyBytes(_ member: UnsafeMutablePointer<lh_entry>) -> (start: UnsafeRawPointer, count: Int) {
        // json-c keys are NUL-terminated C strings (it has no length for them).
        guard let chars = pf_json_entry_key(member) else { return (JSONCSource.emptyKey, 0) }
        return (UnsafeRawPointer(chars), strlen(chars))
    }

    @inline(__always) func memberValue(_ member: UnsafeMutablePointer<lh_entry>) -> OpaquePointer? {
        pf_json_entry_value(member)
    }

    @inline(__always) func mayRepeatKeys(_ object: OpaquePointer?) -> Bool { false }

    func writtenMembers(_ object: OpaquePointer?, slot: Int) -> Int {
        slot < objectCounts.count ? objectCounts[slot] : count(object)
    }

    func distinctKeys(_ object: OpaquePointer?) -> Int {
        guard keysNeedUniquing else { return count(object) }  // json-c's keys are distinct bytes
        var keys = Set<String>()
        var entry = firstMember(object)
        while let current = entry {
            let raw = keyBytes(current)
            keys.insert(keyName(raw.start, raw.count))
            entry = nextMember(current, of: object)
        }
        return keys.count
    }

    func objectOffset(_ object: OpaquePointer?, slot: Int) -> Int {
        slot < objectOffsets.count ? objectOffsets[slot] : 0
    }

    func keyName(_ start: UnsafeRawPointer, _ count: Int) -> String {
        JSONKeyCache.makeKey(start, count, nulStandIn)
    }

    /// The bytes of an empty key (never read: its length is 0).
    static var emptyKey: UnsafeRawPointer { UnsafeRawPointer(("" as StaticString).utf8Start) }
}

// MARK: - The scanner's tape

/// The tape as a ``JSONValueSource``: a value is an entry index; a member the index of its
/// key (its value is the next entry). A scanned tape's keys are plain ASCII without escapes,
/// so a key's bytes are its text; a tape copied from json-c's tree holds its keys decoded.
extension JSONTape: JSONValueSource {
    @inline(__always) func kind(_ value: Int) -> JSONNode.Kind { entries[value].kind }
    @inline(__always) func bool(_ value: Int) -> Bool { entries[value].flags & Self.trueFlag != 0 }

    @inline(__always) func stringBytes(_ value: Int) -> UnsafeRawBufferPointer? {
        let raw = rawString(value)
        return hasEscape(value, raw) ? nil : raw
    }

    @inline(__always) func count(_ value: Int) -> Int { Int(entries[value].count) }

    @inline(__always) func element(_ array: Int, _ k: Int, after previous: Int?) -> Int {
        guard let previous else { return array + 1 }
        return Int(entries[previous].next)
    }

    @inline(__always) func firstMember(_ object: Int) -> Int? {
        entries[object].count > 0 ? object + 1 : nil
    }

    @inline(__always) func nextMember(_ member: Int, of object: Int) -> Int? {
        let next = Int(entries[member + 1].next)
        return next < Int(entries[object].next) ? next : nil
    }

    @inline(__always) func keyBytes(_ member: Int) -> (start: UnsafeRawPointer, count: Int) {
        let e = entries[member]
        return (UnsafeRawPointer(p + Int(e.start)), Int(e.end - e.start))
    }

    @inline(__always) func memberValue(_ member: Int) -> Int { member + 1 }

    @inline(__always) func mayRepeatKeys(_ object: Int) -> Bool { entries[object].flags & Self.duplicatesFlag != 0 }

    func writtenMembers(_ object: Int, slot: Int) -> Int { Int(entries[object].count) }
    func objectOffset(_ object: Int, slot: Int) -> Int { Int(entries[object].start) }
    func keyName(_ start: UnsafeRawPointer, _ count: Int) -> String {
        String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    }
}
