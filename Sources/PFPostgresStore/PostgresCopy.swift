import Foundation
import PFCore
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

/// One open `COPY <table> FROM STDIN (FORMAT text)` on a session's connection.
///
/// ``send(_:)`` hands a buffer of rows over and returns at once while earlier buffers are still
/// on their way or being loaded by the server: at most `inFlight` buffers wait, after that
/// `send` blocks until the connection takes one (back-pressure; memory stays bounded). The
/// server's verdict on the rows comes when the COPY ends, ``finish()``, or with the next
/// ``send(_:)`` after the server refused a row. ``cancel()`` ends the COPY with `CopyFail`
/// (the transaction is then failed, and must be rolled back).
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
    ///   - table: a table name without double quotes (postgres-nio quotes it as it is).
    ///   - columns: the columns in row order, names without double quotes; empty for all.
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
        Task(executorPreference: EventLoopTaskExecutor(loop)) {
            do {
                try await connection.copyFrom(table: table, columns: columns, format: .text(.init()), logger: logger) { writer in
                    for try await buffer in stream {
                        try await writer.write(buffer)
                        self.returnRoom()
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

    private func returnRoom() {
        condition.lock()
        room += 1
        condition.signal()
        condition.unlock()
    }

    /// Queues a buffer of rows (complete lines of COPY text).
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
            throw PFError(.io, format: StoreFormat.name, "COPY into \(table) ended before its rows were sent")
        }
        continuation.yield(buffer)
    }

    /// Ends the COPY (`CopyDone`) and waits for the server to have loaded every row.
    /// - Throws: the server's error for a row, or the connection's.
    func finish() throws {
        closed = true
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

// MARK: - COPY text format

/// Rows in `COPY … (FORMAT text)`: columns separated by tabs, rows ended by newlines,
/// `\N` for NULL, and a backslash before a backslash, newline, carriage return or tab
/// (written as `\\`, `\n`, `\r`, `\t`). PostgreSQL reads each column's text with the column
/// type's input function, as it reads a parameter sent as text.
enum CopyText {
    static let tab: UInt8 = 0x09
    static let newline: UInt8 = 0x0A

    /// Appends NULL.
    static func appendNull(to buffer: inout ByteBuffer) {
        buffer.writeStaticString("\\N")
    }

    /// Appends a column's text, escaped.
    static func append(_ text: String, to buffer: inout ByteBuffer) {
        var text = text
        text.withUTF8 { bytes in
            var clean = true
            for byte in bytes where byte == 0x5C || byte < 0x20 {
                if byte == 0x5C || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                    clean = false
                    break
                }
            }
            if clean {
                buffer.writeBytes(bytes)
                return
            }
            buffer.reserveCapacity(minimumWritableBytes: bytes.count + 16)
            var start = 0
            for (i, byte) in bytes.enumerated() {
                let escape: UInt8
                switch byte {
                case 0x5C: escape = 0x5C
                case 0x0A: escape = UInt8(ascii: "n")
                case 0x0D: escape = UInt8(ascii: "r")
                case 0x09: escape = UInt8(ascii: "t")
                default: continue
                }
                buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start..<i]))
                buffer.writeInteger(UInt8(0x5C))
                buffer.writeInteger(escape)
                start = i + 1
            }
            buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start...]))
        }
    }

    /// A `text[]` literal, `{"a","b"}` (every element quoted, `"` and `\` escaped).
    static func arrayLiteral(_ items: [String]) -> String {
        var out = "{"
        for (i, item) in items.enumerated() {
            if i > 0 { out += "," }
            out += "\""
            for c in item.unicodeScalars {
                if c == "\"" || c == "\\" { out += "\\" }
                out.unicodeScalars.append(c)
            }
            out += "\""
        }
        return out + "}"
    }

    /// A timestamp as PostgreSQL's `timestamptz` input reads it, to the microsecond that
    /// postgres-nio's binary encoding sends for the same `Date` (microseconds since
    /// 2000-01-01 UTC, truncated toward zero): `2014-05-13 16:53:20.123000+00`, years before 1
    /// as `… BC`. `nil` when the microseconds do not fit in 64 bits (PostgreSQL's range is
    /// far smaller: the server refuses what is outside it).
    static func timestamp(_ date: Date) -> String? {
        var buffer = ByteBufferAllocator().buffer(capacity: 40)
        guard appendTimestamp(date, to: &buffer) else { return nil }
        return buffer.readString(length: buffer.readableBytes)
    }

    /// Appends ``timestamp(_:)``'s text (which needs no escaping); `false`, appending nothing,
    /// when there is none.
    static func appendTimestamp(_ date: Date, to buffer: inout ByteBuffer) -> Bool {
        let micros = date.timeIntervalSince(Date(timeIntervalSince1970: 946_684_800)) * 1_000_000
        guard micros.isFinite, micros > -9.2e18, micros < 9.2e18 else { return false }
        let us = Int64(micros)
        let perDay: Int64 = 86_400_000_000
        var days = us / perDay
        var rest = us % perDay
        if rest < 0 {
            days -= 1
            rest += perDay
        }
        // Days since 1970-01-01 to a proleptic Gregorian date (eras of 400 years).
        let z = days + 10_957 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        var year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let bc = year <= 0
        if bc { year = 1 - year }
        let seconds = rest / 1_000_000
        func digits(_ n: Int64, _ width: Int) {
            var n = n
            var out: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &out) { bytes in
                var i = bytes.count
                repeat {
                    i -= 1
                    bytes[i] = UInt8(truncatingIfNeeded: 0x30 + n % 10)
                    n /= 10
                } while n > 0 && i > 0
                while bytes.count - i < width && i > 0 {
                    i -= 1
                    bytes[i] = 0x30
                }
                buffer.writeBytes(UnsafeRawBufferPointer(rebasing: bytes[i...]))
            }
        }
        digits(year, 4)
        buffer.writeInteger(UInt8(ascii: "-"))
        digits(month, 2)
        buffer.writeInteger(UInt8(ascii: "-"))
        digits(day, 2)
        buffer.writeInteger(UInt8(ascii: " "))
        digits(seconds / 3_600, 2)
        buffer.writeInteger(UInt8(ascii: ":"))
        digits(seconds / 60 % 60, 2)
        buffer.writeInteger(UInt8(ascii: ":"))
        digits(seconds % 60, 2)
        buffer.writeInteger(UInt8(ascii: "."))
        digits(rest % 1_000_000, 6)
        buffer.writeStaticString("+00")
        if bc { buffer.writeStaticString(" BC") }
        return true
    }
}
