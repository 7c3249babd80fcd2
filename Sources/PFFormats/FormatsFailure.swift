import PFCore

/// Every failure PFFormats reports itself (the formats it reads report their own), with its
/// class and message in one place.
///
/// Errors made from a case carry it in ``PFCore/PFError/failure``; match it with
/// `error.failure(as: FormatsFailure.self)`.
public enum FormatsFailure: PFFailure, Hashable {
    /// The input is empty (`afterDecompression`: it inflated to nothing).
    case emptyInput(afterDecompression: Bool)
    /// No format was asked for and none was recognised.
    case unrecognisedFormat
    /// The input is an old-style (OpenStep) property list or `.strings` file, which is not read.
    case oldStylePlist
    /// The input is an SQLite database's companion file (``PFSerialization/FormatDetector/sqliteCompanion(_:)``
    /// names which), not readable alone.
    case sqliteCompanion(String)
    /// The input is a binary property list of another version than `00` (its two version
    /// characters, such as `15`; ``PFSerialization/FormatDetector/binaryPlistVersion(_:)``).
    case binaryPlistVersion(String)
    /// The input is ASN.1 data in DER or BER (``PFSerialization/FormatDetector/looksLikeDER(_:)``),
    /// such as a signed `.mobileconfig`, whose property list is inside the signature.
    case der
    /// JSON text in UTF-16 (``PFSerialization/FormatDetector/looksLikeUTF16JSON(_:)``).
    case utf16JSON
    /// Reading `inputBytes` of `format` as a whole tree would need `need` bytes, more than the
    /// memory budget `budget`; `bytesPerInputByte` is the estimate's factor.
    case memoryBudget(format: String, inputBytes: Int, need: Int, bytesPerInputByte: Int, budget: Int)
    /// A JSON payload inside data is a scalar, not a container.
    case scalarPayload
    /// The bytes are not a zip archive ZIPFoundation can open (`detail` is its reason).
    case zipUnreadable(detail: String)
    /// A record stream was asked to convert between formats it does not stream.
    case doesNotStream(from: String, to: String)

    public var code: PFError.Code {
        switch self {
        case .emptyInput: .truncated
        case .unrecognisedFormat, .zipUnreadable: .syntax
        case .oldStylePlist, .sqliteCompanion, .binaryPlistVersion, .der, .utf16JSON: .unsupported
        case .memoryBudget: .limitExceeded
        case .scalarPayload: .invalidValue
        case .doesNotStream: .usage
        }
    }

    public var message: String {
        switch self {
        case .emptyInput(let afterDecompression):
            "the input is empty (0 bytes\(afterDecompression ? " after decompression" : "")); expected JSON, a binary or XML property list, or CBOR"
        case .unrecognisedFormat:
            "unrecognised format; expected JSON, a binary or XML property list, or CBOR (name one with --from)"
        case .oldStylePlist:
            "an old-style (OpenStep) property list or .strings file, which pfarchive does not read; "
                + "convert it to XML first (plutil -convert xml1 on a Mac)"
        case .sqliteCompanion(let kind):
            "an SQLite \(kind), not a database: give its database file (the same name without the suffix), which is read with it"
        case .utf16JSON:
            "JSON in UTF-16, which pfarchive reads only as UTF-8, as JSON is exchanged (RFC 8259); "
                + "convert it first (iconv -f UTF-16 -t UTF-8 FILE > utf8.json)"
        case .der:
            "ASN.1 data (DER), such as a signed .mobileconfig (CMS/PKCS#7): its property list is inside the signature; "
                + "take it out first (openssl smime -verify -noverify -inform DER -in FILE -out plain.plist)"
        case .binaryPlistVersion(let version):
            "a binary property list of version \(version) (\"bplist\(version)\"), which pfarchive does not read; expected version 00 (\"bplist00\")"
        case .memoryBudget(let format, let inputBytes, let need, let factor, let budget):
            "reading \(Self.megabytes(inputBytes)) of \(format) as a whole tree needs about \(Self.megabytes(need)) of memory "
                + "(\(factor) bytes per input byte), more than the memory budget (\(Self.megabytes(budget)), "
                + "--max-memory); raise it only if the machine has the memory"
        case .scalarPayload: "a scalar, not a payload"
        case .zipUnreadable(let detail): "not a readable zip archive (\(detail)): truncated, or not a zip"
        case .doesNotStream(let from, let to): "\(from) to \(to) does not stream"
        }
    }

    /// A size for messages: whole MiB from 10 MiB up, bytes below.
    static func megabytes(_ bytes: Int) -> String {
        bytes >= 10 << 20 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
    }
}
