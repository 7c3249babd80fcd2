import Foundation
import OrderedCollections
import PFCore
import PFTestSupport
import Testing

/// Helpers shared by the XML property-list tests.
enum XMLPlistTestSupport {
    // MARK: - EXPECTED/*.plistlib.json

    /// Converts a peer's JSON view (`EXPECTED/…/<name>.plistlib.json`) to a value tree.
    ///
    /// The fixtures spell bytes as `{"$bytes_hex": "…"}`, dates as `{"$date":
    /// "YYYY-MM-DDTHH:MM:SS"}` (naive UTC) and UIDs as `{"CF$UID": N}`; integers and reals
    /// keep their JSON spelling (`1` vs `1.0`), so the JSON is parsed here rather than with
    /// JSONSerialization, which merges the two.
    static func expectedValue(_ json: Data) throws -> PFValue {
        var parser = MiniJSON(bytes: Array(json))
        let value = try parser.parseDocument()
        return convertExpected(value)
    }

    static func convertExpected(_ value: PFValue) -> PFValue {
        switch value {
        case .array(let items): return .array(items.map(convertExpected))
        case .dictionary(let members):
            if members.count == 1, let (key, inner) = members.elements.first {
                switch (key, inner) {
                case ("$bytes_hex", .string(let hex)): return .data(Data(hexString: hex))
                case ("$date", .string(let text)):
                    if let date = PFDateFormat.parseISO8601(text) { return .date(date) }
                case ("CF$UID", .int(let n)) where n >= 0: return .uid(UInt64(n))
                default: break
                }
            }
            var out = OrderedDictionary<String, PFValue>()
            for (k, v) in members { out[k] = convertExpected(v) }
            return .dictionary(out)
        default: return value
        }
    }

    /// A JSON parser just large enough for the fixtures, keeping `1` and `1.0` apart.
    struct MiniJSON {
        struct Failure: Error, CustomStringConvertible {
            var description: String
        }

        var bytes: [UInt8]
        var i = 0

        mutating func parseDocument() throws -> PFValue {
            let v = try value()
            skip()
            guard i == bytes.count else { throw Failure(description: "trailing JSON at \(i)") }
            return v
        }

        mutating func skip() { while i < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[i]) { i += 1 } }

