import Foundation
import PFCore
import PFKeyedArchive
import PFParse
import PFStoreTestSupport
import PFStores
import PropertyBased
import Testing

@Suite struct KeyedArchiveStoreTests {
    @Test func generatedStoresRoundTripThroughAnArchive() async {
        await propertyCheck(count: 40, input: StoreGen.store(.parseExport)) { generated in
            do {
                let scratch = try Scratch()
                let original = generated.memoryStore()
                let url = scratch.path("store.archive")
                try StoreTransfer.copy(from: original, to: KeyedArchiveStore(url: url))
                let diff = try StoreComparison.firstDifference(expected: original, actual: KeyedArchiveStore(url: url))
                #expect(diff == nil, "\(diff ?? "")\n\(generated)")
            } catch {
                Issue.record("\(error)\n\(generated)")
            }
        }
    }

    @Test func realExportRoundTripsAndTheArchiveIsAKeyedArchive() throws {
        let scratch = try Scratch()
        let source = ParseExportStore(url: realExport)
        let url = scratch.path("real.archive")
        try StoreTransfer.copy(from: source, to: KeyedArchiveStore(url: url))
        #expect(try StoreComparison.firstDifference(expected: source, actual: KeyedArchiveStore(url: url)) == nil)
        // An NSKeyedArchiver archive in a binary plist, readable as a plain value tree.
        let data = try Data(contentsOf: url)
        #expect(data.starts(with: Array("bplist00".utf8)))
        let root = try KeyedUnarchiver.unarchivedObject(ofType: PFValue.self, from: data)
        #expect(root["format"] == .string("pfarchive-store"))
        #expect(root["classes"]?[0]?["className"] == .string("Comment"))
        guard case .date? = root["classes"]?[0]?["objects"]?[0]?["createdAt"] else {
            Issue.record("dates are not NSDate")
            return
        }
    }

    @Test func writesMergeAndAFailedCommitLeavesTheFile() throws {
        let scratch = try Scratch()
        let url = scratch.path("s.archive")
        let store = KeyedArchiveStore(url: url)
        try store.begin(schema: ParseSchema())
        try store.write([try ParseObject(className: "A", objectId: "a", fields: ["n": .int(1)])], className: "A")
        #expect(!FileManager.default.fileExists(atPath: url.path), "nothing written before commit")
        try store.commit()
        let second = KeyedArchiveStore(url: url)
        try second.begin(schema: ParseSchema())
        try second.write([try ParseObject(className: "A", objectId: "b", fields: ["n": .double(2)])], className: "A")
        second.abort()
        #expect(try KeyedArchiveStore(url: url).objects(in: "A").map(\.objectId) == ["a"])
        try second.begin(schema: ParseSchema())
        try second.write([try ParseObject(className: "A", objectId: "a", fields: ["n": .int(5)]),
                          try ParseObject(className: "A", objectId: "b", fields: ["n": .double(2)])], className: "A")
        try second.commit()
        let objects = try KeyedArchiveStore(url: url).objects(in: "A")
        #expect(objects.map(\.fields) == [["n": .int(5)], ["n": .double(2)]])
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) == ["s.archive"])
    }

    @Test func hostileOrForeignArchivesAreRefused() throws {
        let scratch = try Scratch()
        // A keyed archive of something else.
        let other = scratch.path("other.archive")
        try KeyedArchiver.archivedData(withRootObject: PFValue.array([.string("x")])).write(to: other)
        #expect { try KeyedArchiveStore(url: other).classNames() } throws: { error in
            (error as? PFError)?.failure(as: StoreFailure.self) == .badStoreArchive(location: other.path, problem: .rootNotDictionary)
        }
        // A bad object inside names its key path.
        let bad = scratch.path("bad.archive")
        let root: PFValue = ["format": "pfarchive-store", "version": 1, "relations": [], "schema": ["results": []],
                             "classes": [["className": "A", "objects": [["objectId": 5]]]]]
        try KeyedArchiver.archivedData(withRootObject: root).write(to: bad)
        #expect { try KeyedArchiveStore(url: bad).classNames() } throws: { error in
            (error as? PFError)?.path?.description.hasPrefix("classes[0].objects[0]") == true
        }
        // Limits apply.
        var limits = PFLimits()
        limits.maxInputBytes = 10
        #expect { try KeyedArchiveStore(url: bad, limits: limits).classNames() } throws: { error in
            (error as? PFError)?.code == .limitExceeded
        }
    }
}
