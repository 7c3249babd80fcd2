import Foundation
import OrderedCollections
import PFCore
import PFFormats
import PFKeyedArchive
import PFSerialization
import PFTestSupport
import Testing

/// A keyed archive's records converted one at a time from the archive's bytes
/// (`RecordStream.convert(options:keyedArchive:…)`) are what the whole route writes (table,
/// graph, tree), byte for byte, with the same `$id`/`$ref` numbering and the same failures.
@Suite struct RecordStreamKeyedTests {
    static func streamed(_ archive: Data, to: DataFormat, limits: PFLimits = .default, allowed: Set<String>? = nil)
        throws(PFError) -> Data?
    {
        var out = Data()
        var options = RecordStream.Options(from: .keyed, to: to, limits: limits)
        options.inputBytes = archive.count
        let done = try RecordStream.convert(
            options: options, keyedArchive: archive, allowedClasses: allowed,
            write: { bytes throws(PFError) in out.append(contentsOf: bytes) })
        guard done != nil else {
            #expect(out.isEmpty, "nothing is written for an archive that is not of records")
            return nil
        }
        return out
    }

    static func whole(_ archive: Data, to: DataFormat, limits: PFLimits = .default, allowed: Set<String>? = nil)
        throws(PFError) -> Data
    {
        var options = FormatIO.ReadOptions(format: .keyed, limits: limits, allowedClasses: allowed)
        options.limits = limits
        return try FormatIO.write(FormatIO.read(archive, options: options).value, as: to)
    }

    static func archive(_ json: String) throws -> Data {
        let value = try Serialization.readTree(Data(json.utf8), as: .json)
        return try KeyedArchive.archive(KeyedGraph(json: value))
    }

    /// Every output a keyed archive streams to: the bytes of the whole route (a binary
    /// property list, laid out by the stream writer: the same value read back), or its error.
    static func check(_ archive: Data, label: String) throws {
        #expect(RecordStream.keyedTargets == [.json, .jsonl, .cborseq, .cbor, .xmlplist, .bplist])
        for to in RecordStream.keyedTargets.sorted(by: { $0.rawValue < $1.rawValue }) {
            let whole = Result { () throws(PFError) in try Self.whole(archive, to: to) }
            let streamed = Result { () throws(PFError) in try Self.streamed(archive, to: to) }
            switch (whole, streamed) {
            case (.success(let whole), .success(let streamed)):
                let streamed = try #require(streamed, "\(label) → \(to): streams")
                if to == .bplist {
                    #expect(try Serialization.readTree(streamed, as: .bplist) == Serialization.readTree(whole, as: .bplist), "\(label) → bplist")
                } else {
                    #expect(streamed == whole, "\(label) → \(to):\n\(String(decoding: streamed, as: UTF8.self))\n\(String(decoding: whole, as: UTF8.self))")
                }
            case (.failure(let whole), .failure(let streamed)):
                // A null has no property list form (both routes say where it is).
                #expect(to == .xmlplist || to == .bplist, "\(label) → \(to): \(whole)")
                #expect(streamed.description == whole.description, "\(label) → \(to)")
            default:
                Issue.record("\(label) → \(to): whole \(whole), streamed \(streamed)")
            }
        }
    }

    @Test func recordsAreWrittenAsTheWholeRouteWritesThem() throws {
        let records = """
            {"objectId":"a1","n":1,"d":{"__type":"Date","iso":"2011-06-10T18:33:42.123Z"},"b":{"__type":"Bytes","base64":"AAE="},
             "nested":{"x":[1,2.5,true,null,"s"],"$dollar":"kept"},"empty":{},"none":[]},
            {"objectId":"a2","n":1,"tags":["s","s"],"shared":{"$id":1,"$value":{"k":"v"}},"again":{"$ref":1}},
            {"objectId":"a3","back":{"$ref":1},"obj":{"$class":"Thing","$classes":["Thing","Base","NSObject"],"$version":3,"$id":2,"me":{"$ref":2},"f":7}},
            {"$class":"NSDictionary","NS.keys":[1,"two"],"NS.objects":["one",2]},
            {"$class":"NSSet","NS.objects":[1,2]},{"$class":"NSOrderedSet","NS.objects":["x",{"$ref":2}]},
            "a string record",17,null,[[],[[]]]
            """
        // Without nulls, the property lists too.
        let plain = records.replacingOccurrences(of: "null", with: "false")
        try Self.check(Self.archive("{\"results\":[\(plain)]}"), label: "results, no null")
        try Self.check(Self.archive("[\(plain)]"), label: "array, no null")
        try Self.check(Self.archive("{\"results\":[\(records)]}"), label: "results")
        try Self.check(Self.archive("[\(records)]"), label: "array")
        try Self.check(Self.archive("[]"), label: "empty array")
        try Self.check(Self.archive("{\"results\":[]}"), label: "empty results")
        try Self.check(Self.archive("{\"$class\":\"NSSet\",\"NS.objects\":[1,{\"a\":1}]}"), label: "set")
    }

