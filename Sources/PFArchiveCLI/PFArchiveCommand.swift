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
            the position and what was expected) or when standard output cannot be written \
            (a full disk, a closed pipe), 2 on a usage error.
            """,
        version: PFArchiveVersion.current,
        subcommands: [Convert.self, Inspect.self, Validate.self, Migrate.self, Compat.self, Copy.self, Import.self, Diff.self, Patch.self, Codegen.self]
    )

    /// Runs the command, mapping usage errors to exit status 2 as the CLI contract says
    /// (ArgumentParser's own default is 64).
    static func main() {
        StandardOutput.ignoreBrokenPipeSignal()
        if let message = CommandLineBytes.nonUTF8ArgumentMessage() {
            StandardOutput.writeError(Data("pfarchive: \(message)\n".utf8))
            Foundation.exit(1)
        }
        // Ctrl-C or kill removes the temporary files and lock files in use before exiting.
        Destination.removeTemporariesOnSignals()
        // The subcommand parsed, for the help a usage error its run() throws points to.
        var parsed: ParsableCommand.Type?
        do {
            var command = try parseAsRoot(normalizedArguments(Array(CommandLine.arguments.dropFirst())))
            parsed = type(of: command)
            try command.run()
        } catch let failure as CLIFailure {
            Destination.waitIfInterrupted()
            StandardOutput.writeError(Data("pfarchive: \(CLIFailure.redactingURLArguments(failure.message))\n".utf8))
            Foundation.exit(1)
        } catch {
            Destination.waitIfInterrupted()
            let code = exitCode(for: error)
            if code == .success || code == .failure {
                exit(withError: error)
            }
            if code == .validationFailure {
                StandardOutput.writeError(Data(("pfarchive: " + CLIFailure.redactingURLArguments(usageLine(for: error, in: parsed)) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}

extension PFArchiveCommand {
    /// A usage error as one line, like every other error: ArgumentParser's message without its
    /// `Help:`/`Usage:` block, then where the full usage is (`see 'pfarchive convert --help'`).
    /// A usage error a subcommand's `run()` throws (the parser no longer knows the subcommand
    /// then) points to that subcommand's help too.
    static func usageLine(for error: Error, in command: ParsableCommand.Type? = nil) -> String {
        let lines = { (text: String) in
            text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        let message = lines(message(for: error))
        var first = message.first ?? "invalid usage"
        // A bulleted list after the first line (the values an option takes) joins it.
        let items = message.dropFirst().prefix { $0.hasPrefix("- ") }.map { $0.dropFirst(2) }
        if first.hasSuffix(":") && !items.isEmpty { first += " " + items.joined(separator: ", ") }
        if first.hasPrefix("Error: ") { first.removeFirst("Error: ".count) }
        if first.hasSuffix(".") { first.removeLast() }
        guard var hint = lines(fullMessage(for: error)).first(where: { $0.hasPrefix("See '") }) else { return first }
        if let command, command != PFArchiveCommand.self, hint.hasPrefix("See '\(_commandName) --help'") {
            hint = "See '\(_commandName) \(command._commandName) --help' for more information."
        }
        let see = "see" + hint.dropFirst(3)
        return first + "; " + (see.hasSuffix(".") ? String(see.dropLast()) : see)
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

/// The command line as the kernel passed it, before Swift decoded it.
enum CommandLineBytes {
    /// A message naming the first argument that is not valid UTF-8, or `nil` when all are.
    ///
    /// `CommandLine.arguments` repairs invalid bytes with U+FFFD, so a file name that is not
    /// UTF-8 would be looked up — or written — under another name. pfarchive refuses such an
    /// argument instead; the message shows its bytes with the invalid ones as `\xNN`.
    static func nonUTF8ArgumentMessage() -> String? {
        let count = Int(CommandLine.argc)
        for index in 1..<max(1, count) {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            let bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer)))
            guard String(validating: bytes, as: UTF8.self) == nil else { continue }
            return "argument \(index) ('\(escaped(bytes))') is not valid UTF-8; pfarchive reads and writes only file names "
                + "that are UTF-8, so it stops rather than use another name. Rename the file, or pass it as '-' on standard input or output"
        }
        return nil
    }

    /// The bytes as text: printable ASCII kept, everything else as `\xNN`.
    static func escaped(_ bytes: [UInt8]) -> String {
        var out = ""
        for byte in bytes {
            if byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\\") {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return out
    }
}

enum PFArchiveVersion {
    static let current = "0.1.0"
}
