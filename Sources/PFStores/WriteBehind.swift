import Dispatch
import Foundation
import PFCore

/// Runs an import's writes on a thread of their own, in order, while the importing thread
/// reads the next batch: the destination's insert work (SQLite's, say) overlaps with the
/// source's parsing. At most `depth` batches wait, and what finished writes hand back (at
/// most `depth` of them) is released at the next ``submit(_:)``, so memory stays bounded.
///
/// The writer is used by one thread at a time: every write goes through one serial queue,
/// and the importing thread touches the writer again (``ObjectStoreWriter/extend(schema:)``,
/// ``ObjectStoreWriter/commit()``) only after ``finish()`` has waited for that queue.
final class WriteBehind: @unchecked Sendable {
    private let queue = DispatchQueue(label: "pfarchive.import.write")
    private let room: DispatchSemaphore
    private let lock = NSLock()
    /// The first write that failed; later writes are skipped. Guarded by `lock`.
    private var failure: PFError?
    /// What finished writes handed back, to be released on the submitting thread. Guarded by `lock`.
    private var spent: [any Sendable] = []

    /// Makes a write-behind with room for `depth` waiting batches.
    init(depth: Int = 2) {
        room = DispatchSemaphore(value: max(1, depth))
    }

    /// The first failure so far.
    private var firstFailure: PFError? { lock.withLock { failure } }

    /// Queues a write; throws the failure of an earlier write instead, once there is one.
    ///
    /// What a write returns (its batch, say) is released later on the submitting thread,
    /// not on the write thread: glibc's malloc frees memory into the arena of the thread that
    /// allocated it, under that arena's lock, so objects built on one thread and freed on
    /// another cost more (see Docs/Benchmarks.md, "Import").
    /// - Parameter write: the write, run on the write thread.
    func submit(_ write: @escaping @Sendable () throws(PFError) -> (any Sendable)?) throws(PFError) {
        releaseSpent()
        if let failure = firstFailure { throw failure }
        room.wait()
        queue.async { [self] in
            defer { room.signal() }
            guard firstFailure == nil else { return }
            do throws(PFError) {
                if let done = try write() { lock.withLock { spent.append(done) } }
            } catch {
                lock.withLock { if failure == nil { failure = error } }
            }
        }
    }

    /// Releases what finished writes handed back, on the calling thread.
    private func releaseSpent() {
        let done = lock.withLock { () -> [any Sendable] in
            defer { spent = [] }
            return spent
        }
        _ = consume done
    }

    /// Waits for every queued write.
    /// - Throws: the first write's failure.
    func finish() throws(PFError) {
        if let failure = finishReturningFailure() { throw failure }
    }

    /// Waits for every queued write and returns the first failure, if any (after another error).
    func finishReturningFailure() -> PFError? {
        queue.sync {}
        releaseSpent()
        return firstFailure
    }
}

/// Hands values that are not `Sendable` to the write thread, which is their only user from
/// then on (see ``WriteBehind``).
struct Handoff<Value>: @unchecked Sendable {
    let value: Value
}

/// Hands a value to the write thread once: ``take()`` moves it out, so whoever the write
/// returns it to holds the last reference (the closure that carried it no longer does).
final class Handover<Value>: @unchecked Sendable {
    private var value: Value?

    init(_ value: Value) { self.value = value }

    /// The value, the first time; `nil` after.
    func take() -> Value? {
        defer { value = nil }
        return value
    }
}
