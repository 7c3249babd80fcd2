import Foundation
import OrderedCollections
import PFCore

/// Rewrites our ``KeyedGraph/jsonValue(limits:)`` into the conventions of nska_deserialize 1.5.1,
/// so the two can be compared:
///
/// - nil and `NSNull` become `""` (nska writes `""` for nil; for `NSNull` it writes `{}`,
///   which the fixture tests patch in the oracle where they know an `NSNull` stands);
/// - `$class`, `$classes` and `$id` disappear, `$ref` is expanded (nska copies shared objects);
/// - a reference back to an object being expanded (a cycle) is dropped, except the root,
///   which nska expands once more: that is how nska "unrolls a cycle once";
/// - `NSUUID` becomes its uppercase string, dates `{"$date": ISO}` (Python's isoformat,
///   microseconds, UTC), data `{"$bytes_hex": hex}`;
/// - our extra `$` on `$`-prefixed keys is removed (nska shows keys as archived);
/// - `{"$top": {k: v}}` becomes `v` for one key (nska treats the single entry as the root),
///   else `{k: v, …}`.
struct NSKANormaliser {
    var definitions: [Int64: PFValue] = [:]

    static func normalise(_ json: PFValue) -> PFValue {
        var normaliser = NSKANormaliser()
        if case .dictionary(let members) = json, members.count == 1, case .dictionary(let top)? = members["$top"] {
            let annotated = top.mapValues { normaliser.annotate($0) }
            annotated.values.forEach { normaliser.collect($0) }
            if annotated.count == 1, let only = annotated.values.first {
                return normaliser.render(only, ancestors: [], isRoot: true) ?? ""
            }
            var out = OrderedDictionary<String, PFValue>()
            for (key, value) in annotated {
                if let v = normaliser.render(value, ancestors: [], isRoot: true) { out[Self.unescape(key)] = v }
            }
            return .dictionary(out)
        }
        let annotated = normaliser.annotate(json)
        normaliser.collect(annotated)
        return normaliser.render(annotated, ancestors: [], isRoot: true) ?? ""
    }

    static func unescape(_ key: String) -> String { key.hasPrefix("$$") ? String(key.dropFirst()) : key }

    var nextSyntheticID: Int64 = -1

    /// Gives every container without a `$id` a synthetic (negative) one: nska tracks
    /// ancestors by object, and an object referenced once (B in A→B→A) has no `$id` of ours.
    mutating func annotate(_ value: PFValue) -> PFValue {
        switch value {
        case .array(let items):
            let id = nextSyntheticID
            nextSyntheticID -= 1
            return ["$id": .int(id), "$value": .array(items.map { annotate($0) })]
        case .dictionary(let members):
            if members.count == 1, members["$ref"] != nil { return value }
            if members.count == 2, let inner = members["$value"], let id = members["$id"] {
                guard case .array(let items) = inner else {
                    guard case .dictionary(let entries) = inner else { return value }
                    return ["$id": id, "$value": .dictionary(entries.mapValues { annotate($0) })]
                }
                return ["$id": id, "$value": .array(items.map { annotate($0) })]
            }
            var out = members.mapValues { annotate($0) }
            if members["$id"] == nil {
                if members["$class"] != nil {
                    out["$id"] = .int(nextSyntheticID)
                } else {
                    nextSyntheticID -= 1
                    return ["$id": .int(nextSyntheticID + 1), "$value": .dictionary(out)]
                }
                nextSyntheticID -= 1
            }
            return .dictionary(out)
        default: return value
        }
    }

    mutating func collect(_ value: PFValue) {
        switch value {
        case .array(let items): items.forEach { collect($0) }
        case .dictionary(let members):
            if let id = members["$id"]?.int64Value {
                definitions[id] = members["$value"] != nil && members.count == 2 ? members["$value"]! : value
            }
            members.values.forEach { collect($0) }
        default: break
        }
    }

    /// `nil` means "nska drops this": a back-reference into the chain being expanded.
    func render(_ value: PFValue, ancestors: Set<Int64>, isRoot: Bool = false) -> PFValue? {
        switch value {
        case .null: return ""
        case .date(let d): return ["$date": .string(Self.pythonISO(d))]
        case .data(let d): return ["$bytes_hex": .string(d.map { String(format: "%02x", $0) }.joined())]
        case .array(let items): return .array(items.compactMap { render($0, ancestors: ancestors) })
        case .dictionary(let members):
            if members.count == 1, let id = members["$ref"]?.int64Value {
                guard !ancestors.contains(id), let definition = definitions[id] else { return nil }
                return render(definition, ancestors: ancestors)
            }
            var ancestors = ancestors
            if let id = members["$id"]?.int64Value, !isRoot {
                guard !ancestors.contains(id) else { return nil }
                ancestors.insert(id)
            }
            if members.count == 2, let inner = members["$value"], members["$id"] != nil {
                return render(inner, ancestors: ancestors)
            }
            if members["$class"]?.stringValue == "NSUUID", case .data(let bytes)? = members["NS.uuidbytes"], bytes.count == 16 {
                let b = Array(bytes)
                return .string(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])).uuidString)
            }
            var out = OrderedDictionary<String, PFValue>()
            for (key, member) in members where !["$class", "$classes", "$id"].contains(key) {
                if let v = render(member, ancestors: ancestors) { out[Self.unescape(key)] = v }
            }
            return .dictionary(out)
        default: return value
        }
    }

    /// `datetime(2001, 1, 1) + timedelta(seconds: t)`, then `isoformat()`.
    static func pythonISO(_ date: Date) -> String {
        let micros = (date.timeIntervalSinceReferenceDate * 1_000_000).rounded()
        let seconds = (micros / 1_000_000).rounded(.down)
        let fraction = Int(micros - seconds * 1_000_000)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSinceReferenceDate: seconds))
        var text = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
        if fraction != 0 { text += String(format: ".%06d", fraction) }
        return text
    }

    /// The oracle side: nska leaves dictionary-form `NSData`/`NSMutableData` as
    /// `{"NS.data": {"$bytes_hex": …}}`, where we decode the bytes; collapse that wrapper.
    static func collapseDataWrappers(_ value: PFValue) -> PFValue {
        switch value {
        case .array(let items): return .array(items.map(collapseDataWrappers))
        case .dictionary(let members):
            if members.count == 1, case .dictionary(let inner)? = members["NS.data"], inner.count == 1, inner["$bytes_hex"] != nil {
                return .dictionary(inner)
            }
            return .dictionary(members.mapValues(collapseDataWrappers))
        default: return value
        }
    }
}
