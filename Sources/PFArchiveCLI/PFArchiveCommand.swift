import ArgumentParser
import PFArchive
import PFSQLiteStore
import Foundation

/// The `pfarchive` command: reads, converts and inspects archives and data formats.
@main
struct PFArchiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pfarchive",
        abstract: "Read, convert and inspect data and archives: JSON, property lists, CBOR, NSKeyedArchiver and typedstream.",
        discussion: """
            Formats are detected from the input's magic bytes (gzip and zlib compression are \
            undone transparently) and inferred from the output's extension; --from and --to \
            override both. INPUT and OUTPUT may be '-' for standard input and output.

            Exit status: 0 on success, 1 on bad input (one line on stderr naming the file, \
            the position and what was expected), 2 on a usage error.
            """,
        version: PFArchiveVersion.current,
        subcommands: [Convert.self, Inspect.self, Validate.self, Migrate.self, Compat.self, Copy.self, Import.self]
    )

    /// Runs the command, mapping usage errors to exit status 2 as the CLI contract says
    /// (ArgumentParser's own default is 64).
    static func main() {
        // Ctrl-C or kill removes the temporary files and lock files in use before exiting.
        Destination.removeTemporariesOnSignals()
        do {
            var command = try parseAsRoot(normalizedArguments(Array(CommandLine.arguments.dropFirst())))
            try command.run()
        } catch let failure as CLIFailure {
            Destination.waitIfInterrupted()
            FileHandle.standardError.write(Data("pfarchive: \(failure.message)\n".utf8))
            Foundation.exit(1)
        } catch {
            Destination.waitIfInterrupted()
            let code = exitCode(for: error)
            if code == .success || code == .failure {
                exit(withError: error)
            }
            if code == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}

/// `--graph` takes an optional value (`dot` when omitted); ArgumentParser options always take
/// one, so a bare `--graph` is completed here before parsing.
func normalizedArguments(_ arguments: [String]) -> [String] {
    var out: [String] = []
    for (i, argument) in arguments.enumerated() {
        out.append(argument)
        if argument == "--graph" {
            let next = i + 1 < arguments.count ? arguments[i + 1] : nil
            if next != "dot" && next != "svg" { out.append("dot") }
        }
    }
    return out
}

enum PFArchiveVersion {
    static let current = "0.1.0"
}
