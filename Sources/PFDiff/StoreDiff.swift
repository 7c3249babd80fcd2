import Foundation
import OrderedCollections
import PFCBOR
import PFCore
import PFJSON
import PFParse
import PFStores

/// Compares two stores (any ``PFStores/ObjectStoreReader``: Parse exports, SQLite, keyed
/// archive stores, MongoDB/PostgreSQL shapes, Core Data) as sets of objects keyed by className
/// and objectId, relations as sets of join rows, and schemas field by field; a class one
/// store lacks that has neither objects nor fields is a difference of its own (`+ class Log`).
///
/// Memory stays bounded: each class of each store is read once, as a stream. While a class
/// holds no more than ``Options/objectsInMemory`` objects on either side its rows are compared
/// in memory; beyond that, both sides are spilled as JSON lines into
/// ``Options/partitions`` temporary files each, chosen by a hash of the objectId (FNV-1a), and
/// the files are compared pair by pair, so only one partition of one class is in memory at a
/// time. Join rows of each relation go the same way. The temporary files live in a fresh
/// directory under the system's temporary directory and are removed when the comparison ends.
public struct StoreDiff {
    /// How to compare.
    public struct Options: Sendable {
        /// How field values are compared; ``DiffOptions/ignore`` and ``DiffOptions/unordered``
        /// paths are relative to each object (`updatedAt`, `tags`).
        public var values = DiffOptions()
        /// The most objects of one class held in memory per side before spilling to files.
        public var objectsInMemory = 100_000
        /// How many files each side of a spilled class is split into.
        public var partitions = 64
        /// Whether schemas are compared too.
        public var compareSchemas = true
        /// Where the spill directory is made (default: the system's temporary directory).
        public var temporaryDirectory: URL?
        /// When both stores are Parse exports, compare rows by a digest of their bytes first
        /// and read only the rows that differ into objects (the result is the same; see
        /// Docs/Diff.md, "Speed"). Default on.
        public var comparesRows = true
        /// The most row digests of one class held in memory per side before spilling to files
        /// (when ``comparesRows`` applies).
        public var rowsInMemory = 1_000_000

        /// The defaults.
        public init() {
            values.parseTypedValues = true
        }
    }

    /// The counts of a finished comparison.
    public struct Summary: Sendable, Equatable {
        /// Differences of each kind.
        public var counts: [Difference.Kind: Int] = [:]
        /// Objects read from A and from B.
        public var objects = (a: 0, b: 0)

        /// The total number of differences.
        public var total: Int { counts.values.reduce(0, +) }

        public static func == (l: Summary, r: Summary) -> Bool { l.counts == r.counts && l.objects == r.objects }

        /// The summary line, as ``DiffResult/summary``.
        public var line: String {
            guard total > 0 else { return "no differences (\(objects.a) and \(objects.b) objects)" }
            let parts = Difference.Kind.allCases.compactMap { kind in counts[kind].map { "\($0) \(kind.rawValue)" } }
            return "\(total) difference\(total == 1 ? "" : "s"): " + parts.joined(separator: ", ")
        }
    }

    let a: any ObjectStoreReader
    let b: any ObjectStoreReader
    let options: Options
    let report: (Event) throws(PFError) -> Void
    var summary = Summary()

    /// What a comparison hands over as it goes.
    public enum Event: Sendable {
        /// One difference, for the text output.
        case difference(Difference)
        /// Patch operations turning A's document view into B's (`/<Class>/<objectId>/<field>`,
        /// `/<_Join:field:Class>/<owningId>,<relatedId>`, `/_SCHEMA/<Class>/<field>`).
        case patch([JSONPatch.Operation])
    }

