import Foundation
import OrderedCollections
import PFCore
import PFParse

/// Copies objects and relations from one store into another: the engine of `pfarchive import`.
///
/// ```swift
/// let report = try StoreImporter(options: .init(batchSize: 1000)).run(from: export, to: sqlite) { progress in
///     print(progress.objectsDone, "of", progress.objectsEstimated ?? 0)
/// }
/// ```
///
/// Every class (or the ones asked for) is streamed from the reader into the writer in batches,
/// then the join rows of their relations, inside one ``ObjectStoreWriter`` transaction. The
/// source is read once: a schema it must infer from its rows is gathered on the way
/// (``ObjectStoreReader/declaredSchema()``) and handed to the writer before the join rows
/// (``ObjectStoreWriter/extend(schema:)``).
/// Memory holds a few batches (the one filling and, with ``Options/overlapWrites``, up to two
/// being written and up to two written ones waiting to be freed on the importing thread),
/// plus 8 bytes per object (a fingerprint of each objectId, for the
/// dangling-pointer and duplicate checks) and the pointers that wait for a class not yet read.
///
/// What stops an import and what is only reported:
/// - **Stops** (the error is thrown after ``ObjectStoreWriter/abort()``, so a new destination
///   stays absent and an existing one unchanged): anything the reader throws — malformed
///   input, a row that is not a Parse object, a value of the wrong type — and anything the
///   writer throws (a value the destination cannot hold, I/O). Bad input is never skipped.
/// - **Rejected** (reported, the row is not written): a join row with an empty owningId or
///   relatedId. (A join row repeated in the source is written once.) **Reported** only: an object whose objectId repeats one
///   seen earlier in its class (the later row replaces the earlier, as upserts do), and
///   dangling pointers (a Pointer whose target is not in the source; the pointer is kept).
public struct StoreImporter: Sendable {
    /// What to import and how.
    public struct Options: Sendable {
        /// The classes to import (`nil`: all). Relations are imported when their owning class is.
        public var classes: [String]?
        /// Objects (and join rows) per write. Default 1000.
        public var batchSize: Int
        /// How many dangling pointers and rejected rows the report lists one by one (all are
        /// counted). Default 100.
        public var maxListed: Int
        /// Write each batch on a thread of its own while the next one is read (the writer is
        /// still called by one thread at a time, in order). Default `true`.
        public var overlapWrites: Bool
        /// Refuse a field name or nested key the destination cannot hold (Parse error 105 or
        /// 121), as imports did before names were encoded, instead of encoding it
        /// (``PFParse/ParseNameCoding``). Default `false`.
        public var strictNames = false

        /// Makes options.
        /// - Parameters:
        ///   - classes: the classes to import, or `nil` for all.
        ///   - batchSize: objects per write, at least 1.
        ///   - maxListed: how many findings the report lists.
        ///   - overlapWrites: write batches on a thread of their own.
        public init(classes: [String]? = nil, batchSize: Int = 1000, maxListed: Int = 100, overlapWrites: Bool = true) {
            self.overlapWrites = overlapWrites
            self.classes = classes
            self.batchSize = max(1, batchSize)
            self.maxListed = max(0, maxListed)
        }
    }

    /// Where an import is.
    public struct Progress: Sendable {
        /// The class (or join table) being copied.
        public var current: String
        /// Objects and join rows copied so far, all classes.
        public var objectsDone: Int
        /// The source's estimate of all objects to copy, when it has one for every class.
        public var objectsEstimated: Int?
    }

    /// A pointer whose target is not in the source.
    public struct DanglingPointer: Sendable, Equatable {
        /// The class of the object holding the pointer.
        public var className: String
        /// That object's id.
        public var objectId: String
        /// The field (a key path for pointers inside arrays: `players[2]`).
        public var key: String
        /// The missing target.
        public var target: ParsePointer

        /// Makes a finding.
        /// - Parameters:
        ///   - className: the class holding the pointer.
        ///   - objectId: the holder's id.
        ///   - key: the field or key path.
        ///   - target: the missing target.
        public init(className: String, objectId: String, key: String, target: ParsePointer) {
            self.className = className
            self.objectId = objectId
            self.key = key
            self.target = target
        }
    }

