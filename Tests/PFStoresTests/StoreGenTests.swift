import Foundation
import PFJSON
import PFParse
import PFStoreTestSupport
import PFStores
import PropertyBased
import Testing

/// The generator and the comparison helper that every store's round-trip tests rely on.
@Suite struct StoreGenTests {
    @Test func generatedStoresAreConsistentAndCompareEqualToThemselves() async {
        await propertyCheck(count: 60, input: StoreGen.store(.parseExport)) { generated in
            do {
                let store = generated.memoryStore()
                #expect(try StoreComparison.firstDifference(expected: store, actual: generated.memoryStore()) == nil)
                // Every object's fields are in the schema with their type.
                for object in generated.objects {
                    let fields = generated.schema.classes[object.className]
                    #expect(fields != nil, "class \(object.className) not in the schema")
                    for (key, value) in object.fields {
                        guard let type = ParseSchema.fieldType(of: value) else { continue }
                        #expect(fields?[key] == type, "\(object.className).\(key): \(type) vs \(String(describing: fields?[key]))")
                    }
                }
                // Every object survives its own REST JSON.
                for object in generated.objects {
                    let text = try JSONWriter().write(object.restValue)
                    let back = try ParseObject(rest: JSONReader(options: .init(typedValues: false)).read(text), className: object.className)
                    #expect(StoreComparison.difference(object, back) == nil)
                }
            } catch {
                Issue.record("\(error)\n\(generated)")
            }
        }
    }

    @Test func seededStoresRepeatAndCoverTheSystemClasses() {
        let a = StoreGen.store(seed: 7)
        let b = StoreGen.store(seed: 7)
        #expect(a.objects == b.objects)
        #expect(a.classNames.starts(with: ["_User", "_Role"]))
        // Across a few seeds every value type and dangling pointers show up.
        var types = Set<String>()
        var rows = 0
        for seed in 0..<40 {
            let store = StoreGen.store(seed: UInt64(seed))
            for object in store.objects { for value in object.fields.values { value.fieldType.map { _ = types.insert($0.rawValue) } } }
            rows += store.joinRows.values.reduce(0) { $0 + $1.count }
        }
        #expect(types.isSuperset(of: ["String", "Number", "Boolean", "Date", "Bytes", "Pointer", "File", "GeoPoint", "Polygon", "Array", "Object", "Relation"]))
        #expect(rows > 0)
    }

    @Test func comparisonNamesTheFirstDifference() throws {
        let generated = StoreGen.store(seed: 3)
        guard var changed = generated.objects.first(where: { $0.className == "_User" }) else { return }
        let original = generated.memoryStore()
        var objects = generated.objects
        changed.createdAt = changed.createdAt.map { $0.addingTimeInterval(0.001) }
        if let i = objects.firstIndex(where: { $0.objectId == changed.objectId }) { objects[i] = changed }
        let other = MemoryStore(objects: objects, joinRows: generated.joinRows, schema: generated.schema)
        let diff = try StoreComparison.firstDifference(expected: original, actual: other)
        #expect(diff?.contains("_User \(changed.objectId ?? "")") == true, "\(diff ?? "nil")")
        #expect(diff?.contains("createdAt") == true)

        // An int and the same number as a double differ.
        let a = try ParseObject(className: "T", objectId: "x", fields: ["n": .int(3)])
        let b = try ParseObject(className: "T", objectId: "x", fields: ["n": .double(3)])
        #expect(StoreComparison.difference(a, b) == "field 'n': expected int 3, got double 3.0")

        var schema = generated.schema
        schema.classes["_User"]?["email"] = .init(.number)
        #expect(StoreComparison.schemaDifference(generated.schema, schema)?.contains("_User.email") == true)
    }
}
