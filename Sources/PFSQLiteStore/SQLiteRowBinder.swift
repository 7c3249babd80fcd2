internal import GRDB
internal import GRDBSQLite
import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFParse

/// Binds one row's values straight into a prepared statement through SQLite's C API: GRDB's
/// `StatementArguments` box every value, which cost more than SQLite's own insert.
///
/// Text (strings and JSON) is appended to one byte buffer per row and bound just before the
/// step with `SQLITE_STATIC`, so SQLite neither allocates nor copies each value; the bindings
/// are cleared right after the step, before the buffer is reused (SQLite's rule for static
/// bindings: the bytes stay valid while they are bound).
struct SQLiteRowBinder {
    /// SQLite copies the bytes before the bind returns (`SQLITE_TRANSIENT`).
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
    /// A zero-length text with an address (a null address would bind NULL).
    private static let emptyText: StaticString = ""

    let statement: OpaquePointer
    let connection: OpaquePointer?
    private var index: Int32 = 0
    /// The row's text bytes, reused row after row.
    private(set) var scratch: [UInt8] = []
    /// Text parameters of the row: parameter index and byte range in `scratch`.
    private var texts: [(index: Int32, start: Int, count: Int)] = []

    init(statement: OpaquePointer, connection: OpaquePointer?) {
        self.statement = statement
        self.connection = connection
        scratch.reserveCapacity(8192)
        texts.reserveCapacity(32)
    }

    /// Starts a new row.
    mutating func reset() {
        index = 0
        scratch.removeAll(keepingCapacity: true)
        texts.removeAll(keepingCapacity: true)
    }

    mutating func null() {
        index += 1
        sqlite3_bind_null(statement, index)
    }

    mutating func int(_ value: Int64) {
        index += 1
        sqlite3_bind_int64(statement, index, value)
    }

    mutating func double(_ value: Double) {
        index += 1
        sqlite3_bind_double(statement, index, value)
    }

    mutating func text(_ value: String) {
        index += 1
        let start = scratch.count
        var value = value
        value.withUTF8 { scratch.append(contentsOf: $0) }
        texts.append((index, start, scratch.count - start))
    }

    mutating func blob(_ value: Data) {
        index += 1
        let i = index
        value.withUnsafeBytes { bytes in
            _ = sqlite3_bind_blob(statement, i, bytes.baseAddress, Int32(bytes.count), Self.transient)
        }
    }

    /// Binds a value as JSON text, written straight into the row's buffer
    /// (``SQLiteJSONText``); what that path leaves aside goes through `tree` and `JSONWriter`,
    /// which also gives the error of a value JSON cannot hold.
    mutating func json(
        key: String, _ direct: (inout [UInt8]) throws(SQLiteJSONText.Fallback) -> Void, tree: () -> PFValue
    ) throws(PFError) {
        index += 1
        let start = scratch.count
        do {
            try direct(&scratch)
        } catch {
            scratch.removeSubrange(start...)
            do {
                try SQLiteValueCodec.writer.write(tree(), into: &scratch)
            } catch {
                throw PFError(SQLiteStoreFailure.unwritableField(key: key, code: error.code, problem: error.message), format: SQLiteStore.format, path: error.path)
            }
        }
        texts.append((index, start, scratch.count - start))
    }

    /// Binds a field value as its REST JSON.
    mutating func json(_ value: ParseValue, key: String) throws(PFError) {
        try json(key: key, { (out: inout [UInt8]) throws(SQLiteJSONText.Fallback) in try SQLiteJSONText.append(value, to: &out) },
                 tree: { value.restValue })
    }

    /// Runs the statement once with the bound row: binds its texts, steps, then clears every
    /// binding while the row's buffer is still as bound.
    func step(context: @autoclosure () -> String) throws(PFError) {
        if let long = texts.first(where: { $0.count > Int(Int32.max) }) {
            throw PFError(SQLiteStoreFailure.textTooLong(context: context(), bytes: long.count), format: SQLiteStore.format)
        }
        let code = scratch.withUnsafeBufferPointer { bytes in
            for text in texts {
                if text.count > 0, let base = bytes.baseAddress {
                    (base + text.start).withMemoryRebound(to: CChar.self, capacity: text.count) {
                        _ = sqlite3_bind_text(statement, text.index, $0, Int32(text.count), nil)  // nil: SQLITE_STATIC
                    }
                } else {
                    Self.emptyText.utf8Start.withMemoryRebound(to: CChar.self, capacity: 1) {
                        _ = sqlite3_bind_text(statement, text.index, $0, 0, nil)
                    }
                }
            }
            let code = sqlite3_step(statement)
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
            return code
        }
        guard code == SQLITE_DONE else {
            let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "SQLite error \(code)"
            throw PFError(SQLiteStoreFailure.stepFailed(context: context(), message: message, constraint: code == SQLITE_CONSTRAINT), format: SQLiteStore.format)
        }
    }

    // MARK: - Objects

