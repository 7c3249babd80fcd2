import PFCore

/// Bounds what an archive entry inflates to, chunk by chunk, for decompressors that run
/// outside this module (such as ZIPFoundation's): an entry may not grow past the size its
/// header declares, past ``PFCore/PFLimits/maxDecompressedBytes``, nor past
/// ``PFCore/PFLimits/maxCompressionRatio`` times its compressed size once it passes 1 MiB —
/// whatever the header claims, so a zip bomb stops early.
///
/// ```swift
/// var guard_ = InflationGuard(name: "GameScore.json", declaredSize: entry.uncompressedSize,
///                             compressedSize: entry.compressedSize, limits: limits, format: .zip)
/// try archive.extract(entry) { chunk in try guard_.consume(chunk.count); … }
/// ```
public struct InflationGuard: Sendable {
    /// The entry's name, for messages.
    public let name: String
    /// The size the entry's header declares.
    public let declaredSize: UInt64
    /// The entry's compressed size.
    public let compressedSize: UInt64
    /// The budgets.
    public let limits: PFLimits
    /// The format named in errors.
    public let format: PFError.Format
    /// Bytes inflated so far.
    public private(set) var total: UInt64 = 0

    /// Makes a guard for one entry.
    /// - Parameters:
    ///   - name: the entry, for messages.
    ///   - declaredSize: the uncompressed size its header declares.
    ///   - compressedSize: its compressed size.
    ///   - limits: budgets.
    ///   - format: the format named in errors, such as `zip`.
    public init(name: String, declaredSize: UInt64, compressedSize: UInt64, limits: PFLimits, format: PFError.Format) {
        self.name = name
        self.declaredSize = declaredSize
        self.compressedSize = compressedSize
        self.limits = limits
        self.format = format
    }

    /// Checks the entry's header against the limits before inflating anything.
    /// - Throws: ``PFCore/PFError`` `limitExceeded` when the declared size is over `maxDecompressedBytes`.
    public func checkDeclared() throws(PFError) {
        if declaredSize > UInt64(max(0, limits.maxDecompressedBytes)) { throw exceeded("maxDecompressedBytes", limits.maxDecompressedBytes) }
    }

    /// Counts `count` more inflated bytes.
    ///
    /// The ratio is judged against `compressedSoFar`, the compressed bytes the inflater has
    /// consumed up to this chunk, when the caller knows it (``ZipEntryData`` does): then a
    /// bomb stops as soon as it passes the ratio. Without it, only the entry's whole
    /// compressed size is known, and a bomb passes the ratio only near its end.
    /// - Parameters:
    ///   - count: the bytes just inflated.
    ///   - compressedSoFar: the compressed bytes consumed so far, when known.
    /// - Throws: ``PFCore/PFError``: `invalidValue` when the entry grows past its declared size,
    ///   `limitExceeded` naming `maxDecompressedBytes` or `maxCompressionRatio`.
    public mutating func consume(_ count: Int, compressedSoFar: UInt64? = nil) throws(PFError) {
        let (sum, overflow) = total.addingReportingOverflow(UInt64(max(0, count)))
        total = sum
        if overflow || total > declaredSize {
            throw PFError(CompressionFailure.entryTooLarge(entry: name, declaredSize: declaredSize), format: format,
                          offset: Int(clamping: declaredSize))
        }
        if total > UInt64(max(0, limits.maxDecompressedBytes)) { throw exceeded("maxDecompressedBytes", limits.maxDecompressedBytes) }
        let compressed = min(compressedSoFar ?? compressedSize, compressedSize)
        if total > 1 << 20, total / max(compressed, 1) > UInt64(max(1, limits.maxCompressionRatio)) {
            throw exceeded("maxCompressionRatio", limits.maxCompressionRatio)
        }
    }

    func exceeded(_ limit: String, _ value: Int) -> PFError {
        PFError(CompressionFailure.entryLimitExceeded(entry: name, limit: limit, value: value), format: format)
    }
}
