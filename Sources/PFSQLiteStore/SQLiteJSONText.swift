import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFParse

/// Writes Parse values as compact REST JSON straight into a byte buffer, for the JSON columns
/// (`ACL`, `_extra`, Object/Array/File/GeoPoint/Polygon fields): the same bytes as
/// `JSONWriter().write(value.restValue)` without building the `PFValue` tree in between.
///
/// What this path does not write itself — a non-finite number, a date outside years 1–9999,
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
        out.append(UInt8(ascii: "{"))
        var first = true
        for (key, value) in fields {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            writeString(key, &out)
            out.append(UInt8(ascii: ":"))
            try write(value, depth: 1, &out)
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
            guard depth < maxDepth, let iso = ParseDate.string(from: date) else { throw Fallback() }
            append("{\"__type\":\"Date\",\"iso\":", &out)
            writeString(iso, &out)
            out.append(UInt8(ascii: "}"))
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
            out.append(UInt8(ascii: "{"))
            var first = true
            for (key, member) in members {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                writeString(key, &out)
                out.append(UInt8(ascii: ":"))
                try write(member, depth: depth + 1, &out)
            }
            out.append(UInt8(ascii: "}"))
        case .embedded:
            throw Fallback()
        }
    }

    @inline(__always)
    private static func append(_ text: StaticString, _ out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    // MARK: Scalars (as JSONWriter spells them)

    // These repeat PFJSON's internal JSONNativeWriter scalars (integers, doubles, string
    // escapes) byte for byte; PFJSON has no public append-to-buffer form of them yet. Should
    // either change, JSONTextTests' byte comparison with JSONWriter fails. A public
    // `JSONWriter` string/number appender would let this file drop its copies.

    static func writeInteger(_ value: Int64, _ out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        // magnitude handles Int64.min without overflow.
        var v = value.magnitude
        if v < 10 {
            out.append(UInt8(ascii: "0") &+ UInt8(v))
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var k = 20
            while v > 0 {
                k -= 1
                digits[k] = UInt8(ascii: "0") &+ UInt8(v % 10)
                v /= 10
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[k..<20]))
        }
    }

    /// Swift's shortest round-trip form (`1.0`, `1e-07`, `-0.0`), as the JSON writer spells doubles.
    static func writeDouble(_ value: Double, _ out: inout [UInt8]) throws(Fallback) {
        guard value.isFinite else { throw Fallback() }
        var text = value.description
        text.withUTF8 { out.append(contentsOf: $0) }
    }

    /// A quoted string: `"`, `\` and control characters escaped (short forms where JSON has
    /// them, `\u00XX` otherwise), everything else raw UTF-8.
    static func writeString(_ value: String, _ out: inout [UInt8]) {
        var value = value
        value.withUTF8 { bytes in
            out.append(UInt8(ascii: "\""))
            var runStart = 0
            var i = 0
            let n = bytes.count
            while i < n {
                // Eight plain bytes at a time; a word that may hold an escape drops to the byte check.
                if let base = bytes.baseAddress {
                    while i + 8 <= n {
                        let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                        if mayNeedEscape(word) { break }
                        i += 8
                    }
                    if i >= n { break }
                }
                let c = bytes[i]
                if c >= 0x20, c != UInt8(ascii: "\""), c != UInt8(ascii: "\\") {
                    i += 1
                    continue
                }
                if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
                out.append(UInt8(ascii: "\\"))
                switch c {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(c)
                case 0x0A: out.append(UInt8(ascii: "n"))
                case 0x09: out.append(UInt8(ascii: "t"))
                case 0x0D: out.append(UInt8(ascii: "r"))
                case 0x08: out.append(UInt8(ascii: "b"))
                case 0x0C: out.append(UInt8(ascii: "f"))
                default:
                    let hex: StaticString = "0123456789abcdef"
                    append("u00", &out)
                    out.append(hex.utf8Start[Int(c >> 4)])
                    out.append(hex.utf8Start[Int(c & 0x0F)])
                }
                i += 1
                runStart = i
            }
            if runStart < n { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<n])) }
            out.append(UInt8(ascii: "\""))
        }
    }

    /// Whether any of the eight bytes may be below 0x20, a quote or a backslash (never false
    /// for a word that has one).
    @inline(__always)
    static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- ones &* 0x20) & ~word & high
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let hasQuote = (quote &- ones) & ~quote & high
        let hasBackslash = (backslash &- ones) & ~backslash & high
        return (control | hasQuote | hasBackslash) != 0
    }
}
