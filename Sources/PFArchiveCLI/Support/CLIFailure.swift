import ArgumentParser
import Foundation
import PFArchive

/// A failure the CLI reports as one line on stderr with exit status 1.
struct CLIFailure: Error {
    var message: String
    /// Whether a streamed conversion declined (`doesNotStream`), having written nothing: the
    /// command then converts the whole tree instead of reporting it.
    var declinedStream = false

    /// A failure about a file: `file: what went wrong at where`.
    /// - Parameters:
    ///   - file: the file argument (`-` is named `<stdin>`, or `<stdout>` for an output).
    ///   - isOutput: whether `file` is the output being written.
    ///   - error: what went wrong.
    init(file: String, isOutput: Bool = false, _ error: PFError) {
        if case .doesNotStream? = error.failure(as: FormatsFailure.self) { declinedStream = true }
        let name = file == "-" ? (isOutput ? "<stdout>" : "<stdin>") : file
        let advice = Self.advice(for: error).map { "; \($0)" } ?? ""
        message = Self.oneLine("\(name): \(Self.unrepeated(error, files: [file]).description)\(advice)")
    }

    /// The commands that take ``ReadingOptions`` (`--from`, `--no-typed-json`).
    static let readingCommands: Set<String> = ["convert", "inspect", "diff", "patch"]

    /// What a command-line user can do about a failure, in the flags of the command run: a
    /// null a property list cannot hold is left out with `convert --drop-nulls`; a malformed typed
    /// JSON object is kept as a dictionary with `--no-typed-json`; JSON Lines in a `.json`
    /// file is read with `--from jsonl`.
    static func advice(for error: PFError) -> String? {
        let command = CommandLine.arguments.dropFirst().first
        if error.failure(as: BinaryPlistFailure.self) == .unwritableNull || error.failure(as: XMLPlistFailure.self) == .nullValue {
            // Only `convert` has the flag.
            return command == "convert" ? "pass --drop-nulls to leave nulls out" : nil
        }
        // The reading options' flags, for the commands that take them.
        guard let command, readingCommands.contains(command) else { return nil }
        if case .classNotAllowed(let name)? = error.failure(as: KeyedArchiveFailure.self) {
            return "pass --allow-class \(name) if it is to be decoded"
        }
        if case .malformedTyped? = error.failure(as: JSONFailure.self) {
            return "pass --no-typed-json to keep such objects as dictionaries"
        }
        // A `/` where JSON has none: a comment (a devcontainer.json, a tsconfig.json).
        if case .unexpected(let found, _)? = error.failure(as: JSONFailure.self), found.hasSuffix("'/'") {
            return "it looks like JSON with comments: pass --lenient, which reads // and /* */ comments"
        }
        // A second value at the start of a line: one JSON value per line, JSON Lines.
        if case .trailingData(let found?)? = error.failure(as: JSONFailure.self), found.contains("'{'") || found.contains("'['"),
            error.location?.column == 1
        {
            return "it looks like JSON Lines (one value per line): pass --from jsonl"
        }
        return nil
    }

    /// The error without a leading `file: ` that the line already starts with: stores name
    /// their file in their messages (`Core Data: App.sqlite: reading …`), and the CLI names
    /// it in front, so it would read twice.
    /// - Parameters:
    ///   - error: the error.
    ///   - files: the file arguments the line names (as given; their last component and
    ///     absolute path are recognised too).
    static func unrepeated(_ error: PFError, files: [String]) -> PFError {
        var names: [String] = []
        for file in files where file != "-" && !file.isEmpty {
            let url = URL(fileURLWithPath: file)
            names += [file, url.path, url.standardizedFileURL.path, url.lastPathComponent]
        }
        var e = error
        for name in names.sorted(by: { $0.count > $1.count }) where e.message.hasPrefix(name + ": ") {
            e.message.removeFirst(name.count + 2)
            break
        }
        return e
    }

    init(_ message: String) { self.message = Self.oneLine(message) }

    /// The failure to open a source: a usage error (exit 2) when the options named what the
    /// SQLite database does not have (`--tables`, `--date-column`), else ``init(file:isOutput:_:)``.
    static func opening(_ error: PFError, file: String) -> any Error {
        if error.code == .usage, error.failure(as: SQLiteSourceFailure.self) != nil { return ValidationError(oneLine(error.message)) }
        return CLIFailure(file: file, error)
    }

    /// The text with every URL argument of the command line, where it is quoted as typed,
    /// shown as ``PFStores/StoreLocation/redacted(_:)`` shows it: a command that reads only
    /// files (`inspect`, `validate`, `copy`) names a `postgres://user:password@…` argument
    /// in its 'no such file' line, and a password is never printed.
    static func redactingURLArguments(_ text: String, arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> String {
        var out = text
        for argument in arguments.sorted(by: { $0.count > $1.count }) where argument.contains("://") {
            let redacted = StoreLocation.redacted(argument)
            if redacted != argument { out = out.replacingOccurrences(of: argument, with: redacted) }
        }
        return out
    }

    /// The text with line breaks and other control characters escaped (`\n`, `\r`, `\t`,
    /// `\u{1B}`): messages quote input — a key, a type encoding, an encoding name — and the
    /// CLI contract is one line per error (found by the mutation test).
    static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == "\u{2028}" || $0 == "\u{2029}" || $0 == "\u{85}" })
        else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out.append(contentsOf: "\\n".unicodeScalars)
            case "\r": out.append(contentsOf: "\\r".unicodeScalars)
            case "\t": out.append(contentsOf: "\\t".unicodeScalars)
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || scalar == "\u{2028}" || scalar == "\u{2029}" || scalar == "\u{85}":
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }
}

/// The failures the CLI's commands make themselves as ``PFCore/PFError``s (most of which stand
/// in for an error kept aside and thrown instead), with their class and message in one place.
enum CommandLineFailure: PFFailure, Hashable {
    /// Writing `output` (a file, or "standard output") failed; the command throws the error
    /// it kept.
    case outputFailed(output: String)
    /// Reading the input failed (`reason` is the system's).
    case cannotRead(reason: String)
    /// A JSON file whose rows have no className and whose file name is not a Parse class name.
    case notAParseClassFile
    /// `diff --brief` stopped at the first difference.
    case stoppedAtFirstDifference

    var code: PFError.Code {
        switch self {
        case .outputFailed, .cannotRead, .stoppedAtFirstDifference: .io
        case .notAParseClassFile: .invalidValue
        }
    }

    var message: String {
        switch self {
        case .outputFailed(let output): "\(output): cannot write"
        case .cannotRead(let reason): "cannot read: \(reason)"
        case .notAParseClassFile: "not a Parse class file"
        case .stoppedAtFirstDifference: "stopped at the first difference"
        }
    }
}
