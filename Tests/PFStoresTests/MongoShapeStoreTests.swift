import Foundation
import PFCore
import PFParse
import PFStores
import Testing

@Suite struct MongoShapeStoreTests {
    /// A small store with every feature: ACLs, a relation with join rows, pointers (one
    /// dangling), dates to the millisecond, `_User` password and authData.
    static func sampleStore() throws -> MemoryStore {
        var acl = ParseACL()
        acl.set(.init(write: true), for: "u1")
        acl.set(.init(read: true), forRole: "Readers")
        acl.setPublic(.init(read: true))
        let user = try ParseObject(
            className: "_User", objectId: "u1", createdAt: isoDate("2014-05-06T07:08:09.010Z"),
            updatedAt: isoDate("2014-05-06T07:08:09.011Z"), acl: acl,
            fields: [
                "username": .string("ann"), "bcryptPassword": .string("$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"),
                "authData": .object(["anonymous": .object(["id": .string("6f4f5d1a")])]), "email": .string("a@example.com"),
            ])
        let post = try ParseObject(
            className: "Post", objectId: "p1", createdAt: isoDate("2016-02-29T23:59:59.999Z"), updatedAt: isoDate("2016-03-01T00:00:00.000Z"),
            acl: ParseACL(),
            fields: [
                "title": .string("Hello \"world\"\n\u{2028}é"), "author": .pointer(ParsePointer(className: "_User", objectId: "u1")),
                "ghost": .pointer(ParsePointer(className: "_User", objectId: "missing")), "likes": .relation(className: "_User"),
                "when": .date(isoDate("1900-01-01T00:00:00.001Z")), "count": .int(-42), "score": .double(1e-7),
            ])
        let post2 = try ParseObject(
            className: "Post", objectId: "p2", fields: ["likes": .relation(className: "_User"), "title": .null])
        return MemoryStore(
            objects: [user, post, post2],
            joinRows: [ParseRelationKey(owningClass: "Post", field: "likes", targetClass: "_User"): [
                ParseJoinRow(owningId: "p1", relatedId: "u1"), ParseJoinRow(owningId: "p2", relatedId: "nobody"),
            ]])
    }

    static func expectSameContents(_ a: any ObjectStoreReader, _ b: any ObjectStoreReader, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(Set(try a.classNames()) == Set(try b.classNames()), sourceLocation: sourceLocation)
        for name in try a.classNames() {
            let left = try a.objects(in: name)
            let right = try b.objects(in: name)
            #expect(left.count == right.count, "\(name)", sourceLocation: sourceLocation)
            expectSameObjects(right, left, name, sourceLocation: sourceLocation)
        }
        let relations = try a.relations()
        #expect(relations.map(\.joinClassName) == (try b.relations()).map(\.joinClassName), sourceLocation: sourceLocation)
        for relation in relations {
            #expect(try a.joinRows(of: relation) == b.joinRows(of: relation), sourceLocation: sourceLocation)
        }
    }

