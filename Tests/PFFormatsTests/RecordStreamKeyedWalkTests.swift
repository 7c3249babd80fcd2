import Foundation
import OrderedCollections
import PFCore
import PFFormats
import PFKeyedArchive
import PFSerialization
import PFTestSupport
import Testing

/// A keyed archive that is not of records, converted by its large containers from the
/// archive's bytes (`RecordStream.convert(options:keyedArchive:threshold:…)`, walked by
/// `KeyedArchive.walk`), is what the whole route writes (table, graph, tree): the same bytes
/// (a binary property list: the same value), or the same error.
@Suite struct RecordStreamKeyedWalkTests {
    /// The outputs a walk writes, with `--pretty` JSON.
    static let targets: [(DataFormat, Bool)] = [(.json, false), (.json, true), (.cbor, false), (.xmlplist, false), (.bplist, false)]

    static func streamed(_ archive: Data, to: DataFormat, pretty: Bool, threshold: Int?, limits: PFLimits = .default)
        throws(PFError) -> Data?
    {
        var out = Data()
        var options = RecordStream.Options(from: .keyed, to: to, limits: limits)
        options.inputBytes = archive.count
        options.pretty = pretty
        let done = try RecordStream.convert(
            options: options, keyedArchive: archive, threshold: threshold,
            write: { bytes throws(PFError) in out.append(contentsOf: bytes) })
        guard done != nil else {
            #expect(out.isEmpty, "nothing is written for an archive left to the whole route")
            return nil
        }
        return out
    }

    static func whole(_ archive: Data, to: DataFormat, pretty: Bool, limits: PFLimits = .default) throws(PFError) -> Data {
        let options = FormatIO.ReadOptions(format: .keyed, limits: limits)
        return try FormatIO.write(FormatIO.read(archive, options: options).value, as: to, options: .init(pretty: pretty))
    }

    /// Every output and threshold: the whole route's bytes (a binary property list: its
    /// value) or its error, word for word.
    static func check(_ archive: Data, label: String, limits: PFLimits = .default, mustWalk: Bool = true) throws {
        for (to, pretty) in targets {
            for threshold in [0, 1, 3, 256] {
                let name = "\(label) → \(to)\(pretty ? " pretty" : "") threshold \(threshold)"
                let whole = Result { () throws(PFError) in try Self.whole(archive, to: to, pretty: pretty, limits: limits) }
                let streamed = Result { () throws(PFError) in
                    try Self.streamed(archive, to: to, pretty: pretty, threshold: threshold, limits: limits)
                }
                switch (whole, streamed) {
                case (.success(let whole), .success(let streamed)):
                    guard let streamed else {
                        #expect(!mustWalk, "\(name): walked")
                        continue
                    }
                    if to == .bplist {
                        #expect(try Serialization.readTree(streamed, as: .bplist) == Serialization.readTree(whole, as: .bplist), "\(name)")
                    } else {
                        #expect(streamed == whole, "\(name):\n\(String(decoding: streamed, as: UTF8.self))\n\(String(decoding: whole, as: UTF8.self))")
                    }
                case (.failure(let whole), .failure(let streamed)):
                    #expect(streamed.description == whole.description, "\(name)")
                default:
                    Issue.record("\(name): whole \(whole), streamed \(streamed)")
                }
            }
        }
    }

    static func archive(_ value: PFValue) throws -> Data {
        try KeyedArchive.archive(KeyedGraph(json: value))
    }

    static func archive(_ json: String) throws -> Data {
        try archive(Serialization.readTree(Data(json.utf8), as: .json))
    }

