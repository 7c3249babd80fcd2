import Foundation
import OrderedCollections
import PFCore
import PFFormats
import PFSerialization
import PFTestSupport
import PFTypedStream
import PropertyBased
import Testing

/// Typedstreams walked by their large containers (`TypedStream.walk`, through
/// `RecordStream.convert(options:largeDocument:…)`) against the whole route: the same bytes
/// for JSON (compact, pretty, untyped), CBOR and XML property lists, or the same error;
/// declined (left to the whole route) for a binary property list or deterministic CBOR.
@Suite struct RecordStreamTypedStreamTests {
    typealias Route = RecordStreamLargeTests.Route

    /// The routes a typedstream is walked to.
    static let walkedRoutes: [Route] = RecordStreamLargeTests.routes.filter { !$0.canonical }

    static func check(_ input: Data, label: String, threshold: Int = 0, limits: PFLimits = .default, mayDecline: Bool = false) throws {
        try RecordStreamLargeTests.check(
            input, label: label, threshold: threshold, limits: limits, routes: walkedRoutes, mayDecline: mayDecline, from: .typedstream)
    }

    static func stream(_ value: PFValue) throws -> Data { try TypedStream.encodeValue(value) }

    /// A Parse-shaped document: `{"data": [records], "n": 1, "meta": …}`.
    static func document(_ n: Int) -> PFValue {
        ["data": RecordStreamLargeTests.records(n), "n": 1, "meta": ["x": [1, 2, 3]]]
    }

    @Test func documentsOfRecordsWalkAsTheyConvertWhole() throws {
        for n in [1, 5, 40] {
            let data = try Self.stream(Self.document(n))
            for threshold in [0, 64, 1024] {
                try Self.check(data, label: "document \(n) threshold \(threshold)", threshold: threshold, mayDecline: threshold > 0)
            }
            try Self.check(try Self.stream(RecordStreamLargeTests.records(n)), label: "records \(n)")
        }
    }

    @Test func routesThatAreNotWalkedDecline() throws {
        let data = try Self.stream(Self.document(5))
        for route in [Route(to: .cbor, canonical: true)] {
            #expect(try RecordStreamLargeTests.walked(data, route, threshold: 0, from: .typedstream) == nil, "\(route)")
        }
        // A scalar root, a generic object at the root, several root groups: whole.
        for value: PFValue in ["just a string", ["$class": "Thing", "$version": 2, "$values": [["types": "i", "values": [7]]]]] {
            #expect(try RecordStreamLargeTests.walked(try Self.stream(value), Route(to: .json), threshold: 0, from: .typedstream) == nil)
        }
    }

    /// Shared objects (written once with `$id`, then `{"$ref": N}`) and cycles, at the root,
    /// inside walked containers and inside pieces written whole.
    @Test func sharedObjectsAndCycles() throws {
        let shared: PFValue = ["$id": 1, "$value": [1, "two", 3.5]]
        let sharedDictionary: PFValue = ["$id": 2, "$value": ["k": "v", "n": .null]]
        let cycle: PFValue = ["$class": "Node", "$version": 0, "$id": 3, "$values": [["types": "@i", "values": [["$ref": 3], 5]]]]
        let values: [PFValue] = [
            ["a": shared, "b": ["$ref": 1], "c": [["$ref": 1], ["$ref": 1], sharedDictionary], "d": ["$ref": 2], "e": cycle],
            [shared, ["$ref": 1], [["$ref": 1]], cycle, ["$ref": 3], "shared text", "shared text"],
            ["$id": 4, "$value": [1, 2, ["$ref": 4], ["x": ["$ref": 4]]]],
            ["$id": 5, "$value": ["self": ["$ref": 5], "list": [["$ref": 5], 1]]],
        ]
        for (n, value) in values.enumerated() {
            try Self.check(try Self.stream(value), label: "shared \(n)")
            try Self.check(try Self.stream(value), label: "shared \(n) threshold 40", threshold: 40, mayDecline: true)
        }
    }

