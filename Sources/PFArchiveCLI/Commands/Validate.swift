import ArgumentParser
import Foundation
import OrderedCollections
import PFArchive

/// `pfarchive validate`: checks a Parse export against a schema.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a Parse export against a Parse schema and list every violation.",
        discussion: """
            INPUT is a class file (<Class>.json: one object, an array, or {"results":[...]}; \
            a 0-byte file is an empty class) or a directory of class files, including \
            _Join:<field>:<Class>.json relation tables, or a .zip of such files (stored or \
            deflated; the class comes from each entry's file name, whatever folder it is in).

            The schema is the REST /schemas shape ({"results":[{"className":...,"fields":{...}}]}) \
            or parse-server's _SCHEMA documents. Without --schema one is inferred from the data \
            (the first type seen for a field wins) and every later value must agree.

            Each violation is one line naming the class, objectId and key path, with Parse's \
            error code where Parse defines one: wrong type (111), invalid key (105) or class \
            name (103), Pointer to the wrong class, malformed Date/Bytes/File, GeoPoint out \
            of range, bad ACL (123). Dangling Pointers are warnings.

            Exit status: 0 when there are no errors (warnings allowed), 1 when there are, \
            2 on a usage error.

            Examples:
              pfarchive validate export/
              pfarchive validate export/GameScore.json --schema schema.json
              pfarchive validate export/ --json > report.json

            With an archive schema (pfarchive's versioning format, see `pfarchive migrate`), \
            INPUT is a keyed archive, typedstream or JSON tree, and every object that would \
            fail to migrate or decode under the schema is listed:
              pfarchive validate employees.archive --schema schema.json
            """
    )

    @Argument(help: "A class file, a directory of class files, or a .zip of them; or an archive, with an archive schema.")
    var input: String

    @Option(name: .long, help: "A Parse schema file (REST /schemas JSON or _SCHEMA documents).")
    var schema: String?

    @Flag(name: .long, help: "Print a machine-readable JSON report instead of lines.")
    var json = false

    @OptionGroup(title: "Decoding limits")
    var limitOptions: LimitOptions

    func run() throws {
        let limits = limitOptions.limits
        var parseSchema: ParseSchema?
        if let schema {
            let bytes = try FileIO.read(schema, limit: limits.maxInputBytes)
            let tree: PFValue
            do {
                tree = try ParseSchema.schemaFileValue(bytes, options: .init())
            } catch {
                throw CLIFailure(file: schema, error)
            }
            // An archive schema (pfarchive's versioning format) checks an archive instead.
            if tree["schemaVersion"] != nil, tree["types"] != nil {
                return try validateArchive(schemaBytes: bytes, schemaPath: schema, limits: limits)
            }
            do {
                parseSchema = try ParseSchema(rest: tree)
            } catch {
                throw CLIFailure(file: schema, error)
            }
        }
        var classes: [ParseValidator.ClassRows] = []
        var readIssues: [ParseIssue] = []
        let (files, schemaFile) = try classFiles(limits: limits)
        // An export's own `_SCHEMA.json` is its schema, unless --schema names another; its
        // names are as the class files spell them (encoded, when pfarchive encoded them).
        if parseSchema == nil, let schemaFile {
            let stored = try schemaFile.load()
            do {
                let bytes = try Compression.decompressIfCompressed(stored, limits: limits).data
                if !bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
                    parseSchema = try ParseSchema(rest: try ParseSchema.schemaFileValue(bytes, options: .init(typedValues: false, limits: limits)))
                }
            } catch {
                throw CLIFailure(file: schemaFile.label, error)
            }
        }
        for file in files {
            let name = ParseExport.className(forFile: URL(fileURLWithPath: file.label))
            let stored = try file.load()
            let bytes: Data
            do { bytes = try Compression.decompressIfCompressed(stored, limits: limits).data } catch { throw CLIFailure(file: file.label, error) }
            do { try limitOptions.memoryBudget.check(.json, inputBytes: bytes.count) } catch { throw CLIFailure(file: file.label, error) }
            do {
                let (rows, shape) = try ParseExport.rows(fromJSON: bytes, limits: limits)
                classes.append(ParseValidator.ClassRows(className: name, rows: rows, shape: shape))
            } catch {
                readIssues.append(ParseIssue(code: .invalidJSON, className: name, objectId: nil, path: error.path ?? .root,
                                             message: "\(file.label): \(error.description)"))
            }
        }
        let report = ParseValidator(schema: parseSchema).validate(classes)
        let issues = readIssues + report.issues
        let errors = issues.filter { $0.severity == .error }.count
        let warnings = issues.count - errors
        // Join files (`_Join:field:Class`) hold relation rows, not objects of a class.
        let joins = classes.filter { ParseRules.joinClassParts($0.className) != nil }
        let classCount = classes.count - joins.count
        let joinRows = joins.reduce(0) { $0 + $1.rows.count }
        let objects = classes.reduce(0) { $0 + $1.rows.count } - joinRows
        if json {
            let document: PFValue = [
                "input": .string(input),
                "classes": .int(Int64(classCount)),
                "objects": .int(Int64(objects)),
                "relations": .int(Int64(joins.count)),
                "relationRows": .int(Int64(joinRows)),
                "errors": .int(Int64(errors)),
                "warnings": .int(Int64(warnings)),
                "issues": .array(issues.map(Validate.jsonIssue)),
                "schema": report.schema.restValue,
            ]
            let text = (try? JSONWriter(options: .init(pretty: true)).write(document)) ?? Data()
            try StandardOutput.write(text + Data("\n".utf8))
        } else {
            var lines = issues.map(\.description)
            var summary = "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s") in \(objects) object\(objects == 1 ? "" : "s") of \(classCount) class\(classCount == 1 ? "" : "es")"
            if !joins.isEmpty { summary += " and \(joinRows) relation row\(joinRows == 1 ? "" : "s")" }
            lines.append(summary)
            try StandardOutput.writeLines(lines)
        }
        if errors > 0 { throw ExitCode.failure }
    }

    /// One class file to check: a name for messages and the class, and how to get its bytes.
    struct ClassFile {
        var label: String
        var load: () throws -> Data
    }

    /// The class files named by INPUT: the file itself, a directory's class files (`.json`,
    /// `.json.gz`), or those entries of a zip (by entry name, skipping macOS `__MACOSX/` and
    /// dot files); and apart from them the export's `_SCHEMA.json`, its schema and no class.
    /// Compressed bytes are inflated when the file is checked.
    func classFiles(limits: PFLimits) throws -> (files: [ClassFile], schema: ClassFile?) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory) else {
            throw CLIFailure("\(input): no such file or directory")
        }
        let url = URL(fileURLWithPath: input)
        if isDirectory.boolValue {
            if url.pathExtension.lowercased() == "jsonl" || MongoShapeStore.looksLikeMongoShape(url) {
                throw CLIFailure(
                    "\(input): Parse Server's MongoDB shape (mongoexport files), not a Parse export; validate reads Parse exports: "
                        + "import it into one first (pfarchive import \(input) export/) and validate that")
            }
            do {
                let all = try ParseExport.classFiles(in: url).map { file in
                    ClassFile(label: file.lastPathComponent) { try FileIO.read(file.path, limit: limits.maxInputBytes) }
                }
                return Self.splittingSchema(all)
            } catch {
                throw CLIFailure(file: input, error)
            }
        }
        let bytes = try FileIO.read(input, limit: limits.maxInputBytes)
        guard input.lowercased().hasSuffix(".zip") || ZipReader.isZip(bytes) else {
            let plain: Data
            do { plain = try Compression.decompressIfCompressed(bytes, limits: limits).data } catch { throw CLIFailure(file: input, error) }
            if let kind = Validate.notAClassFile(plain) {
                throw CLIFailure("\(input): \(kind), not a Parse class file (JSON); validate reads a Parse export, or an archive with --schema and an archive schema")
            }
            return ([ClassFile(label: url.lastPathComponent) { plain }], nil)
        }
        do {
            let zip = try ZipReader(bytes, limits: limits)
            return Self.splittingSchema(zip.entries
                .filter { entry in
                    let base = entry.name.split(separator: "/").last.map(String.init) ?? ""
                    return !entry.isDirectory && ParseExport.isClassFileName(base)
                        && !entry.name.hasPrefix("__MACOSX/")
                }
                .sorted { $0.name < $1.name }
                .map { entry in
                    let base = entry.name.split(separator: "/").last.map(String.init) ?? entry.name
                    return ClassFile(label: base) {
                        do throws(PFError) {
                            return try zip.contents(of: entry)
                        } catch {
                            throw CLIFailure(file: input, error)
                        }
                    }
                })
        } catch {
            throw CLIFailure(file: input, error)
        }
    }

    /// An export's files apart from its `_SCHEMA.json` (or `_SCHEMA.json.gz`), and that one.
    static func splittingSchema(_ files: [ClassFile]) -> (files: [ClassFile], schema: ClassFile?) {
        let isSchema = { (file: ClassFile) in ParseExport.jsonName(ofFile: file.label) == ParseExportStore.schemaFileName }
        return (files.filter { !isSchema($0) }, files.first(where: isSchema))
    }

    /// What a single INPUT is when its bytes say plainly that it is no class file (a
    /// property list, a typedstream, self-described CBOR, compressed bytes, an SQLite
    /// database or a Realm file), or `nil` when it may be JSON (a broken class file is
    /// reported as a violation, with its position).
    static func notAClassFile(_ bytes: Data) -> String? {
        if let compression = Compression.detect(bytes) { return "\(compression.rawValue)-compressed data" }
        if let kind = StoreFileKind.of(bytes) { return kind }
        guard let format = FormatDetector.detect(bytes), format != .json else { return nil }
        // CBOR without its self-describe tag is only a guess from one byte: leave it to the JSON reader.
        if format == .cbor, !FormatDetector.isSelfDescribedCBOR(bytes) { return nil }
        return "a \(format.displayName)"
    }

    static func jsonIssue(_ issue: ParseIssue) -> PFValue {
        var d: OrderedDictionary<String, PFValue> = [
            "severity": .string(issue.severity.rawValue),
            "class": issue.className.map { .string($0) } ?? .null,
            "objectId": issue.objectId.map { .string($0) } ?? .null,
            "path": .string(issue.path.isRoot ? "" : issue.path.description),
            "message": .string(issue.message),
        ]
        d["code"] = issue.code.map { .int(Int64($0.rawValue)) } ?? .null
        return .dictionary(d)
    }
}

