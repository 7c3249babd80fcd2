import Foundation
import OrderedCollections
import PFCore
import PFParse
import PFSQLiteStore
import PFStoreTestSupport
import PFStores
import PropertyBased
import Testing

@testable import PFDiff

/// `patch(A, diff(A, B)) = B` for stores: the JSON Patch ``StoreDiff`` writes, applied by
/// ``StorePatch`` to A, gives a store with no difference from B (schemas included).
@Suite struct StorePatchTests {
    /// The operations `diff --json` writes for two stores.
    static func patch(
        _ a: any ObjectStoreReader, _ b: any ObjectStoreReader, _ configure: (inout StoreDiff.Options) -> Void = { _ in }
    ) throws -> JSONPatch {
        var operations: [JSONPatch.Operation] = []
        var options = StoreDiff.Options()
        configure(&options)
        _ = try StoreDiff.compare(a, b, options: options) { (event: StoreDiff.Event) throws(PFError) in
            if case .patch(let ops) = event { operations += ops }
        }
        return JSONPatch(operations)
    }

    /// Every difference between two stores, schemas included.
    static func lines(_ a: any ObjectStoreReader, _ b: any ObjectStoreReader) throws -> [String] {
        try StoreDiff.differences(a, b).map(\.description)
    }

    /// B made from A by the edits a user makes: a field changed, one added, one removed, an
    /// object gone, an object new, a join row gone and one new.
    static func edited(_ store: GeneratedStore, seed: Int) throws -> MemoryStore {
        var objects: [ParseObject] = []
        for (i, object) in store.objects.enumerated() {
            switch (i + seed) % 7 {
            case 0:
                var fields = object.fields
                fields["pfpatchAdded"] = .array([.int(Int64(i)), .string("é\u{0}x"), .date(Date(timeIntervalSince1970: Double(i)))])
                objects.append(try object.replacingFields(fields))
            case 1:
                var fields = object.fields
                if let key = fields.keys.first { fields.removeValue(forKey: key) }
                objects.append(try object.replacingFields(fields))
            case 2 where object.objectId != nil:
                continue
            default:
                objects.append(object)
            }
        }
        if let className = store.objects.first?.className {
            objects.append(try ParseObject(className: className, objectId: "pfpatchNew\(seed)", fields: ["n": .double(-0.0)]))
        }
        objects.append(try ParseObject(className: "PatchOnly", objectId: "p1", fields: ["geo": .geoPoint(ParseGeoPoint(latitude: 1.5, longitude: -2))]))
        var joins = store.joinRows
        if let key = joins.keys.sorted().first {
            var rows = joins[key] ?? []
            if !rows.isEmpty { rows.removeFirst() }
            rows.append(ParseJoinRow(owningId: "pfpatchOwner", relatedId: "pfpatchRelated"))
            joins[key] = rows
        }
        var schema = store.schema
        schema.classes["PatchOnly"] = ["geo": ParseSchema.Field(.geoPoint)]
        return MemoryStore(objects: objects, joinRows: joins, schema: schema)
    }

    @Test func patchTurnsAGeneratedStoreIntoItsEditedCopy() async throws {
        await propertyCheck(count: 40, input: StoreGen.store(.parseExport)) { generated in
            do {
                let a = generated.memoryStore()
                let b = try Self.edited(generated, seed: generated.objects.count)
                let patched = try StorePatch.apply(try Self.patch(a, b), to: a)
                let left = try Self.lines(patched, b)
                #expect(left.isEmpty, "\(left.prefix(5))\n\(generated)")
            } catch {
                Issue.record("\(error)\n\(generated)")
            }
        }
    }

    @Test func patchTurnsOneGeneratedStoreIntoAnother() async throws {
        await propertyCheck(count: 30, input: StoreGen.store(.parseExport), StoreGen.store(.parseExport)) { x, y in
            do {
                let a = x.memoryStore(), b = y.memoryStore()
                let patched = try StorePatch.apply(try Self.patch(a, b), to: a)
                let left = try Self.lines(patched, b)
                #expect(left.isEmpty, "\(left.prefix(5))\n\(x)\n\(y)")
            } catch {
                Issue.record("\(error)\n\(x)\n\(y)")
            }
        }
    }

