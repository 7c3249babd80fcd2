import Foundation
import PFCBOR
import PFCompression
import PFCore
import PFJSON
import PFKeyedArchive
import PFParse
import PFParseExport
import PFSerialization
import PFTypedStream

/// Reads any supported format into a ``PFValue`` and writes a value out as any format,
/// handling compression on the way: the one entry point the CLI and the later coders use.
///
/// Bytes are opened by ``PFSerialization/Serialization`` (compression, zlib look-alikes,
/// limits) and sniffed by ``PFSerialization/FormatDetector``; this type adds the formats above
/// the value trees (keyed archives, typedstreams, Parse REST JSON) and payload decoding.
public enum FormatIO {
    /// How to read.
    public struct ReadOptions: Sendable {
        /// The format to read as; `nil` detects it from the bytes.
        public var format: DataFormat?
        /// JSON strictness.
        public var jsonMode: JSONReader.Mode = .strict
        /// Whether Parse's typed JSON (`{"__type":"Date",…}`) maps to dates and data.
        public var typedJSON = true
        /// Budgets for untrusted input.
        public var limits: PFLimits = .default
        /// The Parse class of the objects read `--from parse` (the CLI takes it from a
        /// `<Class>.json` file name); `nil` takes each object's `className` key.
        public var parseClassName: String?
        /// Secure decoding of keyed archives: the non-Foundation classes an archive may name
        /// (an empty set allows Foundation's only); any other class fails with
        /// ``PFError/Code/disallowed`` at the object that names it. `nil` (the default) keeps
        /// every class as generic data — nothing is ever instantiated while reading.
        public var allowedClasses: Set<String>?
        /// Whether data values that hold a payload (a property list, keyed archive,
        /// typedstream, JSON or CBOR, perhaps compressed) are replaced by their decoded
        /// value, recursively, with ``EmbeddedPayload`` (`--decode-blobs`). Default `false`:
        /// data stays bytes.
        public var decodePayloads: Bool
        /// Refuses, before any tree is built, an input whose whole tree is estimated not to
        /// fit (``MemoryBudget``); `nil` (the default) does not check.
        public var memoryBudget: MemoryBudget?
        /// The format the input's file name names (``FormatDetector/infer(fromPath:)``), which
        /// detection consults where the bytes cannot tell (``FormatDetector/detect(_:named:)``:
        /// a `.cbor` file whose root is not an array or a map); `nil` (the default) judges by
        /// the bytes alone. ``format`` overrides both.
        public var namedFormat: DataFormat?

        /// Makes read options; every parameter defaults to the property's documented default.
        public init(format: DataFormat? = nil, jsonMode: JSONReader.Mode = .strict, typedJSON: Bool = true,
                    limits: PFLimits = .default, parseClassName: String? = nil, allowedClasses: Set<String>? = nil,
                    decodePayloads: Bool = false) {
            self.format = format
            self.jsonMode = jsonMode
            self.typedJSON = typedJSON
            self.limits = limits
            self.parseClassName = parseClassName
            self.allowedClasses = allowedClasses
            self.decodePayloads = decodePayloads
        }
    }

    /// What a read produced and found.
    public struct ReadResult: Sendable {
        /// The value tree.
        public var value: PFValue
        /// The format the bytes were read as.
        public var format: DataFormat
        /// The compression that wrapped the bytes, if any.
        public var compression: CompressionFormat?
        /// Size of the input as given.
        public var inputBytes: Int
        /// The bytes the format was read from: the input after decompression (the input
        /// itself when it was not compressed), for callers that look further into them.
        public var decoded: Data
        /// Size after decompression (equal to ``inputBytes`` when not compressed).
        public var decodedBytes: Int { decoded.count }
        /// With ``ReadOptions/decodePayloads``, the data values that claimed to be a payload
        /// but were kept as bytes, with why; empty otherwise.
        public var payloadNotes: [EmbeddedPayload.Note] = []
    }

    /// How to write.
    public struct WriteOptions: Sendable {
        /// Indented, human-oriented output where the format has one (JSON, XML plist).
        public var pretty = false
        /// Compression to wrap the output in.
        public var compression: CompressionFormat?
        /// Whether dates, data and UIDs use Parse's typed JSON and `CF$UID` objects.
        public var typedJSON = true
        /// Whether `null` values are dropped from formats that cannot hold them (property
        /// lists) instead of failing.
        public var dropNulls = false
        /// Deterministic CBOR (RFC 8949 §4.2.1).
        public var canonicalCBOR = false
        /// The container of a keyed archive.
        public var keyedContainer: KeyedArchiveContainer = .bplist
        /// The Parse class of the objects written `--to parse`, used to check their names;
        /// `nil` takes each object's `className` key.
        public var parseClassName: String?

