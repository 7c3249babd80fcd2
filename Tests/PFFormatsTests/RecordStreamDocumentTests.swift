import Foundation
import PFCBOR
import PFCore
import PFFormats
import PFPropertyList
import PFSerialization
import PFTestSupport
import Testing

/// A binary property list or CBOR document of records converts a record at a time
/// (`RecordStream.convert(options:document:…)`) to what the whole-tree route writes: the same
/// bytes, or for a binary property list output the same value read back.
@Suite struct RecordStreamDocumentTests {
    static let targets: [DataFormat] = [.json, .jsonl, .cborseq, .cbor, .xmlplist, .bplist]

    /// The streamed conversion of a document.
    static func stream(_ input: Data, from: DataFormat, to: DataFormat, limits: PFLimits = .default) throws(PFError) -> Data {
        var options = RecordStream.Options(from: from, to: to, limits: limits)
        options.inputBytes = input.count
        var out = Data()
        try RecordStream.convert(options: options, document: input, write: { bytes throws(PFError) in out.append(contentsOf: bytes) })
        return out
    }

    /// The whole-tree route for the same conversion.
    static func whole(_ input: Data, from: DataFormat, to: DataFormat, limits: PFLimits = .default) throws(PFError) -> Data {
        let value = try FormatIO.read(input, options: .init(format: from, limits: limits)).value
        return try FormatIO.write(value, as: to)
    }

    /// Compares both routes for every target the document streams to; returns how many did.
    @discardableResult
    /// - Parameter sameError: whether both routes must fail with the same error (a damaged
    ///   file can fail the stream's writer on an earlier record before its reader fails).
    static func check(_ input: Data, from: DataFormat, label: String, limits: PFLimits = .default, sameError: Bool = true) throws -> Int {
        var streamed = 0
        for to in targets where RecordStream.canStream(document: input, from: from, to: to, pretty: false, limits: limits) {
            streamed += 1
            let expected = Result { () throws(PFError) in try whole(input, from: from, to: to, limits: limits) }
            let got = Result { () throws(PFError) in try stream(input, from: from, to: to, limits: limits) }
            switch (expected, got) {
            case (.success(let e), .success(let g)):
                if to == .bplist {
                    // The streamed file puts its root last: compare what both read back to.
                    #expect(try FormatIO.read(e).value == FormatIO.read(g).value, "\(label): \(from) → bplist")
                } else {
                    #expect(e == g, "\(label): \(from) → \(to): \(String(decoding: g.prefix(300), as: UTF8.self)) vs \(String(decoding: e.prefix(300), as: UTF8.self))")
                }
            case (.failure(let e), .failure(let g)):
                guard sameError else { continue }
                #expect(e.code == g.code, "\(label): \(from) → \(to): \(e) vs \(g)")
                #expect(e.failure?.message == g.failure?.message, "\(label): \(from) → \(to): \(e) vs \(g)")
            default:
                Issue.record("\(label): \(from) → \(to): whole \(expected), streamed \(got)")
            }
        }
        return streamed
    }

    /// Records with quirks; none null (a property list cannot hold one).
    static let records: [PFValue] = [
        [:], [], ["": [:]], ["a": [[], [:], [[]]]],
        [[[[1, [2, [3, []]]]]]],
        ["date": .date(Date(timeIntervalSince1970: 1_307_730_822.5)), "data": .data(Data([0, 1, 2, 255])), "uid": .uid(7)],
        ["nested": ["a": [1.5, -0.0, 9_007_199_254_740_993, "x", "ü\u{1F600}"]], "b": true],
        ["shared": ["k": "v", "n": 1]], ["shared": ["k": "v", "n": 1]],
        "a bare string", 42, .uint(UInt64.max), .int(Int64.min),
    ]

    /// Builds the shapes a document of records takes in a format.
    static func documents(_ records: [PFValue], as format: DataFormat) throws -> [(String, Data)] {
        [
            ("array", try FormatIO.write(.array(records), as: format)),
            ("results", try FormatIO.write(["results": .array(records)], as: format)),
            ("results with members", try FormatIO.write(["results": .array(records), "count": 13, "more": ["x": [1, 2]]], as: format)),
            ("empty array", try FormatIO.write([], as: format)),
            ("empty results", try FormatIO.write(["results": []], as: format)),
        ]
    }

    @Test func documentsOfRecordsStreamAsTheyConvertWhole() throws {
        for format in [DataFormat.bplist, .cbor, .xmlplist] {
            for (label, bytes) in try Self.documents(Self.records, as: format) {
                let streamed = try Self.check(bytes, from: format, label: "\(format) \(label)")
                let wrapperLimited = label == "results with members"
                #expect(streamed == (wrapperLimited ? 3 : Self.targets.count), "\(format) \(label)")
            }
            // Not records: read whole.
            for other: PFValue in [["a": ["results": []]], ["b": 1, "results": []], ["results": 3], "x", [:]] {
                let bytes = try FormatIO.write(other, as: format)
                #expect(!RecordStream.canStream(document: bytes, from: format, to: .json, pretty: false), "\(format) \(other)")
            }
        }
    }

