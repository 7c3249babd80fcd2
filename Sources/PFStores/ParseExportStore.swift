import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFParse
import PFParseExport

/// A Parse export: a directory, or a `.zip`, of `<Class>.json` files and
/// `_Join:<field>:<Class>.json` relation files, with an optional `_SCHEMA.json`.
///
/// Reading streams: each class file is read in chunks (``Options/chunkSize``) and cut into
/// rows as the bytes arrive (``PFParse/ParseExportRowCutter``), so memory holds one chunk and
/// one row, never a file. Class files may be `{"results":[…]}`, a bare array
/// (parse-dashboard), one object, or 0 bytes (an empty class, as Parse.com wrote them);
/// file names may spell `:` as U+A789 `꞉`. `_User` rows keep `bcryptPassword` and
/// `authData` untouched. The schema is `_SCHEMA.json` when present (parse-server's `_SCHEMA`
/// documents or the REST `/schemas` shape), completed by inference for the classes it does
/// not name; otherwise it is inferred from every row (see ``schema()``).
///
/// Writing follows ``ObjectStoreWriter``'s contract: everything goes to a temporary sibling
/// (`.<name>.pfarchive-tmp-<pid>-<random>`) that ``commit()`` renames into place, under the
/// destination's lock (``Destination``); a destination holding anything that is not part of an
/// export is refused unless ``foreignEntries`` keeps it. See `ParseExportStore+Writing.swift`.
public final class ParseExportStore: ObjectStoreReader, ObjectStoreWriter {
    /// The format name in errors.
    public static let format: PFError.Format = .parseExport
    /// The schema file's name.
    public static let schemaFileName = "_SCHEMA.json"

    /// Reading and writing settings.
    public struct Options: Sendable {
        /// Budgets: `maxInputBytes` bounds one row, the zip limits bound each entry.
        public var limits: PFLimits
        /// Bytes read (or inflated) at a time. Default 1 MiB.
        public var chunkSize: Int
        /// Write a `.zip` (otherwise a directory); by default told by the `.zip` extension.
        public var zip: Bool?
        /// Write rows with sorted keys, as Parse.com's exports did.
        public var sortedKeys: Bool
        /// Threads parsing rows when reading (1: on the calling thread). Default: the
        /// machine's active processor count.
        public var workers: Int

        /// Makes settings.
        /// - Parameters:
        ///   - limits: budgets.
        ///   - chunkSize: bytes read at a time.
        ///   - zip: write a zip; `nil` to decide by the extension.
        ///   - sortedKeys: sort each row's keys when writing.
        ///   - workers: threads parsing rows when reading.
        public init(
            limits: PFLimits = .default, chunkSize: Int = 1 << 20, zip: Bool? = nil, sortedKeys: Bool = false,
            workers: Int = ProcessInfo.processInfo.activeProcessorCount
        ) {
            self.workers = max(1, workers)
            self.limits = limits
            self.chunkSize = chunkSize
            self.zip = zip
            self.sortedKeys = sortedKeys
        }
    }

    /// A field whose rows disagree on its type, found while inferring the schema.
    public struct TypeConflict: Sendable, Equatable, CustomStringConvertible {
        /// The class.
        public var className: String
        /// The field.
        public var field: String
        /// The type kept (the first one seen).
        public var kept: ParseSchema.Field
        /// The other type.
        public var other: ParseSchema.Field
        /// The first row with the other type.
        public var row: Int

        public var description: String {
            "\(className).\(field): kept \(kept) (first seen); row \(row) has \(other)"
        }
    }

    /// The export's path.
    public let url: URL
    public var location: String { url.path }
    /// The settings.
    public let options: Options
    /// Fields whose rows disagree on a type, found by the last inferring ``schema()``.
    public private(set) var typeConflicts: [TypeConflict] = []

