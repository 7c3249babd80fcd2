import CPFZlib
import PFCore

/// Owns one zlib `z_stream` and ends it in `deinit`.
///
/// The stream lives at a fixed heap address because zlib keeps a pointer back to it in its
/// internal state and rejects a stream that has moved.
final class ZStream {
    enum Direction {
        case inflate
        case deflate
    }

    let pointer: UnsafeMutablePointer<z_stream>
    let direction: Direction

    /// Starts an inflate stream for `format`.
    /// - Throws: ``PFError/Code/limitExceeded`` when zlib cannot allocate its state.
    init(inflating format: CompressionFormat) throws(PFError) {
        pointer = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        pointer.initialize(to: z_stream())
        direction = .inflate
        let status = CPFZlib_inflateInit2(pointer, format.windowBits)
        guard status == Z_OK else {
            // Nothing to end: a failed init leaves no state behind.
            pointer.deinitialize(count: 1)
            pointer.deallocate()
            throw ZStream.initError(status, format: format)
        }
    }

    /// Starts a deflate stream for `format` at a level already checked to be in -1...9.
    /// - Throws: ``PFError/Code/limitExceeded`` when zlib cannot allocate its state.
    init(deflating format: CompressionFormat, level: Int32) throws(PFError) {
        pointer = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        pointer.initialize(to: z_stream())
        direction = .deflate
        let status = CPFZlib_deflateInit2(pointer, level, Z_DEFLATED, format.windowBits, 8, Z_DEFAULT_STRATEGY)
        guard status == Z_OK else {
            pointer.deinitialize(count: 1)
            pointer.deallocate()
            throw ZStream.initError(status, format: format)
        }
    }

    deinit {
        switch direction {
        case .inflate: inflateEnd(pointer)
        case .deflate: deflateEnd(pointer)
        }
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }

    /// zlib's message for the last error, if it set one.
    var message: String? {
        guard let msg = pointer.pointee.msg else { return nil }
        return String(cString: msg)
    }

    private static func initError(_ status: Int32, format: CompressionFormat) -> PFError {
        if status == Z_MEM_ERROR {
            return PFError(.streamStateAllocation, format)
        }
        return PFError(.streamRefused(status: status), format)
    }
}
