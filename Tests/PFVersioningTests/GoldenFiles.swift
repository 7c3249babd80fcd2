import Foundation
import PFJSON
import PFKeyedArchive
import PFTestSupport
import PFTypedStream
import PFVersioning
import Testing

/// Where the versioning golden files live, and the generator that wrote them once.
enum Golden {
    static let folder = Fixtures.repoRoot.appendingPathComponent("Tests/PFVersioningTests/Fixtures")
    static let sample = Fixtures.repoRoot.appendingPathComponent("Samples/versioning")

    /// The current schema (the same file as Samples/versioning/schema.json).
    static func schema() throws -> ArchiveSchema {
        let url = folder.appendingPathComponent("schema.json")
        return try ArchiveSchema.load(Data(contentsOf: url), path: url.path)
    }

    static func url(_ form: Form, version: Int) -> URL {
        folder.appendingPathComponent("\(form.rawValue)/employees-v\(version).\(form.fileExtension)")
    }

    enum Form: String, CaseIterable, Sendable {
        case keyed, classic, json

        var fileExtension: String {
            switch self {
            case .keyed: "archive"
            case .classic: "typedstream"
            case .json: "json"
            }
        }
    }

    // MARK: - What each release wrote (the generator's input; expected values are in the tests)

    static func release1() -> [EmployeeV1] {
        let rnd = DepartmentV1(title: "R&D")
        return [
            EmployeeV1(name: "Ann Lee", salary: 5200, starRating: 5, nickname: "annie", department: rnd),
            EmployeeV1(name: "Bo Chen", salary: 4100, starRating: 3, nickname: "bo", department: rnd),
            EmployeeV1(name: "Cy Díaz", salary: 3900, starRating: 1, nickname: "", department: nil),
        ]
    }

    static func release2() -> [EmployeeV2] {
        let rnd = DepartmentV2(name: "R&D", floor: 3)
        return [
            EmployeeV2(fullName: "Ann Lee", salary: 5_200_000_000, starRating: 4, nickname: "annie", email: "ann@example.com", department: rnd),
            EmployeeV2(fullName: "Bo Chen", salary: 4100, starRating: 2, nickname: "bo", email: "bo@example.com", department: rnd),
            EmployeeV2(fullName: "Cy Díaz", salary: 3900, starRating: 3, nickname: "", email: "", department: nil),
        ]
    }

    static func release3() -> [EmployeeV3] {
        let rnd = DepartmentV2(name: "R&D", floor: 3)
        return [
            EmployeeV3(fullName: "Ann Lee", salary: 5_200_000_000, rating: "love", email: "ann@example.com", department: rnd),
            EmployeeV3(fullName: "Dee Eve", salary: 100, rating: "meh", email: "dee@example.com", department: DepartmentV2(name: "Ops", floor: 1)),
            EmployeeV3(fullName: "Cy Díaz", salary: 3900, rating: "hate", email: "", department: rnd),
        ]
    }

    static func bytes(_ form: Form, version: Int) throws -> Data {
        switch form {
        case .keyed: return try keyedBytes(version: version)
        case .classic:
            switch version {
            case 1: return try ClassicArchiver.archivedData(withRootObject: release1())
            case 2: return try ClassicArchiver.archivedData(withRootObject: release2())
            default: return try ClassicArchiver.archivedData(withRootObject: release3())
            }
        case .json:
            // The JSON form is the keyed archive's decoded graph, as `pfarchive convert --to json` writes it.
            let graph = try KeyedArchive.decodeGraph(keyedBytes(version: version))
            return try JSONWriter(options: .init(pretty: true)).write(graph.jsonValue())
        }
    }

    static func keyedBytes(version: Int) throws -> Data {
        switch version {
        case 1: try KeyedArchiver.archivedData(withRootObject: release1())
        case 2: try KeyedArchiver.archivedData(withRootObject: release2())
        default: try KeyedArchiver.archivedData(withRootObject: release3())
        }
    }
}

/// Writes missing golden files. Opt-in: `PFVERSIONING_WRITE_GOLDEN=1 swift test --filter GoldenGenerator`.
/// It never overwrites an existing file: golden files are written once, by the release that
/// introduced their version, and committed.
@Suite struct GoldenGenerator {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["PFVERSIONING_WRITE_GOLDEN"] == "1"))
    func writeMissingGoldenFiles() throws {
        for form in Golden.Form.allCases {
            try FileManager.default.createDirectory(at: Golden.folder.appendingPathComponent(form.rawValue), withIntermediateDirectories: true)
            for version in 1...3 {
                let url = Golden.url(form, version: version)
                guard !FileManager.default.fileExists(atPath: url.path) else { continue }
                try Golden.bytes(form, version: version).write(to: url)
            }
        }
        let sample = Golden.sample.appendingPathComponent("employees-v1.archive")
        if !FileManager.default.fileExists(atPath: sample.path) {
            try FileManager.default.copyItem(at: Golden.url(.keyed, version: 1), to: sample)
        }
    }
}
