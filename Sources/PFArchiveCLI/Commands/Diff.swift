import ArgumentParser
import Foundation
import PFArchive
import PFPostgresStore
import PFSQLiteStore

/// `pfarchive diff`: structural comparison of two files or two stores.
struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare two files or two stores structurally; exit 0 when equal, 1 when different, 2 on trouble.",
        discussion: """
            Files of any format pfarchive reads (the same or different) are compared as value \
            trees: by type and content (1, 1.0 and true differ unless --loose), dates to the \
            millisecond, dictionary key order aside. Keyed archives and typedstreams are compared \
            as object graphs, whatever their object numbering; a difference in sharing or in a \
            cycle is reported with both paths. Stores (Parse export directories or .zip, .sqlite, \
            .archive stores, .jsonl directories, postgres:// URLs, Core Data, Realm, and any file \
            whose bytes are an SQLite database or a Realm file) are compared as sets \
            of objects by className and objectId, relations as sets of join rows, schemas field by \
            field; --ignore and --unordered paths are then relative to each object. A .archive \
            file is compared as an object graph unless --stores says it is a whole-store archive.

            Output: one line per difference with its key path from the root, then a summary line \
            (coloured on a terminal). --json writes an RFC 6902 JSON Patch that turns A into B \
            (pfarchive patch A PATCH OUT applies it); --brief only says whether they differ.

            Examples:
              pfarchive diff scores.json scores.bplist
              pfarchive diff a.archive b.archive --ignore 'players[*].lastSeen'
              pfarchive diff export/ store.sqlite
              pfarchive diff old.json new.json --json > changes.json

            Exit status as diff(1): 0 equal, 1 different, 2 trouble (an unreadable input, a usage \
            error), with one line on stderr.
            """
    )

    @Argument(help: "The first file or store (the patch starts from it); '-' for standard input.")
    var a: String

    @Argument(help: "The second file or store.")
    var b: String

    @Flag(name: .long, help: "Write an RFC 6902 JSON Patch turning A into B instead of text.")
    var json = false

    @Flag(name: .long, help: "Only say whether A and B differ.")
    var brief = false

    @Flag(name: .long, help: "Compare numbers by value whatever their type (1, 1.0 and true are equal; so are 0.0 and -0.0).")
    var loose = false

    @Flag(name: .long, help: "Compare dates exactly instead of to the millisecond.")
    var exactDates = false

    @Option(name: .long, help: ArgumentHelp("Do not compare this key path (repeatable; * is any key, [*] any index).", valueName: "keypath"))
    var ignore: [String] = []

    @Option(name: .long, help: ArgumentHelp("Compare the array at this key path as a multiset (repeatable; wildcards as --ignore).", valueName: "keypath"))
    var unordered: [String] = []

    @Flag(name: .long, help: "For stores: do not compare schemas.")
    var noSchema = false

    @Flag(name: .long, help: "Compare A and B as stores even when their names look like files (a whole-store .archive).")
    var stores = false

    @OptionGroup var reading: ReadingOptions

    @OptionGroup var realmKey: RealmKeyOption

    @OptionGroup var sqlite: SQLiteSourceOptions

    func validate() throws {
        if json && brief { throw ValidationError("--json and --brief cannot be used together.") }
        if a == "-" && b == "-" { throw ValidationError("Only one of A and B can be standard input.") }
        for text in ignore + unordered {
            do { _ = try DiffPathPattern(parsing: text) } catch { throw ValidationError(error.message) }
        }
    }

    func run() throws {
        do {
            let different = try compare()
            if different { throw ExitCode(1) }
        } catch let exit as ExitCode {
            throw exit
        } catch let failure as CLIFailure {
            // As the entry point prints every other command's errors: no password of a
            // postgres:// argument is ever shown.
            StandardOutput.writeError(Data("pfarchive: \(CLIFailure.redactingURLArguments(failure.message))\n".utf8))
            throw ExitCode(2)
        } catch let error as PFError {
            StandardOutput.writeError(Data("pfarchive: \(CLIFailure.redactingURLArguments(CLIFailure.oneLine(error.description)))\n".utf8))
            throw ExitCode(2)
        }
    }

    var options: DiffOptions {
        var o = DiffOptions()
        o.loose = loose
        o.datePrecision = exactDates ? .exact : .milliseconds
        o.ignore = ignore.compactMap { try? DiffPathPattern(parsing: $0) }
        o.unordered = unordered.compactMap { try? DiffPathPattern(parsing: $0) }
        return o
    }

    /// Whether an argument names a store rather than a file.
    static func isStore(_ argument: String) -> Bool {
        guard argument != "-" else { return false }
        let lower = argument.lowercased()
        if lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://") { return true }
        if FileIO.namesDirectory(argument) { return true }
        let url = URL(fileURLWithPath: argument)
        if ["zip", "sqlite", "sqlite3", "db", "storedata", "realm"].contains(url.pathExtension.lowercased()) { return true }
        // A file of another name whose bytes are an SQLite database or a Realm file (as
        // `import` reads it; an iOS backup's files have no extension).
        return StoreLocation.kindFromBytes(of: url) != nil
    }

    /// Whether an argument resolves to a JSON Lines store (``StoreKind/jsonLines``).
    static func isJSONLinesStore(_ argument: String) -> Bool {
        argument != "-" && (try? StoreLocation.resolve(argument))?.kind == .jsonLines
    }

    /// Compares; returns whether A and B differ.
    func compare() throws -> Bool {
        var storeA = stores || Self.isStore(a), storeB = stores || Self.isStore(b)
        if storeA != storeB {
            // Beside a store, a JSON Lines file (.ndjson, or an existing .jsonl file) is the
            // store of Parse objects it resolves to, not a list of records.
            if !storeA, Self.isJSONLinesStore(a) { storeA = true }
            if !storeB, Self.isJSONLinesStore(b) { storeB = true }
        }
        if storeA != storeB {
            // A file side that does not exist is missing, not a file of the wrong kind.
            let fileSide = storeA ? b : a
            if fileSide != "-", !FileManager.default.fileExists(atPath: fileSide) { throw CLIFailure("\(fileSide): no such file") }
            throw CLIFailure(
                "cannot compare a store (\(storeA ? a : b)) with a file (\(storeA ? b : a)); give --stores to read the file as a store "
                    + "(a Parse class file <Class>.json is one), or export the store or import the file first")
        }
        if storeA { return try compareStores() }
        try SQLiteInput.refuse(sqlite.sqliteOnlyGiven, for: [a, b])
        return try compareFiles()
    }

    func readInput(_ path: String) throws -> DiffInput {
        var readOptions = reading.readOptions(for: path)
        readOptions.decodePayloads = sqlite.blobs.decodeBlobs
        if path != "-" {
            let name = ParseExport.className(forFile: URL(fileURLWithPath: path))
            if ParseRules.classNameProblem(name) == nil { readOptions.parseClassName = name }
        }
        let bytes = try FileIO.read(path, limit: readOptions.limits.maxInputBytes)
        do {
            return try DiffInput.read(bytes, options: readOptions)
        } catch {
            throw CLIFailure(file: path, error)
        }
    }

    func compareFiles() throws -> Bool {
        let left = try readInput(a), right = try readInput(b)
        var options = options
        options.graph = left.isGraph || right.isGraph
        let result = ValueDiff.compare(left.value, right.value, options: options)
        var output = DiffOutput(mode: json ? .json : brief ? .brief : .text, a: a, b: b)
        for difference in result.differences { try output.add(difference) }
        try output.add(result.patch.operations)
        try output.finish(summary: result.summary, different: !result.isEmpty)
        return !result.isEmpty
    }

    func compareStores() throws -> Bool {
        let reporterA = SQLiteInput.Reporter(file: a), reporterB = SQLiteInput.Reporter(file: b)
        defer {
            reporterA.finish()
            reporterB.finish()
        }
        let locationA: StoreLocation, locationB: StoreLocation
        do { locationA = try StoreLocation.resolve(a) } catch { throw CLIFailure(file: a, error) }
        do { locationB = try StoreLocation.resolve(b) } catch { throw CLIFailure(file: b, error) }
        try sqlite.requireSQLiteDatabase(among: [locationA, locationB])
        let left: any ObjectStoreReader, right: any ObjectStoreReader
        do {
            left = try sqlite.openers(realmKey: realmKey.bytes, limits: reading.limits, reporter: reporterA).reader(for: locationA)
        } catch {
            throw CLIFailure(file: a, error)
        }
        defer { left.close() }
        left.warnUnread(file: a)
        do {
            right = try sqlite.openers(realmKey: realmKey.bytes, limits: reading.limits, reporter: reporterB).reader(for: locationB)
        } catch {
            throw CLIFailure(file: b, error)
        }
        defer { right.close() }
        right.warnUnread(file: b)
        var storeOptions = StoreDiff.Options()
        storeOptions.values.loose = loose
        storeOptions.values.datePrecision = exactDates ? .exact : .milliseconds
        storeOptions.values.ignore = options.ignore
        storeOptions.values.unordered = options.unordered
        storeOptions.compareSchemas = !noSchema
        final class Sink {
            var output: DiffOutput
            var failure: Error?
            init(_ output: DiffOutput) { self.output = output }
        }
        let sink = Sink(DiffOutput(mode: json ? .json : brief ? .brief : .text, a: a, b: b))
        let stop = PFError(CommandLineFailure.stoppedAtFirstDifference, format: .diff)
        let summary: StoreDiff.Summary
        do {
            summary = try StoreDiff.compare(left, right, options: storeOptions) { (event: StoreDiff.Event) throws(PFError) in
                if brief { throw stop }
                do {
                    switch event {
                    case .difference(let d): try sink.output.add(d)
                    case .patch(let ops): try sink.output.add(ops)
                    }
                } catch {
                    sink.failure = error
                    throw stop
                }
            }
        } catch {
            if let failure = sink.failure { throw failure }
            if error.failure(as: CommandLineFailure.self) == .stoppedAtFirstDifference {
                try sink.output.finish(summary: "", different: true)
                return true
            }
            // A store's error names its file (`SQLite: app.db: t 1.payload: …`): the line starts
            // with that argument, as every command's does; both when it cannot be told which.
            let named = [a, b].filter { CLIFailure.unrepeated(error, files: [$0]).description != error.description }
            if named.count == 1 { throw CLIFailure(file: named[0], error) }
            throw CLIFailure("\(a), \(b): \(CLIFailure.unrepeated(error, files: [a, b]).description)")
        }
        try sink.output.finish(summary: summary.line, different: summary.total > 0)
        return summary.total > 0
    }
}

