import Foundation
import OrderedCollections
import PFCBOR
import PFCore
import PFFormats
import PFSerialization
import PFTestSupport
import PropertyBased
import Testing

/// A CBOR document that is not a sequence of records, converted by its large containers
/// (issue 23: a 200 MB document no longer needs its 8 GB tree), writes what the whole route
/// writes — byte for byte for JSON, CBOR and XML property lists, the same value for a binary
/// property list — and fails with the same error (message, key path, offset), checked before
/// anything is written: tags, shared values (tags 28 and 29), indefinite lengths, duplicate
/// and non-text keys, and the depth and node limits (the nodes of the whole expanded
/// document). The threshold (in nodes) is made small so that small documents are walked.
@Suite struct RecordStreamLargeCBORTests {
    typealias Large = RecordStreamLargeTests

    static func check(_ input: Data, label: String, threshold: Int = 8, limits: PFLimits = .default, mayDecline: Bool = false,
                      routes: [Large.Route] = Large.routes) throws {
        try Large.check(input, label: label, threshold: threshold, limits: limits, routes: routes, mayDecline: mayDecline, from: .cbor)
    }

    static func cbor(_ value: PFValue, share: Bool = false, selfDescribe: Bool = false) throws -> Data {
        try CBORWriter(options: .init(selfDescribe: selfDescribe, shareValues: share)).write(value)
    }

    // MARK: - Hand-made items

    static func head(_ major: UInt8, _ n: Int) -> [UInt8] {
        let m = major << 5
        switch n {
        case ..<24: return [m | UInt8(n)]
        case ..<256: return [m | 24, UInt8(n)]
        case ..<65536: return [m | 25, UInt8(n >> 8), UInt8(n & 0xFF)]
        default: return [m | 26] + withUnsafeBytes(of: UInt32(n).bigEndian, Array.init)
        }
    }
    static func int(_ n: Int) -> [UInt8] { n >= 0 ? head(0, n) : head(1, -1 - n) }
    static func text(_ s: String) -> [UInt8] { head(3, s.utf8.count) + Array(s.utf8) }
    static func array(_ items: [[UInt8]]) -> [UInt8] { head(4, items.count) + items.flatMap { $0 } }
    static func map(_ members: [([UInt8], [UInt8])]) -> [UInt8] { head(5, members.count) + members.flatMap { $0.0 + $0.1 } }
    static func tag(_ t: Int, _ content: [UInt8]) -> [UInt8] { head(6, t) + content }
    static func indefinite(_ items: [[UInt8]]) -> [UInt8] { [0x9F] + items.flatMap { $0 } + [0xFF] }
    static func indefiniteMap(_ members: [([UInt8], [UInt8])]) -> [UInt8] { [0xBF] + members.flatMap { $0.0 + $0.1 } + [0xFF] }
    /// Ten small integers.
    static let list = array((0..<10).map { int($0) })

    // MARK: - Tests

    /// Documents of every value type and shape, walked at thresholds from 0 (every container)
    /// up, and declined when the root is not larger than the threshold.
    @Test func documentsWalkAsTheyConvertWhole() throws {
        let rows = Large.records(30)
        var deep: PFValue = ["items": rows, "after": "x"]
        for k in 0..<4 { deep = ["level\(k)": deep, "n": .int(Int64(k))] }
        let shapes: [(String, PFValue)] = [
            ("records", rows),
            ("depth 1", ["type": "FeatureCollection", "features": rows, "count": 30, "uid": .uid(7), "big": .uint(UInt64.max), "neg": .int(.min)]),
            ("depth 5", deep),
            ("array of arrays", .array((0..<20).map { i in .array((0..<10).map { j in [.double(Double(i) + 0.5), .double(Double(j) * -1.25)] }) })),
            ("empty members", ["a": [], "b": [:], "c": .array(Array(repeating: [], count: 20)), "d": .array(Array(repeating: nil, count: 20))]),
            ("nulls only", ["a": .array(Array(repeating: nil, count: 20)), "b": .dictionary(.init(uniqueKeysWithValues: (0..<20).map { ("k\($0)", nil) }))]),
            ("keys", ["é": [1, 2, 3, 4, 5, 6, 7, 8, 9], "e\u{301}x": ["a": [1, 2, 3, 4, 5, 6, 7, 8, 9]], "😀": .data(Data(count: 100)), "": [true, false]]),
            ("large map", .dictionary(.init(uniqueKeysWithValues: (0..<40).map { ("key \(39 - $0)", [.int(Int64($0)), "v"]) }))),
        ]
        for (label, value) in shapes {
            for share in [false, true] {
                let input = try Self.cbor(.array([value, ["again": value]]), share: share, selfDescribe: share)
                for threshold in [0, 1, 8, 64] {
                    try Self.check(input, label: "\(label) share \(share) / \(threshold)", threshold: threshold, mayDecline: threshold > 8)
                }
            }
        }
        // A scalar root, or a root no larger than the threshold, is left to the whole read.
        #expect(try Large.walked(try Self.cbor("text"), .init(to: .json), threshold: 0, from: .cbor) == nil)
        #expect(try Large.walked(try Self.cbor([1, 2, 3]), .init(to: .json), threshold: 4, from: .cbor) == nil)
        #expect(try Large.walked(try Self.cbor([1, 2, 3]), .init(to: .json), threshold: 3, from: .cbor) != nil)
        #expect(try Large.walked(Data(Self.tag(55799, Self.tag(28, Self.list))), .init(to: .json), threshold: 3, from: .cbor) != nil)
    }

