import Foundation
import PFCore
import PFParse
import PFStores
import Synchronization

// MARK: - Two Parse exports: rows compared as written

extension StoreDiff {
    /// Both stores when they are Parse exports whose rows stand for their objects (and
    /// ``Options/comparesRows`` is on), otherwise `nil`.
    func rowExports() throws(PFError) -> (ParseExportStore, ParseExportStore)? {
        guard options.comparesRows, let x = a as? ParseExportStore, let y = b as? ParseExportStore,
            try x.rowsAreObjects(), try y.rowsAreObjects()
        else { return nil }
        return (x, y)
    }

    /// Fills both sides of a class with what ``compareClass(_:inA:inB:)`` compares, reading the
    /// objects of only the rows that can differ.
    ///
    /// 1. A's rows are read as JSON but not decoded: a row becomes its key (its objectId, as
    ///    ``read(_:of:into:)`` makes it), a 128-bit digest of its bytes
    ///    (``PFStores/ParseExportStore/RowDigest``) and its place in the file, held by key
    ///    (``RowIndex``; a key seen twice keeps its last row, as ``Partitioner`` does).
    /// 2. B's rows are read the same way and looked up in A's index in file order: equal
    ///    digests are equal rows, hence equal objects, and are done with. When A's class is a
    ///    file of its own (an export directory), B is read after A's index is built and each of
    ///    B's rows is first compared byte for byte with A's row where it is expected
    ///    (``RowMatcher``; not once A's index spilled): a row that is the same is summarised as
    ///    A's was, without being read as JSON again. Otherwise (a zip) B is read on another
    ///    thread while A's index is built (``RowPass``). A key only in A is removed (its value
    ///    is never shown); a key only in B, or whose digests differ, names a row to read.
    ///    Beyond ``Options/rowsInMemory`` keys, both indexes are spilled to hash-partitioned
    ///    files as ``Partitioner`` spills objects and paired partition by partition instead.
    /// 3. The rows named are read into objects (at their offsets) and go into `sideA` and
    ///    `sideB` exactly as ``read(_:of:into:)`` puts them, so ``Partitioner/pair(_:_:_:)``
    ///    finds the same differences in the same order: rows that differ only in key order,
    ///    spacing or the spelling of a date are equal there.
    /// - Returns: `false`, with the sides not filled, when a side holds an objectId in two
    ///   rows: the caller compares that class object by object instead, which names each
    ///   earlier row (a key seen twice keeps only its last row here).
    mutating func readRows(
        _ className: String, of exports: (ParseExportStore, ParseExportStore), into sideA: inout Partitioner,
        _ sideB: inout Partitioner
    ) throws(PFError) -> Bool {
        let before = summary.objects
        var indexA = RowIndex(options: options)
        var indexB = RowIndex(options: options)
        defer { indexA.discard(); indexB.discard() }
        var readA: [RowIndex.Row] = []
        var readB: [RowIndex.Row] = []
        let removed = try Partitioner.encoded(.null)
        var keys = (a: 0, b: 0)
        // B's rows are recognised as A's where A's file can be read again; otherwise they are
        // summarised on a thread of their own while A's index is built here.
        let pathA = try exports.0.classFilePath(of: className)
        // What A's file is before its rows are read: the matcher reads the same file, or none.
        let fileA = pathA.flatMap(RowMatcher.FileState.init(path:))
        let passB = pathA == nil ? try RowPass(exports.1, className, limit: max(1, options.rowsInMemory)) : nil
        do {
            summary.objects.a += try indexA.read(className, of: exports.0)
        } catch {
            passB?.cancel()
            throw error
        }
        // nil when B holds more rows than are kept, or was not read yet: B is read here, as it comes.
        let rowsB = try passB?.finish()
        if indexA.files == nil {
            // A is in memory: B's rows are looked up in order, only the others kept; held
            // rows are looked up on two threads at once, each taking the keys of one half of
            // the hashes (so each of A's keys, and all of B's rows with it, are one thread's).
            var lookups: [RowLookup] = []
            if let rowsB {
                summary.objects.b += rowsB.count
                lookups = RowLookup.run(rowsB, in: indexA.memory, parts: min(2, max(1, exports.0.options.workers)))
            } else {
                var lookup = RowLookup(count: indexA.memory.count, part: 0, parts: 1)
                let matcher = pathA.flatMap { path in fileA.flatMap { RowMatcher(path: path, table: indexA.memory, expecting: $0) } }
                let recognizer = matcher?.recognizer(shapes: exports.0.rowShapes(of: className))
                try exports.1.forEachRow(in: className, recognizing: recognizer) { (row: ParseExportStore.RowSummary) throws(PFError) in
                    summary.objects.b += 1
                    let key = row.objectId ?? RowIndex.unnamed(row.location.index)
                    let found = lookup.add(key, hash: RowIndex.hash(key), RowIndex.Row(location: row.location, digest: row.digest), in: indexA.memory)
                    if let found { matcher?.found(found, at: row.location.index) }
                }
                try matcher?.checkUnchanged()
                lookups = [lookup]
            }
            keys.a = indexA.memory.count
            keys.b = lookups.reduce(0) { $0 + $1.onlyB.count }
            for (n, entry) in indexA.memory.entries.enumerated() {
                let record = entry.value
                var match = RowIndex.Record.Match.none
                var other: RowIndex.Row?
                for lookup in lookups where lookup.match[n] != .none {
                    match = lookup.match[n]
                    other = lookup.differentB[n]
                }
                switch match {
                case .none: try sideA.add(key: entry.key, bytes: removed)
                case .equal: keys.b += 1
                case .different:
                    keys.b += 1
                    if let other, let row = indexA.row(record) {
                        readA.append(row)
                        readB.append(other)
                    }
                }
            }
            for lookup in lookups { readB += lookup.onlyB.values }
        } else {
            if let rowsB {
                // A spilled, so B's index is spilled too (``RowIndex/pair(_:_:_:)``): at once.
                summary.objects.b += rowsB.count
                try indexB.spill()
                for summarised in rowsB { try indexB.add(key: summarised.key, hash: summarised.hash, summarised.row) }
            } else {
                summary.objects.b += try indexB.read(className, of: exports.1)
            }
            let templates = (a: indexA.template, b: indexB.template)
            try RowIndex.pair(&indexA, &indexB) { (left: [String: RowIndex.Record], right: [String: RowIndex.Record]) throws(PFError) in
                keys.a += left.count
                keys.b += right.count
                for (key, l) in left {
                    if let r = right[key] {
                        if l.digest != r.digest, let x = RowIndex.row(l, templates.a), let y = RowIndex.row(r, templates.b) {
                            readA.append(x)
                            readB.append(y)
                        }
                    } else {
                        try sideA.add(key: key, bytes: removed)
                    }
                }
                for (key, r) in right where left[key] == nil {
                    if let y = RowIndex.row(r, templates.b) { readB.append(y) }
                }
            }
        }
        if keys.a != summary.objects.a - before.a || keys.b != summary.objects.b - before.b { return false }
        // The slow path spills a class when either side holds more distinct objects than
        // fit in memory, and then reports it partition by partition: do the same.
        if max(keys.a, keys.b) > max(1, options.objectsInMemory), !sideA.spilled { try sideA.spill() }
        for (store, rows, side) in [(exports.0, readA, 0), (exports.1, readB, 1)] {
            let sorted = rows.sorted { $0.location.index < $1.location.index }.map { ($0.location, $0.digest) }
            try store.forEachObject(in: className, at: sorted) { (at: ParseExportStore.RowLocation, object: ParseObject) throws(PFError) in
                let key = object.objectId ?? RowIndex.unnamed(at.index)
                let bytes = try Partitioner.encoded(Self.value(of: object))
                if side == 0 { try sideA.add(key: key, bytes: bytes) } else { try sideB.add(key: key, bytes: bytes) }
            }
        }
        return true
    }
}

