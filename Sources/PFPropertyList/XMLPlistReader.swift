import Foundation
import PFCore

/// Reads Apple XML property lists (`<plist version="1.0">`) into a ``PFCore/PFValue`` tree.
///
/// The reader is a hand-written scanner over the input bytes for the XML subset property
/// lists use; it does not use an XML library. It accepts what Core Foundation and Python's
/// `plistlib` write and reject anything that could make it expand, trap or allocate without
/// bound: entity declarations are never processed, depth and sizes are capped by
/// ``PFCore/PFLimits``, and every failure is a ``PFCore/PFError`` with the byte offset, line
/// and column, and the key path of the value being read.
///
/// Policies (see `Docs/XMLPlist.md`):
/// - UTF-8 only (an optional UTF-8 byte order mark is skipped); a declared encoding other
///   than UTF-8, or UTF-16/32 text, is ``PFCore/PFError/Code/unsupported``.
/// - The `<plist>` root is optional: a bare top-level value is read, as CF and plistlib do.
/// - A dictionary with a repeated key is an error (``PFCore/PFError/Code/invalidValue``).
/// - `<dict><key>CF$UID</key><integer>N</integer></dict>` with `N ≥ 0` reads as
///   ``PFCore/PFValue/uid(_:)``.
/// - `<real>` accepts decimal text and `nan`, `inf`, `infinity` with an optional sign, in
///   any case; `<integer>` accepts decimal or `0x` hexadecimal with an optional sign.
/// - `<date>` is `YYYY-MM-DDTHH:MM:SSZ`, with an optional fraction of a second.
public struct XMLPlistReader: Sendable {
    /// How the reader treats its input.
    public struct Options: Sendable {
        /// Resource limits on depth, sizes and counts.
        public var limits: PFLimits = .default

        /// Makes options.
        /// - Parameter limits: resource limits; the defaults suit untrusted input.
        public init(limits: PFLimits = .default) {
            self.limits = limits
        }
    }

    /// The options this reader uses.
    public var options: Options

    /// Makes a reader.
    /// - Parameter options: how to read; the defaults suit untrusted input.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// Reads an XML property list.
    /// - Parameter bytes: the whole document, UTF-8 encoded.
    /// - Returns: the top-level value.
    /// - Throws: ``PFCore/PFError`` with code
    ///   ``PFCore/PFError/Code/syntax`` for malformed XML or an element where none may stand,
    ///   ``PFCore/PFError/Code/truncated`` when the document ends early,
    ///   ``PFCore/PFError/Code/invalidValue`` for bad element text (an integer out of range,
    ///   a bad date or base64, invalid UTF-8) or a repeated dictionary key,
    ///   ``PFCore/PFError/Code/unsupported`` for another encoding or an entity declaration,
    ///   ``PFCore/PFError/Code/limitExceeded`` when a ``PFCore/PFLimits`` budget is exceeded.
    public func read(_ bytes: Data) throws(PFError) -> PFValue {
        let limits = options.limits
        guard bytes.count <= limits.maxInputBytes else {
            throw PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: XMLPlistScanner.formatName, offset: 0)
        }
        return try bytes.withBytes { raw throws(PFError) -> PFValue in
            var scanner = XMLPlistScanner(raw, limits: limits)
            do throws(PFError) {
                return try scanner.readDocument()
            } catch {
                throw scanner.locate(error)
            }
        }
    }

    /// Whether the bytes look like an XML property list: after an optional UTF-8 byte order
    /// mark and whitespace they start with `<?xml`, `<!DOCTYPE plist` or `<plist`.
    /// - Parameter bytes: the start of a file (a few dozen bytes suffice).
    /// - Returns: `true` when the bytes start like an XML property list.
    public static func hasMagic(_ bytes: Data) -> Bool {
        var i = bytes.startIndex
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        if bytes.starts(with: bom) { i += 3 }
        while i < bytes.endIndex, XMLPlistScanner.isWhitespace(bytes[i]) { i += 1 }
        let rest = bytes[i...]
        for magic in ["<?xml", "<!DOCTYPE plist", "<plist"] where rest.starts(with: Array(magic.utf8)) {
            return true
        }
        return false
    }
}
