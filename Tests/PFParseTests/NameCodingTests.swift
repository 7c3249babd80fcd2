import Foundation
import OrderedCollections
import PFParse
import PFTestSupport
import PropertyBased
import Testing

/// The laws of ``ParseNameCoding`` under every destination's policy, on random Unicode names
/// and nested dictionaries.
@Suite struct NameCodingTests {
    static let policies: [ParseNamePolicy] = [.parseExport, .mongoShape, .postgres, .sqliteColumn, .unrestricted]

    /// Names built from the pieces that matter: Parse-legal words, the prefix, `_`, `$`, `.`,
    /// reserved names, any scalar, and long runs (past PostgreSQL's 63 bytes).
    static let name = Generator<String, Shrink.None<String>>(run: { rng in randomName(&rng) })

    static func randomName(_ rng: inout any SeededRandomNumberGenerator) -> String {
        var s = ""
        for _ in 0..<Int.random(in: 0...5, using: &rng) {
            switch Int.random(in: 0..<9, using: &rng) {
            case 0: s += ["pf__", "pf___l", "_", "__", "$", ".", "_2e_", "pf"].randomElement(using: &rng) ?? ""
            case 1: s += ParseRules.defaultColumns.randomElement(using: &rng) ?? ""
            case 2: s += ["className", "length", "__type", "com.apple.Dataclass.Availability"].randomElement(using: &rng) ?? ""
            case 3: s += String(repeating: "a", count: Int.random(in: 30...80, using: &rng))
            default: s += ValueGen.string(ValueShape(), rng: &rng)
            }
        }
        return s
    }

    /// Two names; often the second is an encoded name, so look-alikes meet their originals.
    static let pair = Generator<[String], Shrink.None<[String]>>(run: { rng in
        [randomName(&rng), Bool.random(using: &rng) ? randomName(&rng) : ParseNameCoding.encodeField("." + randomName(&rng), policy: .parseExport)]
    })

    @Test func decodeUndoesEncodeForEveryPolicy() async {
        await propertyCheck(count: 400, input: Self.name) { n in
            for policy in Self.policies {
                let field = ParseNameCoding.encodeField(n, policy: policy)
                let table = ParseNameCoding.isShortened(field) ? [field: n] : [:]
                #expect(ParseNameCoding.decodeField(field, policy: policy, originals: table) == n, "\(policy) \(n.debugDescription) → \(field)")
                let key = ParseNameCoding.encodeNestedKey(n, policy: policy)
                #expect(ParseNameCoding.decodeNestedKey(key, policy: policy) == n, "\(policy) \(n.debugDescription) → \(key)")
            }
        }
    }

    @Test func encodedNamesFollowTheRules() async {
        await propertyCheck(count: 400, input: Self.name) { n in
            for policy in Self.policies {
                let field = ParseNameCoding.encodeField(n, policy: policy)
                #expect(policy.fieldProblem(field) == nil, "\(policy) \(n.debugDescription) → \(field)")
                let key = ParseNameCoding.encodeNestedKey(n, policy: policy)
                #expect(policy.nestedKeyProblem(key) == nil, "\(policy) \(n.debugDescription) → \(key)")
            }
            // Under Parse's rules every encoded name is a Parse field name, never reserved.
            let parse = ParseNameCoding.encodeField(n, policy: .parseExport)
            #expect(ParseRules.fieldNameProblem(parse) == nil)
        }
    }

    @Test func encodingIsInjectiveAndKeepsLegalNames() async {
        await propertyCheck(count: 400, input: Self.pair) { pair in
            let a = pair[0], b = pair[1]
            for policy in Self.policies {
                if a != b {
                    #expect(ParseNameCoding.encodeField(a, policy: policy) != ParseNameCoding.encodeField(b, policy: policy))
                    #expect(ParseNameCoding.encodeNestedKey(a, policy: policy) != ParseNameCoding.encodeNestedKey(b, policy: policy))
                }
                for n in [a, b] where policy.fieldProblem(n) == nil && !n.hasPrefix("pf__") {
                    #expect(ParseNameCoding.encodeField(n, policy: policy) == n)
                }
                for n in [a, b] where policy.nestedKeyProblem(n) == nil && !n.hasPrefix("pf__") {
                    #expect(ParseNameCoding.encodeNestedKey(n, policy: policy) == n)
                }
            }
        }
    }

