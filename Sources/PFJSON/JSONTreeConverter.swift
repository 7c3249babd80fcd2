import CPFJSONC
import Foundation
import OrderedCollections
import PFCore

/// Turns a json-c tree into a ``PFValue`` in one walk.
///
/// Key paths cost nothing on the way down: an error collects its path while it unwinds
/// (``PFError/under(_:)``). Objects are visited in the same pre-order as the pre-scan saw
/// their `{`, so the member counts it recorded line up with the objects here until the first
/// duplicate key (strict mode stops there; lenient mode does not use the counts).
struct JSONTreeConverter {
    let strict: Bool
    let typedValues: Bool
    let maxStringBytes: Int
    let objectCounts: [Int]
    let objectOffsets: [Int]
    let input: UnsafeRawBufferPointer
    private var objectIndex = 0

    init(options: JSONReader.Options, objectCounts: [Int], objectOffsets: [Int], input: UnsafeRawBufferPointer) {
        self.strict = options.mode == .strict
        self.typedValues = options.typedValues
        self.maxStringBytes = options.limits.maxStringBytes
        self.objectCounts = objectCounts
        self.objectOffsets = objectOffsets
        self.input = input
    }

    /// Converts the whole tree.
    mutating func convertRoot(_ root: OpaquePointer?) throws(PFError) -> PFValue {
        try convert(root)
    }

    // MARK: - Values

    private mutating func convert(_ object: OpaquePointer?) throws(PFError) -> PFValue {
        guard let object else { return .null }
        let type = json_object_get_type(object)
        if type == json_type_string {
            return .string(try string(object))
        } else if type == json_type_int {
            let value = json_object_get_int64(object)
            // json-c stores values above Int64.max as uint64 and clamps get_int64 to Int64.max.
            if value == Int64.max {
                let unsigned = json_object_get_uint64(object)
                if unsigned > UInt64(Int64.max) { return .uint(unsigned) }
            }
            return .int(value)
        } else if type == json_type_double {
            return .double(json_object_get_double(object))
        } else if type == json_type_object {
            return try convertObject(object)
        } else if type == json_type_array {
            let n = json_object_array_length(object)
            var items: [PFValue] = []
            items.reserveCapacity(n)  // json-c's real length, not a claimed count
            for k in 0..<n {
                do {
                    items.append(try convert(json_object_array_get_idx(object, k)))
                } catch {
                    throw error.under(.index(k))
                }
            }
            return .array(items)
        } else if type == json_type_boolean {
            return .bool(json_object_get_boolean(object) != 0)
        }
        return .null
    }

    private func string(_ object: OpaquePointer) throws(PFError) -> String {
        let n = Int(json_object_get_string_len(object))
        guard n <= maxStringBytes else {
            throw PFLimits.exceeded("maxStringBytes", maxStringBytes, format: JSONError.format)
        }
        guard n > 0, let chars = json_object_get_string(object) else { return "" }
        // The pre-scan validated UTF-8 in strict mode; in lenient mode this repairs invalid
        // sequences to U+FFFD, which is the documented lenient policy.
        return String(decoding: UnsafeRawBufferPointer(start: chars, count: n), as: UTF8.self)
    }

    @inline(__always)
    private func key(_ entry: UnsafeMutablePointer<lh_entry>) -> String {
        guard let chars = pf_json_entry_key(entry) else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: chars, count: strlen(chars)), as: UTF8.self)
    }

    // MARK: - Objects

    private mutating func convertObject(_ object: OpaquePointer) throws(PFError) -> PFValue {
        let n = Int(json_object_object_length(object))
        var unique = false
        if strict {
            let index = objectIndex
            objectIndex += 1
            guard index < objectCounts.count else {
                throw PFError(.invalidValue, format: JSONError.format, "json-c's tree does not match the pre-scan")
            }
            let expected = objectCounts[index]
            if expected != n {
                throw JSONError.make(
                    .invalidValue,
                    "duplicate key in an object (\(expected) members, \(n) distinct keys); strict mode requires unique keys (lenient mode keeps the last value)",
                    offset: objectOffsets[index], in: input, path: .root)
            }
            unique = true
        }
        if typedValues, n == 1 || n == 2, let typed = try typedValue(object, count: n) {
            // A typed object's members hold no objects, so nothing in objectCounts is skipped
            // except when a malformed one is kept as a dictionary below.
            return typed
        }
        var keys: [String] = []
        var values: [PFValue] = []
        keys.reserveCapacity(n)
        values.reserveCapacity(n)
        var entry = pf_json_object_first_entry(object)
        while let current = entry {
            let name = key(current)
            do {
                values.append(try convert(pf_json_entry_value(current)))
            } catch {
                throw error.under(.key(name))
            }
            keys.append(name)
            entry = pf_json_entry_next(current)
        }
        if unique, keys.count == n {
            // json-c's hash table already made keys distinct, and the pre-scan's count
            // proved no duplicate was dropped.
            return .dictionary(OrderedDictionary(uncheckedUniqueKeys: keys, values: values))
        }
        return .dictionary(OrderedDictionary(zip(keys, values), uniquingKeysWith: { _, last in last }))
    }
}
