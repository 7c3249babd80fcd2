import Foundation
import PFCBOR
import PFCompression
import PFCore
import PFJSON
import PFPropertyList

/// The one layer that opens bytes, below the coders: it undoes compression (with zlib's
/// look-alikes read as what they are), hands the plain bytes to the caller's reader, and
/// reads or writes a value tree in any of the four tree serializers — always under the
/// caller's ``PFCore/PFLimits``.
///
/// ```swift
/// let opened = try Serialization.open(bytes, limits: limits) { plain, _ throws(PFError) in
///     try Serialization.readTree(plain, as: FormatDetector.container(plain), options: .init(limits: limits))
/// }
/// print(opened.compression as Any, opened.value)
/// let packed = try Serialization.compress(Serialization.writeTree(opened.value, as: .cbor), as: .gzip)
/// ```
///
/// Sniffing is ``FormatDetector``'s. Everything that reads bytes whose format it has to find —
/// `FormatIO`, keyed archives, versioned documents, the stores, the CLI — comes through
/// ``open(_:limits:decompress:inflated:read:)``, so compression, look-alikes and limits are handled
/// the same way everywhere.
public enum Serialization {
    /// How a value tree is read.
    public struct ReadOptions: Sendable {
        /// JSON strictness.
        public var jsonMode: JSONReader.Mode
        /// Whether Parse's typed JSON (`{"__type":"Date",…}`) and `{"CF$UID": N}` map to
        /// dates, data and UIDs.
        public var typedJSON: Bool
        /// Budgets for untrusted input.
        public var limits: PFLimits

        /// Makes read options; every parameter defaults to the property's documented default.
        /// - Parameters:
        ///   - jsonMode: strict (the default) or lenient JSON.
        ///   - typedJSON: whether typed JSON objects become typed values (default `true`).
        ///   - limits: the budgets (default ``PFCore/PFLimits/default``).
        public init(jsonMode: JSONReader.Mode = .strict, typedJSON: Bool = true, limits: PFLimits = .default) {
            self.jsonMode = jsonMode
            self.typedJSON = typedJSON
            self.limits = limits
        }
    }

    /// How a value tree is written.
    public struct WriteOptions: Sendable {
        /// Indented output where the format has one (JSON, XML plist).
        public var pretty: Bool
        /// Whether dates, data and UIDs are written as Parse's typed JSON and `CF$UID` objects.
        public var typedJSON: Bool
        /// Whether `null` values are dropped from property lists (which cannot hold them)
        /// instead of failing.
        public var dropNulls: Bool
        /// Deterministic CBOR (RFC 8949 §4.2.1).
        public var canonicalCBOR: Bool

        /// Makes write options; every parameter defaults to the property's documented default.
        /// - Parameters:
        ///   - pretty: indent (default `false`).
        ///   - typedJSON: typed JSON objects for dates, data and UIDs (default `true`).
        ///   - dropNulls: drop `null` from property lists (default `false`: fail).
        ///   - canonicalCBOR: deterministic CBOR (default `false`).
        public init(pretty: Bool = false, typedJSON: Bool = true, dropNulls: Bool = false, canonicalCBOR: Bool = false) {
            self.pretty = pretty
            self.typedJSON = typedJSON
            self.dropNulls = dropNulls
            self.canonicalCBOR = canonicalCBOR
        }
    }

    /// What ``open(_:limits:decompress:inflated:read:)`` produced.
    public struct Opened<Value> {
        /// What the caller's reader made of the plain bytes.
        public var value: Value
        /// The compression that wrapped the bytes, if any.
        public var compression: CompressionFormat?
        /// The bytes the reader was given: the input after decompression (the input itself
        /// when it was not compressed).
        public var plain: Data
    }

    // MARK: - Opening

