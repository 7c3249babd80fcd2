import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFParse
import PFStoreTestSupport
import PFStores
import PFTestSupport
import PostgresNIO
import PropertyBased
import Testing

@testable import PFPostgresStore

// MARK: - Fixtures

enum Sample {
    static let created = Date(timeIntervalSince1970: 1_400_000_000.123)
    static let updated = Date(timeIntervalSince1970: 1_500_000_000.987)

    static func acl() -> ParseACL {
        var acl = ParseACL()
        acl.set(.init(read: true, write: true), for: "u1")
        acl.setPublic(.init(read: true))
        acl.set(.init(write: true), forRole: "Admins")
        return acl
    }

    /// Two users, posts with every field type, a relation, and an object without an ACL.
    static func store() throws -> MemoryStore {
        let u1 = try ParseObject(
            className: "_User", objectId: "u1", createdAt: created, updatedAt: updated, acl: acl(),
            fields: [
                "username": .string("ada"), "email": .string("ada@example.com"), "emailVerified": .bool(true),
                "bcryptPassword": .string("$2a$10$abcdefghijklmnopqrstuv"),
                "authData": .object(["facebook": .object(["id": .string("123"), "access_token": .string("t")])]),
            ])
        let u2 = try ParseObject(
            className: "_User", objectId: "u2", createdAt: created, updatedAt: updated,
            fields: ["username": .string("bob"), "bcryptPassword": .string("$2a$10$zyx")])
        let p1 = try ParseObject(
            className: "Post", objectId: "p1", createdAt: created, updatedAt: updated, acl: acl(),
            fields: [
                "title": .string("Hello, \"world\" \\ ünïcödé 🎉\n\t"),
                "count": .int(42), "big": .int(-9_007_199_254_740_992), "ratio": .double(0.1),
                "whole": .double(3.0), "huge": .double(1e300), "tiny": .double(.leastNonzeroMagnitude),
                "published": .bool(false),
                "when": .date(Date(timeIntervalSince1970: -2_000_000_000.456)),
                "meta": .object([
                    "nested": .object(["at": .date(created), "n": .int(1), "x": .double(2.0)]),
                    "owner": .pointer(ParsePointer(className: "_User", objectId: "u1")),
                    "list": .array([.int(1), .string("two"), .null, .bool(true)]),
                ]),
                "tags": .array([.string("a"), .string("b")]),
                "author": .pointer(ParsePointer(className: "_User", objectId: "u1")),
                "photo": .file(ParseFile(name: "tfss-1-photo.png", url: "https://files.example.com/tfss-1-photo.png")),
                "place": .geoPoint(ParseGeoPoint(latitude: 52.52, longitude: 13.405)),
                "area": .polygon(ParsePolygon(coordinates: [
                    ParseGeoPoint(latitude: 0, longitude: 0), ParseGeoPoint(latitude: 1.5, longitude: 0),
                    ParseGeoPoint(latitude: 1.5, longitude: 2.25),
                ])),
                "blob": .bytes(Data([0, 1, 2, 254, 255])),
                "likes": .relation(className: "_User"),
                "gone": .null,
            ])
        let p2 = try ParseObject(
            className: "Post", objectId: "p2", createdAt: created, updatedAt: nil,
            fields: ["title": .string("no ACL"), "count": .int(7), "likes": .relation(className: "_User")])
        let likes = ParseRelationKey(owningClass: "Post", field: "likes", targetClass: "_User")
        var schema = ParseSchema()
        schema.classes["_User"] = [
            "username": .init(.string), "email": .init(.string), "emailVerified": .init(.boolean),
            "bcryptPassword": .init(.string), "authData": .init(.object),
        ]
        schema.classes["Post"] = [
            "title": .init(.string), "count": .init(.number), "big": .init(.number), "ratio": .init(.number),
            "whole": .init(.number), "huge": .init(.number), "tiny": .init(.number), "published": .init(.boolean),
            "when": .init(.date), "meta": .init(.object), "tags": .init(.array),
            "author": .init(.pointer, targetClass: "_User"), "photo": .init(.file), "place": .init(.geoPoint),
            "area": .init(.polygon), "blob": .init(.bytes), "likes": .init(.relation, targetClass: "_User"),
            "gone": .init(.string),
        ]
        return MemoryStore(
            objects: [u1, u2, p1, p2],
            joinRows: [likes: [ParseJoinRow(owningId: "p1", relatedId: "u1"), ParseJoinRow(owningId: "p1", relatedId: "u2")]],
            schema: schema)
    }
}

