import Foundation
import OrderedCollections
import PFCore

/// The JSON shape of a value that need not become a ``PFCore/PFValue`` tree to be written
/// (see ``JSONWriter/appendPlain(_:to:)``): its scalar, its elements or members, or
/// ``other`` when only its `PFValue` form can say how it is written.
@usableFromInline
package enum JSONPlainShape<Value> {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([Value])
    case object(OrderedDictionary<String, Value>)
    /// Written only through its `PFValue` form (a typed value, say).
    case other
}

/// A value tree the writer can walk itself (Parse's values, whose plain cases are JSON's).
@usableFromInline
package protocol JSONPlainValue {
    /// The value's shape: exactly the `PFValue` its caller would otherwise write, case for
    /// case, or ``JSONPlainShape/other``.
    var plainShape: JSONPlainShape<Self> { get }
}

extension JSONWriter {
    /// Appends the text ``write(_:into:)`` writes for a plain value's `PFValue` form, without
    /// building that tree: for the plain values most small documents hold (a PostgreSQL
    /// store's `jsonb` columns, one value per row of a COPY). Straight into `out`, through the
    /// writer's own scalar spellings; compact text only.
    ///
    /// Returns `false`, with `out` as it was, when the value (or something inside it) is
    /// ``JSONPlainShape/other``, deeper than `maxDepth`, or would be refused (NaN, ±infinity,
    /// U+0000 in `jsonb` text), and when the options are not compact native ones: the caller
    /// then writes the `PFValue` form with ``write(_:into:)``, which reports the refusal.
    /// - Parameters:
    ///   - value: the value.
    ///   - out: where the text goes.
    /// - Returns: whether the value was written.
    // Inlinable, so the caller's module specializes the walk for its value type (unspecialized,
    // each value's shape came through witness tables and metadata look-ups: 4,900 instructions
    // per `jsonb` cell of an import into PostgreSQL).
    @inlinable
    package func appendPlain<Value: JSONPlainValue>(_ value: Value, to out: inout [UInt8]) -> Bool {
        guard options.engine == .native, !options.pretty, !options.sortedKeys else { return false }
        let start = out.count
        guard appendPlain(value, depth: 0, to: &out) else {
            out.removeSubrange(start...)
            return false
        }
        return true
    }

    @inlinable
    func appendPlain<Value: JSONPlainValue>(_ value: Value, depth: Int, to out: inout [UInt8]) -> Bool {
        switch value.plainShape {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let i): JSONText.appendInteger(i, to: &out)
        case .double(let d):
            guard JSONText.appendDouble(d, jsonb: options.jsonb, to: &out) else { return false }
        case .string(let s):
            guard appendPlain(s, to: &out) else { return false }
        case .array(let items):
            guard depth < options.maxDepth else { return false }
            out.append(UInt8(ascii: "["))
            for k in items.indices {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                guard appendPlain(items[k], depth: depth + 1, to: &out) else { return false }
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            guard depth < options.maxDepth else { return false }
            out.append(UInt8(ascii: "{"))
            for k in members.keys.indices {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                guard appendPlain(members.keys[k], to: &out) else { return false }
                out.append(UInt8(ascii: ":"))
                guard appendPlain(members.values[k], depth: depth + 1, to: &out) else { return false }
            }
            out.append(UInt8(ascii: "}"))
        case .other:
            return false
        }
        return true
    }

    /// A quoted string, or `false` for one the writer refuses (U+0000 in `jsonb` text).
    @usableFromInline
    func appendPlain(_ s: String, to out: inout [UInt8]) -> Bool {
        var s = s
        // Most strings (and nearly every key) need no escape: one scan finds that (U+0000,
        // which `jsonb` refuses, is a control character, so it is never in such a string),
        // and the bytes go in with one copy.
        if !options.escapeSlashes {
            let done = s.withUTF8 { bytes in
                guard !JSONText.needsEscape(bytes) else { return false }
                out.append(UInt8(ascii: "\""))
                out.append(contentsOf: bytes)
                out.append(UInt8(ascii: "\""))
                return true
            }
            if done { return true }
        }
        if options.jsonb {
            guard !s.withUTF8({ $0.contains(0) }) else { return false }
        }
        JSONText.appendString(s, escapingSlashes: options.escapeSlashes, into: &out)
        return true
    }
}
