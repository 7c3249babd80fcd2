import Foundation
import PFArchive

/// `inspect` of a document of records, shown a record at a time.
///
/// The text `inspect` prints for a JSON array or `{"results":[…]}` document, a Parse class
/// file, JSON Lines, a CBOR sequence, or a binary property list, CBOR document or XML
/// property list whose root holds records is that of the whole tree, but each record is
/// read (``PFFormats/RecordStream``), rendered and written before the next is read: memory
/// is the largest record, never the tree, whatever the input's size. `--path`, `--json`,
/// `--graph`, `--lenient`, `--decode-blobs`, a compressed input and any other shape read the
/// whole tree, under the memory budget.
extension Inspect {
    /// Whether the whole value is shown as text (no `--path`, `--json` or `--graph`), the
    /// only output shown a record at a time.
    var showsWholeValueAsText: Bool { path == nil && !json && !graphRequested }

    /// Shows a JSON document of records, a Parse class file, JSON Lines or a CBOR sequence a
    /// record at a time, read in chunks from `source`.
    /// - Returns: `false` when the input is not one of these (or is compressed), or failed
    ///   before any text was written and fits the memory budget: nothing has been written
    ///   then, and `source` can still give the whole input.
    func inspectRecords(_ source: FileIO.ChunkedInput, options: FormatIO.ReadOptions) throws -> Bool {
        // Standard input's size, printed before the value, is known only at its end.
        guard showsWholeValueAsText, options.jsonMode == .strict, !options.decodePayloads, let size = source.size,
            !RealmInput.isRealm(input, source.first, key: realmKey), Compression.detect(source.first) == nil,
            let format = options.format ?? FormatDetector.detect(source.first, named: options.namedFormat),
            RecordStream.formats.contains(format)
        else { return false }
        if format == .json || format == .parse {
            // Another JSON document (one object, a scalar) is one value: read whole, under the budget.
            guard ParseExportRowCutter.rowsShape(opening: source.first) != nil else { return false }
        } else if source.first.isEmpty {
            return false
        }
        var streamOptions = RecordStream.Options(
            from: format, to: .jsonl, typedJSON: options.typedJSON, limits: options.limits,
            parseClassName: options.parseClassName, inputName: input)
        streamOptions.inputBytes = size
        let report = InspectReport(format: format, inputBytes: size)
        var shown = ShownRecords(header: report.textLines(file: input))
        do {
            let records = try RecordStream.forEachRecord(
                options: streamOptions, read: source.next,
                record: { value, shape throws(PFError) in try shown.add(value, shape: shape) })
            try shown.finish(records)
        } catch {
            if let failure = shown.writeFailure { throw failure }
            if readWholeAfter(shown: shown, format: format, inputBytes: size, options: options) { return false }
            throw CLIFailure(file: input, error)
        }
        return true
    }

    /// Whether an input that failed before any of its text was written is read again whole,
    /// so its error is the whole read's (a line and column in the document rather than a
    /// record's place), as it was before records were shown one at a time. Past the memory
    /// budget the record's error stands.
    private func readWholeAfter(shown: ShownRecords, format: DataFormat, inputBytes: Int, options: FormatIO.ReadOptions) -> Bool {
        guard !shown.wroteText else { return false }
        guard let budget = options.memoryBudget else { return true }
        return (try? budget.check(format, inputBytes: inputBytes)) != nil
    }