// MARK: - Without a server

@Suite struct PostgresURLTests {
    @Test func readsEveryPartAndNeverPrintsThePassword() throws {
        let url = try PostgresURL("postgres://parse:s%40cret@db.example.com:6543/app?sslmode=disable")
        #expect(url.host == "db.example.com")
        #expect(url.port == 6543)
        #expect(url.username == "parse")
        #expect(url.password == "s@cret")
        #expect(url.database == "app")
        #expect(url.sslMode == "disable")
        #expect(url.description == "postgres://parse@db.example.com:6543/app")
        #expect(try PostgresURL("postgresql://u@h/").database == "u")
        #expect(PostgresURL.isPostgresURL("POSTGRES://x@y/z"))
        #expect(!PostgresURL.isPostgresURL("/tmp/x.sqlite"))
    }

    @Test func badURLsAreUsageErrorsWithoutThePassword() {
        for text in [
            "postgres://user:hunter2@/db", "http://user:hunter2@host/db", "postgres://user:hunter2@h/d?sslmode=maybe",
            // A port past 65535 once wrapped around (99999 connected to 34463); 0 is no port.
            "postgres://user:hunter2@127.0.0.1:99999/db", "postgres://user:hunter2@127.0.0.1:0/db",
            // An unescaped '#' or '?' in the password: not a URL, and the password is never repeated.
            "postgres://user:hun#ter2@127.0.0.1/db", "postgres://user:hun?ter2@127.0.0.1/db",
        ] {
            #expect {
                _ = try PostgresURL(text)
            } throws: { error in
                guard let e = error as? PFError else { return false }
                return e.failure(as: PostgresStoreFailure.self)?.code == .usage && !e.message.contains("hunter2") && !e.message.contains("ter2")
            }
        }
    }

    @Test func aPasswordWithAnAtSignOrInTheQueryIsReadWholeAndNeverPrinted() throws {
        let at = try PostgresURL("postgres://alice:p@ssW0rd@db.example.com/app")
        #expect(at.username == "alice" && at.password == "p@ssW0rd" && at.host == "db.example.com" && at.database == "app")
        let slash = try PostgresURL("postgres://alice:p@ss/w0 rd%21@db.example.com:6543/app")
        #expect(slash.password == "p@ss/w0 rd!" && slash.host == "db.example.com" && slash.port == 6543 && slash.database == "app")
        let query = try PostgresURL("postgresql://alice@db.example.com/app?sslmode=disable&password=hunter2")
        #expect(query.password == "hunter2" && query.sslMode == "disable")
        #expect(!query.description.contains("hunter2") && !at.description.contains("ssW0rd"))
        for text in ["postgres://alice:p@ssW0rd@/db", "postgres://alice@/db?password=ssW0rd", "POSTGRES://alice:p@ssW0rd@h/d?sslmode=maybe",
                     "postgres://alice@h/d?sslmode=maybe&PASSWORD=ssW0rd"] {
            #expect {
                _ = try PostgresURL(text)
            } throws: { error in
                guard let e = error as? PFError else { return false }
                return e.failure(as: PostgresStoreFailure.self)?.code == .usage && !e.message.contains("ssW0rd")
            }
        }
        for text in ["postgres://user:p@ssW0rd@127.0.0.1:1/db?sslmode=disable", "postgres://user@127.0.0.1:1/db?sslmode=disable&password=p@ssW0rd"] {
            #expect {
                _ = try PostgresStore.open(url: text)
            } throws: { error in
                guard let e = error as? PFError else { return false }
                guard case .queryFailed(let shown, _, _, _, _)? = e.failure(as: PostgresStoreFailure.self) else { return false }
                return shown.hasPrefix("postgres://user@127.0.0.1:1/db") && !e.message.contains("ssW0rd")
            }
        }
    }

    @Test func anUnreachableServerIsAnIOErrorWithoutThePassword() throws {
        // Port 1 on loopback: nothing listens there, so the connection is refused at once.
        #expect {
            _ = try PostgresStore.open(url: "postgres://user:hunter2@127.0.0.1:1/db?sslmode=disable")
        } throws: { error in
            guard let e = error as? PFError else { return false }
            guard case .queryFailed(let shown, _, _, _, _)? = e.failure(as: PostgresStoreFailure.self) else { return false }
            return shown.hasPrefix("postgres://user@127.0.0.1:1/db") && !e.message.contains("hunter2")
        }
    }

    @Test func jsonbTextKeepsDoublesApartFromIntegers() throws {
        let value: PFValue = ["i": 3, "d": .double(3.0), "big": .double(1e300), "small": .double(.leastNonzeroMagnitude), "s": "a\"\\\u{1}é🎉"]
        let text = try PostgresJSON.text(value, what: "test")
        #expect(text.contains("\"d\":3.0"))
        #expect(!text.contains("e+300"))
        let back = try PostgresJSON.value(text, what: "test")
        #expect(back == value)
        // jsonb prints a double written as 1e300 as a 301-digit integer: still a double.
        #expect(try PostgresJSON.value("1" + String(repeating: "0", count: 300), what: "t") == .double(1e300))
        #expect(throws: PFError.self) { try PostgresJSON.text(["s": "a\u{0}b"], what: "t") }
        #expect(throws: PFError.self) { try PostgresJSON.text(.double(.nan), what: "t") }
        #expect(throws: PFError.self) { try PostgresJSON.value("{\"a\":", what: "t") }
    }

    @Test func jsonbTextIsPFJSONsWithJSONBNumbers() throws {
        // The spellings of the store's former writer of its own, byte for byte.
        let doubles: [(Double, String)] = [
            (3.0, "3.0"), (-0.0, "-0.0"), (-7.0, "-7.0"), (123456789012345.0, "123456789012345.0"),
            (1e15, "1000000000000000.0"), (1e20, "100000000000000000000.0"), (0.1, "0.1"), (1.5e-7, "1.5e-07"),
            (-2.5, "-2.5"), (9007199254740993.0, "9007199254740992.0"),
        ]
        for (d, text) in doubles { #expect(try PostgresJSON.text(.double(d), what: "t") == text) }
        #expect(try PostgresJSON.text(["k": "a\u{8}\n", "n": [1, .null, true]], what: "t") == #"{"k":"a\b\n","n":[1,null,true]}"#)
        #expect(throws: PFError.self) { try PostgresJSON.text(["a\u{0}": 1], what: "t") }
        #expect(throws: PFError.self) { try PostgresJSON.text(.date(Date(timeIntervalSince1970: 0)), what: "t") }
        // Integers beyond 64 bits read as doubles, on the scanner's tape and where json-c
        // parses (a key beyond ASCII, a U+0000 key); 64-bit ones stay integers.
        let wide: PFValue = [.double(18446744073709551616), .double(-9223372036854775809), .int(-9223372036854775808),
                             .uint(18446744073709551615), .double(1.2345678901234568e29)]
        let text = "[18446744073709551616,-9223372036854775809,-9223372036854775808,18446744073709551615,123456789012345678901234567890]"
        #expect(try PostgresJSON.value(text, what: "t") == wide)
        #expect(try PostgresJSON.value(#"{"é":"# + text + "}", what: "t") == ["é": wide])
        #expect(try PostgresJSON.value(#"{"a\u0000":"# + text + "}", what: "t") == ["a\u{0}": wide])
        #expect(throws: PFError.self) { try PostgresJSON.value("1" + String(repeating: "0", count: 400), what: "t") }
        #expect(throws: PFError.self) { try PostgresJSON.value("[1,]", what: "t") }
    }

    @Test func numbersComeBackAsTheKindTheNoteSays() {
        #expect(RowReader.number(3, kind: .integer) == .int(3))
        #expect(RowReader.number(3, kind: .double) == .double(3))
        #expect(RowReader.number(3, kind: nil) == .int(3))
        #expect(RowReader.number(3.5, kind: .integer) == .double(3.5))
        #expect(RowReader.number(9_007_199_254_740_994, kind: .mixed) == .double(9_007_199_254_740_994))
        #expect(RowReader.number(9_007_199_254_740_994, kind: .integer) == .int(9_007_199_254_740_994))
    }
}

