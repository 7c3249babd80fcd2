import Testing
import PFArchive
import PFTestSupport

@Suite struct MemoryStoreTests {
    @Test func writesAreInvisibleUntilCommitAndGoneAfterAbort() throws {
        let store = MemoryStore()
        let a = try ParseObject(className: "Post", objectId: "a1", fields: ["title": .string("Hi")])
        try store.begin(schema: ParseSchema())
        try store.write([a], className: "Post")
        #expect(try store.objects(in: "Post").isEmpty)
        store.abort()
        #expect(try store.objects(in: "Post").isEmpty)
        try store.begin(schema: ParseSchema())
        try store.write([a], className: "Post")
        let key = ParseRelationKey(owningClass: "Post", field: "likes", targetClass: "_User")
        try store.write([ParseJoinRow(owningId: "a1", relatedId: "u1")], relation: key)
        try store.commit()
        #expect(try store.objects(in: "Post") == [a])
        #expect(try store.joinRows(of: key) == [ParseJoinRow(owningId: "a1", relatedId: "u1")])
        #expect(try store.schema().classes["Post"]?["title"]?.type == "String")
    }

    @Test func joinClassNamesParse() {
        #expect(ParseRelationKey(joinClassName: "_Join:likes:Post") == ParseRelationKey(owningClass: "Post", field: "likes"))
        #expect(ParseRelationKey(joinClassName: "_Join\u{A789}likes\u{A789}Post")?.joinClassName == "_Join:likes:Post")
        #expect(ParseRelationKey(joinClassName: "Post") == nil)
    }
}
