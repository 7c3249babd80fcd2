import Foundation
import PFCompression
import Testing

@Suite struct DetectTests {
    @Test func findsGzipAndZlibMagic() throws {
        #expect(Compression.detect(Data([0x1F, 0x8B, 0x08, 0x00])) == .gzip)
        for flg: UInt8 in [0x01, 0x5E, 0x9C, 0xDA] {
            #expect(Compression.detect(Data([0x78, flg])) == .zlib)
        }
        // Smaller windows (CINFO < 7) are zlib too.
        #expect(Compression.detect(Data([0x58, 0x85])) == .zlib)
        for level in [0, 1, 6, 9] {
            #expect(Compression.detect(try Compression.compress(Data("x".utf8), as: .zlib, level: level)) == .zlib)
            #expect(Compression.detect(try Compression.compress(Data("x".utf8), as: .gzip, level: level)) == .gzip)
        }
    }

    @Test func neverGuessesRawDeflate() throws {
        let raw = try Compression.compress(Data(repeating: 1, count: 100), as: .deflate)
        #expect(Compression.detect(raw) == nil)
    }

    @Test(arguments: [
        "{\"a\":1}", "[1,2]", "bplist00", "<?xml version=\"1.0\"?>", "streamtyped", "", "x",
    ])
    func textAndPlistHeadersAreNotCompressed(header: String) {
        #expect(Compression.detect(Data(header.utf8)) == nil)
    }

    @Test func cborHeadersAreNotCompressed() {
        // A map, an array, a tagged date, a byte string, a self-described CBOR tag.
        for header: [UInt8] in [[0xA1, 0x61], [0x82, 0x01], [0xC1, 0x1A], [0x44, 0x00], [0xD9, 0xD9, 0xF7]] {
            #expect(Compression.detect(Data(header)) == nil)
        }
    }

    @Test func rejectsNearMisses() {
        #expect(Compression.detect(Data([0x1F, 0x8B])) == nil)  // gzip needs the method byte
        #expect(Compression.detect(Data([0x1F, 0x8B, 0x07])) == nil)
        #expect(Compression.detect(Data([0x78, 0x9D])) == nil)  // check bits wrong
        #expect(Compression.detect(Data([0x88, 0x98])) == nil)  // CINFO 8 (0x8898 % 31 == 0)
        #expect(Compression.detect(Data([0x79, 0x18])) == nil)  // method 9 (0x7918 % 31 == 0)
        #expect(Compression.detect(Data([0x78])) == nil)
    }

    @Test func uncompressedBytesPassThroughUnchanged() throws {
        let json = Data("{\"results\":[]}".utf8)
        let (data, format) = try Compression.decompressIfCompressed(json)
        #expect(format == nil)
        #expect(data == json)
    }
}
