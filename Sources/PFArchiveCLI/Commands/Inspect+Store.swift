import Foundation
import OrderedCollections
import PFArchive

extension Inspect {
    /// Prints what pfarchive's own SQLite store holds: each class with its object count and
    /// fields (with their Parse types), and each Relation's join rows, as text or JSON. The
    /// store is read as `convert` and `import` read it, never written.
    func inspectStore(options: FormatIO.ReadOptions) throws {
        let summary: PFValue
        do {
            let location = try StoreLocation.resolve(input)
            let reader = try StoreOpeners.commands().reader(for: location)
            defer { reader.close() }
            summary = try Self.storeSummary(of: reader)
        } catch {
            throw CLIFailure(file: input, error)
        }
        if json {
            try writeJSONSummary(summary, format: "pfarchive-sqlite")
            return
        }
        var lines = ["File:        \(input)", "Format:      pfarchive SQLite store"]
        for (name, info) in summary["classes"]?.dictionaryValue ?? [:] {
            let count = info["objects"]?.scalarDescription ?? "0"
            lines.append("Class \(name) — \(count) object\(count == "1" ? "" : "s")")
            for (field, type) in info["fields"]?.dictionaryValue ?? [:] {
                lines.append("  \(field): \(type.stringValue ?? "?")")
            }
        }
        for (name, rows) in summary["relations"]?.dictionaryValue ?? [:] {
            lines.append("Relation \(name) — \(rows.scalarDescription) join row\(rows.int64Value == 1 ? "" : "s")")
        }
        try StandardOutput.write(lines.joined(separator: "\n") + "\n")
    }

    /// `{"classes": {Class: {"objects": n, "fields": {name: type}}}, "relations": {join class: rows}}`.
    static func storeSummary(of reader: any ObjectStoreReader) throws(PFError) -> PFValue {
        let schema = try reader.schema()
        var classes = OrderedDictionary<String, PFValue>()
        for className in try reader.classNames() {
            var count = 0
            try reader.forEachObject(in: className) { (_: ParseObject) throws(PFError) in count += 1 }
            var fields = OrderedDictionary<String, PFValue>()
            for (name, field) in schema.classes[className] ?? [:] { fields[name] = .string(field.description) }
            classes[className] = ["objects": .int(Int64(count)), "fields": .dictionary(fields)]
        }
        var relations = OrderedDictionary<String, PFValue>()
        for relation in try reader.relations() {
            var rows = 0
            try reader.forEachJoinRow(of: relation) { (_: ParseJoinRow) throws(PFError) in rows += 1 }
            relations[relation.joinClassName] = .int(Int64(rows))
        }
        return ["classes": .dictionary(classes), "relations": .dictionary(relations)]
    }
}
