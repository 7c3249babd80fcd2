import Foundation
import PFCompression
import PFCore
import Testing

/// Limits, wrapper strictness, trailing bytes and truncation, with small custom budgets.
@Suite struct DecompressErrorTests {
    static let zeros = Data(repeating: 0, count: 5000)

    @Test(arguments: CompressionFormat.allCases)
    func sizeCapStopsSmallOutputs(format: CompressionFormat) throws {
        let packed = try Compression.compress(Self.zeros, as: format)
        let error = expectPFError(.limitExceeded, limit: "maxDecompressedBytes", limitValue: 1000) {
            _ = try Compression.decompress(packed, from: format, limits: PFLimits(maxDecompressedBytes: 1000))
        }
        #expect(error?.format == format.errorName)
        // Exactly at the limit is allowed.
        let exact = try Compression.decompress(packed, from: format, limits: PFLimits(maxDecompressedBytes: 5000))
        #expect(exact == Self.zeros)
    }

    @Test func ratioIsCheckedOnlyPastOneMebibyte() throws {
        let small = try Compression.compress(Data(repeating: 0, count: 1 << 20), as: .zlib)
        let strict = PFLimits(maxCompressionRatio: 2)
        #expect(try Compression.decompress(small, from: .zlib, limits: strict).count == 1 << 20)
        let large = try Compression.compress(Data(repeating: 0, count: (1 << 20) + 100_000), as: .zlib)
        expectPFError(.limitExceeded, limit: "maxCompressionRatio", limitValue: 2) {
            _ = try Compression.decompress(large, from: .zlib, limits: strict)
        }
    }

    @Test func inputSizeLimitApplies() throws {
        let packed = try Compression.compress(Self.zeros, as: .gzip)
        expectPFError(.limitExceeded, limit: "maxInputBytes") {
            _ = try Compression.decompress(packed, from: .gzip, limits: PFLimits(maxInputBytes: 10))
        }
    }

    @Test func onlyTheRequestedWrapperIsAccepted() throws {
        let zlib = try Compression.compress(Self.zeros, as: .zlib)
        let gzip = try Compression.compress(Self.zeros, as: .gzip)
        expectPFError(.syntax, failure: .corrupt(.zlib, zlibMessage: "incorrect header check")) {
            _ = try Compression.decompress(gzip, from: .zlib)
        }
        expectPFError(.syntax, failure: .corrupt(.gzip, zlibMessage: "incorrect header check")) {
            _ = try Compression.decompress(zlib, from: .gzip)
        }
        #expect(throws: PFError.self) { try Compression.decompress(zlib, from: .deflate) }
    }

    @Test(arguments: CompressionFormat.allCases)
    func emptyInputIsTruncated(format: CompressionFormat) {
        let error = expectPFError(.truncated, failure: .emptyInput(format)) {
            _ = try Compression.decompress(Data(), from: format)
        }
        #expect(error?.location?.offset == 0)
    }

    @Test(arguments: CompressionFormat.allCases)
    func everyCutShortStreamIsTruncated(format: CompressionFormat) throws {
        let packed = try Compression.compress(Data("a short sentence, compressed".utf8), as: format)
        for length in 1..<packed.count {
            expectPFError(.truncated) { _ = try Compression.decompress(packed.prefix(length), from: format) }
        }
    }

    @Test(arguments: [CompressionFormat.zlib, .deflate])
    func trailingBytesAreRejected(format: CompressionFormat) throws {
        let packed = try Compression.compress(Self.zeros, as: format)
        let error = expectPFError(.syntax, failure: .trailing(format, count: 3, exact: true)) {
            _ = try Compression.decompress(packed + Data([1, 2, 3]), from: format)
        }
        #expect(error?.location?.offset == packed.count)
    }

    @Test func multiMemberGzipIsConcatenatedUnderOneBudget() throws {
        let a = Data(repeating: 0x61, count: 3000)
        let b = Data(repeating: 0x62, count: 3000)
        let joined = try Compression.compress(a, as: .gzip) + Compression.compress(b, as: .gzip, level: 9)
        #expect(try Compression.decompress(joined, from: .gzip) == a + b)
        // 6,000 bytes in total exceed a 5,000-byte budget although each member fits.
        expectPFError(.limitExceeded) {
            _ = try Compression.decompress(joined, from: .gzip, limits: PFLimits(maxDecompressedBytes: 5000))
        }
    }

    @Test func bytesAfterAGzipMemberMustStartAnotherMember() throws {
        let member = try Compression.compress(Self.zeros, as: .gzip)
        let error = expectPFError(.syntax, failure: .trailing(.gzip, count: 4, exact: true)) {
            _ = try Compression.decompress(member + Data([0, 0, 0, 0]), from: .gzip)
        }
        #expect(error?.location?.offset == member.count)
        // Two bytes of magic and then the end: a cut-short member header.
        expectPFError(.truncated, failure: .truncatedMemberHeader) {
            _ = try Compression.decompress(member + Data([0x1F, 0x8B]), from: .gzip)
        }
        // A second member cut short.
        expectPFError(.truncated) { _ = try Compression.decompress(member + member.prefix(20), from: .gzip) }
    }

    @Test func corruptGzipChecksumIsReportedWithAnOffset() throws {
        var packed = try Compression.compress(Self.zeros, as: .gzip)
        let crcIndex = packed.count - 8
        packed[crcIndex] ^= 0xFF
        let error = expectPFError(.syntax, failure: .corrupt(.gzip, zlibMessage: "incorrect data check")) {
            _ = try Compression.decompress(packed, from: .gzip)
        }
        #expect(error?.format == .gzip)
        #expect(error?.location != nil)
    }
}