    @Test func moreRecordsThanTheWalkHoldsAreWrittenAsTheWholeRouteWritesThem() throws {
        // Past 8,192 records the walk lets go of the oldest records' objects it held and
        // reads them again: nested containers, and objects shared across records, come out
        // as the whole route writes them.
        var records = ["{\"i\":0,\"shared\":{\"$id\":1,\"$value\":{\"k\":[\"v\"]}}}"]
        for i in 1..<9_000 {
            let tail = i % 7 == 0 ? ",\"again\":{\"$ref\":1}" : ""
            records.append("{\"i\":\(i),\"tags\":[\"t\(i % 5)\",[\(i)]],\"acl\":{\"r\":true,\"w\":{\"u\":\"\(i)\"}}\(tail)}")
        }
        try Self.check(Self.archive("[\(records.joined(separator: ","))]"), label: "9,000 records")
    }

    @Test func containersStoredInAnObjectsFieldsAreRenderedInPlace() throws {
        // A generic object whose fields hold an array and a dictionary in place (as
        // `encodeArray`-style coders write them), one of them referring to a shared object.
        var builder = ObjectTableBuilder()
        let root = try builder.reserve()
        let record = try builder.reserve()
        let shared = try builder.reserve()
        try builder.fill(shared, with: ["v": .int(1)], class: ArchivedClass(name: "Shared"))
        let name = try builder.scalarReference(.string("name"))
        try builder.fill(
            record,
            with: [
                "list": .array([.int(1), .uid(shared), .array([.uid(name)])]),
                "map": .dictionary(["a": .uid(shared), "b": .dictionary(["c": .bool(true)])]),
                "nothing": .uid(0),
            ], class: ArchivedClass(name: "Record"))
        try builder.fill(root, with: ["NS.objects": .array([.uid(record), .uid(shared)])], class: .foundation("NSArray"))
        builder.top["root"] = root
        try Self.check(KeyedArchive.write(builder.table), label: "in-place fields")
    }

    @Test func archivesThatAreNotRecordsAreLeftToTheWholeRoute() throws {
        // To JSON Lines (a record format); to JSON, CBOR and property lists such an archive
        // is walked by its large containers (RecordStreamKeyedWalkTests).
        for json in ["17", "\"text\"", "{\"a\":1}", "{\"results\":[1],\"count\":1}", "{\"results\":{\"a\":1}}",
                     "{\"$class\":\"Thing\",\"x\":1}", "{\"$top\":{\"root\":[1],\"other\":[2]}}",
                     "{\"$id\":1,\"$value\":[{\"$ref\":1}]}", "{\"results\":{\"$id\":1,\"$value\":[{\"$ref\":1}]}}"]
        {
            let archive = try Self.archive(json)
            #expect(try Self.streamed(archive, to: .jsonl) == nil, "\(json)")
            _ = try Self.whole(archive, to: .json)
        }
        // Other containers, compressed archives and other files.
        let value = try Serialization.readTree(Data("[1,2]".utf8), as: .json)
        let graph = try KeyedGraph(json: value)
        for container in [KeyedArchiveContainer.xmlplist, .json, .cbor] {
            #expect(try Self.streamed(try KeyedArchive.archive(graph, container: container), to: .jsonl) == nil, "\(container)")
        }
        #expect(try Self.streamed(Data("[1,2]".utf8), to: .jsonl) == nil)
        #expect(try Self.streamed(try Serialization.writeTree(value, as: .bplist), to: .jsonl) == nil)
    }

