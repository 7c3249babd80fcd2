import Foundation
import OrderedCollections
import PFCore
import PFKeyedArchive
import PFTypedStream
import PFVersioning
import PropertyBased
import Testing

/// One employee's data, as any release could hold it.
struct EmployeeRecord: Sendable, CustomStringConvertible {
    var name: String
    var salary: Int32
    var stars: Int32
    var nickname: String
    var email: String
    var department: (name: String, floor: Int32)?

    var description: String { "\(name)/\(salary)/\(stars)/\(email)/\(department.map { "\($0.name)@\($0.floor)" } ?? "-")" }

    static let alphabet: [Character] = ["a", "B", "z", " ", "é", "ß", "☃", "👩‍💻", "-", "0"]

    static func string(_ rng: inout some RandomNumberGenerator) -> String {
        String((0..<Int.random(in: 0...8, using: &rng)).map { _ in alphabet.randomElement(using: &rng) ?? "a" })
    }

    static let generator = Generator<[EmployeeRecord], Shrink.None<[EmployeeRecord]>>(run: { rng in
        (0..<Int.random(in: 1...6, using: &rng)).map { _ in
            EmployeeRecord(
                name: string(&rng), salary: Int32.random(in: .min ... .max, using: &rng), stars: Int32.random(in: 1...5, using: &rng),
                nickname: string(&rng), email: string(&rng),
                department: Bool.random(using: &rng) ? (string(&rng), Int32.random(in: -5...90, using: &rng)) : nil)
        }
    })

    // What each release wrote for this record.
    var v1: EmployeeV1 {
        EmployeeV1(name: name, salary: salary, starRating: stars, nickname: nickname, department: department.map { DepartmentV1(title: $0.name) })
    }
    var v2: EmployeeV2 {
        EmployeeV2(fullName: name, salary: Int64(salary), starRating: stars, nickname: nickname, email: email,
                   department: department.map { DepartmentV2(name: $0.name, floor: $0.floor) })
    }
    // What release 3 writes directly for the record migrated from `version`.
    func v3(from version: Int) -> EmployeeV3 {
        EmployeeV3(fullName: name, salary: Int64(salary), rating: rating(forStars: stars).rawValue, email: version == 1 ? "" : email,
                   department: department.map { DepartmentV2(name: $0.name, floor: version == 1 ? 0 : $0.floor) })
    }
    func current(from version: Int) -> Employee {
        Employee(fullName: name, salary: Int64(salary), rating: rating(forStars: stars), email: version == 1 ? "" : email,
                 department: department.map { Department(name: $0.name, floor: version == 1 ? 0 : $0.floor) })
    }
}

/// The key order of a tree does not matter to readers; compare with keys sorted.
func sortedKeys(_ value: PFValue) -> PFValue {
    switch value {
    case .array(let items): return .array(items.map(sortedKeys))
    case .dictionary(let members):
        return .dictionary(OrderedDictionary(uniqueKeysWithValues: members.sorted { $0.key < $1.key }.map { ($0.key, sortedKeys($0.value)) }))
    default: return value
    }
}

/// Values written under vN and migrated to v3 equal the same values written under v3.
@Suite struct MigrationPropertyTests {
    static let schema: ArchiveSchema = {
        do { return try Golden.schema() } catch { preconditionFailure("the fixture schema must load: \(error)") }
    }()

    @Test func keyedV1MigratedEqualsV3WrittenDirectly() async {
        await propertyCheck(count: 100, input: EmployeeRecord.generator) { records in
            try Self.checkKeyed(records, from: 1, written: KeyedArchiver.archivedData(withRootObject: records.map(\.v1)))
        }
    }

    @Test func keyedV2MigratedEqualsV3WrittenDirectly() async {
        await propertyCheck(count: 100, input: EmployeeRecord.generator) { records in
            try Self.checkKeyed(records, from: 2, written: KeyedArchiver.archivedData(withRootObject: records.map(\.v2)))
        }
    }

    static func checkKeyed(_ records: [EmployeeRecord], from version: Int, written: Data) throws {
        let direct = try KeyedArchiver.archivedData(withRootObject: records.map { $0.v3(from: version) })
        let migrated = try ArchiveMigrator(schema: schema).migrate(written)
        // The same tree (up to key order) as release 3 writes…
        #expect(sortedKeys(try ArchiveDocument.read(migrated.data).tree) == sortedKeys(try ArchiveDocument.read(direct).tree))
        // …readable by release 3's own classes…
        let byRelease3 = try KeyedUnarchiver.unarchivedObject(
            ofType: [EmployeeV3].self, from: migrated.data, registry: ArchiveClassRegistry([EmployeeV3.self, DepartmentV2.self]))
        #expect(byRelease3.map(\.rating) == records.map { rating(forStars: $0.stars).rawValue })
        // …and by today's plain Codable model, straight from the old bytes.
        let decoded = try VersionedDecoder(schema: schema).decode([Employee].self, from: written)
        #expect(decoded.value == records.map { $0.current(from: version) })
        #expect(try VersionedDecoder(schema: schema).decode([Employee].self, from: direct).value == decoded.value)
    }

    @Test func classicV1MigratedEqualsV3WrittenDirectly() async {
        await propertyCheck(count: 100, input: EmployeeRecord.generator) { records in
            let written = try ClassicArchiver.archivedData(withRootObject: records.map(\.v1))
            let direct = try ClassicArchiver.archivedData(withRootObject: records.map { $0.v3(from: 1) })
            let migrated = try ArchiveMigrator(schema: Self.schema).migrate(written)
            #expect(try TypedStream.decodeValue(migrated.data) == TypedStream.decodeValue(direct))
            let byRelease3 = try ClassicUnarchiver.unarchivedObject(
                ofType: [EmployeeV3].self, from: migrated.data, registry: ClassicClassRegistry([EmployeeV3.self, DepartmentV2.self]))
            #expect(byRelease3.map(\.fullName) == records.map(\.name))
            #expect(try VersionedDecoder(schema: Self.schema).decode([Employee].self, from: written).value == records.map { $0.current(from: 1) })
        }
    }

    @Test func migratingTwiceIsAFixedPoint() async {
        await propertyCheck(count: 50, input: EmployeeRecord.generator) { records in
            let written = try KeyedArchiver.archivedData(withRootObject: records.map(\.v1))
            let once = try ArchiveMigrator(schema: Self.schema).migrate(written)
            let twice = try ArchiveMigrator(schema: Self.schema).migrate(once.data)
            #expect(twice.report.isEmpty)
            #expect(twice.data == once.data)
        }
    }
}
