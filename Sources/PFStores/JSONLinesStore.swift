import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFParse

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A whole store in one JSON Lines file (`.ndjson`, or an existing `.jsonl` *file*; a `.jsonl`
/// directory is the Mongo shape): one Parse object per line, in Parse's REST JSON with its
/// `className` first — the shape Spark, DuckDB and BigQuery load directly — and one line per
/// join row of a Relation, `{"className":"_Join:<field>:<OwningClass>","owningId":…,"relatedId":…}`
/// (the name and columns of a Parse export's join file). The schema, when the writer knows one,
/// comes first: one line per class, `{"className":"_SCHEMA","schema":{"className":…,"fields":{…}}}`
/// (a class of the REST `/schemas` shape), so a class without objects is kept too; fields
/// no schema line names are inferred from the objects, as for a Parse export.
///
/// Streamed both ways: reading makes one pass to learn the classes, the schema (inferred,
/// as for a Parse export) and where each class's lines are, then reads a class's lines when
/// asked; writing appends lines to a temporary sibling as objects come, and ``commit()``
/// writes the final file (the objects of an existing file that were not replaced, then the
/// new lines, the last of an `objectId` written twice winning) and renames it into place.
/// Memory holds the keys written (class and `objectId`), never the objects. A file that is
/// not a JSON Lines store (a line that is not a Parse object with a `className`) is refused
/// as a destination, never overwritten.
public final class JSONLinesStore: ObjectStoreReader, ObjectStoreWriter {
    /// The format name in errors.
    public static let format: PFError.Format = .store
    /// The class name prefix of join-row lines.
    public static let joinPrefix = "_Join:"
    /// The class name of schema lines.
    public static let schemaClassName = "_SCHEMA"
    /// The tokens a schema line starts with, whitespace aside.
    private static let schemaLineTokens = ["{", "\"className\"", ":", "\"\(schemaClassName)\""].map { Array($0.utf8) }

    /// Whether a line is a schema line: an object whose first member is `"className":
    /// "_SCHEMA"` (the writer puts it first), with or without whitespace around the tokens
    /// (Python's `json.dumps` writes `{"className": "_SCHEMA", …}`).
    static func isSchemaLine(_ raw: UnsafeRawBufferPointer) -> Bool {
        // Most lines fail at their second token.
        var at = 0
        func skipSpace() {
            while at < raw.count, raw[at] == 0x20 || raw[at] == 0x09 || raw[at] == 0x0D || raw[at] == 0x0A { at += 1 }
        }
        func take(_ token: [UInt8]) -> Bool {
            skipSpace()
            guard raw.count - at >= token.count, token.indices.allSatisfy({ raw[at + $0] == token[$0] }) else { return false }
            at += token.count
            return true
        }
        guard take(schemaLineTokens[0]), take(schemaLineTokens[1]), take(schemaLineTokens[2]), take(schemaLineTokens[3]) else { return false }
        skipSpace()
        return at < raw.count && (raw[at] == UInt8(ascii: ",") || raw[at] == UInt8(ascii: "}"))
    }

    /// The file.
    public let url: URL
    public var location: String { url.path }
    /// Budgets per line.
    public let limits: PFLimits

    /// Where a class's lines are: runs of consecutive lines.
    struct Run {
        var start: Int
        var end: Int
        var firstLine: Int
    }

    /// What one pass over the file found.
    struct Index {
        var classes: OrderedDictionary<String, (count: Int, runs: [Run])> = [:]
        var joins: OrderedDictionary<String, (key: ParseRelationKey, runs: [Run])> = [:]
        var schema = ParseSchema()
    }

    var index: Index?
    // Writing.
    var destination: Destination?
    var staged: URL?
    var stagedHandle: FileHandle?
    var buffer: [UInt8] = []
    /// Keys written since `begin`, with how many times (the last write of a key wins).
    var written: [String: Int] = [:]
    /// The longest line written since `begin`, in bytes (``commit()`` copies the new lines
    /// unread only when every one is short enough to be read back within the limits).
    var longestLine = 0
    var writing = false
    /// The schema given to ``begin(schema:)`` and ``extend(schema:)``.
    var writtenSchema = ParseSchema()

    /// Opens a JSON Lines store for reading or writing. Nothing is read until asked; a file
    /// that does not exist yet is an empty store.
    /// - Parameters:
    ///   - url: the file.
    ///   - limits: budgets per line (`maxInputBytes` bounds one line).
    public init(url: URL, limits: PFLimits = .default) {
        self.url = url
        self.limits = limits
    }

    // MARK: - Reading

    /// Calls `body` with each line of the file between byte offsets (all of it by default).
    func forEachLine(from start: Int = 0, to end: Int? = nil, firstLine: Int = 1,
                     _ body: (UnsafeRawBufferPointer, JSONLines.Line) throws(PFError) -> Void) throws(PFError) {
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: url) } catch {
            throw PFError(StoreFailure.cannotOpen(path: location, reason: error.localizedDescription), format: Self.format)
        }
        defer { try? handle.close() }
        var cutter = JSONLines.Cutter(maxLineBytes: limits.maxInputBytes)
        let place = { (line: JSONLines.Line) in
            JSONLines.Line(number: line.number + firstLine - 1, offset: line.offset + start)
        }
        do {
            if start > 0 { try handle.seek(toOffset: UInt64(start)) }
            var left = end.map { $0 - start } ?? Int.max
            while left > 0, let chunk = try handle.read(upToCount: min(1 << 20, left)), !chunk.isEmpty {
                left -= chunk.count
                try chunk.withBytes { raw throws(PFError) in
                    try cutter.feed(raw) { line, at throws(PFError) in try body(line, place(at)) }
                }
            }
        } catch let error as PFError {
            throw error
        } catch {
            throw PFError(StoreFailure.cannotRead(path: location, reason: error.localizedDescription), format: Self.format)
        }
        try cutter.finish { line, at throws(PFError) in try body(line, place(at)) }
    }

    /// The longest line that certainly reads back within `limits` (depth aside, which the
    /// writer bounds): no string, collection or node count in a line exceeds its byte count,
    /// or half of it. A longer line is read back by ``commit()``, which then refuses what the
    /// reader would (a 200 MiB blob's base64 is beyond `maxStringBytes`), leaving the file as it was.
    package static func unreadLineBytes(_ limits: PFLimits) -> Int {
        min(limits.maxInputBytes, limits.maxStringBytes, 2 * limits.maxCollectionCount, 2 * limits.maxNodes)
    }

    /// The file's bytes as they are, a megabyte at a time.
    func forEachChunk(_ body: (UnsafeRawBufferPointer) throws(PFError) -> Void) throws(PFError) {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: url) } catch {
            throw PFError(StoreFailure.cannotOpen(path: location, reason: error.localizedDescription), format: Self.format)
        }
        defer { try? handle.close() }
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                try chunk.withBytes { raw throws(PFError) in try body(raw) }
            }
        } catch let error as PFError {
            throw error
        } catch {
            throw PFError(StoreFailure.cannotRead(path: location, reason: error.localizedDescription), format: Self.format)
        }
    }

    /// A line's object (or join row), its errors naming the file and the line.
    func decode(_ raw: UnsafeRawBufferPointer, line: JSONLines.Line, session: JSONReader.Session) throws(PFError) -> ParseObject {
        do throws(PFError) {
            var object = try session.withDocument(raw) { root throws(PFError) in
                try ParseObject(restJSON: root, className: nil, checkingNames: false)
            }
            // `className` frames the line; it is not a field to write back.
            object.omitClassNameFromSourceKeys()
            return object
        } catch {
            var placed = JSONLines.placed(error, line: line)
            placed.message = "\(location): " + placed.message
            throw placed
        }
    }

    static func session(limits: PFLimits) -> JSONReader.Session {
        var options = JSONReader.Options(mode: .strict, typedValues: false, limits: limits)
        options.rejectDuplicateKeys = true
        options.parallel = false
        return JSONReader.Session(reader: JSONReader(options: options))
    }

    /// The one pass that learns the classes, the schema and where each class's lines are.
    func indexed() throws(PFError) -> Index {
        if let index { return index }
        var index = Index()
        var inference: [String: ParseExportStore.SchemaInference] = [:]
        let session = Self.session(limits: limits)
        var current: (name: String, run: Run)?
        func close() {
            guard let (name, run) = current else { return }
            if name.hasPrefix(Self.joinPrefix) {
                index.joins[name]?.runs.append(run)
            } else {
                index.classes[name]?.runs.append(run)
            }
        }
        var declared = ParseSchema()
        try forEachLine { raw, line throws(PFError) in
            if Self.isSchemaLine(raw) {
                do throws(PFError) {
                    let value = try session.read(raw)
                    let one = try ParseSchema(rest: ["results": [value["schema"] ?? .null]])
                    for (name, fields) in one.classes { declared.classes[name] = fields }
                } catch {
                    var placed = JSONLines.placed(error, line: line)
                    placed.message = "\(location): " + placed.message
                    throw placed
                }
                return
            }
            let object = try decode(raw, line: line, session: session)
            let name = object.className
            if name.hasPrefix(Self.joinPrefix) {
                let parts = name.dropFirst(Self.joinPrefix.count).split(separator: ":", maxSplits: 1)
                guard parts.count == 2, Self.text(object.fields["owningId"]) != nil, Self.text(object.fields["relatedId"]) != nil else {
                    throw PFError(
                        StoreFailure.badJSONLinesJoinRow(location: location, line: line.number), format: Self.format,
                        location: PFError.Location(offset: line.offset, line: line.number, column: 1))
                }
                if index.joins[name] == nil {
                    index.joins[name] = (ParseRelationKey(owningClass: String(parts[1]), field: String(parts[0]), targetClass: nil), [])
                }
            } else {
                if index.classes[name] == nil { index.classes[name] = (0, []) }
                index.classes[name]?.count += 1
                inference[name, default: ParseExportStore.SchemaInference(className: name)].add(object)
            }
            let next = line.offset + raw.count
            if let open = current, open.name == name {
                current?.run.end = next
            } else {
                close()
                current = (name, Run(start: line.offset, end: next, firstLine: line.number))
            }
        }
        close()
        // Declared classes first (with or without objects), their fields before inferred ones.
        index.schema = declared
        for (name, _) in declared.classes where index.classes[name] == nil { index.classes[name] = (0, []) }
        for (name, _) in index.classes {
            for (field, type) in inference[name]?.fields ?? [:] where index.schema.classes[name]?[field] == nil {
                index.schema.classes[name, default: [:]][field] = type
            }
            if index.schema.classes[name] == nil { index.schema.classes[name] = [:] }
        }
        // A relation's target is the Relation field's, else the system classes' own.
        for (name, join) in index.joins {
            let key = join.key
            let target = index.schema.classes[key.owningClass]?[key.field]?.targetClass
                ?? ParseExportStore.systemRelationTargets[key.owningClass + "." + key.field]
            index.joins[name]?.key.targetClass = target
            if index.schema.classes[key.owningClass]?[key.field] == nil {
                index.schema.classes[key.owningClass, default: [:]][key.field] = ParseSchema.Field(.relation, targetClass: target)
            }
        }
        self.index = index
        return index
    }

    public func classNames() throws(PFError) -> [String] { Array(try indexed().classes.keys) }
    public func schema() throws(PFError) -> ParseSchema { try indexed().schema }
    public func estimatedObjectCount(in className: String) -> Int? { index?.classes[className]?.count }

    public func forEachObject(in className: String, _ body: (ParseObject) throws(PFError) -> Void) throws(PFError) {
        guard let runs = try indexed().classes[className]?.runs else { return }
        let session = Self.session(limits: limits)
        for run in runs {
            try forEachLine(from: run.start, to: run.end, firstLine: run.firstLine) { raw, line throws(PFError) in
                try body(try decode(raw, line: line, session: session))
            }
        }
    }

    public func relations() throws(PFError) -> [ParseRelationKey] { try indexed().joins.values.map(\.key) }

    public func forEachJoinRow(of relation: ParseRelationKey, _ body: (ParseJoinRow) throws(PFError) -> Void) throws(PFError) {
        let name = Self.joinPrefix + relation.field + ":" + relation.owningClass
        guard let runs = try indexed().joins[name]?.runs else { return }
        let session = Self.session(limits: limits)
        for run in runs {
            try forEachLine(from: run.start, to: run.end, firstLine: run.firstLine) { raw, line throws(PFError) in
                let row = try decode(raw, line: line, session: session)
                guard let owning = Self.text(row.fields["owningId"]), let related = Self.text(row.fields["relatedId"]) else { return }
                try body(ParseJoinRow(owningId: owning, relatedId: related))
            }
        }
    }

    public func close() {
        if !writing { index = nil }
    }

    // MARK: - Writing

    public func begin(schema: ParseSchema) throws(PFError) {
        abort()
        let destination = try Destination.claim(url, format: Self.format)
        index = nil
        var status = stat()
        if lstat(url.path, &status) == 0 {
            switch status.st_mode & S_IFMT {
            case S_IFREG:
                do throws(PFError) { _ = try indexed() } catch {
                    destination.release()
                    throw destination.refusal(.unreadable(store: "a JSON Lines store of Parse objects", problem: error.message))
                }
            case S_IFLNK:
                destination.release()
                throw destination.refusal(.symbolicLink)
            case S_IFDIR:
                destination.release()
                throw destination.refusal(.directoryWhereFileBelongs("a JSON Lines file"))
            default:
                destination.release()
                throw destination.refusal(.notARegularFile)
            }
        }
        let staged = Destination.temporarySibling(of: url.standardizedFileURL, suffix: "-lines")
        guard FileManager.default.createFile(atPath: staged.path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = FileHandle(forWritingAtPath: staged.path)
        else {
            Destination.forget(staged)
            destination.release()
            throw PFError(StoreFailure.cannotCreateStaged(location: location, staged: staged.lastPathComponent, reason: nil), format: Self.format)
        }
        self.destination = destination
        self.staged = staged
        stagedHandle = handle
        written = [:]
        longestLine = 0
        buffer = []
        writtenSchema = ParseSchema()
        merge(schema)
        writing = true
    }

    public func extend(schema: ParseSchema) throws(PFError) {
        guard writing else { throw MemoryStore.notBegun(location) }
        merge(schema)
    }

    /// Adds classes and fields to the schema written; a field already known keeps its type.
    private func merge(_ schema: ParseSchema) {
        for (name, fields) in schema.classes {
            if writtenSchema.classes[name] == nil { writtenSchema.classes[name] = [:] }
            for (field, type) in fields where writtenSchema.classes[name]?[field] == nil {
                writtenSchema.classes[name]?[field] = type
            }
        }
    }

    public func write(_ objects: [ParseObject], className: String) throws(PFError) {
        guard writing else { throw MemoryStore.notBegun(location) }
        let lines = JSONLines.Writer()
        for object in objects {
            var members: OrderedDictionary<String, PFValue> = ["className": .string(className)]
            if case .dictionary(let rest) = object.encoded(style: .rest) {
                for (key, value) in rest where key != "className" { members[key] = value }
            }
            let start = buffer.count
            try lines.append(.dictionary(members), into: &buffer)
            longestLine = max(longestLine, buffer.count - start)
            if let id = object.objectId { written[Self.objectKey(className, id), default: 0] += 1 }
        }
        try flushIfFull()
    }

    public func write(_ rows: [ParseJoinRow], relation: ParseRelationKey) throws(PFError) {
        guard writing else { throw MemoryStore.notBegun(location) }
        let lines = JSONLines.Writer()
        let name = Self.joinPrefix + relation.field + ":" + relation.owningClass
        for row in rows {
            let key = Self.joinKey(name, row.owningId, row.relatedId)
            // A join row already written is not written again.
            guard written[key] == nil else { continue }
            written[key] = 1
            let start = buffer.count
            try lines.append(["className": .string(name), "owningId": .string(row.owningId), "relatedId": .string(row.relatedId)], into: &buffer)
            longestLine = max(longestLine, buffer.count - start)
        }
        try flushIfFull()
    }

    /// A string field's text.
    static func text(_ value: ParseValue?) -> String? {
        if case .string(let text)? = value { return text }
        return nil
    }

    static func objectKey(_ className: String, _ id: String) -> String { "O\u{0}" + className + "\u{0}" + id }
    static func joinKey(_ name: String, _ owning: String, _ related: String) -> String {
        "J\u{0}" + name + "\u{0}" + owning + "\u{0}" + related
    }

    private func flushIfFull(force: Bool = false) throws(PFError) {
        guard let stagedHandle, !buffer.isEmpty, force || buffer.count >= 1 << 20 else { return }
        do { try stagedHandle.write(contentsOf: buffer) } catch {
            throw PFError(StoreFailure.cannotWriteStaged(location: location, reason: error.localizedDescription), format: Self.format)
        }
        buffer.removeAll(keepingCapacity: true)
    }

    public func commit() throws(PFError) {
        guard writing, let staged else { throw MemoryStore.notBegun(location) }
        defer { cleanUp() }
        try flushIfFull(force: true)
        try? stagedHandle?.close()
        stagedHandle = nil
        var remaining = written
        let session = Self.session(limits: limits)
        // The existing file's schema, with the new classes and fields added.
        var schema = (try? indexed().schema) ?? ParseSchema()
        for (name, fields) in writtenSchema.classes {
            if schema.classes[name] == nil { schema.classes[name] = [:] }
            for (field, type) in fields where schema.classes[name]?[field] == nil { schema.classes[name]?[field] = type }
        }
        var schemaLines: [UInt8] = []
        if case .array(let classes)? = schema.restValue["results"] {
            for entry in classes {
                try JSONLines.Writer().append(["className": .string(Self.schemaClassName), "schema": entry], into: &schemaLines)
            }
        }
        let stagedStore = JSONLinesStore(url: staged, limits: limits)
        try Destination.writeFile(to: url, format: Self.format) { write throws(PFError) in
            var seenJoins = Set<String>()
            var out: [UInt8] = []
            func emit(_ raw: UnsafeRawBufferPointer) throws(PFError) {
                out.append(contentsOf: raw)
                out.append(0x0A)
                if out.count >= 1 << 20 {
                    try out.withBytes { bytes throws(PFError) in try write(bytes) }
                    out.removeAll(keepingCapacity: true)
                }
            }
            try schemaLines.withBytes { bytes throws(PFError) in try write(bytes) }
            // The existing objects that were not replaced, and its join rows.
            try forEachLine { raw, line throws(PFError) in
                if Self.isSchemaLine(raw) { return }
                let object = try decode(raw, line: line, session: session)
                if object.className.hasPrefix(Self.joinPrefix) {
                    let key = Self.joinKey(object.className, Self.text(object.fields["owningId"]) ?? "", Self.text(object.fields["relatedId"]) ?? "")
                    seenJoins.insert(key)
                } else if let id = object.objectId, written[Self.objectKey(object.className, id)] != nil {
                    return
                }
                try emit(raw)
            }
            // The new lines: the last write of an objectId wins; join rows already there are skipped.
            // (An objectId written twice has a count above 1 in `written`.)
            if seenJoins.isEmpty && longestLine <= Self.unreadLineBytes(limits) && !written.values.contains(where: { $0 > 1 }) {
                // Every new line stays and reads back within the limits: they are copied as
                // written, none read again.
                try out.withBytes { bytes throws(PFError) in try write(bytes) }
                out.removeAll()
                try stagedStore.forEachChunk { chunk throws(PFError) in try write(chunk) }
                return
            }
            try stagedStore.forEachLine { raw, line throws(PFError) in
                let object = try stagedStore.decode(raw, line: line, session: session)
                if object.className.hasPrefix(Self.joinPrefix) {
                    let key = Self.joinKey(object.className, Self.text(object.fields["owningId"]) ?? "", Self.text(object.fields["relatedId"]) ?? "")
                    if seenJoins.contains(key) { return }
                } else if let id = object.objectId {
                    let key = Self.objectKey(object.className, id)
                    let left = (remaining[key] ?? 1) - 1
                    remaining[key] = left
                    if left > 0 { return }
                }
                try emit(raw)
            }
            try out.withBytes { bytes throws(PFError) in try write(bytes) }
        }
        index = nil
    }

    private func cleanUp() {
        try? stagedHandle?.close()
        stagedHandle = nil
        if let staged {
            try? FileManager.default.removeItem(at: staged)
            Destination.forget(staged)
        }
        staged = nil
        written = [:]
        buffer = []
        writing = false
        destination?.release()
        destination = nil
    }

    public func abort() {
        guard writing else { return }
        cleanUp()
        index = nil
    }
}
