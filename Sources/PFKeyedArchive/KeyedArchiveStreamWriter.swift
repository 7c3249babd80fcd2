import Foundation
import OrderedCollections
import PFCore
import PFPropertyList

/// Writes a keyed archive (in a binary property list) of a document of records — the
/// archive `pfarchive convert --to keyed` makes of a JSON array or `{"results":[…]}` wrapper
/// — a record at a time, in memory bounded by the largest record plus a few bytes per
/// object, instead of the graph, object table and tree the whole route holds.
///
/// Each record becomes keyed objects by the whole route's own code (the JSON form's graph
/// builder, then ``KeyedGraph``'s object encoder), and each object goes straight to a
/// ``PFPropertyList/BinaryPlistStreamWriter`` as it is made; only its object number is kept
/// (the `$objects` array's entry, as a difference from the one before: about a byte). The records' `NSArray` (inside the
/// results wrapper's `NSDictionary`, with its other members), `$objects`, `$top` and the
/// archive's top dictionary come last, and the trailer names that dictionary as the top object.
///
/// Sharing: the whole route stores each distinct string, number and data once, whatever the
/// archive's size. Here a scalar is shared when the property-list writer shares its encoding
/// (short ones, up to its table's bound), and so are short UIDs: class and key references
/// recur in every object. So is a short array or dictionary whose children are all shared
/// (an empty `NS.keys`, the dictionary of an empty `NSDictionary`): objects of equal contents
/// stay distinct objects, each its own UID in `$objects`, and those entries name one
/// property-list object, as every reader allows. The archive reads back (pfarchive, Foundation's
/// `NSKeyedUnarchiver`, the Python decoders) to the whole route's value; its bytes differ.
///
/// ```swift
/// let writer = KeyedArchiveStreamWriter(objectBound: 8 * input.count)
/// for record in records { try writer.appendRecord(record, depth: 1) }
/// try writer.finish(results: nil) { bytes in file.write(Data(bytes)) }
/// ```
public final class KeyedArchiveStreamWriter {
    /// Where the archive's bytes are handed off, a mebibyte or so at a time.
    public typealias Output = BinaryPlistStreamWriter.Output

    /// The most scalars (and UIDs) shared across records. Fewer than a plain property list
    /// shares: what recurs (keys, class references, a field's few values) is met in the first
    /// records, and a scalar shared here keeps its UID as well (another 8 bytes).
    public static let maxSharedScalars = 1 << 16

    let limits: PFLimits
    var plist: BinaryPlistStreamWriter
    /// Bytes not handed off yet.
    var buffer: [UInt8] = []
    /// Each object's number in the property list, by its UID, for the UIDs below
    /// `settled.count`: objects are reserved in UID order and numbered as they are written,
    /// so the numbers mostly rise (about a byte each).
    var settled = DeltaList()
    /// The numbers of the objects from UID `settled.count` on, `-1` while reserved: those of
    /// the record being archived, filled in any order.
    var unsettled: [Int] = []
    /// `settled.count`, kept apart (a class's stored property costs an access check per use).
    var settledCount = 0
    /// The objects reserved so far.
    var objectCount = 1
    /// Whether `$null`, object 0, is written.
    var wroteNullMarker = false
    /// The records' UIDs, in order.
    var recordUIDs = DeltaList()
    var classUIDs: [ArchivedClass: UInt64] = [:]
    var nullObjectUID: UInt64?
    /// The UID of each scalar the property-list writer shares, by its object number.
    var sharedUIDs: [UInt32: UInt32] = [:]
    /// Graph nodes made so far (they count against `maxNodes` together, as in one graph).
    var nodes = 0
    /// The `$id`s records defined so far.
    var ids: Set<Int64> = []
    /// The large containers open around the next member, outermost first, when a document
    /// that is not records is archived piece by piece (``openContainer(isObject:count:depth:)``).
    var containers: [KeyedLargeContainer] = []

    /// Makes a writer.
    /// - Parameters:
    ///   - limits: `maxDepth` and `maxNodes` of the records' graphs, and `maxNodes` of the
    ///     archive's objects, as in the whole route.
    ///   - objectBound: the most property-list objects the archive may hold (it fixes the
    ///     reference width; see ``PFPropertyList/BinaryPlistStreamWriter/init(options:objectBound:sharesUIDs:)``).
    public init(limits: PFLimits = .default, objectBound: Int) {
        self.limits = limits
        plist = BinaryPlistStreamWriter(
            objectBound: objectBound, sharesUIDs: true, maxSharedScalars: Self.maxSharedScalars, sharesContainers: true)
        buffer.reserveCapacity(1 << 20 + 1 << 16)
        unsettled.append(-1)
    }

    /// The records appended so far.
    public var recordCount: Int { recordUIDs.count }