typealias RowDigest = ParseExportStore.RowDigest

/// B's rows looked up in A's index held in memory (``RowIndex/memory``), for one part of the
/// keys: those whose hash falls in part `part` of `parts`. A's index is only read, so parts
/// run on threads of their own; each of A's keys (and every row of B with that key) belongs
/// to one part, and a key B repeats keeps B's last row, as in file order.
struct RowLookup: Sendable {
    let part: Int
    let parts: Int
    /// Per entry of A's index: whether B's last row with its key is the same (`.none`: no
    /// row of this part has its key).
    var match: [RowIndex.Record.Match]
    /// B's last row for each entry of A whose match is `.different`.
    var differentB: [Int: RowIndex.Row] = [:]
    /// B's last row for each key not in A.
    var onlyB: [String: RowIndex.Row] = [:]
    /// Where B's last row found stood in A's index, less its own place in B: the guess for
    /// the next (``RowTable/find(_:hash:hint:)``).
    var shift = 0

    init(count: Int, part: Int, parts: Int) {
        self.part = part
        self.parts = max(1, parts)
        match = Array(repeating: .none, count: count)
    }

    /// Whether a key with this hash is this part's.
    func owns(_ hash: Int) -> Bool { parts == 1 || Int((UInt(bitPattern: hash) >> 40) % UInt(parts)) == part }

