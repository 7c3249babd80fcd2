import CPFJSONC
import Foundation
import OrderedCollections
import PFCore

/// Copies json-c's tree into a ``JSONTape`` over a side buffer, so that ``JSONNode`` views
/// every document as a tape and never sees json-c (the documents the scanner's tape cannot
/// hold: lenient mode, keys with escapes, beyond ASCII or holding U+0000, integers beyond 64
/// bits, a `maxStringBytes` check).
///
/// Every entry carries ``JSONTape/storedFlag``: a string's or key's bytes in the side buffer
/// are decoded, a number's are its 8-byte value. Objects are merged as a read merges them: a
/// repeated key once, at its first position, with its last value (json-c merges equal bytes;
/// keys beyond ASCII are merged here when they are equal Swift strings), so no entry carries
/// ``JSONTape/duplicatesFlag``. An object with a key beyond ASCII carries
/// ``JSONTape/stringKeysFlag``. U+0000 in keys (a stand-in scalar in json-c's copy) is
/// stored as the byte 0.
struct JSONTreeTapeWriter {
    var entries: [JSONTapeEntry]
    /// The side buffer's bytes so far.
    var bytes: [UInt8] = []
    let nulStandIn: Unicode.Scalar?
    /// Whether some key is beyond ASCII (distinct bytes may be equal strings).
    let keysNeedUniquing: Bool

    init(reusing entries: inout [JSONTapeEntry], nulStandIn: Unicode.Scalar?, keysNeedUniquing: Bool) {
        self.entries = []
        swap(&self.entries, &entries)
        self.entries.removeAll(keepingCapacity: true)
        self.nulStandIn = nulStandIn
        self.keysNeedUniquing = keysNeedUniquing
    }

    private mutating func append(_ kind: JSONNode.Kind, _ flags: UInt8, _ start: Int, _ end: Int) {
        entries.append(JSONTapeEntry(kind: kind, flags: flags | JSONTape.storedFlag, start: UInt32(truncatingIfNeeded: start),
                                     end: UInt32(truncatingIfNeeded: end),
                                     next: UInt32(truncatingIfNeeded: entries.count + 1), count: 0))
    }

    private mutating func append(_ kind: JSONNode.Kind, number: UInt64) {
        let start = bytes.count
        withUnsafeBytes(of: number.littleEndian) { bytes.append(contentsOf: $0) }
        append(kind, 0, start, bytes.count)
    }

    /// Appends `raw` to the side buffer; returns its range there.
    private mutating func store(_ raw: UnsafeRawBufferPointer) -> (start: Int, end: Int) {
        let start = bytes.count
        bytes.append(contentsOf: raw)
        return (start, bytes.count)
    }

    /// Copies the subtree at `object` (`nil` for `null`).
    mutating func write(_ object: OpaquePointer?) {
        guard let object else { return append(.null, 0, 0, 0) }
        switch JSONC.kind(object) {
        case .null: append(.null, 0, 0, 0)
        case .bool: append(.bool, json_object_get_boolean(object) != 0 ? JSONTape.trueFlag : 0, 0, 0)
        case .int: append(.int, number: UInt64(bitPattern: json_object_get_int64(object)))
        case .uint: append(.uint, number: json_object_get_uint64(object))
        case .double: append(.double, number: json_object_get_double(object).bitPattern)
        case .string:
            let range = store(JSONC.stringBytes(object))
            append(.string, 0, range.start, range.end)
        case .array:
            let at = entries.count
            append(.array, 0, 0, 0)
            let n = json_object_array_length(object)
            for k in 0..<n { write(json_object_array_get_idx(object, k)) }
            close(at, members: n)
        case .object:
            let at = entries.count
            append(.object, 0, 0, 0)
            var members = 0
            var beyondASCII = false
            if keysNeedUniquing || nulStandIn != nil {
                for (name, value) in uniqueMembers(object) {
                    var name = name
                    let range = name.withUTF8 { store(UnsafeRawBufferPointer($0)) }
                    beyondASCII = beyondASCII || name.utf8.contains { $0 >= 0x80 }
                    key(range)
                    write(value)
                    members += 1
                }
            } else {
                // json-c keys without U+0000 are NUL-terminated C strings, one per distinct key.
                var entry = pf_json_object_first_entry(object)
                while let current = entry {
                    let range: (start: Int, end: Int)
                    if let chars = pf_json_entry_key(current) {
                        let raw = UnsafeRawBufferPointer(start: chars, count: strlen(chars))
                        beyondASCII = beyondASCII || raw.contains { $0 >= 0x80 }
                        range = store(raw)
                    } else {
                        range = (bytes.count, bytes.count)
                    }
                    key(range)
                    write(pf_json_entry_value(current))
                    members += 1
                    entry = pf_json_entry_next(current)
                }
            }
            close(at, members: members)
            if beyondASCII { entries[at].flags |= JSONTape.stringKeysFlag }
        }
    }

    private mutating func key(_ range: (start: Int, end: Int)) {
        append(.string, 0, range.start, range.end)
        entries[entries.count - 1].count = bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return 0 }
            return JSONTapeBuilder.fingerprint(base, range.start, range.end)
        }
    }

    private mutating func close(_ at: Int, members: Int) {
        entries[at].next = UInt32(truncatingIfNeeded: entries.count)
        entries[at].count = UInt32(truncatingIfNeeded: members)
    }

    /// An object's members with keys that are equal Swift strings merged, the last value at
    /// the first position (distinct bytes for json-c may be equal strings, e.g. "\u{E9}" and
    /// "e\u{301}"), with U+0000 restored in keys.
    private func uniqueMembers(_ object: OpaquePointer) -> OrderedDictionary<String, OpaquePointer?> {
        var members = OrderedDictionary<String, OpaquePointer?>()
        var entry = pf_json_object_first_entry(object)
        while let current = entry {
            let name: String
            if let chars = pf_json_entry_key(current) {
                name = JSONKeyCache.makeKey(UnsafeRawPointer(chars), strlen(chars), nulStandIn)
            } else {
                name = ""
            }
            members[name] = pf_json_entry_value(current)
            entry = pf_json_entry_next(current)
        }
        return members
    }
}

/// The side buffer of a tape copied from json-c's tree: stable storage the tape points into
/// while its document is open, reused between documents.
final class JSONSideBuffer {
    private var storage: UnsafeMutableRawPointer?
    private var capacity = 0

    /// Copies `bytes` in (the previous contents are gone) and returns them in place.
    func hold(_ bytes: [UInt8]) -> UnsafeRawBufferPointer {
        if bytes.count > capacity {
            storage?.deallocate()
            capacity = max(bytes.count, 2 * capacity)
            storage = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        }
        guard let storage, !bytes.isEmpty else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        bytes.withUnsafeBytes { storage.copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(storage), byteCount: $0.count) }
        return UnsafeRawBufferPointer(start: storage, count: bytes.count)
    }

    deinit { storage?.deallocate() }
}
