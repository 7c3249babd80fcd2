import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFParse

/// Writes Parse values as compact REST JSON straight into a byte buffer, for the JSON columns
/// (`ACL`, `_extra`, Object/Array/File/GeoPoint/Polygon fields): the same bytes as
/// `JSONWriter().write(value.restValue)` without building the `PFValue` tree in between.
///
/// What this path does not write itself — a non-finite number, a date outside years 0–9999,
/// an embedded object, nesting deeper than the writer allows — ends it with ``Fallback``; the
/// caller then writes the whole value through the `PFValue` path, which gives the same bytes or
/// the error (with its key path) the store has always thrown.
enum SQLiteJSONText {
    /// The direct path stopped; write the value through `restValue` and `JSONWriter` instead.
    struct Fallback: Error {}

    /// `JSONWriter`'s default nesting limit: the `PFValue` path throws beyond it.
    static let maxDepth = JSONWriter.Options().maxDepth

    // MARK: Documents

    /// Appends one value.
    static func append(_ value: ParseValue, to out: inout [UInt8]) throws(Fallback) {
        try write(value, depth: 0, &out)
    }

    /// Appends an ACL as `ParseACL.restValue` spells it (only `true` permissions).
    static func append(_ acl: ParseACL, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        var first = true
        for (key, access) in acl.entries {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            writeString(key, &out)
            out.append(UInt8(ascii: ":"))
            switch (access.read, access.write) {
            case (true, true): append("{\"read\":true,\"write\":true}", &out)
            case (true, false): append("{\"read\":true}", &out)
            case (false, true): append("{\"write\":true}", &out)
            case (false, false): append("{}", &out)
            }
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Appends a JSON object of fields, in order (the `_extra` column).
    static func append(fields: some Sequence<(key: String, value: ParseValue)>, to out: inout [UInt8]) throws(Fallback) {
        try writeMembers(fields, depth: 1, &out)
    }

    /// `{"key":value,…}`, each value one level deeper than the object.
    private static func writeMembers(_ members: some Sequence<(key: String, value: ParseValue)>, depth: Int,
                                     _ out: inout [UInt8]) throws(Fallback) {
        out.append(UInt8(ascii: "{"))
        var first = true
        for (key, value) in members {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            writeString(key, &out)
            out.append(UInt8(ascii: ":"))
            try write(value, depth: depth, &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    // MARK: Values

    private static func write(_ value: ParseValue, depth: Int, _ out: inout [UInt8]) throws(Fallback) {
        switch value {
        case .null: append("null", &out)
        case .bool(let b): b ? append("true", &out) : append("false", &out)
        case .int(let i): writeInteger(i, &out)
        case .double(let d): try writeDouble(d, &out)
        case .string(let s): writeString(s, &out)
        case .date(let date):
            guard depth < maxDepth else { throw Fallback() }
            append("{\"__type\":\"Date\",\"iso\":\"", &out)
            // Written in place (the text needs no escaping): no string per date.
            let at = out.count
            out.append(contentsOf: repeatElement(0, count: PFDateFormat.roundedMillisecondsLength))
            let written = out.withUnsafeMutableBufferPointer { bytes in
                bytes.baseAddress.map { PFDateFormat.writeRoundedMilliseconds(date, into: $0 + at) } ?? false
            }
            guard written else { throw Fallback() }  // the caller drops what this value wrote
            append("\"}", &out)
        case .bytes(let data):
            guard depth < maxDepth else { throw Fallback() }
            append("{\"__type\":\"Bytes\",\"base64\":\"", &out)
            data.withUnsafeBytes { PFBase64.encode($0, appendingTo: &out) }
            append("\"}", &out)
        case .pointer(let p):
            guard depth < maxDepth else { throw Fallback() }
            append("{\"__type\":\"Pointer\",\"className\":", &out)
            writeString(p.className, &out)
            append(",\"objectId\":", &out)
            writeString(p.objectId, &out)
            out.append(UInt8(ascii: "}"))
        case .relation(let className):
            guard depth < maxDepth else { throw Fallback() }
            append("{\"__type\":\"Relation\",\"className\":", &out)
            writeString(className, &out)
            out.append(UInt8(ascii: "}"))
        case .file(let f):
            guard depth < maxDepth else { throw Fallback() }
            append("{\"__type\":\"File\",\"name\":", &out)
            writeString(f.name, &out)
            if let url = f.url {
                append(",\"url\":", &out)
                writeString(url, &out)
            }
            out.append(UInt8(ascii: "}"))
        case .geoPoint(let g):
            guard depth < maxDepth else { throw Fallback() }
            append("{\"__type\":\"GeoPoint\",\"latitude\":", &out)
            try writeDouble(g.latitude, &out)
            append(",\"longitude\":", &out)
            try writeDouble(g.longitude, &out)
            out.append(UInt8(ascii: "}"))
        case .polygon(let p):
            // The object, its coordinates array and each pair are three levels.
            guard depth + 2 < maxDepth || (p.coordinates.isEmpty && depth + 1 < maxDepth) else { throw Fallback() }
            append("{\"__type\":\"Polygon\",\"coordinates\":[", &out)
            for (k, point) in p.coordinates.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                out.append(UInt8(ascii: "["))
                try writeDouble(point.latitude, &out)
                out.append(UInt8(ascii: ","))
                try writeDouble(point.longitude, &out)
                out.append(UInt8(ascii: "]"))
            }
            append("]}", &out)
        case .array(let items):
            guard depth < maxDepth else { throw Fallback() }
            out.append(UInt8(ascii: "["))
            for (k, item) in items.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                try write(item, depth: depth + 1, &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            guard depth < maxDepth else { throw Fallback() }
            try writeMembers(members, depth: depth + 1, &out)
        case .embedded:
            throw Fallback()
        }
    }

    @inline(__always)
    private static func append(_ text: StaticString, _ out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    // MARK: Scalars (PFJSON's spelling, so the columns match JSONWriter byte for byte)

    @inline(__always)
    static func writeInteger(_ value: Int64, _ out: inout [UInt8]) {
        JSONText.appendInteger(value, to: &out)
    }

    @inline(__always)
    static func writeDouble(_ value: Double, _ out: inout [UInt8]) throws(Fallback) {
        guard JSONText.appendDouble(value, to: &out) else { throw Fallback() }
    }

    @inline(__always)
    static func writeString(_ value: String, _ out: inout [UInt8]) {
        JSONText.appendString(value, to: &out)
    }
}
