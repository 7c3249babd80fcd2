import Foundation

// MARK: - Tree rendering

extension PFValue: CustomStringConvertible {
    /// A readable multi-line rendering of the tree, in the style of `plutil -p`.
    public var description: String { treeDescription() }

    /// Renders the tree in the style of `plutil -p`: `"key" => value`, arrays with their
    /// indices, data as a length and a hex prefix, dates in UTC.
    /// - Parameter maxDepth: containers deeper than this are shown as `…` (the value model
    ///   itself never holds more than the readers' depth limit).
    /// - Returns: the rendering, without a trailing newline.
    public func treeDescription(maxDepth: Int = 512) -> String {
        var out = ""
        render(into: &out, indent: 0, depth: 0, maxDepth: maxDepth)
        return out
    }

    private func render(into out: inout String, indent: Int, depth: Int, maxDepth: Int) {
        let pad = String(repeating: "  ", count: indent + 1)
        let closePad = String(repeating: "  ", count: indent)
        switch self {
        case .array(let items):
            if items.isEmpty { out += "[\n\(closePad)]"; return }
            if depth >= maxDepth { out += "[…]"; return }
            out += "[\n"
            for (i, item) in items.enumerated() {
                out += "\(pad)\(i) => "
                item.render(into: &out, indent: indent + 1, depth: depth + 1, maxDepth: maxDepth)
                out += "\n"
            }
            out += "\(closePad)]"
        case .dictionary(let members):
            if members.isEmpty { out += "{\n\(closePad)}"; return }
            if depth >= maxDepth { out += "{…}"; return }
            out += "{\n"
            for (key, value) in members {
                out += "\(pad)\(PFValue.quoted(key)) => "
                value.render(into: &out, indent: indent + 1, depth: depth + 1, maxDepth: maxDepth)
                out += "\n"
            }
            out += "\(closePad)}"
        default:
            out += scalarDescription
        }
    }

    /// A one-line rendering of a scalar (containers render as their element count).
    public var scalarDescription: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .uint(let u): return String(u)
        case .double(let d): return PFValue.shortest(d)
        case .string(let s): return PFValue.quoted(s)
        case .data(let d):
            let hex = d.prefix(16).map { String(format: "%02x", $0) }.joined()
            return "{length = \(d.count), bytes = 0x\(hex)\(d.count > 16 ? "…" : "")}"
        case .date(let d): return PFValue.isoString(d)
        case .array(let a): return "[\(a.count) items]"
        case .dictionary(let m): return "{\(m.count) keys}"
        case .uid(let u): return "<CF$UID \(u)>"
        }
    }

    /// A double as the shortest text that reads back to the same value.
    static func shortest(_ d: Double) -> String {
        if d.isNaN { return "nan" }
        if d.isInfinite { return d < 0 ? "-inf" : "+inf" }
        return d.description
    }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A date as ISO 8601 in UTC with milliseconds, such as `2011-06-10T18:33:42.123Z`.
    /// Dates outside years 0001–9999 or not finite fall back to seconds since 2001.
    public static func isoString(_ date: Date) -> String {
        PFDateFormat.iso8601Milliseconds(date) ?? "\(date.timeIntervalSinceReferenceDate)s since 2001-01-01"
    }
}
