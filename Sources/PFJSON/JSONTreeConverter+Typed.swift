import CPFJSONC
import Foundation
import PFCore

// MARK: - Typed JSON (Parse dates and bytes, keyed-archive UIDs)

extension JSONTreeConverter {
    /// Recognises a typed object: `{"__type":"Date","iso":…}`, `{"__type":"Bytes","base64":…}`
    /// (exactly those two keys, any order) or `{"CF$UID": N}` (exactly that key).
    /// - Returns: the typed value, or `nil` when the object is an ordinary dictionary.
    /// - Throws: in strict mode, `invalidValue` naming the key path when the object has a
    ///   typed shape but a bad payload (lenient mode keeps it as a dictionary).
    func typedValue(_ object: OpaquePointer, count: Int) throws(PFError) -> PFValue? {
        guard let first = pf_json_object_first_entry(object), let firstKey = pf_json_entry_key(first) else { return nil }
        if count == 1 {
            guard strcmp(firstKey, "CF$UID") == 0 else { return nil }
            let member = pf_json_entry_value(first)
            if let member, json_object_get_type(member) == json_type_int {
                let value = json_object_get_int64(member)
                if value >= 0, value <= Int64(UInt32.max) { return .uid(UInt64(value)) }
            }
            return try malformed("a CF$UID reference must be an integer 0…4294967295", key: "CF$UID")
        }
        // Two members: one must be "__type" (checked by its first byte before strcmp, since
        // nearly every two-member object is an ordinary one), the other the payload.
        guard let second = pf_json_entry_next(first), let secondKey = pf_json_entry_key(second) else { return nil }
        let typeEntry: UnsafeMutablePointer<lh_entry>
        let payloadEntry: UnsafeMutablePointer<lh_entry>
        if firstKey[0] == 0x5F /* _ */, strcmp(firstKey, "__type") == 0 {
            (typeEntry, payloadEntry) = (first, second)
        } else if secondKey[0] == 0x5F, strcmp(secondKey, "__type") == 0 {
            (typeEntry, payloadEntry) = (second, first)
        } else {
            return nil
        }
        guard let typeMember = pf_json_entry_value(typeEntry), json_object_get_type(typeMember) == json_type_string,
            let typeName = json_object_get_string(typeMember), let payloadKey = pf_json_entry_key(payloadEntry)
        else { return nil }
        let payload = pf_json_entry_value(payloadEntry)
        if strcmp(typeName, "Date") == 0 {
            guard strcmp(payloadKey, "iso") == 0 else { return nil }
            if let iso = payload, json_object_get_type(iso) == json_type_string, let date = Self.parseDate(iso) {
                return .date(date)
            }
            return try malformed("a Date's iso must be ISO 8601 text such as 2011-06-10T18:33:42.123Z", key: "iso")
        }
        if strcmp(typeName, "Bytes") == 0 {
            guard strcmp(payloadKey, "base64") == 0 else { return nil }
            if let text = payload, json_object_get_type(text) == json_type_string, let chars = json_object_get_string(text) {
                let n = Int(json_object_get_string_len(text))
                guard n / 4 * 3 <= maxStringBytes else {
                    throw PFLimits.exceeded("maxStringBytes", maxStringBytes, format: JSONError.format).prefixed(.key("base64"))
                }
                do {
                    return .data(try PFBase64.decode(UnsafeRawBufferPointer(start: chars, count: n), ignoringWhitespace: false))
                } catch {
                    return try malformed("a Bytes value's base64 is invalid (\(error.reason) at character \(error.offset))",
                                         key: "base64")
                }
            }
            return try malformed("a Bytes value's base64 must be a string", key: "base64")
        }
        return nil
    }

    private func malformed(_ message: String, key: String) throws(PFError) -> PFValue? {
        guard strict else { return nil }
        throw PFError(.invalidValue, format: JSONError.format,
                      message + " (read with typedValues off to keep such objects as dictionaries)",
                      path: PFKeyPath([.key(key)]))
    }

    /// Parses a typed date, rounded to whole milliseconds (Parse's precision) so that a
    /// written date reads back bit for bit.
    static func parseDate(_ iso: OpaquePointer) -> Date? {
        guard let chars = json_object_get_string(iso) else { return nil }
        let n = Int(json_object_get_string_len(iso))
        let text = String(decoding: UnsafeRawBufferPointer(start: chars, count: n), as: UTF8.self)
        guard let date = PFDateFormat.parseISO8601(text) else { return nil }
        let millis = (date.timeIntervalSince1970 * 1000).rounded()
        guard millis.isFinite else { return nil }
        return Date(timeIntervalSince1970: millis / 1000)
    }
}
