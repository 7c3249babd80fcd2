import Foundation
import PFCore
import PFTestSupport
import PFTypedStream
import Testing

/// ``ClassicExactValue`` and ``ClassicArray``: Foundation objects read from a typedstream are
/// written back as the same classes and number encodings, byte for byte, where a ``PFValue``
/// tree writes `NSArray`/`NSDictionary`/`NSString` and `q`/`d` NSNumbers.
@Suite struct ClassicExactValueTests {
    static let object = ClassicClassVersion("NSObject")
    static let number = [ClassicClassVersion("NSNumber"), ClassicClassVersion("NSValue"), object]

    /// A stream NSArchiver could have written: an `NSMutableDictionary` whose values are an
    /// `NSMutableArray` of NSNumbers of every width (`i f s c q d`, a `c` that is not a
    /// boolean, a `Q`), an `NSMutableString`, an `NSMutableData`, an `NSSet` and an
    /// `NSDictionary` (which the tree keeps natural), one NSNumber shared by two entries.
    static func mutableStream() throws -> Data {
        let archiver = ClassicArchiver()
        func write(_ type: TypeEncoding, _ value: TypedStreamValue, _ a: ClassicArchiver) throws {
            try a.writeObject(chain: number) { n in
                try n.encodeCString(type.description)
                try n.encodeValue(ofType: type, value)
            }
        }
        final class Shared {}
        let shared = Shared()
        let dictionary = [ClassicClassVersion("NSMutableDictionary"), ClassicClassVersion("NSDictionary"), object]
        try archiver.encodeGroup([.object(Raw { a in
            try a.writeObject(chain: dictionary) { d in
                d.encode(Int32(6))
                try d.encode("numbers")
                try d.encodeGroup([.object(Raw { a in
                    try a.writeObject(chain: [ClassicClassVersion("NSMutableArray"), ClassicClassVersion("NSArray"), object]) { list in
                        let numbers: [(TypeEncoding, TypedStreamValue)] = [
                            (.int32, .int(-7)), (.float, .float(1.5)), (.scalar(UInt8(ascii: "s")), .int(300)), (.char, .int(1)),
                            (.char, .int(65)), (.int64, .int(1 << 40)), (.double, .double(0.1)), (.uint64, .uint(3)),
                        ]
                        list.encode(Int32(numbers.count + 1))
                        for (type, value) in numbers { try list.encodeGroup([.object(Raw { try write(type, value, $0) })]) }
                        try list.encodeGroup([.object(Raw { a in try a.writeObject(chain: number, identity: shared) { n in
                            try n.encodeCString("i")
                            try n.encodeValue(ofType: .int32, .int(42))
                        } })])
                    }
                })])
                try d.encode("name")
                try d.encodeGroup([.object(Raw { a in
                    try a.writeObject(chain: [ClassicClassVersion("NSMutableString", version: 1), ClassicClassVersion("NSString", version: 1), object]) {
                        $0.encodeBytes(Data("Grapher".utf8))
                    }
                })])
                try d.encode("bytes")
                try d.encodeGroup([.object(Raw { a in
                    try a.writeObject(chain: [ClassicClassVersion("NSMutableData"), ClassicClassVersion("NSData"), object]) {
                        try $0.encodeDataObject(Data([1, 2, 3]))
                    }
                })])
                try d.encode("set")
                try d.encodeGroup([.object(Raw { a in
                    try a.writeObject(chain: [ClassicClassVersion("NSSet"), object]) { s in
                        s.encode(UInt32(1))
                        try s.encode("member")
                    }
                })])
                try d.encode("plain")
                try d.encode(["q": 5] as [String: Int64])
                try d.encode("again")
                try d.encodeGroup([.object(Raw { a in try a.writeObject(chain: number, identity: shared) { _ in } })])
            }
        })])
        return archiver.encodedData
    }

    /// Writes what its closure writes, as one object.
    struct Raw: ClassicRepresentable {
        let write: (ClassicArchiver) throws -> Void
        init(_ write: @escaping (ClassicArchiver) throws -> Void) { self.write = write }
        func classicWrite(to archiver: ClassicArchiver) throws { try write(archiver) }
        static func classicRead(from unarchiver: ClassicUnarchiver, objectAt index: Int) throws -> Raw {
            throw PFError(.usage, format: .typedstream, "write only")
        }
    }

