import Foundation
import PFCBOR
import PFCompression
import PFCore
import PFPropertyList
import PFTypedStream

/// Tells formats apart by their first bytes (on read) and by file name (on write): the one
/// place pfarchive sniffs bytes. Every reader that has to guess — ``Serialization``,
/// `FormatIO`, the keyed-archive container, versioned documents, `inspect`, `copy`, payloads
/// in blobs — asks here, so one input is never two formats to two commands.
public enum FormatDetector {
    /// The format of (already decompressed) bytes, judged by magic bytes, or `nil` when none fits.
    ///
    /// In order: `bplist00`; typedstream's `streamtyped`/`typedstream` signature; an XML
    /// declaration, DOCTYPE or `<plist`; the CBOR self-describe tag; JSON when the first
    /// non-space byte can start a JSON text; CBOR when the first byte is an array or map
    /// header.
    /// - Parameter bytes: the input, after decompression.
    /// - Returns: the detected format, or `nil`.
    public static func detect(_ bytes: Data) -> DataFormat? {
        if BinaryPlistReader.hasMagic(bytes) { return .bplist }
        if TypedStream.hasMagic(bytes) { return .typedstream }
        if XMLPlistReader.hasMagic(bytes) { return .xmlplist }
        if isSelfDescribedCBOR(bytes) { return .cbor }
        if sqliteCompanion(bytes) != nil || looksLikeDER(bytes) || looksLikeUTF16JSON(bytes) { return nil }
        if jsonStart(bytes) != nil && !looksLikeOldStylePlist(bytes) { return .json }
        if CBORReader.hasMagic(bytes) { return .cbor }
        return nil
    }

    /// What an SQLite database's companion file is, told by its header, or `nil`: a
    /// write-ahead log (`-wal`: `37 7F 06 82`/`83` and format 3007000, whose leading `7` would
    /// otherwise start a JSON number), a rollback journal (`-journal`), or a WAL index (`-shm`).
    /// None is readable alone: its database file is, which reads it along.
    public static func sqliteCompanion(_ bytes: Data) -> String? {
        let head = [UInt8](bytes.prefix(56))
        let version: [UInt8] = [0x00, 0x2D, 0xE2, 0x18]  // 3,007,000, big-endian
        if head.count >= 8, head[0] == 0x37, head[1] == 0x7F, head[2] == 0x06, head[3] & 0xFE == 0x82, Array(head[4..<8]) == version {
            return "write-ahead log (-wal)"
        }
        if head.starts(with: [0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7]) { return "rollback journal (-journal)" }
        let native = Array(version.reversed())  // the WAL index is in the machine's byte order
        if head.count >= 52, Array(head[0..<4]) == native || Array(head[0..<4]) == version, head[0..<4] == head[48..<52] {
            return "WAL index (-shm)"
        }
        return nil
    }

    /// The version of a binary property list other than `bplist00` (the two characters after
    /// `bplist`, such as `15` or `16`, which Apple uses privately), or `nil`: such bytes are
    /// not read, and are named rather than "unrecognised".
    public static func binaryPlistVersion(_ bytes: Data) -> String? {
        let head = [UInt8](bytes.prefix(8))
        guard head.count == 8, head.starts(with: Array("bplist".utf8)), !BinaryPlistReader.hasMagic(bytes) else { return nil }
        let version = head[6...]
        guard version.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return String(decoding: version, as: UTF8.self)
    }

    /// What bytes ``detect(_:)`` finds no format in can be known to be: kinds no reader here
    /// reads, named rather than "unrecognised".
    public enum Undetected: Sendable, Hashable, CustomStringConvertible {
        /// An SQLite database's companion file (``sqliteCompanion(_:)`` names which).
        case sqliteCompanion(String)
        /// A binary property list of another version (``binaryPlistVersion(_:)``).
        case binaryPlistVersion(String)
        /// An old-style (OpenStep) property list or `.strings` file (``looksLikeOldStylePlist(_:)``).
        case oldStylePlist
        /// ASN.1 data in DER or BER, such as a signed `.mobileconfig` (``looksLikeDER(_:)``).
        case der
        /// JSON text in UTF-16 (``looksLikeUTF16JSON(_:)``).
        case utf16JSON

        /// A name for messages: "an SQLite write-ahead log (-wal)", "a binary property list
        /// of version 15", "an old-style (OpenStep) property list or .strings file".
        public var description: String {
            switch self {
            case .sqliteCompanion(let kind): "an SQLite \(kind)"
            case .binaryPlistVersion(let version): "a binary property list of version \(version)"
            case .oldStylePlist: "an old-style (OpenStep) property list or .strings file"
            case .der: "ASN.1 data (DER), such as a signed .mobileconfig"
            case .utf16JSON: "JSON in UTF-16"
            }
        }
    }

