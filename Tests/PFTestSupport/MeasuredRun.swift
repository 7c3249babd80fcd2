import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a child process ended and what it cost, from `wait4(2)`'s resource usage.
public struct MeasuredRun: Sendable {
    /// The exit status, when the process exited.
    public var status: Int32?
    /// The signal that ended the process, when one did (a crash, or the watchdog's SIGKILL).
    public var signal: Int32?
    /// Whether the watchdog killed the process.
    public var timedOut: Bool
    /// Standard output.
    public var stdout: Data
    /// Standard error, as text.
    public var stderr: String
    /// The child's peak resident memory, in bytes.
    ///
    /// `wait4`'s `ru_maxrss` cannot be used for this: at `exec` Linux folds into it the
    /// resident memory of the process the child was spawned from (the test process's, which
    /// can be hundreds of MiB while other tests run), and the test process's own `VmHWM`
    /// read afterwards does not always bound that (CI saw 675 MiB reported for a run that
    /// peaks at 31 MiB). So, when sampling, this is the highest `VmHWM` of the child's own
    /// address space, read from `/proc/<pid>/status` right after the spawn and then every
    /// millisecond until it exits (a close lower bound); without sampling it is `ru_maxrss`,
    /// an upper bound.
    public var maxRSSBytes: Int
    /// User plus system CPU time, in seconds.
    public var cpuSeconds: Double

    /// A result as given (for callers that record a run that could not start).
    public init(status: Int32?, signal: Int32?, timedOut: Bool, stdout: Data, stderr: String, maxRSSBytes: Int, cpuSeconds: Double) {
        self.status = status
        self.signal = signal
        self.timedOut = timedOut
        self.stdout = stdout
        self.stderr = stderr
        self.maxRSSBytes = maxRSSBytes
        self.cpuSeconds = cpuSeconds
    }

    /// A one-line summary for test messages.
    public var summary: String {
        let how = signal.map { "signal \($0)" } ?? "status \(status.map(String.init) ?? "?")"
        return "\(how)\(timedOut ? " (killed by the watchdog)" : ""), \(maxRSSBytes >> 20) MiB, "
            + String(format: "%.2f s CPU", cpuSeconds) + "; stderr: \(stderr)"
    }
}

extension CLI {
    /// Runs `pfarchive` with `posix_spawn` and waits with `wait4`, so the result carries the
    /// child's peak memory and CPU time and whether a signal ended it.
    ///
    /// Standard input is `/dev/null`; standard output and error go to temporary files. A
    /// watchdog kills the child with SIGKILL after `watchdogSeconds` of wall-clock time (a
    /// hang shows as ``MeasuredRun/timedOut``); the limit is generous because the machine
    /// may be loaded, so tests judge speed by ``MeasuredRun/cpuSeconds`` instead.
    /// - Parameters:
    ///   - arguments: the command line after `pfarchive`.
    ///   - watchdogSeconds: wall-clock time after which the child is killed.
    ///   - sampleMemory: whether to sample the child's `VmHWM` every millisecond (for an
    ///     exact peak RSS); without it, waiting polls every 5 ms and ``MeasuredRun/maxRSSBytes``
    ///     may be the test process's own peak (an upper bound), which is cheaper for many runs.
    public static func runMeasured(_ arguments: [String], watchdogSeconds: Double = 60, sampleMemory: Bool = true) throws -> MeasuredRun {
        try spawnMeasured(executable.path, arguments, watchdogSeconds: watchdogSeconds, sampleMemory: sampleMemory)
    }

    /// Runs any program as ``runMeasured(_:watchdogSeconds:)`` runs `pfarchive`.
    public static func spawnMeasured(_ program: String, _ arguments: [String], watchdogSeconds: Double = 60, sampleMemory: Bool = true) throws
        -> MeasuredRun
    {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pfarchive-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outPath = scratch.appendingPathComponent("stdout").path
        let errPath = scratch.appendingPathComponent("stderr").path

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, program, &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "posix_spawn \(program): \(String(cString: strerror(spawned)))"])
        }

        var status: Int32 = 0
        var usage = rusage()
        var timedOut = false
        var sampledPeak = 0
        let deadline = Date().addingTimeInterval(watchdogSeconds)
        // posix_spawn returns after the child's exec, so this is already its own memory.
        if sampleMemory { sampledPeak = highWaterMark(of: "\(pid)") }
        while true {
            let reaped = wait4(pid, &status, WNOHANG, &usage)
            if reaped == pid { break }
            if reaped == -1 && errno != EINTR { break }
            if sampleMemory { sampledPeak = max(sampledPeak, highWaterMark(of: "\(pid)")) }
            if !timedOut && Date() > deadline {
                kill(pid, SIGKILL)
                timedOut = true
            }
            usleep(sampleMemory ? 1_000 : 5_000)
        }
        // Linux reports ru_maxrss in KiB.
        let reported = Int(usage.ru_maxrss) * 1024
        let low = status & 0x7f
        let exited = low == 0
        let signalled = low != 0 && low != 0x7f
        let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return MeasuredRun(
            status: exited ? (status >> 8) & 0xff : nil,
            signal: signalled ? low : nil,
            timedOut: timedOut,
            stdout: (try? Data(contentsOf: URL(fileURLWithPath: outPath))) ?? Data(),
            stderr: String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: errPath))) ?? Data(), as: UTF8.self),
            maxRSSBytes: sampleMemory ? sampledPeak : reported,
            cpuSeconds: cpu)
    }

    /// `VmHWM` of `/proc/<process>/status` in bytes (0 when unreadable, as for an exited child).
    static func highWaterMark(of process: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return 0 }
        let digits = line.split(separator: " ").compactMap { Int($0) }
        return (digits.first ?? 0) * 1024
    }
}