    /// Binds the fixed columns and every field column of an object, in the upsert's order,
    /// after the parameters bound since the last ``reset()`` (a statement of several rows
    /// takes one object after another).
    /// (The object is read through a pointer: its fields are read in place, where passing the
    /// struct copied it, a retain and a release per string and collection it holds.)
    mutating func bind(_ object: UnsafePointer<ParseObject>, fields: OrderedDictionary<String, FieldLayout>) throws(PFError) {
        do {
            if let objectId = object.pointee.objectId { text(objectId) } else { null() }
            if let date = object.pointee.createdAt { int(try SQLiteValueCodec.milliseconds(date, key: "createdAt")) } else { null() }
            if let date = object.pointee.updatedAt { int(try SQLiteValueCodec.milliseconds(date, key: "updatedAt")) } else { null() }
            if let acl = object.pointee.acl {
                try json(key: "ACL", { (out: inout [UInt8]) throws(SQLiteJSONText.Fallback) in SQLiteJSONText.append(acl, to: &out) },
                         tree: { acl.restValue })
            } else {
                null()
            }
            let extraIndex = index + 1
            null()  // _extra, bound again below when needed
            var extra: [(key: String, value: ParseValue)] = []
            var matched = 0
            // An object's fields mostly come in the layout's order (the layout was learned
            // from such objects): compare the key at the same position before hashing.
            // The stored fields: a prepared value (a `null` placeholder there) is bound as its
            // JSON text, or made when it goes to `_extra`.
            let keys = object.pointee.storedFields.keys
            let values = object.pointee.storedFields.values
            // Read as a property (calling the object's `preparedValue(at:)` through the
            // pointer copied the whole object, for every field of every row).
            let prepared = object.pointee.preparedFields
            var position = 0
            for field in fields.values {
                let at: Int
                if position < keys.count, keys[position] == field.name {
                    at = position
                } else if let found = object.pointee.storedFields.index(forKey: field.name) {
                    at = found
                } else {
                    null()
                    continue
                }
                position = at + 1
                matched += 1
                if !prepared.isEmpty, let value = Self.preparedValue(at: at, in: prepared) {
                    if !bindPrepared(value, field) {
                        null()
                        extra.append((field.name, value.make()))
                    }
                    continue
                }
                let value = values[at]
                if try !bindColumn(value, field) {
                    null()
                    extra.append((field.name, value))
                }
            }
            if keys.count > matched {
                // Fields without a column: nulls (a null has no type to make a column of).
                for i in keys.indices where fields[keys[i]] == nil {
                    extra.append((keys[i], Self.preparedValue(at: i, in: prepared)?.make() ?? values[i]))
                }
            }
            if !extra.isEmpty {
                let end = index
                index = extraIndex - 1
                try json(
                    key: "_extra", { (out: inout [UInt8]) throws(SQLiteJSONText.Fallback) in try SQLiteJSONText.append(fields: extra, to: &out) },
                    tree: {
                        var tree = OrderedDictionary<String, PFValue>()
                        for (key, value) in extra { tree[key] = value.restValue }
                        return .dictionary(tree)
                    })
                index = end
            }
        } catch {
            // (No nested function capturing `object` here: that copies the object per row.)
            let id = object.pointee.objectId ?? "(no objectId)"
            var placed = error
            placed.message = "\(object.pointee.className) \(id): \(error.message)"
            throw placed
        }
    }

    /// The prepared value of the stored field at `index`, if it is one.
    private static func preparedValue(at index: Int, in prepared: [ParsePreparedField]) -> ParsePreparedValue? {
        for i in prepared.indices where prepared[i].index == index { return prepared[i].value }
        return nil
    }

    /// Binds a prepared value's JSON text as it is when the column is for its type; `false`
    /// (nothing bound) when it goes into `_extra`.
    mutating func bindPrepared(_ prepared: ParsePreparedValue, _ field: FieldLayout) -> Bool {
        guard field.storage == .json, field.field.type == prepared.type else { return false }
        index += 1
        let start = scratch.count
        scratch.append(contentsOf: prepared.json)
        texts.append((index, start, prepared.json.count))
        return true
    }

    /// Binds a field's value when it fits its column; `false` (nothing bound) when it goes
    /// into `_extra`: a value of another type, an empty Bytes, a pointer to another class than
    /// the schema's, a string containing U+0000 (C strings would cut it short).
    mutating func bindColumn(_ value: ParseValue, _ field: FieldLayout) throws(PFError) -> Bool {
        switch (field.storage, value) {
        case (.text, .string(let s)) where !s.utf8.contains(0): text(s)
        case (.number, .int(let i)): int(i)
        case (.number, .double(let d)):
            // SQLite stores NaN as NULL, and JSON has no NaN either.
            guard !d.isNaN else { throw SQLiteValueCodec.unrepresentable("NaN", field.name) }
            double(d)
        case (.boolean, .bool(let b)): int(b ? 1 : 0)
        case (.date, .date(let date)): int(try SQLiteValueCodec.milliseconds(date, key: field.name))
        case (.pointer, .pointer(let p)) where p.className == field.field.targetClass && !p.objectId.utf8.contains(0): text(p.objectId)
        case (.relation, .relation(let c)) where !c.utf8.contains(0): text(c)
        case (.bytes, .bytes(let d)) where !d.isEmpty: blob(d)
        case (.json, _):
            switch (field.field.type, value) {
            case (.object, .object), (.array, .array), (.file, .file), (.geoPoint, .geoPoint), (.polygon, .polygon):
                try json(value, key: field.name)
            default: return false
            }
        default: return false
        }
        return true
    }
}
