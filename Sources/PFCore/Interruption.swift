import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The temporary files, directories and lock files in use, removed on a signal: the one
/// home of what SIGINT, SIGTERM and SIGHUP clean up before the process ends with the signal
/// (a destination's staging siblings and lock, a source's private copy). Handlers are
/// installed only once ``install()`` was called and something is in use
/// (`Destination.removeTemporariesOnSignals()` in PFStores).
package final class Interruption: @unchecked Sendable {
    /// The process's one registry.
    package static let shared = Interruption()
    private let lock = NSLock()
    private var paths: Set<String> = []
    private var locks: Set<String> = []
    private var sources: [DispatchSourceSignal] = []
    private var interrupted = false

    package var isInterrupted: Bool { lock.withLock { interrupted } }

    /// Whether the handlers are wanted: they are installed when the first file is added, so
    /// a command that writes nothing (and the children it may start) keeps the default
    /// dispositions.
    private var wanted = false

    package func add(_ path: String, lock isLock: Bool = false) {
        lock.withLock {
            _ = isLock ? locks.insert(path) : paths.insert(path)
            if wanted, sources.isEmpty { installHandlers() }
        }
    }

    package func remove(_ path: String) {
        lock.withLock {
            paths.remove(path)
            locks.remove(path)
        }
    }

    package func install() {
        lock.withLock {
            wanted = true
            if !paths.isEmpty || !locks.isEmpty { installHandlers() }
        }
    }

    /// Called with `lock` held.
    private func installHandlers() {
        guard sources.isEmpty else { return }
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in
                cleanUp()
                // End with the signal, as without a handler: its default action, and
                // unblocked on this thread (libdispatch may block it to receive it).
                signal(number, SIG_DFL)
                var set = sigset_t()
                sigemptyset(&set)
                sigaddset(&set, number)
                pthread_sigmask(SIG_UNBLOCK, &set, nil)
                raise(number)
            }
            source.resume()
            sources.append(source)
        }
    }

    private func cleanUp() {
        let (files, lockFiles) = lock.withLock {
            interrupted = true
            return (paths, locks)
        }
        for path in files {
            // Renamed first, in one step: the work may be renaming the same staging into
            // place right now, and a recursive removal by path would then empty the
            // destination. Whichever rename comes first wins; the other fails.
            let doomed = path + "-interrupted"
            if rename(path, doomed) == 0 { try? FileManager.default.removeItem(atPath: doomed) }
        }
        for path in lockFiles { unlink(path) }
    }
}
