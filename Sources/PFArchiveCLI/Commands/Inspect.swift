import ArgumentParser
import Foundation
import OrderedCollections
import PFArchive

/// `pfarchive inspect`: says what a file is and shows its contents as a tree.
struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a file's format, size, compression and contents.",
        discussion: """
            Prints the detected format, the size before and after decompression, \
            format details (a binary property list's trailer, the CBOR tags seen, whether a \
            property list is a keyed archive) and the value as a tree, like `plutil -p`. \
            For a Core Data store: the recovered model, row counts, and what each Binary or \
            Transformable column holds (such as "keyed archive ×12 (NSDictionary), bytes ×1"). \
            For a Realm file: its format version, classes, properties (type, optional or \
            required, primary key, link targets, embedded classes) and object counts. \
            For any other SQLite database: each table's key, row count, foreign keys, and per \
            column what it holds (kinds and counts, such as "gzip bplist ×3", the classes of \
            keyed archives, a sample value, dates with --date-column). For pfarchive's own \
            SQLite store, a Parse export (a directory or .zip) or the Mongo shape (a .jsonl \
            directory): each class with its object count and field types, and each Relation's \
            join rows.

            Examples:
              pfarchive inspect scores.bplist
              pfarchive inspect twitter.json --path 'statuses[0].user.name'
              pfarchive inspect data.cbor.gz --json
              pfarchive inspect data.archive --from keyed
              pfarchive inspect data.archive --graph | dot -Tpng > graph.png
              pfarchive inspect data.archive --from keyed --decode-blobs
              pfarchive inspect App.sqlite            # a Core Data store: model, row counts, blobs
              pfarchive inspect App.sqlite --graph    # its entity graph
              pfarchive inspect default.realm         # a Realm file: format, schema, counts
              pfarchive inspect chat.db --date-column message.date=mac-ns   # any SQLite database
            """
    )

    @Argument(help: "The file to inspect, or '-' for standard input.")
    var input: String

    @OptionGroup var reading: ReadingOptions

    @OptionGroup var blobs: BlobDecodingOption

    @OptionGroup var realmKey: RealmKeyOption

    @Flag(
        name: .long,
        help: "For a Realm file: also show its internal and sync tables (metadata, pk, __*, flx_*) with their columns. For an SQLite database: also views, virtual, shadow and sqlite_* tables.")
    var internalTables = false

    @OptionGroup(title: "SQLite databases") var sqliteTables: SQLiteTableOptions

    @Option(name: .long, help: "Show only the value at this key path, such as 'results[3].score'.")
    var path: String?

    @Flag(name: .long, help: "Print a machine-readable JSON report instead of text.")
    var json = false

    @Option(
        name: .long,
        help: ArgumentHelp("Draw a keyed archive's object graph: Graphviz DOT on stdout (the default), or SVG through Graphviz's dot.", valueName: "dot|svg"))
    var graph: GraphOutput?

    var graphRequested: Bool { graph != nil }

    func validate() throws {
        if graphRequested && json { throw ValidationError("--graph and --json cannot be combined.") }
        if let path {
            do { _ = try PFKeyPath(parsing: path) } catch { throw ValidationError(error.message) }
        }
    }

    func run() throws {
        var options = reading.readOptions(for: input)
        options.decodePayloads = blobs.decodeBlobs
        // What an SQLite file is, told once from its bytes (standard input never is one).
        let sqliteKind = input == "-" ? .notSQLite : StoreLocation.sqliteKind(of: URL(fileURLWithPath: input))
        if sqliteKind == .other && !graphRequested {
            try refusePath(for: "an SQLite database")
            try inspectSQLite(limits: options.limits)
            return
        }
        if sqliteKind != .other { try SQLiteInput.refuse(sqliteTables.given, for: [input]) }
        if isSQLiteFile() {
            // pfarchive's own store, told by its application id; any other is a Core Data store.
            if sqliteKind == .pfarchive && !graphRequested {
                try refusePath(for: "a pfarchive SQLite store")
                try inspectStore(.sqlite)
            } else {
                try refusePath(for: "a Core Data store")
                try inspectCoreData(options: options)
            }
            return
        }
        if !graphRequested, let store = try shownStore() {
            try refusePath(for: "a store of classes")
            try inspectStore(store)
            return
        }
        let bytes: Data
        if showsByRecords {
            // A document of records is shown a record at a time, in bounded memory.
            let source = try FileIO.ChunkedInput(input)
            if try inspectRecords(source, options: options) { return }
            bytes = try source.rest(limit: options.limits.maxInputBytes)
        } else {
            bytes = try FileIO.read(input, limit: options.limits.maxInputBytes)
        }
        if options.format == nil && !graphRequested && RealmInput.isRealm(input, bytes, key: realmKey) {
            try refusePath(for: "a Realm file")
            try inspectRealm(bytes, options: options)
            return
        }
        if graphRequested {
            try drawGraph(bytes, options: options)
            return
        }
        if try inspectDocumentOfRecords(bytes, options: options) { return }
        let report: InspectReport
        let result: FormatIO.ReadResult
        do {
            (report, result) = try InspectReport.read(bytes, options: options)
        } catch {
            throw CLIFailure(file: input, error)
        }
        BlobDecodingOption.warn(result.payloadNotes, file: input)
        var value = result.value
        if let keyPath {
            guard let found = value.value(at: keyPath) else { throw noValue(at: keyPath) }
            value = found
        }
        try show(value, report: report)
    }

    /// Refuses `--path` for an input shown as classes or tables, not one value (it would be
    /// ignored): the way to a value inside is its JSON.
    /// - Parameter kind: what the input is, for the message ("a Core Data store").
    func refusePath(for kind: String) throws {
        guard path != nil else { return }
        throw CLIFailure(
            "\(input): --path picks a value inside one document, and this is \(kind), shown by its classes and tables; "
                + "convert it to JSON (pfarchive convert \(input) out.json) and inspect that with --path")
    }

    /// `--path` parsed (``validate()`` checked it).
    var keyPath: PFKeyPath? { path.map { (try? PFKeyPath(parsing: $0)) ?? .root } }

    func noValue(at keyPath: PFKeyPath) -> CLIFailure {
        CLIFailure("\(input): no value at key path \(keyPath)")
    }

    /// Prints the report and the value shown (the whole value, or the one at `--path`), as
    /// text or, with `--json`, as a JSON document.
    func show(_ value: PFValue, report: InspectReport) throws {
        if json {
            var document = report.summary(file: input)
            if let path { document["path"] = .string(path) }
            document["value"] = value
            let text: Data
            do {
                text = try JSONWriter(options: .init(pretty: true)).write(.dictionary(document))
            } catch {
                throw CLIFailure(file: input, error)
            }
            try StandardOutput.write(text.last == UInt8(ascii: "\n") ? text : text + Data("\n".utf8))
        } else {
            var lines = report.textLines(file: input)
            if let path { lines.append("Path:        \(path)") }
            lines.append("Value:")
            try StandardOutput.writeLines(lines)
            var text = ""
            try value.renderTree(into: &text) { text in try Self.writeOut(&text) }
            text += "\n"
            try Self.writeOut(&text)
        }
    }

    /// Writes rendered text to standard output and empties it.
    static func writeOut(_ text: inout String) throws {
        try StandardOutput.write(text)
        text.removeAll(keepingCapacity: true)
    }
}

