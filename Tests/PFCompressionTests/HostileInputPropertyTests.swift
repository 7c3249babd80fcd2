import Foundation
import PFCompression
import PFCore
import PropertyBased
import Testing

/// Random and damaged input never traps: it decompresses or throws a located PFError.
@Suite struct HostileInputPropertyTests {
    static let expectedCodes: Set<PFError.Code> = [.syntax, .truncated, .unsupported, .limitExceeded]

    /// Checks the outcome of decompressing `bytes`: success, or an error of an expected code
    /// whose offset lies inside the input.
    static func checkOutcome(_ bytes: Data, _ format: CompressionFormat) {
        do {
            _ = try Compression.decompress(bytes, from: format, limits: PFLimits(maxDecompressedBytes: 1 << 20))
        } catch {
            #expect(expectedCodes.contains(error.code), "\(error)")
            #expect(error.format == format.errorName)
            if let offset = error.location?.offset {
                #expect((0...bytes.count).contains(offset), "\(error)")
            } else {
                Issue.record("no location in \(error)")
            }
        }
    }

    @Test(arguments: CompressionFormat.allCases)
    func randomBytes(format: CompressionFormat) async {
        await propertyCheck(count: 200, input: Gen.uint8().array(of: 0...300)) { bytes in
            Self.checkOutcome(Data(bytes), format)
        }
    }

    @Test(arguments: CompressionFormat.allCases)
    func damagedStreams(format: CompressionFormat) async throws {
        let input = Data((0..<4000).map { UInt8(truncatingIfNeeded: $0 * 7 >> 4) })
        let packed = try Compression.compress(input, as: format)
        let damage = PropertyBased.zip(Gen.int(in: 0...(packed.count - 1)), Gen.uint8(in: 1...255))
        await propertyCheck(count: 200, input: damage) { index, mask in
            var bytes = packed
            bytes[index] ^= mask
            Self.checkOutcome(bytes, format)
            // zlib and gzip carry checksums: a damaged stream must never decode to other bytes.
            if format != .deflate, let out = try? Compression.decompress(bytes, from: format) {
                #expect(out == input)
            }
        }
    }

    @Test(arguments: CompressionFormat.allCases)
    func incompressibleInputGrowsTheBufferToZlibsBound(format: CompressionFormat) throws {
        var generator = SystemRandomNumberGenerator()
        let input = Data((0..<600_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        for level in [0, 6] {
            let packed = try Compression.compress(input, as: format, level: level)
            #expect(packed.count > input.count)
            #expect(try Compression.decompress(packed, from: format) == input)
        }
    }
}
