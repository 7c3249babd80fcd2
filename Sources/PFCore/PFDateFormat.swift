import Foundation

/// ISO 8601 date text as Parse and property lists write it, without `DateFormatter`
/// (which is slow, locale-dependent and not `Sendable`).
public enum PFDateFormat {
    /// Seconds between 1970-01-01 and 2001-01-01.
    public static let unixToReferenceOffset: Double = 978_307_200

    /// The dates ISO 8601 text with a four-digit year holds, in seconds since 1970: years 0 to
    /// 9999 (0000-01-01T00:00:00Z up to 10000-01-01). Year 0 is no mistake: Core Foundation
    /// writes and reads `NSDate.distantPast` as `0000-12-30T00:00:00Z`, and Apple's data holds
    /// it often (a "no date" placeholder). Every writer of date text and every reader that
    /// turns numbers into dates checks this one range.
    public static let writableUnixSeconds: Range<Double> = -62_167_219_200 ..< 253_402_300_800

    /// Formats a date as `YYYY-MM-DDTHH:MM:SS.mmmZ` (milliseconds, UTC), Parse's form: rounded
    /// to the nearest millisecond, as every JSON writer here and Parse keep a date.
    /// - Returns: the text, or `nil` when the date is not finite or outside years 0–9999.
    public static func iso8601Milliseconds(_ date: Date) -> String? {
        roundedMilliseconds(date)
    }

    /// Formats a date as `YYYY-MM-DDTHH:MM:SSZ` (whole seconds, truncated), the XML plist form.
    /// - Returns: the text, or `nil` when the date is not finite or outside years 0–9999.
    public static func iso8601Seconds(_ date: Date) -> String? {
        let t = date.timeIntervalSince1970
        // Truncated, a time in the range stays in it (its bounds are whole seconds).
        guard t.isFinite, writableUnixSeconds.contains(t) else { return nil }
        return String(unsafeUninitializedCapacity: 20) { out in
            guard let base = out.baseAddress else { return 0 }
            fill(fields(millis: Int64(t.rounded(.down)) * 1000), fractionDigits: 0, into: base)
            return 20
        }
    }

    /// The length of `YYYY-MM-DDTHH:MM:SS.mmmZ`, what ``writeRoundedMilliseconds(_:into:)`` writes.
    public static let roundedMillisecondsLength = 24

    /// Formats a date rounded to the nearest millisecond as `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC):
    /// how Parse writes dates, and how every JSON writer here writes a typed date.
    /// - Returns: the text, or `nil` when the date is not finite or outside years 0–9999.
    public static func roundedMilliseconds(_ date: Date) -> String? {
        var written = false
        let text = String(unsafeUninitializedCapacity: roundedMillisecondsLength) { out in
            guard let base = out.baseAddress else { return 0 }
            written = writeRoundedMilliseconds(date, into: base)
            return written ? roundedMillisecondsLength : 0
        }
        return written ? text : nil
    }

    /// Writes what ``roundedMilliseconds(_:)`` returns into `buffer` (which has room for
    /// ``roundedMillisecondsLength`` bytes), without making a string: a writer puts it straight
    /// into its output.
    /// - Returns: whether it wrote; `false`, with nothing written, when the date is not finite
    ///   or outside years 0–9999.
    public static func writeRoundedMilliseconds(_ date: Date, into buffer: UnsafeMutablePointer<UInt8>) -> Bool {
        guard writesRoundedMilliseconds(date) else { return false }
        fill(fields(millis: Int64((date.timeIntervalSince1970 * 1000).rounded())), fractionDigits: 3, into: buffer)
        return true
    }

    /// Whether ``writeRoundedMilliseconds(_:into:)`` writes a date: finite, and rounded to the
    /// millisecond within 0000-01-01T00:00:00.000Z through 9999-12-31T23:59:59.999Z.
    public static func writesRoundedMilliseconds(_ date: Date) -> Bool {
        let millis = (date.timeIntervalSince1970 * 1000).rounded()
        return millis.isFinite && writableUnixSeconds.contains(millis / 1000)
    }

