import Foundation
import PFCore

extension XMLPlistScanner {
    // MARK: - Strings

    /// Reads the text of a `<string>` or `<key>` as a validated UTF-8 string.
    mutating func readString(_ element: XMLPlistElement, openOffset: Int) throws(PFError) -> String {
        let contentStart = pos
        let text = try readContent(element, openOffset: openOffset)
        guard text.bytes.count <= limits.maxStringBytes else {
            throw PFLimits.exceeded("maxStringBytes", limits.maxStringBytes, format: Self.formatName, offset: contentStart)
        }
        if let string = String(validating: text.bytes.assumingMemoryBound(to: UInt8.self), as: UTF8.self) {
            return string
        }
        // Entities and CDATA only add valid UTF-8, so the bad bytes are in the input's text.
        let offset = Self.firstInvalidUTF8(slice(contentStart, max(contentStart, pos))).map { contentStart + $0 }
        throw fail(.invalidUTF8(element: element.name), at: offset ?? contentStart)
    }

    /// The offset of the first byte that does not start a valid UTF-8 sequence.
    static func firstInvalidUTF8(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): offset += encoded.count
            case .error: return offset
            case .emptyInput: return nil
            }
        }
    }

    // MARK: - Numbers

    /// `<integer>`: decimal, or hexadecimal after `0x`, with an optional sign; any value from
    /// `Int64.min` to `UInt64.max`.
    func parseInteger(_ text: XMLPlistText, at offset: Int) throws(PFError) -> PFValue {
        let b = text.bytes
        let n = b.count
        var i = 0
        var negative = false
        if i < n, b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") {
            negative = b[i] == UInt8(ascii: "-")
            i += 1
        }
        var radix: UInt64 = 10
        if i + 1 < n, b[i] == UInt8(ascii: "0"), b[i + 1] | 0x20 == UInt8(ascii: "x") {
            radix = 16
            i += 2
        }
        var magnitude: UInt64 = 0
        let digitsStart = i
        while i < n {
            guard let digit = Self.digitValue(b[i]), UInt64(digit) < radix else {
                throw fail(.notInteger(quoted(b)), at: offset)
            }
            let (times, o1) = magnitude.multipliedReportingOverflow(by: radix)
            let (sum, o2) = times.addingReportingOverflow(UInt64(digit))
            guard !o1, !o2 else { throw outOfRange(b, at: offset) }
            magnitude = sum
            i += 1
        }
        guard i > digitsStart else {
            throw fail(.integerWithoutDigits(quoted(b)), at: offset)
        }
        if negative {
            if magnitude <= UInt64(Int64.max) { return .int(-Int64(magnitude)) }
            if magnitude == UInt64(Int64.max) + 1 { return .int(Int64.min) }
            throw outOfRange(b, at: offset)
        }
        return magnitude <= UInt64(Int64.max) ? .int(Int64(magnitude)) : .uint(magnitude)
    }

    func outOfRange(_ b: UnsafeRawBufferPointer, at offset: Int) -> PFError {
        fail(.integerOutOfRange(quoted(b)), at: offset)
    }

    /// `<real>`: decimal text with an optional fraction and exponent, or `nan`, `inf`,
    /// `infinity` (any case, optional sign). Magnitudes beyond `Double` become infinities,
    /// as `strtod` makes them.
    func parseReal(_ text: XMLPlistText, at offset: Int) throws(PFError) -> PFValue {
        let b = text.bytes
        let n = b.count
        var i = 0
        var negative = false
        if i < n, b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") {
            negative = b[i] == UInt8(ascii: "-")
            i += 1
        }
        if i < n, b[i] | 0x20 == UInt8(ascii: "n") || b[i] | 0x20 == UInt8(ascii: "i") {
            let word = String(decoding: UnsafeRawBufferPointer(rebasing: b[i...]), as: UTF8.self).lowercased()
            switch word {
            case "nan": return .double(.nan)
            case "inf", "infinity": return .double(negative ? -.infinity : .infinity)
            default: throw notAReal(b, at: offset)
            }
        }
        var digits = 0
        while i < n, b[i] &- UInt8(ascii: "0") < 10 { i += 1; digits += 1 }
        if i < n, b[i] == UInt8(ascii: ".") {
            i += 1
            while i < n, b[i] &- UInt8(ascii: "0") < 10 { i += 1; digits += 1 }
        }
        guard digits > 0 else { throw notAReal(b, at: offset) }
        if i < n, b[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < n, b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") { i += 1 }
            var exponentDigits = 0
            while i < n, b[i] &- UInt8(ascii: "0") < 10 { i += 1; exponentDigits += 1 }
            guard exponentDigits > 0 else { throw notAReal(b, at: offset) }
        }
        guard i == n, let value = Double(String(decoding: b, as: UTF8.self)) else { throw notAReal(b, at: offset) }
        return .double(value)
    }

    func notAReal(_ b: UnsafeRawBufferPointer, at offset: Int) -> PFError {
        fail(.notReal(quoted(b)), at: offset)
    }

    // MARK: - Dates

    /// `<date>`: `YYYY-MM-DDTHH:MM:SSZ` in UTC, optionally with a fraction of a second.
    func parseDate(_ text: XMLPlistText, at offset: Int) throws(PFError) -> PFValue {
        let b = text.bytes
        let n = b.count
        // Shape: 4-2-2T2:2:2[.f+]Z; digit positions are checked one by one.
        var ok = n >= 20 && b[n - 1] == UInt8(ascii: "Z")
        if ok {
            for i in 0..<19 {
                let c = b[i]
                switch i {
                case 4, 7: ok = ok && c == UInt8(ascii: "-")
                case 10: ok = ok && c == UInt8(ascii: "T")
                case 13, 16: ok = ok && c == UInt8(ascii: ":")
                default: ok = ok && c &- UInt8(ascii: "0") < 10
                }
            }
            if n > 20 {
                ok = ok && b[19] == UInt8(ascii: ".") && n > 21
                var i = 20
                while ok, i < n - 1 {
                    ok = b[i] &- UInt8(ascii: "0") < 10
                    i += 1
                }
            }
        }
        guard ok, let date = PFDateFormat.parseISO8601(String(decoding: b, as: UTF8.self)) else {
            throw fail(.notDate(quoted(b)), at: offset)
        }
        return .date(date)
    }

    /// Element text for a message: quoted, shortened, control characters shown as `?`.
    func quoted(_ b: UnsafeRawBufferPointer) -> String {
        let shown = String(decoding: b.prefix(40), as: UTF8.self).map { $0.isASCII && ($0.asciiValue ?? 0) < 0x20 ? "?" : $0 }
        return "'" + String(shown) + (b.count > 40 ? "…'" : "'")
    }
}
