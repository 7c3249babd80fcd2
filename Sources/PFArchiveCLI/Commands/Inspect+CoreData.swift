import Foundation
import PFArchive

extension Inspect {
    /// Whether the input is an SQLite file (by its 16-byte header), so `inspect` reads it as a
    /// Core Data store instead of a serialized value.
    func isSQLiteFile() -> Bool {
        // Only a regular file: reading the header of a FIFO or `<(…)` would consume it.
        var info = stat()
        guard input != "-", stat(input, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
            let handle = FileHandle(forReadingAtPath: input)
        else { return false }
        defer { try? handle.close() }
        return CoreDataStore.hasSQLiteHeader((try? handle.read(upToCount: 16)) ?? Data())
    }

    /// Prints a Core Data store's recovered model and row counts, as text, JSON, or (with
    /// `--graph`) the entity graph in DOT.
    func inspectCoreData(options: FormatIO.ReadOptions) throws {
        let text: String
        do {
            let store = try CoreDataStore.open(
                url: URL(fileURLWithPath: input), options: .init(limits: options.limits, includeHistory: internalTables))
            defer { store.close() }
            UnreadWarnings.show(try store.unreadNotes(), file: input)
            let summary = try store.summary(census: !graphRequested)
            if graphRequested {
                var counts: [String: Int] = [:]
                for entity in store.entities { counts[entity.name] = try store.rowCount(entity: entity.name) }
                try emitGraph(store.dotDescription(rowCounts: counts))
                return
            }
            if json {
                try writeJSONSummary(summary, format: "coredata")
                return
            } else {
                text = Self.coreDataText(file: input, summary: summary)
            }
        } catch let error as PFError {
            throw CLIFailure(file: input, error)
        }
        try StandardOutput.write(text.hasSuffix("\n") ? text : text + "\n")
    }

    static func coreDataText(file: String, summary: PFValue) -> String {
        var lines = [
            "File:        \(file)",
            "Format:      Core Data SQLite store" + (summary["frameworkVersion"].flatMap { $0 == .null ? nil : $0.scalarDescription }.map { " (framework version \($0))" } ?? " (no framework version in its metadata)"),
            "Store UUID:  \(summary["storeUUID"]?.stringValue ?? "none")",
            "Model:       \(summary["modelSource"]?.stringValue ?? "?")",
        ]
        if let error = summary["modelCacheError"]?.stringValue { lines.append("Model cache: unusable: \(error)") }
        for (name, entity) in summary["entities"]?.dictionaryValue ?? [:] {
            var head = "Entity \(name)"
            if let parent = entity["superentity"]?.stringValue { head += " : \(parent)" }
            if entity["abstract"]?.boolValue == true { head += " (abstract)" }
            head += " — table \(entity["table"]?.stringValue ?? "none"), Z_ENT \(entity["entityID"]?.scalarDescription ?? "?"), "
                + SQLiteInput.rows(entity["rows"])
            lines.append(head)
            let blobs = entity["blobs"]?.dictionaryValue ?? [:]
            for (attribute, type) in entity["attributes"]?.dictionaryValue ?? [:] {
                var line = "  \(attribute): \(type.stringValue ?? "?")"
                if let kinds = blobs[attribute]?.dictionaryValue {
                    line += " — " + CoreDataStore.censusText(kinds.compactMapValues { $0.int64Value.flatMap { Int(exactly: $0) } })
                }
                lines.append(line)
            }
            for (relationship, info) in entity["relationships"]?.dictionaryValue ?? [:] {
                var text = "  \(relationship) -> \(info["destination"]?.stringValue ?? "?") ("
                text += info["toMany"]?.boolValue == true ? "to-many" : "to-one"
                if info["ordered"]?.boolValue == true { text += ", ordered" }
                if let inverse = info["inverse"]?.stringValue { text += ", inverse \(inverse)" }
                lines.append(text + ")")
            }
            for (property, reason) in entity["unmapped"]?.dictionaryValue ?? [:] {
                lines.append("  \(property): not read: \(reason.stringValue ?? "")")
            }
        }
        if let history = summary["historyLeftOut"]?.dictionaryValue, !history.isEmpty {
            let tables = history.map { "\($0.key) (\($0.value == .null ? "rows unknown" : SQLiteInput.rows($0.value)))" }.joined(separator: ", ")
            lines.append("Persistent history (left out of conversions; --internal-tables reads it): \(tables)")
        }
        let guesses = summary["guesses"]?.arrayValue ?? []
        if !guesses.isEmpty {
            lines.append("Guesses:")
            lines += guesses.map { "  - \($0.stringValue ?? "")" }
        }
        return lines.joined(separator: "\n")
    }
}