    /// Compares two stores, handing each difference and the patch operations to `report` as
    /// they are found (see ``Event``).
    /// - Returns: the counts.
    /// - Throws: what the readers or `report` throw, or ``PFCore/PFError`` `io` when the spill
    ///   files cannot be written.
    public static func compare(
        _ a: any ObjectStoreReader, _ b: any ObjectStoreReader, options: Options = Options(),
        report: @escaping (Event) throws(PFError) -> Void
    ) throws(PFError) -> Summary {
        var diff = StoreDiff(a: a, b: b, options: options, report: report)
        try diff.run()
        return diff.summary
    }

    /// Compares two stores and collects every difference (for tests and small stores).
    public static func differences(_ a: any ObjectStoreReader, _ b: any ObjectStoreReader, options: Options = Options()) throws(PFError) -> [Difference] {
        var all: [Difference] = []
        _ = try compare(a, b, options: options) { event in
            if case .difference(let d) = event { all.append(d) }
        }
        return all
    }

    mutating func emit(_ d: Difference, _ ops: [JSONPatch.Operation]) throws(PFError) {
        summary.counts[d.kind, default: 0] += 1
        try report(.difference(d))
        if !ops.isEmpty { try report(.patch(ops)) }
    }

    /// Objects, then relations, then schemas: a store whose schema is inferred from its objects
    /// (an export without `_SCHEMA`) infers it while its objects are read, so comparing the
    /// schemas last costs no second pass over the data.
    mutating func run() throws(PFError) {
        let inA = OrderedSet(try a.classNames()), inB = OrderedSet(try b.classNames())
        var classes = inA
        classes.formUnion(inB)
        // Classes one store has and the other does not: their objects show as objects, and
        // the class itself (below, after the schemas) as its own line when it has none.
        var oneSided: [OneSidedClass] = []
        for className in classes.sorted() {
            let before = summary.objects
            try compareClass(className, inA: inA.contains(className), inB: inB.contains(className))
            if inA.contains(className) != inB.contains(className) {
                oneSided.append(OneSidedClass(name: className, inA: inA.contains(className), hasObjects: summary.objects != before))
            }
        }
        // A relation is its owning class and field: one store may know its target class and
        // the other not (an export without _SCHEMA.json names it by the join file only); the
        // schema comparison shows that, and the join rows are compared alike.
        var relations = OrderedDictionary<ParseRelationKey, (a: ParseRelationKey?, b: ParseRelationKey?)>()
        for relation in try a.relations() { relations[relation.untargeted, default: (nil, nil)].a = relation }
        for relation in try b.relations() { relations[relation.untargeted, default: (nil, nil)].b = relation }
        for key in relations.keys.sorted() {
            let sides = relations[key] ?? (nil, nil)
            try compareRelation(key, inA: sides.a, inB: sides.b)
        }
        let schemas = options.compareSchemas ? try compareSchemas() : nil
        for one in oneSided { try compareClassItself(one, schemas: schemas) }
    }

    /// A class in one store only.
    struct OneSidedClass {
        let name: String
        /// Whether A has it (else B).
        let inA: Bool
        /// Whether objects of it were read.
        let hasObjects: Bool
    }

    /// A class one store has and the other does not. Without objects (and, when schemas are
    /// compared, without fields) nothing else shows it: `- class Log` (in A only) or `+ class
    /// Log`. Whatever it holds, the patch removes it from A's view after its objects and
    /// fields (its `_SCHEMA` entry too, when A's schema has one), or adds it empty, so that
    /// patch(A, diff(A, B)) has B's classes.
    mutating func compareClassItself(_ one: OneSidedClass, schemas: (a: SchemaClasses, b: SchemaClasses)?) throws(PFError) {
        let name = one.name
        let fields = schemas.map { ((one.inA ? $0.a[name] : $0.b[name]) ?? [:]) } ?? [:]
        let shown = one.hasObjects || !fields.isEmpty
        if one.inA {
            var ops = [JSONPatch.Operation(.remove, pointer: JSONPointer(tokens: [name]))]
            let schemaPointer = JSONPointer(tokens: [StorePatch.schemaKey, name])
            if let schemas {
                if schemas.a[name] != nil, schemas.b[name] == nil { ops.append(.init(.remove, pointer: schemaPointer)) }
            } else {
                // Schemas not read (--no-schema): A's view may hold the class's `_SCHEMA` entry,
                // which would make it again; `add` then `remove` takes it away either way.
                ops += [.init(.add, pointer: schemaPointer, value: .dictionary([:])), .init(.remove, pointer: schemaPointer)]
            }
            if shown {
                try report(.patch(ops))
            } else {
                try emit(Difference(.removed, subject: "class \(name)"), ops)
            }
        } else if !shown {
            try emit(Difference(.added, subject: "class \(name)"), [.init(.add, pointer: JSONPointer(tokens: [name]), value: .dictionary([:]))])
        }
    }

