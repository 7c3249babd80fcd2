import Dispatch
import Synchronization

/// The one parallel engine: runs a transform over inputs on several threads and hands the
/// outputs back in input order, so a caller sees exactly what a serial loop gives.
///
/// ```swift
/// let map = OrderedParallelMap<Batch, [Row], PFError>(workers: 4) { batch throws(PFError) in
///     try parse(batch)
/// }
/// for batch in batches {
///     try map.submit(batch) { rows throws(PFError) in try write(rows) }
/// }
/// try map.finish { rows throws(PFError) in try write(rows) }
/// ```
///
/// - **Order.** `deliver` receives the outputs in the order the inputs were submitted, on the
///   calling thread.
/// - **First error in input order.** When transforms fail, the outputs before the lowest
///   failing input are delivered, then its error is thrown, whatever the order the threads
///   finished in.
/// - **Cooperative cancellation.** Once an input failed (or ``cancel()`` was called, or
///   `deliver` threw), no input after it is started; transforms already running finish.
///   Nothing runs after ``finish(deliver:)``, ``cancel()`` or a throwing ``submit(_:deliver:)``
///   returns.
/// - **Bounded work.** At most `workers` transforms run at once, and at most `window` inputs
///   are submitted and not yet delivered: ``submit(_:deliver:)`` delivers the oldest first
///   when the window is full, so memory stays bounded by a few inputs and outputs.
/// - **No waiting on a busy pool.** Pool threads are asked for as inputs arrive; while the
///   caller waits for an output, it runs waiting inputs itself, so a pool that starts no
///   thread only makes the map serial.
///
/// Each thread that runs transforms (the caller's included) makes its own state once, with
/// `state`, and passes it to every transform it runs: a tokener, a writer, caches. The
/// state is released on that thread when it has no more work.
///
/// The map is driven from one thread (its methods are not for concurrent use); the
/// transform runs on several. Shared state is one `Mutex`; nothing is `@unchecked Sendable`.
package final class OrderedParallelMap<Input: Sendable, Output: Sendable, Failure: Error> {
    /// Makes one thread's transform: a closure over that thread's own state.
    package typealias MakeWorker = @Sendable () -> (Input) throws(Failure) -> Output

    private let core: Core
    private let window: Int
    /// The caller's own transform, made the first time the caller runs an input.
    private var callerWorker: ((Input) throws(Failure) -> Output)?
    /// How many inputs were submitted, and how many outputs delivered.
    private var submitted = 0
    private var delivered = 0
    /// Set once the map was cancelled or threw: it then takes and delivers nothing more.
    private var stopped = false

    /// Makes a map whose transform keeps per-thread state.
    /// - Parameters:
    ///   - workers: how many transforms run at once, at most (at least 1). With 1, the
    ///     transforms run one at a time, in input order, on a thread other than the caller's
    ///     while the caller is busy (a write-behind).
    ///   - window: how many inputs may be submitted and not yet delivered; at least
    ///     `workers`; default twice `workers`.
    ///   - state: makes one thread's state (called once on each thread that runs inputs).
    ///   - transform: turns an input into an output, with the running thread's state.
    package init<State>(
        workers: Int, window: Int? = nil, state: @escaping @Sendable () -> State,
        transform: @escaping @Sendable (inout State, Input) throws(Failure) -> Output
    ) {
        let workers = max(1, workers)
        self.window = max(workers, window ?? 2 * workers)
        core = Core(workers: workers) {
            var mine = state()
            return { input throws(Failure) in try transform(&mine, input) }
        }
    }

    /// Makes a map whose transform keeps no state.
    /// - Parameters:
    ///   - workers: how many transforms run at once, at most (at least 1).
    ///   - window: how many inputs may be submitted and not yet delivered (default twice
    ///     `workers`).
    ///   - transform: turns an input into an output.
    package convenience init(
        workers: Int, window: Int? = nil, transform: @escaping @Sendable (Input) throws(Failure) -> Output
    ) {
        self.init(workers: workers, window: window, state: {}) { _, input throws(Failure) in try transform(input) }
    }

    deinit {
        // A map dropped without finish: stop and wait, so nothing outlives it.
        core.cancel()
        core.waitIdle()
    }

    /// Whether a transform failed, ``cancel()`` was called, or `deliver` threw.
    package var isCancelled: Bool { core.state.withLock { $0.cancelled || $0.stopAt != Int.max } }

    /// Submits an input, first delivering the oldest outputs while the window is full, or
    /// every output before a known failure. After the map was cancelled or threw, does
    /// nothing.
    /// - Parameters:
    ///   - input: the next input.
    ///   - deliver: receives outputs in input order, on the calling thread.
    /// - Throws: the error of the lowest failing input (after the outputs before it were
    ///   delivered), or what `deliver` throws; nothing runs after it is thrown.
    package func submit(_ input: Input, deliver: (Output) throws(Failure) -> Void) throws(Failure) {
        guard !stopped else { return }
        if core.state.withLock({ $0.stopAt != Int.max }) {
            while true { try deliverNext(deliver) }  // throws once it reaches the failure
        }
        while submitted - delivered >= window { try deliverNext(deliver) }
        let index = submitted
        submitted += 1
        if core.state.withLock({ $0.add(index, input) }) { core.startThread() }
    }

    /// Delivers every output still owed, in input order, and returns when no thread is
    /// running a transform.
    /// - Parameter deliver: receives outputs in input order, on the calling thread.
    /// - Throws: the error of the lowest failing input, or what `deliver` throws.
    package func finish(deliver: (Output) throws(Failure) -> Void) throws(Failure) {
        while !stopped, delivered < submitted { try deliverNext(deliver) }
        core.waitIdle()
        callerWorker = nil
    }

    /// Starts no more inputs and waits for the running transforms; what they produce is
    /// dropped.
    package func cancel() {
        stopped = true
        core.cancel()
        core.waitIdle()
        callerWorker = nil
    }

    /// Delivers the next output in order, running waiting inputs on this thread until it is
    /// ready.
    private func deliverNext(_ deliver: (Output) throws(Failure) -> Void) throws(Failure) {
        let index = delivered
        while true {
            switch core.state.withLock({ $0.next(for: index) }) {
            case .ready(let result):
                delivered += 1
                let output: Output
                do throws(Failure) { output = try result.get() } catch { try stop(error) }
                do throws(Failure) { try deliver(output) } catch { try stop(error) }
                return
            case .run(let input, let at):
                let run = callerWorker ?? core.makeWorker()
                callerWorker = run
                let result = Result { () throws(Failure) in try run(input) }
                core.state.withLock { $0.complete(at, result) }
            case .wait:
                core.progress.wait()
            }
        }
    }

    /// Cancels, waits for the running transforms, and throws `error`.
    private func stop(_ error: Failure) throws(Failure) -> Never {
        cancel()
        throw error
    }

    /// The same transform over every element of a collection, outputs in order: on the
    /// calling thread alone when `workers` is 1 or there is one element (the one-thread
    /// fallback), else as ``submit(_:deliver:)`` and ``finish(deliver:)`` do, with every
    /// element queued at once.
    /// - Parameters:
    ///   - inputs: the inputs.
    ///   - workers: how many transforms run at once, at most.
    ///   - state: makes one thread's state.
    ///   - transform: turns an input into an output, with the running thread's state.
    /// - Returns: the outputs, in input order.
    /// - Throws: the error of the lowest failing input.
    package static func map<State>(
        _ inputs: some Collection<Input>, workers: Int, state: @escaping @Sendable () -> State,
        transform: @escaping @Sendable (inout State, Input) throws(Failure) -> Output
    ) throws(Failure) -> [Output] {
        var outputs: [Output] = []
        outputs.reserveCapacity(inputs.count)
        guard workers > 1, inputs.count > 1 else {
            var mine = state()
            for input in inputs { outputs.append(try transform(&mine, input)) }
            return outputs
        }
        // Every input is queued at once: the outputs are all kept anyway, and a thread whose
        // queue never runs dry keeps its state (a tokener, caches) to the end.
        let map = OrderedParallelMap(workers: workers, window: inputs.count, state: state, transform: transform)
        for input in inputs { try map.submit(input) { outputs.append($0) } }
        try map.finish { outputs.append($0) }
        return outputs
    }

    /// ``map(_:workers:state:transform:)`` for a transform that keeps no state.
    package static func map(
        _ inputs: some Collection<Input>, workers: Int, transform: @escaping @Sendable (Input) throws(Failure) -> Output
    ) throws(Failure) -> [Output] {
        try map(inputs, workers: workers, state: {}) { _, input throws(Failure) in try transform(input) }
    }
}

