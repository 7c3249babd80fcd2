import Foundation
import PFCore

/// Writes a ``PFCore/PFValue`` tree as an Apple XML property list, in the layout Core
/// Foundation and Python's `plistlib` write: the standard header and DOCTYPE, one element per
/// line, tab indentation, `<true/>`, empty containers as `<dict/>` and `<array/>`, and base64
/// data wrapped at 76 columns counting a tab as 8 (never below 16 characters per line).
///
/// Policies (see `Docs/XMLPlist.md`):
/// - Dates are written in whole seconds, `YYYY-MM-DDTHH:MM:SSZ`; a fraction is dropped
///   (truncated toward the past), as Apple's writer and `plistlib` do.
/// - Reals are the shortest text that reads back to the same `Double` (`0.1`, `1.0`,
///   `1e+21`, `-0.0`); NaN and the infinities are `nan`, `inf` and `-inf`, as `plistlib`
///   writes them and Core Foundation reads them.
/// - `&`, `<` and `>` are escaped as entities and a carriage return as `&#13;` (so that XML
///   parsers do not turn it into a line feed). Other C0 control characters, U+FFFE and U+FFFF
///   cannot be carried by XML 1.0 and are an error.
/// - ``PFCore/PFValue/uid(_:)`` is written as `<dict><key>CF$UID</key><integer>N</integer></dict>`.
/// - ``PFCore/PFValue/null`` is an error, or is left out with ``NullPolicy/drop``.
public struct XMLPlistWriter: Sendable {
    /// What to do with ``PFCore/PFValue/null``, which property lists cannot hold.
    public enum NullPolicy: Sendable {
        /// Fail with ``PFCore/PFError/Code/unrepresentable`` naming the key path.
        case error
        /// Leave the dictionary member or array element out (a null root is still an error).
        case drop
    }

    /// How the writer treats its input.
    public struct Options: Sendable {
        /// What to do with nulls.
        public var nullPolicy: NullPolicy = .error

        /// Makes options.
        /// - Parameter nullPolicy: what to do with nulls; by default they are an error.
        public init(nullPolicy: NullPolicy = .error) {
            self.nullPolicy = nullPolicy
        }
    }

    /// The options this writer uses.
    public var options: Options

    /// Makes a writer.
    /// - Parameter options: how to write.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// Writes a value as a complete XML property-list document.
    /// - Parameter value: the top-level value.
    /// - Returns: the document, UTF-8 encoded, ending with a line feed.
    /// - Throws: ``PFCore/PFError`` with code ``PFCore/PFError/Code/unrepresentable`` and the
    ///   key path of the value when the tree holds a null (under ``NullPolicy/error``, or at
    ///   the root), a string with a character XML 1.0 cannot carry, or a date outside years
    ///   0–9999; ``PFCore/PFError/Code/limitExceeded`` when containers nest deeper than
    ///   ``PFCore/PFLimits/maxDepth`` (512), which no reader would accept back.
    public func write(_ value: PFValue) throws(PFError) -> Data {
        var emitter = XMLPlistEmitter(dropNulls: options.nullPolicy == .drop)
        emitter.out.append(contentsOf: XMLPlistEmitter.header)
        if case .null = value {
            throw XMLPlistEmitter.unrepresentable(.nullRoot)
        }
        try emitter.write(value, indent: 0)
        emitter.out.append(contentsOf: "</plist>\n".utf8)
        return Data(emitter.out)
    }
}

// MARK: - Parts of a document

extension XMLPlistWriter {
    /// The document's first lines (the XML declaration, the doctype, `<plist version="1.0">`),
    /// as ``write(_:)`` writes them: for a writer that emits a document a part at a time
    /// (`RecordStream`'s whole XML property list of records).
    package static var header: [UInt8] { XMLPlistEmitter.header }

    /// The document's last line, `</plist>`.
    package static var footer: [UInt8] { Array("</plist>\n".utf8) }

