import Foundation
import PFCore
import PFParse
import PFParseExport
import Testing

@Suite struct ParseRulesTests {
    @Test func keyNames() {
        for good in ["score", "playerName", "a1_b", "Z", "accuracy", "objectID", "createdBy", "ACLs", "lengthy", "acl"] { #expect(ParseRules.fieldNameProblem(good) == nil, "\(good)") }
        for bad in ["", "1abc", "_private", "a.b", "$set", "a-b", "naïve", "objectId", "createdAt", "updatedAt", "ACL",
                    "className", "length", "__type"] {
            #expect(ParseRules.fieldNameProblem(bad) != nil, "\(bad)")
        }
        #expect(ParseRules.fieldNameProblem("className", className: "_Hooks") == nil)
    }

    @Test func classNames() {
        for good in ["GameScore", "_User", "_Role", "_Installation", "_Session", "_Join:users:_Role", "_Join:tags:Article"] {
            #expect(ParseRules.classNameProblem(good) == nil, "\(good)")
        }
        for bad in ["", "_Custom", "9Lives", "Game Score", "_Join:users", "_Join::X", "a.b"] {
            #expect(ParseRules.classNameProblem(bad) != nil, "\(bad)")
        }
        #expect(ParseRules.joinClassParts("_Join:users:_Role")?.field == "users")
        #expect(ParseRules.joinClassParts("_Join:users:_Role")?.ownerClass == "_Role")
    }

    @Test func errorsCarryParseCodesAndPaths() throws {
        expectParseError(.invalidClassName) { _ = try ParseObject(className: "_Custom") }
        var o = try ParseObject(className: "GameScore", objectId: "abc")
        expectParseError(.invalidFieldName, path: #"["a.b"]"#) { try o.set(.int(1), forKey: "a.b") }
        expectParseError(.invalidFieldName, path: "objectId") { try o.set(.int(1), forKey: "objectId") }
        expectParseError(.invalidFieldName, path: "length") { try o.set(.int(1), forKey: "length") }
        expectParseError(ParseFailure.badFieldName(problem: try #require(ParseRules.fieldNameProblem("bad-key"))), path: "results[0].bad-key", contains: "Parse: GameScore x1: ") {
            _ = try ParseExport.objects(fromJSON: Data(#"{"results":[{"objectId":"x1","bad-key":1}]}"#.utf8), className: "GameScore")
        }
        expectParseError(ParseFailure.badNestedKey(problem: "nested key 'a.b' contains '$' or '.', which Parse reserves"), path: #"meta["a.b"]"#) {
            _ = try ParseObject(rest: try rawJSON(#"{"meta":{"a.b":1}}"#), className: "GameScore")
        }
        expectParseError(ParseFailure.dateNotISO8601("yesterday"), path: "when") {
            _ = try ParseObject(rest: try rawJSON(#"{"when":{"__type":"Date","iso":"yesterday"}}"#), className: "GameScore")
        }
        expectParseError(ParseFailure.bytesNotBase64, path: "blob") {
            _ = try ParseObject(rest: try rawJSON(#"{"blob":{"__type":"Bytes","base64":"!!"}}"#), className: "GameScore")
        }
        expectParseError(ParseFailure.malformedPointer, path: "owner") {
            _ = try ParseObject(rest: try rawJSON(#"{"owner":{"__type":"Pointer","className":"_User"}}"#), className: "GameScore")
        }
        expectParseError(ParseFailure.badGeoPoint(problem: "GeoPoint latitude 91.0 is outside [-90, 90]"), path: "where") {
            _ = try ParseObject(rest: try rawJSON(#"{"where":{"__type":"GeoPoint","latitude":91,"longitude":0}}"#), className: "GameScore")
        }
        expectParseError(ParseFailure.aclUnknownPermission(key: "*", permission: "delete"), path: "ACL.*.delete") {
            _ = try ParseObject(rest: try rawJSON(#"{"ACL":{"*":{"delete":true}}}"#), className: "GameScore")
        }
        expectParseError(ParseFailure.noClassName) {
            _ = try ParseObject(rest: try rawJSON(#"{"score":1}"#))
        }
        expectParseError(ParseFailure.integerBeyond64Bit(18_446_744_073_709_551_615), path: "n") {
            _ = try ParseObject(rest: try rawJSON(#"{"n":18446744073709551615}"#), className: "GameScore")
        }
        // Scalars inside arrays and objects are read in place, but this one still fails where it is.
        expectParseError(ParseFailure.integerBeyond64Bit(18_446_744_073_709_551_615), path: "list[2]") {
            _ = try ParseObject(rest: try rawJSON(#"{"list":[1,"a",18446744073709551615]}"#), className: "GameScore")
        }
        expectParseError(ParseFailure.integerBeyond64Bit(18_446_744_073_709_551_615), path: "n.deep.k") {
            _ = try ParseObject(rest: try rawJSON(#"{"n":{"a":null,"deep":{"b":true,"k":18446744073709551615}}}"#), className: "GameScore")
        }
    }

    /// The code comes from the failure case, never from text that only looks like one (a
    /// field name or value quoted in a message once gave its "code").
    @Test func parseErrorCodeComesFromTheCaseNotTheText() {
        #expect(PFError(ParseFailure.badFieldName(problem: "x"), format: .parse).parseErrorCode == .invalidFieldName)
        #expect(PFError(ParseExportFailure.twoResults, format: .parse).parseErrorCode == .invalidJSON)
        #expect(PFError(ParseFailure.stubKey("k"), format: .parse).parseErrorCode == nil)
        #expect(PFError(.invalidValue, format: .parse, "'(Parse error 105 InvalidFieldName)' is a string").parseErrorCode == nil)
    }
}

@Suite struct ParseObjectTests {
    @Test func integersAndDoublesStayApartAndDatesKeepMilliseconds() throws {
        let text = #"{"objectId":"a","createdAt":"2022-01-01T12:23:45.678Z","i":3,"d":3.0,"when":{"__type":"Date","iso":"1999-12-31T23:59:59.999Z"}}"#
        let object = try ParseObject(rest: try rawJSON(text), className: "Thing")
        #expect(try object.value(forKey: "i") == .int(3))
        #expect(try object.value(forKey: "d") == .double(3.0))
        #expect(try jsonText(object.restValue) == text)
        #expect(ParseDate.string(from: object.createdAt ?? .distantPast) == "2022-01-01T12:23:45.678Z")
    }

    /// A Pointer carrying the object's fields (an SDK's fetched object, as a Flutter SDK's
    /// REST answer has them) is kept whole as an embedded object, as Parse's JS SDK reads it;
    /// a bare Pointer stays a Pointer.
    @Test func aPointerWithFieldsIsAFetchedObjectNotCutDown() throws {
        let object = try ParseObject(rest: try rawJSON(#"""
            {"objectId":"a1","category":{"__type":"Pointer","className":"Category","objectId":"7jg","createdAt":"2018-10-31T14:16:13.616Z","name":"Ação","order":0},
             "owner":{"__type":"Pointer","className":"_User","objectId":"u1"}}
            """#), className: "Asset")
        guard case .embedded(let category)? = object.fields["category"] else {
            Issue.record("expected an embedded object: \(String(describing: object.fields["category"]))")
            return
        }
        #expect(category.className == "Category" && category.objectId == "7jg")
        #expect(category.fields["name"] == .string("Ação") && category.fields["order"] == .int(0))
        #expect(category.createdAt != nil)
        #expect(object.fields["owner"] == .pointer(ParsePointer(className: "_User", objectId: "u1")))
        #expect(object.fields["category"]?.fieldType == .pointer)
        // Members no object can hold (a key Parse forbids) leave the Pointer it names.
        let odd = try ParseObject(rest: try rawJSON(#"""
            {"objectId":"a2","category":{"__type":"Pointer","className":"Category","objectId":"7jg","bad-key":1}}
            """#), className: "Asset")
        #expect(odd.fields["category"] == .pointer(ParsePointer(className: "Category", objectId: "7jg")))
    }

    @Test func pointerStubsRefuseFieldReads() throws {
        let stub = try ParseObject.pointerStub(className: "_User", objectId: "TyeUpnrLdw")
        #expect(try stub.value(forKey: "objectId") == .string("TyeUpnrLdw"))
        expectParseError(ParseFailure.stubKey("username"), path: "username") { _ = try stub.value(forKey: "username") }
        #expect(ParseValue.embedded(stub).restValue == ParseValue.pointer(ParsePointer(className: "_User", objectId: "TyeUpnrLdw")).restValue)
        let comment = try ParseObject(
            rest: try rawJSON(#"{"by":{"__type":"Pointer","className":"_User","objectId":"T"}}"#), className: "Comment")
        expectParseError(ParseFailure.stubReadThrough(pointer: "_User/T", key: "username"), path: "by.username") { _ = try comment.value(forKeyPath: "by.username") }
    }

    @Test func keyPathsReachNestedValues() throws {
        let object = try ParseObject(rest: try rawJSON(#"""
            {"location":{"city":"Oslo","zip":"0150"},"tags":["a","b"],
             "team":{"__type":"Object","className":"Team","objectId":"t1","name":"Reds","coach":{"name":"Ann"}}}
            """#), className: "Player")
        #expect(try object.value(forKeyPath: "location.city") == .string("Oslo"))
        #expect(try object.value(forKeyPath: "tags[1]") == .string("b"))
        #expect(try object.value(forKeyPath: "team.coach.name") == .string("Ann"))
        #expect(try object.value(forKeyPath: "location.country") == nil)
        #expect(try object.value(forKeyPath: "tags[7]") == nil)
    }

    @Test func operationsMergeAsParseMergesThem() throws {
        var o = try ParseObject(className: "GameScore", objectId: "g1")
        try o.set(.int(10), forKey: "score")
        try o.increment("score", by: .int(5))
        #expect(o.operations["score"] == .set(.int(15)), "Set then Increment is a Set")
        try o.increment("lives", by: .int(1))
        try o.increment("lives", by: .int(2))
        #expect(o.operations["lives"] == .increment(.int(3)), "Increment then Increment adds up")
        try o.increment("lives", by: .double(0.5))
        #expect(o.fields["lives"] == .double(3.5))

        let p1 = ParsePointer(className: "Player", objectId: "p1")
        let p2 = ParsePointer(className: "Player", objectId: "p2")
        try o.addRelation([p1], forKey: "opponents")
        try o.removeRelation([p2], forKey: "opponents")
        #expect(o.operations["opponents"] == .batch([.addRelation([p1]), .removeRelation([p2])]))
        try o.removeRelation([p1], forKey: "opponents")
        #expect(o.operations["opponents"] == .removeRelation([p2, p1]), "removing an added object cancels the add")
        #expect(o.fields["opponents"] == .relation(className: "Player"))

        try o.add([.string("a")], forKey: "skills")
        try o.add([.string("b")], forKey: "skills")
        #expect(o.operations["skills"] == .add([.string("a"), .string("b")]))
        // AddUnique after a pending Add cannot merge into one operation; Parse refuses it too.
        expectParseError(.incorrectType, path: "skills") { try o.addUnique([.string("a"), .string("c")], forKey: "skills") }
        #expect(o.fields["skills"] == .array([.string("a"), .string("b")]))

        try o.set(.array([.string("x"), .string("y"), .string("x")]), forKey: "list")
        try o.remove([.string("x")], forKey: "list")
        #expect(o.operations["list"] == .set(.array([.string("y")])))
        try o.removeValue(forKey: "list")
        #expect(o.operations["list"] == .delete)
        #expect(o.fields["list"] == nil)
        try o.increment("list", by: .int(2))
        #expect(o.operations["list"] == .set(.int(2)), "Delete then Increment sets the amount")
    }

    @Test func incompatibleOperationsFailWithoutChangingTheObject() throws {
        var o = try ParseObject(className: "GameScore", objectId: "g1")
        try o.set(.string("ten"), forKey: "score")
        let before = o
        expectParseError(ParseFailure.operationAfterPending(operation: "Increment", pending: "Set", key: "score"), path: "score", contains: "Parse: GameScore g1: ") { try o.increment("score") }
        expectParseError(.incorrectType, path: "score") { try o.add([.int(1)], forKey: "score") }
        expectParseError(.incorrectType) { try o.addRelation([ParsePointer(className: "A", objectId: "1")], forKey: "score") }
        try o.addRelation([ParsePointer(className: "A", objectId: "1")], forKey: "rel")
        expectParseError(ParseFailure.relationMixedClasses(key: "rel", className: "A", odd: "B/2", oddClass: "B")) { try o.addRelation([ParsePointer(className: "B", objectId: "2")], forKey: "rel") }
        o = before
        #expect(o == before)
    }

    @Test func savePayloadHoldsOnlyChangedKeys() throws {
        var o = try ParseObject(rest: try rawJSON(#"{"objectId":"g1","score":1,"name":"x","ACL":{"*":{"read":true}}}"#), className: "GameScore")
        #expect(!o.isDirty)
        #expect(o.savePayload() == [:])
        try o.increment("score")
        try o.removeValue(forKey: "name")
        #expect(try jsonText(o.savePayload()) == #"{"score":{"__op":"Increment","amount":1},"name":{"__op":"Delete"}}"#)
        #expect(o.fields["score"] == .int(2))
        var acl = o.acl ?? ParseACL()
        acl.set(.init(read: true, write: true), forRole: "Admins")
        o.acl = acl
        #expect(o.savePayload()["ACL"] == (try rawJSON(#"{"*":{"read":true},"role:Admins":{"read":true,"write":true}}"#)))
        o.markSaved()
        #expect(!o.isDirty)
        #expect(o.savePayload() == [:])
        #expect(o.fields["score"] == .int(2))
    }
}
