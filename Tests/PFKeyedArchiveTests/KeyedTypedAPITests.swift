import Foundation
import PFCore
import PFKeyedArchive
import Testing

// MARK: - Test types

final class Person: ArchiveCoding {
    static let archiveClassName = "Person"
    var name: String
    var age: Int
    var friend: Person?
    var nickname: Person?

    init(name: String, age: Int, friend: Person? = nil) {
        self.name = name
        self.age = age
        self.friend = friend
    }

    func encode(with coder: KeyedArchiver) throws {
        try coder.encode(name, forKey: "name")
        coder.encode(age, forKey: "age")
        try coder.encode(friend, forKey: "friend")
    }

    init(from coder: KeyedUnarchiver) throws {
        name = try coder.decode(String.self, forKey: "name")
        age = try coder.decode(Int.self, forKey: "age")
        friend = try coder.decodeIfPresent(Person.self, forKey: "friend")
    }
}

/// Reads `age` as Int8, to check narrowing.
final class SmallPerson: ArchiveCoding {
    static let archiveClassName = "Person"
    var age: Int8
    func encode(with coder: KeyedArchiver) throws {}
    init(from coder: KeyedUnarchiver) throws { age = try coder.decode(Int8.self, forKey: "age") }
}

/// Reads `name` as an Int, to check type mismatches.
final class WrongPerson: ArchiveCoding {
    static let archiveClassName = "Person"
    init(from coder: KeyedUnarchiver) throws { _ = try coder.decode(Int.self, forKey: "name") }
    func encode(with coder: KeyedArchiver) throws {}
}

/// Writes whatever closure it is given, reads nothing: for checking archive layout.
struct Writer: ArchiveCoding {
    static let archiveClassName = "Writer"
    let write: (KeyedArchiver) throws -> Void
    init(_ write: @escaping (KeyedArchiver) throws -> Void) { self.write = write }
    func encode(with coder: KeyedArchiver) throws { try write(coder) }
    init(from coder: KeyedUnarchiver) throws { write = { _ in } }
}

/// A node with a back-edge decoded in phase two, and a hook that checks completeness.
final class Ring: ArchiveCoding {
    static let archiveClassName = "Ring"
    var label: String
    var next: Ring?
    var sawCompleteGraph = false

    init(_ label: String) { self.label = label }

    func encode(with coder: KeyedArchiver) throws {
        try coder.encode(label, forKey: "label")
        try coder.encode(next, forKey: "next")
    }

    init(from coder: KeyedUnarchiver) throws {
        label = try coder.decode(String.self, forKey: "label")
        try coder.decodeReference(Ring.self, forKey: "next") { [unowned self] in self.next = $0 }
    }

    func archiveDidDecode() throws {
        // Every deferred reference is assigned before any hook runs: walk the whole ring.
        var seen = 0
        var node = next
        while let current = node, current !== self, seen < 10 { node = current.next; seen += 1 }
        sawCompleteGraph = node === self
    }
}

/// A peer of another (`peer` decoded in phase two), as a nib's views point at each other.
final class Peer: ArchiveCoding {
    static let archiveClassName = "Peer"
    var name: String
    var peer: Peer?
    init(_ name: String) { self.name = name }
    func encode(with coder: KeyedArchiver) throws {
        try coder.encode(name, forKey: "name")
        try coder.encode(peer, forKey: "peer")
    }
    init(from coder: KeyedUnarchiver) throws {
        name = try coder.decode(String.self, forKey: "name")
        try coder.decodeReference(Peer.self, forKey: "peer") { [unowned self] in self.peer = $0 }
    }
}

/// Holds peers as value trees under one key (what codegen types a key of unrelated classes
/// as) and the first as its class under another.
final class PeerList: ArchiveCoding {
    static let archiveClassName = "PeerList"
    var items: [PFValue] = []
    var first: Peer?
    var peers: [Peer] = []
    init(peers: [Peer]) { self.peers = peers; first = peers.first }
    func encode(with coder: KeyedArchiver) throws {
        try coder.encode(peers, forKey: "items")
        try coder.encode(first, forKey: "first")
    }
    init(from coder: KeyedUnarchiver) throws {
        items = try coder.decodeIfPresent([PFValue].self, forKey: "items") ?? []
        try coder.decodeReference(Peer.self, forKey: "first") { [unowned self] in self.first = $0 }
    }
}

