import Foundation
import PFCore
import PropertyBased
import Testing

@Suite struct PFBase64Tests {
    @Test func encodesLikeFoundation() {
        var rng = Xoshiro(seed: (9, 8, 7, 6))
        for count in 0..<70 {
            let bytes = Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) })
            #expect(PFBase64.encode(bytes) == bytes.base64EncodedString())
            #expect(PFBase64.decode(bytes.base64EncodedString(), ignoringWhitespace: false) == bytes)
        }
    }

    @Test func wrapsLines() {
        let bytes = Data(repeating: 0x78, count: 10)
        #expect(PFBase64.encode(bytes, lineLength: 8) == "eHh4eHh4\neHh4eA==")
    }

    @Test func decodesStrictly() throws {
        #expect(PFBase64.decode("QQ==", ignoringWhitespace: false) == Data("A".utf8))
        #expect(PFBase64.decode("QQ", ignoringWhitespace: false) == Data("A".utf8))
        #expect(PFBase64.decode("QUI=", ignoringWhitespace: false) == Data("AB".utf8))
        #expect(PFBase64.decode(" Q U\n\tI =\r\n", ignoringWhitespace: true) == Data("AB".utf8))
        #expect(PFBase64.decode("QU I=", ignoringWhitespace: false) == nil)
        #expect(PFBase64.decode("QUI$", ignoringWhitespace: true) == nil)
        #expect(PFBase64.decode("Q", ignoringWhitespace: true) == nil)
        #expect(PFBase64.decode("Q===", ignoringWhitespace: true) == nil)
        #expect(PFBase64.decode("QQ=", ignoringWhitespace: true) == nil)
        #expect(PFBase64.decode("QQ==QQ==", ignoringWhitespace: true) == nil)
        #expect(PFBase64.decode("", ignoringWhitespace: true) == Data())
    }

    @Test func failureNamesTheOffset() {
        let text = Array("AAAA\nAB-D".utf8)
        _ = text.withUnsafeBytes { raw in
            #expect(throws: PFBase64.Failure(offset: 7, reason: "invalid character '-'")) {
                try PFBase64.decode(raw, ignoringWhitespace: true)
            }
        }
    }
}
