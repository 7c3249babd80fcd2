import Foundation
import OrderedCollections
import PFCompression
import PFCore
import PFJSON
import PFParse
import PFParseExport
import PFStoreTestSupport
import PFStores
import PFTestSupport
import PropertyBased
import Testing
import ZIPFoundation

/// A scratch directory removed when the test ends.
final class Scratch {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("pfstores-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    func path(_ name: String) -> URL { url.appendingPathComponent(name) }
    /// Writes files into a new directory.
    func directory(_ name: String, _ files: [String: String]) throws -> URL {
        let dir = path(name)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for (file, text) in files { try Data(text.utf8).write(to: dir.appendingPathComponent(file)) }
        return dir
    }
}

let realExport = Fixtures.real.appendingPathComponent("parse")

@Suite struct ParseExportReadingTests {
    @Test func realParseComExportReadsEveryClassAndTheJoinFile() throws {
        let store = ParseExportStore(url: realExport)
        #expect(try store.classNames() == ["Comment", "NameWord", "_Role"])
        let comments = try store.objects(in: "Comment")
        #expect(comments.count == 1)
        #expect(comments.first?.fields["parentComment"] == .pointer(ParsePointer(className: "Comment", objectId: "null")))
        #expect(comments.first?.fields["upvotes"] == .int(99_999_999))
        let roles = try store.objects(in: "_Role")
        #expect(roles.contains { $0.acl == ParseACL() && $0.fields["name"] == .string("banned") })
        #expect(try store.objects(in: "NameWord").count > 100)
        let users = ParseRelationKey(owningClass: "_Role", field: "users", targetClass: "_User")
        #expect(try store.relations() == [users])
        #expect(try store.joinRows(of: users).isEmpty)
        let schema = try store.schema()
        #expect(schema.classes["Comment"]?["by"] == ParseSchema.Field(.pointer, targetClass: "_User"))
        #expect(schema.classes["Comment"]?["upvotes"] == ParseSchema.Field(.number))
        #expect(schema.classes["_Role"]?["users"] == ParseSchema.Field(.relation, targetClass: "_User"))
        // Every row equals what the whole-file reader makes of it.
        for name in ["Comment", "NameWord", "_Role"] {
            let whole = try ParseExport.objects(fromJSON: Data(contentsOf: realExport.appendingPathComponent(name + ".json")), className: name)
            #expect(try store.objects(in: name) == whole)
        }
    }

    /// A class file a Windows editor saved with a UTF-8 byte order mark reads as without it,
    /// whatever its shape and however it is chunked (the strict reader refused it, and no
    /// command can make an export's reader lenient).
    @Test func classFilesStartingWithAByteOrderMarkRead() throws {
        let scratch = try Scratch()
        let bom = "\u{FEFF}"
        let shapes = [
            "Results": #"{"results":[{"objectId":"a","n":1},{"objectId":"b","n":2}]}"#,
            "Bare": #"[{"objectId":"a","n":1},{"objectId":"b","n":2}]"#,
            "One": #"{"objectId":"a","n":1}"#,
            "Counted": #"{"count":2,"results":[{"objectId":"a","n":1},{"objectId":"b","n":2}]}"#,
        ]
        let plain = try scratch.directory("plain", shapes.mapValues { $0 }.reduce(into: [:]) { $0[$1.key + ".json"] = $1.value })
        let marked = try scratch.directory("marked", shapes.reduce(into: [:]) { $0[$1.key + ".json"] = bom + $1.value })
        for chunkSize in [1, 2, 3, 4, 64 * 1024] {
            var options = ParseExportStore.Options()
            options.chunkSize = chunkSize
            let a = ParseExportStore(url: plain, options: options), b = ParseExportStore(url: marked, options: options)
            for name in shapes.keys {
                #expect(try b.objects(in: name) == (try a.objects(in: name)), "\(name), chunks of \(chunkSize)")
            }
        }
        for (name, text) in shapes {
            #expect(try ParseExport.rows(fromJSON: Data((bom + text).utf8)).rows == (try ParseExport.rows(fromJSON: Data(text.utf8)).rows), "\(name)")
        }
    }

