import PFCore
import Synchronization

/// Runs an import's writes on a thread of their own, in order, while the importing thread
/// reads the next batch: the destination's insert work (SQLite's, say) overlaps with the
/// source's parsing. It is an ``PFCore/OrderedParallelMap`` of one worker: at most `depth`
/// batches wait, and each written batch comes back to the importing thread, which releases
/// it at a later ``submit(_:write:)``, so memory stays bounded.
///
/// The writer is used by one thread at a time: the map runs one write at a time, in order,
/// and the importing thread touches the writer again (``ObjectStoreWriter/extend(schema:)``,
/// ``ObjectStoreWriter/commit()``) only after ``finish()`` has waited for every write.
final class WriteBehind {
    /// One queued write: the batch, and how it is written.
    struct Write: Sendable {
        let batch: Handover
        let run: @Sendable (any Sendable) throws(PFError) -> Void
    }

    /// Hands a batch to the write thread once: ``take()`` moves it out, so the write hands
    /// back the last reference to it (the queued ``Write`` no longer holds one).
    final class Handover: Sendable {
        private let value: Mutex<(any Sendable)?>

        init(_ value: any Sendable) { self.value = Mutex(value) }

        /// The batch, the first time; `nil` after.
        func take() -> (any Sendable)? {
            value.withLock { value in
                defer { value = nil }
                return value
            }
        }
    }

    private let map: OrderedParallelMap<Write, (any Sendable)?, PFError>

    /// Makes a write-behind with room for `depth` waiting batches.
    init(depth: Int = 2) {
        map = OrderedParallelMap(workers: 1, window: max(1, depth)) { write throws(PFError) in
            guard let batch = write.batch.take() else { return nil }
            try write.run(batch)
            return batch
        }
    }

    /// Queues the write of a batch; throws the failure of an earlier write instead, once
    /// there is one (later writes are skipped).
    ///
    /// The batch is released later on the submitting thread, not on the write thread:
    /// glibc's malloc frees memory into the arena of the thread that allocated it, under that
    /// arena's lock, so objects built on one thread and freed on another cost more (`perf` of
    /// an import with `--jobs 1`: 1,220 samples freeing on the write thread, 608 here).
    /// - Parameters:
    ///   - batch: what the write writes.
    ///   - write: the write, run on the write thread.
    func submit<Batch: Sendable>(_ batch: Batch, write: @escaping @Sendable (Batch) throws(PFError) -> Void) throws(PFError) {
        let run: @Sendable (any Sendable) throws(PFError) -> Void = { batch throws(PFError) in
            if let batch = batch as? Batch { try write(batch) }
        }
        try map.submit(Write(batch: Handover(batch), run: run)) { _ in }  // a written batch is released here
    }

    /// Waits for every queued write.
    /// - Throws: the first write's failure.
    func finish() throws(PFError) {
        try map.finish { _ in }
    }

    /// Waits for every queued write and returns the first failure not yet thrown, if any
    /// (after another error).
    func finishReturningFailure() -> PFError? {
        do throws(PFError) {
            try finish()
            return nil
        } catch {
            return error
        }
    }
}

/// Hands a value that is not `Sendable` to the write thread: the destination writer, which
/// is not `Sendable` because most writers are not thread-safe. `@unchecked` because the
/// compiler cannot see the rule ``WriteBehind`` keeps instead: one thread at a time uses it
/// (the write thread while writes are queued, the importing thread only after
/// ``WriteBehind/finish()``).
struct Handoff<Value>: @unchecked Sendable {
    let value: Value
}