// MARK: - Shared state

extension OrderedParallelMap {
    /// What the caller and the pool threads share: the inputs waiting, the results not yet
    /// delivered, and who is running.
    struct Shared {
        /// Inputs not yet started, in input order, from `head` on (those before it were
        /// moved out, so no input outlives its transform here).
        var pending: [(index: Int, input: Input)?] = []
        var head = 0
        var results: [Int: Result<Output, Failure>] = [:]
        let workers: Int
        /// Transforms running now, the caller's included.
        var running = 0
        /// Pool threads alive.
        var threads = 0
        /// The lowest failing input; inputs after it are not started.
        var stopAt = Int.max
        var cancelled = false

        init(workers: Int) { self.workers = workers }

        /// Queues an input; `true` when a pool thread should be started for it.
        mutating func add(_ index: Int, _ input: Input) -> Bool {
            pending.append((index, input))
            guard threads < workers else { return false }
            threads += 1
            return true
        }

        /// The next input to start, if any may start now.
        mutating func take() -> (index: Int, input: Input)? {
            guard !cancelled, running < workers, head < pending.count, let next = pending[head] else { return nil }
            guard next.index < stopAt else {
                // Everything waiting comes after the failure.
                dropPending()
                return nil
            }
            pending[head] = nil
            head += 1
            if head == pending.count || head >= 256 {
                pending.removeFirst(head)
                head = 0
            }
            running += 1
            return next
        }