    @Test func realExportRoundTripsThroughMemoryADirectoryAndAZip() throws {
        let scratch = try Scratch()
        let source = ParseExportStore(url: realExport)
        let memory = MemoryStore()
        try StoreTransfer.copy(from: source, to: memory)
        #expect(try StoreComparison.firstDifference(expected: source, actual: memory) == nil)
        for name in ["copy", "copy.zip"] {
            let out = ParseExportStore(url: scratch.path(name))
            try StoreTransfer.copy(from: memory, to: out)
            let back = ParseExportStore(url: scratch.path(name))
            let diff = try StoreComparison.firstDifference(expected: source, actual: back)
            #expect(diff == nil, "\(name): \(diff ?? "")")
        }
        // The zip is a zip of class files.
        let archive = try Archive(url: scratch.path("copy.zip"), accessMode: .read)
        #expect(Set(archive.map(\.path)) == ["Comment.json", "NameWord.json", "_Role.json", "_SCHEMA.json"])
    }

    @Test func bareArraysLookAlikeColonsAndEmptyFiles() throws {
        let scratch = try Scratch()
        let dir = try scratch.directory("export", [
            "Tag.json": #"[{"objectId":"t1","name":"a"},{"objectId":"t2","name":"b","n":1.0}]"#,
            "Article.json": #"{"results":[{"objectId":"a1","tags":{"__type":"Relation","className":"Tag"}}]}"#,
            "_Join\u{A789}tags\u{A789}Article.json": #"[{"owningId":"a1","relatedId":"t1","objectId":"j1"},{"relatedId":"t2","owningId":"a1"}]"#,
            "Empty.json": "",
            "Blank.json": " \n",
            "_User.json": #"[{"objectId":"u1","username":"ann","bcryptPassword":"$2a$10$abcdefghijklmnopqrstuv","authData":{"facebook":{"id":"1","access_token":"x"}}}]"#,
        ])
        let store = ParseExportStore(url: dir)
        #expect(try store.classNames() == ["Article", "Blank", "Empty", "Tag", "_User"])
        #expect(try store.objects(in: "Empty").isEmpty)
        #expect(try store.objects(in: "Blank").isEmpty)
        #expect(try store.objects(in: "Tag").map(\.objectId) == ["t1", "t2"])
        #expect(try store.objects(in: "Tag").last?.fields["n"] == .double(1))
        let key = ParseRelationKey(owningClass: "Article", field: "tags", targetClass: "Tag")
        #expect(try store.relations() == [key])
        #expect(try store.joinRows(of: key) == [ParseJoinRow(owningId: "a1", relatedId: "t1"), ParseJoinRow(owningId: "a1", relatedId: "t2")])
        let user = try #require(try store.objects(in: "_User").first)
        #expect(user.fields["bcryptPassword"] == .string("$2a$10$abcdefghijklmnopqrstuv"))
        #expect(user.fields["authData"]?["facebook"]?["access_token"] == .string("x"))
        // Written back: the join file gets Parse's colon name, empty classes a file each.
        let out = scratch.path("out")
        try StoreTransfer.copy(from: store, to: ParseExportStore(url: out))
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(names == ["Article.json", "Blank.json", "Empty.json", "Tag.json", "_Join:tags:Article.json", "_SCHEMA.json", "_User.json"])
        #expect(try StoreComparison.firstDifference(expected: store, actual: ParseExportStore(url: out)) == nil)
    }

