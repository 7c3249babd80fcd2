import CPFZlib
import PFCore

// MARK: - Error factories
//
// Every failure in this module is built here so that messages say the same things the same
// way: what went wrong, at which byte of the compressed input, and what was expected.

enum CompressionErrors {
    /// The input ended before the stream's end marker and checksum.
    static func truncated(_ format: CompressionFormat, consumed: Int) -> PFError {
        if consumed == 0 {
            return PFError(
                .truncated, format: format.errorName, "empty input; expected a \(format.errorName) stream", offset: 0)
        }
        return PFError(
            .truncated, format: format.errorName,
            "compressed data ends after \(consumed) bytes, before the end of the stream; expected more \(format.errorName) data",
            offset: consumed)
    }

    /// A gzip member's first bytes arrived but the input ended inside its header.
    static func truncatedMemberHeader(offset: Int) -> PFError {
        PFError(
            .truncated, format: CompressionFormat.gzip.errorName,
            "input ends inside the header of a further gzip member; expected a complete member", offset: offset)
    }

    /// Bytes follow the end of the stream (for gzip: bytes that do not start another member).
    /// `count` is exact when `wholeInput` is true; a streaming chunk only shows a lower bound.
    static func trailing(_ format: CompressionFormat, count: Int, wholeInput: Bool, offset: Int) -> PFError {
        let expected =
            format == .gzip ? "expected the input to end or another gzip member (1F 8B 08) to start"
            : "expected the input to end there"
        return PFError(
            .syntax, format: format.errorName,
            "\(wholeInput ? "" : "at least ")\(count) trailing \(count == 1 ? "byte" : "bytes") after the compressed stream; \(expected)",
            offset: offset)
    }

    /// zlib found corrupt data (`Z_DATA_ERROR`); `message` is zlib's own text.
    static func corrupt(_ format: CompressionFormat, message: String?, offset: Int) -> PFError {
        PFError(
            .syntax, format: format.errorName,
            "\(message ?? "corrupt data"); expected a valid \(format.errorName) stream", offset: offset)
    }

    /// The zlib header asks for a preset dictionary (`Z_NEED_DICT`).
    static func presetDictionary(_ format: CompressionFormat, offset: Int) -> PFError {
        PFError(
            .unsupported, format: format.errorName,
            "preset dictionary not supported; expected a zlib stream without the FDICT flag", offset: offset)
    }

    /// zlib ran out of memory (`Z_MEM_ERROR`).
    static func outOfMemory(_ format: CompressionFormat, offset: Int?) -> PFError {
        PFError(
            .limitExceeded, format: format.errorName, "zlib could not allocate memory",
            location: offset.map { PFError.Location(offset: $0) })
    }

    /// Our own output buffer could not grow.
    static func bufferAllocation(_ format: CompressionFormat, bytes: Int) -> PFError {
        PFError(.limitExceeded, format: format.errorName, "could not allocate \(bytes) bytes for the output")
    }

    /// zlib reported a status this module does not expect (a bug, not bad input).
    static func unexpected(_ format: CompressionFormat, status: Int32, message: String?, offset: Int) -> PFError {
        PFError(
            .invalidValue, format: format.errorName,
            "zlib returned unexpected status \(status)\(message.map { " (\($0))" } ?? ""); please report this",
            offset: offset)
    }

    /// A compression level outside -1...9.
    static func badLevel(_ format: CompressionFormat, level: Int) -> PFError {
        PFError(
            .usage, format: format.errorName,
            "compression level \(level) is out of range; expected 0 (store) through 9 (smallest), or -1 for zlib's default")
    }

    /// A ``PFLimits`` budget ran out while inflating.
    static func limit(
        _ format: CompressionFormat, name: String, value: Int, produced: Int, consumed: Int
    ) -> PFError {
        var error = PFLimits.exceeded(name, value, format: format.errorName, offset: consumed)
        error.message += " (stopped at \(produced) output bytes from \(consumed) compressed bytes)"
        return error
    }
}
