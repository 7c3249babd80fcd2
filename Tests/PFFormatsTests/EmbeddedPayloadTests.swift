import Foundation
import PFCBOR
import PFCompression
import PFCore
import PFFormats
import PFKeyedArchive
import PFPropertyList
import PFTestSupport
import PFTypedStream
import Testing

/// ``EmbeddedPayload``: payloads hidden in data are decoded wherever they sit, recursively,
/// under one shared budget; bytes that only claim to be a payload stay bytes with a note.
@Suite struct EmbeddedPayloadTests {
    /// Foundation's own NSKeyedArchiver (an independent writer): a dictionary of plain values.
    static func foundationDictionaryArchive() throws -> Data {
        let dictionary: NSDictionary = ["name": "inner", "count": NSNumber(value: 3), "tags": ["a", "b"] as NSArray]
        return try NSKeyedArchiver.archivedData(withRootObject: dictionary, requiringSecureCoding: false)
    }

    /// Foundation archiving `NSData` whose bytes are `payload` (the netusage shape).
    static func foundationDataArchive(_ payload: Data) throws -> Data {
        try NSKeyedArchiver.archivedData(withRootObject: NSData(data: payload), requiringSecureCoding: false)
    }

    static let innerDictionary: PFValue = ["name": "inner", "count": 3, "tags": ["a", "b"]]

    static func sameMembers(_ value: PFValue?, _ expected: PFValue) -> Bool {
        // NSDictionary does not keep key order; compare members.
        guard case .dictionary(let a)? = value, case .dictionary(let b) = expected else { return false }
        return a.count == b.count && b.allSatisfy { a[$0.key] == $0.value }
    }

    // MARK: - Kinds

    @Test func anArchiveInDataInAnArchiveIsDecodedThroughBothLevels() throws {
        let inner = try Self.foundationDictionaryArchive()
        let outer = try Self.foundationDataArchive(inner)
        let result = EmbeddedPayload.decode(outer)
        #expect(result.identification == EmbeddedPayload.Identification(kind: .keyedArchive, rootClass: "NSData"))
        guard case .decoded(let value) = result.outcome else {
            Issue.record("not decoded: \(result.outcome)")
            return
        }
        #expect(Self.sameMembers(value, Self.innerDictionary), "\(value)")
        #expect(result.notes.isEmpty)

        let flat = EmbeddedPayload.decode(outer, options: .init(recursive: false))
        if case .decoded(let value) = flat.outcome {
            #expect(value.testBytes == inner, "without recursion the inner archive stays bytes")
        } else {
            Issue.record("not decoded: \(flat.outcome)")
        }
    }

    @Test func aPropertyListInADataValueIsDecodedByFormatIO() throws {
        let xml = try PropertyListSerialization.data(fromPropertyList: ["k": "v", "n": 1], format: .xml, options: 0)
        let binary = try BinaryPlistWriter().write(["settings": .data(xml), "raw": .data(Data([1, 2, 3]))])
        let plain = try FormatIO.read(binary)
        #expect(plain.value["settings"] == .data(xml), "data stays bytes without decodePayloads")
        let decoded = try FormatIO.read(binary, options: .init(decodePayloads: true))
        #expect(Self.sameMembers(decoded.value["settings"], ["k": "v", "n": 1]))
        #expect(decoded.value["raw"] == .data(Data([1, 2, 3])), "bytes that are no payload are kept")
        #expect(decoded.payloadNotes.isEmpty)
    }

    @Test func aRealTypedstreamInDataIsDecodedAsTheTypedstreamReaderReadsIt() throws {
        let folder = Fixtures.repoRoot.appendingPathComponent(".venv/pytypedstream-sdist/pytypedstream-0.1.0/tests/data")
        let files = Fixtures.files(in: folder) { !$0.hasPrefix(".") }
        try #require(!files.isEmpty, "pytypedstream's real Apple typedstreams are missing: run scripts/setup.sh")
        for file in files {
            let stream = try Data(contentsOf: file)
            let expected = try TypedStream.decodeValue(stream)
            let archive = try KeyedArchive.archive(try KeyedGraph(json: ["file": .string(file.lastPathComponent), "body": .data(stream)]))
            let result = EmbeddedPayload.decode(archive)
            guard case .decoded(let value) = result.outcome else {
                Issue.record("\(file.lastPathComponent): \(result.outcome)")
                continue
            }
            // The stream's value, with the payloads in its own data values decoded too.
            #expect(value["body"] == EmbeddedPayload.expand(expected).value, "\(file.lastPathComponent)")
            #expect(value["file"] == .string(file.lastPathComponent))
            #expect(EmbeddedPayload.identify(stream).kind == .typedstream)
        }
    }

