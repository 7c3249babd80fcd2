import Foundation
import PFCore
import PFJSON
import PFParse
import PFParseExport
import Synchronization

// MARK: - Rows as written, for comparisons

/// `close(2)` (inside the store, `close` is ``ParseExportStore/close()``).
private func closeDescriptor(_ fd: Int32) { _ = close(fd) }

extension ParseExportStore {
    /// One row of a class file seen without building its object (``forEachRow(in:_:)``).
    public struct RowSummary: Sendable {
        /// The row's `objectId`, or `nil` when it has none (or `null`), as
        /// ``PFParse/ParseObject/objectId`` reads it.
        public var objectId: String?
        /// Where the row is (its index, for ``forEachObject(in:at:_:)``).
        public var location: RowLocation
        /// A digest of the row's bytes.
        public var digest: RowDigest
        /// The row's shape in the table of shapes its read kept (``rowShapes(of:)``), which
        /// decides its field types; 0 when the class's schema was not inferred.
        public var shape: Int = 0
    }

    /// Rows of a class read before (from another export of it, under the same options),
    /// which ``forEachRow(in:recognizing:_:)`` recognises rows as, byte for byte, and
    /// summarises from instead of reading them again: comparing two exports of one database,
    /// whose rows are mostly the same, then reads only the rows that differ.
    public struct RowRecognizer {
        /// Called on the reading thread with each row's bytes and index, in file order: the
        /// number of a known row with exactly these bytes, or `nil`.
        public var match: (UnsafeRawBufferPointer, Int) -> Int?
        /// The summary of known row `n` (called on the worker threads).
        public var known: @Sendable (Int) -> KnownRow
        /// The shapes the known rows' ``KnownRow/shape`` numbers are in: ``rowShapes(of:)``
        /// of the store that read them (`nil` when it inferred none: a read that infers its
        /// class's schema then recognises no row).
        public var shapes: RowShapes?

        /// A recognizer from its parts.
        public init(match: @escaping (UnsafeRawBufferPointer, Int) -> Int?, known: @escaping @Sendable (Int) -> KnownRow, shapes: RowShapes?) {
            self.match = match
            self.known = known
            self.shapes = shapes
        }
    }

    /// What a row read before was summarised as (``RowRecognizer``): a row with the same
    /// bytes has the same summary, but for its place.
    public struct KnownRow: Sendable {
        /// Its `objectId` (``RowSummary/objectId``).
        public var objectId: String?
        /// Its digest.
        public var digest: RowDigest
        /// Its shape (``RowSummary/shape``).
        public var shape: Int

        /// A known row from its summary's parts.
        public init(objectId: String?, digest: RowDigest, shape: Int) {
            self.objectId = objectId
            self.digest = digest
            self.shape = shape
        }
    }

    /// The row shapes the last ``forEachRow(in:recognizing:_:)`` of a class kept, when it
    /// inferred the class's schema: what a ``RowRecognizer`` built from its rows hands on.
    public func rowShapes(of className: String) -> RowShapes? { shapesSeen[className] }

    /// Where a row lies in its class file.
    public struct RowLocation: Sendable {
        /// The row's index in the file (0-based).
        public var index: Int
        /// The byte offset of its first byte in the file (inflated, for a zip).
        public var offset: Int
        /// Its length in bytes.
        public var count: Int
        /// The file's shape (for the row's path in errors).
        var shape: ParseExport.Shape
    }

    /// A 128-bit digest of a row's bytes: a SipHash-1-3 sum (Swift's `Hasher`, seeded at
    /// random per process, so rows cannot be made to collide on purpose) and a multiplicative
    /// hash of its 8-byte words. Two different rows agree on both by chance about once in
    /// 2⁶⁴ or more comparisons; the comparison takes equal digests for equal rows.
    public struct RowDigest: Hashable, Sendable {
        /// The first sum.
        public var high: UInt64
        /// The second sum.
        public var low: UInt64

        /// The digest of these bytes.
        public init(_ bytes: UnsafeRawBufferPointer) {
            var h = Hasher()
            h.combine(bytes: bytes)
            high = UInt64(UInt(bitPattern: h.finalize()))
            // The second half: a multiply–xorshift over 8-byte words (fast, unseeded).
            var acc: UInt64 = 0x243F_6A88_85A3_08D3 ^ UInt64(bytes.count)
            var k = 0
            while k + 8 <= bytes.count {
                acc = (acc ^ UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: k, as: UInt64.self))) &* 0x9E37_79B9_7F4A_7C15
                acc ^= acc >> 29
                k += 8
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while k < bytes.count {
                tail |= UInt64(bytes[k]) << shift
                shift += 8
                k += 1
            }
            acc = (acc ^ tail) &* 0x9E37_79B9_7F4A_7C15
            low = acc ^ (acc >> 32)
        }

