import Foundation
import OrderedCollections
import PFCore
import PFFormats
import PFJSON
import PFSerialization
import PFTestSupport
import PropertyBased
import Testing

/// A JSON document that is not a sequence of records, converted by its large containers
/// (issue 23: bounded memory), writes what the whole-tree route writes — byte for byte for
/// JSON (compact and indented), CBOR (deterministic or not) and XML property lists (nulls
/// dropped or not), the same value read back for a binary property list — and fails with the
/// same error. The threshold is made small so that small inputs are walked.
@Suite struct RecordStreamLargeTests {
    /// One output and its settings.
    struct Route: CustomStringConvertible {
        var to: DataFormat
        var pretty = false
        var canonical = false
        var dropNulls = false
        var typed = true
        var description: String { "\(to)\(pretty ? " pretty" : "")\(canonical ? " canonical" : "")\(dropNulls ? " drop-nulls" : "")\(typed ? "" : " untyped")" }
    }

    static let routes: [Route] = [
        Route(to: .json), Route(to: .json, pretty: true), Route(to: .json, typed: false),
        Route(to: .cbor), Route(to: .cbor, canonical: true), Route(to: .cbor, typed: false),
        Route(to: .xmlplist), Route(to: .xmlplist, dropNulls: true),
        Route(to: .bplist), Route(to: .bplist, dropNulls: true),
    ]

    /// The walk's output, or `nil` when it leaves the document to the whole route.
    static func walked(_ input: Data, _ route: Route, threshold: Int, limits: PFLimits = .default, from: DataFormat = .json) throws(PFError) -> Data? {
        var options = RecordStream.Options(from: from, to: route.to, typedJSON: route.typed, canonicalCBOR: route.canonical, limits: limits)
        options.pretty = route.pretty
        options.dropNulls = route.dropNulls
        options.inputBytes = input.count
        var out = Data()
        let done = try RecordStream.convert(options: options, largeDocument: input, threshold: threshold) { bytes throws(PFError) in
            out.append(contentsOf: bytes)
        }
        return done == nil ? nil : out
    }

    /// The whole-tree route.
    static func whole(_ input: Data, _ route: Route, limits: PFLimits = .default, from: DataFormat = .json) throws(PFError) -> Data {
        let value = try FormatIO.read(input, options: .init(format: from, typedJSON: route.typed, limits: limits)).value
        return try FormatIO.write(value, as: route.to, options: .init(
            pretty: route.pretty, typedJSON: route.typed, dropNulls: route.dropNulls, canonicalCBOR: route.canonical))
    }

    /// Checks every route for one input: the walk must take it (unless `mayDecline`) and give
    /// the whole route's bytes (value, for a binary property list) or its error.
    static func check(_ input: Data, label: String, threshold: Int = 64, limits: PFLimits = .default,
                      routes: [Route] = routes, mayDecline: Bool = false, from: DataFormat = .json) throws {
        for route in routes {
            let expected = Result { () throws(PFError) in try whole(input, route, limits: limits, from: from) }
            let got = Result { () throws(PFError) in try walked(input, route, threshold: threshold, limits: limits, from: from) }
            switch (expected, got) {
            case (_, .success(nil)):
                #expect(mayDecline, "\(label) \(route): the walk declined")
            case (.success(let e), .success(let g?)):
                if route.to == .bplist {
                    let a = try FormatIO.read(e, options: .init(format: .bplist)).value
                    let b = try FormatIO.read(g, options: .init(format: .bplist)).value
                    #expect(a == b, "\(label) \(route)")
                } else {
                    #expect(e == g, "\(label) \(route): \(String(decoding: g.prefix(300), as: UTF8.self)) vs \(String(decoding: e.prefix(300), as: UTF8.self))")
                }
            case (.failure(let e), .failure(let g)):
                #expect(e.description == g.description, "\(label) \(route)")
            default:
                Issue.record("\(label) \(route): whole \(expected), walked \(got)")
            }
        }
    }