    /// Opens bytes: refuses input over `limits.maxInputBytes`, undoes one layer of gzip or
    /// zlib found by its magic (inside `limits`' decompression budget), and reads the plain
    /// bytes with `read`.
    ///
    /// zlib's magic is a 2-byte check that some plain inputs pass (a JSON number such as
    /// `80`; a top-level CBOR text string of 63 or 94 bytes starts `78 3F` or `78 5E`). Bytes
    /// that look like zlib but do not inflate are read as what they are; when `read` fails
    /// on them too, the inflate error stands, since the bytes did claim to be zlib. A budget
    /// error (`limitExceeded`) is never second-guessed, and gzip's 3-byte magic is never
    /// taken for a look-alike. A payload inside the plain bytes is never inflated again.
    /// - Parameters:
    ///   - bytes: the input.
    ///   - limits: the caller's budgets.
    ///   - decompress: whether to undo compression (`false` when the caller already did, so
    ///     a compressed payload is never inflated twice).
    ///   - inflated: `bytes` already inflated by the caller with ``PFCompression/Compression/decompress(_:from:limits:)``
    ///     under the same `limits` (a route that looked at the plain bytes and declined them),
    ///     taken instead of inflating `bytes` again; `nil` (the default) inflates here.
    ///   - read: the caller's reader, given the plain bytes and the compression found.
    /// - Returns: the reader's value, the compression and the plain bytes.
    /// - Throws: ``PFCore/PFError`` — `limitExceeded` for input over `maxInputBytes` or a
    ///   decompression past its budget, the decompressor's errors, or what `read` throws.
    public static func open<Value>(
        _ bytes: Data, limits: PFLimits, decompress: Bool = true, inflated: Data? = nil,
        read: (_ plain: Data, _ compression: CompressionFormat?) throws(PFError) -> Value
    ) throws(PFError) -> Opened<Value> {
        guard bytes.count <= limits.maxInputBytes else {
            throw PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: .input)
        }
        guard decompress, let compression = Compression.detect(bytes) else {
            return Opened(value: try read(bytes, nil), compression: nil, plain: bytes)
        }
        if let inflated { return Opened(value: try read(inflated, compression), compression: compression, plain: inflated) }
        let plain: Data
        do {
            plain = try Compression.decompress(bytes, from: compression, limits: limits)
        } catch {
            guard error.code != .limitExceeded, compression == .zlib, let value = try? read(bytes, nil) else { throw error }
            return Opened(value: value, compression: nil, plain: bytes)
        }
        return Opened(value: try read(plain, compression), compression: compression, plain: plain)
    }

    /// Compresses bytes, or returns them as they are.
    /// - Parameters:
    ///   - bytes: the output of a writer.
    ///   - compression: the wrapper, or `nil` for none.
    /// - Returns: the (compressed) bytes.
    /// - Throws: ``PFCore/PFError`` from the compressor.
    public static func compress(_ bytes: Data, as compression: CompressionFormat?) throws(PFError) -> Data {
        guard let compression else { return bytes }
        return try Compression.compress(bytes, as: compression)
    }

    // MARK: - Value trees

    /// Reads (plain) bytes of a tree format into a value.
    /// - Parameters:
    ///   - bytes: the document, after decompression.
    ///   - format: the serializer.
    ///   - options: JSON mode, typed JSON and limits.
    /// - Returns: the value tree.
    /// - Throws: ``PFCore/PFError`` from the format's reader.
    public static func readTree(_ bytes: Data, as format: TreeFormat, options: ReadOptions = ReadOptions()) throws(PFError)
        -> PFValue
    {
        switch format {
        case .json:
            try JSONReader(options: .init(mode: options.jsonMode, typedValues: options.typedJSON, limits: options.limits)).read(bytes)
        case .bplist:
            try BinaryPlistReader(options: .init(limits: options.limits)).read(bytes)
        case .xmlplist:
            try XMLPlistReader(options: .init(limits: options.limits)).read(bytes)
        case .cbor:
            try CBORReader(options: .init(limits: options.limits)).read(bytes)
        }
    }

    /// Writes a value tree in a tree format (uncompressed; see ``compress(_:as:)``).
    /// - Parameters:
    ///   - value: the tree.
    ///   - format: the serializer.
    ///   - options: pretty printing, typed JSON, nulls in property lists, canonical CBOR.
    /// - Returns: the bytes.
    /// - Throws: ``PFCore/PFError`` `unrepresentable` (with the value's key path) when the
    ///   format cannot hold a value, such as `null` in a property list.
    public static func writeTree(_ value: consuming PFValue, as format: TreeFormat, options: WriteOptions = WriteOptions()) throws(PFError)
        -> Data
    {
        switch format {
        case .json:
            try JSONWriter(options: .init(pretty: options.pretty, typedValues: options.typedJSON)).write(value)
        case .bplist:
            // Handed over: the writer frees the tree once it has flattened it.
            try BinaryPlistWriter(options: .init(nullPolicy: options.dropNulls ? .drop : .error)).write(consume value)
        case .xmlplist:
            try XMLPlistWriter(options: .init(nullPolicy: options.dropNulls ? .drop : .error)).write(value)
        case .cbor:
            try CBORWriter(options: .init(canonical: options.canonicalCBOR)).write(value)
        }
    }

    // MARK: - Files

    /// Reads a whole file within `limits.maxInputBytes`: a regular file's size is checked
    /// before anything is read; anything else that can be read (a FIFO, a device) is read a
    /// chunk at a time and refused as soon as it passes the limit.
    /// - Parameters:
    ///   - url: the file.
    ///   - limits: the caller's budgets.
    ///   - format: the format named in errors (such as `store archive`).
    /// - Returns: the bytes.
    /// - Throws: ``PFCore/PFError`` — `limitExceeded` past `maxInputBytes`; `io` when the file
    ///   is missing, a directory, or cannot be read.
    public static func readFile(_ url: URL, limits: PFLimits, format: PFError.Format) throws(PFError) -> Data {
        let path = url.path
        func failure(_ reason: String) -> PFError {
            PFError(SerializationFailure.cannotRead(path: path, reason: reason), format: format)
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw failure(String(cString: strerror(errno))) }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            throw failure("a directory, expected a file")
        case S_IFREG:
            guard Int(info.st_size) <= limits.maxInputBytes else {
                throw PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: format)
            }
            do { return try Data(contentsOf: url) } catch { throw failure(error.localizedDescription) }
        default:
            guard let handle = FileHandle(forReadingAtPath: path) else { throw failure(String(cString: strerror(errno))) }
            defer { try? handle.close() }
            var data = Data()
            var over = false
            do {
                while let chunk = try handle.read(upToCount: 1 << 16), !chunk.isEmpty {
                    guard chunk.count <= limits.maxInputBytes - data.count else {
                        over = true
                        break
                    }
                    data.append(chunk)
                }
            } catch {
                throw failure(error.localizedDescription)
            }
            if over { throw PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: format) }
            return data
        }
    }
}
