import Foundation
import PFCBOR
import PFCompression
import PFCore
import PFPropertyList
import PFTypedStream

/// Tells formats apart by their first bytes (on read) and by file name (on write).
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
        if bytes.starts(with: [0xD9, 0xD9, 0xF7]) { return .cbor }
        if looksLikeJSON(bytes) { return .json }
        if CBORReader.hasMagic(bytes) { return .cbor }
        return nil
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
            case "archive", "nskeyedarchive": .keyed
            case "typedstream", "streamtyped": .typedstream
            default: nil
            }
        return (format, compression)
    }

    static func looksLikeJSON(_ bytes: Data) -> Bool {
        var index = bytes.startIndex
        // A UTF-8 byte-order mark may precede lenient JSON.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index += 3 }
        while index < bytes.endIndex {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""), UInt8(ascii: "-"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"),
                UInt8(ascii: "/"):
                return true
            default: return false
            }
        }
        return false
    }
}
