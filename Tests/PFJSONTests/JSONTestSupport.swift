import Foundation
import PFCore
import PFJSON
import Testing

/// Shared helpers for the JSON tests.
enum JSONTest {
    static let strict = JSONReader()
    static let lenient = JSONReader(options: .init(mode: .lenient))

    /// Reads UTF-8 text strictly (or with the given reader).
    static func read(_ text: String, _ reader: JSONReader = strict) throws(PFError) -> PFValue {
        try reader.read(Data(text.utf8))
    }

    /// The error reading `text` throws, or `nil` when it reads.
    static func error(_ text: String, _ reader: JSONReader = strict) -> PFError? {
        error(Data(text.utf8), reader)
    }

    /// The error reading `bytes` throws, or `nil` when it reads.
    static func error(_ bytes: Data, _ reader: JSONReader = strict) -> PFError? {
        do {
            _ = try reader.read(bytes)
            return nil
        } catch {
            return error
        }
    }

    /// Writes and returns the text.
    static func text(_ value: PFValue, _ options: JSONWriter.Options = .init()) throws(PFError) -> String {
        String(decoding: try JSONWriter(options: options).write(value), as: UTF8.self)
    }
}
