import Foundation
import PFCore
import PFJSON
import Testing

/// ``JSONReader/Session`` (one tokener and key cache for many documents) reads every document
/// exactly as a fresh ``JSONReader`` does, whatever the documents before it were.
@Suite struct SessionTests {
    /// Documents that share keys, differ in depth, fail, or follow a failure.
    static let documents: [String] = [
        #"{"objectId":"a1","score":1,"tags":["x","y"],"stats":{"kills":2,"ratio":0.5}}"#,
        #"{"objectId":"a2","score":2,"tags":[],"stats":{"kills":3,"ratio":1.5},"extra":null}"#,
        #"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"#,
        #"{"a": [1, 2"#,  // truncated
        #"{"objectId":"a3","score":3}"#,  // after an error, the tokener starts clean
        #"{"a": 1} x"#,  // trailing data
        "42",  // a top-level number, which json-c ends only at the NUL
        #"{"ünïcödé_këy_longer_than_16": "é", "k": "\u00e9"}"#,
        #"{"a\u0000b": 1, "ab": 2}"#,  // a NUL in a key: the stand-in path
        "\u{FEFF}{}",  // a byte order mark: rejected in strict mode
        #"{"dup": 1, "dup": 2}"#,
        #"{"objectId":"a4","score":4,"tags":["z"],"stats":{"kills":5,"ratio":2.5}}"#,
    ]

    static func outcome(_ read: () throws(PFError) -> PFValue) -> String {
        do {
            return "value \(try read())"
        } catch {
            return "error \(error) \(error.path.map { "\($0)" } ?? "")"
        }
    }

    @Test(arguments: [JSONTest.strict, JSONTest.lenient, JSONReader(options: .init(typedValues: false))])
    func agreesWithAFreshReaderOnEveryDocument(_ reader: JSONReader) {
        let session = JSONReader.Session(reader: reader)
        for _ in 0..<3 {
            for text in Self.documents {
                let bytes = Data(text.utf8)
                let expected = Self.outcome { () throws(PFError) in try reader.read(bytes) }
                let got = Self.outcome { () throws(PFError) in try session.read(bytes) }
                #expect(got == expected, "\(text)")
            }
        }
    }

    /// A key with U+0000 is rebuilt with a stand-in noncharacter that differs between
    /// documents; a key cached in one document must not answer for another's bytes.
    @Test func nulStandInsDoNotLeakBetweenDocuments() throws {
        // Swift literals cannot spell noncharacters.
        let fdd0 = String(decoding: [0xEF, 0xB7, 0x90], as: UTF8.self)
        let fdd1 = String(decoding: [0xEF, 0xB7, 0x91], as: UTF8.self)
        let session = JSONReader.Session()
        // The first document's keys use U+FDD0, so its NUL stand-in is U+FDD1.
        let first = try session.read(Data(#"{"\ufdd0": 1, "a\u0000": 2}"#.utf8))
        #expect(first == [fdd0: 1, "a\u{0}": 2])
        // The second has a real U+FDD1 in a key, with no NUL anywhere.
        let second = try session.read(Data("{\"a\(fdd1)\": 3}".utf8))
        #expect(second == ["a" + fdd1: 3])
        let third = try session.read(Data(#"{"a\u0000": 4, "\ufdd0": 5}"#.utf8))
        #expect(third == ["a\u{0}": 4, fdd0: 5])
    }

    /// Many documents of the same shape, with random short keys, read back exactly.
    @Test func randomKeysAcrossManyDocuments() throws {
        var generator = SystemRandomNumberGenerator()
        let session = JSONReader.Session()
        let alphabet = Array("abcdefgh_é1")
        for _ in 0..<200 {
            var members: [(String, PFValue)] = []
            var seen: Set<String> = []
            for _ in 0..<Int.random(in: 0...20, using: &generator) {
                let key = String((0..<Int.random(in: 0...18, using: &generator)).map { _ in alphabet.randomElement(using: &generator) ?? "a" })
                guard seen.insert(key).inserted else { continue }
                members.append((key, .int(Int64(members.count))))
            }
            let value = PFValue.dictionary(.init(uniqueKeysWithValues: members))
            let text = try JSONWriter().write(value)
            #expect(try session.read(text) == value)
        }
    }
}
