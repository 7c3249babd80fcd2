import Dispatch
import Foundation
import Synchronization

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
package final class Interruption: Sendable {
    /// The process's one registry.
    package static let shared = Interruption()

    private struct State {
        var paths: Set<String> = []
        var locks: Set<String> = []
        var sources: [DispatchSourceSignal] = []
        var interrupted = false
        /// Whether the handlers are wanted: they are installed when the first file is added,
        /// so a command that writes nothing (and the children it may start) keeps the default
        /// dispositions.
        var wanted = false
    }

    private let state = Mutex(State())

    package var isInterrupted: Bool { state.withLock { $0.interrupted } }

    package func add(_ path: String, lock isLock: Bool = false) {
        state.withLock { state in
            _ = isLock ? state.locks.insert(path) : state.paths.insert(path)
            if state.wanted, state.sources.isEmpty { installHandlers(&state) }
        }
    }

    package func remove(_ path: String) {
        state.withLock { state in
            state.paths.remove(path)
            state.locks.remove(path)
        }
    }

    package func install() {
        state.withLock { state in
            state.wanted = true
            if !state.paths.isEmpty || !state.locks.isEmpty { installHandlers(&state) }
        }
    }

    /// Called with the mutex held.
    private func installHandlers(_ state: inout State) {
        guard state.sources.isEmpty else { return }
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
            state.sources.append(source)
        }
    }

    private func cleanUp() {
        let (files, lockFiles) = state.withLock { state in
            state.interrupted = true
            return (state.paths, state.locks)
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
