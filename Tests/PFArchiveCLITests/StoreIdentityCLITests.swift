import Foundation
import PFTestSupport
import Testing

/// A store named two ways is one store, and `patch` writes only new stores (a real sweep:
/// `import s.sqlite h.sqlite` through a hard link, or into a symbolic link to the source
/// directory, rewrote the source; `patch A P existing.sqlite` merged into it, keeping every
/// object the patch removes, with exit 0).
@Suite struct StoreIdentityCLITests {
    @Test func aSourceReachedThroughALinkIsTheSameStore() throws {
        let dir = try ValidateCommandTests().temporaryExport(["T.json": #"[{"objectId":"a","n":1},{"objectId":"b","n":2}]"#])
        defer { try? FileManager.default.removeItem(at: dir) }
        let parent = dir.deletingLastPathComponent()
        let store = parent.appendingPathComponent("\(dir.lastPathComponent)-s.sqlite")
        let hard = parent.appendingPathComponent("\(dir.lastPathComponent)-h.sqlite")
        let soft = parent.appendingPathComponent("\(dir.lastPathComponent)-link")
        defer { for url in [store, hard, soft] { try? FileManager.default.removeItem(at: url) } }
        #expect(try CLI.run(["import", dir.path, store.path]).status == 0)
        try FileManager.default.linkItem(at: store, to: hard)
        try FileManager.default.createSymbolicLink(at: soft, withDestinationURL: dir)
        let before = try Data(contentsOf: store)
        for (source, dest) in [(store.path, hard.path), (dir.path, soft.path)] {
            let run = try CLI.run(["import", source, dest])
            #expect(run.status == 2 && run.stderr.contains("the same store"), "\(source) → \(dest): \(run.stderr)")
        }
        #expect(try Data(contentsOf: store) == before)
    }

    /// One PostgreSQL database however its URL is spelled (read as the store reads it, before
    /// connecting); two databases of one server are two stores.
    @Test func aPostgreSQLDatabaseSpelledTwoWaysIsTheSameStore() throws {
        let same = try CLI.run(["import", "postgres://localhost:1", "postgres://postgres@127.0.0.1:1/postgres"])
        #expect(same.status == 2 && same.stderr.contains("the same store"), "\(same.stderr)")
        let other = try CLI.run(["import", "postgres://app:p%40ss@127.0.0.1:1/prod", "postgres://app:p%40ss@127.0.0.1:1/staging"])
        #expect(other.status == 1 && !other.stderr.contains("the same store"), "\(other.stderr)")
    }

    @Test func patchRefusesAnOutputThatExists() throws {
        let dir = try ValidateCommandTests().temporaryExport(["T.json": #"[{"objectId":"a","n":1},{"objectId":"b","n":2}]"#])
        defer { try? FileManager.default.removeItem(at: dir) }
        let parent = dir.deletingLastPathComponent()
        let out = parent.appendingPathComponent("\(dir.lastPathComponent)-out.sqlite")
        let fresh = parent.appendingPathComponent("\(dir.lastPathComponent)-fresh.sqlite")
        let patch = parent.appendingPathComponent("\(dir.lastPathComponent)-p.json")
        defer { for url in [out, fresh, patch] { try? FileManager.default.removeItem(at: url) } }
        try Data(#"[{"op":"remove","path":"/T/b"}]"#.utf8).write(to: patch)
        #expect(try CLI.run(["import", dir.path, out.path]).status == 0)
        let before = try Data(contentsOf: out)
        let refused = try CLI.run(["patch", dir.path, patch.path, out.path])
        #expect(refused.status == 1 && refused.stderr.contains("exists; patch writes a new store")
            && refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(try Data(contentsOf: out) == before)
        #expect(try CLI.run(["patch", dir.path, patch.path, fresh.path]).status == 0)
        let diff = try CLI.run(["diff", dir.path, fresh.path])
        #expect(diff.status == 1 && diff.stdoutText.hasPrefix("- T/b\n"), "\(diff.stdoutText)")
    }
}
