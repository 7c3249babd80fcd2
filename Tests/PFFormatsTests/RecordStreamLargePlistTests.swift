import Foundation
import OrderedCollections
import PFCore
import PFFormats
import PFPropertyList
import PFSerialization
import PFTestSupport
import PropertyBased
import Testing

/// A binary property list that is not a sequence of records, converted by its large
/// containers (issue 23: a 200 MB file no longer needs its 8 GB tree), writes what the whole
/// route writes — byte for byte for JSON, CBOR and XML property lists, the same value for a
/// binary property list — and fails with the same error, checked before anything is
/// written: shared objects, cycles, repeated and non-string keys, and the depth and node
/// limits (the nodes of the whole expanded file). The threshold (in nodes) is made small so
/// that small files are walked.
@Suite struct RecordStreamLargePlistTests {
    typealias Large = RecordStreamLargeTests

    static func check(_ input: Data, label: String, threshold: Int = 8, limits: PFLimits = .default, mayDecline: Bool = false) throws {
        try Large.check(input, label: label, threshold: threshold, limits: limits, mayDecline: mayDecline, from: .bplist)
    }

    /// The file of `value`, nulls as the `0x00` marker (pfarchive reads them back as null).
    static func bplist(_ value: PFValue) throws -> Data {
        try BinaryPlistWriter(options: .init(nullPolicy: .writeNullMarker)).write(value)
    }

    // MARK: - Hand-made files

    /// One object of a hand-made file.
    enum Object {
        case int(UInt8)
        case string(String)
        case null
        case double(Double)
        case array([Int])
        case dictionary([(Int, Int)])
        case raw([UInt8])

        var bytes: [UInt8] {
            func head(_ type: UInt8, _ n: Int) -> [UInt8] {
                n < 15 ? [type << 4 | UInt8(n)] : [type << 4 | 0x0F, 0x11, UInt8(n >> 8), UInt8(n & 0xFF)]
            }
            func refs(_ r: [Int]) -> [UInt8] { r.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }
            switch self {
            case .int(let v): return [0x10, v]
            case .string(let s): return head(5, s.utf8.count) + Array(s.utf8)
            case .null: return [0x00]
            case .double(let d): return [0x23] + withUnsafeBytes(of: d.bitPattern.bigEndian, Array.init)
            case .array(let r): return head(0xA, r.count) + refs(r)
            case .dictionary(let m): return head(0xD, m.count) + refs(m.map(\.0)) + refs(m.map(\.1))
            case .raw(let b): return b
            }
        }
    }

