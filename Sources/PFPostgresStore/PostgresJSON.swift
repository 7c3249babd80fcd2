import Foundation
import OrderedCollections
import PFCore

/// The JSON text that goes into and comes out of `jsonb` columns.
///
/// `jsonb` keeps numbers as `numeric`, which remembers digits after the point but not an
/// exponent: `1e+20` comes back as `100000000000000000000`. So doubles are written with a
/// fraction part (`3.0`, `100000000000000000000.0`) and read back as doubles whenever the text
/// has a `.` or an exponent, or is an integer beyond 64 bits; other integers are integers.
/// `jsonb` also sorts object keys and cannot hold U+0000 in a string.
enum PostgresJSON {
    // MARK: - Writing

    /// Writes a value as JSON text for a `jsonb` parameter.
    /// - Parameters:
    ///   - value: the tree (REST style: dates as `{"__type":"Date",…}`).
    ///   - what: where the value is, for messages.
    /// - Throws: `unrepresentable` for NaN, ±infinity, U+0000, a date or data value.
    static func text(_ value: PFValue, what: @autoclosure () -> String) throws(PFError) -> String {
        var out = ""
        try write(value, into: &out, depth: 0, what: what)
        return out
    }

    private static func write(
        _ value: PFValue, into out: inout String, depth: Int, what: () -> String
    ) throws(PFError) {
        guard depth < PFLimits.default.maxDepth else {
            throw PFError(.limitExceeded, format: StoreFormat.name, "\(what()) is nested deeper than \(PFLimits.default.maxDepth) levels")
        }
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .uint(let u): out += String(u)
        case .double(let d): out += try number(d, what: what)
        case .string(let s): try string(s, into: &out, what: what)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                try write(item, into: &out, depth: depth + 1, what: what)
            }
            out += "]"
        case .dictionary(let d):
            out += "{"
            var first = true
            for (key, member) in d {
                if !first { out += "," }
                first = false
                try string(key, into: &out, what: what)
                out += ":"
                try write(member, into: &out, depth: depth + 1, what: what)
            }
            out += "}"
        case .date, .data, .uid:
            throw PFError(
                .unrepresentable, format: StoreFormat.name,
                "\(what()) holds a \(value.kind) value that has no JSON form (a Date must be within years 1–9999)")
        }
    }

    /// A double as text that `numeric` keeps as a fraction: shortest digits when it has a
    /// fraction, otherwise every integer digit followed by `.0`.
    private static func number(_ d: Double, what: () -> String) throws(PFError) -> String {
        guard d.isFinite else {
            throw PFError(.unrepresentable, format: StoreFormat.name, "\(what()) holds \(d), which JSON (and jsonb) cannot hold")
        }
        if d.rounded(.towardZero) != d { return "\(d)" }
        if abs(d) < 1e15, let i = Int64(exactly: d) { return (d.sign == .minus && i == 0 ? "-" : "") + String(i) + ".0" }
        return String(format: "%.1f", d)
    }

    private static func string(_ s: String, into out: inout String, what: () -> String) throws(PFError) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{0}":
                throw PFError(
                    .unrepresentable, format: StoreFormat.name,
                    "\(what()) holds a string with U+0000, which PostgreSQL text and jsonb cannot store")
            default:
                if scalar.value < 0x20 {
                    out += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    // MARK: - Reading

    /// Reads the text of a `jsonb` value (as `jsonb::text` prints it).
    /// - Parameters:
    ///   - text: the JSON text.
    ///   - what: where it is, for messages.
    /// - Throws: `syntax` for text that is not JSON.
    static func value(_ text: String, what: @autoclosure () -> String) throws(PFError) -> PFValue {
        var parser = Parser(bytes: Array(text.utf8))
        do throws(Parser.Failure) {
            parser.skipSpace()
            let value = try parser.value(depth: 0)
            parser.skipSpace()
            guard parser.index == parser.bytes.count else { throw Parser.Failure(offset: parser.index, expected: "the end of the text") }
            return value
        } catch {
            throw PFError(
                .syntax, format: StoreFormat.name, "\(what()): jsonb text is not JSON; expected \(error.expected)",
                offset: error.offset)
        }
    }

    private struct Parser {
        struct Failure: Error { var offset: Int; var expected: String }

        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
        }

        func fail(_ expected: String) -> Failure { Failure(offset: index, expected: expected) }

        mutating func literal(_ word: String, _ value: PFValue) throws(Failure) -> PFValue {
            let w = Array(word.utf8)
            guard index + w.count <= bytes.count, Array(bytes[index..<index + w.count]) == w else { throw fail("'\(word)'") }
            index += w.count
            return value
        }

        mutating func value(depth: Int) throws(Failure) -> PFValue {
            guard depth < PFLimits.default.maxDepth else { throw fail("at most \(PFLimits.default.maxDepth) levels of nesting") }
            guard index < bytes.count else { throw fail("a value") }
            switch bytes[index] {
            case UInt8(ascii: "n"): return try literal("null", .null)
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "["):
                index += 1
                var items: [PFValue] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
                while true {
                    skipSpace()
                    items.append(try value(depth: depth + 1))
                    skipSpace()
                    guard index < bytes.count else { throw fail("',' or ']'") }
                    if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
                    guard bytes[index] == UInt8(ascii: ",") else { throw fail("',' or ']'") }
                    index += 1
                }
            case UInt8(ascii: "{"):
                index += 1
                var members = OrderedDictionary<String, PFValue>()
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .dictionary(members) }
                while true {
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("a key string") }
                    let key = try string()
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("':'") }
                    index += 1
                    skipSpace()
                    members[key] = try value(depth: depth + 1)
                    skipSpace()
                    guard index < bytes.count else { throw fail("',' or '}'") }
                    if bytes[index] == UInt8(ascii: "}") { index += 1; return .dictionary(members) }
                    guard bytes[index] == UInt8(ascii: ",") else { throw fail("',' or '}'") }
                    index += 1
                }
            default:
                return try number()
            }
        }

        mutating func number() throws(Failure) -> PFValue {
            let start = index
            var isInteger = true
            while index < bytes.count {
                let b = bytes[index]
                if (b >= 0x30 && b <= 0x39) || b == UInt8(ascii: "-") || b == UInt8(ascii: "+") {
                    index += 1
                } else if b == UInt8(ascii: ".") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E") {
                    isInteger = false
                    index += 1
                } else {
                    break
                }
            }
            guard index > start, let token = String(bytes: bytes[start..<index], encoding: .utf8) else { throw fail("a value") }
            if isInteger, let i = Int64(token) { return .int(i) }
            guard let d = Double(token), d.isFinite else { index = start; throw fail("a number") }
            return .double(d)
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            guard index + 4 <= bytes.count,
                let s = String(bytes: bytes[index..<index + 4], encoding: .ascii), let v = UInt32(s, radix: 16)
            else { throw fail("four hex digits") }
            index += 4
            return v
        }

        mutating func string() throws(Failure) -> String {
            index += 1  // the opening quote
            var out: [UInt8] = []
            while index < bytes.count {
                let b = bytes[index]
                index += 1
                switch b {
                case UInt8(ascii: "\""):
                    return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { throw fail("an escape") }
                    let e = bytes[index]
                    index += 1
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        var code = try hex4()
                        if code >= 0xD800, code < 0xDC00, index + 1 < bytes.count,
                            bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                        {
                            index += 2
                            let low = try hex4()
                            guard low >= 0xDC00, low < 0xE000 else { throw fail("a low surrogate") }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let scalar = Unicode.Scalar(code) else { throw fail("a Unicode scalar value") }
                        out.append(contentsOf: Array(String(Character(scalar)).utf8))
                    default:
                        throw fail("a valid escape")
                    }
                default:
                    out.append(b)
                }
            }
            throw fail("a closing '\"'")
        }
    }
}

extension PFValue {
    /// A word for messages.
    fileprivate var kind: String {
        switch self {
        case .date: "date"
        case .data: "data"
        case .uid: "UID"
        default: "JSON"
        }
    }
}
