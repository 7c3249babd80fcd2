import Foundation
import PFCore
import PFParse
import PostgresNIO

// MARK: - COPY … FROM STDIN, used synchronously

/// A Swift concurrency task executor that runs jobs on one NIO event loop.
///
/// postgres-nio's `copyFrom` is `async`; the store's API is synchronous and blocks its caller
/// on futures. The COPY task runs on the session's own event loop (never on the cooperative
/// pool), so a caller blocked on a future — even one that is itself a pool thread — never
/// keeps the COPY from making progress.
final class EventLoopTaskExecutor: TaskExecutor, @unchecked Sendable {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// One open `COPY <table> (<columns>) FROM STDIN (FORMAT binary)` on a session's connection.
///
/// ``send(_:)`` hands a buffer of rows over and returns at once while earlier buffers are still
/// on their way or being loaded by the server: at most `inFlight` buffers wait, after that
/// `send` blocks until the connection takes one (back-pressure; memory stays bounded). The
/// server's verdict on the rows comes when the COPY ends, ``finish()``, or with the next
/// ``send(_:)`` after the server refused a row. ``cancel()`` ends the COPY with `CopyFail`
/// (the transaction is then failed, and must be rolled back).
///
/// The stream sends ``CopyBinary``'s file header before the first buffer and its trailer
/// before `CopyDone`; the buffers hold whole rows.
final class PostgresCopyStream: @unchecked Sendable {
    /// The table the rows go to.
    let table: String
    private let continuation: AsyncThrowingStream<ByteBuffer, any Error>.Continuation
    /// Room for buffers not yet taken by the connection, and whether the COPY has ended
    /// (guarded by `condition`; a `DispatchSemaphore` may not be freed below its initial count,
    /// which a COPY the server ended early leaves it at).
    private let condition = NSCondition()
    private var room: Int
    private var ended = false
    private let done: EventLoopFuture<Void>
    private var closed = false

    /// Starts the COPY.
    /// - Parameters:
    ///   - connection: the session's connection (idle: no other statement may run until the COPY ends).
    ///   - table: the table's name (any characters: it is quoted here).
    ///   - columns: the columns in row order (any characters), all of the table's when empty.
    ///   - inFlight: the buffers that may wait to be sent.
    ///   - logger: postgres-nio's logger.
    init(connection: PostgresConnection, table: String, columns: [String], inFlight: Int, logger: Logger) {
        self.table = table
        let (stream, continuation) = AsyncThrowingStream<ByteBuffer, any Error>.makeStream()
        self.continuation = continuation
        room = max(1, inFlight)
        let loop = connection.eventLoop
        let promise = loop.makePromise(of: Void.self)
        done = promise.futureResult
        let statement = Self.statementTail(table: table, columns: columns)
        continuation.yield(CopyBinary.header())
        Task(executorPreference: EventLoopTaskExecutor(loop)) {
            do {
                try await connection.copyFrom(table: statement, columns: [], format: .text(.init()), logger: logger) { writer in
                    var first = true
                    for try await buffer in stream {
                        try await writer.write(buffer)
                        // The header took no room.
                        if !first { self.returnRoom() }
                        first = false
                    }
                }
                promise.succeed(())
            } catch {
                promise.fail(error)
            }
        }
        done.whenComplete { [self] _ in
            condition.lock()
            ended = true
            // Wakes a sender waiting for room; it finds the COPY ended.
            condition.broadcast()
            condition.unlock()
        }
    }