// MARK: - Against a server

@Suite(.enabled(if: TestServer.available, TestServer.skipReason))
struct PostgresStoreServerTests {
    /// A Relation whose target class is unknown (nothing could infer it) is not written to
    /// `_SCHEMA` without a targetClass; its join table declares it and keeps its rows.
    @Test func aRelationWithAnUnknownTargetKeepsItsRows() throws {
        let post = try ParseObject(className: "Post", objectId: "p1", fields: ["title": .string("x")])
        let fans = ParseRelationKey(owningClass: "Post", field: "fans")
        var schema = ParseSchema()
        schema.classes["Post"] = ["title": .init(.string), "fans": .init(.relation)]
        let rows = [ParseJoinRow(owningId: "p1", relatedId: "gone1"), ParseJoinRow(owningId: "p1", relatedId: "gone2")]
        let source = MemoryStore(objects: [post], joinRows: [fans: rows], schema: schema)
        try TestServer.withDatabase { url in
            let store = try PostgresStore.open(url: url)
            defer { store.close() }
            try copy(source, into: store)
            #expect(try store.relations() == [fans])
            #expect(try Set(store.joinRows(of: fans)) == Set(rows))
            let layout = try #require(try store.schemaRows()["Post"])
            if case .dictionary(let specs)? = layout.schemaDocument.dictionaryValue?["fields"] { #expect(specs["fans"] == nil) }
        }
    }

    @Test func everyFieldTypeRoundTrips() throws {
        let source = try Sample.store()
        try TestServer.withDatabase { url in
            let store = try PostgresStore.open(url: url)
            defer { store.close() }
            try copy(source, into: store)
            let schema = try source.schema()
            #expect(try Set(store.classNames()) == ["_User", "Post"])
            for className in ["_User", "Post"] {
                let read = try objectsById(store, className)
                let expected = try objectsById(source, className)
                #expect(read.count == expected.count)
                for (id, object) in expected {
                    let want = try expectedAfterPostgres(object, schema: schema)
                    let got = try #require(read[id])
                    #expect(sameObject(got, want), "\(className) \(id): read \(got.restValue) expected \(want.restValue)")
                }
            }
            let likes = ParseRelationKey(owningClass: "Post", field: "likes", targetClass: "_User")
            #expect(try store.relations() == [likes])
            #expect(try Set(store.joinRows(of: likes)) == Set(source.joinRows(of: likes)))
            // Ints stay ints and doubles doubles, including integral doubles.
            let p1 = try #require(try objectsById(store, "Post")["p1"])
            #expect(p1.fields["whole"] == .double(3.0))
            #expect(p1.fields["count"] == .int(42))
            #expect(p1.fields["big"] == .int(-9_007_199_254_740_992))
            #expect(p1.fields["huge"] == .double(1e300))
            #expect(p1.fields["tiny"] == .double(.leastNonzeroMagnitude))
            #expect(store.estimatedObjectCount(in: "Post") == 2)
            // And a second store reads the same (the schema note is in the database, not in memory).
            let again = try PostgresStore.open(url: url)
            defer { again.close() }
            #expect(try again.schema().classes["Post"]?["author"] == .init(.pointer, targetClass: "_User"))
        }
    }

    @Test func columnTypesAreParseServers() throws {
        try TestServer.withDatabase { url in
            let store = try PostgresStore.open(url: url)
            defer { store.close() }
            try copy(try Sample.store(), into: store)
            func types(_ table: String) throws -> [String: String] {
                var binds = PostgresBindings()
                binds.append(table)
                var out: [String: String] = [:]
                for row in try store.session.query(
                    "SELECT column_name::text, data_type::text, udt_name::text FROM information_schema.columns WHERE table_name = $1",
                    binds, doing: "test")
                {
                    let cells = Array(row)
                    let type = try cells[1].decode(String.self)
                    out[try cells[0].decode(String.self)] = type == "ARRAY" ? try cells[2].decode(String.self) : type
                }
                return out
            }
            let post = try types("Post")
            let expected: [String: String] = [
                "objectId": "character varying", "createdAt": "timestamp with time zone",
                "updatedAt": "timestamp with time zone", "_rperm": "_text", "_wperm": "_text",
                "title": "text", "count": "double precision", "published": "boolean", "when": "timestamp with time zone",
                "meta": "jsonb", "tags": "jsonb", "author": "text", "photo": "text", "place": "point", "area": "polygon",
                "blob": "jsonb", "gone": "text",
            ]
            for (column, type) in expected { #expect(post[column] == type, "Post.\(column)") }
            #expect(post["likes"] == nil)
            let user = try types("_User")
            #expect(user["_hashed_password"] == "text")
            #expect(user["authData"] == "jsonb")
            #expect(user["_email_verify_token"] == "text")
            #expect(user["bcryptPassword"] == nil)
            #expect(try types("_Join:likes:Post") == ["relatedId": "character varying", "owningId": "character varying"])
            #expect(try types("_SCHEMA") == ["className": "character varying", "schema": "jsonb", "isParseClass": "boolean"])
            // Primary keys as parse-server declares them.
            let keys = try store.session.query(
                """
                SELECT tc.table_name::text, string_agg(kcu.column_name::text, ',' ORDER BY kcu.ordinal_position)
                FROM information_schema.table_constraints tc
                JOIN information_schema.key_column_usage kcu ON tc.constraint_name = kcu.constraint_name
                WHERE tc.constraint_type = 'PRIMARY KEY' GROUP BY tc.table_name
                """, doing: "test")
            var pk: [String: String] = [:]
            for row in keys { let c = Array(row); pk[try c[0].decode(String.self)] = try c[1].decode(String.self) }
            #expect(pk["Post"] == "objectId")
            #expect(pk["_Join:likes:Post"] == "relatedId,owningId")
            #expect(pk["_SCHEMA"] == "className")
        }
    }

    /// A second writer is refused at once with one clear line while the first is writing,
    /// and may write once the first has finished (two imports into a new database once failed
    /// inside PostgreSQL's catalogue, `pg_type_typname_nsp_index`, or interleaved their rows).
    @Test func aSecondWriterIsRefusedWhileTheFirstWrites() throws {
        try TestServer.withDatabase { url in
            let first = try PostgresStore.open(url: url)
            defer { first.close() }
            let second = try PostgresStore.open(url: url)
            defer { second.close() }
            // Without the lock, the second would wait for the first's tables: fail instead.
            try second.session.query("SET lock_timeout = '2s'", doing: "test")
            let source = try Sample.store()
            try first.begin(schema: source.schema())
            #expect {
                try second.begin(schema: source.schema())
            } throws: { error in
                guard let e = error as? PFError else { return false }
                guard case .beingWritten(_, .anotherImport)? = e.failure(as: StoreFailure.self) else { return false }
                return true
            }
            try first.write(try source.objects(in: "Post"), className: "Post")
            try first.commit()
            try copy(source, into: second)
            #expect(try Set(second.classNames()) == ["_User", "Post"])
        }
    }

    @Test func aBatchHoldingAnotherClassIsRefusedWithTheSharedCase() throws {
        try TestServer.withDatabase { url in
            let store = try PostgresStore.open(url: url)
            defer { store.close() }
            try store.begin(schema: ParseSchema())
            defer { store.abort() }
            let objects = [try ParseObject(className: "A", objectId: "1", fields: [:]), try ParseObject(className: "B", objectId: "2", fields: [:])]
            let error = #expect(throws: PFError.self) { try store.write(objects, className: "A") }
            #expect(error?.failure(as: StoreFailure.self)
                == .wrongClassInBatch(location: store.location, index: 1, objectId: "2", className: "B", batchClass: "A"), "\(String(describing: error))")
        }
    }