    /// Tags around large containers and pieces, shared values referred to from large
    /// containers, pieces and keys (nested, and deeper than where they were marked),
    /// indefinite-length arrays, maps and strings.
    @Test func tagsSharedValuesAndIndefiniteLengths() throws {
        let list = Self.list
        let date = Self.tag(1, Self.int(1_307_730_822))
        let cases: [(String, [UInt8])] = [
            ("tags", Self.tag(55799, Self.map([
                (Self.text("a"), Self.tag(4242, list)), (Self.text("when"), date), (Self.text("iso"), Self.tag(0, Self.text("2011-06-10T18:33:42.123Z"))),
                (Self.text("big"), Self.tag(2, [0x48, 1, 2, 3, 4, 5, 6, 7, 8])), (Self.text("neg"), Self.tag(3, [0x41, 9])),
                (Self.text("uid"), Self.tag(0x5046_5549, Self.int(3))), (Self.text("b"), Self.tag(99, Self.tag(98, Self.array([list, list])))),
            ]))),
            ("shared", Self.array([
                Self.tag(28, list), Self.tag(29, Self.int(0)),
                Self.map([(Self.text("a"), Self.tag(29, Self.int(0))), (Self.text("b"), Self.array([Self.tag(29, Self.int(0)), Self.tag(29, Self.int(0))]))]),
                Self.tag(28, Self.array([Self.tag(28, Self.text("shared key")), Self.tag(29, Self.int(0))])),
                Self.map([(Self.tag(29, Self.int(2)), Self.tag(29, Self.int(1))), (Self.text("x"), Self.tag(29, Self.tag(77, Self.int(1))))]),
                Self.tag(28, Self.int(1_000_000)),
                Self.tag(1, Self.tag(29, Self.int(3))),
            ])),
            ("shared nested", Self.array([
                Self.tag(28, Self.array([Self.tag(28, list), Self.tag(29, Self.int(1)), Self.map([(Self.text("k"), Self.tag(29, Self.int(1)))])])),
                Self.array([Self.array([Self.tag(29, Self.int(0)), Self.tag(29, Self.int(1))])]),
                Self.indefinite([Self.tag(29, Self.int(0)), Self.tag(29, Self.int(0))]),
            ])),
            ("indefinite", Self.indefiniteMap([
                (Self.text("a"), Self.indefinite([list, Self.indefinite((0..<12).map { Self.int($0) }), Self.indefinite([])])),
                ([0x7F, 0x62, 0x6B, 0x65, 0x61, 0x79, 0xFF], Self.indefiniteMap((0..<10).map { (Self.text("m\($0)"), Self.int($0)) })),
                (Self.text("s"), [0x5F, 0x42, 1, 2, 0x41, 3, 0xFF]),
                (Self.text("t"), [0x7F, 0x63, 0x61, 0x62, 0x63, 0x60, 0xFF]),
                (Self.text("e"), Self.indefiniteMap([])),
                (Self.text("undefined"), [0xF7]), (Self.text("half"), [0xF9, 0x3C, 0x00]), (Self.text("float"), [0xFA, 0x3F, 0xC0, 0, 0]),
            ])),
        ]
        for (label, bytes) in cases {
            for threshold in [0, 1, 2, 3, 5, 8, 11, 12, 16, 30] {
                try Self.check(Data(bytes), label: "\(label) / \(threshold)", threshold: threshold, mayDecline: true)
            }
            #expect(try Large.walked(Data(bytes), .init(to: .json), threshold: 0, from: .cbor) != nil, "\(label)")
        }
    }

