import Foundation
import PFCompression
import Testing

/// Interop with Python's zlib and gzip modules, which use their own copy of zlib.
@Suite struct PeerTests {
    static let sample: Data = {
        var bytes = Data("pfarchive ↔ python ".utf8)
        for i in 0..<20_000 { bytes.append(UInt8(truncatingIfNeeded: i * i >> 5)) }
        return bytes
    }()

    /// Python decompresses what pfarchive compressed.
    @Test(arguments: CompressionFormat.allCases)
    func pythonReadsOurStreams(format: CompressionFormat) throws {
        let script = """
            import sys, zlib, gzip
            data = sys.stdin.buffer.read()
            kind = sys.argv[1]
            if kind == "zlib": out = zlib.decompress(data)
            elif kind == "gzip": out = gzip.decompress(data)
            else: out = zlib.decompress(data, wbits=-15)
            sys.stdout.buffer.write(out)
            """
        for level in [1, 6, 9] {
            let packed = try Compression.compress(Self.sample, as: format, level: level)
            #expect(try pythonPeer(script, [format.rawValue], input: packed) == Self.sample)
        }
    }

    /// pfarchive decompresses what Python compressed: zlib.compress, gzip.compress, raw
    /// deflate, and a two-member gzip file.
    @Test(arguments: ["zlib", "gzip", "deflate", "gzip2"])
    func weReadPythonStreams(kind: String) throws {
        let script = """
            import sys, zlib, gzip
            data = sys.stdin.buffer.read()
            kind = sys.argv[1]
            if kind == "zlib": out = zlib.compress(data, 9)
            elif kind == "gzip": out = gzip.compress(data, mtime=0)
            elif kind == "deflate":
                c = zlib.compressobj(6, zlib.DEFLATED, -15)
                out = c.compress(data) + c.flush()
            else: out = gzip.compress(data[:1000]) + gzip.compress(data[1000:])
            sys.stdout.buffer.write(out)
            """
        let packed = try pythonPeer(script, [kind], input: Self.sample)
        let format: CompressionFormat = kind == "zlib" ? .zlib : kind == "deflate" ? .deflate : .gzip
        #expect(try Compression.decompress(packed, from: format) == Self.sample)
        if format != .deflate {
            let (data, detected) = try Compression.decompressIfCompressed(packed)
            #expect(detected == format)
            #expect(data == Self.sample)
        }
    }
}
