import Foundation
import PFCore
@testable import PFJSON
import Testing

/// `maxStringBytes` is checked by the pre-scan, at the string's opening quote and with its
/// key path, before json-c builds the string (Docs/Security.md; issue 21: a 500 MB string
/// cost 1.5 GB before it was refused).
@Suite struct StringLimitPreScanTests {
    static func reader(_ maxStringBytes: Int, lenient: Bool = false, parallel: Bool = false) -> JSONReader {
        var options = JSONReader.Options(mode: lenient ? .lenient : .strict, limits: PFLimits(maxStringBytes: maxStringBytes))
        options.parallelThreshold = parallel ? 0 : Int.max
        return JSONReader(options: options)
    }

    /// Documents with one string past a 16-byte limit, its path, and where its quote is.
    static let cases: [(text: String, lenient: Bool, path: PFKeyPath)] = [
        (#"{"a": ["short", "0123456789abcdefX"]}"#, false, [.key("a"), .index(1)]),
        (#"["0123456789abcdefX"]"#, false, [.index(0)]),
        (#""0123456789abcdefX""#, false, .root),
        (#"{"k": {"x": 1, "y": [{}, [], {"z": "0123456789abcdefX"}]}}"#, false, [.key("k"), .key("y"), .index(2), .key("z")]),
        (#"{"a\"b": [1, "0123456789abcdefX"]}"#, false, [.key("a\"b"), .index(1)]),
        (#"{"a\u0000": "0123456789abcdefX"}"#, false, [.key("a\u{0}")]),
        (#"{"caf\u00e9": "0123456789abcdef\u00e9"}"#, false, [.key("café")]),
        // A key past the limit is refused too; the path is its object's.
        (#"{"ok": {"0123456789abcdefX": 1}}"#, false, [.key("ok")]),
        // Lenient: comments with brackets and quotes in them, single quotes, trailing commas.
        ("{/* [\"x\", { */ 'a': [1, // ] \"\n 'it\"s ]', \"0123456789abcdefX\",],}", true, [.key("a"), .index(2)]),
    ]

    @Test(arguments: 0..<cases.count)
    func aStringPastTheLimitIsRefusedAtItsQuoteWithItsPath(_ index: Int) throws {
        let (text, lenient, path) = Self.cases[index]
        let bytes = Data(text.utf8)
        // The offending string is the one holding 'X' (or the é-ended one): its opening quote.
        let marker = text.contains("abcdefX") ? "0123456789abcdefX" : "0123456789abcdef\\u00e9"
        let quote = try #require(text.utf8.indices(of: marker).first).map { $0 - 1 }
        for parallel in [false, true] {
            let error = try #require(JSONTest.error(bytes, Self.reader(16, lenient: lenient, parallel: parallel)), "\(text)")
            #expect(error.code == .limitExceeded && error.message.contains("maxStringBytes (16)"), "\(text): \(error)")
            #expect(error.location?.offset == quote, "\(text): \(error)")
            #expect(error.path == path, "\(text): \(error)")
        }
    }

    @Test func escapesCountAsTheBytesTheyDecodeTo() throws {
        // 8 × "\u00e9" is 48 bytes of text but 16 bytes decoded: within a 16-byte limit.
        let text = "[\"" + String(repeating: #"\u00e9"#, count: 8) + "\"]"
        #expect(try Self.reader(16).read(Data(text.utf8)) == [.string(String(repeating: "é", count: 8))])
        #expect(JSONTest.error(Data(text.utf8), Self.reader(15))?.location?.offset == 1)
    }

    @Test func aHugeStringIsRefusedBeforeJSONCCopiesIt() throws {
        // 64 MiB of string with a 1 MiB limit: refused at its quote (byte 1), so json-c never
        // sees it (json-c's own copy would be refused later, without an offset).
        var bytes = Data("[\"".utf8)
        bytes.append(Data(repeating: UInt8(ascii: "x"), count: 64 << 20))
        bytes.append(Data("\"]".utf8))
        let error = try #require(JSONTest.error(bytes, Self.reader(1 << 20)))
        #expect(error.code == .limitExceeded && error.location?.offset == 1 && error.path == [.index(0)], "\(error)")
    }
}

extension String.UTF8View {
    /// The offsets where `needle` starts.
    func indices(of needle: String) -> [Int] {
        let haystack = Array(self), n = Array(needle.utf8)
        guard n.count <= haystack.count else { return [] }
        return (0...(haystack.count - n.count)).filter { haystack[$0..<($0 + n.count)].elementsEqual(n) }
    }
}
