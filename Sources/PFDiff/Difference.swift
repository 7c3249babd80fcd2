import Foundation
import PFCore
import PFParse

/// One difference between two values or stores, as `pfarchive diff` prints it.
public struct Difference: Sendable, Equatable, CustomStringConvertible {
    /// What kind of difference.
    public enum Kind: String, Sendable, CaseIterable {
        /// Present in B only (`+ path: value`).
        case added
        /// Present in A only (`- path: value`).
        case removed
        /// Present in both with different values or types (`path: old → new`).
        case changed
        /// The same values, shared differently: one object referenced twice versus two equal
        /// copies, or a reference that closes a cycle on one side only (`~ path: …`).
        case sharing
    }

    /// The kind.
    public var kind: Kind
    /// What the path starts from: empty for a plain value, `Player/x7Tq` for a store's object,
    /// `schema Player` for a class's schema, `_Join:rivals:Player` for a relation.
    public var subject: String
    /// The key path from the subject (the root for a whole object or row).
    public var path: PFKeyPath
    /// The value in A (nil when added).
    public var old: PFValue?
    /// The value in B (nil when removed).
    public var new: PFValue?
    /// For ``Kind/sharing``: what is shared where, with both paths.
    public var note: String?

    /// Makes a difference.
    public init(_ kind: Kind, subject: String = "", path: PFKeyPath = .root, old: PFValue? = nil, new: PFValue? = nil, note: String? = nil) {
        self.kind = kind
        self.subject = subject
        self.path = path
        self.old = old
        self.new = new
        self.note = note
    }

    /// Where: the subject and the path (`Player/x7Tq.team`, `results[3].score`, `(root)`).
    public var location: String {
        if subject.isEmpty { return path.description }
        if path.isRoot { return subject }
        let tail = path.description
        return tail.hasPrefix("[") ? subject + tail : subject + "." + tail
    }

    /// The line `pfarchive diff` prints.
    public var description: String {
        switch kind {
        case .added:
            return new.map { "+ \(location): \(Difference.render($0))" } ?? "+ \(location)"
        case .removed:
            return old.map { "- \(location): \(Difference.render($0))" } ?? "- \(location)"
        case .changed:
            var before = Difference.render(old ?? .null)
            var after = Difference.render(new ?? .null)
            if before == after {
                // Two values one line cannot tell apart (`File a.png` with and without its URL,
                // as a store keeping only the name gives it back): the whole of each.
                before = Difference.renderInFull(old ?? .null)
                after = Difference.renderInFull(new ?? .null)
            }
            // `Pointer Team/a1 → Team/b2`: the second of two pointers drops the word.
            let pointer = "\(ParseFieldType.pointer) "
            if before.hasPrefix(pointer), after.hasPrefix(pointer) { after.removeFirst(pointer.count) }
            return "\(location): \(before) → \(after)"
        case .sharing:
            return "~ \(location): \(note ?? "shared differently")"
        }
    }

    /// A value with every member of a Parse typed value or container (`File a.png (url
    /// https://…)`, `{"a": 1, "b": [2]}`), for two values ``render(_:)`` shows the same.
    static func renderInFull(_ value: PFValue) -> String {
        if case .dictionary(let members) = value, members["__type"]?.stringValue == ParseFieldType.file.rawValue {
            return render(value) + (members["url"]?.stringValue.map { " (url \($0))" } ?? " (no url)")
        }
        switch value {
        case .dictionary(let members):
            return "{" + members.map { "\($0.key.debugDescription): \(renderInFull($0.value))" }.joined(separator: ", ") + "}"
        case .array(let items):
            return "[" + items.map(renderInFull).joined(separator: ", ") + "]"
        default:
            return value.scalarDescription
        }
    }

    /// A one-line rendering of a value: scalars as `PFValue.scalarDescription`, containers by
    /// their size, Parse typed values by their content (`Pointer Team/a1`, `File a.png`).
    public static func render(_ value: PFValue) -> String {
        if case .dictionary(let members) = value, let name = members["__type"]?.stringValue {
            // A REST value's `__type` names its field type, which starts the rendering.
            let type = ParseFieldType(rawValue: name)
            switch type {
            case .pointer:
                return "\(type) \(members["className"]?.stringValue ?? "?")/\(members["objectId"]?.stringValue ?? "?")"
            case .file: return "\(type) \(members["name"]?.stringValue ?? "?")"
            case .geoPoint:
                return "\(type)(\(members["latitude"].map { $0.scalarDescription } ?? "?"), \(members["longitude"].map { $0.scalarDescription } ?? "?"))"
            case .relation: return "\(type)<\(members["className"]?.stringValue ?? "?")>"
            default: break
            }
        }
        return value.scalarDescription
    }
}
