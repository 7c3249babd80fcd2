import Foundation
import PFCore
import PFFormats
import PFKeyedArchive
import PFSerialization
import PFTypedStream
import PFTestSupport
import Testing

/// A document that is not a sequence of records (`{"data":[…],"n":1,"meta":…}`) is archived
/// to a keyed archive by its large containers (``PFKeyedArchive/KeyedArchiveStreamWriter``'s
/// `openContainer`/`appendValue`/`closeContainer`), never as a tree, graph or table (issue 23:
/// the whole route held 36× the input). Like the archive of records, its layout is the
/// stream writer's and it reads back to the whole route's value — by pfarchive, Foundation's
/// NSKeyedUnarchiver and nska-deserialize; a large container that is one of the keyed JSON
/// form's markers, or `$id`s shared between pieces, send the document to the whole route.
@Suite struct RecordStreamLargeKeyedTests {
    /// The walk's archive, or `nil` when it leaves the document to the whole route.
    static func walked(_ input: Data, from: DataFormat, threshold: Int, limits: PFLimits = .default) throws(PFError) -> Data? {
        var options = RecordStream.Options(from: from, to: .keyed, limits: limits)
        options.inputBytes = input.count
        var out = Data()
        let done = try RecordStream.convert(options: options, largeDocument: input, threshold: threshold) { bytes throws(PFError) in
            out.append(contentsOf: bytes)
        }
        return done == nil ? nil : out
    }

    /// The whole route's archive.
    static func whole(_ input: Data, from: DataFormat, limits: PFLimits = .default) throws(PFError) -> Data {
        let value = try FormatIO.read(input, options: .init(format: from, limits: limits)).value
        return try FormatIO.write(value, as: .keyed)
    }

    /// Whether `error` is the walk's "archive it whole" answer.
    static func declined(_ error: PFError) -> Bool {
        if case .doesNotStream? = error.failure(as: FormatsFailure.self) { return true }
        return false
    }

