import Foundation
import PFCBOR
import PFCore
import PFTestSupport
import PropertyBased
import Testing

// The fail corpus: each malformed or hostile input fails with a PFError whose code, byte
// offset and (inside containers) key path are asserted.
@Suite("CBOR malformed and hostile input")
struct CBORMalformedTests {
    struct Case: Sendable, CustomStringConvertible {
        var hex: String
        var code: PFError.Code
        var offset: Int
        var path: PFKeyPath? = nil
        var failure: CBORFailure? = nil
        var limit: String? = nil
        var description: String { hex }
    }

    static let corpus: [Case] = [
        // Empty and truncated heads and payloads.
        Case(hex: "", code: .truncated, offset: 0),
        Case(hex: "18", code: .truncated, offset: 0),
        Case(hex: "1a0001", code: .truncated, offset: 0),
        Case(hex: "8218", code: .truncated, offset: 1, path: [.index(0)]),
        Case(hex: "4401", code: .truncated, offset: 0, failure: .truncatedPayload(what: "byte string", start: 0, declared: 4, remaining: 1)),
        Case(hex: "fb3ff0", code: .truncated, offset: 0),
        Case(hex: "9f01", code: .truncated, offset: 2, failure: .missingBreak(what: "array", start: 0)),
        // Reserved additional information 28-30.
        Case(hex: "1c", code: .syntax, offset: 0, failure: .reservedAdditionalInfo(28, initial: 0x1C)),
        Case(hex: "813d", code: .syntax, offset: 1, path: [.index(0)]),
        Case(hex: "5e", code: .syntax, offset: 0),
        Case(hex: "fe", code: .syntax, offset: 0),
        // Indefinite length where the major type does not allow it.
        Case(hex: "1f", code: .syntax, offset: 0),
        Case(hex: "3f", code: .syntax, offset: 0),
        Case(hex: "df00", code: .syntax, offset: 0),
        // Break outside an indefinite-length item.
        Case(hex: "ff", code: .syntax, offset: 0, failure: .strayBreak),
        Case(hex: "81ff", code: .syntax, offset: 1, path: [.index(0)]),
        Case(hex: "a161615f4101ff00ff", code: .syntax, offset: 7),  // trailing after the map
        Case(hex: "bf6161ff", code: .syntax, offset: 3, path: [.key("a")]),
        // Indefinite-length strings with a wrong chunk.
        Case(hex: "5f6161ff", code: .syntax, offset: 1, failure: .badChunk(initial: 0x61, what: "byte string", start: 0)),
        Case(hex: "7f4161ff", code: .syntax, offset: 1),
        Case(hex: "7f7f6161ffff", code: .syntax, offset: 1),
        Case(hex: "5f4101", code: .truncated, offset: 3),
        // Bad UTF-8: offset of the first bad byte.
        Case(hex: "62c328", code: .invalidValue, offset: 1, failure: .invalidUTF8(at: 1, string: 0)),
        Case(hex: "63eda080", code: .invalidValue, offset: 1),  // a surrogate
        Case(hex: "62c080", code: .invalidValue, offset: 1),  // overlong
        Case(hex: "6461f4908080", code: .invalidValue, offset: 2),  // above U+10FFFF
        Case(hex: "64f0908041", code: .invalidValue, offset: 1),  // cut 4-byte sequence; repair keeps the length
        Case(hex: "a161616261ff", code: .invalidValue, offset: 5, path: [.key("a")]),
        Case(hex: "7f61c361bcff", code: .invalidValue, offset: 2),  // character split across chunks
        // Simple values.
        Case(hex: "f818", code: .syntax, offset: 0, failure: .twoByteSimple(24)),
        Case(hex: "f820", code: .unsupported, offset: 0),
        // Integers outside the model.
        Case(hex: "3b8000000000000000", code: .invalidValue, offset: 0, failure: .negativeTooSmall(0x8000_0000_0000_0000)),
        // Trailing bytes.
        Case(hex: "0000", code: .syntax, offset: 1, failure: .trailingBytes(1)),
        Case(hex: "80010203", code: .syntax, offset: 1, failure: .trailingBytes(3)),
        // Map keys.
        Case(hex: "a16161a10102", code: .unsupported, offset: 4, path: [.key("a")], failure: .nonTextKey("an integer")),
        Case(hex: "a2616101616102", code: .invalidValue, offset: 4, path: [.key("a")], failure: .duplicateKey("a")),
        // Tags with the wrong content.
        Case(hex: "c16161", code: .invalidValue, offset: 0, failure: .tagContent(tag: 1, expected: "an integer or a float", found: "a text string")),
        Case(hex: "c06474657874", code: .invalidValue, offset: 0, failure: .badDate("text")),
        Case(hex: "c201", code: .invalidValue, offset: 0),
        Case(hex: "da5046554920", code: .invalidValue, offset: 0),  // UID tag around -1
        Case(hex: "d81900", code: .unsupported, offset: 0, failure: .stringReferences(tag: 25)),
        // Numbers in two integers: refused, not read as their arrays (cbor2 reads Decimal 1.25).
        Case(hex: "c4822119007d", code: .unsupported, offset: 0, failure: .numberTag(tag: 4)),
        Case(hex: "c5822003", code: .unsupported, offset: 0, failure: .numberTag(tag: 5)),
        Case(hex: "d81e820103", code: .unsupported, offset: 0, failure: .numberTag(tag: 30)),
        // Value sharing.
        Case(hex: "d81d00", code: .invalidValue, offset: 0, failure: .unknownSharedReference(index: 0, marked: 0)),
        Case(hex: "d81c81d81d00", code: .invalidValue, offset: 3, path: [.index(0)], failure: .cyclicSharedReference(index: 0)),
        // Declared lengths far beyond the input: refused without allocating.
        // A length past the end is a truncation, not the string limit (which a length the
        // input holds meets).
        Case(hex: "5b7fffffffffffffff00", code: .truncated, offset: 0,
             failure: .truncatedPayload(what: "byte string", start: 0, declared: 0x7fff_ffff_ffff_ffff, remaining: 1)),
        Case(hex: "7bffffffffffffffff616263", code: .truncated, offset: 0,
             failure: .truncatedPayload(what: "text string", start: 0, declared: .max, remaining: 3)),
        Case(hex: "5f5bffffffffffffffff00ff", code: .truncated, offset: 1,
             failure: .truncatedPayload(what: "byte string chunk", start: 1, declared: .max, remaining: 2)),
        Case(hex: "5a0010000001", code: .truncated, offset: 0),
        Case(hex: "9bffffffffffffffff00", code: .limitExceeded, offset: 0, limit: "maxCollectionCount"),
        Case(hex: "9a000f000001", code: .truncated, offset: 6),
        Case(hex: "ba000f0000616101", code: .truncated, offset: 8),
    ]

