import Foundation
import PFCompression
import PFCore
import PFJSON
import PFKeyedArchive
import PFTestSupport
import Testing

/// `copy` and `inspect` open their input through the one layer (issue 22): the decoding
/// limits given on the command line bound `copy` as they bound `convert` and `inspect`, and a
/// zlib look-alike reads as what it is in every command.
@Suite struct OpenBytesCLITests {
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pfarchive-openbytes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static let graph: PFValue = ["$class": "Team", "name": "core", "members": [["$class": "Person", "name": "Ann", "tags": ["a", ["b", ["c"]]]]]]

    /// Fails on the main branch before the layer: `copy` took no limit options (exit 2) and
    /// read every input under the defaults.
    @Test func copyHonoursTheDecodingLimits() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = dir.appendingPathComponent("team.json")
        try JSONWriter().write(Self.graph).write(to: json)
        let archive = dir.appendingPathComponent("team.archive")
        try KeyedArchive.archive(try KeyedGraph(json: Self.graph)).write(to: archive)
        let packed = dir.appendingPathComponent("team.json.gz")
        try Compression.compress(try Data(contentsOf: json), as: .gzip).write(to: packed)
        let out = dir.appendingPathComponent("out.json")
        let cases: [(URL, [String], String)] = [
            (json, ["--max-depth", "3"], "maxDepth (3)"),
            (archive, ["--max-depth", "3"], "maxDepth (3)"),
            (json, ["--max-bytes", "20"], "maxInputBytes (20)"),
            (archive, ["--max-nodes", "5"], "maxNodes (5)"),
            (json, ["--max-string-bytes", "2"], "maxStringBytes (2)"),
            (packed, ["--max-decompressed-bytes", "30"], "maxDecompressedBytes (30)"),
            (json, ["--max-memory", "100"], "--max-memory"),
        ]
        for (input, options, message) in cases {
            let result = try CLI.run(["copy", input.path, out.path] + options)
            #expect(result.status == 1, "\(options): \(result.stderr)")
            #expect(result.stderr.contains(message) && result.stderr.split(separator: "\n").count == 1, "\(options): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
        // Within the limits the same copies go through.
        for input in [json, archive, packed] {
            let result = try CLI.run(["copy", input.path, "-", "--max-depth", "8", "--max-bytes", "100000"])
            #expect(result.status == 0, "\(input.lastPathComponent): \(result.stderr)")
        }
        #expect(try CLI.run(["copy", json.path, "-", "--max-depth", "0"]).status == 2)
    }

    /// `80` passes zlib's 2-byte header check. Fails on the main branch before the layer:
    /// `copy` reported "zlib: compressed data ends after 2 bytes" while
    /// `convert` and `inspect` read it as JSON.
    @Test func aZlibLookalikeReadsAsWhatItIsInEveryCommand() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("n.json")
        try Data("80".utf8).write(to: input)
        #expect(Compression.detect(Data("80".utf8)) == .zlib)
        let convert = try CLI.run(["convert", input.path, "-"])
        #expect(convert.status == 0 && convert.stdout == Data("80".utf8), "\(convert.stderr)")
        let inspect = try CLI.run(["inspect", input.path, "--json"])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let report = try JSONReader().read(inspect.stdout)
        #expect(report["format"] == "json" && report["compression"] == .null && report["value"] == 80)
        let copy = try CLI.run(["copy", input.path, "-"])
        #expect(copy.status == 0, "\(copy.stderr)")
        #expect(try JSONReader().read(copy.stdout) == 80)
        // A real truncated zlib stream is still a zlib error, one line, exit 1, everywhere.
        let truncated = Fixtures.hostile.appendingPathComponent("zlib_truncated.zlib")
        for arguments in [["convert", truncated.path, "-", "--to", "json"], ["inspect", truncated.path], ["copy", truncated.path, "-"],
                          ["inspect", truncated.path, "--graph"]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 1 && result.stderr.contains("zlib") && result.stderr.split(separator: "\n").count == 1,
                    "\(arguments): \(result.stderr)")
        }
    }
}
