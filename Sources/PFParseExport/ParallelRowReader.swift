import Foundation
import PFCore
import PFJSON
import PFParse

/// Reads the rows of a class file on worker threads and hands the results back in row order,
/// so a large export is parsed on every core while its consumer (an import writing a store,
/// a decoder filling an array) sees exactly the sequence a serial read gives.
///
/// ```swift
/// let reader = ParallelRowReader<ParseObject>(workers: 2, limits: limits) { row, session throws(PFError) in
///     try row.readObject(session: session, className: "GameScore", file: "GameScore.json")
/// }
/// try reader.read(rows: { add throws(PFError) in
///     try container.forEachRow(of: file, chunkSize: 1 << 20) { row throws(PFError) in try add(row) }
/// }) { object throws(PFError) in
///     try write(object)
/// }
/// ```
///
/// Rows are copied into batches (``batchRows`` rows or ``batchBytes`` bytes, whichever comes
/// first); each batch is read on a worker thread with a JSON session of its own; at most
/// twice as many batches as workers are in flight, so memory stays bounded by a few batches
/// and the largest row, whatever the file size.
///
/// Errors are those of a serial read: the rows before a failing row are delivered first,
/// then the error of the lowest failing row is thrown — a row that does not parse, a row the
/// cutter rejects (the `rows` closure's error) or what `deliver` throws. Nothing runs after
/// `read` returns or throws.
public struct ParallelRowReader<Output: Sendable>: Sendable {
    /// Reads one row into an output, on a worker thread, with that worker's JSON session.
    public typealias Transform = @Sendable (ParseExportRow, JSONReader.Session) throws(PFError) -> Output

    /// Worker threads reading batches (at least 1).
    public let workers: Int
    /// Budgets for each row's JSON session.
    public let limits: PFLimits
    /// Rows per batch. Default 256.
    public var batchRows: Int
    /// Bytes of row text per batch (a single larger row makes a batch of its own). Default 256 KiB.
    public var batchBytes: Int
    let transform: Transform

    /// Makes a reader.
    /// - Parameters:
    ///   - workers: worker threads, at least 1 (``defaultWorkers`` is the machine's active
    ///     processor count).
    ///   - limits: budgets for each row's JSON session (``ParseExportRow/session(limits:)``).
    ///   - transform: reads one row; called on worker threads, so it must not touch shared
    ///     mutable state.
    public init(workers: Int = ParallelRowReader.defaultWorkers, limits: PFLimits = .default, transform: @escaping Transform) {
        self.workers = max(1, workers)
        self.limits = limits
        self.batchRows = 256
        self.batchBytes = 256 << 10
        self.transform = transform
    }

    /// The machine's active processor count.
    public static var defaultWorkers: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// Reads every row that `rows` adds, calling `deliver` with each output in row order on
    /// the calling thread.
    /// - Parameters:
    ///   - rows: feeds the rows: calls its argument with each row (whose bytes are copied, so
    ///     they need to stay valid only during that call).
    ///   - deliver: receives each output, in row order.
    /// - Throws: ``PFCore/PFError``: the error of the lowest failing row, after the outputs of
    ///   the rows before it were delivered; or what `rows` or `deliver` throws.
    public func read(
        rows: ((ParseExportRow) throws(PFError) -> Void) throws(PFError) -> Void,
        deliver: (Output) throws(PFError) -> Void
    ) throws(PFError) {
        let run = Run(reader: self)
        // `rows` and `deliver` never run at the same time (delivery happens inside `add`,
        // between rows), and neither outlives this call.
        let result: Result<Void, PFError> = withoutActuallyEscaping(deliver) { deliver in
            Result { () throws(PFError) in
                do throws(PFError) {
                    try rows { row throws(PFError) in try run.add(row, deliver) }
                } catch {
                    // A row the cutter rejected: the rows before it come first (one of them may
                    // fail earlier). An error of a delivered row or of `deliver` stops at once.
                    if run.stopped { run.abandon(); throw error }
                    try run.drain(deliver)
                    throw error
                }
                try run.drain(deliver)
            }
        }
        try result.get()
    }
}

// MARK: - One read

/// Rows copied out of the cutter's chunks, for ``ParallelRowReader``. Outside the generic
/// reader, so its code reaches the type without asking the runtime for its metadata per row.
struct ParallelRowBatch: Sendable {
    /// A row inside a batch's bytes.
    struct Span: Sendable {
        var start: Int
        var end: Int
        var index: Int
        var offset: Int
        var shape: ParseExport.Shape
        var known: Int?
    }

