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
    /// columns hold (strings without U+0000, numbers, booleans, null, and arrays and objects
    /// of them), through the writer's own plain path (``PFJSON/JSONWriter/appendPlain(_:to:)``).
    /// `false`, with `bytes` as it was, for anything else (typed values, NaN, U+0000): the
    /// caller then writes `value.restValue`, which reports what is wrong.
    /// - Parameters:
    ///   - value: the value.
    ///   - bytes: where the text goes.
    /// - Returns: whether the value was written.
    static func appendPlain(_ value: ParseValue, into bytes: inout [UInt8]) -> Bool {
        writer.appendPlain(value, to: &bytes)
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