        /// Whether ``take()`` would hand out an input.
        var canTake: Bool {
            !cancelled && running < workers && head < pending.count && (pending[head]?.index ?? Int.max) < stopAt
        }

        mutating func dropPending() {
            pending = []
            head = 0
        }

        mutating func complete(_ index: Int, _ result: Result<Output, Failure>) {
            running -= 1
            if case .failure = result, index < stopAt { stopAt = index }
            results[index] = result
        }

        enum Next {
            case ready(Result<Output, Failure>)
            case run(Input, at: Int)
            case wait
        }

        /// What the caller does to get output `index`: take it, run an input, or wait.
        mutating func next(for index: Int) -> Next {
            if let result = results.removeValue(forKey: index) { return .ready(result) }
            if let (at, input) = take() { return .run(input, at: at) }
            return .wait
        }
    }

    /// The part the pool threads hold.
    final class Core: Sendable {
        let state: Mutex<Shared>
        /// Signalled whenever a transform finishes or a pool thread ends.
        let progress = DispatchSemaphore(value: 0)
        let makeWorker: MakeWorker

        init(workers: Int, makeWorker: @escaping MakeWorker) {
            state = Mutex(Shared(workers: workers))
            self.makeWorker = makeWorker
        }

        /// Starts a pool thread that runs inputs until none may start.
        func startThread() {
            DispatchQueue.global().async { [self] in
                while true {
                    do {
                        // This thread's state, released when the loop ends.
                        var worker: ((Input) throws(Failure) -> Output)?
                        while let (index, input) = state.withLock({ $0.take() }) {
                            let run = worker ?? makeWorker()
                            worker = run
                            let result = Result { () throws(Failure) in try run(input) }
                            state.withLock { $0.complete(index, result) }
                            progress.signal()
                        }
                    }
                    // The thread ends only if nothing came in while its state was released.
                    let ends = state.withLock { shared in
                        guard !shared.canTake else { return false }
                        shared.threads -= 1
                        return true
                    }
                    if ends { break }
                }
                progress.signal()
            }
        }

        func cancel() {
            state.withLock { shared in
                shared.cancelled = true
                shared.dropPending()
                shared.results = [:]
            }
        }

        /// Waits until no transform runs and every pool thread has ended.
        func waitIdle() {
            while !state.withLock({ $0.running == 0 && $0.threads == 0 }) { progress.wait() }
        }
    }
}
