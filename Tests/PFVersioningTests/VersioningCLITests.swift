import Foundation
import PFKeyedArchive
import PFTestSupport
import PFVersioning
import Testing

/// An Employee from a newer release (v4, with a phone number this build does not know).
final class EmployeeV4: ArchiveCoding {
    static let archiveClassName = "Employee"
    static let archiveVersion = 4
    var fullName: String
    var phone: String

    init(fullName: String, phone: String) {
        self.fullName = fullName
        self.phone = phone
    }

    func encode(with coder: KeyedArchiver) throws {
        try coder.encode(fullName, forKey: "fullName")
        coder.encode(Int64(10), forKey: "salary")
        try coder.encode("love", forKey: "rating")
        try coder.encode("", forKey: "email")
        try coder.encode(phone, forKey: "phone")
    }

    init(from coder: KeyedUnarchiver) throws {
        fullName = try coder.decode(String.self, forKey: "fullName")
        phone = try coder.decode(String.self, forKey: "phone")
    }
}

/// `pfarchive migrate` and `pfarchive compat` through the built binary, and the sample.
@Suite struct VersioningCLITests {
    static let sampleArchive = Golden.sample.appendingPathComponent("employees-v1.archive").path
    static let sampleSchema = Golden.sample.appendingPathComponent("schema.json").path

    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("versioning-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func sampleMigratesToACurrentArchiveAndAgainChangesNothing() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.archive").path
        let first = try CLI.run(["migrate", Self.sampleArchive, out, "--schema", Self.sampleSchema])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdoutText.contains("migrated keyed archive (bplist)"))
        #expect(first.stdoutText.contains("[0]: Employee v1 → v3: renamed class Staff → Employee"))
        #expect(first.stdoutText.contains("[0].department: Department v1 → v2: added field floor = 0 (default)"))

        let schema = try ArchiveSchema.load(Data(contentsOf: URL(fileURLWithPath: Self.sampleSchema)))
        let migrated = try Data(contentsOf: URL(fileURLWithPath: out))
        #expect(SchemaValidator.validate(migrated, schema: schema).isEmpty)
        let old = SchemaValidator.validate(try Data(contentsOf: URL(fileURLWithPath: Self.sampleArchive)), schema: schema)
        #expect(old.count == 4 && old.allSatisfy { $0.severity == .warning && $0.message.contains("is older than") })
        // Foundation-free check with release 3's own classes.
        let employees = try KeyedUnarchiver.unarchivedObject(
            ofType: [EmployeeV3].self, from: migrated, registry: ArchiveClassRegistry([EmployeeV3.self, DepartmentV2.self]))
        #expect(employees.map(\.rating) == ["love", "meh", "hate"])

        let again = dir.appendingPathComponent("again.archive").path
        let second = try CLI.run(["migrate", out, again, "--schema", Self.sampleSchema])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdoutText.contains("already current"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: again)) == migrated)
    }

    @Test(arguments: [Golden.Form.classic, .json])
    func otherFormsMigrateInTheirOwnForm(form: Golden.Form) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out").path
        let result = try CLI.run(["migrate", Golden.url(form, version: 2).path, out, "--schema", Self.sampleSchema])
        #expect(result.status == 0, "\(result.stderr)")
        let document = try ArchiveDocument.read(Data(contentsOf: URL(fileURLWithPath: out)))
        #expect(document.kind == (form == .classic ? .typedstream : .json))
        #expect(try VersionedDecoder(schema: Golden.schema()).decode([Employee].self, from: Data(contentsOf: URL(fileURLWithPath: out))).report.isEmpty)
    }

    @Test func badSchemaIsAOneLineErrorWithItsPath() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let schema = dir.appendingPathComponent("bad.json")
        try Data(#"{"schemaVersion": 1, "types": {"A": {"version": 1, "fields": [], "colour": 1}}}"#.utf8).write(to: schema)
        let out = dir.appendingPathComponent("out.archive").path
        let result = try CLI.run(["migrate", Self.sampleArchive, out, "--schema", schema.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("bad.json: unknown key \"colour\" in type A"))
        #expect(result.stderr.contains("(at types.A.colour)"))
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func newerArchiveIsRefusedWhenAsked() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("v4.archive")
        try KeyedArchiver.archivedData(withRootObject: EmployeeV4(fullName: "Zed", phone: "555")).write(to: input)
        let out = dir.appendingPathComponent("out.archive").path
        let refused = try CLI.run(["migrate", input.path, out, "--schema", Self.sampleSchema, "--newer-versions", "reject"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("archive has Employee v4, this build knows v3"))
        let kept = try CLI.run(["migrate", input.path, out, "--schema", Self.sampleSchema])
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(try ArchiveDocument.read(Data(contentsOf: URL(fileURLWithPath: out))).tree["phone"] == "555")
    }

    @Test func unknownFieldsSurviveADecodeAndReEncode() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: EmployeeV4(fullName: "Zed", phone: "555"))
        let schema = try Golden.schema()
        let decoded = try VersionedDecoder(schema: schema).decode(Employee.self, from: data)
        #expect(decoded.value == Employee(fullName: "Zed", salary: 10, rating: .love, email: "", department: nil))
        #expect(decoded.unknownFields.entries[.root] == ["phone": "555"])
        let tree = try VersionedEncoder(schema: schema).encodeTree(decoded.value, preserving: decoded.unknownFields)
        #expect(tree["phone"] == "555")
        #expect(tree["$class"] == "Employee")
        #expect(tree["$version"] == 3)
        var dropping = MigrationOptions()
        dropping.policies = VersioningPolicies(unknownFields: .drop)
        #expect(try VersionedDecoder(schema: schema, options: dropping).decode(Employee.self, from: data).unknownFields.isEmpty)
    }

    @Test func compatListsEveryBreakingChangeAndExitsOne() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let old = dir.appendingPathComponent("old.json")
        let new = dir.appendingPathComponent("new.json")
        try Data(#"{"schemaVersion": 1, "types": {"A": {"version": 1, "fields": [{"name": "x", "type": "int32"}]}}}"#.utf8).write(to: old)
        try Data(#"{"schemaVersion": 1, "types": {"A": {"version": 2, "fields": [{"name": "y", "type": "string"}, {"name": "z", "type": "date"}]}}}"#.utf8).write(to: new)
        let broken = try CLI.run(["compat", old.path, new.path, "--mode", "full"])
        #expect(broken.status == 1)
        #expect(broken.stderr.contains("3 breaking change(s)"))
        #expect(broken.stderr.contains("backward: A.y:") && broken.stderr.contains("backward: A.z:") && broken.stderr.contains("forward: A.x:"))
        let same = try CLI.run(["compat", Self.sampleSchema, Self.sampleSchema])
        #expect(same.status == 0, "\(same.stderr)")
        #expect(same.stdoutText.contains("compatible"))
        let usage = try CLI.run(["compat", old.path, new.path, "--mode", "sideways"])
        #expect(usage.status == 2)
    }
}