    /// Archives one record and writes its objects.
    /// - Parameters:
    ///   - record: the record, as the JSON form of a graph (``KeyedGraph/init(json:limits:)``).
    ///   - depth: its depth in the document (1 in an array, 2 in a results wrapper).
    /// - Throws: ``PFCore/PFError`` as ``KeyedGraph/init(json:limits:)`` and
    ///   ``KeyedGraph/objectTable(limits:)`` do, with the path inside the record;
    ///   ``KeyedArchiveFailure/idAcrossRecords(_:)`` when a `$id` ties it to an earlier
    ///   record; ``PFPropertyList/BinaryPlistFailure/tooManyObjects(objectRefSize:)`` past the
    ///   object bound.
    public func appendRecord(_ record: PFValue, depth: Int) throws(PFError) {
        try writeNullMarker()
        let uid = try archive(record, depth: depth, path: .root)
        guard uid <= UInt64(UInt32.max) else { throw PFError(BinaryPlistFailure.unwritableUID(uid), format: .bplist, path: .root) }
        recordUIDs.append(Int(uid))
        settle()
    }

    /// Writes `$null`, object 0, unless it is written.
    func writeNullMarker() throws(PFError) {
        guard !wroteNullMarker else { return }
        place(0, try plist.write(.string(KeyedObjectTable.nullMarker), depth: 2, into: &buffer))
        wroteNullMarker = true
    }

    /// Moves the numbers of the objects written, from the lowest UID up to the first object
    /// still reserved, to `settled`.
    func settle() {
        let count = unsettled.count
        var filled = 0
        unsettled.withUnsafeBufferPointer { numbers in
            while filled < count, numbers[filled] >= 0 {
                settled.append(numbers[filled])
                filled += 1
            }
        }
        settledCount += filled
        if filled == count {
            unsettled.removeLast(count)
        } else {
            unsettled.removeSubrange(..<filled)
        }
    }

    /// Archives a value of the document (a record or a wrapper's member) and returns its reference.
    func archive(_ value: PFValue, depth: Int, path: PFCodingPath) throws(PFError) -> UInt64 {
        var builder = GraphBuilder(limits: limits)
        builder.nodeBase = nodes
        builder.earlierIDs = ids
        let root = try builder.value(value, depth: depth, path: path)
        nodes += builder.nodes.count
        for id in builder.ids.keys { ids.insert(id) }
        var encoder = GraphEncoder(graph: KeyedGraph(nodes: builder.nodes), builder: self)
        let uid = try encoder.reference(root)
        try encoder.drain()
        return uid
    }