    @Test func failuresAreTheWholeRoutes() throws {
        let archive = try Self.archive("{\"results\":[{\"a\":{\"$class\":\"Secret\",\"x\":[[[[1]]]]}}]}")
        let cases: [(PFLimits, Set<String>?)] = [
            (.default, []), (.default, ["Other"]), (PFLimits(maxDepth: 4), nil), (PFLimits(maxDepth: 2), nil),
            (PFLimits(maxDepth: 1), nil),
        ]
        for (limits, allowed) in cases {
            let wholeError = #expect(throws: PFError.self) { try Self.whole(archive, to: .json, limits: limits, allowed: allowed) }
            let streamedError = #expect(throws: PFError.self) { try Self.streamed(archive, to: .json, limits: limits, allowed: allowed) }
            #expect(streamedError?.description == wholeError?.description, "\(limits) \(String(describing: allowed))")
        }
        // Every output, at every depth limit around the records': the same bytes (a binary
        // property list: the same value) or the same error.
        for to in RecordStream.keyedTargets {
            for depth in 1...8 {
                let limits = PFLimits(maxDepth: depth)
                let whole = Result { () throws(PFError) in try Self.whole(archive, to: to, limits: limits, allowed: ["Secret"]) }
                let streamed = Result { () throws(PFError) in try Self.streamed(archive, to: to, limits: limits, allowed: ["Secret"]) }
                switch (whole, streamed) {
                case (.success(let w), .success(let s)):
                    let s = try #require(s)
                    if to == .bplist {
                        #expect(try Serialization.readTree(s, as: .bplist) == Serialization.readTree(w, as: .bplist), "depth \(depth)")
                    } else {
                        #expect(s == w, "\(to) depth \(depth)")
                    }
                case (.failure(let w), .failure(let s)): #expect(s.description == w.description, "\(to) depth \(depth)")
                default: Issue.record("\(to) depth \(depth): whole \(whole), streamed \(streamed)")
                }
            }
        }
        // Every node budget, from one that refuses the envelope to one that lets all through:
        // the same error (the property list's nodes or the graph's) or the same bytes.
        for maxNodes in 1...40 {
            let limits = PFLimits(maxNodes: maxNodes)
            let whole = Result { () throws(PFError) in try Self.whole(archive, to: .json, limits: limits) }
            let streamed = Result { () throws(PFError) in try Self.streamed(archive, to: .json, limits: limits) }
            switch (whole, streamed) {
            case (.success(let w), .success(let s)): #expect(s == w, "maxNodes \(maxNodes)")
            case (.failure(let w), .failure(let s)): #expect(s.description == w.description, "maxNodes \(maxNodes)")
            default: Issue.record("maxNodes \(maxNodes): whole \(whole), streamed \(streamed)")
            }
        }
        #expect(try Self.streamed(archive, to: .json, allowed: ["Secret"]) == Self.whole(archive, to: .json, allowed: ["Secret"]))
        // A damaged archive: a reference past the table.
        var builder = ObjectTableBuilder()
        let root = try builder.reserve()
        try builder.fill(root, with: ["NS.objects": .array([.uid(99)])], class: .foundation("NSArray"))
        builder.top["root"] = root
        let damaged = try KeyedArchive.write(builder.table)
        let wholeError = #expect(throws: PFError.self) { try Self.whole(damaged, to: .json) }
        let streamedError = #expect(throws: PFError.self) { try Self.streamed(damaged, to: .json) }
        #expect(streamedError?.description == wholeError?.description)
    }

    /// A keyed archive of one record whose `$objects` also holds `count` objects nothing
    /// refers to, each an array of `width` numbers: small one by one, large together.
    static func padded(count: Int, width: Int) throws -> Data {
        var table = try KeyedArchive.readTable(Self.archive("[\"record\"]")).table
        for i in 0..<count {
            table.objects.append(.array((0..<width).map { .int(Int64(i * width + $0)) }))
        }
        return try KeyedArchive.write(table)
    }

    @Test func thePropertyListsNodesCountAcrossTheWholeFile() throws {
        // 20 unreferenced arrays of 101 nodes: each is under 1,000 nodes, the file is not.
        let archive = try Self.padded(count: 20, width: 100)
        let limits = PFLimits(maxNodes: 1_000)
        let wholeError = #expect(throws: PFError.self) { try Self.whole(archive, to: .json, limits: limits) }
        let streamedError = #expect(throws: PFError.self) { try Self.streamed(archive, to: .json, limits: limits) }
        #expect(wholeError?.code == .limitExceeded && wholeError?.format == .bplist, "\(String(describing: wholeError))")
        #expect(streamedError?.description == wholeError?.description)
        // Under the default budget the padding is read, and left out of the graph, by both.
        #expect(try Self.streamed(archive, to: .json) == Self.whole(archive, to: .json))
        #expect(try Self.streamed(archive, to: .json) == Data("[\"record\"]".utf8))
    }
}
