import Foundation
import PFCore
import PFJSON
import PFTestSupport
import Testing

/// nst/JSONTestSuite `test_parsing`: every `y_` accepted, every `n_` rejected, and every
/// `i_` file with the outcome `Docs/JSON.md` documents.
@Suite struct JSONTestSuiteTests {
    static func files(_ prefix: String) -> [URL] {
        Fixtures.files(in: Fixtures.jsonTestSuite, where: { $0.hasPrefix(prefix) && $0.hasSuffix(".json") })
    }

    @Test func corpusIsPresent() {
        #expect(Self.files("y_").count == 95)
        #expect(Self.files("n_").count == 188)
        #expect(Self.files("i_").count == 35)
    }

    @Test func everyYFileIsAccepted() throws {
        for url in Self.files("y_") {
            let error = JSONTest.error(try Fixtures.data(url))
            #expect(error == nil, "\(url.lastPathComponent): \(String(describing: error))")
        }
    }

    static func y(_ name: String) throws -> Data {
        try Fixtures.data(Fixtures.jsonTestSuite.appendingPathComponent(name))
    }

    @Test func formerlyRejectedYFilesReadToTheRightValues() throws {
        // Duplicate keys: the last value wins, at the first key's position, in both modes.
        #expect(try JSONTest.strict.read(try Self.y("y_object_duplicated_key.json")) == ["a": "c"])
        #expect(try JSONTest.strict.read(try Self.y("y_object_duplicated_key_and_value.json")) == ["a": "b"])
        #expect(try JSONTest.lenient.read(try Self.y("y_object_duplicated_key.json")) == ["a": "c"])
        // U+0000 in a key is kept, not truncated.
        let nul = try JSONTest.strict.read(try Self.y("y_object_escaped_null_in_key.json"))
        #expect(nul == ["foo\u{0}bar": 42])
        #expect(nul.dictionaryValue?.keys.first?.utf8.count == 7)
    }

    @Test func rejectDuplicateKeysIsOptIn() throws {
        var options = JSONReader.Options()
        options.rejectDuplicateKeys = true
        for mode in [JSONReader.Mode.strict, .lenient] {
            options.mode = mode
            let error = JSONTest.error(try Self.y("y_object_duplicated_key.json"), JSONReader(options: options))
            #expect(error?.code == .invalidValue)
            #expect(error?.location == PFError.Location(offset: 0, line: 1, column: 1))
        }
    }

    @Test func everyNFileIsRejected() throws {
        for url in Self.files("n_") {
            let error = JSONTest.error(try Fixtures.data(url))
            #expect(error != nil, "\(url.lastPathComponent) was accepted")
            #expect(error?.location != nil, "\(url.lastPathComponent): \(String(describing: error))")
        }
    }

    enum Outcome: Equatable {
        case accept(PFValue)
        case reject(PFError.Code)
    }

    /// The documented outcome of every `i_` file in strict mode (Docs/JSON.md keeps the same table).
    static let implementationDefined: [String: Outcome] = [
        "i_number_double_huge_neg_exp.json": .accept([.double(0)]),
        "i_number_huge_exp.json": .reject(.invalidValue),
        "i_number_neg_int_huge_exp.json": .reject(.invalidValue),
        "i_number_pos_double_huge_exp.json": .reject(.invalidValue),
        "i_number_real_neg_overflow.json": .reject(.invalidValue),
        "i_number_real_pos_overflow.json": .reject(.invalidValue),
        "i_number_real_underflow.json": .accept([.double(0)]),
        "i_number_too_big_neg_int.json": .reject(.invalidValue),
        "i_number_too_big_pos_int.json": .reject(.invalidValue),
        "i_number_very_big_negative_int.json": .reject(.invalidValue),
        "i_object_key_lone_2nd_surrogate.json": .reject(.invalidValue),
        "i_string_1st_surrogate_but_2nd_missing.json": .reject(.invalidValue),
        "i_string_1st_valid_surrogate_2nd_invalid.json": .reject(.invalidValue),
        "i_string_UTF-16LE_with_BOM.json": .reject(.syntax),
        "i_string_UTF-8_invalid_sequence.json": .reject(.syntax),
        "i_string_UTF8_surrogate_U+D800.json": .reject(.syntax),
        "i_string_incomplete_surrogate_and_escape_valid.json": .reject(.invalidValue),
        "i_string_incomplete_surrogate_pair.json": .reject(.invalidValue),
        "i_string_incomplete_surrogates_escape_valid.json": .reject(.invalidValue),
        "i_string_invalid_lonely_surrogate.json": .reject(.invalidValue),
        "i_string_invalid_surrogate.json": .reject(.invalidValue),
        "i_string_invalid_utf-8.json": .reject(.syntax),
        "i_string_inverted_surrogates_U+1D11E.json": .reject(.invalidValue),
        "i_string_iso_latin_1.json": .reject(.syntax),
        "i_string_lone_second_surrogate.json": .reject(.invalidValue),
        "i_string_lone_utf8_continuation_byte.json": .reject(.syntax),
        "i_string_not_in_unicode_range.json": .reject(.syntax),
        "i_string_overlong_sequence_2_bytes.json": .reject(.syntax),
        "i_string_overlong_sequence_6_bytes.json": .reject(.syntax),
        "i_string_overlong_sequence_6_bytes_null.json": .reject(.syntax),
        "i_string_truncated-utf-8.json": .reject(.syntax),
        "i_string_utf16BE_no_BOM.json": .reject(.syntax),
        "i_string_utf16LE_no_BOM.json": .reject(.syntax),
        "i_structure_500_nested_arrays.json": .accept(nested(500)),
        "i_structure_UTF-8_BOM_empty_object.json": .reject(.syntax),
    ]

    static func nested(_ depth: Int) -> PFValue {
        var value: PFValue = .array([])
        for _ in 1..<depth { value = .array([value]) }
        return value
    }

    @Test func everyIFileHasItsDocumentedOutcome() throws {
        let files = Self.files("i_")
        #expect(Set(files.map(\.lastPathComponent)) == Set(Self.implementationDefined.keys))
        for url in files {
            let name = url.lastPathComponent
            let data = try Fixtures.data(url)
            switch Self.implementationDefined[name] {
            case .accept(let expected):
                #expect(try JSONTest.strict.read(data) == expected, "\(name)")
            case .reject(let code):
                let error = JSONTest.error(data)
                #expect(error?.code == code, "\(name): \(String(describing: error))")
                #expect(error?.location != nil, "\(name)")
            case nil:
                Issue.record("no documented outcome for \(name)")
            }
        }
    }

    @Test func lenientModeAcceptsTheUTF8BOMFileAndRepairsInvalidUTF8() throws {
        let bom = try Fixtures.data(Fixtures.jsonTestSuite.appendingPathComponent("i_structure_UTF-8_BOM_empty_object.json"))
        #expect(try JSONTest.lenient.read(bom) == [:])
        let latin = try Fixtures.data(Fixtures.jsonTestSuite.appendingPathComponent("i_string_iso_latin_1.json"))
        #expect(try JSONTest.lenient.read(latin) == ["\u{FFFD}"])
    }
}