/// A node whose `next` is decoded eagerly: a cycle must fail cleanly.
final class EagerRing: ArchiveCoding {
    static let archiveClassName = "Ring"
    var next: EagerRing?
    func encode(with coder: KeyedArchiver) throws {}
    init(from coder: KeyedUnarchiver) throws { next = try coder.decodeIfPresent(EagerRing.self, forKey: "next") }
}

final class Holder: ArchiveCoding {
    static let archiveClassName = "Holder"
    var strong: Person?
    var weak: Person?
    var encodeStrongly = true

    init(strong: Person?, weak: Person?) {
        self.strong = strong
        self.weak = weak
    }

    func encode(with coder: KeyedArchiver) throws {
        if encodeStrongly { try coder.encode(strong, forKey: "strong") }
        coder.encodeConditional(weak, forKey: "weak")
    }

    init(from coder: KeyedUnarchiver) throws {
        strong = try coder.decodeIfPresent(Person.self, forKey: "strong")
        weak = try coder.decodeIfPresent(Person.self, forKey: "weak")
    }
}

/// A singly linked list node decoded with decodeReference, so a long list never nests.
final class Link: ArchiveCoding {
    static let archiveClassName = "Link"
    var value: Int
    var next: Link?
    init(_ value: Int) { self.value = value }
    func encode(with coder: KeyedArchiver) throws {
        coder.encode(value, forKey: "v")
        try coder.encode(next, forKey: "next")
    }
    init(from coder: KeyedUnarchiver) throws {
        value = try coder.decode(Int.self, forKey: "v")
        try coder.decodeReference(Link.self, forKey: "next") { [unowned self] in self.next = $0 }
    }
}

// MARK: - Tests

@Suite struct KeyedTypedAPITests {
    let registry = ArchiveClassRegistry([Person.self, Ring.self, Holder.self, Link.self])

    /// An object read first as a value tree (a list typed `[PFValue]`) and then as its class
    /// through a reference is one instance, and the peers pointing at each other finish: the
    /// instance was never cached over the tree, so each reference made a new one, forever (a
    /// generated model of a real nib grew to 20 GB).
    @Test func anObjectReadAsATreeThenAsItsClassIsOneInstance() throws {
        let a = Peer("a"), b = Peer("b")
        a.peer = b
        b.peer = a
        let data = try KeyedArchiver.archivedData(withRootObject: PeerList(peers: [a, b]))
        let back = try KeyedUnarchiver.unarchivedObject(
            ofType: PeerList.self, from: data, registry: ArchiveClassRegistry([Peer.self, PeerList.self]))
        #expect(back.items.count == 2)
        let first = try #require(back.first)
        #expect(first.name == "a" && first.peer?.name == "b")
        #expect(first.peer?.peer === first, "a reference to the first peer is the instance itself")
    }

    /// An archive whose root is a Person object with the given fields.
    func personArchive(_ fields: @escaping (KeyedArchiver) throws -> Void) throws -> Data {
        struct Fake: ArchiveCoding {
            static let archiveClassName = "Person"
            let fields: (KeyedArchiver) throws -> Void
            func encode(with coder: KeyedArchiver) throws { try fields(coder) }
            init(_ fields: @escaping (KeyedArchiver) throws -> Void) { self.fields = fields }
            init(from coder: KeyedUnarchiver) throws { fields = { _ in } }
        }
        return try KeyedArchiver.archivedData(withRootObject: Fake(fields))
    }

    @Test func roundTripsWithSharing() throws {
        let shared = Person(name: "S", age: 1)
        let root = Person(name: "R", age: 2, friend: shared)
        root.nickname = shared
        let holder = Holder(strong: root, weak: shared)
        let data = try KeyedArchiver.archivedData(withRootObject: holder)
        let back = try KeyedUnarchiver.unarchivedObject(ofType: Holder.self, from: data, registry: registry)
        #expect(back.strong?.name == "R" && back.strong?.age == 2)
        #expect(back.weak === back.strong?.friend, "the conditional object is the one encoded unconditionally")
    }

    @Test func missingKeyNamesTheKeyPath() throws {
        let data = try personArchive { try $0.encode("Ann", forKey: "name") }
        let error = expectPFError(.invalidValue) { _ = try KeyedUnarchiver.unarchivedObject(ofType: Person.self, from: data, registry: registry) }
        #expect(error?.failure(as: KeyedArchiveFailure.self) == .noValue(key: "age", type: "Int"), "\(String(describing: error))")
        #expect(error?.path == [.key("Person#1"), .key("age")])
    }

