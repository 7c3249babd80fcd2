import Foundation
import PFCore
import PFTestSupport
import PropertyBased
import Testing

@Suite struct PFValueTests {
    @Test func integersCompareByValueAcrossSignedness() {
        #expect(PFValue.int(5) == PFValue.uint(5))
        #expect(PFValue.int(-1) != PFValue.uint(UInt64.max))
        #expect(PFValue.integer(UInt64.max) == .uint(UInt64.max))
        #expect(PFValue.integer(UInt64(7)) == .int(7))
        #expect(Set([PFValue.int(5), PFValue.uint(5)]).count == 1)
    }

    @Test func doublesKeepNegativeZeroAndEqualNaN() {
        #expect(PFValue.double(.nan) == PFValue.double(-.nan))
        #expect(PFValue.double(0.0) != PFValue.double(-0.0))
        #expect(PFValue.double(1) != PFValue.int(1))
    }

    @Test func dictionariesCompareKeyOrder() {
        let a: PFValue = ["x": 1, "y": 2]
        let b: PFValue = ["y": 2, "x": 1]
        #expect(a != b)
        #expect(a == ["x": 1, "y": 2])
    }

    @Test func keyPathLookup() throws {
        let v: PFValue = ["results": [["score": 1], ["score": 2], ["score": 3], ["score": 42]], "a": ["b": ["c": "deep"]]]
        #expect(try v.value(atPath: "results[3].score") == 42)
        #expect(try v.value(atPath: "a.b.c") == "deep")
        #expect(try v.value(atPath: "a.x") == nil)
        #expect(try v.value(atPath: "results[9]") == nil)
        #expect(try v.value(atPath: "") == v)
    }

    @Test func keyPathQuotedKeysRoundTripThroughText() throws {
        let path: PFKeyPath = [.key("meta"), .key("a.b"), .index(2), .key("plain")]
        #expect(path.description == #"meta["a.b"][2].plain"#)
        #expect(try PFKeyPath(parsing: path.description) == path)
    }

