import Foundation
import PFTestSupport
import Testing

/// A store named two ways is one store, and `patch` writes only new stores (a real sweep:
/// `import s.sqlite h.sqlite` through a hard link, or into a symbolic link to the source
/// directory, rewrote the source; `patch A P existing.sqlite` merged into it, keeping every
/// object the patch removes, with exit 0).
@Suite struct StoreIdentityCLITests {
    /// A new export holding `T` with objects a and b, and a path beside it for each name.
    static func export(besideIt names: [String]) throws -> (export: URL, beside: [URL]) {
        let dir = try ValidateCommandTests().temporaryExport(["T.json": #"[{"objectId":"a","n":1},{"objectId":"b","n":2}]"#])
        return (dir, names.map { dir.deletingLastPathComponent().appendingPathComponent("\(dir.lastPathComponent)-\($0)") })
    }

    @Test func aSourceReachedThroughALinkIsTheSameStore() throws {
        let (dir, beside) = try Self.export(besideIt: ["s.sqlite", "h.sqlite", "link"])
        let (store, hard, soft) = (beside[0], beside[1], beside[2])
        defer { for url in [dir] + beside { try? FileManager.default.removeItem(at: url) } }
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
        let (dir, beside) = try Self.export(besideIt: ["out.sqlite", "fresh.sqlite", "p.json"])
        let (out, fresh, patch) = (beside[0], beside[1], beside[2])
        defer { for url in [dir] + beside { try? FileManager.default.removeItem(at: url) } }
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
