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
}
