import Foundation
import OrderedCollections
import PFCore
import PFFormats
import PFSerialization
import PFTestSupport
import PFTypedStream
import PropertyBased
import Testing

/// A JSON document, binary or XML property list or CBOR document that is not a sequence of
/// records, converted to a typedstream by its large containers (issue 23: bounded memory),
/// writes the whole-tree route's bytes; a large dictionary whose `$id`, `$ref` or `$class`
/// key would make the whole route write it otherwise is declined (`doesNotStream`), so the
/// caller converts it whole. The threshold is made small so that small inputs are walked.
@Suite struct RecordStreamLargeTypedStreamTests {
    typealias Route = RecordStreamLargeTests.Route
    static let route = Route(to: .typedstream)

    /// What the walk gave: the bytes, declined before writing (`nil`), or an error.
    enum Outcome {
        case bytes(Data)
        case declined
        case doesNotStream
        case failed(PFError)
    }

    static func walk(_ input: Data, from: DataFormat, threshold: Int, limits: PFLimits = .default) -> Outcome {
        do throws(PFError) {
            guard let out = try RecordStreamLargeTests.walked(input, route, threshold: threshold, limits: limits, from: from) else { return .declined }
            return .bytes(out)
        } catch {
            if error.description.contains("does not stream") { return .doesNotStream }
            return .failed(error)
        }
    }

    /// The input in `from`'s format.
    static func encode(_ value: PFValue, as from: DataFormat) throws -> Data {
        try FormatIO.write(value, as: from, options: .init(typedJSON: true))
    }

    /// Checks one input: the walk gives the whole route's bytes (and they read back as the
    /// whole route's do), or, when `mayRefuse`, declines or does not stream; an error of the
    /// walk is the whole route's.
    /// - Returns: whether the walk wrote the document.
    @discardableResult
    static func check(_ input: Data, from: DataFormat, label: String, threshold: Int, mayRefuse: Bool = false, mayDecline: Bool = false) throws -> Bool {
        let expected = Result { () throws(PFError) in try RecordStreamLargeTests.whole(input, route, from: from) }
        let got = walk(input, from: from, threshold: threshold)
        switch (expected, got) {
        case (.success(let e), .bytes(let g)):
            #expect(e == g, "\(label): \(g.count) bytes walked, \(e.count) whole")
            if e == g {
                let back = try FormatIO.read(g, options: .init(format: .typedstream)).value
                #expect(back == (try FormatIO.read(e, options: .init(format: .typedstream)).value), "\(label)")
            }
            return true
        case (_, .declined):
            #expect(mayRefuse || mayDecline, "\(label): declined")
        case (_, .doesNotStream):
            #expect(mayRefuse, "\(label): does not stream")
        case (.failure(let e), .failed(let g)):
            #expect(e.description == g.description, "\(label)")
        case (let e, let g):
            Issue.record("\(label): whole \(e), walked \(g)")
        }
        return false
    }

    /// Every container walked (threshold 0) from JSON, CBOR and property lists, and some
    /// (64 bytes of JSON: a smaller root is left to the whole route).
    static func checkAllInputs(_ value: PFValue, label: String, mayRefuse: Bool = false) throws {
        try check(try encode(value, as: .json), from: .json, label: "\(label) json", threshold: 0, mayRefuse: mayRefuse)
        let json = try encode(value, as: .json)
        try check(json, from: .json, label: "\(label) json/64", threshold: 64, mayRefuse: mayRefuse, mayDecline: json.count <= 64)
        try check(try encode(value, as: .cbor), from: .cbor, label: "\(label) cbor", threshold: 0, mayRefuse: mayRefuse)
        if let plist = try? encode(value, as: .bplist) {
            try check(plist, from: .bplist, label: "\(label) bplist", threshold: 0, mayRefuse: mayRefuse)
        }
        if let xml = try? encode(value, as: .xmlplist) {
            try check(xml, from: .xmlplist, label: "\(label) xmlplist", threshold: 0, mayRefuse: mayRefuse)
        }
    }

