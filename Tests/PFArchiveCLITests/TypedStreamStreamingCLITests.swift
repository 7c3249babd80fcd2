import Foundation
import OrderedCollections
import PFCore
import PFFormats
import PFSerialization
import PFTestSupport
import Testing

/// `convert` of a large JSON document, property list or CBOR document that is not of records
/// to a typedstream file writes it by its large containers (issue 23): the whole route's
/// bytes, inside a `--max-memory` the whole tree is refused under; a document the walk
/// cannot write as the whole route does (a large dictionary with `$id`, `$ref` or `$class`)
/// falls back to the whole route; an error is the whole route's one line, exit 1, no file.
@Suite struct TypedStreamStreamingCLITests {
    /// A document of a few large containers (each over the 1 MiB threshold) that is not of
    /// records, with `extra` members in its root.
    static func document(extra: OrderedDictionary<String, PFValue> = [:]) -> PFValue {
        var rows: [PFValue] = []
        for i in 0..<20_000 {
            rows.append(["i": .int(Int64(i)), "name": .string("row \(i) é e\u{301} \u{1F600}"), "x": .double(Double(i) / 8), "ok": .bool(i % 2 == 0)])
        }
        var map: OrderedDictionary<String, PFValue> = [:]
        for i in 0..<8_000 { map["k\(i)"] = ["v": .int(Int64(i) * 1_000_003), "list": [1, 2.5, "s", [:], []]] }
        var root: OrderedDictionary<String, PFValue> = ["type": "Collection", "rows": .array(rows), "map": .dictionary(map), "empty": [:]]
        for (key, value) in extra { root[key] = value }
        return .dictionary(root)
    }

    /// The whole route's output: `--lenient` reads the document whole, never walked.
    static func whole(_ input: URL, _ output: URL) throws -> (Peers.Result, Data?) {
        let run = try CLI.run(["convert", input.path, output.path, "--lenient"])
        defer { try? FileManager.default.removeItem(at: output) }
        return (run, try? Data(contentsOf: output))
    }

    @Test func largeDocumentsStreamToTheWholeRoutesBytes() throws {
        let dir = try StreamingConvertCLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tree = Self.document()
        for from in [DataFormat.json, .cbor, .bplist, .xmlplist] {
            let input = dir.appendingPathComponent("in.\(from.rawValue)")
            let bytes = try FormatIO.write(tree, as: from)
            try bytes.write(to: input)
            let output = dir.appendingPathComponent("out.typedstream")
            let (wholeRun, expected) = try Self.whole(input, dir.appendingPathComponent("whole.typedstream"))
            #expect(wholeRun.status == 0, "\(from): \(wholeRun.stderr)")
            // Inside a budget the whole tree is refused under: it streams.
            let budget = ["--max-memory", String(bytes.count * 2)]
            let refused = try CLI.run(["convert", input.path, dir.appendingPathComponent("refused.typedstream").path, "--lenient"] + budget)
            #expect(refused.status == 1 && refused.stderr.contains("--max-memory"), "\(from): \(refused.stderr)")
            let run = try CLI.run(["convert", input.path, output.path] + budget)
            #expect(run.status == 0 && run.stderr.isEmpty, "\(from): \(run.stderr)")
            let written = try Data(contentsOf: output)
            #expect(written == expected, "\(from): \(written.count) bytes, whole \(expected?.count ?? -1)")
            #expect(try FormatIO.read(written, options: .init(format: .typedstream)).value == tree, "\(from)")
            // Standard output is written whole (a walk may be abandoned part written): the same bytes.
            let piped = try CLI.run(["convert", input.path, "-", "--to", "typedstream"])
            #expect(piped.status == 0 && piped.stdout == expected, "\(from) to standard output")
        }
    }

    /// A keyed archive that is not records, read `--from keyed`, streams too: the bytes the
    /// whole route writes to standard output, inside a budget the whole tree is refused under.
    @Test func keyedArchivesStreamToTheWholeRoutesBytes() throws {
        let dir = try StreamingConvertCLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.keyed")
        let archive = try FormatIO.write(Self.document(), as: .keyed)
        try archive.write(to: input)
        let budget = ["--max-memory", String(archive.count)]
        let output = dir.appendingPathComponent("out.typedstream")
        let run = try CLI.run(["convert", input.path, "--from", "keyed", output.path] + budget)
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        let whole = try CLI.run(["convert", input.path, "--from", "keyed", "-", "--to", "typedstream"])
        #expect(whole.status == 0 && (try? Data(contentsOf: output)) == whole.stdout)
        let refused = try CLI.run(["convert", input.path, "--from", "keyed", "-", "--to", "typedstream"] + budget)
        #expect(refused.status == 1 && refused.stderr.contains("--max-memory"), "\(refused.stderr)")
    }

    /// A large dictionary with `$id` (written without it, shared) or `$class` (perhaps an
    /// object of that class): the walk gives up and the whole route writes the file.
    @Test func declinedDocumentsAreWrittenWhole() throws {
        let dir = try StreamingConvertCLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (label, extra) in [("$id", ["$id": PFValue.int(5)]), ("$class", ["$class": "Thing"])] as [(String, OrderedDictionary<String, PFValue>)] {
            let input = dir.appendingPathComponent("in.json")
            try FormatIO.write(Self.document(extra: extra), as: .json).write(to: input)
            let output = dir.appendingPathComponent("out.typedstream")
            let (wholeRun, expected) = try Self.whole(input, dir.appendingPathComponent("whole.typedstream"))
            #expect(wholeRun.status == 0, "\(label): \(wholeRun.stderr)")
            let run = try CLI.run(["convert", input.path, output.path])
            #expect(run.status == 0 && run.stderr.isEmpty, "\(label): \(run.stderr)")
            #expect(try Data(contentsOf: output) == expected, "\(label)")
        }
    }

    /// A member the whole writer fails on: its one-line error, exit 1, and no file left.
    @Test func writingErrorsAreTheWholeRoutes() throws {
        let dir = try StreamingConvertCLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.json")
        try FormatIO.write(Self.document(extra: ["bad": ["$ref": 99]]), as: .json).write(to: input)
        let output = dir.appendingPathComponent("out.typedstream")
        let wholeRun = try CLI.run(["convert", input.path, output.path, "--lenient"])
        let run = try CLI.run(["convert", input.path, output.path])
        #expect(run.status == 1 && wholeRun.status == 1)
        #expect(run.stderr == wholeRun.stderr && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["in.json"])
    }
}