    @Test func schemaRowsAreWhatParseServerReads() throws {
        try TestServer.withDatabase { url in
            let store = try PostgresStore.open(url: url)
            defer { store.close() }
            try copy(try Sample.store(), into: store)
            let rows = try store.session.query(
                #"SELECT "className", "schema"::text, "isParseClass" FROM "_SCHEMA" ORDER BY "className""#, doing: "test")
            var docs: [String: PFValue] = [:]
            for row in rows {
                let c = Array(row)
                #expect(try c[2].decode(Bool.self))
                docs[try c[0].decode(String.self)] = try JSONReader().read(Data(try c[1].decode(String.self).utf8))
            }
            #expect(Set(docs.keys) == ["_User", "Post"])
            let post = try #require(docs["Post"])
            #expect(post["className"] == "Post")
            #expect(post["fields"]?["objectId"] == ["type": "String"])
            #expect(post["fields"]?["createdAt"] == ["type": "Date"])
            #expect(post["fields"]?["_rperm"] == ["type": "Array", "contents": ["type": "String"]])
            #expect(post["fields"]?["author"] == ["type": "Pointer", "targetClass": "_User"])
            #expect(post["fields"]?["likes"] == ["type": "Relation", "targetClass": "_User"])
            #expect(post["fields"]?["ACL"] == nil)
            #expect(post["classLevelPermissions"]?["find"] == ["*": true])
            #expect(post["_pfarchive"]?["numberKinds"]?["whole"] == "double")
            #expect(post["_pfarchive"]?["numberKinds"]?["count"] == "integer")
            let user = try #require(docs["_User"])
            #expect(user["fields"]?["_hashed_password"] == ["type": "String"])
            #expect(user["fields"]?["bcryptPassword"] == nil)
            #expect(user["fields"]?["authData"] == ["type": "Object"])
        }
    }

    @Test func aFailingImportLeavesAnExistingDatabaseUnchanged() throws {
        try TestServer.withDatabase { url in
            let store = try PostgresStore.open(url: url)
            defer { store.close() }
            try copy(try Sample.store(), into: store)
            func snapshot() throws -> (objects: [String: [String: ParseObject]], rows: Set<ParseJoinRow>, schema: ParseSchema, tables: [String]) {
                var objects: [String: [String: ParseObject]] = [:]
                for c in try store.classNames() { objects[c] = try objectsById(store, c) }
                let likes = ParseRelationKey(owningClass: "Post", field: "likes")
                let tables = try store.session.query(
                    "SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1",
                    doing: "test"
                ).map { try Array($0)[0].decode(String.self) }
                return (objects, Set(try store.joinRows(of: likes)), try store.schema(), tables)
            }
            let before = try snapshot()

            // A new class, a changed object, new join rows, then a bad object mid-batch.
            var schema = ParseSchema()
            schema.classes["Comment"] = ["text": .init(.string)]
            schema.classes["Post"] = ["extra": .init(.number)]
            try store.begin(schema: schema)
            try store.write(
                [try ParseObject(className: "Comment", objectId: "c1", fields: ["text": .string("first")])], className: "Comment")
            try store.write(
                [try ParseObject(className: "Post", objectId: "p2", fields: ["title": .string("changed"), "extra": .int(1)])],
                className: "Post")
            try store.write([ParseJoinRow(owningId: "p2", relatedId: "u1")], relation: .init(owningClass: "Post", field: "likes"))
            let bad = [
                try ParseObject(className: "Post", objectId: "p3", fields: ["title": .string("fine")]),
                try ParseObject(className: "Post", objectId: "p4", fields: ["title": .int(5)]),
            ]
            #expect {
                try store.write(bad, className: "Post")
            } throws: { error in
                guard let e = error as? PFError else { return false }
                guard case .badFieldValue(_, "Post", "p4", "title", _)? = e.failure(as: PostgresStoreFailure.self) else { return false }
                return true
            }
            store.abort()

            let after = try snapshot()
            #expect(after.objects.keys.sorted() == before.objects.keys.sorted())
            for (c, objects) in before.objects {
                #expect(after.objects[c]?.count == objects.count)
                for (id, o) in objects { #expect(after.objects[c]?[id].map { sameObject($0, o) } == true, "\(c) \(id)") }
            }
            #expect(after.rows == before.rows)
            #expect(after.schema == before.schema)
            #expect(after.tables == before.tables)

            // A server-side failure (U+0000 in a string) rolls back the same way.
            try store.begin(schema: ParseSchema())
            try store.write([try ParseObject(className: "Comment", objectId: "c1", fields: ["text": .string("x")])], className: "Comment")
            #expect(throws: PFError.self) {
                try store.write([try ParseObject(className: "Post", objectId: "p5", fields: ["meta": .object(["k": .string("a\u{0}")])])], className: "Post")
            }
            store.abort()
            #expect(try snapshot().tables == before.tables)
        }
    }

