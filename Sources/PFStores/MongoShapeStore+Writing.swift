import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFParse

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One collection file being written: lines go through a scratch buffer flushed every MiB.
final class MongoCollectionOutput {
    let url: URL
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private(set) var lines = 0

    init(url: URL) throws(PFError) {
        self.url = url
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw PFError(StoreFailure.cannotCreate(path: url.path, reason: nil), format: MongoShapeStore.format)
        }
        do {
            handle = try FileHandle(forWritingTo: url)
        } catch {
            throw PFError(StoreFailure.cannotOpen(path: url.path, forWriting: true, reason: error.localizedDescription), format: MongoShapeStore.format)
        }
        buffer.reserveCapacity(1 << 20 + 4096)
    }

    /// Appends one document as a line.
    func append(_ document: PFValue, writer: JSONWriter) throws(PFError) {
        try writer.write(document, into: &buffer)
        buffer.append(0x0A)
        lines += 1
        if buffer.count >= 1 << 20 { try flush() }
    }

    /// Appends raw bytes that already end with a newline.
    func appendLine(_ bytes: UnsafeRawBufferPointer) throws(PFError) {
        buffer.append(contentsOf: bytes)
        buffer.append(0x0A)
        lines += 1
        if buffer.count >= 1 << 20 { try flush() }
    }

    func flush() throws(PFError) {
        guard !buffer.isEmpty else { return }
        do {
            try handle.write(contentsOf: buffer)
        } catch {
            throw PFError(StoreFailure.cannotWrite(path: url.path, reason: error.localizedDescription), format: MongoShapeStore.format)
        }
        buffer.removeAll(keepingCapacity: true)
    }

    func close() throws(PFError) {
        try flush()
        do { try handle.close() } catch {
            throw PFError(StoreFailure.cannotClose(path: url.path, reason: error.localizedDescription), format: MongoShapeStore.format)
        }
    }

    func discard() { try? handle.close() }
}

/// What a write in progress knows: the temporary directory, the outputs, the ids written
/// (for replacing by `_id`) and the schema seen.
final class WriteSession {
    let temporary: URL
    /// The claim on the destination (its lock), released at commit or abort.
    let destination: Destination
    /// The destination's foreign entries (kept) and its own collection files, found at begin.
    let foreign: [String]
    let store: Set<String>
    var schema: ParseSchema
    var outputs: OrderedDictionary<String, MongoCollectionOutput> = [:]
    /// Per class: objectId → index of the line that last wrote it.
    var lineOfId: [String: [String: Int]] = [:]
    var classesWithDuplicates: Set<String> = []
    var joinPairs: [String: Set<ParseJoinRow>] = [:]
    var existingSchemaDocuments: OrderedDictionary<String, OrderedDictionary<String, PFValue>> = [:]
    var objectIdCounter: UInt32
    let objectIdRandom: UInt64
    /// Names encoded so far.
    var tally = ParseNameTally()

    init(temporary: URL, schema: ParseSchema, destination: Destination, foreign: [String], store: Set<String>) {
        self.temporary = temporary
        self.destination = destination
        self.foreign = foreign
        self.store = store
        self.schema = schema
        var rng = SystemRandomNumberGenerator()
        objectIdCounter = UInt32.random(in: 0..<(1 << 24), using: &rng)
        objectIdRandom = UInt64.random(in: 0..<(1 << 40), using: &rng)
    }

    /// A new MongoDB ObjectId: 4 bytes of seconds, 5 random bytes, a 3-byte counter.
    func nextObjectId() -> String {
        objectIdCounter = (objectIdCounter &+ 1) & 0xFF_FFFF
        let seconds = UInt32(truncatingIfNeeded: Int64(Date().timeIntervalSince1970))
        func hex(_ v: UInt64, _ digits: Int) -> String {
            let s = String(v, radix: 16)
            return String(repeating: "0", count: max(0, digits - s.count)) + s
        }
        return hex(UInt64(seconds), 8) + hex(objectIdRandom, 10) + hex(UInt64(objectIdCounter), 6)
    }
}

extension MongoShapeStore {
    static let documentWriter = JSONWriter(options: .init(pretty: false, typedValues: false))

    // MARK: - What is part of the store