    /// CBOR's indefinite lengths, the self-describe tag and shared values (tags 28 and 29)
    /// across records.
    @Test func xmlPlistRecordsAndTheirErrorsAreWhereTheTreeHasThem() throws {
        let header = #"<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">"#
        let array = Data((header + "<plist version=\"1.0\"><array><dict><key>a</key><integer>1</integer></dict><!-- c --><array/><string>x</string></array></plist>\n").utf8)
        #expect(try Self.check(array, from: .xmlplist, label: "xml array") == Self.targets.count)
        #expect(try Self.stream(array, from: .xmlplist, to: .jsonl) == Data("{\"a\":1}\n[]\n\"x\"\n".utf8))
        let bare = Data("<array><true/></array>".utf8)
        #expect(try Self.check(bare, from: .xmlplist, label: "bare array") == Self.targets.count)
        let results = Data("<plist><dict><key>results</key><array><integer>1</integer></array><key>n</key><string>y</string></dict></plist>".utf8)
        #expect(try Self.check(results, from: .xmlplist, label: "results") == 3)
        let onlyResults = Data("<plist><dict><key>results</key><array><integer>1</integer></array></dict></plist>".utf8)
        #expect(try Self.check(onlyResults, from: .xmlplist, label: "only results") == Self.targets.count)
        // A second results, a bad integer in the second record: the tree read's errors, placed alike.
        let twice = Data("<plist><dict><key>results</key><array/><key>results</key><array/></dict></plist>".utf8)
        _ = try Self.check(twice, from: .xmlplist, label: "results twice")
        let bad = Data("<plist><array><integer>1</integer><dict><key>k</key><integer>x</integer></dict></array></plist>".utf8)
        _ = try Self.check(bad, from: .xmlplist, label: "bad integer")
        #expect { try Self.stream(bad, from: .xmlplist, to: .jsonl) } throws: {
            ($0 as? PFError)?.path == PFKeyPath([.index(1), .key("k")])
        }
        for other in ["<plist><dict><key>a</key><array/></dict></plist>", "<plist><string>x</string></plist>", "<dict/>"] {
            #expect(!RecordStream.canStream(document: Data(other.utf8), from: .xmlplist, to: .cbor, pretty: false), "\(other)")
        }
    }

    @Test func cborIndefiniteTaggedAndSharedDocumentsStream() throws {
        let one = try CBORWriter().write(["k": "v"])
        let two = try CBORWriter().write([1, "two"])
        // [_ {"k":"v"}, [1,"two"] ]
        let indefinite = Data([0x9F] + one + two + [0xFF])
        #expect(try Self.check(indefinite, from: .cbor, label: "indefinite array") == Self.targets.count)
        // 55799({_ "results": [_ …], "n": 1 })
        let results = Data([0xD9, 0xD9, 0xF7, 0xBF, 0x67] + Array("results".utf8) + [0x9F] + one + two + [0xFF, 0x61, 0x6E, 0x01, 0xFF])
        #expect(try Self.check(results, from: .cbor, label: "tagged indefinite results") == 3)
        // [28({"k":"v"}), 29(0), 29(0)]: the value shared by later records.
        let shared = Data([0x83, 0xD8, 0x1C] + one + [0xD8, 0x1D, 0x00, 0xD8, 0x1D, 0x00])
        #expect(try Self.check(shared, from: .cbor, label: "shared") == Self.targets.count)
        #expect(try Self.stream(shared, from: .cbor, to: .jsonl) == Data("{\"k\":\"v\"}\n{\"k\":\"v\"}\n{\"k\":\"v\"}\n".utf8))
        // A second "results" is a duplicate key, as in the whole read.
        let twice = Data([0xA2, 0x67] + Array("results".utf8) + [0x80, 0x67] + Array("results".utf8) + [0x80])
        #expect(try Self.check(twice, from: .cbor, label: "results twice") == 3)
        #expect(throws: PFError.self) { try Self.stream(twice, from: .cbor, to: .cbor) }
    }

    /// A hand-made binary property list: `objects` at offsets after the magic, 1-byte
    /// offsets and references, `top` the root.
    static func bplist(_ objects: [[UInt8]], top: UInt8 = 0) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(bytes.count))
            bytes += object
        }
        let table = UInt8(bytes.count)
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count)] + [0, 0, 0, 0, 0, 0, 0, top]
            + [0, 0, 0, 0, 0, 0, 0, table]
        return Data(bytes)
    }

    /// An object two records reference is decoded in both; a record that reaches its own
    /// array is a cycle, as in the whole read.
    @Test func sharedBinaryPlistObjectsAreDecodedInEachRecord() throws {
        // [1, 1] where 1 is {"k": "v"}, and a third record [1].
        let shared = Self.bplist([[0xA3, 1, 1, 4], [0xD1, 2, 3], [0x51, 0x6B], [0x51, 0x76], [0xA1, 1]])
        #expect(try Self.check(shared, from: .bplist, label: "shared") == Self.targets.count)
        #expect(try Self.stream(shared, from: .bplist, to: .jsonl) == Data("{\"k\":\"v\"}\n{\"k\":\"v\"}\n[{\"k\":\"v\"}]\n".utf8))
        // [[0]]: the record holds the root.
        let cycle = Self.bplist([[0xA1, 1], [0xA1, 0]])
        #expect(try Self.check(cycle, from: .bplist, label: "cycle") == Self.targets.count)
        #expect { try Self.stream(cycle, from: .bplist, to: .json) } throws: { ($0 as? PFError)?.failure(as: BinaryPlistFailure.self) == .cycle(index: 0) }
        // {"results": [1], "results": [2]}: a repeated key is left to the whole read.
        let twice = Self.bplist([[0xD2, 1, 1, 2, 3], [0x57] + Array("results".utf8), [0xA1, 4], [0xA1, 5], [0x10, 1], [0x10, 2]])
        #expect(!RecordStream.canStream(document: twice, from: .bplist, to: .json, pretty: false))
    }

    /// Records nested to the depth limit convert; one level more fails in both routes.
    @Test func depthLimitIsTheWholeReadsLimit() throws {
        var deep: PFValue = [:]
        for _ in 0..<5 { deep = ["d": deep] }  // 6 levels
        let limits = PFLimits(maxDepth: 7)
        for format in [DataFormat.bplist, .cbor, .xmlplist] {
            // The array and the record: 7 levels, at the limit; inside results, 8: over.
            let array = try FormatIO.write([deep, 1], as: format)
            let results = try FormatIO.write(["results": [deep, 1]], as: format)
            _ = try Self.check(array, from: format, label: "\(format) at the limit", limits: limits)
            _ = try Self.check(results, from: format, label: "\(format) over the limit", limits: limits)
            // (An XML property list counts open containers only: an empty <dict/> adds no level.)
            if format != .xmlplist {
                #expect(throws: Never.self) { try Self.stream(array, from: format, to: .jsonl, limits: limits) }
                #expect { try Self.stream(results, from: format, to: .jsonl, limits: limits) } throws: {
                    ($0 as? PFError)?.code == .limitExceeded
                }
            }
            // maxNodes counts every record's nodes together, as the tree does.
            let many = try FormatIO.write(.array(Array(repeating: [1, 2, 3], count: 10)), as: format)
            _ = try Self.check(many, from: format, label: "\(format) nodes", limits: PFLimits(maxNodes: 30))
            #expect { try Self.stream(many, from: format, to: .jsonl, limits: PFLimits(maxNodes: 30)) } throws: {
                ($0 as? PFError)?.code == .limitExceeded
            }
        }
    }

    /// Damaged documents: every truncation and many one-byte changes fail (or succeed) alike,
    /// never trap.
    @Test func damagedDocumentsFailAsTheWholeReadFails() throws {
        for format in [DataFormat.bplist, .cbor, .xmlplist] {
            let bytes = try FormatIO.write(["results": .array(Array(Self.records.prefix(9)))], as: format)
            var rng = SystemRandomNumberGenerator()
            for cut in stride(from: 1, to: bytes.count, by: max(1, bytes.count / 60)) {
                try Self.check(bytes.prefix(cut), from: format, label: "\(format) cut at \(cut)", sameError: false)
            }
            for _ in 0..<300 {
                var damaged = bytes
                let at = Int.random(in: 0..<damaged.count, using: &rng)
                damaged[at] = UInt8.random(in: 0...255, using: &rng)
                try Self.check(damaged, from: format, label: "\(format) byte \(at) = \(damaged[at])", sameError: false)
            }
        }
    }

    /// The real binary and XML property lists (the latter converted to binary and CBOR).
    @Test func realPropertyListsStreamAsTheyConvertWhole() throws {
        var streamed = 0
        let plists = Fixtures.files(in: Fixtures.real.appendingPathComponent("bplist")) { _ in true }
        #expect(plists.count >= 5)
        for file in plists {
            streamed += try Self.check(try Fixtures.data(file), from: .bplist, label: file.lastPathComponent)
        }
        for file in Fixtures.files(in: Fixtures.real.appendingPathComponent("xmlplist")) { _ in true } {
            let xml = try Fixtures.data(file)
            streamed += try Self.check(xml, from: .xmlplist, label: file.lastPathComponent)
            guard let value = try? FormatIO.read(xml).value else { continue }
            for format in [DataFormat.bplist, .cbor] {
                guard let bytes = try? FormatIO.write(value, as: format) else { continue }
                streamed += try Self.check(bytes, from: format, label: "\(file.lastPathComponent) as \(format)")
            }
        }
        #expect(streamed > 0)
    }
}
