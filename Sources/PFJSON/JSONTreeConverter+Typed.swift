import Foundation
import PFCore

// MARK: - Typed JSON (Parse dates and bytes, keyed-archive UIDs)

extension JSONValueBuilder {
    /// Recognises a typed object: `{"__type":"Date","iso":…}`, `{"__type":"Bytes","base64":…}`
    /// (exactly those two keys, any order) or `{"CF$UID": N}` (exactly that key), over either
    /// source. An object whose source may repeat a key is judged by its distinct keys, each
    /// with its last value, as json-c's tree holds it.
    /// - Returns: the typed value, or `nil` when the object is an ordinary dictionary.
    /// - Throws: in strict mode, `invalidValue` naming the key path when the object has a
    ///   typed shape but a bad payload (lenient mode keeps it as a dictionary).
    func typedValue(_ object: Source.Value, count: Int) throws(PFError) -> PFValue? {
        guard let first = source.firstMember(object) else { return nil }
        guard source.mayRepeatKeys(object) else {
            guard count == 2 else { return try typedValue(one: first) }
            guard let second = source.nextMember(first, of: object) else { return nil }
            return try typedValue(first, second)
        }
        // Rare (the tape's objects with a repeated key): the distinct members, last values.
        var members: [Source.Member] = []
        var entry: Source.Member? = first
        while let current = entry {
            if let at = members.firstIndex(where: { sameKey($0, current) }) {
                members[at] = current
            } else {
                guard members.count < 2 else { return nil }
                members.append(current)
            }
            entry = source.nextMember(current, of: object)
        }
        return members.count == 1 ? try typedValue(one: members[0]) : try typedValue(members[0], members[1])
    }

    /// `{"CF$UID": N}`.
    private func typedValue(one member: Source.Member) throws(PFError) -> PFValue? {
        guard keyIs(member, "CF$UID") else { return nil }
        let value = source.memberValue(member)
        if source.kind(value) == .int {
            let uid = source.int(value)
            if uid >= 0, uid <= Int64(UInt32.max) { return .uid(UInt64(uid)) }
        }
        return try malformed(.uid, key: "CF$UID")
    }

    /// `{"__type": "Date"|"Bytes", payload}` in either order.
    private func typedValue(_ first: Source.Member, _ second: Source.Member) throws(PFError) -> PFValue? {
        // One must be "__type" (checked by its first byte before the rest, since nearly every
        // two-member object is an ordinary one), the other the payload.
        let typeMember: Source.Member
        let payloadMember: Source.Member
        if keyIs(first, "__type") {
            (typeMember, payloadMember) = (first, second)
        } else if keyIs(second, "__type") {
            (typeMember, payloadMember) = (second, first)
        } else {
            return nil
        }
        let typeValue = source.memberValue(typeMember)
        guard source.kind(typeValue) == .string else { return nil }
        let payload = source.memberValue(payloadMember)
        if stringIs(typeValue, "Date") {
            guard keyIs(payloadMember, "iso") else { return nil }
            if source.kind(payload) == .string, let date = Self.parseDate(string(payload)) { return .date(date) }
            return try malformed(.dateISO, key: "iso")
        }
        if stringIs(typeValue, "Bytes") {
            guard keyIs(payloadMember, "base64") else { return nil }
            guard source.kind(payload) == .string else {
                return try malformed(.base64NotString, key: "base64")
            }
            let decoded: Result<Data, PFBase64.Failure>
            if let bytes = source.stringBytes(payload) {
                guard bytes.count / 4 * 3 <= maxStringBytes else { throw base64TooLong() }
                decoded = Result { () throws(PFBase64.Failure) -> Data in try PFBase64.decode(bytes, ignoringWhitespace: false) }
            } else {
                var text = source.string(payload)
                guard text.utf8.count / 4 * 3 <= maxStringBytes else { throw base64TooLong() }
                decoded = text.withUTF8 { utf8 in
                    Result { () throws(PFBase64.Failure) -> Data in
                        try PFBase64.decode(UnsafeRawBufferPointer(utf8), ignoringWhitespace: false)
                    }
                }
            }
            switch decoded {
            case .success(let data): return .data(data)
            case .failure(let error):
                return try malformed(.base64Invalid(reason: error.reason, offset: error.offset), key: "base64")
            }
        }
        return nil
    }

    private func base64TooLong() -> PFError {
        PFLimits.exceeded("maxStringBytes", maxStringBytes, format: JSONError.format).prefixed(.key("base64"))
    }

    /// Whether a member's key is exactly `name` (ASCII).
    @inline(__always)
    private func keyIs(_ member: Source.Member, _ name: StaticString) -> Bool {
        let key = source.keyBytes(member)
        guard key.count == name.utf8CodeUnitCount, key.count > 0 else { return false }
        // The first byte alone rules out nearly every key.
        guard key.start.load(as: UInt8.self) == name.utf8Start[0] else { return false }
        return memcmp(key.start, name.utf8Start, key.count) == 0
    }

    /// Whether two members' keys have the same bytes.
    private func sameKey(_ a: Source.Member, _ b: Source.Member) -> Bool {
        let ka = source.keyBytes(a)
        let kb = source.keyBytes(b)
        return ka.count == kb.count && memcmp(ka.start, kb.start, ka.count) == 0
    }

    /// Whether a string value is exactly `text` (ASCII).
    private func stringIs(_ value: Source.Value, _ text: StaticString) -> Bool {
        guard let bytes = source.stringBytes(value) else { return string(value).utf8.elementsEqual(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)) }
        return bytes.elementsEqual(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// A string value as a String.
    private func string(_ value: Source.Value) -> String {
        guard let bytes = source.stringBytes(value) else { return source.string(value) }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func malformed(_ problem: JSONFailure.TypedValueProblem, key: String) throws(PFError) -> PFValue? {
        guard strict else { return nil }
        throw PFError(JSONFailure.malformedTyped(problem), format: JSONError.format, path: PFKeyPath([.key(key)]))
    }

    /// Parses a typed date, rounded to whole milliseconds (Parse's precision) so that a
    /// written date reads back bit for bit.
    static func parseDate(_ text: String) -> Date? {
        guard let date = PFDateFormat.parseISO8601(text) else { return nil }
        let millis = (date.timeIntervalSince1970 * 1000).rounded()
        guard millis.isFinite else { return nil }
        return Date(timeIntervalSince1970: millis / 1000)
    }
}
