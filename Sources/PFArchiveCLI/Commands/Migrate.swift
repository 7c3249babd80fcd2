import ArgumentParser
import Foundation
import PFArchive

/// `pfarchive migrate`: rewrites an archive to the schema's current class versions.
struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rewrite an archive at the current class versions of a schema, printing what changed.",
        discussion: """
            Reads a keyed archive (any container), a typedstream or a JSON document, runs each \
            object's migration steps from the version its archive records up to the schema's \
            current version, resolves the fields (aliases, defaults, type promotions) and \
            writes the result in the same form. Every change is printed, one per line. An \
            archive that is already current is copied unchanged, byte for byte.

            Examples:
              pfarchive migrate employees-v1.archive employees.archive --schema schema.json
              pfarchive migrate old.json - --schema schema.json --root-type Employee
            """
    )

    @Argument(help: "The archive to read, or '-' for standard input.")
    var input: String

    @Argument(help: "The file to write, or '-' for standard output.")
    var output: String

    @Option(name: .long, help: "The schema file (JSON) with types, versions, defaults, aliases and migration steps.")
    var schema: String

    @Option(name: .long, help: "The type of the root object when it has no $class (a plain Codable JSON document).")
    var rootType: String?

    @Option(name: .long, help: "Override the schema's unknown-field policy: preserve, drop or error.")
    var unknownFields: String?

    @Option(name: .long, help: "Override the schema's newer-version policy: bestEffort or reject.")
    var newerVersions: String?

    @Flag(name: .long, help: "Print nothing on success.")
    var quiet = false

    @OptionGroup(title: "Decoding limits")
    var limitOptions: LimitOptions

    func validate() throws {
        if let unknownFields, VersioningPolicies.UnknownFields(rawValue: unknownFields) == nil {
            throw ValidationError("--unknown-fields must be preserve, drop or error.")
        }
        if let newerVersions, VersioningPolicies.NewerVersions(rawValue: newerVersions) == nil {
            throw ValidationError("--newer-versions must be bestEffort or reject.")
        }
    }

    func run() throws {
        let loaded = try SchemaFile.load(schema)
        var policies = loaded.policies
        if let unknownFields, let policy = VersioningPolicies.UnknownFields(rawValue: unknownFields) { policies.unknownFields = policy }
        if let newerVersions, let policy = VersioningPolicies.NewerVersions(rawValue: newerVersions) { policies.newerVersions = policy }
        let limits = limitOptions.limits
        let bytes = try FileIO.read(input, limit: limits.maxInputBytes)
        // A compressed archive is judged as the heaviest format: its size after inflating is unknown.
        do { try limitOptions.memoryBudget.check(FormatDetector.detect(bytes) ?? .bplist, inputBytes: bytes.count) } catch {
            throw CLIFailure(file: input, error)
        }
        let migrator = ArchiveMigrator(
            schema: loaded, options: MigrationOptions(policies: policies, rootType: rootType, limits: limits))
        let result: ArchiveMigrator.Result
        do {
            result = try migrator.migrate(bytes)
        } catch {
            throw CLIFailure(file: input, error)
        }
        // Nothing to change: keep the input's bytes, so migrating a current archive is a no-op.
        let unchanged = result.report.isEmpty && result.report.notes.isEmpty
        try FileIO.writeAtomically(unchanged ? bytes : result.data, to: output)
        guard !quiet else { return }
        // With the archive on standard output, the report goes to standard error.
        var lines: [String] = []
        if unchanged {
            lines.append("\(input): already current (\(result.kind)); nothing changed")
        } else {
            lines.append("\(input): migrated \(result.kind), \(result.report.changes.count) change(s)")
            lines += result.report.changes.map(\.description)
            lines += result.report.notes.map { "note: \($0)" }
        }
        let text = Data((lines.joined(separator: "\n") + "\n").utf8)
        if output == "-" { StandardOutput.writeError(text) } else { try StandardOutput.write(text) }
    }
}

/// Loading schema files with errors in the CLI's one-line form.
enum SchemaFile {
    static func load(_ path: String) throws -> ArchiveSchema {
        let data = try FileIO.read(path, limit: 64 << 20)
        do {
            return try ArchiveSchema.load(data, path: path)
        } catch {
            throw CLIFailure(error.description)
        }
    }
}
