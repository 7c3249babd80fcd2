import Foundation
import PFCore
import PFJSON
import PFParse
import PFParseAdapter
import Synchronization

// MARK: - Row-by-row reading

extension ParseExport {
    /// Calls `body` with each row of a class file, reading one row at a time: the rows of
    /// `{"results":[…]}` or a bare array are found by a light byte scan and each is read by
    /// the strict JSON reader on its own, so memory holds the file and one row's tree, never
    /// the whole export's tree. Other shapes (one object) are read whole. Rows are handed to
    /// `body` as they are read, so a syntax error late in the file is thrown after the rows
    /// before it were delivered.
    /// - Parameters:
    ///   - bytes: the file's contents (0 bytes is an empty class).
    ///   - limits: budgets for the JSON reader (per row, and `maxInputBytes` for the file).
    ///   - body: receives each row and its index.
    /// - Throws: ``PFCore/PFError`` from the JSON reader (with the row in the path), Parse
    ///   code 107 for a malformed wrapper, or what `body` throws.
    public static func forEachRow(
        inJSON bytes: Data, limits: PFLimits = .default, _ body: (PFValue, Int) throws(PFError) -> Void
    ) throws(PFError) {
        try forEachRow(inJSON: bytes, limits: limits) { row, index, _ throws(PFError) in try body(row, index) }
    }

    /// ``forEachRow(inJSON:limits:_:)`` that also tells `body` the document's shape, so errors
    /// can name the row the way the reader does (`results[3]`).
    static func forEachRow(
        inJSON bytes: Data, limits: PFLimits, _ body: (PFValue, Int, Shape) throws(PFError) -> Void
    ) throws(PFError) {
        let reader = JSONReader(options: .init(mode: .strict, typedValues: false, limits: limits))
        try forEachRow(inJSON: bytes, limits: limits, reader: reader,
                       read: { session, row throws(PFError) in try session.read(row) },
                       whole: { row throws(PFError) in row }, body)
    }

    /// Calls `body` with each object of a class file, read one row at a time straight from
    /// json-c's tree (no ``PFCore/PFValue`` tree per row): the objects, and the errors, of
    /// ``objects(fromJSON:className:limits:)`` without holding them all.
    /// - Parameters:
    ///   - bytes: the file's contents (0 bytes is an empty class).
    ///   - className: the class (from the file name); `nil` to take it from each object.
    ///   - limits: budgets for the JSON reader (per row, and `maxInputBytes` for the file).
    ///   - body: receives each object and its index.
    /// - Throws: ``PFCore/PFError`` from the JSON reader or ``ParseObject/init(rest:className:)``
    ///   with the row in the path (`results[3].score`), Parse code 107 for a malformed
    ///   wrapper, or what `body` throws.
    public static func forEachObject(
        inJSON bytes: Data, className: String?, limits: PFLimits = .default,
        _ body: (ParseObject, Int) throws(PFError) -> Void
    ) throws(PFError) {
        try forEachRow(
            inJSON: bytes, limits: limits, reader: ParseExportRow.reader(limits: limits),
            read: { session, row throws(PFError) in
                try session.withDocument(row) { root throws(PFError) in try ParseObject(restJSON: root, className: className) }
            },
            whole: { row throws(PFError) in try ParseObject(rest: row, className: className) },
            { object, index, _ throws(PFError) in try body(object, index) })
    }

