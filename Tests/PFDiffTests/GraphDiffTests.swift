import Foundation
import PFCore
import PFFormats
import PFKeyedArchive
import PFSerialization
import PFTestSupport
import Testing

@testable import PFDiff

/// Keyed archives and typedstreams compared as object graphs.
@Suite struct GraphDiffTests {
    static var graphOptions: DiffOptions {
        var o = DiffOptions()
        o.graph = true
        return o
    }

    /// Reads bytes as pfarchive reads an input (a keyed archive becomes its JSON shape).
    static func read(_ bytes: Data) throws -> DiffInput { try DiffInput.read(bytes) }

    static func keyed(_ shape: PFValue) throws -> Data {
        try FormatIO.write(shape, as: .keyed)
    }

    /// The same archive with its object table shuffled (every UID renumbered).
    static func renumbered(_ archive: Data, seed: UInt64) throws -> Data {
        guard case .dictionary(var top) = try FormatIO.read(archive, options: .init(format: .bplist)).value,
            case .array(let objects) = top["$objects"]
        else { throw PFError(.invalidValue, format: .diff, "not a keyed archive") }
        var order = Array(1..<objects.count)
        var rng = SplitMix64(seed: seed)
        order.shuffle(using: &rng)
        var newIndex = [Int](repeating: 0, count: objects.count)
        for (position, old) in order.enumerated() { newIndex[old] = position + 1 }
        func remap(_ v: PFValue) -> PFValue {
            switch v {
            case .uid(let u): return .uid(UInt64(newIndex[Int(u)]))
            case .array(let a): return .array(a.map(remap))
            case .dictionary(let m): return .dictionary(m.mapValues(remap))
            default: return v
            }
        }
        var shuffled = [PFValue](repeating: .null, count: objects.count)
        shuffled[0] = objects[0]
        for old in 1..<objects.count { shuffled[newIndex[old]] = remap(objects[old]) }
        top["$objects"] = .array(shuffled)
        top["$top"] = remap(top["$top"] ?? .null)
        return try FormatIO.write(.dictionary(top), as: .bplist)
    }

    static let sharedPlayer: PFValue = [
        "$class": "NSMutableDictionary",
        "first": ["$class": "Player", "name": "ann", "score": 10],
        "second": ["$class": "Player", "name": "ann", "score": 10],
    ]

    @Test func renumberedArchivesOfTheSameGraphAreEqual() throws {
        let shape: PFValue = try FormatIO.read(Self.keyed(["team": ["$class": "Team", "$id": 1, "name": "reds"],
            "players": [["$class": "Player", "team": ["$ref": 1], "name": "ann"],
                ["$class": "Player", "team": ["$ref": 1], "name": "bob"]]]), options: .init(format: .keyed)).value
        let archive = try Self.keyed(shape)
        for seed in 1...20 as ClosedRange<UInt64> {
            let other = try Self.renumbered(archive, seed: seed)
            #expect(other != archive || seed > 0)
            let a = try Self.read(archive).value, b = try Self.read(other).value
            #expect(ValueDiff.compare(a, b, options: Self.graphOptions).isEmpty)
        }
    }

