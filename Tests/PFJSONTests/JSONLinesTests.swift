import Foundation
import PFCore
import PFJSON
import PFTestSupport
import PropertyBased
import Testing

/// JSON Lines: one value per line, read through the ordinary JSON reader a line at a time,
/// from chunks cut anywhere.
@Suite struct JSONLinesTests {
    /// Feeds `bytes` to a reader in chunks of `size` bytes.
    static func read(_ bytes: Data, chunk size: Int, reader: JSONReader = JSONReader()) throws(PFError) -> [(PFValue, JSONLines.Line)] {
        var lines = JSONLines.Reader(reader: reader)
        var out: [(PFValue, JSONLines.Line)] = []
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = min(start + size, bytes.endIndex)
            let chunk = Data(bytes[start..<end])
            try chunk.withBytes { raw throws(PFError) in
                try lines.feed(raw) { value, line throws(PFError) in out.append((value, line)) }
            }
            start = end
        }
        try lines.finish { value, line throws(PFError) in out.append((value, line)) }
        return out
    }

    @Test func randomRecordsRoundTripWhateverTheChunkSize() async throws {
        let writer = JSONLines.Writer()
        await propertyCheck(count: 150, input: ValueGen.tree(ValueShape.json)) { value in
            // A record list: the value, its elements if it is an array, and the empty containers.
            var records: [PFValue] = [value, [:], [], value]
            if case .array(let items) = value { records += items }
            let bytes = try writer.write(records)
            // One line per record, each ended by a newline, none inside a record.
            #expect(bytes.filter { $0 == 0x0A }.count == records.count)
            for size in [1, 3, 64, 1 << 20] {
                let back = try Self.read(bytes, chunk: size)
                #expect(back.map(\.0) == records)
                #expect(back.map(\.1.number) == Array(1...records.count))
            }
            #expect(try JSONLines.Reader.read(bytes, reader: JSONReader()) == records)
        }
    }

    @Test func lineEndingsBlankLinesAByteOrderMarkAndNoFinalNewline() throws {
        let text = "\u{FEFF}{\"a\":1}\r\n\r\n   \n[1,2]\n\"\u{1F600} \\n\"\n{}"
        let back = try Self.read(Data(text.utf8), chunk: 2)
        #expect(back.map(\.0) == [["a": 1], [1, 2], "\u{1F600} \n", [:]])
        #expect(back.map(\.1.number) == [1, 4, 5, 6])
        #expect(try JSONLines.Reader.read(Data(), reader: JSONReader()).isEmpty)
    }

    @Test func aRecordSplitAcrossReadBuffersAndAHugeString() throws {
        let huge = String(repeating: "é\u{1F600}x", count: 400_000)  // 2.8 MB
        let records: [PFValue] = [["s": .string(huge)], [[[[]]]], ["": [:]]]
        let bytes = try JSONLines.Writer().write(records)
        for size in [7, 1 << 16, 1 << 20] {
            #expect(try Self.read(bytes, chunk: size).map(\.0) == records)
        }
    }

    /// A bad line in the middle names its line (number, column and byte offset in the input).
    @Test func aBadLineInTheMiddleIsNamed() throws {
        let text = "{\"a\":1}\n{\"a\":2}\n{\"a\":tru}\n{\"a\":4}\n"
        for size in [1, 5, 1 << 20] {
            do {
                _ = try Self.read(Data(text.utf8), chunk: size)
                Issue.record("a bad third line was accepted")
            } catch {
                #expect(error.message.hasPrefix("line 3: "), "\(error)")
                #expect(error.location?.line == 3)
                #expect(error.location?.offset ?? 0 >= 16 && error.location?.offset ?? 0 < 26, "\(error)")
            }
        }
        // Two values on one line are not one value per line.
        #expect(throws: PFError.self) { try Self.read(Data("1\n2 3\n".utf8), chunk: 4) }
        do {
            _ = try Self.read(Data("1\n2 3\n".utf8), chunk: 4)
        } catch {
            #expect(error.location?.line == 2)
        }
        // A raw newline inside a string cuts the string: the line is incomplete JSON.
        #expect(throws: PFError.self) { try Self.read(Data("[\"a\nb\"]\n".utf8), chunk: 100) }
    }

    @Test func aLineLongerThanTheLimitIsRefusedWithItsNumber() throws {
        var limits = PFLimits.default
        limits.maxInputBytes = 100
        let reader = JSONReader(options: .init(limits: limits))
        let text = "1\n\"" + String(repeating: "x", count: 200) + "\"\n3\n"
        for size in [1, 50, 1000] {
            do {
                _ = try Self.read(Data(text.utf8), chunk: size, reader: reader)
                Issue.record("a 202-byte line passed a 100-byte limit")
            } catch {
                #expect(error.code == .limitExceeded && error.location?.line == 2, "\(error)")
            }
        }
    }
}
