import Foundation
import PFCore
import PFFormats
import PFTestSupport
import PropertyBased
import Testing

@testable import PFDiff

/// Comparison rules, text output and patches of ``ValueDiff``.
@Suite struct ValueDiffTests {
    static func lines(_ a: PFValue, _ b: PFValue, _ configure: (inout DiffOptions) -> Void = { _ in }) -> [String] {
        var options = DiffOptions()
        configure(&options)
        return ValueDiff.compare(a, b, options: options).differences.map(\.description)
    }

    @Test func goldenLinesForEachKind() throws {
        let a: PFValue = ["results": [["score": 10], ["score": 7]], "name": "x", "gone": true, "list": [1, 2, 3]]
        let b: PFValue = ["results": [["score": 10], ["score": 12]], "name": "x", "new": .null, "list": [1, 9, 2, 3]]
        #expect(Self.lines(a, b) == [
            "results[1].score: 7 → 12",
            "- gone: true",
            "+ list[1]: 9",
            "+ new: null",
        ])
        let result = ValueDiff.compare(a, b)
        #expect(result.summary == "4 differences: 2 added, 1 removed, 1 changed")
        #expect(ValueDiff.compare(a, a).summary == "no differences")
    }

    @Test func typesMatterUnlessLoose() {
        #expect(Self.lines(["n": 1], ["n": 1.0]) == ["n: 1 → 1.0"])
        #expect(Self.lines(["n": 1], ["n": true]) == ["n: 1 → true"])
        #expect(Self.lines(["n": .double(0.0)], ["n": .double(-0.0)]) == ["n: 0.0 → -0.0"])
        #expect(Self.lines(["n": .double(.nan)], ["n": .double(.nan)]).isEmpty)
        #expect(Self.lines(["n": 1, "m": .double(-0.0)], ["n": 1.0, "m": .double(0.0)]) { $0.loose = true }.isEmpty)
        #expect(Self.lines(["n": 1], ["n": true]) { $0.loose = true }.isEmpty)
        #expect(Self.lines(["n": "1"], ["n": 1]) { $0.loose = true } == ["n: \"1\" → 1"])
        #expect(Self.lines(["n": .uint(UInt64(Int64.max) + 1)], ["n": .double(9.223372036854775808e18)]) { $0.loose = true }.isEmpty)
    }

    @Test func datesToTheMillisecondOrExactly() {
        // Equal when they round to the same millisecond, as the JSON writers write them.
        let t = Date(timeIntervalSinceReferenceDate: 1000.1231)
        let u = Date(timeIntervalSinceReferenceDate: 1000.1234)
        let v = Date(timeIntervalSinceReferenceDate: 1000.1236)
        #expect(Self.lines(.date(t), .date(u)).isEmpty)
        #expect(Self.lines(.date(t), .date(u)) { $0.datePrecision = .exact }.count == 1)
        #expect(Self.lines(.date(t), .date(v)).count == 1)
    }

    /// A change whose two sides read the same in one line (a File whose URL a Mongo dump does
    /// not keep: `File a.jpg → File a.jpg` before) shows each side in full.
    @Test func aChangeOneLineCannotShowIsShownInFull() {
        let file: PFValue = ["__type": "File", "name": "a.jpg", "url": "http://files.example.com/a.jpg"]
        let kept: PFValue = ["__type": "File", "name": "a.jpg"]
        let line = Difference(.changed, subject: "Post/x1", path: PFKeyPath([.key("pic")]), old: file, new: kept).description
        #expect(line == "Post/x1.pic: File a.jpg (url http://files.example.com/a.jpg) → File a.jpg (no url)")
        let nested = Difference(.changed, subject: "Post/x1", path: PFKeyPath([.key("meta")]), old: ["a": [1]], new: ["a": [1.5]]).description
        #expect(nested == #"Post/x1.meta: {"a": [1]} → {"a": [1.5]}"#)
        // Lines that tell the sides apart stay short.
        let plain = Difference(.changed, subject: "Post/x1", path: PFKeyPath([.key("n")]), old: 1, new: 2).description
        #expect(plain == "Post/x1.n: 1 → 2")
    }

    @Test func keyOrderIsNotADifference() {
        #expect(Self.lines(["a": 1, "b": 2], ["b": 2, "a": 1]).isEmpty)
    }

    @Test func ignoreWithWildcards() throws {
        let a: PFValue = ["results": [["score": 1, "at": 1], ["score": 2, "at": 2]], "meta": ["x": 1, "y": 2]]
        let b: PFValue = ["results": [["score": 1, "at": 5], ["score": 3, "at": 6]], "meta": ["x": 9, "y": 8]]
        #expect(Self.lines(a, b) { $0.ignore = [try! DiffPathPattern(parsing: "results[*].at"), try! DiffPathPattern(parsing: "meta.*")] } == [
            "results[1].score: 2 → 3",
        ])
        #expect(throws: PFError.self) { try DiffPathPattern(parsing: "a..b") }
    }

    @Test func unorderedArraysAreMultisets() throws {
        let a: PFValue = ["tags": ["x", "y", "y", "z"]]
        let b: PFValue = ["tags": ["y", "z", "x", "w"]]
        let pattern = try DiffPathPattern(parsing: "tags")
        #expect(Self.lines(a, b) { $0.unordered = [pattern] } == ["- tags[2]: \"y\"", "+ tags[3]: \"w\""])
        var options = DiffOptions()
        options.unordered = [pattern]
        let result = ValueDiff.compare(a, b, options: options)
        let patched = try result.patch.apply(to: a)
        #expect(ValueDiff.equal(patched, b, options: options))
        #expect(Self.lines(["tags": ["a", "b"]], ["tags": ["b", "a"]]) { $0.unordered = [pattern] }.isEmpty)
    }

    /// Canonically equivalent text is different text: `"é"` (U+00E9) against `"e\u{301}"`, as a
    /// value, a key, in an unordered array, is a difference (Swift's `==` says equal), and the
    /// patch makes A exactly B.
    @Test func canonicallyEquivalentStringsDiffer() throws {
        let composed = "\u{E9}", decomposed = "e\u{301}"
        let cases: [(PFValue, PFValue)] = [
            (["a": .string(composed)], ["a": .string(decomposed)]),
            (.dictionary([composed: 1]), .dictionary([decomposed: 1])),
            (["tags": [.string(composed), "x"]], ["tags": ["x", .string(decomposed)]]),
            ([["k": .string(composed)]], [["k": .string(decomposed)]]),
        ]
        var options = DiffOptions()
        options.unordered = [try DiffPathPattern(parsing: "tags")]
        #expect(PFValue.string(composed) == .string(decomposed), "Swift's equality holds")
        for (a, b) in cases {
            let result = ValueDiff.compare(a, b, options: options)
            #expect(!result.differences.isEmpty, "\(a) vs \(b)")
            #expect(!ValueDiff.equal(a, b, options: options))
            let patched = try result.patch.apply(to: a)
            #expect(PFValue.Exact(patched) == PFValue.Exact(b), "\(patched)")
            #expect(ValueDiff.compare(a, a, options: options).differences.isEmpty)
        }
    }

    @Test func parseTypedValuesAreReportedWhole() {
        let a: PFValue = ["team": ["__type": "Pointer", "className": "Team", "objectId": "a1"]]
        let b: PFValue = ["team": ["__type": "Pointer", "className": "Team", "objectId": "b2"]]
        #expect(Self.lines(a, b) { $0.parseTypedValues = true } == ["team: Pointer Team/a1 → Team/b2"])
        #expect(Self.lines(a, b) == ["team.objectId: \"a1\" → \"b2\""])
        let reordered: PFValue = ["team": ["objectId": "a1", "className": "Team", "__type": "Pointer"]]
        #expect(Self.lines(a, reordered) { $0.parseTypedValues = true }.isEmpty)
    }

    // MARK: - Patches

    /// Exact comparison for patch results: key order aside, dates to the bit.
    static var exact: DiffOptions {
        var o = DiffOptions()
        o.datePrecision = .exact
        return o
    }

    static func checkPatch(_ a: PFValue, _ b: PFValue) throws {
        let result = ValueDiff.compare(a, b, options: exact)
        #expect(result.isEmpty == (a == b) || !(a == b))
        let patched = try result.patch.apply(to: a)
        #expect(ValueDiff.equal(patched, b, options: exact), "\(a)\n→ \(b)\npatch \(result.patch.jsonValue)")
        // The patch survives its JSON form.
        #expect(try JSONPatch(json: result.patch.jsonValue) == result.patch)
    }

    @Test func patchTurnsRandomAIntoRandomB() async {
        await propertyCheck(count: 200, input: ValueGen.tree(), ValueGen.tree()) { a, b in
            try Self.checkPatch(a, b)
        }
    }

    @Test func patchTurnsAIntoAnEditedA() async {
        await propertyCheck(count: 300, input: ValueGen.document(), ValueGen.tree()) { a, replacement in
            var rng = SystemRandomNumberGenerator()
            var b = a
            for _ in 0..<Int.random(in: 1...4, using: &rng) { b = Self.edit(b, with: replacement, rng: &rng) }
            try Self.checkPatch(a, b)
            #expect(ValueDiff.compare(a, a, options: Self.exact).isEmpty)
        }
    }

    /// One random edit somewhere in the tree: replace, insert or remove.
    static func edit(_ value: PFValue, with new: PFValue, rng: inout SystemRandomNumberGenerator) -> PFValue {
        switch value {
        case .array(var items):
            let choice = Int.random(in: 0..<4, using: &rng)
            if choice == 0 || items.isEmpty { items.insert(new, at: Int.random(in: 0...items.count, using: &rng)); return .array(items) }
            let i = Int.random(in: 0..<items.count, using: &rng)
            if choice == 1 { items.remove(at: i); return .array(items) }
            items[i] = choice == 2 ? new : edit(items[i], with: new, rng: &rng)
            return .array(items)
        case .dictionary(var members):
            let choice = Int.random(in: 0..<4, using: &rng)
            if choice == 0 || members.isEmpty { members["k\(Int.random(in: 0..<5, using: &rng))"] = new; return .dictionary(members) }
            let i = Int.random(in: 0..<members.count, using: &rng)
            let key = members.keys[i]
            if choice == 1 { members.removeValue(forKey: key); return .dictionary(members) }
            members[key] = choice == 2 ? new : edit(members.values[i], with: new, rng: &rng)
            return .dictionary(members)
        default:
            return new
        }
    }

    @Test func losslessConversionsShowNoDifference() async throws {
        // JSON → bplist → JSON (property lists hold no null), JSON → CBOR → JSON.
        var plistShape = ValueShape.json
        plistShape.null = false
        plistShape.bigUnsigned = false
        await propertyCheck(count: 150, input: ValueGen.document(plistShape)) { value in
            let json = try FormatIO.write(value, as: .json)
            let fromJSON = try FormatIO.read(json).value
            let plist = try FormatIO.write(fromJSON, as: .bplist)
            let back = try FormatIO.read(try FormatIO.write(try FormatIO.read(plist).value, as: .json)).value
            #expect(ValueDiff.compare(fromJSON, back).isEmpty)
        }
        await propertyCheck(count: 150, input: ValueGen.document(.json)) { value in
            let fromJSON = try FormatIO.read(try FormatIO.write(value, as: .json)).value
            let back = try FormatIO.read(try FormatIO.write(fromJSON, as: .cbor)).value
            #expect(ValueDiff.compare(fromJSON, back).isEmpty)
        }
    }

    // MARK: - Applying patches

    @Test func rfc6902Operations() throws {
        let doc: PFValue = ["a/b": 1, "m~n": 2, "list": [1, 2, 3], "obj": ["x": 1]]
        let patch = try JSONPatch(json: try FormatIO.read(Data("""
            [{"op": "test", "path": "/a~1b", "value": 1},
             {"op": "replace", "path": "/m~0n", "value": 5},
             {"op": "add", "path": "/list/1", "value": 9},
             {"op": "add", "path": "/list/-", "value": 4},
             {"op": "remove", "path": "/list/0"},
             {"op": "copy", "from": "/obj", "path": "/copy"},
             {"op": "move", "from": "/obj/x", "path": "/moved"}]
            """.utf8)).value)
        let out = try patch.apply(to: doc)
        #expect(out == ["a/b": 1, "m~n": 5, "list": [9, 2, 3, 4], "obj": [:], "copy": ["x": 1], "moved": 1])
    }

    @Test func patchErrorsNameTheOperation() throws {
        func error(_ text: String) -> PFError? {
            do {
                let patch = try JSONPatch(json: try FormatIO.read(Data(text.utf8)).value)
                _ = try patch.apply(to: ["a": [1, 2], "s": "x"])
                return nil
            } catch {
                return error as? PFError
            }
        }
        func failure(_ text: String) -> DiffFailure? { error(text)?.failure(as: DiffFailure.self) }
        // The one-line message the CLI prints.
        #expect(error(#"[{"op":"remove","path":"/a/5"}]"#)?.description == "JSON Patch: operation 0 (remove /a/5): index 5 is out of range (2 items)")
        #expect(failure(#"[{"op":"remove","path":"/a/5"}]"#)
            == .operationFailed(index: 0, op: "remove", pointer: "/a/5", .indexOutOfRange("5", count: 2)))
        #expect(failure(#"[{"op":"test","path":"/s","value":"x"},{"op":"test","path":"/s","value":"y"}]"#)
            == .operationFailed(index: 1, op: "test", pointer: "/s", .testFailed(found: "\"x\"", expected: "\"y\"")))
        #expect(failure(#"[{"op":"move","from":"/a","path":"/a/0"}]"#)
            == .operationFailed(index: 0, op: "move", pointer: "/a/0", .moveIntoChild(from: "/a")))
        #expect(failure(#"[{"op":"frob","path":""}]"#) == .entryUnknownOp(index: 0, op: "frob"))
        #expect(failure(#"[{"op":"add","path":"/a"}]"#) == .entryNeedsValue(index: 0, op: "add"))
        #expect(failure(#"[{"op":"add","path":"a","value":1}]"#) == .entryBadPointer(index: 0, .pointerNoSlash("a")))
        #expect(failure(#"[{"op":"add","path":"/a/01","value":1}]"#)
            == .operationFailed(index: 0, op: "add", pointer: "/a/01", .addIndexOutOfRange("01", count: 2)))
        #expect(failure(#"[{"op":"replace","path":"/s/x","value":1}]"#)
            == .operationFailed(index: 0, op: "replace", pointer: "/s/x", .noValueToReplace))
        #expect(throws: PFError.self) { try JSONPointer(parsing: "/a~2") }
        #expect(JSONPointer(tokens: ["a/b", "~"]).description == "/a~1b/~0")
        // A token that starts with a combining mark (found by the property test): the `/` before
        // it is still a separator, though the two make one Character.
        for tokens in [["\u{8EC}3OT"], ["a", "\u{301}b", "~\u{301}", "/\u{301}"]] {
            #expect(try JSONPointer(parsing: JSONPointer(tokens: tokens).description).tokens == tokens)
        }
        // A combining mark after an escape (found by the property test).
        let odd = JSONPointer(tokens: ["~\u{301}", "/\u{301}", ""])
        #expect(try JSONPointer(parsing: odd.description) == odd)
    }

    /// Arrays nested 200 deep, differing only at the bottom, give one difference, in graph
    /// mode too. On main each level asked "are these equal?" of its first element and the
    /// answer compared the level below the same way: 2^depth work (Apple's two Grapher
    /// typedstreams, nested about 30 deep, were still being compared after 15 minutes).
    @Test func deepNestingIsComparedOnceNotOncePerLevel() throws {
        func nested(_ depth: Int, _ leaf: PFValue) -> PFValue {
            var value = leaf
            for _ in 0..<depth { value = [value, "x"] }
            return value
        }
        let a = nested(200, "a"), b = nested(200, "b")
        for graph in [false, true] {
            var options = DiffOptions()
            options.graph = graph
            let result = ValueDiff.compare(a, b, options: options)
            #expect(result.differences.count == 1)
            #expect(result.differences.first?.path.components.count == 200)
            #expect(try result.patch.apply(to: a) == b)
        }
    }
}
