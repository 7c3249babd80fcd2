import Foundation
import PFCore
import PFParse
import PFParseExport
import Testing

/// `ParallelRowReader` gives what a serial read gives — the same objects in the same order,
/// and the same first error — whatever the number of workers and the batch size.
@Suite struct ParallelRowReaderTests {
    /// An export of `count` rows; the rows at `bad` have a score that is not a number and a
    /// broken Date.
    static func export(_ count: Int, bad: Set<Int> = []) -> [UInt8] {
        var text = #"{"results":["#
        for i in 0..<count {
            if i > 0 { text += "," }
            let date = bad.contains(i) ? #"{"__type":"Date","iso":"yesterday"}"# : #"{"__type":"Date","iso":"2016-03-0\#(i % 9 + 1)T10:00:00.000Z"}"#
            text += #"{"objectId":"id\#(i)","n":\#(i),"name":"row \#(i) ✓","when":\#(date),"tags":["a",\#(i)]}"#
        }
        return Array((text + "]}").utf8)
    }

    /// Reads `bytes` fed in `chunk`-byte pieces, serially or with `workers`.
    static func read(_ bytes: [UInt8], workers: Int?, batchRows: Int = 7, chunk: Int = 97) -> (objects: [ParseObject], error: PFError?) {
        var objects: [ParseObject] = []
        func feed(_ add: (ParseExportRow) throws(PFError) -> Void) throws(PFError) {
            var cutter = ParseExportRowCutter()
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + chunk)
                let piece = Array(bytes[start..<end])
                let fed: Result<Void, PFError> = piece.withUnsafeBytes { raw in Result { () throws(PFError) in try cutter.feed(raw, add) } }
                try fed.get()
                start = end
            }
            try cutter.finish(add)
        }
        do throws(PFError) {
            if let workers {
                var reader = ParallelRowReader<ParseObject>(workers: workers) { row, session throws(PFError) in
                    try row.readObject(session: session, className: "Row", file: "Row.json")
                }
                reader.batchRows = batchRows
                try reader.read(rows: feed) { objects.append($0) }
            } else {
                let session = ParseExportRow.session()
                try feed { row throws(PFError) in
                    objects.append(try row.readObject(session: session, className: "Row", file: "Row.json"))
                }
            }
            return (objects, nil)
        } catch {
            return (objects, error)
        }
    }

    @Test(arguments: [1, 2, 4])
    func givesTheSerialObjectsInOrder(workers: Int) throws {
        let bytes = Self.export(1_000)
        let serial = Self.read(bytes, workers: nil)
        try #require(serial.error == nil)
        #expect(serial.objects.count == 1_000)
        for batchRows in [1, 7, 256] {
            let parallel = Self.read(bytes, workers: workers, batchRows: batchRows)
            #expect(parallel.error == nil)
            #expect(parallel.objects == serial.objects, "workers \(workers), batches of \(batchRows)")
        }
    }

    @Test(arguments: [1, 2, 4])
    func throwsTheFirstBadRowsErrorAfterTheRowsBeforeIt(workers: Int) {
        let bytes = Self.export(600, bad: [333, 71])
        let serial = Self.read(bytes, workers: nil)
        #expect(serial.objects.count == 71)
        #expect(serial.error?.message.contains("row 71") == true, "\(String(describing: serial.error))")
        for batchRows in [1, 7, 64] {
            let parallel = Self.read(bytes, workers: workers, batchRows: batchRows)
            #expect(parallel.error == serial.error)
            #expect(parallel.objects == serial.objects)
        }
    }

    @Test func aBadRowBeforeAMalformedWrapperWins() {
        // Row 40 is bad; the wrapper breaks after row 99 (a missing ',').
        var bytes = Self.export(100, bad: [40])
        bytes.removeLast(2)
        bytes += Array(#" {"objectId":"x"}]}"#.utf8)
        let serial = Self.read(bytes, workers: nil)
        #expect(serial.error?.message.contains("row 40") == true, "\(String(describing: serial.error))")
        #expect(Self.read(bytes, workers: 2).error == serial.error)

        let good = Self.export(100)
        var broken = good
        broken.removeLast(2)
        broken += Array(#" {"objectId":"x"}]}"#.utf8)
        let wrapper = Self.read(broken, workers: nil)
        #expect(wrapper.objects.count == 100)
        #expect(wrapper.error?.failure(as: ParseExportFailure.self) == .rows(.expectedCommaOrBracket), "\(String(describing: wrapper.error))")
        let parallel = Self.read(broken, workers: 2)
        #expect(parallel.error == wrapper.error)
        #expect(parallel.objects.count == 100)
    }

    @Test func anErrorFromDeliverStopsTheRead() {
        let bytes = Self.export(2_000)
        var seen = 0
        var reader = ParallelRowReader<ParseObject>(workers: 2) { row, session throws(PFError) in
            try row.readObject(session: session, className: "Row", file: "Row.json")
        }
        reader.batchRows = 16
        do throws(PFError) {
            try reader.read(rows: { add throws(PFError) in
                var cutter = ParseExportRowCutter()
                let fed: Result<Void, PFError> = bytes.withUnsafeBytes { raw in Result { () throws(PFError) in try cutter.feed(raw, add) } }
                try fed.get()
                try cutter.finish(add)
            }) { object throws(PFError) in
                seen += 1
                if object.objectId == "id500" { throw PFError(.usage, format: .parse, "stop at 500") }
            }
            Issue.record("expected the deliver error")
        } catch {
            #expect(error.message == "stop at 500")
        }
        #expect(seen == 501)
    }
}
