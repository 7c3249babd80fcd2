import Foundation
import PFJSON
import PFTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Inputs that are not regular files, file names that are not UTF-8, and limits beyond what
/// pfarchive supports (issue 21).
@Suite struct InputArgumentTests {
    static let sample = Fixtures.repoRoot.appendingPathComponent("Samples/data/scores.json")

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pfarchive-args-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The names in a directory as raw bytes (`FileManager` would repair invalid UTF-8).
    static func rawNames(in directory: URL) -> [[UInt8]] {
        guard let dir = opendir(directory.path) else { return [] }
        defer { closedir(dir) }
        var names: [[UInt8]] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if name != Array(".".utf8) && name != Array("..".utf8) { names.append(name) }
        }
        return names
    }

    // MARK: - FIFOs and process substitution

    @Test func aFIFOIsReadAsAStream() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("in.fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let bytes = try Data(contentsOf: Self.sample)
        // The writer blocks in open(2) until pfarchive opens the FIFO for reading.
        let writer = Thread {
            if let handle = FileHandle(forWritingAtPath: fifo.path) {
                try? handle.write(contentsOf: bytes)
                try? handle.close()
            }
        }
        writer.start()
        let out = dir.appendingPathComponent("out.json")
        let run = try CLI.run(["convert", fifo.path, out.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try JSONReader().read(Data(contentsOf: out)) == JSONReader().read(bytes))
    }

    @Test func processSubstitutionIsReadAndItsLimitHolds() throws {
        let run = try Peers.run("/bin/bash", ["-c", #""$0" inspect <(cat "$1")"#, CLI.executable.path, Self.sample.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdoutText.contains("Format:      json"), "\(run.stdoutText)")
        // A stream has no size to check first: the limit stops it as soon as it is passed.
        // (The writers then meet a closed pipe; their complaints are not pfarchive's.)
        let big = try Peers.run("/bin/bash", ["-c", #""$0" convert <(yes '[1,2,3]' 2>/dev/null | head -c 5000000 2>/dev/null) - --max-bytes 100000"#, CLI.executable.path])
        #expect(big.status == 1, "\(big.stderr)")
        #expect(big.stderr.contains("maxInputBytes (100000)") && big.stderr.split(separator: "\n").count == 1, "\(big.stderr)")
    }

    // MARK: - File names that are not UTF-8

    @Test func aNonUTF8InputNameIsRefusedAsSuch() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let name = Array(dir.path.utf8) + Array("/caf".utf8) + [0xE9] + Array(".json".utf8)  // Latin-1 "café.json"
        let bytes = try Data(contentsOf: Self.sample)
        var cName = name.map { CChar(bitPattern: $0) } + [0]
        let file = open(&cName, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        #expect(file >= 0)
        _ = bytes.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
        close(file)
        let run = try StandardOutputTests.run(raw: [Array("convert".utf8), name, Array("-".utf8)], stdout: nil)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.contains("caf\\xE9.json") && run.stderr.contains("is not valid UTF-8"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test func aNonUTF8OutputNameIsNeverWrittenUnderAnotherName() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let name = Array(dir.path.utf8) + Array("/out".utf8) + [0xFF, 0xFE] + Array(".json".utf8)
        let run = try StandardOutputTests.run(raw: [Array("convert".utf8), Array(Self.sample.path.utf8), name], stdout: nil)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.contains("out\\xFF\\xFE.json"), "\(run.stderr)")
        // Nothing at all was written: not the named file, not a U+FFFD-repaired one.
        #expect(Self.rawNames(in: dir).isEmpty, "\(Self.rawNames(in: dir).map { String(decoding: $0, as: UTF8.self) })")
    }

    // MARK: - --max-depth

    /// An SQLite database or Realm file piped in is named for what it is, with the way to
    /// read it (it was "unrecognised format; expected JSON, …", wrong about the bytes).
    @Test(arguments: ["stores/pfarchive-layout1-js-simple.sqlite", "real/realm/core-upgrade_4_23.realm"])
    func aStoreOnStandardInputIsNamed(_ fixture: String) throws {
        let bytes = try Data(contentsOf: Fixtures.repoRoot.appendingPathComponent("Tests/Fixtures/" + fixture))
        for arguments in [["convert", "-", "-"], ["inspect", "-"]] {
            let run = try CLI.run(arguments, input: bytes)
            #expect(run.status == 1, "\(arguments)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
            let kind = fixture.hasSuffix(".realm") ? "a Realm file" : "an SQLite database"
            #expect(run.stderr.contains("<stdin>: \(kind)") && run.stderr.contains("give its path instead of -"), "\(run.stderr)")
            #expect(run.stdout.isEmpty)
        }
    }

    @Test(arguments: ["convert", "inspect", "validate"])
    func maxDepthPastWhatIsSupportedIsAUsageError(_ command: String) throws {
        var arguments = [command, command == "validate" ? Fixtures.real.appendingPathComponent("parse").path : Self.sample.path]
        if command == "convert" { arguments.append("-") }
        let refused = try CLI.run(arguments + ["--max-depth", "513"])
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("--max-depth must be at most 512") && refused.stderr.contains("stack"), "\(refused.stderr)")
        let atTheLimit = try CLI.run(arguments + ["--max-depth", "512"])
        #expect(atTheLimit.status == 0, "\(atTheLimit.stderr)")
    }
}