    @Test func gzipAndZlibAroundABinaryPlistAreUnwrapped() throws {
        let plist = try BinaryPlistWriter().write(["inside": "gzip", "list": [1, 2]])
        for format in [CompressionFormat.gzip, .zlib] {
            let wrapped = try Compression.compress(plist, as: format)
            let result = EmbeddedPayload.decode(wrapped)
            #expect(result.identification == EmbeddedPayload.Identification(kind: .bplist, compression: format))
            #expect(result.identification.description == "\(format.rawValue) bplist")
            #expect(result.value(or: wrapped) == ["inside": "gzip", "list": [1, 2]])
        }
        // gzip around bytes that are no payload (a Notes body holds protobuf): the original bytes stay.
        let protobuf = try Compression.compress(Data([0x0A, 0x06, 0x08, 0x00, 0x12, 0x02, 0x68, 0x69]), as: .gzip)
        #expect(EmbeddedPayload.decode(protobuf).outcome == .bytes)
    }

    @Test func jsonAndCBORPayloadsAreDecodedButOnlyStrictJSONContainers() throws {
        #expect(EmbeddedPayload.decode(Data(#"{"a":[1,2]}"#.utf8)).value(or: Data()) == ["a": [1, 2]])
        #expect(EmbeddedPayload.decode(Data(#"{"a":"#.utf8)).outcome == .bytes, "broken JSON is only a guess: silent")
        #expect(EmbeddedPayload.decode(Data("123".utf8)).outcome == .bytes, "a JSON scalar is not a payload")
        let cbor = Data([0xD9, 0xD9, 0xF7]) + (try CBORWriter().write(["c": 1]))
        #expect(EmbeddedPayload.decode(cbor).value(or: Data()) == ["c": 1])
        let uuid = Data((0..<16).map { UInt8($0) })
        #expect(EmbeddedPayload.decode(uuid).outcome == .bytes)
        #expect(EmbeddedPayload.identify(uuid).description == "bytes")
    }

    // MARK: - Hostile input

    @Test func aBlobThatClaimsToBeAnArchiveAndIsNotIsKeptAsBytesWithANote() throws {
        let garbage = Data("bplist00".utf8) + Data(repeating: 0xFF, count: 40)
        let result = EmbeddedPayload.decode(garbage)
        guard case .undecodable(let why) = result.outcome else {
            Issue.record("expected undecodable, got \(result.outcome)")
            return
        }
        #expect(why.contains("kept as bytes"))
        #expect(result.value(or: garbage) == .data(garbage))
        #expect(result.identification.description == "bytes (not a valid bplist)")

        // A well-formed property list that claims to be a keyed archive but references nothing.
        let fakeArchive = try BinaryPlistWriter().write([
            "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": .uid(99)], "$objects": ["$null"],
        ])
        let fake = EmbeddedPayload.decode(fakeArchive)
        #expect(fake.identification.claimed == .keyedArchive)
        if case .undecodable = fake.outcome {} else { Issue.record("expected undecodable, got \(fake.outcome)") }