    /// What bytes ``detect(_:)`` finds no format in are, when known (the one place that
    /// asks, in this order); `nil` otherwise.
    public static func undetectedKind(_ bytes: Data) -> Undetected? {
        if let companion = sqliteCompanion(bytes) { return .sqliteCompanion(companion) }
        if let version = binaryPlistVersion(bytes) { return .binaryPlistVersion(version) }
        if looksLikeOldStylePlist(bytes) { return .oldStylePlist }
        if looksLikeDER(bytes) { return .der }
        if looksLikeUTF16JSON(bytes) { return .utf16JSON }
        return nil
    }

    /// Whether bytes start as JSON text in UTF-16, little- or big-endian, with or without a
    /// byte-order mark: after it and any white space, `{` or `[` with a zero byte beside it
    /// (Windows tools write such files). JSON is UTF-8 (RFC 8259 §8.1), and read as UTF-8
    /// such text fails at its first zero byte.
    public static func looksLikeUTF16JSON(_ bytes: Data) -> Bool {
        let head = [UInt8](bytes.prefix(64))
        var i = 0
        var littleEndian: Bool?
        if head.count >= 2, head[0] == 0xFF, head[1] == 0xFE { (i, littleEndian) = (2, true) }
        if head.count >= 2, head[0] == 0xFE, head[1] == 0xFF { (i, littleEndian) = (2, false) }
        while i + 1 < head.count {
            let (a, b) = (head[i], head[i + 1])
            let little = littleEndian ?? (b == 0 && a != 0)
            let (unit, zero) = little ? (a, b) : (b, a)
            guard zero == 0, unit != 0 else { return false }
            switch unit {
            case 0x20, 0x09, 0x0A, 0x0D: i += 2
            case UInt8(ascii: "{"), UInt8(ascii: "["): return true
            default: return false
            }
        }
        return false
    }

    /// Whether bytes start as ASN.1 data in DER or BER: a SEQUENCE (`0x30`) with a long or
    /// indefinite length (`0x80`–`0x84`), as CMS/PKCS#7 signed data (a signed `.mobileconfig`,
    /// a provisioning profile) and certificates do. JSON never does (`0` is then followed by
    /// a byte above 0x7F), so ``detect(_:)`` does not take it for the number 0.
    public static func looksLikeDER(_ bytes: Data) -> Bool {
        guard bytes.count >= 2 else { return false }
        let first = bytes[bytes.startIndex], second = bytes[bytes.startIndex + 1]
        return first == 0x30 && (0x80...0x84).contains(second)
    }

    /// Whether bytes look like an old-style (OpenStep/NeXTSTEP) property list or a `.strings`
    /// file, which no reader here reads: after a byte-order mark (UTF-8 or UTF-16), white space
    /// and comments, an array `(`, or a key — quoted or bare, at the top or after `{` — followed
    /// by `=` (`{ IBClasses = (…); }`, `"greeting" = "Hello";`). JSON never has either, so
    /// ``detect(_:)`` does not take such bytes for JSON. Only the first bytes are looked at.
    public static func looksLikeOldStylePlist(_ bytes: Data) -> Bool {
        let prefix = bytes.prefix(512)
        let text: [Character]
        if prefix.starts(with: [0xFE, 0xFF]) || prefix.starts(with: [0xFF, 0xFE]) {
            let big = prefix.first == 0xFE
            var units: [UInt16] = []
            var i = prefix.startIndex + 2
            while i + 1 < prefix.endIndex {
                let (a, b) = (UInt16(prefix[i]), UInt16(prefix[i + 1]))
                units.append(big ? a << 8 | b : b << 8 | a)
                i += 2
            }
            text = Array(String(decoding: units, as: UTF16.self))
        } else {
            text = Array(String(decoding: prefix.starts(with: [0xEF, 0xBB, 0xBF]) ? prefix.dropFirst(3) : prefix, as: UTF8.self))
        }
        var i = 0
        func skipSpaceAndComments() {
            while i < text.count {
                if text[i].isWhitespace {
                    i += 1
                } else if text[i] == "/", i + 1 < text.count, text[i + 1] == "/" {
                    while i < text.count, text[i] != "\n" { i += 1 }
                } else if text[i] == "/", i + 1 < text.count, text[i + 1] == "*" {
                    i += 2
                    while i + 1 < text.count, !(text[i] == "*" && text[i + 1] == "/") { i += 1 }
                    i += 2
                } else {
                    return
                }
            }
        }
        /// A key (quoted or a bare word) then `=`.
        func keyThenEquals() -> Bool {
            guard i < text.count else { return false }
            if text[i] == "\"" {
                i += 1
                while i < text.count, text[i] != "\"" { i += text[i] == "\\" ? 2 : 1 }
                i += 1
            } else {
                let start = i
                while i < text.count, text[i].isLetter || text[i].isNumber || "_$+/:.-".contains(text[i]) { i += 1 }
                guard i > start else { return false }
            }
            skipSpaceAndComments()
            return i < text.count && text[i] == "="
        }
        skipSpaceAndComments()
        guard i < text.count else { return false }
        switch text[i] {
        case "(": return true
        case "{":
            i += 1
            skipSpaceAndComments()
            return keyThenEquals()
        default: return keyThenEquals()
        }
    }

