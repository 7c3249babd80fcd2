import Foundation
import PFParse
import Testing

/// Parse's REST documentation examples, written out as text: each special type, each
/// operation and the batch body encode byte for byte and decode to equal values.
@Suite struct RESTGoldenTests {
    static let specialTypes: [(String, ParseValue)] = [
        (#"{"__type":"Date","iso":"2011-08-21T18:02:52.249Z"}"#,
         .date(Date(timeIntervalSince1970: 1_313_949_772.249))),
        (#"{"__type":"Bytes","base64":"VGhpcyBpcyBhbiBlbmNvZGVkIHN0cmluZw=="}"#,
         .bytes(Data("This is an encoded string".utf8))),
        (#"{"__type":"Pointer","className":"GameScore","objectId":"Ed1nuqPvc"}"#,
         .pointer(ParsePointer(className: "GameScore", objectId: "Ed1nuqPvc"))),
        (#"{"__type":"Pointer","className":"_User","objectId":"8TOXdXf3tz"}"#,
         .pointer(ParsePointer(className: "_User", objectId: "8TOXdXf3tz"))),
        (#"{"__type":"Relation","className":"GameScore"}"#, .relation(className: "GameScore")),
        (#"{"__type":"File","name":"d9b7d8a8c9b2-profile.png","url":"http://files.parsetfss.com/bc9f32df/d9b7d8a8c9b2-profile.png"}"#,
         .file(ParseFile(name: "d9b7d8a8c9b2-profile.png", url: "http://files.parsetfss.com/bc9f32df/d9b7d8a8c9b2-profile.png"))),
        (#"{"__type":"GeoPoint","latitude":40.0,"longitude":-30.0}"#,
         .geoPoint(ParseGeoPoint(latitude: 40, longitude: -30))),
        (#"{"__type":"Polygon","coordinates":[[0.0,0.0],[0.0,1.0],[1.0,1.0],[1.0,0.0]]}"#,
         .polygon(ParsePolygon(coordinates: [
            ParseGeoPoint(latitude: 0, longitude: 0), ParseGeoPoint(latitude: 0, longitude: 1),
            ParseGeoPoint(latitude: 1, longitude: 1), ParseGeoPoint(latitude: 1, longitude: 0),
         ]))),
    ]

    @Test(arguments: 0..<specialTypes.count)
    func specialTypeEncodesByteForByteAndDecodes(_ i: Int) throws {
        let (text, value) = Self.specialTypes[i]
        #expect(try jsonText(value.restValue) == text)
        #expect(try ParseValue(rest: try rawJSON(text)) == value)
        #expect(try ParseValue(rest: try typedJSON(text)) == value, "typed dates and bytes decode too")
    }

    @Test func embeddedObjectAndUnknownType() throws {
        let text = #"{"__type":"Object","className":"Country","objectId":"Qm6Xk1D1Y2","name":"Norway","code":"NO"}"#
        let value = try ParseValue(rest: try rawJSON(text))
        guard case .embedded(let country) = value else {
            Issue.record("expected an embedded object, got \(value)")
            return
        }
        #expect(country.className == "Country")
        #expect(country.objectId == "Qm6Xk1D1Y2")
        #expect(try country.value(forKey: "name") == .string("Norway"))
        #expect(try jsonText(value.restValue) == text)

        let unknown = #"{"__type":"Hologram","frames":3}"#
        let kept = try ParseValue(rest: try rawJSON(unknown))
        #expect(kept == .object(["__type": .string("Hologram"), "frames": .int(3)]))
        #expect(try jsonText(kept.restValue) == unknown)
    }

    @Test func createBodyAndResponse() throws {
        var score = try ParseObject(className: "GameScore")
        try score.set(.int(1337), forKey: "score")
        try score.set(.string("Sean Plott"), forKey: "playerName")
        try score.set(.bool(false), forKey: "cheatMode")
        #expect(try jsonText(score.savePayload()) == #"{"score":1337,"playerName":"Sean Plott","cheatMode":false}"#)

        let response = try ParseObject(
            rest: try rawJSON(#"{"createdAt":"2011-08-20T02:06:57.931Z","objectId":"Ed1nuqPvcm"}"#), className: "GameScore")
        #expect(response.objectId == "Ed1nuqPvcm")
        #expect(response.createdAt == Date(timeIntervalSince1970: 1_313_806_017.931))
        #expect(try jsonText(response.restValue) == #"{"createdAt":"2011-08-20T02:06:57.931Z","objectId":"Ed1nuqPvcm"}"#)
    }

    static let operations: [(String, String, ParseOperation)] = [
        ("score", #"{"__op":"Increment","amount":1}"#, .increment(.int(1))),
        ("score", #"{"__op":"Increment","amount":-1}"#, .increment(.int(-1))),
        ("skills", #"{"__op":"Add","objects":["flying"]}"#, .add([.string("flying")])),
        ("skills", #"{"__op":"AddUnique","objects":["flying","kungfu"]}"#, .addUnique([.string("flying"), .string("kungfu")])),
        ("skills", #"{"__op":"Remove","objects":["flying"]}"#, .remove([.string("flying")])),
        ("opponents", #"{"__op":"Delete"}"#, .delete),
        ("opponents", #"{"__op":"AddRelation","objects":[{"__type":"Pointer","className":"Player","objectId":"Vx4nudeWn"}]}"#,
         .addRelation([ParsePointer(className: "Player", objectId: "Vx4nudeWn")])),
        ("opponents", #"{"__op":"RemoveRelation","objects":[{"__type":"Pointer","className":"Player","objectId":"Vx4nudeWn"}]}"#,
         .removeRelation([ParsePointer(className: "Player", objectId: "Vx4nudeWn")])),
        ("opponents",
         #"{"__op":"Batch","ops":[{"__op":"AddRelation","objects":[{"__type":"Pointer","className":"Player","objectId":"Vx4nudeWn"}]},{"__op":"RemoveRelation","objects":[{"__type":"Pointer","className":"Player","objectId":"Zx8nudeAb"}]}]}"#,
         .batch([.addRelation([ParsePointer(className: "Player", objectId: "Vx4nudeWn")]),
                 .removeRelation([ParsePointer(className: "Player", objectId: "Zx8nudeAb")])])),
    ]

    @Test(arguments: 0..<operations.count)
    func operationEncodesByteForByteAndDecodes(_ i: Int) throws {
        let (key, text, op) = Self.operations[i]
        #expect(try jsonText(op.restValue) == text)
        #expect(try ParseOperation(rest: try rawJSON(text)) == op)
        // The whole PUT body, as the docs show it.
        var object = try ParseObject(className: "GameScore", objectId: "Ed1nuqPvcm")
        if case .addRelation = op { try object.set(.relation(className: "Player"), forKey: key); object.markSaved() }
        if case .removeRelation = op { try object.set(.relation(className: "Player"), forKey: key); object.markSaved() }
        if case .batch = op { try object.set(.relation(className: "Player"), forKey: key); object.markSaved() }
        try object.apply(op, forKey: key)
        #expect(try jsonText(object.savePayload()) == "{\"\(key)\":\(text)}")
    }

    @Test func batchBody() throws {
        var a = try ParseObject(className: "GameScore")
        try a.set(.int(1337), forKey: "score")
        try a.set(.string("Sean Plott"), forKey: "playerName")
        var b = try ParseObject(className: "GameScore")
        try b.set(.int(1338), forKey: "score")
        try b.set(.string("ZeroCool"), forKey: "playerName")
        var c = try ParseObject(rest: try rawJSON(#"{"objectId":"Ed1nuqPvcm","score":1}"#), className: "GameScore")
        try c.set(.int(999999), forKey: "score")
        let expected = #"{"requests":[{"method":"POST","path":"/parse/classes/GameScore","body":{"score":1337,"playerName":"Sean Plott"}},{"method":"POST","path":"/parse/classes/GameScore","body":{"score":1338,"playerName":"ZeroCool"}},{"method":"PUT","path":"/parse/classes/GameScore/Ed1nuqPvcm","body":{"score":999999}}]}"#
        #expect(try jsonText(ParseObject.batchBody([a, b, c])) == expected)
    }

    @Test func aclFromTheUsersDocs() throws {
        let text = #"{"3KmCvT7Zsb":{"read":true,"write":true},"*":{"read":true},"role:Moderators":{"write":true}}"#
        let acl = try ParseACL(rest: try rawJSON(text))
        #expect(acl.access(for: "3KmCvT7Zsb") == .init(read: true, write: true))
        #expect(acl.access(for: "*") == .init(read: true))
        #expect(acl.access(for: "role:Moderators") == .init(write: true))
        #expect(acl.access(for: "nobody") == .init())
        #expect(try jsonText(acl.restValue) == text)
    }
}