        mutating func value() throws -> PFValue {
            skip()
            guard i < bytes.count else { throw Failure(description: "JSON ends early") }
            switch bytes[i] {
            case UInt8(ascii: "{"):
                i += 1
                var members = OrderedDictionary<String, PFValue>()
                skip()
                if bytes[i] == UInt8(ascii: "}") { i += 1; return .dictionary(members) }
                while true {
                    skip()
                    guard case .string(let key) = try value() else { throw Failure(description: "key at \(i)") }
                    skip()
                    guard bytes[i] == UInt8(ascii: ":") else { throw Failure(description: "':' at \(i)") }
                    i += 1
                    members[key] = try value()
                    skip()
                    if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                    guard bytes[i] == UInt8(ascii: "}") else { throw Failure(description: "'}' at \(i)") }
                    i += 1
                    return .dictionary(members)
                }
            case UInt8(ascii: "["):
                i += 1
                var items: [PFValue] = []
                skip()
                if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
                while true {
                    items.append(try value())
                    skip()
                    if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                    guard bytes[i] == UInt8(ascii: "]") else { throw Failure(description: "']' at \(i)") }
                    i += 1
                    return .array(items)
                }
            case UInt8(ascii: "\""):
                i += 1
                var scalars = String.UnicodeScalarView()
                var pendingHigh: UInt32?
                var raw: [UInt8] = []
                func flush() { scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars); raw = [] }
                while bytes[i] != UInt8(ascii: "\"") {
                    if bytes[i] == UInt8(ascii: "\\") {
                        flush()
                        let e = bytes[i + 1]
                        i += 2
                        switch e {
                        case UInt8(ascii: "n"): scalars.append("\n")
                        case UInt8(ascii: "t"): scalars.append("\t")
                        case UInt8(ascii: "r"): scalars.append("\r")
                        case UInt8(ascii: "b"): scalars.append("\u{8}")
                        case UInt8(ascii: "f"): scalars.append("\u{C}")
                        case UInt8(ascii: "u"):
                            let hex = String(decoding: bytes[i..<i + 4], as: UTF8.self)
                            i += 4
                            let code = UInt32(hex, radix: 16) ?? 0xFFFD
                            if (0xD800..<0xDC00).contains(code) {
                                pendingHigh = code
                            } else if let high = pendingHigh, (0xDC00..<0xE000).contains(code) {
                                let combined = 0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00)
                                scalars.append(Unicode.Scalar(combined) ?? "\u{FFFD}")
                                pendingHigh = nil
                            } else {
                                scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                            }
                        default: scalars.append(Unicode.Scalar(e))
                        }
                    } else {
                        raw.append(bytes[i])
                        i += 1
                    }
                }
                flush()
                i += 1
                return .string(String(scalars))
            case UInt8(ascii: "t"): i += 4; return .bool(true)
            case UInt8(ascii: "f"): i += 5; return .bool(false)
            case UInt8(ascii: "n"): i += 4; return .null
            default:
                let start = i
                var isReal = false
                while i < bytes.count, "+-0123456789.eE".utf8.contains(bytes[i]) {
                    if ".eE".utf8.contains(bytes[i]) { isReal = true }
                    i += 1
                }
                let text = String(decoding: bytes[start..<i], as: UTF8.self)
                if !isReal {
                    if let v = Int64(text) { return .int(v) }
                    if let v = UInt64(text) { return .uint(v) }
                }
                guard let d = Double(text) else { throw Failure(description: "number '\(text)'") }
                return .double(d)
            }
        }
    }

    // MARK: - Canonical text shared with Python

    /// A canonical text of a tree that the Python script `canonScript` also produces from
    /// plistlib's objects: exact for reals (bit patterns), strings (UTF-8 hex), bytes and
    /// key order; dates in whole seconds since 1970; a UID is `{"CF$UID": N}`, as plistlib
    /// reads it from XML.
    static func canon(_ value: PFValue) -> String {
        switch value {
        case .null: return "N"
        case .bool(let b): return b ? "T" : "F"
        case .int(let i): return "i\(i)"
        case .uint(let u): return "i\(u)"
        case .double(let d):
            return d.isNaN ? "fnan" : "f" + String(format: "%016llx", d.bitPattern)
        case .string(let s): return "s" + hex(Array(s.utf8))
        case .data(let d): return "b" + hex(Array(d))
        case .date(let d): return "d\(Int64(d.timeIntervalSince1970.rounded(.down)))"
        case .uid(let u): return "{" + canon(.string("CF$UID")) + ":i\(u)}"
        case .array(let items): return "[" + items.map(canon).joined(separator: ",") + "]"
        case .dictionary(let members):
            return "{" + members.map { canon(.string($0.key)) + ":" + canon($0.value) }.joined(separator: ",") + "}"
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Python defining `canon(v)` over plistlib's objects, matching ``canon(_:)``.
    static let canonScript = #"""
    import plistlib, sys, struct, calendar, datetime
    def canon(v):
        if isinstance(v, bool): return "T" if v else "F"
        if isinstance(v, int): return "i" + str(v)
        if isinstance(v, float): return "fnan" if v != v else "f" + struct.pack(">d", v).hex()
        if isinstance(v, str): return "s" + v.encode("utf-8").hex()
        if isinstance(v, bytes): return "b" + v.hex()
        if isinstance(v, datetime.datetime): return "d" + str(calendar.timegm(v.utctimetuple()))
        if isinstance(v, plistlib.UID): return "{" + canon("CF$UID") + ":i" + str(v.data) + "}"
        if isinstance(v, list): return "[" + ",".join(canon(x) for x in v) + "]"
        if isinstance(v, dict): return "{" + ",".join(canon(k) + ":" + canon(x) for k, x in v.items()) + "}"
        raise TypeError(type(v))
    """#

    /// Runs Python with plistlib; a missing interpreter or module fails the test (never skips).
    static func python(_ body: String, input: Data) throws -> Data {
        let result = try Peers.python(canonScript + "\n" + body, input: input)
        guard result.status == 0 else {
            let message = "Python peer failed (status \(result.status)); run scripts/setup.sh to create .venv, "
                + "or set PFARCHIVE_PYTHON. stderr: \(result.stderr.prefix(2000))"
            Issue.record(Comment(rawValue: message))
            throw Failure(description: "python failed")
        }
        return result.stdout
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    // MARK: - Shapes and normalisation

    /// What an XML property list can carry exactly: no null, UIDs, whole-second dates,
    /// strings without the C0 controls XML 1.0 lacks (see ``xmlSafe(_:)``).
    static var shape: ValueShape {
        var s = ValueShape()
        s.null = false
        s.uid = true
        s.nonFiniteDoubles = true
        s.nulInStrings = false
        return s
    }

    /// The tree as an XML property list can hold it, applied to generated input:
    /// - dates truncated to whole seconds (the format has no fractions);
    /// - C0 controls other than tab, LF and CR, and U+FFFE/U+FFFF, replaced by `?`
    ///   (XML 1.0 cannot carry them; the writer refuses them, tested separately);
    /// - a dictionary whose only member is `CF$UID` with a non-negative integer becomes that
    ///   UID (it is the same XML; the reader cannot tell them apart).
    static func xmlSafe(_ value: PFValue) -> PFValue {
        switch value {
        case .date(let d):
            return .date(Date(timeIntervalSince1970: d.timeIntervalSince1970.rounded(.down)))
        case .string(let s): return .string(safeString(s))
        case .array(let items): return .array(items.map(xmlSafe))
        case .dictionary(let members):
            var out = OrderedDictionary<String, PFValue>()
            for (k, v) in members {
                let key = safeString(k)
                if out[key] == nil { out[key] = xmlSafe(v) }
            }
            if out.count == 1, out.keys.first == "CF$UID" {
                switch out.values.first {
                case .int(let n)? where n >= 0: return .uid(UInt64(n))
                case .uint(let n)?: return .uid(n)
                default: break
                }
            }
            return .dictionary(out)
        default: return value
        }
    }

    static func safeString(_ s: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in s.unicodeScalars {
            let v = scalar.value
            let bad = (v < 0x20 && v != 0x09 && v != 0x0A && v != 0x0D) || v == 0xFFFE || v == 0xFFFF
            scalars.append(bad ? "?" : scalar)
        }
        return String(scalars)
    }
}

extension Data {
    init(hexString: String) {
        var bytes: [UInt8] = []
        var high: UInt8?
        for c in hexString.utf8 {
            let v: UInt8 = c <= UInt8(ascii: "9") ? c - UInt8(ascii: "0") : (c | 0x20) - UInt8(ascii: "a") + 10
            if let h = high {
                bytes.append(h << 4 | v)
                high = nil
            } else {
                high = v
            }
        }
        self.init(bytes)
    }
}
