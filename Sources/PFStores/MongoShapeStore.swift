import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFParse
import PFParseExport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Parse Server's MongoDB storage shape as a directory of `mongoexport` files: one
/// `<collection>.json` per class, join table (`_Join:<field>:<Class>.json`) and `_SCHEMA`, one
/// document per line in MongoDB Extended JSON (relaxed mode, as mongoexport writes it), so
/// `mongoimport --collection <name> --file <name>.json` of each file gives a database
/// parse-server can serve.
///
/// ```swift
/// let store = MongoShapeStore(directory: URL(fileURLWithPath: "dump.jsonl"))
/// try store.begin(schema: schema)
/// try store.write(posts, className: "Post")
/// try store.commit()                       // the directory appears (or is merged) only now
/// for name in try store.classNames() { try store.forEachObject(in: name) { print($0) } }
/// ```
///
/// Reading streams each file line by line through a fixed buffer (memory is bounded by the
/// longest line). Writing streams each collection into a temporary sibling directory that
/// ``commit()`` renames into place, merging an existing destination by `_id`. Every mapping is
/// in `Docs/Stores.md`, "Parse Server MongoDB shape".
public final class MongoShapeStore: ObjectStoreReader, ObjectStoreWriter {
    /// The component name in this store's errors.
    public static let format: PFError.Format = .mongoShape

    /// Settings.
    public struct Options: Sendable {
        /// Budgets for each document; a line longer than `min(limits.maxInputBytes, maxLineBytes)`
        /// fails with `limitExceeded`.
        public var limits: PFLimits = .default
        /// The longest line read, in bytes. Default 64 MiB (four times MongoDB's 16 MiB
        /// document limit, room for Extended JSON's base64 and escapes).
        public var maxLineBytes: Int = 64 << 20
        /// Whether objects read get every Relation field of the schema as
        /// `{"__type":"Relation"}`, as parse-server's REST answers have them. Default `true`.
        public var addRelationFields = true

        /// Default settings.
        public init() {}
    }

    /// The collections parse-server keeps that are not classes of objects: skipped on read.
    public static let nonObjectCollections: Set<String> = [
        "_SCHEMA", "_Hooks", "_GlobalConfig", "_GraphQLConfig", "_JobStatus", "_PushStatus", "_JobSchedule", "_Audience",
        "_Idempotency",
    ]