extension Validate {
    /// Checks an archive against an archive schema: errors exit 1, warnings keep 0.
    func validateArchive(schemaBytes: Data, schemaPath: String, limits: PFLimits) throws {
        let archiveSchema: ArchiveSchema
        do {
            archiveSchema = try ArchiveSchema.load(schemaBytes, path: schemaPath)
        } catch {
            throw CLIFailure(file: schemaPath, error)
        }
        let data = try FileIO.read(input, limit: limits.maxInputBytes)
        let issues = SchemaValidator.validate(data, schema: archiveSchema, options: MigrationOptions(limits: limits))
        let errors = issues.filter { $0.severity == .error }.count
        if json {
            let document: PFValue = [
                "input": .string(input),
                "errors": .int(Int64(errors)),
                "warnings": .int(Int64(issues.count - errors)),
                "issues": .array(issues.map { issue in
                    [
                        "severity": .string(issue.severity.rawValue),
                        "class": issue.className.map { .string($0) } ?? .null,
                        "path": .string(issue.path.description),
                        "message": .string(issue.message),
                    ]
                }),
            ]
            let text = (try? JSONWriter(options: .init(pretty: true)).write(document)) ?? Data()
            try StandardOutput.write(text + Data("\n".utf8))
        } else {
            var lines = issues.map { issue in
                let where_ = issue.className.map { "\($0) at \(issue.path)" } ?? "\(issue.path)"
                return "\(issue.severity.rawValue): \(where_): \(issue.message)"
            }
            lines.append("\(input): \(errors) errors, \(issues.count - errors) warnings")
            try StandardOutput.writeLines(lines)
        }
        if errors > 0 { throw ExitCode(1) }
    }
}
