import Foundation
import PFCore
import PFJSON
import PFParseAdapter
import PFParseExport
import Testing

/// `ParseAdapter.decodeExport` reads rows through json-c's tree (`JSONNode`) and, with a
/// parallelism above 1, decodes slices of rows on several threads: the models and the errors
/// must be those of the `PFValue` path and of a serial decode.
@Suite struct ExportParallelTests {
    /// `rows` ScoreRow objects, with `bad` rows replaced by what the dictionary gives.
    func scoreRows(_ rows: Int, bad: [Int: String] = [:], wrapper: Bool = true, trailer: String = "") -> Data {
        var parts: [String] = []
        parts.reserveCapacity(rows)
        for i in 0..<rows {
            parts.append(bad[i] ?? #"{"objectId":"o\#(i)","name":"n\#(i)","score":\#(i)}"#)
        }
        let list = "[" + parts.joined(separator: ",") + trailer + "]"
        return Data((wrapper ? #"{"results":"# + list + "}" : list).utf8)
    }

    func outcome<M: ParseModel & Sendable>(_ type: M.Type, _ bytes: Data, parallelism: Int) -> Result<[M], PFError> {
        Result { () throws(PFError) in try ParseAdapter().decodeExport(M.self, fromJSON: bytes, parallelism: parallelism) }
    }

    @Test func parallelDecodeEqualsSerialDecode() throws {
        let bytes = try generatedParseExport(3_500)
        let adapter = ParseAdapter()
        let serial = try adapter.decodeExport(GeneratedScore.self, fromJSON: bytes, parallelism: 1)
        #expect(serial.count == 3_500)
        for parallelism in [2, 3, 8] {
            #expect(try adapter.decodeExport(GeneratedScore.self, fromJSON: bytes, parallelism: parallelism) == serial)
        }
        #expect(try adapter.decodeExport(GeneratedScore.self, fromJSON: bytes) == serial)
        // And both equal the PFValue path, row by row.
        let (rows, _) = try ParseExport.rows(fromJSON: bytes)
        #expect(try rows.map { try adapter.decode(GeneratedScore.self, fromREST: $0) } == serial)
    }

    @Test func theFirstFailingRowIsReportedWhateverTheParallelism() {
        // Rows in three different slices fail; the lowest index wins.
        let bytes = scoreRows(3_200, bad: [
            2_900: #"{"objectId":"z","name":"late"}"#,
            1_234: #"{"objectId":"b","name":"first","score":"high"}"#,
            2_001: #"{"objectId":"c","name":"second","score":true}"#,
        ])
        for parallelism in [1, 2, 3, 8] {
            expectParseError(ParseAdapterFailure.typeMismatch(expected: "an integer", found: "the string \"high\""), path: "results[1234].score") {
                _ = try outcome(ScoreRow.self, bytes, parallelism: parallelism).get()
            }
        }
        // A bare array names the row the same way.
        let array = scoreRows(2_500, bad: [2_400: #"{"objectId":"a","name":"x","score":1.5}"#, 1_999: "[]"], wrapper: false)
        for parallelism in [1, 2, 4] {
            expectParseError(ParseAdapterFailure.typeMismatch(expected: "a ScoreRow object", found: "an array"), path: "[1999]") {
                _ = try outcome(ScoreRow.self, array, parallelism: parallelism).get()
            }
        }
    }

    @Test func aBadRowComesBeforeAMalformedRowList() {
        // A syntax error in a row, and a trailing comma after the rows: the row's error first,
        // as a serial read meets it first.
        let bytes = scoreRows(2_600, bad: [1_500: #"{"objectId":"x","name":"y","score":}"#], trailer: ",")
        for parallelism in [1, 2] {
            expectParseError(nil, path: "results[1500]") {
                _ = try outcome(ScoreRow.self, bytes, parallelism: parallelism).get()
            }
        }
        let clean = scoreRows(2_600, trailer: ",")
        for parallelism in [1, 2] {
            expectParseError(.invalidJSON, contains: "trailing comma") {
                _ = try outcome(ScoreRow.self, clean, parallelism: parallelism).get()
            }
        }
        let good = scoreRows(2_600)
        let serial = try? outcome(ScoreRow.self, good, parallelism: 1).get()
        #expect(serial?.count == 2_600)
        #expect(serial?.last == ScoreRow(objectId: "o2599", name: "n2599", score: 2_599))
        #expect((try? outcome(ScoreRow.self, good, parallelism: 2).get()) == serial)
    }

    // MARK: - Node path = PFValue path

    /// Decodes one row through the node path (`decodeExport`) and through `PFValue`
    /// (`decode(_:fromREST:)`): the same model, or the same error under the row's path.
    func expectSameOutcome<M: ParseModel & Equatable & Sendable>(
        _ type: M.Type, _ row: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let adapter = ParseAdapter()
        let viaValue = Result { () throws(PFError) in
            try adapter.decode(M.self, fromREST: try JSONReader(options: .init(typedValues: false)).read(Data(row.utf8)))
        }
        let viaNode = Result { () throws(PFError) in
            try adapter.decodeExport(M.self, fromJSON: Data("[\(row)]".utf8), parallelism: 1)
        }
        switch (viaValue, viaNode) {
        case (.success(let a), .success(let b)):
            #expect([a] == b, sourceLocation: sourceLocation)
        case (.failure(let a), .failure(let b)):
            #expect(a.code == b.code && a.format == b.format && a.message == b.message, "\(a) vs \(b)",
                    sourceLocation: sourceLocation)
            #expect(b.path == PFKeyPath([.index(0)] + (a.path?.components ?? [])), "\(a) vs \(b)",
                    sourceLocation: sourceLocation)
        default:
            Issue.record("\(viaValue) vs \(viaNode)", sourceLocation: sourceLocation)
        }
    }

    @Test func nodesDecodeAsValuesDo() {
        let date = #"{"__type":"Date","iso":"2024-05-01T10:20:30.123Z"}"#
        let person = #""objectId":"p1","createdAt":"2024-01-02T03:04:05.006Z","full_name":"Ann","age":31,"score":2.5,"born":\#(date),"tags":["a","b"],"friends":[{"street":"s"}],"active":true"#
        for row in [
            "{\(person)}",
            #"{\#(person),"location":{"city":"Oslo"},"home":{"street":"x","city":null},"avatar":{"__type":"Bytes","base64":"AQI="}}"#,
            #"{\#(person),"location":null,"nickname":null}"#,
            #"{\#(person),"location":"Oslo"}"#,  // not an object on the key path
            #"{\#(person),"age":"31"}"#,
            #"{\#(person),"age":31.5}"#,
            #"{\#(person),"age":1e30}"#,
            #"{\#(person),"age":18446744073709551615}"#,
            #"{\#(person),"score":"x"}"#,
            #"{\#(person),"tags":["a",1]}"#,
            #"{\#(person),"friends":[{"street":1}]}"#,
            #"{\#(person),"friends":{}}"#,
            #"{\#(person),"born":"yesterday"}"#,
            #"{\#(person),"born":{"__type":"Date","iso":"nope"}}"#,
            #"{\#(person),"avatar":{"__type":"Bytes","base64":"%%"}}"#,
            #"{\#(person),"active":1}"#,
            #"{"objectId":"p1","full_name":"Ann"}"#,
            #"{"className":"Other","objectId":"p1"}"#,
            #"[1,2]"#,
            #""text""#,
        ] {
            expectSameOutcome(Person.self, row)
        }
        for row in [
            #"{"display_name":"w","width":2,"height":3,"app":{"version":"1.2"},"homepage":"https://x.org","serial":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","color":"G","released_at":1700000000,"built_at":"2024-01-02T03:04:05Z"}"#,
            #"{"display_name":"w","width":2,"height":3,"color":"Q","priority":null}"#,
            #"{"display_name":"w","width":2,"color":"R"}"#,
            #"{"display_name":"w","width":"2","height":3,"color":"R"}"#,
            #"{"display_name":"w","width":2,"height":3,"color":"R","serial":"nope"}"#,
            #"{"display_name":"w","width":2,"height":3,"color":"R","released_at":"soon"}"#,
            #"{"display_name":"w","width":2,"height":3,"color":"R","homepage":7}"#,
        ] {
            expectSameOutcome(Widget.self, row)
        }
        for row in [
            #"{"objectId":"t","name":"T","captain":{"__type":"Pointer","className":"Address","objectId":"a1"},"members":[{"__type":"Pointer","className":"Address","objectId":"a2"}]}"#,
            #"{"objectId":"t","name":"T","members":[{"__type":"Pointer","className":"User","objectId":"a2"}]}"#,
            #"{"objectId":"t","name":"T","members":[3]}"#,
        ] {
            expectSameOutcome(Team.self, row)
        }
        for row in [
            #"{"objectId":"p","title":"Hello","rating":4,"author":{"__type":"Pointer","className":"Address","objectId":"a1"}}"#,
            #"{"objectId":"p","title":"Hello","rating":4,"author":{"__type":"Object","className":"Address","objectId":"a1","street":"s"}}"#,
            #"{"objectId":"p","title":"","rating":9}"#,
            #"{"objectId":"p","title":"LOUD AND LONG TITLE","rating":-1}"#,
            #"{"objectId":"p","title":"x","rating":1,"author":{"__type":"Pointer","className":"Address"}}"#,
        ] {
            expectSameOutcome(Post.self, row)
        }
    }
}

/// A model that is not `Sendable` (a class inside): `decodeExport` still takes it, serially.
final class CounterBox: Codable, Equatable {
    var count: Int
    init(count: Int) { self.count = count }
    static func == (a: CounterBox, b: CounterBox) -> Bool { a.count == b.count }
}

struct BoxedRow: ParseModel, Equatable {
    var objectId: String?
    var box: CounterBox
    static let parseClassName = "BoxedRow"
}

@Suite struct ExportNonSendableTests {
    @Test func aModelThatIsNotSendableDecodesSerially() throws {
        let rows = (0..<1_500).map { #"{"objectId":"b\#($0)","box":{"count":\#($0)}}"# }
        let models = try ParseAdapter().decodeExport(BoxedRow.self, fromJSON: Data(("[" + rows.joined(separator: ",") + "]").utf8))
        #expect(models.count == 1_500)
        #expect(models[1_499] == BoxedRow(objectId: "b1499", box: CounterBox(count: 1_499)))
    }
}
