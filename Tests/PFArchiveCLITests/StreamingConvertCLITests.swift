import Foundation
import PFCBOR
import PFCore
import PFFormats
import PFJSON
import PFKeyedArchive
import PFPropertyList
import PFTestSupport
import Testing

/// `convert` between JSON documents of records, JSON Lines and CBOR sequences streams a
/// record at a time: same bytes as the whole-tree route, exempt from the memory budget, and
/// one clean line naming the record when a record is bad (issue 23).
@Suite struct StreamingConvertCLITests {
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pfarchive-stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A Parse-like export of `count` objects with a few quirks per object.
    static func export(_ count: Int) -> Data {
        var rows: [String] = []
        for i in 0..<count {
            rows.append(
                "{\"objectId\":\"o\(i)\",\"score\":\(i),\"name\":\"n\u{e9}\u{1F600}\(i)\",\"tags\":[[],{}],\"at\":{\"__type\":\"Date\",\"iso\":\"2015-05-19T00:53:50.112Z\"}}")
        }
        return Data(("{\"results\":[" + rows.joined(separator: ",\n") + "]}").utf8)
    }

    @Test func jsonToLinesAndBackMatchesTheWholeTreeRoute() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let big = dir.appendingPathComponent("big.json")
        try Self.export(20_000).write(to: big)
        let lines = dir.appendingPathComponent("big.jsonl")
        let run = try CLI.run(["convert", big.path, lines.path])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        let text = try String(contentsOf: lines, encoding: .utf8)
        #expect(text.split(separator: "\n").count == 20_000 && text.hasSuffix("\n"))
        // --lenient reads the document whole: the same bytes.
        let whole = try CLI.run(["convert", big.path, "-", "--to", "jsonl", "--lenient"])
        let lineBytes = try Data(contentsOf: lines)
        #expect(whole.status == 0 && whole.stdout == lineBytes)
        // Back to a JSON array, through a CBOR sequence and an .ndjson name.
        let sequence = dir.appendingPathComponent("big.cborseq")
        #expect(try CLI.run(["convert", lines.path, sequence.path]).status == 0)
        let ndjson = dir.appendingPathComponent("again.ndjson")
        #expect(try CLI.run(["convert", sequence.path, ndjson.path]).status == 0)
        #expect(try Data(contentsOf: ndjson) == lineBytes)
        let back = try CLI.run(["convert", ndjson.path, "-", "--to", "json"])
        let expected = try FormatIO.write(.array(try JSONLines.Reader.read(try Data(contentsOf: lines), reader: JSONReader())), as: .json)
        #expect(back.status == 0 && back.stdout == expected)
        // Standard input streams too.
        let piped = try CLI.run(["convert", "-", "-", "--from", "jsonl", "--to", "parse"], input: try Data(contentsOf: lines))
        #expect(piped.status == 0 && piped.stdoutText.hasPrefix("[{\"objectId\":\"o0\""), "\(piped.stderr)")
        // A binary property list of JSON Lines input (written a record at a time) and back.
        let plist = dir.appendingPathComponent("big.bplist")
        #expect(try CLI.run(["convert", lines.path, plist.path]).status == 0)
        let fromPlist = try CLI.run(["convert", plist.path, "-", "--to", "jsonl"])
        #expect(fromPlist.status == 0 && fromPlist.stdout == lineBytes)
    }

    @Test func aKeyedArchiveOfRecordsConvertsAsTheWholeRouteDoes() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = dir.appendingPathComponent("export.json")
        try Self.export(2_000).write(to: json)
        let archive = dir.appendingPathComponent("export.archive")
        #expect(try CLI.run(["convert", json.path, archive.path, "--to", "keyed"]).status == 0)
        // A compressed copy of the archive: the same bytes, to a file and to standard output.
        let compressed = dir.appendingPathComponent("export.archive.gz")
        #expect(try CLI.run(["convert", archive.path, compressed.path, "--from", "bplist", "--to", "bplist", "--compress", "gzip"]).status == 0)
        for to in ["json", "jsonl", "cborseq", "cbor", "xmlplist", "bplist"] {
            let out = dir.appendingPathComponent("out.\(to)")
            // Streamed: within a memory budget the whole route is refused under.
            let streamed = try CLI.run(["convert", archive.path, out.path, "--from", "keyed", "--to", to, "--max-memory", "2000000"])
            // Compressed, it streams too (decompressed once), within the same budget.
            let compressedRun = try CLI.run(["convert", compressed.path, "-", "--from", "keyed", "--to", to, "--max-memory", "2000000"])
            #expect(compressedRun.status == 0, "\(to): \(compressedRun.stderr)")
            let whole = try CLI.run(["convert", compressed.path, "-", "--from", "keyed", "--to", to])
            #expect(streamed.status == 0 && whole.status == 0, "\(streamed.stderr) \(whole.stderr)")
            let piped = try CLI.run(["convert", archive.path, "-", "--from", "keyed", "--to", to])
            if to == "bplist" {
                // Laid out by the stream writer: the same value.
                let back = try CLI.run(["convert", out.path, "-", "--to", "json"])
                let wholeBack = try CLI.run(["convert", "-", "-", "--from", "bplist", "--to", "json"], input: whole.stdout)
                #expect(back.status == 0 && back.stdout == wholeBack.stdout && !back.stdout.isEmpty, "\(back.stderr) \(wholeBack.stderr)")
                #expect(piped.status == 0)
            } else {
                #expect(try Data(contentsOf: out) == whole.stdout, "\(to)")
                #expect(piped.stdout == whole.stdout, "\(to)")
            }
        }
        // An archive whose root is not records is converted whole, to the same file.
        let single = dir.appendingPathComponent("single.archive")
        try Data("{\"a\":[1,{\"b\":2}]}".utf8).write(to: dir.appendingPathComponent("single.json"))
        #expect(try CLI.run(["convert", dir.appendingPathComponent("single.json").path, single.path, "--to", "keyed"]).status == 0)
        let out = dir.appendingPathComponent("single-out.json")
        #expect(try CLI.run(["convert", single.path, out.path, "--from", "keyed"]).status == 0)
        #expect(try String(contentsOf: out, encoding: .utf8) == "{\"a\":[1,{\"b\":2}]}")
    }

    @Test func aKeyedArchiveOverTheNodeBudgetFailsAsTheWholeRouteDoes() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // One record, and 20 arrays of 100 numbers nothing refers to: 101 nodes each, over
        // 2,000 in the file. The whole read counts them all against --max-nodes.
        var table = try KeyedArchive.readTable(KeyedArchive.archive(KeyedGraph(json: .array([.string("record")])))).table
        for i in 0..<20 { table.objects.append(.array((0..<100).map { .int(Int64(i * 100 + $0)) })) }
        let archive = dir.appendingPathComponent("padded.archive")
        try KeyedArchive.write(table).write(to: archive)
        let out = dir.appendingPathComponent("out.json")
        let streamed = try CLI.run(["convert", archive.path, out.path, "--from", "keyed", "--max-nodes", "1000"])
        #expect(streamed.status == 1)
        #expect(streamed.stderr.contains("maxNodes") && streamed.stderr.split(separator: "\n").count == 1, "\(streamed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        // --pretty is converted whole: the same line.
        let whole = try CLI.run(["convert", archive.path, out.path, "--from", "keyed", "--max-nodes", "1000", "--pretty"])
        #expect(whole.status == 1 && whole.stderr == streamed.stderr, "\(whole.stderr)")
        // Within the budget, the padding is read and is not part of the graph.
        #expect(try CLI.run(["convert", archive.path, out.path, "--from", "keyed"]).status == 0)
        #expect(try Data(contentsOf: out) == Data("[\"record\"]".utf8))
    }

    @Test func aBadLineFailsWithOneLineNamingItAndLeavesNoOutput() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.jsonl")
        var text = ""
        for i in 0..<5000 { text += i == 3210 ? "{\"a\": [1, 2}\n" : "{\"a\":\(i)}\n" }
        try Data(text.utf8).write(to: input)
        let out = dir.appendingPathComponent("out.json")
        let run = try CLI.run(["convert", input.path, out.path])
        #expect(run.status == 1)
        #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.contains("line 3211"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["in.jsonl"])
        // A bad row of a JSON array names the row.
        let array = dir.appendingPathComponent("in.json")
        try Data("[{\"a\":1},{\"a\":1,\"a\"}]".utf8).write(to: array)
        let row = try CLI.run(["convert", array.path, "-", "--to", "jsonl"])
        #expect(row.status == 1 && row.stderr.contains("row 1") && row.stderr.split(separator: "\n").count == 1, "\(row.stderr)")
    }

    /// A binary plist, CBOR document or XML plist of records is read a record at a time; cut
    /// short or damaged late, it fails with one line and exit 1 after records were already
    /// converted, leaving no output file and an earlier file at the destination untouched.
    @Test func aDamagedPlistOrCBORDocumentOfRecordsLeavesNoOutput() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("export.json")
        try Self.export(3000).write(to: source)
        for (name, format) in [("records.bplist", "bplist"), ("records.cbor", "cbor"), ("records.plist", "xmlplist")] {
            let whole = dir.appendingPathComponent(name)
            let made = try CLI.run(["convert", source.path, whole.path, "--to", format])
            #expect(made.status == 0, "\(made.stderr)")
            let bytes = try Data(contentsOf: whole)
            let streamed = try CLI.run(["convert", whole.path, "-", "--to", "jsonl"])
            #expect(streamed.status == 0 && streamed.stdout.split(separator: UInt8(ascii: "\n")).count == 3000, "\(format): \(streamed.stderr)")
            // Cut at 90%: the records before the cut convert, then the document ends early.
            // A bplist's trailer is at its end, so its last quarter is overwritten instead.
            var damaged = bytes
            if format == "bplist" {
                let from = bytes.count * 3 / 4
                damaged.replaceSubrange(from..<(bytes.count - 40), with: Data(repeating: 0xFF, count: bytes.count - 40 - from))
            } else {
                damaged = bytes.prefix(bytes.count * 9 / 10)
            }
            let input = dir.appendingPathComponent("damaged-" + name)
            try damaged.write(to: input)
            for to in ["jsonl", "json", "cbor"] {
                let out = dir.appendingPathComponent("out-\(format).\(to)")
                let run = try CLI.run(["convert", input.path, out.path])
                #expect(run.status == 1, "\(format) → \(to): \(run.stderr)")
                #expect(run.stderr.hasPrefix("pfarchive: ") && run.stderr.split(separator: "\n").count == 1, "\(format) → \(to): \(run.stderr)")
                #expect(!FileManager.default.fileExists(atPath: out.path), "\(format) → \(to) left an output")
                let kept = dir.appendingPathComponent("kept-\(format).\(to)")
                try Data("earlier".utf8).write(to: kept)
                #expect(try CLI.run(["convert", input.path, kept.path]).status == 1)
                #expect(try Data(contentsOf: kept) == Data("earlier".utf8), "\(format) → \(to) damaged the destination")
            }
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") || $0.contains("tmp") }
        #expect(left.isEmpty, "temporary files left: \(left)")
    }

    /// Streamed routes are bounded, so the memory budget does not apply to them; a whole-tree
    /// route from the same input is refused up front.
    @Test func streamingIsExemptFromTheMemoryBudgetAndWholeTreesAreNot() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.json")
        let bytes = Self.export(2000)
        try bytes.write(to: input)
        let budget = String(bytes.count * 2)
        let streamed = try CLI.run(["convert", input.path, dir.appendingPathComponent("out.jsonl").path, "--max-memory", budget])
        #expect(streamed.status == 0, "\(streamed.stderr)")
        let lines = dir.appendingPathComponent("out.jsonl")
        // A whole CBOR document of the records is written a record at a time too.
        let cbor = try CLI.run(["convert", lines.path, dir.appendingPathComponent("out.cbor").path, "--max-memory", budget])
        #expect(cbor.status == 0, "\(cbor.stderr)")
        // And a binary property list (issue 23), which reads back as the records.
        let plist = dir.appendingPathComponent("out.bplist")
        let bplist = try CLI.run(["convert", lines.path, plist.path, "--max-memory", budget])
        #expect(bplist.status == 0, "\(bplist.stderr)")
        let back = try CLI.run(["convert", plist.path, "-", "--to", "jsonl"])
        let lineBytes = try Data(contentsOf: lines)
        #expect(back.status == 0 && back.stdout == lineBytes, "\(back.stderr)")
        // Indented JSON is written whole.
        let refused = try CLI.run(["convert", lines.path, dir.appendingPathComponent("pretty.json").path, "--pretty", "--max-memory", budget])
        #expect(refused.status == 1 && refused.stderr.contains("--max-memory") && refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("pretty.json").path))
    }

    /// Converts `input` to JSON, CBOR and both property lists within `budget`, expecting the
    /// whole route's output of `tree` (a binary property list: the same value read back).
    static func expectWalked(_ input: URL, tree: PFValue, budget: String, in dir: URL) throws {
        for to in ["json", "cbor", "xmlplist", "bplist"] {
            let walked = dir.appendingPathComponent("walked.\(to == "xmlplist" ? "plist" : to)")
            let run = try CLI.run(["convert", input.path, walked.path, "--max-memory", budget])
            #expect(run.status == 0, "\(to): \(run.stderr)")
            if to == "bplist" {
                #expect(try FormatIO.read(try Data(contentsOf: walked), options: .init(format: .bplist)).value == tree, "bplist reads back alike")
            } else {
                let whole = try FormatIO.write(tree, as: to == "json" ? .json : to == "cbor" ? .cbor : .xmlplist)
                #expect(try Data(contentsOf: walked) == whole, "\(to)")
            }
        }
    }

    /// A JSON document that is not records (canada's feature collection) is walked by its
    /// large containers to JSON, CBOR and property lists: exempt from a budget the whole route
    /// is refused under, with the whole route's output (a binary property list: the same
    /// value); a malformed typed value in a large container fails as the whole route does.
    @Test func largeJSONDocumentsAreWalkedUnderABudgetTheTreeIsRefused() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = Fixtures.benchData.appendingPathComponent("canada.json")
        let budget = String(try Data(contentsOf: input).count * 2)
        let tree = try FormatIO.read(try Data(contentsOf: input), options: .init(format: .json)).value
        try Self.expectWalked(input, tree: tree, budget: budget, in: dir)
        let pretty = try CLI.run(["convert", input.path, "-", "--pretty", "--max-memory", budget])
        #expect(pretty.status == 0, "\(pretty.stderr)")
        // A compressed output is walked too (compressed on the way); --lenient reads it whole.
        let compressed = try CLI.run(["convert", input.path, dir.appendingPathComponent("out.cbor.gz").path, "--max-memory", budget])
        #expect(compressed.status == 0, "\(compressed.stderr)")
        let refused = try CLI.run(["convert", input.path, dir.appendingPathComponent("out.cbor.gz").path, "--max-memory", budget, "--lenient"])
        #expect(refused.status == 1 && refused.stderr.contains("--max-memory"), "\(refused.stderr)")
        // A bad typed value after 2 MB of coordinates: the whole route's error, no output.
        var bad = try Data(contentsOf: input)
        bad.removeLast(bad.count - (bad.lastIndex(of: UInt8(ascii: "}")) ?? bad.count))
        bad.append(contentsOf: Data(#","when":{"__type":"Date","iso":"never"}}"#.utf8))
        let badPath = dir.appendingPathComponent("bad.json")
        try bad.write(to: badPath)
        let out = dir.appendingPathComponent("bad.cbor")
        let failed = try CLI.run(["convert", badPath.path, out.path])
        #expect(failed.status == 1 && failed.stderr.contains("bad.json") && failed.stderr.contains("when.iso"), "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    /// A CBOR document that is not records (canada's feature collection, its repeated values
    /// shared with tags 28/29) is walked by its large containers too: under a budget the whole
    /// route is refused under, with the whole route's output (a binary property list: the
    /// same value); a damaged document fails as the whole route does, leaving nothing behind.
    @Test func largeCBORDocumentsAreWalkedUnderABudgetTheTreeIsRefused() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tree = try FormatIO.read(try Data(contentsOf: Fixtures.benchData.appendingPathComponent("canada.json")), options: .init(format: .json)).value
        for share in [false, true] {
            let input = dir.appendingPathComponent("canada.cbor")
            let bytes = try CBORWriter(options: .init(shareValues: share)).write(tree)
            try bytes.write(to: input)
            let budget = String(bytes.count * 3)
            let refused = try CLI.run(["convert", input.path, dir.appendingPathComponent("out.json.gz").path, "--max-memory", budget, "--lenient"])
            #expect(refused.status == 1 && refused.stderr.contains("--max-memory"), "\(refused.stderr)")
            try Self.expectWalked(input, tree: tree, budget: budget, in: dir)
            let pretty = try CLI.run(["convert", input.path, "-", "--to", "json", "--pretty", "--max-memory", budget])
            let wholePretty = try FormatIO.write(tree, as: .json, options: .init(pretty: true))
            #expect(pretty.status == 0 && pretty.stdout == wholePretty, "\(pretty.stderr)")
            // A text string near the end made invalid UTF-8: the whole route's error (offset
            // and key path), no output.
            var bad = bytes
            let at = try #require(bad.lastRange(of: Data("coordinates".utf8))?.lowerBound)
            bad[at + 1] = 0xC3
            let badPath = dir.appendingPathComponent("bad.cbor")
            try bad.write(to: badPath)
            let out = dir.appendingPathComponent("bad.json")
            let failed = try CLI.run(["convert", badPath.path, out.path])
            let whole = try CLI.run(["convert", badPath.path, out.path, "--lenient"])
            #expect(failed.status == 1 && failed.stderr.contains("bad.cbor") && failed.stderr.contains("features[")
                    && failed.stderr == whole.stderr, "\(failed.stderr) \(whole.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
    }

    /// A binary property list that is not records (canada's feature collection) is walked
    /// by its large containers too: under a budget the whole route is refused under, with
    /// the whole route's output (a binary property list: the same value); a null the output
    /// cannot hold names OUTPUT and its key path, and a damaged file fails as the whole route
    /// does, leaving nothing behind.
    @Test func largeBinaryPlistsAreWalkedUnderABudgetTheTreeIsRefused() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tree = try FormatIO.read(try Data(contentsOf: Fixtures.benchData.appendingPathComponent("canada.json")), options: .init(format: .json)).value
        let input = dir.appendingPathComponent("canada.bplist")
        try FormatIO.write(tree, as: .bplist).write(to: input)
        let budget = String(try Data(contentsOf: input).count * 3)
        let refused = try CLI.run(["convert", input.path, dir.appendingPathComponent("out.json.gz").path, "--max-memory", budget, "--lenient"])
        #expect(refused.status == 1 && refused.stderr.contains("--max-memory"), "\(refused.stderr)")
        try Self.expectWalked(input, tree: tree, budget: budget, in: dir)
        let pretty = try CLI.run(["convert", input.path, "-", "--pretty", "--max-memory", budget])
        let wholePretty = try FormatIO.write(tree, as: .json, options: .init(pretty: true))
        #expect(pretty.status == 0 && pretty.stdout == wholePretty, "\(pretty.stderr)")
        // A null deep inside: the XML output fails as the whole route's, naming OUTPUT.
        guard case .dictionary(var members) = tree, case .array(var features) = members["features"] else {
            Issue.record("canada has features")
            return
        }
        features.append(["properties": ["name": nil]])
        members["features"] = .array(features)
        let nulls = dir.appendingPathComponent("nulls.bplist")
        try BinaryPlistWriter(options: .init(nullPolicy: .writeNullMarker)).write(.dictionary(members)).write(to: nulls)
        let xml = dir.appendingPathComponent("nulls.plist")
        let walkedNull = try CLI.run(["convert", nulls.path, xml.path])
        let wholeNull = try CLI.run(["convert", nulls.path, xml.path, "--lenient"])
        #expect(walkedNull.status == 1 && walkedNull.stderr.contains("nulls.plist") && walkedNull.stderr.contains("features[\(features.count - 1)].properties.name"),
                "\(walkedNull.stderr)")
        #expect(wholeNull.status == 1 && walkedNull.stderr == wholeNull.stderr, "\(wholeNull.stderr)")
        #expect(!FileManager.default.fileExists(atPath: xml.path))
        // The last object's marker damaged: the whole read's error, naming the input, no output.
        var damaged = try Data(contentsOf: input)
        let info = try BinaryPlistReader.info(damaged)
        let entry = info.offsetTableOffset + (info.numObjects - 1) * info.offsetIntSize
        let last = damaged[entry..<(entry + info.offsetIntSize)].reduce(0) { $0 << 8 | Int($1) }
        damaged[last] = 0x7F
        try damaged.write(to: nulls)
        let out = dir.appendingPathComponent("damaged.cbor")
        let failed = try CLI.run(["convert", nulls.path, out.path])
        let wholeFailed = try CLI.run(["convert", nulls.path, out.path, "--lenient"])
        #expect(failed.status == 1 && failed.stderr.contains("nulls.bplist") && failed.stderr == wholeFailed.stderr, "\(failed.stderr) | \(wholeFailed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    /// An XML property list that is not records (canada's feature collection) is walked by
    /// its large containers too: under a budget the whole route is refused under, with the
    /// whole route's output (a binary property list: the same value); a NaN the JSON output
    /// cannot hold names OUTPUT and its key path, a repeated key deep inside fails as the whole
    /// read (`--lenient` takes the whole route: it changes nothing in reading a property list),
    /// leaving nothing behind.
    @Test func largeXMLPlistsAreWalkedUnderABudgetTheTreeIsRefused() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tree = try FormatIO.read(try Data(contentsOf: Fixtures.benchData.appendingPathComponent("canada.json")), options: .init(format: .json)).value
        let input = dir.appendingPathComponent("canada.plist")
        try FormatIO.write(tree, as: .xmlplist).write(to: input)
        let budget = String(try Data(contentsOf: input).count * 2)
        let refused = try CLI.run(["convert", input.path, dir.appendingPathComponent("out.json.gz").path, "--max-memory", budget, "--lenient"])
        #expect(refused.status == 1 && refused.stderr.contains("--max-memory"), "\(refused.stderr)")
        let wholeRefused = try CLI.run(["convert", input.path, dir.appendingPathComponent("out.json").path, "--max-memory", budget, "--lenient"])
        #expect(wholeRefused.status == 1 && wholeRefused.stderr.contains("--max-memory"), "\(wholeRefused.stderr)")
        try Self.expectWalked(input, tree: tree, budget: budget, in: dir)
        let pretty = try CLI.run(["convert", input.path, "-", "--pretty", "--max-memory", budget])
        let wholePretty = try FormatIO.write(tree, as: .json, options: .init(pretty: true))
        #expect(pretty.status == 0 && pretty.stdout == wholePretty, "\(pretty.stderr)")
        // A NaN deep inside: the JSON output fails as the whole route's, naming OUTPUT.
        var text = try String(contentsOf: input, encoding: .utf8)
        let end = try #require(text.range(of: "\t</array>\n</dict>\n</plist>", options: .backwards))
        text.insert(contentsOf: "\t\t<dict><key>name</key><real>nan</real></dict>\n", at: end.lowerBound)
        let nan = dir.appendingPathComponent("nan.plist")
        try Data(text.utf8).write(to: nan)
        let json = dir.appendingPathComponent("nan.json")
        let walkedNaN = try CLI.run(["convert", nan.path, json.path])
        let wholeNaN = try CLI.run(["convert", nan.path, json.path, "--lenient"])
        #expect(walkedNaN.status == 1 && walkedNaN.stderr.contains("nan.json") && walkedNaN.stderr.contains(".name"), "\(walkedNaN.stderr)")
        #expect(wholeNaN.status == 1 && walkedNaN.stderr == wholeNaN.stderr, "\(wholeNaN.stderr)")
        #expect(!FileManager.default.fileExists(atPath: json.path))
        // A repeated key in the last feature: the whole read's error, naming the input, no output.
        text = try String(contentsOf: input, encoding: .utf8)
        text.insert(contentsOf: "\t\t<dict><key>k</key><true/><key>k</key><false/></dict>\n", at: end.lowerBound)
        try Data(text.utf8).write(to: nan)
        let out = dir.appendingPathComponent("repeated.cbor")
        let failed = try CLI.run(["convert", nan.path, out.path])
        let wholeFailed = try CLI.run(["convert", nan.path, out.path, "--lenient"])
        #expect(failed.status == 1 && failed.stderr.contains("nan.plist") && failed.stderr.contains("line") && failed.stderr == wholeFailed.stderr,
                "\(failed.stderr) | \(wholeFailed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    /// JSON to a keyed archive streams to a file; records tied by `$id`s, or a bad record,
    /// fall back or fail with nothing left behind (issue 23).
    @Test func jsonToKeyedArchiveStreamsFallsBackAndLeavesNothingOnFailure() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = dir.appendingPathComponent("export.json")
        try Self.export(3_000).write(to: json)
        let archive = dir.appendingPathComponent("export.archive")
        let run = try CLI.run(["convert", json.path, archive.path, "--to", "keyed"])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        // The whole route (standard output) decodes to the same JSON.
        let whole = try CLI.run(["convert", json.path, "-", "--to", "keyed"])
        let back = try CLI.run(["convert", archive.path, "-", "--from", "keyed", "--to", "json"])
        let wholeBack = dir.appendingPathComponent("whole.archive")
        try whole.stdout.write(to: wholeBack)
        let expected = try CLI.run(["convert", wholeBack.path, "-", "--from", "keyed", "--to", "json"])
        let streamed = try Data(contentsOf: archive)
        #expect(back.status == 0 && back.stdout == expected.stdout && whole.stdout != streamed)
        // Records sharing a $id: converted whole, the same value.
        let tied = dir.appendingPathComponent("tied.json")
        try Data(#"[{"$id":1,"$value":{"a":1}},{"b":{"$ref":1}}]"#.utf8).write(to: tied)
        let tiedArchive = dir.appendingPathComponent("tied.archive")
        let fallback = try CLI.run(["convert", tied.path, tiedArchive.path, "--to", "keyed"])
        #expect(fallback.status == 0, "\(fallback.stderr)")
        let graph = try KeyedArchive.decodeGraph(Data(contentsOf: tiedArchive))
        #expect(try graph.jsonValue() == [["$id": 1, "$value": ["a": 1]], ["b": ["$ref": 1]]])
        // A bad last record: exit 1, one line naming it, no output file.
        let bad = dir.appendingPathComponent("bad.json")
        var bytes = Self.export(3_000)
        bytes.removeLast(2)
        bytes.append(contentsOf: Array(",{\"x\":{\"$ref\":77}}]}".utf8))
        try bytes.write(to: bad)
        let badArchive = dir.appendingPathComponent("bad.archive")
        let failed = try CLI.run(["convert", bad.path, badArchive.path, "--to", "keyed"])
        #expect(failed.status == 1 && failed.stderr.contains("$ref 77"), "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: badArchive.path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains("bad.archive") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    /// A JSON document that is not records (canada's feature collection) is archived to a
    /// keyed archive by its large containers: exempt from a budget the whole route is refused
    /// under, it reads back to the whole route's value; a large container that is a `$class`
    /// object is archived whole (the whole route's bytes), and a bad value near the end fails
    /// with one line, exit 1 and no output file (issue 23).
    @Test func largeJSONDocumentsAreArchivedByTheirLargeContainers() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = Fixtures.benchData.appendingPathComponent("canada.json")
        let size = try Data(contentsOf: input).count
        let budget = String(size * 3)
        let archive = dir.appendingPathComponent("canada.archive")
        let walked = try CLI.run(["convert", input.path, archive.path, "--to", "keyed", "--max-memory", budget])
        #expect(walked.status == 0 && walked.stderr.isEmpty, "\(walked.stderr)")
        let refused = try CLI.run(["convert", input.path, "-", "--to", "keyed", "--max-memory", budget])
        #expect(refused.status == 1 && refused.stderr.contains("--max-memory"), "\(refused.stderr)")
        let whole = try CLI.run(["convert", input.path, "-", "--to", "keyed"])
        let wholeArchive = dir.appendingPathComponent("whole.archive")
        try whole.stdout.write(to: wholeArchive)
        let back = try CLI.run(["convert", archive.path, "-", "--from", "keyed", "--to", "json"])
        let expected = try CLI.run(["convert", wholeArchive.path, "-", "--from", "keyed", "--to", "json"])
        let direct = try CLI.run(["convert", input.path, "-", "--to", "json"])
        #expect(back.status == 0 && back.stdout == expected.stdout && back.stdout == direct.stdout)
        #expect(try Data(contentsOf: archive).count < whole.stdout.count)
        // Rewritten --from keyed --to keyed by its large containers too.
        let again = dir.appendingPathComponent("again.archive")
        let rewritten = try CLI.run(["convert", archive.path, again.path, "--from", "keyed", "--to", "keyed", "--max-memory", budget])
        #expect(rewritten.status == 0, "\(rewritten.stderr)")
        #expect(try CLI.run(["convert", again.path, "-", "--from", "keyed", "--to", "json"]).stdout == expected.stdout)
        // The root made a `$class` object: archived whole, the whole route's bytes.
        var text = try String(contentsOf: input, encoding: .utf8)
        let brace = try #require(text.firstIndex(of: "{"))
        text.insert(contentsOf: #""$class":"Country","#, at: text.index(after: brace))
        let marked = dir.appendingPathComponent("marked.json")
        try Data(text.utf8).write(to: marked)
        let markedArchive = dir.appendingPathComponent("marked.archive")
        let fallback = try CLI.run(["convert", marked.path, markedArchive.path, "--to", "keyed"])
        let wholeMarked = try CLI.run(["convert", marked.path, "-", "--to", "keyed"])
        #expect(fallback.status == 0 && wholeMarked.status == 0, "\(fallback.stderr)")
        #expect(try Data(contentsOf: markedArchive) == wholeMarked.stdout)
        // A `$ref` to nothing near the end: one line naming OUTPUT and the path, no file.
        var bad = try Data(contentsOf: input)
        bad.removeLast(bad.count - (bad.lastIndex(of: UInt8(ascii: "}")) ?? bad.count))
        bad.append(contentsOf: Data(#","tail":[{"x":{"$ref":77}}]}"#.utf8))
        let badPath = dir.appendingPathComponent("bad.json")
        try bad.write(to: badPath)
        let out = dir.appendingPathComponent("bad.archive")
        let failed = try CLI.run(["convert", badPath.path, out.path, "--to", "keyed"])
        let wholeFailed = try CLI.run(["convert", badPath.path, out.path, "--to", "keyed", "--lenient"])
        #expect(failed.status == 1 && failed.stderr.contains("$ref 77") && failed.stderr.split(separator: "\n").count == 1
                && failed.stderr == wholeFailed.stderr, "\(failed.stderr) | \(wholeFailed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains("bad.archive") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    /// A typedstream that is not records goes to a binary property list and a keyed archive by
    /// its large containers, to a file: under a budget the whole route is refused under, each
    /// reads back to the value of the whole route's output (standard output, read whole).
    @Test func largeTypedstreamsGoToPropertyListsAndKeyedArchivesByTheirLargeContainers() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let canada = Fixtures.benchData.appendingPathComponent("canada.json")
        let input = dir.appendingPathComponent("canada.typedstream")
        #expect(try CLI.run(["convert", canada.path, input.path, "--to", "typedstream"]).status == 0)
        let budget = String(try Data(contentsOf: input).count * 2)
        for (to, back) in [("bplist", [String]()), ("keyed", ["--from", "keyed"])] {
            let out = dir.appendingPathComponent("out.\(to)")
            let walked = try CLI.run(["convert", input.path, out.path, "--to", to, "--max-memory", budget])
            #expect(walked.status == 0 && walked.stderr.isEmpty, "\(to): \(walked.stderr)")
            let refused = try CLI.run(["convert", input.path, "-", "--to", to, "--max-memory", budget])
            #expect(refused.status == 1 && refused.stderr.contains("--max-memory"), "\(to): \(refused.stderr)")
            let whole = try CLI.run(["convert", input.path, "-", "--to", to])
            let wholeFile = dir.appendingPathComponent("whole.\(to)")
            try whole.stdout.write(to: wholeFile)
            let a = try CLI.run(["convert", out.path, "-", "--to", "json"] + back)
            let b = try CLI.run(["convert", wholeFile.path, "-", "--to", "json"] + back)
            #expect(a.status == 0 && a.stdout == b.stdout && !a.stdout.isEmpty, "\(to): \(a.stderr)")
        }
    }
}