    /// Shows a binary property list, CBOR document or XML property list of records a record
    /// at a time from its (mapped) bytes.
    /// - Returns: `false` when `bytes` is not such a document, or failed before any text was
    ///   written and fits the memory budget; nothing has been written then.
    func inspectDocumentOfRecords(_ bytes: Data, options: FormatIO.ReadOptions) throws -> Bool {
        // A document whose root holds records streams to a whole CBOR document, which keeps
        // every member of a wrapper: so it shows a record at a time.
        guard showsWholeValueAsText, !options.decodePayloads,
            let format = options.format ?? FormatDetector.detect(bytes, named: options.namedFormat),
            RecordStream.documentFormats.contains(format),
            RecordStream.canStream(document: bytes, from: format, to: .cbor, pretty: false, limits: options.limits)
        else { return false }
        let streamOptions = RecordStream.Options(from: format, to: .jsonl, limits: options.limits, inputName: input)
        let report: InspectReport
        do {
            report = try InspectReport(format: format, compression: nil, inputBytes: bytes.count, decoded: bytes, options: options)
        } catch {
            throw CLIFailure(file: input, error)
        }
        var shown = ShownRecords(header: report.textLines(file: input))
        do {
            let records = try RecordStream.forEachRecord(options: streamOptions, document: bytes) { value, shape throws(PFError) in
                try shown.add(value, shape: shape)
            }
            try shown.finish(records)
        } catch {
            if let failure = shown.writeFailure { throw failure }
            if readWholeAfter(shown: shown, format: format, inputBytes: bytes.count, options: options) { return false }
            throw CLIFailure(file: input, error)
        }
        return true
    }
}

extension InspectReport {
    /// The report on an uncompressed input read a record at a time (no details: those of a
    /// document of records are read from its bytes by ``init(format:compression:inputBytes:decoded:options:)``).
    init(format: DataFormat, inputBytes: Int) {
        self.format = format
        compression = nil
        self.inputBytes = inputBytes
        decodedBytes = inputBytes
    }
}

/// The text of a whole tree of records, written as its records come: the header lines, then
/// the tree as ``PFCore/PFValue/treeDescription(maxDepth:)`` renders it, each record at its
/// place in the array (or results wrapper) that holds it.
struct ShownRecords {
    let header: [String]
    /// Why writing standard output failed (the command's own error, not the input's).
    private(set) var writeFailure: Error?
    /// Whether any text has been written to standard output.
    private(set) var wroteText = false
    private var text = ""
    private var count = 0
    private var opened = false
    private var shape = ParseExport.Shape.array

    init(header: [String]) {
        self.header = header
    }

    /// The records' indentation: one level in an array, two in a results wrapper.
    private var level: Int { shape == .results ? 2 : 1 }

    /// Writes the header and the tree's opening before the first record (or at the end).
    private mutating func open(_ shape: ParseExport.Shape) {
        guard !opened else { return }
        opened = true
        self.shape = shape
        text = header.joined(separator: "\n") + "\nValue:\n"
        switch shape {
        case .single: break
        case .results: text += "{\n  \"results\" => ["
        default: text += "["
        }
    }

    mutating func add(_ record: PFValue, shape: ParseExport.Shape) throws(PFError) {
        open(shape)
        if shape == .single {
            try render(record, indent: 0)
        } else {
            text += "\n" + String(repeating: "  ", count: level) + "\(count) => "
            try render(record, indent: level)
        }
        count += 1
        if text.utf8.count >= 1 << 20 { try flush() }
    }

    private mutating func render(_ value: PFValue, indent: Int) throws(PFError) {
        do {
            var wrote = false
            defer { wroteText = wroteText || wrote }
            try value.renderTree(into: &text, indent: indent, depth: indent) { text in
                wrote = true
                try Inspect.writeOut(&text)
            }
        } catch {
            throw failed(error)
        }
    }

    /// Keeps a failure to write standard output, reported as it is once the read stops.
    private mutating func failed(_ error: Error) -> PFError {
        writeFailure = error
        return PFError(CommandLineFailure.outputFailed(output: "standard output"), format: .output)
    }

    /// Closes the tree (and a results wrapper, with its other members) and writes the rest.
    mutating func finish(_ records: RecordStream.Records) throws(PFError) {
        open(records.shape)
        switch shape {
        case .single:
            break
        case .results:
            text += "\n  ]"
            for (key, value) in records.otherMembers ?? [:] {
                text += "\n  \(PFValue.quoted(key)) => "
                try render(value, indent: 1)
            }
            text += "\n}"
        default:
            text += "\n]"
        }
        text += "\n"
        try flush()
    }

    private mutating func flush() throws(PFError) {
        wroteText = true
        do { try Inspect.writeOut(&text) } catch { throw failed(error) }
    }
}