    var container: ExportContainer?
    var cachedSchema: ParseSchema?
    var cachedSchemaFile: ParseSchema?
    /// Classes whose every row has been read, with the schema inferred on the way.
    var inferred: [String: SchemaInference] = [:]
    /// The row shapes the last ``forEachRow(in:recognizing:_:)`` of each class saw, when it
    /// inferred the class's schema (``rowShapes(of:)``).
    var shapesSeen: [String: RowShapes] = [:]
    var writing: WriteState?
    /// Whether `_SCHEMA.json` says pfarchive encoded names Parse forbids (known once the
    /// schema has been read: objects and relations then come back with their original names).
    public internal(set) var namesEncoded = false
    /// The names the last write encoded.
    public internal(set) var encodedNames = ParseNameTally()
    /// Parse's rules: names they forbid are encoded (``PFParse/ParseNameCoding``).
    public var namePolicy: ParseNamePolicy { .parseExport }
    /// Entries of the destination left out of reading: its foreign entries while writing.
    var excludedEntries: Set<String> = []

    /// What ``begin(schema:)`` does with entries of the destination that are not part of an
    /// export (see Docs/Security.md, "Destinations"). Default: refuse.
    public var foreignEntries: ForeignEntries = .refuse

    /// Opens an export for reading or writing. Nothing is read until asked; a path that does
    /// not exist yet is an empty store (to write).
    /// - Parameters:
    ///   - url: the directory or `.zip`.
    ///   - options: settings.
    public init(url: URL, options: Options = Options()) {
        self.url = url
        self.options = options
    }

    /// Whether the export is written as a zip.
    var isZip: Bool { options.zip ?? (url.pathExtension.lowercased() == "zip") }

    // MARK: - Files

    /// The opened container, or `nil` when the export does not exist (an empty store).
    func opened() throws(PFError) -> ExportContainer? {
        if let container { return container }
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let opened = try ExportContainer(url: url, limits: options.limits, excluding: excludedEntries)
        container = opened
        return opened
    }

