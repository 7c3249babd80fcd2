import Foundation
import PFCBOR
import PFCore
import PFFormats
import PFKeyedArchive
import PFPropertyList
import PFSerialization
import PFTestSupport
import Testing

/// A keyed archive of a document of records is written a record at a time
/// (`RecordStream` to `.keyed`, ``KeyedArchiveStreamWriter``): its bytes differ from the
/// whole route's (the root comes last, scalars are shared up to a bound), and it reads back
/// to the same value — by pfarchive, by Foundation's NSKeyedUnarchiver and by nska-deserialize.
@Suite struct RecordStreamKeyedWriteTests {
    /// Streams `input` to a keyed archive in chunks of `size` bytes, the input's size known.
    static func streamed(_ input: Data, from: DataFormat, chunk size: Int = 1 << 20) throws(PFError) -> Data {
        var options = RecordStream.Options(from: from, to: .keyed)
        options.inputBytes = input.count
        return try RecordStreamTests.stream(input, options, chunk: size)
    }

    /// The archive's graph as the JSON `--from keyed` writes.
    static func decoded(_ archive: Data) throws(PFError) -> Data {
        try FormatIO.write(FormatIO.read(archive, options: .init(format: .keyed)).value, as: .json)
    }

    /// The streamed archive decodes to the whole route's value (or both fail alike), record
    /// by record too; with `peers`, Foundation and nska-deserialize read the two alike.
    static func check(_ input: Data, from: DataFormat, label: String, sizes: [Int] = [7, 1 << 20], peers: Bool = false) throws {
        let expected = Result { () throws(PFError) in try RecordStreamTests.whole(input, from: from, to: .keyed) }
        for size in sizes {
            let got = Result { () throws(PFError) in try Self.streamed(input, from: from, chunk: size) }
            switch (expected, got) {
            case (.success(let whole), .success(let archive)):
                #expect(archive.starts(with: Array("bplist00".utf8)), "\(label)")
                let a = try Self.decoded(whole)
                let b = try Self.decoded(archive)
                #expect(a == b, "\(label), chunks of \(size):\n\(String(decoding: a.prefix(600), as: UTF8.self))\n\(String(decoding: b.prefix(600), as: UTF8.self))")
                // The keyed archive → JSON stream reads its records too.
                if let records = try RecordStreamKeyedTests.streamed(archive, to: .json) {
                    #expect(records == a, "\(label): records read back one at a time")
                }
                if peers && size == sizes.last {
                    try Self.foundationReadsAlike(whole, archive, label: label)
                    try Self.pythonReadsAlike(whole, archive, label: label)
                }
            case (.failure(let e), .failure(let g)):
                #expect(e.code == g.code, "\(label): \(e) vs \(g)")
            default:
                Issue.record("\(label), chunks of \(size): whole \(expected), streamed \(got)")
            }
        }
    }

    /// Foundation's NSKeyedUnarchiver makes equal objects of the two archives.
    static func foundationReadsAlike(_ whole: Data, _ streamed: Data, label: String) throws {
        let classes: [AnyClass] = [
            NSArray.self, NSDictionary.self, NSString.self, NSNumber.self, NSDate.self, NSData.self, NSNull.self,
        ]
        let a = try NSKeyedUnarchiver.unarchivedObject(ofClasses: classes, from: whole) as? NSObject
        let b = try NSKeyedUnarchiver.unarchivedObject(ofClasses: classes, from: streamed) as? NSObject
        #expect(a != nil && b != nil && a?.isEqual(b) == true, "\(label): NSKeyedUnarchiver")
    }

    /// nska-deserialize (and plistlib under it) flattens the two archives to equal values.
    static func pythonReadsAlike(_ whole: Data, _ streamed: Data, label: String) throws {
        let script = """
            import sys, json, nska_deserialize
            a, b = (json.dumps(nska_deserialize.deserialize_plist(p), sort_keys=True, default=repr) for p in sys.argv[1:3])
            print('same' if a == b else 'different')
            """
        let python = try Self.python(script, whole, streamed)
        #expect(python.stdoutText == "same\n", "\(label): nska-deserialize \(python.stdoutText) \(python.stderr)")
    }