    @Test func inferredSchemaKeepsTheFirstTypeAndListsConflicts() throws {
        let scratch = try Scratch()
        let dir = try scratch.directory("export", [
            "Item.json": #"[{"objectId":"a","v":"text","p":{"__type":"Pointer","className":"A","objectId":"x"},"z":null},{"objectId":"b","v":3,"p":{"__type":"Pointer","className":"B","objectId":"y"}},{"objectId":"c","v":2.5}]"#,
        ])
        let store = ParseExportStore(url: dir)
        let fields = try #require(try store.schema().classes["Item"])
        #expect(fields["v"] == ParseSchema.Field(.string))
        #expect(fields["p"] == ParseSchema.Field(.pointer, targetClass: "A"))
        #expect(fields["z"] == nil)
        #expect(store.typeConflicts.map(\.description) == [
            "Item.v: kept String (first seen); row 1 has Number", "Item.p: kept Pointer<A> (first seen); row 1 has Pointer<B>",
        ])
    }

    @Test func schemaFileInEitherShapeIsUsed() throws {
        let scratch = try Scratch()
        let mongo = try scratch.directory("mongo", [
            "_SCHEMA.json": #"[{"_id":"Post","_metadata":{},"title":"string","author":"*_User","likes":"relation<_User>"}]"#,
            "Post.json": #"{"results":[]}"#,
        ])
        let fields = try #require(try ParseExportStore(url: mongo).schema().classes["Post"])
        #expect(fields["author"] == ParseSchema.Field(.pointer, targetClass: "_User"))
        #expect(fields["likes"] == ParseSchema.Field(.relation, targetClass: "_User"))
        #expect(try ParseExportStore(url: mongo).relations() == [ParseRelationKey(owningClass: "Post", field: "likes", targetClass: "_User")])
        let rest = try scratch.directory("rest", [
            "_SCHEMA.json": #"{"results":[{"className":"Post","fields":{"title":{"type":"String"}}}]}"#,
            "Note.json": #"[{"objectId":"n","x":true}]"#,
        ])
        let schema = try ParseExportStore(url: rest).schema()
        #expect(schema.classes["Post"]?["title"] == ParseSchema.Field(.string))
        #expect(schema.classes["Note"]?["x"] == ParseSchema.Field(.boolean), "classes the file does not name are inferred")
        #expect(try ParseExportStore(url: rest).classNames() == ["Note", "Post"])
    }
}

// MARK: - Property tests

@Suite struct ParseExportPropertyTests {
    @Test func generatedStoresRoundTripThroughADirectory() async {
        await propertyCheck(count: 30, input: StoreGen.store(.parseExport)) { generated in
            Self.roundTrip(generated, name: "export")
        }
    }

    @Test func generatedStoresRoundTripThroughAZip() async {
        await propertyCheck(count: 20, input: StoreGen.store(.parseExport)) { generated in
            Self.roundTrip(generated, name: "export.zip")
        }
    }

    static func roundTrip(_ generated: GeneratedStore, name: String) {
        do {
            let scratch = try Scratch()
            let original = generated.memoryStore()
            // Small chunks so rows are cut across chunk edges.
            let options = ParseExportStore.Options(chunkSize: 61)
            try StoreTransfer.copy(from: original, to: ParseExportStore(url: scratch.path(name), options: options))
            let back = ParseExportStore(url: scratch.path(name), options: options)
            let diff = try StoreComparison.firstDifference(expected: original, actual: back)
            #expect(diff == nil, "\(diff ?? "")\n\(generated)")
        } catch {
            Issue.record("\(error)\n\(generated)")
        }
    }
}

// MARK: - Chunk edges, failures, atomic writes

@Suite struct ParseExportStreamingTests {
    /// A class file of some hundred KB whose strings are full of quotes, backslashes and brackets.
    static func trickyClassFile(rows: Int) throws -> (Data, [ParseObject]) {
        var objects: [ParseObject] = []
        let pieces = ["\"", "\\", "]", "[", "}", "{", ",", "\\\"", "\"]}", "日本", "😀", "\n", "\\u0041", "\u{0}"]
        for i in 0..<rows {
            var text = ""
            for k in 0..<(i % 23) { text += pieces[(i + k) % pieces.count] }
            objects.append(try ParseObject(
                className: "Tricky", objectId: "o\(i)", fields: [
                    "text": .string(text), "list": .array([.string("]"), .object(["k}": .string("{[\"")]), .int(Int64(i))]),
                    "n": i % 2 == 0 ? .int(Int64(i)) : .double(Double(i) + 0.5),
                ]))
        }
        let data = try JSONWriter().write(ParseExport.document(objects, shape: .results))
        return (data, objects)
    }

