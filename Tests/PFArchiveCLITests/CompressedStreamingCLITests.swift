import Foundation
import OrderedCollections
import PFCBOR
import PFCompression
import PFCore
import PFFormats
import PFPropertyList
import PFSerialization
import PFTestSupport
import Testing

/// Compressed inputs and outputs take the streamed routes (issue 23): a gzip or zlib input is
/// decompressed once, with the whole route's limits and errors, and walked (or streamed a
/// record at a time); a `.gz`/`.zz` output is compressed on the way. The budget `--max-memory`
/// refuses the whole route, so a conversion that succeeds under it was streamed.
@Suite struct CompressedStreamingCLITests {
    static let formats: [(name: String, ext: String, format: DataFormat)] = [
        ("json", "json", .json), ("cbor", "cbor", .cbor), ("xmlplist", "plist", .xmlplist), ("bplist", "bplist", .bplist),
    ]

    static func canada() throws -> PFValue {
        try FormatIO.read(try Data(contentsOf: Fixtures.benchData.appendingPathComponent("canada.json")), options: .init(format: .json)).value
    }

    /// Decompresses with Python's gzip or zlib module (a peer, not our own inflater).
    static func pythonDecompress(_ file: URL, _ format: CompressionFormat) throws -> Data {
        let module = format == .gzip ? "gzip" : "zlib"
        let script = "import sys,\(module); sys.stdout.buffer.write(\(module).decompress(open(sys.argv[1],'rb').read()))"
        let run = try Peers.run(Peers.python, ["-c", script, file.path])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout
    }