    @Test func readingPagesThroughLargeTablesInIdOrder() throws {
        try TestServer.withDatabase { url in
            let writer = try PostgresStore.open(url: url)
            defer { writer.close() }
            var objects: [ParseObject] = []
            var rows: [ParseJoinRow] = []
            for i in 0..<53 {
                objects.append(try ParseObject(className: "Item", objectId: String(format: "id%03d", 52 - i), fields: ["n": .int(Int64(i))]))
                rows.append(ParseJoinRow(owningId: "id\(i % 5)", relatedId: "r\(i)"))
            }
            let key = ParseRelationKey(owningClass: "Item", field: "links", targetClass: "Item")
            try copy(MemoryStore(objects: objects, joinRows: [key: rows]), into: writer, batch: 10)
            let reader = try PostgresStore.open(url: url, pageSize: 4)
            defer { reader.close() }
            let ids = try reader.objects(in: "Item").compactMap(\.objectId)
            #expect(ids == objects.compactMap(\.objectId).sorted())
            #expect(try reader.joinRows(of: key).count == rows.count)
            #expect(try Set(reader.joinRows(of: key)) == Set(rows))
            #expect(try reader.objects(in: "Missing").isEmpty)
        }
    }

    @Test func replacingAnObjectAndMergingSchemasAcrossImports() throws {
        try TestServer.withDatabase { url in
            let store = try PostgresStore.open(url: url)
            defer { store.close() }
            let first = try ParseObject(className: "Note", objectId: "n1", fields: ["a": .int(1), "b": .string("x")])
            try copy(MemoryStore(objects: [first]), into: store)
            let second = try ParseObject(className: "Note", objectId: "n1", fields: ["a": .double(2.5), "c": .bool(true)])
            try copy(MemoryStore(objects: [second]), into: store)
            let read = try store.objects(in: "Note")
            #expect(read.count == 1)
            #expect(read.first?.fields == ["a": .double(2.5), "c": .bool(true)])
            #expect(try Set(store.schema().classes["Note"]?.keys ?? []) == ["a", "b", "c"])
            // A field cannot change its type.
            let clash = try ParseObject(className: "Note", objectId: "n2", fields: ["b": .int(3)])
            #expect(throws: PFError.self) { try copy(MemoryStore(objects: [clash]), into: store) }
            #expect(try store.objects(in: "Note").count == 1)
        }
    }