    /// The row loop: `read` turns each row's bytes into a `Row` (with a session shared by
    /// the rows); a document that is not a row list is read whole and each row goes through
    /// `whole`. Errors from `read` and `whole` get the row's path; those of `body` do not.
    static func forEachRow<Row>(
        inJSON bytes: Data, limits: PFLimits, reader: JSONReader,
        read: (JSONReader.Session, UnsafeRawBufferPointer) throws(PFError) -> Row,
        whole: (PFValue) throws(PFError) -> Row,
        _ body: (Row, Int, Shape) throws(PFError) -> Void
    ) throws(PFError) {
        guard bytes.count <= limits.maxInputBytes else {
            throw PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: ParseFailure.format)
        }
        // Rows share one tokener and one key cache: every row repeats the same keys.
        let session = JSONReader.Session(reader: reader)
        try bytes.withBytes { raw throws(PFError) in
            var scanner = RowScanner(bytes: raw)
            guard let shape = scanner.openRows() else {
                // Not a results wrapper or an array: one object, or an error worth the
                // full reader's message.
                let (rows, shape) = try ParseExport.rows(fromJSON: bytes, limits: limits)
                for (i, value) in rows.enumerated() {
                    let row: Row
                    do throws(PFError) {
                        row = try whole(value)
                    } catch {
                        throw error.prefixed(by: rowPath(i, shape: shape))
                    }
                    try body(row, i, shape)
                }
                return
            }
            var index = 0
            while let range = try scanner.nextRow() {
                let row: Row
                do throws(PFError) {
                    row = try read(session, UnsafeRawBufferPointer(rebasing: raw[range]))
                } catch {
                    throw error.prefixed(by: rowPath(index, shape: shape))
                }
                try body(row, index, shape)
                index += 1
            }
            try finishRows(&scanner, shape: shape, reader: reader)
        }
    }

    /// Checks what follows the last row (``RowScanner/closeRows(_:)``), reading a results
    /// wrapper's other members with `reader`.
    static func finishRows(_ scanner: inout RowScanner, shape: Shape, reader: JSONReader) throws(PFError) {
        guard let rest = try scanner.closeRows(shape) else { return }
        // The wrapper's other members: `{` + `"count":1}` must be one valid object
        // without a second "results".
        var tail = Data("{".utf8)
        tail.append(contentsOf: UnsafeRawBufferPointer(rebasing: scanner.bytes[rest]).dropFirst())
        let members = try reader.read(tail)
        if case .dictionary(let d) = members {
            if d["results"] != nil { throw PFError(ParseExportFailure.twoResults, format: ParseFailure.format) }
            // The full reader takes such a document for one object: too ambiguous to stream.
            if d["objectId"] != nil || d["__type"] != nil {
                throw PFError(ParseExportFailure.ambiguousResults, format: ParseFailure.format)
            }
        }
    }
}

/// Finds the byte ranges of the rows of `{"results":[…]}` or `[…]` without building values:
/// strings (with escapes) and nesting are tracked so a row ends at its closing bracket.
struct RowScanner {
    let bytes: UnsafeRawBufferPointer
    var i = 0
    var rowsRead = 0
    var afterComma = false

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    mutating func expect(_ text: String) -> Bool {
        let utf8 = Array(text.utf8)
        guard i + utf8.count <= bytes.count else { return false }
        for (k, b) in utf8.enumerated() where bytes[i + k] != b { return false }
        i += utf8.count
        return true
    }

    /// Moves past `{"results":[` or `[`; `nil` (and no move) for any other start.
    mutating func openRows() -> ParseExport.Shape? {
        skipSpace()
        let start = i
        if expect("[") { return .array }
        guard expect("{") else { return nil }
        skipSpace()
        guard expect("\"results\"") else { i = start; return nil }
        skipSpace()
        guard expect(":") else { i = start; return nil }
        skipSpace()
        guard expect("[") else { i = start; return nil }
        return .results
    }

    /// The byte range of the next row, or `nil` after the closing `]`. Rows must be separated
    /// by exactly one comma: a leading, doubled or trailing comma, or two rows with no comma
    /// between them, is an error (code 107), as in the full reader.
    mutating func nextRow() throws(PFError) -> Range<Int>? {
        skipSpace()
        guard i < bytes.count else { throw malformed(.endsInsideRows) }
        if bytes[i] == UInt8(ascii: "]") {
            guard !afterComma else { throw malformed(.trailingComma) }
            i += 1
            return nil
        }
        if rowsRead > 0 {
            guard bytes[i] == UInt8(ascii: ",") else { throw malformed(.expectedCommaOrBracket) }
            i += 1
            afterComma = true
            skipSpace()
            guard i < bytes.count else { throw malformed(.endsInsideRows) }
            guard bytes[i] != UInt8(ascii: "]") else { throw malformed(.trailingComma) }
        }
        guard bytes[i] != UInt8(ascii: ",") else { throw malformed(.emptyRow) }
        afterComma = false
        rowsRead += 1
        let start = i
        var depth = 0
        while i < bytes.count {
            let c = bytes[i]
            switch c {
            case UInt8(ascii: "\""):
                i = try endOfString(after: i + 1)
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return start..<i }
                depth -= 1
                if depth == 0 {
                    i += 1
                    return start..<i
                }
            case UInt8(ascii: ","), 0x20, 0x0A, 0x0D, 0x09:
                // A scalar row ends at its separator; the reader then rejects it as a row.
                if depth == 0 { return start..<i }
            default: break
            }
            i += 1
        }
        throw malformed(.endsInsideRow)
    }

    /// The offset just past the closing quote of a string whose contents start at `from`.
    /// Plain bytes are skipped eight at a time: a word is searched for `"` and `\\` at once.
    func endOfString(after from: Int) throws(PFError) -> Int {
        guard let base = bytes.baseAddress else { throw malformed(.endsInsideRow) }
        let n = bytes.count
        var j = from
        while true {
            j = PlainStringBytes.skip(base, from: j, count: n)
            guard j < n else { break }
            let c = base.load(fromByteOffset: j, as: UInt8.self)
            if c == UInt8(ascii: "\"") { return j + 1 }
            // A backslash escapes the next byte.
            j += c == UInt8(ascii: "\\") ? 2 : 1
        }
        // Past the end: the row is unterminated (i stays at the row for the message).
        throw PFError(ParseExportFailure.rows(.endsInsideRow), format: ParseFailure.format, offset: n)
    }

    /// Checks what follows the rows: for a results wrapper, `}` or further members (a REST
    /// query response's `"count"`, say) handed back as the text of an object for the caller to
    /// check with the full reader; then only whitespace.
    /// - Returns: the byte range of `,…}` after the results array, when there is one.
    mutating func closeRows(_ shape: ParseExport.Shape) throws(PFError) -> Range<Int>? {
        skipSpace()
        var rest: Range<Int>?
        if shape == .results {
            if i < bytes.count, bytes[i] == UInt8(ascii: ",") {
                rest = i..<bytes.count
                i = bytes.count
            } else {
                guard expect("}") else { throw malformed(.expectedClosingBrace) }
                skipSpace()
            }
        }
        guard i == bytes.count else { throw malformed(.dataAfterRows) }
        return rest
    }

    func malformed(_ problem: ParseExportFailure.RowsProblem) -> PFError {
        PFError(ParseExportFailure.rows(problem), format: ParseFailure.format, offset: min(i, bytes.count))
    }
}

