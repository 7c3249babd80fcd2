import Foundation
import PFCore
import PFParse
import PFParseAdapter
import PFParseExport
import PFTestSupport
import Testing

// MARK: - A model of the benchmark's generated GameScore export

struct GeneratedWeapon: Codable, Equatable {
    var name: String
    var uses: Int
}

struct GeneratedStats: Codable, Equatable {
    var kills: Int
    var deaths: Int
    var ratio: Double
    var weapons: [GeneratedWeapon]
}

struct GeneratedScore: ParseModel, Equatable {
    var objectId: String?
    var createdAt: Date?
    var updatedAt: Date?
    var acl: ParseACL?
    var score: Int
    var playerName: String
    var cheatMode: Bool
    var tags: [String]
    var stats: GeneratedStats
    var lastPlayed: Date
    var player: ParsePointer
    var comment: String
    static let parseClassName = "GameScore"
}

@Suite struct ExportStreamingTests {
    /// Every row `forEachRow` delivers, or the error it threw.
    func streamed(_ text: String) -> Result<[PFValue], PFError> {
        var rows: [PFValue] = []
        do throws(PFError) {
            try ParseExport.forEachRow(inJSON: Data(text.utf8)) { row, index throws(PFError) in
                #expect(index == rows.count)
                rows.append(row)
            }
            return .success(rows)
        } catch {
            return .failure(error)
        }
    }

    /// The rows the whole-document reader finds, or its error.
    func whole(_ text: String) -> Result<[PFValue], PFError> {
        Result { () throws(PFError) in try ParseExport.rows(fromJSON: Data(text.utf8)).rows }
    }