    /// The lines of one value at `indent` tabs inside a document, exactly as ``write(_:)``
    /// writes it there (the depth limit counts `indent`).
    /// - Parameters:
    ///   - value: the value (a null is an error, as in a document).
    ///   - indent: its depth in the document.
    /// - Returns: its lines.
    /// - Throws: ``PFCore/PFError`` as ``write(_:)`` does, the path relative to `value`.
    package func element(_ value: PFValue, indent: Int) throws(PFError) -> [UInt8] {
        var emitter = XMLPlistEmitter(dropNulls: options.nullPolicy == .drop)
        try emitter.write(value, indent: indent)
        return emitter.out
    }

    /// The line of a dictionary key at `indent` tabs (`<key>name</key>`), escaped as
    /// ``write(_:)`` escapes it.
    /// - Parameters:
    ///   - key: the key.
    ///   - indent: its depth in the document.
    /// - Returns: the line.
    /// - Throws: ``PFCore/PFError`` `unrepresentable` for a key XML cannot hold.
    package func keyLine(_ key: String, indent: Int) throws(PFError) -> [UInt8] {
        var emitter = XMLPlistEmitter(dropNulls: false)
        emitter.appendTabs(indent)
        emitter.out.append(contentsOf: "<key>".utf8)
        try emitter.appendEscaped(key)
        emitter.out.append(contentsOf: "</key>\n".utf8)
        return emitter.out
    }
}

// MARK: - Emitter

