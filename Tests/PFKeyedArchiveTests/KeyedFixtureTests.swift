import Foundation
import OrderedCollections
import PFCore
import PFKeyedArchive
import Testing

/// Real archives (Tests/Fixtures/real/keyed, copied from public repositories, and
/// linux-corelibs/, written by Foundation on Linux) against what peer decoders made of them
/// (EXPECTED/keyed).
@Suite struct KeyedFixtureTests {
    /// Where nska_deserialize's view is wrong or lossy beyond its documented conventions, the
    /// value it should have shown, after ``NSKANormaliser``. Each entry says why.
    static let oracleCorrections: [String: @Sendable (PFValue) -> PFValue] = [
        // nska shows NSOrderedSet as its raw NS.object.N fields; the set is 1…5 in that order
        // (Foundation on Linux prints the same order).
        "scf-NSOrderedSet-Numbers.archive": { _ in [1, 2, 3, 4, 5] },
        // nska writes NSNull as {}; nil and NSNull are both null in our graph, "" after normalising.
        "scf-ComplexTest.bplist": { oracle in
            guard case .dictionary(var root) = oracle, case .array(var array)? = root["array"] else { return oracle }
            array[0] = ""
            root["array"] = .array(array)
            return .dictionary(root)
        },
        "linux-corelibs/swift-linux-misc.bplist": { oracle in
            guard case .dictionary(var root) = oracle else { return oracle }
            root["null"] = ""
            return .dictionary(root)
        },
    ]

    @Test(arguments: KeyedFixtures.positive)
    func decodesLikeNSKADeserialize(_ name: String) throws {
        let graph = try KeyedArchive.decodeGraph(KeyedFixtures.data(name))
        let ours = NSKANormaliser.normalise(try graph.jsonValue())
        if let text = KeyedFixtures.oracle(name, "nska_deserialize.txt") {
            // nska printed a bare string (an NSUUID root).
            #expect(ours == .string(String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
            return
        }
        guard let oracleData = KeyedFixtures.oracle(name, "nska_deserialize.json") else {
            Issue.record("no nska_deserialize oracle for \(name)")
            return
        }
        var oracle = NSKANormaliser.collapseDataWrappers(try OracleJSON.parse(oracleData))
        if let correct = Self.oracleCorrections[name] { oracle = correct(oracle) }
        #expect(canonical(ours) == canonical(oracle), "\(name): ours \(ours)")
    }