    /// Nested objects and arrays, empty containers, every kind of number, dates, data,
    /// nulls, canonically equivalent strings that must stay apart.
    static let documents: [(String, PFValue)] = {
        let rows = RecordStreamLargeTests.records(12)
        var deep: PFValue = ["items": rows, "after": "x"]
        for k in 0..<4 { deep = ["level\(k)": deep, "n": .int(Int64(k))] }
        let numbers: PFValue = [
            "zero": 0, "neg": -1, "small": 127, "minus112": -112, "int16": 30000, "int32": 2_000_000, "int64": .int(Int64.max),
            "min": .int(Int64.min), "uint": .uint(UInt64.max), "half": 0.5, "negzero": .double(-0.0), "big": 1e300,
            "integral": 3.0, "true": true, "false": false,
        ]
        let unicode: PFValue = [
            "é": "e\u{301}", "e\u{301}": "é", "emoji": "\u{1F600}\u{1F1EB}\u{1F1F7}", "nul": "a\u{0}b", "empty": "",
            "list": ["é", "e\u{301}", "é", "e\u{301}"],
        ]
        return [
            ("records", .array(rows.arrayValue ?? [])),
            ("features", ["type": "FeatureCollection", "features": rows, "count": 12]),
            ("deep", deep),
            ("empties", ["a": [], "b": [:], "c": [[], [:], [[]], ["x": [:]]], "d": .array([]), "e": .null]),
            ("numbers", ["numbers": numbers, "again": .array([numbers, numbers])]),
            ("unicode", ["u": unicode, "v": .array([unicode, unicode])]),
            ("dates and data", [
                "when": .date(Date(timeIntervalSinceReferenceDate: 123.25)), "old": .date(Date(timeIntervalSince1970: -1e9)),
                "bytes": .data(Data([0, 1, 2, 255])), "none": .data(Data()), "list": [.date(Date(timeIntervalSinceReferenceDate: 0)), .data(Data([9]))],
            ]),
            ("nulls", ["a": .null, "b": [.null, .null, ["c": .null]]]),
            // Lookalike keys inside members read whole: the whole writer's own handling.
            ("small lookalikes", [
                "shared": [["$id": 1, "$value": ["a", "b"]], ["$ref": 1], ["$class": "Thing", "x": 1]],
                "url": ["$class": "NSURL", "string": "https://example.com"],
                "pad": rows,
            ]),
            ("dollar keys that do not matter", ["$version": 3, "$values": [1, 2, 3], "$value": ["x", "y"], "$classRef": "X", "rows": rows]),
        ]
    }()

    @Test func documentsWalkAsTheyConvertWhole() throws {
        for (label, value) in Self.documents {
            // Lookalike keys in a dictionary made large by threshold 0 are refused; with the
            // dictionaries read whole, the document is written as the whole route does.
            let lookalikes = label == "small lookalikes"
            try Self.checkAllInputs(value, label: label, mayRefuse: lookalikes)
            if lookalikes {
                #expect(try Self.check(try Self.encode(value, as: .json), from: .json, label: "\(label) json/200", threshold: 200))
            }
        }
    }

    /// A large dictionary with a key that decides how the whole route writes it (`$id` shares
    /// it, `$ref` refers back, `$class` may make it an object of that class): the walk does not
    /// write it as a dictionary; the whole route does what it does.
    @Test func largeDictionariesWithSharingKeysAreRefused() throws {
        let rows = RecordStreamLargeTests.records(6)
        let documents: [(String, PFValue)] = [
            ("$id", ["items": rows, "$id": 4, "more": rows]),
            ("$id first", ["$id": 1, "$value": rows]),
            ("$ref", ["a": ["$id": 2, "$value": rows], "b": ["$ref": 2]]),
            ("$class", ["rows": rows, "$class": "Thing", "$version": 0, "$values": [["types": "i", "values": [1]]]]),
            ("$class NSURL", ["$class": "NSURL", "string": .string(String(repeating: "u", count: 300))]),
        ]
        for (label, value) in documents {
            try Self.checkAllInputs(value, label: label, mayRefuse: true)
            let json = try Self.encode(value, as: .json)
            switch Self.walk(json, from: .json, threshold: 0) {
            case .doesNotStream: break
            case let other: Issue.record("\(label): \(other)")
            }
        }
    }

    /// A large array may hold anything: its members are written whole by the whole writer.
    @Test func largeArraysOfSharedObjects() throws {
        let value: PFValue = ["list": [["$id": 7, "$value": [1, 2]], ["$ref": 7], ["$id": 7, "$value": [1, 2]], "tail"], "x": [1, 2, 3]]
        // Every container walked: the shared one is a large dictionary with `$id`, refused.
        try Self.checkAllInputs(value, label: "shared in a large array", mayRefuse: true)
        // The list walked, its members read whole: written as the whole route does.
        let json = try Self.encode(value, as: .json)
        #expect(try Self.check(json, from: .json, label: "shared in a large array json/40", threshold: 40))
    }