    /// Every walked format, gzip and zlib in, plain, gzip and zlib out: the whole route's
    /// bytes after decompression (a binary property list: the same value), the compressed
    /// bytes the whole route's own, and Python's gzip/zlib reads them alike.
    @Test(arguments: ["json", "cbor", "xmlplist", "bplist"])
    func compressedDocumentsAreWalkedToCompressedOutputs(_ name: String) throws {
        let dir = try StreamingConvertCLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tree = try Self.canada()
        let from = try #require(Self.formats.first { $0.name == name })
        let plain = try FormatIO.write(tree, as: from.format)
        let budget = String(plain.count * 2)
        for inFormat in [CompressionFormat.gzip, .zlib] {
            let input = dir.appendingPathComponent("in.\(from.ext).\(inFormat == .gzip ? "gz" : "zz")")
            try Compression.compress(plain, as: inFormat).write(to: input)
            for to in Self.formats where to.format != .bplist || from.format != .bplist {
                for outFormat in [CompressionFormat?.none, .gzip, .zlib] {
                    let suffix = outFormat.map { $0 == .gzip ? ".gz" : ".zz" } ?? ""
                    let output = dir.appendingPathComponent("out.\(to.ext)\(suffix)")
                    let run = try CLI.run(["convert", input.path, output.path, "--max-memory", budget])
                    #expect(run.status == 0, "\(name) \(inFormat) -> \(to.name)\(suffix): \(run.stderr)")
                    let written = try Data(contentsOf: output)
                    let decoded = try outFormat.map { try Compression.decompress(written, from: $0) } ?? written
                    if to.format == .bplist {
                        #expect(try FormatIO.read(decoded, options: .init(format: .bplist)).value == tree)
                    } else {
                        let whole = try FormatIO.write(tree, as: to.format)
                        #expect(decoded == whole, "\(name) \(inFormat) -> \(to.name)\(suffix)")
                        if let outFormat {
                            #expect(written == (try Compression.compress(whole, as: outFormat)), "the whole route's compressed bytes")
                        }
                    }
                    if let outFormat { #expect(try Self.pythonDecompress(output, outFormat) == decoded) }
                }
            }
        }
    }

    /// JSON Lines and a JSON array of records, gzip in, stream to compressed record outputs
    /// with the whole route's bytes.
    @Test func compressedRecordsStreamToCompressedOutputs() throws {
        let dir = try StreamingConvertCLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let export = StreamingConvertCLITests.export(3000)
        let records = try FormatIO.read(export, options: .init(format: .json)).value
        let jsonl = try FormatIO.write(records, as: .jsonl)
        let budget = String(export.count)
        for (name, bytes) in [("in.jsonl.gz", jsonl), ("in.json.gz", export)] {
            let input = dir.appendingPathComponent(name)
            try Compression.compress(bytes, as: .gzip).write(to: input)
            for (ext, format) in [("jsonl.zz", DataFormat.jsonl), ("cborseq.gz", .cborseq), ("cbor.gz", .cbor)] {
                let output = dir.appendingPathComponent("out.\(ext)")
                let run = try CLI.run(["convert", input.path, output.path, "--max-memory", budget])
                #expect(run.status == 0, "\(name) -> \(ext): \(run.stderr)")
                let whole = try CLI.run(["convert", input.path, "-", "--to", format.rawValue, "--lenient"])
                let compression: CompressionFormat = ext.hasSuffix(".gz") ? .gzip : .zlib
                #expect(try Compression.decompress(try Data(contentsOf: output), from: compression) == whole.stdout, "\(name) -> \(ext)")
            }
        }
    }

    /// A truncated or corrupt compressed input, a bomb and a reading error inside the
    /// decompressed bytes fail with the whole route's error word for word (the whole route is
    /// `--lenient`'s, which never walks), leaving no output.
    @Test func compressedInputErrorsAreTheWholeRoutes() throws {
        let dir = try StreamingConvertCLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cbor = try CBORWriter().write(try Self.canada())
        var badUTF8 = cbor
        let at = try #require(badUTF8.lastRange(of: Data("coordinates".utf8))?.lowerBound)
        badUTF8[at + 1] = 0xC3
        let gzip = try Compression.compress(cbor, as: .gzip)
        var corrupt = gzip
        corrupt[corrupt.count / 2] ^= 0xFF
        var cases: [(String, Data)] = [
            ("truncated.cbor.gz", gzip.prefix(gzip.count / 2)),
            ("corrupt.cbor.gz", corrupt),
            ("truncated.cbor.zz", try Compression.compress(cbor, as: .zlib).dropLast(5)),
            ("bad.cbor.gz", try Compression.compress(badUTF8, as: .gzip)),
            ("bad.cbor.zz", try Compression.compress(badUTF8, as: .zlib)),
        ]
        cases.append(("bomb.zlib", try Data(contentsOf: Fixtures.hostile.appendingPathComponent("zlib_bomb_256MiB_zeros.zlib"))))
        for (name, bytes) in cases {
            let input = dir.appendingPathComponent(name)
            try bytes.write(to: input)
            for output in ["out.json", "out.cbor.gz"] {
                let out = dir.appendingPathComponent(output)
                let walked = try CLI.run(["convert", input.path, out.path, "--to", "json"])
                let whole = try CLI.run(["convert", input.path, out.path, "--to", "json", "--lenient"])
                #expect(walked.status == 1 && walked.stderr == whole.stderr && walked.stderr.split(separator: "\n").count == 1,
                        "\(name): \(walked.stderr) | \(whole.stderr)")
                #expect(!FileManager.default.fileExists(atPath: out.path), "\(name)")
            }
        }
        let bomb = try CLI.run(["convert", dir.appendingPathComponent("bomb.zlib").path, "-", "--to", "json"])
        #expect(bomb.status == 1 && bomb.stderr.contains("maxCompressionRatio") && bomb.stdout.isEmpty, "\(bomb.stderr)")
        let bad = try CLI.run(["convert", dir.appendingPathComponent("bad.cbor.gz").path, "-", "--to", "json"])
        #expect(bad.status == 1 && bad.stderr.contains("features[") && bad.stdout.isEmpty, "\(bad.stderr)")
    }

    /// Records in a gzip or zlib file (several mebibytes, over many of the inflater's slices
    /// and chunks; two gzip members; from a file and from standard input) are inflated as they
    /// stream: each record output is the uncompressed input's, byte for byte.
    @Test func compressedRecordsAreInflatedAsTheyStream() throws {
        let dir = try StreamingConvertCLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let export = StreamingConvertCLITests.export(12_000)
        let records = try FormatIO.read(export, options: .init(format: .json)).value
        let jsonl = try FormatIO.write(records, as: .jsonl)
        #expect(jsonl.count > 1 << 20, "more than one chunk")
        let cut = try #require(jsonl[(jsonl.count / 2)...].firstIndex(of: 0x0A)) + 1
        let members = try Compression.compress(jsonl[..<cut], as: .gzip) + Compression.compress(jsonl[cut...], as: .gzip)
        let inputs: [(name: String, plain: Data, compressed: Data)] = [
            ("in.jsonl.gz", jsonl, try Compression.compress(jsonl, as: .gzip)),
            ("in.jsonl.zz", jsonl, try Compression.compress(jsonl, as: .zlib)),
            ("members.jsonl.gz", jsonl, members),
            ("in.json.gz", export, try Compression.compress(export, as: .gzip)),
        ]
        for input in inputs {
            let file = dir.appendingPathComponent(input.name)
            try input.compressed.write(to: file)
            let plainFile = dir.appendingPathComponent("plain-" + input.name.dropLast(3))
            try input.plain.write(to: plainFile)
            for to in ["jsonl", "cborseq", "parse"] {
                let expected = try CLI.run(["convert", plainFile.path, "-", "--to", to])
                #expect(expected.status == 0, "\(expected.stderr)")
                let output = dir.appendingPathComponent("out.\(to)")
                let run = try CLI.run(["convert", file.path, output.path, "--to", to])
                #expect(run.status == 0 && run.stderr.isEmpty, "\(input.name) -> \(to): \(run.stderr)")
                #expect(try Data(contentsOf: output) == expected.stdout, "\(input.name) -> \(to)")
                guard to == "cborseq" else { continue }
                let piped = try CLI.run(["convert", "-", "-", "--to", to, "--from", input.name.hasPrefix("in.json.") ? "json" : "jsonl"],
                                        input: input.compressed)
                #expect(piped.status == 0 && piped.stdout == expected.stdout, "stdin \(input.name) -> \(to): \(piped.stderr)")
            }
        }
    }

