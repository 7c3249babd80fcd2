import ArgumentParser
import Foundation
import PFArchive
import PFPostgresStore
import PFSQLiteStore

/// `pfarchive import`: copies every object and relation from one store into another.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the objects and relations of one store into another.",
        discussion: """
            SOURCE and DEST are store paths or URLs: a directory or .zip is a Parse export \
            (a SOURCE may also be one <Class>.json file, an export of that class); \
            .sqlite or .db is pfarchive's SQLite store, or a Core Data store (read-only) when \
            the file has the Z_PRIMARYKEY and Z_METADATA tables, as has .storedata; a .jsonl \
            directory (or a new .jsonl path), and any existing directory of mongoexport \
            files (its first document starts with "_id"), is Parse Server's Mongo shape, \
            while a .ndjson \
            path or an existing .jsonl file is one JSON Lines file of Parse objects; \
            postgres://… is a PostgreSQL server; \
            .archive is a keyed archive; .realm is a Realm file (formats 20-24); any other \
            SQLite database (.sqlite, .db, .sqlitedb, or a file whose bytes are SQLite) is read \
            table by table (Docs/SQLite.md). A DEST that does not exist and has no known \
            extension becomes a new Parse export directory. Core Data stores, Realm files and \
            other SQLite databases are read-only.

            Objects are streamed class by class in batches, then the relation join rows, in \
            one transaction: a new DEST appears only when the import has finished, an \
            existing one is changed all at once, and objects whose objectId is already in \
            DEST replace it. Any bad input stops the import with exit status 1 and leaves a \
            new DEST absent and an existing one unchanged. A killed import leaves only a \
            temporary file (or a journal SQLite rolls back); running it again completes it.

            DEST is never cleaned out: a DEST holding anything pfarchive did not write (a \
            notes.txt or a subfolder beside the class files, another member of a .zip, a \
            table of another program in a .sqlite, a file that is not a store) is refused \
            with exit status 1, naming the first such entry; --keep-foreign carries those \
            entries over untouched instead. While an import writes a file-based DEST it \
            holds a lock (.<name>.pfarchive-lock beside it): a second import into the same \
            DEST fails at once ("DEST is being written by pfarchive pid N"). A replaced \
            file or directory keeps its mode.

            With --rules FILE (a copy rules file, see Docs/GraphCopy.md) each object is \
            imported as the rules make it: Type.key and *.key rules leave fields out, set or \
            regenerate them, and drop Pointers and Relations (omit) or keep them only when the \
            target class is imported (conditional). objectId is never changed. The profile is \
            --profile, else the file's "import" profile, else every Pointer kept with the \
            file's shared rules.

            Field names and nested keys that DEST cannot hold (a Parse export, the Mongo \
            shape and PostgreSQL follow Parse's rules: no '$', '.', leading '_', reserved \
            names or non-ASCII; PostgreSQL columns are at most 63 bytes) are encoded, not \
            refused: 'a.b' is stored as 'pf__a_2e_b', and reading DEST back gives 'a.b' \
            again (Docs/Stores.md, "Names a store cannot hold"). --strict-names refuses them \
            instead (Parse error 105 or 121, exit status 1).

            A Core Data store's transformable values are decoded (keyed archives, property \
            lists, typedstreams, JSON, CBOR, compressed or not), and so is every such payload \
            nested inside them; Binary attributes keep their bytes unless --decode-blobs is given. \
            Reading a source never creates, changes or locks a file beside it (a SQLite source is \
            read through a private copy).

            The report at the end lists objects per class, relation rows, dangling pointers \
            (with class, objectId, key and target), rejected rows with the reason, the names \
            encoded per class and field, and the target class of each relation no schema \
            names, inferred from its related ids (or why it stays unknown). With --rules, a \
            rule naming a class or key the source does not have is an error at its JSON path. \
            A progress bar is drawn on a terminal, never when stderr is piped.

            Examples:
              pfarchive import export/ app.sqlite
              pfarchive import ParseExport.zip app.sqlite --classes _User,Post
              pfarchive import app.sqlite export-copy/ --json > report.json
              pfarchive import export/ app.sqlite --rules strip-passwords.json
              pfarchive import App.sqlite export/ --decode-blobs
              pfarchive import chat.db chat.sqlite --decode-blobs --date-column message.date=mac-ns
            """
    )

    @Argument(help: "The store to read: a Parse export directory or .zip, a .sqlite file, …")
    var source: String

    @Argument(help: "The store to write; created when it does not exist.")
    var dest: String

    @Option(name: .long, help: "Import only these classes (comma-separated), with their relations.")
    var classes: String?

    @Option(name: .long, help: "Objects per write batch (default 1000).")
    var batchSize = 1000

    @Option(name: .long, help: "Threads parsing a Parse export's rows (default: one less than the processor count, since writing takes a core; 1 parses on the importing thread).")
    var jobs = max(1, ProcessInfo.processInfo.activeProcessorCount - 1)

    @Option(name: .long, help: "A copy rules file (JSON) deciding, per class and field, what each imported object keeps.")
    var rules: String?

    @Option(name: .long, help: "The rules file's profile to use (default: its \"import\" profile, else every Pointer kept).")
    var profile: String?

    @Flag(name: .long, help: "Refuse field names and nested keys DEST cannot hold instead of encoding them.")
    var strictNames = false

    @Flag(name: .long, help: "Carry over untouched what DEST holds that is not part of its store (other files, zip members, tables), instead of refusing DEST.")
    var keepForeign = false

    @Flag(name: .long, help: "Print the report as JSON.")
    var json = false

    @OptionGroup var realmKey: RealmKeyOption

    @OptionGroup var sqlite: SQLiteSourceOptions

    func validate() throws {
        guard batchSize >= 1 else { throw ValidationError("--batch-size must be at least 1.") }
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1.") }
        if let classes, classes.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
            throw ValidationError("--classes must be class names separated by commas, such as _User,Post.")
        }
        if profile != nil, rules == nil { throw ValidationError("--profile needs --rules FILE.") }
    }

    func run() throws {
        var openers = StoreOpeners.commands(readerThreads: jobs, realmKey: realmKey.bytes)
        let (sourceLocation, destLocation) = try StoreOpeners.resolve(
            source: source, dest: dest, sameStore: "SOURCE and DEST are the same store.")
        try sqlite.requireSQLiteDatabase(among: [sourceLocation])
        let reporter = SQLiteInput.Reporter(file: sourceLocation.description)
        defer { reporter.finish() }
        sqlite.register(in: &openers, reporter: reporter)
        let wanted = classes.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        let (rulesFile, copyRules, profileName) = try loadRules()
        var reader: any ObjectStoreReader
        let writer: any ObjectStoreWriter
        do {
            reader = try openers.reader(for: sourceLocation)
        } catch {
            throw CLIFailure.opening(error, file: sourceLocation.description)
        }
        defer { reader.close() }
        reader.warnUnread(file: sourceLocation.description)
        let mongoSource = reader as? MongoShapeStore
        if let copyRules, let rulesFile {
            do {
                reader = try RuledStoreReader(
                    source: reader, rules: copyRules, importedClasses: wanted, checking: (rulesFile, profileName))
            } catch {
                throw ValidationError("\(rules ?? ""): \(error.message)")
            }
        }
        do {
            writer = try openers.writer(for: destLocation)
        } catch {
            throw CLIFailure(file: destLocation.description, error)
        }
        if let mongo = mongoSource {
            Self.carryClassPermissions(from: mongo, to: writer, source: sourceLocation.description, dest: destLocation.description)
        }
        var options = StoreImporter.Options(classes: wanted, batchSize: batchSize)
        options.strictNames = strictNames
        if keepForeign { writer.foreignEntries = .keep }
        let importer = StoreImporter(options: options)
        var bar = CountingProgress()
        let report: StoreImporter.Report
        do {
            report = try importer.run(from: reader, to: writer) { progress in
                bar.update(done: progress.objectsDone, total: progress.objectsEstimated, label: progress.current)
            }
        } catch {
            bar.clear()
            if error.code == .usage { throw ValidationError(error.message) }
            if error.format == .copyRules, let rules {
                throw CLIFailure("\(rules): \(error.path.map { "\($0): " } ?? "")\(error.message)")
            }
            let files = [sourceLocation, destLocation].compactMap { $0.url == nil ? nil : $0.argument }
            throw CLIFailure("\(sourceLocation) → \(destLocation): \(CLIFailure.unrepeated(error, files: files).description)")
        }
        bar.clear()
        let text: Data
        if json {
            text = (try? JSONWriter(options: .init(pretty: true)).write(report.jsonValue)) ?? Data()
        } else {
            text = Data((report.lines.joined(separator: "\n") + "\n").utf8)
        }
        do {
            try StandardOutput.writeAll(text, to: STDOUT_FILENO)
        } catch {
            // DEST is committed: say so, so nobody runs the import again thinking it failed.
            throw CLIFailure(
                "import succeeded (\(report.totalObjects) objects committed to \(destLocation)), "
                    + "but its report could not be written: \(error.reason)")
        }
    }

    /// Class-level permissions, which parse-server keeps in a Mongo dump's `_SCHEMA`
    /// (`_metadata.class_permissions`) and no other store pfarchive writes holds: carried into
    /// a new Mongo-shape destination; for any other (or one that exists, whose own are kept)
    /// the classes whose permissions restrict anything are named in a warning, since a class
    /// restored without them is open to everyone under parse-server's defaults.
    static func carryClassPermissions(from source: MongoShapeStore, to writer: any ObjectStoreWriter, source sourceName: String, dest: String) {
        guard let metadata = try? source.classMetadata() else { return }
        let permissions = metadata.compactMapValues { $0["class_permissions"] }.filter { !isOpenToAll($0.value) }
        guard !permissions.isEmpty else { return }
        if let mongo = writer as? MongoShapeStore, !FileManager.default.fileExists(atPath: mongo.directory.path) {
            for (className, clp) in permissions {
                var entry = mongo.metadataToWrite[className]?.dictionaryValue ?? [:]
                entry["class_permissions"] = clp
                mongo.metadataToWrite[className] = .dictionary(entry)
            }
            return
        }
        let names = permissions.keys.sorted()
        let listed = names.prefix(8).joined(separator: ", ") + (names.count > 8 ? ", …" : "")
        let why = writer is MongoShapeStore ? "the existing destination keeps its own" : "only the Mongo shape holds them"
        UnreadWarnings.show([
            "the class-level permissions of \(names.count) class\(names.count == 1 ? "" : "es") "
                + "(\(listed)) are not carried into \(dest) (\(why)); set them again on the server: "
                + "parse-server opens a class without them to everyone"
        ], file: sourceName)
    }

    /// Whether class-level permissions are parse-server's defaults: every operation open to
    /// `*`, no protected fields.
    static func isOpenToAll(_ permissions: PFValue) -> Bool {
        guard let operations = permissions.dictionaryValue else { return false }
        return operations.allSatisfy { key, value in
            if key == "protectedFields" { return value == ["*": []] || value == [:] }
            return value == ["*": true]
        }
    }

    /// The rules file of `--rules`, the compiled rules of its `--profile`, and that profile's
    /// name (`nil` for the default import profile); all `nil` without `--rules`.
    func loadRules() throws -> (CopyRulesFile?, CopyRules?, String?) {
        guard let rules else { return (nil, nil, nil) }
        do {
            let file = try CopyRulesFile.load(try FileIO.read(rules, limit: 64 << 20))
            if let profile { return (file, try file.rules(profile: profile), profile) }
            if file.profiles["import"] != nil { return (file, try file.rules(profile: "import"), "import") }
            return (file, try CopyRules(profile: RuledStoreReader.importProfile(file), schema: file.schema), nil)
        } catch let error as PFError {
            throw CLIFailure(file: rules, error)
        }
    }
}