    /// A `bplist00` file of `objects` (2-byte references, 4-byte offsets) whose root is `top`.
    static func file(_ objects: [Object], top: Int = 0) -> Data {
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(out.count)
            out += object.bytes
        }
        let table = out.count
        for o in offsets { out += withUnsafeBytes(of: UInt32(o).bigEndian, Array.init) }
        out += [0, 0, 0, 0, 0, 0, 4, 2]
        out += withUnsafeBytes(of: UInt64(objects.count).bigEndian, Array.init)
        out += withUnsafeBytes(of: UInt64(top).bigEndian, Array.init)
        out += withUnsafeBytes(of: UInt64(table).bigEndian, Array.init)
        return Data(out)
    }

    /// Objects 1...: ten small ints, then `list` (an array of them) at 11.
    static let numbers: [Object] = (0..<10).map { .int(UInt8($0)) } + [.array(Array(1...10))]

    // MARK: - Tests

    /// Documents of every value type and shape, walked at thresholds from 0 (every container)
    /// up, and declined when the root is not larger than the threshold.
    @Test func documentsWalkAsTheyConvertWhole() throws {
        let rows = Large.records(30)
        var deep: PFValue = ["items": rows, "after": "x"]
        for k in 0..<4 { deep = ["level\(k)": deep, "n": .int(Int64(k))] }
        let shapes: [(String, PFValue)] = [
            ("records", rows),
            ("depth 1", ["type": "FeatureCollection", "features": rows, "count": 30, "uid": .uid(7), "big": .uint(UInt64.max)]),
            ("depth 5", deep),
            ("array of arrays", .array((0..<20).map { i in .array((0..<10).map { j in [.double(Double(i) + 0.5), .double(Double(j) * -1.25)] }) })),
            ("empty members", ["a": [], "b": [:], "c": .array(Array(repeating: [], count: 20)), "d": .array(Array(repeating: nil, count: 20))]),
            ("nulls only", ["a": .array(Array(repeating: nil, count: 20)), "b": .dictionary(.init(uniqueKeysWithValues: (0..<20).map { ("k\($0)", nil) }))]),
            ("keys", ["é": [1, 2, 3, 4, 5, 6, 7, 8, 9], "e\u{301}x": ["a": [1, 2, 3, 4, 5, 6, 7, 8, 9]], "😀": .data(Data(count: 100))]),
        ]
        for (label, value) in shapes {
            let input = try Self.bplist(value)
            for threshold in [0, 8, 64] { try Self.check(input, label: "\(label) / \(threshold)", threshold: threshold, mayDecline: threshold > 8) }
        }
        // A scalar root, or a root no larger than the threshold, is left to the whole read.
        #expect(try Large.walked(try Self.bplist("text"), .init(to: .json), threshold: 0, from: .bplist) == nil)
        #expect(try Large.walked(try Self.bplist([1, 2, 3]), .init(to: .json), threshold: 4, from: .bplist) == nil)
        #expect(try Large.walked(try Self.bplist([1, 2, 3]), .init(to: .json), threshold: 3, from: .bplist) != nil)
    }

    /// An object referenced from several places is written at each (walked again when it is
    /// large); a repeated key keeps its first place and last value; the real files convert alike.
    @Test func sharedObjectsRepeatedKeysAndRealFiles() throws {
        // 12 "a", 13 "b", 14 "c"; 15 {a: list, b: list, c: [list, list]} with 16 = [11, 11].
        let shared = Self.file([.dictionary([(12, 11), (13, 16), (14, 16)])] + Self.numbers + [.string("a"), .string("b"), .string("c"), .array([11, 11])])
        try Self.check(shared, label: "shared", threshold: 4)
        try Self.check(shared, label: "shared, every container", threshold: 0)
        // {a: 11, b: 0-ish, a: [list, list]}: "a" repeated, its last value large.
        let repeated = Self.file([.dictionary([(12, 11), (13, 1), (12, 14)])] + Self.numbers + [.string("a"), .string("b"), .array([11, 11])])
        try Self.check(repeated, label: "repeated key", threshold: 4)
        for folder in [Fixtures.real.appendingPathComponent("bplist"), Fixtures.real.appendingPathComponent("keyed"),
                       Fixtures.root.appendingPathComponent("regressions/bplist"), Fixtures.hostile] {
            for url in Fixtures.files(in: folder, where: { $0.hasSuffix(".bplist") || $0.hasSuffix(".plist") }) {
                let input = try Data(contentsOf: url)
                guard BinaryPlistReader.hasMagic(input) else { continue }
                for threshold in [0, 16] {
                    try Self.check(input, label: "\(url.lastPathComponent) / \(threshold)", threshold: threshold, mayDecline: true)
                }
            }
        }
    }

    /// Every reading error is the whole read's, before anything is written (no write at all),
    /// even when a writer would fail earlier in the file; writing errors name their key path.
    @Test func errorsAreTheWholeReadsBeforeAnyOutput() throws {
        // 12 "a", 13 "b".
        let strings: [Object] = [.string("a"), .string("b")]
        let cases: [(String, Data)] = [
            ("cycle", Self.file([.dictionary([(12, 11), (13, 14)])] + Self.numbers + strings + [.array([11, 14])])),
            ("bad reference", Self.file([.dictionary([(12, 11), (13, 14)])] + Self.numbers + strings + [.array([11, 900])])),
            ("unknown marker", Self.file([.dictionary([(12, 11), (13, 14)])] + Self.numbers + strings + [.array([11, 15]), .raw([0x70])])),
            ("int key", Self.file([.dictionary([(12, 11), (1, 11)])] + Self.numbers + strings)),
            ("array key", Self.file([.dictionary([(12, 11), (11, 11)])] + Self.numbers + strings)),
            ("cyclic array key", Self.file([.dictionary([(12, 11), (14, 11)])] + Self.numbers + strings + [.array([0])])),
            ("null then bad", Self.file([.array([14, 11, 15])] + Self.numbers + strings + [.null, .raw([0x5F, 0x10])])),
            ("NaN", Self.file([.array([11, 14])] + Self.numbers + strings + [.double(.nan)])),
            ("null", Self.file([.dictionary([(12, 11), (13, 14)])] + Self.numbers + strings + [.array([11, 15]), .null])),
        ]
        for (label, input) in cases {
            try Self.check(input, label: label, threshold: 4)
            // A reading error is thrown before the first byte goes out.
            Large.expectNoOutputOnReadingError(input, label: label, from: .bplist)
        }
    }

    /// The depth limit at each depth (a chain, and a shared object met deeper than where the
    /// whole read first decoded it) and the node limit over the expanded file (objects shared
    /// 2^k times), at the limit and one past it.
    @Test func limitsAtEachDepthAndOverTheExpandedFile() throws {
        var value: PFValue = [1, 2, 3]
        for k in 0..<12 { value = ["k\(k)": value, "pad": [1, 2, 3, 4, 5]] }
        let chain = try Self.bplist(value)
        for depth in 11...14 {
            var limits = PFLimits.default
            limits.maxDepth = depth
            try Self.check(chain, label: "depth \(depth)", threshold: 4, limits: limits)
        }
        // 0 = [21, 1]; 1 = [2, 2], 2 = [3, 3], …, 10 = [21, 21]; 11...20 ints; 21 = their
        // list: 2^10 + 1 lists, first met at depth 2, then at depth 12 (within a depth limit
        // of 11: the whole read decodes a shared object once).
        var objects: [Object] = [.array([21, 1])]
        for k in 1..<10 { objects.append(.array([k + 1, k + 1])) }
        objects.append(.array([21, 21]))
        objects += (0..<10).map { .int(UInt8($0)) }
        objects.append(.array(Array(11...20)))
        let doubling = Self.file(objects)
        let total = try #require(try? FormatIO.read(doubling, options: .init(format: .bplist)).value.nodeCount)
        for maxNodes in [total - 1, total] {
            var limits = PFLimits.default
            limits.maxNodes = maxNodes
            try Self.check(doubling, label: "maxNodes \(maxNodes)", threshold: 16, limits: limits)
        }
        for depth in [3, 10, 11, 12] {
            var limits = PFLimits.default
            limits.maxDepth = depth
            try Self.check(doubling, label: "doubling depth \(depth)", threshold: 16, limits: limits)
        }
    }

    /// Random trees, as binary property lists, walk as they convert whole at every threshold.
    @Test func randomFilesWalkAsTheyConvertWhole() async throws {
        var shape = ValueShape.json
        shape.nonFiniteDoubles = false
        var files: [Data] = []
        await propertyCheck(count: 100, input: ValueGen.tree(shape)) { value in
            if let bytes = try? Self.bplist(.array([value, ["v": value, "w": [value]]])) { files.append(bytes) }
        }
        #expect(files.count > 60)
        for (k, input) in files.enumerated() {
            for threshold in [0, 8, 32] { try Self.check(input, label: "random \(k) / \(threshold)", threshold: threshold, mayDecline: threshold > 0) }
        }
    }
}

extension PFValue {
    /// The nodes of the tree, as the readers count them against `maxNodes`.
    var nodeCount: Int {
        switch self {
        case .array(let items): 1 + items.reduce(0) { $0 + $1.nodeCount }
        case .dictionary(let members): 1 + members.values.reduce(0) { $0 + $1.nodeCount }
        default: 1
        }
    }
}