    /// A row not written, and why.
    public struct RejectedRow: Sendable, Equatable {
        /// The class or join table.
        public var className: String
        /// The row's id (`owningId→relatedId` for a join row), when it has one.
        public var id: String?
        /// Why it was not written.
        public var reason: String

        /// Makes a finding.
        /// - Parameters:
        ///   - className: the class or join table.
        ///   - id: the row's id.
        ///   - reason: why it was not written.
        public init(className: String, id: String?, reason: String) {
            self.className = className
            self.id = id
            self.reason = reason
        }
    }

    /// What an import did.
    public struct Report: Sendable, Equatable {
        /// The source, for messages.
        public var source: String
        /// The destination, for messages.
        public var destination: String
        /// Objects written per class, in import order.
        public var objectsPerClass: OrderedDictionary<String, Int> = [:]
        /// Join rows written per relation (`_Join:<field>:<Class>`).
        public var relationRows: OrderedDictionary<String, Int> = [:]
        /// Dangling pointers, counted.
        public var danglingPointerCount = 0
        /// The first ``Options/maxListed`` dangling pointers.
        public var danglingPointers: [DanglingPointer] = []
        /// Links the source read as null because their target is not in it (a Realm file's
        /// unresolved links; ``ObjectStoreReader/unresolvedLinks()``).
        public var unresolvedLinks = UnresolvedLinks()
        /// Rows not written, counted.
        public var rejectedCount = 0
        /// The first ``Options/maxListed`` rows not written.
        public var rejected: [RejectedRow] = []
        /// Objects whose objectId repeated an earlier one of their class (the later replaced it).
        public var duplicateObjectIds = 0
        /// Names the destination could not hold and encoded (``PFParse/ParseNameCoding``), per
        /// class and original field name: the field's stored name when it was encoded, and how
        /// many nested keys inside its values were.
        public var encodedNames = ParseNameTally()
        /// Relations whose target class no schema named, and what their related ids said
        /// (the target inferred, or why it stays unknown).
        public var relationTargets: [RelationTargetInference] = []

        /// All objects written.
        public var totalObjects: Int { objectsPerClass.values.reduce(0, +) }
        /// All join rows written.
        public var totalRelationRows: Int { relationRows.values.reduce(0, +) }

        /// The report as JSON for `--json`.
        public var jsonValue: PFValue {
            var classes = OrderedDictionary<String, PFValue>()
            for (name, count) in objectsPerClass { classes[name] = .int(Int64(count)) }
            var relations = OrderedDictionary<String, PFValue>()
            for (name, count) in relationRows { relations[name] = .int(Int64(count)) }
            return [
                "source": .string(source), "destination": .string(destination),
                "objects": .dictionary(classes), "relationRows": .dictionary(relations),
                "totalObjects": .int(Int64(totalObjects)), "totalRelationRows": .int(Int64(totalRelationRows)),
                "duplicateObjectIds": .int(Int64(duplicateObjectIds)),
                "danglingPointerCount": .int(Int64(danglingPointerCount)),
                "danglingPointers": .array(danglingPointers.map {
                    [
                        "className": .string($0.className), "objectId": .string($0.objectId), "key": .string($0.key),
                        "targetClass": .string($0.target.className), "targetId": .string($0.target.objectId),
                    ]
                }),
                "encodedFieldCount": .int(Int64(encodedNames.encodedFields)),
                "encodedNestedKeyCount": .int(Int64(encodedNames.encodedNestedKeys)),
                "encodedNames": .dictionary(OrderedDictionary(uniqueKeysWithValues: encodedNames.classes.map { className, fields in
                    (className, PFValue.dictionary(OrderedDictionary(uniqueKeysWithValues: fields.map { field, entry in
                        (field, PFValue.dictionary([
                            "storedAs": entry.storedName.map { .string($0) } ?? .null, "nestedKeys": .int(Int64(entry.nestedKeys)),
                        ]))
                    })))
                })),
                "unresolvedLinkCount": .int(Int64(unresolvedLinks.count)),
                "unresolvedLinks": .array(unresolvedLinks.listed.map { .string($0) }),
                "rejectedCount": .int(Int64(rejectedCount)),
                "rejected": .array(rejected.map {
                    ["className": .string($0.className), "id": $0.id.map { .string($0) } ?? .null, "reason": .string($0.reason)]
                }),
                "relationTargets": .array(relationTargets.map(\.jsonValue)),
            ]
        }