    /// What goes after `COPY "` in the statement postgres-nio sends.
    ///
    /// postgres-nio 1.33's `copyFrom` spells only `COPY "<table>"(<columns>) FROM STDIN WITH
    /// (FORMAT text)`, its table and column names inserted as they are passed (its
    /// documentation says so). pfarchive sends COPY's binary format, which PostgreSQL reads
    /// without parsing numbers, dates and arrays from text, so it passes the rest of its own
    /// statement as the "table": the table's name with `"` doubled, the closing quote, the
    /// quoted columns, `FROM STDIN WITH (FORMAT binary)`, and `--`, which makes what
    /// postgres-nio appends (`" FROM STDIN WITH (FORMAT text)`, on the same line) a comment.
    /// Names may hold any character but NUL (refused before): inside double quotes a newline
    /// does not end the identifier.
    static func statementTail(table: String, columns: [String]) -> String {
        var out = table.doublingEvery("\"") + "\""
        if !columns.isEmpty { out += " (" + columns.map(quoted).joined(separator: ", ") + ")" }
        return out + " FROM STDIN WITH (FORMAT binary) --"
    }

    private func returnRoom() {
        condition.lock()
        room += 1
        condition.signal()
        condition.unlock()
    }

    /// Queues a buffer of whole rows (``CopyBinary``).
    /// - Throws: the error that ended the COPY early (the server refused a row sent before, or
    ///   the connection failed), as postgres-nio reports it.
    func send(_ buffer: ByteBuffer) throws {
        condition.lock()
        while room == 0 && !ended { condition.wait() }
        let hasEnded = ended
        if !hasEnded { room -= 1 }
        condition.unlock()
        if hasEnded {
            try finish()
            // Ended without an error and not finished by us: cannot happen; say so.
            throw PFError(PostgresStoreFailure.copyEndedEarly(table: table), format: StoreFormat.name)
        }
        continuation.yield(buffer)
    }

    /// Ends the COPY (the file trailer, then `CopyDone`) and waits for the server to have
    /// loaded every row.
    /// - Throws: the server's error for a row, or the connection's.
    func finish() throws {
        guard !closed else {
            try done.wait()
            return
        }
        closed = true
        continuation.yield(CopyBinary.trailer())
        continuation.finish()
        try done.wait()
    }