    /// When the whole read refuses `input`, the walk throws before the first byte goes out.
    static func expectNoOutputOnReadingError(_ input: Data, label: String, from: DataFormat) {
        guard (try? FormatIO.read(input, options: .init(format: from))) == nil else { return }
        var options = RecordStream.Options(from: from, to: .json)
        options.inputBytes = input.count
        var wrote = false
        #expect(throws: PFError.self, "\(label)") {
            try RecordStream.convert(options: options, largeDocument: input, threshold: 0) { _ throws(PFError) in wrote = true }
        }
        #expect(!wrote, "\(label)")
    }

    static func json(_ value: PFValue) throws -> Data {
        try FormatIO.write(value, as: .json, options: .init(typedJSON: true))
    }

    /// Records of many kinds, nulls, typed values and nesting included.
    static func records(_ n: Int) -> PFValue {
        var rows: [PFValue] = []
        for i in 0..<n {
            var row: OrderedDictionary<String, PFValue> = [:]
            row["i"] = .int(Int64(i))
            row["name"] = .string("row \(i) ü\u{1F600}")
            row["n"] = i % 3 == 0 ? .null : .double(Double(i) / 7)
            row["when"] = .date(Date(timeIntervalSince1970: 1_307_730_822.123 + Double(i)))
            row["bytes"] = .data(Data([UInt8(i & 255), 0, 7]))
            let list: [PFValue] = [[1, 2], [], [:], [.null, true]]
            row["list"] = .array(list)
            rows.append(.dictionary(row))
        }
        return .array(rows)
    }

    // MARK: - Real documents

    @Test func benchmarkDocumentsAreWalkedAsTheyConvertWhole() throws {
        for name in ["canada", "citm_catalog", "twitter"] {
            let input = try Data(contentsOf: Fixtures.benchData.appendingPathComponent("\(name).json"))
            try Self.check(input, label: name, threshold: 4096)
            // plistlib and Foundation read the walked binary property list as the tree writer's.
            let route = Route(to: .bplist, dropNulls: true)
            let walked = try #require(try Self.walked(input, route, threshold: 4096))
            try RecordStreamTests.peersReadAlike(try Self.whole(input, route), walked, label: name)
        }
        // The default threshold walks canada's feature collection and citm's root.
        let canada = try Data(contentsOf: Fixtures.benchData.appendingPathComponent("canada.json"))
        try Self.check(canada, label: "canada default", threshold: RecordStream.largeThreshold, routes: [Route(to: .json), Route(to: .cbor)])
    }

    // MARK: - Shapes

    /// A large container at depth 1, 2 and 5, beside small members before and after it,
    /// arrays of arrays (canada), objects of large maps (citm), and empty containers.
    @Test func largeContainersAtAnyDepth() throws {
        let rows = Self.records(40)
        var deep: PFValue = ["items": rows, "after": "x"]
        for k in 0..<4 { deep = ["level\(k)": deep, "n": .int(Int64(k))] }
        let shapes: [(String, PFValue)] = [
            ("depth 1", ["type": "FeatureCollection", "features": rows, "count": 40]),
            ("depth 2", ["data": ["items": rows, "total": 40], "ok": true]),
            ("depth 5", deep),
            ("array of arrays", .array((0..<30).map { i in .array((0..<20).map { j in [.double(Double(i) + 0.5), .double(Double(j) * -1.25)] }) })),
            ("object of maps", ["events": .dictionary(.init(uniqueKeysWithValues: (0..<50).map { ("e\($0)", ["id": .int(Int64($0)), "name": nil]) })),
                                "performances": rows, "empty": [:], "none": []]),
            ("empty members", ["a": [], "b": [:], "c": .array(Array(repeating: [], count: 40)), "d": .array(Array(repeating: nil, count: 40))]),
            ("nulls only", ["a": .array(Array(repeating: nil, count: 40)), "b": .dictionary(.init(uniqueKeysWithValues: (0..<20).map { ("k\($0)", nil) }))]),
        ]
        for (label, value) in shapes { try Self.check(try Self.json(value), label: label) }
        // White space and escapes anywhere.
        let spaced = Data("""
            { "a\\u0041" : [ 1 , 2.50 , "x\\"y" , { "k" : [ ] } , [ [ 1e2 ] ] ] ,\r\n\t"\\u00e9" : { "z" : null , "y" : [ true , false ] , "w" : "\(String(repeating: "long ", count: 20))" } }
            """.utf8)
        try Self.check(spaced, label: "spaced", threshold: 8)
    }

    /// Typed objects are recognised exactly as the tree reader does: a large Bytes value
    /// (`__type` first or last) is one value; a large object with `__type` among other keys
    /// is a dictionary; a malformed typed value fails with its key path.
    @Test func typedObjectsLargeAndSmall() throws {
        let base64 = Data(repeating: 0xAB, count: 3000).base64EncodedString()
        let documents = [
            #"{"blob":{"__type":"Bytes","base64":"\#(base64)"},"rest":[1,2,3]}"#,
            #"{"blob":{"base64":"\#(base64)","__type":"Bytes"},"rest":[1,2,3]}"#,
            #"{"dict":{"__type":"Pointer","className":"X","objectId":"\#(String(repeating: "a", count: 200))"},"d":{"__type":"Date","iso":"2011-06-10T18:33:42.123Z"}}"#,
            #"{"dict":{"a":[1,2,3,4,5,6,7,8,9,10],"__type":"Date"},"uid":{"CF$UID":3}}"#,
            #"{"ok":[1,2,3,4,5,6,7,8,9],"bad":{"when":{"__type":"Date","iso":"yesterday"},"pad":"\#(String(repeating: "p", count: 100))"}}"#,
            #"{"bad":{"__type":"Bytes","base64":"@@@@\#(String(repeating: "A", count: 100))"}}"#,
        ]
        for (k, text) in documents.enumerated() { try Self.check(Data(text.utf8), label: "typed \(k)") }
        // A root that is a typed value is left to the whole read (typed JSON off: walked).
        for text in [#"{"__type":"Bytes","base64":"\#(base64)"}"#, #"{"base64":"\#(base64)","base64":"AAAA","__type":"Bytes"}"#] {
            try Self.check(Data(text.utf8), label: "typed root", mayDecline: true)
            #expect(try Self.walked(Data(text.utf8), Route(to: .json), threshold: 64) == nil)
            #expect(try Self.walked(Data(text.utf8), Route(to: .json, typed: false), threshold: 64) != nil)
        }
    }

    /// A repeated key keeps its first place and its last value, in large and small objects.
    @Test func repeatedKeysKeepTheirFirstPlaceAndLastValue() throws {
        let text = #"{"a":[1,2,3,4,5,6,7,8,9,10,11,12],"b":{"x":1,"x":[2,3,4,5,6,7,8,9,10,11,12,13]},"a":{"last":[1,2,3,4,5,6,7,8,9,10]},"e\u0301":1,"é":2}"#
        try Self.check(Data(text.utf8), label: "repeated", threshold: 16)
    }

    /// Errors: a reading error after a writing one wins (the whole route reads first); a
    /// document that does not validate, or has no large root, is left to the whole route.
    @Test func errorsAreTheWholeRoutes() throws {
        // A null (no property list holds it) before a malformed date: the date's error.
        let late = #"{"n":null,"pad":[1,2,3,4,5,6,7,8,9,10],"bad":{"__type":"Date","iso":"no"}}"#
        try Self.check(Data(late.utf8), label: "late reading error", threshold: 8)
        let wrong = #"{"a":[1,2,3,4,5,6,7,8,9,10],"b":[1,2,,3]}"#
        for route in Self.routes {
            #expect(try Self.walked(Data(wrong.utf8), route, threshold: 8) == nil)
            #expect(try Self.walked(Data("[1,2,3]".utf8), route, threshold: 64) == nil, "small root")
            #expect(try Self.walked(Data(#""\#(String(repeating: "s", count: 100))""#.utf8), route, threshold: 8) == nil, "scalar root")
        }
        // The depth limit, at the limit and past it (the whole route's error from the scan).
        var limits = PFLimits.default
        limits.maxDepth = 40
        for depth in [40, 41] {
            let nested = String(repeating: "[1,", count: depth) + "2" + String(repeating: "]", count: depth)
            try Self.check(Data(nested.utf8), label: "depth \(depth)", threshold: 8, limits: limits, mayDecline: depth > 40)
        }
    }

    /// Random JSON documents, every container walked (threshold 0) or some (16, 64): every
    /// route gives the whole route's output or error.
    @Test func randomDocumentsWalkAsTheyConvertWhole() async throws {
        var shape = ValueShape.json
        shape.nonFiniteDoubles = false
        var documents: [Data] = []
        await propertyCheck(count: 150, input: ValueGen.tree(shape)) { value in
            if let bytes = try? FormatIO.write(.array([value, ["v": value, "w": [value]]]), as: .json) { documents.append(bytes) }
        }
        #expect(documents.count > 100)
        for (k, input) in documents.enumerated() {
            for threshold in [0, 16, 64] { try Self.check(input, label: "random \(k) / \(threshold)", threshold: threshold, mayDecline: threshold > 0) }
        }
    }
}
