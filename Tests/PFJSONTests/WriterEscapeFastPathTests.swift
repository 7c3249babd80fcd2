import Foundation
import PFCore
import PFJSON
import Testing

/// The writer skips eight plain bytes at a time; every character that needs an escape must be
/// found at every position within and across those words.
@Suite struct WriterEscapeFastPathTests {
    @Test(arguments: ["\"", "\\", "\n", "\u{0}", "\u{1F}", "é", "😀", "/"])
    func escapesAreFoundAtEveryOffset(special: String) throws {
        for length in 0..<20 {
            for position in 0...length {
                var text = String(repeating: "a", count: length)
                text.insert(contentsOf: special, at: text.index(text.startIndex, offsetBy: position))
                let value: PFValue = [.string(text), ["k\(text)": .string(text)]]
                for escapeSlashes in [false, true] {
                    let bytes = try JSONWriter(options: .init(escapeSlashes: escapeSlashes)).write(value)
                    #expect(try JSONReader().read(bytes) == value, "\(length) \(position) \(special.debugDescription)")
                    let parsed = try JSONSerialization.jsonObject(with: bytes) as? [Any]
                    #expect(parsed?.first as? String == text)
                }
            }
        }
    }

    /// Integers are written as Swift spells them in decimal, at every digit count and sign.
    @Test func integersAreTheirDecimalText() throws {
        var values: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, .max, .min, .max - 1, .min + 1]
        var power: Int64 = 1
        for _ in 0..<18 {
            power *= 10
            values += [power - 1, power, power + 1, -power, -(power - 1)]
        }
        var rng = SystemRandomNumberGenerator()
        values += (0..<200).map { _ in Int64.random(in: .min ... .max, using: &rng) >> Int64.random(in: 0..<63, using: &rng) }
        for value in values {
            #expect(try JSONWriter().write(PFValue.int(value)) == Data(String(value).utf8), "\(value)")
            var out: [UInt8] = [0x2A]
            JSONText.appendInteger(value, to: &out)
            #expect(out == [0x2A] + Array(String(value).utf8), "\(value)")
        }
        for value: UInt64 in [0, 9, 10, .max, .max - 1, UInt64(Int64.max) + 1] {
            var out: [UInt8] = []
            JSONText.appendUnsigned(value, to: &out)
            #expect(out == Array(String(value).utf8), "\(value)")
        }
    }
}