    /// Ends the COPY with `CopyFail` and waits for the connection to be out of copy mode.
    func cancel() {
        guard !closed else { return }
        closed = true
        continuation.finish(throwing: CancellationError())
        _ = try? done.wait()
    }
}

// MARK: - COPY binary format

/// Rows in `COPY … (FORMAT binary)`: a file header, then per row a 16-bit column count and per
/// column a 32-bit length (−1 for NULL) and the value in the column type's binary ("send")
/// format, then a trailer (−1). All integers are big-endian. PostgreSQL reads each value with
/// the type's receive function, as it reads a parameter sent in binary (what postgres-nio
/// sends for the row-by-row `INSERT`).
///
/// Rows are built in a byte array and handed to the COPY as one `ByteBuffer` per batch: an
/// append to an array with room costs a few instructions, where each `ByteBuffer.writeInteger`
/// cost about 200 (two to five per cell).
enum CopyBinary {
    /// `PGCOPY\n\377\r\n\0`, no flags, no header extension.
    static func header() -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: 19)
        buffer.writeBytes([0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00])
        buffer.writeInteger(Int32(0))
        buffer.writeInteger(Int32(0))
        return buffer
    }

    /// The end of the rows.
    static func trailer() -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: 2)
        buffer.writeInteger(Int16(-1))
        return buffer
    }

    /// A 32-bit integer, big-endian.
    @inline(__always)
    static func append(int32 value: Int32, to out: inout [UInt8]) {
        let v = UInt32(bitPattern: value)
        out.append(UInt8(truncatingIfNeeded: v >> 24))
        out.append(UInt8(truncatingIfNeeded: v >> 16))
        out.append(UInt8(truncatingIfNeeded: v >> 8))
        out.append(UInt8(truncatingIfNeeded: v))
    }

    /// A 64-bit integer, big-endian.
    @inline(__always)
    static func append(uint64 value: UInt64, to out: inout [UInt8]) {
        append(int32: Int32(bitPattern: UInt32(truncatingIfNeeded: value >> 32)), to: &out)
        append(int32: Int32(bitPattern: UInt32(truncatingIfNeeded: value)), to: &out)
    }

    /// Starts a row of `columns` columns (at most 1,600, PostgreSQL's limit).
    static func beginRow(columns: Int, in out: inout [UInt8]) {
        let n = UInt16(truncatingIfNeeded: columns)
        out.append(UInt8(truncatingIfNeeded: n >> 8))
        out.append(UInt8(truncatingIfNeeded: n))
    }

    static func appendNull(to out: inout [UInt8]) {
        append(int32: -1, to: &out)
    }

    /// Whether `text` holds U+0000, which PostgreSQL's `text` cannot store. Asked of every
    /// text cell: a loop over the string's contiguous bytes, where `text.utf8.contains(0)`
    /// steps the generic UTF-8 view byte by byte (0.8 % of an import's client CPU).
    static func holdsNUL(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { $0.contains(0) }
    }

    /// Text (`text`, `varchar`): its UTF-8 bytes. `false`, appending nothing, when it is longer
    /// than a column value may be (1 GB).
    static func append(_ text: String, to out: inout [UInt8]) -> Bool {
        guard let count = Int32(exactly: text.utf8.count), count < 1 << 30 else { return false }
        append(int32: count, to: &out)
        out.append(contentsOf: text.utf8)
        return true
    }

    static func append(_ value: Bool, to out: inout [UInt8]) {
        append(int32: 1, to: &out)
        out.append(value ? 1 : 0)
    }

    /// `double precision`: the IEEE 754 bits.
    static func append(_ value: Double, to out: inout [UInt8]) {
        append(int32: 8, to: &out)
        append(uint64: value.bitPattern, to: &out)
    }

    /// `timestamptz`: microseconds since 2000-01-01 UTC (``microseconds(_:)``).
    static func appendTimestamp(_ microseconds: Int64, to out: inout [UInt8]) {
        append(int32: 8, to: &out)
        append(uint64: UInt64(bitPattern: microseconds), to: &out)
    }

    /// The microseconds since 2000-01-01 UTC of a `Date` at its nearest millisecond, the
    /// precision of a Parse date (``PFParse/ParseDate``, as the store reads dates back): a
    /// `Double` holds whole milliseconds only nearly (`.590` is `.58999…`; in year 9999 it is
    /// 8 µs off), so the truncation postgres-nio's own `Date` encoding makes stored a third of
    /// real dates 1 µs early, and far ones further off. `nil` when they do not fit in 64 bits,
    /// or are the largest or smallest 64-bit value, which PostgreSQL reads as ±infinity. The
    /// server checks the rest of its range (4713 BC – 294276 AD) itself.
    static func microseconds(_ date: Date) -> Int64? {
        let millis = (date.timeIntervalSince(Date(timeIntervalSince1970: 946_684_800)) * 1_000).rounded()
        guard millis.isFinite, millis > -9.2e15, millis < 9.2e15 else { return nil }
        return Int64(millis) * 1_000
    }

    /// `jsonb`: version 1, then the JSON text. `false`, appending nothing, when too long.
    static func appendJSONB(_ json: [UInt8], to out: inout [UInt8]) -> Bool {
        let start = beginJSONB(in: &out)
        out.append(contentsOf: json)
        return endJSONB(start, in: &out)
    }

    /// Starts a `jsonb` value whose text is then appended to `out` in place (no copy of it);
    /// returns where it starts, for ``endJSONB(_:in:)``.
    static func beginJSONB(in out: inout [UInt8]) -> Int {
        let start = out.count
        append(int32: 0, to: &out)
        out.append(1)
        return start
    }

    /// Ends the `jsonb` value begun at `start` (its length goes in front of it). `false`, with
    /// the value taken out again, when it is too long.
    static func endJSONB(_ start: Int, in out: inout [UInt8]) -> Bool {
        guard let count = Int32(exactly: out.count - start - 4), count < 1 << 30 else {
            out.removeSubrange(start...)
            return false
        }
        let v = UInt32(bitPattern: count)
        out[start] = UInt8(truncatingIfNeeded: v >> 24)
        out[start + 1] = UInt8(truncatingIfNeeded: v >> 16)
        out[start + 2] = UInt8(truncatingIfNeeded: v >> 8)
        out[start + 3] = UInt8(truncatingIfNeeded: v)
        return true
    }

    /// `text[]`: one dimension (none when empty), no NULLs, elements of type `text` (OID 25).
    /// `false`, appending nothing, when too long.
    static func appendTextArray<Items: Collection<String>>(_ items: Items, to out: inout [UInt8]) -> Bool {
        var size = 12
        for item in items { size += 4 + item.utf8.count }
        if !items.isEmpty { size += 8 }
        guard let total = Int32(exactly: size), total < 1 << 30, let count = Int32(exactly: items.count) else { return false }
        append(int32: total, to: &out)
        append(int32: items.isEmpty ? 0 : 1, to: &out)
        append(int32: 0, to: &out)
        append(int32: 25, to: &out)
        if !items.isEmpty {
            append(int32: count, to: &out)
            append(int32: 1, to: &out)
        }
        for item in items {
            append(int32: Int32(truncatingIfNeeded: item.utf8.count), to: &out)
            out.append(contentsOf: item.utf8)
        }
        return true
    }

    /// `_rperm` (`write` false) or `_wperm`: the keys of an ACL's entries that may read
    /// (write), in order, as ``appendTextArray(_:to:)`` writes them.
    static func appendACL(_ acl: ParseACL, write: Bool, to out: inout [UInt8]) -> Bool {
        // Keys and permissions by index: iterating the dictionary copied each key and entry
        // (a retain and a release per entry, twice per ACL, twice per row).
        let keys = acl.entries.keys.elements
        let access = acl.entries.values.elements
        var count = 0
        var bytes = 0
        for i in keys.indices where write ? access[i].write : access[i].read {
            count += 1
            bytes += keys[i].utf8.count
        }
        guard count > 0 else { return appendTextArray([String](), to: &out) }
        guard let total = Int32(exactly: 20 + 4 * count + bytes), total < 1 << 30, let items = Int32(exactly: count) else { return false }
        append(int32: total, to: &out)
        append(int32: 1, to: &out)
        append(int32: 0, to: &out)
        append(int32: 25, to: &out)
        append(int32: items, to: &out)
        append(int32: 1, to: &out)
        for i in keys.indices where write ? access[i].write : access[i].read {
            append(int32: Int32(truncatingIfNeeded: keys[i].utf8.count), to: &out)
            out.append(contentsOf: keys[i].utf8)
        }
        return true
    }

    /// `point`: x, then y.
    static func appendPoint(x: Double, y: Double, to out: inout [UInt8]) {
        append(int32: 16, to: &out)
        append(uint64: x.bitPattern, to: &out)
        append(uint64: y.bitPattern, to: &out)
    }

    /// `polygon`: the number of points, then each point's x and y. `false`, appending
    /// nothing, when there are too many points.
    static func appendPolygon(_ points: [(x: Double, y: Double)], to out: inout [UInt8]) -> Bool {
        guard let count = Int32(exactly: points.count), let size = Int32(exactly: 4 + 16 * points.count), size < 1 << 30 else { return false }
        append(int32: size, to: &out)
        append(int32: count, to: &out)
        for point in points {
            append(uint64: point.x.bitPattern, to: &out)
            append(uint64: point.y.bitPattern, to: &out)
        }
        return true
    }
}

/// A `timestamptz` parameter of a statement: the microseconds ``CopyBinary/microseconds(_:)``
/// gives, so a bound date is stored as COPY stores it (postgres-nio's `Date` truncates, and
/// traps on a date beyond 64 bits of microseconds).
struct PostgresTimestamp: PostgresNonThrowingEncodable {
    let microseconds: Int64

    static var psqlType: PostgresDataType { .timestamptz }
    static var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeInteger(microseconds)
    }
}
