import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFParse
import PFParseExport
import ZIPFoundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Writing

/// Writing a Parse export.
///
/// ``begin(schema:)`` claims the destination (``Destination``: its lock, and the removal of
/// what killed runs left), refuses it when it holds anything that is not part of an export
/// (unless ``foreignEntries`` is `.keep`), and creates a staging directory, the temporary
/// sibling `.<name>.pfarchive-tmp-<pid>-<random>` (mode 0700 while it is written). Every class
/// streams into its own `{"results":[…]}` file there as its batches arrive (a class is never
/// held in memory); relations go to `_Join:<field>:<Class>.json` (rows
/// `{"owningId","relatedId"}`), the schema to `_SCHEMA.json` (the REST `/schemas` shape).
/// ``commit()`` then, when the destination already exists, merges it in (objects of the same
/// objectId are replaced, others kept as they were, byte for byte; join rows are a set), gives
/// files and directory the modes of what they replace, syncs them, and swaps the staging
/// directory into place — or, for a `.zip`, zips it (inside the staging directory) and renames
/// that over the destination. Foreign entries kept are carried over untouched.
extension ParseExportStore {
    final class WriteState {
        let staging: URL
        /// The claim on the destination (its lock), released at commit or abort.
        let destination: Destination
        /// The destination's own and foreign entries, found at begin.
        let entries: ExportDestinationEntries
        var schema: ParseSchema
        /// The destination's layout when it existed at begin, to merge at commit.
        let previous: Layout?
        var classFiles: OrderedDictionary<String, StagedFile> = [:]
        var joinFiles: OrderedDictionary<ParseRelationKey, StagedFile> = [:]
        /// The objectIds written per class: to replace the destination's objects and to find
        /// an id written twice.
        var ids: [String: Set<String>] = [:]
        /// Ids written more than once per class, with how many times.
        var repeated: [String: [String: Int]] = [:]
        var joinRows: [ParseRelationKey: Set<ParseJoinRow>] = [:]
        /// Names encoded so far.
        var tally = ParseNameTally()

        init(staging: URL, schema: ParseSchema, previous: Layout?, destination: Destination, entries: ExportDestinationEntries) {
            self.staging = staging
            self.destination = destination
            self.entries = entries
            self.schema = schema
            self.previous = previous
        }
    }

    /// One file being written: `{"results":[` rows `]}` through a buffer.
    final class StagedFile {
        let url: URL
        let fd: Int32
        var buffer: [UInt8] = []
        var rows = 0
        var closed = false

        init(url: URL) throws(PFError) {
            self.url = url
            fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                throw PFError(StoreFailure.cannotCreate(path: url.path, reason: String(cString: strerror(errno))), format: ParseExportStore.format)
            }
            buffer.reserveCapacity(1 << 20)
            buffer.append(contentsOf: Array("{\"results\":[".utf8))
        }

        deinit { if !closed { _ = POSIX.close(fd) } }

        /// Starts a row (the separator), for the caller to append its JSON to `buffer`.
        func beginRow() {
            buffer.append(contentsOf: rows == 0 ? [0x0A] : [0x2C, 0x0A])
            rows += 1
        }

        func flushIfFull() throws(PFError) {
            if buffer.count >= 1 << 20 { try flush() }
        }

        func flush() throws(PFError) {
            var written = 0
            let count = buffer.count
            let error: Int32? = buffer.withUnsafeBytes { raw in
                while written < count {
                    let n = POSIX.write(fd, raw.baseAddress.map { $0 + written }, count - written)
                    if n < 0 {
                        if errno == EINTR { continue }
                        return errno
                    }
                    written += n
                }
                return nil
            }
            buffer.removeAll(keepingCapacity: true)
            if let error {
                throw PFError(StoreFailure.cannotWrite(path: url.path, reason: String(cString: strerror(error))), format: ParseExportStore.format)
            }
        }