    /// The format of (already decompressed) bytes, judged by magic bytes first and then by the
    /// format the input's file name names, where the bytes cannot tell.
    ///
    /// A CBOR document has no magic of its own unless it is self-described: a root that is
    /// not an array or a map (`-1` is `0x20`, a 20-byte text starts with `0x74`, `t`) is
    /// unrecognised or taken for JSON by ``detect(_:)``. So a file named `.cbor` whose bytes
    /// have no binary plist, typedstream or XML magic is CBOR. Any other name changes nothing.
    /// - Parameters:
    ///   - bytes: the input, after decompression.
    ///   - named: the format the file name implies (``infer(fromPath:)``), or `nil`.
    /// - Returns: the detected format, or `nil`.
    public static func detect(_ bytes: Data, named: DataFormat?) -> DataFormat? {
        if named == .cbor, !BinaryPlistReader.hasMagic(bytes), !TypedStream.hasMagic(bytes), !XMLPlistReader.hasMagic(bytes) {
            return .cbor
        }
        return detect(bytes)
    }

    /// The format and compression a file name implies, such as `json` + `gzip` for `x.json.gz`.
    /// - Parameter path: a file path; `-` (standard input or output) implies nothing.
    /// - Returns: the format (or `nil` when the extension names none) and the compression.
    public static func infer(fromPath path: String) -> (format: DataFormat?, compression: CompressionFormat?) {
        guard path != "-" else { return (nil, nil) }
        var name = (path as NSString).lastPathComponent.lowercased()
        var compression: CompressionFormat?
        for (suffix, format) in [(".gz", CompressionFormat.gzip), (".gzip", .gzip), (".zz", .zlib), (".zlib", .zlib)]
        where name.hasSuffix(suffix) {
            compression = format
            name.removeLast(suffix.count)
            break
        }
        let ext = (name as NSString).pathExtension
        let format: DataFormat? =
            switch ext {
            case "json", "geojson": .json
            case "bplist", "binaryplist": .bplist
            case "plist", "xml", "xmlplist": .xmlplist
            case "cbor": .cbor
            case "jsonl", "ndjson": .jsonl
            case "cborseq": .cborseq
            case "archive", "nskeyedarchive": .keyed
            case "typedstream", "streamtyped": .typedstream
            default: nil
            }
        return (format, compression)
    }

    /// The container of (already decompressed) bytes that hold a value tree, such as a keyed
    /// archive's object table: the tree format ``detect(_:)`` finds, and CBOR when it finds
    /// none (a CBOR document has no magic of its own unless it is self-described).
    /// - Parameter bytes: the input, after decompression.
    /// - Returns: the serializer to read the bytes with.
    public static func container(_ bytes: Data) -> TreeFormat {
        detect(bytes)?.treeFormat ?? .cbor
    }

    /// The JSON heuristic, the only one: the first byte after an optional UTF-8 byte-order
    /// mark and JSON white space, when it can start a JSON text — `{`, `[`, `"`, `-`, a digit,
    /// `t`, `f`, `n`, or `/` (a comment, for lenient JSON); `nil` otherwise.
    ///
    /// Callers that accept only some JSON ask about the byte: a payload in a blob is JSON
    /// only when it opens an object or an array.
    /// - Parameter bytes: the input, after decompression.
    /// - Returns: the first significant byte, or `nil` when the bytes cannot be JSON.
    public static func jsonStart(_ bytes: Data) -> UInt8? {
        var index = bytes.startIndex
        // A UTF-8 byte-order mark may precede lenient JSON.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index += 3 }
        while index < bytes.endIndex {
            let byte = bytes[index]
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""), UInt8(ascii: "-"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"),
                UInt8(ascii: "/"):
                return byte
            default: return nil
            }
        }
        return nil
    }

    /// Whether bytes start with CBOR's self-describe tag 55799 (`D9 D9 F7`), the one CBOR
    /// magic that rarely occurs by chance.
    /// - Parameter bytes: the input, after decompression.
    /// - Returns: `true` for self-described CBOR.
    public static func isSelfDescribedCBOR(_ bytes: Data) -> Bool {
        bytes.starts(with: [0xD9, 0xD9, 0xF7])
    }
}
