import CPFZlib
import PFCore

/// A wrapper around a deflate stream (RFC 1951) that pfarchive reads and writes.
public enum CompressionFormat: String, Sendable, CaseIterable {
    /// A zlib stream (RFC 1950): a 2-byte header, deflate data, an Adler-32 trailer.
    case zlib
    /// A gzip file (RFC 1952): one or more members, each a header, deflate data and a
    /// CRC-32 and size trailer.
    case gzip
    /// Raw deflate data (RFC 1951) with no header or checksum. Never detected by magic.
    case deflate
}

// MARK: - zlib parameters

extension CompressionFormat {
    /// The `windowBits` argument that makes zlib read or write exactly this wrapper
    /// (never 32 + 15, which would accept either zlib or gzip).
    var windowBits: Int32 {
        switch self {
        case .zlib: 15
        case .gzip: 16 + 15
        case .deflate: -15
        }
    }

    /// The name errors carry in ``PFError/format``.
    public var errorName: PFError.Format {
        switch self {
        case .zlib: .zlib
        case .gzip: .gzip
        case .deflate: .deflate
        }
    }
}