    /// Year, month, day, second of the day and millisecond of the second of a time in
    /// milliseconds since 1970.
    private static func fields(millis: Int64) -> (year: Int, month: Int, day: Int, secondsOfDay: Int, ms: Int) {
        let (daysSinceEpoch, msOfDay) = floorDivMod(millis, 86_400_000)
        let (y, m, d) = civilFromDays(daysSinceEpoch)
        return (y, m, d, msOfDay / 1000, msOfDay % 1000)
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` (or `…SSZ` without fraction digits) written in place, 24
    /// (or 20) bytes, for a year in 0...9999: every date written to JSON or a store goes
    /// through here, and joining a dozen small strings cost more than the rest of a row's value.
    private static func fill(
        _ parts: (year: Int, month: Int, day: Int, secondsOfDay: Int, ms: Int), fractionDigits: Int, into out: UnsafeMutablePointer<UInt8>
    ) {
        let (y, m, d, secondsOfDay, ms) = parts
        func put(_ value: Int, _ width: Int, at start: Int) {
            var v = value
            for i in stride(from: start + width - 1, through: start, by: -1) {
                out[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v % 10)
                v /= 10
            }
        }
        put(y, 4, at: 0)
        out[4] = UInt8(ascii: "-")
        put(m, 2, at: 5)
        out[7] = UInt8(ascii: "-")
        put(d, 2, at: 8)
        out[10] = UInt8(ascii: "T")
        put(secondsOfDay / 3600, 2, at: 11)
        out[13] = UInt8(ascii: ":")
        put(secondsOfDay / 60 % 60, 2, at: 14)
        out[16] = UInt8(ascii: ":")
        put(secondsOfDay % 60, 2, at: 17)
        if fractionDigits > 0 {
            out[19] = UInt8(ascii: ".")
            put(ms, 3, at: 20)
            out[23] = UInt8(ascii: "Z")
        } else {
            out[19] = UInt8(ascii: "Z")
        }
    }

    /// Parses ISO 8601 date-time text: `YYYY-MM-DDTHH:MM:SS` with an optional fraction of any
    /// length and a zone of `Z` or `±HH:MM`/`±HHMM`. Plain dates (`YYYY-MM-DD`) are midnight UTC.
    /// - Parameter text: the text to parse.
    /// - Returns: the date, or `nil` when the text is not such a date or names an impossible
    ///   day or time.
    public static func parseISO8601(_ text: some StringProtocol) -> Date? {
        // Native strings lend their UTF-8 in place; others are copied once.
        if let parsed = text.utf8.withContiguousStorageIfAvailable({ parseISO8601(utf8: $0) }) { return parsed }
        return Array(text.utf8).withUnsafeBufferPointer { parseISO8601(utf8: $0) }
    }

    /// ``parseISO8601(_:)`` over UTF-8 bytes.
    static func parseISO8601(utf8 b: UnsafeBufferPointer<UInt8>) -> Date? {
        // A cursor struct, not nested functions over a captured `var i`: a captured variable
        // is boxed and every access is checked for exclusivity at run time.
        var cursor = ISOCursor(b: b)
        guard let year = cursor.digits(4), cursor.expect(UInt8(ascii: "-")), let month = cursor.digits(2), cursor.expect(UInt8(ascii: "-")),
            let day = cursor.digits(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        var seconds = 0.0
        var offset = 0
        if cursor.i < b.count {
            guard cursor.expect(UInt8(ascii: "T")) || cursor.expect(UInt8(ascii: " ")) else { return nil }
            guard let hh = cursor.digits(2), cursor.expect(UInt8(ascii: ":")), let mm = cursor.digits(2) else { return nil }
            var ss = 0
            if cursor.expect(UInt8(ascii: ":")) {
                guard let s = cursor.digits(2) else { return nil }
                ss = s
            }
            guard hh < 24, mm < 60, ss < 61 else { return nil }
            var fraction = 0.0
            if cursor.expect(UInt8(ascii: ".")) || cursor.expect(UInt8(ascii: ",")) {
                var scale = 0.1
                var any = false
                while cursor.i < b.count, b[cursor.i] >= 48, b[cursor.i] <= 57 {
                    fraction += Double(b[cursor.i] - 48) * scale
                    scale /= 10
                    cursor.i += 1
                    any = true
                }
                guard any else { return nil }
            }
            seconds = Double(hh * 3600 + mm * 60 + ss) + fraction
            if cursor.expect(UInt8(ascii: "Z")) || cursor.expect(UInt8(ascii: "z")) {
            } else if cursor.i < b.count, b[cursor.i] == UInt8(ascii: "+") || b[cursor.i] == UInt8(ascii: "-") {
                let sign = b[cursor.i] == UInt8(ascii: "-") ? -1 : 1
                cursor.i += 1
                guard let oh = cursor.digits(2) else { return nil }
                _ = cursor.expect(UInt8(ascii: ":"))
                guard let om = cursor.digits(2), oh < 24, om < 60 else { return nil }
                offset = sign * (oh * 3600 + om * 60)
            } else if cursor.i < b.count {
                return nil
            }
        }
        guard cursor.i == b.count else { return nil }
        let days = daysFromCivil(year, month, day)
        let unix = Double(days) * 86_400 + seconds - Double(offset)
        return Date(timeIntervalSince1970: unix)
    }

    // MARK: - Calendar arithmetic (proleptic Gregorian, after Howard Hinnant's algorithms)

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ z0: Int64) -> (Int, Int, Int) {
        let z = Int(z0) + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp + (mp < 10 ? 3 : -9)
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    static func floorDivMod(_ a: Int64, _ b: Int64) -> (Int64, Int) {
        var q = a / b
        var r = a % b
        if r < 0 { q -= 1; r += b }
        return (q, Int(r))
    }
}

/// The read position in an ISO 8601 date's bytes.
private struct ISOCursor {
    let b: UnsafeBufferPointer<UInt8>
    var i = 0

    /// Reads exactly `n` decimal digits.
    mutating func digits(_ n: Int) -> Int? {
        guard i + n <= b.count else { return nil }
        var v = 0
        for k in 0..<n {
            let c = b[i + k]
            guard c >= 48, c <= 57 else { return nil }
            v = v * 10 + Int(c - 48)
        }
        i += n
        return v
    }

    /// Consumes `c` when it is next.
    mutating func expect(_ c: UInt8) -> Bool {
        guard i < b.count, b[i] == c else { return false }
        i += 1
        return true
    }
}
