import Foundation
import OrderedCollections
import PFParse
import PFStoreTestSupport
import PFStores
import PropertyBased
import Testing

/// Generated stores (``StoreGen``) go through the Mongo shape and come back equal, up to
/// what the shape documents as lossy (Docs/Stores.md): a top-level File keeps only its name,
/// and every object gets its class's Relation fields back from `_SCHEMA`, as parse-server
/// answers them.
@Suite struct MongoPropertyTests {
    /// What reading the Mongo shape gives back for a generated store.
    static func expectedAfterMongo(_ generated: GeneratedStore) throws -> MemoryStore {
        var objects: [ParseObject] = []
        for object in generated.objects {
            var fields = OrderedDictionary<String, ParseValue>()
            for (key, value) in object.fields {
                if case .file(let f) = value { fields[key] = .file(ParseFile(name: f.name)) } else { fields[key] = value }
            }
            for (name, field) in generated.schema.classes[object.className] ?? [:] where field.type == .relation {
                fields[name] = .relation(className: field.targetClass ?? "")
            }
            objects.append(try ParseObject(
                className: object.className, objectId: object.objectId, createdAt: object.createdAt,
                updatedAt: object.updatedAt, acl: object.acl, fields: fields))
        }
        return MemoryStore(objects: objects, joinRows: generated.joinRows, schema: generated.schema)
    }

    static func roundTrip(_ generated: GeneratedStore) throws -> String? {
        let scratch = try MongoScratch()
        defer { scratch.cleanup() }
        let store = MongoShapeStore(directory: scratch.dump)
        try copyAll(generated.memoryStore(), into: store)
        return try StoreComparison.firstDifference(expected: try expectedAfterMongo(generated), actual: store, schema: .covers)
    }

    @Test func generatedStoresRoundTrip() async {
        await propertyCheck(count: 60, input: StoreGen.store()) { generated in
            let diff = try Self.roundTrip(generated)
            #expect(diff == nil, "\(diff ?? "")")
        }
    }

    @Test func generatedStoresWithoutRelationValuesRoundTrip() async {
        var shape = StoreShape()
        shape.relationValuesInObjects = false
        shape.maxObjectsPerClass = 12
        await propertyCheck(count: 30, input: StoreGen.store(shape)) { generated in
            let diff = try Self.roundTrip(generated)
            #expect(diff == nil, "\(diff ?? "")")
        }
    }
}