    /// Each class's fields, by class name.
    typealias SchemaClasses = OrderedDictionary<String, OrderedDictionary<String, ParseSchema.Field>>

    // MARK: - Schemas

    /// Compares the schemas field by field; returns both, for the classes in one store only.
    @discardableResult
    mutating func compareSchemas() throws(PFError) -> (a: SchemaClasses, b: SchemaClasses) {
        let sa = try a.schema().classes, sb = try b.schema().classes
        var names = OrderedSet(sa.keys)
        names.formUnion(sb.keys)
        for name in names.sorted() {
            let subject = "schema \(name)"
            let fa = sa[name] ?? [:], fb = sb[name] ?? [:]
            var fields = OrderedSet(fa.keys)
            fields.formUnion(fb.keys)
            for field in fields.sorted() {
                let path = PFKeyPath([.key(field)])
                let pointer = JSONPointer(tokens: ["_SCHEMA", name, field])
                switch (fa[field], fb[field]) {
                case (let x?, nil):
                    try emit(Difference(.removed, subject: subject, path: path, old: .string(x.description)), [.init(.remove, pointer: pointer)])
                case (nil, let y?):
                    try emit(Difference(.added, subject: subject, path: path, new: .string(y.description)), [.init(.add, pointer: pointer, value: .string(y.description))])
                case (let x?, let y?) where x != y && !Self.learnedTarget(x, y):
                    try emit(Difference(.changed, subject: subject, path: path, old: .string(x.description), new: .string(y.description)),
                        [.init(.replace, pointer: pointer, value: .string(y.description))])
                default: break
                }
            }
        }
        return (sa, sb)
    }

    /// Whether the second field is the first with the target class the first did not know: a
    /// Relation whose target an import inferred from its related ids (an export without
    /// `_SCHEMA.json` names a relation by its join file only). Nothing is lost, so it is no
    /// difference; the other way (a target lost) is one.
    static func learnedTarget(_ x: ParseSchema.Field, _ y: ParseSchema.Field) -> Bool {
        x.type == .relation && y.type == .relation && x.targetClass == nil && y.targetClass != nil
    }

    // MARK: - Objects

