import Foundation
import PFCore
import Testing

@testable import PFJSON

/// The pre-scan's word-at-a-time paths (digits, non-ASCII runs, indentation) and its
/// container bookkeeping give the same answers and error offsets as byte-by-byte checks.
@Suite struct ScannerFastPathTests {
    @Test func digitRunsEndAtTheFirstNonDigitWhereverItFalls() throws {
        // The digit check looks at eight bytes at once: put the end of the run, and a
        // near-digit byte, at every offset of a word.
        for k in 1..<20 {
            let digits = String(repeating: "7", count: k)
            #expect(try JSONTest.read("[0." + digits + "]") == [.double(Double("0." + digits) ?? 0)], "\(k)")
            #expect(try JSONTest.read("[1" + String(repeating: "0", count: min(k, 17)) + "]")
                == [.int(Int64("1" + String(repeating: "0", count: min(k, 17))) ?? 0)], "\(k)")
            // Bytes next to '0'…'9' in ASCII (/ and :) and ones sharing a digit's low nibble.
            for bad in ["/", ":", "p", "`", "y"] {
                let text = "[1." + digits + bad + "1]"
                #expect(JSONTest.error(text)?.location?.offset == 3 + k, "\(k) \(bad)")
            }
            var high = Data("[1.".utf8)
            high.append(contentsOf: Data(digits.utf8))
            high.append(0xB5)  // high nibble B, low nibble of a digit
            high.append(contentsOf: Data("]".utf8))
            #expect(JSONTest.error(high)?.location?.offset == 3 + k, "\(k) 0xB5")
        }
        #expect(try JSONTest.read("[-0.000123e2, 0e5, 12.5E-1, 1e+2]") == [-0.0123, 0.0, 1.25, 100.0])
    }

    @Test func integerRangeIsExactAtTheBoundaries() throws {
        #expect(try JSONTest.read("[999999999999999999]") == [.int(999_999_999_999_999_999)])  // 18 digits
        #expect(try JSONTest.read("[9223372036854775807]") == [.int(.max)])
        #expect(try JSONTest.read("[9223372036854775808]") == [.uint(9_223_372_036_854_775_808)])
        #expect(try JSONTest.read("[-9223372036854775808]") == [.int(.min)])
        #expect(try JSONTest.read("[18446744073709551615]") == [.uint(.max)])
        #expect(try JSONTest.read("[-0, 0]") == [.int(0), .int(0)])
        for bad in ["[-9223372036854775809]", "[18446744073709551616]", "[99999999999999999999]",
                    "[100000000000000000000]", "[-18446744073709551615]"] {
            let error = JSONTest.error(bad)
            #expect(error?.code == .invalidValue, "\(bad)")
            #expect(error?.location?.offset == 1, "\(bad)")
        }
        // The same digits with a fraction or an exponent are doubles, whatever their size.
        #expect(try JSONTest.read("[100000000000000000000.0]") == [.double(1e20)])
    }

    @Test func nonASCIIRunsAreValidatedAtEveryOffset() throws {
        for k in 0..<12 {
            let pad = String(repeating: "a", count: k)
            let text = "日本語é😀x"
            #expect(try JSONTest.read("[\"" + pad + text + pad + "\"]") == [.string(pad + text + pad)], "\(k)")
            // A broken sequence inside a run: the error names the same byte as a byte-wise check.
            let cases: [([UInt8], Int)] = [
                ([0xE6, 0x97, 0xA5, 0xE6, 0x97, 0x41], 5),  // third byte missing: at the 'A'
                ([0xE6, 0x97, 0xA5, 0xE6, 0x41], 3),  // second byte wrong: at the lead
                ([0xC3, 0xA9, 0xC3, 0x41], 2),
                ([0xE6, 0x97, 0xA5, 0xED, 0xA0, 0x80], 3),  // surrogate D800
                ([0xE6, 0x97, 0xA5, 0xE0, 0x80, 0x80], 3),  // overlong
                ([0xE6, 0x97, 0xA5, 0xC0, 0xAF], 3),
                ([0xE6, 0x97, 0xA5, 0xF4, 0x90, 0x80, 0x80], 3),  // above U+10FFFF
                ([0xE6, 0x97, 0xA5, 0x80], 3),  // stray continuation
            ]
            for (sequence, at) in cases {
                var bytes = Data(("[\"" + pad).utf8)
                bytes.append(contentsOf: sequence)
                bytes.append(contentsOf: Data("\"]".utf8))
                let error = JSONTest.error(bytes)
                #expect(error?.code == .syntax, "\(k) \(sequence)")
                #expect(error?.location?.offset == 2 + k + at, "\(k) \(sequence)")
            }
            var truncated = Data(("[\"" + pad).utf8)
            truncated.append(contentsOf: [0xE6, 0x97])
            #expect(JSONTest.error(truncated)?.location?.offset == 2 + k, "\(k) truncated")
        }
    }

    @Test func indentationOfAnyWidthIsSkipped() throws {
        for width in 0..<20 {
            let pad = String(repeating: " ", count: width)
            let text = "{\n" + pad + "\"a\": [\n" + pad + pad + "1,\n" + pad + "\t 2\n" + pad + "]\n}\n" + pad
            #expect(try JSONTest.read(text) == ["a": [1, 2]], "\(width)")
            let bad = "[\n" + pad + "x]"
            #expect(JSONTest.error(bad)?.location == PFError.Location(offset: 2 + width, line: 2, column: width + 1), "\(width)")
        }
    }

    /// `true`, `false` and `null` are checked a word at a time: every truncation and every
    /// one-byte change, at the end of the input and inside it, fails at the first byte that
    /// differs, and lenient mode still reads other letter cases.
    @Test func literalsFailAtTheirFirstWrongByte() throws {
        for word in ["true", "false", "null"] {
            let bytes = Array(word.utf8)
            for cut in 1..<bytes.count {
                let prefix = String(decoding: bytes[0..<cut], as: UTF8.self)
                #expect(JSONTest.error(prefix)?.location?.offset == cut, "\(prefix)")
                #expect(JSONTest.error("[" + prefix + "]")?.location?.offset == 1 + cut, "[\(prefix)]")
            }
            for position in 1..<bytes.count {
                var changed = bytes
                changed[position] = UInt8(ascii: "x")
                let text = String(decoding: changed, as: UTF8.self)
                #expect(JSONTest.error("[" + text + "]")?.location?.offset == 1 + position, "\(text)")
                #expect(JSONTest.error(text + "    ")?.location?.offset == position, "\(text)")
            }
            #expect(try JSONTest.read("[" + word + "," + word + "]") == [JSONTest.read(word), JSONTest.read(word)])
            for spelling in [word.uppercased(), word.prefix(1).uppercased() + word.dropFirst(), "[" + word.uppercased() + "]"] {
                let expected = spelling.hasPrefix("[") ? [try JSONTest.read(word)] : try JSONTest.read(word)
                #expect(try JSONTest.read(spelling, JSONTest.lenient) == expected, "\(spelling)")
            }
            #expect(JSONTest.error(word.uppercased()) != nil)
        }
    }

    @Test func everyLayoutAroundTheColonReads() throws {
        for text in [#"{"k":1}"#, #"{"k": 1}"#, #"{"k" :1}"#, #"{"k" : 1}"#, #"{"k":  1}"#, "{\"k\":\n\t1}", #"{"k": "1"}"#] {
            let value = try JSONTest.read(text)
            #expect(value["k"] == 1 || value["k"] == "1", "\(text)")
        }
        #expect(try JSONTest.read("{\"k\": /* c */ 1, \"l\":// c\n2}", JSONTest.lenient) == ["k": 1, "l": 2])
        // A comment right after the colon is an error in strict mode, at the '/'.
        #expect(JSONTest.error(#"{"k": /* c */ 1}"#)?.location?.offset == 6)
        #expect(JSONTest.error(#"{"k":/1}"#)?.location?.offset == 5)
        #expect(JSONTest.error(#"{"k" x}"#)?.location?.offset == 5)
        #expect(JSONTest.error(#"{"k": "#)?.code == .truncated)
        #expect(JSONTest.error(#"{"k":"#)?.location?.offset == 5)
    }

    @Test func memberCountsSurviveNesting() {
        let reader = JSONReader(options: .init(limits: PFLimits(maxCollectionCount: 3)))
        #expect(JSONTest.error("[[1,2,3],{\"a\":[4,5,6],\"b\":{},\"c\":0},7]", reader) == nil)
        // The outer array's count resumes after each inner container closes.
        let error = JSONTest.error("[[1,2,3],[4],{\"a\":1},8]", reader)
        #expect(error?.message.contains("maxCollectionCount") == true)
        #expect(error?.location?.offset == 21)
        #expect(JSONTest.error("{\"a\":[1],\"b\":[[2]],\"c\":{\"d\":3},\"e\":4}", reader)?.location?.offset == 31)
    }

    @Test func deepestNestingIsReported() throws {
        func depth(_ text: String) throws -> Int {
            let bytes = Array(text.utf8)
            return try bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) throws(PFError) -> Int in
                guard let base = buffer.baseAddress else { return -1 }
                var scanner = JSONScanner(bytes: buffer, base: base, options: .init())
                return try scanner.scan().maxDepthSeen
            }
        }
        #expect(try depth("1") == 0)
        #expect(try depth("[]") == 0)  // an empty container is closed without being entered
        #expect(try depth("[1]") == 1)
        #expect(try depth("[[]]") == 1)
        #expect(try depth(#"{"a": [1, {"b": [[2]]}], "c": [3]}"#) == 5)
        #expect(try depth(#"[[[1]], [2], 3]"#) == 3)
        #expect(try depth(String(repeating: "[", count: 512) + String(repeating: "]", count: 512)) == 511)
    }

    @Test func repeatedKeyFinderNamesTheFirstRepeat() {
        func find(_ text: String, slot: Int) -> String? {
            let bytes = Array(text.utf8)
            return bytes.withUnsafeBytes { JSONScanner.repeatedKey(in: $0, options: .init(), slot: slot) }
        }
        let text = #"{"a": {"x": 1, "y": 2, "x": 3}, "b": [{"k": 1, "l": 2, "l": 3, "k": 4}], "a": 0}"#
        #expect(find(text, slot: 0) == "a")
        #expect(find(text, slot: 1) == "x")
        #expect(find(text, slot: 2) == "l")
        #expect(find(text, slot: 3) == nil)
        // Keys compare decoded: an escape and the character it stands for are the same key.
        #expect(find(#"{"\u0061\u0000": 1, "a\u0000": 2}"#, slot: 0) == "a\u{0}")
        #expect(find(#"{"é": 1, "\u00e9": 2}"#, slot: 0) == "é")
        #expect(find(#"{"a": 1, "b": 2}"#, slot: 0) == nil)
        #expect(find("[1,", slot: 0) == nil)  // does not scan
    }
}
