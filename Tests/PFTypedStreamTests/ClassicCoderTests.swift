import Foundation
import PFCore
import PFKeyedArchive
import PFTypedStream
import PropertyBased
import Testing

/// A graph node: a class, so identity, sharing and cycles are kept.
final class Node: ClassicArchiveCoding, ArchiveCoding {
    static let classicClassName = "Node"
    static let classicVersion = 3
    static let archiveClassName = "Node"
    var label: String
    var weight: Int32
    var children: [Node] = []
    var buddy: Node?

    init(label: String, weight: Int32) {
        self.label = label
        self.weight = weight
    }

    // Classic form: values in order; the buddy pointer may close a cycle, so it is deferred.
    func encode(with coder: ClassicArchiver) throws {
        precondition(!coder.allowsKeyedCoding, "The classic coder is never keyed.")
        try coder.encode(label)
        coder.encode(weight)
        try coder.encode(children)
        try coder.encode(buddy)
    }

    init(from coder: ClassicUnarchiver) throws {
        #expect(coder.allowsKeyedCoding == false)
        #expect(coder.version(forClassName: "Node") == 3)
        label = try coder.decode(String.self) ?? ""
        weight = try coder.decode(Int32.self)
        children = []
        // Children may be reached again through a cycle: resolve them once every object exists.
        try coder.decodeReference([Node].self) { [unowned self] in self.children = $0 ?? [] }
        try coder.decodeReference(Node.self) { [unowned self] in self.buddy = $0 }
    }

    // Keyed form of the same model.
    func encode(with coder: KeyedArchiver) throws {
        try coder.encode(label, forKey: "label")
        coder.encode(weight, forKey: "weight")
        try coder.encode(children, forKey: "children")
        try coder.encode(buddy, forKey: "buddy")
    }

    init(from coder: KeyedUnarchiver) throws {
        label = try coder.decode(String.self, forKey: "label")
        weight = Int32(try coder.decode(Int.self, forKey: "weight"))
        try coder.decodeReference([Node].self, forKey: "children") { [unowned self] in self.children = $0 ?? [] }
        try coder.decodeReference(Node.self, forKey: "buddy") { [unowned self] in self.buddy = $0 }
    }
}

/// A description of a graph that two graphs share exactly when they have the same shape,
/// labels and sharing: each node by its first-visit number.
func shape(of root: Node) -> [String] {
    var numbers: [ObjectIdentifier: Int] = [:]
    var out: [String] = []
    var stack = [root]
    while let node = stack.popLast() {
        let id = ObjectIdentifier(node)
        if numbers[id] != nil { continue }
        numbers[id] = numbers.count
        out.append("\(node.label)/\(node.weight)")
        stack.append(contentsOf: node.children.reversed())
        if let buddy = node.buddy { stack.append(buddy) }
    }
    // Edges by number, so sharing and cycles are part of the shape.
    var edges: [String] = []
    var seen = Set<ObjectIdentifier>()
    stack = [root]
    while let node = stack.popLast() {
        guard seen.insert(ObjectIdentifier(node)).inserted else { continue }
        let me = numbers[ObjectIdentifier(node)] ?? -1
        edges.append("\(me)->" + node.children.map { "\(numbers[ObjectIdentifier($0)] ?? -1)" }.joined(separator: ",")
            + "|" + (node.buddy.map { "\(numbers[ObjectIdentifier($0)] ?? -1)" } ?? "-"))
        stack.append(contentsOf: node.children.reversed())
        if let buddy = node.buddy { stack.append(buddy) }
    }
    return out + edges.sorted()
}

