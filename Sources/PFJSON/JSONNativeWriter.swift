import Foundation
import OrderedCollections
import PFCore

/// pfarchive's JSON serializer: one recursive walk appending to a ``JSONByteBuffer``, whose
/// text is then appended to `out` in one copy (on error, `out` is left as it was).
///
/// Key paths cost nothing while writing; an error collects its path as it unwinds.
struct JSONNativeWriter {
    let options: JSONWriter.Options
    var out: [UInt8]
    /// The text being written, freed by ``writeDocument(_:)``: a writer writes one document.
    var text: JSONByteBuffer

    init(options: JSONWriter.Options, out: [UInt8]) {
        self.options = options
        self.out = out
        // A caller that reuses its buffer has sized it for documents like this one; otherwise
        // a guess that avoids most regrowth for typical documents.
        self.text = JSONByteBuffer(capacity: max(4096, out.capacity - out.count))
    }

    /// Writes `value` and frees the text buffer (call once).
    mutating func writeDocument(_ value: PFValue) throws(PFError) {
        defer { text.deallocate() }
        // jsonb text (small values, checked strings) is written on one thread.
        let inParallel = options.jsonb ? false : try writeInParallel(value)
        if !inParallel { try write(value, depth: 0) }
        if options.pretty { text.append(UInt8(ascii: "\n")) }
        out.append(contentsOf: text.bytes)
    }

    // MARK: - Values

    private mutating func write(_ value: PFValue, depth: Int) throws(PFError) {
        switch value {
        case .null: append("null")
        case .bool(let b): b ? append("true") : append("false")
        case .int(let i): writeInteger(i)
        case .uint(let u): writeUnsigned(u)
        case .double(let d): try writeDouble(d)
        case .string(let s):
            if options.jsonb { try JSONWriterError.checkJSONB(s) }
            writeString(s)
        case .array(let items): try writeArray(items, depth: depth)
        case .dictionary(let members): try writeObject(members, depth: depth)
        case .date(let date):
            guard options.typedValues else { throw JSONWriterError.typedValuesOff("a date") }
            guard let iso = JSONWriterError.isoText(date) else {
                throw PFError(JSONFailure.dateOutOfRange(secondsSince1970: date.timeIntervalSince1970), format: JSONError.format)
            }
            try typedObject(depth: depth, typeName: "Date", key: "iso") { w in w.writeString(iso) }
        case .data(let data):
            guard options.typedValues else { throw JSONWriterError.typedValuesOff("data") }
            try typedObject(depth: depth, typeName: "Bytes", key: "base64") { w in
                var base64: [UInt8] = [UInt8(ascii: "\"")]
                data.withUnsafeBytes { PFBase64.encode($0, appendingTo: &base64) }
                base64.append(UInt8(ascii: "\""))
                base64.withUnsafeBufferPointer { w.text.appendBytes($0) }
            }
        case .uid(let uid):
            guard options.typedValues else { throw JSONWriterError.typedValuesOff("a UID") }
            guard uid <= UInt64(UInt32.max) else {
                throw PFError(JSONFailure.uidTooLarge(uid), format: JSONError.format)
            }
            guard depth < options.maxDepth else { throw JSONWriterError.tooDeep(options.maxDepth) }
            text.append(UInt8(ascii: "{"))
            newline(depth + 1)
            append("\"CF$UID\"")
            colon()
            writeUnsigned(uid)
            newline(depth)
            text.append(UInt8(ascii: "}"))
        }
    }

