import Foundation
import PFCore
import PFParse
import PFStores
import Testing

/// A fresh directory under the system's temporary directory, removed by `cleanup()`.
struct MongoScratch {
    let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("pf-mongo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    /// `<root>/dump.jsonl`, not created.
    var dump: URL { root.appendingPathComponent("dump.jsonl") }

    func cleanup() { try? FileManager.default.removeItem(at: root) }

    /// The lines of a collection file.
    func lines(_ collection: String) throws -> [String] {
        let text = try String(contentsOf: dump.appendingPathComponent(collection + ".json"), encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// Writes a collection file by hand.
    func write(_ collection: String, _ lines: [String]) throws {
        try FileManager.default.createDirectory(at: dump, withIntermediateDirectories: true)
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: dump.appendingPathComponent(collection + ".json"))
    }

    /// Names in the root (the store and anything left beside it).
    func siblings() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root.path).sorted()
    }
}

/// A date from Parse's ISO text.
func isoDate(_ text: String) -> Date {
    ParseDate.date(from: text) ?? Date(timeIntervalSince1970: .nan)
}

/// Writes a memory store's objects and join rows into a Mongo directory in one commit.
func copyAll(_ source: MemoryStore, into store: MongoShapeStore) throws {
    try store.begin(schema: try source.schema())
    for name in try source.classNames() { try store.write(try source.objects(in: name), className: name) }
    for relation in try source.relations() { try store.write(try source.joinRows(of: relation), relation: relation) }
    try store.commit()
}

/// The PFError a closure throws, or a recorded issue.
func mongoError(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> PFError? {
    do {
        try body()
        Issue.record("expected an error", sourceLocation: sourceLocation)
    } catch let error as PFError {
        return error
    } catch {
        Issue.record("expected PFError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Compares two lists of objects and records what differs (the first field that does).
func expectSameObjects(_ got: [ParseObject], _ want: [ParseObject], _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
    guard got != want else { return }
    guard got.count == want.count else {
        Issue.record("\(label): \(got.count) objects, expected \(want.count)", sourceLocation: sourceLocation)
        return
    }
    for (g, w) in zip(got, want) where g != w {
        var what: [String] = []
        if g.objectId != w.objectId { what.append("objectId \(String(describing: g.objectId)) vs \(String(describing: w.objectId))") }
        if g.createdAt != w.createdAt || g.updatedAt != w.updatedAt { what.append("timestamps \(String(describing: g.createdAt)) vs \(String(describing: w.createdAt)), \(String(describing: g.updatedAt)) vs \(String(describing: w.updatedAt))") }
        if g.acl != w.acl { what.append("ACL \(String(describing: g.acl)) vs \(String(describing: w.acl))") }
        for key in Set(g.fields.keys).union(w.fields.keys) where g.fields[key] != w.fields[key] {
            what.append("\(key): \(String(describing: g.fields[key])) vs \(String(describing: w.fields[key]))")
        }
        let summary = what.joined(separator: "; ")
        Issue.record("\(label), object \(w.objectId ?? "-"): \(summary)", sourceLocation: sourceLocation)
        return
    }
}
