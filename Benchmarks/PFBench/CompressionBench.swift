import CPFZlib
import Foundation
import PFArchive

/// Deflate (levels 1 and 6) and inflate throughput on the three bench files, in MB/s of
/// uncompressed bytes, next to zlib's own one-shot `compress2`/`uncompress` as a baseline.
enum CompressionBench {
    static func run(_ bench: inout Bench) {
        for file in benchFiles {
            let input = benchInput(file)
            for level in [1, 6] {
                guard let packed = try? Compression.compress(input, as: .zlib, level: level) else {
                    FileHandle.standardError.write(Data("compression bench: compress failed for \(file)\n".utf8))
                    exit(1)
                }
                let group = "Compression zlib level \(level)"
                bench.measure("\(file) deflate (pfarchive)", group: group, bytes: input.count) {
                    _ = try? Compression.compress(input, as: .zlib, level: level)
                }
                bench.measure("\(file) deflate (zlib compress2)", group: group, bytes: input.count) {
                    _ = baselineCompress(input, level: level)
                }
                bench.measure("\(file) inflate (pfarchive)", group: group, bytes: input.count) {
                    _ = try? Compression.decompress(packed, from: .zlib)
                }
                bench.measure("\(file) inflate (zlib uncompress)", group: group, bytes: input.count) {
                    _ = baselineUncompress(packed, size: input.count)
                }
            }
        }
    }

    /// zlib's one-shot compress into a buffer of `compressBound` bytes.
    static func baselineCompress(_ input: Data, level: Int) -> Int {
        var size = compressBound(UInt(input.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        input.withUnsafeBytes { raw in
            _ = compress2(&out, &size, raw.baseAddress?.assumingMemoryBound(to: Bytef.self), UInt(raw.count), Int32(level))
        }
        return Int(size)
    }

    /// zlib's one-shot uncompress into a buffer of the known size (trusted input only).
    static func baselineUncompress(_ packed: Data, size: Int) -> Int {
        var length = UInt(size)
        var out = [UInt8](repeating: 0, count: size)
        packed.withUnsafeBytes { raw in
            _ = uncompress(&out, &length, raw.baseAddress?.assumingMemoryBound(to: Bytef.self), UInt(raw.count))
        }
        return Int(length)
    }
}
