import Foundation
import OrderedCollections
import PFArchive

/// `inspect` of a document of records, shown a record at a time.
///
/// The text `inspect` prints for a JSON array or `{"results":[…]}` document, a Parse class
/// file, JSON Lines, a CBOR sequence, or a binary property list, CBOR document or XML
/// property list whose root holds records is that of the whole tree, but each record is
/// read (``PFFormats/RecordStream``), rendered and written before the next is read: memory
/// is the largest record, never the tree, whatever the input's size. A `--path` into one
/// record (`[3].score`, `results[3]`) or to a results wrapper's other member (`count`) is
/// found as the records go by, as text or `--json`: memory is the largest record and the
/// value found. So is `--json` of the whole value (``ShownJSONRecords``); from a CBOR
/// sequence or a property list or CBOR document of records, whose values may have no JSON
/// form (a NaN), the records are read twice: once to find such a value, which fails the
/// command with the whole route's error before anything is written, then to show them. A path to
/// the root or to the records' array,
/// `--graph`, `--lenient`, `--decode-blobs`, a compressed input and any other shape read the
/// whole tree, under the memory budget.
extension Inspect {
    /// Whether what is shown can be made a record at a time: the whole value (as text or
    /// `--json`, see ``checksJSONFirst(_:)``), or the value at a path that names a record or a
    /// results wrapper's other member (text or `--json`).
    var showsByRecords: Bool {
        guard !graphRequested else { return false }
        guard let keyPath else { return true }
        guard let first = keyPath.components.first else { return false }
        // `results` alone is the records' array: that is the whole tree.
        return first != .key("results") || keyPath.components.count > 1
    }

    /// Whether the whole value's `--json` document from `format` is checked a record at a
    /// time before any of it is written: a value of a CBOR sequence or a property list may
    /// have no JSON form (a NaN), and writing must not fail half-way where the whole route
    /// would have written nothing. Every value read from JSON, a Parse class file or JSON
    /// Lines has one.
    func checksJSONFirst(_ format: DataFormat) -> Bool {
        json && keyPath == nil && ![.json, .parse, .jsonl].contains(format)
    }

    /// Shows a JSON document of records, a Parse class file, JSON Lines or a CBOR sequence a
    /// record at a time, read in chunks from `source`.
    /// - Returns: `false` when the input is not one of these (or is compressed), or failed
    ///   before any text was written and fits the memory budget: nothing has been written
    ///   then, and `source` can still give the whole input.
    func inspectRecords(_ source: FileIO.ChunkedInput, options: FormatIO.ReadOptions) throws -> Bool {
        // Standard input's size, printed before the value, is known only at its end.
        guard showsByRecords, options.jsonMode == .strict, !options.decodePayloads, let size = source.size,
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
        if let keyPath {
            var picked = PickedValue(path: keyPath)
            do {
                let records = try RecordStream.forEachRecord(
                    options: streamOptions, read: source.next,
                    record: { value, shape throws(PFError) in picked.add(value, shape: shape) })
                picked.finish(records)
            } catch {
                if readWholeAfter(wroteText: false, format: format, inputBytes: size, options: options) { return false }
                throw CLIFailure(file: input, error)
            }
            try show(picked, report: report)
            return true
        }
        if checksJSONFirst(format) {
            // The first reading is of a second handle on the file: `source` stays unread, so the
            // whole input can still be read from it if the records fail to read.
            var checked = try shower(report, checking: true)
            let again = try FileIO.ChunkedInput(input)
            do {
                let records = try RecordStream.forEachRecord(
                    options: streamOptions, read: again.next,
                    record: { value, shape throws(PFError) in try checked.add(value, shape: shape) })
                try checked.finish(records)
            } catch {
                if let failure = checked.jsonFailure { throw CLIFailure(file: input, failure) }
                if readWholeAfter(wroteText: false, format: format, inputBytes: size, options: options) { return false }
                throw CLIFailure(file: input, error)
            }
        }
        var shown = try shower(report)
        do {
            let records = try RecordStream.forEachRecord(
                options: streamOptions, read: source.next,
                record: { value, shape throws(PFError) in try shown.add(value, shape: shape) })
            try shown.finish(records)
        } catch {
            if let failure = shown.writeFailure { throw failure }
            if readWholeAfter(wroteText: shown.wroteText, format: format, inputBytes: size, options: options) { return false }
            throw CLIFailure(file: input, error)
        }
        return true
    }

    /// What shows the whole value a record at a time: its `--json` document, or its text;
    /// with `checking`, the `--json` document made record by record and written nowhere
    /// (``ShownJSONRecords/jsonFailure`` tells a value without a JSON form).
    private func shower(_ report: InspectReport, checking: Bool = false) throws -> any RecordShowing {
        guard json else { return ShownRecords(header: report.textLines(file: input)) }
        do throws(PFError) {
            return try ShownJSONRecords(summary: report.summary(file: input), checking: checking)
        } catch {
            throw CLIFailure(file: input, error)
        }
    }

