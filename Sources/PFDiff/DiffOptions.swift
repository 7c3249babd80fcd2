import Foundation
import PFCore

/// A key path that may contain wildcards, as `--ignore` and `--unordered` take them:
/// `results[*].updatedAt`, `*.createdAt`, `meta["content-type"]`.
///
/// `*` as a whole key matches any one dictionary key; `[*]` matches any one array index.
/// A pattern matches a path when it has as many steps and every step matches.
public struct DiffPathPattern: Sendable, Hashable, CustomStringConvertible {
    /// One step of a pattern.
    public enum Step: Sendable, Hashable {
        /// This dictionary key.
        case key(String)
        /// This array index.
        case index(Int)
        /// Any dictionary key (`*`).
        case anyKey
        /// Any array index (`[*]`).
        case anyIndex
    }

    /// The steps from the root.
    public var steps: [Step]

    /// The text the pattern was parsed from.
    public let description: String

    /// Parses a pattern: the text form of ``PFCore/PFKeyPath`` where `[*]` is any index and a
    /// bare `*` key is any key.
    /// - Throws: ``PFCore/PFError`` `usage` when the text is not a path.
    public init(parsing text: String) throws(PFError) {
        description = text
        // `[*]` is not an index PFKeyPath accepts; swap it for a quoted marker key first.
        let marker = "\u{1}any-index\u{1}"
        var prepared = ""
        var rest = Substring(text)
        while let range = rest.range(of: "[*]") {
            prepared += rest[rest.startIndex..<range.lowerBound]
            prepared += "[\"\(marker)\"]"
            rest = rest[range.upperBound...]
        }
        prepared += rest
        let path: PFKeyPath
        do {
            path = try PFKeyPath(parsing: prepared)
        } catch {
            throw PFError(DiffFailure.badFieldPath(text), format: .diff)
        }
        steps = path.components.map { component in
            switch component {
            case .key(marker): .anyIndex
            case .index(let i): .index(i)
            case .key("*"): .anyKey
            case .key(let k): .key(k)
            }
        }
    }

    /// Whether the pattern matches this path exactly (same length, every step matching).
    public func matches(_ path: [PFKeyPath.Component]) -> Bool {
        guard path.count == steps.count else { return false }
        for (step, component) in zip(steps, path) {
            switch (step, component) {
            case (.anyKey, .key), (.anyIndex, .index): continue
            case (.key(let a), .key(let b)) where a == b: continue
            case (.index(let a), .index(let b)) where a == b: continue
            default: return false
            }
        }
        return true
    }
}

/// How ``ValueDiff`` compares two trees.
public struct DiffOptions: Sendable {
    /// How dates are compared.
    public enum DatePrecision: Sendable {
        /// Equal when they fall in the same millisecond (counted down, as ISO 8601 text with
        /// three decimals truncates): what JSON, Parse and most stores keep. The default.
        case milliseconds
        /// Equal only when their `timeIntervalSinceReferenceDate` is the same double.
        case exact
    }

    /// Compare numbers by numeric value whatever their type (`1`, `1.0` and `true` equal,
    /// `0.0` and `-0.0` equal). Off by default: type and content must both match.
    public var loose = false
    /// Dates to the millisecond (default) or exactly.
    public var datePrecision: DatePrecision = .milliseconds
    /// Paths whose values are not compared at all.
    public var ignore: [DiffPathPattern] = []
    /// Paths of arrays compared as multisets (order does not matter, counts do).
    public var unordered: [DiffPathPattern] = []
    /// Compare as object graphs in pfarchive's JSON shape (`$id`/`$ref`): `$id` numbers are
    /// not compared, a `{"$ref": N}` is compared by the path where object N first occurs, and a
    /// difference in sharing or in a cycle is reported as such. Set for keyed archives and
    /// typedstreams.
    public var graph = false
    /// Treat Parse typed values (dictionaries with a `__type` key: Pointer, File, GeoPoint, …)
    /// as single values, reported as a whole (`Pointer Team/a1 → Team/b2`).
    public var parseTypedValues = false

    /// The default: strict types, dates to the millisecond, nothing ignored.
    public init() {}

    func isIgnored(_ path: [PFKeyPath.Component]) -> Bool { ignore.contains { $0.matches(path) } }
    func isUnordered(_ path: [PFKeyPath.Component]) -> Bool { unordered.contains { $0.matches(path) } }
}
