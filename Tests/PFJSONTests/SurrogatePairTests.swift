import Foundation
import PFCore
import Testing

@testable import PFJSON

/// json-c 0.16 decodes an escaped surrogate pair as U+FFFD whenever the character's low 16
/// bits are D800…DFFF (U+1D800…U+1DFFF, U+2D800…U+2DFFF of CJK Extension F, …); FuzzJSON
/// found it as a disagreement between the node view (which decodes escapes itself) and the
/// reader. The reader hands json-c those pairs as raw UTF-8, so every path reads them right.
@Suite struct SurrogatePairTests {
    /// The escape of a supplementary character, `\uD876\uDC00` for U+2D800.
    static func escape(_ scalar: UInt32) -> String {
        let v = scalar - 0x10000
        return String(format: "\\u%04X\\u%04X", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF))
    }

    static func string(_ scalar: UInt32) -> String {
        String(Character(Unicode.Scalar(scalar)!))
    }

    /// Every plane's mangled range at its edges, and characters json-c gets right beside them.
    static let scalars: [UInt32] = [
        0x1D7FF, 0x1D800, 0x1D8E6, 0x1DFFF, 0x1E000, 0x2D800, 0x2DC00, 0x2DFFF, 0x5D800,
        0x10D800, 0x10DFFF, 0x10FFFF, 0x1F600, 0x10000,
    ]

    @Test(arguments: scalars)
    func everyPathReadsTheCharacter(_ scalar: UInt32) throws {
        let escaped = Self.escape(scalar)
        let text = "{\"k\(escaped)\": [\"a\(escaped)b\", \"\(escaped)\"], \"plain\": \"x\\u00e9\(escaped)\"}"
        let c = Self.string(scalar)
        let expected: PFValue = .dictionary(["k" + c: [.string("a" + c + "b"), .string(c)], "plain": .string("xé" + c)])
        let bytes = Data(text.utf8)
        for mode in [JSONReader.Mode.strict, .lenient] {
            var options = JSONReader.Options(mode: mode)
            #expect(try JSONReader(options: options).read(bytes) == expected, "\(mode)")
            #expect(try JSONReader.Session(reader: JSONReader(options: options)).read(bytes) == expected, "\(mode) session")
            #expect(try JSONReader(options: options).withDocument(bytes) { root throws(PFError) in try root.value() } == expected)
            // Escapes in values only: the native engine's tape decodes them itself.
            let values = Data("[\"a\(escaped)b\", {\"plain\": \"\(escaped)\"}]".utf8)
            #expect(try JSONReader(options: options).read(values) == [.string("a" + c + "b"), ["plain": .string(c)]], "\(mode) values")
            options.parallelThreshold = 0
            options.engine = .jsonC
            #expect(try JSONReader(options: options).read(bytes) == expected, "\(mode) parallel")
        }
    }

    /// The case FuzzJSON found: an escape that ends two bytes before the pair.
    @Test func theFuzzFinding() throws {
        let bytes = Data(#"["\u83fals\ud836\udc8d"]"#.utf8)
        #expect(try JSONReader().read(bytes) == ["\u{83FA}ls\u{1D88D}"])
        NodeViewTests.expectAgreement(bytes, JSONReader(), "fuzz finding")
    }

    /// Mangled pairs beside a U+0000 key: one copy carries both rewrites.
    @Test func besideAKeyWithU0000() throws {
        let pair = Self.escape(0x2D800)
        let bytes = Data("{\"a\\u0000\(pair)\": \"\(pair)\", \"a\": 1}".utf8)
        let c = Self.string(0x2D800)
        #expect(try JSONReader().read(bytes) == .dictionary(["a\u{0}" + c: .string(c), "a": 1]))
    }

    /// An escaped backslash before `u` is no escape, and stays as it is.
    @Test func escapedBackslashesAreNotRewritten() throws {
        let bytes = Data(#"["\\ud876\\udc00", "\\\ud876\udc00"]"#.utf8)
        #expect(try JSONReader().read(bytes) == [#"\ud876\udc00"#, .string("\\" + Self.string(0x2D800))])
    }

    /// The rewrite shortens the copy json-c reads; json-c's own errors (lenient mode) still
    /// name the original offset, the same as for a pair json-c decodes right.
    @Test func jsonCErrorsKeepTheirOffsets() throws {
        let tail = "[-10000000000021370.113,700013-72000000000000211185.113,781E3]"
        let mangled = Data("[\"\(Self.escape(0x2D800))\", \(tail)]".utf8)
        let plain = Data("[\"\(Self.escape(0x1F600))\", \(tail)]".utf8)
        let lenient = JSONReader(options: .init(mode: .lenient))
        let a = Result { () throws(PFError) -> PFValue in try lenient.read(mangled) }
        let b = Result { () throws(PFError) -> PFValue in try lenient.read(plain) }
        switch (a, b) {
        case (.failure(let x), .failure(let y)):
            #expect(x.location == y.location)
            #expect(x.code == y.code)
        case (.success, .success):
            break  // json-c accepts it on this build: nothing to place
        default:
            Issue.record("the two documents must have the same outcome: \(a) vs \(b)")
        }
    }

    @Test func theRewriteRecordsWhereItShortened() {
        var shortened: [(at: Int, removed: Int)] = []
        let text = Array("[\"\(Self.escape(0x2D800))\",\"\(Self.escape(0x1D800))\"]".utf8)
        let out = JSONReader.rawMangledPairs(text, shortened: &shortened)
        #expect(String(decoding: out, as: UTF8.self) == "[\"\(Self.string(0x2D800))\",\"\(Self.string(0x1D800))\"]")
        #expect(shortened.map(\.removed) == [8, 16])
        #expect(shortened.map(\.at) == [6, 13])
    }
}
