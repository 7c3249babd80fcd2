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
        render(into: &out, indent: 0, depth: 0, maxDepth: maxDepth, spillBytes: .max, spill: { _ in })
        return out
    }

    /// Renders the tree as ``treeDescription(maxDepth:)`` does, handing the text on in pieces
    /// of about `spillBytes` as it grows, so a large tree's rendering is never held whole.
    /// A value that sits inside a larger tree (a record of a document read a record at a
    /// time) renders as it would there when given its place.
    /// - Parameters:
    ///   - out: the text so far; what is rendered is appended, and whatever `spill` leaves
    ///     in it when it returns stays (spill usually writes it out and empties it).
    ///   - indent: the nesting level the value sits at (`0` for the root).
    ///   - depth: the value's depth in its tree, counted against `maxDepth`.
    ///   - maxDepth: containers deeper than this are shown as `…`.
    ///   - spillBytes: how much text gathers in `out` before `spill` is called.
    ///   - spill: receives `out` when it holds `spillBytes` or more.
    /// - Throws: what `spill` throws.
    public func renderTree(
        into out: inout String, indent: Int = 0, depth: Int = 0, maxDepth: Int = 512, spillBytes: Int = 1 << 20,
        spill: (inout String) throws -> Void
    ) rethrows {
        try render(into: &out, indent: indent, depth: depth, maxDepth: maxDepth, spillBytes: spillBytes, spill: spill)
    }

    private func render(
        into out: inout String, indent: Int, depth: Int, maxDepth: Int, spillBytes: Int, spill: (inout String) throws -> Void
    ) rethrows {
        let pad = String(repeating: "  ", count: indent + 1)
        let closePad = String(repeating: "  ", count: indent)
        switch self {
        case .array(let items):
            if items.isEmpty { out += "[\n\(closePad)]"; return }
            if depth >= maxDepth { out += "[…]"; return }
            out += "[\n"
            for (i, item) in items.enumerated() {
                out += "\(pad)\(i) => "
                try item.render(into: &out, indent: indent + 1, depth: depth + 1, maxDepth: maxDepth, spillBytes: spillBytes, spill: spill)
                out += "\n"
                if out.utf8.count >= spillBytes { try spill(&out) }
            }
            out += "\(closePad)]"
        case .dictionary(let members):
            if members.isEmpty { out += "{\n\(closePad)}"; return }
            if depth >= maxDepth { out += "{…}"; return }
            out += "{\n"
            for (key, value) in members {
                out += "\(pad)\(PFValue.quoted(key)) => "
                try value.render(into: &out, indent: indent + 1, depth: depth + 1, maxDepth: maxDepth, spillBytes: spillBytes, spill: spill)
                out += "\n"
                if out.utf8.count >= spillBytes { try spill(&out) }
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
        case .array(let a): return "[\(a.count) item\(a.count == 1 ? "" : "s")]"
        case .dictionary(let m): return "{\(m.count) key\(m.count == 1 ? "" : "s")}"
        case .uid(let u): return "<CF$UID \(u)>"
        }
    }

    /// A double as the shortest text that reads back to the same value.
    static func shortest(_ d: Double) -> String {
        if d.isNaN { return "nan" }
        if d.isInfinite { return d < 0 ? "-inf" : "+inf" }
        return d.description
    }

    /// A string as the tree rendering shows it (and a dictionary's keys): in double quotes,
    /// with quotes, backslashes and control characters escaped.
    public static func quoted(_ s: String) -> String {
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
    /// Dates outside years 0000–9999 or not finite fall back to seconds since 2001.
    public static func isoString(_ date: Date) -> String {
        PFDateFormat.iso8601Milliseconds(date) ?? "\(date.timeIntervalSinceReferenceDate)s since 2001-01-01"
    }
}