    /// Every type the reader knows, in a generic object's groups, inside a walked array.
    @Test func everyTypeTheReaderKnows() throws {
        let chain: PFValue = ["$classRef": "Thing", "$version": 3]
        let groups: [PFValue] = [
            ["types": "cCsSiIlLqQ", "values": [-1, 200, -300, 60000, -70000, 4_000_000_000, -5, 6, -9_000_000_000, .uint(UInt64.max)]],
            ["types": "fdB", "values": [1.5, -2.25, true]],
            ["types": "*", "values": ["c string"]],
            ["types": "+", "values": [.data(Data([0, 1, 2, 255]))]],
            ["types": "%:", "values": ["atom", "selector:"]],
            ["types": "#", "values": [chain]],
            ["types": "@", "values": ["an object"]],
            ["types": "[3i]", "values": [[1, 2, 3]]],
            ["types": "[4c]", "values": [.data(Data([9, 8, 7, 6]))]],
            ["types": "{pt=id}", "values": [[4, 0.5]]],
        ]
        let object: PFValue = ["$class": "Thing", "$version": 3, "$values": .array(groups)]
        let value: PFValue = [object, ["k": object], [.date(Date(timeIntervalSinceReferenceDate: 12.5)), .null, true, 1.25, .data(Data([1]))]]
        let data = try Self.stream(value)
        try Self.check(data, label: "every type")
        #expect(try RecordStreamLargeTests.walked(data, Route(to: .json), threshold: 0, from: .typedstream) != nil)
    }

    /// Limits met while converting (not while reading) give the whole route's error, also
    /// when an output's own error (a null in a property list) would come first.
    @Test func conversionLimitsAreTheWholeRoutes() throws {
        let data = try Self.stream(Self.document(20))
        for limits in [PFLimits(maxDepth: 4), PFLimits(maxNodes: 300), PFLimits(maxNodes: 2000), PFLimits(maxCollectionCount: 10)] {
            try Self.check(data, label: "limits \(limits.maxDepth) \(limits.maxNodes) \(limits.maxCollectionCount)", limits: limits)
        }
    }

    /// A stream the whole read refuses is refused before anything is written: every cut of
    /// a generated stream, and the hostile corpus.
    @Test func nothingIsWrittenBeforeAReadingError() throws {
        let data = try Self.stream(Self.document(3))
        for cut in stride(from: 1, to: data.count, by: 7) {
            RecordStreamLargeTests.expectNothingWrittenBeforeAReadingError(data.prefix(cut), label: "cut \(cut)", from: .typedstream)
        }
        for url in Fixtures.files(in: Fixtures.hostile, where: { $0.hasPrefix("ts_") }) {
            let input = try Fixtures.data(url)
            RecordStreamLargeTests.expectNothingWrittenBeforeAReadingError(input, label: url.lastPathComponent, from: .typedstream)
            try Self.check(input, label: url.lastPathComponent, mayDecline: true)
        }
    }

    /// Real files: pytypedstream's Apple samples (when the test setup downloaded them) and
    /// the regressions kept in the repository.
    @Test func realStreamsWalkAsTheyConvertWhole() throws {
        let sdist = Fixtures.repoRoot.appendingPathComponent(".venv/pytypedstream-sdist/pytypedstream-0.1.0/tests/data")
        let regressions = Fixtures.root.appendingPathComponent("regressions/typedstream")
        let files = Fixtures.files(in: sdist) { !$0.hasPrefix(".") } + Fixtures.files(in: regressions)
        #expect(!files.isEmpty)
        for url in files {
            try Self.check(try Fixtures.data(url), label: url.lastPathComponent, mayDecline: true)
        }
    }

    @Test func randomTreesWalkAsTheyConvertWhole() async {
        var shape = ValueShape()
        shape.uid = false
        await propertyCheck(count: 100, input: ValueGen.tree(shape)) { value in
            try Self.check(try Self.stream(.array([value, ["k": value]])), label: "random")
        }
    }
}
