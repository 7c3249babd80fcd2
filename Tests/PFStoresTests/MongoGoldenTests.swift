import Foundation
import PFJSON
import PFParse
import PFStores
import Testing

/// Documents as parse-server's MongoTransform.js stores them (parseObjectToMongoObjectForCreate,
/// transformInteriorValue, addLegacyACL) and MongoSchemaCollection.js describes them, written
/// by hand from that source and compared byte for byte with what the store writes.
@Suite struct MongoGoldenTests {
    static let created = isoDate("2015-03-01T12:00:00.123Z")
    static let updated = isoDate("2015-03-01T12:00:05.000Z")

    static func gameScore() throws -> ParseObject {
        var acl = ParseACL()
        acl.set(.init(read: true, write: true), for: "u1")
        acl.setPublic(.init(read: true))
        return try ParseObject(
            className: "GameScore", objectId: "xWMyZ4YEGZ", createdAt: created, updatedAt: updated, acl: acl,
            fields: [
                "score": .int(1337), "ratio": .double(0.5), "whole": .double(3), "name": .string("Sean"),
                "cheat": .bool(false), "nothing": .null,
                "when": .date(isoDate("2015-03-01T12:00:00.120Z")),
                "ancient": .date(isoDate("0001-01-01T00:00:00.000Z")),
                "blob": .bytes(Data([1, 2, 3])),
                "owner": .pointer(ParsePointer(className: "_User", objectId: "u1")),
                "likes": .relation(className: "_User"),
                "photo": .file(ParseFile(name: "tfss-a.png")),
                "where": .geoPoint(ParseGeoPoint(latitude: 40, longitude: -30)),
                "area": .polygon(ParsePolygon(coordinates: [
                    ParseGeoPoint(latitude: 0, longitude: 0), ParseGeoPoint(latitude: 0, longitude: 1),
                    ParseGeoPoint(latitude: 1, longitude: 1),
                ])),
                "tags": .array([
                    .string("a"), .int(1), .date(isoDate("2020-01-02T03:04:05.006Z")),
                    .pointer(ParsePointer(className: "Tag", objectId: "t1")), .bytes(Data([0xFF])),
                ]),
                "meta": .object([
                    "seen": .date(isoDate("1969-12-31T23:59:59.999Z")),
                    "spot": .geoPoint(ParseGeoPoint(latitude: 1.5, longitude: 2.5)),
                    "file": .file(ParseFile(name: "f.txt", url: "http://files/f.txt")),
                ]),
                "big": .int(9_007_199_254_740_993), "nan": .double(.nan), "negZero": .double(-0.0),
            ])
    }

    /// Top-level: pointers as `_p_`, Files as names, GeoPoints as [lng, lat], Polygons as
    /// closed GeoJSON rings, Dates and Bytes as BSON, Relations omitted; inside arrays and
    /// objects Dates and Bytes are BSON and every other special type keeps its REST form.
    static let gameScoreLine =
        #"{"_id":"xWMyZ4YEGZ","score":1337,"ratio":0.5,"whole":3.0,"name":"Sean","cheat":false,"nothing":null,"#
        + #""when":{"$date":"2015-03-01T12:00:00.12Z"},"ancient":{"$date":{"$numberLong":"-62135596800000"}},"#
        + #""blob":{"$binary":{"base64":"AQID","subType":"00"}},"_p_owner":"_User$u1","photo":"tfss-a.png","#
        + #""where":[-30.0,40.0],"area":{"type":"Polygon","coordinates":[[[0.0,0.0],[1.0,0.0],[1.0,1.0],[0.0,0.0]]]},"#
        + #""tags":["a",1,{"$date":"2020-01-02T03:04:05.006Z"},{"__type":"Pointer","className":"Tag","objectId":"t1"},"#
        + #"{"$binary":{"base64":"/w==","subType":"00"}}],"#
        + #""meta":{"seen":{"$date":{"$numberLong":"-1"}},"spot":{"__type":"GeoPoint","latitude":1.5,"longitude":2.5},"#
        + #""file":{"__type":"File","name":"f.txt","url":"http://files/f.txt"}},"#
        + #""big":9007199254740993,"nan":{"$numberDouble":"NaN"},"negZero":-0.0,"#
        + #""_rperm":["u1","*"],"_wperm":["u1"],"_acl":{"u1":{"w":true,"r":true},"*":{"r":true}},"#
        + #""_created_at":{"$date":"2015-03-01T12:00:00.123Z"},"_updated_at":{"$date":"2015-03-01T12:00:05Z"}}"#

