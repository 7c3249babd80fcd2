import ArgumentParser
import Foundation
import PFArchive

extension DataFormat: ExpressibleByArgument {
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

/// Output compression as named on the command line.
enum CompressOption: String, ExpressibleByArgument, CaseIterable {
    case none, zlib, gzip

    var format: CompressionFormat? {
        switch self {
        case .none: nil
        case .zlib: .zlib
        case .gzip: .gzip
        }
    }
}

/// Flags that say how to read an input, shared by every command that reads one.
struct ReadingOptions: ParsableArguments {
    @Option(name: .long, help: "Read the input as this format instead of detecting it.")
    var from: DataFormat?

    @Flag(name: .long, help: "Accept sloppy JSON: comments, trailing commas, single quotes, NaN, a byte-order mark.")
    var lenient = false

    @Flag(name: .long, help: "Keep Parse's typed JSON ({\"__type\":\"Date\",…}) as plain dictionaries.")
    var noTypedJSON = false

    @Flag(name: .long, help: "Secure decoding of keyed archives: refuse any class but Foundation's property-list classes and those named by --allow-class (NSURL, NSUUID…).")
    var secure = false

    @Option(name: .long, help: ArgumentHelp("With --secure, also allow this archived class name (repeatable).", valueName: "name"))
    var allowClass: [String] = []

    @OptionGroup(title: "Decoding limits")
    var limitOptions: LimitOptions

    var limits: PFLimits { limitOptions.limits }

    var readOptions: FormatIO.ReadOptions {
        var options = FormatIO.ReadOptions(
            format: from, jsonMode: lenient ? .lenient : .strict, typedJSON: !noTypedJSON, limits: limits,
            allowedClasses: secure || !allowClass.isEmpty ? Set(allowClass) : nil)
        // Whole-tree reads refuse up front what would not fit: running out is an abort.
        options.memoryBudget = limitOptions.memoryBudget
        return options
    }

    /// ``readOptions`` for reading the file at `path`, whose name may tell what its bytes
    /// cannot: a `.cbor` document whose root is a scalar, and JSON Lines (`.jsonl`, `.ndjson`)
    /// and CBOR sequences (`.cborseq`), which their bytes cannot tell from JSON and CBOR, so
    /// a file named as one is read as one unless `--from` says otherwise.
    func readOptions(for path: String) -> FormatIO.ReadOptions {
        var options = readOptions
        let named = FormatDetector.infer(fromPath: path).format
        options.namedFormat = named
        if options.format == nil, let named, named.isRecordSequence { options.format = named }
        return options
    }
}

/// The decoding budgets (``PFLimits``), shared by every command that reads untrusted input:
/// `convert`, `inspect`, `validate`, `migrate` and `copy`. Each option overrides one limit; the
/// defaults are ``PFLimits/default``'s (Docs/Security.md has the table).
struct LimitOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Deepest nesting accepted (default and most 512).", valueName: "n"))
    var maxDepth: Int?

    @Option(name: .long, help: ArgumentHelp("Largest input accepted, in bytes (default 1 GiB).", valueName: "bytes"))
    var maxBytes: Int?

    @Option(name: .long, help: ArgumentHelp("Most values one read may produce, shared values counted each time they are expanded (default 50,000,000).", valueName: "n"))
    var maxNodes: Int?

    @Option(name: .long, help: ArgumentHelp("Most elements in one array or dictionary (default 10,000,000).", valueName: "n"))
    var maxCollection: Int?

    @Option(name: .long, help: ArgumentHelp("Longest string or data value, in bytes (default 256 MiB).", valueName: "bytes"))
    var maxStringBytes: Int?

    @Option(name: .long, help: ArgumentHelp("Largest decompressed size, in bytes (default 1 GiB).", valueName: "bytes"))
    var maxDecompressedBytes: Int?

    @Option(name: .long, help: ArgumentHelp("Highest decompressed-to-compressed ratio past the first MiB (default 1000).", valueName: "n"))
    var maxRatio: Int?

    @Option(name: .long, help: ArgumentHelp(
        "Most memory the whole value tree may be estimated to take, in bytes (default: half the physical or cgroup memory; streamed record conversions are exempt).",
        valueName: "bytes"))
    var maxMemory: Int?

    /// `--max-memory`, or the default budget: whole-tree reads refuse up front what would not
    /// fit, since running out of memory is an abort, not an error.
    var memoryBudget: MemoryBudget { MemoryBudget(maxBytes: maxMemory ?? MemoryBudget.defaultMaxBytes) }

    func validate() throws {
        let given: [(String, Int?)] = [
            ("--max-depth", maxDepth), ("--max-bytes", maxBytes), ("--max-nodes", maxNodes),
            ("--max-collection", maxCollection), ("--max-string-bytes", maxStringBytes),
            ("--max-decompressed-bytes", maxDecompressedBytes), ("--max-ratio", maxRatio), ("--max-memory", maxMemory),
        ]
        for case let (name, value?) in given where value < 1 {
            throw ValidationError("\(name) must be at least 1.")
        }
        // Deeper values would be built, compared and freed recursively, and json-c frees its
        // trees recursively too: past this the process could crash on its stack, so a higher
        // value is refused rather than silently capped.
        if let maxDepth, maxDepth > JSONReader.maximumSupportedDepth {
            throw ValidationError(
                "--max-depth must be at most \(JSONReader.maximumSupportedDepth): values are built and freed recursively "
                    + "(json-c's trees too), so deeper nesting could exhaust the stack; pfarchive supports no deeper input.")
        }
    }

    /// The defaults with every given option applied.
    var limits: PFLimits {
        var limits = PFLimits.default
        if let maxDepth { limits.maxDepth = maxDepth }
        if let maxBytes { limits.maxInputBytes = maxBytes }
        if let maxNodes { limits.maxNodes = maxNodes }
        if let maxCollection { limits.maxCollectionCount = maxCollection }
        if let maxStringBytes { limits.maxStringBytes = maxStringBytes }
        if let maxDecompressedBytes { limits.maxDecompressedBytes = maxDecompressedBytes }
        if let maxRatio { limits.maxCompressionRatio = maxRatio }
        return limits
    }
}

/// `--decode-blobs`, shared by `convert`, `inspect` and `import` (``EmbeddedPayload``).
struct BlobDecodingOption: ParsableArguments {
    @Flag(
        name: .long,
        help: """
            Decode payloads inside binary values: data (or a Binary column of a Core Data store) \
            holding a property list, keyed archive, typedstream, JSON or CBOR, perhaps gzip- or \
            zlib-compressed, becomes its decoded value, recursively. Without it the bytes are kept \
            (Core Data transformables are always decoded).
            """)
    var decodeBlobs = false

    /// Prints the payloads kept as bytes, one warning line each, on standard error.
    static func warn(_ notes: [EmbeddedPayload.Note], file: String) {
        var lines = notes.prefix(20).map { "\($0)" }
        if notes.count > 20 { lines.append("\(notes.count - 20) more payloads kept as bytes") }
        UnreadWarnings.show(lines, file: file)
    }
}
