import Foundation
import OrderedCollections
import PFArchive

extension Inspect {
    /// A store `inspect` shows by its classes (``inspectStore(_:)``): pfarchive's own SQLite
    /// store, a Parse export (a directory or `.zip`) or the Mongo shape (a `.jsonl` directory).
    enum ShownStore {
        case sqlite, parseExport, mongoShape

        /// The `format` of `--json`.
        var format: String {
            switch self {
            case .sqlite: "pfarchive-sqlite"
            case .parseExport: "parse-export"
            case .mongoShape: "mongo"
            }
        }

        /// The `Format:` line.
        var title: String {
            switch self {
            case .sqlite: "pfarchive SQLite store"
            case .parseExport: "Parse export"
            case .mongoShape: "Parse Server MongoDB shape (mongoexport files)"
            }
        }
    }

    /// The store an input names when it is a directory or a `.zip` file: a `.jsonl` directory
    /// is the Mongo shape, any other directory or a `.zip` a Parse export (as `import` reads
    /// them); `nil` for anything else.
    func shownStore() throws -> ShownStore? {
        guard input != "-" else { return nil }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory) else { return nil }
        let kind: StoreKind
        do {
            kind = try StoreLocation.resolve(input).kind
        } catch {
            // A mongodump is named as one, not read as the bytes of a file.
            if case .mongodumpBSON? = error.failure(as: StoreFailure.self) { throw CLIFailure(error.message) }
            return nil
        }
        switch kind {
        case .mongoShape where isDirectory.boolValue: return .mongoShape
        case .parseExport where isDirectory.boolValue:
            return .parseExport
        case .parseExport where URL(fileURLWithPath: input).pathExtension.lowercased() == "zip":
            // A zip by its bytes too: any other file named .zip is inspected as what it holds.
            guard let handle = FileHandle(forReadingAtPath: input) else { return nil }
            defer { try? handle.close() }
            return ZipReader.isZip((try? handle.read(upToCount: 4)) ?? Data()) ? .parseExport : nil
        default: return nil
        }
    }

    /// Prints what a store holds (``ShownStore``): each class with its object count and
    /// fields (with their Parse types), and each Relation's join rows, as text or JSON. The
    /// store is read as `convert` and `import` read it, never written.
    func inspectStore(_ store: ShownStore) throws {
        let summary: PFValue
        do {
            let location = try StoreLocation.resolve(input)
            let reader = try StoreOpeners.commands().reader(for: location)
            defer { reader.close() }
            reader.warnUnread(file: input)
            summary = try Self.storeSummary(of: reader)
        } catch {
            throw CLIFailure(file: input, error)
        }
        if json {
            try writeJSONSummary(summary, format: store.format)
            return
        }
        var lines = ["File:        \(input)", "Format:      \(store.title)"]
        if summary["classes"]?.dictionaryValue?.isEmpty ?? true {
            lines.append(store == .parseExport ? "Classes:     none (no <Class>.json files)" : "Classes:     none")
        }
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
