import Foundation

/// Base64 (RFC 4648, standard alphabet) encoding and strict decoding, shared by the formats
/// that carry bytes as text: XML property lists, Parse's `Bytes` JSON and CBOR diagnostics.
///
/// Decoding is strict where Foundation's `.ignoreUnknownCharacters` is lax: a character
/// outside the alphabet is an error, and `=` may appear only as padding at the end. Padding
/// may be omitted (`"QQ"` decodes like `"QQ=="`), and leftover bits in the last character
/// are ignored, as most decoders do.
public enum PFBase64 {
    /// Why a decode failed and where.
    public struct Failure: Error, Sendable, Equatable {
        /// Zero-based byte offset in the text of the offending character (or of the end of the
        /// text when it stops mid-group).
        public var offset: Int
        /// What was wrong, as a phrase such as `invalid character 'x'`.
        public var reason: String

        /// Makes a failure.
        /// - Parameters:
        ///   - offset: where in the text.
        ///   - reason: what was wrong.
        public init(offset: Int, reason: String) {
            self.offset = offset
            self.reason = reason
        }
    }

    // MARK: - Encoding

    /// Encodes bytes as base64 text.
    /// - Parameters:
    ///   - bytes: the bytes to encode.
    ///   - lineLength: when set, a line feed follows every `lineLength` characters (not after
    ///     the last line). Must be a positive multiple of 4.
    /// - Returns: the base64 text, padded with `=`.
    public static func encode(_ bytes: Data, lineLength: Int? = nil) -> String {
        if let lineLength {
            precondition(lineLength > 0 && lineLength % 4 == 0, "Base64 line length must be a positive multiple of 4.")
        }
        var out: [UInt8] = []
        out.reserveCapacity(encodedCount(bytes.count) + (lineLength.map { encodedCount(bytes.count) / $0 } ?? 0))
        bytes.withUnsafeBytes { raw in
            guard let lineLength else {
                encode(raw, appendingTo: &out)
                return
            }
            let chunk = lineLength / 4 * 3
            var start = 0
            while start < raw.count {
                if start > 0 { out.append(0x0A) }
                let end = min(start + chunk, raw.count)
                encode(UnsafeRawBufferPointer(rebasing: raw[start..<end]), appendingTo: &out)
                start = end
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The number of characters `count` bytes encode to, padding included.
    /// - Parameter count: a byte count.
    /// - Returns: `4 * ceil(count / 3)`.
    @inlinable
    public static func encodedCount(_ count: Int) -> Int { (count + 2) / 3 * 4 }

    /// Appends the base64 text of `bytes` (padded, no line breaks) to `out`, for writers that
    /// build their output in a byte buffer.
    /// - Parameters:
    ///   - bytes: the bytes to encode.
    ///   - out: the buffer to append ASCII characters to.
    public static func encode(_ bytes: UnsafeRawBufferPointer, appendingTo out: inout [UInt8]) {
        let count = bytes.count
        guard count > 0 else { return }
        let oldCount = out.count
        let added = encodedCount(count)
        out.append(contentsOf: repeatElement(0, count: added))
        out.withUnsafeMutableBufferPointer { dst in
            alphabet.withUnsafeBufferPointer { table in
                var o = oldCount
                var i = 0
                // Whole groups: every index below is < count by the loop condition.
                while i + 3 <= count {
                    let b0 = bytes[i], b1 = bytes[i + 1], b2 = bytes[i + 2]
                    dst[o] = table[Int(b0 >> 2)]
                    dst[o + 1] = table[Int((b0 & 0x03) << 4 | b1 >> 4)]
                    dst[o + 2] = table[Int((b1 & 0x0F) << 2 | b2 >> 6)]
                    dst[o + 3] = table[Int(b2 & 0x3F)]
                    i += 3
                    o += 4
                }
                let rest = count - i
                if rest == 1 {
                    let b0 = bytes[i]
                    dst[o] = table[Int(b0 >> 2)]
                    dst[o + 1] = table[Int((b0 & 0x03) << 4)]
                    dst[o + 2] = equals
                    dst[o + 3] = equals
                } else if rest == 2 {
                    let b0 = bytes[i], b1 = bytes[i + 1]
                    dst[o] = table[Int(b0 >> 2)]
                    dst[o + 1] = table[Int((b0 & 0x03) << 4 | b1 >> 4)]
                    dst[o + 2] = table[Int((b1 & 0x0F) << 2)]
                    dst[o + 3] = equals
                }
            }
        }
    }

    // MARK: - Decoding

    /// Decodes base64 text strictly.
    /// - Parameters:
    ///   - text: the base64 text.
    ///   - ignoringWhitespace: whether spaces, tabs, line feeds and carriage returns may
    ///     appear anywhere (as in XML property lists and MIME); otherwise they are invalid.
    /// - Returns: the bytes, or `nil` when the text is not valid base64.
    public static func decode(_ text: String, ignoringWhitespace: Bool) -> Data? {
        var text = text
        return text.withUTF8 { buffer in
            try? decode(UnsafeRawBufferPointer(buffer), ignoringWhitespace: ignoringWhitespace)
        }
    }

    /// Decodes base64 text strictly, reporting where it fails.
    /// - Parameters:
    ///   - text: the base64 text as UTF-8 bytes.
    ///   - ignoringWhitespace: whether spaces, tabs, line feeds and carriage returns may
    ///     appear anywhere.
    /// - Returns: the decoded bytes.
    /// - Throws: ``Failure`` naming the offset of the first invalid character, a misplaced
    ///   `=`, or a text that ends one character into a group.
    public static func decode(_ text: UnsafeRawBufferPointer, ignoringWhitespace: Bool) throws(Failure) -> Data {
        var out = [UInt8]()
        // Bounded by the text's real length, never by a claimed count.
        out.reserveCapacity(text.count / 4 * 3 + 3)
        var accumulator: UInt32 = 0
        var pending = 0  // characters in the current group
        var padding = 0
        var i = 0
        let count = text.count
        let table = decodeTable
        while i < count {
            let c = text[i]
            let v = table[Int(c)]
            if v < 64 {
                if padding > 0 { throw Failure(offset: i, reason: "data after '=' padding") }
                accumulator = accumulator << 6 | UInt32(v)
                pending += 1
                if pending == 4 {
                    out.append(UInt8(truncatingIfNeeded: accumulator >> 16))
                    out.append(UInt8(truncatingIfNeeded: accumulator >> 8))
                    out.append(UInt8(truncatingIfNeeded: accumulator))
                    accumulator = 0
                    pending = 0
                }
            } else if v == whitespaceCode, ignoringWhitespace {
                // skip
            } else if c == equals {
                // '=' completes a group of 2 (with '==') or 3 characters (with '=').
                guard pending + padding >= 2, pending + padding < 4 else {
                    throw Failure(offset: i, reason: "misplaced '=' padding")
                }
                padding += 1
            } else {
                throw Failure(offset: i, reason: "invalid character \(describe(c))")
            }
            i += 1
        }
        if padding > 0, pending + padding != 4 {
            throw Failure(offset: count, reason: "incomplete '=' padding")
        }
        switch pending {
        case 0: break
        case 1: throw Failure(offset: count, reason: "text ends one character into a 4-character group")
        case 2: out.append(UInt8(truncatingIfNeeded: accumulator >> 4))
        case 3:
            out.append(UInt8(truncatingIfNeeded: accumulator >> 10))
            out.append(UInt8(truncatingIfNeeded: accumulator >> 2))
        default: break
        }
        return Data(out)
    }

    // MARK: - Tables

    static let equals = UInt8(ascii: "=")
    static let whitespaceCode: UInt8 = 0xFE

    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// 0–63 for alphabet characters, ``whitespaceCode`` for XML whitespace, 0xFF otherwise.
    static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        for c in [UInt8(ascii: " "), 0x09, 0x0A, 0x0D] { table[Int(c)] = whitespaceCode }
        return table
    }()

    static func describe(_ c: UInt8) -> String {
        c >= 0x21 && c < 0x7F ? "'\(Character(Unicode.Scalar(c)))'" : "0x" + String(c, radix: 16, uppercase: true)
    }
}