    @Test func typeMismatchNamesBothTypes() throws {
        let data = try personArchive { try $0.encode("Ann", forKey: "name") }
        let error = expectPFError(.invalidValue) {
            _ = try KeyedUnarchiver.unarchivedObject(ofType: WrongPerson.self, from: data, registry: ArchiveClassRegistry([WrongPerson.self]))
        }
        #expect(error?.failure(as: KeyedArchiveFailure.self) == .expected("Int", found: #"string("Ann")"#), "\(String(describing: error))")
        #expect(error?.path?.components.first == .key("Person#1"))
    }

    @Test func narrowingIsChecked() throws {
        let data = try personArchive { $0.encode(300, forKey: "age") }
        let error = expectPFError(.invalidValue) {
            _ = try KeyedUnarchiver.unarchivedObject(ofType: SmallPerson.self, from: data, registry: ArchiveClassRegistry([SmallPerson.self]))
        }
        #expect(error?.failure(as: KeyedArchiveFailure.self) == .expected("Int8 (-128...127, whole)", found: "int(300)"), "\(String(describing: error))")
        let fits = try personArchive { $0.encode(-128, forKey: "age") }
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: SmallPerson.self, from: fits, registry: ArchiveClassRegistry([SmallPerson.self])).age == -128)
    }

    @Test func conditionalObjectIsKeptOnlyIfEncodedUnconditionally() throws {
        let friend = Person(name: "F", age: 3)
        let alone = Holder(strong: nil, weak: friend)
        alone.encodeStrongly = false
        let data = try KeyedArchiver.archivedData(withRootObject: alone)
        let back = try KeyedUnarchiver.unarchivedObject(ofType: Holder.self, from: data, registry: registry)
        #expect(back.weak == nil)
        let table = try KeyedArchive.readTable(data).table
        #expect(!table.objects.contains(.string("F")), "the conditional object was not written")

        let both = Holder(strong: friend, weak: friend)
        let kept = try KeyedUnarchiver.unarchivedObject(ofType: Holder.self, from: KeyedArchiver.archivedData(withRootObject: both), registry: registry)
        #expect(kept.weak != nil && kept.weak === kept.strong)
    }

    @Test func dollarKeysAreEscapedAndGenericKeysAreNot() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Writer { coder in
            coder.encode(1, forKey: "$x")
            coder.encode(2, forKey: "plain")
            try coder.encode("first")
            try coder.encode("second")
        })
        let table = try KeyedArchive.readTable(data).table
        guard case .dictionary(let object) = table.objects[Int(table.top["root"]!)] else {
            Issue.record("root is not an object")
            return
        }
        #expect(object["$$x"] == 1 && object["$x"] == nil && object["plain"] == 2)
        #expect(object["$0"] != nil && object["$1"] != nil && object["$$0"] == nil)

        final class Reader: ArchiveCoding {
            static let archiveClassName = "Writer"
            var x = 0, first: String?, second: String?, third: String?
            func encode(with coder: KeyedArchiver) throws {}
            init(from coder: KeyedUnarchiver) throws {
                x = try coder.decode(Int.self, forKey: "$x")
                first = try coder.decodeNext(String.self)
                second = try coder.decodeNext(String.self)
                third = try coder.decodeNext(String.self)
            }
        }
        let back = try KeyedUnarchiver.unarchivedObject(ofType: Reader.self, from: data, registry: ArchiveClassRegistry([Reader.self]))
        #expect(back.x == 1 && back.first == "first" && back.second == "second" && back.third == nil)
        // In the JSON shape the archived key $$x gains one more $.
        #expect(try KeyedArchive.decodeGraph(data).jsonValue()["$$$x"] == 1)
    }

    @Test func cyclesDecodeInTwoPhasesAndHooksSeeTheWholeGraph() throws {
        let a = Ring("a"), b = Ring("b"), c = Ring("c")
        a.next = b; b.next = c; c.next = a
        let data = try KeyedArchiver.archivedData(withRootObject: a)
        let back = try KeyedUnarchiver.unarchivedObject(ofType: Ring.self, from: data, registry: registry)
        #expect(back.next?.next?.next === back)
        #expect(back.next?.label == "b" && back.next?.next?.label == "c")
        #expect(back.sawCompleteGraph && back.next!.sawCompleteGraph && back.next!.next!.sawCompleteGraph)
    }

    @Test func plainDecodeOfACycleSuggestsDecodeReference() throws {
        let a = Ring("a"), b = Ring("b")
        a.next = b; b.next = a
        let data = try KeyedArchiver.archivedData(withRootObject: a)
        let error = expectPFError(.invalidValue) {
            _ = try KeyedUnarchiver.unarchivedObject(ofType: EagerRing.self, from: data, registry: ArchiveClassRegistry([EagerRing.self]))
        }
        #expect(error?.failure(as: KeyedArchiveFailure.self) == .selfReference(index: 1, className: "Ring"), "\(String(describing: error))")
        #expect(error?.path?.components.last == .key("Ring#3"), "\(String(describing: error?.path))")
    }

    @Test func hundredThousandNodeListArchivesAndDecodes() throws {
        let head = Link(0)
        var tail = head
        for i in 1..<100_000 {
            let next = Link(i)
            tail.next = next
            tail = next
        }
        let data = try KeyedArchiver.archivedData(withRootObject: head)
        // Unlink iteratively so deinit does not recurse 100,000 deep.
        defer { var node: Link? = head; while let n = node { node = n.next; n.next = nil } }
        let back = try KeyedUnarchiver.unarchivedObject(ofType: Link.self, from: data, registry: registry)
        defer { var node: Link? = back; while let n = node { node = n.next; n.next = nil } }
        var count = 0
        var node: Link? = back
        var ordered = true
        while let n = node { ordered = ordered && n.value == count; count += 1; node = n.next }
        #expect(count == 100_000 && ordered)
        // The generic graph of the same archive is deeper than maxDepth: a clean limit error.
        expectPFError(.limitExceeded) { _ = try KeyedArchive.decodeGraph(data) }
    }

    @Test func unregisteredClassIsDisallowedAndNilRootIsAnError() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Person(name: "x", age: 1))
        let error = expectPFError(.disallowed) { _ = try KeyedUnarchiver.unarchivedObject(ofType: Person.self, from: data) }
        #expect(error?.path == [.key("$objects"), .index(1)])
        // An alias maps an archived name onto a registered type.
        var aliases = ArchiveClassRegistry()
        aliases.register(Person.self, as: "Old.Person")
        #expect(aliases.type(forClassName: "Old.Person") == Person.self)
    }

    @Test func foundationValuesRoundTrip() throws {
        struct Bag: ArchiveCoding {
            static let archiveClassName = "Bag"
            var values: [String: [Double]]
            var when: Date
            var id: UUID
            var link: URL
            var tags: Set<String>
            var bytes: Data
            var flag: Bool
            var big: UInt64
            init(values: [String: [Double]], when: Date, id: UUID, link: URL, tags: Set<String>, bytes: Data, flag: Bool, big: UInt64) {
                self.values = values; self.when = when; self.id = id; self.link = link; self.tags = tags; self.bytes = bytes; self.flag = flag; self.big = big
            }
            func encode(with coder: KeyedArchiver) throws {
                try coder.encode(values, forKey: "values"); try coder.encode(when, forKey: "when"); try coder.encode(id, forKey: "id")
                try coder.encode(link, forKey: "link"); try coder.encode(tags, forKey: "tags"); coder.encodeBytes(bytes, forKey: "bytes")
                coder.encode(flag, forKey: "flag"); coder.encode(big, forKey: "big")
            }
            init(from coder: KeyedUnarchiver) throws {
                values = try coder.decode([String: [Double]].self, forKey: "values"); when = try coder.decode(Date.self, forKey: "when")
                id = try coder.decode(UUID.self, forKey: "id"); link = try coder.decode(URL.self, forKey: "link")
                tags = try coder.decode(Set<String>.self, forKey: "tags"); bytes = try coder.decodeBytes(forKey: "bytes") ?? Data()
                flag = try coder.decode(Bool.self, forKey: "flag"); big = try coder.decode(UInt64.self, forKey: "big")
            }
        }
        let bag = Bag(values: ["a": [1, 2.5], "b": []], when: Date(timeIntervalSinceReferenceDate: 12.25), id: UUID(),
                      link: URL(string: "https://example.com/x?y=1")!, tags: ["p", "q"], bytes: Data([0, 255]), flag: true, big: .max)
        for container in [KeyedArchiveContainer.bplist, .xmlplist] {
            let data = try KeyedArchiver.archivedData(withRootObject: bag, options: .init(container: container))
            let back = try KeyedUnarchiver.unarchivedObject(ofType: Bag.self, from: data, registry: ArchiveClassRegistry([Bag.self]))
            #expect(back.values == bag.values && back.when == bag.when && back.id == bag.id && back.link == bag.link)
            #expect(back.tags == bag.tags && back.bytes == bag.bytes && back.flag && back.big == .max)
        }
    }
}