    @Test func everyFieldTypeIsWrittenAsParseServerStoresIt() throws {
        let scratch = try MongoScratch()
        defer { scratch.cleanup() }
        let store = MongoShapeStore(directory: scratch.dump)
        try store.begin(schema: ParseSchema())
        try store.write([try Self.gameScore()], className: "GameScore")
        try store.commit()
        #expect(try scratch.lines("GameScore") == [Self.gameScoreLine])
    }

    @Test func schemaDocumentsUseParseServerTypeNames() throws {
        let scratch = try MongoScratch()
        defer { scratch.cleanup() }
        let store = MongoShapeStore(directory: scratch.dump)
        try store.begin(schema: ParseSchema(["GameScore": ["score": .init(.number), "ACL": .init(.acl)]]))
        try store.write([try Self.gameScore()], className: "GameScore")
        try store.commit()
        let expected =
            #"{"_id":"GameScore","objectId":"string","updatedAt":"date","createdAt":"date","score":"number","#
            + #""ratio":"number","whole":"number","name":"string","cheat":"boolean","when":"date","ancient":"date","#
            + #""blob":"bytes","owner":"*_User","likes":"relation<_User>","photo":"file","where":"geopoint","#
            + #""area":"polygon","tags":"array","meta":"object","big":"number","nan":"number","negZero":"number","#
            + #""_rperm":"array","_wperm":"array"}"#
        let written = try scratch.lines("_SCHEMA")
        #expect(written == [expected], "\(written)")
    }

    @Test func userInternalsUseParseServerKeys() throws {
        let scratch = try MongoScratch()
        defer { scratch.cleanup() }
        let user = try ParseObject(
            className: "_User", objectId: "u1", createdAt: Self.created, updatedAt: Self.created,
            fields: [
                "username": .string("ann"), "bcryptPassword": .string("$2a$10$abcdefghijklmnopqrstuv"),
                "authData": .object([
                    "facebook": .object(["id": .string("123"), "access_token": .string("t")]),
                    "anonymous": .object(["id": .string("x")]),
                ]),
                "sessionToken": .string("r:abc"), "emailVerified": .bool(false), "emailVerifyToken": .string("tok"),
                "perishableTokenExpiresAt": .date(isoDate("2016-01-01T00:00:00.000Z")), "failedLoginCount": .int(3),
                "passwordHistory": .array([.string("$2a$10$old")]),
            ])
        let store = MongoShapeStore(directory: scratch.dump)
        try store.begin(schema: ParseSchema())
        try store.write([user], className: "_User")
        try store.commit()
        let expected =
            #"{"_id":"u1","username":"ann","_hashed_password":"$2a$10$abcdefghijklmnopqrstuv","#
            + #""_auth_data_facebook":{"id":"123","access_token":"t"},"_auth_data_anonymous":{"id":"x"},"#
            + #""_session_token":"r:abc","emailVerified":false,"_email_verify_token":"tok","#
            + #""_perishable_token_expires_at":{"$date":"2016-01-01T00:00:00Z"},"_failed_login_count":3,"#
            + #""_password_history":["$2a$10$old"],"#
            + #""_created_at":{"$date":"2015-03-01T12:00:00.123Z"},"_updated_at":{"$date":"2015-03-01T12:00:00.123Z"}}"#
        #expect(try scratch.lines("_User") == [expected])
        #expect(try store.objects(in: "_User") == [user])
    }

    @Test func joinRowsAreOwningAndRelatedIdsWithAnObjectId() throws {
        let scratch = try MongoScratch()
        defer { scratch.cleanup() }
        let store = MongoShapeStore(directory: scratch.dump)
        let likes = ParseRelationKey(owningClass: "Post", field: "likes", targetClass: "_User")
        try store.begin(schema: ParseSchema())
        try store.write([ParseJoinRow(owningId: "p1", relatedId: "u1"), ParseJoinRow(owningId: "p1", relatedId: "u1")], relation: likes)
        try store.commit()
        let lines = try scratch.lines("_Join:likes:Post")
        try #require(lines.count == 1)
        let doc = try JSONReader(options: .init(typedValues: false)).read(Data(lines[0].utf8))
        #expect(Array(doc.dictionaryValue?.keys ?? []) == ["_id", "relatedId", "owningId"])
        let oid = doc["_id"]?["$oid"]?.stringValue ?? ""
        #expect(oid.count == 24 && oid.allSatisfy(\.isHexDigit))
        #expect(doc["owningId"] == "p1" && doc["relatedId"] == "u1")
        // The relation's target class reaches _SCHEMA, so parse-server can serve the field.
        #expect(try scratch.lines("_SCHEMA").first?.contains(#""likes":"relation<_User>""#) == true)
    }