/// Random graphs: nodes with children and buddies picked among all nodes, so sharing and
/// cycles (including self-loops) are common.
enum GraphGen {
    static func graph() -> Generator<Node, Shrink.None<Node>> {
        Generator(run: { rng in
            let count = Int.random(in: 1...12, using: &rng)
            let nodes = (0..<count).map { Node(label: "n\($0)\(Bool.random(using: &rng) ? "é" : "")", weight: Int32.random(in: -300...300, using: &rng)) }
            for node in nodes {
                for _ in 0..<Int.random(in: 0...3, using: &rng) { node.children.append(nodes[Int.random(in: 0..<count, using: &rng)]) }
                if Bool.random(using: &rng) { node.buddy = nodes[Int.random(in: 0..<count, using: &rng)] }
            }
            return nodes[0]
        })
    }
}

@Suite struct ClassicCoderTests {
    static let registry = ClassicClassRegistry([Node.self])

    @Test func randomGraphsWithSharingAndCyclesRoundTrip() async {
        await propertyCheck(count: 100, input: GraphGen.graph()) { root in
            let data = try ClassicArchiver.archivedData(withRootObject: root)
            let back = try ClassicUnarchiver.unarchivedObject(ofType: Node.self, from: data, registry: Self.registry)
            #expect(shape(of: back) == shape(of: root))
        }
    }

    @Test func selfCycleKeepsIdentity() throws {
        let node = Node(label: "loop", weight: 1)
        node.buddy = node
        node.children = [node, node]
        let data = try ClassicArchiver.archivedData(withRootObject: node)
        let back = try ClassicUnarchiver.unarchivedObject(ofType: Node.self, from: data, registry: Self.registry)
        #expect(back.buddy === back)
        #expect(back.children.count == 2 && back.children.allSatisfy { $0 === back })
        // The generic decode shows the cycle with $id/$ref.
        let tree = try TypedStream.decodeValue(data)
        #expect(tree["$id"] == .int(1))
        #expect(tree["$class"] == .string("Node"))
        #expect(tree["$version"] == .int(3))
    }

    @Test func treesDecodedApartKeepTheirOwnObjectsWhenWrittenTogether() throws {
        // Two streams, each with a shared object: decoded one by one, both number it `$id` 1.
        let a = Node(label: "a", weight: 1)
        a.buddy = a
        let b = Node(label: "b", weight: 2)
        b.buddy = b
        let treeA = try TypedStream.decodeValue(try ClassicArchiver.archivedData(withRootObject: a))
        let treeB = try TypedStream.decodeValue(try ClassicArchiver.archivedData(withRootObject: b))
        #expect(treeA["$id"] == .int(1) && treeB["$id"] == .int(1))
        // Written together, b stays b: an `$id` met again with other contents is another object.
        let both = try TypedStream.decodeValue(try TypedStream.encodeValue(.array([treeA, treeB])))
        let labels = both.arrayValue?.map { "\($0)".contains("\"b\"") }
        #expect(labels == [false, true])
    }

    @Test func oneModelArchivesKeyedAndClassic() throws {
        let a = Node(label: "a", weight: 7)
        let b = Node(label: "b", weight: -2)
        a.children = [b, b]
        b.buddy = a
        let classic = try ClassicArchiver.archivedData(withRootObject: a)
        let keyed = try KeyedArchiver.archivedData(withRootObject: a)
        #expect(TypedStream.hasMagic(classic))
        #expect(!TypedStream.hasMagic(keyed))
        let fromClassic = try ClassicUnarchiver.unarchivedObject(ofType: Node.self, from: classic, registry: Self.registry)
        let fromKeyed = try KeyedUnarchiver.unarchivedObject(ofType: Node.self, from: keyed, registry: ArchiveClassRegistry([Node.self]))
        #expect(shape(of: fromClassic) == shape(of: a))
        #expect(shape(of: fromKeyed) == shape(of: a))
    }

