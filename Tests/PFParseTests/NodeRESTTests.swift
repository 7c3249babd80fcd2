import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFParse
import PFParseExport
import PFTestSupport
import PropertyBased
import Testing

/// `ParseObject(restJSON:)` (objects straight from json-c's tree) gives exactly what
/// `ParseObject(rest:)` gives on the value the same reader reads: equal objects, in the same
/// key order, or equal errors (code, message, key path, offset).
@Suite struct NodeRESTTests {
    enum Outcome: Equatable, CustomStringConvertible {
        case object(ParseObject, String)
        case error(PFError)

        init(_ body: () throws(PFError) -> ParseObject) {
            do {
                let object = try body()
                // The order of keys is not part of ==; the written text is.
                let text = (try? JSONWriter().write(object.restValue)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
                self = .object(object, text)
            } catch {
                self = .error(error)
            }
        }

        var description: String {
            switch self {
            case .object(_, let text): "object \(text)"
            case .error(let e): "error \(e) at \(e.path.map { "\($0)" } ?? "-")"
            }
        }
    }

    static let untyped = JSONReader(options: .init(typedValues: false))

    /// Both paths on one row's text, with a fresh reader and with a session.
    static func expectSameOutcome(_ bytes: Data, className: String?, session: JSONReader.Session,
                                  sourceLocation: SourceLocation = #_sourceLocation) {
        let reader = session.reader
        let viaValue = Outcome { () throws(PFError) in try ParseObject(rest: try reader.read(bytes), className: className) }
        let viaNode = Outcome { () throws(PFError) in
            try reader.withDocument(bytes) { root throws(PFError) in try ParseObject(restJSON: root, className: className) }
        }
        let viaSession = Outcome { () throws(PFError) in
            try session.withDocument(bytes) { root throws(PFError) in try ParseObject(restJSON: root, className: className) }
        }
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(viaNode == viaValue, "\(text)", sourceLocation: sourceLocation)
        #expect(viaSession == viaValue, "\(text)", sourceLocation: sourceLocation)
    }

    // MARK: - Random REST rows

    /// Raw members spliced into a row's text: what a `PFValue` cannot hold (repeated keys,
    /// keys equal only as Swift strings, U+0000 in keys, integers beyond 64 bits).
    static let rawMembers: [String] = [
        #""objectId":7"#, #""objectId":"dupId""#, #""score":1,"score":"two""#, #""e\u0301":1,"\u00e9":2"#,
        #""\u212Aey":1,"Key":2"#, #""a\u0000b":1"#, #""big":18446744073709551615"#, #""className":"Other""#,
        #""className":5"#, #""__type":"Object""#, #""n":{"x.y":1}"#, #""p":{"__type":"Pointer","className":"A","objectId":"1","objectId":2}"#,
    ]

    static let keyPool = [
        "score", "playerName", "a_1", "Zed", "objectId", "createdAt", "updatedAt", "ACL", "className", "__type",
        "1abc", "a.b", "$x", "", "_private", "ünï", "length", "authData",
    ]
    static let nestedKeyPool = ["x", "y", "a.b", "$x", "__type", "ok_1", "é"]

    static func pick<T>(_ items: [T], _ rng: inout any SeededRandomNumberGenerator) -> T {
        items[Int.random(in: 0..<items.count, using: &rng)]
    }

    static func string(_ rng: inout any SeededRandomNumberGenerator) -> String {
        pick(["", "x", "hello", "ünïcødé ✓", "2015-05-19T00:53:50.112Z", "not a date", "a\u{0}b", "role:Admin",
              String(repeating: "long text ", count: 5)], &rng)
    }

    static func scalar(_ rng: inout any SeededRandomNumberGenerator) -> PFValue {
        switch Int.random(in: 0..<7, using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .int(pick(ValueGen.boundaryIntegers, &rng))
        case 3: return .uint(UInt64(Int64.max) + UInt64.random(in: 1...1000, using: &rng))
        case 4: return .double(pick([0.5, -0.0, 1e300, 91.5, -180.25, 45.0], &rng))
        default: return .string(string(&rng))
        }
    }