    /// Shows the value found at `--path`, or fails as the whole tree's lookup does.
    private func show(_ picked: PickedValue, report: InspectReport) throws {
        guard let value = picked.value else { throw noValue(at: picked.path) }
        try show(value, report: report)
    }

    /// Whether an input that failed before any of its text was written is read again whole,
    /// so its error is the whole read's (a line and column in the document rather than a
    /// record's place), as it was before records were shown one at a time. Past the memory
    /// budget the record's error stands.
    private func readWholeAfter(wroteText: Bool, format: DataFormat, inputBytes: Int, options: FormatIO.ReadOptions) -> Bool {
        guard !wroteText else { return false }
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
        guard showsByRecords, !options.decodePayloads,
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
        if let keyPath {
            var picked = PickedValue(path: keyPath)
            do {
                let records = try RecordStream.forEachRecord(options: streamOptions, document: bytes) { value, shape throws(PFError) in
                    picked.add(value, shape: shape)
                }
                picked.finish(records)
            } catch {
                if readWholeAfter(wroteText: false, format: format, inputBytes: bytes.count, options: options) { return false }
                throw CLIFailure(file: input, error)
            }
            try show(picked, report: report)
            return true
        }
        if checksJSONFirst(format) {
            var checked = try shower(report, checking: true)
            do {
                let records = try RecordStream.forEachRecord(options: streamOptions, document: bytes) { value, shape throws(PFError) in
                    try checked.add(value, shape: shape)
                }
                try checked.finish(records)
            } catch {
                if let failure = checked.jsonFailure { throw CLIFailure(file: input, failure) }
                if readWholeAfter(wroteText: false, format: format, inputBytes: bytes.count, options: options) { return false }
                throw CLIFailure(file: input, error)
            }
        }
        var shown = try shower(report)
        do {
            let records = try RecordStream.forEachRecord(options: streamOptions, document: bytes) { value, shape throws(PFError) in
                try shown.add(value, shape: shape)
            }
            try shown.finish(records)
        } catch {
            if let failure = shown.writeFailure { throw failure }
            if readWholeAfter(wroteText: shown.wroteText, format: format, inputBytes: bytes.count, options: options) { return false }
            throw CLIFailure(file: input, error)
        }
        return true
    }
}

/// The value at a key path in a document of records, found as its records come: the path's
/// first steps name a record (`[3]` in an array, `results[3]` in a results wrapper) or a
/// wrapper's other member (`count`), and the rest is followed inside it, so the value is
/// the one the whole tree's lookup finds (``PFCore/PFValue/value(at:)``).
struct PickedValue {
    let path: PFKeyPath
    /// The value found, once it has been.
    private(set) var value: PFValue?
    private var count = 0

    init(path: PFKeyPath) {
        self.path = path
    }

    mutating func add(_ record: PFValue, shape: ParseExport.Shape) {
        defer { count += 1 }
        guard value == nil, let rest = steps(into: shape) else { return }
        value = record.value(at: rest)
    }

    /// The path's steps inside the record at `count`, or `nil` when it does not lead there.
    private func steps(into shape: ParseExport.Shape) -> PFKeyPath? {
        let steps = path.components
        switch shape {
        case .single:
            // The one record is the whole value.
            return path
        case .results:
            guard steps.count >= 2, steps[0] == .key("results"), steps[1] == .index(count) else { return nil }
            return PFKeyPath(Array(steps.dropFirst(2)))
        case .array:
            guard steps.first == .index(count) else { return nil }
            return PFKeyPath(Array(steps.dropFirst()))
        case .empty:
            return nil
        }
    }

