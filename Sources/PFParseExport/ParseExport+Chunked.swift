import Foundation
import PFCore
import PFJSON
import PFParse

// MARK: - Rows of a class file fed in chunks

/// Cuts the rows of a Parse class file that arrives in chunks of any size — from a
/// `FileHandle`, a zip entry's inflater, a socket — without ever holding the file: a row that
/// lies inside one chunk is handed over as a slice of that chunk (no copy); only a row cut by
/// a chunk edge is carried over, in one reused buffer. Memory is bounded by the largest row.
///
/// The file may be `{"results":[…]}` (with further members after the array, as a REST query
/// response has), a bare array (parse-dashboard), whitespace only or 0 bytes (an empty
/// class), or one object (read whole when the file is done, as the whole-file reader does).
///
/// ```swift
/// var cutter = ParseExportRowCutter()
/// while let chunk = next() {
///     try chunk.withUnsafeBytes { bytes throws(PFError) in
///         try cutter.feed(bytes) { row throws(PFError) in … }
///     }
/// }
/// try cutter.finish { row throws(PFError) in … }
/// ```
///
/// The handler receives a ``ParseExportRow``: the row's bytes (valid only during the call),
/// its index and the byte offset in the file where it starts. Rows are only cut, not parsed:
/// read each one with ``ParseExportRow/readObject(reader:className:file:checkingNames:)``, which names the
/// file, the row and the byte offset in its errors.
public struct ParseExportRowCutter {
    /// A row handler: receives each cut row.
    public typealias RowHandler = (ParseExportRow) throws(PFError) -> Void

    enum Phase {
        /// Before the rows: bytes are gathered in `carry` until the wrapper is known.
        case header
        /// Between rows: `afterComma` once a separator was read.
        case between(afterComma: Bool)
        /// Inside an object or array row.
        case row
        /// Inside a scalar row (not an object: the reader rejects it with a clear message).
        case scalarRow
        /// After the rows' closing `]`: the rest is gathered in `carry` and checked at the end.
        case tail
        /// Not an export wrapper (one object): the whole file is gathered and read at the end.
        case whole
        /// ``finish(_:)`` was called.
        case done
    }

    /// Budgets: `maxInputBytes` bounds one row (and a file read whole), as the JSON reader does.
    public let limits: PFLimits
    /// How the file holds its rows, once known: ``ParseExport/Shape/results``, ``ParseExport/Shape/array``,
    /// ``ParseExport/Shape/single`` or ``ParseExport/Shape/empty``.
    public private(set) var shape: ParseExport.Shape?
    /// Rows handed over so far.
    public private(set) var rowCount = 0
    /// Bytes fed so far.
    public private(set) var bytesFed = 0
    /// After ``finish(_:)``, a results wrapper's other members (a REST response's `"count"`)
    /// as the text of one JSON object (`{"count":1}`), for a caller that writes the whole
    /// document (``shape`` `.results`); `nil` when the wrapper has no other member.
    public private(set) var tailMembers: Data?

    var phase = Phase.header
    /// Bytes carried across chunks: the header, a row cut by a chunk edge, the tail, or the
    /// whole file for a single object.
    var carry: [UInt8] = []
    /// Where the carried row starts in the file.
    var carryOffset = 0
    // The row scanner's state, kept across chunks.
    var depth = 0
    var inString = false
    var escaped = false
    var rowStart = 0

    /// Whether the input is a plain JSON document rather than a Parse class file (`convert`'s
    /// records): a byte order mark is not skipped (the JSON reader refuses it, as every other
    /// route does), and an object that is not a results wrapper — a repeated key (its last
    /// value is kept), `"results"` holding no array (an API's error body) — is one record, not
    /// a refused class file.
    public var plainJSON = false

    /// Makes a cutter.
    /// - Parameters:
    ///   - limits: budgets (`maxInputBytes` bounds one row and a whole-read file).
    ///   - plainJSON: the input is a plain JSON document (``plainJSON``).
    public init(limits: PFLimits = .default, plainJSON: Bool = false) {
        self.limits = limits
        self.plainJSON = plainJSON
    }

    // MARK: Feeding

