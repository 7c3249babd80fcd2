import Foundation
import PFKeyedArchive
import PFTestSupport
import PFTypedStream
import PFVersioning
import Testing

/// Every golden file, written once by an earlier release, decodes with today's code into
/// today's plain Codable model, with the values written out here by hand.
@Suite struct GoldenFileTests {
    static let expected: [Int: [Employee]] = {
        let rnd1 = Department(name: "R&D", floor: 0)
        let rnd = Department(name: "R&D", floor: 3)
        return [
            1: [
                Employee(fullName: "Ann Lee", salary: 5200, rating: .love, email: "", department: rnd1),
                Employee(fullName: "Bo Chen", salary: 4100, rating: .meh, email: "", department: rnd1),
                Employee(fullName: "Cy Díaz", salary: 3900, rating: .hate, email: "", department: nil),
            ],
            2: [
                Employee(fullName: "Ann Lee", salary: 5_200_000_000, rating: .love, email: "ann@example.com", department: rnd),
                Employee(fullName: "Bo Chen", salary: 4100, rating: .hate, email: "bo@example.com", department: rnd),
                Employee(fullName: "Cy Díaz", salary: 3900, rating: .meh, email: "", department: nil),
            ],
            3: [
                Employee(fullName: "Ann Lee", salary: 5_200_000_000, rating: .love, email: "ann@example.com", department: rnd),
                Employee(fullName: "Dee Eve", salary: 100, rating: .meh, email: "dee@example.com", department: Department(name: "Ops", floor: 1)),
                Employee(fullName: "Cy Díaz", salary: 3900, rating: .hate, email: "", department: rnd),
            ],
        ]
    }()

    static let cases: [(Golden.Form, Int)] = Golden.Form.allCases.flatMap { form in (1...3).map { (form, $0) } }

    @Test(arguments: cases)
    func goldenFileDecodesToTodaysModel(form: Golden.Form, version: Int) throws {
        let data = try Fixtures.data(Golden.url(form, version: version))
        let decoded = try VersionedDecoder(schema: Golden.schema()).decode([Employee].self, from: data)
        #expect(decoded.value == Self.expected[version])
        #expect(decoded.unknownFields.isEmpty)
        // A current archive needs no change; an old one reports each change.
        #expect(decoded.report.isEmpty == (version == 3))
    }

    @Test(arguments: Golden.Form.allCases)
    func version1ReportNamesEveryChange(form: Golden.Form) throws {
        let data = try Fixtures.data(Golden.url(form, version: 1))
        let report = try VersionedDecoder(schema: Golden.schema()).decode([Employee].self, from: data).report
        let text = report.description
        for expected in [
            "[0]: Employee v1 → v3: renamed class Staff → Employee",
            "[0]: Employee v1 → v3: renamed field name → fullName",
            "[0]: Employee v1 → v3: changed type of salary int32 → int64",
            "[0]: Employee v1 → v3: added field email = \"\"",
            "[0]: Employee v1 → v3: mapped starRating 5 → rating \"love\"",
            "[0]: Employee v1 → v3: removed field nickname",
            "[0].department: Department v1 → v2: renamed field title → name (alias)",
            "[0].department: Department v1 → v2: added field floor = 0 (default)",
        ] {
            #expect(text.contains(expected), "missing \(expected) in\n\(text)")
        }
    }

    @Test func decodingCodeSeesTheArchivesVersionsNotTheCurrentOnes() throws {
        let keyed = try KeyedArchive.readTable(Fixtures.data(Golden.url(.keyed, version: 1))).table
        let unarchiver = KeyedUnarchiver(table: keyed, registry: ArchiveClassRegistry([EmployeeV1.self, DepartmentV1.self]))
        #expect(unarchiver.version(forClassName: "Staff") == 1)
        #expect(unarchiver.version(forClassName: "Department") == 1)
        #expect(unarchiver.version(forClassName: "Employee") == nil)
        #expect(keyed.classVersions["NSArray"] == 0)

        let classic = try TypedStream.readDocument(Fixtures.data(Golden.url(.classic, version: 2)))
        let classicUnarchiver = ClassicUnarchiver(document: classic)
        #expect(classicUnarchiver.version(forClassName: "Employee") == 2)
        #expect(classicUnarchiver.version(forClassName: "Department") == 2)
    }

    @Test func goldenFilesStillDecodeWithTheirOwnReleasesClasses() throws {
        let v1 = try KeyedUnarchiver.unarchivedObject(
            ofType: [EmployeeV1].self, from: Fixtures.data(Golden.url(.keyed, version: 1)),
            registry: ArchiveClassRegistry([EmployeeV1.self, DepartmentV1.self]))
        #expect(v1.map(\.name) == ["Ann Lee", "Bo Chen", "Cy Díaz"])
        #expect(v1[0].department === v1[1].department)
        let v2 = try ClassicUnarchiver.unarchivedObject(
            ofType: [EmployeeV2].self, from: Fixtures.data(Golden.url(.classic, version: 2)),
            registry: ClassicClassRegistry([EmployeeV2.self, DepartmentV2.self]))
        #expect(v2.map(\.starRating) == [4, 2, 3])
    }

    @Test func sampleSchemaIsTheFixtureSchema() throws {
        let sample = try Data(contentsOf: Golden.sample.appendingPathComponent("schema.json"))
        #expect(sample == (try Data(contentsOf: Golden.folder.appendingPathComponent("schema.json"))))
        #expect(try Data(contentsOf: Golden.sample.appendingPathComponent("employees-v1.archive")) == Fixtures.data(Golden.url(.keyed, version: 1)))
    }
}
