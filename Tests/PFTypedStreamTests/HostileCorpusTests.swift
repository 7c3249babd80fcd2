import Foundation
import PFCore
import PFTestSupport
import PFTypedStream
import Testing

/// Every `ts_*` file of the hostile corpus gets the outcome MANIFEST.md names: a clean,
/// typed error at the right byte, or the value for the one valid baseline.
///
/// The corpus was hand-built from a format description, not by Apple. Where it and the real
/// format disagree, the real format wins, and the case says so.
@Suite struct HostileCorpusTests {
    static func file(_ name: String) throws -> Data {
        try Fixtures.data(Fixtures.hostile.appendingPathComponent(name))
    }

    static func expectError(
        _ name: String, _ code: PFError.Code, at offset: Int, failure: TypedStreamFailure,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let data = try file(name)
        #expect(throws: PFError.self, sourceLocation: sourceLocation) { _ = try TypedStream.decodeValue(data) }
        do {
            _ = try TypedStream.decodeValue(data)
        } catch {
            #expect(error.code == code, "\(name): \(error)", sourceLocation: sourceLocation)
            #expect(error.location?.offset == offset, "\(name): \(error)", sourceLocation: sourceLocation)
            #expect(error.format == .typedstream, sourceLocation: sourceLocation)
            #expect(error.failure(as: TypedStreamFailure.self) == failure, "\(name): \(error)", sourceLocation: sourceLocation)
        }
    }

    /// The guess agrees with the real layout: Apple's NSString in the real files of
    /// pytypedstream's sdist is `84 84 08 NSString 01 84 84 08 NSObject 00 85 84 01 2b len bytes 86`
    /// (see `RealFilePeerTests.realNSStringLayoutMatchesTheCorpusGuess`).
    @Test func validNSStringGuessDecodesToHello() throws {
        #expect(try TypedStream.decodeValue(Self.file("ts_valid_nsstring_guess.typedstream")) == .string("hello"))
        let s = try ClassicUnarchiver.unarchivedObject(ofType: String.self, from: Self.file("ts_valid_nsstring_guess.typedstream"))
        #expect(s == "hello")
    }

    @Test func truncatedInClassName() throws {
        // Length byte 8 at offset 22, only 7 name bytes follow.
        try Self.expectError("ts_truncated_in_classname.typedstream", .truncated, at: 22,
            failure: .stringTooLong(what: "a class name", length: 8, remaining: 7))
    }

    @Test func badMagic() throws {
        try Self.expectError("ts_bad_magic.typedstream", .syntax, at: 2,
            failure: .signature("streamtypes"))
    }

    @Test func unsupportedVersion() throws {
        try Self.expectError("ts_unsupported_version.typedstream", .unsupported, at: 0,
            failure: .streamerVersion(9))
    }

    @Test func stringLengthHugeIsCheckedBeforeAllocating() throws {
        try Self.expectError("ts_string_len_huge.typedstream", .truncated, at: 48,
            failure: .stringTooLong(what: "a byte string", length: 2_147_483_647, remaining: 6))
    }

    @Test func stringLengthNegative() throws {
        // Lengths are unsigned in typedstream: 0xFFFFFFFF claims 4 GiB, and only 5 bytes remain.
        try Self.expectError("ts_string_len_negative.typedstream", .truncated, at: 48,
            failure: .stringTooLong(what: "a byte string", length: 4_294_967_295, remaining: 6))
    }

    @Test func referenceOutOfRange() throws {
        try Self.expectError("ts_reference_out_of_range.typedstream", .invalidValue, at: 32,
            failure: .referenceOutOfRange(kind: "class", index: 94, entries: 2))
    }

    @Test func superclassSelfReferenceIsACycleError() throws {
        try Self.expectError("ts_superclass_self_reference.typedstream", .invalidValue, at: 32,
            failure: .superclassCycle(index: 1))
    }

    /// MANIFEST expects a depth-limit error, but in the real format a NEW tag in class-name
    /// position must be followed by a length, so 100,000 consecutive 0x84 bytes fail on the
    /// fourth one (offset 22) as a syntax error — the reader never nests. The depth limit
    /// itself is shown with a real deep stream in `LimitsTests`.
    @Test func deepNesting100kFailsOnTheFirstImpossibleTag() throws {
        try Self.expectError("ts_deep_nesting_100k.typedstream", .syntax, at: 22,
            failure: .unexpectedTag(0x84, expected: "the length of a class name"))
    }

    @Test func reservedTag() throws {
        try Self.expectError("ts_reserved_tag.typedstream", .syntax, at: 19,
            failure: .unexpectedTag(0x8A, expected: "a reference to a object"))
    }

    @Test func typeEncodingHuge() throws {
        try Self.expectError("ts_type_encoding_huge.typedstream", .truncated, at: 17,
            failure: .stringTooLong(what: "a type-encoding string", length: 2_147_483_647, remaining: 1))
    }

    @Test func emptyAfterHeader() throws {
        try Self.expectError("ts_empty_after_header.typedstream", .truncated, at: 16,
            failure: .noValues)
    }

    @Test func everyCorpusFileIsCovered() {
        let names = Fixtures.files(in: Fixtures.hostile) { $0.hasPrefix("ts_") }.map(\.lastPathComponent)
        #expect(names.count == 12)
    }
}