        /// The report as lines for a terminal.
        public var lines: [String] {
            var out: [String] = []
            for (name, count) in objectsPerClass { out.append("\(name): \(count) object\(count == 1 ? "" : "s")") }
            for (name, count) in relationRows { out.append("\(name): \(count) relation row\(count == 1 ? "" : "s")") }
            for d in danglingPointers {
                out.append("dangling pointer: \(d.className) \(d.objectId) at \(d.key) -> \(d.target.className)/\(d.target.objectId)")
            }
            if danglingPointerCount > danglingPointers.count {
                out.append("… and \(danglingPointerCount - danglingPointers.count) more dangling pointers")
            }
            for link in unresolvedLinks.listed { out.append("unresolved link, read as null: \(link)") }
            if unresolvedLinks.count > unresolvedLinks.listed.count {
                out.append("… and \(unresolvedLinks.count - unresolvedLinks.listed.count) more unresolved links read as null")
            }
            for r in rejected { out.append("rejected: \(r.className)\(r.id.map { " \($0)" } ?? ""): \(r.reason)") }
            for t in relationTargets { out.append(t.description) }
            if rejectedCount > rejected.count { out.append("… and \(rejectedCount - rejected.count) more rejected rows") }
            for (className, fields) in encodedNames.classes {
                for (field, entry) in fields {
                    var parts: [String] = []
                    if let stored = entry.storedName { parts.append("stored as \(stored)") }
                    if entry.nestedKeys > 0 { parts.append("\(entry.nestedKeys) nested key\(entry.nestedKeys == 1 ? "" : "s") encoded") }
                    out.append("encoded name: \(className).\(field): \(parts.joined(separator: ", "))")
                }
            }
            if duplicateObjectIds > 0 {
                out.append("\(duplicateObjectIds) object\(duplicateObjectIds == 1 ? "" : "s") repeated an earlier objectId of their class and replaced it")
            }
            out.append(
                "imported \(totalObjects) object\(totalObjects == 1 ? "" : "s") of \(objectsPerClass.count) class\(objectsPerClass.count == 1 ? "" : "es") and \(totalRelationRows) relation row\(totalRelationRows == 1 ? "" : "s") into \(destination); \(danglingPointerCount) dangling pointer\(danglingPointerCount == 1 ? "" : "s"), \(rejectedCount) rejected"
            )
            return out
        }
    }

    /// The settings.
    public var options: Options

    /// Makes an importer.
    /// - Parameter options: what to import and how.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// Imports everything (or ``Options/classes``) from `reader` into `writer`, committing at
    /// the end. On any error the writer is aborted before the error is thrown.
    /// - Parameters:
    ///   - reader: the source.
    ///   - writer: the destination.
    ///   - progress: called after every batch.
    /// - Returns: what was imported.
    /// - Throws: ``PFCore/PFError`` from the reader or writer (see the type's documentation),
    ///   or with code `usage` when ``Options/classes`` names a class the source does not have.
    public func run(
        from reader: any ObjectStoreReader, to writer: any ObjectStoreWriter,
        progress: (Progress) -> Void = { _ in }
    ) throws(PFError) -> Report {
        var state = ImportState(options: options, report: Report(source: reader.location, destination: writer.location))
        let writeBehind = options.overlapWrites ? WriteBehind() : nil
        state.writeBehind = writeBehind
        do {
            try state.importAll(from: reader, to: writer, progress: progress)
            try writeBehind?.finish()
            try writer.commit()
            state.report.encodedNames = writer.encodedNames
            state.report.unresolvedLinks = reader.unresolvedLinks()
        } catch {
            // A write that failed came from an earlier batch than whatever the reader hit since.
            let earlier = writeBehind?.finishReturningFailure()
            writer.abort()
            throw earlier ?? error
        }
        return state.report
    }
}

