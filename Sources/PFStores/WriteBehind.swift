import PFCore
import Synchronization

/// Runs an import's writes on a thread of their own, in order, while the importing thread
/// reads the next batch: the destination's insert work (SQLite's, say) overlaps with the
/// source's parsing. It is an ``PFCore/OrderedParallelMap`` of one worker: at most `depth`
/// batches wait, and each batch is released on the write thread once written, so memory
/// stays bounded and the importing thread (the longer chain of an import: reading, checks,
/// handing on) does not spend its time freeing objects.
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

    /// Hands a batch to the write thread once: ``take()`` moves it out, so the write holds
    /// the last reference to it and releases it there (the queued ``Write`` no longer holds one).
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

    private let map: OrderedParallelMap<Write, Void, PFError>

    /// Makes a write-behind with room for `depth` waiting batches.
    init(depth: Int = 2) {
        map = OrderedParallelMap(workers: 1, window: max(1, depth)) { write throws(PFError) in
            guard let batch = write.batch.take() else { return }
            try write.run(batch)  // and released here, on the write thread
        }
    }

    /// Queues the write of a batch; throws the failure of an earlier write instead, once
    /// there is one (later writes are skipped).
    ///
    /// The batch is released on the write thread once written. (It was released on the
    /// submitting thread, where glibc frees into the arena that allocated it when that thread
    /// built the objects; but the importing thread is an import's longer chain, and the objects
    /// are mostly built on parsing threads anyway: releasing them on the write thread made an
    /// `import --decode-blobs` of 200,000 SQLite rows 4 % faster and a Parse export's import,
    /// with `--jobs 1` too, 3 % faster.)
    /// - Parameters:
    ///   - batch: what the write writes.
    ///   - write: the write, run on the write thread.
    func submit<Batch: Sendable>(_ batch: Batch, write: @escaping @Sendable (Batch) throws(PFError) -> Void) throws(PFError) {
        let run: @Sendable (any Sendable) throws(PFError) -> Void = { batch throws(PFError) in
            if let batch = batch as? Batch { try write(batch) }
        }
        try map.submit(Write(batch: Handover(batch), run: run)) { _ in }
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
