import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one home for writing the CLI's output to standard output (and its messages to
/// standard error).
///
/// `FileHandle.standardOutput.write(_:)` traps on any error (a full device, a closed pipe),
/// which ends the process with SIGILL and a backtrace. Everything here writes with
/// `write(2)` in a loop instead: short writes are continued, `EINTR` is retried, and any
/// other error (`ENOSPC`, `EPIPE`, `EIO`, …) becomes a ``CLIFailure`` — one line on stderr
/// and exit status 1. SIGPIPE is ignored at startup (``ignoreBrokenPipeSignal()``), so a
/// reader that closes the pipe gives `EPIPE` here rather than killing the process.
enum StandardOutput {
    /// Why a write to a descriptor failed: the `errno` text, such as "No space left on device".
    struct WriteError: Error {
        var code: Int32
        var reason: String { String(cString: strerror(code)) }
    }

    /// Ignores SIGPIPE for the whole process: a closed pipe then shows as `EPIPE`, reported
    /// as one line, as every other write error is.
    static func ignoreBrokenPipeSignal() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Writes all of `data` to standard output.
    /// - Throws: ``CLIFailure`` ("standard output: cannot write: …") when `write(2)` fails.
    static func write(_ data: Data) throws {
        do {
            try writeAll(data, to: STDOUT_FILENO)
        } catch {
            throw CLIFailure("standard output: cannot write: \(error.reason)")
        }
    }

    /// Writes text as UTF-8 to standard output.
    /// - Throws: ``CLIFailure`` when `write(2)` fails.
    static func write(_ text: String) throws {
        try write(Data(text.utf8))
    }

    /// Writes lines to standard output, each ended by a line break.
    /// - Throws: ``CLIFailure`` when `write(2)` fails.
    static func writeLines(_ lines: [String]) throws {
        try write(lines.joined(separator: "\n") + "\n")
    }

    /// Writes to standard error, ignoring failures: there is nowhere left to report them, and
    /// a message must never turn into a crash.
    static func writeError(_ data: Data) {
        try? writeAll(data, to: STDERR_FILENO)
    }

    /// Writes all of `data` to a descriptor with `write(2)`, continuing short writes and
    /// retrying `EINTR`.
    /// - Throws: ``WriteError`` with the `errno` of the first other failure.
    static func writeAll(_ data: Data, to descriptor: Int32) throws(WriteError) {
        let failure: Int32? = data.withUnsafeBytes { raw -> Int32? in
            guard var next = raw.baseAddress else { return nil }
            var left = raw.count
            while left > 0 {
                #if canImport(Glibc)
                let written = Glibc.write(descriptor, next, left)
                #else
                let written = Darwin.write(descriptor, next, left)
                #endif
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                // write(2) never returns 0 for a non-zero count on a file or pipe; guard anyway
                // so a broken descriptor cannot loop forever.
                if written == 0 { return EIO }
                next += written
                left -= written
            }
            return nil
        }
        if let failure { throw WriteError(code: failure) }
    }
}