    /// Looks up one of B's rows (in file order), if its key is this part's; returns the
    /// number of A's entry with its key, if any.
    @discardableResult
    mutating func add(_ key: String, hash: Int, _ row: RowIndex.Row, in table: RowTable<RowIndex.Record>) -> Int? {
        guard owns(hash) else { return nil }
        if let found = table.find(key, hash: hash, hint: row.location.index &+ shift) {
            shift = found &- row.location.index
            if table.entries[found].value.digest == row.digest {
                if match[found] == .different { differentB[found] = nil }
                match[found] = .equal
            } else {
                match[found] = .different
                differentB[found] = row
            }
            return found
        } else {
            onlyB[key] = row
            return nil
        }
    }

    /// Looks up `rows` (B's, in file order) in `table`, one part of the keys per thread.
    static func run(_ rows: [RowPass.KeyedRow], in table: RowTable<RowIndex.Record>, parts: Int) -> [RowLookup] {
        let parts = max(1, parts)
        let map = OrderedParallelMap<Int, RowLookup, Never>(workers: parts) { part in
            var lookup = RowLookup(count: table.count, part: part, parts: parts)
            for row in rows { lookup.add(row.key, hash: row.hash, row.row, in: table) }
            return lookup
        }
        var out: [RowLookup] = []
        for part in 0..<parts { map.submit(part) { out.append($0) } }
        map.finish { out.append($0) }
        return out
    }
}

/// Pass 1 over B (each row's key, place and digest, ``ParseExportStore/forEachRow(in:_:)``)
/// on a thread of its own, while the calling thread builds A's index: the two passes, each
/// mostly one thread's work, use two cores. The thread opens an instance of B of its own (a
/// store is not `Sendable`); only the summaries and the schema it inferred come back, and the
/// schema is handed to the caller's instance of B (``ParseExportStore/adopt(_:)``), so
/// comparing the schemas reads nothing again. The summaries are held until A's index is
/// built (about 64 bytes a row); beyond `limit` rows the thread stops and ``finish()`` gives
/// `nil`: B is then read on the calling thread after A, as it comes.
final class RowPass {
    /// A row of B: its key (as ``StoreDiff/read(_:of:into:)`` names it) and its place and digest.
    struct KeyedRow: Sendable {
        var key: String
        /// The key's ``RowIndex/hash(_:)``, computed on the pass's thread.
        var hash: Int
        var row: RowIndex.Row
    }

    /// What the thread is told.
    struct Job: Sendable {
        let url: URL
        let options: ParseExportStore.Options
        let className: String
        let limit: Int
        let stop: Stop
    }

    /// What the thread hands back: `rows` is `nil` when there were more than `limit`.
    struct Output: Sendable {
        var rows: [KeyedRow]?
        var inferred: ParseExportStore.InferredClass?
    }

    /// Set when the caller no longer wants the rows (A failed).
    final class Stop: Sendable {
        let requested = Atomic<Bool>(false)
    }

    let store: ParseExportStore
    let stop = Stop()
    let map: OrderedParallelMap<Job, Output, PFError>