    @Test func generatedStoresRoundTrip() async throws {
        guard let server = TestServer.url else { return }
        await propertyCheck(count: 15, input: StoreGen.store()) { generated in
            let name = "pfa_gen_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            try PostgresStore.createDatabase(named: name, serverURL: server)
            defer { try? PostgresStore.dropDatabase(named: name, serverURL: server) }
            let store = try PostgresStore.open(url: try PostgresURL(server).with(database: name).urlWithPassword, pageSize: 3)
            defer { store.close() }
            try copy(generated.memoryStore(), into: store, batch: 5)
            let expected = try expectedStoreAfterPostgres(generated)
            let difference = try StoreComparison.firstDifference(expected: expected, actual: store, schema: .covers)
            #expect(difference == nil, "\(difference ?? "")\n\(generated)")
        }
    }

    @Test func randomObjectsRoundTrip() async throws {
        guard let server = TestServer.url else { return }
        await propertyCheck(count: 12, input: RandomParse.stores) { objects in
            let source = MemoryStore(objects: objects)
            let name = "pfa_prop_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            try PostgresStore.createDatabase(named: name, serverURL: server)
            defer { try? PostgresStore.dropDatabase(named: name, serverURL: server) }
            let store = try PostgresStore.open(url: try PostgresURL(server).with(database: name).urlWithPassword, pageSize: 5)
            defer { store.close() }
            try copy(source, into: store, batch: 4)
            let schema = try source.schema()
            for className in try source.classNames() {
                let read = try objectsById(store, className)
                for (id, object) in try objectsById(source, className) {
                    let want = try expectedAfterPostgres(object, schema: schema)
                    #expect(read[id].map { sameObject($0, want) } == true, "\(className) \(id): \(read[id]?.restValue ?? .null) vs \(want.restValue)")
                }
            }
        }
    }
}

