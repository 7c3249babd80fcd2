import Foundation
import PFCore

/// JSON Lines (`.jsonl`, also called NDJSON, `.ndjson`): one JSON value per line, each line
/// ended by `\n` — the one home of pfarchive's JSON-lines reading and writing, used by
/// `convert`, the stores and every other producer of lines.
///
/// Lines are compact JSON (a JSON string never holds a raw newline, so a value is always one
/// line). On read, a `\r` before the `\n` and a UTF-8 byte-order mark at the start of the
/// input are ignored, lines holding only white space are skipped, and the last line may lack
/// its `\n`. Each line is read by the ordinary ``JSONReader`` (one session for all lines):
/// there is no second JSON parser here, only a line cutter in front of it.
///
/// ```swift
/// var writer = JSONLines.Writer()
/// var out: [UInt8] = []
/// for value in values { try writer.append(value, into: &out) }
///
/// var reader = JSONLines.Reader(reader: JSONReader())
/// try chunk.withUnsafeBytes { bytes throws(PFError) in
///     try reader.feed(bytes) { value, line throws(PFError) in print(line.number, value) }
/// }
/// try reader.finish { value, line throws(PFError) in print(line.number, value) }
/// ```
public enum JSONLines {
    /// Where a line is: its 1-based number and the byte offset of its first byte in the input.
    public struct Line: Sendable, Equatable {
        /// The 1-based line number.
        public var number: Int
        /// The byte offset of the line's first byte in the input.
        public var offset: Int

        /// Makes a line position.
        /// - Parameters:
        ///   - number: the 1-based line number.
        ///   - offset: the byte offset of the line's first byte.
        public init(number: Int, offset: Int) {
            self.number = number
            self.offset = offset
        }
    }

    // MARK: - Writing

    /// Writes values as JSON lines: compact JSON (never pretty) followed by `\n`.
    public struct Writer: Sendable {
        /// The JSON writer each line is written with (``JSONWriter/Options/pretty`` is ignored).
        public let writer: JSONWriter

        /// Makes a writer.
        /// - Parameter options: the JSON writer's options; `pretty` is turned off.
        public init(options: JSONWriter.Options = .init()) {
            var options = options
            options.pretty = false
            // A line is small; the parallel writer only pays off on whole documents.
            options.parallel = false
            writer = JSONWriter(options: options)
        }

        /// Appends one value as a line.
        /// - Parameters:
        ///   - value: the value.
        ///   - buffer: where the line (with its `\n`) is appended; on error it is left as it was.
        /// - Throws: ``PFCore/PFError`` as ``JSONWriter/write(_:into:)`` does.
        public func append(_ value: PFValue, into buffer: inout [UInt8]) throws(PFError) {
            try writer.write(value, into: &buffer)
            buffer.append(0x0A)
        }

        /// Writes values, one line each.
        /// - Parameter values: the values.
        /// - Returns: the lines.
        /// - Throws: ``PFCore/PFError`` as ``JSONWriter/write(_:into:)`` does, with the value's
        ///   index in the path.
        public func write<S: Sequence<PFValue>>(_ values: S) throws(PFError) -> Data {
            var buffer: [UInt8] = []
            for (i, value) in values.enumerated() {
                do throws(PFError) {
                    try append(value, into: &buffer)
                } catch {
                    throw error.prefixed(by: PFKeyPath([.index(i)]))
                }
            }
            return Data(buffer)
        }
    }

    // MARK: - Cutting lines

    /// Cuts input that arrives in chunks of any size into lines, without holding more than
    /// the longest line: a line inside one chunk is handed over as a slice of it; only a line
    /// cut by a chunk edge is carried over.
    public struct Cutter {
        /// A line handler: the line's bytes (without `\r\n`, valid only during the call) and
        /// where it is.
        public typealias LineHandler = (UnsafeRawBufferPointer, Line) throws(PFError) -> Void

        /// The longest line accepted, in bytes.
        public let maxLineBytes: Int
        /// Bytes fed so far.
        public private(set) var bytesFed = 0
        /// Lines seen so far, blank ones included.
        public private(set) var lineCount = 0
        private var carry: [UInt8] = []
        private var carryOffset = 0

        /// Makes a cutter.
        /// - Parameter maxLineBytes: the longest line accepted (``PFCore/PFLimits/maxInputBytes``
        ///   is the usual bound).
        public init(maxLineBytes: Int) {
            self.maxLineBytes = maxLineBytes
        }

