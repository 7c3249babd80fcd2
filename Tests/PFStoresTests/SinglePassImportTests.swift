import Foundation
import PFCore
import PFParse
import PFStoreTestSupport
import PFStores
import PropertyBased
import Testing

/// A reader that counts the objects it hands over, around a real store: it shows how often an
/// import reads the source.
final class CountingReader: ObjectStoreReader {
    let base: any ObjectStoreReader
    private(set) var objectsRead = 0

    init(_ base: any ObjectStoreReader) { self.base = base }

    var location: String { base.location }
    func classNames() throws(PFError) -> [String] { try base.classNames() }
    func schema() throws(PFError) -> ParseSchema { try base.schema() }
    func declaredSchema() throws(PFError) -> ParseSchema? { try base.declaredSchema() }
    func estimatedObjectCount(in className: String) -> Int? { base.estimatedObjectCount(in: className) }
    func forEachObject(in className: String, _ body: (ParseObject) throws(PFError) -> Void) throws(PFError) {
        try base.forEachObject(in: className) { object throws(PFError) in
            objectsRead += 1
            try body(object)
        }
    }
    func relations() throws(PFError) -> [ParseRelationKey] { try base.relations() }
    func forEachJoinRow(of relation: ParseRelationKey, _ body: (ParseJoinRow) throws(PFError) -> Void) throws(PFError) {
        try base.forEachJoinRow(of: relation, body)
    }
    func close() { base.close() }
}

/// An export without `_SCHEMA.json` is read once by an import: its schema is inferred on the
/// way, and the destination ends up with the same schema a separate inference gives.
@Suite struct SinglePassImportTests {
    /// Writes a generated store as an export directory and removes its `_SCHEMA.json`.
    static func schemalessExport(_ generated: GeneratedStore, in scratch: Scratch) throws -> URL {
        let url = scratch.path("export")
        try StoreTransfer.copy(from: generated.memoryStore(), to: ParseExportStore(url: url))
        try FileManager.default.removeItem(at: url.appendingPathComponent(ParseExportStore.schemaFileName))
        return url
    }

    @Test func anExportWithoutASchemaFileIsReadOnce() async {
        await propertyCheck(count: 25, input: StoreGen.store(.parseExport)) { generated in
            do {
                let scratch = try Scratch()
                let url = try Self.schemalessExport(generated, in: scratch)
                for workers in [1, 2] {
                    let options = ParseExportStore.Options(chunkSize: 53, workers: workers)
                    let source = ParseExportStore(url: url, options: options)
                    #expect(try source.declaredSchema() == nil)
                    let counting = CountingReader(source)
                    let destination = MemoryStore()
                    let report = try StoreImporter(options: .init(batchSize: 3)).run(from: counting, to: destination)
                    #expect(counting.objectsRead == report.totalObjects, "every object read once")
                    #expect(try source.declaredSchema() != nil, "the import's pass inferred every class")
                    // The same objects, relations and schema as a fresh, separate reading, but for
                    // the relation targets the import inferred from the related ids (the
                    // export's schema does not name them).
                    let fresh = ParseExportStore(url: url, options: options)
                    let diff = try StoreComparison.firstDifference(expected: fresh, actual: destination, schema: .ignored)
                    #expect(diff == nil, "workers \(workers): \(diff ?? "")\n\(generated)")
                    var expected = try fresh.schema()
                    var relations = try fresh.relations()
                    for finding in report.relationTargets {
                        guard let target = finding.relation.targetClass else { continue }
                        expected.classes[finding.relation.owningClass]?[finding.relation.field]?.targetClass = target
                        if let i = relations.firstIndex(where: { $0.joinClassName == finding.relation.joinClassName }) { relations[i].targetClass = target }
                    }
                    let schemaDiff = StoreComparison.schemaDifference(expected, try destination.schema())
                    #expect(schemaDiff == nil, "workers \(workers): \(schemaDiff ?? "")\n\(generated)")
                    #expect(try destination.relations() == relations)
                    // Every inferred target is the class the generated store declared.
                    for finding in report.relationTargets {
                        if case .inferred(let target) = finding.outcome {
                            let declared = generated.schema.classes[finding.relation.owningClass]?[finding.relation.field]?.targetClass
                            #expect(declared == nil || declared == target, "\(finding)")
                        }
                    }
                }
            } catch {
                Issue.record("\(error)\n\(generated)")
            }
        }
    }

    @Test func theRealExportImportsInOnePassWithItsRelationTarget() throws {
        let counting = CountingReader(ParseExportStore(url: realExport))
        let destination = MemoryStore()
        let report = try StoreImporter().run(from: counting, to: destination)
        #expect(counting.objectsRead == report.totalObjects)
        #expect(try destination.relations() == [ParseRelationKey(owningClass: "_Role", field: "users", targetClass: "_User")])
        let diff = StoreComparison.schemaDifference(try ParseExportStore(url: realExport).schema(), try destination.schema())
        #expect(diff == nil, "\(diff ?? "")")
    }