// MARK: - Random stores

/// Random classes of objects whose fields keep one type each (as parse-server requires), with
/// values the PostgreSQL mapping keeps: strings without U+0000, Numbers whose kind per field
/// is fixed, dates to the millisecond, nested objects and arrays.
enum RandomParse {
    static let stores: Generator<[ParseObject], Shrink.None<[ParseObject]>> = Generator(run: { rng in objects(&rng) })

    static func objects(_ rng: inout any SeededRandomNumberGenerator) -> [ParseObject] {
        var shape = ValueShape.json
        shape.nulInStrings = false
        let types = ["String", "Int", "Double", "Boolean", "Date", "Object", "Array", "GeoPoint", "Pointer", "Bytes"]
        var objects: [ParseObject] = []
        for c in 0..<Int.random(in: 1...3, using: &rng) {
            let className = "C\(c)"
            let fields = (0..<Int.random(in: 0...6, using: &rng)).map { ("f\($0)", types.randomElement(using: &rng) ?? "String") }
            for i in 0..<Int.random(in: 0...12, using: &rng) {
                var values = OrderedDictionary<String, ParseValue>()
                for (name, type) in fields where Int.random(in: 0..<4, using: &rng) > 0 {
                    values[name] = value(type, shape: shape, rng: &rng)
                }
                var acl: ParseACL?
                if Bool.random(using: &rng) {
                    var a = ParseACL()
                    a.set(.init(read: Bool.random(using: &rng), write: Bool.random(using: &rng)), for: "u\(i)")
                    a.setPublic(.init(read: true))
                    acl = a
                }
                let when = Date(timeIntervalSince1970: Double(Int64.random(in: -10_000_000_000_000...10_000_000_000_000, using: &rng)) / 1000)
                if let object = try? ParseObject(
                    className: className, objectId: "o\(i)-\(Int.random(in: 0...999, using: &rng))", createdAt: when,
                    updatedAt: Bool.random(using: &rng) ? when : nil, acl: acl, fields: values)
                {
                    objects.append(object)
                }
            }
        }
        return objects
    }

