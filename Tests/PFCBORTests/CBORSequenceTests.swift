import Foundation
import PFCBOR
import PFCore
import PFTestSupport
import PropertyBased
import Testing

/// CBOR sequences (RFC 8742): items one after another, read an item at a time from chunks
/// cut anywhere.
@Suite struct CBORSequenceTests {
    static func read(_ bytes: Data, chunk size: Int, limits: PFLimits = .default) throws(PFError) -> [PFValue] {
        var reader = CBORSequence.Reader(limits: limits)
        var out: [PFValue] = []
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = min(start + size, bytes.endIndex)
            let chunk = Data(bytes[start..<end])
            try chunk.withBytes { raw throws(PFError) in
                try reader.feed(raw) { value, _ throws(PFError) in out.append(value) }
            }
            start = end
        }
        try reader.finish { value, _ throws(PFError) in out.append(value) }
        return out
    }

    @Test func randomSequencesRoundTripWhateverTheChunkSize() async throws {
        var shape = ValueShape()
        shape.subMillisecondDates = false
        await propertyCheck(count: 150, input: ValueGen.tree(shape)) { value in
            let records: [PFValue] = [value, [:], [], 0, value]
            let bytes = try CBORSequence.write(records)
            // The sequence is the items' own encodings, concatenated.
            var concatenated = Data()
            for record in records { concatenated.append(try CBORWriter().write(record)) }
            #expect(bytes == concatenated)
            for size in [1, 2, 9, 1 << 20] {
                #expect(try Self.read(bytes, chunk: size) == records)
            }
        }
        #expect(try CBORSequence.read(Data()).isEmpty)
    }

    @Test func aSequenceEndingInsideAnItemIsTruncated() throws {
        let bytes = try CBORSequence.write([["a": 1], .string(String(repeating: "x", count: 300))])
        do {
            _ = try Self.read(bytes.dropLast(), chunk: 16)
            Issue.record("a cut item was accepted")
        } catch {
            #expect(error.code == .truncated && error.message.hasPrefix("item 1: "), "\(error)")
            #expect((error.location?.offset ?? 0) >= 4, "\(error)")
        }
    }

    @Test func aBadItemNamesItsIndexAndOffset() throws {
        // [1], then a stray break, then 2.
        let bytes = Data([0x81, 0x01, 0xFF, 0x02])
        do {
            _ = try Self.read(bytes, chunk: 1)
            Issue.record("a stray break was accepted")
        } catch {
            #expect(error.failure(as: CBORFailure.self) == .strayBreak)
            #expect(error.message.hasPrefix("item 1: ") && error.location?.offset == 2, "\(error)")
        }
    }

    /// A map key behind tags is judged by the tags' content whatever the chunks: a map behind
    /// a string-reference tag (256) is a map key that is a map, fed a byte at a time as read
    /// whole, and a key whose tags end the input is cut short (found by FuzzCBOR).
    @Test func aTaggedKeyFailsAlikeWhateverTheChunks() throws {
        let inputs: [(bytes: [UInt8], failure: CBORFailure)] = [
            ([0xA1, 0xD9, 0x01, 0x00, 0xA0, 0x01], .nonTextKey("a map")),
            ([0xA1, 0xD9, 0x01, 0x00, 0x80, 0x01], .nonTextKey("an array")),
            ([0xA1, 0xD9, 0x01, 0x00], .expectedItem),
            ([0xA1, 0xC1, 0xD9, 0x01, 0x00], .expectedItem),
        ]
        let fuzzFound = try Fixtures.data(Fixtures.root.appendingPathComponent("regressions/cbor/string-reference-tag-on-map-key-f1382dce.cbor"))
        for (bytes, failure) in inputs + [([UInt8](fuzzFound), .nonTextKey("a map"))] {
            for size in [1, 2, 7, bytes.count] {
                #expect(throws: PFError.self) { try Self.read(Data(bytes), chunk: size) }
                do { _ = try Self.read(Data(bytes), chunk: size) } catch {
                    #expect(error.failure(as: CBORFailure.self) == failure, "\(bytes) in chunks of \(size): \(error)")
                }
            }
        }
    }

    @Test func anItemLargerThanTheLimitIsRefused() throws {
        var limits = PFLimits.default
        limits.maxInputBytes = 64
        let bytes = try CBORSequence.write([1, .string(String(repeating: "y", count: 200)), 2])
        #expect(throws: PFError.self) { try Self.read(bytes, chunk: 8, limits: limits) }
        #expect(try Self.read(try CBORSequence.write([1, 2, 3]), chunk: 1, limits: limits) == [1, 2, 3])
    }
}
