import Foundation
import OrderedCollections
import PFCore
import PFPropertyList
import Testing

/// Helpers shared by the binary property list tests.
enum BPlist {
    /// Bytes from a hex string (spaces ignored).
    static func bytes(_ hex: String) -> Data {
        let digits = hex.filter { !$0.isWhitespace }.map { UInt8(String($0), radix: 16) ?? 0 }
        return Data(stride(from: 0, to: digits.count - 1, by: 2).map { digits[$0] << 4 | digits[$0 + 1] })
    }

    /// Bytes as lowercase hex.
    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    /// A whole `bplist00` file around hand-written objects: `objects` are the object bytes
    /// in index order; the offset table uses 1-byte entries and refs are 1 byte.
    static func file(_ objects: [[UInt8]], top: UInt64 = 0, refSize: UInt8 = 1) -> Data {
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(out.count)
            out += object
        }
        let table = out.count
        out += offsets.map { UInt8($0) }
        out += [0, 0, 0, 0, 0, 0, 1, refSize]
        for v in [UInt64(objects.count), top, UInt64(table)] {
            out += withUnsafeBytes(of: v.bigEndian) { Array($0) }
        }
        return Data(out)
    }

    /// Reads with the default reader and returns the error it throws, or `nil`.
    static func error(_ data: Data, limits: PFLimits = .default) -> PFError? {
        do {
            _ = try BinaryPlistReader(options: .init(limits: limits)).read(data)
            return nil
        } catch {
            return error
        }
    }
}

// MARK: - plistlib's JSON rendering

/// Parses the `EXPECTED/bplist/*.plistlib.json` rendering into a ``PFValue``, keeping key
/// order: dates are `{"$date": "YYYY-MM-DDTHH:MM:SS[.ffffff]"}` (UTC), data
/// `{"$bytes_hex": "…"}`, UIDs `{"CF$UID": n}`; a number is an integer unless its text
/// has a fraction or an exponent.
struct PlistlibJSON {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The keys of the one-member dictionaries that stand for a date, data and a UID.
    struct Markers {
        var date: String
        var bytes: String
        var uid: String
        /// The fixtures' spelling.
        static let fixtures = Markers(date: "$date", bytes: "$bytes_hex", uid: "CF$UID")
        /// The peer tests' spelling, which no generated key can be (``BPlist/json(_:)``'s).
        static let peer = Markers(date: "\u{1}date", bytes: "\u{1}bytes_hex", uid: "\u{1}uid")
    }

    let bytes: [UInt8]
    var i = 0
    var markers = Markers.fixtures

    static func value(fromJSON data: Data, markers: Markers = .fixtures) throws -> PFValue {
        var parser = PlistlibJSON(bytes: Array(data), i: 0, markers: markers)
        let v = try parser.parseValue()
        parser.skipSpace()
        guard parser.i == parser.bytes.count else { throw Failure(description: "trailing bytes at \(parser.i)") }
        return v
    }

    /// A UID's number: a non-negative integer (anything else under the marker stays a dictionary).
    static func uid(_ value: PFValue?) -> UInt64? {
        switch value {
        case .int(let i)?: UInt64(exactly: i)
        case .uint(let u)?: u
        default: nil
        }
    }

    mutating func skipSpace() {
        while i < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[i]) { i += 1 }
    }

    mutating func expect(_ c: Character) throws {
        skipSpace()
        guard i < bytes.count, bytes[i] == c.asciiValue else { throw Failure(description: "expected \(c) at \(i)") }
        i += 1
    }

    mutating func parseValue() throws -> PFValue {
        skipSpace()
        guard i < bytes.count else { throw Failure(description: "unexpected end") }
        switch bytes[i] {
        case UInt8(ascii: "{"):
            i += 1
            var members = OrderedDictionary<String, PFValue>()
            skipSpace()
            if bytes[i] == UInt8(ascii: "}") { i += 1; return .dictionary(members) }
            while true {
                skipSpace()
                let key = try parseString()
                try expect(":")
                members[key] = try parseValue()
                skipSpace()
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                try expect("}")
                break
            }
            if members.count == 1, case .string(let text)? = members[markers.date] {
                guard let date = PFDateFormat.parseISO8601(text) else { throw Failure(description: "bad date \(text)") }
                return .date(date)
            }
            if members.count == 1, case .string(let hex)? = members[markers.bytes] { return .data(BPlist.bytes(hex)) }
            if members.count == 1, let uid = Self.uid(members[markers.uid]) { return .uid(uid) }
            return .dictionary(members)
        case UInt8(ascii: "["):
            i += 1
            var items: [PFValue] = []
            skipSpace()
            if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            while true {
                items.append(try parseValue())
                skipSpace()
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                try expect("]")
                return .array(items)
            }
        case UInt8(ascii: "\""):
            return .string(try parseString())
        case UInt8(ascii: "t"): i += 4; return .bool(true)
        case UInt8(ascii: "f"): i += 5; return .bool(false)
        case UInt8(ascii: "n"): i += 4; return .null
        default:
            let start = i
            while i < bytes.count, "+-0123456789.eE".utf8.contains(bytes[i]) { i += 1 }
            let text = String(decoding: bytes[start..<i], as: UTF8.self)
            if text.contains(where: { ".eE".contains($0) }) {
                guard let d = Double(text) else { throw Failure(description: "bad number \(text)") }
                return .double(d)
            }
            if let v = Int64(text) { return .int(v) }
            if let v = UInt64(text) { return .uint(v) }
            throw Failure(description: "bad number \(text)")
        }
    }

    mutating func parseString() throws -> String {
        guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw Failure(description: "expected string at \(i)") }
        i += 1
        var utf16: [UInt16] = []
        while i < bytes.count, bytes[i] != UInt8(ascii: "\"") {
            if bytes[i] == UInt8(ascii: "\\") {
                let c = bytes[i + 1]
                i += 2
                switch c {
                case UInt8(ascii: "n"): utf16.append(0x0A)
                case UInt8(ascii: "t"): utf16.append(0x09)
                case UInt8(ascii: "r"): utf16.append(0x0D)
                case UInt8(ascii: "b"): utf16.append(0x08)
                case UInt8(ascii: "f"): utf16.append(0x0C)
                case UInt8(ascii: "u"):
                    utf16.append(UInt16(String(decoding: bytes[i..<(i + 4)], as: UTF8.self), radix: 16) ?? 0)
                    i += 4
                default: utf16.append(UInt16(c))
                }
            } else {
                // Copy a run of raw UTF-8 up to the next quote or escape.
                let start = i
                while i < bytes.count, bytes[i] != UInt8(ascii: "\""), bytes[i] != UInt8(ascii: "\\") { i += 1 }
                utf16 += String(decoding: bytes[start..<i], as: UTF8.self).utf16
            }
        }
        i += 1
        return String(decoding: utf16, as: UTF16.self)
    }
}