// MARK: - Whole exports into models

extension ParseAdapter {
    /// Decodes every row of a class file into models: the fast path for large exports. Rows
    /// are read from json-c's tree in place (no ``PFCore/PFValue`` tree per row), and with a
    /// `parallelism` above 1, contiguous slices of rows (about ``exportSliceRows`` each) are
    /// decoded on that many threads, each with its own JSON session and decoder, and joined in
    /// row order. The file's bytes, the row offsets and the models are what stay in memory.
    ///
    /// The result and the error do not depend on `parallelism`: when several rows fail, the
    /// error is that of the first failing row in file order, as a serial decode reports it
    /// (a malformed row list after it, or a bad wrapper, only when every row decodes).
    /// - Parameters:
    ///   - type: the model type.
    ///   - bytes: the class file (`{"results":[…]}`, an array, one object, or 0 bytes).
    ///   - limits: budgets for the JSON reader (per row, and `maxInputBytes` for the file).
    ///   - parallelism: how many threads decode rows at once; the default is the number of
    ///     active processors, 1 (or less) decodes row by row on the calling thread, streaming
    ///     without first cutting the file into rows. A file of one object, or of at most
    ///     ``exportSliceRows`` rows, is always decoded on the calling thread.
    /// - Returns: the models in file order.
    /// - Throws: ``PFCore/PFError`` from reading or decoding, with the row in the path
    ///   (`results[3].score`, `[3].score` for a bare array).
    public func decodeExport<M: ParseModel & Sendable>(
        _ type: M.Type, fromJSON bytes: Data, limits: PFLimits = .default,
        parallelism: Int = ProcessInfo.processInfo.activeProcessorCount
    ) throws(PFError) -> [M] {
        let reader = JSONReader(options: .init(mode: .strict, typedValues: false, limits: limits))
        if parallelism > 1,
            let models = try decodeExportInSlices(M.self, fromJSON: bytes, limits: limits, reader: reader,
                                                  parallelism: parallelism) {
            return models
        }
        return try decodeExportSerially(M.self, fromJSON: bytes, reader: reader)
    }

    /// ``decodeExport(_:fromJSON:limits:parallelism:)`` for a model type that is not
    /// `Sendable`: always row by row on the calling thread (models made on other threads could
    /// not be handed back safely). Declare the model `Sendable` to decode in parallel.
    /// - Parameters:
    ///   - type: the model type.
    ///   - bytes: the class file (`{"results":[…]}`, an array, one object, or 0 bytes).
    ///   - limits: budgets for the JSON reader (per row, and `maxInputBytes` for the file).
    /// - Returns: the models in file order.
    /// - Throws: ``PFCore/PFError`` from reading or decoding, with the row in the path
    ///   (`results[3].score`, `[3].score` for a bare array).
    public func decodeExport<M: ParseModel>(_ type: M.Type, fromJSON bytes: Data, limits: PFLimits = .default) throws(PFError) -> [M] {
        let reader = JSONReader(options: .init(mode: .strict, typedValues: false, limits: limits))
        return try decodeExportSerially(M.self, fromJSON: bytes, reader: reader)
    }