    /// A special type, well formed or not.
    static func special(_ rng: inout any SeededRandomNumberGenerator, depth: Int) -> PFValue {
        let good = Int.random(in: 0..<3, using: &rng) > 0
        func bad(_ rng: inout any SeededRandomNumberGenerator) -> PFValue { scalar(&rng) }
        switch Int.random(in: 0..<11, using: &rng) {
        case 0:
            return ["__type": "Date", "iso": good ? .string(pick(["2011-06-10T18:33:42.123Z", "2015-05-19T00:53:50Z", "1999-12-31T23:59:59.9999Z"], &rng)) : bad(&rng)]
        case 1: return ["__type": "Bytes", "base64": good ? .string(pick(["", "AQID", "aGVsbG8="], &rng)) : pick(["!!", "a", 5], &rng)]
        case 2:
            return good ? ["__type": "Pointer", "className": "_User", "objectId": "u1"] : ["__type": "Pointer", "className": "_User", "objectId": bad(&rng)]
        case 3: return good ? ["__type": "Relation", "className": "Post"] : ["__type": "Relation"]
        case 4:
            var d: OrderedDictionary<String, PFValue> = ["__type": "File", "name": good ? "f.png" : pick(["", 3], &rng)]
            if Bool.random(using: &rng) { d["url"] = good ? pick([.null, "http://x/f.png"], &rng) : 4 }
            return .dictionary(d)
        case 5:
            return ["__type": "GeoPoint", "latitude": good ? .double(45.5) : pick([95.0, "1", .null], &rng),
                    "longitude": good ? .int(-120) : pick([-190.0, 0], &rng)]
        case 6:
            let pair: PFValue = [1.5, 2]
            let coordinates: PFValue = good ? [pair, [3, 4.5], [5, 6]]
                : pick([[pair, pair], [pair, [1], pair], [pair, [100, 0], pair], "none", [pair, ["a", 1], pair]], &rng)
            return ["__type": "Polygon", "coordinates": coordinates]
        case 7:
            var d: OrderedDictionary<String, PFValue> = ["__type": "Object"]
            if good || Bool.random(using: &rng) { d["className"] = good ? "Embedded" : pick(["bad name", 5], &rng) }
            if case .dictionary(let row) = row(&rng, depth: depth + 1) {
                for (k, v) in row where d[k] == nil { d[k] = v }
            }
            return .dictionary(d)
        case 8: return ["__type": "Weird", "x": scalar(&rng)]
        case 9: return ["__type": bad(&rng), "iso": "2011-06-10T18:33:42.123Z"]
        default: return ["__type": "Date"]
        }
    }

    static func value(_ rng: inout any SeededRandomNumberGenerator, depth: Int) -> PFValue {
        switch Int.random(in: 0..<(depth > 2 ? 2 : 5), using: &rng) {
        case 0: return scalar(&rng)
        case 1: return special(&rng, depth: depth)
        case 2: return .array((0..<Int.random(in: 0...3, using: &rng)).map { _ in value(&rng, depth: depth + 1) })
        default:
            var d = OrderedDictionary<String, PFValue>()
            for _ in 0..<Int.random(in: 0...3, using: &rng) { d[pick(nestedKeyPool, &rng)] = value(&rng, depth: depth + 1) }
            return .dictionary(d)
        }
    }

    static func acl(_ rng: inout any SeededRandomNumberGenerator) -> PFValue {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: return ["*": ["read": true], "role:Admin": ["read": true, "write": true], "u1": ["write": false]]
        case 1: return ["": ["read": true]]
        case 2: return ["*": ["read": 1]]
        case 3: return ["*": ["delete": true]]
        case 4: return ["*": true]
        default: return scalar(&rng)
        }
    }