    /// Starts reading a class of `store` on another thread.
    init(_ store: ParseExportStore, _ className: String, limit: Int) throws(PFError) {
        self.store = store
        map = OrderedParallelMap(workers: 1) { job throws(PFError) in try RowPass.read(job) }
        try map.submit(Job(url: store.url, options: store.options, className: className, limit: limit, stop: stop)) { _ in }
    }

    /// The pass itself, on the pool thread (or on the caller's, when no pool thread started).
    static func read(_ job: Job) throws(PFError) -> Output {
        let store = ParseExportStore(url: job.url, options: job.options)
        var rows: [KeyedRow] = []
        var tooMany = false
        do {
            let size = try store.fileSize(of: job.className)
            try store.forEachRow(in: job.className) { (row: ParseExportStore.RowSummary) throws(PFError) in
                if rows.count == 1024, let expected = RowIndex.expectedRows(size: size, after: row.location) {
                    // Room for the rows the file seems to hold (up to the limit): no copy as the array grows.
                    rows.reserveCapacity(min(expected, job.limit))
                }
                guard rows.count < job.limit else {
                    tooMany = true
                    throw PFError(DiffFailure.rowPassStopped, format: .diff)
                }
                guard !job.stop.requested.load(ordering: .relaxed) else { throw PFError(DiffFailure.rowPassStopped, format: .diff) }
                let key = row.objectId ?? RowIndex.unnamed(row.location.index)
                rows.append(KeyedRow(key: key, hash: RowIndex.hash(key), row: RowIndex.Row(location: row.location, digest: row.digest)))
            }
        } catch {
            if tooMany { return Output(rows: nil, inferred: nil) }
            throw error
        }
        return Output(rows: rows, inferred: store.inferredClass(job.className))
    }

    /// Waits for the pass: B's rows in file order, or `nil` when there were more than the limit.
    /// - Throws: what reading B's rows throws.
    func finish() throws(PFError) -> [KeyedRow]? {
        var output: Output?
        try map.finish { output = $0 }
        guard let output, let rows = output.rows else { return nil }
        if let inferred = output.inferred { store.adopt(inferred) }
        return rows
    }

    /// Stops the pass and waits for its thread.
    func cancel() {
        stop.requested.store(true, ordering: .relaxed)
        map.cancel()
    }
}

/// The rows of one side of a class by key: each row's digest and place, in memory while
/// small, beyond ``StoreDiff/Options/rowsInMemory`` spilled to hash-partitioned files the way
/// ``Partitioner`` spills objects (a 40-byte record after the key), so only one partition is in memory
/// when the sides are paired. A key seen twice keeps its last row, as ``Partitioner`` does.
struct RowIndex {
    /// A row: its digest and where it is, its shape (``PFStores/ParseExportStore/RowSummary/shape``)
    /// and whether its key is its objectId (or made up from its place, ``unnamed(_:)``).
    struct Row: Sendable {
        var location: ParseExportStore.RowLocation
        var digest: RowDigest
        var shape = 0
        var named = true
    }

    /// A key's row, compactly (48 bytes): its digest, place and shape, and (while B is looked
    /// up in A's index) whether B's last row with that key is the same.
    struct Record: Sendable {
        enum Match: UInt8, Sendable { case none, equal, different }
        var digest: RowDigest
        var index: Int
        var offset: Int
        var shape: Int
        var count: UInt32
        var match = Match.none
        var named: Bool

        init(_ row: Row) throws(PFError) {
            guard let count = UInt32(exactly: row.location.count) else {
                throw PFError(DiffFailure.rowTooLarge(bytes: row.location.count), format: .diff)
            }
            digest = row.digest
            index = row.location.index
            offset = row.location.offset
            shape = row.shape
            self.count = count
            named = row.named
        }
    }

    let options: StoreDiff.Options
    var memory = RowTable<Record>()
    var files: Partitioner?
    /// The first row's place: the file's shape, which every row of it shares.
    var template: ParseExportStore.RowLocation?

    /// A record's row.
    func row(_ record: Record) -> Row? { Self.row(record, template) }

    /// A record's row, given its file's first row.
    static func row(_ record: Record, _ template: ParseExportStore.RowLocation?) -> Row? {
        guard var at = template else { return nil }
        at.index = record.index
        at.offset = record.offset
        at.count = Int(record.count)
        return Row(location: at, digest: record.digest)
    }

