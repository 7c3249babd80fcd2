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
    }

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

    /// A 128-bit digest of a row's bytes: two SipHash-1-3 sums (Swift's `Hasher`, seeded at
    /// random per process, so rows cannot be made to collide on purpose). Rows with equal
    /// digests are, but for a chance of about 2⁻¹²⁸, equal bytes.
    public struct RowDigest: Hashable, Sendable {
        /// The first sum.
        public var high: UInt64
        /// The second sum.
        public var low: UInt64

        /// The digest of these bytes.
        public init(_ bytes: UnsafeRawBufferPointer) {
            var h = Hasher()
            h.combine(bytes: bytes)
            var l = Hasher()
            l.combine(UInt8(0x5A))
            l.combine(bytes: bytes)
            high = UInt64(UInt(bitPattern: h.finalize()))
            low = UInt64(UInt(bitPattern: l.finalize()))
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
    /// - Parameters:
    ///   - className: the class.
    ///   - body: receives each row's summary, in file order, on the calling thread.
    /// - Throws: ``PFCore/PFError`` as ``forEachObject(in:_:)`` for a row that is not JSON,
    ///   or what `body` throws.
    public func forEachRow(in className: String, _ body: (RowSummary) throws(PFError) -> Void) throws(PFError) {
        guard let container = try opened(), let file = try layout().classes[className] else { return }
        let name = "\(location): \(file.name)"
        let declared = try schemaFile()?.classes[className] != nil
        var inference = inferred[className] == nil && !declared ? SchemaInference(className: className) : nil
        let shapes: RowShapes? = inference == nil ? nil : RowShapes()
        let reader = ParallelRowReader<(RowSummary, [FieldType]?)>(workers: options.workers, limits: options.limits) {
            row, session throws(PFError) in
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
                    let types = try shapes?.types(of: root, reading: object)
                    let location = RowLocation(index: row.index, offset: row.offset, count: row.bytes.count, shape: row.shape)
                    return (RowSummary(objectId: objectId, location: location, digest: RowDigest(row.bytes)), types)
                }
            } catch {
                throw row.placed(error, file: name)
            }
        }
        try reader.read(rows: { add throws(PFError) in
            try container.forEachRow(of: file, chunkSize: options.chunkSize, add)
        }, deliver: { (summary, types) throws(PFError) in
            if let types { inference?.add(types: types) }
            try body(summary)
        })
        if let inference { inferred[className] = inference }
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
                throw PFError(.io, format: Self.format, "\(name): the file changed while it was compared")
            }
            try body(wanted.location, try row.readObject(session: session, className: className, file: name, checkingNames: false))
        }
        guard case .directory = container.kind else {
            var next = 0
            try container.forEachRow(of: file, chunkSize: options.chunkSize) { row throws(PFError) in
                guard next < rows.count, rows[next].location.index == row.index else { return }
                try read(row, rows[next])
                next += 1
            }
            return
        }
        let fd = open(file.path, O_RDONLY)
        guard fd >= 0 else {
            throw PFError(.io, format: Self.format, "cannot open \(file.path): \(String(cString: strerror(errno)))")
        }
        defer { closeDescriptor(fd) }
        var buffer: [UInt8] = []
        for wanted in rows {
            let at = wanted.location
            buffer = Array(repeating: 0, count: at.count)
            var done = 0
            while done < at.count {
                let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress.map { $0 + done }, at.count - done, off_t(at.offset + done)) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else {
                    throw PFError(.io, format: Self.format, "\(name): the file changed while it was compared")
                }
                done += n
            }
            let result = buffer.withUnsafeBytes { bytes in
                Result { () throws(PFError) in
                    try read(ParseExportRow(bytes: bytes, index: at.index, offset: at.offset, shape: at.shape), wanted)
                }
            }
            try result.get()
        }
    }

    /// A field and its type, as ``SchemaInference`` records them.
    typealias FieldType = (key: String, field: ParseSchema.Field)

    /// The field types of each row shape seen so far, shared by the worker threads.
    final class RowShapes: Sendable {
        let known = Mutex<[Shape: [FieldType]]>([:])

        /// A row's shape as bytes, hashed as one run of bytes (not byte by byte, as an array is).
        struct Shape: Hashable, Sendable {
            var bytes: [UInt8]
            func hash(into hasher: inout Hasher) { bytes.withUnsafeBytes { hasher.combine(bytes: $0) } }
        }

        /// The field types of a row: looked up by its shape, or read from its object (by
        /// `reading`) the first time that shape is seen.
        func types(of root: JSONNode, reading: () throws(PFError) -> ParseObject) throws(PFError) -> [FieldType] {
            var shape: [UInt8] = []
            shape.reserveCapacity(128)
            // Each string is preceded by its length, so two different rows never give one shape.
            func append(_ s: String) {
                withUnsafeBytes(of: UInt32(truncatingIfNeeded: s.utf8.count).littleEndian) { shape.append(contentsOf: $0) }
                shape.append(contentsOf: s.utf8)
            }
            root.forEachMember { (key: String, value: JSONNode) in
                append(key)
                switch value.kind {
                case .null: shape.append(1)
                case .bool: shape.append(2)
                case .int: shape.append(3)
                case .uint: shape.append(4)
                case .double: shape.append(5)
                case .string: shape.append(6)
                case .array: shape.append(7)
                case .object:
                    shape.append(8)
                    // The members that decide a typed object's schema type.
                    for member in ["__type", "className"] {
                        if let s = value.member(member)?.stringValue {
                            shape.append(1)
                            append(s)
                        } else {
                            shape.append(0)
                        }
                    }
                }
            }
            let key = Shape(bytes: shape)
            if let types = known.withLock({ $0[key] }) { return types }
            let object = try reading()
            var types: [FieldType] = []
            for (key, value) in object.fields {
                if let field = ParseSchema.fieldType(of: value) { types.append((key, field)) }
            }
            known.withLock { $0[key] = types }
            return types
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
