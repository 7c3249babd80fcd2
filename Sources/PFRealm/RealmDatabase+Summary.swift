import OrderedCollections
import PFCore

extension RealmColumn {
    /// The property's type as Realm's schema language writes it: `string`, `int?`,
    /// `Dog?` (a link), `list<Dog>`, `set<int?>`, `dictionary<string, mixed>`.
    public var typeDescription: String {
        let isLink = type == .link || type == .linkList
        var element = isLink ? (targetClass ?? "object") : type.description
        if isNullable && !(isLink && collection != .none) && type != .mixed { element += "?" }
        switch collection {
        case .none: return element
        case .list: return "list<\(element)>"
        case .set: return "set<\(element)>"
        case .dictionary: return "dictionary<string, \(element)>"
        }
    }
}

extension RealmDatabase {
    /// What `pfarchive inspect` shows: the format version and form, each model class with
    /// its properties (type, optional or required, indexed, link target), primary key,
    /// whether it is embedded, its inverse relationships and its object count, and the
    /// internal tables with their counts.
    /// - Parameter includeInternal: also describe each internal or sync table in `classes`
    ///   (under its table name, with `"internal": true`), as the model classes are.
    public func summary(includeInternal: Bool = false) throws(PFError) -> PFValue {
        var classes = OrderedDictionary<String, PFValue>()
        var internalTables = OrderedDictionary<String, PFValue>()
        for table in tables {
            let count = PFValue.int(Int64(try objectCount(table)))
            if !table.isModelClass {
                internalTables[table.tableName] = count
                guard includeInternal else { continue }
            }
            var properties = OrderedDictionary<String, PFValue>()
            for column in table.columns {
                var p: OrderedDictionary<String, PFValue> = [
                    "type": .string(column.typeDescription), "optional": .bool(column.isNullable),
                ]
                if column.collection != .none { p["collection"] = .string(column.collection.rawValue) }
                if let target = column.targetClass { p["target"] = .string(target) }
                if column.isIndexed { p["indexed"] = true }
                if column.name == table.primaryKey { p["primaryKey"] = true }
                properties[column.name] = .dictionary(p)
            }
            var entry: OrderedDictionary<String, PFValue> = [
                "table": .string(table.tableName), "objects": count, "embedded": .bool(table.isEmbedded),
            ]
            if !table.isModelClass { entry["internal"] = true }
            if let pk = table.primaryKey { entry["primaryKey"] = .string(pk) }
            entry["properties"] = .dictionary(properties)
            let inverses = table.backlinks.compactMap { b in
                b.targetClass.map { PFValue.string("\($0).\(b.originProperty ?? "?")") }
            }
            if !inverses.isEmpty { entry["linkedFrom"] = .array(inverses) }
            classes[table.isModelClass ? table.name : table.tableName] = .dictionary(entry)
        }
        return [
            "formatVersion": .int(Int64(file.formatVersion)),
            "form": .string(
                file.isNeverCommitted ? "never committed: no classes" : file.isStreamingForm ? "streaming (top reference in the footer)" : "normal"),
            "classes": .dictionary(classes),
            "internalTables": .dictionary(internalTables),
        ]
    }

    /// ``summary()`` as text lines for `pfarchive inspect`.
    public static func summaryText(file: String, summary: PFValue) -> [String] {
        var lines = [
            "File:        \(file)",
            "Format:      Realm file format \(summary["formatVersion"]?.int64Value.map(String.init) ?? "?") (\(summary["form"]?.stringValue ?? "?"))",
        ]
        for (name, entry) in summary["classes"]?.dictionaryValue ?? [:] {
            var head = entry["internal"]?.boolValue == true ? "Internal table \(name)" : "Class \(name)"
            if entry["embedded"]?.boolValue == true { head += " (embedded)" }
            if let pk = entry["primaryKey"]?.stringValue { head += ", primary key \(pk)" }
            let count = entry["objects"]?.int64Value ?? 0
            head += " — \(count) object\(count == 1 ? "" : "s")"
            lines.append(head)
            for (property, info) in entry["properties"]?.dictionaryValue ?? [:] {
                var line = "  \(property): \(info["type"]?.stringValue ?? "?")"
                var notes: [String] = []
                notes.append(info["optional"]?.boolValue == true ? "optional" : "required")
                if info["indexed"]?.boolValue == true { notes.append("indexed") }
                if info["primaryKey"]?.boolValue == true { notes.append("primary key") }
                line += " (" + notes.joined(separator: ", ") + ")"
                lines.append(line)
            }
            for inverse in entry["linkedFrom"]?.arrayValue ?? [] {
                lines.append("  linked from \(inverse.stringValue ?? "?")")
            }
        }
        let internalTables = summary["internalTables"]?.dictionaryValue ?? [:]
        // Listed once: with --internal-tables each is shown above, as the classes are.
        let shown = summary["classes"]?.dictionaryValue?.values.contains { $0["internal"]?.boolValue == true } ?? false
        if !internalTables.isEmpty && !shown {
            lines.append(
                "Internal tables (left out of conversions; --internal-tables shows them): "
                    + internalTables.map { "\($0.key) (\($0.value.int64Value ?? 0))" }.joined(separator: ", "))
        }
        return lines
    }
}
