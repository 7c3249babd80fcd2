import Foundation
import OrderedCollections
import PFCBOR
import PFCompression
import PFCore
import PFJSON
import PFKeyedArchive
import PFParse
import PFParseExport
import PFPropertyList
import PFSerialization
import PFTypedStream

/// Converts between the record formats — a JSON document of records (an array, or a Parse
/// export's `{"results":[…]}`), JSON Lines, CBOR sequences and Parse REST JSON — one record
/// at a time, in memory bounded by the largest record, whatever the input's size.
///
/// The output is byte for byte what the whole-tree route (``FormatIO/read(_:options:)`` then
/// ``FormatIO/write(_:as:options:)``) writes for the same input: a JSON document is cut into
/// records by the Parse export row cutter (``PFParseExport/ParseExportRowCutter``) and each
/// record is read by the ordinary readers (``PFJSON/JSONReader``, ``PFJSON/JSONLines``,
/// ``PFCBOR/CBORSequence``), so nothing is parsed twice and no second parser exists. A JSON
/// record sequence is, as a tree, the array of its records; a record sequence written from
/// a tree holds ``FormatIO/records(of:)``.
///
/// A whole CBOR document (`to: .cbor`) or XML property list (`to: .xmlplist`) is written the
/// same way, record by record, when its tree is an array of records or a `{"results":[…]}`
/// wrapper: CBOR's encoding of a definite-length container is its head followed by its
/// children's encodings, so the records' encodings are kept (the output's size, never a
/// value tree) and the head, whose count is known only at the end, is written before them;
/// an XML property list's records are its elements, each written at its depth (Docs/Architecture.md, "Memory of
/// whole-tree conversions"). A binary property list (`to: .bplist`) is written the same way by
/// ``PFPropertyList/BinaryPlistStreamWriter``: each record's objects as it comes, the array
/// (or wrapper) that holds them and the offset table last; it reads back to the same value
/// as the whole-tree file, but is not byte for byte that file (its root comes last).
///
/// A binary property list, CBOR document or XML property list of records is read a record at
/// a time too (``convert(options:document:write:progress:)``): each element of its records'
/// array is decoded from the document's bytes by that format's reader and written at once.
///
/// ```swift
/// let options = RecordStream.Options(from: .json, to: .jsonl)
/// let handle = try FileHandle(forReadingFrom: input)
/// try RecordStream.convert(options: options, read: { () throws(PFError) in try? handle.read(upToCount: 1 << 20) },
///                          write: { bytes throws(PFError) in out.append(contentsOf: bytes) })
/// ```
public enum RecordStream {
    /// What a streamed conversion reads and writes.
    public struct Options: Sendable {
        /// The input format: `json`, `parse`, `jsonl` or `cborseq`.
        public var from: DataFormat
        /// The output format: `json`, `parse`, `jsonl` or `cborseq`, or `cbor` or `xmlplist`
        /// (one document of the records; see ``canStream(from:to:pretty:start:)``).
        public var to: DataFormat
        /// Whether Parse's typed JSON maps to dates, data and UIDs on read, and back on write.
        public var typedJSON: Bool
        /// Whether null records (and a results wrapper's null members) are left out of an XML
        /// property list, as the tree writer's `dropNulls` does, instead of failing.
        public var dropNulls = false
        /// Deterministic CBOR (RFC 8949 §4.2.1) for a CBOR sequence written.
        public var canonicalCBOR: Bool
        /// Budgets per record (`maxInputBytes` bounds one record).
        public var limits: PFLimits
        /// The Parse class of the objects read or written as `parse` (from a `<Class>.json`
        /// file name); `nil` takes each object's `className`.
        public var parseClassName: String?
        /// The input's name in messages about a row of a JSON document.
        public var inputName: String
        /// The input's size in bytes when known. A binary property list's reference width
        /// is chosen from it (an input of `n` bytes holds at most `n` values), so `to: .bplist`
        /// streams only when it is set (see ``canStream(from:to:pretty:start:inputBytes:)``).
        public var inputBytes: Int?
        /// Indented JSON output: only a JSON document walked by its large containers
        /// (``convert(options:largeDocument:threshold:write:progress:)``) is written indented.
        public var pretty = false

        /// Makes options; every parameter defaults to the property's documented default.
        public init(from: DataFormat, to: DataFormat, typedJSON: Bool = true, canonicalCBOR: Bool = false,
                    limits: PFLimits = .default, parseClassName: String? = nil, inputName: String = "input") {
            self.from = from
            self.to = to
            self.typedJSON = typedJSON
            self.canonicalCBOR = canonicalCBOR
            self.limits = limits
            self.parseClassName = parseClassName
            self.inputName = inputName
        }
    }

    /// How far a conversion has come.
    public struct Progress: Sendable, Equatable {
        /// Input bytes read.
        public var bytesRead = 0
        /// Records written.
        public var records = 0
        /// Once a CBOR sequence is read: each tag number its items hold, with how many times
        /// (the value model keeps only some; ``PFCBOR/CBORTag/keptByValues``).
        public var cborTags: [UInt64: Int] = [:]
        /// Once a CBOR sequence is read: how many `undefined` values its items hold (read as null).
        public var cborUndefinedValues = 0

