import ArgumentParser
import Foundation
import OrderedCollections
import PFArchive
import PFCodegen

/// `pfarchive codegen`: Swift model types inferred from the data itself.
struct Codegen: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Generate Swift model types from a store, an export, an archive or JSON.",
        discussion: """
            SOURCE is anything pfarchive reads: a Parse export (directory or .zip) or any store \
            (SQLite, Core Data, the Mongo shape, postgres://, a store archive, a Realm file), a \
            single Parse class file (<Class>.json), a keyed archive, a typedstream, a versioning \
            schema file (the JSON that migrate --schema reads: its declared types, class \
            versions, keys and field types are generated, nothing is inferred), or a JSON, \
            property-list or CBOR document.

            Every object is read once and only per-field statistics are kept (memory does not \
            grow with the number of rows). A field whose values disagree (a number in one row, \
            a string in another) is reported on standard error with its resolution: integers \
            and numbers widen to Double, anything else is kept as ParseValue (or PFValue), \
            which holds every value as it is.

            Styles: adapter (ParseModel structs for the model adapter, with key maps, \
            ParseReference for Pointers, ParseRelation for Relations and the class \
            dispatch table; the default for Parse sources), codable (plain Codable types \
            with CodingKeys; the default for JSON), \
            archive (ArchiveCoding classes with the archive's class names, keys and class \
            versions; the default for keyed archives; for a typedstream, ClassicArchiveCoding \
            classes with its class names, class versions and superclasses, one property per \
            value group in stream order; the default for typedstreams and schema files).

            Without --out the code is written to standard output as one file. With --out DIR \
            (a new or empty directory) there is one file per type plus one for the table of \
            types, or one file with --single-file.

            Examples:
              pfarchive codegen export/ --out Models
              pfarchive codegen export/ --classes GameScore,_User --enums --out Models
              pfarchive codegen employees.archive --style archive --access internal
            """
    )

    @Argument(help: "A store or export, a Parse class file, a keyed archive, a typedstream, a schema file, or a JSON document.")
    var source: String

    @Option(name: .long, help: ArgumentHelp("Write the files into this new or empty directory.", valueName: "dir"))
    var out: String?

    @Option(name: .long, help: ArgumentHelp("Only these classes (comma-separated).", valueName: "A,B"))
    var classes: String?

    @Option(name: .long, help: "The access level of the declarations: public (default) or internal.")
    var access: String = "public"

    @Option(name: .long, help: "adapter, codable or archive (default: by the source).")
    var style: String?

    @Flag(name: .long, help: "Make string fields with few distinct values (at most 16) enums.")
    var enums = false

    @Flag(name: .long, help: "Write one file instead of one file per type.")
    var singleFile = false

    @OptionGroup(title: "Decoding limits")
    var limitOptions: LimitOptions

    @OptionGroup var realmKey: RealmKeyOption

    func validate() throws {
        guard CodegenAccess(rawValue: access) != nil else { throw ValidationError("--access must be public or internal, not '\(access)'") }
        if let style, CodegenStyle(rawValue: style) == nil {
            throw ValidationError("--style must be adapter, codable or archive, not '\(style)'")
        }
    }

    func run() throws {
        let wanted = classes.map { Set($0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) }
        let (model, chosen) = try schemaModel(wanted: wanted) ?? inferredModel(wanted: wanted)
        let emitter = SwiftEmitter(
            style: chosen, access: CodegenAccess(rawValue: access) ?? .public, singleFile: singleFile || out == nil)
        let files = emitter.files(for: model)
        for conflict in model.conflicts {
            StandardOutput.writeError(Data("pfarchive: codegen: conflict: \(conflict)\n".utf8))
        }
        guard let out else {
            try StandardOutput.write(files.map(\.contents).joined())
            return
        }
        var contents = OrderedDictionary<String, Data>()
        for file in files { contents[file.name] = Data(file.contents.utf8) }
        try FileIO.writeDirectoryAtomically(contents, to: out)
        let count = model.types.count
        try StandardOutput.write(
            "\(out): \(count) \(count == 1 ? "type" : "types") in \(files.count) \(files.count == 1 ? "file" : "files") (\(chosen.rawValue) style), "
                + "\(model.conflicts.count) \(model.conflicts.count == 1 ? "conflict" : "conflicts")\n")
    }

    /// The types inferred from the objects of the source.
    func inferredModel(wanted: Set<String>?) throws -> (CodeModel, CodegenStyle) {
        let inference = try infer()
        if let wanted {
            let missing = wanted.filter { inference.classes[$0] == nil }.sorted()
            guard missing.isEmpty else {
                throw CLIFailure("\(source): no class \(missing.joined(separator: ", ")); classes: \(inference.classes.keys.joined(separator: ", "))")
            }
        }
        guard !inference.classes.isEmpty else { throw CLIFailure("\(source): no objects or classes to generate types from") }
        let chosen = try checkedStyle(for: inference.source)
        var options = CodeModelOptions(classes: wanted, enums: enums && chosen != .archive)
        options.nestedStructs = chosen != .archive
        options.classic = chosen == .archive
        return (inference.model(options: options), chosen)
    }

    /// A versioning schema file (a JSON object with `schemaVersion` and `types`, as
    /// `pfarchive migrate --schema` reads): the types it declares; `nil` for any other source.
    func schemaModel(wanted: Set<String>?) throws -> (CodeModel, CodegenStyle)? {
        let url = URL(fileURLWithPath: source)
        guard url.pathExtension.lowercased() == "json", !FileIO.namesDirectory(source) else { return nil }
        let bytes = try FileIO.read(source, limit: limitOptions.limits.maxInputBytes)
        // Most JSON is not a schema: only one naming the key is parsed here.
        guard bytes.firstRange(of: Data("\"schemaVersion\"".utf8)) != nil else { return nil }
        var options = FormatIO.ReadOptions()
        options.limits = limitOptions.limits
        guard case .dictionary(let top)? = try? FormatIO.read(bytes, options: options).value,
            top["schemaVersion"] != nil, top["types"] != nil
        else { return nil }
        let schema: ArchiveSchema
        do {
            schema = try ArchiveSchema.load(bytes, path: url.lastPathComponent)
        } catch {
            throw CLIFailure(file: source, error)
        }
        if let wanted {
            let missing = wanted.filter { schema.types[$0] == nil }.sorted()
            guard missing.isEmpty else {
                throw CLIFailure("\(source): no class \(missing.joined(separator: ", ")); classes: \(schema.types.keys.joined(separator: ", "))")
            }
        }
        guard !schema.types.isEmpty else { throw CLIFailure("\(source): the schema declares no types") }
        return (CodeModel(schema: schema, origin: url.lastPathComponent, classes: wanted), try checkedStyle(for: .schema))
    }

    /// The chosen style, or the source's default; a usage error when it does not fit the source.
    func checkedStyle(for kind: CodegenSourceKind) throws -> CodegenStyle {
        let chosen = style.flatMap(CodegenStyle.init(rawValue:)) ?? Self.defaultStyle(for: kind)
        switch (chosen, kind) {
        case (.adapter, .parse), (.codable, _), (.archive, .keyedArchive), (.archive, .typedstream), (.archive, .schema): return chosen
        case (.adapter, _):
            throw ValidationError("--style adapter needs Parse objects (an export or a store); \(source) is \(kind.rawValue)")
        case (.archive, _):
            throw ValidationError("--style archive needs a keyed archive, a typedstream or a schema file; \(source) is \(kind.rawValue)")
        }
    }

    static func defaultStyle(for source: CodegenSourceKind) -> CodegenStyle {
        switch source {
        case .parse: .adapter
        case .keyedArchive, .typedstream, .schema: .archive
        case .json: .codable
        }
    }

    // MARK: - Reading the source

    /// Reads every object of the source once, into statistics.
    func infer() throws -> TypeInference {
        let limits = limitOptions.limits
        let location: StoreLocation
        do {
            location = try StoreLocation.resolve(source)
        } catch {
            // A file of mongoexport documents is no class file, but it is a JSON document.
            if case .mongoExportFile? = error.failure(as: StoreFailure.self) { return try inferDocument(limits: limits) }
            throw ValidationError(error.message)
        }
        // A regular file that is not a store by its extension is a document.
        let isFile = location.url.map { !FileIO.namesDirectory($0.path) } ?? false
        if location.kind == .parseExport, isFile, location.url?.pathExtension.lowercased() != "zip" {
            return try inferDocument(limits: limits)
        }
        if location.kind == .keyedArchive, let inference = try? inferDocumentIfArchive(limits: limits) {
            return inference
        }
        let openers = StoreOpeners.commands(realmKey: realmKey.bytes)
        let reader: any ObjectStoreReader
        do {
            reader = try openers.reader(for: location)
        } catch {
            throw CLIFailure(file: source, error)
        }
        defer { reader.close() }
        reader.warnUnread(file: source)
        let inference = TypeInference(source: .parse, origin: URL(fileURLWithPath: source).lastPathComponent)
        do {
            for className in try reader.classNames() {
                _ = inference.classStatistics(className)
                try reader.forEachObject(in: className) { inference.observe($0) }
            }
            for relation in try reader.relations() { inference.observe(relation: relation) }
            if let schema = try reader.declaredSchema() { inference.observe(schema: schema) }
        } catch {
            throw CLIFailure(file: source, error)
        }
        return inference
    }

    /// A `.archive` file that is a Foundation keyed archive rather than a store archive.
    func inferDocumentIfArchive(limits: PFLimits) throws -> TypeInference? {
        let bytes = try FileIO.read(source, limit: limits.maxInputBytes)
        guard let table = try? KeyedArchive.readTable(bytes, limits: limits).table else { return nil }
        let graph = try KeyedGraph(table: table, options: .init(limits: limits))
        // pfarchive's own store archives are read as stores.
        if graph.nodes.contains(where: { if case .object(let o) = $0 { o.archivedClass.name.hasPrefix("PFStore") } else { false } }) {
            return nil
        }
        let inference = TypeInference(source: .keyedArchive, origin: URL(fileURLWithPath: source).lastPathComponent)
        inference.observe(graph: graph)
        return inference
    }

    /// A single file: a keyed archive, a typedstream, a Parse class file or a JSON document.
    func inferDocument(limits: PFLimits) throws -> TypeInference {
        let bytes = try FileIO.read(source, limit: limits.maxInputBytes)
        let name = URL(fileURLWithPath: source).lastPathComponent
        do {
            if let table = try? KeyedArchive.readTable(bytes, limits: limits).table {
                let inference = TypeInference(source: .keyedArchive, origin: name)
                inference.observe(graph: try KeyedGraph(table: table, options: .init(limits: limits)))
                return inference
            }
            var options = FormatIO.ReadOptions()
            options.limits = limits
            options.namedFormat = FormatDetector.infer(fromPath: source).format
            let result = try FormatIO.read(bytes, options: options)
            let rootName = SwiftNames.typeName(URL(fileURLWithPath: source).deletingPathExtension().lastPathComponent)
            if result.format == .typedstream {
                let inference = TypeInference(source: .typedstream, origin: name)
                if style.flatMap(CodegenStyle.init(rawValue:)) == .codable {
                    inference.observe(json: result.value, rootName: rootName)
                    return inference
                }
                inference.observe(classic: result.value)
                // The superclasses and their versions are in the stream's class table (a
                // compressed stream, read above once inflated, keeps the default NSObject).
                if let document = try? TypedStream.readDocument(bytes, limits: limits) {
                    for (index, item) in document.entries.enumerated() {
                        guard case .class(let entry) = item else { continue }
                        let chain = document.classChain(index).dropFirst().map { (name: $0.name, version: $0.version) }
                        inference.observe(classicClass: entry.name, superclasses: Array(chain))
                    }
                }
                return inference
            }
            // A Parse class file (every row is an object of the class its name says) or a
            // REST response whose rows name their class.
            let fileClass = ParseExport.className(forFile: URL(fileURLWithPath: source))
            // Only rows that look like Parse objects (an objectId, a className or Parse's
            // timestamps in one of them) make a class file: a plain document such as
            // twitter.json is JSON, whatever its file's name.
            if result.format == .json, let (rows, _) = try? ParseExport.rows(of: result.value), !rows.isEmpty,
                rows.contains(where: { row in ["objectId", "className", "createdAt", "updatedAt"].contains { row[$0] != nil } }),
                let objects = try? rows.map({ row throws(PFError) in
                    if case .string? = row["className"] { return try ParseObject(rest: row) }
                    guard ParseRules.classNameProblem(fileClass) == nil else {
                        throw PFError(CommandLineFailure.notAParseClassFile, format: .parse)
                    }
                    return try ParseObject(rest: row, className: fileClass)
                })
            {
                let inference = TypeInference(source: .parse, origin: name)
                for object in objects { inference.observe(object) }
                return inference
            }
            let inference = TypeInference(source: .json, origin: name)
            inference.observe(json: result.value, rootName: rootName)
            return inference
        } catch {
            throw CLIFailure(file: source, error)
        }
    }
}
