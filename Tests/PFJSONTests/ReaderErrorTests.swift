import Foundation
import PFCore
import PFJSON
import Testing

/// Error codes, byte offsets, lines and columns, and key paths for malformed input.
@Suite struct ReaderErrorTests {
    struct Case: Sendable, CustomStringConvertible {
        var text: String
        var code: PFError.Code
        var offset: Int
        var line: Int
        var column: Int
        var description: String { text }
    }

    static let cases: [Case] = [
        Case(text: "", code: .truncated, offset: 0, line: 1, column: 1),
        Case(text: "[1,\n 2,\n x]", code: .syntax, offset: 9, line: 3, column: 2),
        Case(text: "{\"a\": 1,\n\"b\" 2}", code: .syntax, offset: 13, line: 2, column: 5),
        Case(text: "[01]", code: .syntax, offset: 1, line: 1, column: 2),
        Case(text: "[1.]", code: .syntax, offset: 3, line: 1, column: 4),
        Case(text: "[1e]", code: .syntax, offset: 3, line: 1, column: 4),
        Case(text: "[NaN]", code: .syntax, offset: 1, line: 1, column: 2),
        Case(text: "{'a': 1}", code: .syntax, offset: 1, line: 1, column: 2),
        Case(text: "[1,]", code: .syntax, offset: 3, line: 1, column: 4),
        Case(text: "[\"a\tb\"]", code: .syntax, offset: 3, line: 1, column: 4),
        Case(text: "[\"\\x\"]", code: .syntax, offset: 2, line: 1, column: 3),
        Case(text: "[\"\\ud800\"]", code: .invalidValue, offset: 2, line: 1, column: 3),
        Case(text: "\n\n  [18446744073709551616]", code: .invalidValue, offset: 5, line: 3, column: 4),
        Case(text: "[-9223372036854775809]", code: .invalidValue, offset: 1, line: 1, column: 2),
        Case(text: "[1e400]", code: .invalidValue, offset: 1, line: 1, column: 2),
        Case(text: "[1] x", code: .syntax, offset: 4, line: 1, column: 5),
        Case(text: "[1]\u{0}", code: .syntax, offset: 3, line: 1, column: 4),
        Case(text: "[\"abc", code: .truncated, offset: 5, line: 1, column: 6),
        Case(text: "{\"a\":[1,2", code: .truncated, offset: 9, line: 1, column: 10),
        Case(text: "{\"a\\u0000b\": 1, 2}", code: .syntax, offset: 16, line: 1, column: 17),
        Case(text: "[tru]", code: .syntax, offset: 4, line: 1, column: 5),
        Case(text: "/* c */ 1", code: .syntax, offset: 0, line: 1, column: 1),
    ]

    @Test(arguments: cases) func malformedInputReportsWhere(_ c: Case) {
        let error = JSONTest.error(c.text)
        #expect(error?.code == c.code, "\(String(describing: error))")
        #expect(error?.format == .json)
        #expect(error?.location == PFError.Location(offset: c.offset, line: c.line, column: c.column),
                "\(String(describing: error))")
    }

    @Test func invalidUTF8IsRejectedWithItsOffset() {
        let bytes = Data([0x5B, 0x22, 0x61, 0xC0, 0xAF, 0x22, 0x5D])  // ["a<overlong />"]
        let error = JSONTest.error(bytes)
        #expect(error?.code == .syntax)
        #expect(error?.location?.offset == 3)
        #expect(JSONTest.error(Data([0x22, 0xED, 0xA0, 0x80, 0x22]))?.location?.offset == 1)  // surrogate D800
        #expect(JSONTest.error(Data([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22]))?.location?.offset == 1)  // > U+10FFFF
        #expect(JSONTest.error(Data([0x22, 0xE2, 0x82]))?.location?.offset == 1)  // truncated sequence
        #expect(JSONTest.error(Data([0x22, 0xE2, 0x82, 0xAC, 0x22])) == nil)  // "€"
    }

    static var rejectingDuplicates: JSONReader {
        var options = JSONReader.Options()
        options.rejectDuplicateKeys = true
        return JSONReader(options: options)
    }

    @Test func duplicateKeysNameTheObject() throws {
        let text = "{\"list\": [{}, {\"x\": 1,\n \"x\": 2}]}"
        #expect(try JSONTest.read(text) == ["list": [[:], ["x": 2]]])
        let error = JSONTest.error(text, Self.rejectingDuplicates)
        #expect(error?.code == .invalidValue)
        #expect(error?.path == PFKeyPath([.key("list"), .index(1)]))
        #expect(error?.location == PFError.Location(offset: 14, line: 1, column: 15))
    }

    @Test func duplicateKeyPolicies() throws {
        let text = #"{"a": 1, "b": {"c": 1}, "a": {"d": [{"e": 1}]}, "z": {"y": 2}}"#
        let expected: PFValue = ["a": ["d": [["e": 1]]], "b": ["c": 1], "z": ["y": 2]]
        // Default in both modes: the last value wins, at the first key's position.
        #expect(try JSONTest.read(text) == expected)
        #expect(try JSONTest.read(text, JSONTest.lenient) == expected)
        #expect(JSONTest.error(text, Self.rejectingDuplicates)?.code == .invalidValue)
        // A nested dropped object must not confuse later objects.
        let nested = #"[{"a": {"x": {}}, "a": 1}, {"k": 1, "l": 2}]"#
        #expect(try JSONTest.read(nested) == [["a": 1], ["k": 1, "l": 2]])
        let error = JSONTest.error(nested, Self.rejectingDuplicates)
        #expect(error?.path == PFKeyPath([.index(0)]))
        #expect(error?.location?.offset == 1)
        // Unique keys pass the opt-in check, however deep and however many objects.
        #expect(try JSONTest.read(#"[{"a": {"x": {}, "y": {"z": 1}}}, {"k": 1, "l": {}}]"#, Self.rejectingDuplicates)
            == [["a": ["x": [:], "y": ["z": 1]]], ["k": 1, "l": [:]]])
        // The dropped value's position is the first key's, with the last value.
        #expect(try JSONTest.read(#"{"a": 1, "b": 2, "a": 3}"#).dictionaryValue.map { Array($0.keys) } == ["a", "b"])
    }

    @Test func descriptionIsOneLineWithPosition() {
        let error = JSONTest.error("[1,\n 2,\n x]")
        #expect(error?.description == "JSON: unexpected character 'x'; expected a value at line 3, column 2 (byte 9)")
    }

    @Test func everyPositionInALongStringIsChecked() throws {
        // The scanner checks eight bytes at a time; put the interesting byte at every offset.
        for k in 0..<24 {
            let before = String(repeating: "a", count: k)
            let after = String(repeating: "b", count: 24 - k)
            #expect(JSONTest.error("\"" + before + "\u{1}" + after + "\"")?.location?.offset == k + 1, "control at \(k)")
            #expect(try JSONTest.read("\"" + before + "\\\"" + after + "\"") == .string(before + "\"" + after))
            #expect(try JSONTest.read("\"" + before + "é" + after + "\"") == .string(before + "é" + after))
            var bad = Data(("\"" + before).utf8)
            bad.append(0xFF)
            bad.append(contentsOf: Data((after + "\"").utf8))
            #expect(JSONTest.error(bad)?.location?.offset == k + 1, "invalid UTF-8 at \(k)")
            #expect(try JSONTest.read("[\"" + before + "\"," + "\"" + after + "\"]") == [.string(before), .string(after)])
        }
    }
}