        /// A state: nothing read yet by default.
        public init(bytesRead: Int = 0, records: Int = 0) {
            self.bytesRead = bytesRead
            self.records = records
        }
    }

    /// The formats a stream reads and writes.
    public static let formats: Set<DataFormat> = [.json, .parse, .jsonl, .cborseq]

    /// The formats a stream writes: the record formats, and a whole CBOR document, property
    /// list or keyed archive (in a binary property list) of records.
    public static let targets: Set<DataFormat> = formats.union(wholeDocuments)

    /// The whole documents a stream writes, which keep a results wrapper's other members.
    public static let wholeDocuments: Set<DataFormat> = [.cbor, .xmlplist, .bplist, .keyed]

    /// Whether a conversion can stream: both formats are record formats (a JSON document to
    /// JSON is not: it is copied whole, with every member), the output is not indented, and
    /// the input's first bytes are not compressed and, for a JSON document, open an array
    /// or an object (a Parse class file may also be empty).
    /// - Parameters:
    ///   - from: the input format.
    ///   - to: the output format.
    ///   - pretty: whether indented output was asked for (JSON and Parse are then written whole).
    ///   - start: the input's first bytes (a chunk is enough).
    ///   - inputBytes: the input's size, when known (a binary property list needs it).
    /// - Returns: `true` when ``convert(options:read:write:progress:)`` gives the whole-tree result.
    public static func canStream(from: DataFormat, to: DataFormat, pretty: Bool, start: Data, inputBytes: Int? = nil) -> Bool {
        guard formats.contains(from), targets.contains(to), !(from == .json && to == .json) else { return false }
        if (to == .bplist || to == .keyed) && inputBytes == nil { return false }
        if wholeDocuments.contains(to) {
            // A whole CBOR document or XML property list is written record by record only when its tree is the
            // records' array or results wrapper: a JSON document must open one (any other
            // object is read whole, as the tree route reads it), and a Parse class file's
            // tree is made of checked objects, so it is read whole.
            switch from {
            case .jsonl, .cborseq: return Compression.detect(start) == nil
            case .json: return Compression.detect(start) == nil && ParseExportRowCutter.rowsShape(opening: start) != nil
            default: return false
            }
        }
        if pretty && (to == .json || to == .parse) { return false }
        guard Compression.detect(start) == nil else { return false }
        switch from {
        case .json:
            let first = FormatDetector.jsonStart(start)
            return first == UInt8(ascii: "[") || first == UInt8(ascii: "{")
        case .parse:
            let first = FormatDetector.jsonStart(start)
            return first == UInt8(ascii: "[") || first == UInt8(ascii: "{") || start.allSatisfy { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
        default:
            return true
        }
    }

    /// Converts a stream of records.
    /// - Parameters:
    ///   - options: the formats and settings.
    ///   - read: the next chunk of input, or `nil` (or empty) at its end.
    ///   - write: receives the output in chunks of about a mebibyte.
    ///   - progress: called after each chunk of input.
    /// - Returns: the bytes read and the records written.
    /// - Throws: ``PFCore/PFError`` from a record's reader (with the row, line or item and its
    ///   byte offset), from the writers, or from `read` and `write`.
    @discardableResult
    public static func convert(
        options: Options, read: () throws(PFError) -> Data?, write: (UnsafeRawBufferPointer) throws(PFError) -> Void,
        progress: ((Progress) -> Void)? = nil
    ) throws(PFError) -> Progress {
        guard formats.contains(options.from), targets.contains(options.to) else {
            throw PFError(FormatsFailure.doesNotStream(from: options.from.rawValue, to: options.to.rawValue), format: .input)
        }
        var sink = Sink(options: options)
        var state = Progress()
        // A whole document keeps a results wrapper's other members; JSON and record sequences drop them.
        let keepsOthers = wholeDocuments.contains(options.to)
        let records = try forEachRecord(
            options: options, otherMembers: keepsOthers, read: read,
            record: { value, shape throws(PFError) in
                if sink.shape == nil { sink.shape = shape }
                try sink.add(value)
            },
            afterChunk: { bytesRead throws(PFError) in
                try sink.flush(write, force: false)
                state.bytesRead = bytesRead
                state.records = sink.count
                progress?(state)
            })
        sink.shape = records.shape
        sink.tail = records.otherMembers
        try sink.finish(write)
        state.records = sink.count
        state.cborTags = records.cborTags
        state.cborUndefinedValues = records.cborUndefinedValues
        progress?(state)
        return state
    }

    /// How a stream held its records, known once it is read.
    public struct Records: Sendable {
        /// The records' container in the whole tree: ``PFParseExport/ParseExport/Shape/array``
        /// (a JSON array, JSON Lines, a CBOR sequence), ``PFParseExport/ParseExport/Shape/results``
        /// (`{"results":[…]}`, and an empty Parse class file), or ``PFParseExport/ParseExport/Shape/single``
        /// (a JSON object that is not a results wrapper: the one record is the whole tree).
        public var shape: ParseExport.Shape
        /// A results wrapper's other members (a REST response's `"count"`), which follow the
        /// records in the whole tree; `nil` when there are none, and for a Parse class file,
        /// whose tree keeps none.
        public var otherMembers: OrderedDictionary<String, PFValue>?
        /// The records read.
        public var count: Int
        /// A CBOR sequence's tags and `undefined` values (``Progress/cborTags``).
        public var cborTags: [UInt64: Int] = [:]
        public var cborUndefinedValues = 0
    }

    /// Reads a stream of records (JSON, Parse, JSON Lines or a CBOR sequence; see
    /// ``canStream(from:to:pretty:start:inputBytes:)``) and hands each to `record` as it is
    /// read: each is the element the whole-tree read gives at that place, with the same
    /// checks and errors as ``convert(options:read:write:progress:)``, which is built on it.
    /// - Parameters:
    ///   - options: the input format (`from`) and settings; `to` is not used.
    ///   - otherMembers: whether a results wrapper's other members are read (with the
    ///     records' reader, after the last record) and returned.
    ///   - read: the next chunk of input, or `nil` (or empty) at its end.
    ///   - record: receives each record, in order, with the shape of the container that
    ///     holds it (known from the first record on).
    ///   - afterChunk: called after each chunk of input with the bytes read so far.
    /// - Returns: how the stream held its records.
    /// - Throws: ``PFCore/PFError`` from a record's reader (with the row, line or item and its
    ///   byte offset), or what `read`, `record` or `afterChunk` throw.
    @discardableResult
    public static func forEachRecord(
        options: Options, otherMembers: Bool = true, read: () throws(PFError) -> Data?,
        record: (_ value: PFValue, _ shape: ParseExport.Shape) throws(PFError) -> Void,
        afterChunk: (_ bytesRead: Int) throws(PFError) -> Void = { _ throws(PFError) in }
    ) throws(PFError) -> Records {
        guard formats.contains(options.from) else {
            throw PFError(FormatsFailure.doesNotStream(from: options.from.rawValue, to: options.to.rawValue), format: .input)
        }
        var count = 0
        var bytesRead = 0
        var shape: ParseExport.Shape?
        func deliver(_ value: PFValue) throws(PFError) {
            try record(value, shape ?? .array)
            count += 1
        }
        /// Feeds each chunk of input to a record reader, reporting after each.
        func pump(_ feed: (UnsafeRawBufferPointer) throws(PFError) -> Void) throws(PFError) {
            while let chunk = try read(), !chunk.isEmpty {
                try chunk.withBytes(feed)
                bytesRead += chunk.count
                try afterChunk(bytesRead)
            }
        }
        switch options.from {
        case .jsonl:
            let reader = JSONReader(options: .init(mode: .strict, typedValues: options.typedJSON, limits: options.limits))
            var lines = JSONLines.Reader(reader: reader)
            try pump { raw throws(PFError) in try lines.feed(raw) { value, _ throws(PFError) in try deliver(value) } }
            try lines.finish { value, _ throws(PFError) in try deliver(value) }
            return Records(shape: .array, count: count)
        case .cborseq:
            var items = CBORSequence.Reader(limits: options.limits)
            try pump { raw throws(PFError) in try items.feed(raw) { value, _ throws(PFError) in try deliver(value) } }
            try items.finish { value, _ throws(PFError) in try deliver(value) }
            return Records(shape: .array, count: count, cborTags: items.tagCounts, cborUndefinedValues: items.undefinedValues)
        default:
            // A JSON document or a Parse class file: the export row cutter finds the records.
            let parse = options.from == .parse
            var rowOptions = JSONReader.Options(mode: .strict, typedValues: parse ? false : options.typedJSON, limits: options.limits)
            rowOptions.parallel = false
            let session = JSONReader.Session(reader: JSONReader(options: rowOptions))
            // A row sits one level (an array) or two (a results wrapper) inside the document,
            // and the whole-tree read counts those levels against maxDepth too.
            var nested = rowOptions
            nested.limits.maxDepth = max(1, options.limits.maxDepth - 1)
            let inArray = JSONReader.Session(reader: JSONReader(options: nested))
            nested.limits.maxDepth = max(1, options.limits.maxDepth - 2)
            let inResults = JSONReader.Session(reader: JSONReader(options: nested))
            var cutter = ParseExportRowCutter(limits: options.limits, plainJSON: !parse)
            func handle(_ row: ParseExportRow) throws(PFError) {
                if shape == nil { shape = row.shape }
                let value: PFValue
                do throws(PFError) {
                    let reader = switch row.shape {
                    case .array: inArray
                    case .results: inResults
                    default: session
                    }
                    value = try reader.read(row.bytes)
                } catch {
                    // The row's reader had the levels around the row taken off its maxDepth:
                    // the error names the user's limit, as the whole-tree read does.
                    var e = error
                    if case .limitExceeded("maxDepth", _)? = error.failure(as: PFCoreFailure.self) {
                        let failure = PFCoreFailure.limitExceeded(limit: "maxDepth", value: options.limits.maxDepth)
                        e.failure = failure
                        e.message = failure.message
                    }
                    throw row.placed(e, file: options.inputName)
                }
                guard parse else { return try deliver(value) }
                let object = try FormatIO.parseObject(value, index: row.index, shape: row.shape, className: options.parseClassName)
                try deliver(object.encoded(style: .typed))
            }
            try pump { raw throws(PFError) in try cutter.feed(raw, handle) }
            try cutter.finish(handle)
            // A wrapper without rows still is one (`{"results":[]}`, not `[]`).
            if shape == nil { shape = cutter.shape }
            var others: OrderedDictionary<String, PFValue>?
            if otherMembers, !parse, let tail = cutter.tailMembers { others = try session.read(tail).dictionaryValue }
            if cutter.shape == .empty || cutter.shape == nil {
                guard parse else {
                    throw PFError(FormatsFailure.emptyInput(afterDecompression: false), format: .input, offset: 0)
                }
                // An empty class file is an empty export.
                shape = ParseExport.Shape.results
            }
            return Records(shape: shape ?? .array, otherMembers: others, count: count)
        }
    }

    // MARK: - Documents of records

    /// The document formats read a record at a time from their bytes (``convert(options:document:write:progress:)``):
    /// a binary property list, a CBOR document and an XML property list whose root is an
    /// array of records or a `{"results": […]}` wrapper.
    public static let documentFormats: Set<DataFormat> = [.bplist, .cbor, .xmlplist]

    /// The shape of a document of records: whether a wrapper holds them, and how many other
    /// members it has (`nil`: not known before its end).
    struct DocumentShape {
        var wrapped: Bool
        var otherMembers: Int?
    }

    /// The shape of `bytes` as a document of records in format `from`, or `nil`.
    /// - Parameter countOthers: whether an XML wrapper's other members, which follow its
    ///   records, are counted: a pass over the document that keeps no record (a damaged
    ///   document is then `nil`, left to the whole read to report).
    static func documentShape(_ bytes: Data, from: DataFormat, limits: PFLimits, countOthers: Bool = false) -> DocumentShape? {
        switch from {
        case .bplist:
            BinaryPlistReader(options: .init(limits: limits)).recordsShape(bytes)
                .map { DocumentShape(wrapped: $0.wrapped, otherMembers: $0.otherMembers) }
        case .cbor:
            CBORReader(options: .init(limits: limits)).recordsShape(bytes)
                .map { DocumentShape(wrapped: $0.wrapped, otherMembers: $0.otherMembers) }
        case .xmlplist:
            // A wrapper's other members follow its records: not known up front.
            XMLPlistReader(options: .init(limits: limits)).recordsWrapped(bytes).flatMap { wrapped in
                guard wrapped, countOthers else { return DocumentShape(wrapped: wrapped, otherMembers: wrapped ? nil : 0) }
                let reader = XMLPlistReader(options: .init(limits: limits))
                guard let others = try? reader.readRecords(bytes, record: { _ throws(PFError) in }) else { return nil }
                return DocumentShape(wrapped: true, otherMembers: others.count)
            }
        default:
            nil
        }
    }

    /// Whether a whole document (already in memory, or mapped) converts a record at a time
    /// with the whole-tree route's result: `from` is a binary property list, CBOR document or XML property list
    /// (uncompressed) whose root is an array of records or a dictionary whose first key,
    /// `results`, holds them (see ``PFPropertyList/BinaryPlistReader/recordsShape(_:)``);
    /// the output is a record sequence, an unindented JSON document, or a whole CBOR
    /// document or property list. A wrapper with other members streams only to a whole
    /// document (which keeps them): JSON would drop them, and they may make a record
    /// sequence's tree one record. An XML wrapper's members follow its records, so for
    /// the other outputs they are counted first by a pass over the document that keeps no
    /// record (twice the reading time, the same memory).
    /// - Parameters:
    ///   - bytes: the input document.
    ///   - from: its format.
    ///   - to: the output format.
    ///   - pretty: whether indented output was asked for.
    ///   - limits: the read's budgets.
    /// - Returns: `true` when ``convert(options:document:write:progress:)`` gives the whole-tree result.
    public static func canStream(document bytes: Data, from: DataFormat, to: DataFormat, pretty: Bool, limits: PFLimits = .default) -> Bool {
        guard documentFormats.contains(from), targets.contains(to), to != .parse, !(pretty && to == .json) else { return false }
        // An XML wrapper's other members are counted (a pass that keeps no record) only when
        // the output would not keep them.
        let countOthers = !wholeDocuments.contains(to)
        guard Compression.detect(bytes.prefix(16)) == nil,
            let shape = documentShape(bytes, from: from, limits: limits, countOthers: countOthers)
        else { return false }
        if shape.wrapped && shape.otherMembers != 0 { return wholeDocuments.contains(to) }
        return true
    }

    /// Converts a binary property list, CBOR document or XML property list of records (see
    /// ``canStream(document:from:to:pretty:limits:)``) a record at a time: each record is
    /// decoded from the document's bytes (a mapped file stays on disk) and written at once,
    /// so memory is the input's pages touched plus the largest record, never the tree.
    /// The output is that of ``convert(options:read:write:progress:)`` for the same records.
    /// - Parameters:
    ///   - options: the formats (`from` is `bplist` or `cbor`) and settings.
    ///   - bytes: the document.
    ///   - write: receives the output in chunks of about a mebibyte.
    ///   - progress: called every few thousand records.
    /// - Returns: the bytes read (the document's size) and the records written.
    /// - Throws: ``PFCore/PFError`` from the reader (``PFPropertyList/BinaryPlistFailure/notRecords``
    ///   or ``PFCBOR/CBORFailure/notRecords`` for a document of another shape), the
    ///   writers, or `write`.
    @discardableResult
    public static func convert(
        options: Options, document bytes: Data, write: (UnsafeRawBufferPointer) throws(PFError) -> Void,
        progress: ((Progress) -> Void)? = nil
    ) throws(PFError) -> Progress {
        guard documentFormats.contains(options.from), targets.contains(options.to), options.to != .parse else {
            throw PFError(FormatsFailure.doesNotStream(from: options.from.rawValue, to: options.to.rawValue), format: .input)
        }
        var sink = Sink(options: options)
        var state = Progress()
        let records = try forEachRecord(options: options, document: bytes) { record, shape throws(PFError) in
            if sink.shape == nil { sink.shape = shape }
            try sink.add(record)
            try sink.flush(write, force: false)
            if sink.count & 0xFFF == 0 {
                state.records = sink.count
                progress?(state)
            }
        }
        sink.shape = records.shape
        if let others = records.otherMembers, !others.isEmpty {
            guard wholeDocuments.contains(options.to) else {
                // Checked by canStream(document:…) from the document's heads; an indefinite
                // CBOR map's members are known only now.
                throw PFError(FormatsFailure.doesNotStream(from: options.from.rawValue, to: options.to.rawValue), format: .input)
            }
            sink.tail = others
        }
        try sink.finish(write)
        state.bytesRead = bytes.count
        state.records = sink.count
        progress?(state)
        return state
    }

    /// Reads a binary property list, CBOR document or XML property list of records (see
    /// ``canStream(document:from:to:pretty:limits:)``) a record at a time, handing each to
    /// `record` as it is decoded from the document's bytes, with the checks and errors of
    /// ``convert(options:document:write:progress:)``, which is built on it.
    /// - Parameters:
    ///   - options: the input format (`from`: `bplist`, `cbor` or `xmlplist`) and budgets.
    ///   - bytes: the document.
    ///   - record: receives each record, in order, with the shape of the container that holds it.
    /// - Returns: how the document held its records (a wrapper's other members included).
    /// - Throws: ``PFCore/PFError`` from the reader (`notRecords` for a document of another
    ///   shape), or what `record` throws.
    @discardableResult
    public static func forEachRecord(
        options: Options, document bytes: Data, record: (_ value: PFValue, _ shape: ParseExport.Shape) throws(PFError) -> Void
    ) throws(PFError) -> Records {
        guard documentFormats.contains(options.from) else {
            throw PFError(FormatsFailure.doesNotStream(from: options.from.rawValue, to: options.to.rawValue), format: .input)
        }
        let shape = documentShape(bytes, from: options.from, limits: options.limits)?.wrapped == true
            ? ParseExport.Shape.results : ParseExport.Shape.array
        var count = 0
        func add(_ value: PFValue) throws(PFError) {
            try record(value, shape)
            count += 1
        }
        let others: OrderedDictionary<String, PFValue>?
        switch options.from {
        case .bplist: others = try BinaryPlistReader(options: .init(limits: options.limits)).readRecords(bytes, record: add)
        case .xmlplist: others = try XMLPlistReader(options: .init(limits: options.limits)).readRecords(bytes, record: add)
        default: others = try CBORReader(options: .init(limits: options.limits)).readRecords(bytes, record: add)
        }
        return Records(shape: shape, otherMembers: others, count: count)
    }

    /// The outputs a keyed archive's records are written to a record at a time
    /// (``convert(options:keyedArchive:write:progress:)``): the record formats, and the whole
    /// documents a record stream writes (CBOR, XML and binary property lists). A Parse class
    /// file is made from a tree (its objects are checked together), as from a document, and
    /// a keyed archive is rewritten whole (records sharing objects are tied by `$id`s).
    public static let keyedTargets: Set<DataFormat> = [.json, .jsonl, .cborseq, .cbor, .xmlplist, .bplist]

    /// Converts a keyed archive in a binary property list whose graph's root is an array of
    /// records, or a dictionary whose one key `results` holds one, to one of ``keyedTargets``
    /// a record at a time (``PFKeyedArchive/KeyedArchive/readRecords(_:options:start:record:threshold:visit:)``):
    /// objects are decoded from the archive's (mapped) bytes when they are needed, and no
    /// object table, graph or tree is built. Any other graph goes to one of ``largeTargets``
    /// by its large containers (``PFKeyedArchive/KeyedArchive/walk(_:options:threshold:visit:)``),
    /// written as ``convert(options:largeDocument:threshold:write:progress:)`` writes a walk,
    /// and so does every graph for `pretty` JSON. The output is the whole route's, byte for
    /// byte (a binary property list: the same value, laid out as ``BinaryPlistStreamWriter`` writes).
    /// - Parameters:
    ///   - options: `from` is `keyed` (the input is a keyed archive); `to` one of ``keyedTargets``
    ///     or ``largeTargets``; `inputBytes` the archive's size for a binary property list.
    ///   - bytes: the archive (not compressed).
    ///   - allowedClasses: the keyed archive's secure decoding (``FormatIO/ReadOptions/allowedClasses``).
    ///   - threshold: the member count above which a walked graph's container is walked
    ///     rather than rendered whole (`nil`: ``PFKeyedArchive/KeyedArchive/largeMembers``).
    ///   - write: receives the output in pieces.
    ///   - progress: called now and then with the records (or pieces) written.
    /// - Returns: the bytes read and the records (or pieces) written, or `nil`, having
    ///   written nothing, when the archive is neither of records nor walked (convert it whole).
    /// - Throws: ``PFCore/PFError`` as the whole route does, and from `write`.
    @discardableResult
    public static func convert(
        options: Options, keyedArchive bytes: Data, allowedClasses: Set<String>? = nil, threshold: Int? = nil,
        write: (UnsafeRawBufferPointer) throws(PFError) -> Void, progress: ((Progress) -> Void)? = nil
    ) throws(PFError) -> Progress? {
        let records = keyedTargets.contains(options.to) && !(options.pretty && options.to == .json)
        let walks = largeTargets.contains(options.to) && (!needsInputSize(options.to) || options.inputBytes != nil)
        guard records || walks else {
            throw PFError(FormatsFailure.doesNotStream(from: DataFormat.keyed.rawValue, to: options.to.rawValue), format: .input)
        }
        var sink = Sink(options: options)
        var state = Progress()
        var pieces = 0
        let decoding = KeyedGraph.DecodingOptions(limits: options.limits, allowedClasses: allowedClasses)
        let walkThreshold = walks ? threshold ?? KeyedArchive.largeMembers : nil
        let take = { (event: PFDocumentEvent) throws(PFError) in
            if case .value = event {
                pieces += 1
                if pieces & 0xFFF == 0 { progress?(Progress(bytesRead: 0, records: pieces)) }
            }
            try sink.take(event, write)
        }
        let streamed: Bool
        if records {
            streamed = try KeyedArchive.readRecords(
                bytes, options: decoding,
                start: { shape throws(PFError) in sink.shape = shape == .results ? .results : .array },
                record: { record throws(PFError) in
                    try sink.add(record)
                    try sink.flush(write, force: false)
                    if sink.count & 0xFFF == 0 {
                        state.records = sink.count
                        progress?(state)
                    }
                },
                threshold: walkThreshold, visit: take)
        } else if let walkThreshold {
            streamed = try KeyedArchive.walk(bytes, options: decoding, threshold: walkThreshold, visit: take)
        } else {
            streamed = false
        }
        guard streamed else { return nil }
        if sink.shape == nil {
            // Walked by its large containers.
            try sink.flush(write)
            state.records = pieces
        } else {
            try sink.finish(write)
            state.records = sink.count
        }
        state.bytesRead = bytes.count
        progress?(state)
        return state
    }

    // MARK: - Output

    /// Writes records in the output format, in the shape the whole-tree route writes.
    struct Sink {
        let options: Options
        let json: JSONWriter
        let lines: JSONLines.Writer
        let cbor: CBORWriter
        let xml: XMLPlistWriter
        /// A whole binary property list's writer.
        var plist: BinaryPlistStreamWriter
        /// A keyed archive's writer (`to: .keyed`).
        var keyed: KeyedArchiveStreamWriter?
        /// A typedstream's writer (`to: .typedstream`, walked by its large containers).
        var typedStream: TypedStreamEventWriter?
        /// The CBOR writer of a whole document's records inside a results wrapper.
        let cborInResults: CBORWriter
        /// How the input held its records; decides the wrapper of a JSON or Parse output.
        var shape: ParseExport.Shape?
        var buffer: [UInt8] = []
        var count = 0
        var opened = false
        /// For a whole CBOR document of a results wrapper: the wrapper's other members.
        var tail: OrderedDictionary<String, PFValue>?
        /// The large containers open around the next value, outermost first, when a JSON
        /// document is walked by its large containers (`RecordStream+Large.swift`).
        var frames: [LargeFrame] = []

        init(options: Options) {
            self.options = options
            var jsonOptions = JSONWriter.Options(pretty: false, typedValues: options.to == .parse ? true : options.typedJSON)
            jsonOptions.parallel = false
            json = JSONWriter(options: jsonOptions)
            lines = JSONLines.Writer(options: .init(typedValues: options.typedJSON))
            // In a whole CBOR document, a record sits inside the array (and a results
            // wrapper's map): it may nest only as deep as the tree writer lets it there.
            var cborOptions = CBORWriter.Options(canonical: options.canonicalCBOR)
            if options.to == .cbor { cborOptions.limits.maxDepth = max(0, PFLimits.default.maxDepth - 1) }
            cbor = CBORWriter(options: cborOptions)
            cborOptions.limits.maxDepth = max(0, PFLimits.default.maxDepth - 2)
            cborInResults = CBORWriter(options: cborOptions)
            xml = XMLPlistWriter(options: .init(nullPolicy: options.dropNulls ? .drop : .error))
            // Every value (a key too) takes at least one input byte of its own; the array and
            // a results wrapper with its key add three objects.
            // A binary property list or CBOR document read a record at a time may share a
            // value between records (an object referenced twice, tag 29): its values are
            // bounded by maxNodes instead, and a key goes with each value.
            var objects = options.inputBytes ?? Int(UInt32.max)
            if options.from == .keyed || options.from == .typedstream {
                // A keyed archive's records are rendered from its objects: an object takes at
                // least a byte, and a reference (a byte at least) is rendered as at most three
                // values (`{"$ref":n}`) or adds two (`$id`). A typedstream's generic object
                // renders each group as a dictionary of its types and values (six values from
                // two bytes): a walk past the bound is converted whole.
                let values = objects.multipliedReportingOverflow(by: options.from == .keyed ? 4 : 8)
                objects = values.overflow ? .max : values.partialValue
            }
            if RecordStream.documentFormats.contains(options.from) {
                let nodes = options.limits.maxNodes.multipliedReportingOverflow(by: 2)
                objects = nodes.overflow ? .max : max(objects, nodes.partialValue)
            }
            let bound = objects.addingReportingOverflow(4)
            plist = BinaryPlistStreamWriter(
                options: .init(nullPolicy: options.dropNulls ? .drop : .error), objectBound: bound.overflow ? .max : bound.partialValue)
            if options.to == .keyed {
                // A value of one input byte becomes at most three objects of an archive (an
                // empty CBOR array: its NSArray's dictionary, its empty NS.objects and the
                // reference its container holds); the archive's own objects come on top.
                let objects = bound.partialValue.multipliedReportingOverflow(by: 4)
                keyed = KeyedArchiveStreamWriter(limits: options.limits, objectBound: bound.overflow || objects.overflow ? .max : objects.partialValue)
            }
            if options.to == .typedstream { typedStream = TypedStreamEventWriter() }
            buffer.reserveCapacity(1 << 20 + 1 << 16)
        }

        /// The wrapper around the records: a single object is written bare.
        var wrapper: (open: String, close: String) {
            switch shape ?? .array {
            case .array: ("[", "]")
            case .single: ("", "")
            case .results, .empty: ("{\"results\":[", "]}")
            }
        }

        mutating func add(_ record: PFValue) throws(PFError) {
            let index = count
            do throws(PFError) {
                switch options.to {
                case .jsonl:
                    try lines.append(record, into: &buffer)
                case .cborseq:
                    buffer.append(contentsOf: try cbor.write(record))
                case .cbor:
                    buffer.append(contentsOf: try (shape == .results ? cborInResults : cbor).write(record))
                case .xmlplist:
                    if options.dropNulls, case .null = record { break }
                    if !opened {
                        opened = true
                        buffer.append(contentsOf: XMLPlistWriter.header)
                        buffer.append(contentsOf: shape == .results ? Self.xmlResultsOpen : Array("<array>\n".utf8))
                    }
                    buffer.append(contentsOf: try xml.element(record, indent: shape == .results ? 2 : 1))
                case .bplist:
                    if options.dropNulls, case .null = record { break }
                    let depth = switch shape ?? .array {
                    case .single: 0
                    case .results: 2
                    default: 1
                    }
                    try plist.appendRecord(record, depth: depth, into: &buffer)
                case .keyed:
                    guard let keyed, shape != .single else { throw Self.declined(options) }
                    try Self.declining(options) { () throws(PFError) in try keyed.appendRecord(record, depth: shape == .results ? 2 : 1) }
                case .parse:
                    let object = try FormatIO.parseObject(record, index: index, shape: shape ?? .array, className: options.parseClassName)
                    try separate()
                    try json.write(object.encoded(style: .rest), into: &buffer)
                default:
                    try separate()
                    try json.write(record, into: &buffer)
                }
            } catch {
                throw error.prefixed(by: ParseExport.rowPath(index, shape: shape ?? .array))
            }
            count += 1
        }

        /// Opens the wrapper before the first record, or writes the separator.
        private mutating func separate() throws(PFError) {
            if opened {
                buffer.append(UInt8(ascii: ","))
            } else {
                opened = true
                buffer.append(contentsOf: Array(wrapper.open.utf8))
            }
        }

        mutating func finish(_ write: (UnsafeRawBufferPointer) throws(PFError) -> Void) throws(PFError) {
            if options.to == .cbor { return try finishCBOR(write) }
            if options.to == .xmlplist { return try finishXML(write) }
            if options.to == .bplist { return try finishBinaryPlist(write) }
            if options.to == .keyed, let keyed {
                try flush(write)
                return try Self.declining(options) { () throws(PFError) in
                    try keyed.finish(results: shape == .results ? tail ?? [:] : nil, write: write)
                }
            }
            if options.to == .json || options.to == .parse {
                if !opened {
                    opened = true
                    buffer.append(contentsOf: Array(wrapper.open.utf8))
                }
                buffer.append(contentsOf: Array(wrapper.close.utf8))
            }
            try flush(write)
        }

        /// Hands the buffered output to `write` once there is enough of it (or `force`).
        mutating func flush(_ write: (UnsafeRawBufferPointer) throws(PFError) -> Void, force: Bool = true) throws(PFError) {
            if let keyed { return try keyed.flush(write, force: force) }
            if let typedStream, typedStream.pending > 0 { buffer.append(contentsOf: typedStream.drain()) }
            // A whole CBOR document's records wait for its head (``finishCBOR(_:)``).
            guard !buffer.isEmpty, force || (buffer.count >= 1 << 20 && options.to != .cbor) else { return }
            try buffer.withBytes { raw throws(PFError) in try write(raw) }
            buffer.removeAll(keepingCapacity: true)
        }

        /// Writes a whole CBOR document from the records' encodings: the array's head and the
        /// records, inside the results wrapper's map (with its other members, in the order
        /// the tree writer gives them) when the input was one.
        mutating func finishCBOR(_ write: (UnsafeRawBufferPointer) throws(PFError) -> Void) throws(PFError) {
            let records = CBORWriter.arrayHead(count: count)
            guard shape == .results else {
                if shape == .single {
                    // One object read whole: its encoding is the document.
                    return try flush(write)
                }
                try records.withBytes { raw throws(PFError) in try write(raw) }
                return try flush(write)
            }
            let others = tail ?? [:]
            // Each member of the wrapper: its key's encoding, then its value's (the records
            // stand for the "results" value).
            var members: [(key: [UInt8], value: [UInt8]?)] = [(Array(try cbor.write(.string("results"))), nil)]
            for (key, value) in others {
                do throws(PFError) {
                    members.append((Array(try cbor.write(.string(key))), Array(try cbor.write(value))))
                } catch {
                    throw error.prefixed(.key(key))
                }
            }
            if options.canonicalCBOR {
                // Deterministic maps order their keys' encodings by length, then bytewise.
                members.sort { a, b in a.key.count != b.key.count ? a.key.count < b.key.count : a.key.lexicographicallyPrecedes(b.key) }
            }
            try CBORWriter.mapHead(count: members.count).withBytes { raw throws(PFError) in try write(raw) }
            for member in members {
                try member.key.withBytes { raw throws(PFError) in try write(raw) }
                if let value = member.value {
                    try value.withBytes { raw throws(PFError) in try write(raw) }
                } else {
                    try records.withBytes { raw throws(PFError) in try write(raw) }
                    try flush(write)
                }
            }
        }

        /// Writes a whole binary property list's root — the records' array, inside the
        /// results wrapper's dictionary (with its other members after `results`, as the tree
        /// holds them) when the input was one, or the one record read whole — then its offset
        /// table and trailer.
        mutating func finishBinaryPlist(_ write: (UnsafeRawBufferPointer) throws(PFError) -> Void) throws(PFError) {
            let root: Int
            if shape == .single, plist.recordCount == 1, let only = plist.firstRecord {
                root = only
            } else {
                let records = try plist.writeRecordArray(into: &buffer, flush: write)
                if shape == .results {
                    var keys = [try plist.write(.string("results"), depth: 1, into: &buffer)]
                    var values = [records]
                    for (key, value) in tail ?? [:] {
                        if options.dropNulls, case .null = value { continue }
                        do throws(PFError) {
                            values.append(try plist.write(value, depth: 1, into: &buffer))
                            keys.append(try plist.write(.string(key), depth: 1, into: &buffer))
                        } catch {
                            throw error.prefixed(.key(key))
                        }
                    }
                    root = try plist.writeDictionary(keys: keys, values: values, into: &buffer)
                } else {
                    root = records
                }
            }
            try plist.finish(root: root, into: &buffer, flush: write)
        }

        /// The failure that sends a conversion to the whole route: the records cannot be
        /// archived one at a time (one object read whole, or `$id`s shared between records).
        static func declined(_ options: Options) -> PFError {
            PFError(FormatsFailure.doesNotStream(from: options.from.rawValue, to: options.to.rawValue), format: .input)
        }

        /// Runs `body`, turning ``PFKeyedArchive/KeyedArchiveFailure/idAcrossRecords(_:)`` and
        /// ``PFKeyedArchive/KeyedArchiveFailure/markerInLargeContainer(_:)`` into ``declined(_:)``.
        static func declining(_ options: Options, _ body: () throws(PFError) -> Void) throws(PFError) {
            do throws(PFError) {
                try body()
            } catch {
                switch error.failure(as: KeyedArchiveFailure.self) {
                case .idAcrossRecords?, .markerInLargeContainer?: throw declined(options)
                default: throw error
                }
            }
        }

        /// `<dict>`, the `results` key and the array's opening, as the tree writer writes them.
        static let xmlResultsOpen = Array("<dict>\n\t<key>results</key>\n\t<array>\n".utf8)

        /// Closes a whole XML property list of the records: the array (`<array/>` when no
        /// record was written), a results wrapper's other members, the document.
        mutating func finishXML(_ write: (UnsafeRawBufferPointer) throws(PFError) -> Void) throws(PFError) {
            let results = shape == .results
            if opened {
                buffer.append(contentsOf: (results ? "\t</array>\n" : "</array>\n").utf8)
            } else {
                buffer.append(contentsOf: XMLPlistWriter.header)
                buffer.append(contentsOf: (results ? "<dict>\n\t<key>results</key>\n\t<array/>\n" : "<array/>\n").utf8)
            }
            if results {
                for (key, value) in tail ?? [:] {
                    if options.dropNulls, case .null = value { continue }
                    do throws(PFError) {
                        buffer.append(contentsOf: try xml.keyLine(key, indent: 1))
                        buffer.append(contentsOf: try xml.element(value, indent: 1))
                    } catch {
                        throw error.prefixed(.key(key))
                    }
                }
                buffer.append(contentsOf: "</dict>\n".utf8)
            }
            buffer.append(contentsOf: XMLPlistWriter.footer)
            try flush(write)
        }
    }
}