    /// The serial decode: one row at a time, straight from the scanner.
    private func decodeExportSerially<M: ParseModel>(_ type: M.Type, fromJSON bytes: Data, reader: JSONReader) throws(PFError) -> [M] {
        let limits = reader.options.limits
        var models: [M] = []
        // One decoder for every row, so what it resolved about the model's keys carries over.
        let impl = rowDecoder()
        try ParseExport.forEachRow(
            inJSON: bytes, limits: limits, reader: reader,
            read: { session, row throws(PFError) in
                try session.withDocument(row) { root throws(PFError) in try impl.decode(M.self, node: root) }
            },
            whole: { row throws(PFError) in try impl.decode(M.self, value: row) },
            { model, _, _ throws(PFError) in models.append(model) })
        return models
    }

    /// Rows per slice of a parallel ``decodeExport(_:fromJSON:limits:parallelism:)``: enough
    /// that handing out slices costs nothing next to decoding them, few enough that both
    /// threads stay busy to the end.
    public static let exportSliceRows = 1_000

    /// The parallel decode: cuts the rows, decodes slices on `parallelism` threads and joins
    /// them; `nil` when the file is not a row list or holds at most one slice (the caller
    /// then decodes it serially).
    private func decodeExportInSlices<M: ParseModel & Sendable>(
        _ type: M.Type, fromJSON bytes: Data, limits: PFLimits, reader: JSONReader, parallelism: Int
    ) throws(PFError) -> [M]? {
        guard bytes.count <= limits.maxInputBytes else {
            throw PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: ParseFailure.format)
        }
        // Cut the rows with the scanner the serial path uses; its error, if any, counts only
        // after the rows before it (which the serial path would have decoded first).
        var scanError: PFError?
        let cut: (ranges: [Range<Int>], shape: ParseExport.Shape)? = bytes.withUnsafeBytes { raw in
            var scanner = RowScanner(bytes: raw)
            guard let shape = scanner.openRows() else { return nil }
            var ranges: [Range<Int>] = []
            do throws(PFError) {
                while let range = try scanner.nextRow() { ranges.append(range) }
                try ParseExport.finishRows(&scanner, shape: shape, reader: reader)
            } catch {
                scanError = error
            }
            return (ranges, shape)
        }
        guard let (ranges, shape) = cut, ranges.count > Self.exportSliceRows else { return nil }
        let rows = ranges.count
        let sliceCount = (rows + Self.exportSliceRows - 1) / Self.exportSliceRows
        let adapter = self
        // The first failing slice in row order holds the first failing row.
        var slices = try OrderedParallelMap<Int, [M], PFError>.map(0..<sliceCount, workers: parallelism) { slice throws(PFError) in
            let lower = slice * Self.exportSliceRows
            let upper = min(rows, lower + Self.exportSliceRows)
            let (models, failure): ([M], (row: Int, error: PFError)?) =
                adapter.decodeRows(bytes, ranges[lower..<upper], shape: shape, reader: reader)
            if let (_, error) = failure { throw error }
            return models
        }
        if let scanError { throw scanError }
        var models: [M] = []
        models.reserveCapacity(rows)
        for k in slices.indices {
            models.append(contentsOf: slices[k])
            slices[k] = []  // freed as it goes, so the peak is one copy plus a slice
        }
        return models
    }

    /// Decodes a run of rows with a session and decoder of its own; stops at the first
    /// failure, which comes back with its row index and the row's path.
    private func decodeRows<M: ParseModel>(
        _ bytes: Data, _ ranges: ArraySlice<Range<Int>>, shape: ParseExport.Shape, reader: JSONReader
    ) -> (models: [M], failure: (row: Int, error: PFError)?) {
        let session = JSONReader.Session(reader: reader)
        let impl = rowDecoder()
        var models: [M] = []
        models.reserveCapacity(ranges.count)
        let failure: (row: Int, error: PFError)? = bytes.withUnsafeBytes { raw in
            for index in ranges.indices {
                do throws(PFError) {
                    let row = UnsafeRawBufferPointer(rebasing: raw[ranges[index]])
                    models.append(try session.withDocument(row) { root throws(PFError) in
                        try impl.decode(M.self, node: root)
                    })
                } catch {
                    return (index, error.prefixed(by: ParseExport.rowPath(index, shape: shape)))
                }
            }
            return nil
        }
        return (models, failure)
    }
}