    /// Scans one more chunk, calling `body` for each row that ends in it.
    /// - Parameters:
    ///   - chunk: the next bytes of the file.
    ///   - body: receives each complete row, its index and its file offset.
    /// - Throws: ``PFCore/PFError`` with code `syntax` (Parse code 107) and the file offset for
    ///   a malformed wrapper or separator, `limitExceeded` for a row larger than
    ///   `maxInputBytes`, or what `body` throws.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer, _ body: RowHandler) throws(PFError) {
        guard chunk.count > 0, let base = chunk.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let chunkOffset = bytesFed
        bytesFed += chunk.count
        let n = chunk.count
        var i = 0
        while i < n {
            switch phase {
            case .header:
                carry.append(contentsOf: UnsafeBufferPointer(start: base + i, count: n - i))
                i = n
                try decideHeader(final: false, body)
                if case .header = phase { return }
                // decideHeader fed the gathered bytes on; this chunk is consumed.
                return
            case .between(let afterComma):
                let c = base[i]
                switch c {
                case 0x20, 0x0A, 0x0D, 0x09: i += 1
                case UInt8(ascii: "]"):
                    if afterComma { throw malformed(.trailingComma, at: chunkOffset + i) }
                    i += 1
                    phase = .tail
                case UInt8(ascii: ","):
                    if afterComma || rowCount == 0 { throw malformed(.emptyRow, at: chunkOffset + i) }
                    i += 1
                    phase = .between(afterComma: true)
                default:
                    if rowCount > 0 && !afterComma { throw malformed(.expectedCommaOrBracket, at: chunkOffset + i) }
                    rowStart = chunkOffset + i
                    carry.removeAll(keepingCapacity: true)
                    // A string row is scanned like a container, so its spaces, commas and
                    // brackets stay inside it.
                    if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") || c == UInt8(ascii: "\"") {
                        depth = 0
                        inString = false
                        escaped = false
                        phase = .row
                    } else {
                        phase = .scalarRow
                    }
                }
            case .row:
                i = try scanRow(base, from: i, count: n, chunkOffset: chunkOffset, body)
            case .scalarRow:
                let start = i
                while i < n {
                    let c = base[i]
                    if c == UInt8(ascii: ",") || c == UInt8(ascii: "]") || c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { break }
                    i += 1
                }
                let rowFromChunk = chunkOffset + start == rowStart
                if i == n {
                    try carryRow(UnsafeRawBufferPointer(start: base + start, count: i - start))
                } else if rowFromChunk {
                    try emit(UnsafeRawBufferPointer(start: base + start, count: i - start), body)
                } else {
                    try carryRow(UnsafeRawBufferPointer(start: base + start, count: i - start))
                    try emitCarry(body)
                }
            case .tail, .whole:
                try gather(UnsafeRawBufferPointer(start: base + i, count: n - i))
                i = n
            case .done:
                throw PFError(ParseExportFailure.feedAfterFinish, format: ParseFailure.format)
            }
        }
    }

    /// Ends the file: checks what follows the rows and reads a one-object file.
    /// - Parameter body: receives the rows that only the end completes (a scalar last row, or
    ///   the object of a one-object file).
    /// - Throws: ``PFCore/PFError`` when the file ends inside the rows, has data after them,
    ///   or is not an export (with the full reader's message), or what `body` throws.
    public mutating func finish(_ body: RowHandler) throws(PFError) {
        switch phase {
        case .header:
            try decideHeader(final: true, body)
            if case .whole = phase { return try finishWhole(body) }
            if case .header = phase {
                phase = .done
                shape = .empty
                return
            }
            // The header was complete after all: the rows are unfinished.
            return try finish(body)
        case .between, .row:
            if case .row = phase { throw malformed(.endsInsideRow, at: bytesFed) }
            throw malformed(.endsInsideRows, at: bytesFed)
        case .scalarRow:
            throw malformed(.endsInsideRows, at: bytesFed)
        case .tail:
            phase = .done
            try checkTail()
        case .whole:
            try finishWhole(body)
        case .done:
            return
        }
    }

    // MARK: Rows

    /// Scans an object or array row from `start`; returns where scanning stopped.
    private mutating func scanRow(
        _ base: UnsafePointer<UInt8>, from start: Int, count n: Int, chunkOffset: Int, _ body: RowHandler
    ) throws(PFError) -> Int {
        var depth = self.depth
        var inString = self.inString
        var escaped = self.escaped
        var i = start
        var end = -1
        while i < n {
            let c = base[i]
            if inString {
                if escaped {
                    escaped = false
                } else if c == UInt8(ascii: "\\") {
                    escaped = true
                } else if c == UInt8(ascii: "\"") {
                    inString = false
                    // The closing quote of a string row ends the row.
                    if depth == 0 {
                        end = i + 1
                        break
                    }
                } else {
                    // Skip plain string bytes quickly (eight at a time): most of a row is
                    // inside strings.
                    i = PlainStringBytes.skip(base, from: i + 1, count: n)
                    while i < n {
                        let d = base[i]
                        if d == UInt8(ascii: "\\") || d == UInt8(ascii: "\"") { break }
                        i += 1
                    }
                    continue
                }
            } else {
                switch c {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { end = i + 1 }
                default: break
                }
                if end >= 0 { break }
            }
            i += 1
        }
        self.depth = depth
        self.inString = inString
        self.escaped = escaped
        let rowFromChunk = chunkOffset + start == rowStart
        if end < 0 {
            try carryRow(UnsafeRawBufferPointer(start: base + start, count: n - start))
            return n
        }
        if rowFromChunk {
            try emit(UnsafeRawBufferPointer(start: base + start, count: end - start), body)
        } else {
            try carryRow(UnsafeRawBufferPointer(start: base + start, count: end - start))
            try emitCarry(body)
        }
        return end
    }

    private mutating func carryRow(_ bytes: UnsafeRawBufferPointer) throws(PFError) {
        guard carry.count + bytes.count <= limits.maxInputBytes else {
            throw rowTooLarge()
        }
        carry.append(contentsOf: bytes)
    }

    private mutating func emit(_ row: UnsafeRawBufferPointer, _ body: RowHandler) throws(PFError) {
        guard row.count <= limits.maxInputBytes else { throw rowTooLarge() }
        let index = rowCount
        rowCount += 1
        phase = .between(afterComma: false)
        try body(ParseExportRow(bytes: row, index: index, offset: rowStart, shape: shape ?? .array))
    }

    private mutating func emitCarry(_ body: RowHandler) throws(PFError) {
        let index = rowCount
        rowCount += 1
        phase = .between(afterComma: false)
        let row = carry
        // A huge row's buffer is not kept for the rest of the file.
        if carry.capacity > 4 << 20 { carry = [] } else { carry.removeAll(keepingCapacity: true) }
        try row.withBytes { bytes throws(PFError) in
            try body(ParseExportRow(bytes: bytes, index: index, offset: rowStart, shape: shape ?? .array))
        }
    }

    private func rowTooLarge() -> PFError {
        var error = PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: ParseFailure.format, offset: rowStart)
        error.message = "row \(rowCount) is larger than maxInputBytes (\(limits.maxInputBytes)); raise the limit only for trusted input"
        return error
    }

    private mutating func gather(_ bytes: UnsafeRawBufferPointer) throws(PFError) {
        guard carry.count + bytes.count <= limits.maxInputBytes else {
            throw PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: ParseFailure.format, offset: bytesFed)
        }
        carry.append(contentsOf: bytes)
    }

    // MARK: Header and tail

    /// Decides the shape from the gathered start of the file; on `{"results":[` or `[` the
    /// gathered bytes after it are fed on as rows.
    private mutating func decideHeader(final: Bool, _ body: RowHandler) throws(PFError) {
        // A UTF-8 byte order mark (a class file saved by a Windows editor) is not part of the
        // document; offsets still count it, so they stay file offsets.
        let mark = !plainJSON && carry.starts(with: Self.byteOrderMark) ? Self.byteOrderMark.count : 0
        if !plainJSON, !final, carry.count < Self.byteOrderMark.count, Self.byteOrderMark.starts(with: carry) { return }
        let decision: (shape: ParseExport.Shape, end: Int)?? = carry.withUnsafeBytes { raw in
            var scanner = RowScanner(bytes: raw)
            scanner.i = mark
            if let shape = scanner.openRows() { return .some((shape, scanner.i)) }
            // Whitespace only so far, or a prefix of `{"results":[` not yet complete: wait.
            scanner.skipSpace()
            if scanner.i == raw.count { return nil }
            if !final, Self.couldStillOpen(UnsafeRawBufferPointer(rebasing: raw[mark...])) { return nil }
            return .some(nil)
        }
        switch decision {
        case nil:
            return
        case .some(nil):
            // One object (or an error): the full reader takes it whole.
            guard carry.count <= limits.maxInputBytes else {
                throw PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: ParseFailure.format)
            }
            phase = .whole
        case .some(let found?):
            shape = found.shape
            phase = .between(afterComma: false)
            let rest = Array(carry[found.end...])
            carry.removeAll(keepingCapacity: true)
            let offset = bytesFed - rest.count
            // Feed the rest as if it had just arrived (bytesFed already counts it).
            bytesFed = offset
            try rest.withBytes { bytes throws(PFError) in try feed(bytes, body) }
        }
    }

    /// The shape of the rows a document starting with `start` opens: `.array` for `[`,
    /// `.results` for `{"results":[` (white space allowed between the tokens), `nil` for any
    /// other start (one object, a scalar, or too few bytes to tell) — what the cutter will
    /// find, told from the first bytes alone.
    /// - Parameter start: the document's first bytes.
    /// - Returns: the shape, or `nil`.
    public static func rowsShape(opening start: Data) -> ParseExport.Shape? {
        start.withUnsafeBytes { raw in
            var scanner = RowScanner(bytes: raw)
            return scanner.openRows()
        }
    }

    /// Whether the gathered bytes could still grow into `{ "results" : [` (only whitespace
    /// and a prefix of it so far), so the decision waits for more bytes.
    static func couldStillOpen(_ raw: UnsafeRawBufferPointer) -> Bool {
        let pattern = Array("{\"results\":[".utf8)
        var k = 0
        for b in raw {
            if b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 {
                // Whitespace is allowed between tokens, not inside "results".
                if k > 1 && k < 10 { return false }
                continue
            }
            guard k < pattern.count, b == pattern[k] else { return false }
            k += 1
        }
        return k < pattern.count
    }

    private mutating func checkTail() throws(PFError) {
        let tailStart = bytesFed - carry.count
        let tail = carry
        carry = []
        guard let shape else { return }
        try tail.withBytes { raw throws(PFError) in
            var scanner = RowScanner(bytes: raw)
            do throws(PFError) {
                guard let rest = try scanner.closeRows(shape) else { return }
                var members = Data("{".utf8)
                members.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[rest]).dropFirst())
                tailMembers = members
                let value = try JSONReader(options: .init(mode: .strict, typedValues: false, limits: limits)).read(members)
                if case .dictionary(let d) = value {
                    if d["results"] != nil { throw PFError(ParseExportFailure.twoResults, format: ParseFailure.format) }
                    if d["objectId"] != nil || d["__type"] != nil {
                        throw PFError(ParseExportFailure.ambiguousResults, format: ParseFailure.format)
                    }
                }
            } catch {
                var moved = error
                moved.location = PFError.Location(offset: tailStart + (error.location?.offset ?? 0))
                throw moved
            }
        }
    }

    /// The records of a plain JSON document read whole: a results wrapper's rows, else the
    /// document itself (an empty or blank one holds none).
    static func plainRows(_ bytes: [UInt8], limits: PFLimits) throws(PFError) -> (rows: [PFValue], shape: ParseExport.Shape) {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return ([], .empty) }
        let value = try JSONReader(options: .init(mode: .strict, typedValues: false, limits: limits)).read(Data(bytes))
        if case .dictionary(let d) = value, d["objectId"] == nil, d["__type"] == nil, case .array(let items)? = d["results"] {
            return (items, .results)
        }
        return ([value], .single)
    }

    /// The UTF-8 byte order mark a class file may start with.
    public static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    private mutating func finishWhole(_ body: RowHandler) throws(PFError) {
        phase = .done
        let bytes = !plainJSON && carry.starts(with: Self.byteOrderMark) ? Array(carry.dropFirst(Self.byteOrderMark.count)) : carry
        carry = []
        let (rows, shape) = plainJSON ? try Self.plainRows(bytes, limits: limits) : try ParseExport.rows(fromJSON: Data(bytes), limits: limits)
        self.shape = shape
        rowStart = 0
        if shape == .single {
            // The file is the row.
            rowCount = 1
            return try bytes.withBytes { raw throws(PFError) in
                try body(ParseExportRow(bytes: raw, index: 0, offset: 0, shape: .single))
            }
        }
        // `{"count":…,"results":[…]}` with `results` not first: the rows are values already;
        // each is handed over as its own compact JSON so the caller reads every row alike.
        for (i, row) in rows.enumerated() {
            let text = try JSONWriter().write(row)
            rowCount += 1
            try text.withBytes { raw throws(PFError) in try body(ParseExportRow(bytes: raw, index: i, offset: 0, shape: shape)) }
        }
    }

    private func malformed(_ problem: ParseExportFailure.RowsProblem, at offset: Int) -> PFError {
        PFError(ParseExportFailure.rows(problem), format: ParseFailure.format, offset: offset)
    }
}