    /// Compares one class; a store without the class has none of its objects (it is not
    /// asked for them: an SQLite database, a Core Data store or a Realm file refuses a class
    /// it does not have).
    mutating func compareClass(_ className: String, inA: Bool = true, inB: Bool = true) throws(PFError) {
        var sideA = Partitioner(options: options)
        var sideB = Partitioner(options: options)
        defer { sideA.discard(); sideB.discard() }
        let before = summary.objects
        if let exports = try rowExports(), try readRows(className, of: exports, into: &sideA, &sideB) {
            // Compared row by row.
        } else {
            // Object by object (also when a side repeats an objectId, which the rows do not show).
            sideA.discard()
            sideB.discard()
            sideA = Partitioner(options: options)
            sideB = Partitioner(options: options)
            summary.objects = before
            if inA { summary.objects.a += try Self.read(className, of: a, into: &sideA) }
            if inB { summary.objects.b += try Self.read(className, of: b, into: &sideB) }
        }
        try Partitioner.pair(&sideA, &sideB) { (key: String, x: PFValue?, y: PFValue?) throws(PFError) in
            let subject = "\(className)/\(key)"
            let pointer = JSONPointer(tokens: [className, key])
            switch (x, y) {
            case (_?, nil):
                try emit(Difference(.removed, subject: subject), [.init(.remove, pointer: pointer)])
            case (nil, let y?):
                try emit(Difference(.added, subject: subject), [.init(.add, pointer: pointer, value: y)])
            case (let x?, let y?):
                let result = ValueDiff.compare(x, y, options: options.values)
                for d in result.differences {
                    var d = d
                    d.subject = subject
                    try emit(d, [])
                }
                if !result.patch.operations.isEmpty {
                    // The object's operations, re-rooted at /<Class>/<objectId>.
                    let ops = result.patch.operations.map { op in
                        var op = op
                        op.path = JSONPointer(tokens: pointer.tokens + op.path.tokens)
                        op.from = op.from.map { JSONPointer(tokens: pointer.tokens + $0.tokens) }
                        return op
                    }
                    try report(.patch(ops))
                }
            default: break
            }
        }
        // A store holding one objectId twice holds an object the other may not: each earlier
        // copy is a difference of its own (the last copy is the one compared above).
        for (side, kind, repeats) in [("A", Difference.Kind.removed, sideA.repeated), ("B", .added, sideB.repeated)] {
            for (key, bytes) in repeats {
                let value = try Partitioner.decoded(bytes)
                let subject = "\(className)/\(key) (an earlier object of this objectId in \(side))"
                try emit(Difference(kind, subject: subject, old: kind == .removed ? value : nil, new: kind == .added ? value : nil), [])
            }
        }
    }

    /// Reads one class of a store into one side, each object encoded (``value(of:)``, then
    /// ``Partitioner/encoded(_:)``) on the ordered parallel map in batches while the store
    /// reads on; returns how many objects it held.
    static func read(_ className: String, of store: any ObjectStoreReader, into side: inout Partitioner) throws(PFError) -> Int {
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4))
        let encoder = OrderedParallelMap<[ParseObject], [(String?, Data)], PFError>(workers: workers) { batch throws(PFError) in
            var out: [(String?, Data)] = []
            out.reserveCapacity(batch.count)
            for object in batch { out.append((object.objectId, try Partitioner.encoded(value(of: object)))) }
            return out
        }
        var counter = 0
        func deliver(_ encoded: [(String?, Data)]) throws(PFError) {
            for (id, bytes) in encoded {
                counter += 1
                try side.add(key: id ?? "(no objectId #\(counter))", bytes: bytes)
            }
        }
        var batch: [ParseObject] = []
        batch.reserveCapacity(512)
        do {
            try store.forEachObject(in: className) { (object: ParseObject) throws(PFError) in
                batch.append(object)
                if batch.count == 512 {
                    try encoder.submit(batch, deliver: deliver)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            if !batch.isEmpty { try encoder.submit(batch, deliver: deliver) }
            try encoder.finish(deliver: deliver)
        } catch {
            encoder.cancel()
            throw error
        }
        return counter
    }

    /// An object's compared value: its typed JSON without `objectId` and `className` (the
    /// key and the class compared already; a source that kept `className` among a row's
    /// members, as Core Data's reader does, is not different for it), fields in the order of
    /// their UTF-8 bytes so that the same object read from two stores (whose field orders
    /// differ) encodes to the same bytes. A Relation field is left out: its value
    /// (`{"__type": "Relation", "className": …}`) says only what the schema says, and stores
    /// differ in whether rows carry it (Parse.com's exports leave it out, Parse Server's
    /// MongoDB shape puts it in); the relation is compared by its join rows and the schema.
    static func value(of object: ParseObject) -> PFValue {
        guard case .dictionary(let m) = object.encoded(style: .typed) else { return .null }
        var fields = m.elements.filter { field in
            if field.key == "objectId" || field.key == "className" { return false }
            if case .dictionary(let d) = field.value, d["__type"] == .string("Relation") { return false }
            return true
        }
        fields.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        return .dictionary(OrderedDictionary(uncheckedUniqueKeysWithValues: fields))
    }

    // MARK: - Relations

    /// Compares one relation's join rows: `relation` names it (its owning class and field),
    /// `inA` and `inB` are the relation as each store knows it (with or without its target
    /// class), `nil` where a store does not have it.
    mutating func compareRelation(_ relation: ParseRelationKey, inA: ParseRelationKey?, inB: ParseRelationKey?) throws(PFError) {
        var sideA = Partitioner(options: options)
        var sideB = Partitioner(options: options)
        defer { sideA.discard(); sideB.discard() }
        if let inA {
            try a.forEachJoinRow(of: inA) { (row: ParseJoinRow) throws(PFError) in try sideA.add(key: "\(row.owningId),\(row.relatedId)", value: .bool(true)) }
        }
        if let inB {
            try b.forEachJoinRow(of: inB) { (row: ParseJoinRow) throws(PFError) in try sideB.add(key: "\(row.owningId),\(row.relatedId)", value: .bool(true)) }
        }
        try Partitioner.pair(&sideA, &sideB) { (key: String, x: PFValue?, y: PFValue?) throws(PFError) in
            let pair = key.split(separator: ",", maxSplits: 1).joined(separator: ", ")
            let subject = "\(relation.joinClassName) (\(pair))"
            let pointer = JSONPointer(tokens: [relation.joinClassName, key])
            if x != nil, y == nil {
                try emit(Difference(.removed, subject: subject), [.init(.remove, pointer: pointer)])
            } else if x == nil, y != nil {
                try emit(Difference(.added, subject: subject), [.init(.add, pointer: pointer, value: .bool(true))])
            }
        }
    }
}

