import CPFZlib
import Foundation
import PFCore

/// Compresses bytes fed in chunks into a zlib, gzip or raw deflate stream.
///
/// ```swift
/// let deflater = try Deflater(format: .gzip, level: 6)
/// for chunk in chunks {
///     try deflater.process(chunk) { bytes in file.write(bytes) }
/// }
/// try deflater.finish { bytes in file.write(bytes) }
/// ```
///
/// The gzip header zlib writes has no file name and a modification time of 0, so equal
/// input gives equal output.
public final class Deflater {
    /// The wrapper this deflater writes.
    public let format: CompressionFormat
    /// The compression level, -1 (zlib's default, 6) or 0 (store) through 9 (smallest).
    public let level: Int
    /// Uncompressed bytes consumed so far.
    public private(set) var bytesIn = 0
    /// Compressed bytes delivered so far.
    public private(set) var bytesOut = 0

    /// The largest output chunk handed to `output`: 64 KiB.
    public static let chunkSize = 64 * 1024

    private let stream: ZStream
    private var finished = false
    private var scratch: UnsafeMutableRawBufferPointer?

    /// Makes a deflater.
    /// - Parameters:
    ///   - format: the wrapper to write.
    ///   - level: -1 for zlib's default, or 0 (store) through 9 (smallest, slowest). Default 6.
    /// - Throws: ``PFError/Code/usage`` when `level` is outside -1...9;
    ///   ``PFError/Code/limitExceeded`` when zlib cannot allocate its state.
    public init(format: CompressionFormat, level: Int = 6) throws(PFError) {
        guard (-1...9).contains(level) else { throw PFError(.badLevel(level), format) }
        self.format = format
        self.level = level
        self.stream = try ZStream(deflating: format, level: Int32(level))
    }

    deinit { scratch?.deallocate() }

    // MARK: - Streaming

    /// Compresses the next chunk of input. zlib may hold some output back until later calls.
    /// - Parameters:
    ///   - chunk: uncompressed bytes, of any size.
    ///   - output: called with each piece of compressed output (at most ``chunkSize`` bytes,
    ///     valid only during the call); an error it throws is rethrown.
    /// - Throws: what `output` throws; ``PFError/Code/invalidValue`` if zlib fails unexpectedly.
    public func process(
        _ chunk: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws(PFError) -> Void
    ) throws(PFError) {
        try runWithScratch(chunk, finishing: false, output: output)
    }

    /// Compresses the next chunk of input.
    /// - Parameters:
    ///   - chunk: uncompressed bytes.
    ///   - output: called with each piece of compressed output (valid only during the call).
    /// - Throws: as the `UnsafeRawBufferPointer` overload.
    public func process(_ chunk: Data, output: (UnsafeRawBufferPointer) throws(PFError) -> Void) throws(PFError) {
        try chunk.withBytes { (raw: UnsafeRawBufferPointer) throws(PFError) in
            try runWithScratch(raw, finishing: false, output: output)
        }
    }

    /// Ends the stream, delivering the output zlib held back and the trailer (checksum).
    /// - Parameter output: called with each remaining piece of compressed output.
    /// - Throws: what `output` throws; ``PFError/Code/invalidValue`` if zlib fails unexpectedly.
    public func finish(output: (UnsafeRawBufferPointer) throws(PFError) -> Void) throws(PFError) {
        try runWithScratch(UnsafeRawBufferPointer(start: nil, count: 0), finishing: true, output: output)
    }

    private func runWithScratch(
        _ input: UnsafeRawBufferPointer, finishing: Bool, output: (UnsafeRawBufferPointer) throws(PFError) -> Void
    ) throws(PFError) {
        let scratch = scratchBuffer()
        try run(input, finishing: finishing, window: { scratch }) { (produced: Int) throws(PFError) in
            try output(UnsafeRawBufferPointer(rebasing: scratch[0..<produced]))
        }
    }

    // MARK: - Core loop

    /// Deflates `input` (ending the stream when `finishing`), writing into the buffers
    /// `window` returns and calling `commit` with the count written to each.
    func run(
        _ input: UnsafeRawBufferPointer, finishing: Bool,
        window: () throws(PFError) -> UnsafeMutableRawBufferPointer,
        commit: (Int) throws(PFError) -> Void
    ) throws(PFError) {
        precondition(!finished, "A Deflater was used after finish().")
        let s = stream.pointer
        var next = input.baseAddress
        var remaining = input.count
        while true {
            // avail_in and avail_out are 32-bit: feed at most UInt32.max bytes per call, and
            // ask for Z_FINISH only with the last part.
            let feed = min(remaining, Int(UInt32.max))
            let flush = finishing && feed == remaining ? Z_FINISH : Z_NO_FLUSH
            let out = try window()
            let room = min(out.count, Int(UInt32.max))
            precondition(room > 0, "A deflate window must not be empty.")
            s.pointee.next_in = next.map { UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self)) }
            s.pointee.avail_in = UInt32(feed)
            s.pointee.next_out = out.baseAddress?.assumingMemoryBound(to: Bytef.self)
            s.pointee.avail_out = UInt32(room)
            let status = CPFZlib.deflate(s, flush)
            let consumed = feed - Int(s.pointee.avail_in)
            let produced = room - Int(s.pointee.avail_out)
            bytesIn += consumed
            remaining -= consumed
            next = next.map { $0 + consumed }
            if produced > 0 {
                bytesOut += produced
                try commit(produced)
            }
            switch status {
            case Z_STREAM_END:
                finished = true
                return
            case Z_OK, Z_BUF_ERROR:
                // Without Z_FINISH, zlib is done for now once it has taken all input and
                // not filled the window.
                if !finishing && remaining == 0 && produced < room { return }
                if consumed == 0 && produced == 0 {
                    if !finishing && remaining == 0 { return }
                    throw PFError(.unexpectedStatus(status, zlibMessage: stream.message), format, offset: bytesIn)
                }
            default:
                throw PFError(.unexpectedStatus(status, zlibMessage: stream.message), format, offset: bytesIn)
            }
        }
    }

    /// zlib's bound on the compressed size of `count` bytes in one stream, or nil when it
    /// does not fit an `Int`.
    func bound(for count: Int) -> Int? {
        Int(exactly: deflateBound(stream.pointer, UInt(count)))
    }

    private func scratchBuffer() -> UnsafeMutableRawBufferPointer {
        if let scratch { return scratch }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Deflater.chunkSize, alignment: 16)
        scratch = buffer
        return buffer
    }
}
