import Foundation
import PFCompression
import PFTestSupport
import PropertyBased
import Testing

/// decompress(compress(x)) == x for every format, one-shot and streamed.
@Suite struct RoundTripTests {
    static let randomBytes = Gen.uint8().array(of: 0...5000).map { Data($0) }
    /// A short pattern repeated up to 40,000 times: highly compressible, up to ~640 KB.
    static let repetitiveBytes = PropertyBased.zip(Gen.uint8().array(of: 1...16), Gen.int(in: 1...40_000)).map {
        pattern, times in Data(Array(repeating: pattern, count: times).joined())
    }

    @Test(arguments: CompressionFormat.allCases)
    func emptyAndTinyInputsRoundTrip(format: CompressionFormat) throws {
        for input in [Data(), Data([0]), Data([0x1F, 0x8B, 0x08]), Data("{}".utf8)] {
            let packed = try Compression.compress(input, as: format)
            #expect(try Compression.decompress(packed, from: format) == input)
        }
    }

    @Test(arguments: CompressionFormat.allCases)
    func randomBytesRoundTrip(format: CompressionFormat) async {
        await propertyCheck(count: 100, input: Self.randomBytes, Gen.int(in: 0...9)) { input, level in
            let packed = try Compression.compress(input, as: format, level: level)
            #expect(try Compression.decompress(packed, from: format) == input)
        }
    }

    @Test(arguments: CompressionFormat.allCases)
    func repetitiveBytesRoundTrip(format: CompressionFormat) async {
        await propertyCheck(count: 30, input: Self.repetitiveBytes) { input in
            let packed = try Compression.compress(input, as: format, level: 1)
            #expect(packed.count < input.count / 4 + 64)
            #expect(try Compression.decompress(packed, from: format) == input)
        }
    }

    @Test(arguments: CompressionFormat.allCases)
    func benchmarkFilesRoundTrip(format: CompressionFormat) throws {
        for name in ["twitter.json", "citm_catalog.json", "canada.json"] {
            let input = try Fixtures.data(Fixtures.benchData.appendingPathComponent(name))
            let packed = try Compression.compress(input, as: format, level: 6)
            #expect(packed.count < input.count / 3)
            #expect(try Compression.decompress(packed, from: format) == input)
        }
    }

    @Test func slicesWithNonZeroStartIndexWork() throws {
        let input = Data((0..<3000).map { UInt8($0 % 7) })
        let packed = Data([0xEE, 0xEE]) + (try Compression.compress(input, as: .gzip))
        let slice = packed[2...]
        #expect(Compression.detect(slice) == .gzip)
        #expect(try Compression.decompress(slice, from: .gzip) == input)
    }

    @Test func sameInputGivesSameBytes() throws {
        let input = Data("deterministic".utf8)
        for format in CompressionFormat.allCases {
            #expect(try Compression.compress(input, as: format) == (try Compression.compress(input, as: format)))
        }
    }

    @Test(arguments: [-2, 10, 100])
    func levelsOutsideTheRangeAreUsageErrors(level: Int) {
        expectPFError(.usage, failure: .badLevel(level)) {
            _ = try Compression.compress(Data(), as: .zlib, level: level)
        }
        expectPFError(.usage) { _ = try Deflater(format: .gzip, level: level) }
    }

    @Test func levelZeroStoresAndMinusOneIsTheDefault() throws {
        let input = Data(repeating: 0x41, count: 10_000)
        let stored = try Compression.compress(input, as: .zlib, level: 0)
        #expect(stored.count > input.count)
        #expect(try Compression.compress(input, as: .zlib, level: -1) == (try Compression.compress(input, as: .zlib)))
        #expect(try Compression.decompress(stored, from: .zlib) == input)
    }
}
