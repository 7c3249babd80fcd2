import Foundation
import PFCore
import PFPropertyList
import PFTestSupport
import Testing

/// The streamed binary property list writer on its own: values written one at a time read
/// back as the array or dictionary of them, and the reference width chosen up front is
/// never overrun.
@Suite struct BinaryPlistStreamWriterTests {
    static func records(
        _ values: [PFValue], objectBound: Int, options: BinaryPlistWriter.Options = .init(), sharesContainers: Bool = false
    ) throws(PFError) -> Data {
        var writer = BinaryPlistStreamWriter(options: options, objectBound: objectBound, sharesContainers: sharesContainers)
        var out: [UInt8] = []
        var file = Data()
        for value in values { try writer.appendRecord(value, depth: 1, into: &out) }
        let root = try writer.writeRecordArray(into: &out) { bytes throws(PFError) in file.append(contentsOf: bytes) }
        try writer.finish(root: root, into: &out) { bytes throws(PFError) in file.append(contentsOf: bytes) }
        return file
    }

    @Test func recordsReadBackAsTheArrayOfThem() throws {
        let values: [PFValue] = [
            ["a": 1, "b": "x", "c": [1, 2, "x"]], [:], [], "x", 1, 1.0, true, .data(Data([1, 2])), .uid(7), .uid(7),
            .date(Date(timeIntervalSinceReferenceDate: 1.5)), ["a": ["a": ["a": "é"]]], .uint(UInt64.max),
        ]
        let file = try Self.records(values, objectBound: 1000)
        #expect(try BinaryPlistReader().read(file) == .array(values))
        // Equal scalars are shared across records ("a", "x", 1, …), UIDs are not (as the tree writer does).
        #expect(try BinaryPlistReader.info(file).numObjects == BinaryPlistReader.info(try BinaryPlistWriter().write(.array(values))).numObjects)
        // A dictionary root from objects already written.
        var writer = BinaryPlistStreamWriter(objectBound: 100)
        var out: [UInt8] = []
        let key = try writer.write("k", depth: 1, into: &out)
        let value = try writer.write([1, 2], depth: 1, into: &out)
        let root = try writer.writeDictionary(keys: [key], values: [value], into: &out)
        var file2 = Data()
        try writer.finish(root: root, into: &out) { bytes throws(PFError) in file2.append(contentsOf: bytes) }
        #expect(try BinaryPlistReader().read(file2) == ["k": [1, 2]])
    }

    /// More objects than the bound's reference width numbers fail cleanly, never wrap.
    @Test func moreObjectsThanTheBoundFailCleanly() throws {
        let values = (0..<300).map { PFValue.string("s\($0)") }
        #expect(try BinaryPlistReader().read(try Self.records(values, objectBound: 301)) == .array(values))
        #expect(throws: PFError.self) { try Self.records(values, objectBound: 200) }
        do {
            _ = try Self.records(values, objectBound: 200)
        } catch {
            #expect(error.failure(as: BinaryPlistFailure.self) == .tooManyObjects(objectRefSize: 1))
            #expect(error.code == .limitExceeded)
        }
        // Nulls and depth as the tree writer: an error, or dropped.
        #expect(throws: PFError.self) { try Self.records([["a": nil]], objectBound: 10) }
        #expect(try BinaryPlistReader().read(try Self.records([["a": nil]], objectBound: 10, options: .init(nullPolicy: .drop))) == [[:]])
        let deep = (0..<3).reduce(PFValue.array([])) { inner, _ in .array([inner]) }
        #expect(throws: PFError.self) { try Self.records([deep], objectBound: 10, options: .init(maxDepth: 4)) }
        #expect(try BinaryPlistReader().read(try Self.records([deep], objectBound: 10, options: .init(maxDepth: 5))) == [deep])
    }

    /// With `sharesContainers`, a container whose children are all shared objects is written
    /// once (from the second time it is met: its children must be shared first) and read
    /// back wherever it is referenced; a container with a new child, or too long, is not.
    @Test func containersOfSharedChildrenAreShared() throws {
        let repeated: [PFValue] = [[], [:], ["a"], ["k": "v"], ["k": ["x", 1]], [[], [:]], ["k": ["x", 1], "j": [[]]]]
        let values = repeated + repeated + repeated + [["k": "new"], ["k": "new"], .array((0..<20).map { PFValue.int($0) })]
            + [.array((0..<20).map { PFValue.int($0) })]
        let shared = try Self.records(values, objectBound: 1000, sharesContainers: true)
        let plain = try Self.records(values, objectBound: 1000)
        #expect(try BinaryPlistReader().read(shared) == .array(values))
        #expect(try BinaryPlistReader().read(plain) == .array(values))
        let sharedCount = try BinaryPlistReader.info(shared).numObjects
        let plainCount = try BinaryPlistReader.info(plain).numObjects
        #expect(sharedCount < plainCount)
        // A container is shared once its children are: a copy of the values writes the
        // containers whose children the copy before shared, so the copies stop adding objects
        // within as many copies as the values are deep (3 levels).
        let counts = try (3...5).map { copies throws in
            try BinaryPlistReader.info(
                Self.records(Array(repeating: repeated, count: copies).flatMap { $0 }, objectBound: 1000, sharesContainers: true)
            ).numObjects
        }
        #expect(counts[0] == counts[1] && counts[1] == counts[2], "\(counts)")
        let once = try BinaryPlistReader.info(Self.records(repeated, objectBound: 1000, sharesContainers: true)).numObjects
        #expect(once < counts[0])
        // Python's plistlib reads the shared containers to the same values.
        let python = try Peers.python(
            "import sys, plistlib, json; print(json.dumps(plistlib.loads(sys.stdin.buffer.read())))", input: shared)
        let expected = try Peers.python(
            "import sys, plistlib, json; print(json.dumps(plistlib.loads(sys.stdin.buffer.read())))", input: plain)
        #expect(python.stdoutText == expected.stdoutText && !python.stdoutText.isEmpty, "\(python.stderr)")
        // Foundation's reader too.
        let a = try PropertyListSerialization.propertyList(from: shared, format: nil) as? NSArray
        let b = try PropertyListSerialization.propertyList(from: plain, format: nil) as? NSArray
        #expect(a != nil && a == b)
    }
}