        func close() throws(PFError) {
            guard !closed else { return }
            buffer.append(contentsOf: Array((rows == 0 ? "]}\n" : "\n]}\n").utf8))
            try flush()
            closed = true
            guard POSIX.close(fd) == 0 else {
                throw PFError(StoreFailure.cannotClose(path: url.path, reason: String(cString: strerror(errno))), format: ParseExportStore.format)
            }
        }
    }

    // MARK: ObjectStoreWriter

    public func begin(schema: ParseSchema) throws(PFError) {
        abort()
        let destination = try Destination.claim(url, format: Self.format)
        container = nil
        excludedEntries = []
        forgetSchema()
        let entries = try destinationEntries()
        if let reason = entries.wholeForeign { throw destination.refusal(reason) }
        try destination.refuse(entries.foreign, store: "a Parse export", policy: foreignEntries)
        excludedEntries = Set(entries.foreign)
        var merged = ParseSchema()
        var previous: Layout?
        if FileManager.default.fileExists(atPath: url.path) {
            previous = try layout()
            merged = try self.schema()
        }
        merged.merge(schema, replacing: true)
        let staging = destination.temporarySibling()
        guard mkdir(staging.path, 0o700) == 0 else {
            Destination.forget(staging)
            throw PFError(StoreFailure.cannotCreate(path: staging.path, reason: POSIX.errorText()), format: Self.format)
        }
        writing = WriteState(staging: staging, schema: merged, previous: previous, destination: destination, entries: entries)
        encodedNames = ParseNameTally()
    }

    public func extend(schema: ParseSchema) throws(PFError) {
        guard let state = writing else { throw MemoryStore.notBegun(location) }
        state.schema.merge(schema, replacing: false)
    }

    public func write(_ objects: [ParseObject], className: String) throws(PFError) {
        guard let state = writing else { throw MemoryStore.notBegun(location) }
        let file = try stagedClassFile(className, state)
        let writer = JSONWriter()
        for object in objects {
            state.schema.addFields(of: object)
            if let id = object.objectId {
                if !state.ids[className, default: []].insert(id).inserted {
                    state.repeated[className, default: [:]][id, default: 1] += 1
                }
            }
            let stored = ParseNameCoding.encode(object, policy: namePolicy, tally: &state.tally)
            file.beginRow()
            try writer.write(stored.encoded(style: .rest, sortedKeys: options.sortedKeys), into: &file.buffer)
            try file.flushIfFull()
        }
    }

    public func write(_ rows: [ParseJoinRow], relation: ParseRelationKey) throws(PFError) {
        guard let state = writing else { throw MemoryStore.notBegun(location) }
        let key = ParseRelationKey(owningClass: relation.owningClass, field: relation.field)
        state.schema.addRelation(relation)
        let file = try stagedJoinFile(key, state)
        for row in rows where state.joinRows[key, default: []].insert(row).inserted {
            file.beginRow()
            Self.appendJoinRow(row, to: &file.buffer)
            try file.flushIfFull()
        }
    }

    public func commit() throws(PFError) {
        guard let state = writing else { throw MemoryStore.notBegun(location) }
        do throws(PFError) {
            // Every class of the schema gets a file, empty classes too.
            for className in state.schema.classes.keys { _ = try stagedClassFile(className, state) }
            for (className, file) in state.classFiles {
                if let counts = state.repeated[className], !counts.isEmpty {
                    try file.close()
                    try keepLastOfRepeated(file, counts: counts, className: className, state: state)
                }
            }
            if let previous = state.previous { try mergePrevious(previous, state) }
            for file in state.classFiles.values { try file.close() }
            for file in state.joinFiles.values { try file.close() }
            try writeSchema(state)
            try checkForeignNames(state)
            if isZip {
                try zipStaging(state)
            } else {
                try swapInStaging(state)
            }
        } catch {
            abort()
            throw error
        }
        encodedNames = state.tally
        writing = nil
        container = nil
        excludedEntries = []
        forgetSchema()
        state.destination.release()
    }

    public func abort() {
        guard let state = writing else { return }
        writing = nil
        for file in state.classFiles.values where !file.closed {
            file.closed = true
            _ = POSIX.close(file.fd)
        }
        for file in state.joinFiles.values where !file.closed {
            file.closed = true
            _ = POSIX.close(file.fd)
        }
        try? FileManager.default.removeItem(at: state.staging)
        Destination.forget(state.staging)
        excludedEntries = []
        state.destination.release()
    }

    // MARK: Staged files

    func stagedClassFile(_ className: String, _ state: WriteState) throws(PFError) -> StagedFile {
        if let file = state.classFiles[className] { return file }
        try ParseRules.checkClassName(className)
        guard !className.contains("/"), ParseRelationKey(joinClassName: className) == nil else {
            throw PFError(StoreFailure.notAClassFileName(className), format: Self.format)
        }
        let file = try StagedFile(url: state.staging.appendingPathComponent(className + ".json"))
        state.classFiles[className] = file
        return file
    }

    func stagedJoinFile(_ key: ParseRelationKey, _ state: WriteState) throws(PFError) -> StagedFile {
        if let file = state.joinFiles[key] { return file }
        let stored = storedKey(key)
        if stored.field != key.field { state.tally.field(key.field, storedAs: stored.field, className: key.owningClass) }
        guard !stored.joinClassName.contains("/") else {
            throw PFError(StoreFailure.notAFileName(stored.joinClassName), format: Self.format)
        }
        let file = try StagedFile(url: state.staging.appendingPathComponent(stored.joinClassName + ".json"))
        state.joinFiles[key] = file
        return file
    }

    static func appendJoinRow(_ row: ParseJoinRow, to buffer: inout [UInt8]) {
        let value: PFValue = ["owningId": .string(row.owningId), "relatedId": .string(row.relatedId)]
        // Two strings cannot fail to write.
        try? JSONWriter().write(value, into: &buffer)
    }

    /// Rewrites a class file keeping, for an objectId written several times, only its last row.
    func keepLastOfRepeated(_ file: StagedFile, counts: [String: Int], className: String, state: WriteState) throws(PFError) {
        let source = file.url.appendingPathExtension("repeated")
        do { try FileManager.default.moveItem(at: file.url, to: source) } catch {
            throw PFError(StoreFailure.cannotRewrite(path: file.url.path, reason: error.localizedDescription), format: Self.format)
        }
        let rewritten = try StagedFile(url: file.url)
        var seen: [String: Int] = [:]
        try Self.forEachRawRow(atPath: source.path, limits: options.limits, chunkSize: options.chunkSize) { row, id throws(PFError) in
            if let id, let total = counts[id] {
                seen[id, default: 0] += 1
                if seen[id, default: 0] < total { return }
            }
            rewritten.beginRow()
            rewritten.buffer.append(contentsOf: row)
            try rewritten.flushIfFull()
        }
        try? FileManager.default.removeItem(at: source)
        state.classFiles[className] = rewritten
    }

    /// Adds the destination's objects that were not replaced, its join rows, and its classes
    /// and relations that were not written at all.
    func mergePrevious(_ previous: Layout, _ state: WriteState) throws(PFError) {
        guard let container = try opened() else { return }
        for (className, file) in previous.classes {
            let staged = try stagedClassFile(className, state)
            let written = state.ids[className] ?? []
            let session = ParseExportRow.session(limits: options.limits)
            let name = "\(location): \(file.name)"
            try container.forEachRow(of: file, chunkSize: options.chunkSize) { row throws(PFError) in
                // Read to learn the id (and to refuse a malformed row before it is kept).
                let object = try row.readObject(session: session, className: className, file: name, checkingNames: false)
                if let id = object.objectId, written.contains(id) { return }
                staged.beginRow()
                staged.buffer.append(contentsOf: row.bytes)
                try staged.flushIfFull()
            }
        }
        for key in previous.joins.keys.map(originalKey) {
            let staged = try stagedJoinFile(key, state)
            try forEachJoinRow(of: key) { row throws(PFError) in
                if state.joinRows[key, default: []].insert(row).inserted {
                    staged.beginRow()
                    Self.appendJoinRow(row, to: &staged.buffer)
                    try staged.flushIfFull()
                }
            }
        }
    }

    /// Calls `body` with each row's raw bytes and its objectId, reading a file in chunks.
    static func forEachRawRow(
        atPath path: String, limits: PFLimits, chunkSize: Int,
        _ body: (UnsafeRawBufferPointer, String?) throws(PFError) -> Void
    ) throws(PFError) {
        let reader = ParseExportRow.reader(limits: limits)
        var cutter = ParseExportRowCutter(limits: limits)
        try ExportContainer.readFile(atPath: path, chunkSize: chunkSize) { chunk throws(PFError) in
            try cutter.feed(chunk) { row throws(PFError) in
                let value = try row.readValue(reader: reader, file: path)
                try body(row.bytes, value["objectId"]?.stringValue)
            }
        }
        try cutter.finish { row throws(PFError) in
            let value = try row.readValue(reader: reader, file: path)
            try body(row.bytes, value["objectId"]?.stringValue)
        }
    }

    /// `_SCHEMA.json` in the REST `/schemas` shape. A Pointer or Relation whose target class is
    /// unknown is left out (parse-server's `/schemas` refuses one without `targetClass`); a
    /// Relation's join file still declares it when the export is read again.
    func writeSchema(_ state: WriteState) throws(PFError) {
        let schema = state.schema.withoutUnknownTargets().kept
        var text = try JSONWriter(options: .init(pretty: true)).write(Self.schemaDocument(schema, policy: namePolicy, marked: namesEncoded || !state.tally.isEmpty))
        if text.last != 0x0A { text.append(0x0A) }
        let target = state.staging.appendingPathComponent(Self.schemaFileName)
        do { try text.write(to: target) } catch {
            throw PFError(StoreFailure.cannotWrite(path: target.path, reason: error.localizedDescription), format: Self.format)
        }
    }

    /// `_SCHEMA.json`: the REST `/schemas` shape of the schema with its names encoded; when
    /// any name was (a field's, or a nested key's: `marked`), each such field keeps its
    /// original under `pfarchiveName` and the document says so under `pfarchiveNameCoding`.
    static func schemaDocument(_ schema: ParseSchema, policy: ParseNamePolicy, marked: Bool) -> PFValue {
        let stored = ParseNameCoding.encode(schema, policy: policy)
        guard stored != schema || marked, case .dictionary(var document) = stored.restValue, case .array(var results)? = document["results"] else {
            return schema.restValue
        }
        for (i, (className, fields)) in schema.classes.enumerated() where i < results.count {
            guard case .dictionary(var entry) = results[i], case .dictionary(var specs)? = entry["fields"] else { continue }
            for original in fields.keys {
                let name = ParseNameCoding.encodeField(original, policy: policy, className: className)
                guard name != original, case .dictionary(var spec)? = specs[name] else { continue }
                spec[originalNameKey] = .string(original)
                specs[name] = .dictionary(spec)
            }
            entry["fields"] = .dictionary(specs)
            results[i] = .dictionary(entry)
        }
        document["results"] = .array(results)
        document[nameCodingKey] = .string(ParseNameCoding.prefix)
        return .dictionary(document)
    }

    // MARK: Putting in place

    /// A foreign entry kept must not collide with a file the export writes.
    func checkForeignNames(_ state: WriteState) throws(PFError) {
        guard !state.entries.foreign.isEmpty else { return }
        let written = Set((try? FileManager.default.contentsOfDirectory(atPath: state.staging.path)) ?? [])
        if let clash = state.entries.foreign.first(where: { written.contains($0) }) {
            throw PFError(StoreFailure.entryInTheWay(location: location, entry: clash, store: "a Parse export"), format: Self.format)
        }
    }

    func swapInStaging(_ state: WriteState) throws(PFError) {
        let destination = state.destination
        try destination.carryOver(state.entries.foreign, from: url, into: state.staging)
        let existing = FileManager.default.fileExists(atPath: url.path) ? url : nil
        try Destination.settleDirectory(state.staging, like: existing, skipping: Set(state.entries.foreign), format: Self.format)
        try destination.swapDirectory(with: state.staging, storeEntries: state.entries.store)
    }

    func zipStaging(_ state: WriteState) throws(PFError) {
        let fm = FileManager.default
        // Written inside the staging directory (mode 0700), so nobody reads it half written.
        let names = ((try? fm.contentsOfDirectory(atPath: state.staging.path)) ?? []).sorted()
        let zip = state.staging.appendingPathComponent(".pfarchive-export.zip")
        do {
            let archive = try Archive(url: zip, accessMode: .create)
            for name in names {
                try archive.addEntry(with: name, relativeTo: state.staging, compressionMethod: .deflate,
                                     bufferSize: max(1 << 16, options.chunkSize))
            }
            try carryOverZipMembers(state.entries.foreign, into: archive)
        } catch let error as PFError {
            throw error
        } catch {
            throw PFError(StoreFailure.cannotWriteZip(path: zip.path, reason: "\(error)"), format: Self.format)
        }
        let existing = fm.fileExists(atPath: url.path) ? url : nil
        try Destination.settle(zip, like: existing, format: Self.format)
        try state.destination.replace(with: zip)
        try? fm.removeItem(at: state.staging)
        Destination.forget(state.staging)
    }
}
