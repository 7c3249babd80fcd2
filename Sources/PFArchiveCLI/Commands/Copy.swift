import ArgumentParser
import Foundation
import OrderedCollections
import PFArchive

/// `pfarchive copy`: copies an object graph with the semantics a copy profile decides.
struct Copy: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy an object graph (a Parse export, a keyed archive, a typedstream or JSON) under copy rules and a profile.",
        discussion: """
            Each relationship is copied, shared, omitted, kept conditionally or written as a \
            reference, and each attribute copied, omitted, regenerated or set, as the profile \
            and the rules file say (see Docs/GraphCopy.md). Without --rules the built-in \
            profiles apply: shallow, pasteboard, persistence, deep (the default) and duplicate.

            INPUT is a Parse export (a class file: one object, an array or {"results":[…]}; or \
            a directory or .zip of class files and _Join:<field>:<Class>.json files), a keyed archive \
            in any container, a typedstream, or a JSON document ($class objects, $id/$ref \
            sharing); a property list or CBOR document that is not a keyed archive is copied \
            as a JSON document is. The output has the input's form: the copied Parse objects \
            (with their join rows), the copied graph as a keyed archive or typedstream, or as \
            a document in the input's format. A \
            store's objects are copied under rules by `pfarchive import SOURCE DEST --rules FILE`. --root picks what to copy: \
            Class/objectId in a Parse export, a key path in an archive or JSON; by default \
            everything. --dry-run prints the plan (the report) and writes nothing.

            In an export directory a relation is declared by its join file or _SCHEMA.json \
            even when the rows lack the Relation field (Parse.com exports); its target class \
            is inferred from the related ids when nothing names it. The copy has a file for \
            every class and relation of the input, empty ones too. The rules the profile uses \
            are checked against the input: a class or key it does not have is an error \
            naming the rule's JSON path (exit status 1), with --dry-run too.

            Examples:
              pfarchive copy export/ copied/ --profile duplicate --root Employee/E2
              pfarchive copy org.archive paste.archive --rules rules.json --profile pasteboard
              pfarchive copy org.json - --profile deep --root 'departments[0]'
              pfarchive copy export/ - --rules rules.json --profile pasteboard --dry-run
            """
    )

    enum InputKind: String, ExpressibleByArgument, CaseIterable {
        case parse, keyed, typedstream, json
    }

    @Argument(help: "The graph to copy: a file, a Parse export directory, or '-' for standard input.")
    var input: String

    @Argument(help: "Where to write the copy (a directory for a directory or .zip export), or '-' for standard output.")
    var output: String

    @Option(name: .long, help: "A rules file (JSON): types, ownership, shared rules and profiles.")
    var rules: String?

    @Option(name: .long, help: "The profile: one of the rules file's, or shallow, pasteboard, persistence, deep, duplicate.")
    var profile: String = "deep"

    @Option(name: .long, help: "What to copy: Class/objectId in a Parse export, a key path in an archive or JSON.")
    var root: String?

    @Option(name: .long, help: "Read the input as parse, keyed, typedstream or json instead of detecting it.")
    var from: InputKind?

    @Flag(name: .long, help: "Print the plan (what would be copied, shared, omitted, cut) and write nothing.")
    var dryRun = false

    @Flag(name: .long, help: "Indent JSON output.")
    var pretty = false

    @Option(name: .long, help: "Seed for regenerated ids, for reproducible output.")
    var seed: UInt64?

    @Flag(name: .long, help: "Print nothing on success.")
    var quiet = false

    @OptionGroup(title: "Decoding limits")
    var limitOptions: LimitOptions

    func run() throws {
        let rulesFile = try loadRules()
        let copyRules: CopyRules
        do {
            copyRules = try rulesFile.rules(profile: profile)
        } catch {
            throw CLIFailure(rules.map { "\($0): \(error.description)" } ?? error.description)
        }
        let copier = GraphCopier(rules: copyRules, seed: seed)
        let source = try readInput()
        if let rules {
            do {
                try rulesFile.check(profile: profile, against: source.shape)
            } catch {
                throw CLIFailure("\(rules): \(error.path.map { "\($0): " } ?? "")\(error.message)")
            }
        }
        let roots = try selectRoots(in: source)
        do {
            if dryRun {
                let report = try copier.plan(source.graph, roots: roots)
                let text = try JSONWriter(options: .init(pretty: true)).write(report.jsonValue)
                try StandardOutput.write(text + Data("\n".utf8))
                return
            }
            let result = try copier.copy(source.graph, roots: roots)
            try write(result, source: source)
            guard !quiet else { return }
            let counts = result.report.copiedObjects.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            var line = "\(input): copied with profile \(profile): \(counts.isEmpty ? "nothing" : counts)"
            if result.report.truncatedEdgeCount > 0 { line += "; \(result.report.truncatedEdgeCount) edge(s) cut at maxDepth" }
            if result.report.droppedConditionalCount > 0 { line += "; \(result.report.droppedConditionalCount) conditional edge(s) dropped" }
            for finding in source.relationTargets { line += "; \(finding)" }
            for (relation, count) in source.orphanJoinRows {
                line += "; \(count) row\(count == 1 ? "" : "s") of \(relation) name\(count == 1 ? "s" : "") an owner not in the input (not copied)"
            }
            let data = Data((line + "\n").utf8)
            if output == "-" { StandardOutput.writeError(data) } else { try StandardOutput.write(data) }
        } catch let error as PFError {
            throw CLIFailure(file: input, error)
        }
    }

    // MARK: - Rules

    func loadRules() throws -> CopyRulesFile {
        guard let rules else { return CopyRulesFile() }
        let data = try FileIO.read(rules, limit: 64 << 20)
        do {
            return try CopyRulesFile.load(data)
        } catch {
            throw CLIFailure(file: rules, error)
        }
    }

    // MARK: - Input

    /// What was read: the graph, and how to write a copy of it back.
    struct Source {
        enum Form {
            case parseFile(shape: ParseExport.Shape, className: String?)
            /// The classes and relations of the export (every one gets a file in the copy,
            /// empty ones too) and its `_SCHEMA.json`, copied as it is.
            case parseDirectory(classes: [String], relations: [ParseRelationKey], schemaFile: Data?)
            case keyed(KeyedArchiveContainer)
            case typedstream
            case json
            /// A property list or CBOR document that is not a keyed archive, copied as a JSON
            /// document is and written back in its format.
            case document(DataFormat)
        }

        var graph: KeyedGraph
        var form: Form
        /// The classes and keys of the input, for checking the rules file.
        var shape: CopyInputShape
        /// Relations whose target class was inferred from the related ids, or could not be.
        var relationTargets: [RelationTargetInference] = []
        /// Join rows whose owningId is no object of the owning class, per relation: nothing
        /// in the graph holds them, so the copy cannot have them.
        var orphanJoinRows: OrderedDictionary<String, Int> = [:]

        init(graph: KeyedGraph, form: Form, shape: CopyInputShape? = nil, relationTargets: [RelationTargetInference] = []) {
            self.graph = graph
            self.form = form
            self.shape = shape ?? CopyInputShape(graph: graph)
            self.relationTargets = relationTargets
        }
    }

    func readInput() throws -> Source {
        var isDirectory: ObjCBool = false
        if input != "-", FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory),
            isDirectory.boolValue || URL(fileURLWithPath: input).pathExtension.lowercased() == "zip"
        {
            return try readExportDirectory()
        }
        let limits = limitOptions.limits
        let bytes = try FileIO.read(input, limit: limits.maxInputBytes)
        if let kind = StoreFileKind.of(bytes) {
            throw CLIFailure("\(input): \(kind), a store, not a graph; copy a store's objects under rules with pfarchive import SOURCE DEST --rules FILE")
        }
        do throws(PFError) {
            // Opened as every reader opens bytes: one layer of compression undone (a zlib
            // look-alike read as what it is), under the limits given on the command line.
            return try Serialization.open(bytes, limits: limits) { (decoded, _) throws(PFError) in
                try readSource(decoded, limits: limits)
            }.value
        } catch {
            throw CLIFailure(file: input, error)
        }
    }

    /// The graph in (decompressed) input bytes: a keyed archive, a Parse class file or JSON.
    func readSource(_ decoded: Data, limits: PFLimits) throws(PFError) -> Source {
        let detected = FormatDetector.detect(decoded)
        // Bytes no format was detected in are not read as JSON (that said "JSON: unexpected
        // character" for an old-style nib): the error `convert` gives.
        if from == nil && detected == nil { throw FormatIO.undetected(decoded) }
        try limitOptions.memoryBudget.check(detected ?? .json, inputBytes: decoded.count)
        if from == .typedstream || (from == nil && detected == .typedstream) {
            let value = try TypedStream.decodeValue(decoded, limits: limits)
            return Source(graph: try KeyedGraph(json: value), form: .typedstream)
        }
        let isKeyed = from == .keyed || (from == nil && detected != .json && detected != nil)
        if isKeyed {
            do throws(PFError) {
                let (table, container) = try KeyedArchive.readTable(decoded, limits: limits, decompress: false)
                return Source(graph: try KeyedGraph(table: table, options: .init(limits: limits)), form: .keyed(container))
            } catch {
                // A property list or CBOR document that is no archive at all (no $archiver, or
                // not a dictionary) is a document, copied as JSON is.
                guard from == nil, let format = detected, let tree = TreeFormat(rawValue: format.rawValue), Self.isNotAnArchive(error)
                else { throw error }
                let value = try Serialization.readTree(decoded, as: tree, options: .init(limits: limits))
                return Source(graph: try KeyedGraph(json: value), form: .document(format))
            }
        }
        let value = try Serialization.readTree(decoded, as: .json, options: .init(limits: limits))
        if from == .parse || (from == nil && Self.looksLikeParse(value)) {
            let (rows, shape) = try ParseExport.rows(of: value)
            let className = input == "-" ? nil : ParseExport.className(forFile: URL(fileURLWithPath: input))
            var objects: [ParseObject] = []
            for (i, row) in rows.enumerated() {
                do throws(PFError) {
                    objects.append(try ParseObject(rest: row, className: Self.hasClassName(row) ? nil : className))
                } catch {
                    var located = error
                    located.path = PFKeyPath((shape == .results ? [.key("results"), .index(i)] : [.index(i)]) + (error.path?.components ?? []))
                    throw located
                }
            }
            let graph = try ParseGraph.graph(ParseObjectSet(objects: objects)).graph
            var known = CopyInputShape(graph: graph)
            known.add(schema: ParseSchema(OrderedDictionary(uniqueKeysWithValues: Set(objects.map(\.className)).map { ($0, [:]) })))
            return Source(graph: graph, form: .parseFile(shape: shape, className: className), shape: known)
        }
        return Source(graph: try KeyedGraph(json: value), form: .json)
    }

    /// Whether a keyed archive read failed because the bytes are no archive at all: a
    /// document without `$archiver`, or whose root is not a dictionary.
    static func isNotAnArchive(_ error: PFError) -> Bool {
        switch error.failure(as: KeyedArchiveFailure.self) {
        case .noArchiver?, .rootNotDictionary?: true
        default: false
        }
    }

    static func hasClassName(_ row: PFValue) -> Bool {
        if case .dictionary(let d) = row, case .string? = d["className"] { return true }
        return false
    }

    /// A Parse export: objects (one, an array, or `results`) that all have an `objectId` and
    /// no `$class`.
    static func looksLikeParse(_ value: PFValue) -> Bool {
        guard let (rows, _) = try? ParseExport.rows(of: value), !rows.isEmpty else { return false }
        return rows.allSatisfy { row in
            guard case .dictionary(let d) = row else { return false }
            return d["objectId"] != nil && d["$class"] == nil && d["$id"] == nil
        }
    }

    /// A Parse export directory or `.zip`, read as `pfarchive import` reads one (``ParseExportStore``):
    /// class files (0-byte and `{"results":[]}` ones are empty classes), join files (also
    /// spelt with U+A789 for `:`), and `_SCHEMA.json`. A relation is declared by its join
    /// file or the schema as well as by a Relation field in the rows.
    func readExportDirectory() throws -> Source {
        let directory = URL(fileURLWithPath: input)
        let store = ParseExportStore(url: directory, options: .init(limits: limitOptions.limits, workers: 1))
        defer { store.close() }
        do {
            var objects: [ParseObject] = []
            let classes = try store.classNames()
            for name in classes { try store.forEachObject(in: name) { objects.append($0) } }
            var schema = try store.schema()
            var relations: [ParseRelationRows] = []
            var keys = try store.relations()
            for key in keys {
                var rows = ParseRelationRows(owningClass: key.owningClass, field: key.field, targetClass: key.targetClass)
                try store.forEachJoinRow(of: key) { rows.rows.append($0) }
                relations.append(rows)
            }
            // An export whose names pfarchive encoded is read with the original names (which
            // Parse forbids); the copy works on them as the files hold them, so it is written
            // the same way, with the `_SCHEMA.json` that keeps the originals.
            if store.namesEncoded {
                var tally = ParseNameTally()
                let policy = store.namePolicy
                objects = objects.map { ParseNameCoding.encode($0, policy: policy, tally: &tally) }
                schema = ParseNameCoding.encode(schema, policy: policy)
                keys = keys.map { key in
                    var stored = key
                    stored.field = ParseNameCoding.encodeField(key.field, policy: policy, className: key.owningClass)
                    return stored
                }
                for i in relations.indices {
                    relations[i].field = ParseNameCoding.encodeField(relations[i].field, policy: policy, className: relations[i].owningClass)
                }
            }
            let schemaURL = directory.appendingPathComponent(ParseExportStore.schemaFileName)
            let schemaFile = FileManager.default.fileExists(atPath: schemaURL.path)
                ? try FileIO.read(schemaURL.path, limit: limitOptions.limits.maxInputBytes) : nil
            let set = ParseObjectSet(objects: objects, relations: relations)
            let graph = try ParseGraph.graph(set).graph
            var shape = CopyInputShape(graph: graph)
            shape.add(schema: schema, relations: keys.map { ($0.owningClass, $0.field) })
            var source = Source(
                graph: graph, form: .parseDirectory(classes: classes, relations: keys, schemaFile: schemaFile),
                shape: shape, relationTargets: ParseGraph.relationTargets(set))
            var owners: [String: Set<String>] = [:]
            for object in objects { if let id = object.objectId { owners[object.className, default: []].insert(id) } }
            for relation in relations {
                let orphans = relation.rows.count { owners[relation.owningClass]?.contains($0.owningId) != true }
                if orphans > 0 { source.orphanJoinRows[ParseRelationKey(owningClass: relation.owningClass, field: relation.field).joinClassName] = orphans }
            }
            return source
        } catch let error as PFError {
            throw CLIFailure(file: input, error)
        }
    }

    // MARK: - Roots

    func selectRoots(in source: Source) throws -> OrderedDictionary<String, KeyedGraph.Value>? {
        guard let root else { return nil }
        switch source.form {
        case .parseFile, .parseDirectory:
            guard let value = source.graph.top[root] else {
                throw CLIFailure("\(input): --root \(root): no such object; expected Class/objectId of an object in the export")
            }
            return [root: value]
        case .keyed, .typedstream, .json, .document:
            let path: PFKeyPath
            do { path = try PFKeyPath(parsing: root) } catch { throw CLIFailure("--root \(root): \(error.description)") }
            guard var value = source.graph.root ?? source.graph.top.values.first else {
                throw CLIFailure("\(input): the graph has no root")
            }
            for component in path.components {
                guard case .node(let n) = value, source.graph.nodes.indices.contains(n) else {
                    throw CLIFailure("\(input): --root \(root): nothing at \(PFKeyPath([component])) (a scalar or nil is in the way)")
                }
                let next: KeyedGraph.Value?
                switch (source.graph.nodes[n], component) {
                case (.object(let o), .key(let k)): next = o.fields[k]
                case (.dictionary(_, let keys, let values), .key(let k)): next = keys.firstIndex(of: .string(k)).map { values[$0] }
                case (.array(_, let items), .index(let i)), (.set(_, let items), .index(let i)), (.orderedSet(_, let items), .index(let i)):
                    next = items.indices.contains(i) ? items[i] : nil
                default: next = nil
                }
                guard let next else { throw CLIFailure("\(input): --root \(root): no value at \(PFKeyPath([component]))") }
                value = next
            }
            return [KeyedObjectTable.rootKey: value]
        }
    }

    // MARK: - Output

    func write(_ result: GraphCopyResult, source: Source) throws {
        switch source.form {
        case .json:
            let bytes = try JSONWriter(options: .init(pretty: pretty, typedValues: true)).write(try result.graph.jsonValue())
            try FileIO.writeAtomically(bytes, to: output)
        case .keyed(let container):
            try FileIO.writeAtomically(try KeyedArchive.archive(result.graph, container: container), to: output)
        case .typedstream:
            try FileIO.writeAtomically(try TypedStream.encodeValue(try result.graph.jsonValue()), to: output)
        case .document(let format):
            let options = FormatIO.WriteOptions(pretty: pretty)
            try FileIO.writeAtomically(try FormatIO.write(try result.graph.jsonValue(), as: format, options: options), to: output)
        case .parseFile(let shape, _):
            let set = try ParseGraph.objectSet(result.graph, nodes: copiedObjects(result))
            let document = ParseExport.document(set.objects, shape: shape == .single && set.objects.count != 1 ? .array : shape, style: .rest)
            try FileIO.writeAtomically(try JSONWriter(options: .init(pretty: pretty, typedValues: true)).write(document), to: output)
        case .parseDirectory(let classes, let relations, let schemaFile):
            // Every class and relation of the export gets a file, empty ones too.
            let set = try ParseGraph.objectSet(result.graph, nodes: copiedObjects(result))
            var files: OrderedDictionary<String, Data> = [:]
            var byClass = OrderedDictionary<String, [ParseObject]>(uniqueKeysWithValues: classes.map { ($0, []) })
            for object in set.objects { byClass[object.className, default: []].append(object) }
            let writer = JSONWriter(options: .init(pretty: pretty, typedValues: true))
            for (className, objects) in byClass {
                files["\(className).json"] = try writer.write(ParseExport.document(objects, shape: .results, style: .rest))
            }
            var joins = OrderedDictionary<String, [ParseJoinRow]>(uniqueKeysWithValues: relations.map { ($0.joinClassName, []) })
            for relation in set.relations { joins[relation.joinClassName, default: []] += relation.rows }
            for (name, rows) in joins {
                let values: [PFValue] = rows.map { ["owningId": .string($0.owningId), "relatedId": .string($0.relatedId)] }
                files["\(name).json"] = try writer.write(["results": .array(values)])
            }
            if let schemaFile { files[ParseExportStore.schemaFileName] = schemaFile }
            try FileIO.writeDirectoryAtomically(files, to: output)
        }
    }

    /// The copy's object nodes, in the order they were made.
    func copiedObjects(_ result: GraphCopyResult) -> [Int] {
        (result.originalCount..<result.graph.nodes.count).filter {
            if case .object = result.graph.nodes[$0] { true } else { false }
        }
    }
}
