import Foundation
import PFCBOR
import PFCore
import PFFormats
import PFJSON
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