/// Holds one side of one class, each object as the CBOR encoding of its compared value (exact:
/// dates, integers and doubles keep every bit, unlike JSON text): in memory while small, spilled
/// to hash-partitioned files beyond ``StoreDiff/Options/objectsInMemory``. Equal encodings are
/// equal values, so the objects two stores hold alike (almost all of them, when a comparison
/// proves a conversion) are compared by their bytes and never decoded again.
struct Partitioner {
    let options: StoreDiff.Options
    var memory: [String: Data] = [:]
    var directory: URL?
    var buffers: [[UInt8]] = []
    /// Keys added more than once (an export or dump holding two objects of one objectId), each
    /// with the earlier copy the later one replaced, found as they are added (in memory) or
    /// read back (spilled).
    var repeated: [(key: String, bytes: Data)] = []
    static let writer = CBORWriter()
    static let reader = CBORReader()

    init(options: StoreDiff.Options) { self.options = options }

    var spilled: Bool { directory != nil }

    /// The bytes ``add(key:value:)`` keeps of a value.
    static func encoded(_ value: PFValue) throws(PFError) -> Data { try writer.write(value) }

    /// A value ``add(key:value:)`` kept, decoded again.
    static func decoded(_ bytes: Data) throws(PFError) -> PFValue { try reader.read(bytes) }

    mutating func add(key: String, value: PFValue) throws(PFError) {
        try add(key: key, bytes: try Self.encoded(value))
    }

    /// Keeps an object's bytes (``encoded(_:)`` of its value).
    mutating func add(key: String, bytes: Data) throws(PFError) {
        if !spilled {
            if let earlier = memory.updateValue(bytes, forKey: key) { repeated.append((key, earlier)) }
            if memory.count > max(1, options.objectsInMemory) { try spill() }
            return
        }
        try write(key: key, bytes: bytes)
    }

    static func partition(of key: String, count: Int) -> Int {
        Int(StableHash.fnv1a(key.utf8) % UInt64(max(1, count)))
    }