    init(options: StoreDiff.Options) { self.options = options }

    /// The hash a key is found by in ``RowTable`` (Swift's `Hasher`, seeded per process).
    static func hash(_ key: String) -> Int { key.hashValue }

    /// The key of a row without an objectId, as ``StoreDiff/read(_:of:into:)`` names it.
    static func unnamed(_ row: Int) -> String { "(no objectId #\(row + 1))" }

    /// Reads a class of an export; returns its number of rows.
    mutating func read(_ className: String, of store: ParseExportStore) throws(PFError) -> Int {
        var rows = 0
        let size = try store.fileSize(of: className)
        try store.forEachRow(in: className) { (row: ParseExportStore.RowSummary) throws(PFError) in
            rows += 1
            if rows == 1024, files == nil, let expected = Self.expectedRows(size: size, after: row.location) {
                // Room for the rows the file seems to hold (up to the limit): no rehashing as it grows.
                memory.reserveCapacity(min(expected, limit + 1))
            }
            let key = row.objectId ?? Self.unnamed(row.location.index)
            let summarised = Row(location: row.location, digest: row.digest, shape: row.shape, named: row.objectId != nil)
            try add(key: key, hash: files == nil ? RowIndex.hash(key) : 0, summarised)
        }
        return rows
    }

    /// About how many rows a file of `size` bytes holds (5 % over), judged from where `row`,
    /// met after its first 1024 rows, ends; `nil` when the size is unknown. At most `Int32.max`.
    static func expectedRows(size: Int?, after row: ParseExportStore.RowLocation) -> Int? {
        guard let size, row.offset > 0 else { return nil }
        let expected = Double(size) / Double(row.offset + row.count) * 1024 * 1.05
        return Int(min(max(expected, 0), Double(Int32.max)))
    }

    /// The most keys held in memory: ``StoreDiff/Options/rowsInMemory``, and no more than
    /// ``RowTable`` numbers.
    var limit: Int { min(max(1, options.rowsInMemory), Int(UInt32.max) - 1) }

    /// Adds a row under `key`; `hash` is the key's ``RowIndex/hash(_:)`` (unused once spilled).
    mutating func add(key: String, hash: Int, _ row: Row) throws(PFError) {
        if files != nil {
            if template == nil { template = row.location }
            try files?.write(key: key, bytes: Self.encoded(row))
            return
        }
        if template == nil { template = row.location }
        memory.set(key, hash: hash, try Record(row))
        if memory.count > limit { try spill() }
    }

    mutating func spill() throws(PFError) {
        var partitioner = Partitioner(options: options)
        try partitioner.spill()
        for entry in memory.entries {
            if let row = row(entry.value) { try partitioner.write(key: entry.key, bytes: Self.encoded(row)) }
        }
        memory.removeAll()
        files = partitioner
    }

    static func encoded(_ row: Row) -> Data {
        var data = Data(capacity: 40)
        let at = row.location
        for word in [row.digest.high, row.digest.low, UInt64(at.index), UInt64(at.offset), UInt64(at.count)] {
            withUnsafeBytes(of: word.littleEndian) { data.append(contentsOf: $0) }
        }
        return data
    }

    func decoded(_ data: Data) throws(PFError) -> Row {
        let damaged = PFError(DiffFailure.spilledRowDamaged, format: .diff)
        guard data.count == 40, var at = template else { throw damaged }
        let words = data.withUnsafeBytes { raw in
            (0..<5).map { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self)) }
        }
        guard let index = Int(exactly: words[2]), let offset = Int(exactly: words[3]), let count = Int(exactly: words[4]) else { throw damaged }
        at.index = index
        at.offset = offset
        at.count = count
        return Row(location: at, digest: RowDigest(high: words[0], low: words[1]))
    }

    /// Partition `p`'s records (all of them when nothing was spilled).
    mutating func load(_ p: Int) throws(PFError) -> [String: Record] {
        var out: [String: Record] = [:]
        guard files != nil else {
            if p == 0 { for entry in memory.entries { out[entry.key] = entry.value } }
            return out
        }
        guard let loaded = try files?.load(p) else { return out }
        out.reserveCapacity(loaded.count)
        for (key, data) in loaded { out[key] = try Record(decoded(data)) }
        return out
    }

    func discard() { files?.discard() }

    /// Calls `body` with each partition of both sides (the same keys land in the same one).
    static func pair(
        _ x: inout RowIndex, _ y: inout RowIndex, _ body: ([String: Record], [String: Record]) throws(PFError) -> Void
    ) throws(PFError) {
        if x.files != nil, y.files == nil { try y.spill() }
        if y.files != nil, x.files == nil { try x.spill() }
        let count = x.files != nil ? max(1, x.options.partitions) : 1
        for p in 0..<count {
            try body(try x.load(p), try y.load(p))
        }
        x.memory.removeAll()
        y.memory.removeAll()
    }
}

