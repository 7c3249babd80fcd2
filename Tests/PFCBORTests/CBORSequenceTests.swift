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

    @Test func anItemLargerThanTheLimitIsRefused() throws {
        var limits = PFLimits.default
        limits.maxInputBytes = 64
        let bytes = try CBORSequence.write([1, .string(String(repeating: "y", count: 200)), 2])
        #expect(throws: PFError.self) { try Self.read(bytes, chunk: 8, limits: limits) }
        #expect(try Self.read(try CBORSequence.write([1, 2, 3]), chunk: 1, limits: limits) == [1, 2, 3])
    }
}
