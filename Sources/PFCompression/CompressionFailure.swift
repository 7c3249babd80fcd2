import PFCore

/// Every failure PFCompression reports, with its class and its message in one place: what
/// went wrong, at which byte of the compressed input, and what was expected.
///
/// Errors made from a case carry it in ``PFCore/PFError/failure``; match it with
/// `error.failure(as: CompressionFailure.self)`.
public enum CompressionFailure: PFFailure, Hashable {
    /// The input was empty.
    case emptyInput(CompressionFormat)
    /// The input ended after `consumed` bytes, before the stream's end marker and checksum.
    case truncated(CompressionFormat, consumed: Int)
    /// A gzip member's first bytes arrived but the input ended inside its header.
    case truncatedMemberHeader
    /// `count` bytes follow the end of the stream (for gzip: bytes that do not start another
    /// member); `exact` is false when a streaming chunk only shows a lower bound.
    case trailing(CompressionFormat, count: Int, exact: Bool)
    /// zlib found corrupt data (`Z_DATA_ERROR`); `zlibMessage` is zlib's own text.
    case corrupt(CompressionFormat, zlibMessage: String?)
    /// The zlib header asks for a preset dictionary (`Z_NEED_DICT`).
    case presetDictionary
    /// zlib ran out of memory (`Z_MEM_ERROR`).
    case outOfMemory
    /// zlib could not allocate its stream state.
    case streamStateAllocation
    /// zlib refused to start a stream.
    case streamRefused(status: Int32)
    /// The output buffer could not grow to `bytes`.
    case bufferAllocation(bytes: Int)
    /// zlib reported a status this module does not expect (a bug, not bad input).
    case unexpectedStatus(Int32, zlibMessage: String?)
    /// A compression level outside -1...9.
    case badLevel(Int)
    /// A ``PFCore/PFLimits`` budget ran out while inflating.
    case limitExceeded(limit: String, value: Int, produced: Int, consumed: Int)
    /// A zip entry inflates past its declared size.
    case entryTooLarge(entry: String, declaredSize: UInt64)
    /// A zip entry breaks a ``PFCore/PFLimits`` budget.
    case entryLimitExceeded(entry: String, limit: String, value: Int)
    /// The zip's central directory is malformed; `detail` says where.
    case zipDirectoryMalformed(_ detail: String)
    /// No such entry in the zip's central directory.
    case zipNoSuchEntry(String)
    /// A zip entry's local header is missing.
    case zipLocalHeaderMissing(String)
    /// A zip entry's data lies outside the archive.
    case zipDataOutside(String)
    /// A zip entry uses a compression method other than stored and deflate.
    case zipMethod(String, method: UInt16)
    /// The zip ends inside an entry's data.
    case zipEntryTruncated(String)
    /// An entry's deflate data is cut short.
    case zipDeflateCutShort(String)
    /// An entry's CRC-32 or size does not match its record.
    case zipChecksumMismatch(String)

    public var code: PFError.Code {
        switch self {
        case .emptyInput, .truncated, .truncatedMemberHeader, .zipEntryTruncated: .truncated
        case .trailing, .corrupt, .zipDirectoryMalformed: .syntax
        case .presetDictionary, .zipMethod: .unsupported
        case .outOfMemory, .streamStateAllocation, .bufferAllocation, .limitExceeded, .entryLimitExceeded: .limitExceeded
        case .streamRefused, .unexpectedStatus, .entryTooLarge, .zipNoSuchEntry, .zipLocalHeaderMissing,
            .zipDataOutside, .zipDeflateCutShort, .zipChecksumMismatch:
            .invalidValue
        case .badLevel: .usage
        }
    }

    public var message: String {
        switch self {
        case .emptyInput(let f):
            "empty input; expected a \(f.errorName) stream"
        case .truncated(let f, let consumed):
            "compressed data ends after \(consumed) bytes, before the end of the stream; expected more \(f.errorName) data"
        case .truncatedMemberHeader:
            "input ends inside the header of a further gzip member; expected a complete member"
        case .trailing(let f, let count, let exact):
            "\(exact ? "" : "at least ")\(count) trailing \(count == 1 ? "byte" : "bytes") after the compressed stream; "
                + (f == .gzip
                    ? "expected the input to end or another gzip member (1F 8B 08) to start"
                    : "expected the input to end there")
        case .corrupt(let f, let zlibMessage):
            "\(zlibMessage ?? "corrupt data"); expected a valid \(f.errorName) stream"
        case .presetDictionary:
            "preset dictionary not supported; expected a zlib stream without the FDICT flag"
        case .outOfMemory:
            "zlib could not allocate memory"
        case .streamStateAllocation:
            "zlib could not allocate its stream state"
        case .streamRefused(let status):
            "zlib refused to start a stream (status \(status))"
        case .bufferAllocation(let bytes):
            "could not allocate \(bytes) bytes for the output"
        case .unexpectedStatus(let status, let zlibMessage):
            "zlib returned unexpected status \(status)\(zlibMessage.map { " (\($0))" } ?? ""); please report this"
        case .badLevel(let level):
            "compression level \(level) is out of range; expected 0 (store) through 9 (smallest), or -1 for zlib's default"
        case .limitExceeded(let limit, let value, let produced, let consumed):
            PFCoreFailure.limitExceeded(limit: limit, value: value).message
                + " (stopped at \(produced) output bytes from \(consumed) compressed bytes)"
        case .entryTooLarge(let entry, let declaredSize):
            "\(entry) inflates past its declared size (\(declaredSize) bytes); the archive is corrupt or hostile"
        case .entryLimitExceeded(let entry, let limit, let value):
            "\(entry): " + PFCoreFailure.limitExceeded(limit: limit, value: value).message
        case .zipDirectoryMalformed(let detail):
            "the zip's central directory is malformed: \(detail)"
        case .zipNoSuchEntry(let entry):
            "\(entry): no such entry in the zip's central directory"
        case .zipLocalHeaderMissing(let entry):
            "\(entry): its local header is missing (the zip is corrupt)"
        case .zipDataOutside(let entry):
            "\(entry): its data lies outside the archive"
        case .zipMethod(let entry, let method):
            "\(entry): compression method \(method) is not supported (only stored and deflate)"
        case .zipEntryTruncated(let entry):
            "\(entry): the zip ends inside its data (the zip is cut short)"
        case .zipDeflateCutShort(let entry):
            "\(entry): its deflate data is cut short (the zip is corrupt)"
        case .zipChecksumMismatch(let entry):
            "\(entry): CRC-32 or size mismatch (the zip is corrupt)"
        }
    }
}

extension PFError {
    /// An error of a compression format made from a failure case.
    init(_ failure: CompressionFailure, _ format: CompressionFormat, offset: Int? = nil) {
        self.init(failure, format: format.errorName, location: offset.map { Location(offset: $0) })
    }
}
