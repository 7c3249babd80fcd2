import Foundation
import OrderedCollections
import PFCore
import PFParse

/// MongoDB Extended JSON (v2), as `mongoexport` (mongo-tools 100.x) writes it and
/// `mongoimport` reads it, between JSON trees and a BSON-like ``PFValue`` tree.
///
/// Reading accepts canonical and relaxed mode (and the legacy v1 spellings mongoexport 3.x
/// wrote): `{"$date":"…Z"}`, `{"$date":{"$numberLong":"…"}}`, `{"$date":<millis>}`,
/// `{"$numberInt":"…"}`, `{"$numberLong":"…"}`, `{"$numberDouble":"…"}`, `{"$oid":"…"}`,
/// `{"$binary":{"base64":…,"subType":…}}` and `{"$binary":…,"$type":…}`. Dates become
/// ``PFValue/date(_:)``, binary ``PFValue/data(_:)``, ObjectIds their hex string, and
/// numbers keep their kind: a plain integer or `$numberInt`/`$numberLong` is
/// ``PFValue/int(_:)``, a number with a fraction or exponent or `$numberDouble` is
/// ``PFValue/double(_:)``.
///
/// Writing is relaxed mode, as mongoexport's default: dates in years 1970–9999 as
/// `{"$date":"2015-03-01T12:00:00.123Z"}` (trailing zeros of the milliseconds dropped, as the
/// Go driver formats them), other dates as `{"$date":{"$numberLong":"…"}}`, binary as
/// `{"$binary":{"base64":…,"subType":"00"}}`, and NaN and the infinities as
/// `{"$numberDouble":"NaN"}`; other numbers are plain JSON.
public enum MongoExtendedJSON {
    static let format: PFError.Format = .mongoShape

    // MARK: - Reading