    @Test func sharingVersusCopiesIsReportedWithBothPaths() throws {
        let shared: PFValue = ["a": ["$class": "P", "$id": 1, "n": 1], "b": ["$ref": 1]]
        let copies: PFValue = ["a": ["$class": "P", "n": 1], "b": ["$class": "P", "n": 1]]
        let a = try Self.read(Self.keyed(shared)).value, b = try Self.read(Self.keyed(copies)).value
        let result = ValueDiff.compare(a, b, options: Self.graphOptions)
        #expect(result.differences.map(\.description) == ["~ b: shared with a in A; a separate copy in B"])
        #expect(ValueDiff.compare(b, a, options: Self.graphOptions).differences.map(\.description)
            == ["~ b: a separate copy in A; shared with a in B"])
        // Shared with a different object.
        let elsewhere: PFValue = ["a": ["$class": "P", "n": 1], "c": ["$class": "P", "$id": 1, "n": 1], "b": ["$ref": 1]]
        let c = try Self.read(Self.keyed(elsewhere)).value
        #expect(ValueDiff.compare(a, c, options: Self.graphOptions).differences.map(\.description).contains(
            "~ b: shared with a in A; shared with c in B"))
        // Without graph mode the markers are plain keys.
        #expect(!ValueDiff.compare(a, b).isEmpty)
    }

    @Test func cyclesAreReportedAsCycles() throws {
        let ring: PFValue = ["$class": "Node", "$id": 1, "next": ["$class": "Node", "next": ["$ref": 1]]]
        let loop: PFValue = ["$class": "Node", "$id": 1, "next": ["$class": "Node", "$id": 2, "next": ["$ref": 2]]]
        let a = try Self.read(Self.keyed(ring)).value, b = try Self.read(Self.keyed(loop)).value
        #expect(ValueDiff.compare(a, b, options: Self.graphOptions).differences.map(\.description)
            == ["~ next.next: a cycle back to (root) in A; a cycle back to next in B"])
        #expect(ValueDiff.compare(a, a, options: Self.graphOptions).isEmpty)
    }

    @Test func patchesBetweenGraphShapesApply() throws {
        let shared: PFValue = ["a": ["$class": "P", "$id": 1, "n": 1], "b": ["$ref": 1], "c": 3]
        let copies: PFValue = ["a": ["$class": "P", "n": 1], "b": ["$class": "P", "n": 2]]
        let a = try Self.read(Self.keyed(shared)).value, b = try Self.read(Self.keyed(copies)).value
        let result = ValueDiff.compare(a, b, options: Self.graphOptions)
        let patched = try result.patch.apply(to: a)
        #expect(ValueDiff.compare(patched, b, options: Self.graphOptions).isEmpty)
    }

    /// Every real keyed archive that reads, rewritten in each container and renumbered, shows
    /// no difference as a graph.
    /// The real keyed archives that read as graphs (the damaged `-neg-` ones left out), with
    /// their bytes and what `diff` reads.
    static func realGraphs() throws -> [(file: URL, bytes: Data, input: DiffInput)] {
        let dir = Fixtures.real.appendingPathComponent("keyed")
        var files = try FileManager.default.contentsOfDirectory(at: dir, includingPropertiesForKeys: nil)
        files += try FileManager.default.contentsOfDirectory(at: dir.appendingPathComponent("linux-corelibs"), includingPropertiesForKeys: nil)
        return try files.filter { !$0.lastPathComponent.contains("-neg-") && !$0.hasDirectoryPath }.compactMap { file in
            let bytes = try Data(contentsOf: file)
            guard let input = try? Self.read(bytes), input.isGraph else { return nil }
            return (file, bytes, input)
        }
    }

    @Test func realArchivesSurviveRewritingAndRenumbering() throws {
        var compared = 0
        for (file, _, original) in try Self.realGraphs() {
            for container in [KeyedArchiveContainer.bplist, .xmlplist] {
                let rewritten = try FormatIO.write(original.value, as: .keyed, options: .init(keyedContainer: container))
                let back = try Self.read(rewritten).value
                let result = ValueDiff.compare(original.value, back, options: Self.graphOptions)
                #expect(result.isEmpty, "\(file.lastPathComponent): \(result.differences.prefix(3).map(\.description))")
            }
            let plain = try FormatIO.write(original.value, as: .keyed)
            let renumbered = try Self.read(Self.renumbered(plain, seed: 7)).value
            #expect(ValueDiff.compare(original.value, renumbered, options: Self.graphOptions).isEmpty, "\(file.lastPathComponent)")
            compared += 1
        }
        #expect(compared >= 10)
    }

    /// swift-corelibs-foundation wrote one graph (a cycle and a tag shared three times) as a
    /// binary and an XML archive whose objects list their keys in different orders, so each
    /// graph's JSON has the shared tag in full at a different path. They are the same graph:
    /// no difference. On main, three "sharing" differences.
    @Test func oneGraphFromTwoWritersIsEqual() throws {
        let dir = Fixtures.real.appendingPathComponent("keyed/linux-corelibs")
        let binary = try Self.read(Data(contentsOf: dir.appendingPathComponent("swift-linux-cycle.bplist")))
        let xml = try Self.read(Data(contentsOf: dir.appendingPathComponent("swift-linux-cycle.xml")))
        let result = ValueDiff.compare(binary.value, xml.value, options: Self.graphOptions)
        #expect(result.isEmpty, "\(result.differences.map(\.description))")
    }

    /// The canonical form puts each shared object in full at its first occurrence in key
    /// order, whatever order the writer used; it leaves alone a graph whose `$ref` names no
    /// `$id` and one that would nest deeper than the limit.
    @Test func canonicalFormDoesNotDependOnMemberOrder() throws {
        let tag: PFValue = ["$class": "Tag", "$id": 2, "label": "t"]
        let first: PFValue = ["$class": "Node", "$id": 1, "shared": tag, "children": [["$class": "Node", "shared": ["$ref": 2]]]]
        let second: PFValue = ["$class": "Node", "$id": 1, "children": [["$class": "Node", "shared": tag]], "shared": ["$ref": 2]]
        #expect(ValueDiff.compare(first, second, options: Self.graphOptions).isEmpty == false)
        let a = GraphCanonicalForm.canonical(first), b = GraphCanonicalForm.canonical(second)
        #expect(a == b)
        #expect(ValueDiff.compare(a, b, options: Self.graphOptions).isEmpty)
        // The canonical form is still a graph pfarchive writes and reads back.
        let archived = try FormatIO.write(a, as: .keyed)
        let readBack = try Self.read(archived).value
        #expect(readBack == a, "\(readBack) ≠ \(a)")
        // A cycle stays a cycle.
        let cycle: PFValue = ["$class": "Node", "$id": 1, "next": ["$class": "Node", "next": ["$ref": 1]]]
        #expect(GraphCanonicalForm.canonical(cycle) == cycle)
        // Left alone: a dangling $ref; a form deeper than the limit.
        let dangling: PFValue = ["b": ["$ref": 9], "a": ["$id": 1, "$value": [1]]]
        #expect(GraphCanonicalForm.canonical(dangling) == dangling)
        #expect(GraphCanonicalForm.canonical(second, maxDepth: 2) == second)
    }

    /// Every real keyed archive converted to a typedstream, JSON or CBOR (as `convert x.archive
    /// y.typedstream` does) is the same graph to `diff`. On main a cycle through keyed objects
    /// failed to write as a typedstream ("$ref 2 names no earlier $id": a keyed object is an
    /// NSDictionary there, and was not shared), a shared one read back wrapped in
    /// `{"$id", "$value"}`, and a graph's JSON was compared as a plain tree against the archive.
    @Test func realArchivesConvertedToOtherGraphFormatsAreTheSameGraph() throws {
        var compared = 0
        for (file, bytes, original) in try Self.realGraphs() {
            let decoded = try FormatIO.read(bytes, options: .init(format: .keyed)).value
            for format in [DataFormat.typedstream, .json, .cbor] {
                let converted = try FormatIO.write(decoded, as: format)
                let back = try Self.read(converted)
                if format == .typedstream { #expect(back.isGraph, "\(file.lastPathComponent)") }
                let result = ValueDiff.compare(original.value, back.value, options: Self.graphOptions)
                #expect(result.isEmpty, "\(file.lastPathComponent) → \(format): \(result.differences.prefix(3).map(\.description))")
            }
            compared += 1
        }
        #expect(compared >= 15)
    }

    /// A typedstream read as a keyed archive says what it is, instead of "CBOR: N trailing bytes".
    @Test func aTypedstreamIsNotTakenForAKeyedArchive() throws {
        let stream = try FormatIO.write(["$class": "NSObject"] as PFValue, as: .typedstream)
        #expect(throws: PFError.self) { _ = try KeyedArchive.readTable(stream) }
        do {
            _ = try KeyedArchive.readTable(stream)
        } catch {
            #expect(error.failure(as: KeyedArchiveFailure.self) == .typedstreamNotKeyed)
        }
    }

    /// Apple's real typedstreams (pytypedstream's samples) converted to a keyed archive are the
    /// same graph: the archive keeps each object's groups as a field named `$values`, which its
    /// JSON escapes (`$$values`). On main, 1,484 differences for Emacs.clr ("- [2][0].$values",
    /// "+ [2][0].$$values").
    @Test(arguments: ["Emacs.clr", "Empty2D macOS 10.14.gcx", "Empty2D macOS 13.gcx"])
    func realTypedstreamsConvertedToKeyedArchivesAreTheSameGraph(_ name: String) throws {
        let url = Fixtures.repoRoot.appendingPathComponent(".venv/pytypedstream-sdist/pytypedstream-0.1.0/tests/data/\(name)")
        try #require(FileManager.default.fileExists(atPath: url.path), "run scripts/setup.sh")
        let bytes = try Data(contentsOf: url)
        let stream = try Self.read(bytes)
        let archive = try FormatIO.write(try FormatIO.read(bytes).value, as: .keyed)
        let result = ValueDiff.compare(stream.value, try Self.read(archive).value, options: Self.graphOptions)
        #expect(result.isEmpty, "\(result.differences.prefix(3).map(\.description))")
    }
}