// MARK: - The work

/// One run's bookkeeping.
private struct ImportState {
    let options: StoreImporter.Options
    var report: StoreImporter.Report
    /// Fingerprints of the objectIds seen, per class fully read.
    var seen: [String: Set<UInt64>] = [:]
    /// Fingerprints of the objectIds of the class being read (moved into `seen` when it is
    /// finished, so no row hashes its class name).
    var seenInClass: Set<UInt64> = []
    /// Classes fully read.
    var finished: Set<String> = []
    /// Classes of the source (pointers to any other class dangle at once).
    var sourceClasses: Set<String> = []
    /// Pointers to a class not yet fully read.
    var pending: [StoreImporter.DanglingPointer] = []
    var objectsDone = 0
    var estimate: Int?
    /// Where writes go when they overlap with reading.
    var writeBehind: WriteBehind?

    init(options: StoreImporter.Options, report: StoreImporter.Report) {
        self.options = options
        self.report = report
    }

    mutating func importAll(
        from reader: any ObjectStoreReader, to writer: any ObjectStoreWriter, progress: (StoreImporter.Progress) -> Void
    ) throws(PFError) {
        let all = try reader.classNames()
        sourceClasses = Set(all)
        var classes = all
        if let wanted = options.classes {
            let missing = wanted.filter { !sourceClasses.contains($0) }
            guard missing.isEmpty else {
                throw PFError(StoreFailure.noSuchClasses(location: "\(reader.location)", missing: missing, available: all), format: StoreFailure.format)
            }
            classes = all.filter { wanted.contains($0) }
        }
        let wantedSet = Set(classes)
        // A store that must infer its schema from the rows (an export without _SCHEMA.json)
        // gathers it during this one pass: the writer starts with the class names, learns the
        // fields as objects come, and gets the rest (Relation fields and their targets) once
        // the objects are written.
        let declared = try reader.declaredSchema()
        /// The wanted classes of `source` with the relations they own.
        func writerSchema(from source: ParseSchema) throws(PFError) -> (ParseSchema, [ParseRelationKey]) {
            var schema = ParseSchema()
            for name in classes { schema.classes[name] = source.classes[name] ?? [:] }
            let relations = try reader.relations().filter { wantedSet.contains($0.owningClass) }
            for relation in relations { schema.addRelation(relation) }
            return (schema, relations)
        }
        var schema = ParseSchema()
        var relations: [ParseRelationKey] = []
        if let declared {
            (schema, relations) = try writerSchema(from: declared)
        } else {
            for name in classes { schema.classes[name] = [:] }
        }
        // A Relation (or Pointer) field whose target no schema names is held back until the
        // objects have been read and its target inferred from the related ids.
        let learnedLater = schema.withoutUnknownTargets()
        schema = learnedLater.kept
        // Asked once per class (a count can mean reading a whole table).
        var counts: [String: Int] = [:]
        for name in classes { counts[name] = reader.estimatedObjectCount(in: name) }
        var total = 0
        for name in classes {
            guard let n = counts[name] else { total = -1; break }
            total += n
        }
        estimate = total >= 0 ? total : nil

        try writer.begin(schema: schema)
        // Payloads go on as prepared JSON only to a store that writes it as it is, and only
        // from the source itself (a reader in between reads the fields).
        let preparing = reader as? SQLiteDatabaseObjectStore
        preparing?.preparesJSON = writer is any StoresPreparedJSON
        defer { preparing?.preparesJSON = false }
        var batch: [ParseObject] = []
        batch.reserveCapacity(options.batchSize)
        for name in classes {
            report.objectsPerClass[name] = 0
            // Sized once from the source's count (growing it rehashes every fingerprint, a
            // page fault per new page), capped so a wrong count cannot reserve much.
            if let count = counts[name] { seenInClass.reserveCapacity(min(max(count, 0), 1 << 22)) }
            try reader.forEachObject(in: name) { (object: ParseObject) throws(PFError) in
                guard object.className == name else {
                    throw PFError(
                        StoreFailure.wrongClassReturned(location: "\(reader.location)", asked: name, returned: object.className),
                        format: StoreFailure.format)
                }
                self.check(object)
                if self.options.strictNames, let problem = ParseNameCoding.firstProblem(in: object, policy: writer.namePolicy) {
                    throw problem
                }
                batch.append(object)
                if batch.count >= self.options.batchSize {
                    try self.flush(&batch, className: name, to: writer, progress: progress)
                }
            }
            try flush(&batch, className: name, to: writer, progress: progress)
            if seen[name] == nil { seen[name] = seenInClass } else { seen[name]?.formUnion(seenInClass) }
            seenInClass = []
            finished.insert(name)
            resolvePending(finishedClass: name)
        }
        // Pointers to classes left out by --classes are checked against nothing: they are
        // reported only when the target class is not in the source at all.
        for pointer in pending where !sourceClasses.contains(pointer.target.className) || finished.contains(pointer.target.className) {
            addDangling(pointer)
        }
        pending = []
        if declared == nil || !learnedLater.heldBack.classes.isEmpty || relations.contains(where: { $0.targetClass == nil }) {
            var learned = learnedLater.heldBack
            if declared == nil { (learned, relations) = try writerSchema(from: try reader.schema()) }
            for (i, relation) in relations.enumerated() where relation.targetClass == nil {
                relations[i] = try inferTarget(of: relation, from: reader)
                if let target = relations[i].targetClass, learned.classes[relation.owningClass]?[relation.field]?.type == .relation {
                    learned.classes[relation.owningClass]?[relation.field]?.targetClass = target
                }
            }
            try writeBehind?.finish()
            try writer.extend(schema: learned)
        }

        for relation in relations {
            if options.strictNames, let problem = writer.namePolicy.fieldProblem(relation.field, className: relation.owningClass) {
                throw PFError(StoreFailure.badName(name: relation.joinClassName, problem: problem, policy: "\(writer.namePolicy)"), format: StoreFailure.format)
            }
            var rows: [ParseJoinRow] = []
            let name = relation.joinClassName
            report.relationRows[name] = 0
            try reader.forEachJoinRow(of: relation) { (row: ParseJoinRow) throws(PFError) in
                if row.owningId.isEmpty || row.relatedId.isEmpty {
                    self.reject(name, id: "\(row.owningId)→\(row.relatedId)", "a join row needs both owningId and relatedId")
                    return
                }
                rows.append(row)
                if rows.count >= self.options.batchSize {
                    try self.flush(&rows, relation: relation, to: writer, progress: progress)
                }
            }
            try flush(&rows, relation: relation, to: writer, progress: progress)
        }
    }