    /// Decoded as a ``ClassicExactValue`` and encoded again, the stream is the same bytes:
    /// every mutable class, every NSNumber encoding and the shared NSNumber are kept. A
    /// ``PFValue`` read the same way writes other bytes (the test can fail).
    @Test func mutableClassesAndNumberWidthsRoundTripByteForByte() throws {
        let data = try Self.mutableStream()
        let exact = try ClassicUnarchiver.unarchivedObject(ofType: ClassicExactValue.self, from: data)
        #expect(try ClassicArchiver.archivedData(withRootObject: exact) == data)
        let tree = try ClassicUnarchiver.unarchivedObject(ofType: PFValue.self, from: data)
        #expect(try ClassicArchiver.archivedData(withRootObject: tree) != data, "a PFValue tree loses the classes")
        // The exact tree is the generic form where the natural one would be written back
        // differently, and reads back (natural) as the same graph as the original.
        guard case .dictionary(let root) = exact.tree else { Issue.record("\(exact.tree)"); return }
        #expect(root["$class"] == "NSMutableDictionary")
        #expect(try TypedStream.decodeValue(TypedStream.encodeValue(exact.tree)) == TypedStream.decodeValue(data))
        #expect(try TypedStream.encodeValue(exact.tree) == data)
    }

    /// An NSNumber kept natural is one the tree writes back as it was: `q`, `d`, a `c` 0 or 1.
    @Test func numbersTheTreeWritesBackStayNatural() throws {
        let archiver = ClassicArchiver()
        try archiver.encode([5, 2.5, true] as [PFValue])
        let exact = try ClassicUnarchiver.unarchivedObject(ofType: ClassicExactValue.self, from: archiver.encodedData)
        // The root read from its unarchiver carries its table `$id`, as `PFValue.classicRead` gives it.
        #expect(exact.tree["$value"] == [5, 2.5, true])
        #expect(try ClassicArchiver.archivedData(withRootObject: exact) == archiver.encodedData)
    }

    /// A ``ClassicArray`` keeps `NSMutableArray` (and a set's `I` count); a Swift `Array`
    /// writes `NSArray`.
    @Test func classicArrayKeepsItsClass() throws {
        let mutable = ClassicArray(["a", "b"], classChain: [ClassicClassVersion("NSMutableArray"), ClassicClassVersion("NSArray"), Self.object])
        let data = try ClassicArchiver.archivedData(withRootObject: mutable)
        let back = try ClassicUnarchiver.unarchivedObject(ofType: ClassicArray<String>.self, from: data)
        #expect(back == mutable)
        #expect(try ClassicArchiver.archivedData(withRootObject: back) == data)
        #expect(try ClassicArchiver.archivedData(withRootObject: back.elements) != data)
        #expect(try TypedStream.info(data).classChains.contains { $0.first?.name == "NSMutableArray" })
        let set = ClassicArray(["x"], classChain: [ClassicClassVersion("NSSet"), Self.object])
        let setData = try ClassicArchiver.archivedData(withRootObject: set)
        #expect(try ClassicUnarchiver.unarchivedObject(ofType: ClassicArray<String>.self, from: setData) == set)
        #expect(try TypedStream.decodeValue(setData) == ["x"])
        let literal: ClassicArray<String> = ["y"]
        #expect(literal.classChain.first?.name == "NSArray")
    }

    /// A real Apple Grapher document read from its root as a ``ClassicExactValue`` and
    /// written again reads back, with pfarchive, as the same graph; its Foundation objects
    /// keep their classes (the root is an `NSMutableDictionary`).
    @Test(arguments: ["Empty2D macOS 10.14.gcx", "Empty2D macOS 13.gcx"])
    func appleGrapherDocumentRoundTrips(_ name: String) throws {
        let url = PeerTests.sdistData.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            Issue.record("pytypedstream's real sample \(name) is missing: run scripts/setup.sh")
            return
        }
        let data = try Data(contentsOf: url)
        let exact = try ClassicUnarchiver.unarchivedObject(ofType: ClassicExactValue.self, from: data)
        let again = try ClassicArchiver.archivedData(withRootObject: exact)
        #expect(try TypedStream.decodeValue(again) == TypedStream.decodeValue(data))
        #expect(try TypedStream.info(again).classChains.contains { $0.first?.name == "NSMutableDictionary" })
        #expect(again == data, "\(again.count) bytes written, \(data.count) read")
    }
}
