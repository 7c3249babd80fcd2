/// Resource budgets that every reader enforces on untrusted input.
///
/// A reader fails with ``PFError/Code/limitExceeded`` naming the limit as soon as the input
/// would exceed one; nothing is allocated in proportion to a count the input merely claims.
/// The defaults suit files of up to a few hundred megabytes.
public struct PFLimits: Sendable, Equatable {
    /// Largest input accepted, in bytes. Default 1 GiB.
    public var maxInputBytes: Int
    /// Deepest nesting of arrays and dictionaries. Default 512.
    public var maxDepth: Int
    /// Most values a single read may produce (counting every node of the tree, so a shared
    /// sub-graph expanded many times counts each time). Default 50,000,000.
    public var maxNodes: Int
    /// Most elements in one array or dictionary. Default 10,000,000.
    public var maxCollectionCount: Int
    /// Longest string or data value, in bytes. Default 256 MiB.
    public var maxStringBytes: Int
    /// Largest output of a decompression, in bytes. Default 1 GiB.
    public var maxDecompressedBytes: Int
    /// Highest ratio of decompressed to compressed bytes, checked once the output passes
    /// 1 MiB. Default 1,000: real data rarely passes 100:1, while a stream of zeros deflates at about 1,030:1, so a classic decompression bomb fails here.
    public var maxCompressionRatio: Int

    /// Makes a set of limits; every parameter defaults to the value documented on its property.
    public init(
        maxInputBytes: Int = 1 << 30,
        maxDepth: Int = 512,
        maxNodes: Int = 50_000_000,
        maxCollectionCount: Int = 10_000_000,
        maxStringBytes: Int = 256 << 20,
        maxDecompressedBytes: Int = 1 << 30,
        maxCompressionRatio: Int = 1_000
    ) {
        self.maxInputBytes = maxInputBytes
        self.maxDepth = maxDepth
        self.maxNodes = maxNodes
        self.maxCollectionCount = maxCollectionCount
        self.maxStringBytes = maxStringBytes
        self.maxDecompressedBytes = maxDecompressedBytes
        self.maxCompressionRatio = maxCompressionRatio
    }

    /// The documented defaults.
    public static let `default` = PFLimits()

    /// The deepest nesting any reader supports (`JSONReader.maximumSupportedDepth` is this):
    /// values are built and freed recursively, so `maxDepth` is never raised past it.
    public static let deepestSupported = 512

    /// The error a reader throws when a limit is exceeded.
    /// - Parameters:
    ///   - name: the limit's name, such as `maxDepth`.
    ///   - value: the configured value.
    ///   - format: the reader.
    ///   - offset: where in the input, when known.
    public static func exceeded(_ name: String, _ value: Int, format: PFError.Format, offset: Int? = nil) -> PFError {
        PFError(
            PFCoreFailure.limitExceeded(limit: name, value: value), format: format,
            location: offset.map { PFError.Location(offset: $0) })
    }
}