    /// A relation's target class, inferred from its related ids and the objectIds of the
    /// classes read (their fingerprints); the finding goes into the report.
    mutating func inferTarget(of relation: ParseRelationKey, from reader: any ObjectStoreReader) throws(PFError) -> ParseRelationKey {
        var ids: [String] = []
        try reader.forEachJoinRow(of: relation) { (row: ParseJoinRow) throws(PFError) in ids.append(row.relatedId) }
        let seen = self.seen
        let names = seen.keys.sorted()
        let finding = RelationTargetInference(relation, relatedIds: ids) { id in
            let print = Self.fingerprint(id)
            return names.filter { seen[$0]?.contains(print) == true }
        }
        report.relationTargets.append(finding)
        return finding.relation
    }

    mutating func flush(
        _ batch: inout [ParseObject], className: String, to writer: any ObjectStoreWriter,
        progress: (StoreImporter.Progress) -> Void
    ) throws(PFError) {
        guard !batch.isEmpty else { return }
        let count = batch.count
        if let writeBehind {
            let destination = Handoff(value: writer)
            let objects = batch
            batch = []
            batch.reserveCapacity(options.batchSize)
            // Released on the write thread once written (WriteBehind).
            try writeBehind.submit(objects) { objects throws(PFError) in
                try destination.value.write(objects, className: className)
            }
        } else {
            try writer.write(batch, className: className)
            batch.removeAll(keepingCapacity: true)
        }
        report.objectsPerClass[className, default: 0] += count
        objectsDone += count
        progress(StoreImporter.Progress(current: className, objectsDone: objectsDone, objectsEstimated: estimate))
    }

