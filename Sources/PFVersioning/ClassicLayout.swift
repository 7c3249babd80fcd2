import OrderedCollections
import PFCore

/// Classic (typedstream) objects store values by position, not by name. A schema's
/// `classic` layouts name the positions per version, so a classic object can be lifted to
/// named fields for migration and lowered back to value groups afterwards.
public enum ClassicLayout {
    /// Turns `{"$class", "$version", "$values": [groups]}` objects of described types into
    /// named fields, using the layout of each object's recorded version. Objects whose type
    /// or version has no layout keep their groups (and pass through unchanged).
    /// - Throws: ``PFCore/PFError`` `invalidValue` when an object has more or fewer values
    ///   than its layout names.
    public static func lift(_ tree: PFValue, schema: ArchiveSchema, limits: PFLimits = .default) throws(PFError) -> PFValue {
        try lift(tree, schema: schema, path: .root, depth: 0, limits: limits)
    }

    static func lift(_ value: PFValue, schema: ArchiveSchema, path: PFCodingPath, depth: Int, limits: PFLimits) throws(PFError) -> PFValue {
        guard depth < limits.maxDepth else { throw PFLimits.exceeded("maxDepth", limits.maxDepth, format: .migration) }
        switch value {
        case .array(let items):
            var out: [PFValue] = []
            for (i, item) in items.enumerated() { out.append(try lift(item, schema: schema, path: path.appending(index: i), depth: depth + 1, limits: limits)) }
            return .array(out)
        case .dictionary(let members):
            guard let className = members["$class"]?.stringValue, case .array(let groups)? = members["$values"],
                let type = schema.type(forClassName: className),
                let layout = type.classicLayouts[members["$version"].flatMap(\.int64Value).flatMap { Int(exactly: $0) } ?? 0]
            else {
                var out = members
                for (key, item) in members {
                    out[key] = try lift(item, schema: schema, path: path.appending(key: key), depth: depth + 1, limits: limits)
                }
                return .dictionary(out)
            }
            var values: [PFValue] = []
            for group in groups { values.append(contentsOf: group["values"]?.arrayValue ?? []) }
            let version = members["$version"]?.int64Value ?? 0
            guard values.count == layout.count else {
                throw PFError(
                    VersioningFailure.classicValueCount(className: className, version: version, values: values.count, layout: layout),
                    format: .migration, path: path.keyPath)
            }
            var out = OrderedDictionary<String, PFValue>()
            for (key, item) in members where metadataKeys.contains(key) { out[key] = item }
            for (name, item) in zip(layout, values) {
                out[name] = try lift(item, schema: schema, path: path.appending(key: name), depth: depth + 1, limits: limits)
            }
            return .dictionary(out)
        default:
            return value
        }
    }

    /// Turns named-field objects of described types back into value groups, one group per
    /// field in the layout of the object's version, typed from the schema (`c` bool, `i`
    /// int32, `q` int64, `d` double, `@` for everything else).
    /// - Returns: the tree and the fields that no layout position holds (dropped, since a
    ///   classic archive has nowhere to keep them).
    /// - Throws: ``PFCore/PFError`` `invalidValue` when a described object's version has no
    ///   layout or lacks a non-optional field the layout names.
    public static func lower(_ tree: PFValue, schema: ArchiveSchema, limits: PFLimits = .default) throws(PFError)
        -> (tree: PFValue, dropped: [String])
    {
        var dropped: [String] = []
        let out = try lower(tree, schema: schema, path: .root, depth: 0, limits: limits, dropped: &dropped)
        return (out, dropped)
    }

    static func lower(
        _ value: PFValue, schema: ArchiveSchema, path: PFCodingPath, depth: Int, limits: PFLimits, dropped: inout [String]
    ) throws(PFError) -> PFValue {
        guard depth < limits.maxDepth else { throw PFLimits.exceeded("maxDepth", limits.maxDepth, format: .migration) }
        switch value {
        case .array(let items):
            var out: [PFValue] = []
            for (i, item) in items.enumerated() {
                out.append(try lower(item, schema: schema, path: path.appending(index: i), depth: depth + 1, limits: limits, dropped: &dropped))
            }
            return .array(out)
        case .dictionary(let members):
            guard let className = members["$class"]?.stringValue, members["$values"] == nil,
                let type = schema.type(forClassName: className)
            else {
                var out = members
                for (key, item) in members {
                    out[key] = try lower(item, schema: schema, path: path.appending(key: key), depth: depth + 1, limits: limits, dropped: &dropped)
                }
                return .dictionary(out)
            }
            let version = members["$version"].flatMap(\.int64Value).flatMap { Int(exactly: $0) } ?? 0
            guard let layout = type.classicLayouts[version] else {
                throw PFError(VersioningFailure.noClassicLayout(type: type.name, version: version), format: .migration, path: path.keyPath)
            }
            var out = OrderedDictionary<String, PFValue>()
            for (key, item) in members where metadataKeys.contains(key) { out[key] = item }
            var groups: [PFValue] = []
            for name in layout {
                let field = type.fields.first { $0.name == name }
                var item = members[name] ?? .null
                if members[name] == nil, field?.optional != true {
                    throw PFError(
                        VersioningFailure.classicFieldMissing(type: type.name, version: version, field: name), format: .migration,
                        path: path.appending(key: name).keyPath)
                }
                item = try lower(item, schema: schema, path: path.appending(key: name), depth: depth + 1, limits: limits, dropped: &dropped)
                groups.append(.dictionary(["types": .string(encoding(for: field?.type, value: item)), "values": .array([item])]))
            }
            for key in members.keys where !metadataKeys.contains(key) && !layout.contains(key) {
                dropped.append("\(path.keyPath.isRoot ? "(root)" : path.keyPath.description).\(key)")
            }
            out["$values"] = .array(groups)
            return .dictionary(out)
        default:
            return value
        }
    }

    /// The type encoding a field is written with.
    static func encoding(for type: FieldType?, value: PFValue) -> String {
        switch type {
        case .bool?: return "c"
        case .int32?: return "i"
        case .int64?: return "q"
        case .double?: return "d"
        case nil:
            switch value {
            case .bool: return "c"
            case .int: return "q"
            case .uint: return "Q"
            case .double: return "d"
            default: return "@"
            }
        default: return "@"
        }
    }
}