    @Test func tinyChunksCutRowsAtEveryBoundary() throws {
        let scratch = try Scratch()
        let (data, objects) = try Self.trickyClassFile(rows: 6_000)
        #expect(data.count > 300_000)
        let dir = scratch.path("export")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try data.write(to: dir.appendingPathComponent("Tricky.json"))
        for chunkSize in [1, 4093] {
            let store = ParseExportStore(url: dir, options: .init(chunkSize: chunkSize))
            var index = 0
            var mismatch: String?
            try store.forEachObject(in: "Tricky") { object in
                if mismatch == nil, index < objects.count, let diff = StoreComparison.difference(objects[index], object) {
                    mismatch = "row \(index): \(diff)"
                }
                index += 1
            }
            #expect(index == objects.count, "chunk size \(chunkSize)")
            #expect(mismatch == nil, "chunk size \(chunkSize): \(mismatch ?? "")")
        }
    }

    @Test func everyCutOfASmallFileGivesTheSameRows() throws {
        // Feed a small document split at every pair of positions.
        let text = Data(#" {"results" : [ {"a":"x\"]}","b":[1,{"c":"\\"}]} , [] ,{"objectId":"q"} ] , "count":3 } "#.utf8)
        let whole = try collect(text, cuts: [])
        #expect(whole.count == 3)
        for i in 0...text.count {
            for j in i...text.count where j - i < 9 || j == text.count {
                #expect(try collect(text, cuts: [i, j]) == whole, "cuts \(i), \(j)")
            }
        }
    }

    func collect(_ data: Data, cuts: [Int]) throws -> [String] {
        var rows: [String] = []
        var cutter = ParseExportRowCutter()
        var start = 0
        for cut in cuts + [data.count] {
            try data[start..<cut].withUnsafeBytes { raw in
                try cutter.feed(raw) { row throws(PFError) in rows.append("\(row.index)@\(row.offset):" + String(decoding: row.bytes, as: UTF8.self)) }
            }
            start = cut
        }
        try cutter.finish { row throws(PFError) in rows.append(String(decoding: row.bytes, as: UTF8.self)) }
        return rows
    }

    @Test func malformedWrappersAreRefusedWithTheirOffset() {
        for (text, offset) in [
            (#"[{"a":1},,{"b":2}]"#, 9), (#"[{"a":1},]"#, 9), (#"[{"a":1} {"b":2}]"#, 9), (#"{"results":[{"a":1}]} x"#, 22),
            (#"[{"a":1}"#, 8), (#"{"results":[{"a":1}], "results":[]}"#, 20),
        ] {
            var cutter = ParseExportRowCutter()
            do {
                try Data(text.utf8).withUnsafeBytes { raw in try cutter.feed(raw) { _ throws(PFError) in } }
                try cutter.finish { _ throws(PFError) in }
                Issue.record("accepted \(text)")
            } catch let error as PFError {
                #expect(error.location?.offset == offset, "\(text): \(error)")
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    @Test func aMalformedRowLateInAFileNamesFileRowAndOffsetAndLeavesNoDestination() throws {
        let scratch = try Scratch()
        var rows = (0..<500).map { #"{"objectId":"id\#($0)","n":\#($0)}"# }
        rows[480] = #"{"objectId":"bad","n":tru}"#
        let text = "{\"results\":[" + rows.joined(separator: ",") + "]}"
        let dir = try scratch.directory("export", ["Item.json": text])
        let source = ParseExportStore(url: dir, options: .init(chunkSize: 100))
        let destination = scratch.path("out.zip")
        do {
            try StoreTransfer.copy(from: source, to: ParseExportStore(url: destination))
            Issue.record("the copy succeeded")
        } catch let error as PFError {
            let rowOffset = text.utf8.count - text.split(separator: "tru}")[1].utf8.count - #"{"objectId":"bad","n":tru}"#.utf8.count
            #expect(error.description.contains("Item.json: row 480"), "\(error)")
            #expect(error.path?.description == "results[480]", "\(error)")
            #expect((error.location?.offset ?? 0) > rowOffset, "\(error)")
            #expect((error.location?.offset ?? 0) < rowOffset + 30, "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) == ["export"], "no temporary sibling left")

        // An existing destination stays as it was.
        let existing = scratch.path("existing")
        let memory = StoreGen.store(seed: 11).memoryStore()
        try StoreTransfer.copy(from: memory, to: ParseExportStore(url: existing))
        let before = try snapshot(existing)
        #expect(throws: PFError.self) { try StoreTransfer.copy(from: source, to: ParseExportStore(url: existing)) }
        #expect(try snapshot(existing) == before)
    }

    func snapshot(_ dir: URL) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) {
            out[name] = try Data(contentsOf: dir.appendingPathComponent(name))
        }
        return out
    }

    @Test func writingIntoAnExistingExportMergesByObjectId() throws {
        let scratch = try Scratch()
        let dir = try scratch.directory("export", [
            "Item.json": #"{"results":[{"objectId":"a","v":1},{"objectId":"b","v":2}]}"#,
            "Other.json": #"[{"objectId":"o","w":true}]"#,
            "_Join:likes:Item.json": #"[{"owningId":"a","relatedId":"u1"}]"#,
        ])
        let store = ParseExportStore(url: dir)
        try store.begin(schema: ParseSchema())
        try store.write([try ParseObject(className: "Item", objectId: "b", fields: ["v": .int(20)]),
                         try ParseObject(className: "Item", objectId: "c", fields: ["v": .int(3)]),
                         try ParseObject(className: "Item", objectId: "c", fields: ["v": .int(30)])], className: "Item")
        try store.write([ParseJoinRow(owningId: "a", relatedId: "u1"), ParseJoinRow(owningId: "b", relatedId: "u2")],
                        relation: ParseRelationKey(owningClass: "Item", field: "likes"))
        // Nothing visible before commit.
        #expect(try ParseExportStore(url: dir).objects(in: "Item").count == 2)
        try store.commit()
        let back = ParseExportStore(url: dir)
        let items = try back.objects(in: "Item")
        #expect(Dictionary(uniqueKeysWithValues: items.map { ($0.objectId ?? "", $0.fields["v"]) }) == ["a": .int(1), "b": .int(20), "c": .int(30)])
        #expect(try back.objects(in: "Other").count == 1)
        #expect(Set(try back.joinRows(of: ParseRelationKey(owningClass: "Item", field: "likes"))) ==
                [ParseJoinRow(owningId: "a", relatedId: "u1"), ParseJoinRow(owningId: "b", relatedId: "u2")])
    }

    @Test func beginCleansWhatAKilledRunLeft() throws {
        let scratch = try Scratch()
        let dest = scratch.path("export")
        // A killed run: a half-written staging directory and temporary zip, and the previous
        // export moved aside but not replaced.
        let staging = scratch.path(".export.pfarchive-tmp")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        try Data("{\"results\":[{\"objectId\":".utf8).write(to: staging.appendingPathComponent("Item.json"))
        try Data("PK".utf8).write(to: scratch.path(".export.pfarchive-tmp.zip"))
        _ = try scratch.directory(".export.pfarchive-old", ["Item.json": #"[{"objectId":"a"}]"#])
        let store = ParseExportStore(url: dest)
        try store.begin(schema: ParseSchema())
        try store.write([try ParseObject(className: "Item", objectId: "b", fields: [:])], className: "Item")
        try store.commit()
        #expect(try Set(ParseExportStore(url: dest).objects(in: "Item").compactMap(\.objectId)) == ["a", "b"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) == ["export"])
    }

    @Test func abortLeavesNothing() throws {
        let scratch = try Scratch()
        let store = ParseExportStore(url: scratch.path("x.zip"))
        try store.begin(schema: ParseSchema(["A": [:]]))
        try store.write([try ParseObject(className: "A", objectId: "a", fields: [:])], className: "A")
        store.abort()
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).isEmpty)
    }

    /// A file that is not a zip (here 4 MB of JSON, and a zip cut before its end record) is
    /// refused by its missing end record, read once from its last 64 KiB, before ZIPFoundation
    /// would look for the record a byte at a time through the whole file; a zip whose end
    /// record sits behind a comment still opens.
    @Test func aFileThatIsNotAZipIsToldByItsEndRecord() throws {
        let scratch = try Scratch()
        let json = scratch.path("export.json")
        try Data(("{\"results\":[" + String(repeating: "{\"a\":1},", count: 500_000) + "{}]}").utf8).write(to: json)
        let real = scratch.path("real.zip")
        let archive = try Archive(url: real, accessMode: .create)
        try archive.addEntry(with: "Item.json", type: .file, uncompressedSize: 15, compressionMethod: .deflate) { (_: Int64, _: Int) throws -> Data in
            Data(#"{"results":[]} "#.utf8)
        }
        let bytes = try Data(contentsOf: real)
        let cut = scratch.path("cut.zip")
        try bytes.dropLast(22).write(to: cut)
        let text = scratch.path("export.txt")
        try Data(contentsOf: json).write(to: text)
        for url in [text, cut] {
            #expect(!ZipEntryData.hasEndRecord(atPath: url.path))
            #expect { try ParseExportStore(url: url).objects(in: "Item") } throws: { error in
                guard case .notAZip(let path, let reason)? = (error as? PFError)?.failure(as: StoreFailure.self) else { return false }
                let hint = url == text ? "; a Parse export is a directory, a .zip of class files or one <Class>.json file" : ""
                return path == url.path && reason == "no end of central directory record" + hint
            }
        }
        // A class file that is not a zip is an export of its one class.
        #expect(!ZipEntryData.hasEndRecord(atPath: json.path))
        let one = ParseExportStore(url: json)
        #expect(try one.classNames() == ["export"])
        #expect(try one.objects(in: "export").count == 500_001)
        // A comment after the end record: the record is still found in the last 64 KiB.
        var commented = bytes
        let comment = Data(repeating: UInt8(ascii: "c"), count: 60_000)
        commented[commented.count - 2] = UInt8(comment.count & 0xFF)
        commented[commented.count - 1] = UInt8(comment.count >> 8)
        commented.append(comment)
        let withComment = scratch.path("comment.zip")
        try commented.write(to: withComment)
        #expect(ZipEntryData.hasEndRecord(atPath: withComment.path))
        #expect(try ParseExportStore(url: withComment).objects(in: "Item").isEmpty)
        #expect(!ZipEntryData.hasEndRecord(atPath: scratch.path("missing.zip").path))
    }

    /// One class file, as Parse's dashboard exports a class, reads as an export of that class:
    /// the same objects, schema and Relations as in the whole export, plain or compressed, an
    /// error in it named once, and it is still refused as a destination, left as it was.
    @Test func aClassFileAloneIsAnExportOfItsClass() throws {
        let scratch = try Scratch()
        let whole = ParseExportStore(url: realExport)
        for name in ["Comment", "NameWord", "_Role"] {
            let one = ParseExportStore(url: realExport.appendingPathComponent(name + ".json"))
            #expect(try one.classNames() == [name])
            #expect(try one.objects(in: name) == whole.objects(in: name), "\(name)")
            // A Relation is known from its join file, which is not there.
            #expect(try one.schema().classes[name] == whole.schema().classes[name]?.filter { $0.value.type != .relation }, "\(name)")
            #expect(try one.relations().isEmpty)
        }
        // Compressed, whatever its name says.
        let dir = try CompressedClassFileTests.compressedCopy(in: scratch)
        #expect(try ParseExportStore(url: dir.appendingPathComponent("NameWord.json.gz")).objects(in: "NameWord") == whole.objects(in: "NameWord"))
        #expect(try ParseExportStore(url: dir.appendingPathComponent("Comment.json")).objects(in: "Comment") == whole.objects(in: "Comment"))
        // An error in the file names it once.
        let broken = scratch.path("Item.json")
        try Data(#"{"results":[{"objectId":"a"},"#.utf8).write(to: broken)
        do {
            _ = try ParseExportStore(url: broken).objects(in: "Item")
            Issue.record("a cut file was read")
        } catch {
            #expect(error.message.hasPrefix(broken.path + ": ") && !error.message.contains("Item.json: Item.json"), "\(error)")
        }
        // Never a destination: the file is left as it was.
        let before = try Data(contentsOf: broken)
        #expect(throws: PFError.self) { try StoreTransfer.copy(from: whole, to: ParseExportStore(url: broken)) }
        #expect(try Data(contentsOf: broken) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).sorted() == ["Item.json", dir.lastPathComponent].sorted())
    }

    @Test func zipBombsAreStopped() throws {
        let scratch = try Scratch()
        let zip = scratch.path("bomb.zip")
        let archive = try Archive(url: zip, accessMode: .create)
        let size = 8 << 20
        try archive.addEntry(with: "Item.json", type: .file, uncompressedSize: Int64(size), compressionMethod: .deflate) { position, chunk in
            Data(repeating: position == 0 ? 0x5B : 0x20, count: chunk)
        }
        var limits = PFLimits()
        limits.maxCompressionRatio = 100
        let store = ParseExportStore(url: zip, options: .init(limits: limits))
        #expect { try store.objects(in: "Item") } throws: { error in
            guard case .entryLimitExceeded(let entry, "maxCompressionRatio", 100)? = (error as? PFError)?.failure(as: CompressionFailure.self) else { return false }
            return (error as? PFError)?.code == .limitExceeded && entry.hasSuffix("Item.json")
        }
        limits = PFLimits()
        limits.maxDecompressedBytes = 1 << 20
        #expect { try ParseExportStore(url: zip, options: .init(limits: limits)).objects(in: "Item") } throws: { error in
            guard case .entryLimitExceeded(_, let limit, _)? = (error as? PFError)?.failure(as: CompressionFailure.self) else { return false }
            return limit == "maxDecompressedBytes"
        }
    }
}

/// Class files compressed with gzip or zlib, as `.json.gz` or under their `.json` name, in a
/// directory and in a zip: read as the plain files are, never skipped, under the
/// decompression limits.
@Suite struct CompressedClassFileTests {
    /// The real export with `NameWord` as `NameWord.json.gz` and `Comment.json` zlib'd in place.
    static func compressedCopy(in scratch: Scratch) throws -> URL {
        let dir = scratch.path("compressed")
        try FileManager.default.copyItem(at: realExport, to: dir)
        let nameWord = dir.appendingPathComponent("NameWord.json")
        try Compression.compress(Data(contentsOf: nameWord), as: .gzip).write(to: dir.appendingPathComponent("NameWord.json.gz"))
        try FileManager.default.removeItem(at: nameWord)
        let comment = dir.appendingPathComponent("Comment.json")
        try Compression.compress(Data(contentsOf: comment), as: .zlib).write(to: comment)
        return dir
    }

    @Test func compressedFilesReadAsThePlainOnes() throws {
        let scratch = try Scratch()
        let dir = try Self.compressedCopy(in: scratch)
        let zip = scratch.path("compressed.zip")
        let archive = try Archive(url: zip, accessMode: .create)
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) {
            try archive.addEntry(with: name, relativeTo: dir, compressionMethod: .deflate)
        }
        let plain = ParseExportStore(url: realExport)
        for url in [dir, zip] {
            let store = ParseExportStore(url: url)
            #expect(try store.classNames() == plain.classNames(), "\(url.lastPathComponent)")
            #expect(try store.schema() == plain.schema())
            #expect(try store.relations() == plain.relations())
            for name in try plain.classNames() {
                #expect(try store.objects(in: name) == plain.objects(in: name), "\(url.lastPathComponent): \(name)")
            }
        }
        // Only a plain file on disk is read again at a row's offset.
        let store = ParseExportStore(url: dir)
        #expect(try store.classFilePath(of: "NameWord") == nil)
        #expect(try store.classFilePath(of: "Comment") == nil)
        #expect(try store.classFilePath(of: "_Role") == dir.appendingPathComponent("_Role.json").path)
    }

    @Test func damagedOrDoubledCompressedFilesFail() throws {
        let scratch = try Scratch()
        let dir = try Self.compressedCopy(in: scratch)
        let gz = dir.appendingPathComponent("NameWord.json.gz")
        let whole = try Data(contentsOf: gz)
        // Cut short: an error naming the file, never the rows read so far.
        try whole.prefix(whole.count / 2).write(to: gz)
        #expect { try ParseExportStore(url: dir).objects(in: "NameWord") } throws: { error in
            let e = error as? PFError
            return e?.code == .truncated && e?.message.contains("NameWord.json.gz") == true
        }
        // The same class as .json and .json.gz.
        try whole.write(to: gz)
        try Data("[]".utf8).write(to: dir.appendingPathComponent("NameWord.json"))
        #expect { try ParseExportStore(url: dir).classNames() } throws: { error in
            (error as? PFError)?.failure(as: StoreFailure.self) == .duplicateClassFile(location: dir.path, className: "NameWord")
        }
    }

    @Test func compressedBombsAreStopped() throws {
        let scratch = try Scratch()
        let dir = scratch.path("bomb")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        var json = Data("[".utf8)
        json.append(Data(repeating: 0x20, count: 8 << 20))
        json.append(Data("]".utf8))
        try Compression.compress(json, as: .gzip, level: 9).write(to: dir.appendingPathComponent("Item.json.gz"))
        var limits = PFLimits()
        limits.maxCompressionRatio = 100
        #expect { try ParseExportStore(url: dir, options: .init(limits: limits)).objects(in: "Item") } throws: { error in
            (error as? PFError)?.code == .limitExceeded && (error as? PFError)?.message.contains("Item.json.gz") == true
        }
    }
}