    @Test func aDocumentThatIsNotRecordsIsWrittenAsTheWholeRouteWritesIt() throws {
        let document = """
            {"data":[{"objectId":"a1","n":1,"d":{"__type":"Date","iso":"2011-06-10T18:33:42.123Z"},"b":{"__type":"Bytes","base64":"AAE="},
             "nested":{"x":[1,2.5,true,"s",-7],"$dollar":"kept","$$two":2},"empty":{},"none":[]},
             {"shared":{"$id":1,"$value":{"k":["v",{"deep":[[[]]]}]}},"again":{"$ref":1},"big":18446744073709551615},
             {"obj":{"$class":"Thing","$classes":["Thing","Base","NSObject"],"$version":3,"$id":2,"me":{"$ref":2},"f":7,"$f":8}},
             {"$class":"NSDictionary","NS.keys":[1,"two"],"NS.objects":["one",2]},
             {"$class":"NSSet","NS.objects":[1,2]},{"$class":"NSOrderedSet","NS.objects":["x",{"$ref":2}]},
             {"$id":3,"$value":[{"$ref":3},{"$ref":1}]},"a string",17],
             "n":1,"meta":{"cycle":{"$ref":3},"list":{"$id":4,"$value":[1,2,3]},"back":{"$ref":4}},"plain":{"$class":"Plain","x":1}}
            """
        try Self.check(Self.archive(document), label: "document")
        // A shared root (a cycle back to it), an object root, a set, an empty root.
        try Self.check(Self.archive("{\"$id\":1,\"$value\":{\"me\":{\"$ref\":1},\"list\":[1,[2,[3]]]}}"), label: "shared root")
        try Self.check(Self.archive("{\"$class\":\"Thing\",\"x\":[1,{\"y\":2}],\"$id\":1,\"me\":{\"$ref\":1}}"), label: "object root")
        try Self.check(Self.archive("{\"$class\":\"NSSet\",\"NS.objects\":[1,{\"a\":[1]}]}"), label: "set root")
        try Self.check(Self.archive("{}"), label: "empty dictionary")
        try Self.check(Self.archive("{\"a\":{\"b\":{\"c\":[1,2,{\"d\":[3]}]}}}"), label: "nested wrappers")
        // Nulls: JSON and CBOR write them, the property lists refuse them (same error).
        try Self.check(Self.archive("{\"a\":[null,{\"b\":null}],\"c\":null}"), label: "nulls")
    }

    @Test func generatedDocumentsAreWrittenAsTheWholeRouteWritesThem() throws {
        for seed in 0..<40 {
            var random = SplitMix64(seed: UInt64(seed))
            var generator = Generator()
            let document = generator.value(depth: 0, random: &random, container: true)
            try Self.check(Self.archive(document), label: "seed \(seed)")
        }
    }

    @Test func rootsThatAreNotContainersAreLeftToTheWholeRoute() throws {
        for json in ["17", "\"text\"", "{\"$top\":{\"root\":[1],\"other\":[2]}}", "{\"$class\":\"NSDictionary\",\"NS.keys\":[1],\"NS.objects\":[2]}"] {
            let archive = try Self.archive(json)
            for (to, pretty) in Self.targets {
                #expect(try Self.streamed(archive, to: to, pretty: pretty, threshold: 0) == nil, "\(json) → \(to)")
            }
        }
        // Other containers and other files are not walked.
        let graph = try KeyedGraph(json: Serialization.readTree(Data("{\"a\":[1,2]}".utf8), as: .json))
        for container in [KeyedArchiveContainer.xmlplist, .json, .cbor] {
            #expect(try Self.streamed(KeyedArchive.archive(graph, container: container), to: .json, pretty: false, threshold: 0) == nil)
        }
        #expect(try Self.streamed(Data("{\"a\":1}".utf8), to: .json, pretty: false, threshold: 0) == nil)
    }

