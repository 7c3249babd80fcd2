import CPFZlib
import Foundation
import PFCore

/// Decompresses a zlib, gzip or raw deflate stream fed in chunks, within a ``PFLimits`` budget.
///
/// Output is delivered in chunks of at most ``chunkSize`` bytes, so memory stays bounded
/// whatever the input claims. Before a chunk is delivered the running total is checked
/// against ``PFLimits/maxDecompressedBytes`` and, once past 1 MiB, against
/// ``PFLimits/maxCompressionRatio`` × compressed bytes consumed. A gzip input may hold
/// several members (as `cat a.gz b.gz` makes); their outputs are concatenated under the same
/// budget. Any other bytes after the end of the stream are an error.
///
/// ```swift
/// let inflater = try Inflater(format: .gzip)
/// for chunk in chunks {
///     try inflater.process(chunk) { bytes in file.write(bytes) }
/// }
/// try inflater.finish()
/// ```
///
/// After an error every further call throws the same error again.
public final class Inflater {
    /// The wrapper this inflater accepts.
    public let format: CompressionFormat
    /// The budget it enforces.
    public let limits: PFLimits
    /// Compressed bytes consumed so far.
    public private(set) var bytesIn = 0
    /// Decompressed bytes delivered so far.
    public private(set) var bytesOut = 0

    /// The largest output chunk handed to `output`, and the granularity of limit checks: 64 KiB.
    public static let chunkSize = 64 * 1024
    /// Output size after which the compression ratio is checked: 1 MiB.
    static let ratioCheckThreshold = 1 << 20

    private enum State {
        /// Inside a stream (or gzip member), or before the first byte.
        case inMember
        /// gzip only: a member ended; `magicSeen` bytes of the next member's 1F 8B 08 were seen.
        case betweenMembers(magicSeen: Int)
        /// zlib or raw deflate: the stream ended; only the end of input may follow.
        case ended
    }

    private static let gzipMagic: [UInt8] = [0x1F, 0x8B, 0x08]

    private let stream: ZStream
    private var state = State.inMember
    private var failure: PFError?
    private var finished = false
    private var scratch: UnsafeMutableRawBufferPointer?

    /// Makes an inflater.
    /// - Parameters:
    ///   - format: the only wrapper to accept (zlib never accepts gzip, nor the reverse).
    ///   - limits: the budget; only ``PFLimits/maxDecompressedBytes`` and
    ///     ``PFLimits/maxCompressionRatio`` apply.
    /// - Throws: ``PFError/Code/limitExceeded`` when zlib cannot allocate its state.
    public init(format: CompressionFormat, limits: PFLimits = .default) throws(PFError) {
        self.format = format
        self.limits = limits
        self.stream = try ZStream(inflating: format)
    }

    deinit { scratch?.deallocate() }

    // MARK: - Streaming

    /// Decompresses the next chunk of compressed input.
    /// - Parameters:
    ///   - chunk: compressed bytes, of any size (inputs past 4 GiB are fed to zlib in parts).
    ///   - output: called with each piece of decompressed output (at most ``chunkSize``
    ///     bytes, valid only during the call); an error it throws stops inflation and is
    ///     rethrown.
    /// - Throws: ``PFError/Code/syntax`` for corrupt data or bytes after the stream,
    ///   ``PFError/Code/unsupported`` for a preset dictionary,
    ///   ``PFError/Code/limitExceeded`` when a limit is exceeded, or what `output` throws.
    public func process(
        _ chunk: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws(PFError) -> Void
    ) throws(PFError) {
        let scratch = scratchBuffer()
        try run(chunk, wholeInput: false, window: { scratch }) { (produced: Int) throws(PFError) in
            try output(UnsafeRawBufferPointer(rebasing: scratch[0..<produced]))
        }
    }

    /// Decompresses the next chunk of compressed input.
    /// - Parameters:
    ///   - chunk: compressed bytes.
    ///   - output: called with each piece of decompressed output (at most ``chunkSize``
    ///     bytes, valid only during the call).
    /// - Throws: as the `UnsafeRawBufferPointer` overload.
    public func process(_ chunk: Data, output: (UnsafeRawBufferPointer) throws(PFError) -> Void) throws(PFError) {
        try chunk.withBytes { (raw: UnsafeRawBufferPointer) throws(PFError) in try process(raw, output: output) }
    }

    /// Declares the end of the input and checks that the stream ended there.
    ///
    /// For gzip, the input must end after a complete member.
    /// - Throws: ``PFError/Code/truncated`` when the input was empty or ended inside the
    ///   stream, or the error an earlier call threw.
    public func finish() throws(PFError) {
        if let failure { throw failure }
        finished = true
        switch state {
        case .ended, .betweenMembers(magicSeen: 0):
            return
        case .betweenMembers(let seen):
            throw PFError(.truncatedMemberHeader, .gzip, offset: bytesIn - seen)
        case .inMember:
            throw bytesIn == 0
                ? PFError(.emptyInput(format), format, offset: 0)
                : PFError(.truncated(format, consumed: bytesIn), format, offset: bytesIn)
        }
    }

    // MARK: - Core loop

