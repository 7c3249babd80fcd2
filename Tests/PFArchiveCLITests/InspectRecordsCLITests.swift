import Foundation
import PFCore
import PFFormats
import PFJSON
import PFTestSupport
import Testing

/// `inspect` shows a document of records a record at a time (issue 23): the same text as the
/// whole tree's rendering, outside the memory budget, written as the records are read.
@Suite struct InspectRecordsCLITests {
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pfarchive-inspect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Records with nesting, escapes, empty containers, typed JSON and numbers of each kind.
    static func records(_ count: Int) -> [String] {
        (0..<count).map { i in
            "{\"objectId\":\"o\(i)\",\"score\":\(i),\"ratio\":\(Double(i) / 8),\"name\":\"n\\\"\u{e9}\\n\u{1F600}\(i)\","
                + "\"tags\":[[],{},null,true],\"at\":{\"__type\":\"Date\",\"iso\":\"2015-05-19T00:53:50.112Z\"}}"
        }
    }

    /// Inspects `file` as shown a record at a time and as read whole (`whole`: arguments
    /// that make `inspect` read the tree), and expects the same text.
    func expectSameText(_ file: URL, whole: [String], extra: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let streamed = try CLI.run(["inspect", file.path] + extra)
        let read = try CLI.run(["inspect", file.path] + extra + whole)
        #expect(streamed.status == 0 && streamed.stderr.isEmpty, "\(file.lastPathComponent): \(streamed.stderr)", sourceLocation: sourceLocation)
        #expect(read.status == 0, "\(file.lastPathComponent): \(read.stderr)", sourceLocation: sourceLocation)
        #expect(streamed.stdoutText == read.stdoutText, "\(file.lastPathComponent)", sourceLocation: sourceLocation)
        #expect(streamed.stdoutText.contains("\nValue:\n"), sourceLocation: sourceLocation)
    }

    /// `inspect --json` of the whole value, written a record at a time where it is (JSON,
    /// Parse class files, JSON Lines) and read whole with `whole`: the same document.
    func expectSameJSON(_ file: URL, whole: [String], extra: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let streamed = try CLI.run(["inspect", file.path, "--json"] + extra)
        let read = try CLI.run(["inspect", file.path, "--json"] + extra + whole)
        #expect(streamed.status == 0 && streamed.stderr.isEmpty, "\(file.lastPathComponent): \(streamed.stderr)", sourceLocation: sourceLocation)
        #expect(read.status == 0, "\(file.lastPathComponent): \(read.stderr)", sourceLocation: sourceLocation)
        #expect(streamed.stdout == read.stdout, "\(file.lastPathComponent)\n\(streamed.stdoutText)\n\(read.stdoutText)", sourceLocation: sourceLocation)
        #expect(streamed.stdoutText.contains("\n  \"value\": "), sourceLocation: sourceLocation)
    }