// MARK: - Reading one row

/// One row cut from a class file: its bytes (valid only while the handler runs), its index,
/// the byte offset where it starts in the file, and the file's shape.
public struct ParseExportRow {
    /// The row's JSON text.
    public var bytes: UnsafeRawBufferPointer
    /// The row's index in the file.
    public var index: Int
    /// The byte offset of the row's first byte in the file.
    public var offset: Int
    /// How the file holds its rows (for the path in errors: `results[3]` or `[3]`).
    public var shape: ParseExport.Shape
    /// The number of a row read before, elsewhere, that this row is byte for byte, when whoever
    /// cut it recognised it (``ParallelRowReader`` carries it to its transform, which can then
    /// skip reading the row); `nil` otherwise.
    public var known: Int?

    /// A row read back from its place in a file (its bytes as ``ParseExportRowCutter`` cut them).
    public init(bytes: UnsafeRawBufferPointer, index: Int, offset: Int, shape: ParseExport.Shape, known: Int? = nil) {
        self.bytes = bytes
        self.index = index
        self.offset = offset
        self.shape = shape
        self.known = known
    }

    /// The JSON reader settings for rows: strict, Parse's typed objects left as dictionaries
    /// (so a malformed Date is reported by the Parse layer, per object), duplicate keys refused.
    /// - Parameter limits: budgets per row.
    /// - Returns: the reader.
    public static func reader(limits: PFLimits = .default) -> JSONReader {
        var options = JSONReader.Options(mode: .strict, typedValues: false, limits: limits)
        options.rejectDuplicateKeys = true
        return JSONReader(options: options)
    }