    /// Random nested dictionaries under random names: encoding an object for a policy leaves
    /// only names the policy allows, and decoding gives the object back.
    @Test func objectsWithNestedDictionariesRoundTrip() async throws {
        let objects = Generator<ParseObject?, Shrink.None<ParseObject?>>(run: { rng in
            var fields = OrderedDictionary<String, ParseValue>()
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                let key = Self.randomName(&rng)
                guard !["objectId", "createdAt", "updatedAt", "ACL", "className", "__type"].contains(key) else { continue }
                fields[key] = Self.nested(depth: 0, rng: &rng)
            }
            return try? ParseObject(className: "Thing", objectId: "id1", fields: fields, checkingNames: false)
        })
        await propertyCheck(count: 200, input: objects) { object in
            guard let object else { return }
            for policy in Self.policies {
                var tally = ParseNameTally()
                let stored = ParseNameCoding.encode(object, policy: policy, tally: &tally)
                #expect(ParseNameCoding.firstProblem(in: stored, policy: policy) == nil)
                var table: [String: String] = [:]
                for (original, entry) in tally.classes["Thing"] ?? [:] { if let s = entry.storedName { table[s] = original } }
                #expect(ParseNameCoding.decode(stored, policy: policy, originals: table).fields == object.fields, "\(policy)")
                if policy.isUnrestricted { #expect(tally.isEmpty) }
            }
        }
    }

    static func nested(depth: Int, rng: inout any SeededRandomNumberGenerator) -> ParseValue {
        switch depth < 3 ? Int.random(in: 0..<4, using: &rng) : 0 {
        case 0: return .string(ValueGen.string(ValueShape(), rng: &rng))
        case 1: return .array((0..<Int.random(in: 0...3, using: &rng)).map { _ in nested(depth: depth + 1, rng: &rng) })
        default:
            var d = OrderedDictionary<String, ParseValue>()
            for _ in 0..<Int.random(in: 0...4, using: &rng) where true {
                let key = randomName(&rng)
                if key == "__type" { continue }
                d[key] = nested(depth: depth + 1, rng: &rng)
            }
            return .object(d)
        }
    }

    /// Only what changes is rebuilt: members before and after a changed key keep their
    /// values and order, and an object with nothing to change comes back as it was.
    @Test func recodingKeepsOrderAroundTheFirstChange() throws {
        let inner: OrderedDictionary<String, ParseValue> = ["a": .int(1), "b": .object(["x": .int(2), "c.d": .array([.object(["e$": .bool(true)])])]), "z": .string("last")]
        let object = try ParseObject(
            className: "Thing", objectId: "id1", fields: ["plain": .object(["k": .int(0)]), "nested": .object(inner), "after": .int(3)], checkingNames: false)
        var tally = ParseNameTally()
        let stored = ParseNameCoding.encode(object, policy: .postgres, tally: &tally)
        let expected: OrderedDictionary<String, ParseValue> = [
            "a": .int(1), "b": .object(["x": .int(2), "pf__c_2e_d": .array([.object(["pf__e_24_": .bool(true)])])]), "z": .string("last"),
        ]
        #expect(Array(stored.fields.keys) == ["plain", "nested", "after"])
        #expect(stored.fields["nested"] == .object(expected))
        #expect(stored.fields["plain"] == object.fields["plain"])
        #expect(tally.classes["Thing"]?["nested"]?.nestedKeys == 2)
        #expect(tally.encodedFields == 0)

        var none = ParseNameTally()
        let untouched = try ParseObject(className: "Thing", objectId: "id2", fields: ["plain": .object(["k": .array([.object(["m": .null])])])])
        #expect(ParseNameCoding.encode(untouched, policy: .postgres, tally: &none) == untouched)
        #expect(none.isEmpty)
    }