    /// Looks the path up in a results wrapper's other members, known at the end.
    mutating func finish(_ records: RecordStream.Records) {
        guard value == nil, records.shape == .results, case .key(let key)? = path.components.first, key != "results",
            let member = records.otherMembers?[key]
        else { return }
        value = member.value(at: PFKeyPath(Array(path.components.dropFirst())))
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

/// The whole value of a document of records shown as its records come (as text or as
/// `inspect --json`'s document).
protocol RecordShowing {
    /// Why writing standard output failed (the command's own error, not the input's).
    var writeFailure: Error? { get }
    /// Whether any text has been written to standard output.
    var wroteText: Bool { get }
    /// A value that has no JSON form (a NaN), with its place in the whole `--json` document:
    /// the command's error, where any other error is the input's.
    var jsonFailure: PFError? { get }
    /// Shows the next record of a document of `shape`.
    mutating func add(_ record: PFValue, shape: ParseExport.Shape) throws(PFError)
    /// Closes the value (with a results wrapper's other members) and writes the rest.
    mutating func finish(_ records: RecordStream.Records) throws(PFError)
}

/// `inspect --json`'s document of a whole tree of records, written as its records come: the
/// report's members, then `"value"`, the tree as the whole route's indented JSON writer
/// writes it, each record indented to its place in the array (or results wrapper) that
/// holds it: byte for byte the document of the whole tree.
///
/// With `checking`, each value is made into its text and dropped, nothing is written: a
/// value without a JSON form is found before any text is.
struct ShownJSONRecords: RecordShowing {
    private(set) var writeFailure: Error?
    private(set) var wroteText = false
    private(set) var jsonFailure: PFError?
    private let checking: Bool
    private let writer = JSONWriter(options: .init(pretty: true))
    /// The report's indented members, without the document's closing brace.
    private let head: Data
    private var out = Data()
    private var count = 0
    private var opened = false
    private var shape = ParseExport.Shape.array

    init(summary: OrderedDictionary<String, PFValue>, checking: Bool = false) throws(PFError) {
        self.checking = checking
        var head = try writer.write(.dictionary(summary))
        // `{\n  "file": …,\n  "details": {}\n}\n` without its last line.
        while head.last == 0x0A { head.removeLast() }
        if head.last == UInt8(ascii: "}") { head.removeLast() }
        while head.last == 0x0A { head.removeLast() }
        self.head = head
    }

    /// The depth of the records: in the array that is the value, or in a results wrapper's.
    private var level: Int { shape == .results ? 3 : 2 }

    private mutating func open(_ shape: ParseExport.Shape) {
        guard !opened else { return }
        opened = true
        self.shape = shape
        out = head
        append(",\n  \"value\": ")
        switch shape {
        case .single: break
        case .results: append("{\n    \"results\": [")
        default: append("[")
        }
    }

    private mutating func append(_ text: String) {
        out.append(contentsOf: text.utf8)
    }

    /// A line break and the indentation of `depth`.
    private mutating func newLine(depth: Int) {
        out.append(0x0A)
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }

    /// Appends a value's indented text, its lines indented to `depth` (made in a local
    /// buffer: a byte at a time into the stored one pays an access check per byte). A value
    /// without a JSON form fails with its path in the whole document (`place`, then its own).
    private mutating func append(_ value: PFValue, depth: Int, at place: [PFKeyPath.Component]) throws(PFError) {
        let text: Data
        do {
            text = try writer.write(value)
        } catch {
            var located = error
            located.path = PFKeyPath([.key("value")] + place + (error.path?.components ?? []))
            jsonFailure = located
            throw located
        }
        if checking { return }
        var piece = [UInt8]()
        piece.reserveCapacity(text.count + text.count / 4)
        text.withUnsafeBytes { raw in
            let end = raw.last == 0x0A ? raw.count - 1 : raw.count
            for i in 0..<end {
                piece.append(raw[i])
                if raw[i] == 0x0A { piece.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth)) }
            }
        }
        out.append(contentsOf: piece)
    }

    mutating func add(_ record: PFValue, shape: ParseExport.Shape) throws(PFError) {
        open(shape)
        if shape != .single {
            if count > 0 { append(",") }
            newLine(depth: level)
        }
        let place: [PFKeyPath.Component] =
            switch shape {
            case .single: []
            case .results: [.key("results"), .index(count)]
            default: [.index(count)]
            }
        try append(record, depth: shape == .single ? 1 : level, at: place)
        count += 1
        if out.count >= 1 << 20 { try flush() }
    }

    mutating func finish(_ records: RecordStream.Records) throws(PFError) {
        open(records.shape)
        if shape != .single {
            if count > 0 { newLine(depth: level - 1) }
            append("]")
        }
        if shape == .results {
            for (key, value) in records.otherMembers ?? [:] {
                append(",")
                newLine(depth: 2)
                try append(.string(key), depth: 2, at: [.key(key)])
                append(": ")
                try append(value, depth: 2, at: [.key(key)])
            }
            append("\n  }")
        }
        append("\n}\n")
        try flush()
    }

    private mutating func flush() throws(PFError) {
        guard !checking else {
            out.removeAll(keepingCapacity: true)
            return
        }
        wroteText = true
        do {
            try StandardOutput.write(out)
            out.removeAll(keepingCapacity: true)
        } catch {
            writeFailure = error
            throw PFError(CommandLineFailure.outputFailed(output: "standard output"), format: .output)
        }
    }
}

/// The text of a whole tree of records, written as its records come: the header lines, then
/// the tree as ``PFCore/PFValue/treeDescription(maxDepth:)`` renders it, each record at its
/// place in the array (or results wrapper) that holds it.
struct ShownRecords: RecordShowing {
    let header: [String]
    /// Why writing standard output failed (the command's own error, not the input's).
    private(set) var writeFailure: Error?
    /// Whether any text has been written to standard output.
    private(set) var wroteText = false
    /// Text has no JSON form to fail.
    var jsonFailure: PFError? { nil }
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
