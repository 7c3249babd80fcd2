import Foundation
import PFCodegen
import PFCore
import PFJSON
import PFParse
import PFTestSupport
import Testing

// MARK: - Inference and naming

@Suite("Type inference")
struct TypeInferenceTests {
    func objects(_ rows: [String]) throws -> TypeInference {
        let inference = TypeInference(source: .parse, origin: "test")
        for row in rows {
            let value = try JSONReader().read(Data(row.utf8))
            inference.observe(try ParseObject(rest: value, className: "Item"))
        }
        return inference
    }

    /// A field left undeclared says why, each by its own reason: a real tweet's `user` (40 keys)
    /// was "no single Swift type holds their values", which was wrong about it.
    @Test func undeclaredFieldsSayWhy() throws {
        let dir = try SwiftCompiler.scratch("why")
        defer { try? FileManager.default.removeItem(at: dir) }
        let wide = "{" + (1...33).map { "\"k\($0)\": \($0)" }.joined(separator: ", ") + "}"
        let deep = #"{"a": {"b": {"c": {"d": {"e": {"f": {"g": 1}}}}}}}"#
        let file = dir.appendingPathComponent("feed.json")
        try Data("[{\"user\": \(wide), \"deep\": \(deep), \"n\": 1}, {\"user\": \(wide), \"deep\": \(deep), \"n\": \"x\"}]".utf8).write(to: file)
        let run = try SwiftCompiler.codegen([file.path])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("`user` (an Object of 33 keys, more than the 32 a struct is made for)"), "\(run.output)")
        #expect(run.output.contains("(an Object nested deeper than the 6 levels codegen looks into)"), "\(run.output)")
        #expect(run.output.contains("`n` (values of several types seen)"), "\(run.output)")
    }

    /// A JSON file whose name is a legal class name is a Parse class file only when its rows
    /// look like Parse objects (an objectId, className or Parse's timestamps): nativejson's
    /// `twitter.json` and `canada.json` were generated as `ParseModel` adapters.
    @Test func aPlainJSONDocumentIsJSONWhateverItsFilesName() throws {
        let dir = try SwiftCompiler.scratch("plain")
        defer { try? FileManager.default.removeItem(at: dir) }
        let plain = dir.appendingPathComponent("Tweet.json")
        try Data(#"[{"text":"hi","user":{"name":"ana"}},{"text":"yo","user":{"name":"bo"}}]"#.utf8).write(to: plain)
        let json = try SwiftCompiler.codegen([plain.path])
        #expect(json.status == 0, "\(json.output)")
        #expect(json.output.contains("(JSON)") && json.output.contains(": Codable, Sendable") && !json.output.contains("ParseModel"), "\(json.output)")
        let parse = dir.appendingPathComponent("Post.json")
        try Data(#"[{"objectId":"a1","text":"hi"},{"objectId":"b2","text":"yo"}]"#.utf8).write(to: parse)
        let objects = try SwiftCompiler.codegen([parse.path])
        #expect(objects.status == 0, "\(objects.output)")
        #expect(objects.output.contains("(Parse objects)") && objects.output.contains("ParseModel"), "\(objects.output)")
    }

    /// A class of more keys than a shape keeps (an icon font's metadata, 2,078 names) lost
    /// every key past the 256th through the generated type without a word: the type and the
    /// conflicts say so now.
    @Test func aClassOfMoreKeysThanAShapeKeepsSaysWhatItLoses() throws {
        let fields = (0..<300).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let model = try objects(["{\"objectId\":\"a\",\(fields)}"]).model()
        let type = try #require(model.types.first)
        #expect(type.properties.count == 256)
        #expect(type.doc.contains { $0.contains("more than 256 distinct keys") })
        #expect(model.conflicts.map(\.field) == ["*"])
        #expect(model.conflicts.first?.description.contains("are lost through it") == true)
    }

    /// "Widened to Double (every integer seen fits)" was said of any field of integers and
    /// numbers, one of them 2^53 + 1, which a Double rounds; integers beyond Int64 and negative
    /// ones were typed UInt64, which JSONDecoder refuses for -1. Both are kept as values now.
    @Test func numbersNoOneSwiftTypeHoldsAreKeptAsValues() throws {
        let dir = try SwiftCompiler.scratch("numbers")
        defer { try? FileManager.default.removeItem(at: dir) }
        let cases = [
            ("Big.json", #"[{"v":9007199254740993},{"v":0.5}]"#, "kept as PFValue"),
            ("Signs.json", #"[{"v":18446744073709551615},{"v":-1}]"#, "no Swift integer holds both"),
            ("Fits.json", #"[{"v":9007199254740992},{"v":0.5}]"#, "widened to Double (every integer seen fits)"),
        ]
        for (name, json, said) in cases {
            let file = dir.appendingPathComponent(name)
            try Data(json.utf8).write(to: file)
            let run = try SwiftCompiler.codegen([file.path])
            #expect(run.status == 0 && run.output.contains(said), "\(name): \(run.output)")
            #expect(run.output.contains("public var v: Double") == (name == "Fits.json"), "\(name): \(run.output)")
        }
    }

    @Test func numberInOneRowStringInAnotherIsAConflictKeptAsParseValue() throws {
        let model = try objects([#"{"objectId":"a","size":3}"#, #"{"objectId":"b","size":"large"}"#]).model()
        let size = try #require(model.types.first?.properties.first { $0.key == "size" })
        #expect(size.type == .any)
        #expect(model.conflicts.count == 1)
        #expect(model.conflicts.first?.field == "size")
        #expect(model.conflicts.first?.kinds.map(\.kind) == [.int, .string])
    }

    /// Typedstream objects whose groups disagree: a position written as `i` by one object and
    /// `q` by another, or lacking from one, is kept as the group read; a struct group is kept
    /// with its encoding; an `@` position holding a string and a number is a conflict.
    @Test func classicGroupsThatDisagreeAreKeptAsGroups() throws {
        let tree = try JSONReader().read(Data(#"""
            [{"$class":"Shape","$version":3,"$values":[{"types":"i","values":[1]},{"types":"{CGPoint=dd}","values":[[1.5,2]]},
              {"types":"@","values":["a"]},{"types":"d","values":[0.5]}]},
             {"$class":"Shape","$version":3,"$values":[{"types":"q","values":[2]},{"types":"{CGPoint=dd}","values":[[0,0]]},
              {"types":"@","values":[5]}]}]
            """#.utf8))
        let inference = TypeInference(source: .typedstream, origin: "shapes")
        inference.observe(classic: tree)
        var options = CodeModelOptions()
        options.classic = true
        let model = inference.model(options: options)
        let shape = try #require(model.types.first)
        #expect(shape.version == 3)
        #expect(shape.properties.map(\.name) == ["value0", "value1", "value2", "value3"])
        #expect(shape.properties.map(\.type) == [.group, .group, .any, .group])
        #expect(shape.properties.map(\.classicEncoding) == [nil, "{CGPoint=dd}", "@", nil])
        #expect(model.conflicts.map(\.field) == ["2"])
        let code = SwiftEmitter(style: .archive).files(for: model).map(\.contents).joined()
        #expect(code.contains("final class Shape: ClassicArchiveCoding {"))
        #expect(code.contains("value1 = try coder.decodeDetachedGroup()"))
        #expect(code.contains("try coder.encodeValues(ofTypes: value1.encodings, value1.values)"))
    }

    @Test func integersAndNumbersWidenToDouble() throws {
        let model = try objects([#"{"score":3}"#, #"{"score":2.5}"#]).model()
        let score = try #require(model.types.first?.properties.first { $0.key == "score" })
        #expect(score.type == .double)
        #expect(!score.isOptional)
        #expect(model.conflicts.first?.resolution.contains("Double") == true)
    }

    @Test func nullsAndMissingKeysMakeOptionals() throws {
        let model = try objects([#"{"a":1,"b":null}"#, #"{"b":"x"}"#]).model()
        let props = try #require(model.types.first?.properties)
        #expect(props.first { $0.key == "a" }?.isOptional == true)
        #expect(props.first { $0.key == "b" }?.isOptional == true)
        #expect(props.first { $0.key == "b" }?.type == .string)
    }

    /// A source model's optional property (a Realm `int?`) is optional in the generated type
    /// even when every object read holds a value; its required ones are not.
    @Test func aModelsOptionalPropertiesStayOptional() throws {
        let inference = try objects([#"{"name":"a","age":3}"#, #"{"name":"b","age":4}"#])
        var name = ParseSchema.Field(.string)
        name.isRequired = true
        inference.observe(schema: ParseSchema(["Item": ["name": name, "age": .init(.number)]]))
        let props = try #require(inference.model().types.first?.properties)
        #expect(props.first { $0.key == "age" }?.isOptional == true)
        #expect(props.first { $0.key == "name" }?.isOptional == false)
        // Without a model's flags, values decide as before.
        let plain = try objects([#"{"name":"a","age":3}"#])
        plain.observe(schema: ParseSchema(["Item": ["name": .init(.string), "age": .init(.number)]]))
        #expect(try plain.model().types.first?.properties.allSatisfy { !$0.isOptional } == true)
    }

    /// A field every object holds as null is typed from the schema's declaration when it
    /// names a Swift type (a Realm `date?` null in every object was left undeclared as `Any`,
    /// while the same field absent from every object was declared); Object and Array fields
    /// still need values to say their Swift type.
    @Test func aFieldNullEverywhereIsTypedFromItsDeclaration() throws {
        let inference = try objects([#"{"played":null,"score":null,"tags":null}"#, #"{"played":null,"score":null,"tags":null}"#])
        inference.observe(schema: ParseSchema(["Item": ["played": .init(.date), "score": .init(.number), "tags": .init(.array)]]))
        let props = try #require(inference.model().types.first?.properties)
        #expect(props.first { $0.key == "played" }?.type == .date)
        #expect(props.first { $0.key == "score" }?.type == .double)
        #expect(props.first { $0.key == "tags" }?.type == .any)
        #expect(props.first { $0.key == "played" }?.doc.contains("Only nulls were seen; typed from the schema's `Date`.") == true)
    }

    @Test func fewStringValuesBecomeAnEnumOnlyWhenAsked() throws {
        let rows = [#"{"rank":"gold"}"#, #"{"rank":"silver medal"}"#, #"{"rank":"gold"}"#]
        #expect(try objects(rows).model().types.first?.properties.first?.type == .string)
        let model = try objects(rows).model(options: CodeModelOptions(enums: true))
        #expect(model.types.first?.properties.first?.type == .enumeration("Rank"))
        guard case .enumeration(let cases)? = model.types.first?.nested.first?.kind else {
            Issue.record("no enum")
            return
        }
        #expect(cases.map(\.name) == ["gold", "silverMedal"])
    }

    @Test func manyDistinctStringsStopCountingValues() throws {
        let rows = (0..<40).map { #"{"name":"n\#($0)"}"# }
        let inference = try objects(rows)
        #expect(inference.classes["Item"]?.shape.fields["name"]?.stringValues == nil)
        #expect(inference.model(options: CodeModelOptions(enums: true)).types.first?.properties.first?.type == .string)
    }

    /// An included Pointer (a whole object) in a field that cannot be a `ParseReference` is a
    /// `ParseValue`, so a decode and encode through the model keeps its fields.
    @Test func wholeObjectsInAPointerFieldKeepTheirFields() throws {
        let inference = TypeInference(source: .parse, origin: "test")
        let rows = [
            #"{"objectId":"a","next":{"__type":"Object","className":"Post","objectId":"b","title":"kept"}}"#,
            #"{"objectId":"b","next":{"__type":"Pointer","className":"Post","objectId":"a"}}"#,
        ]
        for row in rows { inference.observe(try ParseObject(rest: try JSONReader().read(Data(row.utf8)), className: "Post")) }
        let next = try #require(inference.model().types.first?.properties.first { $0.key == "next" })
        #expect(next.type == .any)
        #expect(next.doc.joined().contains("1 value is a whole object, an included Pointer"), "\(next.doc)")
        // Pointers only: still a ParsePointer.
        let pointers = TypeInference(source: .parse, origin: "test")
        pointers.observe(try ParseObject(rest: try JSONReader().read(Data(rows[1].utf8)), className: "Post"))
        #expect(pointers.model().types.first?.properties.first { $0.key == "next" }?.type == .parse("ParsePointer"))
    }

    @Test func pointersToGeneratedClassesAreReferences() throws {
        let inference = TypeInference(source: .parse, origin: "test")
        inference.observe(try ParseObject(rest: try JSONReader().read(Data(#"{"objectId":"u"}"#.utf8)), className: "_User"))
        let post = #"{"author":{"__type":"Pointer","className":"_User","objectId":"u"},"meta":{"w":1,"h":2}}"#
        inference.observe(try ParseObject(rest: try JSONReader().read(Data(post.utf8)), className: "Post"))
        let model = inference.model()
        let postType = try #require(model.types.first { $0.sourceName == "Post" })
        #expect(model.types.first?.name == "User")
        #expect(postType.properties.first { $0.key == "author" }?.type == .reference("User"))
        #expect(postType.properties.first { $0.key == "meta" }?.type == .model("Meta"))
    }
}

@Suite("Swift names")
struct SwiftNamesTests {
    @Test func propertyNames() {
        #expect(SwiftNames.propertyName("player_name") == "playerName")
        #expect(SwiftNames.propertyName("_rperm") == "rperm")
        #expect(SwiftNames.propertyName("location.city") == "locationCity")
        #expect(SwiftNames.propertyName("URLString") == "urlString")
        #expect(SwiftNames.propertyName("2fa") == "field2fa")
        #expect(SwiftNames.escaped(SwiftNames.propertyName("default")) == "`default`")
        // `self.init` and `self.self` are no stored properties.
        #expect(SwiftNames.propertyName("init") == "initField")
        #expect(SwiftNames.propertyName("self") == "selfField")
        #expect(SwiftNames.typeName("Sendable") == "SendableModel")
    }

    @Test func typeNames() {
        #expect(SwiftNames.typeName("_User") == "User")
        #expect(SwiftNames.typeName("MyApp.Employee") == "MyAppEmployee")
        #expect(SwiftNames.typeName("game-score") == "GameScore")
        #expect(SwiftNames.typeName("Data") == "DataModel")
        var taken: Set<String> = []
        #expect(SwiftNames.unique("User", in: &taken) == "User")
        #expect(SwiftNames.unique("User", in: &taken) == "User2")
    }

    @Test func collidingKeysGetDistinctNames() throws {
        let inference = TypeInference(source: .parse, origin: "test")
        let row = #"{"player_name":"a","playerName":"b","class":1}"#
        inference.observe(try ParseObject(rest: try JSONReader().read(Data(row.utf8)), className: "Item"))
        let names = inference.model().types.first?.properties.map(\.name)
        #expect(names == ["playerName", "playerName2", "class"])
        let code = SwiftEmitter(style: .adapter).files(for: inference.model()).map(\.contents).joined()
        #expect(code.contains("public var `class`: Int"))
        #expect(code.contains(#""playerName2": "playerName""#))
        #expect(code.contains(#""playerName": "player_name""#))
    }
}