/// The schema inferred while an export without `_SCHEMA.json` is read: each field takes the
/// type of its first non-null value, and every other type a field shows is a conflict listed
/// once, with the first row that has it — whatever order the rows give their fields in.
@Suite struct ExportSchemaInferenceTests {
    static let keys = ["name", "score", "owner", "flag", "note"]

    /// Rows of one class drawn from a few keys with values of varying types (nulls and
    /// pointers to two classes among them), fields in varying order and often repeating the
    /// previous row's layout, as real exports do.
    static let rows = Generator(run: { rng -> [ParseObject] in
        var rows: [ParseObject] = []
        var layout: [String] = []
        for _ in 0..<Int.random(in: 1...40, using: &rng) {
            if layout.isEmpty || Int.random(in: 0..<4, using: &rng) == 0 {
                layout = Array(keys.shuffled(using: &rng).prefix(Int.random(in: 1...keys.count, using: &rng)))
            }
            var fields = OrderedDictionary<String, ParseValue>()
            for key in layout {
                let value: ParseValue
                switch Int.random(in: 0..<12, using: &rng) {
                case 0: value = .null
                case 1: value = .string("s")
                case 2: value = .bool(true)
                case 3: value = .pointer(ParsePointer(className: "A", objectId: "x"))
                case 4: value = .pointer(ParsePointer(className: "B", objectId: "y"))
                default: value = .int(Int64(key.count))  // mostly one type per key
                }
                fields[key] = value
            }
            if let object = try? ParseObject(className: "Thing", objectId: "id\(rows.count)", fields: fields) {
                rows.append(object)
            }
        }
        return rows
    }, shrink: { _ in [] })

