import Foundation
import PFCompression
import PFFormats
import PFTestSupport
import Testing

/// Whole-tree reads refuse up front, with one line and exit 1, an input whose tree is
/// estimated not to fit in `--max-memory` — running out of memory is an abort, not exit 1
/// (issue 21).
@Suite struct MemoryBudgetCLITests {
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pfarchive-memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// About 200 KB of JSON: estimated at 36 × its size.
    static let json = Data(("[" + Array(repeating: "1", count: 100_000).joined(separator: ",") + "]").utf8)

    @Test func aTreeThatWouldNotFitIsRefusedBeforeItIsRead() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.json")
        try Self.json.write(to: input)
        let gzipped = dir.appendingPathComponent("in.json.gz")
        try Compression.compress(Self.json, as: .gzip).write(to: gzipped)
        // JSON to JSON under 1 MiB is copied whole; a property list or CBOR document of the
        // array's records would be written a record at a time, outside the budget (and a larger
        // document by its large containers, StreamingConvertCLITests).
        let out = dir.appendingPathComponent("out.json")
        let need = MemoryBudget.estimate(.json, inputBytes: Self.json.count)
        #expect(need == Self.json.count * 36)
        // The decompressed size is what counts: the gzip file is a few hundred bytes. `inspect`
        // shows the plain array a record at a time, outside the budget (InspectRecordsCLITests).
        for source in [input, gzipped] {
            let commands = source == input ? [["convert", source.path, out.path], ["inspect", source.path, "--lenient"]]
                : [["convert", source.path, out.path], ["inspect", source.path]]
            for arguments in commands {
                let refused = try CLI.run(arguments + ["--max-memory", String(need - 1)])
                #expect(refused.status == 1, "\(arguments): \(refused.stderr)")
                #expect(refused.stderr.split(separator: "\n").count == 1 && refused.stderr.contains("--max-memory")
                        && refused.stderr.contains("memory budget (\(need - 1) bytes, --max-memory)"), "\(refused.stderr)")
                #expect(refused.stdout.isEmpty)
                let fits = try CLI.run(arguments + ["--max-memory", String(need)])
                #expect(fits.status == 0, "\(arguments): \(fits.stderr)")
            }
        }
        try? FileManager.default.removeItem(at: out)
        let refused = try CLI.run(["convert", input.path, out.path, "--max-memory", "1000"])
        #expect(refused.status == 1 && !FileManager.default.fileExists(atPath: out.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["in.json", "in.json.gz"])
        #expect(try CLI.run(["convert", input.path, "-", "--max-memory", "0"]).status == 2)
    }

    /// `validate` (a class file) and `migrate` (an archive) read whole trees too.
    @Test func validateAndMigrateRefuseWhatWouldNotFit() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let classFile = dir.appendingPathComponent("Thing.json")
        try Self.json.write(to: classFile)
        let need = MemoryBudget.estimate(.json, inputBytes: Self.json.count)
        let refused = try CLI.run(["validate", classFile.path, "--max-memory", String(need - 1)])
        #expect(refused.status == 1 && refused.stderr.split(separator: "\n").count == 1 && refused.stderr.contains("--max-memory"), "\(refused.stderr)")
        #expect(try CLI.run(["validate", classFile.path, "--max-memory", "0"]).status == 2)

        // The versioning sample: its archive and schema.
        let samples = Fixtures.repoRoot.appendingPathComponent("Samples/versioning")
        let out = dir.appendingPathComponent("out.archive")
        let migrate = try CLI.run([
            "migrate", samples.appendingPathComponent("employees-v1.archive").path, out.path,
            "--schema", samples.appendingPathComponent("schema.json").path, "--max-memory", "100",
        ])
        #expect(migrate.status == 1 && migrate.stderr.split(separator: "\n").count == 1 && migrate.stderr.contains("--max-memory"), "\(migrate.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func theDefaultIsHalfTheMemoryTheProcessMayUse() {
        let available = MemoryBudget.availableMemory
        #expect(available > 0 && available <= ProcessInfo.processInfo.physicalMemory)
        #expect(MemoryBudget.defaultMaxBytes == Int(clamping: available / 2))
        #expect(MemoryBudget().maxBytes == MemoryBudget.defaultMaxBytes)
        #expect(MemoryBudget.estimate(.bplist, inputBytes: .max / 2) == .max)
        // A 1 GiB JSON input (the default maxInputBytes) needs 17 GiB, refused on smaller machines.
        #expect(MemoryBudget.estimate(.json, inputBytes: 1 << 30) == 36 << 30)
    }
}
