import ArgumentParser
import Foundation
import PFArchive

/// `pfarchive compat`: lists every breaking change between two schema files.
struct Compat: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check that a schema change keeps archives readable; exit 1 listing every breaking change.",
        discussion: """
            backward: the new schema reads archives written with the old one (through its \
            migration steps). forward: builds with the old schema read archives written with \
            the new one (best-effort, by name). full: both.

            Examples:
              pfarchive compat schema-v2.json schema-v3.json
              pfarchive compat schema-v2.json schema-v3.json --mode full
            """
    )

    @Argument(help: "The released schema file.")
    var oldSchema: String

    @Argument(help: "The proposed schema file.")
    var newSchema: String

    @Option(name: .long, help: "backward (default), forward or full.")
    var mode: String = "backward"

    func validate() throws {
        if SchemaCompatibility.Mode(rawValue: mode) == nil {
            throw ValidationError("--mode must be backward, forward or full.")
        }
    }

    func run() throws {
        let old = try SchemaFile.load(oldSchema)
        let new = try SchemaFile.load(newSchema)
        let mode = SchemaCompatibility.Mode(rawValue: mode) ?? .backward
        let issues = SchemaCompatibility.check(old: old, new: new, mode: mode)
        guard issues.isEmpty else {
            let lines = ["\(newSchema): \(issues.count) breaking change(s) against \(oldSchema) (\(mode.rawValue)):"] + issues.map { "  \($0)" }
            throw CLIFailure(lines.joined(separator: "\n"))
        }
        try StandardOutput.write("\(newSchema): compatible with \(oldSchema) (\(mode.rawValue))\n")
    }
}