    @Test func aSchemaFileNamingEveryClassIsDeclared() throws {
        let scratch = try Scratch()
        let url = try scratch.directory("export", [
            "Post.json": #"{"results":[{"objectId":"p1","title":"x"}]}"#,
            "_SCHEMA.json": #"{"results":[{"className":"Post","fields":{"title":{"type":"String"},"likes":{"type":"Relation","targetClass":"_User"}}}]}"#,
        ])
        let store = ParseExportStore(url: url)
        let declared = try #require(try store.declaredSchema())
        #expect(declared.classes["Post"]?["likes"] == ParseSchema.Field(.relation, targetClass: "_User"))
    }
}

/// A destination that fails on its `failAt`-th object batch, around a real store.
final class FailingWriter: ObjectStoreWriter {
    let base: MemoryStore
    let failAt: Int
    private(set) var batches = 0
    private(set) var aborted = false

    init(_ base: MemoryStore, failAt: Int) {
        self.base = base
        self.failAt = failAt
    }

    var location: String { base.location }
    func begin(schema: ParseSchema) throws(PFError) { try base.begin(schema: schema) }
    func extend(schema: ParseSchema) throws(PFError) { try base.extend(schema: schema) }
    func write(_ objects: [ParseObject], className: String) throws(PFError) {
        batches += 1
        if batches == failAt { throw PFError(.io, format: .store, "disk full at batch \(batches)") }
        try base.write(objects, className: className)
    }
    func write(_ rows: [ParseJoinRow], relation: ParseRelationKey) throws(PFError) { try base.write(rows, relation: relation) }
    func commit() throws(PFError) { try base.commit() }
    func abort() {
        aborted = true
        base.abort()
    }
}

@Suite struct WriteBehindTests {
    /// 40 objects of one class; the row at `badRow` (if any) has a malformed Date.
    static func export(badRow: Int?, in scratch: Scratch) throws -> URL {
        let rows = (0..<40).map { (i: Int) -> String in
            i == badRow ? #"{"objectId":"o\#(i)","when":{"__type":"Date","iso":"not a date"}}"# : #"{"objectId":"o\#(i)","n":\#(i)}"#
        }
        return try scratch.directory("export", ["Thing.json": "[" + rows.joined(separator: ",") + "]"])
    }

    @Test(arguments: [true, false])
    func aFailedWriteStopsTheImportBeforeALaterBadRow(overlap: Bool) throws {
        let scratch = try Scratch()
        // Batches of 5: the writer fails on the 2nd batch (rows 5–9); row 23 is bad too.
        let url = try Self.export(badRow: 23, in: scratch)
        let existing = MemoryStore(objects: [try ParseObject(className: "Thing", objectId: "kept")])
        let writer = FailingWriter(existing, failAt: 2)
        #expect {
            try StoreImporter(options: .init(batchSize: 5, overlapWrites: overlap)).run(from: ParseExportStore(url: url), to: writer)
        } throws: { error in
            (error as? PFError)?.message == "disk full at batch 2"
        }
        #expect(writer.aborted)
        #expect(try existing.objects(in: "Thing").map(\.objectId) == ["kept"], "the destination is unchanged")
    }

    @Test(arguments: [true, false])
    func aBadRowStopsTheImportAndTheDestinationIsUnchanged(overlap: Bool) throws {
        let scratch = try Scratch()
        let url = try Self.export(badRow: 23, in: scratch)
        let existing = MemoryStore(objects: [try ParseObject(className: "Thing", objectId: "kept")])
        let writer = FailingWriter(existing, failAt: 100)
        #expect {
            try StoreImporter(options: .init(batchSize: 5, overlapWrites: overlap)).run(from: ParseExportStore(url: url), to: writer)
        } throws: { error in
            (error as? PFError)?.message.contains("row 23") == true
        }
        #expect(writer.aborted)
        #expect(try existing.objects(in: "Thing").map(\.objectId) == ["kept"])
        #expect(writer.batches == 4, "the four batches before the bad row were written, then rolled back")
    }

    @Test func overlappedWritesGiveTheSameStore() throws {
        let scratch = try Scratch()
        let url = try Self.export(badRow: nil, in: scratch)
        let a = MemoryStore(), b = MemoryStore()
        let ra = try StoreImporter(options: .init(batchSize: 3, overlapWrites: true)).run(from: ParseExportStore(url: url), to: a)
        let rb = try StoreImporter(options: .init(batchSize: 3, overlapWrites: false)).run(from: ParseExportStore(url: url), to: b)
        #expect(ra == rb)
        #expect(try StoreComparison.firstDifference(expected: a, actual: b) == nil)
        #expect(try a.objects(in: "Thing").map(\.objectId) == (0..<40).map { "o\($0)" })
    }
}