    @Test func unregisteredClassIsDisallowedAndNothingIsInstantiated() throws {
        let data = try ClassicArchiver.archivedData(withRootObject: Node(label: "x", weight: 1))
        #expect {
            _ = try ClassicUnarchiver.unarchivedObject(ofType: Node.self, from: data)
        } throws: { error in
            (error as? PFError)?.code == .disallowed && (error as? PFError)?.location?.offset == 19
        }
        // The generic decode needs no registry: it instantiates nothing.
        let tree = try TypedStream.decodeValue(data)
        #expect(tree["$class"] == .string("Node"))
    }

    @Test func wrongTypeNamesExpectedAndFound() throws {
        let data = try ClassicArchiver.archivedData(withRootObject: "text")
        #expect {
            _ = try ClassicUnarchiver.unarchivedObject(ofType: Int.self, from: data)
        } throws: { error in
            guard let e = error as? PFError else { return false }
            return e.failure(as: TypedStreamFailure.self) == .objectClass(expected: ["NSNumber"], found: "NSString", index: 0)
                && e.location?.offset == 19
        }
    }

    @Test func scalarsOfEveryWidthRoundTrip() throws {
        final class Scalars: ClassicArchiveCoding {
            static let classicClassName = "Scalars"
            var values: [String] = []
            init() {}
            func encode(with coder: ClassicArchiver) throws {
                coder.encode(Int8(-5)); coder.encode(UInt8(250)); coder.encode(Int16(-30000)); coder.encode(UInt16(65000))
                coder.encode(Int32.min); coder.encode(UInt32.max); coder.encode(Int64.min); coder.encode(UInt64.max)
                coder.encode(Float(1.5)); coder.encode(-0.0); coder.encode(true)
                coder.encodeBytes(Data([0, 1, 2])); try coder.encodeDataObject(Data([9, 8])); try coder.encodeCString("sel")
                try coder.encodeValues(ofTypes: [.int32, .uint32], [.int(-1), .uint(2)])
                try coder.encodeValue(ofType: TypeEncoding.parse("{CGSize=dd}"), .structure(name: "CGSize", fields: [.double(1.25), .double(2)]))
            }
            init(from coder: ClassicUnarchiver) throws {
                values = [
                    "\(try coder.decode(Int8.self))", "\(try coder.decode(UInt8.self))", "\(try coder.decode(Int16.self))",
                    "\(try coder.decode(UInt16.self))", "\(try coder.decode(Int32.self))", "\(try coder.decode(UInt32.self))",
                    "\(try coder.decode(Int64.self))", "\(try coder.decode(UInt64.self))", "\(try coder.decode(Float.self))",
                    "\(try coder.decode(Double.self).sign)", "\(try coder.decode(Bool.self))",
                    "\(try coder.decodeBytes().map(Array.init) ?? [])", "\(Array(try coder.decodeDataObject()))",
                    "\(try coder.decodeCString() ?? "")", "\(try coder.decodeValues(ofTypes: [.int32, .uint32]))",
                    "\(try coder.decodeValue(ofType: TypeEncoding.parse("{CGSize=dd}")))",
                ]
            }
        }
        let data = try ClassicArchiver.archivedData(withRootObject: Scalars())
        let back = try ClassicUnarchiver.unarchivedObject(ofType: Scalars.self, from: data, registry: ClassicClassRegistry([Scalars.self]))
        #expect(back.values == [
            "-5", "250", "-30000", "65000", "\(Int32.min)", "\(UInt32.max)", "\(Int64.min)", "\(UInt64.max)", "1.5", "minus", "true",
            "[0, 1, 2]", "[9, 8]", "sel", "[PFTypedStream.TypedStreamValue.int(-1), PFTypedStream.TypedStreamValue.uint(2)]",
            "structure(name: Optional(\"CGSize\"), fields: [PFTypedStream.TypedStreamValue.double(1.25), PFTypedStream.TypedStreamValue.double(2.0)])",
        ])
    }

    /// A stream with class values (`#`) and groups of several values, objects among them
    /// (`@@#`, `@i`), as Apple's Grapher documents and color lists hold them.
    static func classValuesAndGroups() throws -> Data {
        let archiver = ClassicArchiver()
        let node = Node(label: "a", weight: 1)
        try archiver.encodeGroup([.object(node), .object(node), .value(.classValue, .classChain(Self.viewChain))])
        try archiver.encodeGroup([.object(nil), .value(.int32, .int(752))])
        try archiver.encodeValue(ofType: .classValue, .classChain(Self.viewChain))
        try archiver.encodeValue(ofType: .classValue, .null)
        return archiver.encodedData
    }

    static let viewChain = [ClassicClassVersion("GView2D", version: 2), ClassicClassVersion("GView", version: 1), ClassicClassVersion("NSObject")]

    /// The unarchiver hands a class value out as its chain (an index into the stream's table
    /// would mean nothing in another stream), the archiver writes it back, a class already
    /// in the stream as a back-reference, and a group of several values stays one group.
    @Test func classValuesAndGroupsOfSeveralValuesRoundTrip() throws {
        let document = try TypedStream.readDocument(try Self.classValuesAndGroups())
        #expect(document.roots.map(\.encodingString) == ["@@#", "@i", "#", "#"])
        // Each class once (a node holds an NSString and an NSArray): NSObject after Node, and the
        // whole view chain the second time, are references.
        let classes = document.entries.compactMap { entry -> String? in if case .class(let c) = entry { "\(c.name) v\(c.version)" } else { nil } }
        #expect(classes == ["Node v3", "NSObject v0", "NSString v1", "NSArray v0", "GView2D v2", "GView v1"])
        let unarchiver = ClassicUnarchiver(document: document, registry: ClassicClassRegistry([Node.self]))
        let first = try unarchiver.decodeNextGroup()
        #expect(first.values.count == 3 && first.values[0] == first.values[1], "the node is written once and shared")
        #expect(first.values.last == .classChain(Self.viewChain))
        #expect(try unarchiver.decodeValues(ofTypes: [.object, .int32]) == [.null, .int(752)])
        #expect(try unarchiver.decodeValue(ofType: .classValue) == .classChain(Self.viewChain))
        #expect(try unarchiver.decodeValue(ofType: .classValue) == .null)

        // Written again from what the unarchiver handed out: the same stream.
        let again = ClassicArchiver()
        let reread = ClassicUnarchiver(document: document, registry: ClassicClassRegistry([Node.self]))
        while reread.hasMoreValues {
            let group = try reread.decodeNextGroup()
            var values: [ClassicGroupValue] = []
            for (encoding, value) in zip(group.encodings, group.values) {
                if encoding == .object, case .object(let index) = value {
                    values.append(.object(try reread.decodeObject(Node.self, at: index)))
                } else {
                    values.append(encoding == .object ? .object(nil) : .value(encoding, value))
                }
            }
            try again.encodeGroup(values)
        }
        #expect(again.encodedData == (try Self.classValuesAndGroups()))

        // A class value still an index into another stream's table cannot be written.
        #expect {
            try ClassicArchiver().encodeValue(ofType: .classValue, .class(2))
        } throws: { error in
            (error as? PFError)?.failure(as: TypedStreamFailure.self) == .valueType(value: "class(2)", type: "#")
        }
    }

    /// A group read detached holds its objects as value trees, not as indices into the
    /// stream's table (which `encodeValues` refuses: "value object(1) does not fit type @"),
    /// so it is written into a new stream as it was: the same graph, the shared node once.
    @Test func detachedGroupWithObjectsWritesBack() throws {
        let data = try Self.classValuesAndGroups()
        let unarchiver = ClassicUnarchiver(document: try TypedStream.readDocument(data))
        let again = ClassicArchiver()
        while unarchiver.hasMoreValues {
            let group = try unarchiver.decodeDetachedGroup()
            #expect(!group.values.contains { if case .object = $0 { true } else { false } })
            try again.encodeValues(ofTypes: group.encodings, group.values)
        }
        #expect(try TypedStream.decodeValue(again.encodedData) == (try TypedStream.decodeValue(data)))
        let first = try ClassicUnarchiver(document: try TypedStream.readDocument(data)).decodeDetachedGroup()
        guard case .tree(.dictionary(let node)) = first.values[0] else { Issue.record("\(first.values[0])"); return }
        #expect(node["$class"] == .string("Node") && node["$id"] != nil, "shared in its stream: carries its $id")
        #expect(first.values[1] == first.values[0], "each tree whole; the archiver writes the node once by its $id")
    }

    @Test func readerMustConsumeWhatTheWriterWrote() throws {
        final class Lazy: ClassicArchiveCoding {
            static let classicClassName = "Node"
            init() {}
            func encode(with coder: ClassicArchiver) throws {}
            init(from coder: ClassicUnarchiver) throws { _ = try coder.decode(String.self) }
        }
        let data = try ClassicArchiver.archivedData(withRootObject: Node(label: "x", weight: 1))
        #expect {
            _ = try ClassicUnarchiver.unarchivedObject(ofType: Lazy.self, from: data, registry: ClassicClassRegistry([Lazy.self]))
        } throws: { error in
            (error as? PFError)?.failure(as: TypedStreamFailure.self) == .unconsumedGroups(className: "Node", read: 1, total: 4)
        }
    }

    @Test func foundationValuesThroughTheCoder() throws {
        let url = try #require(URL(string: "https://example.com/a?b=1"))
        #expect(try ClassicUnarchiver.unarchivedObject(ofType: URL.self, from: ClassicArchiver.archivedData(withRootObject: url)) == url)
        let date = Date(timeIntervalSinceReferenceDate: 700_000_000.523)
        #expect(try ClassicUnarchiver.unarchivedObject(ofType: Date.self, from: ClassicArchiver.archivedData(withRootObject: date)) == date)
        let dict = ["a": [1, 2, 3], "b": []]
        #expect(try ClassicUnarchiver.unarchivedObject(ofType: [String: [Int]].self, from: ClassicArchiver.archivedData(withRootObject: dict)) == dict)
        let value = ClassicValue(type: try TypeEncoding.parse("{_NSRange=QQ}"), value: .structure(name: "_NSRange", fields: [.uint(3), .uint(4)]))
        #expect(try ClassicUnarchiver.unarchivedObject(ofType: ClassicValue.self, from: ClassicArchiver.archivedData(withRootObject: value)) == value)
        #expect(try ClassicUnarchiver.unarchivedObject(ofType: ClassicNull.self, from: ClassicArchiver.archivedData(withRootObject: ClassicNull())) == ClassicNull())
    }

    @Test func attributedStringRoundTripsAndDecodesNaturally() throws {
        let attributed = ClassicAttributedString<[String: String]>(
            string: "Hi 👋 there",
            runs: [.init(length: 3, attributes: ["font": "Bold"]), .init(length: 2, attributes: [:]), .init(length: 6, attributes: ["link": "x"])],
            mutable: true)
        let data = try ClassicArchiver.archivedData(withRootObject: attributed)
        let back = try ClassicUnarchiver.unarchivedObject(ofType: ClassicAttributedString<[String: String]>.self, from: data)
        #expect(back.string == attributed.string && back.mutable)
        #expect(back.runs.map(\.length) == [3, 2, 6])
        #expect(back.runs.map(\.attributes) == [["font": "Bold"], [:], ["link": "x"]])
        let tree = try TypedStream.decodeValue(data)
        #expect(tree["$class"] == .string("NSMutableAttributedString"))
        #expect(tree["string"] == .string("Hi 👋 there"))
        #expect(tree["runs"] == [["length": 3, "attributes": ["font": "Bold"]], ["length": 2, "attributes": [:]], ["length": 6, "attributes": ["link": "x"]]])
    }
}
