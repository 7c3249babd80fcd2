import Foundation
import PFCore
import PFCoreData
import PFPropertyList
import Testing

/// The ground truth: entities as an `.xcdatamodel` XML or a model dump lists them.
struct ExpectedEntity: Equatable, CustomStringConvertible {
    var parent: String?
    /// Attribute name → type name (Xcode's spelling), own attributes only for XML.
    var attributes: [String: String] = [:]
    /// Relationship name → "destination|inverse|toMany".
    var relationships: [String: String] = [:]
    var description: String { "parent \(parent ?? "-") attributes \(attributes.sorted { $0.key < $1.key }) relationships \(relationships.sorted { $0.key < $1.key })" }
}

enum GroundTruth {
    static func attribute(_ line: Substring, _ name: String) -> String? {
        guard let range = line.range(of: " \(name)=\"") else { return nil }
        let rest = line[range.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    /// Own properties per entity from an `.xcdatamodel` `contents` XML.
    static func xml(_ url: URL) throws -> [String: ExpectedEntity] {
        var out: [String: ExpectedEntity] = [:]
        var current: String?
        for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("<entity "), let name = attribute(trimmed, "name") {
                current = name
                out[name] = ExpectedEntity(parent: attribute(trimmed, "parentEntity"))
            } else if trimmed.hasPrefix("<attribute "), let entity = current, let name = attribute(trimmed, "name") {
                out[entity]?.attributes[name] = attribute(trimmed, "attributeType") ?? "?"
            } else if trimmed.hasPrefix("<relationship "), let entity = current, let name = attribute(trimmed, "name") {
                out[entity]?.relationships[name] =
                    "\(attribute(trimmed, "destinationEntity") ?? "?")|\(attribute(trimmed, "inverseName") ?? "-")|\(attribute(trimmed, "toMany") == "YES")"
            }
        }
        return out
    }

    static let dumpTypes = [
        "integer16": "Integer 16", "integer32": "Integer 32", "integer64": "Integer 64", "decimal": "Decimal", "double": "Double",
        "string": "String", "boolean": "Boolean", "date": "Date", "UUID": "UUID", "transformable": "Transformable", "binary": "Binary",
    ]

    /// All properties (inherited included) per entity from a `model_<store>.txt` dump.
    static func dump(_ url: URL) throws -> [String: ExpectedEntity] {
        var out: [String: ExpectedEntity] = [:]
        var current: String?
        func value(_ line: Substring, _ key: String) -> String? {
            guard let range = line.range(of: "'\(key)': ") else { return nil }
            let rest = line[range.upperBound...]
            let end = rest.firstIndex { $0 == "," || $0 == "}" } ?? rest.endIndex
            return String(rest[..<end]).trimmingCharacters(in: CharacterSet(charactersIn: "' "))
        }
        for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
            if !line.hasPrefix(" "), let paren = line.range(of: " (class ") {
                let name = String(line[..<paren.lowerBound])
                let superName = line.range(of: "super ").map { String(line[$0.upperBound...].prefix { $0 != ")" && $0 != "," }) }
                current = name
                out[name] = ExpectedEntity(parent: superName == "None" ? nil : superName)
                continue
            }
            let words = line.split(separator: " ", maxSplits: 2)
            guard let entity = current, words.count == 3 else { continue }
            let name = String(words[1].dropLast())
            switch words[0] {
            case "Attribute", "DerivedAttribute":
                out[entity]?.attributes[name] = dumpTypes[value(line, "type") ?? ""] ?? "?"
            case "Relationship":
                let maxCount = value(line, "maxCount") ?? "0"
                out[entity]?.relationships[name] = "\(value(line, "dest") ?? "?")|\(value(line, "inverse") ?? "-")|\(maxCount != "1")"
            default:
                break
            }
        }
        return out
    }