enum GraphOutput: String, ExpressibleByArgument {
    case dot, svg
}

extension Inspect {
    /// Prints the object graph of a keyed archive as DOT, or as SVG through Graphviz.
    func drawGraph(_ bytes: Data, options: FormatIO.ReadOptions) throws {
        let dot: String
        do {
            let table = try KeyedArchive.readTable(bytes, limits: options.limits).table
            dot = try KeyedGraph(table: table, options: .init(limits: options.limits, allowedClasses: options.allowedClasses))
                .dotDescription()
        } catch {
            throw CLIFailure(file: input, error)
        }
        try emitGraph(dot)
    }

    /// Prints DOT, or SVG rendered by Graphviz's dot for `--graph svg`.
    func emitGraph(_ dot: String) throws {
        guard graph == .svg else {
            try StandardOutput.write(dot)
            return
        }
        guard let dotPath = Graphviz.executable() else {
            throw CLIFailure("Graphviz's dot was not found on PATH; install graphviz, or use --graph dot")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: dotPath)
        process.arguments = ["-Tsvg"]
        let input = Pipe()
        process.standardInput = input
        try process.run()
        // dot may exit early; with SIGPIPE ignored that is EPIPE here, and dot's status says why.
        try? StandardOutput.writeAll(Data(dot.utf8), to: input.fileHandleForWriting.fileDescriptor)
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CLIFailure("dot failed with status \(process.terminationStatus)") }
    }
}