    /// Sorts the destination directory's entries into the store's collection files and
    /// foreign ones. Part of the store are only regular files `<collection>.json` (a class, a
    /// join table, `_SCHEMA` or another collection parse-server keeps) that are empty or whose
    /// first line starts a JSON object (a complete first line must be one with an `_id`).
    /// - Returns: the foreign names and the store's own, or the reason the destination itself
    ///   is foreign.
    func destinationEntries() throws(PFError) -> (foreign: [String], store: Set<String>, whole: StoreFailure.Refusal?) {
        var status = stat()
        guard lstat(directory.path, &status) == 0 else { return ([], [], nil) }
        switch status.st_mode & S_IFMT {
        case S_IFDIR: break
        case S_IFLNK: return ([], [], .symbolicLink)
        default: return ([], [], .fileWhereDirectoryBelongs("a .jsonl directory of <collection>.json files"))
        }
        var foreign: [String] = []
        var store: Set<String> = []
        for entry in try Destination.entries(of: directory, format: Self.format) {
            if Destination.isRegularFile(entry.status), isCollectionFile(entry.name) {
                store.insert(entry.name)
            } else {
                foreign.append(entry.name)
            }
        }
        return (foreign, store, nil)
    }

    private func isCollectionFile(_ name: String) -> Bool {
        guard !name.hasPrefix("."), name.hasSuffix(".json") else { return false }
        let collection = String(name.dropLast(5))
        guard collection == "_SCHEMA" || Self.nonObjectCollections.contains(collection)
            || ParseRelationKey(joinClassName: collection) != nil || ParseRules.classNameProblem(collection) == nil
        else { return false }
        guard let bytes = Destination.prefix(of: directory.appendingPathComponent(name), count: 1 << 20) else { return false }
        var start = 0
        while start < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[start]) { start += 1 }
        guard start < bytes.count else { return true }
        guard bytes[start] == UInt8(ascii: "{") else { return false }
        guard let end = bytes[start...].firstIndex(of: 0x0A) else { return true }
        let json = JSONReader(options: .init(mode: .strict, typedValues: false, limits: options.limits))
        guard let document = try? json.read(Data(bytes[start ..< end])), document["_id"] != nil else { return false }
        return true
    }

    // MARK: - Writing

    public func begin(schema: ParseSchema) throws(PFError) {
        abort()
        let destination = try Destination.claim(directory, format: Self.format)
        let entries = try destinationEntries()
        if let whole = entries.whole { throw destination.refusal(whole) }
        try destination.refuse(entries.foreign, store: "the Mongo shape", policy: foreignEntries)
        let exists = FileManager.default.fileExists(atPath: directory.path)
        let temporary = destination.temporarySibling()
        guard mkdir(temporary.path, 0o700) == 0 else {
            Destination.forget(temporary)
            throw PFError(StoreFailure.cannotCreateTemporaryDirectory(path: temporary.path, reason: POSIX.errorText()), format: Self.format)
        }
        let session = WriteSession(
            temporary: temporary, schema: ParseSchema(), destination: destination, foreign: entries.foreign, store: entries.store)
        session.schema = encoded(schema, tally: &session.tally)
        encodedNames = ParseNameTally()
        if exists {
            cachedSchemaDocuments = nil
            do throws(PFError) {
                session.existingSchemaDocuments = try schemaDocuments()
            } catch {
                try? FileManager.default.removeItem(at: temporary)
                Destination.forget(temporary)
                throw error
            }
            for (name, doc) in session.existingSchemaDocuments where metadataToWrite[name] == nil {
                if let metadata = doc["_metadata"] { metadataToWrite[name] = metadata }
            }
        }
        self.session = session
    }

    public func extend(schema: ParseSchema) throws(PFError) {
        guard let session else { throw MemoryStore.notBegun(location) }
        session.schema.merge(encoded(schema, tally: &session.tally), replacing: false)
    }

    /// A schema with its field names encoded for the shape, each encoded name tallied: the
    /// `_SCHEMA` written notes the originals of every class's encoded fields (`pfarchive_names`),
    /// a class without objects too (before, its `_id` read back as `pf____id`).
    private func encoded(_ schema: ParseSchema, tally: inout ParseNameTally) -> ParseSchema {
        let stored = ParseNameCoding.encode(schema, policy: namePolicy)
        for (className, fields) in schema.classes {
            // The default columns are no fields of `_SCHEMA` (an `ACL` of the schema is the envelope's).
            for name in fields.keys where !ParseRules.defaultColumns.contains(name) {
                let encodedName = ParseNameCoding.encodeField(name, policy: namePolicy, className: className)
                if encodedName != name { tally.field(name, storedAs: encodedName, className: className) }
            }
        }
        return stored
    }

    public func write(_ objects: [ParseObject], className: String) throws(PFError) {
        guard let session else { throw MemoryStore.notBegun(location) }
        if let problem = ParseRules.classNameProblem(className), ParseRelationKey(joinClassName: className) == nil {
            throw PFError(StoreFailure.badClassName(location: location, className: className, problem: problem), format: Self.format)
        }
        let output = try self.output(for: className, in: session)
        var ids = session.lineOfId[className] ?? [:]
        defer { session.lineOfId[className] = ids }
        if session.schema.classes[className] == nil { session.schema.classes[className] = [:] }
        for (index, original) in objects.enumerated() {
            let object = ParseNameCoding.encode(original, policy: namePolicy, tally: &session.tally)
            let label = "\(directory.lastPathComponent)/\(className).json, object \(object.objectId ?? "without objectId")"
            guard object.className == className else {
                throw PFError(StoreFailure.wrongClassInBatch(location: location, index: index, objectId: object.objectId, className: object.className, batchClass: className), format: Self.format)
            }
            let document: PFValue
            do throws(PFError) {
                document = try MongoDocument.encode(object)
            } catch {
                var located = error
                located.message = "\(label): \(error.message)"
                throw located
            }
            if let id = object.objectId {
                if ids[id] != nil { session.classesWithDuplicates.insert(className) }
                ids[id] = output.lines
            }
            try output.append(document, writer: Self.documentWriter)
            session.schema.addFields(of: object)
        }
    }

    public func write(_ rows: [ParseJoinRow], relation: ParseRelationKey) throws(PFError) {
        guard let session else { throw MemoryStore.notBegun(location) }
        let field = ParseNameCoding.encodeField(relation.field, policy: namePolicy, className: relation.owningClass)
        if field != relation.field { session.tally.field(relation.field, storedAs: field, className: relation.owningClass) }
        let name = ParseRelationKey(owningClass: relation.owningClass, field: field).joinClassName
        let output = try self.output(for: name, in: session)
        var seen = session.joinPairs[name] ?? []
        defer { session.joinPairs[name] = seen }
        for row in rows where seen.insert(row).inserted {
            let document: PFValue = [
                "_id": .dictionary(["$oid": .string(session.nextObjectId())]),
                "relatedId": .string(row.relatedId), "owningId": .string(row.owningId),
            ]
            try output.append(document, writer: Self.documentWriter)
        }
        if let target = relation.targetClass, session.schema.classes[relation.owningClass]?[field] == nil {
            session.schema.classes[relation.owningClass, default: [:]][field] = ParseSchema.Field(.relation, targetClass: target)
        }
    }

    private func output(for collection: String, in session: WriteSession) throws(PFError) -> MongoCollectionOutput {
        if let existing = session.outputs[collection] { return existing }
        let output = try MongoCollectionOutput(url: session.temporary.appendingPathComponent(collection + ".json"))
        session.outputs[collection] = output
        return output
    }

    public func commit() throws(PFError) {
        guard let session else { throw MemoryStore.notBegun(location) }
        do throws(PFError) {
            // A Relation whose target class is unknown cannot be in _SCHEMA (parse-server reads
            // only relation<Class>): its _Join collection, empty or not, is what declares it.
            for (className, fields) in session.schema.classes {
                for (name, field) in fields where field.type == .relation && field.mongoType == nil {
                    _ = try output(for: ParseRelationKey(owningClass: className, field: name).joinClassName, in: session)
                }
            }
            for output in session.outputs.values { try output.close() }
            for className in session.classesWithDuplicates { try keepLastOfEachId(className, session) }
            if FileManager.default.fileExists(atPath: directory.path) { try mergeExisting(into: session) }
            try writeSchema(session)
            try swapIntoPlace(session)
        } catch {
            abort()
            throw error
        }
        encodedNames = session.tally
        self.session = nil
        cachedSchemaDocuments = nil
        session.destination.release()
    }

    public func abort() {
        guard let session else { return }
        for output in session.outputs.values { output.discard() }
        try? FileManager.default.removeItem(at: session.temporary)
        Destination.forget(session.temporary)
        session.destination.release()
        self.session = nil
    }

    // MARK: - Commit steps

    /// Rewrites a collection written with repeated objectIds so the last write of each wins.
    private func keepLastOfEachId(_ className: String, _ session: WriteSession) throws(PFError) {
        guard let source = session.outputs[className]?.url, let ids = session.lineOfId[className] else { return }
        let target = source.appendingPathExtension("dedup")
        let out = try MongoCollectionOutput(url: target)
        var index = 0
        try forEachLine(at: source) { bytes, doc throws(PFError) in
            defer { index += 1 }
            if case .string(let id)? = doc["_id"], ids[id] != index { return }
            try out.appendLine(bytes)
        }
        try out.close()
        try replace(source, with: target)
    }

    /// Brings an existing destination's collections into the temporary directory: documents
    /// whose `_id` was not written again (join rows whose pair was not), then the new ones.
    private func mergeExisting(into session: WriteSession) throws(PFError) {
        let existing = try collectionFiles(in: directory)
        for (name, url) in existing where name != "_SCHEMA" && session.store.contains(url.lastPathComponent) {
            guard let output = session.outputs[name] else {
                try copy(url, to: session.temporary.appendingPathComponent(url.lastPathComponent))
                continue
            }
            let merged = output.url.appendingPathExtension("merge")
            let out = try MongoCollectionOutput(url: merged)
            if ParseRelationKey(joinClassName: name) != nil {
                var pairs = Set<ParseJoinRow>()
                try forEachLine(at: url) { bytes, doc throws(PFError) in
                    if case .string(let o)? = doc["owningId"], case .string(let r)? = doc["relatedId"] {
                        pairs.insert(ParseJoinRow(owningId: o, relatedId: r))
                    }
                    try out.appendLine(bytes)
                }
                try forEachLine(at: output.url) { bytes, doc throws(PFError) in
                    if case .string(let o)? = doc["owningId"], case .string(let r)? = doc["relatedId"],
                        pairs.contains(ParseJoinRow(owningId: o, relatedId: r))
                    {
                        return
                    }
                    try out.appendLine(bytes)
                }
            } else {
                let written = session.lineOfId[name] ?? [:]
                try forEachLine(at: url) { bytes, doc throws(PFError) in
                    if case .string(let id)? = doc["_id"], written[id] != nil { return }
                    try out.appendLine(bytes)
                }
                try forEachLine(at: output.url) { bytes, _ throws(PFError) in try out.appendLine(bytes) }
            }
            try out.close()
            try replace(output.url, with: merged)
        }
    }

    /// The `_SCHEMA` collection: the existing documents, updated with every class and field
    /// written, in parse-server's spelling.
    private func writeSchema(_ session: WriteSession) throws(PFError) {
        var docs = session.existingSchemaDocuments
        for (className, fields) in session.schema.classes where ParseRelationKey(joinClassName: className) == nil {
            guard ParseRules.classNameProblem(className) == nil, !Self.nonObjectCollections.contains(className) else { continue }
            var doc = docs[className] ?? ["objectId": "string", "updatedAt": "date", "createdAt": "date"]
            var userColumns = OrderedDictionary<String, PFValue>()
            for (name, field) in fields where !ParseRules.defaultColumns.contains(name) {
                if className == "_User" {
                    if name == "bcryptPassword" { doc["_hashed_password"] = "string"; continue }
                    // `_Session` lists its `sessionToken` (a real parse-server dump's `_SCHEMA`
                    // does), as any other class lists a field of that name.
                    if Self.userFieldsOutsideSchema.contains(name) {
                        if let type = field.mongoType { userColumns[name] = .string(type) }
                        continue
                    }
                }
                if let type = field.mongoType { doc[name] = .string(type) }
            }
            if doc["_rperm"] == nil { doc["_rperm"] = "array" }
            if doc["_wperm"] == nil { doc["_wperm"] = "array" }
            if let metadata = metadataToWrite[className] {
                doc["_metadata"] = nil
                doc["_metadata"] = metadata
            }
            Self.noteModel(of: fields, in: &doc)
            if !userColumns.isEmpty {
                var metadata = doc["_metadata"]?.dictionaryValue ?? [:]
                var noted = metadata[Self.userColumnsKey]?.dictionaryValue ?? [:]
                for (name, type) in userColumns { noted[name] = type }
                metadata[Self.userColumnsKey] = .dictionary(noted)
                doc["_metadata"] = .dictionary(metadata)
            }
            if let encoded = session.tally.classes[className] {
                // The originals of the encoded fields, beside what the class had noted before.
                var metadata = doc["_metadata"]?.dictionaryValue ?? [:]
                var names = metadata[Self.originalNamesKey]?.dictionaryValue ?? [:]
                for (original, entry) in encoded { if let stored = entry.storedName { names[stored] = .string(original) } }
                metadata[Self.originalNamesKey] = .dictionary(names)
                doc["_metadata"] = .dictionary(metadata)
            }
            docs[className] = doc
        }
        guard !docs.isEmpty else { return }
        let out = try MongoCollectionOutput(url: session.temporary.appendingPathComponent("_SCHEMA.json"))
        for (className, doc) in docs {
            var line: OrderedDictionary<String, PFValue> = ["_id": .string(className)]
            for (k, v) in doc where k != "_id" { line[k] = v }
            try out.append(.dictionary(line), writer: Self.documentWriter)
        }
        try out.close()
    }

    /// Notes the model's flags of a class's fields in its `_SCHEMA` document as parse-server
    /// keeps them: field options (`required`, and pfarchive's `primaryKey` and
    /// `embeddedClass`) in `_metadata.fields_options`, indexes in `_metadata.indexes`
    /// (`<field>_1`), beside what the document held.
    static func noteModel(of fields: OrderedDictionary<String, ParseSchema.Field>, in doc: inout OrderedDictionary<String, PFValue>) {
        let indexes = ParseSchema.indexes(of: fields)
        var options = OrderedDictionary<String, PFValue>()
        for (name, field) in fields {
            let o = field.modelOptions(indexed: false)
            if !o.isEmpty { options[name] = .dictionary(o) }
        }
        guard !options.isEmpty || !indexes.isEmpty else { return }
        var metadata = doc["_metadata"]?.dictionaryValue ?? [:]
        if !options.isEmpty {
            var all = metadata["fields_options"]?.dictionaryValue ?? [:]
            for (name, o) in options { all[name] = o }
            metadata["fields_options"] = .dictionary(all)
        }
        if !indexes.isEmpty {
            var all = metadata["indexes"]?.dictionaryValue ?? ["_id_": .dictionary(["_id": .int(1)])]
            for (name, keys) in indexes { all[name] = keys }
            metadata["indexes"] = .dictionary(all)
        }
        doc["_metadata"] = .dictionary(metadata)
    }

    /// Puts the finished temporary directory where the store belongs: foreign entries kept are
    /// carried over untouched, files and directory get the modes of what they replace, and the
    /// directory is swapped in (``Destination/swapDirectory(with:storeEntries:)``).
    private func swapIntoPlace(_ session: WriteSession) throws(PFError) {
        let written = Set((try? FileManager.default.contentsOfDirectory(atPath: session.temporary.path)) ?? [])
        if let clash = session.foreign.first(where: { written.contains($0) }) {
            throw PFError(StoreFailure.entryInTheWay(location: location, entry: clash, store: "the Mongo shape"), format: Self.format)
        }
        try session.destination.carryOver(session.foreign, from: directory, into: session.temporary)
        let existing = FileManager.default.fileExists(atPath: directory.path) ? directory : nil
        try Destination.settleDirectory(session.temporary, like: existing, skipping: Set(session.foreign), format: Self.format)
        try session.destination.swapDirectory(with: session.temporary, storeEntries: session.store)
    }

    // MARK: - File helpers

    /// Each line of a file with its document (only `_id`, `owningId` and `relatedId` are
    /// looked at, so the tree is read but not decoded further).
    private func forEachLine(
        at url: URL, _ body: (UnsafeRawBufferPointer, OrderedDictionary<String, PFValue>) throws(PFError) -> Void
    ) throws(PFError) {
        var reader = try MongoLineReader(url: url, displayName: url.path, maxLineBytes: maxLineBytes)
        defer { reader.close() }
        let json = JSONReader(options: .init(mode: .strict, typedValues: false, limits: options.limits))
        while try reader.next({ bytes, line throws(PFError) in
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
            let doc: PFValue
            do throws(PFError) { doc = try json.read(bytes) } catch {
                throw PFError(
                    StoreFailure.notAJSONLine(file: url.path, line: line.number, code: error.code, problem: error.message), format: Self.format,
                    location: PFError.Location(offset: line.offset, line: line.number, column: error.location?.column ?? 1))
            }
            try body(bytes, doc.dictionaryValue ?? [:])
        }) {}
    }

    private func rename(_ from: URL, to: URL) throws(PFError) {
        do { try FileManager.default.moveItem(at: from, to: to) } catch {
            throw PFError(StoreFailure.cannotRename(from: from.path, to: to.path, reason: error.localizedDescription), format: Self.format)
        }
    }

    private func replace(_ target: URL, with source: URL) throws(PFError) {
        try? FileManager.default.removeItem(at: target)
        try rename(source, to: target)
    }

    private func copy(_ from: URL, to: URL) throws(PFError) {
        do { try FileManager.default.copyItem(at: from, to: to) } catch {
            throw PFError(StoreFailure.cannotCopy(from: from.path, to: to.path, reason: error.localizedDescription), format: Self.format)
        }
    }
}