    /// Errors the whole writer meets in a member (an undefined `$ref`, a malformed `$values`
    /// group) are left to the whole route, which reports them with its own key path.
    @Test func writingErrorsAreLeftToTheWholeRoute() throws {
        let rows = RecordStreamLargeTests.records(4)
        for value: PFValue in [
            ["rows": rows, "bad": ["$ref": 99]],
            ["rows": rows, "bad": ["$class": "X", "$values": [["types": "ii", "values": [1]]]]],
        ] {
            let json = try Self.encode(value, as: .json)
            #expect(throws: PFError.self) { try RecordStreamLargeTests.whole(json, Self.route, from: .json) }
            switch Self.walk(json, from: .json, threshold: 0) {
            case .doesNotStream: break
            case let other: Issue.record("\(value): \(other)")
            }
        }
    }

    /// The depth limit: a document nested to the whole writer's limit is written; one past it
    /// is the whole route's error.
    @Test func depthAtTheWholeWritersLimit() throws {
        let limit = PFLimits.default.maxDepth
        for depth in [limit - 2, limit - 1, limit, limit + 1] {
            let json = Data((String(repeating: "[\"pad\",", count: depth) + "[1,2]" + String(repeating: "]", count: depth)).utf8)
            try Self.check(json, from: .json, label: "depth \(depth)", threshold: 0, mayRefuse: true)
        }
    }

    /// Random JSON documents, every container walked (threshold 0) or some (16, 64): the
    /// whole route's bytes or error, or declined (no large root, or a sharing key).
    @Test func randomDocumentsWalkAsTheyConvertWhole() async throws {
        var shape = ValueShape.json
        shape.nonFiniteDoubles = false
        var documents: [Data] = []
        await propertyCheck(count: 100, input: ValueGen.tree(shape)) { value in
            if let bytes = try? FormatIO.write(.array([value, ["v": value, "w": [value]]]), as: .json) { documents.append(bytes) }
        }
        var walked = 0
        for (k, input) in documents.enumerated() {
            for threshold in [0, 16, 64] where try Self.check(input, from: .json, label: "random \(k) / \(threshold)", threshold: threshold, mayRefuse: true) {
                walked += 1
            }
        }
        #expect(walked > documents.count, "\(walked) walked")
    }

    /// The real JSON, property list and CBOR fixtures, and the benchmark documents.
    @Test func realDocumentsWalkAsTheyConvertWhole() throws {
        var inputs: [(String, Data, DataFormat)] = []
        for name in ["canada", "citm_catalog", "twitter"] {
            inputs.append((name, try Data(contentsOf: Fixtures.benchData.appendingPathComponent("\(name).json")), .json))
        }
        for directory in ["parse", "bplist", "xmlplist"] {
            let dir = Fixtures.real.appendingPathComponent(directory)
            for file in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() where !file.contains("-neg-") {
                let format: DataFormat = directory == "parse" ? .json : directory == "bplist" ? .bplist : .xmlplist
                inputs.append((file, try Data(contentsOf: dir.appendingPathComponent(file)), format))
            }
        }
        // A document whose root is no larger than the threshold (a scalar root, a small
        // fixture) is left to the whole route before anything is written; most are walked.
        var walked = 0
        for (name, data, format) in inputs {
            if try Self.check(data, from: format, label: name, threshold: format == .json || format == .xmlplist ? 256 : 8, mayDecline: true) {
                walked += 1
            }
            // The same value as CBOR.
            if let value = try? FormatIO.read(data, options: .init(format: format)).value, let cbor = try? Self.encode(value, as: .cbor),
                try Self.check(cbor, from: .cbor, label: "\(name) as cbor", threshold: 8, mayDecline: true)
            {
                walked += 1
            }
        }
        #expect(walked >= 10, "\(walked) of \(2 * inputs.count) walked")
    }
}

/// A keyed archive that is not records, walked by its large containers to a typedstream: the
/// whole route's bytes, or refused.
@Suite struct KeyedArchiveLargeTypedStreamTests {
    @Test func keyedArchivesWalkAsTheyConvertWhole() throws {
        var walkedAny = false
        for (label, value) in RecordStreamLargeTypedStreamTests.documents {
            guard let archive = try? FormatIO.write(value, as: .keyed) else { continue }
            let expected = try FormatIO.write(try FormatIO.read(archive, options: .init(format: .keyed)).value, as: .typedstream)
            var options = RecordStream.Options(from: .keyed, to: .typedstream)
            options.inputBytes = archive.count
            var out = Data()
            do throws(PFError) {
                let done = try RecordStream.convert(options: options, keyedArchive: archive, threshold: 2) { bytes throws(PFError) in
                    out.append(contentsOf: bytes)
                }
                if done != nil {
                    walkedAny = true
                    #expect(out == expected, "\(label)")
                }
            } catch {
                #expect(error.description.contains("does not stream"), "\(label): \(error)")
            }
        }
        #expect(walkedAny)
    }
}