    /// A stream inflated as its records go fails as the whole read does (the whole route is
    /// `--lenient`'s, which never streams), word for word, with no output file: a truncated
    /// stream, a corrupt one whose bad bytes reach a record before zlib's check, a flipped
    /// checksum, bytes after the stream (a few, and mebibytes of them), a bomb and a
    /// decompression budget.
    @Test func recordsInflatedAsTheyStreamFailAsTheWholeReadDoes() throws {
        let dir = try StreamingConvertCLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let records = try FormatIO.read(StreamingConvertCLITests.export(12_000), options: .init(format: .json)).value
        let jsonl = try FormatIO.write(records, as: .jsonl)
        let gzip = try Compression.compress(jsonl, as: .gzip)
        var corrupt = gzip
        corrupt[corrupt.count / 2] ^= 0xFF
        var checksum = gzip
        checksum[checksum.count - 6] ^= 0x01
        let cases: [(String, Data, [String])] = [
            ("truncated.jsonl.gz", gzip.prefix(gzip.count / 2), []),
            ("cut.jsonl.zz", try Compression.compress(jsonl, as: .zlib).dropLast(3), []),
            ("corrupt.jsonl.gz", corrupt, []),
            ("checksum.jsonl.gz", checksum, []),
            ("trailing.jsonl.gz", gzip + Data("garbage".utf8), []),
            ("trailing-mebibytes.jsonl.gz", gzip + Data(repeating: 0x41, count: 3 << 20), []),
            ("bomb.jsonl.gz", try Compression.compress(Data("[".utf8) + Data(repeating: 0x20, count: 64 << 20), as: .gzip), []),
            ("budget.jsonl.gz", gzip, ["--max-decompressed-bytes", String(jsonl.count / 3)]),
        ]
        for (name, bytes, options) in cases {
            let input = dir.appendingPathComponent(name)
            try bytes.write(to: input)
            for to in ["cborseq", "parse"] {
                let out = dir.appendingPathComponent("out.\(to)")
                let streamed = try CLI.run(["convert", input.path, out.path, "--to", to] + options)
                let whole = try CLI.run(["convert", input.path, out.path, "--to", to, "--lenient"] + options)
                #expect(streamed.status == 1 && streamed.stderr == whole.stderr && streamed.stderr.split(separator: "\n").count == 1,
                        "\(name) -> \(to): \(streamed.stderr) | \(whole.stderr)")
                #expect(!FileManager.default.fileExists(atPath: out.path), "\(name)")
            }
        }
    }

    /// The binary property list walk closes a large dictionary while its buffer holds most of
    /// a mebibyte: every byte reaches the file (a writer handing them to nothing lost them).
    @Test func aLargeDictionaryWalkedToABinaryPlistReadsBack() throws {
        let dir = try StreamingConvertCLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var members: OrderedDictionary<String, PFValue> = [:]
        for i in 0..<40_000 { members["k\(i)"] = .dictionary(["x": .int(Int64(i)), "y": .string("v\(i)")]) }
        let tree = PFValue.dictionary(["a": .dictionary(members), "b": .array((0..<20_000).map { .int(Int64($0)) })])
        let input = dir.appendingPathComponent("in.json.gz")
        try Compression.compress(try FormatIO.write(tree, as: .json), as: .gzip).write(to: input)
        for name in ["out.bplist", "out.bplist.zz"] {
            let output = dir.appendingPathComponent(name)
            let run = try CLI.run(["convert", input.path, output.path, "--max-memory", "4000000"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try FormatIO.read(try Data(contentsOf: output)).value == tree, "\(name)")
        }
    }
}