/// Writes what `diff` finds as it goes: text lines, a JSON Patch, or one brief line.
struct DiffOutput {
    enum Mode { case text, json, brief }
    let mode: Mode
    let a: String
    let b: String
    let colour = isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
    var buffer: [UInt8] = []
    var operations = 0

    init(mode: Mode, a: String, b: String) {
        self.mode = mode
        self.a = a
        self.b = b
        if mode == .json { buffer.append(contentsOf: Array("[".utf8)) }
    }

    mutating func add(_ difference: Difference) throws {
        guard mode == .text else { return }
        let line = CLIFailure.oneLine(difference.description)
        if colour {
            let code = switch difference.kind {
            case .added: "32"
            case .removed: "31"
            case .changed: "33"
            case .sharing: "36"
            }
            buffer.append(contentsOf: Array("\u{1B}[\(code)m\(line)\u{1B}[0m\n".utf8))
        } else {
            buffer.append(contentsOf: Array((line + "\n").utf8))
        }
        try flushIfFull()
    }

    mutating func add(_ ops: [JSONPatch.Operation]) throws {
        guard mode == .json else { return }
        let writer = JSONWriter(options: .init(typedValues: true))
        for op in ops {
            buffer.append(contentsOf: Array((operations == 0 ? "\n  " : ",\n  ").utf8))
            do { try writer.write(op.jsonValue, into: &buffer) } catch { throw CLIFailure("cannot write the patch: \(error.message)") }
            operations += 1
        }
        try flushIfFull()
    }