    static func timestamp(_ rng: inout any SeededRandomNumberGenerator) -> PFValue {
        pick(["2015-05-19T00:53:50.112Z", "2015-05-19T00:53:50Z", "yesterday", .null, 12,
              ["__type": "Date", "iso": "2011-06-10T18:33:42.123Z"], ["__type": "Date", "iso": 5], ["__type": "Bytes", "base64": "AQID"]], &rng)
    }

    static func row(_ rng: inout any SeededRandomNumberGenerator, depth: Int = 0) -> PFValue {
        var d = OrderedDictionary<String, PFValue>()
        let invalid = Int.random(in: 0..<4, using: &rng) == 0  // most rows valid, some with a bad key
        for _ in 0..<Int.random(in: 0...7, using: &rng) {
            var key = pick(keyPool, &rng)
            if !invalid, ["1abc", "a.b", "$x", "", "ünï", "length"].contains(key) { key = "k\(d.count)" }
            switch key {
            case "objectId": d[key] = Int.random(in: 0..<5, using: &rng) == 0 ? scalar(&rng) : "obj1"
            case "createdAt", "updatedAt": d[key] = timestamp(&rng)
            case "ACL": d[key] = Bool.random(using: &rng) ? acl(&rng) : ["*": ["read": true]]
            case "className": d[key] = pick(["GameScore", "Other", 3], &rng)
            default: d[key] = depth > 2 ? scalar(&rng) : value(&rng, depth: depth)
            }
        }
        return .dictionary(d)
    }

