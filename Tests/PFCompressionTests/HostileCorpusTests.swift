import Foundation
import PFCompression
import PFCore
import PFTestSupport
import Testing

/// Every `zlib_*` file of the hostile corpus gets the outcome its MANIFEST names.
@Suite struct HostileCorpusTests {
    /// Files that must fail with default limits, the code, and the failure.
    struct Case: Sendable, CustomTestStringConvertible {
        var file: String
        var code: PFError.Code
        var failure: CompressionFailure
        var testDescription: String { file }
    }

    static let failures: [Case] = [
        Case(file: "zlib_bad_adler32.zlib", code: .syntax, failure: .corrupt(.zlib, zlibMessage: "incorrect data check")),
        Case(file: "zlib_bad_header.zlib", code: .syntax, failure: .corrupt(.zlib, zlibMessage: "incorrect header check")),
        Case(file: "zlib_distance_too_far_back.zlib", code: .syntax, failure: .corrupt(.zlib, zlibMessage: "invalid distance too far back")),
        Case(file: "zlib_empty.zlib", code: .truncated, failure: .emptyInput(.zlib)),
        Case(file: "zlib_needs_preset_dict.zlib", code: .unsupported, failure: .presetDictionary),
        Case(file: "zlib_stored_block_len_mismatch.zlib", code: .syntax, failure: .corrupt(.zlib, zlibMessage: "invalid stored block lengths")),
        Case(file: "zlib_trailing_garbage.zlib", code: .syntax, failure: .trailing(.zlib, count: 7, exact: true)),
        Case(file: "zlib_truncated.zlib", code: .truncated, failure: .truncated(.zlib, consumed: 15)),
    ]
    /// Files with their own tests below.
    static let bombs = ["zlib_bomb_256MiB_zeros.zlib", "zlib_nested_bomb_4GiB.zlib"]

    @Test func everyZlibFileIsCovered() {
        let names = Fixtures.files(in: Fixtures.hostile) { $0.hasPrefix("zlib_") }.map(\.lastPathComponent)
        #expect(names.count == 10)
        #expect(Set(names) == Set(Self.failures.map(\.file) + Self.bombs))
    }

    @Test(arguments: failures)
    func failsCleanly(_ testCase: Case) throws {
        let (code, failure) = (testCase.code, testCase.failure)
        let bytes = try hostile(testCase.file)
        let error = expectPFError(code, failure: failure) {
            _ = try Compression.decompress(bytes, from: .zlib)
        }
        #expect(error?.format == .zlib)
        // The location is a byte offset inside the input.
        if let offset = error?.location?.offset {
            #expect((0...bytes.count).contains(offset))
        } else {
            Issue.record("no byte offset in \(String(describing: error))")
        }
        // Streaming byte by byte reaches the same verdict (it sees trailing bytes one at a time).
        let streamed: CompressionFailure =
            if case .trailing = failure { .trailing(.zlib, count: 1, exact: false) } else { failure }
        expectPFError(code, failure: streamed) {
            _ = try streamInflate(bytes, format: .zlib, pieceSize: 1)
        }
    }

    @Test func trailingGarbageIsReportedWhereTheStreamEnds() throws {
        let bytes = try hostile("zlib_trailing_garbage.zlib")
        let error = expectPFError(.syntax) { _ = try Compression.decompress(bytes, from: .zlib) }
        #expect(error?.location?.offset == bytes.count - 7)
    }

    @Test func bombHitsTheSizeCapWithBoundedOutput() throws {
        let bytes = try hostile("zlib_bomb_256MiB_zeros.zlib")
        // The ratio cap is lifted so the size cap is what stops it.
        let limits = PFLimits(maxDecompressedBytes: 8 << 20, maxCompressionRatio: .max)
        expectPFError(.limitExceeded, limit: "maxDecompressedBytes") {
            _ = try Compression.decompress(bytes, from: .zlib, limits: limits)
        }
        // Streaming: never more than the limit delivered, never more than 64 KiB at once.
        let inflater = try Inflater(format: .zlib, limits: limits)
        var delivered = 0
        var largest = 0
        expectPFError(.limitExceeded, limit: "maxDecompressedBytes") {
            try inflater.process(bytes) { chunk in
                delivered += chunk.count
                largest = max(largest, chunk.count)
            }
        }
        #expect(delivered <= limits.maxDecompressedBytes)
        #expect(delivered > limits.maxDecompressedBytes - Inflater.chunkSize)
        #expect(largest <= Inflater.chunkSize)
        // The failure sticks.
        expectPFError(.limitExceeded) { try inflater.finish() }
    }

    @Test func bombHitsTheRatioCapSoonAfterOneMebibyte() throws {
        let bytes = try hostile("zlib_bomb_256MiB_zeros.zlib")
        let inflater = try Inflater(format: .zlib, limits: PFLimits(maxCompressionRatio: 200))
        var delivered = 0
        expectPFError(.limitExceeded, limit: "maxCompressionRatio") {
            try inflater.process(bytes) { delivered += $0.count }
        }
        #expect(delivered >= 1 << 20)
        #expect(delivered < 2 << 20)
    }

    @Test func bombFailsWithDefaultLimits() throws {
        let bytes = try hostile("zlib_bomb_256MiB_zeros.zlib")
        expectPFError(.limitExceeded, limit: "maxCompressionRatio", limitValue: 1000) {
            _ = try Compression.decompress(bytes, from: .zlib)
        }
        expectPFError(.limitExceeded, limit: "maxCompressionRatio") {
            _ = try Compression.decompressIfCompressed(bytes)
        }
    }

    @Test func nestedBombInflatesOneLayerOnly() throws {
        let bytes = try hostile("zlib_nested_bomb_4GiB.zlib")
        let (outer, format) = try Compression.decompressIfCompressed(bytes)
        #expect(format == .zlib)
        #expect(outer.count == 4_174_513)
        // The payload is itself zlib, returned as it is.
        #expect(Compression.detect(outer) == .zlib)
        // Inflating it again is a separate decision with its own budget, which it exceeds.
        expectPFError(.limitExceeded, limit: "maxDecompressedBytes") {
            _ = try Compression.decompress(
                outer, from: .zlib, limits: PFLimits(maxDecompressedBytes: 16 << 20, maxCompressionRatio: .max))
        }
    }

    @Test func nestedBombInnerLayerStopsAtTheDefaultRatioWhenStreamed() throws {
        let outer = try Compression.decompress(try hostile("zlib_nested_bomb_4GiB.zlib"), from: .zlib)
        let inflater = try Inflater(format: .zlib)
        var delivered = 0
        expectPFError(.limitExceeded, limit: "maxCompressionRatio", limitValue: 1000) {
            try inflater.process(outer) { delivered += $0.count }
        }
        #expect(delivered < 2 << 20)
    }
}