    mutating func flushIfFull() throws {
        if buffer.count >= 1 << 16 {
            try StandardOutput.write(Data(buffer))
            buffer.removeAll(keepingCapacity: true)
        }
    }

    mutating func finish(summary: String, different: Bool) throws {
        switch mode {
        case .text:
            buffer.append(contentsOf: Array((summary + "\n").utf8))
        case .json:
            buffer.append(contentsOf: Array((operations == 0 ? "]\n" : "\n]\n").utf8))
        case .brief:
            if different { buffer.append(contentsOf: Array("\(a) and \(b) differ\n".utf8)) }
        }
        try StandardOutput.write(Data(buffer))
        buffer.removeAll()
    }
}

/// `pfarchive patch`: applies an RFC 6902 JSON Patch (such as `diff --json` writes).
struct Patch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply an RFC 6902 JSON Patch to a file or a store and write the result.",
        discussion: """
            INPUT is read as diff reads it (keyed archives and typedstreams as their object \
            graph's JSON shape); PATCH is a JSON array of operations (add, remove, replace, \
            move, copy, test) with RFC 6901 pointers. The output's format comes from --to or its \
            extension, as for convert, except that a graph written to a property list or CBOR \
            name is a keyed archive in that container; it is written atomically: a failed \
            patch leaves no file. An operation that cannot apply is reported by its index and \
            pointer.

            When INPUT is a store (as diff decides: a directory, .zip, .sqlite, .db, \
            .storedata, .realm, postgres://…, a file whose bytes are SQLite or Realm, or any \
            argument with --stores), PATCH is what diff --json \
            wrote for two stores and OUTPUT is a store destination, written as import writes \
            it (a new store appears whole or not at all); an OUTPUT that exists already (a file, \
            a directory that is not empty, a database with classes) is refused, since merging \
            into it would keep what the patch removes. The store is patched in memory.

            Examples:
              pfarchive diff old.json new.json --json > changes.json
              pfarchive patch old.json changes.json rebuilt.json
              pfarchive patch settings.bplist fix.json settings-fixed.bplist
              pfarchive diff export/ app.sqlite --json > drift.json
              pfarchive patch export/ drift.json rebuilt.sqlite
            """
    )

    @Argument(help: "The file or store to patch, or '-' for standard input.")
    var input: String

    @Argument(help: "The JSON Patch file.")
    var patch: String

    @Argument(help: "The file to write, or '-' for standard output; a store destination when INPUT is a store.")
    var output: String

    @Flag(name: .long, help: "Read INPUT as a store and write OUTPUT as one, whatever their names (a whole-store .archive).")
    var stores = false

    @Option(name: .long, help: "Write this format instead of the one the output's extension implies.")
    var to: DataFormat?

    @Flag(name: .long, help: "Indent the output (JSON and XML property lists).")
    var pretty = false

    @OptionGroup var reading: ReadingOptions

    @OptionGroup var realmKey: RealmKeyOption

    @OptionGroup var sqlite: SQLiteSourceOptions

    func validate() throws {
        if input == "-" && patch == "-" { throw ValidationError("Only one of INPUT and PATCH can be standard input.") }
        if patchesStore {
            if to != nil { throw ValidationError("--to is for files; a store's kind comes from OUTPUT's name.") }
            if output == "-" { throw ValidationError("OUTPUT must be a store when INPUT is a store.") }
            return
        }
        try FileIO.checkOutputFormat(output, to: to)
    }

    /// Whether INPUT is a store (and so OUTPUT is one).
    var patchesStore: Bool { stores || Diff.isStore(input) }

    var outputFormat: DataFormat? { FileIO.outputFormat(output, to: to) }

    /// The operations of PATCH.
    func readOperations() throws -> JSONPatch {
        let readOptions = reading.readOptions
        let patchBytes = try FileIO.read(patch, limit: readOptions.limits.maxInputBytes)
        do {
            let value = try JSONReader(options: .init(typedValues: !reading.noTypedJSON, limits: readOptions.limits)).read(patchBytes)
            return try JSONPatch(json: value)
        } catch {
            throw CLIFailure(file: patch, error)
        }
    }

    func run() throws {
        if patchesStore { return try patchStore() }
        try SQLiteInput.refuse(sqlite.sqliteOnlyGiven, for: [input])
        if output != "-" { _ = try FileIO.outputFile(output) }
        var readOptions = reading.readOptions(for: input)
        readOptions.decodePayloads = sqlite.blobs.decodeBlobs
        let bytes = try FileIO.read(input, limit: readOptions.limits.maxInputBytes)
        let document: DiffInput
        do { document = try DiffInput.read(bytes, options: readOptions) } catch { throw CLIFailure(file: input, error) }
        let operations = try readOperations()
        let patched: PFValue
        do { patched = try operations.apply(to: document.value) } catch { throw CLIFailure(file: patch, error) }
        guard var format = outputFormat else { throw CLIFailure("\(output): no output format") }
        // A keyed archive's graph is what was patched (or a tree was patched into a graph, as
        // a patch from `diff plain.bplist archive.bplist` does): an output named as a property
        // list or CBOR is a keyed archive in that container (a plain tree of the graph would
        // lose it, and cannot hold its nulls). --to says otherwise; JSON is the graph's JSON.
        var container = KeyedArchiveContainer.bplist
        if to == nil, document.format == .keyed || Self.holdsGraphMarkers(patched), format != .json,
            let tree = format.treeFormat, !Self.isObjectTable(patched)
        {
            container = tree
            format = .keyed
        }
        let out: Data
        do {
            out = try FormatIO.write(patched, as: format, options: .init(
                pretty: pretty, compression: FormatDetector.infer(fromPath: output).compression, typedJSON: !reading.noTypedJSON,
                keyedContainer: container))
        } catch {
            throw CLIFailure(file: output, isOutput: true, error)
        }
        try FileIO.writeAtomically(out, to: output)
    }
}

