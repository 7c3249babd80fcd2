import Foundation
import PFTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard output that cannot be written — a full device, a pipe nobody reads — is one line
/// on stderr and exit status 1 for every command, never SIGILL and a backtrace (issue 21).
@Suite struct StandardOutputTests {
    /// Where the child's standard output goes.
    enum Sink: CustomStringConvertible {
        /// `/dev/full`: every write fails with ENOSPC.
        case full
        /// A pipe whose reading end is closed before the child starts, with SIGPIPE ignored
        /// by the parent (as supervisors and CI runners do): every write fails with EPIPE.
        case closedPipe

        var description: String { self == .full ? "/dev/full" : "a closed pipe" }
    }

    struct Run {
        var status: Int32?
        var signal: Int32?
        var stdout: Data
        var stderr: String
    }

    /// Runs `pfarchive` through `/bin/sh`, which ignores SIGPIPE (`trap '' PIPE`, inherited
    /// across `exec`) and then execs the binary with stdout on `sink`.
    static func run(_ arguments: [String], stdout sink: Sink) throws -> Run {
        try run(raw: arguments.map { Array($0.utf8) }, stdout: sink)
    }

    /// Runs `pfarchive` with arguments given as bytes (which need not be UTF-8), stdout on
    /// `sink`, or captured when `sink` is `nil`.
    static func run(raw arguments: [[UInt8]], stdout sink: Sink?) throws -> Run {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pfarchive-stdout-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let errPath = scratch.appendingPathComponent("stderr").path
        let outPath = scratch.appendingPathComponent("stdout").path

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var pipeEnds: [Int32] = [-1, -1]
        switch sink {
        case nil:
            posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        case .full:
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/full", O_WRONLY, 0)
        case .closedPipe:
            guard pipe(&pipeEnds) == 0 else { throw CocoaError(.fileWriteUnknown) }
            // Nobody will ever read: the reading end is closed before the child exists.
            close(pipeEnds[0])
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
            posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        }
        defer { if pipeEnds[1] >= 0 { close(pipeEnds[1]) } }

        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let script = "trap '' PIPE; exec \"$0\" \"$@\""
        let argv: [UnsafeMutablePointer<CChar>?] = (["/bin/sh", "-c", script, CLI.executable.path].map { Array($0.utf8) } + arguments).map { bytes in
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (i, byte) in bytes.enumerated() { copy[i] = CChar(bitPattern: byte) }
            copy[bytes.count] = 0
            return copy
        } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { $0?.deallocate() }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, envp)
        guard spawned == 0 else { throw CocoaError(.fileReadUnknown) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let low = status & 0x7f
        let stderr = String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: errPath))) ?? Data(), as: UTF8.self)
        let stdout = (try? Data(contentsOf: URL(fileURLWithPath: outPath))) ?? Data()
        return Run(status: low == 0 ? (status >> 8) & 0xff : nil, signal: low != 0 && low != 0x7f ? low : nil, stdout: stdout, stderr: stderr)
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pfarchive-stdout-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static let sample = Fixtures.repoRoot.appendingPathComponent("Samples/data/scores.json").path
    static let export = Fixtures.real.appendingPathComponent("parse").path
    static let sinks: [Sink] = [.full, .closedPipe]

    /// Every line of stderr, and the status, of a failed stdout write.
    static func expectOneLineFailure(_ run: Run, _ what: String, mentioning: String) {
        #expect(run.signal == nil, "\(what): killed by signal \(run.signal ?? 0); stderr: \(run.stderr)")
        #expect(run.status == 1, "\(what): status \(run.status.map(String.init) ?? "?"); stderr: \(run.stderr)")
        let lines = run.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 1 && run.stderr.hasPrefix("pfarchive: ") && run.stderr.hasSuffix("\n"), "\(what): \(run.stderr)")
        #expect(run.stderr.contains(mentioning), "\(what): \(run.stderr)")
    }

    static func reason(_ sink: Sink) -> String { sink == .full ? "No space left on device" : "Broken pipe" }

    @Test(arguments: sinks)
    func convertInspectValidateAndCopyFailWithOneLine(_ sink: Sink) throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let graph = dir.appendingPathComponent("org.json")
        try Data(#"{"team":{"$class":"Employee","name":"Ann","reports":[{"$class":"Employee","name":"Bob"}]}}"#.utf8).write(to: graph)
        let cases: [(String, [String])] = [
            ("convert to -", ["convert", Self.sample, "-"]),
            ("convert --pretty to -", ["convert", Self.sample, "-", "--pretty"]),
            ("inspect", ["inspect", Self.sample]),
            ("inspect --json", ["inspect", Self.sample, "--json"]),
            ("validate", ["validate", Self.export]),
            ("validate --json", ["validate", Self.export, "--json"]),
            ("copy to -", ["copy", graph.path, "-"]),
            ("copy's report", ["copy", graph.path, dir.appendingPathComponent("copy.json").path]),
        ]
        for (what, arguments) in cases {
            let run = try Self.run(arguments, stdout: sink)
            Self.expectOneLineFailure(run, "\(what) → \(sink)", mentioning: "standard output: cannot write: \(Self.reason(sink))")
        }
        // The copy written to a file is complete; only its report was lost.
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("copy.json").path))
    }

    @Test(arguments: sinks)
    func importSaysItSucceededWhenOnlyItsReportIsLost(_ sink: Sink) throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for json in [false, true] {
            let dest = dir.appendingPathComponent("app-\(json).sqlite")
            let run = try Self.run(["import", Self.export, dest.path] + (json ? ["--json"] : []), stdout: sink)
            Self.expectOneLineFailure(run, "import\(json ? " --json" : "") → \(sink)", mentioning: "import succeeded (260 objects committed to \(dest.path)), but its report could not be written: \(Self.reason(sink))")
            // The import itself is committed and complete.
            let check = try CLI.run(["import", dest.path, dir.appendingPathComponent("again-\(json)").path])
            #expect(check.status == 0, "\(check.stderr)")
            let objects = check.stdoutText.split(separator: "\n").compactMap { line -> Int? in
                guard line.hasSuffix(" objects") || line.hasSuffix(" object") else { return nil }
                return line.split(separator: " ").dropLast().last.flatMap { Int($0) }
            }
            #expect(objects.reduce(0, +) == 260, "\(check.stdoutText)")
        }
    }
}