enum Graphviz {
    /// The path of Graphviz's `dot`, if it is on `PATH`.
    static func executable() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/dot"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

/// What `inspect` found out about an input.
struct InspectReport {
    var format: DataFormat
    var compression: CompressionFormat?
    var inputBytes: Int
    var decodedBytes: Int
    var details: OrderedDictionary<String, PFValue> = [:]

    /// Reads an input whole: the report and the value read.
    static func read(_ bytes: Data, options: FormatIO.ReadOptions) throws(PFError) -> (InspectReport, FormatIO.ReadResult) {
        let result = try FormatIO.read(bytes, options: options)
        // The bytes FormatIO already decompressed: inflating the input again would double the work.
        var report = try InspectReport(
            format: result.format, compression: result.compression, inputBytes: result.inputBytes, decoded: result.decoded,
            options: options)
        if report.details["keyedArchive"] == nil, let keyed = KeyedArchiveSummary(result.value) {
            report.details["keyedArchive"] = keyed.value
        }
        return (report, result)
    }

    /// The report on an input of `format`, from its decompressed bytes (the format's details:
    /// a binary property list's trailer, CBOR's tags, a typedstream's header, a keyed
    /// archive's classes).
    init(format: DataFormat, compression: CompressionFormat?, inputBytes: Int, decoded: Data, options: FormatIO.ReadOptions) throws(PFError) {
        self.format = format
        self.compression = compression
        self.inputBytes = inputBytes
        decodedBytes = decoded.count
        switch format {
        case .bplist:
            let info = try BinaryPlistReader.info(decoded)
            details["offsetIntSize"] = .int(Int64(info.offsetIntSize))
            details["objectRefSize"] = .int(Int64(info.objectRefSize))
            details["objectCount"] = .integer(info.numObjects) ?? .null
            details["topObject"] = .integer(info.topObject) ?? .null
            details["offsetTableOffset"] = .integer(info.offsetTableOffset) ?? .null
        case .cbor:
            let info = try CBORReader.info(decoded, limits: options.limits)
            var tags = OrderedDictionary<String, PFValue>()
            for (tag, count) in info.tags.sorted(by: { $0.key < $1.key }) { tags[String(tag)] = .int(Int64(count)) }
            details["tags"] = .dictionary(tags)
            details["items"] = .int(Int64(info.items))
            details["indefiniteLengths"] = .bool(info.hasIndefiniteLengths)
            details["selfDescribeTag"] = .bool(info.hasSelfDescribeTag)
            if info.undefinedValues > 0 { details["undefinedValues"] = .int(Int64(info.undefinedValues)) }
        case .typedstream:
            details["typedstream"] = try TypedStream.info(decoded, limits: options.limits).value
        case .keyed:
            let table = try KeyedArchive.readTable(decoded, limits: options.limits, decompress: false).table
            var counts = OrderedDictionary<String, Int>()
            for object in table.objects {
                guard case .dictionary(let fields) = object, case .uid(let uid)? = fields["$class"],
                    uid < UInt64(table.objects.count), case .dictionary(let classDictionary) = table.objects[Int(uid)],
                    let name = classDictionary["$classname"]?.stringValue
                else { continue }
                counts[name, default: 0] += 1
            }
            details["keyedArchive"] = [
                "archiver": .string(KeyedObjectTable.archiverName),
                "version": .int(KeyedObjectTable.archiveVersion),
                "objectCount": .int(Int64(table.objects.count)),
                "topKeys": .array(table.topEntries.keys.map { .string($0) }),
                "classes": .dictionary(OrderedDictionary(uniqueKeysWithValues: counts.map { ($0.key, PFValue.int(Int64($0.value))) })),
            ]
        default:
            break
        }
    }

    func summary(file: String) -> OrderedDictionary<String, PFValue> {
        [
            "file": .string(file),
            "format": .string(format.rawValue),
            "compression": compression.map { .string($0.rawValue) } ?? .null,
            "size": .int(Int64(inputBytes)),
            "decodedSize": .int(Int64(decodedBytes)),
            "details": .dictionary(details),
        ]
    }

