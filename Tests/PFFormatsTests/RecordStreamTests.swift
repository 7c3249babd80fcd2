import Foundation
import PFCBOR
import PFCore
import PFFormats
import PFJSON
import PFPropertyList
import PFSerialization
import PFTestSupport
import Testing

/// A streamed conversion writes exactly what the whole-tree route writes (read the input
/// whole, write the tree), for every pair of record formats, from chunks cut anywhere.
@Suite struct RecordStreamTests {
    /// Streams `input` in chunks of `size` bytes.
    static func stream(_ input: Data, _ options: RecordStream.Options, chunk size: Int) throws(PFError) -> Data {
        var start = input.startIndex
        var out = Data()
        try RecordStream.convert(
            options: options,
            read: { () throws(PFError) -> Data? in
                guard start < input.endIndex else { return nil }
                let end = min(start + size, input.endIndex)
                defer { start = end }
                return Data(input[start..<end])
            },
            write: { bytes throws(PFError) in out.append(contentsOf: bytes) })
        return out
    }

    /// The whole-tree route for the same conversion.
    static func whole(_ input: Data, from: DataFormat, to: DataFormat, className: String? = nil,
                      canonical: Bool = false, dropNulls: Bool = false) throws(PFError) -> Data {
        var readOptions = FormatIO.ReadOptions(format: from)
        readOptions.parseClassName = className
        let value = try FormatIO.read(input, options: readOptions).value
        var writeOptions = FormatIO.WriteOptions(dropNulls: dropNulls, canonicalCBOR: canonical)
        writeOptions.parseClassName = className
        return try FormatIO.write(value, as: to, options: writeOptions)
    }

    /// Checks every output format and several chunk sizes for one input.
    static func checkAllOutputs(_ input: Data, from: DataFormat, className: String? = nil, label: String,
                                sizes: [Int] = [1, 7, 4096, 1 << 20]) throws {
        // A whole CBOR document (deterministic or not) and XML property list (nulls dropped or
        // not), wherever the stream writes one.
        var routes = [DataFormat.json, .jsonl, .cborseq, .parse].map { ($0, false) }
        if RecordStream.canStream(from: from, to: .cbor, pretty: false, start: input) {
            routes += [(.cbor, false), (.cbor, true), (.xmlplist, false), (.xmlplist, true)]
        }
        for (to, flag) in routes where !(from == .json && to == .json) {
            let canonical = to == .cbor && flag
            let dropNulls = to == .xmlplist && flag
            let expected = Result { () throws(PFError) in
                try whole(input, from: from, to: to, className: className, canonical: canonical, dropNulls: dropNulls)
            }
            for size in sizes {
                var options = RecordStream.Options(from: from, to: to, canonicalCBOR: canonical, parseClassName: className)
                options.dropNulls = dropNulls
                let got = Result { () throws(PFError) in try stream(input, options, chunk: size) }
                switch (expected, got) {
                case (.success(let e), .success(let g)):
                    #expect(e == g, "\(label): \(from) → \(to) \(flag), chunks of \(size): \(String(decoding: g.prefix(200), as: UTF8.self)) vs \(String(decoding: e.prefix(200), as: UTF8.self))")
                case (.failure(let e), .failure(let g)):
                    #expect(e.code == g.code, "\(label): \(from) → \(to): \(e) vs \(g)")
                default:
                    Issue.record("\(label): \(from) → \(to), chunks of \(size): whole \(expected), streamed \(got)")
                }
            }
        }
    }

    /// Records with the quirks streams meet: empty objects and arrays, a string longer than a
    /// read buffer, astral and combining characters, escapes, deep arrays, typed dates and data.
    static let quirkyRecords: [PFValue] = [
        [:], [], ["": [:]],
        ["s": .string(String(repeating: "ü\u{1F600}\u{301}\\\"\n", count: 300_000))],
        [[[[1, [2, [3, []]]]]]],
        ["date": .date(Date(timeIntervalSince1970: 1_307_730_822.123)), "data": .data(Data([0, 1, 2, 255])), "n": nil],
        ["nested": ["a": [1.5, -0.0, 9_007_199_254_740_993, "x"]], "b": true],
        "a bare string", 42, nil,
    ]

