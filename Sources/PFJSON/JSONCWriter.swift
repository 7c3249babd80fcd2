import CPFJSONC
import Foundation
import OrderedCollections
import PFCore

/// The ``JSONWriter/Engine/jsonC`` engine: builds a json-c tree from the value and lets
/// `json_object_to_json_string_length` print it.
///
/// The tree is owned by one scope and released on every path, including errors part-way
/// through the build (every new node is attached to its parent at once).
struct JSONCWriter {
    let options: JSONWriter.Options

    func write(_ value: PFValue, into buffer: inout [UInt8]) throws(PFError) {
        let root = try build(value, depth: 0)
        defer { if let root { json_object_put(root) } }
        var flags = options.pretty ? (JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED) : JSON_C_TO_STRING_PLAIN
        if !options.escapeSlashes { flags |= JSON_C_TO_STRING_NOSLASHESCAPE }
        var length = 0
        guard let text = json_object_to_json_string_length(root, flags, &length) else {
            throw PFError(JSONFailure.serializeFailed, format: JSONError.format)
        }
        buffer.append(contentsOf: UnsafeRawBufferPointer(start: text, count: length))
        if options.pretty { buffer.append(UInt8(ascii: "\n")) }
    }

    /// Builds a json-c node; `nil` is JSON null.
    private func build(_ value: PFValue, depth: Int) throws(PFError) -> OpaquePointer? {
        switch value {
        case .null: return nil
        case .bool(let b): return json_object_new_boolean(b ? 1 : 0)
        case .int(let i): return json_object_new_int64(i)
        case .uint(let u): return json_object_new_uint64(u)
        case .double(let d):
            guard d.isFinite else { throw JSONWriterError.nonFinite(d) }
            return json_object_new_double(d)
        case .string(let s): return newString(s)
        case .array(let items):
            guard depth < min(options.maxDepth, JSONReader.maximumSupportedDepth) else {
                throw JSONWriterError.tooDeep(min(options.maxDepth, JSONReader.maximumSupportedDepth))
            }
            guard let array = json_object_new_array_ext(Int32(clamping: items.count)) else { throw outOfMemory() }
            for (k, item) in items.enumerated() {
                let child: OpaquePointer?
                do {
                    child = try build(item, depth: depth + 1)
                } catch {
                    json_object_put(array)
                    throw error.prefixed(.index(k))
                }
                json_object_array_add(array, child)
            }
            return array
        case .dictionary(let members):
            return try buildObject(members, depth: depth)
        case .date(let date):
            guard options.typedValues else { throw JSONWriterError.typedValuesOff("a date") }
            guard let iso = JSONWriterError.isoText(date) else {
                throw PFError(JSONFailure.dateOutOfRange(secondsSince1970: date.timeIntervalSince1970), format: JSONError.format)
            }
            return try buildObject(["__type": "Date", "iso": .string(iso)], depth: depth)
        case .data(let data):
            guard options.typedValues else { throw JSONWriterError.typedValuesOff("data") }
            return try buildObject(["__type": "Bytes", "base64": .string(PFBase64.encode(data))], depth: depth)
        case .uid(let uid):
            guard options.typedValues else { throw JSONWriterError.typedValuesOff("a UID") }
            guard uid <= UInt64(UInt32.max) else {
                throw PFError(JSONFailure.uidTooLarge(uid), format: JSONError.format)
            }
            return try buildObject(["CF$UID": .int(Int64(uid))], depth: depth)
        }
    }

    private func buildObject(_ members: OrderedDictionary<String, PFValue>, depth: Int) throws(PFError) -> OpaquePointer? {
        let limit = min(options.maxDepth, JSONReader.maximumSupportedDepth)
        guard depth < limit else { throw JSONWriterError.tooDeep(limit) }
        guard let object = json_object_new_object() else { throw outOfMemory() }
        var keys = Array(members.keys)
        if options.sortedKeys { keys.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) } }
        for key in keys {
            guard let value = members[key] else { continue }
            if key.utf8.contains(0) {
                json_object_put(object)
                throw PFError(JSONFailure.nulKey, format: JSONError.format, path: PFKeyPath([.key(key)]))
            }
            let child: OpaquePointer?
            do {
                child = try build(value, depth: depth + 1)
            } catch {
                json_object_put(object)
                throw error.prefixed(.key(key))
            }
            json_object_object_add(object, key, child)
        }
        return object
    }

    private func newString(_ s: String) -> OpaquePointer? {
        var s = s
        return s.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                guard let base = chars.baseAddress else { return json_object_new_string("") }
                return json_object_new_string_len(base, Int32(clamping: chars.count))
            }
        }
    }

    private func outOfMemory() -> PFError {
        PFError(JSONFailure.nodeAllocation, format: JSONError.format)
    }
}