    /// Rows whose strings hold quotes, backslashes and brackets at every place within the
    /// eight-byte words the cutter skips at once, fed in chunks of many sizes (so chunk edges
    /// fall inside strings, escapes and between rows): each row comes out whole, exactly as
    /// written, at its offset.
    @Test func rowsCutAroundEscapesAtEveryWordOffset() throws {
        var rows: [String] = []
        for pad in 0..<17 {
            let filler = String(repeating: "a", count: pad)
            for special in [#"\""#, #"\\"#, "]},{", #"\\\""#, #"é\u00e9"#] {
                rows.append(#"{"objectId":"r\#(rows.count)","s":"\#(filler)\#(special)\#(filler)xyz\#(special)","t":[1,{"u":"\#(filler)"}]}"#)
            }
        }
        let text = "{\"results\":[" + rows.joined(separator: ",") + "]}"
        let bytes = Array(text.utf8)
        var expectedOffsets: [Int] = []
        var at = "{\"results\":[".utf8.count
        for row in rows {
            expectedOffsets.append(at)
            at += row.utf8.count + 1
        }
        for chunk in [1, 3, 7, 8, 9, 13, 24, 61, bytes.count] {
            var cutter = ParseExportRowCutter()
            var cut: [String] = []
            var offsets: [Int] = []
            let handler: ParseExportRowCutter.RowHandler = { row throws(PFError) in
                cut.append(String(decoding: row.bytes, as: UTF8.self))
                offsets.append(row.offset)
            }
            var start = 0
            while start < bytes.count {
                let end = min(start + chunk, bytes.count)
                try bytes[start..<end].withUnsafeBytes { raw in try cutter.feed(raw, handler) }
                start = end
            }
            try cutter.finish(handler)
            #expect(cut == rows, "chunks of \(chunk) bytes")
            #expect(offsets == expectedOffsets, "chunks of \(chunk) bytes")
        }
    }

    @Test(arguments: [
        #"{"results":[{"objectId":"a","n":1},{"objectId":"b","s":"x,]}\"{"}]}"#,
        #"  [ {"objectId":"a"} ,{"objectId":"b","deep":[[{"k":[]}]]} ]  "#,
        #"{"objectId":"only","results":[1]}"#,
        #"{"results":[]}"#,
        "[]",
        "",
        " \n\t",
        #"{"results":[{"a":1}],"count":1}"#,
        #"{"count":1,"results":[{"a":1}]}"#,
    ])
    func sameRowsAsTheWholeReader(text: String) throws {
        let expected = try whole(text).get()
        #expect(try streamed(text).get() == expected)
    }

    @Test(arguments: [
        (#"[,{"a":1}]"#, ParseExportFailure.RowsProblem.emptyRow),
        (#"[{"a":1},,{"b":2}]"#, .emptyRow),
        (#"[{"a":1},]"#, .trailingComma),
        (#"[{"a":1} {"b":2}]"#, .expectedCommaOrBracket),
        (#"[1 2]"#, .expectedCommaOrBracket),
        (#"{"results":[{"a":1}"#, .endsInsideRows),
        (#"{"results":[{"a":"1}]}"#, .endsInsideRow),
        (#"{"results":[{"a":1}]} x"#, .dataAfterRows),
        (#"{"results":[{"a":1}] "#, .expectedClosingBrace),
    ])
    func malformedWrappersFail(text: String, problem: ParseExportFailure.RowsProblem) {
        switch streamed(text) {
        case .success(let rows): Issue.record("accepted \(text) as \(rows)")
        case .failure(let error): #expect(error.failure(as: ParseExportFailure.self) == .rows(problem), "\(error)")
        }
        #expect(throws: PFError.self) { try whole(text).get() }
    }

    @Test func twoResultsMembersFail() {
        let text = #"{"results":[{"a":1}],"results":[]}"#
        switch streamed(text) {
        case .success(let rows): Issue.record("accepted \(text) as \(rows)")
        case .failure(let error): #expect(error.failure(as: ParseExportFailure.self) == .twoResults, "\(error)")
        }
        #expect(throws: PFError.self) { try whole(text).get() }
    }

    /// The one shape where the readers differ: the whole reader takes an object with an
    /// objectId for one object even when it has a "results" key; the row reader has already
    /// handed out the rows when it sees the objectId, so it refuses the document.
    @Test func resultsThenObjectIdIsRefusedByTheRowReader() throws {
        let text = #"{"results":[{"a":1}],"objectId":"x"}"#
        #expect(try whole(text).get().count == 1)
        guard case .failure(let error) = streamed(text) else {
            Issue.record("accepted an ambiguous document")
            return
        }
        #expect(error.parseErrorCode == .invalidJSON)
        #expect(error.failure(as: ParseExportFailure.self) == .ambiguousResults, "\(error)")
    }

    @Test func aSyntaxErrorInARowNamesTheRow() throws {
        let text = #"{"results":[{"a":1},{"a":tru}]}"#
        guard case .failure(let error) = streamed(text) else {
            Issue.record("accepted a row with a syntax error")
            return
        }
        #expect(error.path?.description.hasPrefix("results[1]") == true, "\(error)")
    }

    /// Every one-byte deletion and a set of one-byte replacements of a small export: the row
    /// reader accepts exactly what the whole reader accepts, with the same rows.
    @Test func agreesWithTheWholeReaderOnMutations() {
        let text = #"{"results":[{"objectId":"a1","n":[1,2.5,{"s":"q\"]"}],"ACL":{"*":{"read":true}}},{"objectId":"b2","t":null}]}"#
        let bytes = Array(text.utf8)
        var variants: [[UInt8]] = []
        for i in bytes.indices {
            var cut = bytes
            cut.remove(at: i)
            variants.append(cut)
            for b in Array("{}[],\" 1".utf8) where b != bytes[i] {
                var swapped = bytes
                swapped[i] = b
                variants.append(swapped)
            }
        }
        var disagreements: [String] = []
        for variant in variants {
            let text = String(decoding: variant, as: UTF8.self)
            switch (whole(text), streamed(text)) {
            case (.success(let a), .success(let b)) where a == b: continue
            case (.failure, .failure): continue
            default: disagreements.append(text)
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
    }

    @Test func realExportFilesStreamLikeTheWholeReader() throws {
        let files = Fixtures.files(in: Fixtures.real.appendingPathComponent("parse")) { $0.hasSuffix(".json") }
        #expect(files.count >= 4)
        for file in files {
            let bytes = try Fixtures.data(file)
            let expected = try ParseExport.rows(fromJSON: bytes).rows
            var rows: [PFValue] = []
            try ParseExport.forEachRow(inJSON: bytes) { row, _ in rows.append(row) }
            #expect(rows == expected, "\(file.lastPathComponent)")
        }
    }

    @Test func inputLargerThanTheLimitIsRejected() {
        var limits = PFLimits.default
        limits.maxInputBytes = 8
        #expect(throws: PFError.self) {
            try ParseExport.forEachRow(inJSON: Data(#"[{"a":1},{"b":2}]"#.utf8), limits: limits) { _, _ in }
        }
    }

    // MARK: - decodeExport

    @Test func decodeExportMatchesDecodingEachObject() throws {
        let bytes = try generatedParseExport(300)

        let adapter = ParseAdapter()
        let models = try adapter.decodeExport(GeneratedScore.self, fromJSON: bytes)
        let objects = try ParseExport.objects(fromJSON: bytes, className: "GameScore")
        #expect(models.count == 300)
        #expect(models == (try objects.map { try adapter.decode(GeneratedScore.self, from: $0) }))
        #expect(models.allSatisfy { $0.player.className == "_User" && $0.objectId?.count == 10 })
    }

    @Test func decodeExportNamesTheFailingRowAndKey() {
        let text = #"{"results":[{"objectId":"a","name":"x","score":1},{"objectId":"b","name":"y","score":"high"}]}"#
        expectParseError(.incorrectType, path: "results[1].score") {
            _ = try ParseAdapter().decodeExport(ScoreRow.self, fromJSON: Data(text.utf8))
        }
        let array = #"[{"objectId":"a","name":"x"}]"#
        expectParseError(nil, path: "[0].score") {
            _ = try ParseAdapter().decodeExport(ScoreRow.self, fromJSON: Data(array.utf8))
        }
    }
}

struct ScoreRow: ParseModel, Equatable {
    var objectId: String?
    var name: String
    var score: Int
    static let parseClassName = "ScoreRow"
}