/// Appends the XML of a value tree to a byte buffer.
struct XMLPlistEmitter {
    static let header: [UInt8] = Array(
        ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n"
            + "<plist version=\"1.0\">\n").utf8)

    var out: [UInt8] = []
    let dropNulls: Bool
    let maxDepth = PFLimits.default.maxDepth

    init(dropNulls: Bool) {
        self.dropNulls = dropNulls
        out.reserveCapacity(4096)
    }

    static func unrepresentable(_ failure: XMLPlistFailure) -> PFError {
        PFError(failure, format: XMLPlistScanner.formatName, path: .root)
    }

    // MARK: Values

    mutating func write(_ value: PFValue, indent: Int) throws(PFError) {
        appendTabs(indent)
        switch value {
        case .null:
            throw Self.unrepresentable(.nullValue)
        case .bool(let b):
            out.append(contentsOf: b ? "<true/>\n".utf8 : "<false/>\n".utf8)
        case .int(let i):
            out.append(contentsOf: "<integer>".utf8)
            appendDecimal(i.magnitude, negative: i < 0)
            out.append(contentsOf: "</integer>\n".utf8)
        case .uint(let u):
            out.append(contentsOf: "<integer>".utf8)
            appendDecimal(u, negative: false)
            out.append(contentsOf: "</integer>\n".utf8)
        case .double(let d):
            out.append(contentsOf: "<real>".utf8)
            // Swift's description is the shortest round-trip text, spelled as Python's repr
            // (1.0, 1e+21, 1e-07, nan, inf, -inf).
            out.append(contentsOf: d.description.utf8)
            out.append(contentsOf: "</real>\n".utf8)
        case .string(let s):
            out.append(contentsOf: "<string>".utf8)
            try appendEscaped(s)
            out.append(contentsOf: "</string>\n".utf8)
        case .data(let data):
            writeData(data, indent: indent)
        case .date(let date):
            guard let text = PFDateFormat.iso8601Seconds(date) else {
                throw Self.unrepresentable(.dateOutOfRange(secondsSince2001: date.timeIntervalSinceReferenceDate))
            }
            out.append(contentsOf: "<date>".utf8)
            out.append(contentsOf: text.utf8)
            out.append(contentsOf: "</date>\n".utf8)
        case .uid(let u):
            out.append(contentsOf: "<dict>\n".utf8)
            appendTabs(indent + 1)
            out.append(contentsOf: "<key>CF$UID</key>\n".utf8)
            appendTabs(indent + 1)
            out.append(contentsOf: "<integer>".utf8)
            appendDecimal(u, negative: false)
            out.append(contentsOf: "</integer>\n".utf8)
            appendTabs(indent)
            out.append(contentsOf: "</dict>\n".utf8)
        case .array(let items):
            let isEmpty = dropNulls ? !items.contains(where: { $0.kind != .null }) : items.isEmpty
            if isEmpty {
                out.append(contentsOf: "<array/>\n".utf8)
                return
            }
            guard indent < maxDepth else { throw tooDeep() }
            out.append(contentsOf: "<array>\n".utf8)
            for (index, item) in items.enumerated() {
                if dropNulls, case .null = item { continue }
                do {
                    try write(item, indent: indent + 1)
                } catch {
                    throw error.prefixed(.index(index))
                }
            }
            appendTabs(indent)
            out.append(contentsOf: "</array>\n".utf8)
        case .dictionary(let members):
            let isEmpty = dropNulls ? !members.values.contains(where: { $0.kind != .null }) : members.isEmpty
            if isEmpty {
                out.append(contentsOf: "<dict/>\n".utf8)
                return
            }
            guard indent < maxDepth else { throw tooDeep() }
            out.append(contentsOf: "<dict>\n".utf8)
            for (key, member) in members {
                if dropNulls, case .null = member { continue }
                do {
                    appendTabs(indent + 1)
                    out.append(contentsOf: "<key>".utf8)
                    try appendEscaped(key)
                    out.append(contentsOf: "</key>\n".utf8)
                    try write(member, indent: indent + 1)
                } catch {
                    throw error.prefixed(.key(key))
                }
            }
            appendTabs(indent)
            out.append(contentsOf: "</dict>\n".utf8)
        }
    }

    func tooDeep() -> PFError {
        PFError(XMLPlistFailure.tooDeep(maxDepth: maxDepth), format: XMLPlistScanner.formatName, path: .root)
    }

    /// `<data>` with base64 lines as plistlib writes them: each line as long as fits in 76
    /// columns after the indentation (a tab counting 8), at least 16 characters.
    mutating func writeData(_ data: Data, indent: Int) {
        out.append(contentsOf: "<data>\n".utf8)
        let lineCharacters = max(16, 76 - 8 * indent)
        let bytesPerLine = lineCharacters / 4 * 3
        data.withUnsafeBytes { raw in
            var start = 0
            while start < raw.count {
                let end = min(start + bytesPerLine, raw.count)
                appendTabs(indent)
                PFBase64.encode(UnsafeRawBufferPointer(rebasing: raw[start..<end]), appendingTo: &out)
                out.append(0x0A)
                start = end
            }
        }
        appendTabs(indent)
        out.append(contentsOf: "</data>\n".utf8)
    }

    // MARK: Text

    @inline(__always)
    mutating func appendTabs(_ n: Int) {
        for _ in 0..<n { out.append(0x09) }
    }

    mutating func appendDecimal(_ magnitude: UInt64, negative: Bool) {
        if negative { out.append(UInt8(ascii: "-")) }
        // Digits go in least significant first, then the run is reversed in place.
        let start = out.count
        var value = magnitude
        repeat {
            out.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10))
            value /= 10
        } while value > 0
        out[start...].reverse()
    }

    /// Appends text with `&`, `<`, `>` and CR escaped; fails on characters XML 1.0 lacks.
    mutating func appendEscaped(_ string: String) throws(PFError) {
        var string = string
        let bad: UInt32? = string.withUTF8 { utf8 in
            let n = utf8.count
            var runStart = 0
            var i = 0
            while i < n {
                let b = utf8[i]
                let replacement: String
                switch b {
                case UInt8(ascii: "&"): replacement = "&amp;"
                case UInt8(ascii: "<"): replacement = "&lt;"
                case UInt8(ascii: ">"): replacement = "&gt;"
                case 0x0D: replacement = "&#13;"
                case 0x09, 0x0A:
                    i += 1
                    continue
                case 0..<0x20:
                    return UInt32(b)
                case 0xEF:
                    // U+FFFE and U+FFFF are EF BF BE and EF BF BF.
                    if i + 2 < n, utf8[i + 1] == 0xBF, utf8[i + 2] >= 0xBE { return 0xFFFE + UInt32(utf8[i + 2] - 0xBE) }
                    i += 1
                    continue
                default:
                    i += 1
                    continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i]))
                out.append(contentsOf: replacement.utf8)
                i += 1
                runStart = i
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<n]))
            return nil
        }
        if let bad {
            let hex = String(bad, radix: 16, uppercase: true)
            let name = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            throw Self.unrepresentable(.uncarriableCharacter(name))
        }
    }
}