    /// A row's text, sometimes with a raw member spliced in after its `{`.
    static let rows = Generator<(Data, String?), Shrink.None<(Data, String?)>>(run: { rng in
        let value = Int.random(in: 0..<30, using: &rng) == 0 ? pick([[1, 2], "text", .null], &rng) : row(&rng)
        var text = (try? JSONWriter().write(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        if text.hasPrefix("{"), Bool.random(using: &rng) {
            let raw = pick(rawMembers, &rng)
            text = "{" + raw + (text == "{}" ? "" : ",") + text.dropFirst()
        }
        let className = pick(["GameScore", nil, "_User", "bad name"], &rng)
        return (Data(text.utf8), className)
    })

    @Test func randomRowsGiveEqualObjectsOrEqualErrors() async {
        let sessions = [JSONReader.Session(reader: ParseExportRow.reader()), JSONReader.Session(reader: Self.untyped)]
        await propertyCheck(count: 1500, input: Self.rows) { row in
            for session in sessions { Self.expectSameOutcome(row.0, className: row.1, session: session) }
        }
    }

    /// The generator reaches what it is meant to: valid objects and every kind of Parse error.
    @Test func randomRowsCoverObjectsAndErrors() {
        var rng = Xoshiro(seed: (7, 6, 5, 4))
        var objects = 0
        var codes = Set<String>()
        for _ in 0..<1500 {
            let (bytes, className) = Self.rows.run(using: &rng)
            do {
                _ = try ParseExportRow.reader().withDocument(bytes) { root throws(PFError) in try ParseObject(restJSON: root, className: className) }
                objects += 1
            } catch {
                if let range = error.message.range(of: "(Parse error ") {
                    codes.insert(String(error.message[range.upperBound...].prefix(while: \.isNumber)))
                } else {
                    codes.insert(error.code.rawValue)
                }
            }
        }
        #expect(objects > 80)
        #expect(codes.isSuperset(of: ["103", "105", "106", "107", "111", "121", "123", "invalidValue"]), "\(codes)")
    }

    // MARK: - Fixed cases

    /// Every special type, well formed, through a whole row.
    @Test func everySpecialTypeReadsTheSame() throws {
        let text = #"""
        {"objectId":"x1","createdAt":"2015-05-19T00:53:50.112Z","updatedAt":{"__type":"Date","iso":"2015-05-19T00:53:51.000Z"},
         "ACL":{"*":{"read":true},"role:Admin":{"write":true}},
         "d":{"__type":"Date","iso":"2011-06-10T18:33:42.123Z"},"b":{"__type":"Bytes","base64":"aGVsbG8="},
         "p":{"__type":"Pointer","className":"_User","objectId":"u1"},"r":{"__type":"Relation","className":"Post"},
         "f":{"__type":"File","name":"a.png","url":"http://x/a.png"},"g":{"__type":"GeoPoint","latitude":1.5,"longitude":-2},
         "poly":{"__type":"Polygon","coordinates":[[1,2],[3,4],[5,6.5]]},
         "e":{"__type":"Object","className":"Inner","objectId":"i1","n":[1,{"k":"v"}]},
         "u":{"__type":"Unknown","x":1},"big":9223372036854775807,"neg":-1.25e-3,"s":"a\u0000b","nil":null}
        """#
        let bytes = Data(text.utf8)
        let session = ParseExportRow.session()
        Self.expectSameOutcome(bytes, className: "GameScore", session: session)
        let object = try session.withDocument(bytes) { root throws(PFError) in try ParseObject(restJSON: root, className: "GameScore") }
        #expect(object == (try ParseObject(rest: try Self.untyped.read(bytes), className: "GameScore")))
        #expect(object.fields["poly"] != nil && object.acl != nil && object.createdAt != nil)
        let value = try Self.untyped.withDocument(bytes) { root throws(PFError) in try ParseValue(restJSON: root.member("p")!) }
        #expect(value == .pointer(ParsePointer(className: "_User", objectId: "u1")))
    }

    /// The error names the same place either way (message, Parse code, key path).
    @Test func aMalformedValueDeepInsideFailsAlike() {
        let bytes = Data(#"{"objectId":"o","list":[1,{"x":{"__type":"GeoPoint","latitude":91,"longitude":0}}]}"#.utf8)
        let session = JSONReader.Session(reader: Self.untyped)
        Self.expectSameOutcome(bytes, className: "GameScore", session: session)
        #expect(throws: PFError.self) {
            try session.withDocument(bytes) { root throws(PFError) in try ParseObject(restJSON: root, className: "GameScore") }
        }
        do {
            _ = try session.withDocument(bytes) { root throws(PFError) in try ParseObject(restJSON: root, className: "GameScore") }
        } catch {
            #expect(error.path.map { "\($0)" } == "list[1].x")
        }
    }

    // MARK: - The real export

    @Test(arguments: ["Comment.json", "NameWord.json", "_Role.json", "_Join:users:_Role.json"])
    func realExportRowsReadTheSame(_ file: String) throws {
        let data = try Fixtures.data(Fixtures.real.appendingPathComponent("parse").appendingPathComponent(file))
        let className = ParseExport.className(forFile: URL(fileURLWithPath: file))
        let whole = try ParseExport.objects(fromJSON: data, className: className)
        var streamed: [ParseObject] = []
        try ParseExport.forEachObject(inJSON: data, className: className) { object, index throws(PFError) in
            #expect(index == streamed.count)
            streamed.append(object)
        }
        #expect(streamed.count == whole.count)
        #expect(whole.isEmpty == file.hasPrefix("_Join"), "the join file is 0 bytes (an empty class)")
        #expect(streamed == whole)
        #expect(streamed.map(\.restValue) == whole.map(\.restValue))
        // Row by row too, each row's text through both paths.
        let session = ParseExportRow.session()
        var cutter = ParseExportRowCutter()
        var rows = 0
        let check: ParseExportRowCutter.RowHandler = { row throws(PFError) in
            rows += 1
            Self.expectSameOutcome(Data(row.bytes), className: className, session: session)
        }
        let fed: Result<Void, PFError> = data.withUnsafeBytes { raw in
            Result { () throws(PFError) in try cutter.feed(raw, check) }
        }
        try fed.get()
        try cutter.finish(check)
        #expect(rows == whole.count)
    }
}
