import Foundation
import OrderedCollections
import PFCore
import PFJSON
import Testing

/// The converter's key cache (short keys are reused across objects) never confuses keys.
@Suite struct KeyCacheTests {
    /// Keys of every length 0…20, and of the lengths around 64 (the longest kept), that
    /// differ in one byte at every position, many times over and in many objects, read back
    /// exactly.
    @Test func similarKeysStayDistinct() throws {
        var objects: [PFValue] = []
        for length in Array(0...20) + [24, 40, 63, 64, 65, 70] {
            var members = OrderedDictionary<String, PFValue>()
            let base = Array(repeating: UInt8(ascii: "k"), count: length)
            members[String(decoding: base, as: UTF8.self)] = .int(Int64(length))
            for position in 0..<length {
                for letter in ["a", "é", "z"] {
                    var bytes = base
                    bytes.replaceSubrange(position...position, with: Array(letter.utf8))
                    members[String(decoding: bytes, as: UTF8.self)] = .int(Int64(position))
                }
            }
            objects.append(.dictionary(members))
        }
        let value: PFValue = .array(objects + objects.reversed() + objects)
        let text = try JSONWriter().write(value)
        #expect(try JSONReader().read(text) == value)
        #expect(try JSONReader(options: .init(mode: .lenient)).read(text) == value)
    }

    @Test func keysWithNULAndInvalidUTF8AreNotMixedUpWithCachedKeys() throws {
        #expect(try JSONTest.read(#"[{"ab": 1}, {"a\u0000b": 2}, {"ab": 3, "a\u0000b": 4}]"#)
            == [["ab": 1], ["a\u{0}b": 2], ["ab": 3, "a\u{0}b": 4]])
        var bytes = Data(#"[{"a"#.utf8)
        bytes.append(0xFF)
        bytes.append(contentsOf: Data(#"": 1}, {"a\ufffd": 2}]"#.utf8))
        #expect(try JSONTest.lenient.read(bytes) == [["a\u{FFFD}": 1], ["a\u{FFFD}": 2]])
    }
}
