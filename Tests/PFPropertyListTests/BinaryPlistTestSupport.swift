import Foundation
import OrderedCollections
import PFTestSupport
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

    let bytes: [UInt8]
    var i = 0

    static func value(fromJSON data: Data) throws -> PFValue {
        var parser = PlistlibJSON(bytes: Array(data), i: 0)
        let v = try parser.parseValue()
        parser.skipSpace()
        guard parser.i == parser.bytes.count else { throw Failure(description: "trailing bytes at \(parser.i)") }
        return v
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
            if members.count == 1, case .string(let text)? = members["$date"] {
                guard let date = PFDateFormat.parseISO8601(text) else { throw Failure(description: "bad $date \(text)") }
                return .date(date)
            }
            if members.count == 1, case .string(let hex)? = members["$bytes_hex"] { return .data(BPlist.bytes(hex)) }
            if members.count == 1, let uid = members["CF$UID"]?.int64Value { return .uid(UInt64(uid)) }
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