    /// Runs `script` with the paths of the two archives, written to a temporary directory.
    static func python(_ script: String, _ whole: Data, _ streamed: Data) throws -> Peers.Result {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pfarchive-keyed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (a, b) = (dir.appendingPathComponent("whole.archive"), dir.appendingPathComponent("streamed.archive"))
        try whole.write(to: a)
        try streamed.write(to: b)
        return try Peers.python(script, [a.path, b.path])
    }

    /// Records of every kind the keyed JSON form holds: every Parse type, `$class` objects
    /// (with chains and versions), `$id`/`$ref` within a record, Foundation collections
    /// spelled out, escaped keys, unicode keys, nulls, empty containers, scalars.
    static let quirkyJSON = #"""
        [{"objectId":"a1","n":1,"d":{"__type":"Date","iso":"2011-06-10T18:33:42.123Z"},"b":{"__type":"Bytes","base64":"AAE="},
          "p":{"__type":"Pointer","className":"_User","objectId":"u1"},"r":{"__type":"Relation","className":"Post"},
          "f":{"__type":"File","name":"a.png","url":"http://x/a.png"},"g":{"__type":"GeoPoint","latitude":1.5,"longitude":-2},
          "poly":{"__type":"Polygon","coordinates":[[0,0],[0,1],[1,1]]},"acl":{"*":{"read":true},"role:x":{"write":false}},
          "nested":{"x":[1,2.5,true,null,"s",[[[]]],{}],"$$dollar":"kept"},"empty":{},"none":[],"nul":null},
         {"objectId":"a2","n":1,"tags":["s","s"],"shared":{"$id":1,"$value":{"k":"v"}},"again":{"$ref":1},"ünï¢ødé 🔑":"ÿ"},
         {"obj":{"$class":"Thing","$classes":["Thing","Base","NSObject"],"$version":3,"$id":2,"me":{"$ref":2},"f":7,"when":{"__type":"Date","iso":"2011-06-10T18:33:42.123Z"}}},
         {"$class":"NSDictionary","NS.keys":[1,"two"],"NS.objects":["one",2]},
         {"$class":"NSSet","NS.objects":[1,2]},{"$class":"NSOrderedSet","NS.objects":["x","y"]},
         "a string record",17,-0.0,18446744073709551615,null,[],{},[[],[[]]],{"a":{"b":{"c":[null,{"d":"e"}]}}}]
        """#

    @Test func quirkyRecordsReadBackAsTheWholeRoutesArchive() throws {
        let array = Data(Self.quirkyJSON.utf8)
        try Self.check(array, from: .json, label: "quirky array", sizes: [3, 1 << 20])
        let records = try FormatIO.read(array, options: .init(format: .json)).value
        // The peers read the records without `Thing` (Foundation instantiates only its own
        // classes) and without sets (Foundation on Linux traps on a class it was not given).
        let foundationOnly = PFValue.array(
            records.arrayValue?.filter { $0["obj"] == nil && ($0["$class"] == nil || $0["$class"] == "NSDictionary") } ?? [])
        try Self.check(try FormatIO.write(foundationOnly, as: .json), from: .json, label: "quirky array", peers: true)
        let results = try FormatIO.write(["results": foundationOnly, "count": 10, "$$x": ["y": .null], "z": .date(Date(timeIntervalSinceReferenceDate: 5))], as: .json)
        try Self.check(results, from: .json, label: "results with members", peers: true)
        try Self.check(Data(#"{"results":[]}"#.utf8), from: .json, label: "empty results")
        try Self.check(Data("[]".utf8), from: .json, label: "empty array")
        try Self.check(try FormatIO.write(records, as: .jsonl), from: .jsonl, label: "jsonl")
        try Self.check(try FormatIO.write(records, as: .cborseq), from: .cborseq, label: "cborseq")
        try Self.check(try FormatIO.write(.array(RecordStreamTests.quirkyRecords), as: .json), from: .json, label: "stream quirks")
        // Bad records fail as the whole route fails, at the same path.
        try Self.check(Data(#"[{"a":1},{"b":{"$ref":9}}]"#.utf8), from: .json, label: "unknown $ref")
        #expect(throws: PFError.self) { try Self.streamed(Data(#"[{"a":1},{"b":{"$ref":9}}]"#.utf8), from: .json) }
        do {
            _ = try Self.streamed(Data(#"[{"a":1},{"b":{"$ref":9}}]"#.utf8), from: .json)
        } catch {
            #expect(error.path == PFKeyPath([.index(1), .key("b"), .key("$ref")]), "\(error)")
        }
        try Self.check(Data(#"[{"a":{"$class":7}}]"#.utf8), from: .json, label: "bad $class")
        try Self.check(Data(#"[{"a":{"$id":1,"$value":3}}]"#.utf8), from: .json, label: "bad $value")
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        try Self.check(Data("[\(deep)]".utf8), from: .json, label: "too deep")
    }

    /// The real Parse exports (Tests/Fixtures/real/parse, copies of ../shared/fixtures/parse).
    @Test func realExportsReadBackAsTheWholeRoutesArchive() throws {
        let exports = Fixtures.files(in: Fixtures.real.appendingPathComponent("parse")) { $0.hasSuffix(".json") }
        #expect(exports.count >= 3)
        for file in exports {
            let bytes = try Fixtures.data(file)
            guard !bytes.isEmpty else { continue }
            try Self.check(bytes, from: .json, label: file.lastPathComponent, sizes: [13, 1 << 20], peers: true)
        }
    }

    /// Past the sharing bound, equal scalars are written again under new UIDs; both kinds
    /// read back, and scalars met first stay shared (the archive is smaller than unshared).
    @Test func scalarsPastTheSharingBoundReadBack() throws {
        let count = KeyedArchiveStreamWriter.maxSharedScalars + 2_000
        var lines = ""
        lines.reserveCapacity(count * 40)
        for i in 0..<count { lines += "{\"k\":\"v\(i)\",\"v\":\"v\(i % 7)\",\"n\":\(i % 3),\"late\":\"w\(i % 5)\"}\n" }
        let input = Data(lines.utf8)
        let streamed = try Self.streamed(input, from: .jsonl)
        let whole = try RecordStreamTests.whole(input, from: .jsonl, to: .keyed)
        #expect(try Self.decoded(streamed) == Self.decoded(whole))
        try Self.foundationReadsAlike(whole, streamed, label: "past the bound")
        // Keys, class references and the recurring values (and their UIDs) are shared: per
        // record its dictionary, NS.keys, NS.objects, its unique string and two UIDs (unshared,
        // 4 keys and 4 values with a UID each and a class UID would add 17).
        #expect(try BinaryPlistReader.info(streamed).numObjects < count * 7)
    }

    /// Objects of equal contents — empty dictionaries and arrays, a record of shared keys
    /// and values — are each their own archive object (a UID in `$objects`), and those UIDs
    /// name one shared property-list object: the archive is a fraction of the whole route's,
    /// and pfarchive, Foundation, nska-deserialize and bpylist2 read as many distinct objects
    /// as the whole route's archive holds.
    @Test func equalObjectsShareTheirPropertyListObject() throws {
        var records: [String] = []
        for i in 0..<3_000 {
            records.append(["{}", "[]", #"{"a":{}}"#, #"[{},[]]"#, #"{"k":"v","n":1}"#, #"{"k":"v\#(i % 3)"}"#][i % 6])
        }
        let input = Data("[\(records.joined(separator: ","))]".utf8)
        let whole = try RecordStreamTests.whole(input, from: .json, to: .keyed)
        try Self.check(input, from: .json, label: "equal objects", sizes: [5, 1 << 20], peers: true)
        let streamed = try Self.streamed(input, from: .json)
        try Self.bpylist2ReadsAlike(whole, streamed, label: "equal objects")
        // Every record stays its own object: the JSON has no `$id`/`$ref` (as the whole route's).
        let json = try Self.decoded(streamed)
        #expect(!String(decoding: json, as: UTF8.self).contains("$ref"))
        // Per record: its UID in the records' NS.objects (one UID object); its objects share
        // their property-list objects after the first few records, except where a record
        // holds another object, whose UID is its own: `{"a":{}}` adds that UID, its
        // NS.objects and its dictionary (3), `[{},[]]` two UIDs, NS.objects, dictionary (4).
        let sixes = records.count / 6
        #expect(try BinaryPlistReader.info(streamed).numObjects < records.count + 7 * sixes + 100)
        #expect(streamed.count * 2 < whole.count)
        // `[{},{},…]`, the worst shape.
        let empties = Data("[\(Array(repeating: "{}", count: 5_000).joined(separator: ","))]".utf8)
        try Self.check(empties, from: .json, label: "empty objects", sizes: [1 << 20], peers: true)
        try Self.bpylist2ReadsAlike(
            try RecordStreamTests.whole(empties, from: .json, to: .keyed), try Self.streamed(empties, from: .json), label: "empty objects")
    }

    /// bpylist2 unarchives the two archives to equal values (it knows no NSNull: records
    /// without nulls only).
    static func bpylist2ReadsAlike(_ whole: Data, _ streamed: Data, label: String) throws {
        let script = """
            import sys, json
            from bpylist2 import archiver
            def load(p):
                with open(p, 'rb') as f:
                    return json.dumps(archiver.unarchive(f.read()), sort_keys=True, default=repr)
            a, b = (load(p) for p in sys.argv[1:3])
            print('same' if a == b else 'different', len(json.loads(a)))
            """
        let python = try Self.python(script, whole, streamed)
        #expect(python.stdoutText.hasPrefix("same "), "\(label): bpylist2 \(python.stdoutText) \(python.stderr)")
    }

    /// `$id`s shared between records cannot be archived one at a time: the stream declines
    /// (`doesNotStream`) and the caller converts whole.
    @Test func idsAcrossRecordsDecline() throws {
        for json in [#"[{"$id":1,"$value":[1]},{"$ref":1}]"#, #"[{"a":{"$id":1,"$value":[]}},{"b":{"$id":1,"$value":[]}}]"#,
                     #"{"results":[{"$id":4,"$value":{}}],"also":{"$ref":4}}"#] {
            do {
                _ = try Self.streamed(Data(json.utf8), from: .json)
                Issue.record("\(json) streamed")
            } catch {
                guard case .doesNotStream? = error.failure(as: FormatsFailure.self) else {
                    Issue.record("\(json): \(error)")
                    continue
                }
            }
        }
        // Needs the input's size; a JSON object that is not a results wrapper is read whole.
        #expect(!RecordStream.canStream(from: .jsonl, to: .keyed, pretty: false, start: Data("{}".utf8)))
        #expect(RecordStream.canStream(from: .jsonl, to: .keyed, pretty: false, start: Data("{}".utf8), inputBytes: 2))
        #expect(!RecordStream.canStream(from: .json, to: .keyed, pretty: false, start: Data("{\"a\":[]}".utf8), inputBytes: 9))
    }

    /// Documents of records (binary and XML property lists, CBOR) stream to a keyed archive too.
    @Test func documentsOfRecordsStreamToKeyedArchives() throws {
        let records = try FormatIO.read(Data(Self.quirkyJSON.utf8), options: .init(format: .json)).value
        let plain = PFValue.array(records.arrayValue?.filter { $0 != .null } ?? [])
        for format in [DataFormat.bplist, .cbor, .xmlplist] {
            for document in [plain, ["results": plain, "other": "x"]] {
                // Property lists hold no null: left out.
                let bytes = try FormatIO.write(document, as: format, options: .init(dropNulls: true))
                var options = RecordStream.Options(from: format, to: .keyed)
                options.inputBytes = bytes.count
                #expect(RecordStream.canStream(document: bytes, from: format, to: .keyed, pretty: false), "\(format)")
                var out = Data()
                try RecordStream.convert(options: options, document: bytes, write: { raw throws(PFError) in out.append(contentsOf: raw) })
                let whole = try RecordStreamTests.whole(bytes, from: format, to: .keyed)
                #expect(try Self.decoded(out) == Self.decoded(whole), "\(format)")
            }
        }
    }
}