        /// Makes write options; every parameter defaults to the property's documented default.
        public init(pretty: Bool = false, compression: CompressionFormat? = nil, typedJSON: Bool = true,
                    dropNulls: Bool = false, canonicalCBOR: Bool = false,
                    keyedContainer: KeyedArchiveContainer = .bplist) {
            self.pretty = pretty
            self.compression = compression
            self.typedJSON = typedJSON
            self.dropNulls = dropNulls
            self.canonicalCBOR = canonicalCBOR
            self.keyedContainer = keyedContainer
        }
    }

    // MARK: - Reading

    /// Reads bytes of any supported format, decompressing one layer of gzip or zlib first;
    /// with ``ReadOptions/decodePayloads``, payloads inside data values are decoded too.
    /// - Parameters:
    ///   - bytes: the input.
    ///   - options: the format (or detection), JSON mode and limits.
    ///   - inflated: `bytes` already decompressed under `options.limits` by a caller that
    ///     looked at them first, so they are not inflated twice (see
    ///     ``PFSerialization/Serialization/open(_:limits:decompress:inflated:read:)``).
    /// - Returns: the value and what was found.
    /// - Throws: ``PFError`` from the decompressor or the format's reader; `syntax` when no
    ///   format can be detected; `limitExceeded` for input over `limits.maxInputBytes`.
    public static func read(_ bytes: Data, options: ReadOptions = ReadOptions(), inflated: Data? = nil) throws(PFError) -> ReadResult {
        let opened = try Serialization.open(bytes, limits: options.limits, inflated: inflated) {
            (plain, compression) throws(PFError) -> (PFValue, DataFormat) in
            guard options.format != nil || !plain.isEmpty else {
                // Not "unrecognised": there is nothing to recognise (an empty file, a failed
                // download). A format asked for decides for itself (an empty Parse class file
                // is a class without rows).
                throw PFError(FormatsFailure.emptyInput(afterDecompression: compression != nil), format: .input, offset: 0)
            }
            guard let format = options.format ?? FormatDetector.detect(plain, named: options.namedFormat) else {
                throw undetected(plain)
            }
            try options.memoryBudget?.check(format, inputBytes: plain.count)
            return (try readTree(plain, as: format, options: options), format)
        }
        var result = ReadResult(
            value: opened.value.0, format: opened.value.1, compression: opened.compression, inputBytes: bytes.count,
            decoded: opened.plain)
        expandPayloads(&result, options: options)
        return result
    }

    /// The error for (decompressed) bytes no format was detected in: what they are when that
    /// is known and not read (an SQLite companion file, another binary property list version,
    /// an old-style property list), else "unrecognised format".
    /// - Parameter plain: the bytes.
    /// - Returns: the error, at byte 0.
    public static func undetected(_ plain: Data) -> PFError {
        let failure: FormatsFailure =
            switch FormatDetector.undetectedKind(plain) {
            case .sqliteCompanion(let kind)?: .sqliteCompanion(kind)
            case .binaryPlistVersion(let version)?: .binaryPlistVersion(version)
            case .oldStylePlist?: .oldStylePlist
            case .der?: .der
            case .utf16JSON?: .utf16JSON
            case nil: .unrecognisedFormat
            }
        return PFError(failure, format: .input, offset: 0)
    }

    /// With ``ReadOptions/decodePayloads``, decodes the payloads in the value's data values
    /// (the input's bytes charged to the shared budget); Parse rows are left as they are.
    static func expandPayloads(_ result: inout ReadResult, options: ReadOptions) {
        guard options.decodePayloads, result.format != .parse else { return }
        let payloadOptions = EmbeddedPayload.Options(limits: options.limits, allowedClasses: options.allowedClasses)
        (result.value, result.payloadNotes) = EmbeddedPayload.expand(
            result.value, options: payloadOptions, spentBytes: result.inputBytes)
    }