    /// The row's JSON value.
    /// - Parameters:
    ///   - reader: the JSON reader (``reader(limits:)``).
    ///   - file: the file's name, for messages.
    /// - Returns: the value.
    /// - Throws: ``PFCore/PFError`` as ``readObject(reader:className:file:checkingNames:)`` does.
    public func readValue(reader: JSONReader, file: String) throws(PFError) -> PFValue {
        do throws(PFError) {
            return try reader.read(bytes)
        } catch {
            throw placed(error, file: file)
        }
    }

    /// Reads the row into an object, naming the file, the row and its place in the file on
    /// failure.
    /// - Parameters:
    ///   - reader: the JSON reader (``reader(limits:)``).
    ///   - className: the class (from the file name).
    ///   - file: the file's name, for messages.
    ///   - checkingNames: `false` to accept any field name and nested key (a store's reader).
    /// - Returns: the object.
    /// - Throws: ``PFCore/PFError`` whose message starts with `<file>: row <index>:`, whose
    ///   location is the byte offset in the file and whose path starts with the row
    ///   (`results[3].score`).
    public func readObject(reader: JSONReader, className: String?, file: String, checkingNames: Bool = true) throws(PFError) -> ParseObject {
        do throws(PFError) {
            // Straight from json-c's tree (no PFValue tree in between); same result and errors.
            return try reader.withDocument(bytes) { root throws(PFError) in
                try ParseObject(restJSON: root, className: className, checkingNames: checkingNames)
            }
        } catch {
            throw placed(error, file: file)
        }
    }

