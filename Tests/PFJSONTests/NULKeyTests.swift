import Foundation
import PFCore
import PFJSON
import Testing

/// Object keys holding U+0000 (`\u0000`) are kept whole, although json-c keeps keys as C
/// strings: see `Docs/JSON.md`, "Keys with U+0000".
@Suite struct NULKeyTests {
    static var rejectingDuplicates: JSONReader {
        var options = JSONReader.Options()
        options.rejectDuplicateKeys = true
        return JSONReader(options: options)
    }

    @Test func keysWithNULAreKept() throws {
        #expect(try JSONTest.read(#"{"foo\u0000bar": 42}"#) == ["foo\u{0}bar": 42])
        #expect(try JSONTest.read(#"{"\u0000": 1, "": 2}"#) == ["\u{0}": 1, "": 2])
        #expect(try JSONTest.read(#"[{"a\u0000\u0000": {"b\u0000": [1]}}]"#) == [["a\u{0}\u{0}": ["b\u{0}": [1]]]])
        // Values keep their NUL too, and a NUL in a value alone needs nothing special.
        #expect(try JSONTest.read(#"{"k\u0000": "v\u0000"}"#) == ["k\u{0}": "v\u{0}"])
        #expect(try JSONTest.read(#"{"é\u0000😀": 1}"#) == ["é\u{0}😀": 1])
    }

    @Test func truncationWouldCollideButKeysStayDistinct() throws {
        // json-c alone would cut "a\u0000b" to "a" and merge it with "a".
        #expect(try JSONTest.read(#"{"a\u0000b": 1, "a": 2}"#) == ["a\u{0}b": 1, "a": 2])
        #expect(try JSONTest.read(#"{"a": 1, "a\u0000b": 2}"#) == ["a": 1, "a\u{0}b": 2])
        #expect(try JSONTest.read(#"{"a": 1, "a\u0000b": 2, "a\u0000c": 3}"#) == ["a": 1, "a\u{0}b": 2, "a\u{0}c": 3])
        let keys = try JSONTest.read(#"{"a\u0000b": 1, "a": 2}"#).dictionaryValue.map { Array($0.keys) }
        #expect(keys == ["a\u{0}b", "a"])
        // Distinct keys pass the opt-in duplicate check.
        #expect(try JSONTest.read(#"{"a\u0000b": 1, "a": 2}"#, Self.rejectingDuplicates) == ["a\u{0}b": 1, "a": 2])
    }

    @Test func realDuplicatesWithNULFollowThePolicy() throws {
        let text = #"{"a\u0000b": 1, "a": 2, "a\u0000b": 3}"#
        #expect(try JSONTest.read(text) == ["a\u{0}b": 3, "a": 2])
        let error = JSONTest.error(#"{"x": [{"a\u0000b": 1, "a\u0000b": 2}]}"#, Self.rejectingDuplicates)
        #expect(error?.code == .invalidValue)
        #expect(error?.path == PFKeyPath([.key("x"), .index(0)]))
        #expect(error?.location?.offset == 7)
    }

    @Test func errorsUnderANULKeyNameIt() {
        let strings = JSONReader(options: .init(limits: PFLimits(maxStringBytes: 2)))
        let error = JSONTest.error(#"{"a\u0000": "long"}"#, strings)
        #expect(error?.code == .limitExceeded)
        #expect(error?.path == PFKeyPath([.key("a\u{0}")]))
    }

    @Test func theStandInNeverMeetsARealKey() throws {
        // U+FDD0 is the first stand-in; a document already using it in a key gets another.
        let fdd0 = String(Character(Unicode.Scalar(0xFDD0)!))
        let fdd1 = String(Character(Unicode.Scalar(0xFDD1)!))
        #expect(try JSONTest.read(#"{"\uFDD0": 1, "\u0000": 2}"#) == [fdd0: 1, "\u{0}": 2])
        #expect(try JSONTest.read("{\"" + fdd0 + "\": 1, \"\\u0000\": 2, \"\\ufdd1\": 3}") == [fdd0: 1, "\u{0}": 2, fdd1: 3])
        // Noncharacters in values do not matter.
        #expect(try JSONTest.read(#"{"\u0000": "\uFDD0"}"#) == ["\u{0}": .string(fdd0)])
        // All 32 used in keys: a clear error at the first NUL escape.
        var members = (0..<32).map { "\"\\u\(String(0xFDD0 + $0, radix: 16))\": \($0)" }
        members.append(#""x\u0000": 1"#)
        let text = "{" + members.joined(separator: ", ") + "}"
        let error = JSONTest.error(text)
        #expect(error?.code == .unsupported)
        #expect(error?.location?.offset == text.utf8.count - 11)
        #expect(error?.location?.line == 1)
    }

    @Test func lenientModeKeepsThemToo() throws {
        #expect(try JSONTest.read(#"{'a\u0000b': 1, /* c */ "a": 2,}"#, JSONTest.lenient) == ["a\u{0}b": 1, "a": 2])
    }

    @Test func keysWithNULRoundTrip() throws {
        let value: PFValue = ["a\u{0}b": ["\u{0}": [1, "x\u{0}"]], "a": 2]
        let text = try JSONTest.text(value)
        #expect(text == #"{"a\u0000b":{"\u0000":[1,"x\u0000"]},"a":2}"#)
        #expect(try JSONTest.read(text) == value)
        #expect(try JSONTest.read(try JSONTest.text(value, .init(pretty: true))) == value)
    }

    @Test func canonicallyEquivalentKeysDoNotBreakTheDictionary() throws {
        // Distinct bytes for json-c, equal Swift strings: one entry, the last value.
        let value = try JSONTest.read("{\"\u{E9}\": 1, \"e\u{301}\": 2}")
        #expect(value.dictionaryValue?.count == 1)
        #expect(value == ["\u{E9}": 2])
        let error = JSONTest.error("[{\"\u{E9}\": 1, \"e\u{301}\": 2}]", Self.rejectingDuplicates)
        #expect(error?.code == .invalidValue)
        #expect(error?.path == PFKeyPath([.index(0)]))
        #expect(error?.location?.offset == 1)
    }
}