        /// Scans one more chunk, calling `body` for each non-blank line that ends in it.
        /// - Parameters:
        ///   - chunk: the next bytes.
        ///   - body: receives each line.
        /// - Throws: ``PFCore/PFError`` `limitExceeded` (with the line number) for a line
        ///   longer than ``maxLineBytes``, or what `body` throws.
        public mutating func feed(_ chunk: UnsafeRawBufferPointer, _ body: LineHandler) throws(PFError) {
            let chunkOffset = bytesFed
            bytesFed += chunk.count
            var start = 0
            while start < chunk.count {
                guard let newline = chunk[start...].firstIndex(of: 0x0A) else {
                    if carry.isEmpty { carryOffset = chunkOffset + start }
                    guard carry.count + (chunk.count - start) <= maxLineBytes else { throw tooLong(at: carryOffset) }
                    carry.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[start...]))
                    return
                }
                if carry.isEmpty {
                    try deliver(UnsafeRawBufferPointer(rebasing: chunk[start..<newline]), offset: chunkOffset + start, body)
                } else {
                    guard carry.count + (newline - start) <= maxLineBytes else { throw tooLong(at: carryOffset) }
                    carry.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[start..<newline]))
                    try deliverCarry(body)
                }
                start = newline + 1
            }
        }

        /// Ends the input: hands over a last line that has no `\n`.
        /// - Parameter body: receives the last line, if any.
        /// - Throws: what `body` throws.
        public mutating func finish(_ body: LineHandler) throws(PFError) {
            guard !carry.isEmpty else { return }
            try deliverCarry(body)
        }

        private mutating func deliverCarry(_ body: LineHandler) throws(PFError) {
            let line = carry
            // A huge line's buffer is not kept for the rest of the input.
            if carry.capacity > 4 << 20 { carry = [] } else { carry.removeAll(keepingCapacity: true) }
            try line.withBytes { raw throws(PFError) in try deliver(raw, offset: carryOffset, body) }
        }

        private mutating func deliver(_ raw: UnsafeRawBufferPointer, offset: Int, _ body: LineHandler) throws(PFError) {
            guard raw.count <= maxLineBytes else { throw tooLong(at: offset) }
            lineCount += 1
            var from = 0
            var to = raw.count
            if to > 0, raw[to - 1] == 0x0D { to -= 1 }
            // A UTF-8 byte-order mark at the start of the input is not part of the first value.
            if offset == 0, to >= 3, raw[0] == 0xEF, raw[1] == 0xBB, raw[2] == 0xBF { from = 3 }
            var blank = true
            for i in from..<to where !(raw[i] == 0x20 || raw[i] == 0x09 || raw[i] == 0x0D) {
                blank = false
                break
            }
            if blank { return }
            try body(UnsafeRawBufferPointer(rebasing: raw[from..<to]), Line(number: lineCount, offset: offset + from))
        }

        private func tooLong(at offset: Int) -> PFError {
            var error = PFLimits.exceeded("maxInputBytes", maxLineBytes, format: .json, offset: offset)
            error.message = "line \(lineCount + 1) is longer than maxInputBytes (\(maxLineBytes) bytes); expected one value per line "
                + "(raise the limit only for trusted input)"
            error.location = PFError.Location(offset: offset, line: lineCount + 1, column: 1)
            return error
        }
    }

    // MARK: - Reading

    /// Reads JSON lines that arrive in chunks: a ``Cutter`` in front of one
    /// ``JSONReader/Session``. Memory is bounded by the longest line and its value.
    public struct Reader {
        /// A value handler: each line's value and where the line is.
        public typealias ValueHandler = (PFValue, Line) throws(PFError) -> Void

        /// The session every line is read with.
        public let session: JSONReader.Session
        /// The line cutter (``Cutter/bytesFed`` and ``Cutter/lineCount`` tell the progress).
        public private(set) var cutter: Cutter
        /// Values read so far.
        public private(set) var valueCount = 0

        /// Makes a reader; each line is bounded by the reader's `limits.maxInputBytes`.
        /// - Parameter reader: the JSON reader settings for every line.
        public init(reader: JSONReader) {
            session = JSONReader.Session(reader: reader)
            cutter = Cutter(maxLineBytes: reader.options.limits.maxInputBytes)
        }

        /// Reads the lines that end in one more chunk.
        /// - Parameters:
        ///   - chunk: the next bytes.
        ///   - body: receives each value.
        /// - Throws: ``PFCore/PFError`` from the JSON reader with the line number in the message
        ///   (`line 7: …`) and the location (line, column in the line, byte offset in the
        ///   input), `limitExceeded` for a line longer than `maxInputBytes`, or what `body` throws.
        public mutating func feed(_ chunk: UnsafeRawBufferPointer, _ body: ValueHandler) throws(PFError) {
            let session = session
            var count = valueCount
            defer { valueCount = count }
            try cutter.feed(chunk) { raw, line throws(PFError) in
                try body(try Self.read(raw, line: line, session: session), line)
                count += 1
            }
        }

        /// Ends the input: reads a last line without `\n`.
        /// - Parameter body: receives the last value, if any.
        /// - Throws: as ``feed(_:_:)`` does.
        public mutating func finish(_ body: ValueHandler) throws(PFError) {
            let session = session
            var count = valueCount
            defer { valueCount = count }
            try cutter.finish { raw, line throws(PFError) in
                try body(try Self.read(raw, line: line, session: session), line)
                count += 1
            }
        }

        /// Reads a whole JSON-lines text.
        /// - Parameters:
        ///   - bytes: the text.
        ///   - reader: the JSON reader settings for every line.
        /// - Returns: the values, in order.
        /// - Throws: as ``feed(_:_:)`` does.
        public static func read(_ bytes: Data, reader: JSONReader) throws(PFError) -> [PFValue] {
            var lines = Reader(reader: reader)
            var values: [PFValue] = []
            try bytes.withBytes { raw throws(PFError) in
                try lines.feed(raw) { value, _ throws(PFError) in values.append(value) }
            }
            try lines.finish { value, _ throws(PFError) in values.append(value) }
            return values
        }

        /// One line's value, its errors placed in the input.
        static func read(_ raw: UnsafeRawBufferPointer, line: Line, session: JSONReader.Session) throws(PFError) -> PFValue {
            do throws(PFError) {
                return try session.read(raw)
            } catch {
                throw placed(error, line: line)
            }
        }
    }

    /// An error about one line's bytes, with the line number in its message and its location
    /// moved from the line to the whole input.
    /// - Parameters:
    ///   - error: the error, its location (if any) relative to the line.
    ///   - line: the line.
    /// - Returns: the placed error.
    public static func placed(_ error: PFError, line: Line) -> PFError {
        var placed = error
        placed.message = "line \(line.number): " + error.message
        let inLine = error.location?.offset ?? 0
        placed.location = PFError.Location(offset: line.offset + inLine, line: line.number, column: inLine + 1)
        return placed
    }
}