extension Patch {
    /// Whether a patched value is an object table (or a damaged one) rather than a graph: a
    /// graph's JSON escapes every `$` key it does not own (`$$objects`), so `$archiver`,
    /// `$objects` or `$top` at the root come from a tree (a patch from an archive to a table
    /// that `diff` read as a tree), which is written as that tree.
    static func isObjectTable(_ value: PFValue) -> Bool {
        guard case .dictionary(let members) = value else { return false }
        return members["$archiver"] != nil || members["$objects"] != nil || members["$top"] != nil
    }

    /// Whether a value holds an object of a graph's JSON shape (`{"$class": "Name", …}`) or a
    /// reference (`{"$ref": N}`): a property list or CBOR tree read as it is has neither (a
    /// keyed archive's table names its classes by `CF$UID`).
    static func holdsGraphMarkers(_ value: PFValue) -> Bool {
        var stack = [value]
        while let next = stack.popLast() {
            switch next {
            case .dictionary(let members):
                if case .string? = members["$class"] { return true }
                if members.count == 1, members["$ref"]?.int64Value != nil { return true }
                stack.append(contentsOf: members.values.lazy.filter(\.isContainer))
            case .array(let items):
                stack.append(contentsOf: items.lazy.filter(\.isContainer))
            default:
                break
            }
        }
        return false
    }