    @Test func memoryStoreRoundTripsThroughTheMongoShape() throws {
        let scratch = try MongoScratch()
        defer { scratch.cleanup() }
        let source = try Self.sampleStore()
        let store = MongoShapeStore(directory: scratch.dump)
        try copyAll(source, into: store)
        try Self.expectSameContents(source, store)
        #expect(try store.schema().classes["Post"]?["likes"] == ParseSchema.Field(.relation, targetClass: "_User"))
        #expect(try store.relations().first?.targetClass == "_User")
        // Nothing is left beside the store.
        #expect(try scratch.siblings() == ["dump.jsonl"])
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: scratch.dump.path)) == [
            "_SCHEMA.json", "_User.json", "Post.json", "_Join:likes:Post.json",
        ])
        #expect(store.estimatedObjectCount(in: "Post") == 2)
    }

    /// A field named `sessionToken` of an ordinary class is stored as `_session_token`, as
    /// parse-server stores it, and its schema keeps it: before, the schema dropped it and a
    /// diff of the source and the store found `- schema Note.sessionToken`. `_Session` lists
    /// its `sessionToken` too, as a real parse-server dump's `_SCHEMA` does (a Mongo-to-Mongo
    /// copy of one found `- schema _Session.sessionToken`); only `_User`'s schema leaves it out.
    @Test func aSessionTokenFieldOfAnOrdinaryClassKeepsItsSchema() throws {
        let scratch = try MongoScratch()
        defer { scratch.cleanup() }
        let note = try ParseObject(className: "Note", objectId: "n1", fields: ["sessionToken": .string("r:abc")])
        let session = try ParseObject(className: "_Session", objectId: "s1", fields: ["sessionToken": .string("r:def")])
        let user = try ParseObject(className: "_User", objectId: "u1", fields: ["username": .string("ana"), "sessionToken": .string("r:ghi")])
        let source = MemoryStore(objects: [note, session, user])
        let store = MongoShapeStore(directory: scratch.dump)
        try copyAll(source, into: store)
        try Self.expectSameContents(source, store)
        let schema = try store.schema()
        #expect(schema.classes["Note"]?["sessionToken"]?.type == .string)
        let written = try String(contentsOf: scratch.dump.appendingPathComponent("Note.json"), encoding: .utf8)
        #expect(written.contains(#""_session_token":"r:abc""#), "\(written)")
        let schemaText = try String(contentsOf: scratch.dump.appendingPathComponent("_SCHEMA.json"), encoding: .utf8)
        let sessionLine = schemaText.split(separator: "\n").first { $0.contains(#""_id":"_Session""#) }
        #expect(sessionLine?.contains(#""sessionToken":"string""#) == true, "\(schemaText)")
        let userLine = try #require(schemaText.split(separator: "\n").first { $0.contains(#""_id":"_User""#) })
        let userSchema = try #require(try JSONSerialization.jsonObject(with: Data(userLine.utf8)) as? [String: Any])
        #expect(userSchema["sessionToken"] == nil, "\(schemaText)")
    }

    /// An older parse-server lists the password hash of `_User` as `"password":"string"` (a
    /// real dump, whose documents hold `_hashed_password`): it is the `bcryptPassword` field, as
    /// `_hashed_password` in `_SCHEMA` is, so a Mongo-to-Mongo copy (written the newer way) has
    /// the same schema; before, `diff` found `+ schema _User.bcryptPassword`.
    @Test func anOlderParseServersPasswordColumnIsTheHash() throws {
        let scratch = try MongoScratch()
        defer { scratch.cleanup() }
        try scratch.write("_SCHEMA", [#"{"_id":"_User","objectId":"string","username":"string","password":"string","email":"string"}"#])
        try scratch.write("_User", [#"{"_id":"u1","username":"ana","_hashed_password":"$2a$10$abc","email":"a@b.c"}"#])
        let fields = try MongoShapeStore(directory: scratch.dump).schema().classes["_User"]
        #expect(fields?["bcryptPassword"]?.type == .string)
        #expect(fields?["password"] == nil)
        #expect(fields?["email"]?.type == .string)
    }

    /// parse-server's own `_User` columns (`_email_verify_token`…) are never fields of its
    /// `_SCHEMA`, so a schema inferred from a dump without one that has them keeps them in
    /// `_metadata` instead: reading the copy gives the source's schema (before, `diff` of a real
    /// dump and its copy found `- schema _User.emailVerifyToken`), and the `_SCHEMA` written is
    /// still the one parse-server reads.
    @Test func userColumnsParseServerKeepsOutOfItsSchemaSurviveACopy() throws {
        let scratch = try MongoScratch()
        defer { scratch.cleanup() }
        try scratch.write("_User", [
            #"{"_id":"u1","username":"ana","_email_verify_token":"tok","_failed_login_count":2,"_session_token":"r:1"}"#
        ])
        let source = MongoShapeStore(directory: scratch.dump)
        let expected = try source.schema().classes["_User"]
        #expect(expected?["emailVerifyToken"]?.type == .string)
        let copy = scratch.root.appendingPathComponent("copy.jsonl")
        _ = try StoreImporter().run(from: source, to: MongoShapeStore(directory: copy))
        let written = MongoShapeStore(directory: copy)
        #expect(try written.schema().classes["_User"] == expected)
        #expect(try written.objects(in: "_User") == source.objects(in: "_User"))
        let line = try String(contentsOf: copy.appendingPathComponent("_SCHEMA.json"), encoding: .utf8)
        let user = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(user["emailVerifyToken"] == nil && user["failedLoginCount"] == nil && user["sessionToken"] == nil, "\(line)")
        let noted = (user["_metadata"] as? [String: Any])?["pfarchive_user_columns"] as? [String: String]
        #expect(noted?["emailVerifyToken"] == "string" && noted?["failedLoginCount"] == "number", "\(line)")
    }

    @Test func aBatchHoldingAnotherClassIsRefusedWithTheSharedCase() throws {
        let scratch = try MongoScratch()
        defer { scratch.cleanup() }
        let store = MongoShapeStore(directory: scratch.dump)
        try store.begin(schema: ParseSchema())
        defer { store.abort() }
        let objects = [try ParseObject(className: "A", objectId: "1", fields: [:]), try ParseObject(className: "B", objectId: "2", fields: [:])]
        let error = #expect(throws: PFError.self) { try store.write(objects, className: "A") }
        #expect(error?.failure(as: StoreFailure.self)
            == .wrongClassInBatch(location: store.location, index: 1, objectId: "2", className: "B", batchClass: "A"), "\(String(describing: error))")
    }

    @Test func writesAreInvisibleUntilCommitAndAbortLeavesNothing() throws {
        let scratch = try MongoScratch()
        defer { scratch.cleanup() }
        let store = MongoShapeStore(directory: scratch.dump)
        try store.begin(schema: ParseSchema())
        try store.write(try Self.sampleStore().objects(in: "Post"), className: "Post")
        #expect(!FileManager.default.fileExists(atPath: scratch.dump.path))
        store.abort()
        #expect(try scratch.siblings() == [])
        store.abort()  // twice does nothing
        #expect(mongoError { try store.write([], className: "Post") }?.code == .usage)
    }

    @Test func anExistingStoreIsMergedByIdOnlyAtCommit() throws {
        let scratch = try MongoScratch()
        defer { scratch.cleanup() }
        let store = MongoShapeStore(directory: scratch.dump)
        try copyAll(try Self.sampleStore(), into: store)
        // Class-level permissions set on the server must survive a re-import.
        var schemaLines = try scratch.lines("_SCHEMA")
        let postIndex = try #require(schemaLines.firstIndex { $0.hasPrefix(#"{"_id":"Post""#) })
        schemaLines[postIndex] = String(schemaLines[postIndex].dropLast()) + #","_metadata":{"class_permissions":{"find":{"role:Admin":true}}}}"#
        try scratch.write("_SCHEMA", schemaLines)

        let changed = try ParseObject(className: "Post", objectId: "p2", fields: ["title": .string("new"), "likes": .relation(className: "_User")])
        let added = try ParseObject(className: "Post", objectId: "p3", fields: ["likes": .relation(className: "_User")])
        let likes = ParseRelationKey(owningClass: "Post", field: "likes", targetClass: "_User")
        let writer = MongoShapeStore(directory: scratch.dump)
        try writer.begin(schema: ParseSchema())
        try writer.write([changed, added], className: "Post")
        try writer.write([ParseJoinRow(owningId: "p1", relatedId: "u1"), ParseJoinRow(owningId: "p3", relatedId: "u1")], relation: likes)
        // Not visible before commit.
        #expect(try store.objects(in: "Post").map(\.objectId) == ["p1", "p2"])
        try writer.commit()

        let posts = try store.objects(in: "Post")
        #expect(posts.map(\.objectId) == ["p1", "p2", "p3"])
        #expect(posts[1] == changed)
        #expect(try store.objects(in: "_User").count == 1)
        #expect(try store.joinRows(of: likes) == [
            ParseJoinRow(owningId: "p1", relatedId: "u1"), ParseJoinRow(owningId: "p2", relatedId: "nobody"),
            ParseJoinRow(owningId: "p3", relatedId: "u1"),
        ])
        #expect(try store.classMetadata()["Post"]?["class_permissions"]?["find"]?["role:Admin"] == .bool(true))
        #expect(try scratch.siblings() == ["dump.jsonl"])
    }

    @Test func theLastWriteOfAnObjectIdWins() throws {
        let scratch = try MongoScratch()
        defer { scratch.cleanup() }
        let store = MongoShapeStore(directory: scratch.dump)
        let a = try ParseObject(className: "Tag", objectId: "t1", fields: ["n": .int(1)])
        let b = try ParseObject(className: "Tag", objectId: "t1", fields: ["n": .int(2)])
        let c = try ParseObject(className: "Tag", objectId: "t2", fields: ["n": .int(3)])
        try store.begin(schema: ParseSchema())
        try store.write([a, c], className: "Tag")
        try store.write([b], className: "Tag")
        try store.commit()
        #expect(try store.objects(in: "Tag") == [c, b])
    }

    @Test func staleTemporariesOfKilledRunsAreCleanedOnBegin() throws {
        let scratch = try MongoScratch()
        defer { scratch.cleanup() }
        let fm = FileManager.default
        // A run killed while writing (pid 2147483647 cannot exist) …
        let staleTemp = scratch.root.appendingPathComponent(".dump.jsonl.pfarchive-tmp-2147483647-deadbeef")
        try fm.createDirectory(at: staleTemp, withIntermediateDirectories: false)
        try Data("{}\n".utf8).write(to: staleTemp.appendingPathComponent("Post.json"))
        // … and one killed mid-commit, after moving the old store aside.
        let store = MongoShapeStore(directory: scratch.dump)
        try copyAll(try Self.sampleStore(), into: store)
        let aside = scratch.root.appendingPathComponent(".dump.jsonl.pfarchive-old-2147483647-cafebabe")
        try fm.moveItem(at: scratch.dump, to: aside)

        let writer = MongoShapeStore(directory: scratch.dump)
        try writer.begin(schema: ParseSchema())
        #expect(!fm.fileExists(atPath: staleTemp.path))
        #expect(!fm.fileExists(atPath: aside.path))
        #expect(try store.objects(in: "Post").count == 2)  // the old store is back
        writer.abort()
        #expect(try scratch.siblings() == ["dump.jsonl"])
    }

    // MARK: - Bad input

    static func readError(_ lines: [String], collection: String = "Post") throws -> PFError? {
        let scratch = try MongoScratch()
        defer { scratch.cleanup() }
        try scratch.write(collection, lines)
        let store = MongoShapeStore(directory: scratch.dump)
        return mongoError { _ = try store.objects(in: collection) }
    }

    static let good = #"{"_id":"a","n":1}"#

    /// A join collection whose file spells `:` as a dump made where `:` is not allowed does
    /// (a space, as a real parse-server seed has it; U+A789; `%3A`) reads its rows.
    @Test(arguments: ["_Join roles _Role", "_Join\u{A789}roles\u{A789}_Role", "_Join%3Aroles%3A_Role"])
    func joinCollectionsUnderEveryFileSpellingReadTheirRows(file: String) throws {
        let scratch = try MongoScratch()
        defer { scratch.cleanup() }
        try scratch.write("_Role", [#"{"_id":"r1","name":"admin"}"#, #"{"_id":"r2","name":"staff"}"#])
        try scratch.write(file, [#"{"_id":{"$oid":"5a1b2c3d4e5f60718293a4b5"},"relatedId":"r2","owningId":"r1"}"#])
        let store = MongoShapeStore(directory: scratch.dump)
        let key = ParseRelationKey(owningClass: "_Role", field: "roles")
        #expect(try store.relations().map(\.untargeted) == [key])
        #expect(try store.joinRows(of: key) == [ParseJoinRow(owningId: "r1", relatedId: "r2")])
        #expect(store.unreadContents().isEmpty)
    }

    /// Two spellings of one join collection would leave one file's rows unread: refused,
    /// naming the collection.
    @Test func twoSpellingsOfOneJoinCollectionAreRefused() throws {
        let scratch = try MongoScratch()
        defer { scratch.cleanup() }
        try scratch.write("_Role", [#"{"_id":"r1","name":"admin"}"#])
        try scratch.write("_Join:roles:_Role", [#"{"_id":{"$oid":"5a1b2c3d4e5f60718293a4b5"},"relatedId":"r1","owningId":"r1"}"#])
        try scratch.write("_Join roles _Role", [#"{"_id":{"$oid":"5a1b2c3d4e5f60718293a4b6"},"relatedId":"r1","owningId":"r1"}"#])
        let store = MongoShapeStore(directory: scratch.dump)
        let error = try #require(mongoError { _ = try store.relations() })
        #expect(error.failure(as: StoreFailure.self) == .duplicateJoinFile(location: scratch.dump.path, joinClassName: "_Join:roles:_Role"), "\(error)")
    }

    /// Collections no Parse class can be and files of no collection are named as unread;
    /// parse-server's own collections are not.
    @Test func whatIsNotReadIsListed() throws {
        let scratch = try MongoScratch()
        defer { scratch.cleanup() }
        try scratch.write("Post", [Self.good])
        try scratch.write("_dummy", [Self.good])
        try scratch.write("_Hooks", [Self.good])
        try Data("x".utf8).write(to: scratch.dump.appendingPathComponent("Post.bson"))
        let store = MongoShapeStore(directory: scratch.dump)
        #expect(try store.classNames() == ["Post"])
        let unread = store.unreadContents()
        #expect(unread.count == 2, "\(unread)")
        #expect(unread.contains { $0.hasPrefix("_dummy.json: a collection no Parse class can be") })
        #expect(unread.contains { $0.hasPrefix("Post.bson: not a collection file") })
    }

    /// `mongoexport --jsonArray` writes a collection as one JSON array (`--pretty` indents it
    /// over many lines): its documents read as the same collection written a line each does
    /// (before, "unexpected end of input" at line 1), and a bad one is named by its number.
    @Test(arguments: [false, true])
    func aCollectionExportedAsOneJSONArrayReadsItsDocuments(pretty: Bool) throws {
        let lines = [
            #"{"_id":"a","n":1,"_created_at":{"$date":"2020-01-02T03:04:05.678Z"}}"#,
            #"{"_id":"b","tags":["x","y"],"_p_owner":"_User$u1"}"#,
        ]
        let arrayScratch = try MongoScratch()
        defer { arrayScratch.cleanup() }
        let lineScratch = try MongoScratch()
        defer { lineScratch.cleanup() }
        try lineScratch.write("Post", lines)
        let text = pretty ? "[\n  " + lines.joined(separator: ",\n  ") + "\n]" : "[" + lines.joined(separator: ",") + "]"
        try arrayScratch.write("Post", [text])
        #expect(MongoShapeStore.looksLikeMongoShape(arrayScratch.dump), "a directory of such files is the Mongo shape")
        let objects = try MongoShapeStore(directory: arrayScratch.dump).objects(in: "Post")
        #expect(objects.count == 2)
        #expect(objects == (try MongoShapeStore(directory: lineScratch.dump).objects(in: "Post")))
        let bad = try #require(try Self.readError(["[" + lines[0] + ",\n" + #"{"_id":"c","n":}"# + "]"]))
        guard case .badArrayDocument(let file, 2, _, _)? = bad.failure(as: StoreFailure.self) else {
            Issue.record("expected badArrayDocument 2: \(bad)")
            return
        }
        #expect(file.hasSuffix("Post.json"))
        #expect(bad.message.contains("document 2 of the array"), "\(bad.message)")
        #expect(!bad.message.contains("\n"))
        let cut = try #require(try Self.readError(["[" + lines[0] + ","]))
        #expect(cut.message.contains("Post.json"), "\(cut.message)")
    }

    @Test func aMalformedLineNamesFileAndLine() throws {
        let error = try #require(try Self.readError([Self.good, #"{"_id":"b","n":}"#]))
        #expect(error.format == MongoShapeStore.format)
        guard case .notAJSONLine(let file, 2, .syntax, _)? = error.failure(as: StoreFailure.self) else {
            Issue.record("expected notAJSONLine at line 2: \(error)")
            return
        }
        #expect(file.hasSuffix("dump.jsonl/Post.json"), "\(file)")
        #expect(error.location?.line == 2)
        #expect(error.location?.column == 16)
        #expect(error.location?.offset == Self.good.utf8.count + 1 + 15)
    }

    @Test func aBadPointerStringNamesTheKey() throws {
        let error = try #require(try Self.readError([#"{"_id":"a","_p_owner":"_User-u1"}"#]))
        #expect(error.message.contains("Post.json:1"))
        #expect(error.failure(as: MongoExtendedJSON.Failure.self) == .badPointer(key: "_p_owner", text: nil))
        #expect(error.path == [.key("_p_owner")])
        let notString = try #require(try Self.readError([Self.good, Self.good, #"{"_id":"c","_p_owner":{"a":1}}"#]))
        #expect(notString.location?.line == 3)
    }

    @Test func aBadDateNamesWhatWasExpected() throws {
        let error = try #require(try Self.readError([#"{"_id":"a","when":{"$date":"yesterday"}}"#]))
        #expect(error.message.contains("Post.json:1"))
        #expect(error.failure(as: MongoExtendedJSON.Failure.self) == .malformedDate(text: "yesterday"))
        #expect(error.path == [.key("when")])
        let numberLong = try #require(try Self.readError([#"{"_id":"a","_created_at":{"$date":{"$numberLong":"12x"}}}"#]))
        #expect(numberLong.failure(as: MongoExtendedJSON.Failure.self) == .malformedDate(text: nil))
        #expect(numberLong.path == [.key("_created_at")])
        let extra = try #require(try Self.readError([#"{"_id":"a","n":{"$numberLong":"1","x":2}}"#]))
        #expect(extra.failure(as: MongoExtendedJSON.Failure.self) == .wrapperWithOtherKeys(wrapper: "$numberLong", others: ["x"]))
        // A wrapper deep in the document: the path is put together as the error unwinds.
        let deep = try #require(try Self.readError([#"{"_id":"a","list":[1,{"at":{"$oid":"xyz"}}]}"#]))
        #expect(deep.failure(as: MongoExtendedJSON.Failure.self) == .malformedObjectId)
        #expect(deep.path == [.key("list"), .index(1), .key("at")])
        #expect(deep.message.hasPrefix("dump.jsonl/Post.json:1: malformed $oid"), "\(deep)")
        #expect(deep.location?.line == 1)
    }

    @Test func unknownInternalKeysAndBSONTypesAreRejected() throws {
        let internalKey = try #require(try Self.readError([#"{"_id":"a","_secret":1}"#]))
        #expect(internalKey.failure(as: MongoExtendedJSON.Failure.self) == .unknownInternalKey("_secret"))
        let decimal = try #require(try Self.readError([#"{"_id":"a","d":{"$numberDecimal":"1.5"}}"#]))
        #expect(decimal.failure(as: MongoExtendedJSON.Failure.self) == .noParseEquivalent("$numberDecimal"))
        // The legacy regular expression (older mongoexport) is named as one, not as a wrapper
        // with an extra key whose removal would only lead to the same refusal.
        let regex = try #require(try Self.readError([#"{"_id":"a","r":{"$regex":"ese","$options":"i"}}"#]))
        #expect(regex.failure(as: MongoExtendedJSON.Failure.self) == .noParseEquivalent("$regex"), "\(regex)")
        let uuid = try #require(try Self.readError([#"{"_id":"a","b":{"$binary":{"base64":"AAE=","subType":"04"}}}"#]))
        #expect(uuid.failure(as: MongoExtendedJSON.Failure.self) == .binarySubtype("04"))
    }

    @Test func aLineLongerThanTheBoundFailsCleanly() throws {
        let scratch = try MongoScratch()
        defer { scratch.cleanup() }
        let long = #"{"_id":"b","s":""# + String(repeating: "x", count: 3 << 20) + #""}"#
        try scratch.write("Post", [Self.good, long])
        var options = MongoShapeStore.Options()
        options.maxLineBytes = 1 << 20
        let store = MongoShapeStore(directory: scratch.dump, options: options)
        var seen = 0
        let error = mongoError { try store.forEachObject(in: "Post") { _ in seen += 1 } }
        #expect(seen == 1)
        #expect(error?.code == .limitExceeded)
        #expect(error?.location?.line == 2)
        // With room for it, the same file reads.
        #expect(try MongoShapeStore(directory: scratch.dump).objects(in: "Post").count == 2)
    }

    @Test func unrepresentableValuesFailAtWriteNamingTheKey() throws {
        let scratch = try MongoScratch()
        defer { scratch.cleanup() }
        let store = MongoShapeStore(directory: scratch.dump)
        try store.begin(schema: ParseSchema())
        let far = try ParseObject(className: "Post", objectId: "p", fields: ["when": .date(Date(timeIntervalSince1970: 1e300))])
        let error = mongoError { try store.write([far], className: "Post") }
        #expect(error?.code == .unrepresentable)
        #expect(error?.failure(as: MongoExtendedJSON.Failure.self) == .dateBeyondMilliseconds(1e300))
        #expect(error?.path == [.key("when")])
        store.abort()
        #expect(try scratch.siblings() == [])
    }
}