    /// The walked archive decodes to the whole route's value (or both fail with the same
    /// code), at every threshold; with `peers`, Foundation and nska-deserialize read the two alike.
    static func check(_ input: Data, from: DataFormat, label: String, thresholds: [Int] = [1, 16, 200], peers: Bool = false) throws {
        let expected = Result { () throws(PFError) in try whole(input, from: from) }
        var archived = 0
        defer { #expect(archived > 0, "\(label): never archived by its large containers") }
        for threshold in thresholds {
            let got = Result { () throws(PFError) in try walked(input, from: from, threshold: threshold) }
            switch (expected, got) {
            case (_, .success(nil)):
                continue
            case (.success, .failure(let error)) where declined(error) && label.hasPrefix("markers"):
                // A `$class` object walked as a large container: archived whole.
                continue
            case (.success(let whole), .success(let archive?)):
                archived += 1
                #expect(archive.starts(with: Array("bplist00".utf8)), "\(label)")
                let a = try RecordStreamKeyedWriteTests.decoded(whole)
                let b = try RecordStreamKeyedWriteTests.decoded(archive)
                #expect(a == b, "\(label), threshold \(threshold):\n\(String(decoding: a.prefix(400), as: UTF8.self))\n\(String(decoding: b.prefix(400), as: UTF8.self))")
                if peers && threshold == thresholds.first {
                    try RecordStreamKeyedWriteTests.foundationReadsAlike(whole, archive, label: label)
                    try RecordStreamKeyedWriteTests.pythonReadsAlike(whole, archive, label: label)
                }
            case (.failure(let e), .failure(let g)):
                archived += 1
                #expect(e.code == g.code, "\(label), threshold \(threshold): \(e) vs \(g)")
            default:
                Issue.record("\(label), threshold \(threshold): whole \(expected), walked \(got)")
            }
        }
    }

    /// Documents of every shape the walk meets: large objects and arrays nested in each
    /// other, empty ones, escaped and unicode keys (`é` and `e\u0301` apart), typed values,
    /// `$class` objects and `$id`/`$ref` inside one piece, Foundation collections spelled out.
    static let documents: [(String, String)] = [
        ("object of arrays", #"{"data":[{"a":1,"b":[1,2,{"c":null}]},{"a":2,"b":[]},{"a":3,"b":{}}],"n":1,"meta":{"title":"t","list":[1,2,3,4,5,6,7,8,9]}}"#),
        ("array of arrays", #"[[1,2,3],[4,[5,[6,[7]]]],[],{},"s",null,true,-0.0,18446744073709551615]"#),
        ("escaped keys", #"{"$$class":"not a class","$$id":7,"$$ref":[1,2,3],"$x":"kept","list":[{"$$a":1},{"$$$b":2}],"k":"v"}"#),
        ("unicode", #"{"é":"e\u0301","e\u0301":"é","ünï¢ødé 🔑":["ÿ","ÿ","é","e\u0301"],"more":[{"é":1},{"e\u0301":2}]}"#),
        ("typed values", #"{"d":[{"__type":"Date","iso":"2011-06-10T18:33:42.123Z"},{"__type":"Bytes","base64":"AAE="}],"p":{"__type":"Pointer","className":"_User","objectId":"u1"},"n":[1,2.5,-3]}"#),
        ("markers inside pieces", #"{"things":[{"obj":{"$class":"Thing","$classes":["Thing","Base","NSObject"],"$version":3,"$id":2,"me":{"$ref":2},"f":7}},{"shared":{"$id":1,"$value":{"k":"v"}},"again":{"$ref":1}}],"dict":{"$class":"NSDictionary","NS.keys":[1,"two"],"NS.objects":["one",2]},"set":{"$class":"NSSet","NS.objects":[1,2]},"tail":[1,2,3]}"#),
        ("empties", #"{"a":{},"b":[],"c":[[],[{}]],"d":{"e":{"f":{}}},"g":"h"}"#),
        ("repeated values", #"{"a":["same","same","same",1,1,1,true,true],"b":{"x":"same","y":"same","z":1},"c":["same",{"same":"same"}]}"#),
    ]

    @Test func documentsReadBackAsTheWholeRoutesArchive() throws {
        for (label, text) in Self.documents {
            let json = Data(text.utf8)
            try Self.check(json, from: .json, label: label)
            let value = try FormatIO.read(json, options: .init(format: .json)).value
            // The same documents as property lists and CBOR (no null in a property list).
            try Self.check(try FormatIO.write(value, as: .cbor), from: .cbor, label: "\(label) (CBOR)", thresholds: [1, 4, 32])
            if let plist = try? FormatIO.write(value, as: .bplist) {
                try Self.check(plist, from: .bplist, label: "\(label) (bplist)", thresholds: [1, 4, 32])
            }
            if let xml = try? FormatIO.write(value, as: .xmlplist) {
                try Self.check(xml, from: .xmlplist, label: "\(label) (XML)", thresholds: [1, 16, 600])
            }
            if !label.hasPrefix("markers"), let stream = try? TypedStream.encodeValue(value) {
                try Self.check(stream, from: .typedstream, label: "\(label) (typedstream)", thresholds: [0, 16, 600])
            }
        }
    }

    /// Foundation and nska-deserialize read the walked archive as they read the whole route's.
    @Test func peersReadTheWalkedArchiveAsTheWholeRoutes() throws {
        let dates = PFValue.dictionary([
            "data": .array((0..<50).map { i in ["i": .int(Int64(i)), "s": .string("v\(i % 7)"), "d": .data(Data([UInt8(i)]))] }),
            "when": .array([.date(Date(timeIntervalSinceReferenceDate: 5)), .date(Date(timeIntervalSinceReferenceDate: 5))]),
            "nested": ["a": ["b": ["c": .array([1, 2, 3])]], "é": "e\u{301}", "e\u{301}": "é"],
            "empty": [:], "none": [],
        ])
        try Self.check(try FormatIO.write(dates, as: .bplist), from: .bplist, label: "Foundation values", thresholds: [1, 64], peers: true)
    }

    /// A typedstream's shared objects (`$id`/`$ref` in its JSON form) and generic objects
    /// (`$class`, `$values`), inside pieces and across them: archived by the walk, or left
    /// whole when a `$id` is shared between pieces.
    @Test func typedstreamsWithSharedAndGenericObjects() throws {
        let shared: PFValue = ["$id": 1, "$value": [1, "two", 3.5]]
        let object: PFValue = ["$class": "Thing", "$version": 3, "$values": [["types": "i@", "values": [7, "x"]]]]
        let values: [PFValue] = [
            ["a": [shared, ["$ref": 1]], "b": [1, 2, 3], "c": [object, object]],
            ["a": shared, "b": [["$ref": 1]], "c": "tail"],
            [object, [object, ["k": object]], "s", "s"],
        ]
        for (n, value) in values.enumerated() {
            let stream = try TypedStream.encodeValue(value)
            let expected = try Self.whole(stream, from: .typedstream)
            for threshold in [0, 8, 64] {
                do {
                    guard let archive = try Self.walked(stream, from: .typedstream, threshold: threshold) else { continue }
                    #expect(try RecordStreamKeyedWriteTests.decoded(archive) == RecordStreamKeyedWriteTests.decoded(expected), "\(n) at \(threshold)")
                } catch {
                    #expect(Self.declined(error), "\(n) at \(threshold): \(error)")
                }
            }
        }
    }

    /// A large container whose meaning depends on members not read yet (a `$class` object, a
    /// `$ref`, a `$id`/`$value` wrapper, a `$top` root), or a `$id` another piece refers to,
    /// sends the document to the whole route ("does not stream"); the whole route archives it.
    @Test func markersAndSharedIdsAreArchivedWhole() throws {
        let inputs = [
            #"{"f":[1,2,3],"$class":"Thing","g":[4,5,6]}"#,
            #"{"x":{"$id":1,"$value":[1,2,3,4]},"y":[{"$ref":1}]}"#,
            #"{"$top":{"root":[1,2,3],"other":[4,5]}}"#,
            #"{"a":[{"$id":1,"$value":{"k":"v"}},{"b":{"$ref":1}}],"c":[1,2]}"#,
            #"[{"$value":[1,2],"$id":3},{"$ref":3}]"#,
        ]
        for text in inputs {
            let input = Data(text.utf8)
            #expect(throws: PFError.self, "\(text)") { try Self.walked(input, from: .json, threshold: 1) }
            do {
                _ = try Self.walked(input, from: .json, threshold: 1)
            } catch {
                #expect(Self.declined(error), "\(text): \(error)")
            }
            _ = try Self.whole(input, from: .json)
        }
        // Not markers: a `$class` key escaped, a `$ref` beside other members, `$top` not alone.
        try Self.check(Data(#"{"$$class":[1,2,3],"$ref":[4],"$top":[5],"x":1}"#.utf8), from: .json, label: "not markers", thresholds: [1])
    }

    /// A document nested past `maxDepth` fails as in the whole route (or is left to it).
    @Test func tooDeepFailsAsTheWholeRouteDoes() throws {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let input = Data("{\"a\":[\(deep)],\"b\":[1]}".utf8)
        let expected = Result { () throws(PFError) in try Self.whole(input, from: .json) }
        let got = Result { () throws(PFError) in try Self.walked(input, from: .json, threshold: 1) }
        switch (expected, got) {
        case (.failure(let e), .failure(let g)): #expect(e.code == g.code, "\(e) vs \(g)")
        // The walk's check of the input meets the depth first and leaves it to the whole route.
        case (.failure, .success(nil)): break
        default: Issue.record("too deep: whole \(expected), walked \(got)")
        }
    }

    /// A keyed archive that is not of records is rewritten by its large containers too
    /// (`--from keyed --to keyed`), reading back to the same value.
    @Test func keyedArchivesAreRewrittenByTheirLargeContainers() throws {
        for (label, text) in Self.documents where label != "markers inside pieces" {
            let value = try FormatIO.read(Data(text.utf8), options: .init(format: .json)).value
            let archive = try FormatIO.write(value, as: .keyed)
            var options = RecordStream.Options(from: .keyed, to: .keyed)
            options.inputBytes = archive.count
            var out = Data()
            let done = try RecordStream.convert(options: options, keyedArchive: archive, threshold: 1) { bytes throws(PFError) in
                out.append(contentsOf: bytes)
            }
            guard done != nil else { continue }
            #expect(try RecordStreamKeyedWriteTests.decoded(out) == RecordStreamKeyedWriteTests.decoded(archive), "\(label)")
        }
    }
}