/// Recognises B's rows as A's, byte for byte, on the thread that reads B
/// (``PFStores/ParseExportStore/RowRecognizer``): B's row is compared with A's row where it is
/// expected (the entry of A's index at B's row number plus the last offset found between the
/// two, or one either side; failing those, the entry of the first `"objectId"` string the row
/// spells, found in A's index by key), whose bytes are read again from A's file. How a
/// candidate is found never decides anything: only equal bytes do. A row that is the same
/// is summarised as A's was (its key, digest and shape) and not read as JSON: two exports of one
/// database are mostly the same rows in the same order, so only the rows that differ are read.
///
/// A's file is read forward only, through a window of ``windowSize`` bytes that moves on as B's
/// rows do (a guess behind the window, or far ahead of it, is not compared: the row is then read
/// as JSON, as without a matcher), so A's file is read about once more in all. Rows whose key
/// is not their objectId are never recognised (their key is their place). After
/// ``sparseAfter`` rows missed in a row only one row in ``sparseStride`` is tried, so a B whose
/// rows are not A's costs little more than reading it.
final class RowMatcher {
    /// Bytes of A's file held at once.
    static let windowSize = 8 << 20
    /// How far past the window a guess may lie and still move it there.
    static let reach = 4 << 20

    let table: RowTable<RowIndex.Record>
    let descriptor: Int32
    let window: UnsafeMutableRawBufferPointer
    /// Where the window starts in A's file, and how many bytes it holds.
    var start = 0
    var count = 0
    /// Where B's last row recognised or found by key stood in A's index, less its own number.
    var shift = 0
    /// B's rows not recognised since the last one that was.
    var misses = 0
    /// After this many rows missed in a row, B is taken for mostly other rows than A's (another
    /// order, another spelling): only one row in ``sparseStride`` is tried until one is recognised.
    static let sparseAfter = 256
    static let sparseStride = 64
    /// Where B's row is looked for in A's index, from where the last one was found.
    static let guesses = [0, 1, -1]
    /// The key ``objectIdGuess(in:)`` looks for.
    static let objectIdKey = Array("\"objectId\"".utf8)

    /// What identifies a file's contents for the length of a comparison: its device and inode,
    /// size and modification time.
    struct FileState: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var seconds: Int
        var nanoseconds: Int

        init(_ st: stat) {
            device = UInt64(st.st_dev)
            inode = UInt64(st.st_ino)
            size = Int64(st.st_size)
            seconds = Int(st.st_mtim.tv_sec)
            nanoseconds = Int(st.st_mtim.tv_nsec)
        }

        /// The state of the file at `path`, or `nil` when it cannot be read.
        init?(path: String) {
            var st = stat()
            guard stat(path, &st) == 0 else { return nil }
            self.init(st)
        }