    /// The object table matches what plistlib read: same `$top` references and object count.
    @Test(arguments: KeyedFixtures.positive)
    func tableMatchesPlistlib(_ name: String) throws {
        let (table, _) = try KeyedArchive.readTable(KeyedFixtures.data(name))
        let oracle = try OracleJSON.parse(try #require(KeyedFixtures.oracle(name, "plistlib.json")))
        #expect(oracle["$objects"]?.arrayValue?.count == table.objects.count)
        guard case .dictionary(let top)? = oracle["$top"] else { Issue.record("plistlib shows no $top"); return }
        #expect(top.keys.sorted() == table.top.keys.sorted())
        for (key, uid) in table.top { #expect(top[key]?["CF$UID"] == .uint(uid) || top[key]?["CF$UID"] == .int(Int64(uid))) }
    }

    // MARK: - Where the oracles fail

    /// bpylist2's circular archive: a `crap.Foo` whose `recursive` field is itself. Foundation
    /// on Linux refuses it (class not present); nska unrolls the cycle once. The right value is
    /// one object that refers to itself.
    @Test func circularArchiveIsOneObjectReferringToItself() throws {
        let graph = try KeyedArchive.decodeGraph(KeyedFixtures.data("bpylist2-circular_archive.bplist"))
        guard case .node(let root)? = graph.root, case .object(let object) = graph.nodes[root] else {
            Issue.record("root is not an object: \(graph)")
            return
        }
        #expect(object.archivedClass.chain == ["crap.Foo", "NSCoder", "NSObject"])
        #expect(object.fields["recursive"] == .node(root))
        #expect(object.fields["title"] == .string("hello"))
        let expected: PFValue = [
            "$class": "crap.Foo", "$classes": ["crap.Foo", "NSCoder", "NSObject"], "$id": 1, "title": "hello",
            "recursive": ["$ref": 1],
        ]
        let json = try graph.jsonValue()
        #expect(expected.reorderedLike(json) == json)
    }

    /// Foundation on Linux wrote swift-linux-cycle (A.next = B, B.next = A, one Tag shared by
    /// A, B and C, A.children = [C, C]) and then crashed or refused to read it back; nska
    /// unrolls the cycle once and copies the shared objects. The right graph keeps one A,
    /// one B, one C and one Tag.
    @Test(arguments: ["linux-corelibs/swift-linux-cycle.bplist", "linux-corelibs/swift-linux-cycle.xml"])
    func linuxCycleKeepsIdentity(_ name: String) throws {
        let graph = try KeyedArchive.decodeGraph(KeyedFixtures.data(name))
        func object(_ value: KeyedGraph.Value?) -> KeyedGraph.Object? {
            guard let value, case .object(let o)? = graph.node(value) else { return nil }
            return o
        }
        let a = try #require(object(graph.root))
        let b = try #require(object(a.fields["next"]))
        #expect(a.archivedClass.name == "kt.Node")
        #expect(a.fields["name"] == .string("A") && b.fields["name"] == .string("B"))
        #expect(b.fields["next"] == graph.root, "B.next is A itself: the cycle")
        #expect(a.fields["shared"] == b.fields["shared"], "one Tag, shared")
        #expect(a.fields["$$dollarKey"] == .int(42), "a caller key $dollarKey is archived escaped as $$dollarKey")
        guard case .array(_, let children)? = graph.node(a.fields["children"] ?? .null) else {
            Issue.record("children is not an array")
            return
        }
        #expect(children.count == 2 && children[0] == children[1], "[C, C] is one C twice")
        let c = try #require(object(children[0]))
        #expect(c.fields["next"] == .null && c.fields["shared"] == a.fields["shared"])

    }

    /// The DESIGN's JSON shape for swift-linux-cycle.bplist, exactly: shared and cyclic
    /// objects get `$id` at their first occurrence in document order (the archive's field
    /// order) and `$ref` later. Foundation wrote one empty NSArray for both B's and C's
    /// `children`, so that array is shared too (wrapped as `$id`/`$value`). The caller key
    /// `$dollarKey` is `$$dollarKey` in the archive and `$$$dollarKey` in JSON (one more `$`).
    @Test func linuxCycleJSONShape() throws {
        let json = try KeyedArchive.decodeGraph(KeyedFixtures.data("linux-corelibs/swift-linux-cycle.bplist")).jsonValue()
        let expected: PFValue = [
            "$class": "kt.Node", "$id": 1,
            "shared": ["$class": "kt.Tag", "$id": 2, "label": "shared-tag"],
            "children": [
                ["$class": "kt.Node", "$id": 3, "name": "C", "next": nil, "children": ["$id": 4, "$value": []],
                 "$$$dollarKey": 42, "shared": ["$ref": 2]],
                ["$ref": 3],
            ],
            "name": "A",
            "next": ["$class": "kt.Node", "$$$dollarKey": 42, "children": ["$ref": 4], "shared": ["$ref": 2], "next": ["$ref": 1], "name": "B"],
            "$$$dollarKey": 42,
        ]
        #expect(json == expected)
    }

    /// The XML and binary forms of the same archive decode to the same graph.
    @Test func xmlAndBinaryFormsAgree() throws {
        let binary = try KeyedArchive.decodeGraph(KeyedFixtures.data("linux-corelibs/swift-linux-cycle.bplist"))
        let xml = try KeyedArchive.decodeGraph(KeyedFixtures.data("linux-corelibs/swift-linux-cycle.xml"))
        // Field order differs (XML plists sort keys), so $id numbers differ: compare the
        // expanded trees; identity is checked per form in linuxCycleKeepsIdentity.
        #expect(try canonical(NSKANormaliser.normalise(binary.jsonValue())) == canonical(NSKANormaliser.normalise(xml.jsonValue())))
        let dpBinary = try KeyedArchive.decodeGraph(KeyedFixtures.data("dp-primitives.bplist"))
        let dpXML = try KeyedArchive.decodeGraph(KeyedFixtures.data("dp-primitives.xml"))
        #expect(try dpBinary.jsonValue().reorderedLike(dpXML.jsonValue()) == dpXML.jsonValue())
    }

    /// swift-linux-misc: values nska shows lossily (UUID as a string, NSNull as {}), exactly.
    @Test func linuxMiscValuesAreExact() throws {
        let json = try KeyedArchive.decodeGraph(KeyedFixtures.data("linux-corelibs/swift-linux-misc.bplist")).jsonValue()
        #expect(json["null"] == .null)
        #expect(json["big"] == .uint(UInt64.max))
        #expect(json["neg"] == .int(-1))
        #expect(json["unicode"] == "héllo ☃ 😀")
        #expect(json["data"] == .data(Data([0xDE, 0xAD, 0xBE, 0xEF])))
        #expect(json["date"] == .date(Date(timeIntervalSinceReferenceDate: 123_456_789.5)))
        #expect(json["uuid"]?["$class"] == "NSUUID")
        #expect(json["url"]?["NS.relative"] == "https://example.com/a?b=c")
        #expect(json["nested"]?["arr"] == [1, 2.5, 1, "x"])
    }

    /// The typed API reads Foundation values out of real archives.
    @Test func typedAPIReadsRealArchives() throws {
        let array = try KeyedUnarchiver.unarchivedObject(ofType: [String].self, from: KeyedFixtures.data("scf-ArrayTest.xml"))
        #expect(array == ["baa", "baa", "black", "sheep"])
        let uuid = try KeyedUnarchiver.unarchivedObject(ofType: UUID.self, from: KeyedFixtures.data("scf-UUIDTest.xml"))
        #expect(uuid.uuidString == "0AD863BA-7584-40CF-8896-BD87B3280C34")
        let url = try KeyedUnarchiver.unarchivedObject(ofType: URL.self, from: KeyedFixtures.data("scf-URLTest.xml"))
        #expect(url.absoluteString == "https://www.example.com/foo.xml")
        let set = try KeyedUnarchiver.unarchivedObject(ofType: Set<Int>.self, from: KeyedFixtures.data("scf-NSSet-Numbers.archive"))
        #expect(set == [1, 2, 3, 4, 5])
        let ordered = try KeyedUnarchiver.unarchivedObject(ofType: [Int].self, from: KeyedFixtures.data("scf-NSOrderedSet-Numbers.archive"))
        #expect(ordered == [1, 2, 3, 4, 5])
    }

    // MARK: - Negative fixtures

    @Test func negativeFixturesAreListed() {
        #expect(KeyedFixtures.negative.sorted() == ["bpylist2-neg-invalid_uid_archive.bplist", "dp-neg-missing_top.xml"])
    }

    @Test func missingTopIsAnError() throws {
        let error = expectPFError(.invalidValue) { _ = try KeyedArchive.decodeGraph(KeyedFixtures.data("dp-neg-missing_top.xml")) }
        #expect(error?.failure(as: KeyedArchiveFailure.self) == .noTop)
        #expect(error?.path == .root)
    }

    @Test func invalidUIDIsAnErrorNamingTheReference() throws {
        let error = expectPFError(.invalidValue) {
            _ = try KeyedArchive.decodeGraph(KeyedFixtures.data("bpylist2-neg-invalid_uid_archive.bplist"))
        }
        #expect(error?.failure(as: KeyedArchiveFailure.self) == .referenceOutOfRange(10, objects: 3), "\(String(describing: error))")
        #expect(error?.path == [.key("$top"), .key("root")])
    }
}

extension PFValue {
    /// This dictionary with its keys in `other`'s order (recursively), so an expected value
    /// written by hand compares by content; PFValue's `==` also compares key order.
    func reorderedLike(_ other: PFValue) -> PFValue {
        switch (self, other) {
        case (.dictionary(let mine), .dictionary(let theirs)) where Set(mine.keys) == Set(theirs.keys):
            var out = OrderedDictionary<String, PFValue>()
            for (key, value) in theirs { out[key] = mine[key]!.reorderedLike(value) }
            return .dictionary(out)
        case (.array(let mine), .array(let theirs)) where mine.count == theirs.count:
            return .array(zip(mine, theirs).map { $0.reorderedLike($1) })
        default: return self
        }
    }
}
