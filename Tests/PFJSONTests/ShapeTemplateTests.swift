import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFTestSupport
import PropertyBased
import Testing

/// Objects of one shape share their keys (and, above 15 keys, their hash table) through the
/// reader's shape templates, and repeated strings share storage through its caches. Whatever
/// the mix of shapes and strings, a read must return exactly what was written, agree with the
/// tape-backed node view (which uses neither), and name the right path in an error.
@Suite struct ShapeTemplateTests {
    static let untyped = JSONReader(options: .init(typedValues: false))

    /// Key sets on both sides of OrderedDictionary's 15-key hashing threshold, in both orders,
    /// prefixes of one another, with long keys, and empty.
    static let keySets: [[String]] = {
        let small = ["id", "name", "tags", "score"]
        let large = (0..<24).map { "field_\($0)" }
        let long = ["a_key_that_is_longer_than_sixteen_bytes", "a_key_that_is_longer_than_sixteen_bytez",
                    "a_key_that_is_lXnger_than_sixteen_bytes"]
        return [small, small.reversed(), Array(small.prefix(3)), large, large.reversed(), Array(large.prefix(16)),
                Array(large.prefix(15)), long, small + long, ["x"], []]
    }()

    /// Strings of 15 to 130 bytes that differ from one another in one middle byte only, so a
    /// cache keyed by length and end bytes would confuse them.
    static let similarStrings: [String] = (15...130).flatMap { length -> [String] in
        let base = String(repeating: "s", count: length)
        let middle = base.index(base.startIndex, offsetBy: length / 2)
        return ["a", "b", "é"].map { base.replacingCharacters(in: middle...middle, with: $0) }
    }

    static let leafShape: ValueShape = {
        var shape = ValueShape.json
        shape.maxDepth = 1
        shape.maxWidth = 3
        return shape
    }()

    /// Arrays of objects drawn from ``keySets`` (some nested in one another), with random
    /// leaves and strings from ``similarStrings``; now and then large enough (past 16 KiB)
    /// for the reader's cache of string values.
    static let documents = Generator<PFValue, Shrink.None<PFValue>>(run: { rng in
        let count = Int.random(in: 0..<10, using: &rng) == 0 ? Int.random(in: 200...400, using: &rng)
            : Int.random(in: 1...40, using: &rng)
        var items: [PFValue] = []
        for _ in 0..<count { items.append(object(depth: 0, rng: &rng)) }
        return .array(items)
    })

    /// Keys for random shapes: with far more shapes than the reader has template slots, shapes
    /// of one size land in one slot, so a template must be matched key by key.
    static let keyPool = (0..<30).map { "p\($0)" }

    static func object(depth: Int, rng: inout any SeededRandomNumberGenerator) -> PFValue {
        let keys = Bool.random(using: &rng) ? keySets.randomElement(using: &rng) ?? []
            : Array(keyPool.shuffled(using: &rng).prefix(Int.random(in: 1...20, using: &rng)))
        var members = OrderedDictionary<String, PFValue>()
        for key in keys {
            switch Int.random(in: 0..<6, using: &rng) {
            case 0 where depth < 2: members[key] = object(depth: depth + 1, rng: &rng)
            case 1, 2: members[key] = .string(similarStrings.randomElement(using: &rng) ?? "")
            default: members[key] = ValueGen.tree(leafShape).run(using: &rng)
            }
        }
        return .dictionary(members)
    }

    @Test func repeatedShapesAndStringsReadBackExactly() async {
        await propertyCheck(count: 100, input: Self.documents) { generated in
            let document = RoundTripTests.withoutTypedLookalikes(generated)
            let text = try JSONWriter().write(document)
            #expect(try JSONReader().read(text) == document)
            let untypedRead = try Self.untyped.read(text)
            let viaTape = try Self.untyped.withDocument(text) { root throws(PFError) in try root.value() }
            #expect(untypedRead == viaTape)
        }
    }

