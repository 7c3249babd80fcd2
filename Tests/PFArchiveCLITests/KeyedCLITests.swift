import Foundation
import PFCore
import PFJSON
import PFKeyedArchive
import PFPropertyList
import PFTestSupport
import Testing

/// `pfarchive convert/inspect --from keyed / --to keyed`, through the built binary. These use
/// property lists for the JSON-shaped tree; the JSON-file forms are in KeyedCLIJSONTests.
@Suite struct KeyedCLITests {
    static let circular = Fixtures.real.appendingPathComponent("keyed/bpylist2-circular_archive.bplist").path
    static let expectedShape: PFValue = [
        "$class": "crap.Foo", "$classes": ["crap.Foo", "NSCoder", "NSObject"], "$id": 1, "recursive": ["$ref": 1], "title": "hello",
    ]

    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("keyedcli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func convertGivesTheDesignShapeForACycle() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.plist").path
        let result = try CLI.run(["convert", Self.circular, out, "--from", "keyed", "--to", "xmlplist"])
        #expect(result.status == 0, "\(result.stderr)")
        let tree = try XMLPlistReader().read(Data(contentsOf: URL(fileURLWithPath: out)))
        #expect(tree == Self.expectedShape.reorderedLike(tree))
    }

    @Test func toKeyedAndBackGivesTheSameTree() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let shape: PFValue = [
            "people": [["$class": "Person", "$id": 1, "name": "Ann", "boss": ["$ref": 1]], ["$ref": 1]],
            "tags": ["$id": 2, "$value": ["a", "b"]], "again": ["$ref": 2], "$$dollar": 1,
        ]
        let input = dir.appendingPathComponent("in.plist")
        try XMLPlistWriter().write(shape).write(to: input)
        let archive = dir.appendingPathComponent("graph.archive").path
        let toKeyed = try CLI.run(["convert", input.path, archive, "--from", "xmlplist", "--to", "keyed"])
        #expect(toKeyed.status == 0, "\(toKeyed.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: archive)).starts(with: Array("bplist00".utf8)))
        let back = dir.appendingPathComponent("back.plist").path
        let fromKeyed = try CLI.run(["convert", archive, back, "--from", "keyed", "--to", "xmlplist"])
        #expect(fromKeyed.status == 0, "\(fromKeyed.stderr)")
        let tree = try XMLPlistReader().read(Data(contentsOf: URL(fileURLWithPath: back)))
        #expect(tree == shape.reorderedLike(tree))
    }

    @Test func xmlplistContainerWritesXML() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.plist")
        try XMLPlistWriter().write(["name": "x"]).write(to: input)
        let archive = dir.appendingPathComponent("x.archive")
        let result = try CLI.run(["convert", input.path, archive.path, "--from", "xmlplist", "--to", "keyed", "--container", "xmlplist"])
        #expect(result.status == 0, "\(result.stderr)")
        let text = String(decoding: try Data(contentsOf: archive), as: UTF8.self)
        #expect(text.hasPrefix("<?xml") && text.contains("<string>NSKeyedArchiver</string>") && text.contains("<key>CF$UID</key>"))
        #expect(try KeyedArchive.decodeGraph(Data(contentsOf: archive)).jsonValue() == ["name": "x"])
    }

    @Test func inspectShowsClasses() throws {
        let result = try CLI.run(["inspect", Self.circular, "--from", "keyed"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.contains("an NSKeyedArchiver archive (version 100000), 6 objects, $top keys: root"))
        #expect(result.stdoutText.contains("Classes:     crap.Foo ×2"), "two instances, one unreachable from $top")
    }

    @Test func inspectGraphPrintsDOT() throws {
        let result = try CLI.run(["inspect", Self.circular, "--graph"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.hasPrefix("digraph archive {"))
        #expect(result.stdoutText.contains("crap.Foo"))
        #expect(result.stdoutText.hasSuffix("}\n"))
    }

    @Test(arguments: ["ka_missing_top.bplist", "ka_class_uid_out_of_range.bplist", "ka_deep_nesting_20k.bplist"])
    func badArchivesExitOneWithOneLine(_ name: String) throws {
        let path = Fixtures.hostile.appendingPathComponent(name).path
        let result = try CLI.run(["convert", path, "-", "--from", "keyed", "--to", "xmlplist"])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("pfarchive: \(path): keyed archive: "))
        #expect(result.stdout.isEmpty)
    }
}

/// The same through JSON files: needs the real JSON module (this branch has a stub until the
/// JSON branch is merged), so it is a separate suite, not run by the keyed branch's filter.
@Suite struct KeyedCLIJSONTests {
    @Test func convertToJSONGivesTheDesignShape() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("keyedjson-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.json").path
        let cycle = Fixtures.real.appendingPathComponent("keyed/linux-corelibs/swift-linux-cycle.bplist").path
        let result = try CLI.run(["convert", cycle, out, "--from", "keyed"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONReader().read(Data(contentsOf: URL(fileURLWithPath: out)))
        #expect(json["$class"] == "kt.Node" && json["$id"] == 1)
        #expect(json["next"]?["next"] == ["$ref": 1])
        #expect(json["children"]?[1] == ["$ref": 3])

        let archive = dir.appendingPathComponent("again.archive").path
        #expect(try CLI.run(["convert", out, archive, "--to", "keyed"]).status == 0)
        let back = dir.appendingPathComponent("back.json").path
        #expect(try CLI.run(["convert", archive, back, "--from", "keyed"]).status == 0)
        #expect(try JSONReader().read(Data(contentsOf: URL(fileURLWithPath: back))) == json)
    }
}

extension PFValue {
    /// This dictionary with its keys in `other`'s order (recursively): compare by content
    /// where PFValue's `==` also compares key order.
    func reorderedLike(_ other: PFValue) -> PFValue {
        switch (self, other) {
        case (.dictionary(let mine), .dictionary(let theirs)) where Set(mine.keys) == Set(theirs.keys):
            var out: [(String, PFValue)] = []
            for (key, value) in theirs { out.append((key, mine[key]!.reorderedLike(value))) }
            return .dictionary(.init(uniqueKeysWithValues: out))
        case (.array(let mine), .array(let theirs)) where mine.count == theirs.count:
            return .array(zip(mine, theirs).map { $0.reorderedLike($1) })
        default: return self
        }
    }
}