    /// Every reading error is the whole read's (message, key path, offset), before anything is
    /// written (no write at all), even when a writer would fail earlier in the document;
    /// writing errors name their key path.
    @Test func errorsAreTheWholeReadsBeforeAnyOutput() throws {
        let list = Self.list
        let small = (0..<5).map { (Self.text("k\($0)"), list) }
        let wide = (0..<20).map { (Self.text("k\($0)"), list) }
        let cases: [(String, [UInt8])] = [
            ("duplicate small", Self.map(small + [(Self.text("k1"), list)])),
            ("duplicate large", Self.map(wide + [(Self.text("k3"), list)] + [(Self.text("z"), [0xFF])])),
            ("duplicate large then bad", Self.map(wide + [(Self.text("k3"), list), (Self.text("z"), [0x1C])])),
            ("duplicate indefinite", Self.indefiniteMap(small + [(Self.text("k2"), Self.array([list, [0x1C]]))])),
            ("duplicate shared key", Self.array([Self.tag(28, Self.text("k0")), Self.map(small + [(Self.tag(29, Self.int(0)), list)])])),
            ("int key", Self.map(small + [(Self.int(1), list)])),
            ("array key", Self.map(small + [(Self.array([]), list)])),
            ("tagged map key", Self.map(small + [(Self.tag(7, Self.map([])), list)])),
            ("shared array key", Self.array([Self.tag(28, list), Self.map(small + [(Self.tag(29, Self.int(0)), list)])])),
            ("bad utf-8", Self.array([list, list, Self.head(3, 2) + [0xC3, 0x28]])),
            ("bad utf-8 chunk", Self.array([list, [0x7F, 0x61, 0x61, 0x61, 0xFF, 0xFF]])),
            ("trailing", Self.array([list, list]) + [0x00]),
            ("truncated", Array(Self.array([list, list, Self.text("abcdef")]).dropLast(2))),
            ("missing break", Array(Self.indefinite([list, list]).dropLast())),
            ("stray break", Self.array([list, [0xFF]])),
            ("reserved", Self.array([list, [0x1C]])),
            ("cycle", Self.array([list, Self.tag(28, Self.array([list, Self.tag(29, Self.int(0))]))])),
            ("unknown reference", Self.array([Self.tag(28, list), Self.tag(29, Self.int(1))])),
            ("reference not int", Self.array([Self.tag(28, list), Self.tag(29, Self.text("0"))])),
            ("date of array", Self.array([list, Self.tag(1, list)])),
            ("date of shared array", Self.array([Self.tag(28, list), Self.tag(1, Self.tag(29, Self.int(0)))])),
            ("string reference", Self.array([list, Self.tag(25, Self.int(0))])),
            ("wide bignum", Self.array([list, Self.tag(2, [0x49] + Array(repeating: 1, count: 9))])),
            ("negative too small", Self.array([list, [0x3B, 0xFF, 0, 0, 0, 0, 0, 0, 0]])),
            ("simple", Self.array([list, [0xF8, 0x10]])),
            ("NaN", Self.array([list, [0xF9, 0x7E, 0x00]])),
            ("null", Self.map([(Self.text("a"), list), (Self.text("b"), Self.array([list, [0xF6]]))])),
            ("bad date", Self.array([list, Self.tag(0, Self.text("never"))])),
        ]
        for (label, bytes) in cases {
            let input = Data(bytes)
            try Self.check(input, label: label, threshold: 4)
            try Self.check(input, label: "\(label) / 0", threshold: 0)
            // A reading error is thrown before the first byte goes out.
            Large.expectNothingWrittenBeforeAReadingError(input, label: label, from: .cbor)
        }
    }