        /// A digest from its two sums.
        public init(high: UInt64, low: UInt64) {
            self.high = high
            self.low = low
        }
    }

    /// Whether this export's rows, read as written, stand for its objects: `false` when
    /// `_SCHEMA.json` says pfarchive encoded names (objects are then read with their original
    /// names, which the rows do not spell).
    /// - Throws: ``PFCore/PFError`` for an unreadable schema file.
    public func rowsAreObjects() throws(PFError) -> Bool {
        _ = try schemaFile()
        return !namesEncoded
    }

    /// The path of a class's file when it is a plain JSON file of its own (in an export
    /// directory), which can be read again at a row's offset; `nil` in a zip, for a
    /// compressed file, or when the class has no file.
    /// - Throws: ``PFCore/PFError`` when the export cannot be opened.
    public func classFilePath(of className: String) throws(PFError) -> String? {
        guard let container = try opened(), let file = try layout().classes[className], container.isPlainFileOnDisk(file) else { return nil }
        return file.path
    }

    /// The size in bytes of a class's file, when known (a directory's file, a zip entry's
    /// inflated size), or `nil`.
    public func fileSize(of className: String) throws(PFError) -> Int? {
        try layout().classes[className]?.size
    }

    /// Calls `body` with each row of a class, in file order, without building its object:
    /// each row is checked as JSON (the reader ``forEachObject(in:_:)`` uses, on
    /// ``Options/workers`` threads), its `objectId` read and its bytes digested
    /// (``RowDigest``) — what a comparison that skips rows equal byte for byte needs.
    ///
    /// A row that is not an object, whose `objectId` is neither a string nor `null`, or that
    /// names its class, is read into an object too, so it fails exactly as
    /// ``forEachObject(in:_:)`` fails on it. Rows' values are otherwise not decoded, so a
    /// malformed Parse value (a Date with a bad `iso`) is not reported here.
    ///
    /// When the class's schema is inferred (no `_SCHEMA.json` entry), it is inferred on the
    /// way, as ``forEachObject(in:_:)`` infers it: the field types of a row are a function of
    /// its keys, the JSON kind of each value and, for objects, their `__type` and `className`;
    /// the first row of each such shape is read into an object and its types kept for the
    /// others, so ``schema()`` costs no second pass.
    ///
    /// With a `recognizer`, a row it recognises (the same bytes as a row it knows) is not read:
    /// its summary is the known row's, at this row's place.
    /// - Parameters:
    ///   - className: the class.
    ///   - recognizer: rows read before that a row may be, byte for byte.
    ///   - body: receives each row's summary, in file order, on the calling thread.
    /// - Throws: ``PFCore/PFError`` as ``forEachObject(in:_:)`` for a row that is not JSON,
    ///   or what `body` throws.
    public func forEachRow(
        in className: String, recognizing recognizer: RowRecognizer? = nil, _ body: (RowSummary) throws(PFError) -> Void
    ) throws(PFError) {
        guard let container = try opened(), let file = try layout().classes[className] else { return }
        let name = "\(location): \(file.name)"
        let declared = try schemaFile()?.classes[className] != nil
        var inference = inferred[className] == nil && !declared ? SchemaInference(className: className) : nil
        // A recognised row's shape is one of the recognizer's: its table is shared (a shape's
        // field types are a function of the shape), or, when it has none, nothing is recognised.
        let recognizer = inference != nil && recognizer?.shapes == nil ? nil : recognizer
        let shapes: RowShapes? = inference == nil ? nil : (recognizer?.shapes ?? RowShapes())
        let known = recognizer?.known
        var lastShape = 0
        let reader = ParallelRowReader<ShapedRow>(workers: options.workers, limits: options.limits) {
            row, session throws(PFError) in
            if let n = row.known, let known {
                let was = known(n)
                let location = RowLocation(index: row.index, offset: row.offset, count: row.bytes.count, shape: row.shape)
                let shape = shapes == nil ? 0 : was.shape
                return ShapedRow(summary: RowSummary(objectId: was.objectId, location: location, digest: was.digest, shape: shape), shape: shape)
            }
            do throws(PFError) {
                return try session.withDocument(row.bytes) { root throws(PFError) in
                    func object() throws(PFError) -> ParseObject {
                        try ParseObject(restJSON: root, className: className, checkingNames: false)
                    }
                    var objectId: String?
                    if root.kind != .object || root.member("className") != nil {
                        objectId = try object().objectId
                    } else if let id = root.member("objectId") {
                        switch id.kind {
                        case .string: objectId = id.stringValue
                        case .null: objectId = nil
                        default: _ = try object()
                        }
                    }
                    let shape = try shapes?.shape(of: row.bytes, root: root, reading: object)
                    let location = RowLocation(index: row.index, offset: row.offset, count: row.bytes.count, shape: row.shape)
                    let summary = RowSummary(objectId: objectId, location: location, digest: RowDigest(row.bytes), shape: shape ?? 0)
                    return ShapedRow(summary: summary, shape: shape ?? 0)
                }
            } catch {
                throw row.placed(error, file: name)
            }
        }
        try reader.read(rows: { add throws(PFError) in
            guard let match = recognizer?.match else { return try container.forEachRow(of: file, chunkSize: options.chunkSize, add) }
            try container.forEachRow(of: file, chunkSize: options.chunkSize) { row throws(PFError) in
                var row = row
                row.known = match(row.bytes, row.index)
                try add(row)
            }
        }, deliver: { (row: ShapedRow) throws(PFError) in
            if let shapes {
                // A row of the previous row's shape has its types: adding them again records
                // nothing new (every field is known with that type, or its conflict is noted),
                // so only the row is counted. Another shape's types were kept by the worker
                // that read the row, before it handed the row over.
                if row.shape == lastShape, inference?.row ?? 0 > 0 {
                    inference?.row += 1
                } else if let types = shapes.types(of: row.shape) {
                    inference?.add(types: types)
                    lastShape = row.shape
                }
            }
            try body(row.summary)
        })
        if let inference { inferred[className] = inference }
        shapesSeen[className] = shapes
    }

    /// What ``forEachRow(in:_:)`` (or ``forEachObject(in:_:)``) inferred of one class's
    /// schema on one instance of an export, to hand to another instance of the same export
    /// (``adopt(_:)``): a comparison reads one export's rows on a thread of its own, with an
    /// instance of its own, and gives what it inferred back to the caller's instance.
    public struct InferredClass: Sendable {
        let inference: SchemaInference
    }

    /// The schema inferred of a class from its rows, or `nil` when none was (the class is
    /// declared in `_SCHEMA.json`, or its rows were not all read).
    public func inferredClass(_ className: String) -> InferredClass? {
        inferred[className].map(InferredClass.init)
    }

    /// Takes a class's schema as another instance of the same export inferred it, as if its
    /// rows had been read here: ``schema()`` then reads them no more.
    public func adopt(_ inferredClass: InferredClass) {
        inferred[inferredClass.inference.className] = inferredClass.inference
    }

    /// Calls `body` with the objects of the rows at `rows` (from ``forEachRow(in:_:)``, in
    /// file order), read as ``forEachObject(in:_:)`` reads them, on the calling thread. In a
    /// directory each row's bytes are read at its offset; a zip's file is cut again. A row
    /// whose bytes no longer match `digest` (the file changed since) is an error.
    /// - Throws: ``PFCore/PFError`` as ``forEachObject(in:_:)``, `io` when the file changed,
    ///   or what `body` throws.
    public func forEachObject(
        in className: String, at rows: [(location: RowLocation, digest: RowDigest)],
        _ body: (RowLocation, ParseObject) throws(PFError) -> Void
    ) throws(PFError) {
        guard !rows.isEmpty, let container = try opened(), let file = try layout().classes[className] else { return }
        let name = "\(location): \(file.name)"
        let session = ParseExportRow.session(limits: options.limits)
        func read(_ row: ParseExportRow, _ wanted: (location: RowLocation, digest: RowDigest)) throws(PFError) {
            guard RowDigest(row.bytes) == wanted.digest else {
                throw PFError(StoreFailure.changedWhileCompared(name), format: Self.format)
            }
            try body(wanted.location, try row.readObject(session: session, className: className, file: name, checkingNames: false))
        }
        /// Cuts the file again and reads the wanted rows as they come.
        func cutAgain(_ rows: ArraySlice<(location: RowLocation, digest: RowDigest)>) throws(PFError) {
            var next = rows.startIndex
            try container.forEachRow(of: file, chunkSize: options.chunkSize) { row throws(PFError) in
                guard next < rows.endIndex, rows[next].location.index == row.index else { return }
                try read(row, rows[next])
                next += 1
            }
        }
        guard container.isPlainFileOnDisk(file) else { return try cutAgain(rows[...]) }
        let fd = open(file.path, O_RDONLY)
        guard fd >= 0 else {
            throw PFError(StoreFailure.cannotOpen(path: file.path, reason: String(cString: strerror(errno))), format: Self.format)
        }
        defer { closeDescriptor(fd) }
        var buffer: [UInt8] = []
        for (i, wanted) in rows.enumerated() {
            let at = wanted.location
            buffer = Array(repeating: 0, count: at.count)
            var done = 0
            while done < at.count {
                let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress.map { $0 + done }, at.count - done, off_t(at.offset + done)) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { break }
                done += n
            }
            // Not the row's bytes: the file changed, or its rows are no byte ranges of it (a
            // `{"count":…,"results":[…]}` file's rows are handed over re-written). Cutting the
            // file again tells the two apart.
            guard done == at.count, buffer.withUnsafeBytes({ RowDigest($0) }) == wanted.digest else {
                return try cutAgain(rows[i...])
            }
            let result = buffer.withUnsafeBytes { bytes in
                Result { () throws(PFError) in
                    try read(ParseExportRow(bytes: bytes, index: at.index, offset: at.offset, shape: at.shape), wanted)
                }
            }
            try result.get()
        }
    }

    /// A row's summary with its shape (``RowShapes``; 0 when the schema is not inferred), as
    /// ``forEachRow(in:_:)``'s workers hand them over (a struct, not a tuple: the reader's
    /// generic code then finds its type without a metadata lookup). The shape's field types
    /// stay in ``RowShapes`` and are looked up where the shape changes: carried in each row,
    /// the one array they share was retained and released by every thread a row passed,
    /// for every row.
    struct ShapedRow: Sendable {
        var summary: RowSummary
        var shape: Int
    }

    /// A field and its type, as ``SchemaInference`` records them.
    typealias FieldType = (key: String, field: ParseSchema.Field)

    /// The field types of each row shape seen so far, shared by the worker threads.
    ///
    /// A row's shape is what decides its field types: its keys, each value's JSON kind and,
    /// for an object value, its `__type` and `className` strings, taken from the row's bytes
    /// as written (equal spellings are equal names) and hashed to 64 bits with a per-process
    /// random seed (a file has a handful of shapes: two of them share a hash about once in
    /// 2⁶⁴ pairs). Rows whose integers have 19 digits or more (which may not fit 64 bits),
    /// or whose objects spell a key with an escape, count as shapes of their own.
    public final class RowShapes: Sendable {
        let known = Mutex<[Int: [FieldType]]>([:])

        /// The shape of a row, whose field types are then kept (``types(of:)``): read from its
        /// object (by `reading`) the first time that shape is seen. A row read onto the JSON
        /// reader's tape has its shape hashed from the tape (``PFJSON/JSONNode/memberShape(_:_:tag:)``:
        /// the same facts, no second pass over its bytes); another from its bytes
        /// (``shape(of:)``). The two hashes start with different tags, so they never stand
        /// for each other.
        /// - Parameters:
        ///   - bytes: the row, which the JSON reader has checked (one object).
        ///   - root: the row's root node.
        ///   - reading: reads the row's object.
        /// - Returns: the row's shape (hashed).
        func shape(
            of bytes: UnsafeRawBufferPointer, root: JSONNode, reading: () throws(PFError) -> ParseObject
        ) throws(PFError) -> Int {
            let key = root.memberShape("__type", "className", tag: 0xFF) ?? Self.shape(of: bytes)
            if known.withLock({ $0[key] != nil }) { return key }
            let object = try reading()
            var types: [FieldType] = []
            for (key, value) in object.fields {
                if let field = ParseSchema.fieldType(of: value) { types.append((key, field)) }
            }
            known.withLock { $0[key] = types }
            return key
        }

        /// The field types of a shape ``shape(of:reading:)`` returned.
        func types(of shape: Int) -> [FieldType]? { known.withLock { $0[shape] } }

        /// The shape of a checked row, hashed (see ``RowShapes``).
        static func shape(of b: UnsafeRawBufferPointer) -> Int {
            // What decides the shape (tags, and runs of the row after their length) is
            // gathered in a small buffer and hashed a buffer at a time: one `Hasher` call per
            // small piece costs more than the scan. The stream hashed is the same whatever
            // the buffer's size, so equal shapes hash alike.
            let capacity = 512
            let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            defer { buffer.deallocate() }
            var used = 0
            var h = Hasher()
            let n = b.count
            var i = 0
            func flush() {
                h.combine(bytes: UnsafeRawBufferPointer(start: buffer, count: used))
                used = 0
            }
            func feed(_ tag: UInt8) {
                if used == capacity { flush() }
                buffer[used] = tag
                used += 1
            }
            func feed(_ start: Int, _ end: Int) {
                let end = min(end, n)
                let run = UnsafeRawBufferPointer(rebasing: b[min(start, end)..<end])
                if used + 8 + run.count > capacity { flush() }
                UnsafeMutableRawPointer(buffer + used).storeBytes(of: UInt64(run.count).littleEndian, as: UInt64.self)
                used += 8
                if run.count > capacity - used {
                    flush()
                    h.combine(bytes: run)
                } else if let base = run.baseAddress {
                    (buffer + used).update(from: base.assumingMemoryBound(to: UInt8.self), count: run.count)
                    used += run.count
                }
            }
            func finalize() -> Int {
                flush()
                return h.finalize()
            }
            func space() {
                while i < n, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
            }
            // A string from its opening quote: its end (after the closing quote) and whether it has escapes.
            func string() -> Bool {
                var escaped = false
                i += 1
                while i < n, b[i] != 0x22 {
                    if let base = b.baseAddress { i = PlainStringBytes.skip(base, from: i, count: n) }
                    guard i < n, b[i] != 0x22 else { break }
                    if b[i] == 0x5C { escaped = true; i += 1 }
                    i += 1
                }
                i += 1
                return escaped
            }
            // Skips any value.
            func skip() {
                guard i < n else { return }
                switch b[i] {
                case 0x22: _ = string()
                case 0x7B, 0x5B:
                    var depth = 0
                    while i < n {
                        switch b[i] {
                        case 0x22: _ = string(); continue
                        case 0x7B, 0x5B: depth += 1
                        case 0x7D, 0x5D: depth -= 1
                        default: break
                        }
                        i += 1
                        if depth == 0 { return }
                    }
                default:
                    while i < n, b[i] != 0x2C, b[i] != 0x7D, b[i] != 0x5D, b[i] != 0x20, b[i] != 0x0A, b[i] != 0x0D, b[i] != 0x09 { i += 1 }
                }
            }
            func isName(_ start: Int, _ end: Int, _ name: StaticString) -> Bool {
                guard end - start == name.utf8CodeUnitCount, start >= 0, end <= n else { return false }
                for k in 0..<(end - start) where b[start + k] != name.utf8Start[k] { return false }
                return true
            }
            feed(0xFE)  // not ``PFJSON/JSONNode/memberShape(_:_:tag:)``'s 0xFF
            space()
            guard i < n, b[i] == 0x7B else {
                feed(0, n)
                return finalize()
            }
            i += 1
            var unique = false
            members: while i < n {
                space()
                guard i < n, b[i] == 0x22 else { break }
                let keyStart = i
                _ = string()
                feed(keyStart, i)
                space()
                i += 1  // ':'
                space()
                guard i < n else { break }
                switch b[i] {
                case 0x22: feed(6); _ = string()
                case 0x74, 0x66: feed(2); skip()
                case 0x6E: feed(1); skip()
                case 0x5B: feed(7); skip()
                case 0x7B:
                    feed(8)
                    // The object's own members: `__type` and `className` decide its type.
                    i += 1
                    while i < n {
                        space()
                        guard i < n, b[i] == 0x22 else { break }
                        let start = i
                        if string() { unique = true }
                        let end = i
                        space()
                        i += 1
                        space()
                        if i < n, b[i] == 0x22, isName(start + 1, end - 1, "__type") || isName(start + 1, end - 1, "className") {
                            let valueStart = i
                            _ = string()
                            feed(start, end)
                            feed(valueStart, i)
                        } else {
                            skip()
                        }
                        space()
                        if i < n, b[i] == 0x2C { i += 1 }
                    }
                    i += 1  // '}'
                default:
                    let start = i
                    skip()
                    let token = UnsafeRawBufferPointer(rebasing: b[start..<min(i, n)])
                    if token.contains(where: { $0 == 0x2E || $0 | 0x20 == 0x65 }) {
                        feed(5)
                    } else if token.count >= 19 {
                        feed(4)
                        feed(start, i)
                    } else {
                        feed(3)
                    }
                }
                space()
                if i < n, b[i] == 0x2C { i += 1 } else { break members }
            }
            if unique { feed(0, n) }
            return finalize()
        }
    }
}

extension ParseExportStore.SchemaInference {
    /// Adds one row given by its field types (what ``add(_:)`` records of its object).
    mutating func add(types: [ParseExportStore.FieldType]) {
        for (key, field) in types { record(key, field) }
        row += 1
    }
}