    static func value(_ type: String, shape: ValueShape, rng: inout any SeededRandomNumberGenerator) -> ParseValue {
        switch type {
        case "String": return .string(ValueGen.string(shape, rng: &rng))
        case "Int": return .int(Bool.random(using: &rng) ? ValueGen.boundaryIntegers.filter { $0.magnitude <= 1 << 53 }.randomElement(using: &rng) ?? 0 : Int64.random(in: -1_000_000...1_000_000, using: &rng))
        case "Double":
            let d = [0.5, -1.25e-300, 1e300, 3.0, Double.random(in: -1e6...1e6, using: &rng)].randomElement(using: &rng) ?? 0.5
            return .double(d)
        case "Boolean": return .bool(Bool.random(using: &rng))
        case "Date": return .date(ParseDate.rounded(Date(timeIntervalSince1970: Double.random(in: -5e10...5e10, using: &rng))))
        case "Object":
            return .object(["k": .string(ValueGen.string(shape, rng: &rng)), "n": .int(Int64.random(in: -9...9, using: &rng)), "d": .double(0.25)])
        case "Array": return .array([.string(ValueGen.string(shape, rng: &rng)), .double(1.5), .int(2), .null, .bool(true)])
        case "GeoPoint":
            return .geoPoint(ParseGeoPoint(latitude: Double.random(in: -90...90, using: &rng), longitude: Double.random(in: -180...180, using: &rng)))
        case "Pointer": return .pointer(ParsePointer(className: "Target", objectId: "t\(Int.random(in: 0...99, using: &rng))"))
        default: return .bytes(Data((0..<Int.random(in: 0...8, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        }
    }
}
