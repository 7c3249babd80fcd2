import Foundation
import PFCore
import PFJSON
import PFParse

/// The JSON text that goes into and comes out of `jsonb` columns, written and read by PFJSON
/// (``PFJSON/JSONWriter`` and ``PFJSON/JSONReader`` with their `jsonb` settings).
///
/// `jsonb` keeps numbers as `numeric`, which remembers digits after the point but not an
/// exponent: `1e+20` comes back as `100000000000000000000`. So doubles are written with a
/// fraction part (`3.0`, `100000000000000000000.0`) and read back as doubles whenever the text
/// has a `.` or an exponent, or is an integer beyond 64 bits; other integers are integers.
/// `jsonb` also sorts object keys and cannot hold U+0000 in a string.
enum PostgresJSON {
    /// The writer's settings: REST style (dates as `{"__type":"Date",…}` already), `jsonb` numbers.
    private static let writer: JSONWriter = {
        var options = JSONWriter.Options(typedValues: false)
        options.jsonb = true
        options.parallel = false
        options.maxDepth = PFLimits.default.maxDepth
        return JSONWriter(options: options)
    }()

    /// The reader's settings: strict, plain dictionaries, integers beyond 64 bits as doubles.
    private static let reader: JSONReader = {
        var options = JSONReader.Options(typedValues: false)
        options.wideIntegersAsDoubles = true
        options.parallel = false
        return JSONReader(options: options)
    }()

    /// Writes a value as JSON text for a `jsonb` parameter.
    /// - Parameters:
    ///   - value: the tree (REST style: dates as `{"__type":"Date",…}`).
    ///   - what: where the value is, for messages.
    /// - Throws: `unrepresentable` for NaN, ±infinity, U+0000, a date or data value.
    static func text(_ value: PFValue, what: @autoclosure () -> String) throws(PFError) -> String {
        var bytes: [UInt8] = []
        try write(value, into: &bytes, what: what())
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends a value's JSON text to a buffer (a COPY reuses one for every value).
    /// - Parameters:
    ///   - value: the tree (REST style).
    ///   - bytes: where the text goes; on error it is left as it was.
    ///   - what: where the value is, for messages.
    /// - Throws: as ``text(_:what:)``.
    static func write(_ value: PFValue, into bytes: inout [UInt8], what: @autoclosure () -> String) throws(PFError) {
        do {
            try writer.write(value, into: &bytes)
        } catch {
            throw PFError(PostgresStoreFailure.unwritableJSON(what: what(), code: error.code, problem: error.message), format: StoreFormat.name, path: error.path)
        }
    }

    /// Appends the JSON text of a Parse value as ``write(_:into:what:)`` writes its REST form
    /// (`value.restValue`), without building that tree — for the plain values most `jsonb`
    /// columns hold: strings without U+0000, integers, doubles with a fraction, booleans, null,
    /// and arrays and objects of them up to 64 deep. `false`, with `bytes` as it was, for
    /// anything else (typed values, whole-number doubles, which `jsonb` text spells apart):
    /// the caller then writes `value.restValue`.
    /// - Parameters:
    ///   - value: the value.
    ///   - bytes: where the text goes.
    /// - Returns: whether the value was written.
    static func appendPlain(_ value: ParseValue, into bytes: inout [UInt8]) -> Bool {
        let start = bytes.count
        guard appendPlain(value, depth: 0, into: &bytes) else {
            bytes.removeSubrange(start...)
            return false
        }
        return true
    }

    private static func appendPlain(_ value: ParseValue, depth: Int, into bytes: inout [UInt8]) -> Bool {
        switch value {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let b): bytes.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let i): JSONText.appendInteger(i, to: &bytes)
        case .double(let d):
            guard d.isFinite, d.rounded(.towardZero) != d else { return false }
            JSONText.appendDouble(d, to: &bytes)
        case .string(let s):
            guard appendPlain(s, into: &bytes) else { return false }
        case .array(let items):
            guard depth < 64 else { return false }
            bytes.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                guard appendPlain(item, depth: depth + 1, into: &bytes) else { return false }
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            guard depth < 64 else { return false }
            bytes.append(UInt8(ascii: "{"))
            for i in members.keys.indices {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                guard appendPlain(members.keys[i], into: &bytes) else { return false }
                bytes.append(UInt8(ascii: ":"))
                guard appendPlain(members.values[i], depth: depth + 1, into: &bytes) else { return false }
            }
            bytes.append(UInt8(ascii: "}"))
        case .date, .bytes, .pointer, .relation, .file, .geoPoint, .polygon, .embedded:
            return false
        }
        return true
    }

    /// A quoted string, or `false` for one holding U+0000 (which `jsonb` refuses: the full
    /// writer says so).
    private static func appendPlain(_ s: String, into bytes: inout [UInt8]) -> Bool {
        var s = s
        let hasNUL = s.withUTF8 { $0.contains(0) }
        guard !hasNUL else { return false }
        JSONText.appendString(s, to: &bytes)
        return true
    }

    /// Reads the text of a `jsonb` value (as `jsonb::text` prints it).
    /// - Parameters:
    ///   - text: the JSON text.
    ///   - what: where it is, for messages.
    /// - Throws: `syntax` (or the JSON reader's code) for text that is not JSON.
    static func value(_ text: String, what: @autoclosure () -> String) throws(PFError) -> PFValue {
        do {
            return try reader.read(Data(text.utf8))
        } catch {
            throw PFError(
                PostgresStoreFailure.notJSON(what: what(), code: error.code, problem: error.message), format: StoreFormat.name,
                location: error.location, path: error.path)
        }
    }
}