    @inline(__always)
    private mutating func append(_ text: StaticString) {
        self.text.appendBytes(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    // MARK: - Layout

    @inline(__always)
    mutating func newline(_ depth: Int) {
        guard options.pretty else { return }
        text.append(UInt8(ascii: "\n"))
        for _ in 0..<(depth * 2) { text.append(UInt8(ascii: " ")) }
    }

    @inline(__always)
    mutating func colon() {
        text.append(UInt8(ascii: ":"))
        if options.pretty { text.append(UInt8(ascii: " ")) }
    }

    // MARK: - Containers

    private mutating func writeArray(_ items: [PFValue], depth: Int) throws(PFError) {
        guard depth < options.maxDepth else { throw JSONWriterError.tooDeep(options.maxDepth) }
        text.append(UInt8(ascii: "["))
        if items.isEmpty {
            text.append(UInt8(ascii: "]"))
            return
        }
        try writeElements(items, items.indices, depth: depth)
        newline(depth)
        text.append(UInt8(ascii: "]"))
    }

    /// Writes `items[range]` of an array at `depth`, each on its own line when pretty, with a
    /// comma between them (not before the first: a parallel write puts runs side by side).
    mutating func writeElements(_ items: [PFValue], _ range: Range<Int>, depth: Int) throws(PFError) {
        for k in range {
            if k > range.lowerBound { text.append(UInt8(ascii: ",")) }
            newline(depth + 1)
            do {
                try write(items[k], depth: depth + 1)
            } catch {
                throw error.prefixed(.index(k))
            }
        }
    }

    private mutating func writeObject(_ members: OrderedDictionary<String, PFValue>, depth: Int) throws(PFError) {
        guard depth < options.maxDepth else { throw JSONWriterError.tooDeep(options.maxDepth) }
        text.append(UInt8(ascii: "{"))
        if members.isEmpty {
            text.append(UInt8(ascii: "}"))
            return
        }
        let order = options.sortedKeys ? Self.sortedOrder(members) : nil
        try writeMembers(members, order: order, 0..<members.count, depth: depth)
        newline(depth)
        text.append(UInt8(ascii: "}"))
    }

    /// The positions of `members` in UTF-8 byte order of their keys (``JSONWriter/Options/sortedKeys``).
    static func sortedOrder(_ members: OrderedDictionary<String, PFValue>) -> [Int] {
        let keys = members.keys
        return keys.indices.sorted { keys[$0].utf8.lexicographicallyPrecedes(keys[$1].utf8) }
    }

    /// Writes the members at positions `range` of the write order (`order`, or the
    /// dictionary's own) of an object at `depth`, with a comma between them.
    mutating func writeMembers(_ members: OrderedDictionary<String, PFValue>, order: [Int]?, _ range: Range<Int>,
                               depth: Int) throws(PFError) {
        for position in range {
            let index = order?[position] ?? position
            let key = members.keys[index]
            if position > range.lowerBound { text.append(UInt8(ascii: ",")) }
            newline(depth + 1)
            if options.jsonb { try JSONWriterError.checkJSONB(key) }
            writeString(key)
            colon()
            do {
                try write(members.values[index], depth: depth + 1)
            } catch {
                throw error.prefixed(.key(key))
            }
        }
    }

    /// Writes `{"__type":"<typeName>","<key>":<payload>}`.
    private mutating func typedObject(depth: Int, typeName: StaticString, key: StaticString,
                                      payload: (inout JSONNativeWriter) -> Void) throws(PFError) {
        guard depth < options.maxDepth else { throw JSONWriterError.tooDeep(options.maxDepth) }
        text.append(UInt8(ascii: "{"))
        newline(depth + 1)
        append("\"__type\"")
        colon()
        text.append(UInt8(ascii: "\""))
        append(typeName)
        text.append(UInt8(ascii: "\""))
        text.append(UInt8(ascii: ","))
        newline(depth + 1)
        text.append(UInt8(ascii: "\""))
        append(key)
        text.append(UInt8(ascii: "\""))
        colon()
        payload(&self)
        newline(depth)
        text.append(UInt8(ascii: "}"))
    }
}

/// Error factories shared by both writer engines.
enum JSONWriterError {
    static func typedValuesOff(_ what: String) -> PFError {
        PFError(JSONFailure.typedValuesOff(what), format: JSONError.format)
    }

    static func tooDeep(_ limit: Int) -> PFError {
        PFError(JSONFailure.tooDeep(maxDepth: limit), format: JSONError.format)
    }

    /// Refuses U+0000 in a string of `jsonb` text (``JSONWriter/Options/jsonb``).
    static func checkJSONB(_ s: String) throws(PFError) {
        guard s.utf8.contains(0) else { return }
        throw PFError(JSONFailure.nulInJSONB, format: JSONError.format)
    }

    static func nonFinite(_ d: Double) -> PFError {
        PFError(JSONFailure.nonFinite("\(d)"), format: JSONError.format)
    }

    /// The typed-date text, rounded to the nearest millisecond.
    static func isoText(_ date: Date) -> String? {
        PFDateFormat.roundedMilliseconds(date)
    }
}
