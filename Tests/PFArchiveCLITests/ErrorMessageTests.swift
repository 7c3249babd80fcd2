import Foundation
import PFCompression
import PFTestSupport
import Testing

/// What the CLI's one-line errors say: an empty input is empty, and a file named by the
/// CLI is not named again by the store's message (issue 21).
@Suite struct ErrorMessageTests {
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pfarchive-messages-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func anEmptyInputIsCalledEmpty() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let empty = dir.appendingPathComponent("empty.json")
        try Data().write(to: empty)
        let gzipped = dir.appendingPathComponent("empty.json.gz")
        try Compression.compress(Data(), as: .gzip).write(to: gzipped)
        for (arguments, input, says) in [
            (["convert", empty.path, "-"], nil, "empty.json: input: the input is empty (0 bytes)"),
            (["inspect", empty.path], nil, "empty.json: input: the input is empty (0 bytes)"),
            (["inspect", gzipped.path], nil, "the input is empty (0 bytes after decompression)"),
            (["convert", "-", "-"], Data(), "<stdin>: input: the input is empty (0 bytes)"),
        ] as [([String], Data?, String)] {
            let run = try CLI.run(arguments, input: input)
            #expect(run.status == 1, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(says) && !run.stderr.contains("unrecognised"), "\(arguments): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1)
        }
    }

    @Test func aBrokenCoreDataStoreIsNamedOnce() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // The first 3,000 bytes of a Core Data store: the SQLite header is there, the schema is not.
        let whole = try Data(contentsOf: Fixtures.real.appendingPathComponent("coredata/coredataplus/SampleModel2_V2.sqlite"))
        let store = dir.appendingPathComponent("Short.sqlite")
        try whole.prefix(3000).write(to: store)
        let dest = dir.appendingPathComponent("out.sqlite")
        for arguments in [["inspect", store.path], ["import", store.path, dest.path]] {
            let run = try CLI.run(arguments)
            #expect(run.status == 1, "\(arguments): \(run.stderr)")
            #expect(run.stderr.components(separatedBy: "Short.sqlite").count == 2, "\(arguments): named more than once: \(run.stderr)")
            #expect(!run.stderr.contains("Parse"), "\(arguments): \(run.stderr)")
        }
    }
}