    /// Inflates `input` (all the rest of the input when `wholeInput`), writing into the buffers `window` returns (at most ``chunkSize``
    /// bytes each) and calling `commit` with the count written to each, after the limits
    /// have allowed it.
    func run(
        _ input: UnsafeRawBufferPointer, wholeInput: Bool,
        window: () throws(PFError) -> UnsafeMutableRawBufferPointer,
        commit: (Int) throws(PFError) -> Void
    ) throws(PFError) {
        precondition(!finished, "Inflater.process was called after finish().")
        if let failure { throw failure }
        do {
            try inflate(input, wholeInput: wholeInput, window: window, commit: commit)
        } catch {
            failure = error
            throw error
        }
    }

    private func inflate(
        _ input: UnsafeRawBufferPointer, wholeInput: Bool,
        window: () throws(PFError) -> UnsafeMutableRawBufferPointer,
        commit: (Int) throws(PFError) -> Void
    ) throws(PFError) {
        let s = stream.pointer
        var next = input.baseAddress
        var remaining = input.count
        while true {
            switch state {
            case .ended:
                guard remaining == 0 else {
                    throw PFError(.trailing(format, count: remaining, exact: wholeInput), format, offset: bytesIn)
                }
                return
            case .betweenMembers(let seen):
                guard remaining > 0, let p = next else { return }
                // Only a further gzip member may follow one; anything else is trailing garbage.
                let n = min(Inflater.gzipMagic.count - seen, remaining)
                for i in 0..<n where p.load(fromByteOffset: i, as: UInt8.self) != Inflater.gzipMagic[seen + i] {
                    throw PFError(
                        .trailing(format, count: remaining + seen, exact: wholeInput), format, offset: bytesIn - seen)
                }
                state = seen + n == Inflater.gzipMagic.count ? .inMember : .betweenMembers(magicSeen: seen + n)
            case .inMember:
                break
            }

            // avail_in and avail_out are 32-bit: feed at most UInt32.max bytes per call.
            let feed = min(remaining, Int(UInt32.max))
            let out = try window()
            precondition(out.count > 0 && out.count <= Inflater.chunkSize, "An inflate window must hold 1 to 64 KiB.")
            s.pointee.next_in = next.map { UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self)) }
            s.pointee.avail_in = UInt32(feed)
            s.pointee.next_out = out.baseAddress?.assumingMemoryBound(to: Bytef.self)
            s.pointee.avail_out = UInt32(out.count)
            let status = CPFZlib.inflate(s, Z_NO_FLUSH)
            let consumed = feed - Int(s.pointee.avail_in)
            let produced = out.count - Int(s.pointee.avail_out)
            bytesIn += consumed
            remaining -= consumed
            next = next.map { $0 + consumed }
            if produced > 0 {
                try account(produced)
                try commit(produced)
            }

            switch status {
            case Z_OK:
                // All input taken and the window not filled: zlib has nothing more to give.
                if remaining == 0 && produced < out.count { return }
            case Z_STREAM_END:
                if format == .gzip {
                    inflateReset(s)
                    state = .betweenMembers(magicSeen: 0)
                } else {
                    state = .ended
                }
            case Z_BUF_ERROR:
                // No progress possible: either more input is needed (the caller decides at
                // finish() whether that is truncation) or something is wrong with the loop.
                if remaining == 0 { return }
                if consumed == 0 && produced == 0 {
                    throw PFError(.unexpectedStatus(status, zlibMessage: stream.message), format, offset: bytesIn)
                }
            case Z_NEED_DICT:
                throw PFError(.presetDictionary, format, offset: bytesIn)
            case Z_DATA_ERROR:
                throw PFError(.corrupt(format, zlibMessage: stream.message), format, offset: bytesIn)
            case Z_MEM_ERROR:
                throw PFError(.outOfMemory, format, offset: bytesIn)
            default:
                throw PFError(.unexpectedStatus(status, zlibMessage: stream.message), format, offset: bytesIn)
            }
        }
    }

    /// Adds `produced` output bytes to the total, or throws when that breaks a limit.
    private func account(_ produced: Int) throws(PFError) {
        // Both terms are at most maxDecompressedBytes + chunkSize, so the sum cannot overflow.
        let total = bytesOut + produced
        if total > limits.maxDecompressedBytes {
            throw PFError(
                .limitExceeded(limit: "maxDecompressedBytes", value: limits.maxDecompressedBytes, produced: total,
                               consumed: bytesIn), format, offset: bytesIn)
        }
        if total > Inflater.ratioCheckThreshold {
            let allowed = bytesIn.multipliedReportingOverflow(by: limits.maxCompressionRatio)
            if !allowed.overflow && total > allowed.partialValue {
                throw PFError(
                    .limitExceeded(limit: "maxCompressionRatio", value: limits.maxCompressionRatio, produced: total,
                                   consumed: bytesIn), format, offset: bytesIn)
            }
        }
        bytesOut = total
    }

    private func scratchBuffer() -> UnsafeMutableRawBufferPointer {
        if let scratch { return scratch }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Inflater.chunkSize, alignment: 16)
        scratch = buffer
        return buffer
    }
}