    mutating func spill() throws(PFError) {
        let base = options.temporaryDirectory ?? FileManager.default.temporaryDirectory
        let dir = base.appendingPathComponent("pfarchive-diff-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: false)
            for i in 0..<max(1, options.partitions) {
                _ = FileManager.default.createFile(atPath: dir.appendingPathComponent("\(i).part").path, contents: nil)
            }
        } catch {
            throw PFError(DiffFailure.spillDirectory(path: base.path, reason: error.localizedDescription), format: .diff)
        }
        directory = dir
        buffers = Array(repeating: [], count: max(1, options.partitions))
        let held = memory
        memory = [:]
        for (key, bytes) in held { try write(key: key, bytes: bytes) }
    }

    /// Appends one record to its partition: the key's and the value's byte counts (32-bit,
    /// little-endian), then their bytes.
    mutating func write(key: String, bytes: Data) throws(PFError) {
        let p = Partitioner.partition(of: key, count: buffers.count)
        for field in [Data(key.utf8), bytes] {
            guard let n = UInt32(exactly: field.count) else {
                throw PFError(DiffFailure.objectTooLarge(bytes: field.count), format: .diff)
            }
            withUnsafeBytes(of: n.littleEndian) { buffers[p].append(contentsOf: $0) }
            buffers[p].append(contentsOf: field)
        }
        if buffers[p].count > 256 * 1024 { try flush(p) }
    }

    mutating func flush(_ p: Int) throws(PFError) {
        guard let directory, !buffers[p].isEmpty else { return }
        let url = directory.appendingPathComponent("\(p).part")
        do {
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: buffers[p])
        } catch {
            throw PFError(DiffFailure.spillWrite(path: url.path, reason: error.localizedDescription), format: .diff)
        }
        buffers[p].removeAll(keepingCapacity: true)
    }

    /// Partition `p`'s records, read back.
    mutating func load(_ p: Int) throws(PFError) -> [String: Data] {
        guard let directory else { return p == 0 ? memory : [:] }
        try flush(p)
        let url = directory.appendingPathComponent("\(p).part")
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw PFError(DiffFailure.spillRead(path: url.path, reason: error.localizedDescription), format: .diff)
        }
        try? FileManager.default.removeItem(at: url)
        let bytes = [UInt8](data)
        var out: [String: Data] = [:]
        var i = 0
        func length() throws(PFError) -> Int {
            guard bytes.count - i >= 4 else { throw PFError(DiffFailure.spillCutShort(path: url.path), format: .diff) }
            let n = Int(bytes[i]) | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2]) << 16 | Int(bytes[i + 3]) << 24
            i += 4
            guard bytes.count - i >= n else { throw PFError(DiffFailure.spillCutShort(path: url.path), format: .diff) }
            return n
        }
        while i < bytes.count {
            let keyCount = try length()
            let key = String(decoding: bytes[i..<i + keyCount], as: UTF8.self)
            i += keyCount
            let valueCount = try length()
            if let earlier = out.updateValue(Data(bytes[i..<i + valueCount]), forKey: key) { repeated.append((key, earlier)) }
            i += valueCount
        }
        return out
    }

    func discard() {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// Calls `body` for every key of either side whose values differ (equal bytes are equal
    /// values), partition by partition, keys sorted within one, with both values decoded.
    static func pair(
        _ x: inout Partitioner, _ y: inout Partitioner, _ body: (String, PFValue?, PFValue?) throws(PFError) -> Void
    ) throws(PFError) {
        // Both sides use the same partitioning: spill the other side too when one spilled.
        if x.spilled, !y.spilled { try y.spill() }
        if y.spilled, !x.spilled { try x.spill() }
        let count = x.spilled ? max(1, x.options.partitions) : 1
        for p in 0..<count {
            let left = try x.load(p)
            let right = try y.load(p)
            var keys = Set(left.keys)
            keys.formUnion(right.keys)
            for key in keys.sorted() {
                let l = left[key], r = right[key]
                if let l, let r, l == r { continue }
                try body(key, try l.map(decoded), try r.map(decoded))
            }
        }
    }
}