    @Test(arguments: corpus)
    func failsWithCodeOffsetAndPath(_ c: Case) {
        let error = readError(hexBytes(c.hex))
        #expect(error?.code == c.code, "\(String(describing: error))")
        #expect(error?.format == .cbor)
        #expect(error?.location?.offset == c.offset, "\(String(describing: error))")
        if let path = c.path { #expect(error?.path == path, "\(String(describing: error))") }
        if let failure = c.failure {
            #expect(error?.failure(as: CBORFailure.self) == failure, "\(String(describing: error))")
        }
        if let limit = c.limit { #expect(exceededLimit(error) == limit, "\(String(describing: error))") }
    }

    @Test func replacementCharacterInTheInputIsText() throws {
        #expect(try CBORReader().read(hexBytes("63efbfbd")) == "\u{FFFD}")
        #expect(try CBORReader().read(hexBytes("6ae697a5efbfbde69cac41")) == "日\u{FFFD}本A")
    }

    @Test func everyProperPrefixIsTruncated() throws {
        // A sample touching every head width, every major type, floats of each width, tags,
        // value sharing and indefinite lengths.
        let sample = hexBytes(
            "bf 6161 9f 00 18ff 19ffff 1affffffff 1b0000000100000000 38ff 3b0000000100000000 ff"
                + " 6162 5f 4201ff 41ff ff 6163 7f 6161 62c3bc ff 6164 f93c00 6165 fa47c35000 6166 fb3ff199999999999a"
                + " 6167 c11a514b67b0 6168 d81c 82 f5 f6 6169 d81d 00 616a a1 6178 80 616b da50465549 07 ff")
        let whole = try CBORReader().read(sample)
        #expect(whole["i"] == [true, nil])
        #expect(whole["k"] == .uid(7))
        for cut in 0..<sample.count {
            let error = readError(sample.prefix(cut))
            #expect(error?.code == .truncated, "prefix \(cut): \(String(describing: error))")
            if let offset = error?.location?.offset { #expect(offset <= cut, "prefix \(cut)") }
        }
    }

    @Test func deepNestingStopsAtMaxDepth() {
        // 100,000 nested arrays, tags and indefinite arrays: the 513th level is refused.
        for opener: UInt8 in [0x81, 0xC6, 0x9F] {
            let bytes = Data(repeating: opener, count: 100_000) + Data([0x00])
            let error = readError(bytes)
            #expect(error?.code == .limitExceeded)
            #expect(exceededLimit(error) == "maxDepth")
            #expect(error?.location?.offset == 512)
        }
        // Exactly the limit reads.
        let limits = PFLimits(maxDepth: 40)
        let atLimit = Data(repeating: 0x81, count: 40) + Data([0x00])
        #expect(readError(atLimit, limits: limits) == nil)
        #expect(readError(Data(repeating: 0x81, count: 41) + Data([0x00]), limits: limits)?.location?.offset == 40)
    }

    @Test func sharedReferenceBombIsBounded() {
        // Item k is tag 28 around [ref(k-1), ref(k-1)]: 64 levels would expand to 2^64 nodes.
        var bytes = head(4, 64) + hexBytes("d81c 82 00 00")
        var referenceOffsets: Set<Int> = []
        for k in 1..<64 {
            bytes += hexBytes("d81c 82")
            for _ in 0..<2 {
                referenceOffsets.insert(bytes.count)
                bytes += hexBytes("d81d") + head(0, k - 1)
            }
        }
        let error = readError(bytes)
        #expect(error?.code == .limitExceeded)
        #expect(exceededLimit(error) == "maxNodes")
        #expect(referenceOffsets.contains(error?.location?.offset ?? -1), "\(String(describing: error))")
        #expect(error?.path?.components.first != nil)
    }

    @Test func sharedReferenceBombWithoutANodeLimitStillFails() {
        // With maxNodes at Int.max the node count itself would overflow past 2^63: refused,
        // not trapped.
        var bytes = head(4, 70) + hexBytes("d81c 82 00 00")
        for k in 1..<70 { bytes += hexBytes("d81c 82 d81d") + head(0, k - 1) + hexBytes("d81d") + head(0, k - 1) }
        let error = readError(bytes, limits: PFLimits(maxNodes: Int.max))
        #expect(error?.code == .limitExceeded)
        #expect(exceededLimit(error) == "maxNodes")
    }

    @Test func duplicateKeysInLargeMapsAreFound() {
        // 20 members with "k3" twice: the large-map path reports the second one.
        var bytes = head(5, 20)
        var offsetOfSecond = 0
        for i in 0..<20 {
            if i == 17 { offsetOfSecond = bytes.count }
            let key = "k\(i == 17 ? 3 : i)"
            bytes += head(3, key.utf8.count) + Data(key.utf8) + head(0, i)
        }
        let error = readError(bytes)
        #expect(error?.code == .invalidValue)
        #expect(error?.location?.offset == offsetOfSecond)
        #expect(error?.path == [.key("k3")])
        // Without the repeat, the same map reads with its keys in order.
        var unique = head(5, 20)
        for i in 0..<20 { unique += head(3, "k\(i)".utf8.count) + Data("k\(i)".utf8) + head(0, i) }
        let keys = (try? CBORReader().read(unique))?.dictionaryValue.map { Array($0.keys) }
        #expect(keys == (0..<20).map { "k\($0)" })
    }

    @Test func sharedReferencesCannotBuildDepth() throws {
        // Item k is tag 28 around [ref(k-1)]: each reference nests the previous value one
        // level deeper, so the tree's depth grows although the input's nesting does not.
        func chain(_ n: Int) -> Data {
            var bytes = head(4, n) + hexBytes("d81c 80")
            for k in 1..<n { bytes += hexBytes("d81c 81 d81d") + head(0, k - 1) }
            return bytes
        }
        let shallow = try CBORReader().read(chain(100))
        var depth = 0
        var node = shallow[99]
        while let inner = node?[0] { depth += 1; node = inner }
        #expect(depth == 99)
        let error = readError(chain(600))
        #expect(error?.code == .limitExceeded)
        #expect(exceededLimit(error) == "maxDepth")
    }

    @Test func limitsAreConfigurable() {
        let limits = PFLimits(maxNodes: 3, maxCollectionCount: 2, maxStringBytes: 3)
        #expect(exceededLimit(readError(hexBytes("83010203"), limits: limits)) == "maxCollectionCount")
        #expect(readError(hexBytes("8201820203"), limits: limits)?.location?.offset == 3)  // the fourth node
        #expect(exceededLimit(readError(hexBytes("6461626364"), limits: limits)) == "maxStringBytes")
        #expect(readError(hexBytes("7f626162626364ff"), limits: limits)?.code == .limitExceeded)
        #expect(readError(hexBytes("00"), limits: PFLimits(maxInputBytes: 0))?.code == .limitExceeded)
    }
}

@Suite("CBOR mutated input")
struct CBORMutationTests {
    /// Random byte flips, insertions and cuts in valid encodings: every result is either a
    /// PFError or a value that itself round-trips (the process must never trap).
    @Test func mutatedEncodingsFailCleanlyOrReadConsistently() async throws {
        var shape = ValueShape()
        shape.uid = true
        shape.nonFiniteDoubles = true
        shape.subMillisecondDates = false
        let writers = [CBORWriter(), CBORWriter(options: .init(canonical: true, shareValues: true))]
        var outcomes = (failed: 0, read: 0)
        await propertyCheck(count: 300, input: ValueGen.document(shape)) { value in
            var rng = SystemRandomNumberGenerator()
            for writer in writers {
                let original = [UInt8](try writer.write(value))
                for _ in 0..<8 {
                    var bytes = original
                    for _ in 0..<Int.random(in: 1...3, using: &rng) {
                        let at = Int.random(in: 0..<bytes.count, using: &rng)
                        switch Int.random(in: 0..<4, using: &rng) {
                        case 0: bytes[at] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng))
                        case 1: bytes[at] = [0x1C, 0x5F, 0x7F, 0x9F, 0xBF, 0xD8, 0xFF, 0xFB, 0x1B].randomElement(using: &rng) ?? 0
                        case 2: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: at)
                        default: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...4, using: &rng)))
                        }
                        if bytes.isEmpty { break }
                    }
                    let mutated = Data(bytes)
                    switch Result(catching: { () throws(PFError) in try CBORReader().read(mutated) }) {
                    case .success(let read):
                        outcomes.read += 1
                        #expect(try CBORReader().read(CBORWriter().write(read)) == read)
                    case .failure(let error):
                        outcomes.failed += 1
                        #expect(error.format == .cbor)
                        #expect(error.location != nil)
                    }
                }
            }
        }
        #expect(outcomes.failed > 0)
    }
}
