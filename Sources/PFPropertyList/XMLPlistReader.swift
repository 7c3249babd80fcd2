import Foundation
import OrderedCollections
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

    /// Whether the document's root is an array of records, or a dictionary whose first key
    /// is `results` with an array as its value (a Parse export's shape); reads only the
    /// prolog and the first start tags.
    /// - Parameter bytes: the document.
    /// - Returns: `false` for an array, `true` for a wrapper, `nil` for any other document
    ///   (``read(_:)`` reads it whole).
    public func recordsWrapped(_ bytes: Data) -> Bool? {
        guard bytes.count <= options.limits.maxInputBytes else { return nil }
        return bytes.withUnsafeBytes { raw -> Bool? in
            var scanner = XMLPlistScanner(raw, limits: options.limits)
            return try? scanner.recordsWrapped()
        }
    }

    /// Reads a document of ``recordsWrapped(_:)``'s shape as ``read(_:)`` does — every
    /// check and limit — but hands each record (each element of the records' array) to
    /// `record` as soon as it is read, in memory bounded by the largest record.
    /// - Parameters:
    ///   - bytes: the document.
    ///   - record: receives each record, in order; its errors pass unchanged.
    /// - Returns: the wrapper's other members, or `nil` when the root is the records' array.
    /// - Throws: ``PFCore/PFError`` as ``read(_:)`` does, ``XMLPlistFailure/notRecords``
    ///   for a document of another shape, and whatever `record` throws.
    public func readRecords(
        _ bytes: Data, record: (PFValue) throws(PFError) -> Void
    ) throws(PFError) -> OrderedDictionary<String, PFValue>? {
        let limits = options.limits
        guard bytes.count <= limits.maxInputBytes else {
            throw PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: XMLPlistScanner.formatName, offset: 0)
        }
        guard let wrapped = recordsWrapped(bytes) else {
            throw PFError(XMLPlistFailure.notRecords, format: XMLPlistScanner.formatName, offset: 0)
        }
        return try bytes.withBytes { raw throws(PFError) -> OrderedDictionary<String, PFValue>? in
            var scanner = XMLPlistScanner(raw, limits: limits)
            var recordError: PFError?
            let value: PFValue
            do throws(PFError) {
                value = try scanner.readDocument(streaming: true) { item throws(PFError) in
                    do throws(PFError) { try record(item) } catch {
                        recordError = error
                        throw error
                    }
                }
            } catch {
                if let recordError { throw recordError }
                throw scanner.locate(error)
            }
            guard wrapped, case .dictionary(var members) = value else { return nil }
            members.removeValue(forKey: "results")
            return members
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
        return startsWideMagic(bytes)
    }

    /// Whether the document starts like an XML property list in UTF-16 or UTF-32 (with or
    /// without a byte order mark), which the reader refuses with its own message ("convert it
    /// first") rather than being taken for no format at all.
    static func startsWideMagic(_ bytes: Data) -> Bool {
        let head = [UInt8](bytes.prefix(128))
        /// The ASCII characters of `head` read as `width`-byte units, or `nil` at a non-ASCII one.
        func ascii(width: Int, bigEndian: Bool, skip: Int) -> String? {
            var text = ""
            var at = skip
            while at + width <= head.count {
                let unit = head[at..<(at + width)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                let value = bigEndian ? unit : (width == 2 ? UInt32(UInt16(unit).byteSwapped) : unit.byteSwapped)
                guard value < 0x80 else { return nil }
                text.append(Character(Unicode.Scalar(UInt8(value))))
                at += width
            }
            return text
        }
        let layouts: [(prefix: [UInt8], width: Int, bigEndian: Bool)] = [
            ([0x00, 0x00, 0xFE, 0xFF], 4, true), ([0xFF, 0xFE, 0x00, 0x00], 4, false),
            ([0xFE, 0xFF], 2, true), ([0xFF, 0xFE], 2, false), ([], 2, true), ([], 2, false),
        ]
        for layout in layouts where head.starts(with: layout.prefix) {
            guard let text = ascii(width: layout.width, bigEndian: layout.bigEndian, skip: layout.prefix.count) else { continue }
            let trimmed = text.drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
            if ["<?xml", "<!DOCTYPE plist", "<plist"].contains(where: { trimmed.hasPrefix($0) }) { return true }
        }
        return false
    }
}
