import Foundation
import PFCompression
import PFCore
import PFFormats
import PFJSON
import PFTestSupport
import Testing

/// Zips written by Python's zipfile (a real peer), read back by ``ZipReader``.
@Suite struct ZipReaderTests {
    /// Writes a zip with Python: `files` maps entry names to (text, deflate?).
    static func pythonZip(_ files: [(String, String, Bool)]) throws -> Data {
        let spec: [PFValue] = files.map { name, text, deflate in .array([.string(name), .string(text), .bool(deflate)]) }
        let script = """
            import io, json, sys, zipfile
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w") as z:
                for name, text, deflate in json.load(sys.stdin):
                    z.writestr(name, text.encode("utf-8"), zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED)
            sys.stdout.buffer.write(buf.getvalue())
            """
        let run = try Peers.python(script, input: try JSONWriter().write(.array(spec)))
        try #require(run.status == 0, "\(run.stderr)")
        return run.stdout
    }

    static let sample: [(String, String, Bool)] = [
        ("export/GameScore.json", #"{"results":[{"objectId":"a","name":"Zoë 😀"}]}"# + String(repeating: " ", count: 3000), true),
        ("export/_Join\u{A789}tags\u{A789}Article.json", "", false),
        ("export/", "", false),
        ("README.txt", "not json", false),
    ]

    @Test func readsStoredAndDeflatedEntries() throws {
        let bytes = try Self.pythonZip(Self.sample)
        #expect(ZipReader.isZip(bytes))
        let zip = try ZipReader(bytes)
        #expect(zip.entries.map(\.name) == Self.sample.map(\.0))
        #expect(zip.entries.map(\.method) == [8, 0, 0, 0])
        for (entry, (_, text, _)) in Swift.zip(zip.entries, Self.sample) where !entry.isDirectory {
            #expect(try zip.contents(of: entry) == Data(text.utf8), "\(entry.name)")
        }
        #expect(zip.entries[2].isDirectory)
    }

    @Test func everyTruncationFailsCleanly() throws {
        let bytes = try Self.pythonZip(Self.sample)
        for length in 0..<bytes.count {
            let cut = bytes.prefix(length)
            let result = Result { () throws(PFError) in
                let zip = try ZipReader(cut)
                for entry in zip.entries { _ = try zip.contents(of: entry) }
            }
            switch result {
            case .success:
                // Only a cut inside the trailing comment could read cleanly; there is none.
                Issue.record("a zip cut to \(length) of \(bytes.count) bytes read cleanly")
            case .failure(let error):
                #expect(error.format == .zip, "\(error)")
            }
        }
    }

    @Test func corruptDataIsACRCOrInflateError() throws {
        var bytes = try Self.pythonZip([("a.json", #"{"results":[]}"#, false), ("b.json", String(repeating: "xy", count: 500), true)])
        // Flip a byte of the stored entry's data: the first copy of its text in the archive.
        let text = Data(#"{"results":[]}"#.utf8)
        let at = try #require(bytes.firstRange(of: text))
        bytes[at.lowerBound + 1] ^= 0x20
        let corrupt = try ZipReader(bytes)
        let error = #expect(throws: PFError.self) { try corrupt.contents(of: corrupt.entries[0]) }
        #expect(error?.failure(as: CompressionFailure.self) == .zipChecksumMismatch("'a.json'"), "\(String(describing: error))")
        #expect(try corrupt.contents(of: corrupt.entries[1]).count == 1000)
    }

    @Test func declaredSizesAboveTheLimitAreRefused() throws {
        let bytes = try Self.pythonZip([("big.json", String(repeating: "0", count: 100_000), true)])
        var limits = PFLimits.default
        limits.maxDecompressedBytes = 1000
        let zip = try ZipReader(bytes, limits: limits)
        #expect(throws: PFError.self) { try zip.contents(of: zip.entries[0]) }
    }

    @Test func notAZip() {
        #expect(!ZipReader.isZip(Data("{}".utf8)))
        #expect(throws: PFError.self) { try ZipReader(Data(repeating: 0, count: 100)) }
        // Told by the missing end record in the last 64 KiB, not by a scan of the whole input.
        #expect { try ZipReader(Data(repeating: 0x20, count: 3 << 20)) } throws: { error in
            (error as? PFError)?.message.contains("no end of central directory record") == true
        }
    }
}

/// Zip bombs stop while they inflate, whatever their headers say.
@Suite struct ZipBombTests {
    @Test func aHighlyCompressedEntryStopsAtTheRatioLimit() throws {
        let bytes = try ZipReaderTests.pythonZip([("zeros.json", String(repeating: " ", count: 4 << 20), true)])
        var limits = PFLimits.default
        limits.maxCompressionRatio = 50
        let zip = try ZipReader(bytes, limits: limits)
        let error = #expect(throws: PFError.self) { try zip.contents(of: zip.entries[0]) }
        #expect(error?.code == .limitExceeded)
        guard case .entryLimitExceeded(let entry, let limit, _)? = error?.failure(as: CompressionFailure.self) else {
            Issue.record("expected entryLimitExceeded: \(String(describing: error))")
            return
        }
        #expect(limit == "maxCompressionRatio" && entry == "'zeros.json'")
        // 4 MiB of spaces deflate past even the default 1,000:1; with the limit raised it reads.
        #expect(throws: PFError.self) { try ZipReader(bytes).contents(of: zip.entries[0]) }
        limits.maxCompressionRatio = 100_000
        #expect(try ZipReader(bytes, limits: limits).contents(of: zip.entries[0]).count == 4 << 20)
    }
}
