import Foundation
import PFCompression
import PFCore
@testable import PFStores
import PFTestSupport
import Testing
import ZIPFoundation

/// A zip entry's compression-ratio guard stops a bomb as soon as it passes the ratio, as the
/// gzip path does — not after inflating the whole entry (issue 21: a 1 MB zip of 1 GB was
/// inflated to the end, and `validate` held all of it in memory).
@Suite struct ZipBombEarlyStopTests {
    /// A zip whose one class file is `[` and `size` bytes of spaces, deflated (about 1,000:1).
    static func bomb(_ url: URL, size: Int) throws {
        let archive = try Archive(url: url, accessMode: .create)
        try archive.addEntry(with: "export/Item.json", type: .file, uncompressedSize: Int64(size), compressionMethod: .deflate,
                             bufferSize: 1 << 20) { position, chunk in
            var data = Data(repeating: 0x20, count: chunk)
            if position == 0 { data[0] = 0x5B }
            return data
        }
    }

    @Test func theExportStopsWithinAMiBPastTheRatio() throws {
        let scratch = try Scratch()
        let zip = scratch.path("bomb.zip")
        try Self.bomb(zip, size: 256 << 20)
        let compressed = try #require(try FileManager.default.attributesOfItem(atPath: zip.path)[.size] as? Int)
        let container = try ExportContainer(url: zip, limits: PFLimits())
        let file = try #require(container.files.first)
        var handedOut = 0
        #expect {
            try container.forEachChunk(of: file, chunkSize: 64 << 10) { chunk throws(PFError) in handedOut += chunk.count }
        } throws: { error in
            guard case .entryLimitExceeded(let entry, "maxCompressionRatio", 1000)? = (error as? PFError)?.failure(as: CompressionFailure.self) else { return false }
            return entry.hasSuffix("export/Item.json")
        }
        // 1 MiB of output is allowed before the ratio is judged; then at most one 64 KiB
        // window past 1,000 × the compressed bytes read so far. The whole entry is 256 MiB.
        #expect(handedOut <= 4 << 20, "\(handedOut) bytes handed out from a \(compressed)-byte zip")
        #expect(handedOut >= 1 << 20)
    }

    @Test func aLegitimateZipStillReadsWhole() throws {
        let scratch = try Scratch()
        let zip = scratch.path("fine.zip")
        let rows = (0..<20_000).map { #"{"objectId":"o\#($0)","n":\#($0)}"# }.joined(separator: ",")
        let text = Data(("{\"results\":[" + rows + "]}").utf8)
        let archive = try Archive(url: zip, accessMode: .create)
        try archive.addEntry(with: "Item.json", type: .file, uncompressedSize: Int64(text.count), compressionMethod: .deflate) { position, chunk in
            text.subdata(in: Int(position)..<Int(position) + chunk)
        }
        try archive.addEntry(with: "Stored.json", type: .file, uncompressedSize: 14, compressionMethod: .none) { (_: Int64, _: Int) in
            Data(#"{"results":[]}"#.utf8)
        }
        let store = ParseExportStore(url: zip)
        #expect(try store.objects(in: "Item").count == 20_000)
        #expect(try store.objects(in: "Stored").isEmpty)
    }

    @Test func validateHoldsLittleMemoryForABomb() throws {
        let scratch = try Scratch()
        let zip = scratch.path("bomb.zip")
        try Self.bomb(zip, size: 256 << 20)
        let run = try CLI.runMeasured(["validate", zip.path])
        #expect(run.status == 1, "\(run.summary)")
        #expect(run.stderr.contains("maxCompressionRatio (1000)"), "\(run.summary)")
        // Before, the entry was collected whole (256 MiB and more) before the ratio was seen.
        #expect(run.maxRSSBytes < 128 << 20, "\(run.summary)")
    }
}