// MARK: - Peer renderings and comparisons

extension BPlist {
    /// One line of JSON for the Python side: dates as `{"$date": secondsSince2001}`, data
    /// as `{"$bytes_hex": "…"}`, UIDs as `{"CF$UID": n}`.
    static func json(_ value: PFValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .uint(let u): return String(u)
        case .double(let d): return d.description
        case .string(let s): return jsonString(s)
        // Marker keys no generated string can be (random strings may well be "CF$UID").
        case .data(let d): return #"{"\u0001bytes_hex": "\#(hex(d))"}"#
        case .date(let d): return #"{"\u0001date": \#(d.timeIntervalSinceReferenceDate.description)}"#
        case .uid(let u): return #"{"\u0001uid": \#(u)}"#
        case .array(let items): return "[" + items.map(json).joined(separator: ",") + "]"
        case .dictionary(let members):
            return "{" + members.map { jsonString($0.key) + ":" + json($0.value) }.joined(separator: ",") + "}"
        }
    }

    static func jsonString(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// Equality as far as a Python round trip can keep it: dates to within 2 µs (datetime
    /// holds microseconds) and `0.0` equal to `-0.0` (plistlib interns floats by `==`, so
    /// the second of the two becomes a reference to the first).
    static func samePeerValue(_ a: PFValue, _ b: PFValue) -> Bool {
        switch (a, b) {
        case (.date(let x), .date(let y)):
            return abs(x.timeIntervalSinceReferenceDate - y.timeIntervalSinceReferenceDate) <= 2e-6
        case (.double(let x), .double(let y)) where x == 0 && y == 0:
            return true
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { samePeerValue($0, $1) }
        case (.dictionary(let x), .dictionary(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && samePeerValue($0.value, $1.value) }
        default:
            return a == b
        }
    }

    /// Equality where dictionaries compare as unordered (Foundation dictionaries have no order).
    static func sameIgnoringKeyOrder(_ a: PFValue, _ b: PFValue) -> Bool {
        switch (a, b) {
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { sameIgnoringKeyOrder($0, $1) }
        case (.dictionary(let x), .dictionary(let y)):
            return x.count == y.count
                && x.allSatisfy { member in y[member.key].map { sameIgnoringKeyOrder(member.value, $0) } ?? false }
        default:
            return a == b
        }
    }

    struct Unconvertible: Error, CustomStringConvertible { var description: String }

    /// A value as a Foundation property list object.
    static func foundationObject(_ value: PFValue) throws -> Any {
        switch value {
        case .bool(let b): return b
        case .int(let i): return NSNumber(value: i)
        case .uint(let u): return NSNumber(value: u)
        case .double(let d): return NSNumber(value: d)
        case .string(let s): return s
        case .data(let d): return d
        case .date(let d): return d
        case .array(let items): return try items.map(foundationObject)
        case .dictionary(let members):
            var out: [String: Any] = [:]
            for (k, v) in members { out[k] = try foundationObject(v) }
            return out
        case .null, .uid: throw Unconvertible(description: "no Foundation plist form for \(value.kind)")
        }
    }

    /// A Foundation property list object as a value.
    static func value(fromFoundation object: Any) throws -> PFValue {
        switch object {
        case let b as Bool where type(of: object) == Bool.self: return .bool(b)
        case let n as NSNumber:
            switch String(cString: n.objCType) {
            case "d", "f": return .double(n.doubleValue)
            case "Q": return PFValue.integer(n.uint64Value) ?? .uint(n.uint64Value)
            case "c" where type(of: object) == Bool.self: return .bool(n.boolValue)
            default: return .int(n.int64Value)
            }
        case let s as String: return .string(s)
        case let d as Data: return .data(d)
        case let d as Date: return .date(d)
        case let a as [Any]: return .array(try a.map(value(fromFoundation:)))
        case let d as [AnyHashable: Any]:
            var members = OrderedDictionary<String, PFValue>()
            for (k, v) in d {
                guard let key = k.base as? String else { throw Unconvertible(description: "key \(k)") }
                members[key] = try value(fromFoundation: v)
            }
            return .dictionary(members)
        default:
            throw Unconvertible(description: "\(type(of: object))")
        }
    }
}
