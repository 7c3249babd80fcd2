import Foundation
import PFCore
import PFJSON
import PFTestSupport
import Testing

/// Every `json_*` file of the hostile corpus gets the outcome `MANIFEST.md` names.
@Suite struct HostileInputTests {
    static func file(_ name: String) throws -> Data {
        try Fixtures.data(Fixtures.hostile.appendingPathComponent(name))
    }

    /// Every JSON file in the corpus is an attack the reader must refuse cleanly, or (`nil`)
    /// read correctly.
    static let expectations: [String: PFError.Code?] = [
        "json_deep_arrays_1m_unclosed.json": .limitExceeded,
        "json_deep_arrays_500k_closed.json": .limitExceeded,
        "json_deep_objects_100k.json": .limitExceeded,
        "json_number_1mb_digits.json": .limitExceeded,  // maxNumberLength
        "json_exponent_huge.json": .invalidValue,  // 1e999999999999999999 overflows a double
        "json_uint64_overflow.json": .invalidValue,  // never silent saturation
        "json_duplicate_keys_50k.json": nil,  // last value wins, in linear time
        "json_nul_escape_in_key.json": nil,  // keys "a\0b" and "a" kept distinct
        "json_embedded_nul_then_value.json": .syntax,
        "json_lone_surrogate_key.json": .invalidValue,
        "json_overlong_utf8.json": .syntax,
        "json_surrogate_utf8.json": .syntax,
    ]

    @Test func everyJSONFileHasItsManifestOutcome() throws {
        let names = Fixtures.files(in: Fixtures.hostile, where: { $0.hasPrefix("json_") }).map(\.lastPathComponent)
        #expect(Set(names) == Set(Self.expectations.keys))
        for name in names {
            let data = try Self.file(name)
            let error = JSONTest.error(data)
            guard let expected = Self.expectations[name] else {
                Issue.record("\(name) has no expectation")
                continue
            }
            #expect(error?.code == expected, "\(name): \(String(describing: error))")
            if expected != nil { #expect(error?.location?.line != nil, "\(name) has no position") }
        }
    }

    @Test func deepNestingFailsAtTheLimitPosition() throws {
        let error = JSONTest.error(try Self.file("json_deep_arrays_1m_unclosed.json"))
        #expect(error?.code == .limitExceeded)
        #expect(error?.location?.offset == 512)  // the 513th '['
        let shallow = JSONReader(options: .init(limits: PFLimits(maxDepth: 10)))
        #expect(JSONTest.error(String(repeating: "[", count: 11) + String(repeating: "]", count: 11), shallow)?.location?.offset == 10)
        #expect(throws: Never.self) { try JSONTest.read(String(repeating: "[", count: 10) + String(repeating: "]", count: 10), shallow) }
    }

    @Test func duplicateKeysAreLinearAndLastWins() throws {
        let data = try Self.file("json_duplicate_keys_50k.json")
        #expect(try JSONTest.strict.read(data) == ["a": 49_999])
        #expect(try JSONTest.lenient.read(data) == ["a": 49_999])
        var options = JSONReader.Options()
        options.rejectDuplicateKeys = true
        let error = JSONTest.error(data, JSONReader(options: options))
        #expect(error?.code == .invalidValue)
        #expect(error?.location?.offset == 0)
    }

    @Test func nulInKeyDoesNotMergeKeys() throws {
        let data = try Self.file("json_nul_escape_in_key.json")
        #expect(try JSONTest.strict.read(data) == ["a\u{0}b": 1, "a": 2])
        #expect(try JSONTest.lenient.read(data) == ["a\u{0}b": 1, "a": 2])
    }

    @Test func lenientModeKeepsTheSafetyChecks() throws {
        for name in ["json_deep_arrays_500k_closed.json", "json_uint64_overflow.json",
                     "json_embedded_nul_then_value.json", "json_number_1mb_digits.json", "json_exponent_huge.json"] {
            #expect(JSONTest.error(try Self.file(name), JSONTest.lenient) != nil, "\(name)")
        }
        // Lenient mode repairs invalid UTF-8 and lone surrogates to U+FFFD instead.
        let overlong = try JSONTest.lenient.read(try Self.file("json_overlong_utf8.json"))
        #expect(overlong.description.contains("\u{FFFD}"))
    }

    @Test func limitsAreEnforced() {
        let input = JSONReader(options: .init(limits: PFLimits(maxInputBytes: 8)))
        #expect(JSONTest.error("[1, 2, 3, 4, 5]", input)?.message.contains("maxInputBytes") == true)
        let nodes = JSONReader(options: .init(limits: PFLimits(maxNodes: 3)))
        let nodeError = JSONTest.error("[1,2,3]", nodes)
        #expect(nodeError?.message.contains("maxNodes") == true)
        #expect(nodeError?.location?.offset == 5)
        let counts = JSONReader(options: .init(limits: PFLimits(maxCollectionCount: 2)))
        let countError = JSONTest.error("[1,2,3]", counts)
        #expect(countError?.message.contains("maxCollectionCount") == true)
        #expect(countError?.location?.offset == 5)
        let strings = JSONReader(options: .init(limits: PFLimits(maxStringBytes: 4)))
        let error = JSONTest.error(#"{"a":["abcde"]}"#, strings)
        #expect(error?.code == .limitExceeded)
        #expect(error?.path == PFKeyPath([.key("a"), .index(0)]))
    }
}
