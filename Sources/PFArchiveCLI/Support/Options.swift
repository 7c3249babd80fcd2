import ArgumentParser
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

    @Option(name: .long, help: "Deepest nesting accepted (default 512).")
    var maxDepth: Int?

    @Option(name: .long, help: "Largest input accepted, in bytes (default 1 GiB).")
    var maxBytes: Int?

    func validate() throws {
        if let maxDepth, maxDepth < 1 { throw ValidationError("--max-depth must be at least 1.") }
        if let maxBytes, maxBytes < 1 { throw ValidationError("--max-bytes must be at least 1.") }
    }

    var limits: PFLimits {
        var limits = PFLimits.default
        if let maxDepth { limits.maxDepth = maxDepth }
        if let maxBytes { limits.maxInputBytes = maxBytes }
        return limits
    }

    var readOptions: FormatIO.ReadOptions {
        FormatIO.ReadOptions(format: from, jsonMode: lenient ? .lenient : .strict, typedJSON: !noTypedJSON, limits: limits)
    }
}