    /// What a parse-server database exported with `mongoexport` (relaxed, and `--jsonFormat
    /// canonical`) looks like, read back into the REST objects parse-server would answer.
    @Test func parseServerDocumentsReadInBothModes() throws {
        let scratch = try MongoScratch()
        defer { scratch.cleanup() }
        try scratch.write("_SCHEMA", [
            #"{"_id":"Trip","objectId":"string","updatedAt":"date","createdAt":"date","driver":"*_User","photo":"file","start":"geopoint","zone":"polygon","raw":"bytes","riders":"relation<_User>","n":"number","_metadata":{"class_permissions":{"get":{"*":true},"find":{"role:Admin":true}},"indexes":{"_id_":{"_id":1}}}}"#
        ])
        try scratch.write("Trip", [
            #"{"_id":"t1","n":5,"x":1.5,"whole":2.0,"e":5E+10,"_p_driver":"_User$u1","photo":"tfss-p.jpg","start":[-122.5,37.75],"zone":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]},"raw":{"$binary":{"base64":"AAE=","subType":"00"}},"at":{"$date":"2015-03-01T12:00:00Z"},"_rperm":["*","u1"],"_wperm":["u1"],"_acl":{"u1":{"w":true,"r":true},"*":{"r":true}},"_created_at":{"$date":"2015-03-01T12:00:00.123Z"},"_updated_at":{"$date":"2015-03-01T12:00:00.5Z"}}"#,
            #"{"_id":"t2","n":{"$numberInt":"5"},"x":{"$numberDouble":"1.5"},"whole":{"$numberDouble":"2.0"},"e":{"$numberLong":"50000000000"},"_p_driver":null,"raw":"AAE=","at":{"$date":{"$numberLong":"1425211200000"}},"old":{"$date":{"$numberLong":"-62135596800000"}},"_created_at":{"$date":{"$numberLong":"1425211200123"}},"_updated_at":{"$date":{"$numberLong":"1425211200500"}},"_rperm":[],"_wperm":[]}"#,
        ].map { $0.replacingOccurrences(of: #""#, with: "") })
        let store = MongoShapeStore(directory: scratch.dump)
        let trips = try store.objects(in: "Trip")
        try #require(trips.count == 2)
        var acl = ParseACL()
        acl.set(.init(read: true, write: true), for: "u1")
        acl.setPublic(.init(read: true))
        let first = try ParseObject(
            className: "Trip", objectId: "t1", createdAt: isoDate("2015-03-01T12:00:00.123Z"),
            updatedAt: isoDate("2015-03-01T12:00:00.500Z"), acl: acl,
            fields: [
                "n": .int(5), "x": .double(1.5), "whole": .double(2), "e": .double(5e10),
                "driver": .pointer(ParsePointer(className: "_User", objectId: "u1")), "photo": .file(ParseFile(name: "tfss-p.jpg")),
                "start": .geoPoint(ParseGeoPoint(latitude: 37.75, longitude: -122.5)),
                "zone": .polygon(ParsePolygon(coordinates: [
                    ParseGeoPoint(latitude: 0, longitude: 0), ParseGeoPoint(latitude: 0, longitude: 1),
                    ParseGeoPoint(latitude: 1, longitude: 1),
                ])),
                "raw": .bytes(Data([0, 1])), "at": .date(isoDate("2015-03-01T12:00:00.000Z")),
                "riders": .relation(className: "_User"),
            ])
        #expect(trips[0] == first)
        // _acl (parse-server's legacy copy) agrees with _rperm/_wperm, so its key order is kept.
        #expect(Array(trips[0].acl?.entries.keys ?? []) == ["u1", "*"])
        let second = try ParseObject(
            className: "Trip", objectId: "t2", createdAt: isoDate("2015-03-01T12:00:00.123Z"),
            updatedAt: isoDate("2015-03-01T12:00:00.500Z"), acl: ParseACL(),
            fields: [
                "n": .int(5), "x": .double(1.5), "whole": .double(2), "e": .int(50_000_000_000),
                "raw": .bytes(Data([0, 1])), "at": .date(isoDate("2015-03-01T12:00:00.000Z")),
                "old": .date(isoDate("0001-01-01T00:00:00.000Z")), "riders": .relation(className: "_User"),
            ])
        #expect(trips[1] == second)
        let schema = try store.schema()
        #expect(schema.classes["Trip"]?["driver"] == ParseSchema.Field(.pointer, targetClass: "_User"))
        #expect(schema.classes["Trip"]?["objectId"] == nil)
        #expect(try store.relations() == [ParseRelationKey(owningClass: "Trip", field: "riders", targetClass: "_User")])
        #expect(try store.classMetadata()["Trip"]?["indexes"]?["_id_"]?["_id"] == .int(1))
    }
}