        // Nested: the outer archive decodes, the fake inner one stays bytes, with its path.
        let outer = try KeyedArchive.archive(try KeyedGraph(json: ["ok": 1, "blob": .data(fakeArchive)]))
        let nested = EmbeddedPayload.decode(outer)
        #expect(nested.value(or: outer)["blob"] == .data(fakeArchive))
        #expect(nested.value(or: outer)["ok"] == 1)
        #expect(nested.notes.map(\.path) == [PFKeyPath([.key("blob")])])
    }

    /// `depth` archives, each the NSData root of the next, around a dictionary.
    static func chain(_ depth: Int) throws -> Data {
        var bytes = try KeyedArchive.archive(try KeyedGraph(json: ["bottom": true]))
        for _ in 0..<depth { bytes = try KeyedArchive.archive(try KeyedGraph(json: .data(bytes))) }
        return bytes
    }

    @Test func aChainDeeperThanTheDepthLimitStopsAtTheLimitWithANote() throws {
        let shallow = EmbeddedPayload.decode(try Self.chain(40))
        #expect(shallow.value(or: Data()) == ["bottom": true], "40 levels fit in the default budget")
        #expect(shallow.notes.isEmpty)

        var limits = PFLimits.default
        limits.maxDepth = 12
        let deep = try Self.chain(30)
        let result = EmbeddedPayload.decode(deep, options: .init(limits: limits))
        #expect(result.notes.count == 1)
        #expect(result.notes.first?.message.contains("maxDepth (12)") == true, "\(result.notes)")
        // Every level spends at least one of the 12: the value left is the bytes of an inner archive.
        let kept = result.value(or: deep)
        #expect(kept.testBytes != nil && kept.testBytes != deep)
    }

    @Test func nestedLevelsShareOneNodeAndByteBudget() throws {
        // The inner archive alone fits the node budget, but not after the outer value spent it.
        let inner = try KeyedArchive.archive(try KeyedGraph(json: .array((0..<40).map { .int($0) })))
        let outer = try KeyedArchive.archive(try KeyedGraph(json: .array((0..<40).map { _ in .int(7) } + [.data(inner)])))
        var limits = PFLimits.default
        // The smallest node budget the inner archive decodes in on its own.
        var low = 1
        var high = 10_000
        while low < high {
            let mid = (low + high) / 2
            limits.maxNodes = mid
            if case .decoded = EmbeddedPayload.decode(inner, options: .init(limits: limits)).outcome { high = mid } else { low = mid + 1 }
        }
        limits.maxNodes = low
        let alone = EmbeddedPayload.decode(inner, options: .init(limits: limits))
        #expect(alone.value(or: inner).arrayValue?.count == 40)
        limits.maxNodes = low + 30
        let result = EmbeddedPayload.decode(outer, options: .init(limits: limits))
        #expect(result.value(or: outer).arrayValue?.last == .data(inner), "the inner archive stays bytes")
        #expect(result.notes.count == 1)
        #expect(result.notes.first?.message.contains("maxNodes") == true, "\(result.notes)")

        // The byte budget is spent by every level: two copies of a payload cannot each use all of it.
        let payload = try BinaryPlistWriter().write(["x": .string(String(repeating: "y", count: 300))])
        let twice = try BinaryPlistWriter().write(["a": .data(payload), "b": .data(payload)])
        limits = .default
        limits.maxInputBytes = twice.count + payload.count + 10
        let (value, notes) = EmbeddedPayload.expand(try BinaryPlistReader().read(twice), options: .init(limits: limits), spentBytes: twice.count)
        #expect(value["a"]?["x"] != nil)
        #expect(value["b"] == .data(payload))
        #expect(notes.first?.message.contains("maxInputBytes") == true, "\(notes)")
    }

    @Test func aDecompressionBombInDataIsStoppedByTheSharedBudget() throws {
        let zeros = Data(count: 8 << 20)
        let bomb = try Compression.compress(try BinaryPlistWriter().write(["z": .data(zeros)]), as: .gzip)
        var limits = PFLimits.default
        limits.maxDecompressedBytes = 1 << 20
        let result = EmbeddedPayload.decode(bomb, options: .init(limits: limits))
        if case .undecodable(let why) = result.outcome {
            #expect(why.contains("gzip"))
        } else {
            Issue.record("expected the bomb to be kept as bytes, got \(result.identification)")
        }
    }

    @Test func everyHostileCorpusFileIsDecodedOrKeptNeverACrash() throws {
        var limits = PFLimits.default
        limits.maxDepth = 64
        limits.maxNodes = 200_000
        limits.maxDecompressedBytes = 4 << 20
        for file in Fixtures.files(in: Fixtures.hostile) where !file.lastPathComponent.hasSuffix(".md") {
            let bytes = try Data(contentsOf: file)
            let wrapped = try KeyedArchive.archive(try KeyedGraph(json: ["payload": .data(bytes)]))
            let result = EmbeddedPayload.decode(wrapped, options: .init(limits: limits))
            guard case .decoded(let value) = result.outcome else {
                Issue.record("\(file.lastPathComponent): the outer archive did not decode")
                continue
            }
            if value["payload"]?.testBytes != nil {
                #expect(value["payload"] == .data(bytes) || value["payload"]?.testBytes != nil)
            }
        }
    }
}

extension PFValue {
    /// The bytes of a data value.
    fileprivate var testBytes: Data? {
        if case .data(let bytes) = self { return bytes }
        return nil
    }
}
