import Foundation
import PFCore
import PFJSON
import Testing

/// Lenient mode: json-c's sloppy extensions, with pfarchive's safety checks kept.
@Suite struct LenientModeTests {
    @Test func acceptsCommentsTrailingCommasQuotesAndNonFiniteNumbers() throws {
        let text = """
            // a line comment
            { /* block */ 'single': 'quoted', "list": [1, 2, 3,], "nan": NaN, "inf": Infinity,
              "minus": -Infinity, "trailing": {"x": true,}, }
            """
        let value = try JSONTest.read(text, JSONTest.lenient)
        #expect(value["single"] == "quoted")
        #expect(value["list"] == [1, 2, 3])
        #expect(value["nan"]?.doubleValue?.isNaN == true)
        #expect(value["inf"] == .double(.infinity))
        #expect(value["minus"] == .double(-.infinity))
        #expect(value["trailing"] == ["x": true])
        // Each of these is an error in strict mode.
        #expect(JSONTest.error(text)?.code == .syntax)
    }

    @Test func skipsTheByteOrderMarkAndRepairsText() throws {
        var bytes = Data([0xEF, 0xBB, 0xBF])
        bytes.append(contentsOf: Array(#"{"k": "a"#.utf8) + [0xFF] + Array(#"b\ud800c"}"#.utf8))
        let value = try JSONTest.lenient.read(bytes)
        #expect(value == ["k": "a\u{FFFD}b\u{FFFD}c"])
        #expect(JSONTest.error(bytes)?.code == .syntax)
    }

    @Test func keepsLimitsAndRangeChecks() throws {
        #expect(JSONTest.error("[99999999999999999999]", JSONTest.lenient)?.code == .invalidValue)
        #expect(JSONTest.error("[-012]", JSONTest.lenient) == nil)
        #expect(JSONTest.error("[1e999]", JSONTest.lenient)?.code == .invalidValue)
        #expect(try JSONTest.read(#"{"a\u0000": 1, 'a\u0000': 2, "a": 3}"#, JSONTest.lenient) == ["a\u{0}": 2, "a": 3])
        let error = JSONTest.error("/* open", JSONTest.lenient)
        #expect(error?.code == .truncated)
        #expect(error?.location?.offset == 7)
        let shallow = JSONReader(options: .init(mode: .lenient, limits: PFLimits(maxDepth: 3)))
        #expect(JSONTest.error("[[[[1]]]]", shallow)?.location?.offset == 3)
    }

    @Test func rawControlCharactersAreAllowedButNotNUL() throws {
        #expect(try JSONTest.read("[\"a\tb\"]", JSONTest.lenient) == ["a\tb"])
        #expect(JSONTest.error(Data([0x5B, 0x22, 0x00, 0x22, 0x5D]), JSONTest.lenient)?.location?.offset == 2)
    }
}