    /// The recovered model in the same shape; `ownOnly` keeps properties the entity declares.
    static func recovered(_ model: CoreDataModel, ownOnly: Bool) -> [String: ExpectedEntity] {
        var out: [String: ExpectedEntity] = [:]
        for entity in model.entities {
            var expected = ExpectedEntity(parent: entity.superentity)
            for attribute in entity.attributes where !ownOnly || attribute.declaredBy == entity.name {
                expected.attributes[attribute.name] = attribute.type.description
            }
            for relationship in entity.relationships where !ownOnly || relationship.declaredBy == entity.name {
                expected.relationships[relationship.name] = "\(relationship.destination)|\(relationship.inverse ?? "-")|\(relationship.isToMany)"
            }
            out[entity.name] = expected
        }
        return out
    }
}

@Suite struct ModelRecoveryTests {
    @Test(arguments: [
        ("coredataplus/SampleModel_V1.sqlite", "SampleModel.xcdatamodel.xml"),
        ("coredataplus/SampleModel_V2.sqlite", "SampleModel2.xcdatamodel.xml"),
        ("coredataplus/SampleModel3_V1.sqlite", "SampleModel3.xcdatamodel.xml"),
    ])
    func modelCacheMatchesTheXcodeModel(_ store: String, _ xml: String) throws {
        let expected = try GroundTruth.xml(CoreDataFixtures.models.appendingPathComponent(xml))
        #expect(!expected.isEmpty)
        let opened = try CoreDataStore.open(url: CoreDataFixtures.store(store))
        defer { opened.close() }
        #expect(opened.model.source == .modelCache)
        #expect(opened.model.guesses.isEmpty)
        let recovered = GroundTruth.recovered(opened.model, ownOnly: true)
        #expect(Set(recovered.keys) == Set(expected.keys))
        for (name, entity) in expected { #expect(recovered[name] == entity, "\(store) \(name)") }
    }

    @Test func compiledMomGivesTheSameModel() throws {
        let expected = try GroundTruth.xml(CoreDataFixtures.models.appendingPathComponent("SampleModel.xcdatamodel.xml"))
        let store = try CoreDataStore.open(
            url: CoreDataFixtures.store("coredataplus/SampleModel_V1.sqlite"), model: CoreDataFixtures.models.appendingPathComponent("SampleModel.mom"))
        defer { store.close() }
        #expect(store.model.source == .compiledModel)
        let recovered = GroundTruth.recovered(store.model, ownOnly: true)
        #expect(recovered == expected)
        #expect(try store.rowCount(entity: "Car") == 115)
    }

    @Test func codeDefinedModelMatchesItsDump() throws {
        let expected = try GroundTruth.dump(CoreDataFixtures.dumps.appendingPathComponent("model_SampleModel2_V2.sqlite.txt"))
        #expect(expected.count == 6)
        let store = try CoreDataStore.open(url: CoreDataFixtures.store("coredataplus/SampleModel2_V2.sqlite"))
        defer { store.close() }
        let recovered = GroundTruth.recovered(store.model, ownOnly: false)
        #expect(Set(recovered.keys) == Set(expected.keys))
        for (name, entity) in expected { #expect(recovered[name] == entity, "\(name)") }
        let book = try #require(store.model.entity(named: "Book"))
        #expect(book.className == "BookV2")
        #expect(book.attribute(named: "frontCover")?.transformerName == "CoverTransformer")
        #expect(book.attribute(named: "pagesCount")?.isDerived == true)
        #expect(store.model.entity(named: "Writer")?.isAbstract == true)
        #expect(store.model.entity(named: "Author")?.fetchedPropertyNames == ["favFeedbacks", "feedbacks"])
    }

    @Test func renamedEntityKeepsItsRowsUnderTheNewName() throws {
        // Z_PRIMARYKEY still says ExpensiveSportCar; the model cache says LuxuryCar.
        let store = try CoreDataStore.open(url: CoreDataFixtures.store("coredataplus/SampleModel_V2.sqlite"))
        defer { store.close() }
        #expect(store.entityID("LuxuryCar") == 3)
        #expect(store.model.entity(named: "LuxuryCar")?.renamingIdentifier == "ExpensiveSportCar")
        let first = try #require(try store.firstObjects(entity: "LuxuryCar", limit: 1).first)
        #expect(first["className"] == "LuxuryCar")
        #expect(first["objectId"]?.stringValue?.hasPrefix("LuxuryCar-") == true)
    }

    @Test func inspectPrintsModelCountsAndGraph() throws {
        let store = try CoreDataStore.open(url: CoreDataFixtures.store("coredataplus/SampleModel_V1.sqlite"))
        defer { store.close() }
        let summary = try store.summary()
        #expect(summary["modelSource"] == "modelCache")
        #expect(summary["entities"]?["Car"]?["rows"] == 115)
        #expect(summary["entities"]?["Person"]?["attributes"]?["id"] == "UUID")
        let dot = store.dotDescription(rowCounts: ["Car": 115])
        #expect(dot.hasPrefix("digraph model {"))
        #expect(dot.contains("owner / cars *"), "an inverse pair is one edge")
        #expect(dot.contains("arrowhead=empty"), "inheritance edges")
    }
}

/// The compiled-model reader reads its files under the caller's limits (issue 22).
@Suite struct ModelReaderLimitsTests {
    static let mom = CoreDataFixtures.models.appendingPathComponent("SampleModel.mom")
    static let store = CoreDataFixtures.store("coredataplus/SampleModel_V1.sqlite")

    /// A `.momd` whose `VersionInfo.plist` is past `maxInputBytes`. Fails on the main branch
    /// before the layer: the plist was read whole and its failure swallowed, so the error
    /// was a guess about which `.mom` to take ("a .momd without VersionInfo.plist's current
    /// version"), not the limit.
    @Test func aVersionInfoPastTheLimitIsALimitErrorNotAGuess() throws {
        let dir = try CoreDataFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let momd = dir.appendingPathComponent("Model.momd")
        try FileManager.default.createDirectory(at: momd, withIntermediateDirectories: true)
        let mom = try Data(contentsOf: Self.mom)
        try mom.write(to: momd.appendingPathComponent("A.mom"))
        try mom.write(to: momd.appendingPathComponent("B.mom"))
        let info: PFValue = ["NSManagedObjectModel_CurrentVersionName": "A", "padding": .string(String(repeating: "p", count: 8000))]
        try XMLPlistWriter().write(info).write(to: momd.appendingPathComponent("VersionInfo.plist"))
        var limits = PFLimits.default
        limits.maxInputBytes = 6000
        #expect(mom.count < limits.maxInputBytes)
        do {
            let store = try CoreDataStore.open(url: Self.store, model: momd, options: .init(limits: limits))
            store.close()
            Issue.record("expected maxInputBytes")
        } catch {
            let failure = (error as? PFError)?.failure(as: CoreDataFailure.self)
            guard case .versionInfo(let path, let underlying)? = failure else {
                Issue.record("expected CoreDataFailure.versionInfo, got \(error)")
                return
            }
            #expect(path.hasSuffix("VersionInfo.plist") && underlying.failure(as: PFCoreFailure.self) == .limitExceeded(limit: "maxInputBytes", value: 6000))
            #expect((error as? PFError)?.code == .limitExceeded)
        }
        // Within the limits, VersionInfo.plist picks A.mom.
        let opened = try CoreDataStore.open(url: Self.store, model: momd)
        defer { opened.close() }
        #expect(opened.model.source == .compiledModel && opened.model.entity(named: "Car") != nil)
    }

    @Test func aMomPastTheLimitIsRefused() throws {
        var limits = PFLimits.default
        limits.maxInputBytes = 1000
        do {
            let store = try CoreDataStore.open(url: Self.store, model: Self.mom, options: .init(limits: limits))
            store.close()
            Issue.record("expected maxInputBytes")
        } catch {
            #expect(error.code == .limitExceeded && error.message.contains("maxInputBytes"), "\(error)")
        }
    }
}