    @Test func quirkyRecordsStreamAsTheyConvertWhole() throws {
        let array = try FormatIO.write(.array(Self.quirkyRecords), as: .json)
        try Self.checkAllOutputs(array, from: .json, label: "array")
        let results = try FormatIO.write(["results": .array(Self.quirkyRecords), "count": 10], as: .json)
        try Self.checkAllOutputs(results, from: .json, label: "results", sizes: [5, 1 << 20])
        // A results wrapper with other members whose keys sort before and after "results" in a
        // deterministic map, spaced out; one without any.
        let wrapper = Data(#" { "results" : [{"a":1},[],{}] , "b":{"__type":"Date","iso":"2011-06-10T18:33:42.123Z"},"zz":[1,{"c":null}],"moreThanSeven":"x"} "#.utf8)
        try Self.checkAllOutputs(wrapper, from: .json, label: "results with members", sizes: [2, 1 << 20])
        try Self.checkAllOutputs(Data(#"{"results":[]}"#.utf8), from: .json, label: "empty results", sizes: [1, 1 << 20])
        let pretty = try FormatIO.write(.array(Self.quirkyRecords), as: .json, options: .init(pretty: true))
        try Self.checkAllOutputs(pretty, from: .json, label: "pretty array", sizes: [3, 1 << 20])
        let lines = try FormatIO.write(.array(Self.quirkyRecords), as: .jsonl)
        try Self.checkAllOutputs(lines, from: .jsonl, label: "jsonl")
        let sequence = try FormatIO.write(.array(Self.quirkyRecords), as: .cborseq)
        try Self.checkAllOutputs(sequence, from: .cborseq, label: "cborseq")
        // One object, and empty inputs.
        try Self.checkAllOutputs(Data("{\"a\":[{},[]]}".utf8), from: .json, label: "one object")
        try Self.checkAllOutputs(Data("[]".utf8), from: .json, label: "empty array")
        try Self.checkAllOutputs(Data(), from: .jsonl, label: "empty jsonl")
        try Self.checkAllOutputs(Data(), from: .cborseq, label: "empty cborseq")
        try Self.checkAllOutputs(Data(" \n".utf8), from: .parse, className: "Thing", label: "empty class file")
    }

    /// The real Parse exports, read as JSON and as Parse class files.
    @Test func realParseExportsStreamAsTheyConvertWhole() throws {
        let files = Fixtures.files(in: Fixtures.real.appendingPathComponent("parse")) { $0.hasSuffix(".json") }
        #expect(files.count >= 3)
        for file in files {
            let bytes = try Fixtures.data(file)
            let name = file.deletingPathExtension().lastPathComponent
            guard !bytes.isEmpty else { continue }
            try Self.checkAllOutputs(bytes, from: .json, label: name, sizes: [13, 1 << 20])
            let className = name.hasPrefix("_Join") ? nil : name
            try Self.checkAllOutputs(bytes, from: .parse, className: className, label: name + " as parse", sizes: [13, 1 << 20])
            // And back: the JSON Lines and CBOR sequence of the export.
            for format in [DataFormat.jsonl, .cborseq] {
                let records = try Self.whole(bytes, from: .json, to: format)
                try Self.checkAllOutputs(records, from: format, label: "\(name).\(format)", sizes: [64, 1 << 20])
            }
        }
    }

    /// A JSON document converted to JSON Lines and back is the same JSON document; a CBOR
    /// sequence sits between them without changing a byte.
    @Test func jsonToLinesToCBORSequenceAndBackIsTheSameDocument() throws {
        let array = try FormatIO.write(.array(Self.quirkyRecords), as: .json)
        let lines = try Self.stream(array, .init(from: .json, to: .jsonl), chunk: 1000)
        let sequence = try Self.stream(lines, .init(from: .jsonl, to: .cborseq), chunk: 333)
        let backLines = try Self.stream(sequence, .init(from: .cborseq, to: .jsonl), chunk: 4096)
        #expect(backLines == lines)
        #expect(try Self.stream(backLines, .init(from: .jsonl, to: .json), chunk: 17) == array)
    }

    /// A whole CBOR document or XML property list is written a record at a time (issue 23: bounded memory) and is
    /// byte for byte the tree writer's: heads of every width, arrays of empty objects, nesting
    /// at and past the writer's depth limit inside an array and a results wrapper.
    @Test func wholeCBORAndXMLDocumentsAreWrittenRecordByRecord() throws {
        for n in [0, 23, 24, 255, 256, 65_535, 65_536] {
            let empties = Data(("[" + Array(repeating: "{}", count: n).joined(separator: ",") + "]").utf8)
            let expected = try Self.whole(empties, from: .json, to: .cbor)
            #expect(try Self.stream(empties, .init(from: .json, to: .cbor), chunk: 1 << 16) == expected, "\(n) empty objects")
            let xml = try Self.whole(empties, from: .json, to: .xmlplist)
            #expect(try Self.stream(empties, .init(from: .json, to: .xmlplist), chunk: 1 << 16) == xml, "\(n) empty objects")
        }
        for depth in [509, 510, 511, 512] {
            let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            for document in ["[" + nested + "]", "{\"results\":[" + nested + "]}"] {
              for to in [DataFormat.cbor, .xmlplist] {
                let input = Data(document.utf8)
                let expected = Result { () throws(PFError) in try Self.whole(input, from: .json, to: to) }
                let got = Result { () throws(PFError) in try Self.stream(input, .init(from: .json, to: to), chunk: 1 << 20) }
                switch (expected, got) {
                case (.success(let e), .success(let g)): #expect(e == g, "depth \(depth)")
                case (.failure(let e), .failure(let g)): #expect(e.code == g.code, "depth \(depth): \(e) vs \(g)")
                default: Issue.record("depth \(depth) \(document.prefix(12)) \(to): whole \(expected), streamed \(got)")
                }
              }
            }
        }
        // Only a JSON document of records is written this way; any other goes whole.
        #expect(RecordStream.canStream(from: .json, to: .cbor, pretty: false, start: Data(" { \"results\" : [".utf8)))
        #expect(RecordStream.canStream(from: .json, to: .cbor, pretty: false, start: Data("[".utf8)))
        #expect(!RecordStream.canStream(from: .json, to: .cbor, pretty: false, start: Data("{\"a\":[]}".utf8)))
        #expect(!RecordStream.canStream(from: .json, to: .cbor, pretty: false, start: Data("{\"results\":5}".utf8)))
        #expect(!RecordStream.canStream(from: .parse, to: .cbor, pretty: false, start: Data("[".utf8)))
        #expect(!RecordStream.canStream(from: .json, to: .bplist, pretty: false, start: Data("[".utf8)))
        #expect(RecordStream.canStream(from: .jsonl, to: .xmlplist, pretty: true, start: Data("{}".utf8)))
        #expect(!RecordStream.canStream(from: .json, to: .xmlplist, pretty: false, start: Data("{\"a\":[]}".utf8)))
    }

    /// Streams `input` to a whole binary property list, its size known as the CLI knows a file's.
    static func streamPlist(_ input: Data, from: DataFormat, dropNulls: Bool = false, chunk: Int) throws(PFError) -> Data {
        var options = RecordStream.Options(from: from, to: .bplist)
        options.dropNulls = dropNulls
        options.inputBytes = input.count
        return try stream(input, options, chunk: chunk)
    }

    /// A streamed binary property list reads back — by pfarchive, by Python's plistlib and by
    /// Foundation's PropertyListSerialization — as the whole-tree file does, nulls dropped or
    /// not; where the tree writer fails, the stream fails with the same code.
    static func checkPlist(_ input: Data, from: DataFormat, label: String, sizes: [Int] = [7, 1 << 20], peers: Bool = true) throws {
        for dropNulls in [false, true] {
            let expected = Result { () throws(PFError) in try whole(input, from: from, to: .bplist, dropNulls: dropNulls) }
            for size in sizes {
                let got = Result { () throws(PFError) in try streamPlist(input, from: from, dropNulls: dropNulls, chunk: size) }
                switch (expected, got) {
                case (.success(let e), .success(let g)):
                    let a = try FormatIO.read(e, options: .init(format: .bplist)).value
                    let b = try FormatIO.read(g, options: .init(format: .bplist)).value
                    #expect(a == b, "\(label) \(dropNulls), chunks of \(size)")
                    if peers && size == sizes.last { try peersReadAlike(e, g, label: "\(label) \(dropNulls)") }
                case (.failure(let e), .failure(let g)):
                    #expect(e.code == g.code, "\(label) \(dropNulls): \(e) vs \(g)")
                default:
                    Issue.record("\(label) \(dropNulls), chunks of \(size): whole \(expected), streamed \(got)")
                }
            }
        }
    }

    /// plistlib and Foundation read the two files to equal values.
    static func peersReadAlike(_ whole: Data, _ streamed: Data, label: String) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pfarchive-bplist-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (a, b) = (dir.appendingPathComponent("whole.bplist"), dir.appendingPathComponent("streamed.bplist"))
        try whole.write(to: a)
        try streamed.write(to: b)
        let script = "import plistlib, sys\na, b = (plistlib.load(open(p, 'rb')) for p in sys.argv[1:3])\nprint('same' if a == b else 'different')"
        let python = try Peers.python(script, [a.path, b.path])
        #expect(python.stdoutText == "same\n", "\(label): plistlib \(python.stdoutText) \(python.stderr)")
        let x = try PropertyListSerialization.propertyList(from: whole, format: nil)
        let y = try PropertyListSerialization.propertyList(from: streamed, format: nil)
        #expect(Self.same(x, y), "\(label): PropertyListSerialization")
    }

    /// Deep equality of two Foundation property list values (strings by their scalars).
    static func same(_ a: Any, _ b: Any) -> Bool {
        switch (a, b) {
        case let (x as String, y as String): return Array(x.unicodeScalars) == Array(y.unicodeScalars)
        case let (x as Data, y as Data): return x == y
        case let (x as Date, y as Date): return x == y
        case let (x as [String: Any], y as [String: Any]):
            return x.count == y.count && x.allSatisfy { key, value in y[key].map { same(value, $0) } ?? false }
        case let (x as [Any], y as [Any]): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case let (x as NSNumber, y as NSNumber): return x == y
        default: return false
        }
    }

    /// A whole binary property list is written a record at a time (issue 23: bounded memory):
    /// quirky records, results wrappers with members, JSON Lines and CBOR sequences, the real
    /// exports, arrays of empty objects across every reference width, nesting at the depth
    /// limit, and more distinct short values than are shared across records.
    @Test func wholeBinaryPlistsAreWrittenRecordByRecord() throws {
        let array = try FormatIO.write(.array(Self.quirkyRecords), as: .json)
        try Self.checkPlist(array, from: .json, label: "array")
        let withoutNull = try FormatIO.write(.array(Self.quirkyRecords.filter { $0 != .null }), as: .json)
        try Self.checkPlist(withoutNull, from: .json, label: "array without a null record")
        let results = try FormatIO.write(["results": .array(Self.quirkyRecords), "count": 10], as: .json)
        try Self.checkPlist(results, from: .json, label: "results")
        let wrapper = Data(#" { "results" : [{"a":1},[],{}] , "b":{"__type":"Date","iso":"2011-06-10T18:33:42.123Z"},"zz":[1,{"c":null}],"moreThanSeven":"x", "n": null} "#.utf8)
        try Self.checkPlist(wrapper, from: .json, label: "results with members", sizes: [2, 1 << 20])
        try Self.checkPlist(Data(#"{"results":[]}"#.utf8), from: .json, label: "empty results", sizes: [1, 1 << 20])
        try Self.checkPlist(Data("[]".utf8), from: .json, label: "empty array")
        try Self.checkPlist(try FormatIO.write(.array(Self.quirkyRecords), as: .jsonl), from: .jsonl, label: "jsonl")
        try Self.checkPlist(try FormatIO.write(.array(Self.quirkyRecords), as: .cborseq), from: .cborseq, label: "cborseq")
        try Self.checkPlist(Data(), from: .jsonl, label: "empty jsonl")
        let exports = Fixtures.files(in: Fixtures.real.appendingPathComponent("parse")) { $0.hasSuffix(".json") }
        #expect(exports.count >= 3)
        for file in exports {
            let bytes = try Fixtures.data(file)
            guard !bytes.isEmpty else { continue }
            try Self.checkPlist(bytes, from: .json, label: file.lastPathComponent, sizes: [13, 1 << 20])
        }
        // Reference widths of 1, 2 and 4 bytes, offsets of 1 to 4; empty containers are not shared.
        for n in [0, 14, 15, 84, 85, 255, 256, 21_845, 21_846, 65_536] {
            let empties = Data(("[" + Array(repeating: "{}", count: n).joined(separator: ",") + "]").utf8)
            let plist = try Self.streamPlist(empties, from: .json, chunk: 1 << 16)
            #expect(try FormatIO.read(plist, options: .init(format: .bplist)).value == .array(Array(repeating: [:], count: n)), "\(n)")
            #expect(try BinaryPlistReader.info(plist).numObjects == n + 1, "\(n)")
            if n == 65_536 { try Self.peersReadAlike(try Self.whole(empties, from: .json, to: .bplist), plist, label: "\(n) empties") }
        }
        // Equal short scalars are shared across records, as the tree writer shares them.
        let repeated = Data(("[" + Array(repeating: #"{"a":1,"b":"x"}"#, count: 300).joined(separator: ",") + "]").utf8)
        let shared = try Self.streamPlist(repeated, from: .json, chunk: 100)
        #expect(try BinaryPlistReader.info(shared).numObjects == BinaryPlistReader.info(try Self.whole(repeated, from: .json, to: .bplist)).numObjects)
        for depth in [509, 510, 511, 512] {
            let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            for document in ["[" + nested + "]", "{\"results\":[" + nested + "]}"] {
                // plistlib recurses two Python frames per level and stops near 500.
                try Self.checkPlist(Data(document.utf8), from: .json, label: "depth \(depth)", sizes: [1 << 20], peers: false)
            }
        }
        // More distinct short strings than the shared table keeps: later ones are written per use.
        let count = BinaryPlistStreamWriter.maxSharedScalars + 1000
        var lines = ""
        lines.reserveCapacity(count * 24)
        for i in 0..<count { lines += "{\"k\":\"v\(i)\",\"v\":\"v\(i % 7)\"}\n" }
        let many = Data(lines.utf8)
        let streamed = try Self.streamPlist(many, from: .jsonl, chunk: 1 << 20)
        let wholeMany = try Self.whole(many, from: .jsonl, to: .bplist)
        #expect(try FormatIO.read(streamed, options: .init(format: .bplist)).value == FormatIO.read(wholeMany, options: .init(format: .bplist)).value)
        try Self.peersReadAlike(wholeMany, streamed, label: "many distinct strings")
        // Streaming needs the input's size (the references' width is chosen from it).
        #expect(!RecordStream.canStream(from: .jsonl, to: .bplist, pretty: false, start: Data("{}".utf8)))
        #expect(RecordStream.canStream(from: .jsonl, to: .bplist, pretty: false, start: Data("{}".utf8), inputBytes: 2))
        #expect(RecordStream.canStream(from: .json, to: .bplist, pretty: false, start: Data("[".utf8), inputBytes: 2))
        #expect(!RecordStream.canStream(from: .json, to: .bplist, pretty: false, start: Data("{\"a\":[]}".utf8), inputBytes: 9))
    }

    @Test func badRecordsNameWhereTheyAre() throws {
        let array = Data("[{\"a\":1},\n{\"a\":},{}]".utf8)
        do {
            _ = try Self.stream(array, .init(from: .json, to: .jsonl, inputName: "in.json"), chunk: 4)
            Issue.record("a bad row was accepted")
        } catch {
            #expect(error.message.hasPrefix("in.json: row 1: "), "\(error)")
            #expect(error.path == PFKeyPath([.index(1)]), "\(error)")
        }
        let lines = Data("{}\n{}\n{\"a\" 1}\n{}\n".utf8)
        do {
            _ = try Self.stream(lines, .init(from: .jsonl, to: .json), chunk: 3)
            Issue.record("a bad line was accepted")
        } catch {
            #expect(error.message.hasPrefix("line 3: ") && error.location?.line == 3, "\(error)")
        }
        // A JSON document that is not a record container does not stream; it converts whole.
        #expect(!RecordStream.canStream(from: .json, to: .jsonl, pretty: false, start: Data("42".utf8)))
        #expect(!RecordStream.canStream(from: .json, to: .json, pretty: false, start: Data("[]".utf8)))
        #expect(!RecordStream.canStream(from: .jsonl, to: .json, pretty: true, start: Data("{}".utf8)))
        #expect(RecordStream.canStream(from: .jsonl, to: .json, pretty: false, start: Data("{}".utf8)))
        #expect(!RecordStream.canStream(from: .jsonl, to: .bplist, pretty: false, start: Data("{}".utf8)))
    }
}