    /// The depth limit at each depth (a chain, and a shared value referred to deeper than
    /// where it was marked), and the node limit over the expanded document (a value shared
    /// 2^k times), at the limit and one past it; the other limits too.
    @Test func limitsAtEachDepthAndOverTheExpandedDocument() throws {
        var value: PFValue = [1, 2, 3]
        for k in 0..<12 { value = ["k\(k)": value, "pad": [1, 2, 3, 4, 5]] }
        let chain = try Self.cbor(value)
        for depth in 0...14 {
            var limits = PFLimits.default
            limits.maxDepth = depth
            try Self.check(chain, label: "depth \(depth)", threshold: 4, limits: limits, mayDecline: true)
        }
        // 28([0..9]) at depth 2, then ten levels that each refer twice to the level below.
        var levels: [[UInt8]] = [Self.tag(28, Self.list)]
        for k in 0..<10 { levels.append(Self.tag(28, Self.array([Self.tag(29, Self.int(k)), Self.tag(29, Self.int(k))]))) }
        let doubling = Data(Self.array([Self.array([levels[0]])] + levels.dropFirst() + [Self.array([Self.array([Self.tag(29, Self.int(10))])])]))
        let total = try #require(try? FormatIO.read(doubling, options: .init(format: .cbor)).value.nodeCount)
        for maxNodes in [total - 1, total] {
            var limits = PFLimits.default
            limits.maxNodes = maxNodes
            try Self.check(doubling, label: "maxNodes \(maxNodes)", threshold: 16, limits: limits)
        }
        for depth in [3, 4, 10, 11, 12, 13, 14] {
            var limits = PFLimits.default
            limits.maxDepth = depth
            try Self.check(doubling, label: "doubling depth \(depth)", threshold: 16, limits: limits)
        }
        let strings = try Self.cbor(["a": .array((0..<20).map { .string(String(repeating: "x", count: $0)) })])
        for (name, set) in [("maxStringBytes", { (l: inout PFLimits) in l.maxStringBytes = 10 }),
                            ("maxCollectionCount", { (l: inout PFLimits) in l.maxCollectionCount = 19 }),
                            ("maxInputBytes", { (l: inout PFLimits) in l.maxInputBytes = 100 })] {
            var limits = PFLimits.default
            set(&limits)
            try Self.check(strings, label: name, threshold: 4, limits: limits, mayDecline: name == "maxInputBytes")
        }
    }

    /// The real fixtures (property lists and keyed archives, written as CBOR, shared values
    /// too) and the CBOR regression files convert alike.
    @Test func fixturesAndRegressionFilesConvertAlike() throws {
        var inputs: [(String, Data)] = []
        for folder in ["bplist", "keyed", "xmlplist"] {
            for url in Fixtures.files(in: Fixtures.real.appendingPathComponent(folder), where: { $0.hasSuffix(".bplist") || $0.hasSuffix(".plist") }) {
                guard let value = try? FormatIO.read(try Data(contentsOf: url)).value else { continue }
                for share in [false, true] {
                    if let bytes = try? Self.cbor(value, share: share) { inputs.append(("\(url.lastPathComponent) share \(share)", bytes)) }
                }
            }
        }
        #expect(inputs.count > 20)
        for folder in ["regressions/cbor", "regressions/keyed"] {
            for url in Fixtures.files(in: Fixtures.root.appendingPathComponent(folder), where: { $0.hasSuffix(".cbor") }) {
                inputs.append((url.lastPathComponent, try Data(contentsOf: url)))
            }
        }
        for (label, input) in inputs {
            // Only a root array or map is walked (a scalar root is read whole).
            let scalarRoot: Bool
            switch try? FormatIO.read(input, options: .init(format: .cbor)).value {
            case .array?, .dictionary?: scalarRoot = false
            default: scalarRoot = true
            }
            for threshold in [0, 16] {
                try Self.check(input, label: "\(label) / \(threshold)", threshold: threshold, mayDecline: threshold > 0 || scalarRoot)
            }
        }
    }

    /// Random trees, as CBOR (repeated values shared with tags 28/29), walk as they convert
    /// whole at every threshold from 0 to 64.
    @Test func randomDocumentsWalkAsTheyConvertWhole() async throws {
        var shape = ValueShape()
        shape.uid = true
        var documents: [Data] = []
        await propertyCheck(count: 100, input: ValueGen.tree(shape)) { value in
            if let bytes = try? Self.cbor(.array([value, ["v": value, "w": [value]]]), share: documents.count % 2 == 0) { documents.append(bytes) }
        }
        #expect(documents.count == 100)
        let few: [Large.Route] = [Large.Route(to: .json), Large.Route(to: .cbor, canonical: true), Large.Route(to: .xmlplist, dropNulls: true)]
        for (k, input) in documents.enumerated() {
            for threshold in 0...64 {
                try Self.check(input, label: "random \(k) / \(threshold)", threshold: threshold, mayDecline: threshold > 4,
                               routes: threshold % 16 == 0 ? Large.routes : few)
            }
        }
    }
}