    var bytes: [UInt8] = []
    var spans: [Span] = []
}

extension ParallelRowReader {
    typealias Batch = ParallelRowBatch
    typealias Span = ParallelRowBatch.Span

    /// A batch that failed: the outputs of its rows before the failing one, and the error
    /// (or an error of `deliver`, with no outputs).
    struct BatchFailure: Error {
        var outputs: [Output] = []
        var error: PFError
    }

    /// The state of one ``read(rows:deliver:)``: the batch being filled, and the map reading
    /// batches on worker threads (``PFCore/OrderedParallelMap``: outputs in row order, at
    /// most twice as many batches as workers in flight).
    final class Run {
        let reader: ParallelRowReader
        // The reader's own thread alone touches it (rows and deliveries alternate on it).
        @exclusivity(unchecked) var current = Batch()
        var stopped = false
        let map: OrderedParallelMap<Batch, [Output], BatchFailure>

        init(reader: ParallelRowReader) {
            self.reader = reader
            let transform = reader.transform
            let limits = reader.limits
            map = OrderedParallelMap(workers: reader.workers, window: 2 * reader.workers) { batch throws(BatchFailure) in
                try Self.work(batch, transform, limits)
            }
        }

        func add(_ row: ParseExportRow, _ deliver: (Output) throws(PFError) -> Void) throws(PFError) {
            let start = current.bytes.count
            current.bytes.append(contentsOf: row.bytes)
            current.spans.append(
                Span(start: start, end: current.bytes.count, index: row.index, offset: row.offset, shape: row.shape, known: row.known))
            if current.spans.count >= reader.batchRows || current.bytes.count >= reader.batchBytes {
                try launch(deliver)
            }
        }

        /// Sends the current batch to the map, which first delivers the oldest batches when
        /// enough are in flight.
        func launch(_ deliver: (Output) throws(PFError) -> Void) throws(PFError) {
            guard !current.spans.isEmpty else { return }
            let batch = current
            current = Batch()
            current.bytes.reserveCapacity(batch.bytes.count)
            try unwrap(deliver) { () throws(BatchFailure) in
                try map.submit(batch) { outputs throws(BatchFailure) in try Self.deliverAll(outputs, deliver) }
            }
        }

        /// Reads one batch with a JSON session of its own, stopping at its first failing row.
        static func work(_ batch: Batch, _ transform: Transform, _ limits: PFLimits) throws(BatchFailure) -> [Output] {
            let session = ParseExportRow.session(limits: limits)
            var outputs: [Output] = []
            outputs.reserveCapacity(batch.spans.count)
            let failure: PFError? = batch.bytes.withUnsafeBytes { raw in
                for span in batch.spans {
                    let row = ParseExportRow(
                        bytes: UnsafeRawBufferPointer(rebasing: raw[span.start..<span.end]), index: span.index,
                        offset: span.offset, shape: span.shape, known: span.known)
                    do throws(PFError) {
                        outputs.append(try transform(row, session))
                    } catch {
                        return error
                    }
                }
                return nil
            }
            if let failure { throw BatchFailure(outputs: outputs, error: failure) }
            return outputs
        }

        static func deliverAll(_ outputs: [Output], _ deliver: (Output) throws(PFError) -> Void) throws(BatchFailure) {
            do throws(PFError) {
                for output in outputs { try deliver(output) }
            } catch {
                throw BatchFailure(error: error)
            }
        }

        /// Runs a step of the map; when it fails, delivers the failing batch's outputs before
        /// its failing row and throws the row's error (or `deliver`'s). The map has stopped by
        /// then.
        func unwrap(_ deliver: (Output) throws(PFError) -> Void, _ step: () throws(BatchFailure) -> Void) throws(PFError) {
            do throws(BatchFailure) {
                try step()
            } catch {
                stopped = true
                for output in error.outputs { try deliver(output) }
                throw error.error
            }
        }

        /// Reads what is left and delivers every batch in order.
        func drain(_ deliver: (Output) throws(PFError) -> Void) throws(PFError) {
            try launch(deliver)
            try unwrap(deliver) { () throws(BatchFailure) in
                try map.finish { outputs throws(BatchFailure) in try Self.deliverAll(outputs, deliver) }
            }
        }

        /// Stops the workers and waits for them, delivering nothing more.
        func abandon() {
            map.cancel()
            current = Batch()
        }
    }
}