    /// Hands off the bytes gathered, once there is a mebibyte of them (or `force`).
    /// - Throws: what `write` throws.
    public func flush(_ write: Output, force: Bool = false) throws(PFError) {
        guard !buffer.isEmpty, force || buffer.count >= 1 << 20 else { return }
        try buffer.withBytes { raw throws(PFError) in try write(raw) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes the archive's root — the records' `NSArray`, or the results wrapper's
    /// `NSDictionary` holding it under `results` with the wrapper's other members — then
    /// `$objects`, `$top`, the top dictionary, the offset table and the trailer, and hands
    /// everything to `write`.
    /// - Parameters:
    ///   - results: the wrapper's other members when the records were a results wrapper's
    ///     (empty when it had none); `nil` for an array.
    ///   - write: receives the rest of the archive.
    /// - Throws: as ``appendRecord(_:depth:)``, with the member's key in the path.
    public func finish(results: OrderedDictionary<String, PFValue>?, write: Output) throws(PFError) {
        try writeNullMarker()
        let arrayUID = try writeArrayObject(recordUIDs, write: write)
        var root = arrayUID
        if let others = results {
            // The wrapper's NSDictionary, its keys and values in the document's order.
            var keyUIDs: [PFValue] = [.uid(try scalarReference(.string("results")))]
            var valueUIDs: [PFValue] = [.uid(arrayUID)]
            for (key, value) in others {
                do throws(PFError) {
                    keyUIDs.append(.uid(try scalarReference(.string(KeyedGraph.unescape(key)))))
                    valueUIDs.append(.uid(try archive(value, depth: 1, path: .root)))
                } catch {
                    throw error.prefixed(.key(key))
                }
            }
            root = try reserve()
            try fill(root, with: ["NS.keys": .array(keyUIDs), "NS.objects": .array(valueUIDs)], class: .foundation("NSDictionary"))
        }
        try finish(root: root, write: write)
    }

    /// Writes `$objects`, `$top` naming `root`, the top dictionary, the offset table and the
    /// trailer, and hands everything to `write`.
    func finish(root: UInt64, write: Output) throws(PFError) {
        settle()
        precondition(unsettled.isEmpty, "Every object reserved is written before $objects.")
        let objects = try plist.writeArray(count: settled.count, refs: settled, into: &buffer, flush: write)
        let top = try plist.write(.dictionary([KeyedObjectTable.rootKey: .uid(root)]), depth: 1, into: &buffer)
        // The top dictionary, with the whole route's keys in its order.
        var topKeys: [Int] = []
        var topValues: [Int] = []
        for key in ["$version", "$archiver", "$top", "$objects"] { topKeys.append(try plist.write(.string(key), depth: 1, into: &buffer)) }
        topValues.append(try plist.write(.int(KeyedObjectTable.archiveVersion), depth: 1, into: &buffer))
        topValues.append(try plist.write(.string(KeyedObjectTable.archiverName), depth: 1, into: &buffer))
        topValues.append(top)
        topValues.append(objects)
        let archive = try plist.writeDictionary(keys: topKeys, values: topValues, into: &buffer)
        try plist.finish(root: archive, into: &buffer, flush: write)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes an `NSArray` of objects already archived, its `NS.objects` references written
    /// straight from `uids` (each a UID object, then the array of them), and returns its UID.
    func writeArrayObject(_ uids: DeltaList, write: Output) throws(PFError) -> UInt64 {
        try writeCollectionObject("NSArray", [("NS.objects", uids)], write: write)
    }

    /// Writes a Foundation collection (`NSArray`: `NS.objects`; `NSDictionary`: `NS.keys`,
    /// `NS.objects`) whose fields are arrays of UIDs kept in `DeltaList`s, never as values,
    /// then its `$class`; returns its UID.
    func writeCollectionObject(_ className: String, _ fields: [(name: String, uids: DeltaList)], write: Output) throws(PFError) -> UInt64 {
        let uid = try reserve()
        var keys: [Int] = []
        var values: [Int] = []
        for field in fields {
            values.append(try writeUIDArray(field.uids, write: write))
            keys.append(try plist.write(.string(field.name), depth: 2, into: &buffer))
        }
        keys.append(try plist.write(.string("$class"), depth: 2, into: &buffer))
        values.append(try plist.write(.uid(try classReference(.foundation(className))), depth: 3, into: &buffer))
        place(uid, try plist.writeDictionary(keys: keys, values: values, into: &buffer))
        return uid
    }

    /// Writes the UID objects of `uids` and the property-list array of them; returns the
    /// array's object number.
    func writeUIDArray(_ uids: DeltaList, write: Output) throws(PFError) -> Int {
        let count = uids.count
        let first = try plist.writeUIDs(count: count, uids: uids, into: &buffer, flush: write)
        return try plist.writeArray(count: count, refs: first..<(first + count), into: &buffer, flush: write)
    }

    /// Keeps an object's number under its UID (reserved and not yet settled).
    func place(_ uid: UInt64, _ number: Int) {
        let index = Int(uid) - settledCount
        precondition(index >= 0 && index < unsettled.count, "An object is written once, after it is reserved.")
        unsettled[index] = number
    }
}

// MARK: - Objects

extension KeyedArchiveStreamWriter: KeyedObjectWriting {
    func reserve() throws(PFError) -> UInt64 {
        guard objectCount < limits.maxNodes else {
            throw PFLimits.exceeded("maxNodes", limits.maxNodes, format: .keyedArchive)
        }
        unsettled.append(-1)
        objectCount += 1
        return UInt64(objectCount - 1)
    }

    func fill(_ uid: UInt64, with fields: OrderedDictionary<String, PFValue>, class archivedClass: ArchivedClass) throws(PFError) {
        var object = fields
        object["$class"] = .uid(try classReference(archivedClass))
        place(uid, try plist.write(.dictionary(object), depth: 1, into: &buffer))
    }

    /// The reference to a class dictionary, written on first use.
    func classReference(_ archivedClass: ArchivedClass) throws(PFError) -> UInt64 {
        if let uid = classUIDs[archivedClass] { return uid }
        let uid = try reserve()
        place(uid, try plist.write(ObjectTableBuilder.classDictionary(archivedClass), depth: 1, into: &buffer))
        classUIDs[archivedClass] = uid
        return uid
    }

    func scalarReference(_ value: PFValue) throws(PFError) -> UInt64 {
        precondition(!value.isContainer, "Only scalars are stored in place in the object table.")
        let known = plist.objectCount
        let kept = plist.sharedScalarCount
        let number = try plist.write(value, depth: 1, into: &buffer)
        // A number below `known` is an object the property-list writer shared: its UID too,
        // once it has one.
        let key = UInt32(truncatingIfNeeded: number)
        if number < known, let uid = sharedUIDs[key] { return UInt64(uid) }
        let uid = try reserve()
        place(uid, number)
        if number < known || plist.sharedScalarCount > kept, sharedUIDs.count < Self.maxSharedScalars,
            let small = UInt32(exactly: uid)
        {
            sharedUIDs[key] = small
        }
        return uid
    }

    func dateReference(_ date: Date) throws(PFError) -> UInt64 {
        let uid = try reserve()
        try fill(uid, with: ["NS.time": .double(date.timeIntervalSinceReferenceDate)], class: .foundation("NSDate"))
        return uid
    }

    func nullObjectReference() throws(PFError) -> UInt64 {
        if let nullObjectUID { return nullObjectUID }
        let uid = try reserve()
        try fill(uid, with: [:], class: .foundation("NSNull"))
        nullObjectUID = uid
        return uid
    }
}