    mutating func flush(
        _ rows: inout [ParseJoinRow], relation: ParseRelationKey, to writer: any ObjectStoreWriter,
        progress: (StoreImporter.Progress) -> Void
    ) throws(PFError) {
        guard !rows.isEmpty else { return }
        let count = rows.count
        if let writeBehind {
            let destination = Handoff(value: writer)
            let written = rows
            rows = []
            try writeBehind.submit(written) { rows throws(PFError) in
                try destination.value.write(rows, relation: relation)
            }
        } else {
            try writer.write(rows, relation: relation)
            rows.removeAll(keepingCapacity: true)
        }
        report.relationRows[relation.joinClassName, default: 0] += count
        progress(StoreImporter.Progress(current: relation.joinClassName, objectsDone: objectsDone, objectsEstimated: estimate))
    }

    // MARK: Checks

    mutating func check(_ object: ParseObject) {
        if let id = object.objectId {
            if !seenInClass.insert(Self.fingerprint(id)).inserted {
                report.duplicateObjectIds += 1
            }
        }
        let id = object.objectId ?? ""
        var indices: [Int] = []
        // By index, and only the values that may hold a pointer (iterating the dictionary
        // copies each key and value: a retain and a release per field). The stored fields:
        // a prepared value never holds a pointer (``PFParse/ParsePreparedValue``).
        let fields = object.storedFields
        for i in fields.values.indices {
            switch fields.values[i] {
            case .pointer, .array:
                collectPointers(fields.values[i], key: fields.keys[i], indices: &indices, className: object.className, objectId: id)
            default:
                continue
            }
        }
    }

    /// Finds the pointers of a field (and of arrays in it, to depth 8). The key of a pointer
    /// inside arrays (`players[2]`) is spelled only when one is found.
    mutating func collectPointers(
        _ value: ParseValue, key: String, indices: inout [Int], className: String, objectId: String
    ) {
        switch value {
        case .pointer(let target):
            let path = indices.isEmpty ? key : key + indices.map { "[\($0)]" }.joined()
            let pointer = StoreImporter.DanglingPointer(className: className, objectId: objectId, key: path, target: target)
            if !sourceClasses.contains(target.className) {
                addDangling(pointer)
            } else if finished.contains(target.className) {
                if seen[target.className]?.contains(Self.fingerprint(target.objectId)) != true { addDangling(pointer) }
            } else {
                pending.append(pointer)
            }
        case .array(let items) where indices.count < 8:
            for (i, item) in items.enumerated() {
                switch item {
                case .pointer, .array:
                    indices.append(i)
                    collectPointers(item, key: key, indices: &indices, className: className, objectId: objectId)
                    indices.removeLast()
                default:
                    continue
                }
            }
        default:
            break
        }
    }

    mutating func resolvePending(finishedClass: String) {
        guard !pending.isEmpty else { return }
        var still: [StoreImporter.DanglingPointer] = []
        for pointer in pending {
            if pointer.target.className == finishedClass {
                if seen[finishedClass]?.contains(Self.fingerprint(pointer.target.objectId)) != true { addDangling(pointer) }
            } else {
                still.append(pointer)
            }
        }
        pending = still
    }

    mutating func addDangling(_ pointer: StoreImporter.DanglingPointer) {
        report.danglingPointerCount += 1
        if report.danglingPointers.count < options.maxListed { report.danglingPointers.append(pointer) }
    }

    mutating func reject(_ className: String, id: String?, _ reason: String) {
        report.rejectedCount += 1
        if report.rejected.count < options.maxListed {
            report.rejected.append(StoreImporter.RejectedRow(className: className, id: id, reason: reason))
        }
    }

    /// FNV-1a, 64 bits: stable across runs (Swift's `Hasher` is seeded per process). Over the
    /// string's contiguous bytes: stepping its generic UTF-8 view cost 3,500 instructions for
    /// an objectId of 10 bytes.
    static func fingerprint(_ id: String) -> UInt64 {
        var id = id
        return id.withUTF8 { StableHash.fnv1a($0) }
    }
}
