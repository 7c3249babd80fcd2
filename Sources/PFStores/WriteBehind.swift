import Dispatch
import Foundation
import PFCore

/// Runs an import's writes on a thread of their own, in order, while the importing thread
/// reads the next batch: the destination's insert work (SQLite's, say) overlaps with the
/// source's parsing. At most `depth` batches wait, so memory stays bounded.
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

    /// Makes a write-behind with room for `depth` waiting batches.
    init(depth: Int = 2) {
        room = DispatchSemaphore(value: max(1, depth))
    }

    /// The first failure so far.
    private var firstFailure: PFError? { lock.withLock { failure } }

    /// Queues a write; throws the failure of an earlier write instead, once there is one.
    /// - Parameter write: the write, run on the write thread.
    func submit(_ write: @escaping @Sendable () throws(PFError) -> Void) throws(PFError) {
        if let failure = firstFailure { throw failure }
        room.wait()
        queue.async { [self] in
            defer { room.signal() }
            guard firstFailure == nil else { return }
            do throws(PFError) {
                try write()
            } catch {
                lock.withLock { if failure == nil { failure = error } }
            }
        }
    }

    /// Waits for every queued write.
    /// - Throws: the first write's failure.
    func finish() throws(PFError) {
        if let failure = finishReturningFailure() { throw failure }
    }

    /// Waits for every queued write and returns the first failure, if any (after another error).
    func finishReturningFailure() -> PFError? {
        queue.sync {}
        return firstFailure
    }
}

/// Hands values that are not `Sendable` to the write thread, which is their only user from
/// then on (see ``WriteBehind``).
struct Handoff<Value>: @unchecked Sendable {
    let value: Value
}