    @Test func everyRecordFormatShowsTheWholeTreesText() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rows = Self.records(300)
        let documents: [(String, String)] = [
            ("array.json", "[" + rows.joined(separator: ",\n") + "]"),
            ("results.json", "{\"results\":[" + rows.joined(separator: ",") + "]}"),
            ("others.json", "{ \"results\" : [" + rows.prefix(3).joined(separator: ",") + "], \"count\": 3, \"next\": {\"a\": [1, \"x\"]}}"),
            ("empty-results.json", "{\"results\":[]}"),
            ("empty-array.json", " [ ] "),
            ("scalars.json", "[1,-2,3.5,\"s\",null,false,[],{}]"),
            ("lines.jsonl", rows.prefix(50).joined(separator: "\n") + "\n"),
            ("lines.ndjson", rows.prefix(5).joined(separator: "\r\n")),
        ]
        for (name, text) in documents {
            let file = dir.appendingPathComponent(name)
            try Data(text.utf8).write(to: file)
            // --lenient reads JSON and JSON Lines whole.
            try expectSameText(file, whole: ["--lenient"])
            try expectSameText(file, whole: ["--lenient"], extra: ["--no-typed-json"])
            try expectSameJSON(file, whole: ["--lenient"])
            try expectSameJSON(file, whole: ["--lenient"], extra: ["--no-typed-json"])
        }
        // A Parse class file: its rows are Parse objects.
        let classFile = dir.appendingPathComponent("GameScore.json")
        try Data(("[" + rows.prefix(20).joined(separator: ",") + "]").utf8).write(to: classFile)
        try expectSameText(classFile, whole: ["--lenient"], extra: ["--from", "parse"])
        try expectSameJSON(classFile, whole: ["--lenient"], extra: ["--from", "parse"])
        // CBOR sequences and documents of records (a wrapper with other members too); --decode-blobs reads them whole.
        for name in ["array.json", "others.json", "empty-results.json"] {
            for target in ["cborseq", "cbor", "bplist", "xmlplist"] where !(target == "cborseq" && name != "array.json") {
                let converted = dir.appendingPathComponent("\(name).\(target)")
                let nulls = target.hasSuffix("plist") ? ["--drop-nulls"] : []
                let run = try CLI.run(["convert", dir.appendingPathComponent(name).path, converted.path, "--to", target] + nulls)
                #expect(run.status == 0, "\(name) → \(target): \(run.stderr)")
                try expectSameText(converted, whole: ["--decode-blobs"], extra: target == "cborseq" ? [] : ["--from", target])
                // Their --json is checked a record at a time, then written a record at a time.
                try expectSameJSON(converted, whole: ["--decode-blobs"], extra: target == "cborseq" ? [] : ["--from", target])
            }
        }
    }

    @Test func aPathIsFoundAsTheRecordsGoByAsTheWholeTreeFindsIt() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rows = Self.records(40)
        let documents: [(String, String)] = [
            ("array.json", "[" + rows.joined(separator: ",") + "]"),
            ("others.json", "{\"results\":[" + rows.joined(separator: ",") + "],\"count\":40,\"next\":{\"a\":[1,\"x\"]}}"),
            ("empty-results.json", "{\"results\":[]}"),
            ("lines.jsonl", rows.joined(separator: "\n") + "\n"),
        ]
        let paths = ["[3]", "[39].name", "[3].tags[3]", "[40]", "[-1]", "[0].nope", "results[2].score", "results[39]",
                     "results[40]", "results.x", "count", "next.a[1]", "next", "nope", "[3].at"]
        var files: [(URL, whole: String, extra: [String])] = []
        for (name, text) in documents {
            let file = dir.appendingPathComponent(name)
            try Data(text.utf8).write(to: file)
            files.append((file, "--lenient", []))
            if name.hasSuffix(".json") {
                for target in ["cbor", "bplist", "xmlplist"] {
                    let converted = dir.appendingPathComponent("\(name).\(target)")
                    let run = try CLI.run(["convert", file.path, converted.path, "--to", target, "--drop-nulls"])
                    #expect(run.status == 0, "\(name) → \(target): \(run.stderr)")
                    files.append((converted, "--decode-blobs", ["--from", target]))
                }
            }
        }
        var found = 0
        for (file, whole, extra) in files {
            for path in paths {
                for json in [[], ["--json"]] {
                    let arguments = ["inspect", file.path, "--path", path] + extra + json
                    let streamed = try CLI.run(arguments)
                    let read = try CLI.run(arguments + [whole])
                    let label = "\(file.lastPathComponent) \(path) \(json)"
                    #expect(streamed.status == read.status && streamed.stdout == read.stdout && streamed.stderr == read.stderr,
                            "\(label): \(streamed.stderr) / \(read.stderr)\n\(streamed.stdoutText)\n\(read.stdoutText)")
                    if streamed.status == 0 { found += 1 }
                }
            }
        }
        // Most paths name a value in some file; the others fail as the whole lookup does.
        #expect(found > 60, "\(found)")
    }

    /// A value without a JSON form (a NaN, an infinity) in a CBOR sequence or a property list
    /// of records: `--json` fails with the whole route's error (its place in the whole
    /// document) and writes nothing, even when the value comes after a MiB of records, while
    /// the text is shown a record at a time. The property lists are Foundation's.
    @Test func aValueWithoutAJSONFormFailsBeforeAnyJSONIsWritten() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sequence = dir.appendingPathComponent("nan.cborseq")
        try Data([0xA1, 0x61, 0x61, 0x01, 0xA1, 0x61, 0x61, 0xF9, 0x7E, 0x00]).write(to: sequence)
        let text = try CLI.run(["inspect", sequence.path])
        #expect(text.status == 0 && text.stdoutText.contains("\"a\" => nan"), "\(text.stderr)")
        func record(_ i: Int, _ x: Double) -> [String: Any] { ["i": i, "name": "record \(i) " + String(repeating: "x", count: 100), "x": x] }
        let many = (0..<12_000).map { record($0, $0 == 11_999 ? .nan : 0.5) }
        let documents: [(String, Any, PropertyListSerialization.PropertyListFormat, String)] = [
            ("last.bplist", many, .binary, "value[11999].x"),
            ("last.plist", many, .xml, "value[11999].x"),
            ("results.bplist", ["results": (0..<5).map { record($0, $0 == 2 ? -.infinity : 1) }, "count": 5], .binary, "value.results[2].x"),
            ("count.bplist", ["results": (0..<5).map { record($0, 1) }, "count": Double.nan], .binary, "value.count"),
        ]
        var files = [(sequence, "value[1].a")]
        for (name, plist, format, place) in documents {
            let file = dir.appendingPathComponent(name)
            try PropertyListSerialization.data(fromPropertyList: plist, format: format, options: 0).write(to: file)
            files.append((file, place))
        }
        let cbor = dir.appendingPathComponent("last.cborseq")
        #expect(try CLI.run(["convert", files[1].0.path, cbor.path, "--to", "cborseq"]).status == 0)
        files.append((cbor, "value[11999].x"))
        for (file, place) in files {
            let streamed = try CLI.run(["inspect", file.path, "--json"])
            // --decode-blobs reads the tree whole.
            let whole = try CLI.run(["inspect", file.path, "--json", "--decode-blobs"])
            let name = file.lastPathComponent
            #expect(streamed.status == 1 && streamed.stdout.isEmpty, "\(name): \(streamed.stdoutText.prefix(200))")
            #expect(streamed.stderr == whole.stderr && whole.status == 1, "\(name): \(streamed.stderr) / \(whole.stderr)")
            #expect(streamed.stderr.contains("has no JSON form") && streamed.stderr.contains("(at \(place))"), "\(name): \(streamed.stderr)")
            #expect(streamed.stderr.split(separator: "\n").count == 1)
        }
    }

    /// `--json` of a CBOR sequence or a binary property list of records is shown a record at a
    /// time: inside a `--max-memory` the whole tree is refused under, and the same document.
    @Test func recordsWithoutJSONAreShownAsJSONOutsideTheMemoryBudget() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("records.json")
        try Data(("[" + Self.records(20_000).joined(separator: ",") + "]").utf8).write(to: source)
        for target in ["cborseq", "bplist"] {
            let file = dir.appendingPathComponent("records.\(target)")
            let nulls = target == "bplist" ? ["--drop-nulls"] : []
            #expect(try CLI.run(["convert", source.path, file.path, "--to", target] + nulls).status == 0)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int)
            let budget = ["--max-memory", String(size * 2)]
            let refused = try CLI.run(["inspect", file.path, "--json", "--decode-blobs"] + budget)
            #expect(refused.status == 1 && refused.stderr.contains("--max-memory"), "\(target): \(refused.stderr)")
            let streamed = try CLI.run(["inspect", file.path, "--json"] + budget)
            let whole = try CLI.run(["inspect", file.path, "--json", "--decode-blobs"])
            #expect(streamed.status == 0 && streamed.stderr.isEmpty, "\(target): \(streamed.stderr)")
            #expect(streamed.stdout == whole.stdout, "\(target)")
        }
    }

    @Test func recordsAreShownAsTheyAreRead() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A bad line after 12,000 good ones (3 MB of text): those shown before it (a MiB at
        // a time) are on standard output before the one-line error; read whole, nothing is.
        let file = dir.appendingPathComponent("bad.jsonl")
        try Data((Self.records(12_000) + ["{\"objectId\": oops}"]).joined(separator: "\n").utf8).write(to: file)
        let streamed = try CLI.run(["inspect", file.path])
        #expect(streamed.status == 1)
        #expect(streamed.stderr.split(separator: "\n").count == 1 && streamed.stderr.contains("line 12001"), "\(streamed.stderr)")
        #expect(streamed.stdoutText.contains("  1999 => {\n    \"objectId\" => \"o1999\""))
        let whole = try CLI.run(["inspect", file.path, "--lenient"])
        #expect(whole.status == 1 && whole.stdout.isEmpty)
    }

    @Test func aDocumentOfRecordsIsShownOutsideTheMemoryBudget() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("ones.json")
        let ones = Data(("[" + Array(repeating: "1", count: 50_000).joined(separator: ",") + "]").utf8)
        try ones.write(to: file)
        let budget = ["--max-memory", String(ones.count)]
        let streamed = try CLI.run(["inspect", file.path] + budget)
        #expect(streamed.status == 0 && streamed.stdoutText.hasSuffix("  49999 => 1\n]\n"), "\(streamed.stderr)")
        // A path into a record is found as the records go by, as text or JSON.
        let picked = try CLI.run(["inspect", file.path, "--path", "[49998]"] + budget)
        #expect(picked.status == 0 && picked.stdoutText.hasSuffix("Path:        [49998]\nValue:\n1\n"), "\(picked.stderr)")
        let pickedJSON = try CLI.run(["inspect", file.path, "--path", "[3]", "--json"] + budget)
        #expect(pickedJSON.status == 0 && pickedJSON.stdoutText.contains("\"value\": 1\n"), "\(pickedJSON.stderr) \(pickedJSON.stdoutText)")
        // --json of the whole value is written a record at a time too.
        let wholeJSON = try CLI.run(["inspect", file.path, "--json"] + budget)
        #expect(wholeJSON.status == 0 && wholeJSON.stdoutText.hasSuffix("\n    1\n  ]\n}\n"), "\(wholeJSON.stderr)")
        // Read whole (--lenient, a compressed input, stdin), it is refused up front.
        for arguments in [["--json", "--lenient"], ["--path", "[3]", "--lenient"]] {
            let refused = try CLI.run(["inspect", file.path] + budget + arguments)
            #expect(refused.status == 1 && refused.stderr.contains("--max-memory"), "\(arguments): \(refused.stderr)")
        }
        let piped = try CLI.run(["inspect", "-"] + budget, input: ones)
        #expect(piped.status == 1 && piped.stderr.contains("--max-memory"))
        // Any other JSON document is one value, read whole under the budget.
        let object = dir.appendingPathComponent("object.json")
        try Data(("{\"a\":[" + Array(repeating: "1", count: 50_000).joined(separator: ",") + "]}").utf8).write(to: object)
        #expect(try CLI.run(["inspect", object.path] + budget).status == 1)
    }

    @Test func filesNamedAsRecordSequencesAreReadAsThemByEveryCommand() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = dir.appendingPathComponent("a.jsonl")
        let b = dir.appendingPathComponent("b.ndjson")
        try Data("{\"a\":1}\n{\"b\":[2]}\n".utf8).write(to: a)
        try Data("{\"a\":1}\n{\"b\":3}\n".utf8).write(to: b)
        // diff and inspect read them as JSON Lines (they failed on the second line as JSON).
        let diff = try CLI.run(["diff", a.path, b.path])
        #expect(diff.status == 1 && diff.stdoutText.contains("[1].b"), "\(diff.stderr)")
        let path = try CLI.run(["inspect", a.path, "--path", "[1].b[0]"])
        #expect(path.status == 0 && path.stdoutText.hasSuffix("Value:\n2\n"), "\(path.stderr)")
        // --from still decides: as JSON, the second line is an error.
        #expect(try CLI.run(["inspect", a.path, "--from", "json"]).status == 1)
    }

    @Test func theRenderingInPiecesIsTheWholeRendering() throws {
        let value = try JSONReader().read(Data(("{\"results\":[" + Self.records(40).joined(separator: ",") + "],\"n\":[[[]]]}").utf8))
        for spillBytes in [1, 7, 100, 1 << 20] {
            var pieces: [String] = []
            var text = ""
            value.renderTree(into: &text, spillBytes: spillBytes) { text in
                pieces.append(text)
                text = ""
            }
            #expect(pieces.joined() + text == value.treeDescription())
            if spillBytes < 100 { #expect(pieces.count > 40) }
        }
        // A value inside a tree renders as it does there.
        guard case .dictionary(let top) = value, case .array(let records)? = top["results"] else {
            Issue.record("not a results wrapper")
            return
        }
        var inner = ""
        records[3].renderTree(into: &inner, indent: 2, depth: 2) { _ in }
        #expect(value.treeDescription().contains("    3 => " + inner + "\n    4 => "))
    }
}