    static func readTree(_ bytes: Data, as format: DataFormat, options: ReadOptions) throws(PFError) -> PFValue {
        let treeOptions = Serialization.ReadOptions(jsonMode: options.jsonMode, typedJSON: options.typedJSON, limits: options.limits)
        switch format {
        case .json: return try Serialization.readTree(bytes, as: .json, options: treeOptions)
        case .bplist: return try Serialization.readTree(bytes, as: .bplist, options: treeOptions)
        case .xmlplist: return try Serialization.readTree(bytes, as: .xmlplist, options: treeOptions)
        case .cbor: return try Serialization.readTree(bytes, as: .cbor, options: treeOptions)
        case .keyed:
            // The table is a temporary, freed once the graph is built and before the tree is
            // rendered: the tree then reuses its memory instead of growing past it.
            let graph = try KeyedGraph(
                table: KeyedArchive.readTable(bytes, limits: options.limits, decompress: false).table,
                options: .init(limits: options.limits, allowedClasses: options.allowedClasses))
            return try graph.jsonValue(limits: options.limits)
        case .typedstream:
            return try TypedStream.decodeValue(bytes, limits: options.limits)
        case .parse:
            // A 0-byte (or white-space) class file is an empty class, as the export reader has it.
            var document: PFValue?
            if !bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
                var rowOptions = treeOptions
                rowOptions.typedJSON = false
                document = try Serialization.readTree(bytes, as: .json, options: rowOptions)
            }
            let (rows, shape) = try ParseExport.rows(of: document)
            let objects = try parseObjects(rows, shape: shape, className: options.parseClassName)
            return ParseExport.document(objects, shape: shape == .empty ? .results : shape, style: .typed)
        case .jsonl:
            let reader = JSONReader(options: .init(mode: options.jsonMode, typedValues: options.typedJSON, limits: options.limits))
            return .array(try JSONLines.Reader.read(bytes, reader: reader))
        case .cborseq:
            return .array(try CBORSequence.read(bytes, limits: options.limits))
        }
    }

    /// The records of a value written as a record sequence (JSON Lines, a CBOR sequence): an
    /// array's elements; the rows of a Parse export or REST response (`{"results":[…]}`, an
    /// object without `objectId` or `__type`); any other value is the one record.
    ///
    /// ``RecordStream`` cuts a JSON document into the same records, so a streamed conversion
    /// and a whole-tree one write the same bytes.
    /// - Parameter value: the value tree.
    /// - Returns: the records.
    /// - Throws: ``PFCore/PFError`` (Parse code 107) when `results` is not an array, as
    ///   ``PFParseExport/ParseExport/rows(of:)`` does.
    public static func records(of value: PFValue) throws(PFError) -> [PFValue] {
        switch value {
        case .array(let items): return items
        case .dictionary(let members):
            // `"results"` holding no array (an API's error body) is no wrapper: one record.
            if let results = members["results"], results.arrayValue == nil { return [value] }
            return try ParseExport.rows(of: value).rows
        default: return [value]
        }
    }

    /// Rows as Parse objects, checked; an object without a known class is checked under the
    /// neutral class name `Object` (the name is not written back unless the row had one).
    static func parseObjects(_ rows: [PFValue], shape: ParseExport.Shape, className: String?) throws(PFError) -> [ParseObject] {
        var objects: [ParseObject] = []
        objects.reserveCapacity(rows.count)
        for (i, row) in rows.enumerated() {
            objects.append(try parseObject(row, index: i, shape: shape, className: className))
        }
        return objects
    }

    /// One row as a Parse object, checked, its errors placed at the row (`results[3].score`).
    static func parseObject(_ row: PFValue, index: Int, shape: ParseExport.Shape, className: String?) throws(PFError) -> ParseObject {
        do throws(PFError) {
            let named = className ?? row["className"]?.stringValue ?? "Object"
            return try ParseObject(rest: row, className: named)
        } catch {
            throw error.prefixed(by: ParseExport.rowPath(index, shape: shape))
        }
    }

    // MARK: - Writing

    /// Writes a value as a format, then compresses it if asked.
    /// - Parameters:
    ///   - value: the tree to write.
    ///   - format: the output format.
    ///   - options: pretty printing, compression and format-specific choices.
    /// - Returns: the output bytes.
    /// - Throws: ``PFError`` with code `unrepresentable` (and the value's key path) when the
    ///   format cannot hold a value, such as `null` in a property list.
    public static func write(_ value: consuming PFValue, as format: DataFormat, options: WriteOptions = WriteOptions())
        throws(PFError) -> Data
    {
        let treeOptions = Serialization.WriteOptions(
            pretty: options.pretty, typedJSON: options.typedJSON, dropNulls: options.dropNulls, canonicalCBOR: options.canonicalCBOR)
        let bytes: Data
        switch format {
        case .json: bytes = try Serialization.writeTree(value, as: .json, options: treeOptions)
        case .bplist: bytes = try Serialization.writeTree(value, as: .bplist, options: treeOptions)
        case .xmlplist: bytes = try Serialization.writeTree(value, as: .xmlplist, options: treeOptions)
        case .cbor: bytes = try Serialization.writeTree(value, as: .cbor, options: treeOptions)
        case .keyed:
            // Each stage is released once the next is built (the tree once the graph is, the
            // graph once the table is): the tree is handed over to the graph's builder.
            let graph = try KeyedGraph(json: value)
            bytes = try KeyedArchive.archive(graph, container: options.keyedContainer)
        case .typedstream:
            bytes = try TypedStream.encodeValue(value)
        case .parse:
            let (rows, shape) = try ParseExport.rows(of: value)
            let objects = try parseObjects(rows, shape: shape, className: options.parseClassName)
            let document = ParseExport.document(objects, shape: shape, style: .rest)
            bytes = try Serialization.writeTree(document, as: .json, options: .init(pretty: options.pretty, typedJSON: true))
        case .jsonl:
            bytes = try JSONLines.Writer(options: .init(typedValues: options.typedJSON)).write(records(of: value))
        case .cborseq:
            bytes = try CBORSequence.write(records(of: value), options: .init(canonical: options.canonicalCBOR))
        }
        return try Serialization.compress(bytes, as: options.compression)
    }
}