    /// Turns an Extended JSON tree into a BSON-like tree (dates, data, typed numbers).
    /// - Parameter value: the tree the JSON reader made of one document (typed values off).
    /// - Returns: the tree with every wrapper replaced by its value.
    /// - Throws: ``PFCore/PFError`` with a ``Failure`` case and the key path of the value, for
    ///   a malformed or unsupported wrapper, or a key starting with `$` that is not a wrapper.
    public static func decode(_ value: PFValue) throws(PFError) -> PFValue {
        switch value {
        case .array(let items):
            var out: [PFValue] = []
            out.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                do throws(PFError) { out.append(try decode(item)) } catch { throw error.prefixed(.index(i)) }
            }
            return .array(out)
        case .dictionary(let d):
            if let first = d.keys.first, first.hasPrefix("$") { return try wrapper(first, d) }
            var out = OrderedDictionary<String, PFValue>()
            out.reserveCapacity(d.count)
            for (key, member) in d {
                if key.hasPrefix("$") { throw PFError(Failure.dollarKey(key), format: format, path: [.key(key)]) }
                do throws(PFError) { out[key] = try decode(member) } catch { throw error.prefixed(.key(key)) }
            }
            return .dictionary(out)
        case .uint(let u):
            throw PFError(Failure.integerBeyond64Bits(u), format: format, path: .root)
        default:
            return value
        }
    }

    /// An error about the wrapper at the current value (its path is put in front as the
    /// error unwinds).
    private static func fail(_ failure: Failure) -> PFError { PFError(failure, format: format, path: .root) }

    private static func wrapper(_ key: String, _ d: OrderedDictionary<String, PFValue>) throws(PFError) -> PFValue {
        let payload = d[key] ?? .null
        if key == "$binary" { return try binary(d) }
        // The legacy regular expression form (`{"$regex": …, "$options": …}`, older
        // mongoexport) is a regular expression still, which no Parse type holds.
        if key == "$regex", d.count == 2, d["$options"] != nil { throw fail(.noParseEquivalent(key)) }
        guard d.count == 1 else { throw fail(.wrapperWithOtherKeys(wrapper: key, others: d.keys.filter { $0 != key })) }
        switch key {
        case "$date":
            return .date(try date(payload))
        case "$numberInt":
            guard case .string(let s) = payload, let i = Int32(s) else {
                throw fail(.malformedNumberInt)
            }
            return .int(Int64(i))
        case "$numberLong":
            guard case .string(let s) = payload, let i = Int64(s) else {
                throw fail(.malformedNumberLong)
            }
            return .int(i)
        case "$numberDouble":
            guard case .string(let s) = payload, let d = double(s) else {
                throw fail(.malformedNumberDouble)
            }
            return .double(d)
        case "$oid":
            guard case .string(let s) = payload, s.utf8.count == 24, s.utf8.allSatisfy(isHexDigit) else {
                throw fail(.malformedObjectId)
            }
            return .string(s)
        case "$numberDecimal", "$timestamp", "$regularExpression", "$regex", "$minKey", "$maxKey", "$code", "$symbol",
            "$dbPointer", "$undefined", "$uuid":
            throw fail(.noParseEquivalent(key))
        default:
            throw fail(.unknownWrapper(key))
        }
    }

    private static func isHexDigit(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66) || (b >= 0x41 && b <= 0x46)
    }

    private static func double(_ s: String) -> Double? {
        switch s {
        case "NaN": return .nan
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        default:
            // Only decimal text: Swift's parser would also take "nan", "inf" and hex floats.
            guard !s.isEmpty, s.utf8.allSatisfy({ b in
                (b >= 0x30 && b <= 0x39) || b == 0x2E || b == 0x2B || b == 0x2D || b == 0x65 || b == 0x45
            }) else { return nil }
            return Double(s)
        }
    }

    private static func date(_ payload: PFValue) throws(PFError) -> Date {
        switch payload {
        case .string(let s):
            guard let date = PFDateFormat.parseISO8601(s) else { throw fail(.malformedDate(text: s)) }
            return date
        case .int(let millis):
            return Date(timeIntervalSince1970: Double(millis) / 1000)
        case .dictionary(let d):
            if d.count == 1, case .string(let s)? = d["$numberLong"], let millis = Int64(s) {
                return Date(timeIntervalSince1970: Double(millis) / 1000)
            }
        default: break
        }
        throw fail(.malformedDate(text: nil))
    }

    private static func binary(_ d: OrderedDictionary<String, PFValue>) throws(PFError) -> PFValue {
        var text: String?
        var subType: String?
        if d.count == 1, case .dictionary(let inner)? = d["$binary"], inner.count == 2 {
            text = inner["base64"]?.stringValue
            subType = inner["subType"]?.stringValue
        } else if d.count == 2, case .string(let t)? = d["$binary"], case .string(let s)? = d["$type"] {
            text = t
            subType = s
        }
        guard let text, let subType else { throw fail(.malformedBinary) }
        // Subtypes 00 (generic) and 02 (old binary) are plain bytes; UUIDs, MD5 and encrypted
        // values have no Parse meaning, so reading them as Bytes would lose what they are.
        guard subType == "00" || subType == "0" || subType == "02" || subType == "2" else {
            throw fail(.binarySubtype(subType))
        }
        guard let data = PFBase64.decode(text, ignoringWhitespace: false) else {
            throw fail(.binaryNotBase64)
        }
        return .data(data)
    }

    // MARK: - Writing

    /// The relaxed-mode wrapper of a date: ISO text for years 1970–9999, else milliseconds.
    /// - Parameter date: the date (rounded to whole milliseconds).
    /// - Returns: `{"$date":…}`, or `nil` when the date is not finite or its milliseconds do not fit 64 bits.
    public static func wrap(date: Date) -> PFValue? {
        let t = (date.timeIntervalSince1970 * 1000).rounded()
        guard t.isFinite, t >= -9.2e18, t <= 9.2e18 else { return nil }
        let millis = Int64(t)
        // 253402300800000 ms is 10000-01-01T00:00:00Z.
        if millis >= 0, millis < 253_402_300_800_000, let iso = isoText(millis: millis) {
            return .dictionary(["$date": .string(iso)])
        }
        return .dictionary(["$date": .dictionary(["$numberLong": .string(String(millis))])])
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fff]Z` with trailing zeros of the fraction dropped, as Go's
    /// `2006-01-02T15:04:05.999Z07:00` layout (mongo-tools) writes it.
    static func isoText(millis: Int64) -> String? {
        guard let full = ParseDate.string(from: Date(timeIntervalSince1970: Double(millis) / 1000)) else { return nil }
        // full is "…:SS.mmmZ"; drop trailing zeros of mmm, and the dot when all are zero.
        var text = Substring(full.dropLast())
        while text.hasSuffix("0"), text.contains(".") { text = text.dropLast() }
        if text.hasSuffix(".") { text = text.dropLast() }
        return text + "Z"
    }

    /// The relaxed-mode form of a double: itself when finite, else `{"$numberDouble":…}`.
    public static func wrap(double d: Double) -> PFValue {
        if d.isNaN { return .dictionary(["$numberDouble": "NaN"]) }
        if d.isInfinite { return .dictionary(["$numberDouble": d < 0 ? "-Infinity" : "Infinity"]) }
        return .double(d)
    }

    /// `{"$binary":{"base64":…,"subType":"00"}}`.
    public static func wrap(data: Data) -> PFValue {
        .dictionary(["$binary": .dictionary(["base64": .string(PFBase64.encode(data)), "subType": "00"])])
    }
}
