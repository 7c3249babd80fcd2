import Foundation
import PFTestSupport
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
                    // The same objects, relations and schema as a fresh, separate reading.
                    let fresh = ParseExportStore(url: url, options: options)
                    let diff = try StoreComparison.firstDifference(expected: fresh, actual: destination)
                    #expect(diff == nil, "workers \(workers): \(diff ?? "")\n\(generated)")
                    #expect(try destination.relations() == (try fresh.relations()))
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
        #expect(declared.classes["Post"]?["likes"] == ParseSchema.Field("Relation", targetClass: "_User"))
    }
}