    /// Far more shapes of one size than there are template slots: many share a slot, and
    /// each must still get its own keys (small and above 15 keys).
    @Test func shapesSharingASlotKeepTheirOwnKeys() throws {
        for width in [3, 17] {
            var objects: [PFValue] = []
            for round in 0..<2 {
                for shape in 0..<300 {
                    var members = OrderedDictionary<String, PFValue>()
                    for k in 0..<width { members["s\(shape)_\(k)"] = .int(Int64(round * 1000 + k)) }
                    objects.append(.dictionary(members))
                }
            }
            let document = PFValue.array(objects)
            #expect(try JSONReader().read(try JSONWriter().write(document)) == document)
        }
    }

    /// Dictionaries that share keys are still independent values.
    @Test func dictionariesOfOneShapeAreIndependent() throws {
        let large = (0..<20).map { #""k\#($0)": \#($0)"# }.joined(separator: ",")
        let text = #"[{"a": 1, "b": 2}, {"a": 3, "b": 4}, {\#(large)}, {\#(large)}]"#
        guard case .array(var items) = try JSONTest.read(text),
            case .dictionary(var first) = items[0], case .dictionary(var third) = items[2]
        else {
            Issue.record("expected an array of dictionaries")
            return
        }
        first["c"] = 5
        first["a"] = nil
        third["k0"] = "changed"
        third["new"] = true
        items[0] = .dictionary(first)
        items[2] = .dictionary(third)
        #expect(items[1] == ["a": 3, "b": 4])
        #expect(items[3] == (try JSONTest.read("{\(large)}")))
        #expect(items[0] == ["b": 2, "c": 5])
        #expect(third.count == 21 && third["k19"] == 19 && third.index(forKey: "new") == 20)
    }

    /// An error inside the n-th object of a repeated shape names that object and member,
    /// below and above the 15-key threshold.
    @Test func errorsInsideSharedShapesNameTheirPath() {
        var options = JSONReader.Options()
        options.limits.maxStringBytes = 8
        let reader = JSONReader(options: options)
        let small = #"[{"a": "x", "b": "y"}, {"a": "x", "b": "y"}, {"a": "x", "b": "123456789"}]"#
        #expect(JSONTest.error(small, reader)?.path == PFKeyPath([.index(2), .key("b")]))
        let members = (0..<20).map { #""k\#($0)": "v""# }
        var bad = members
        bad[17] = #""k17": ["ok", "123456789"]"#
        let large = "[{\(members.joined(separator: ","))}, {\(members.joined(separator: ","))}, {\(bad.joined(separator: ","))}]"
        #expect(JSONTest.error(large, reader)?.path == PFKeyPath([.index(2), .key("k17"), .index(1)]))
    }

    /// Typed objects are recognised with `__type` first or second, and two-member objects
    /// that only look like them stay dictionaries.
    @Test func twoMemberTypedObjectsInEitherOrder() throws {
        let date = try JSONTest.read(#"{"__type": "Date", "iso": "2011-06-10T18:33:42.123Z"}"#)
        #expect(try JSONTest.read(#"{"iso": "2011-06-10T18:33:42.123Z", "__type": "Date"}"#) == date)
        guard case .date = date else {
            Issue.record("expected a date, got \(date)")
            return
        }
        #expect(try JSONTest.read(#"{"base64": "AAE=", "__type": "Bytes"}"#) == .data(Data([0, 1])))
        #expect(try JSONTest.read(#"{"__type": "Date", "isx": "x"}"#) == ["__type": "Date", "isx": "x"])
        #expect(try JSONTest.read(#"{"_type": "Date", "iso": "x"}"#) == ["_type": "Date", "iso": "x"])
        #expect(try JSONTest.read(#"{"__type": "Bytes", "iso": "x"}"#) == ["__type": "Bytes", "iso": "x"])
        #expect(try JSONTest.read(#"{"__type": 1, "base64": "AAE="}"#) == ["__type": 1, "base64": "AAE="])
    }
}
