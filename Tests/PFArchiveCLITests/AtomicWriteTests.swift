import Foundation
import PFJSON
import PFTestSupport
import Testing

/// Outputs are never partial: every command that writes a file (`convert`, `migrate`) writes
/// a temporary file in the destination's directory and renames it over the destination, so
/// on any error the destination keeps its old bytes and no temporary file is left behind.
@Suite struct AtomicWriteTests {
    static let original = Data("ORIGINAL CONTENTS\n".utf8)
    static let schema = Fixtures.repoRoot.appendingPathComponent("Tests/PFVersioningTests/Fixtures/schema.json").path
    static let employeesV1 = Fixtures.repoRoot.appendingPathComponent("Tests/PFVersioningTests/Fixtures/json/employees-v1.json")

    /// A fresh directory holding `out.<ext>` with ``original`` in it.
    struct Scene {
        var directory: URL
        var output: URL

        init(outputName: String) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("pfarchive-atomic-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            output = directory.appendingPathComponent(outputName)
            try AtomicWriteTests.original.write(to: output)
        }

        func input(_ name: String, _ bytes: Data) throws -> String {
            let url = directory.appendingPathComponent(name)
            try bytes.write(to: url)
            return url.path
        }

        /// The directory's entries other than the inputs named.
        func entries(except inputs: [String]) -> Set<String> {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            return Set(names).subtracting(inputs.map { ($0 as NSString).lastPathComponent })
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    /// The destination is untouched and nothing else appeared next to it.
    static func expectUntouched(_ scene: Scene, inputs: [String], _ run: Peers.Result, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == 1, "\(run.stderr)", sourceLocation: sourceLocation)
        #expect(run.stderr.hasPrefix("pfarchive: ") && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)", sourceLocation: sourceLocation)
        #expect((try? Data(contentsOf: scene.output)) == original, "the destination keeps its old bytes", sourceLocation: sourceLocation)
        #expect(scene.entries(except: inputs) == [scene.output.lastPathComponent], "no temporary file is left behind", sourceLocation: sourceLocation)
    }

    @Test func convertWithBadInputLeavesTheDestinationUntouched() throws {
        let scene = try Scene(outputName: "out.json")
        defer { scene.remove() }
        let input = try scene.input("bad.bplist", Data("bplist00 not really".utf8) + Data(count: 40))
        Self.expectUntouched(scene, inputs: [input], try CLI.run(["convert", input, scene.output.path]))
    }

    @Test func convertFailingWhileWritingLeavesTheDestinationUntouched() throws {
        // Reading succeeds; a property list cannot hold null, so the writer fails.
        let scene = try Scene(outputName: "out.bplist")
        defer { scene.remove() }
        let input = try scene.input("null.json", Data(#"{"a":[1,null]}"#.utf8))
        let run = try CLI.run(["convert", input, scene.output.path])
        Self.expectUntouched(scene, inputs: [input], run)
        #expect(run.stderr.contains("null"), "\(run.stderr)")
    }

    @Test func convertOverALimitLeavesTheDestinationUntouched() throws {
        let scene = try Scene(outputName: "out.cbor")
        defer { scene.remove() }
        let input = try scene.input("deep.json", Data(("[" + String(repeating: "[", count: 20) + String(repeating: "]", count: 21)).utf8))
        let run = try CLI.run(["convert", input, scene.output.path, "--max-depth", "8"])
        Self.expectUntouched(scene, inputs: [input], run)
        #expect(run.stderr.contains("maxDepth (8)"), "\(run.stderr)")
    }

    @Test func convertOntoADirectoryFailsAndCleansUp() throws {
        let scene = try Scene(outputName: "out.json")
        defer { scene.remove() }
        let input = try scene.input("ok.json", Data("[1,2,3]".utf8))
        // A non-empty directory where the output should go: rename(2) must fail.
        let blocker = scene.directory.appendingPathComponent("dir.json")
        try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: false)
        try Data("x".utf8).write(to: blocker.appendingPathComponent("inside"))
        let run = try CLI.run(["convert", input, blocker.path])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
        #expect(scene.entries(except: [input]) == ["out.json", "dir.json"], "no temporary file is left behind")
        #expect(try FileManager.default.contentsOfDirectory(atPath: blocker.path) == ["inside"])
    }

    @Test func convertIntoAMissingDirectoryFails() throws {
        let scene = try Scene(outputName: "out.json")
        defer { scene.remove() }
        let input = try scene.input("ok.json", Data("[1]".utf8))
        let run = try CLI.run(["convert", input, scene.directory.appendingPathComponent("nope/out.json").path])
        #expect(run.status == 1)
        #expect(run.stderr.contains("does not exist"), "\(run.stderr)")
        #expect(scene.entries(except: [input]) == ["out.json"])
    }

    /// Success replaces the destination by a rename: a hard link to the old file still sees
    /// the old bytes (an in-place rewrite would change both), and no temporary file remains.
    @Test func convertSuccessReplacesTheDestinationByRename() throws {
        let scene = try Scene(outputName: "out.json")
        defer { scene.remove() }
        let link = scene.directory.appendingPathComponent("old-link")
        try FileManager.default.linkItem(at: scene.output, to: link)
        let input = try scene.input("ok.cbor", Data([0x82, 0x01, 0x02]))
        let run = try CLI.run(["convert", input, scene.output.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Data(contentsOf: scene.output) == Data("[1,2]".utf8) || String(decoding: try Data(contentsOf: scene.output), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "[1,2]")
        #expect(try Data(contentsOf: link) == Self.original)
        #expect(scene.entries(except: [input]) == ["out.json", "old-link"])
    }

    @Test func migrateWithBadInputLeavesTheDestinationUntouched() throws {
        let scene = try Scene(outputName: "out.json")
        defer { scene.remove() }
        let input = try scene.input("bad.json", Data(#"{"$class": "Employee", "name": "#.utf8))
        Self.expectUntouched(scene, inputs: [input], try CLI.run(["migrate", input, scene.output.path, "--schema", Self.schema]))
    }

    @Test func migrateOverALimitLeavesTheDestinationUntouched() throws {
        let scene = try Scene(outputName: "out.json")
        defer { scene.remove() }
        let input = try scene.input("v1.json", try Data(contentsOf: Self.employeesV1))
        let run = try CLI.run(["migrate", input, scene.output.path, "--schema", Self.schema, "--max-bytes", "16"])
        Self.expectUntouched(scene, inputs: [input], run)
        #expect(run.stderr.contains("maxInputBytes (16)"), "\(run.stderr)")
    }

    @Test func migrateSuccessReplacesTheDestinationByRename() throws {
        let scene = try Scene(outputName: "out.json")
        defer { scene.remove() }
        let link = scene.directory.appendingPathComponent("old-link")
        try FileManager.default.linkItem(at: scene.output, to: link)
        let input = try scene.input("v1.json", try Data(contentsOf: Self.employeesV1))
        let run = try CLI.run(["migrate", input, scene.output.path, "--schema", Self.schema, "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        let written = try Data(contentsOf: scene.output)
        #expect(written != Self.original && !written.isEmpty)
        #expect(try JSONReader().read(written) != .null)
        #expect(try Data(contentsOf: link) == Self.original)
        #expect(scene.entries(except: [input]) == ["out.json", "old-link"])
    }
}
