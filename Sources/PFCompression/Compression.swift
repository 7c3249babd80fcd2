import Foundation
import PFCore

/// One-shot zlib, gzip and raw deflate compression through the system zlib, with magic-byte
/// detection and bounded decompression.
///
/// ```swift
/// let packed = try Compression.compress(json, as: .gzip)
/// let (bytes, format) = try Compression.decompressIfCompressed(packed)  // format == .gzip
/// ```
///
/// For input that arrives in pieces use ``Inflater`` and ``Deflater``.
public enum Compression {
    /// Output size reserved up front per compressed input byte; the buffer grows from there.
    /// Never derived from a size the input claims (such as gzip's ISIZE).
    static let initialExpansion = 4

    // MARK: - Compress

    /// Compresses bytes into one stream.
    /// - Parameters:
    ///   - bytes: the bytes to compress.
    ///   - format: the wrapper to write.
    ///   - level: -1 for zlib's default, or 0 (store) through 9 (smallest, slowest). Default 6.
    /// - Returns: the compressed stream. A gzip stream has one member, no file name and a
    ///   modification time of 0.
    /// - Throws: ``PFError/Code/usage`` when `level` is outside -1...9;
    ///   ``PFError/Code/limitExceeded`` when memory cannot be allocated.
    public static func compress(_ bytes: Data, as format: CompressionFormat, level: Int = 6) throws(PFError) -> Data {
        let deflater = try Deflater(format: format, level: level)
        // Start at a quarter of the input (text usually compresses 4:1 or better) and grow by
        // doubling; never past zlib's bound for the whole input, which always suffices.
        let bound = deflater.bound(for: bytes.count) ?? bytes.count
        let buffer = try OutputBuffer(capacity: min(bound, bytes.count / 4 + Deflater.chunkSize), format: format)
        try bytes.withBytes { (raw: UnsafeRawBufferPointer) throws(PFError) in
            try deflater.run(
                raw, finishing: true,
                window: { () throws(PFError) in
                    try buffer.window(max(buffer.unusedCapacity, Deflater.chunkSize), cap: bound)
                },
                commit: { buffer.count += $0 })
        }
        return buffer.takeData()
    }

    // MARK: - Decompress

    /// Decompresses one stream (for gzip: every member, concatenated) within a budget.
    ///
    /// Only the named wrapper is accepted: zlib input given as gzip fails, and the reverse.
    /// - Parameters:
    ///   - bytes: the compressed stream, with nothing after it.
    ///   - format: the wrapper expected.
    ///   - limits: the budget: ``PFLimits/maxInputBytes``, ``PFLimits/maxDecompressedBytes``
    ///     and ``PFLimits/maxCompressionRatio`` (checked once the output passes 1 MiB).
    /// - Returns: the decompressed bytes.
    /// - Throws: ``PFError/Code/truncated`` for empty or cut-short input;
    ///   ``PFError/Code/syntax`` for corrupt data (with zlib's message, such as "incorrect
    ///   data check") or trailing bytes; ``PFError/Code/unsupported`` for a preset
    ///   dictionary; ``PFError/Code/limitExceeded`` when a limit is exceeded. Each carries
    ///   the byte offset into `bytes`.
    public static func decompress(
        _ bytes: Data, from format: CompressionFormat, limits: PFLimits = .default
    ) throws(PFError) -> Data {
        guard bytes.count <= limits.maxInputBytes else {
            throw PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: format.errorName)
        }
        let inflater = try Inflater(format: format, limits: limits)
        // The buffer may overshoot the limit by one window before the check rejects it.
        let cap = max(limits.maxDecompressedBytes, 0).addingReportingOverflow(Inflater.chunkSize)
        let hardCap = cap.overflow ? Int.max : cap.partialValue
        let guess = bytes.count.multipliedReportingOverflow(by: initialExpansion)
        let initial = min(max(guess.overflow ? Int.max : guess.partialValue, Inflater.chunkSize), hardCap)
        let buffer = try OutputBuffer(capacity: initial, format: format)
        try bytes.withBytes { (raw: UnsafeRawBufferPointer) throws(PFError) in
            try inflater.run(
                raw, wholeInput: true,
                window: { () throws(PFError) in try buffer.window(Inflater.chunkSize, cap: hardCap) },
                commit: { buffer.count += $0 })
        }
        try inflater.finish()
        return buffer.takeData()
    }

    /// Decompresses bytes that start with gzip or zlib magic, one layer only; returns other
    /// bytes unchanged.
    ///
    /// A decompressed payload that is itself compressed is returned as it is: inflating it
    /// again is the caller's decision, with a new budget.
    /// - Parameters:
    ///   - bytes: possibly compressed bytes.
    ///   - limits: the budget for the decompression, as in ``decompress(_:from:limits:)``.
    /// - Returns: the decompressed bytes and the format found, or `bytes` and `nil` when
    ///   ``detect(_:)`` finds no compression.
    /// - Throws: what ``decompress(_:from:limits:)`` throws when the magic matched but the
    ///   stream is bad.
    public static func decompressIfCompressed(
        _ bytes: Data, limits: PFLimits = .default
    ) throws(PFError) -> (data: Data, format: CompressionFormat?) {
        guard let format = detect(bytes) else { return (bytes, nil) }
        return (try decompress(bytes, from: format, limits: limits), format)
    }
}
