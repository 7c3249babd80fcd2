import Foundation
import PFCompression
import PFCore
import PFKeyedArchive
import PFSerialization
import Testing

/// Keyed archives in JSON and CBOR containers. These need the real PFJSON and PFCBOR modules;
/// in the keyed branch they are stubs, so this suite is expected to fail there and pass after
/// the JSON and CBOR merges. The keyed branch runs `--filter` without it.
@Suite struct KeyedContainerTests {
    static let shape: PFValue = [
        "name": "x", "n": 3, "when": .date(Date(timeIntervalSinceReferenceDate: 12.5)), "bytes": .data(Data([1, 2])),
        "list": [true, 2.5, nil], "shared": ["$id": 1, "$value": ["k": "v"]], "again": ["$ref": 1],
        "obj": ["$class": "My.Thing", "$id": 2, "self": ["$ref": 2]],
    ]

    @Test(arguments: [KeyedArchiveContainer.json, .cbor])
    func graphRoundTripsAndContainerIsDetected(_ container: KeyedArchiveContainer) throws {
        let bytes = try KeyedArchive.archive(KeyedGraph(json: Self.shape), container: container)
        #expect(FormatDetector.container(bytes) == container)
        let (table, found) = try KeyedArchive.readTable(bytes)
        #expect(found == container)
        #expect(table.objects.first == "$null")
        #expect(try KeyedGraph(table: table).jsonValue() == Self.shape)
    }

    @Test(arguments: [KeyedArchiveContainer.json, .cbor])
    func typedAPIRoundTrips(_ container: KeyedArchiveContainer) throws {
        let a = Ring("a"), b = Ring("b")
        a.next = b; b.next = a
        defer { a.next = nil; b.next = nil }
        let data = try KeyedArchiver.archivedData(withRootObject: a, options: .init(container: container))
        let back = try KeyedUnarchiver.unarchivedObject(ofType: Ring.self, from: data, registry: ArchiveClassRegistry([Ring.self]))
        #expect(back.next?.next === back && back.next?.label == "b")
        back.next?.next = nil
    }

    @Test func jsonContainerSpellsUIDsAsCFUID() throws {
        let bytes = try KeyedArchive.archive(KeyedGraph(json: ["k": "v"]), container: .json)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("\"CF$UID\""))
        #expect(text.contains("\"NSKeyedArchiver\""))
    }

    @Test func compressedContainersAreRead() throws {
        let bytes = try KeyedArchive.archive(KeyedGraph(json: Self.shape), container: .json)
        let gz = try Compression.compress(bytes, as: .gzip)
        #expect(try KeyedArchive.decodeGraph(gz).jsonValue() == Self.shape)
    }
}

/// Bytes in no container a keyed archive is kept in are named, not read as CBOR (an old nib's
/// classes.nib read `--from keyed` said "CBOR: input exceeds maxStringBytes"; a malformed XML
/// file "CBOR: reserved additional information 28").
@Suite struct KeyedNoContainerTests {
    @Test func undetectedBytesAreNamedNotReadAsCBOR() throws {
        let cases: [(Data, String?)] = [
            (Data("{\n    IBClasses = ({CLASS = Controller; SUPERCLASS = NSObject; });\n}\n".utf8),
             "an old-style (OpenStep) property list or .strings file"),
            (Data("bplist15".utf8) + Data(repeating: 0, count: 40), "a binary property list of version 15"),
            (Data("<!DOCTYPE test \">\n<plist><dict/></plist>".utf8), nil),
        ]
        for (bytes, found) in cases {
            let error = #expect(throws: PFError.self) { try KeyedArchive.readTable(bytes) }
            #expect(error?.failure(as: KeyedArchiveFailure.self) == .noContainer(found: found))
            #expect(error?.message.hasPrefix(found ?? "bytes of no format pfarchive reads") == true, "\(String(describing: error))")
            #expect(error?.location?.offset == 0)
        }
    }
}