    /// A generated export on disk and its edited copy in SQLite: the patch applied to the export
    /// and imported into a new SQLite store equals the edited store.
    @Test func patchedExportImportedIntoSQLiteEqualsB() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pfpatch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        await propertyCheck(count: 15, input: StoreGen.store(.parseExport)) { generated in
            do {
                let run = dir.appendingPathComponent(UUID().uuidString)
                try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
                let export = ParseExportStore(url: run.appendingPathComponent("export"))
                _ = try StoreImporter().run(from: generated.memoryStore(), to: export)
                let b = SQLiteStore(url: run.appendingPathComponent("b.sqlite"))
                _ = try StoreImporter().run(from: try Self.edited(generated, seed: 3), to: b)
                let ops = try Self.patch(ParseExportStore(url: export.url), SQLiteStore(url: b.url))
                let out = SQLiteStore(url: run.appendingPathComponent("out.sqlite"))
                _ = try StoreImporter().run(from: try StorePatch.apply(ops, to: ParseExportStore(url: export.url)), to: out)
                let left = try Self.lines(SQLiteStore(url: out.url), SQLiteStore(url: b.url))
                #expect(left.isEmpty, "\(left.prefix(5))\n\(generated)")
            } catch {
                Issue.record("\(error)\n\(generated)")
            }
        }
    }

    /// B lacks a class that owns a relation (a real export pair: Article with its tags
    /// relation in one, not in the other). The patch empties the relation and removes its
    /// field; the empty relation was still written, declaring the field again in an SQLite
    /// store ("schema Article.tags: Relation" left after the patch).
    @Test func aRelationThePatchEmptiesAndUndeclaresIsGone() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pfpatch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = try StoreDiffTests.players()
        let b = MemoryStore(objects: try a.objects(in: "Team"))
        let patched = try StorePatch.apply(try Self.patch(a, b), to: a)
        #expect(try patched.relations().isEmpty)
        let out = SQLiteStore(url: dir.appendingPathComponent("out.sqlite"))
        _ = try StoreImporter().run(from: patched, to: out)
        let left = try Self.lines(SQLiteStore(url: out.url), b)
        #expect(left.isEmpty, "\(left)")
        // A relation the patch only empties stays as B has it.
        let noRivals = try StoreDiffTests.players(rivals: [])
        let emptied = try StorePatch.apply(try Self.patch(a, noRivals), to: a)
        #expect(try Self.lines(emptied, noRivals).isEmpty)
        #expect(try emptied.schema().classes["Player"]?["rivals"] == noRivals.schema().classes["Player"]?["rivals"])
    }

    @Test func documentViewAndBack() throws {
        let store = try StoreDiffTests.players()
        let view = try StorePatch.document(of: store)
        #expect(view["Player"]?["x7Tq"]?["score"] == .int(10))
        #expect(view["_Join:rivals:Player"]?["x7Tq,k2"] == .bool(true))
        #expect(view["_SCHEMA"]?["Player"]?["team"] == .string("Pointer<Team>"))
        #expect(try Self.lines(try StorePatch.store(from: view), store).isEmpty)
    }

    @Test func badViewsAreRefusedWithTheirPath() throws {
        let notClasses = #expect(throws: PFError.self) { try StorePatch.store(from: .array([])) }
        #expect(notClasses?.failure(as: DiffFailure.self) == .patchedStoreNotDictionary)
        do {
            _ = try StorePatch.store(from: ["Player": ["x": .int(1)]])
            Issue.record("an object that is not a dictionary was accepted")
        } catch {
            #expect(error.path?.description == "Player.x")
            #expect(error.failure(as: DiffFailure.self) == .patchedObjectNotDictionary)
        }
        do {
            _ = try StorePatch.store(from: ["_Join:r:Player": ["nocomma": .bool(true)]])
            Issue.record("a join key without a comma was accepted")
        } catch {
            #expect(error.failure(as: DiffFailure.self) == .patchedJoinRow)
            #expect(error.path?.description == "_Join:r:Player.nocomma")
        }
    }
}
