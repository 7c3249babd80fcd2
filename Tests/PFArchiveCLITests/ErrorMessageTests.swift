import Foundation
import PFCompression
import PFTestSupport
import Testing

/// What the CLI's one-line errors say: an empty input is empty, and a file named by the
/// CLI is not named again by the store's message (issue 21).
@Suite struct ErrorMessageTests {
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pfarchive-messages-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func anEmptyInputIsCalledEmpty() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let empty = dir.appendingPathComponent("empty.json")
        try Data().write(to: empty)
        let gzipped = dir.appendingPathComponent("empty.json.gz")
        try Compression.compress(Data(), as: .gzip).write(to: gzipped)
        for (arguments, input, says) in [
            (["convert", empty.path, "-"], nil, "empty.json: input: the input is empty (0 bytes)"),
            (["inspect", empty.path], nil, "empty.json: input: the input is empty (0 bytes)"),
            (["inspect", gzipped.path], nil, "the input is empty (0 bytes after decompression)"),
            (["convert", "-", "-"], Data(), "<stdin>: input: the input is empty (0 bytes)"),
        ] as [([String], Data?, String)] {
            let run = try CLI.run(arguments, input: input)
            #expect(run.status == 1, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(says) && !run.stderr.contains("unrecognised"), "\(arguments): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1)
        }
    }

    /// What a helper running real files met: a value the output cannot hold, written to
    /// standard output, was blamed on "<stdin>"; a malformed typed JSON object named the
    /// library's `typedValues` instead of `--no-typed-json`; JSON Lines shipped as `.json`
    /// (an NDJSON library's test file) failed without a word about `--from jsonl`, and JSON
    /// with comments (a devcontainer.json) without a word about `--lenient`.
    @Test func errorsNameTheOutputAndTheFlagsThatHelp() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let lenient = dir.appendingPathComponent("inf.json"), typed = dir.appendingPathComponent("typed.json")
        let lines = dir.appendingPathComponent("records.json")
        try Data(#"{"a":Infinity}"#.utf8).write(to: lenient)
        try Data(#"{"d":{"__type":"Date","iso":"yesterday"}}"#.utf8).write(to: typed)
        try Data("{\"a\":1}\n{\"a\":2}\n".utf8).write(to: lines)
        // A devcontainer.json: JSON with comments.
        let commented = dir.appendingPathComponent("devcontainer.json")
        try Data("{\n  // the image\n  \"image\": \"swift\"\n}\n".utf8).write(to: commented)
        for (arguments, says) in [
            (["convert", commented.path, "-"], "at line 2, column 3 (byte 4); it looks like JSON with comments: pass --lenient"),
            (["convert", lenient.path, "-", "--lenient", "--to", "json"], "pfarchive: <stdout>: JSON: inf has no JSON form"),
            (["convert", typed.path, "-"], "(at d.iso); pass --no-typed-json to keep such objects as dictionaries"),
            (["inspect", lines.path], "at line 2, column 1 (byte 8); it looks like JSON Lines (one value per line): pass --from jsonl"),
        ] {
            let run = try CLI.run(arguments)
            #expect(run.status == 1 && run.stderr.contains(says), "\(arguments): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1 && !run.stderr.contains("typedValues"), "\(run.stderr)")
        }
        // With the flags, each reads.
        #expect(try CLI.run(["convert", typed.path, "-", "--no-typed-json"]).status == 0)
        #expect(try CLI.run(["convert", lines.path, "-", "--from", "jsonl"]).status == 0)
        #expect(try CLI.run(["convert", commented.path, "-", "--lenient"]).stdoutText == #"{"image":"swift"}"#)
        // copy has neither flag: no such advice.
        let copy = try CLI.run(["copy", typed.path, "-"])
        #expect(copy.status == 1 && !copy.stderr.contains("--no-typed-json"), "\(copy.stderr)")
    }

    @Test func aBrokenCoreDataStoreIsNamedOnce() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // The first 3,000 bytes of a Core Data store: the SQLite header is there, the schema is not.
        let whole = try Data(contentsOf: Fixtures.real.appendingPathComponent("coredata/coredataplus/SampleModel2_V2.sqlite"))
        let store = dir.appendingPathComponent("Short.sqlite")
        try whole.prefix(3000).write(to: store)
        let dest = dir.appendingPathComponent("out.sqlite")
        for arguments in [["inspect", store.path], ["import", store.path, dest.path]] {
            let run = try CLI.run(arguments)
            #expect(run.status == 1, "\(arguments): \(run.stderr)")
            #expect(run.stderr.components(separatedBy: "Short.sqlite").count == 2, "\(arguments): named more than once: \(run.stderr)")
            #expect(!run.stderr.contains("Parse"), "\(arguments): \(run.stderr)")
        }
    }
}
