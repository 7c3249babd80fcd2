import Foundation
import PFCore
import PFKeyedArchive
import PFTestSupport
import PFTypedStream
import Testing

/// Foundation's view of a class: reads `name` and `floor`, knows nothing of versions.
final class FoundationDepartment: NSObject, NSSecureCoding {
    static let supportsSecureCoding = true
    let name: String
    let floor: Int

    func encode(with coder: NSCoder) {
        coder.encode(name as NSString, forKey: "name")
        coder.encode(floor, forKey: "floor")
    }

    init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "name") else { return nil }
        self.name = name as String
        floor = coder.decodeInteger(forKey: "floor")
    }
}

/// A Codable type that records a version through the Codable bridge.
struct Badge: Codable, Equatable, ArchiveVersioned {
    static let archiveVersion = 7
    var label: String
}

/// Reads the archive's versions from the decoder's userInfo.
struct VersionProbe: Decodable {
    var badgeVersion: Int?
    init(from decoder: any Decoder) throws {
        let versions = decoder.userInfo[KeyedArchiveDecoder.classVersionsKey] as? [String: Int]
        badgeVersion = versions?["Badge"]
    }
}

@Suite struct ClassVersionTests {
    @Test func keyedArchivesRecordClassVersionsThatFoundationIgnores() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: DepartmentV2(name: "R&D", floor: 3))
        let table = try KeyedArchive.readTable(data).table
        let classDictionary = table.objects.first { $0["$classname"] == "Department" }
        #expect(classDictionary?["$classversion"] == 2)

        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.setClass(FoundationDepartment.self, forClassName: "Department")
        let department = unarchiver.decodeObject(of: FoundationDepartment.self, forKey: NSKeyedArchiveRootObjectKey)
        #expect(department?.name == "R&D")
        #expect(department?.floor == 3)
        #expect(unarchiver.error == nil)
    }

    @Test func foundationArchivesReadAsVersionZero() throws {
        let data = try NSKeyedArchiver.archivedData(withRootObject: NSArray(array: ["x" as NSString]), requiringSecureCoding: true)
        let table = try KeyedArchive.readTable(data).table
        #expect(KeyedUnarchiver(table: table, registry: ArchiveClassRegistry()).version(forClassName: "NSArray") == 0)
    }

    @Test func codableBridgeRecordsAndOffersVersions() throws {
        let data = try KeyedArchiveEncoder(options: .init(classNames: .typeName)).encode(Badge(label: "gold"))
        let table = try KeyedArchive.readTable(data).table
        #expect(table.classVersions["Badge"] == 7)
        #expect(try KeyedArchiveDecoder().decode(VersionProbe.self, from: data).badgeVersion == 7)
        #expect(try KeyedArchiveDecoder().decode(Badge.self, from: data) == Badge(label: "gold"))
    }

    @Test func jsonShapeCarriesVersionsBothWays() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: DepartmentV2(name: "Ops", floor: 1))
        let json = try KeyedArchive.decodeGraph(data).jsonValue()
        #expect(json == ["$class": "Department", "$version": 2, "name": "Ops", "floor": 1])
        let back = try KeyedGraph(json: json).objectTable()
        #expect(back.classVersions["Department"] == 2)
        #expect(throws: PFError.self) { try KeyedGraph(json: ["$class": "Department", "$version": -1]) }
    }

    @Test func malformedClassVersionIsAnErrorWithItsPath() throws {
        var table = try KeyedArchive.readTable(KeyedArchiver.archivedData(withRootObject: DepartmentV2(name: "Ops", floor: 1))).table
        guard let index = table.objects.firstIndex(where: { $0["$classname"] == "Department" }),
            case .dictionary(var dictionary) = table.objects[index]
        else { Issue.record("no class dictionary"); return }
        dictionary["$classversion"] = "two"
        table.objects[index] = .dictionary(dictionary)
        let error = try #require(throws: PFError.self) { try KeyedGraph(table: table) }
        #expect(error.path == [.key("$objects"), .index(index), .key("$classversion")])
        #expect(error.failure(as: KeyedArchiveFailure.self) == .classVersion(key: "$classversion", found: "\"two\""))
    }

    @Test func typedstreamTreesWriteBackAsTheSameObjects() throws {
        let data = try Fixtures.data(Golden.url(.classic, version: 1))
        let tree = try TypedStream.decodeValue(data)
        let again = try TypedStream.encodeValue(tree)
        #expect(try TypedStream.decodeValue(again) == tree)
        let employees = try ClassicUnarchiver.unarchivedObject(
            ofType: [EmployeeV1].self, from: again, registry: ClassicClassRegistry([EmployeeV1.self, DepartmentV1.self]))
        #expect(employees[0].department === employees[1].department)
        #expect(employees.map(\.salary) == [5200, 4100, 3900])
    }
}
