import Foundation
import PFCompression
import PFCore
import PropertyBased
import Testing

/// Inflater and Deflater fed in many small chunks agree with the one-shot API.
@Suite struct StreamingTests {
    static let inputs = PropertyBased.zip(Gen.uint8(in: 0...3).array(of: 0...20_000), Gen.int(in: 1...97)).map {
        bytes, piece in (Data(bytes), piece)
    }

    @Test(arguments: CompressionFormat.allCases)
    func smallChunksEqualOneShot(format: CompressionFormat) async {
        await propertyCheck(count: 40, input: Self.inputs) { input, pieceSize in
            let oneShot = try Compression.compress(input, as: format)
            let streamed = try streamDeflate(input, format: format, pieceSize: pieceSize)
            // Same zlib settings and the same bytes in: the same stream out, however it is cut.
            #expect(streamed == oneShot)
            #expect(try streamInflate(oneShot, format: format, pieceSize: pieceSize) == input)
        }
    }

    @Test func largeOutputArrivesInChunksOfAtMost64KiB() throws {
        let input = Data((0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31 >> 3) })
        let packed = try Compression.compress(input, as: .zlib)
        let inflater = try Inflater(format: .zlib)
        var out = Data()
        var largest = 0
        try inflater.process(packed) { chunk in
            out.append(contentsOf: chunk)
            largest = max(largest, chunk.count)
        }
        try inflater.finish()
        #expect(out == input)
        #expect(largest == Inflater.chunkSize)
        #expect(inflater.bytesIn == packed.count)
        #expect(inflater.bytesOut == input.count)

        let deflater = try Deflater(format: .zlib)
        var compressedLargest = 0
        var compressed = Data()
        try deflater.process(Data(repeating: 7, count: 0)) { compressed.append(contentsOf: $0) }
        try deflater.process(input) { compressed.append(contentsOf: $0); compressedLargest = max(compressedLargest, $0.count) }
        try deflater.finish { compressed.append(contentsOf: $0); compressedLargest = max(compressedLargest, $0.count) }
        #expect(compressed == packed)
        #expect(compressedLargest <= Deflater.chunkSize)
        #expect(deflater.bytesOut == packed.count)
    }

    @Test func anErrorFromTheOutputClosureStopsInflationAndSticks() throws {
        let packed = try Compression.compress(Data(repeating: 1, count: 200_000), as: .gzip)
        let inflater = try Inflater(format: .gzip)
        var calls = 0
        let diskFull = PFError(.io, format: .output, "disk full")
        let error = expectPFError(.io) {
            try inflater.process(packed) { _ throws(PFError) in
                calls += 1
                throw diskFull
            }
        }
        #expect(error == diskFull)
        #expect(calls == 1)
        expectPFError(.io) { try inflater.process(Data()) { _ in } }
    }

    @Test func gzipMembersSplitAcrossChunksAreConcatenated() throws {
        let a = Data("first member\n".utf8)
        let b = Data(repeating: 0x62, count: 5000)
        let joined = try Compression.compress(a, as: .gzip) + Compression.compress(b, as: .gzip)
        for pieceSize in [1, 2, 3, 7, 64] {
            #expect(try streamInflate(joined, format: .gzip, pieceSize: pieceSize) == a + b)
        }
    }

    @Test func truncationIsReportedAtFinish() throws {
        let packed = try Compression.compress(Data(repeating: 9, count: 1000), as: .deflate)
        let inflater = try Inflater(format: .deflate)
        try inflater.process(packed.prefix(packed.count - 1)) { _ in }
        expectPFError(.truncated) { try inflater.finish() }
    }
}