    /// Whether an existing directory holds mongoexport files, whatever its name: its first
    /// class file that holds anything (in name order, `_SCHEMA.json` aside) starts with a
    /// document whose first key is `_id` (mongoexport writes `_id` first; a Parse export's
    /// files start with `{"results"`, `[` or an object of `objectId`); with no such file, its
    /// `_SCHEMA.json` decides the same way. A Parse export may keep its schema as
    /// parse-server's `_SCHEMA` documents (`[{"_id":"Post",…}]`), so the schema alone decides
    /// only when no class file does. Only the first bytes of each file are read.
    /// - Parameter directory: the directory.
    /// - Returns: whether to read it as the Mongo shape.
    public static func looksLikeMongoShape(_ directory: URL) -> Bool {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return false }
        let files = names.filter { !$0.hasPrefix(".") && $0.lowercased().hasSuffix(".json") }.sorted()
        // Empty files (a class without objects, in either shape) say nothing: look further.
        for name in files.filter({ $0 != "_SCHEMA.json" }).prefix(16) {
            if let startsWithId = firstKeyIsId(directory.appendingPathComponent(name)) { return startsWithId }
        }
        guard files.contains("_SCHEMA.json") else { return false }
        return firstKeyIsId(directory.appendingPathComponent("_SCHEMA.json")) ?? false
    }

    /// The first `.bson` file of a directory that holds no class or collection JSON file besides
    /// mongodump's `<collection>.metadata.json` (a `mongodump` output), or `nil`.
    static func mongodumpFile(in directory: URL) -> String? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return nil }
        let visible = names.filter { !$0.hasPrefix(".") }.map { ($0, $0.lowercased()) }
        let json = visible.filter { $0.1.hasSuffix(".json") && !$0.1.hasSuffix(".metadata.json") }
        guard json.isEmpty else { return nil }
        return visible.filter { $0.1.hasSuffix(".bson") }.map(\.0).sorted().first
    }

    /// Whether a file's first document (or the first of its top-level array) starts with the
    /// key `_id`; `nil` when the file is empty or cannot be read.
    static func firstKeyIsId(_ file: URL) -> Bool? {
        guard let handle = FileHandle(forReadingAtPath: file.path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 64) else { return nil }
        var bytes = head[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        func skipSpace() { while let b = bytes.first, b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { bytes = bytes.dropFirst() } }
        skipSpace()
        guard !bytes.isEmpty else { return nil }
        // `mongoexport --jsonArray` writes the documents as one array.
        if bytes.first == UInt8(ascii: "[") {
            bytes = bytes.dropFirst()
            skipSpace()
            if bytes.isEmpty || bytes.first == UInt8(ascii: "]") { return nil }  // `[]`: either shape
        }
        guard bytes.first == UInt8(ascii: "{") else { return false }
        bytes = bytes.dropFirst()
        skipSpace()
        return bytes.starts(with: Array(#""_id""#.utf8))
    }

    /// The directory.
    public let directory: URL
    /// Settings.
    public let options: Options
    public var location: String { directory.path }

    /// `_metadata` (class-level permissions, indexes, field options) per class, written into
    /// `_SCHEMA` by ``commit()``. Filled from an existing destination by ``begin(schema:)``;
    /// a caller may set entries (for instance from another Mongo store's ``classMetadata()``).
    public var metadataToWrite: [String: PFValue] = [:]

    /// Files of the directory that are not Parse collections (skipped when reading).
    public private(set) var ignoredFiles: [String] = []

    /// What ``begin(schema:)`` does with entries of the destination that are not collection
    /// files (see Docs/Security.md, "Destinations"). Default: refuse.
    public var foreignEntries: ForeignEntries = .refuse

    /// The writing in progress between ``begin(schema:)`` and ``commit()``/``abort()``.
    var session: WriteSession?
    /// The names the last write encoded.
    public internal(set) var encodedNames = ParseNameTally()
    /// Parse's rules (MongoDB's `$`/`.` and parse-server's `_` keys included): names they
    /// forbid are encoded (``PFParse/ParseNameCoding``).
    public var namePolicy: ParseNamePolicy { .mongoShape }

    /// Makes a store over a directory (which need not exist until written).
    /// - Parameters:
    ///   - directory: the directory, such as `dump.jsonl`.
    ///   - options: settings.
    public init(directory: URL, options: Options = Options()) {
        self.directory = directory
        self.options = options
    }

    var maxLineBytes: Int { min(options.limits.maxInputBytes, options.maxLineBytes) }

    // MARK: - Reading

    var cachedSchemaDocuments: OrderedDictionary<String, OrderedDictionary<String, PFValue>>?

    /// The collection files of the directory: name (without `.json`) → URL.
    func collectionFiles(in dir: URL) throws(PFError) -> OrderedDictionary<String, URL> {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        } catch {
            throw PFError(StoreFailure.cannotListCollections(path: dir.path, reason: error.localizedDescription), format: Self.format)
        }
        var out = OrderedDictionary<String, URL>()
        var ignored: [String] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            guard name.hasSuffix(".json") else { ignored.append(name); continue }
            let stem = String(name.dropLast(5))
            // A join collection under any spelling of its `:` is known by its own name; two
            // spellings of one would leave one file's rows unread.
            let key = ParseRelationKey(joinFileStem: stem)
            let collection = key?.joinClassName ?? stem
            if out[collection] != nil, let key {
                throw PFError(StoreFailure.duplicateJoinFile(location: location, joinClassName: key.joinClassName), format: Self.format)
            }
            out[collection] = dir.appendingPathComponent(name)
        }
        ignoredFiles = ignored
        return out
    }

    /// The raw `_SCHEMA` documents by class (`_id` removed, `_metadata` kept).
    func schemaDocuments() throws(PFError) -> OrderedDictionary<String, OrderedDictionary<String, PFValue>> {
        if let cachedSchemaDocuments { return cachedSchemaDocuments }
        let docs = try Self.readSchemaDocuments(in: directory, store: self)
        cachedSchemaDocuments = docs
        return docs
    }

    static func readSchemaDocuments(
        in dir: URL, store: MongoShapeStore
    ) throws(PFError) -> OrderedDictionary<String, OrderedDictionary<String, PFValue>> {
        let url = dir.appendingPathComponent("_SCHEMA.json")
        var out = OrderedDictionary<String, OrderedDictionary<String, PFValue>>()
        guard FileManager.default.fileExists(atPath: url.path) else { return out }
        try store.forEachDocument(at: url, name: "_SCHEMA") { doc, fail throws(PFError) in
            guard case .dictionary(var d) = doc, case .string(let className)? = d["_id"] else {
                throw fail("a _SCHEMA document must be an object with a string _id (the class name)", .root)
            }
            if let problem = ParseRules.classNameProblem(className) { throw fail(problem, .root.appending(key: "_id")) }
            d["_id"] = nil
            for (key, value) in d where ParseSchema.isFieldKey(inSchemaDocument: key) {
                guard case .string = value else {
                    throw fail(
                        "unknown _SCHEMA type for field '\(key)'; expected \"string\", \"number\", \"boolean\", \"date\", \"object\", \"array\", \"geopoint\", \"file\", \"bytes\", \"polygon\", \"*<Class>\" or \"relation<<Class>>\"",
                        .root.appending(key: key))
                }
            }
            out[className] = d
        }
        return out
    }

    /// `_metadata` per class, as stored in `_SCHEMA` (class-level permissions, indexes, field
    /// options).
    /// - Returns: the raw Extended JSON trees by class.
    /// - Throws: ``PFCore/PFError`` naming `_SCHEMA.json` and the line for a malformed document.
    public func classMetadata() throws(PFError) -> [String: PFValue] {
        var out: [String: PFValue] = [:]
        for (name, doc) in try schemaDocuments() { if let m = doc["_metadata"] { out[name] = m } }
        return out
    }

    public func classNames() throws(PFError) -> [String] {
        var names = OrderedSet<String>()
        for name in try collectionFiles(in: directory).keys {
            if isObjectCollection(name) {
                names.append(name)
            } else if let key = ParseRelationKey(joinClassName: name), ParseRules.classNameProblem(key.owningClass) == nil {
                // A class known only by its join collection (its own collection not exported)
                // owns the relation's rows: a class without objects.
                names.append(key.owningClass)
            }
        }
        for name in try schemaDocuments().keys { names.append(name) }
        return names.sorted()
    }

    /// The directory's files that are not read: files of no collection (not `.json`: a
    /// mongodump `.bson`, a readme) and collections no Parse class can be (a name Parse
    /// forbids, such as one starting with `_` that is not Parse's own); parse-server's own
    /// collections (``nonObjectCollections``) are not listed.
    public func unreadContents() -> [String] {
        guard let files = try? collectionFiles(in: directory) else { return [] }
        var out: [String] = []
        for (name, url) in files where !isObjectCollection(name) && !Self.nonObjectCollections.contains(name)
            && ParseRelationKey(joinClassName: name) == nil
        {
            let why = name.hasPrefix("_") ? "names starting with '_' are Parse's own" : ParseRules.classNameProblem(name) ?? "not a Parse class name"
            out.append("\(url.lastPathComponent): a collection no Parse class can be (\(why)); its documents are not read")
        }
        for name in ignoredFiles {
            out.append("\(name): not a collection file (mongoexport writes <collection>.json); not read")
        }
        return out
    }

    func isObjectCollection(_ name: String) -> Bool {
        !Self.nonObjectCollections.contains(name) && ParseRelationKey(joinClassName: name) == nil
            && ParseRules.classNameProblem(name) == nil
    }

    public func schema() throws(PFError) -> ParseSchema {
        var schema = ParseSchema()
        let docs = try schemaDocuments()
        for (className, doc) in docs {
            // (The password hash is the `bcryptPassword` field there, as in the objects read.)
            var fields = ParseSchema.fields(ofSchemaDocument: doc, className: className)
            if Self.namesEncoded(doc) {
                fields = ParseNameCoding.decode(ParseSchema([className: fields]), policy: namePolicy).classes[className] ?? fields
            }
            // parse-server's own `_User` columns a schema had, which its `_SCHEMA` cannot list.
            if className == "_User", let noted = doc["_metadata"]?[Self.userColumnsKey]?.dictionaryValue {
                for (name, type) in noted where fields[name] == nil {
                    if let type = type.stringValue { fields[name] = ParseSchema.Field(mongoType: type) ?? ParseSchema.Field(ParseFieldType(rawValue: type)) }
                }
            }
            schema.classes[className] = fields
        }
        // Classes without a _SCHEMA document: inferred from their objects.
        for name in try classNames() where schema.classes[name] == nil {
            var fields = OrderedDictionary<String, ParseSchema.Field>()
            try forEachObject(in: name) { object in
                for (key, value) in object.fields where fields[key] == nil {
                    if let field = ParseSchema.fieldType(of: value) { fields[key] = field }
                }
            }
            schema.classes[name] = fields
        }
        // A _Join collection declares its relation when _SCHEMA does not (its target unknown).
        for name in try collectionFiles(in: directory).keys {
            guard let key = try relationKey(ofCollection: name), schema.classes[key.owningClass]?[key.field] == nil else { continue }
            schema.classes[key.owningClass, default: [:]][key.field] = ParseSchema.Field(.relation)
        }
        return schema
    }

    /// The `_User` fields parse-server keeps out of `_SCHEMA`: its internal columns
    /// (`_email_verify_token`…, but the password hash, listed as `_hashed_password`) and
    /// `sessionToken`. A schema that has them (one inferred from a dump without `_SCHEMA`) is
    /// noted under `_metadata.pfarchive_user_columns` (``userColumnsKey``) instead, so reading
    /// the written store gives the same schema.
    static let userFieldsOutsideSchema: Set<String> = Set(MongoDocument.mongoKeyForUserField.keys).subtracting(["bcryptPassword"]).union(["sessionToken"])

    public func estimatedObjectCount(in className: String) -> Int? {
        let url = directory.appendingPathComponent(className + ".json")
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            let size = (attributes[.size] as? NSNumber)?.intValue
        else { return nil }
        guard size > 0 else { return 0 }
        // Lines in the first 64 KiB give the average document size.
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 64 << 10), !head.isEmpty else { return nil }
        let lines = head.reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
        guard lines > 0 else { return 1 }
        return max(1, Int((Double(size) / Double(head.count) * Double(lines)).rounded()))
    }

    public func forEachObject(in className: String, _ body: (ParseObject) throws(PFError) -> Void) throws(PFError) {
        let url = directory.appendingPathComponent(className + ".json")
        guard FileManager.default.fileExists(atPath: url.path) else {
            if try classNames().contains(className) { return }  // a class without objects
            throw PFError(StoreFailure.noCollection(location: location, className: className), format: Self.format)
        }
        let fields = try schemaDocuments()[className].map { ParseSchema.fields(ofSchemaDocument: $0, className: className) }
        let decoding = try schemaDocuments()[className].map(Self.namesEncoded) ?? false
        let addRelations = options.addRelationFields
        try forEachDocument(at: url, name: className) { doc, fail throws(PFError) in
            let object: ParseObject
            do throws(PFError) {
                object = try MongoDocument.decode(doc, className: className, fields: fields, addRelationFields: addRelations)
            } catch {
                throw fail.locate(error)
            }
            try body(decoding ? ParseNameCoding.decode(object, policy: .mongoShape) : object)
        }
    }

    public func relations() throws(PFError) -> [ParseRelationKey] {
        var keys = OrderedSet<ParseRelationKey>()
        for name in try collectionFiles(in: directory).keys {
            if let key = try relationKey(ofCollection: name) { keys.append(key) }
        }
        let schema = try schema()
        for (className, fields) in schema.classes {
            for (name, field) in fields where field.type == .relation {
                keys.append(ParseRelationKey(owningClass: className, field: name))
            }
        }
        return keys.sorted().map {
            ParseRelationKey(owningClass: $0.owningClass, field: $0.field, targetClass: schema.classes[$0.owningClass]?[$0.field]?.targetClass)
        }
    }

    /// The relation a `_Join:<field>:<Class>` collection holds, its field name decoded when the
    /// class's `_SCHEMA` says pfarchive encoded names; `nil` for other collections.
    private func relationKey(ofCollection name: String) throws(PFError) -> ParseRelationKey? {
        guard var key = ParseRelationKey(joinClassName: name) else { return nil }
        if try schemaDocuments()[key.owningClass].map(Self.namesEncoded) == true {
            key.field = ParseNameCoding.decodeField(key.field, policy: namePolicy)
        }
        return key
    }

    public func forEachJoinRow(of relation: ParseRelationKey, _ body: (ParseJoinRow) throws(PFError) -> Void) throws(PFError) {
        var stored = ParseRelationKey(owningClass: relation.owningClass, field: relation.field)
        if try schemaDocuments()[relation.owningClass].map(Self.namesEncoded) == true {
            stored.field = ParseNameCoding.encodeField(relation.field, policy: namePolicy, className: relation.owningClass)
        }
        let name = stored.joinClassName
        guard let url = try collectionFiles(in: directory)[name] else { return }
        try forEachDocument(at: url, name: name) { doc, fail throws(PFError) in
            guard case .dictionary(let d) = doc else { throw fail("a join document must be an object", .root) }
            guard case .string(let owning)? = d["owningId"] else {
                throw fail("a join document needs a string 'owningId'", .root.appending(key: "owningId"))
            }
            guard case .string(let related)? = d["relatedId"] else {
                throw fail("a join document needs a string 'relatedId'", .root.appending(key: "relatedId"))
            }
            try body(ParseJoinRow(owningId: owning, relatedId: related))
        }
    }

    public func close() {}

    /// The `_metadata` member of a `_SCHEMA` document that holds the original names of the
    /// class's encoded fields (`{"<stored>": "<original>"}`); its presence says that names
    /// of the class were encoded (``PFParse/ParseNameCoding``).
    static let originalNamesKey = "pfarchive_names"
    /// The `_metadata` key of `_User`'s ``userFieldsOutsideSchema`` a written schema had.
    static let userColumnsKey = "pfarchive_user_columns"

    /// Whether a class's `_SCHEMA` document says its names were encoded.
    static func namesEncoded(_ doc: OrderedDictionary<String, PFValue>) -> Bool {
        doc["_metadata"]?[originalNamesKey] != nil
    }

    /// Makes the errors about one line of a file: they name the file and line.
    struct LineFailure {
        let file: String
        /// The line, or for a file of one JSON array the document's number (from 1).
        let line: Int
        let offset: Int
        /// Whether the file is one JSON array of documents (`mongoexport --jsonArray`).
        var inArray = false

        var location: PFError.Location {
            inArray ? PFError.Location(offset: offset) : PFError.Location(offset: offset, line: line, column: 1)
        }

        /// A document out of the shape the store expects (`problem` says how), at `path`.
        func callAsFunction(_ problem: String, _ path: PFKeyPath) -> PFError {
            let failure: StoreFailure =
                inArray
                ? .badArrayDocument(file: file, document: line, offset: offset, problem: problem)
                : .badDocument(file: file, line: line, problem: problem)
            return PFError(failure, format: MongoShapeStore.format, location: location, path: path)
        }

        /// `error` (a ``MongoExtendedJSON/Failure``, or Parse's failure for a value it
        /// refuses), keeping its case and path, with the file and line in front of its message.
        func locate(_ error: PFError) -> PFError {
            var e = error
            e.format = MongoShapeStore.format
            e.message = inArray ? "\(file): document \(line) of the array (byte \(offset)): \(e.message)" : "\(file):\(line): \(e.message)"
            e.location = location
            return e
        }
    }

    /// Calls `body` with each document of a file, Extended JSON wrappers decoded; `body` gets
    /// a maker of errors that name the file and line.
    func forEachDocument(
        at url: URL, name: String,
        _ body: (PFValue, _ fail: LineFailure) throws(PFError) -> Void
    ) throws(PFError) {
        let display = directory.lastPathComponent + "/" + url.lastPathComponent
        if try Self.holdsOneArray(url) {
            try forEachArrayDocument(at: url, display: display, body)
            return
        }
        var reader = try MongoLineReader(url: url, displayName: display, maxLineBytes: maxLineBytes)
        defer { reader.close() }
        let json = JSONReader(options: .init(mode: .strict, typedValues: false, limits: options.limits))
        let format = Self.format
        while try reader.next({ bytes, line throws(PFError) in
            // Blank lines are skipped, as mongoimport does.
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
            let raw: PFValue
            do throws(PFError) {
                raw = try json.read(bytes)
            } catch {
                let column = error.location?.column ?? ((error.location?.offset ?? 0) + 1)
                throw PFError(
                    StoreFailure.notAJSONLine(file: display, line: line.number, code: error.code, problem: error.message), format: format,
                    location: PFError.Location(offset: line.offset + (error.location?.offset ?? 0), line: line.number, column: column),
                    path: error.path)
            }
            let fail = LineFailure(file: display, line: line.number, offset: line.offset)
            let doc: PFValue
            do throws(PFError) {
                doc = try MongoExtendedJSON.decode(raw)
            } catch {
                throw fail.locate(error)
            }
            try body(doc, fail)
        }) {}
    }

    /// Whether a collection file is one JSON array of documents (`mongoexport --jsonArray`,
    /// with or without `--pretty`) rather than a document per line: its first byte after
    /// white space is `[`.
    static func holdsOneArray(_ url: URL) throws(PFError) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        while let chunk = try? handle.read(upToCount: 4096), !chunk.isEmpty {
            for byte in chunk {
                switch byte {
                case 0x20, 0x09, 0x0A, 0x0D: continue
                default: return byte == UInt8(ascii: "[")
                }
            }
        }
        return false
    }

    /// Calls `body` with each document of a file that is one JSON array, cut as the file is
    /// read (memory holds one document), Extended JSON wrappers decoded.
    func forEachArrayDocument(at url: URL, display: String, _ body: (PFValue, _ fail: LineFailure) throws(PFError) -> Void) throws(PFError) {
        var limits = options.limits
        limits.maxInputBytes = min(limits.maxInputBytes, maxLineBytes)
        var cutter = ParseExportRowCutter(limits: limits)
        let json = JSONReader(options: .init(mode: .strict, typedValues: false, limits: options.limits))
        var documentFailed = false
        func handle(_ row: ParseExportRow) throws(PFError) {
            let fail = LineFailure(file: display, line: row.index + 1, offset: row.offset, inArray: true)
            do throws(PFError) {
                let raw: PFValue
                do throws(PFError) {
                    raw = try json.read(row.bytes)
                } catch {
                    throw PFError(
                        StoreFailure.badArrayDocument(file: display, document: row.index + 1, offset: row.offset, problem: error.message),
                        format: Self.format, location: PFError.Location(offset: row.offset + (error.location?.offset ?? 0)), path: error.path)
                }
                let doc: PFValue
                do throws(PFError) { doc = try MongoExtendedJSON.decode(raw) } catch { throw fail.locate(error) }
                try body(doc, fail)
            } catch {
                documentFailed = true
                throw error
            }
        }
        /// An error of the file itself (not of one document) names the file.
        func named(_ error: PFError) -> PFError {
            guard !documentFailed else { return error }
            var e = error
            e.message = "\(display): \(e.message)"
            return e
        }
        do throws(PFError) {
            try ExportContainer.readFile(atPath: url.path, chunkSize: 1 << 20) { chunk throws(PFError) in try cutter.feed(chunk, handle) }
            try cutter.finish(handle)
        } catch {
            throw named(error)
        }
    }

}