        /// The state of an open file, or `nil` when it cannot be read.
        init?(descriptor: Int32) {
            var st = stat()
            guard fstat(descriptor, &st) == 0 else { return nil }
            self.init(st)
        }
    }

    let path: String
    /// A's file as it was before its rows were read.
    let expected: FileState

    /// A matcher over A's index and the file its rows were read from; `nil` when the file
    /// cannot be opened or is no longer the file that was read (`expected`, taken before A's
    /// rows were read): B is then read without one.
    init?(path: String, table: RowTable<RowIndex.Record>, expecting expected: FileState) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        guard FileState(descriptor: fd) == expected else {
            close(fd)
            return nil
        }
        descriptor = fd
        self.path = path
        self.expected = expected
        self.table = table
        window = .allocate(byteCount: Self.windowSize, alignment: 16)
    }

    /// Throws when A's file changed after its rows were read: a row recognised in it may then
    /// not be the row A's index summarises.
    func checkUnchanged() throws(PFError) {
        guard FileState(descriptor: descriptor) == expected else {
            throw PFError(DiffFailure.fileChangedDuringComparison(path: path), format: .diff)
        }
    }

    deinit {
        close(descriptor)
        window.deallocate()
    }

    /// The recognizer B's read calls (`shapes`: A's, ``PFStores/ParseExportStore/rowShapes(of:)``).
    func recognizer(shapes: ParseExportStore.RowShapes?) -> ParseExportStore.RowRecognizer {
        let table = table
        return ParseExportStore.RowRecognizer(
            match: { [unowned self] bytes, index in self.match(bytes, at: index) },
            known: { n in
                let entry = table.entries[n]
                return ParseExportStore.KnownRow(objectId: entry.key, digest: entry.value.digest, shape: entry.value.shape)
            },
            shapes: shapes)
    }

    /// The number of A's entry whose row has exactly `bytes`, tried where B's row `index` is
    /// expected; `nil` when none of the guesses is.
    func match(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int? {
        guard let b = bytes.baseAddress, misses < Self.sparseAfter || index % Self.sparseStride == 0 else { return nil }
        misses += 1
        for delta in Self.guesses {
            let guess = index &+ shift &+ delta
            guard guess >= 0, guess < table.count else { continue }
            let record = table.entries[guess].value
            guard record.named, Int(record.count) == bytes.count, let a = bytesOfA(at: record.offset, count: bytes.count) else { continue }
            if memcmp(a, b, bytes.count) == 0 {
                shift = guess &- index
                misses = 0
                return guess
            }
        }
        // Rows were added or removed here: the row's objectId, as a guess, finds where A goes on.
        guard let key = Self.objectIdGuess(in: bytes), let n = table.find(key, hash: RowIndex.hash(key)) else { return nil }
        let record = table.entries[n].value
        guard record.named, Int(record.count) == bytes.count, let a = bytesOfA(at: record.offset, count: bytes.count),
            memcmp(a, b, bytes.count) == 0
        else { return nil }
        shift = n &- index
        misses = 0
        return n
    }

    /// The text of the first string value after a `"objectId"` key in a row's bytes (JSON
    /// space allowed around the colon), when it has no escape: a guess at the row's objectId,
    /// which may be a Pointer's.
    static func objectIdGuess(in bytes: UnsafeRawBufferPointer) -> String? {
        let name = objectIdKey
        var i = 0
        while true {
            guard i + name.count <= bytes.count else { return nil }
            if bytes[i] == name[0], name.indices.allSatisfy({ bytes[i + $0] == name[$0] }) { break }
            i += 1
        }
        i += name.count
        func skipSpace() { while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 } }
        skipSpace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return nil }
        i += 1
        skipSpace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { return nil }
        let start = i + 1
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), end - start < 256 {
            if bytes[end] == UInt8(ascii: "\\") { return nil }
            end += 1
        }
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// Told that B's row `index` has the key of A's entry `entry` (found in A's index): the
    /// next guess follows it.
    func found(_ entry: Int, at index: Int) { shift = entry &- index }

    /// A's bytes at `offset`, read into the window when they are not in it and lie ahead of it
    /// within ``reach``; `nil` otherwise, or when the file no longer holds them.
    func bytesOfA(at offset: Int, count wanted: Int) -> UnsafeRawPointer? {
        guard let base = window.baseAddress, offset >= start, wanted <= window.count else { return nil }
        if offset + wanted <= start + count { return UnsafeRawPointer(base + (offset - start)) }
        guard offset <= start + count + Self.reach else { return nil }
        start = offset
        count = 0
        while count < window.count {
            let n = pread(descriptor, base + count, window.count - count, off_t(offset + count))
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { break }
            count += n
        }
        return wanted <= count ? UnsafeRawPointer(base) : nil
    }
}
