import Foundation
import PFCore
import PFParse
import PFParseAdapter
import Testing

@Suite struct AdapterTests {
    let adapter = ParseAdapter()

    static let personJSON = #"""
        {"objectId":"p1","createdAt":"2020-02-02T10:00:00.123Z","full_name":"Zoë 李雷 🎉","age":41,"score":9.5,
         "born":{"__type":"Date","iso":"1980-05-06T07:08:09.010Z"},"tags":["a","b"],
         "home":{"__type":"Object","className":"Address","objectId":"a1","street":"Storgata 1","city":"Oslo"},
         "friends":[{"__type":"Object","className":"Address","street":"Main St"}],
         "location":{"city":"Bergen","zip":"5003"},"active":true,"avatar":{"__type":"Bytes","base64":"AAEC"},"extra":1}
        """#

    @Test func decodesKeyMapNestedPathsModelsAndParseTypes() throws {
        let object = try ParseObject(rest: try rawJSON(Self.personJSON), className: "Person")
        let person = try adapter.decode(Person.self, from: object)
        #expect(person.name == "Zoë 李雷 🎉")
        #expect(person.city == "Bergen", "nested key path location.city")
        #expect(person.home == Address(objectId: "a1", street: "Storgata 1", city: "Oslo"))
        #expect(person.friends == [Address(objectId: nil, street: "Main St", city: nil)])
        #expect(person.born == Date(timeIntervalSince1970: 326_444_889.010))
        #expect(person.createdAt == Date(timeIntervalSince1970: 1_580_637_600.123))
        #expect(person.avatar == Data([0, 1, 2]))
        #expect(person.nickname == nil)
    }

    /// A double optional keeps a null apart from a missing key: `.some(nil)` for null, `nil`
    /// for no key, and each encodes back as it came (null stays null, a missing key stays
    /// missing), for scalars, transformed values (a Date) and nested objects alike.
    @Test func doubleOptionalsKeepNullApartFromMissing() throws {
        struct Memo: ParseModel, Equatable {
            struct Box: Codable, Equatable { var label: String?? }
            var objectId: String?
            var note: String??
            var due: Date??
            var box: Box??
            static let parseClassName = "Memo"
        }
        let nulls: PFValue = ["objectId": "m1", "note": .null, "due": .null, "box": ["label": .null]]
        let memo = try adapter.decode(Memo.self, fromREST: nulls)
        #expect(memo.note == .some(nil) && memo.due == .some(nil) && memo.box == .some(Memo.Box(label: .some(nil))))
        #expect(try adapter.restValue(of: memo) == nulls)
        let missing: PFValue = ["objectId": "m2", "box": [:]]
        let bare = try adapter.decode(Memo.self, fromREST: missing)
        #expect(bare.note == nil && bare.due == nil && bare.box == .some(Memo.Box(label: nil)))
        #expect(try adapter.restValue(of: bare) == missing)
        let set: PFValue = ["objectId": "m3", "note": "hi", "due": ["__type": "Date", "iso": "2020-02-02T10:00:00.123Z"], "box": ["label": "x"]]
        let full = try adapter.decode(Memo.self, fromREST: set)
        #expect(full.note == "hi" && full.box == Memo.Box(label: "x"))
        #expect(try adapter.restValue(of: full) == set)
    }

    @Test func encodesKeepingUnmappedKeysWhenAsked() throws {
        let object = try ParseObject(rest: try rawJSON(Self.personJSON), className: "Person")
        let person = try adapter.decode(Person.self, from: object)
        let plain = try adapter.restValue(of: person)
        #expect(plain["extra"] == nil)
        #expect(plain["location"] == ["city": "Bergen"])
        #expect(plain["createdAt"] == "2020-02-02T10:00:00.123Z", "top-level dates are bare strings")
        #expect(plain["nickname"] == nil, "nil is absent by default")
        let kept = try adapter.restValue(of: person, preservingUnmappedFrom: object)
        #expect(kept["extra"] == 1)
        #expect(kept["location"] == ["city": "Bergen", "zip": "5003"])
        #expect(sortedKeys(kept) == sortedKeys(object.restValue))
    }

    /// Unsigned integers past Int64.max are refused with ParseFailure's case, `UInt` as
    /// `UInt64` (a `UInt` was written as an unsigned number that Parse cannot hold).
    @Test func unsignedIntegersBeyondParsesNumbersAreRefused() throws {
        struct Counter: ParseModel {
            var objectId: String?
            var big: UInt64 = 0
            var word: UInt = 0
            static let parseClassName = "Counter"
        }
        #expect(try adapter.restValue(of: Counter(big: UInt64(Int64.max), word: UInt(Int64.max))) == ["big": .int(.max), "word": .int(.max)])
        expectParseError(ParseFailure.integerBeyond64Bit(.max), path: "big") { _ = try adapter.restValue(of: Counter(big: .max)) }
        expectParseError(ParseFailure.integerBeyond64Bit(UInt64(UInt.max)), path: "word") { _ = try adapter.restValue(of: Counter(word: .max)) }
    }

    @Test func nilAsNullWhenAsked() throws {
        let nulls = ParseAdapter(options: .init(nilEncoding: .null))
        let address = Address(objectId: nil, street: "x", city: nil)
        #expect(try nulls.restValue(of: address) == ["objectId": nil, "street": "x", "city": nil])
        #expect(try adapter.restValue(of: address) == ["street": "x"])
    }

    @Test func dottedLiteralKeysSeveralKeysSnakeCaseTransformersAndDefaults() throws {
        let text = #"""
            {"objectId":"w1","display_name":"Gadget","width":3,"height":4,"app.version":"2.1","homepage":"https://example.com/w",
             "serial":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","color":"G","released_at":1700000000,"built_at":"2023-11-14T22:13:20+00:00"}
            """#
        let widget = try adapter.decode(Widget.self, fromREST: try rawJSON(text))
        #expect(widget.displayName == "Gadget")
        #expect(widget.sizeInfo == .init(width: 3, height: 4))
        #expect(widget.version == "2.1")
        #expect(widget.homepage == URL(string: "https://example.com/w"))
        #expect(widget.serial == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(widget.color == .green)
        #expect(widget.releasedAt == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(widget.builtAt == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(widget.priority == 3, "default for a missing key")
        #expect(widget.cache == nil)

        let back = try adapter.restValue(of: widget)
        #expect(back["app.version"] == "2.1")
        #expect(back["width"] == 3 && back["height"] == 4 && back["size_info"] == nil)
        #expect(back["color"] == "G")
        #expect(back["released_at"] == 1_700_000_000)
        #expect(back["built_at"] == "2023-11-14T22:13:20.000Z")
        #expect(back["cache"] == nil)
        #expect(try adapter.decode(Widget.self, fromREST: back) == widget)

        let unknownColor = try adapter.decode(Widget.self, fromREST: try rawJSON(#"{"display_name":"x","width":1,"height":1,"color":"Q"}"#))
        #expect(unknownColor.color == .red, "value map default")
    }

    @Test func nestedModelsAsPointers() throws {
        let team = Team(objectId: "t1", name: "Reds", captain: Address(objectId: "a1", street: "s", city: nil),
                        members: [Address(objectId: "a2", street: "s2", city: nil)])
        let rest = try adapter.restValue(of: team)
        #expect(try jsonText(rest) == #"{"objectId":"t1","name":"Reds","captain":{"__type":"Pointer","className":"Address","objectId":"a1"},"members":[{"__type":"Pointer","className":"Address","objectId":"a2"}]}"#)
        let unsaved = Team(objectId: nil, name: "x", captain: Address(objectId: nil, street: "s", city: nil), members: [])
        expectParseError(ParseAdapterFailure.unsavedPointer(className: "Address"), path: "captain") { _ = try adapter.restValue(of: unsaved) }
        // Reading a field through a stub is an error, never a silent nil.
        expectParseError(ParseAdapterFailure.stubProperty(stub: "Address/a1", property: "street"), path: "captain") { _ = try adapter.decode(Team.self, fromREST: rest) }
    }

    @Test func referencesAcceptStubsAndObjects() throws {
        let stub = try adapter.decode(Post.self, fromREST: try rawJSON(
            #"{"title":"Hi","rating":1,"author":{"__type":"Pointer","className":"Address","objectId":"a9"}}"#))
        #expect(stub.author == .pointer(ParsePointer(className: "Address", objectId: "a9")))
        let full = try adapter.decode(Post.self, fromREST: try rawJSON(
            #"{"title":"Hi","rating":1,"author":{"__type":"Object","className":"Address","objectId":"a9","street":"Elm"}}"#))
        #expect(full.author?.model == Address(objectId: "a9", street: "Elm", city: nil))
        #expect(full.author?.pointer == ParsePointer(className: "Address", objectId: "a9"))
        expectParseError(ParseAdapterFailure.nestedClassMismatch(expected: "Address", found: "Team"), path: "author") {
            _ = try adapter.decode(Post.self, fromREST: try rawJSON(
                #"{"title":"Hi","rating":1,"author":{"__type":"Object","className":"Team","name":"x","members":[]}}"#))
        }
    }

    @Test func typeMismatchNamesClassObjectIdAndKeyPath() throws {
        expectParseError(ParseAdapterFailure.typeMismatch(expected: "a String", found: "the integer 5"), path: "friends[0].street", contains: "Parse: Person p7: ") {
            _ = try adapter.decode(Person.self, fromREST: try rawJSON(#"""
                {"objectId":"p7","full_name":"x","age":1,"score":1,"born":{"__type":"Date","iso":"2000-01-01T00:00:00.000Z"},
                 "tags":[],"friends":[{"street":5}],"active":false}
                """#))
        }
        expectParseError(ParseAdapterFailure.missingKey(property: "age"), path: "age") {
            _ = try adapter.decode(Person.self, fromREST: try rawJSON(#"{"full_name":"x"}"#))
        }
        expectParseError(ParseAdapterFailure.notAnInteger(type: "Int", number: 1.5), path: "age") {
            _ = try adapter.decode(Person.self, fromREST: try rawJSON(#"{"full_name":"x","age":1.5}"#))
        }
    }

    @Test func validationCollectsEveryFailureWithKeyPaths() throws {
        let object = try ParseObject(rest: try rawJSON(#"{"objectId":"v1","title":"ABCDEFGHIJKL","rating":9}"#), className: "Post")
        let (model, issues) = adapter.decodeCollectingIssues(Post.self, from: object)
        #expect(model == nil)
        #expect(issues.map(\.path.description).sorted() == ["rating", "title", "title"])
        #expect(issues.allSatisfy { $0.className == "Post" && $0.objectId == "v1" && $0.code == .validationError })
        #expect(issues.contains { $0.message.contains("at most 10") })
        #expect(issues.contains { $0.message.contains("all capitals") })
        expectParseError(ParseAdapterFailure.validationFailures(issues.map { "\($0.path): \($0.message)" })) { _ = try adapter.decode(Post.self, from: object) }

        let typeErrors = try ParseObject(rest: try rawJSON(#"{"objectId":"v2","title":5,"rating":"x"}"#), className: "Post")
        let (_, found) = adapter.decodeCollectingIssues(Post.self, from: typeErrors)
        #expect(found.map(\.path.description).sorted() == ["rating", "title"], "both type errors, not just the first")
        #expect(found.allSatisfy { $0.code == .incorrectType })
    }

    @Test func mergeNeverClobbersWithMissingValues() throws {
        let base = try adapter.decode(Person.self, from: try ParseObject(rest: try rawJSON(Self.personJSON), className: "Person"))
        let merged = try adapter.merge(base, with: try rawJSON(#"{"age":42,"location":{"zip":"1"},"nickname":"Z"}"#))
        #expect(merged.age == 42)
        #expect(merged.nickname == "Z")
        #expect(merged.city == "Bergen", "a nested key missing from the incoming data keeps its value")
        #expect(merged.name == base.name)
        let cleared = try adapter.merge(merged, with: try rawJSON(#"{"nickname":null}"#))
        #expect(cleared.nickname == nil, "explicit null clears")
        var partial = base
        partial.home = nil
        partial.score = 1
        let fromModel = try adapter.merge(base, with: partial)
        #expect(fromModel.home == base.home, "nil in the other model does not clobber")
        #expect(fromModel.score == 1)
    }

    @Test func updatingYieldsOnlyChangedFieldsAsOperations() throws {
        let object = try ParseObject(rest: try rawJSON(Self.personJSON), className: "Person")
        var person = try adapter.decode(Person.self, from: object)
        person.age = 42
        person.city = nil
        person.home = nil
        person.tags.append("c")
        let updated = try adapter.parseObject(updating: object, with: person)
        #expect(try jsonText(updated.savePayload()) == #"{"age":42,"tags":["a","b","c"],"home":{"__op":"Delete"},"location":{"zip":"5003"}}"#)
        #expect(updated.fields["extra"] == .int(1), "unmapped keys are untouched")
        let unchanged = try adapter.parseObject(updating: object, with: try adapter.decode(Person.self, from: object))
        #expect(unchanged.savePayload() == [:])
    }

    @Test func classDispatchByClassNameAndByField() throws {
        let dispatch = ParseClassDispatch([Address.self, Team.self])
        let a = try ParseObject(rest: try rawJSON(#"{"street":"s"}"#), className: "Address")
        #expect(try dispatch.decode(a, with: adapter) as? Address == Address(objectId: nil, street: "s", city: nil))
        expectParseError(ParseAdapterFailure.noModelForClass("Player", known: ["Address", "Team"])) {
            _ = try dispatch.modelType(for: try ParseObject(className: "Player"))
        }
        let byKind = ParseClassDispatch([], rule: .field("kind", ["video": VideoPost.self, "text": TextPost.self]))
        let video = try ParseObject(rest: try rawJSON(#"{"kind":"video","seconds":30}"#), className: "Post")
        let text = try ParseObject(rest: try rawJSON(#"{"kind":"text","body":"hi"}"#), className: "Post")
        #expect(try byKind.decode(video, with: adapter) as? VideoPost == VideoPost(objectId: nil, kind: "video", seconds: 30))
        #expect(try byKind.decode(text, with: adapter) as? TextPost == TextPost(objectId: nil, kind: "text", body: "hi"))
        expectParseError(ParseAdapterFailure.noModelForTag(field: "kind", tag: "audio", known: ["text", "video"]), path: "kind") {
            _ = try byKind.modelType(for: try ParseObject(rest: try rawJSON(#"{"kind":"audio"}"#), className: "Post"))
        }
    }

    @Test func keyPathsOnModels() throws {
        let person = try adapter.decode(Person.self, from: try ParseObject(rest: try rawJSON(Self.personJSON), className: "Person"))
        #expect(try adapter.value(forKeyPath: "home.city", in: person) == "Oslo")
        #expect(try adapter.value(forKeyPath: "friends[0].street", in: person) == "Main St")
        #expect(try adapter.value(forKeyPath: "city", in: person) == "Bergen", "property names, not Parse keys")
        #expect(try adapter.value(forKeyPath: "nothing.here", in: person) == nil)
    }

    @Test func classNameMustMatch() throws {
        expectParseError(ParseAdapterFailure.classMismatch(model: "Person", modelClass: "Person", found: "Team")) {
            _ = try adapter.decode(Person.self, from: try ParseObject(className: "Team"))
        }
    }

    @Test func snakeCaseConversion() {
        #expect(ParseKeyMap.snakeCase("playerName") == "player_name")
        #expect(ParseKeyMap.snakeCase("URLString") == "url_string")
        #expect(ParseKeyMap.snakeCase("id2Name") == "id2_name")
        #expect(ParseKeyMap.camelCase("player_name") == "playerName")
        #expect(ParseKeyMap.camelCase("_private_key") == "_privateKey")
    }
}

/// A Relation field typed by its target model: read from the REST Relation value (and a
/// typed one), written back as it, checked against the model's class.
@Suite struct ParseRelationTests {
    struct Street: ParseModel {
        var objectId: String?
        var residents: ParseRelation<Address>?
        var anything: ParseRelation<ParseObject>?
        static let parseClassName = "Street"
    }

    @Test func relationRoundTripsAndNamesItsTarget() throws {
        let json = #"{"objectId":"s1","residents":{"__type":"Relation","className":"Address"},"anything":{"__type":"Relation","className":"_User"}}"#
        let street = try ParseAdapter().decode(Street.self, fromREST: try rawJSON(json))
        #expect(street.residents == ParseRelation<Address>())
        #expect(street.residents?.targetClassName == "Address")
        #expect(street.anything?.targetClassName == "_User", "a Relation of ParseObject accepts any class")
        #expect(try ParseAdapter().restValue(of: street) == (try rawJSON(json)))
        let object = try ParseObject(rest: try rawJSON(json), className: "Street")
        #expect(try ParseAdapter().decode(Street.self, from: object).residents?.targetClassName == "Address")
    }

    @Test func anotherDecoderGetsCodablesOwnErrorForARelationToAnotherClass() throws {
        let person = Data(#"{"__type":"Relation","className":"Person"}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ParseRelation<Address>.self, from: person) }
        let address = Data(#"{"__type":"Relation","className":"Address"}"#.utf8)
        #expect(try JSONDecoder().decode(ParseRelation<Address>.self, from: address).targetClassName == "Address")
    }

    @Test func relationToAnotherClassOrAnotherValueFails() throws {
        for json in [
            #"{"residents":{"__type":"Relation","className":"Person"}}"#,
            #"{"residents":{"__type":"Pointer","className":"Address","objectId":"a1"}}"#,
            #"{"residents":"Address"}"#,
        ] {
            #expect(throws: PFError.self, "\(json)") { try ParseAdapter().decode(Street.self, fromREST: try rawJSON(json)) }
        }
    }
}