    /// Refuses an OUTPUT store that exists already: written as `import` writes, it would be
    /// merged into, so the objects and join rows the patch removes would stay (exit 0, the patch
    /// silently half applied). A path that does not exist, an empty directory or a database
    /// without classes is new.
    static func refuseExisting(_ dest: StoreLocation, openers: StoreOpeners) throws {
        let exists: Bool
        if let url = dest.url {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
                exists = !isDirectory.boolValue || !((try? FileManager.default.contentsOfDirectory(atPath: url.path))?.isEmpty ?? true)
            } else {
                exists = false
            }
        } else {
            // A database: it exists for the patch when it holds a class.
            let reader = try? openers.reader(for: dest)
            defer { reader?.close() }
            exists = !((try? reader?.classNames()) ?? []).isEmpty
        }
        if exists {
            throw CLIFailure(
                "\(dest.description): exists; patch writes a new store (over an existing one, what the patch removes would stay): give a new OUTPUT")
        }
    }

    /// Patches a store: reads INPUT whole into its document view, applies PATCH, and writes the
    /// result to OUTPUT as `import` writes a destination.
    func patchStore() throws {
        let (source, dest) = try StoreOpeners.resolve(
            source: input, dest: output, sameStore: "INPUT and OUTPUT are the same store; write the patched store elsewhere.")
        try sqlite.requireSQLiteDatabase(among: [source])
        let operations = try readOperations()
        let reporter = SQLiteInput.Reporter(file: source.description)
        defer { reporter.finish() }
        let openers = sqlite.openers(realmKey: realmKey.bytes, limits: reading.limits, reporter: reporter)
        let reader: any ObjectStoreReader
        do { reader = try openers.reader(for: source) } catch { throw CLIFailure(file: source.description, error) }
        defer { reader.close() }
        reader.warnUnread(file: source.description)
        let patched: MemoryStore
        do {
            patched = try StorePatch.apply(operations, to: reader)
        } catch {
            if error.format == .jsonPatch { throw CLIFailure(file: patch, error) }
            throw CLIFailure(file: source.description, error)
        }
        try Self.refuseExisting(dest, openers: openers)
        let writer: any ObjectStoreWriter
        do { writer = try openers.writer(for: dest) } catch { throw CLIFailure(file: dest.description, error) }
        do {
            _ = try StoreImporter().run(from: patched, to: writer)
        } catch {
            throw CLIFailure(file: dest.description, error)
        }
    }
}