    @Test(arguments: ["a..b", "a[", "a[x]", ".a", "a.", "a]b", #"a["x"#])
    func malformedKeyPathsThrowUsage(text: String) {
        #expect(throws: PFError.self) { try PFKeyPath(parsing: text) }
        do { _ = try PFKeyPath(parsing: text) } catch { #expect(error.code == .usage) }
    }

    @Test func codingPathBuildsKeyPathOutermostFirst() {
        let node = PFCodingPath.root.appending(key: "results").appending(index: 3).appending(key: "score")
        #expect(node.keyPath.description == "results[3].score")
    }

    @Test func treeDescriptionLooksLikePlutil() {
        let v: PFValue = ["name": "x", "list": [1, true], "empty": [:]]
        #expect(v.description == """
            {
              "name" => "x"
              "list" => [
                0 => 1
                1 => true
              ]
              "empty" => {
              }
            }
            """)
    }

    @Test func isoDatesRoundTripAtMillisecondPrecision() throws {
        let text = "2011-06-10T18:33:42.123Z"
        let date = try #require(PFDateFormat.parseISO8601(text))
        #expect(PFDateFormat.iso8601Milliseconds(date) == text)
        #expect(PFDateFormat.iso8601Milliseconds(Date(timeIntervalSince1970: -1.5)) == "1969-12-31T23:59:58.500Z")
        #expect(PFDateFormat.parseISO8601("2011-02-30T00:00:00Z") == nil)
        #expect(PFDateFormat.parseISO8601("2011-06-10T18:33:42+02:00") == Date(timeIntervalSince1970: 1_307_730_822 - 7200))
    }

    @Test func isoDatesAreZeroPaddedAtTheEdgesOfTheirRange() {
        // The first and last seconds of years 0–9999, with and without milliseconds (year 0 as
        // Core Foundation writes NSDate.distantPast, 0000-12-30).
        #expect(PFDateFormat.iso8601Seconds(Date(timeIntervalSince1970: -62_167_219_200)) == "0000-01-01T00:00:00Z")
        #expect(PFDateFormat.iso8601Seconds(Date(timeIntervalSince1970: -62_167_219_200.5)) == nil)
        #expect(PFDateFormat.iso8601Seconds(.distantPast) == "0000-12-30T00:00:00Z")
        #expect(PFDateFormat.parseISO8601("0000-12-30T00:00:00Z") == .distantPast)
        #expect(PFDateFormat.iso8601Seconds(Date(timeIntervalSince1970: -62_135_596_799)) == "0001-01-01T00:00:01Z")
        #expect(PFDateFormat.iso8601Milliseconds(Date(timeIntervalSince1970: -62_135_596_799.993)) == "0001-01-01T00:00:00.007Z")
        #expect(PFDateFormat.iso8601Milliseconds(Date(timeIntervalSince1970: 253_402_300_799.5)) == "9999-12-31T23:59:59.500Z")
        #expect(PFDateFormat.iso8601Seconds(Date(timeIntervalSince1970: 253_402_300_799.5)) == "9999-12-31T23:59:59Z")
        #expect(PFDateFormat.iso8601Seconds(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(PFDateFormat.iso8601Milliseconds(Date(timeIntervalSince1970: 253_402_300_800)) == nil)
        #expect(PFDateFormat.iso8601Milliseconds(Date(timeIntervalSince1970: .nan)) == nil)
    }

    /// Dates written in place (no string) rounded to the nearest millisecond: the whole
    /// seconds of the rounded time (the truncating seconds formatter) and its milliseconds, for
    /// random dates over the whole range and at its edges.
    @Test func roundedMillisecondsAreWrittenInPlaceAsBefore() {
        func before(_ date: Date) -> String? {
            let millis = (date.timeIntervalSince1970 * 1000).rounded()
            guard millis.isFinite, millis >= -62_167_219_200_000, millis <= 253_402_300_799_999 else { return nil }
            let seconds = (millis / 1000).rounded(.down)
            // (Half a second in: the seconds formatter truncates, and its range starts after the first second.)
            guard let whole = PFDateFormat.iso8601Seconds(Date(timeIntervalSince1970: seconds + 0.5)) else { return nil }
            let ms = Int(millis - seconds * 1000)
            return whole.dropLast() + "." + String(repeating: "0", count: 3 - String(ms).count) + String(ms) + "Z"
        }
        var generator = SystemRandomNumberGenerator()
        var dates = (0 ..< 20_000).map { _ in Date(timeIntervalSince1970: Double.random(in: -63e9 ... 254e9, using: &generator)) }
        dates += (0 ..< 20_000).map { _ in Date(timeIntervalSince1970: Double.random(in: -2e9 ... 2e9, using: &generator)) }
        for edge in [-62_167_219_200.0, -62_135_596_800, 253_402_300_800, 0, -0.0005, 0.0005] {
            for delta in [-0.001, -0.0006, -0.0005, -0.0004, 0, 0.0004, 0.0005, 0.0006, 0.001] {
                dates.append(Date(timeIntervalSince1970: edge + delta))
            }
        }
        dates += [.distantPast, .distantFuture, Date(timeIntervalSince1970: .nan), Date(timeIntervalSince1970: .infinity)]
        for date in dates {
            let expected = before(date)
            #expect(PFDateFormat.roundedMilliseconds(date) == expected, "\(date.timeIntervalSince1970)")
            var buffer = [UInt8](repeating: 0xFF, count: PFDateFormat.roundedMillisecondsLength)
            let written = buffer.withUnsafeMutableBufferPointer { PFDateFormat.writeRoundedMilliseconds(date, into: $0.baseAddress!) }
            #expect(written == (expected != nil))
            if let expected { #expect(String(decoding: buffer, as: UTF8.self) == expected) } else { #expect(buffer.allSatisfy { $0 == 0xFF }) }
        }
        #expect(PFDateFormat.roundedMilliseconds(Date(timeIntervalSince1970: -62_135_596_800)) == "0001-01-01T00:00:00.000Z")
        #expect(PFDateFormat.roundedMilliseconds(Date(timeIntervalSince1970: -62_167_219_200.0004)) == "0000-01-01T00:00:00.000Z")
        #expect(PFDateFormat.roundedMilliseconds(Date(timeIntervalSince1970: -62_167_219_200.0006)) == nil)
        #expect(PFDateFormat.roundedMilliseconds(Date(timeIntervalSince1970: 253_402_300_799.9994)) == "9999-12-31T23:59:59.999Z")
        #expect(PFDateFormat.roundedMilliseconds(Date(timeIntervalSince1970: 253_402_300_799.9996)) == nil)
    }

    @Test func generatedTreesEqualThemselves() async {
        await propertyCheck(count: 50, input: ValueGen.tree()) { value in
            #expect(value == value)
        }
    }
}

/// SQL quoting doubles quotes scalar by scalar (`String.doublingEvery(_:)`).
@Suite struct DoublingTests {
    @Test func aQuoteFollowedByACombiningMarkIsDoubled() {
        // Built outside `#expect`: the macro's expansion mangles such a literal.
        let quoted = "a\"\u{301}b", doubled = "a\"\"\u{301}b"
        let apostrophes = "x'\u{301}y''", doubledApostrophes = "x''\u{301}y''''"
        #expect(quoted.doublingEvery("\"") == doubled)
        #expect(apostrophes.doublingEvery("'") == doubledApostrophes)
        #expect("plain".doublingEvery("\"") == "plain")
        #expect("\"".doublingEvery("\"") == "\"\"")
        // Character-wise replacement misses it: why the helper exists.
        let characterWise = quoted.replacingOccurrences(of: "\"", with: "\"\"")
        #expect(characterWise == quoted)
    }
}