    @Test func inferenceMatchesAFieldByFieldReading() async throws {
        let scratch = try Scratch()
        await propertyCheck(count: 60, input: Self.rows) { rows in
            // The reference: every field of every row, looked up by name.
            var fields = OrderedDictionary<String, ParseSchema.Field>()
            var conflicts: [(field: String, kept: ParseSchema.Field, other: ParseSchema.Field, row: Int)] = []
            for (row, object) in rows.enumerated() {
                for (key, value) in object.fields {
                    guard let type = ParseSchema.fieldType(of: value) else { continue }
                    if let known = fields[key] {
                        if known != type, !conflicts.contains(where: { $0.field == key && $0.other == type }) {
                            conflicts.append((key, known, type, row))
                        }
                    } else {
                        fields[key] = type
                    }
                }
            }
            let text = try? JSONWriter().write(["results": .array(rows.map(\.restValue))])
            let dir = scratch.path(UUID().uuidString)
            try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try? text?.write(to: dir.appendingPathComponent("Thing.json"))
            let store = ParseExportStore(url: dir)
            let schema = try? store.schema()
            #expect(schema?.classes["Thing"] == fields)
            #expect(store.typeConflicts.map { "\($0.className).\($0.field) \($0.kept) \($0.other) \($0.row)" }
                == conflicts.map { "Thing.\($0.field) \($0.kept) \($0.other) \($0.row)" })
        }
    }
}
