import Foundation
import PFCore
import PFPropertyList
import Testing

/// The streamed binary property list writer on its own: values written one at a time read
/// back as the array or dictionary of them, and the reference width chosen up front is
/// never overrun.
@Suite struct BinaryPlistStreamWriterTests {
    static func records(_ values: [PFValue], objectBound: Int, options: BinaryPlistWriter.Options = .init()) throws(PFError) -> Data {
        var writer = BinaryPlistStreamWriter(options: options, objectBound: objectBound)
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
}