    /// A run of objects sharing one memo of kept names gives what each object gives alone,
    /// whether their fields repeat, move, or change class, and a name the memo holds at one
    /// position is still encoded when it comes at another.
    @Test func theKeptNamesMemoChangesNothing() async throws {
        // A generated name may be one of the fixed ones ("ok", "className"): a dictionary
        // literal with a repeated key traps, so the fields keep the first of a repeated name.
        func fields(_ pairs: [(String, ParseValue)]) -> OrderedDictionary<String, ParseValue> {
            OrderedDictionary(pairs, uniquingKeysWith: { first, _ in first })
        }
        await propertyCheck(count: 40, input: Self.pair) { names in
            let objects = [
                try? ParseObject(className: "A", objectId: "1", fields: fields([("ok", .int(1)), (names[0], .int(2))]), checkingNames: false),
                try? ParseObject(
                    className: "A", objectId: "2", fields: fields([("ok", .int(1)), (names[1], .object([names[0]: .int(3)]))]), checkingNames: false),
                try? ParseObject(
                    className: "_Hooks", objectId: "3", fields: fields([("className", .string("x")), (names[0], .null)]), checkingNames: false),
                try? ParseObject(className: "A", objectId: "4", fields: fields([(names[1], .int(4)), ("ok", .int(1))]), checkingNames: false),
            ].compactMap { $0 }
            for policy in Self.policies {
                var kept = ParseNameCoding.KeptFields()
                var tallyRun = ParseNameTally()
                var tallyAlone = ParseNameTally()
                for object in objects {
                    let run = ParseNameCoding.encodedIfChanged(object, policy: policy, tally: &tallyRun, kept: &kept)
                    let alone = ParseNameCoding.encodedIfChanged(object, policy: policy, tally: &tallyAlone)
                    #expect(run == alone, "\(policy) \(object.fields.keys)")
                }
                #expect(tallyRun == tallyAlone)
            }
        }
        // `className` is a field of `_Hooks` only: remembered there, it is still encoded in
        // another class at the same position.
        let hook = try ParseObject(className: "_Hooks", objectId: "1", fields: ["className": .string("x")], checkingNames: false)
        let other = try ParseObject(className: "A", objectId: "2", fields: ["className": .string("x")], checkingNames: false)
        var kept = ParseNameCoding.KeptFields()
        var tally = ParseNameTally()
        #expect(ParseNameCoding.encodedIfChanged(hook, policy: .postgres, tally: &tally, kept: &kept) == nil)
        let stored = ParseNameCoding.encodedIfChanged(other, policy: .postgres, tally: &tally, kept: &kept)
        #expect(stored.map { Array($0.fields.keys) } == ["pf__className"])
    }

    // MARK: - Examples

    @Test func examplesFromTheDocs() {
        #expect(ParseNameCoding.encodeNestedKey("com.apple.Dataclass.Availability", policy: .parseExport)
            == "pf__com_2e_apple_2e_Dataclass_2e_Availability")
        #expect(ParseNameCoding.encodeField("_DKApplicationActivityMetadataKey__contentDescription", policy: .parseExport)
            == "pf____DKApplicationActivityMetadataKey____contentDescription")
        #expect(ParseNameCoding.encodeField("größe", policy: .parseExport) == "pf__gr_f6__df_e")
        #expect(ParseNameCoding.encodeField("$price", policy: .mongoShape) == "pf___24_price")
        #expect(ParseNameCoding.encodeField("length", policy: .parseExport) == "pf__length")
        #expect(ParseNameCoding.encodeField("score", policy: .parseExport) == "score")
        // A legal name that looks encoded is escaped, and one from elsewhere reads back as it is.
        #expect(ParseNameCoding.encodeField("pf__score", policy: .parseExport) == "pf__pf____score")
        #expect(ParseNameCoding.decodeField("pf__score", policy: .parseExport) == "pf__score")
        #expect(ParseNameCoding.encodeField("a.b", policy: .sqliteColumn) == "a.b")
        #expect(ParseNameCoding.encodeField("", policy: .sqliteColumn) == "pf__")
        let long = String(repeating: "x", count: 70)
        let short = ParseNameCoding.encodeField(long, policy: .postgres)
        #expect(short.utf8.count == 63 && ParseNameCoding.isShortened(short))
        #expect(ParseNameCoding.decodeField(short, policy: .postgres, originals: [short: long]) == long)
        #expect(ParseNameCoding.encodeField(long, policy: .parseExport) == long)
    }

    @Test func strictCheckNamesTheProblem() throws {
        let object = try ParseObject(
            className: "Account", objectId: "a1", fields: ["props": .object(["com.apple.x": .int(1)])], checkingNames: false)
        let error = try #require(ParseNameCoding.firstProblem(in: object, policy: .parseExport))
        #expect(error.parseErrorCode == .invalidNestedKey)
        #expect(error.failure(as: ParseFailure.self)
            == .badNestedKey(problem: "nested key 'com.apple.x' contains '$' or '.', which Parse reserves", destination: "Parse export"))
        #expect(ParseNameCoding.firstProblem(in: object, policy: .unrestricted) == nil)
    }
}