    func textLines(file: String) -> [String] {
        var lines = [
            "File:        \(file == "-" ? "<stdin>" : file)",
            "Format:      \(format.rawValue) (\(format.displayName))",
            "Size:        \(inputBytes) bytes",
        ]
        if let compression {
            lines.append("Compression: \(compression.rawValue) (\(decodedBytes) bytes decompressed)")
        } else {
            lines.append("Compression: none")
        }
        switch format {
        case .bplist:
            lines.append(
                "Trailer:     offset int size \(details["offsetIntSize"]?.scalarDescription ?? "?"), object ref size "
                    + "\(details["objectRefSize"]?.scalarDescription ?? "?"), \(details["objectCount"]?.scalarDescription ?? "?") objects, "
                    + "top object \(details["topObject"]?.scalarDescription ?? "?"), offset table at byte "
                    + "\(details["offsetTableOffset"]?.scalarDescription ?? "?")")
        case .cbor:
            let tags = details["tags"]?.dictionaryValue ?? [:]
            let tagText = tags.isEmpty ? "none" : tags.map { "\($0.key) ×\($0.value.scalarDescription)" }.joined(separator: ", ")
            lines.append("CBOR:        \(details["items"]?.scalarDescription ?? "?") items; tags: \(tagText)"
                + (details["indefiniteLengths"]?.boolValue == true ? "; indefinite lengths" : "")
                + (details["selfDescribeTag"]?.boolValue == true ? "; self-described" : "")
                + (details["undefinedValues"].map { "; \($0.scalarDescription) undefined (read as null)" } ?? ""))
        default:
            break
        }
        if let stream = details["typedstream"] {
            lines.append("Header:      typedstream version \(stream["streamerVersion"]?.scalarDescription ?? "?"), "
                + "\(stream["byteOrder"]?.stringValue ?? "?"), system version \(stream["systemVersion"]?.scalarDescription ?? "?"); "
                + "\(stream["objects"]?.scalarDescription ?? "?") objects")
            for chain in stream["classes"]?.arrayValue ?? [] {
                let names = (chain.arrayValue ?? []).map {
                    "\($0["name"]?.stringValue ?? "?") v\($0["version"]?.scalarDescription ?? "?")"
                }
                lines.append("Class:       " + names.joined(separator: " : "))
            }
        }
        if let keyed = details["keyedArchive"] {
            let top = keyed["topKeys"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ", ") ?? ""
            lines.append("Keyed:       an NSKeyedArchiver archive (version \(keyed["version"]?.scalarDescription ?? "?")), "
                + "\(keyed["objectCount"]?.scalarDescription ?? "?") objects, $top keys: \(top)"
                + (format == .keyed ? "" : "; decode it with --from keyed"))
            if let classes = keyed["classes"]?.dictionaryValue {
                lines.append("Classes:     " + classes.map { "\($0.key) ×\($0.value.scalarDescription)" }.joined(separator: ", "))
            }
        }
        return lines
    }
}

/// Recognises an NSKeyedArchiver object table in a plain property-list tree.
struct KeyedArchiveSummary {
    var value: PFValue

    init?(_ tree: PFValue) {
        guard case .dictionary(let top) = tree, let archiver = top["$archiver"]?.stringValue,
            case .array(let objects)? = top["$objects"], case .dictionary(let topKeys)? = top["$top"]
        else { return nil }
        value = [
            "archiver": .string(archiver),
            "version": top["$version"] ?? .null,
            "objectCount": .int(Int64(objects.count)),
            "topKeys": .array(topKeys.keys.map { .string($0) }),
        ]
    }
}

extension Inspect {
    /// Writes a store's summary as `inspect --json` shows it: `file` and `format` first, then
    /// the summary's members, indented, ending in a newline (Core Data, Realm and SQLite
    /// databases).
    func writeJSONSummary(_ summary: PFValue, format: String) throws {
        var members = summary.dictionaryValue ?? [:]
        members.updateValue(.string(input), forKey: "file", insertingAt: 0)
        members.updateValue(.string(format), forKey: "format", insertingAt: 1)
        let text: Data
        do {
            text = try JSONWriter(options: .init(pretty: true)).write(.dictionary(members))
        } catch {
            throw CLIFailure(file: input, error)
        }
        try StandardOutput.write(text.last == UInt8(ascii: "\n") ? text : text + Data("\n".utf8))
    }
}