    @Test func failuresAreTheWholeRoutes() throws {
        let archive = try Self.archive("{\"data\":[{\"a\":{\"$class\":\"Secret\",\"x\":[[[[1]]]]}}],\"n\":{\"m\":[2]}}")
        for depth in 1...9 {
            try Self.check(archive, label: "maxDepth \(depth)", limits: PFLimits(maxDepth: depth), mustWalk: false)
        }
        for maxNodes in stride(from: 1, through: 40, by: 3) {
            try Self.check(archive, label: "maxNodes \(maxNodes)", limits: PFLimits(maxNodes: maxNodes), mustWalk: false)
        }
        // Secure decoding: the class refused before anything is written.
        var options = RecordStream.Options(from: .keyed, to: .json)
        options.inputBytes = archive.count
        var out = Data()
        let error = #expect(throws: PFError.self) {
            try RecordStream.convert(options: options, keyedArchive: archive, allowedClasses: [], threshold: 0,
                                     write: { bytes throws(PFError) in out.append(contentsOf: bytes) })
        }
        let wholeError = #expect(throws: PFError.self) {
            try FormatIO.read(archive, options: FormatIO.ReadOptions(format: .keyed, limits: .default, allowedClasses: []))
        }
        #expect(error?.description == wholeError?.description)
        #expect(out.isEmpty)
    }

    /// Random graphs in the JSON form `--to keyed` reads: every value type, objects with
    /// class chains and versions, `$`-keys, shared containers and objects, cycles.
    struct Generator {
        var ids: [Int] = []
        var nextID = 1

        mutating func value(depth: Int, random: inout SplitMix64, container: Bool = false) -> PFValue {
            let pick = container || depth == 0 ? 6 + Int(random.next() % 5) : Int(random.next() % (depth > 4 ? 6 : 12))
            switch pick {
            case 0: return .bool(random.next() % 2 == 0)
            case 1: return .int(Int64(bitPattern: random.next()) >> Int64(random.next() % 60))
            case 2: return .double(Double(Int64(random.next() % 20_000) - 10_000) / 7)
            case 3: return .string(["", "a", "$x", "$$y", "é🎉", "k\(random.next() % 4)"][Int(random.next() % 6)])
            case 4: return random.next() % 2 == 0 ? .date(Date(timeIntervalSinceReferenceDate: Double(random.next() % 1_000_000)))
                : .data(Data((0..<Int(random.next() % 5)).map { UInt8($0) }))
            case 5 where !ids.isEmpty: return ["$ref": .int(Int64(ids[Int(random.next() % UInt64(ids.count))]))]
            case 5: return .string("no ref yet")
            case 6, 7:
                let count = Int(random.next() % 7)
                let items = PFValue.array((0..<count).map { _ in value(depth: depth + 1, random: &random) })
                return shared(items, random: &random, depth: depth)
            case 8, 9:
                var members = OrderedDictionary<String, PFValue>()
                for _ in 0..<Int(random.next() % 7) {
                    let key = (random.next() % 4 == 0 ? "$" : "") + "k\(random.next() % 9)"
                    // A repeated key would drop an earlier value, and the `$id`s in it.
                    guard members[key] == nil else { continue }
                    members[key] = value(depth: depth + 1, random: &random)
                }
                if random.next() % 5 == 0 { members["$$esc"] = .int(1) }
                return shared(.dictionary(members), random: &random, depth: depth)
            default:
                var members: OrderedDictionary<String, PFValue> = ["$class": .string("Thing\(random.next() % 3)")]
                if random.next() % 3 == 0 { 
                    members["$classes"] = .array([.string("Thing0"), .string("Base"), .string("NSObject")])
                    members["$class"] = .string("Thing0")
                }
                if random.next() % 3 == 0 { members["$version"] = .int(Int64(random.next() % 5)) }
                if random.next() % 3 == 0 {
                    members["$id"] = .int(Int64(nextID))
                    ids.append(nextID)
                    nextID += 1
                }
                for i in 0..<Int(random.next() % 5) { members["f\(i)"] = value(depth: depth + 1, random: &random) }
                return .dictionary(members)
            }
        }

        /// Wraps a container as shared (`$id`) now and then; later `$ref`s may name it, a
        /// reference from inside it making a cycle.
        mutating func shared(_ container: PFValue, random: inout SplitMix64, depth: Int) -> PFValue {
            guard random.next() % 4 == 0 else { return container }
            let id = nextID
            nextID += 1
            ids.append(id)
            return ["$id": .int(Int64(id)), "$value": container]
        }
    }
}