    /// A JSON session for the rows of one file (``reader(limits:)``'s settings): rows share
    /// json-c's tokener and the cache of keys, which every row repeats.
    /// - Parameter limits: budgets per row.
    /// - Returns: the session (one per thread).
    public static func session(limits: PFLimits = .default) -> JSONReader.Session {
        JSONReader.Session(reader: reader(limits: limits))
    }

    /// ``readObject(reader:className:file:checkingNames:)`` with a session (``session(limits:)``), the
    /// fastest way to read many rows.
    /// - Parameters:
    ///   - session: the JSON session.
    ///   - className: the class (from the file name).
    ///   - file: the file's name, for messages.
    ///   - checkingNames: `false` to accept any field name and nested key (a store's reader).
    /// - Returns: the object.
    /// - Throws: ``PFCore/PFError`` as ``readObject(reader:className:file:checkingNames:)`` does.
    public func readObject(session: JSONReader.Session, className: String?, file: String, checkingNames: Bool = true) throws(PFError) -> ParseObject {
        do throws(PFError) {
            return try session.withDocument(bytes) { root throws(PFError) in
                try ParseObject(restJSON: root, className: className, checkingNames: checkingNames)
            }
        } catch {
            throw placed(error, file: file)
        }
    }

    /// The error with the file, row, file offset and row path added.
    public func placed(_ error: PFError, file: String) -> PFError {
        var e = error
        e.message = "\(file): row \(index): " + e.message
        e.location = PFError.Location(offset: offset + (error.location?.offset ?? 0))
        return e.prefixed(by: ParseExport.rowPath(index, shape: shape))
    }
}
