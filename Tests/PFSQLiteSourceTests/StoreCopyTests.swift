import Foundation
@testable import PFSQLiteSource
import Testing

/// The private copy every SQLite source is read through: byte for byte, whatever the size,
/// through a symbolic link, and never beside the source.
@Suite struct StoreCopyTests {
    @Test func theCopyHoldsEveryByteOfFilesOfAnySize() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pf-storecopy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Empty, one byte, a chunk and a bit (the fallback loop's unit), several mebibytes.
        for size in [0, 1, (1 << 20) + 7, 3 * (1 << 20) + 4093] {
            var generator = SystemRandomNumberGenerator()
            let bytes = Data((0 ..< size).map { _ in UInt8.random(in: 0 ... 255, using: &generator) })
            let source = directory.appendingPathComponent("source-\(size)")
            try bytes.write(to: source)
            let link = directory.appendingPathComponent("link-\(size)")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: source)
            for input in [source, link] {
                let copy = directory.appendingPathComponent("copy-\(size)-\(input.lastPathComponent)")
                try StoreCopy.copyContents(of: input.path, to: copy.path)
                #expect(try Data(contentsOf: copy) == bytes, "size \(size) through \(input.lastPathComponent)")
                let mode = try FileManager.default.attributesOfItem(atPath: copy.path)[.posixPermissions] as? Int
                #expect(mode == 0o600)
            }
        }
    }

    @Test func anExistingDestinationIsNeverOverwritten() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pf-storecopy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("source")
        let existing = directory.appendingPathComponent("existing")
        try Data("new".utf8).write(to: source)
        try Data("kept".utf8).write(to: existing)
        #expect(throws: StoreCopy.CopyError.self) { try StoreCopy.copyContents(of: source.path, to: existing.path) }
        #expect(try Data(contentsOf: existing) == Data("kept".utf8))
    }
}
