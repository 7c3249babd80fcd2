import Foundation
import OrderedCollections
import PFCore
import PFParse
import PFSQLiteStore
import PFStoreTestSupport
import PFStores
import Testing

/// Issue 20, failure 1: a Core Data store of a real device holds names Parse forbids (dotted
/// keys in transformable dictionaries, `_DK…` attributes, `$`, non-ASCII, reserved and long
/// names). It must import into every store, and come back out with its names.
@Suite struct RealDeviceNameTests {
    static func openers() -> StoreOpeners {
        var openers = StoreOpeners.standard(readerThreads: 1)
        SQLiteStore.register(in: &openers)
        return openers
    }

    func withSource(_ body: (CoreDataObjectStore, URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pfnames-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try RealDeviceCoreData.open(try RealDeviceCoreData.write(in: directory))
        defer { source.close() }
        try body(source, directory)
    }

    /// Every object of every class, by objectId, and every join row.
    static func contents(_ store: any ObjectStoreReader) throws -> ([String: [String: OrderedDictionary<String, ParseValue>]], [String: Set<ParseJoinRow>]) {
        var objects: [String: [String: OrderedDictionary<String, ParseValue>]] = [:]
        for className in try store.classNames() {
            for object in try store.objects(in: className) {
                // Relation markers are carried by some stores and not others; the join rows say it all.
                objects[className, default: [:]][object.objectId ?? ""] = object.fields.filter {
                    if case .relation = $0.value { return false } else { return true }
                }
            }
        }
        var joins: [String: Set<ParseJoinRow>] = [:]
        for relation in try store.relations() { joins[relation.joinClassName] = Set(try store.joinRows(of: relation)) }
        return (objects, joins)
    }

    @Test(arguments: ["export", "export.zip", "store.sqlite", "store.archive", "dump.jsonl"])
    func importsIntoEveryStoreAndBackWithTheOriginalNames(_ destination: String) throws {
        try withSource { source, directory in
            let expected = try Self.contents(source)
            // The source really holds the names Parse forbids.
            let account = try #require(expected.0["Account"]?["Account-1"])
            #expect(account["_DKApplicationActivityMetadataKey__contentDescription"] == .string("Safari"))
            #expect(account[RealDeviceCoreData.longName] == .string("long value"))
            guard case .object(let properties)? = account["properties"] else { Issue.record("no properties"); return }
            #expect(properties["com.apple.Dataclass.Availability"] != nil)
            // A key of the data beginning with `$` is in the keyed graph's JSON shape, `$$money`
            // (as `convert` writes it), so it can never collide with a marker such as `$class`.
            #expect(properties["$$money"] == .int(3))
            #expect(expected.1["_Join:\(RealDeviceCoreData.notes):Account"]?.count == 3)

            let openers = Self.openers()
            let location = try StoreLocation.resolve(directory.appendingPathComponent(destination).path)
            let writer = try openers.writer(for: location)
            let report = try StoreImporter(options: .init(batchSize: 1)).run(from: source, to: writer)
            #expect(report.totalObjects == 5)
            let reader = try openers.reader(for: location)
            defer { reader.close() }
            let (objects, joins) = try Self.contents(reader)
            #expect(objects == expected.0)
            #expect(joins == expected.1)
            let policy = writer.namePolicy
            if policy.isUnrestricted {
                #expect(report.encodedNames.isEmpty)
            } else {
                // What was encoded is counted per class and field.
                let fields = try #require(report.encodedNames.classes["Account"])
                #expect(fields["_DKApplicationActivityMetadataKey__contentDescription"]?.storedName
                    == "pf____DKApplicationActivityMetadataKey____contentDescription")
                #expect(fields["properties"]?.nestedKeys == 6)
                #expect(fields[RealDeviceCoreData.notes]?.storedName == "pf__" + RealDeviceCoreData.notes.replacingOccurrences(of: "_", with: "__"))
                #expect(fields["pf__lookalike"]?.storedName == "pf__pf____lookalike")
                #expect(fields["accountDescription"] == nil)
                #expect(report.lines.contains { $0.hasPrefix("encoded name: Account.properties: 6 nested keys encoded") })
                #expect(report.jsonValue["encodedNestedKeyCount"] == .int(6))
            }

            // Then on into a Parse export, which holds encoded names and says what they mean.
            let export = directory.appendingPathComponent("back")
            let backWriter = try openers.writer(for: try StoreLocation.resolve(export.path))
            _ = try StoreImporter().run(from: reader, to: backWriter)
            let back = try openers.reader(for: try StoreLocation.resolve(export.path))
            defer { back.close() }
            let (backObjects, backJoins) = try Self.contents(back)
            #expect(backObjects == expected.0)
            #expect(backJoins == expected.1)
            let schemaText = try String(contentsOf: export.appendingPathComponent("_SCHEMA.json"), encoding: .utf8)
            #expect(schemaText.contains("\"pfarchiveName\": \"_DKApplicationActivityMetadataKey__contentDescription\""))
            let rows = try String(contentsOf: export.appendingPathComponent("Account.json"), encoding: .utf8)
            #expect(rows.contains("pf__com_2e_apple_2e_Dataclass_2e_Availability"))
            #expect(!rows.contains("com.apple.Dataclass.Availability"))
            #expect(FileManager.default.fileExists(atPath: export.appendingPathComponent("_Join:pf__\(RealDeviceCoreData.notes.replacingOccurrences(of: "_", with: "__")):Account.json").path))
        }
    }

    @Test(arguments: ["export", "export.zip", "dump.jsonl"])
    func strictNamesRefusesAsBefore(_ destination: String) throws {
        try withSource { source, directory in
            let openers = Self.openers()
            let location = try StoreLocation.resolve(directory.appendingPathComponent(destination).path)
            var options = StoreImporter.Options()
            options.strictNames = true
            let error = #expect(throws: PFError.self) { try StoreImporter(options: options).run(from: source, to: try openers.writer(for: location)) }
            #expect(error?.parseErrorCode == .invalidFieldName || error?.parseErrorCode == .invalidNestedKey)
            #expect(!FileManager.default.fileExists(atPath: location.url?.path ?? ""))
        }
    }
}

/// The commonest real case: every field name is legal and only keys inside a dictionary are
/// not (Accounts' `com.apple.Dataclass.Availability`); the stores still say so and decode them.
@Suite struct NestedOnlyNameTests {
    @Test(arguments: ["export", "export.zip", "dump.jsonl"])
    func nestedKeysAloneAreEncodedAndDecoded(_ destination: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pfnested-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let object = try ParseObject(
            className: "Account", objectId: "a1",
            fields: ["properties": .object(["com.apple.Dataclass.Availability": .object(["$on": .bool(true)]), "pf__x": .int(1)])],
            checkingNames: false)
        let source = MemoryStore(objects: [object])
        let openers = RealDeviceNameTests.openers()
        let location = try StoreLocation.resolve(directory.appendingPathComponent(destination).path)
        let report = try StoreImporter().run(from: source, to: try openers.writer(for: location))
        #expect(report.encodedNames.classes["Account"]?["properties"] == ParseNameTally.Entry(storedName: nil, nestedKeys: 3))
        let reader = try openers.reader(for: location)
        defer { reader.close() }
        #expect(try reader.objects(in: "Account").first?.fields == object.fields)
    }
}