    /// Refuses, as a source, a directory or zip that holds files but no export file (no
    /// class, join or `_SCHEMA` file): a wrong path, or files of another kind, would read as
    /// an export of no classes and import nothing without a word. An empty directory is an
    /// empty export.
    /// - Throws: ``PFCore/PFError`` (`invalidValue`) naming what it holds.
    func requireExportFiles() throws(PFError) {
        guard let container = try opened(), container.files.isEmpty else { return }
        var held: [String]
        var exportFolder: String?
        switch container.kind {
        case .directory(let url):
            held = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).filter { !$0.hasPrefix(".") }.map { name in
                var isDirectory: ObjCBool = false
                let path = url.appendingPathComponent(name).path
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return name }
                // An export unpacked into a folder of its own: name the folder to give.
                if exportFolder == nil, let files = try? ParseExport.classFiles(in: URL(fileURLWithPath: path)), !files.isEmpty {
                    exportFolder = path
                }
                return name + "/"
            }
        case .zip(_, let archive):
            held = archive.filter { $0.type == .file && !$0.path.hasPrefix("__MACOSX/") }.map(\.path)
                .filter { !($0.split(separator: "/").last ?? "").hasPrefix(".") }
        case .classFile:
            return
        }
        guard !held.isEmpty else { return }
        held.sort()
        throw PFError(
            StoreFailure.noExportFiles(path: location, found: Array(held.prefix(3)), more: max(0, held.count - 3), exportFolder: exportFolder),
            format: Self.format)
    }

    /// The export's files by role.
    struct Layout {
        var classes: OrderedDictionary<String, ExportContainer.File> = [:]
        var joins: OrderedDictionary<ParseRelationKey, ExportContainer.File> = [:]
        var schema: ExportContainer.File?
    }

    func layout() throws(PFError) -> Layout {
        var layout = Layout()
        guard let container = try opened() else { return layout }
        for file in container.files {
            if ParseExport.jsonName(ofFile: file.name) == Self.schemaFileName {
                layout.schema = file
                continue
            }
            let name = ParseExport.className(forFile: URL(fileURLWithPath: file.name))
            if let key = ParseRelationKey(joinClassName: name) {
                if layout.joins[key] != nil {
                    throw PFError(StoreFailure.duplicateJoinFile(location: location, joinClassName: key.joinClassName), format: Self.format)
                }
                layout.joins[key] = file
            } else {
                if layout.classes[name] != nil {
                    throw PFError(StoreFailure.duplicateClassFile(location: location, className: name), format: Self.format)
                }
                layout.classes[name] = file
            }
        }
        return layout
    }

    // MARK: - Reading

    public func classNames() throws(PFError) -> [String] {
        let layout = try layout()
        var names = OrderedSet(layout.classes.keys)
        if layout.schema != nil { names.append(contentsOf: try schema().classes.keys) }
        // A class known only by its join file (`_Join:tags:Article.json` without
        // `Article.json`) owns the relation's rows: a class without objects.
        for key in layout.joins.keys { names.append(originalKey(ParseRelationKey(owningClass: key.owningClass, field: key.field)).owningClass) }
        return Array(names)
    }

    /// The schema: `_SCHEMA.json` when the export has one (its classes as written there), and
    /// for every class it does not name, a schema inferred from the rows.
    ///
    /// Inference takes each non-null value's type (``PFParse/ParseSchema/fieldType(of:)``);
    /// integers and doubles are both `Number`. When rows disagree — a field that is a String
    /// in one row and a Number in another, or Pointers to two classes — the first type seen
    /// is kept and the disagreement is listed in ``typeConflicts``. A field that is null in
    /// every row is not in the schema. A join file `_Join:<field>:<Class>.json` adds `<field>`
    /// as a Relation when no row said so.
    ///
    /// A class is inferred while ``forEachObject(in:_:)`` reads it: once every row of a
    /// class has been read, its schema costs nothing more. Classes not read yet are read here
    /// (streamed). The result is cached.
    /// - Throws: ``PFCore/PFError`` for an unreadable schema file or a malformed row.
    public func schema() throws(PFError) -> ParseSchema {
        if let cachedSchema { return cachedSchema }
        let layout = try layout()
        var schema = try schemaFile() ?? ParseSchema()
        var conflicts: [TypeConflict] = []
        for (className, _) in layout.classes where schema.classes[className] == nil {
            if inferred[className] == nil { try forEachObject(in: className) { _ in } }
            schema.classes[className] = inferred[className]?.fields ?? [:]
            conflicts += inferred[className]?.conflicts ?? []
        }
        for key in layout.joins.keys.map(originalKey) where schema.classes[key.owningClass]?[key.field] == nil {
            schema.classes[key.owningClass, default: [:]][key.field] =
                ParseSchema.Field(.relation, targetClass: Self.systemRelationTargets[key.owningClass + "." + key.field])
        }
        typeConflicts = conflicts
        cachedSchema = schema
        return schema
    }

    /// The schema without reading rows: `_SCHEMA.json` when it names every class file, or
    /// every class it does not name has been read whole already; otherwise `nil`.
    public func declaredSchema() throws(PFError) -> ParseSchema? {
        if let cachedSchema { return cachedSchema }
        let layout = try layout()
        let file = try schemaFile()
        for className in layout.classes.keys where file?.classes[className] == nil && inferred[className] == nil {
            return nil
        }
        return try schema()
    }

    /// `_SCHEMA.json`, read once, or `nil` when the export has none.
    func schemaFile() throws(PFError) -> ParseSchema? {
        if let cachedSchemaFile { return cachedSchemaFile }
        guard let file = try layout().schema else { return nil }
        let schema = try readSchemaFile(file)
        cachedSchemaFile = schema
        return schema
    }

    /// Forgets what was read (the schema file, inferred classes), before the export changes.
    func forgetSchema() {
        cachedSchema = nil
        cachedSchemaFile = nil
        inferred = [:]
        namesEncoded = false
    }

    /// The field types of one class, gathered row by row.
    struct SchemaInference: Sendable {
        let className: String
        var fields = OrderedDictionary<String, ParseSchema.Field>()
        var conflicts: [TypeConflict] = []
        var row = 0

        /// The previous object's typed fields in order (keys and types apart, so a look at one
        /// copies nothing). Rows of one class nearly always repeat them, so a field with the key
        /// and type of the one at its position was recorded already and needs no lookup, nor its
        /// type built (keys from one reader share storage: `==` is a compare of two words).
        var previousKeys: [String] = []
        var previousFields: [ParseSchema.Field] = []
        /// `previousFields`' type codes (``PFParse/ParseValue/fieldTypeCode``): a value of
        /// the same code is of the same field, unless it names a target class (Pointer,
        /// Relation), which is then compared too. Told by the codes alone, a field costs no
        /// copy of its value or of the previous field.
        var previousCodes: [UInt8] = []

        /// The codes of the types with a target class.
        static let targetCodes: (pointer: UInt8, relation: UInt8) = (ParseFieldType.pointer.code, ParseFieldType.relation.code)

        mutating func add(_ object: ParseObject) {
            let keys = object.fields.keys.elements
            // The values are read in place (iterating the dictionary copies each value).
            object.fields.values.elements.withUnsafeBufferPointer { values in
                var position = 0
                for k in values.indices {
                    // Only a null has no type (``ParseSchema/fieldType(of:)``).
                    let code = values[k].fieldTypeCode
                    if code == 0 { continue }
                    defer { position += 1 }
                    let key = keys[k]
                    if position < previousKeys.count, previousCodes[position] == code, previousKeys[position] == key,
                        code != Self.targetCodes.pointer && code != Self.targetCodes.relation
                            || ParseSchema.fieldType(of: values[k], is: previousFields[position])
                    {
                        continue
                    }
                    guard let type = ParseSchema.fieldType(of: values[k]) else { continue }
                    record(key, type)
                    if position < previousKeys.count {
                        previousKeys[position] = key
                        previousFields[position] = type
                        previousCodes[position] = code
                    } else {
                        previousKeys.append(key)
                        previousFields.append(type)
                        previousCodes.append(code)
                    }
                }
            }
            row += 1
        }

        mutating func record(_ key: String, _ type: ParseSchema.Field) {
            if let known = fields[key] {
                if known != type, !conflicts.contains(where: { $0.field == key && $0.other == type }) {
                    conflicts.append(TypeConflict(className: className, field: key, kept: known, other: type, row: row))
                }
            } else {
                fields[key] = type
            }
        }
    }

    /// The targets of the system classes' own relations, which every Parse app has.
    static let systemRelationTargets = ["_Role.users": "_User", "_Role.roles": "_Role"]

    func readSchemaFile(_ file: ExportContainer.File) throws(PFError) -> ParseSchema {
        guard let container = try opened() else { return ParseSchema() }
        var bytes: [UInt8] = []
        let limits = options.limits
        try container.forEachChunk(of: file, chunkSize: options.chunkSize) { chunk throws(PFError) in
            guard bytes.count + chunk.count <= limits.maxInputBytes else {
                throw PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: Self.format)
            }
            bytes.append(contentsOf: chunk)
        }
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return ParseSchema() }
        do throws(PFError) {
            let value = try ParseSchema.schemaFileValue(Data(bytes), options: .init(mode: .strict, typedValues: false, limits: limits))
            let schema = try ParseSchema(rest: value)
            // pfarchive marks an export whose names it encoded; the fields carry their originals.
            guard value[Self.nameCodingKey] != nil else { return schema }
            namesEncoded = true
            return ParseNameCoding.decode(schema, policy: namePolicy)
        } catch {
            var e = error
            e.message = "\(location): \(file.name): " + e.message
            throw e
        }
    }

    public func estimatedObjectCount(in className: String) -> Int? { nil }

    /// Reads the objects of a class, parsing rows on ``Options/workers`` threads (the objects
    /// still reach `body` one at a time, in file order, on the calling thread).
    public func forEachObject(in className: String, _ body: (ParseObject) throws(PFError) -> Void) throws(PFError) {
        guard let container = try opened(), let file = try layout().classes[className] else { return }
        let name = "\(location): \(file.name)"
        let declared = try schemaFile()?.classes[className] != nil
        var inference = inferred[className] == nil && !declared ? SchemaInference(className: className) : nil
        let decoding = namesEncoded
        func deliver(_ object: ParseObject) throws(PFError) {
            let object = decoding ? ParseNameCoding.decode(object, policy: .parseExport) : object
            inference?.add(object)
            try body(object)
        }
        if options.workers > 1 {
            let reader = ParallelRowReader<ParseObject>(workers: options.workers, limits: options.limits) { row, session throws(PFError) in
                try row.readObject(session: session, className: className, file: name, checkingNames: false)
            }
            try reader.read(rows: { add throws(PFError) in
                try container.forEachRow(of: file, chunkSize: options.chunkSize, add)
            }, deliver: deliver)
        } else {
            let session = ParseExportRow.session(limits: options.limits)
            try container.forEachRow(of: file, chunkSize: options.chunkSize) { row throws(PFError) in
                try deliver(try row.readObject(session: session, className: className, file: name, checkingNames: false))
            }
        }
        if let inference { inferred[className] = inference }
    }

    public func relations() throws(PFError) -> [ParseRelationKey] {
        let layout = try layout()
        let schema = try schema()
        var keys = OrderedSet(layout.joins.keys.map { originalKey(ParseRelationKey(owningClass: $0.owningClass, field: $0.field)) })
        for (className, fields) in schema.classes {
            for (field, type) in fields where type.type == .relation {
                keys.append(ParseRelationKey(owningClass: className, field: field))
            }
        }
        return keys.sorted().map {
            ParseRelationKey(owningClass: $0.owningClass, field: $0.field,
                             targetClass: schema.classes[$0.owningClass]?[$0.field]?.targetClass)
        }
    }

    public func forEachJoinRow(of relation: ParseRelationKey, _ body: (ParseJoinRow) throws(PFError) -> Void) throws(PFError) {
        let key = ParseRelationKey(owningClass: relation.owningClass, field: relation.field)
        _ = try schemaFile()
        let joins = try layout().joins
        guard let container = try opened(), let file = joins[storedKey(key)] ?? joins[key] else { return }
        let reader = ParseExportRow.reader(limits: options.limits)
        let name = "\(location): \(file.name)"
        try container.forEachRow(of: file, chunkSize: options.chunkSize) { row throws(PFError) in
            let value = try row.readValue(reader: reader, file: name)
            guard case .string(let owning)? = value["owningId"], case .string(let related)? = value["relatedId"] else {
                throw row.placed(PFError(StoreFailure.badJoinRow, format: Self.format), file: name)
            }
            try body(ParseJoinRow(owningId: owning, relatedId: related))
        }
    }

    public func close() {
        container = nil
    }

    // MARK: - Names

    /// The top-level member of `_SCHEMA.json` that says names were encoded (its value is the
    /// prefix of encoded names, `pf__`).
    static let nameCodingKey = "pfarchiveNameCoding"
    /// The member of a field's entry in `_SCHEMA.json` that holds its original name.
    static let originalNameKey = "pfarchiveName"

    /// A relation as read (its field's original name), from the name in a file name.
    func originalKey(_ stored: ParseRelationKey) -> ParseRelationKey {
        guard namesEncoded else { return stored }
        var key = stored
        key.field = ParseNameCoding.decodeField(stored.field, policy: namePolicy)
        return key
    }

    /// A relation as its join file names it.
    func storedKey(_ key: ParseRelationKey) -> ParseRelationKey {
        var stored = key
        stored.field = ParseNameCoding.encodeField(key.field, policy: namePolicy, className: key.owningClass)
        return stored
    }
}
