import Foundation
import PFCore
import PFParse
import PFSQLiteStore
import PFStoreTestSupport
import PFStores
import PFTestSupport
import PropertyBased
import Testing

/// The round trip issue 9 asks for: Parse export → SQLite → keyed archive → Mongo shape →
/// Parse export gives back the same objects, every field type, ACLs, relations, pointers and
/// dates to the millisecond — on random generated stores and on the real Parse.com export.
@Suite struct StoreChainTests {
    /// Runs the chain and returns the first difference between the start and the end.
    static func chain(_ original: any ObjectStoreReader) throws -> String? {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pf-chain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let steps: [(any ObjectStoreReader & ObjectStoreWriter)] = [
            ParseExportStore(url: root.appendingPathComponent("export")),
            SQLiteStore(url: root.appendingPathComponent("store.sqlite")),
            KeyedArchiveStore(url: root.appendingPathComponent("store.archive")),
            MongoShapeStore(directory: root.appendingPathComponent("dump.jsonl")),
            ParseExportStore(url: root.appendingPathComponent("back.zip")),
        ]
        var source: any ObjectStoreReader = original
        for step in steps {
            try StoreTransfer.copy(from: source, to: step, batchSize: 5)
            source = step
        }
        defer { for step in steps { step.close() } }
        return try StoreComparison.firstDifference(expected: withRelationFields(original), actual: source, schema: .covers)
    }

    /// What the Mongo shape documents as parse-server's own (Docs/Stores.md), applied to the
    /// expected store: every object of a class gets each Relation field of its schema, and a
    /// top-level File keeps its name only (parse-server derives the URL from its config).
    static func withRelationFields(_ store: any ObjectStoreReader) throws -> MemoryStore {
        let schema = try store.schema()
        var objects: [ParseObject] = []
        for className in try store.classNames() {
            let relations = (schema.classes[className] ?? [:]).filter { $0.value.type == .relation }
            try store.forEachObject(in: className) { object throws(PFError) in
                var fields = object.fields
                for (key, value) in fields {
                    if case .file(let file) = value { fields[key] = .file(ParseFile(name: file.name)) }
                }
                for (key, field) in relations where fields[key] == nil {
                    fields[key] = .relation(className: field.targetClass ?? "")
                }
                objects.append(
                    try ParseObject(
                        className: object.className, objectId: object.objectId, createdAt: object.createdAt,
                        updatedAt: object.updatedAt, acl: object.acl, fields: fields))
            }
        }
        var joins: [ParseRelationKey: [ParseJoinRow]] = [:]
        for relation in try store.relations() { joins[relation] = try store.joinRows(of: relation) }
        return MemoryStore(location: store.location, objects: objects, joinRows: joins, schema: schema)
    }

    @Test func generatedStoresSurviveEveryStore() async {
        await propertyCheck(count: 25, input: StoreGen.store(.chain)) { generated in
            do {
                let diff = try Self.chain(generated.memoryStore())
                #expect(diff == nil, "\(diff ?? "")\n\(generated)")
            } catch {
                Issue.record("\(error)\n\(generated)")
            }
        }
    }

    @Test func theRealParseComExportSurvivesEveryStore() throws {
        let export = ParseExportStore(url: Fixtures.real.appendingPathComponent("parse"))
        defer { export.close() }
        let diff = try Self.chain(export)
        #expect(diff == nil, "\(diff ?? "")")
    }
}

extension StoreShape {
    /// What every store in the chain holds losslessly.
    static var chain: StoreShape { StoreShape() }
}
