import Foundation
import OrderedCollections
import PFCore
import PFParse
import PFStores
import PostgresNIO

/// The writer's state inside its transaction.
struct WriteState {
    /// The classes written or declared, with their merged fields.
    var layouts: OrderedDictionary<String, ClassLayout> = [:]
    /// The `_SCHEMA` rows there were when the transaction began.
    var existing: OrderedDictionary<String, ClassLayout> = [:]
    /// Join tables known to exist.
    var joinTables: Set<String> = []
    /// Names encoded so far (``PFParse/ParseNameCoding``).
    var tally = ParseNameTally()
    /// Field names the last objects kept as they are (rows of a class share their key order).
    var keptNames = ParseNameCoding.KeptFields()
    /// The columns this transaction created, by class: only these may change type (a Pointer
    /// column becoming multi-class, ``ClassLayout/multiClassPointers``).
    var createdColumns: [String: Set<String>] = [:]
    /// Class tables this transaction created without their primary key, in order: their rows
    /// go in by COPY first and the key's index is built once, from all of them, by
    /// ``PostgresStore/addPrimaryKeys(only:)`` (before a merge into the table, and at commit).
    var keyless: OrderedSet<String> = []
}

/// How a ``PostgresStore`` writes objects and join rows.
enum WriteMethod: Sendable {
    /// `COPY … FROM STDIN (FORMAT binary)` into a temporary staging table, merged into the
    /// class's table with `INSERT … SELECT … ON CONFLICT` (or straight into a table the
    /// transaction created, ``CopySegment``).
    case copy
    /// Multi-row `INSERT … VALUES … ON CONFLICT`, one statement per 1000 rows (the tests'
    /// oracle: what pfarchive wrote before COPY).
    case insert
}

/// The COPY open in a transaction: rows of one class (or join table) on their way into a
/// temporary staging table, merged into the real table by ``PostgresStore/finishCopy()`` —
/// or, ``direct``, straight into a class table that this transaction created, for objects
/// whose objectId it has not written yet (nothing can be replaced: the table is invisible to
/// everyone else until `COMMIT`, and empty but for this transaction's rows).
final class CopySegment {
    /// The class or join table the rows are for.
    let target: String
    /// The table the COPY writes: a staging table (`pfarchive_copy_<n>`, temporary, dropped
    /// at the end of the transaction), or `target` itself.
    let stage: String
    /// Its columns, in COPY order.
    let columns: OrderedDictionary<String, ColumnKind>
    /// The statement that moves the staged rows into `target`; `nil` for a direct COPY.
    let merge: String?
    var direct: Bool { merge == nil }
    let stream: PostgresCopyStream
    /// The objectIds staged, in order (line N of the COPY is `ids[N - 1]`), for messages and
    /// so that a staging table never holds one objectId twice (the merge could not replace a
    /// row twice in one statement).
    var ids: [String] = []
    var idSet: Set<String> = []
    var rows = 0

    init(target: String, stage: String, columns: OrderedDictionary<String, ColumnKind>, merge: String?, stream: PostgresCopyStream) {
        self.target = target
        self.stage = stage
        self.columns = columns
        self.merge = merge
        self.stream = stream
    }
}

/// One column's value of one row, as both write methods send it (the `INSERT` as parameters,
/// COPY in ``CopyBinary``).
enum CellValue {
    case null, text(String), bool(Bool), double(Double), timestamp(Date)
    /// `_rperm` (`write` false) or `_wperm`: the ACL's keys that may read (write), as `text[]`.
    case acl(ParseACL, write: Bool)
    /// A `jsonb` value: its REST form (``PostgresJSON``).
    case json(ParseValue)
    /// A GeoPoint: x is the longitude, y the latitude.
    case point(x: Double, y: Double)
    /// A Polygon's vertices (at least one).
    case polygon([ParseGeoPoint])
}

/// How one column of a class's rows is filled, worked out once per batch
/// (`PostgresStore.columnPlans(_:layout:)`). A class: the COPY loop hands one to
/// `cell` per cell, and a struct's copy retained each of its strings (0.5 % of an import's
/// client CPU); the plan is never changed once made.
final class ColumnPlan {
    enum Source { case objectId, createdAt, updatedAt, readers, writers, field }
    let column: String
    let kind: ColumnKind
    let source: Source
    /// For a field: its name in the objects (`bcryptPassword` for `_hashed_password`), its
    /// Parse type, whether it is a multi-class Pointer, and its Pointer target class.
    let field: String
    let type: ParseFieldType
    /// ``type`` told apart without comparing strings (once per cell).
    let typeCode: FieldTypeCode
    let multiClass: Bool
    let targetClass: String?

    init(column: String, kind: ColumnKind, source: Source, field: String = "", type: ParseFieldType = .string, multiClass: Bool = false, targetClass: String? = nil) {
        self.column = column
        self.kind = kind
        self.source = source
        self.field = field
        self.type = type
        self.typeCode = FieldTypeCode(type)
        self.multiClass = multiClass
        self.targetClass = targetClass
    }
}

/// A Parse field type (``PFParse/ParseValue/fieldType``) as a small code
/// (``PFParse/ParseValue/fieldTypeCode``), so the check that a value suits its column costs
/// no string comparison per cell.
struct FieldTypeCode: Equatable {
    let raw: UInt8

    /// The code of a field type; types no value has share one code that no value gets.
    init(_ type: ParseFieldType) { raw = type.code }

    /// The code of a value's ``PFParse/ParseValue/fieldType`` (0 for null).
    @inline(__always)
    init(of value: ParseValue) { raw = value.fieldTypeCode }
}

extension PostgresStore {
    /// PostgreSQL takes at most 65535 parameters per statement.
    static let maxParameters = 65_535
    /// The most rows one `INSERT` carries.
    static let maxRowsPerInsert = 1_000

    private func notBegun() -> PFError {
        PFError(StoreFailure.notWriting(location: "\(location)"), format: StoreFormat.name)
    }

    /// Runs `body`; on error rolls the transaction back, so a failed call leaves nothing half done.
    private func rollingBack<T>(_ body: () throws(PFError) -> T) throws(PFError) -> T {
        do {
            return try body()
        } catch {
            abort()
            throw error
        }
    }

    // MARK: - ObjectStoreWriter

    public func begin(schema: ParseSchema) throws(PFError) {
        guard transaction == nil else {
            throw PFError(StoreFailure.beganTwice(location: "\(location)"), format: StoreFormat.name)
        }
        try session.query("BEGIN", doing: "starting the transaction")
        transaction = WriteState()
        copying = nil
        writtenIds = [:]
        try rollingBack { () throws(PFError) in
            try lockForWriting()
            try session.query(
                #"CREATE TABLE IF NOT EXISTS "_SCHEMA" ("className" varChar(120), "schema" jsonb, "isParseClass" bool, PRIMARY KEY ("className"))"#,
                doing: "creating _SCHEMA")
            transaction?.existing = try schemaRows()
            let schema = storedSchema(schema)
            for (className, fields) in schema.classes where !ParseRules.isJoinClassName(className) {
                try prepareClass(className, fields: fields)
            }
        }
    }

    /// The advisory lock key of pfarchive's writers (its SQLite application id, `"PFAr"`).
    static let writeLockKey = Int64(StoreLocation.pfarchiveApplicationID)

    /// One writer at a time, as for the file stores: a transaction-level advisory lock on the
    /// database, released by `COMMIT`, `ROLLBACK` or the end of the connection (a killed
    /// import). A second import is refused at once, before it creates anything: two
    /// transactions creating the same tables would otherwise fail inside PostgreSQL's
    /// catalogue (`pg_type_typname_nsp_index`) or interleave their rows.
    func lockForWriting() throws(PFError) {
        let result = try session.query("SELECT pg_try_advisory_xact_lock(\(Self.writeLockKey))", doing: "locking the database for writing")
        var locked = false
        for row in result {
            locked = (try? Array(row).first?.decode(Bool.self)) == true
            break
        }
        guard locked else {
            throw PFError(StoreFailure.beingWritten(location: "\(location)", by: .anotherImport), format: StoreFormat.name)
        }
    }

    public func extend(schema: ParseSchema) throws(PFError) {
        guard transaction != nil else { throw notBegun() }
        try rollingBack { () throws(PFError) in
            try finishCopy()
            let schema = storedSchema(schema)
            for (className, fields) in schema.classes where !ParseRules.isJoinClassName(className) {
                let known = transaction?.layouts[className]?.fields ?? [:]
                let newFields = fields.filter { known[$0.key] == nil }
                if transaction?.layouts[className] == nil || !newFields.isEmpty { try prepareClass(className, fields: newFields) }
            }
        }
    }

    public func write(_ objects: [ParseObject], className: String) throws(PFError) {
        guard transaction != nil else { throw notBegun() }
        var tally = transaction?.tally ?? ParseNameTally()
        var kept = transaction?.keptNames ?? ParseNameCoding.KeptFields()
        transaction?.keptNames = ParseNameCoding.KeptFields()  // so `kept` is the only reference to its names
        // Relation fields have no column (their rows are a join table, named by `write(_:relation:)`
        // and the schema); reading adds them to every object again. Most objects have no
        // Relation field and no name to encode: the batch is then written as it came, no copy
        // of it (a copy of an object retains every field, and releases them all again after).
        // By index, never `for object in objects`: a copy of an object retains each of its
        // fields and releases them again, on every pass over every batch.
        var copied: [ParseObject]?
        for i in objects.indices {
            let hasRelation = objects[i].fields.values.contains { if case .relation = $0 { return true } else { return false } }
            let changed: ParseObject?
            if hasRelation {
                let relationless = try objects[i].replacingFields(
                    objects[i].fields.filter { if case .relation = $0.value { return false } else { return true } })
                changed = ParseNameCoding.encodedIfChanged(relationless, policy: namePolicy, tally: &tally, kept: &kept) ?? relationless
            } else {
                changed = ParseNameCoding.encodedIfChanged(objects[i], policy: namePolicy, tally: &tally, kept: &kept)
            }
            guard let changed else { continue }
            if copied == nil { copied = objects }
            copied?[i] = changed
        }
        transaction?.tally = tally
        transaction?.keptNames = kept
        let stored = copied ?? objects
        try rollingBack { () throws(PFError) in try insert(stored, className: className) }
    }

    public func write(_ rows: [ParseJoinRow], relation: ParseRelationKey) throws(PFError) {
        guard transaction != nil else { throw notBegun() }
        var stored = relation
        stored.field = storedName(relation.field, relation: true, className: relation.owningClass)
        if stored.field != relation.field { transaction?.tally.field(relation.field, storedAs: stored.field, className: relation.owningClass) }
        try rollingBack { () throws(PFError) in try insert(rows, relation: stored) }
    }

    public func commit() throws(PFError) {
        guard transaction != nil else { throw notBegun() }
        try rollingBack { () throws(PFError) in
            try finishCopy()
            try addPrimaryKeys()
            guard let state = transaction else { throw notBegun() }
            for var layout in state.layouts.values {
                if let encoded = state.tally.classes[layout.className] {
                    var names = layout.originalNames ?? [:]
                    for (original, entry) in encoded {
                        guard let stored = entry.storedName else { continue }
                        if let other = names[stored], other != original {
                            throw PFError(
                                PostgresStoreFailure.columnNameClash(
                                    location: "\(location)", className: layout.className, field: original, other: other, column: stored),
                                format: StoreFormat.name)
                        }
                        names[stored] = original
                    }
                    layout.originalNames = names
                }
                var binds = PostgresBindings()
                binds.append(layout.className)
                binds.append(try PostgresJSON.text(layout.schemaDocument, what: "\(location): the _SCHEMA row of \(layout.className)"))
                try session.query(
                    #"""
                    INSERT INTO "_SCHEMA" ("className", "schema", "isParseClass") VALUES ($1, $2::jsonb, true)
                    ON CONFLICT ("className") DO UPDATE SET "schema" = EXCLUDED."schema", "isParseClass" = true
                    """#, binds, doing: "writing the _SCHEMA row of \(layout.className)")
            }
            try session.query("COMMIT", doing: "committing")
            encodedNames = state.tally
            writtenIds = [:]
        }
        transaction = nil
    }

    public func abort() {
        guard transaction != nil else { return }
        transaction = nil
        // A COPY still open ends with CopyFail, so that the connection takes the ROLLBACK.
        copying?.stream.cancel()
        copying = nil
        writtenIds = [:]
        _ = try? session.query("ROLLBACK", doing: "rolling back")
    }

    // MARK: - Names

    /// A field's name as stored: encoded for parse-server's rules and 63-byte identifiers,
    /// and for a Relation short enough that its join table `_Join:<field>:<Class>` is too.
    func storedName(_ name: String, relation: Bool, className: String) -> String {
        var policy = namePolicy
        if relation, let max = policy.maxFieldBytes {
            policy.maxFieldBytes = Swift.max(24, max - "_Join::".utf8.count - className.utf8.count)
        }
        return ParseNameCoding.encodeField(name, policy: policy, className: className)
    }

    /// A schema with stored names, the encoded ones noted for the table of originals.
    private func storedSchema(_ schema: ParseSchema) -> ParseSchema {
        var out = ParseSchema()
        for (className, fields) in schema.classes {
            var stored = OrderedDictionary<String, ParseSchema.Field>()
            for (name, field) in fields {
                let storedName = storedName(name, relation: field.type == .relation, className: className)
                if storedName != name { transaction?.tally.field(name, storedAs: storedName, className: className) }
                if stored[storedName] == nil { stored[storedName] = field }
            }
            out.classes[className] = stored
        }
        return out
    }

    // MARK: - Tables

    /// Merges fields into a class's layout and makes its table (and join tables) match.
    private func prepareClass(_ className: String, fields newFields: OrderedDictionary<String, ParseSchema.Field>) throws(PFError) {
        guard var state = transaction else { throw notBegun() }
        try ParseRules.checkClassName(className)
        guard className.utf8.count <= PostgresStoreFailure.maxNameBytes else {
            throw PFError(PostgresStoreFailure.nameTooLong(location: "\(location)", what: "class \(className)", name: className), format: StoreFormat.name)
        }
        let known = state.layouts[className]
        var layout = known ?? state.existing[className] ?? ClassLayout(className: className, fields: [:])
        if known == nil, layout.isUser {
            for (name, field) in ClassLayout.userDefaultFields where layout.fields[name] == nil { layout.fields[name] = field }
        }
        var changed = known == nil
        var added: [String] = []
        for (name, field) in newFields where !ClassLayout.isDefaultField(name) && field.type != .acl {
            if let old = layout.fields[name] {
                // A multi-class Pointer field takes pointers to any class.
                if old.type != field.type
                    || (old.targetClass != nil && field.targetClass != nil && old.targetClass != field.targetClass
                        && !layout.multiClassPointers.contains(name))
                {
                    throw PFError(
                        PostgresStoreFailure.fieldTypeChanged(
                            location: "\(location)", className: className, field: name, stored: "\(old)", incoming: "\(field)"),
                        format: StoreFormat.name)
                }
                if old.targetClass == nil, field.targetClass != nil {
                    layout.fields[name]?.targetClass = field.targetClass
                }
            } else {
                layout.fields[name] = field
                added.append(name)
                changed = true
            }
        }
        guard changed else { return }

        let existingColumns = try columns(of: className)
        let wanted = layout.wantedColumns
        if existingColumns.isEmpty {
            // COPY fills a new table before its primary key exists (``WriteState/keyless``).
            let keyless = writeMethod == .copy
            let definitions = wanted.map { "\(quoted($0.key)) \($0.value.sqlType)" } + (keyless ? [] : [#"PRIMARY KEY ("objectId")"#])
            try session.query(
                "CREATE TABLE \(quoted(className)) (\(definitions.joined(separator: ", ")))", doing: "creating table \(className)")
            state.createdColumns[className, default: []].formUnion(wanted.keys)
            if keyless { state.keyless.append(className) }
        } else {
            for (column, kind) in wanted {
                if let present = existingColumns[column] {
                    guard present == kind || (present == .text && kind == .varchar120) || (present == .varchar120 && kind == .text) else {
                        throw PFError(
                            PostgresStoreFailure.columnType(
                                location: "\(location)", className: className, column: column, present: present.map(\.sqlType), expected: kind.sqlType),
                            format: StoreFormat.name)
                    }
                    // A Number column written before without pfarchive's note: its kinds are unknown.
                    if kind == .double, known == nil, layout.numberKinds[column] == nil, layout.fields[column] != nil {
                        layout.numberKinds[column] = .mixed
                    }
                } else {
                    try session.query(
                        "ALTER TABLE \(quoted(className)) ADD COLUMN \(quoted(column)) \(kind.sqlType)",
                        doing: "adding column \(className).\(column)")
                    state.createdColumns[className, default: []].insert(column)
                }
            }
        }
        layout.columns = wanted
        // The source model's primary key (unique) and indexed fields (a Realm model's), as the
        // `_SCHEMA` document's `indexes` lists them (``ClassLayout/modelIndexes``).
        for name in added where wanted[name] != nil {
            for (index, unique) in layout.modelIndexes(of: name) {
                try session.query(
                    "CREATE \(unique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(quoted(index)) ON \(quoted(className)) (\(quoted(name)))",
                    doing: "indexing \(className).\(name)")
            }
        }
        for (name, field) in layout.fields where field.type == .relation {
            try ensureJoinTable(ParseRelationKey(owningClass: className, field: name), state: &state)
        }
        state.layouts[className] = layout
        transaction = state
    }

    private func ensureJoinTable(_ key: ParseRelationKey, state: inout WriteState) throws(PFError) {
        let table = key.joinClassName
        guard !state.joinTables.contains(table) else { return }
        // The field was shortened as far as a shortened name goes (``storedName(_:relation:className:)``).
        guard table.utf8.count <= PostgresStoreFailure.maxNameBytes else {
            let what = "the join rows of Relation \(key.field) of \(key.owningClass)"
            throw PFError(PostgresStoreFailure.nameTooLong(location: "\(location)", what: what, name: table), format: StoreFormat.name)
        }
        try session.query(
            #"CREATE TABLE IF NOT EXISTS \#(quoted(table)) ("relatedId" varChar(120), "owningId" varChar(120), PRIMARY KEY ("relatedId", "owningId"))"#,
            doing: "creating \(table)")
        state.joinTables.insert(table)
    }

    // MARK: - Objects

    private func insert(_ objects: [ParseObject], className: String) throws(PFError) {
        guard !objects.isEmpty else {
            if transaction?.layouts[className] == nil { try prepareClass(className, fields: [:]) }
            return
        }
        // Fields the schema did not announce get columns too.
        let known = transaction?.layouts[className]?.fields ?? [:]
        var newFields = OrderedDictionary<String, ParseSchema.Field>()
        // The names with a column (known or new), by their position in the objects before: rows
        // of a class share their key order, so a field costs a comparison of equal strings, not
        // two look-ups by name.
        var settled: [String] = []
        for index in objects.indices {
            // By index: only a new field's value is looked at (copying each retains it).
            let fields = objects[index].fields
            let keys = fields.keys.elements
            for i in keys.indices {
                let key = keys[i]
                if i < settled.count, settled[i] == key { continue }
                if known.index(forKey: key) == nil, newFields.index(forKey: key) == nil {
                    guard let field = ParseSchema.fieldType(of: fields.values[i]) else { continue }
                    newFields[key] = field
                }
                if i < settled.count { settled[i] = key } else if i == settled.count { settled.append(key) }
            }
        }
        if transaction?.layouts[className] == nil || !newFields.isEmpty {
            // The staged rows go in before the table changes, as they would have row by row.
            try finishCopy()
            try prepareClass(className, fields: newFields)
        }
        guard var layout = transaction?.layouts[className] else { throw notBegun() }
        try settlePointerTargets(objects, layout: &layout)

        // The last object with an id wins, as a later write replaces an earlier one: `order`
        // holds each objectId once, where it first came, and `picks` the index in `objects` of
        // its last object (indices, not copies of the objects: a copy retains every field).
        var order: [String] = []
        var picks: [Int] = []
        var slots: [String: Int] = [:]
        order.reserveCapacity(objects.count)
        picks.reserveCapacity(objects.count)
        slots.reserveCapacity(objects.count)
        for i in objects.indices {
            guard objects[i].className == className else {
                throw PFError(StoreFailure.wrongClassInBatch(location: "\(location)", index: i, objectId: objects[i].objectId, className: objects[i].className, batchClass: className), format: StoreFormat.name)
            }
            guard let id = objects[i].objectId, !id.isEmpty else {
                throw PFError(PostgresStoreFailure.noObjectId(location: "\(location)", className: className, index: i), format: StoreFormat.name)
            }
            guard id.utf8.count <= 120 || id.count <= 120, !CopyBinary.holdsNUL(id) else {
                throw PFError(PostgresStoreFailure.badObjectId(location: "\(location)", className: className, prefix: String(id.prefix(40))), format: StoreFormat.name)
            }
            if let slot = slots.updateValue(order.count, forKey: id) {
                slots[id] = slot
                picks[slot] = i
            } else {
                order.append(id)
                picks.append(i)
            }
        }

        var columns = ClassLayout.baseColumns
        if layout.isUser { columns[ClassLayout.passwordColumn] = .text }
        for (name, field) in layout.fields where !(layout.isUser && name == ClassLayout.passwordField) {
            if let kind = layout.columnKind(name, field) { columns[name] = kind }
        }
        let names = Array(columns.keys)
        let updates = names.dropFirst().map { "\(quoted($0)) = EXCLUDED.\(quoted($0))" }.joined(separator: ", ")
        let tail = #" ON CONFLICT ("objectId") DO UPDATE SET \#(updates)"#
        let plans = columnPlans(columns, layout: layout)
        // The kinds of numbers each column received in this batch, noted in the layout after it.
        var numbers = [NumberKind?](repeating: nil, count: plans.count)
        defer {
            for (i, kind) in numbers.enumerated() {
                if let kind { layout.numberKinds[plans[i].field] = kind.merged(with: layout.numberKinds[plans[i].field]) }
            }
            transaction?.layouts[className] = layout
        }
        if writeMethod == .copy {
            try copy(order, picks, objects, className: className, plans: plans, numbers: &numbers, mergeTail: tail)
            return
        }
        let head = "INSERT INTO \(quoted(className)) (\(names.map(quoted).joined(separator: ", "))) VALUES "
        let perStatement = max(1, min(Self.maxRowsPerInsert, Self.maxParameters / names.count))

        var start = 0
        while start < order.count {
            let end = min(order.count, start + perStatement)
            var binds = PostgresBindings(capacity: (end - start) * names.count)
            var tuples: [String] = []
            tuples.reserveCapacity(end - start)
            var parameter = 0
            for (id, pick) in zip(order[start..<end], picks[start..<end]) {
                let object = objects[pick]
                var placeholders: [String] = []
                for (i, plan) in plans.enumerated() {
                    // No position hint: this path is COPY's oracle, so it finds every field by name.
                    var hint = -1
                    switch try cell(object, plan, numbers: &numbers[i], hint: &hint, className: className) {
                    case .null: binds.appendNull()
                    case .text(let s): binds.append(s)
                    case .bool(let b): binds.append(b)
                    case .double(let d): binds.append(d)
                    case .timestamp(let d):
                        guard let micros = CopyBinary.microseconds(d) else {
                            throw PFError(
                                PostgresStoreFailure.dateOutOfRange(
                                    location: "\(location)", className: className, objectId: id, field: plan.column, seconds: d.timeIntervalSince1970),
                                format: StoreFormat.name)
                        }
                        binds.append(PostgresTimestamp(microseconds: micros))
                    case .acl(let acl, let write): binds.append(acl.entries.filter { write ? $0.value.write : $0.value.read }.map(\.key))
                    case .json(let v): binds.append(try PostgresJSON.text(v.restValue, what: "\(location): \(className) '\(id)' field \(plan.column)"))
                    case .point(let x, let y): binds.append("(\(Self.float(x)),\(Self.float(y)))")
                    case .polygon(let p): binds.append("(" + p.map { "(\(Self.float($0.longitude)),\(Self.float($0.latitude)))" }.joined(separator: ",") + ")")
                    }
                    parameter += 1
                    placeholders.append("$\(parameter)\(plan.kind.cast)")
                }
                tuples.append("(" + placeholders.joined(separator: ", ") + ")")
            }
            try session.query(
                head + tuples.joined(separator: ", ") + tail, binds,
                doing: "writing \(className) objects \(order[start]) … \(order[end - 1])")
            start = end
        }
    }

    /// How each column of a class's rows is filled (the layout's Pointer targets settled).
    private func columnPlans(_ columns: OrderedDictionary<String, ColumnKind>, layout: ClassLayout) -> [ColumnPlan] {
        columns.map { column, kind in
            switch column {
            case "objectId": return ColumnPlan(column: column, kind: kind, source: .objectId)
            case "createdAt": return ColumnPlan(column: column, kind: kind, source: .createdAt)
            case "updatedAt": return ColumnPlan(column: column, kind: kind, source: .updatedAt)
            case "_rperm": return ColumnPlan(column: column, kind: kind, source: .readers)
            case "_wperm": return ColumnPlan(column: column, kind: kind, source: .writers)
            default:
                let name = layout.isUser && column == ClassLayout.passwordColumn ? ClassLayout.passwordField : column
                let field = layout.fields[name]
                return ColumnPlan(
                    column: column, kind: kind, source: .field, field: name, type: field?.type ?? .string,
                    multiClass: layout.multiClassPointers.contains(name), targetClass: field?.targetClass)
            }
        }
    }

    /// Adds the primary key of the class tables this transaction created without one
    /// (``WriteState/keyless``), or of one of them: PostgreSQL builds the index from the rows
    /// in one sort, where a key there from the start takes every row into the index one by one.
    func addPrimaryKeys(only className: String? = nil) throws(PFError) {
        guard let keyless = transaction?.keyless else { return }
        for table in keyless where className == nil || table == className {
            try session.query(
                #"ALTER TABLE \#(quoted(table)) ADD PRIMARY KEY ("objectId")"#, doing: "adding the primary key of \(table)")
            transaction?.keyless.remove(table)
        }
    }

    // MARK: - COPY

    /// Sends a class's objects (deduplicated, in order) to its COPY, opening one when none is
    /// open for these columns; a staging table that is full, or already holds one of the
    /// objectIds, is merged first.
    private func copy(
        _ order: [String], _ picks: [Int], _ objects: [ParseObject], className: String, plans: [ColumnPlan],
        numbers: inout [NumberKind?], mergeTail: String
    ) throws(PFError) {
        var columns = OrderedDictionary<String, ColumnKind>()
        for plan in plans { columns[plan.column] = plan.kind }
        // Into a table this transaction created, objects it has not written go in directly.
        var direct = false
        if transaction?.createdColumns[className]?.contains("objectId") == true {
            let hashes = order.map(\.hashValue)
            direct = !hashes.contains(where: writtenIds[className, default: []].contains)
            writtenIds[className, default: []].formUnion(hashes)
        }
        if let open = copying,
            open.target != className || open.columns != columns || open.direct != direct
                || open.rows + order.count > (open.direct ? directCopySegmentRows : copySegmentRows)
                || order.contains(where: open.idSet.contains)
        {
            try finishCopy()
        }
        let names = columns.keys.map(quoted).joined(separator: ", ")
        let segment: CopySegment
        if let open = copying {
            segment = open
        } else if direct {
            segment = CopySegment(
                target: className, stage: className, columns: columns, merge: nil,
                stream: try session.copy(into: className, columns: Array(columns.keys), inFlight: copyBatchesInFlight))
            copying = segment
        } else {
            segment = try startCopy(
                target: className, columns: columns,
                merge: "INSERT INTO \(quoted(className)) (\(names)) SELECT \(names) FROM %STAGE%" + mergeTail)
        }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(320 * order.count)
        var hints = [Int](repeating: -1, count: plans.count)
        for (id, pick) in zip(order, picks) {
            // One copy per row: `objects[pick]` in the cell loop made one per cell.
            let object = objects[pick]
            CopyBinary.beginRow(columns: plans.count, in: &buffer)
            for i in plans.indices {
                func tooLong() -> PFError {
                    PFError(
                        PostgresStoreFailure.valueTooLong(location: "\(location)", className: className, objectId: id, column: plans[i].column),
                        format: StoreFormat.name)
                }
                switch try cell(object, plans[i], numbers: &numbers[i], hint: &hints[i], className: className) {
                case .null: CopyBinary.appendNull(to: &buffer)
                case .text(let s): guard CopyBinary.append(s, to: &buffer) else { throw tooLong() }
                case .bool(let b): CopyBinary.append(b, to: &buffer)
                case .double(let d): CopyBinary.append(d, to: &buffer)
                case .timestamp(let d):
                    guard let micros = CopyBinary.microseconds(d) else {
                        throw PFError(
                            PostgresStoreFailure.dateOutOfRange(
                                location: "\(location)", className: className, objectId: id, field: plans[i].column, seconds: d.timeIntervalSince1970),
                            format: StoreFormat.name)
                    }
                    CopyBinary.appendTimestamp(micros, to: &buffer)
                case .acl(let acl, let write):
                    guard CopyBinary.appendACL(acl, write: write, to: &buffer) else { throw tooLong() }
                case .json(let v):
                    // The text goes straight into the row, its length in front of it after.
                    let start = CopyBinary.beginJSONB(in: &buffer)
                    if !PostgresJSON.appendPlain(v, into: &buffer) {
                        try PostgresJSON.write(v.restValue, into: &buffer, what: "\(location): \(className) '\(id)' field \(plans[i].column)")
                    }
                    guard CopyBinary.endJSONB(start, in: &buffer) else { throw tooLong() }
                case .point(let x, let y): CopyBinary.appendPoint(x: x, y: y, to: &buffer)
                case .polygon(let p):
                    guard CopyBinary.appendPolygon(p.map { (x: $0.longitude, y: $0.latitude) }, to: &buffer) else { throw tooLong() }
                }
            }
        }
        segment.ids.append(contentsOf: order)
        if !direct { segment.idSet.formUnion(order) }
        segment.rows += order.count
        try send(buffer, to: segment)
    }

    /// Creates a staging table like `columns` and starts its COPY.
    private func startCopy(target: String, columns: OrderedDictionary<String, ColumnKind>, merge: String) throws(PFError) -> CopySegment {
        stagingTables += 1
        let stage = "pfarchive_copy_\(stagingTables)"
        let definitions = columns.map { "\(quoted($0.key)) \($0.value.sqlType)" }.joined(separator: ", ")
        try session.query(
            "CREATE TEMPORARY TABLE \(quoted(stage)) (\(definitions)) ON COMMIT DROP", doing: "creating the staging table for \(target)")
        let segment = CopySegment(
            target: target, stage: stage, columns: columns, merge: merge.replacingOccurrences(of: "%STAGE%", with: quoted(stage)),
            stream: try session.copy(into: stage, inFlight: copyBatchesInFlight))
        copying = segment
        return segment
    }

    /// Sends rows (``CopyBinary``) to the segment's COPY, as one buffer.
    private func send(_ rows: [UInt8], to segment: CopySegment) throws(PFError) {
        var buffer = ByteBufferAllocator().buffer(capacity: rows.count)
        buffer.writeBytes(rows)
        do {
            try segment.stream.send(buffer)
        } catch {
            throw copyError(error, segment)
        }
    }

    /// Ends the open COPY, if any, and merges its staging table into its table.
    func finishCopy() throws(PFError) {
        guard let segment = copying else { return }
        copying = nil
        do {
            try segment.stream.finish()
        } catch {
            throw copyError(error, segment)
        }
        guard let merge = segment.merge else { return }
        // ON CONFLICT needs the key's index.
        try addPrimaryKeys(only: segment.target)
        try session.query(merge, doing: "merging the staged rows into \(segment.target)")
        try session.query("DROP TABLE \(quoted(segment.stage))", doing: "dropping \(segment.stage)")
    }

    /// A COPY's error, naming the object of the line the server refused.
    private func copyError(_ error: any Error, _ segment: CopySegment) -> PFError {
        let described = PostgresSession.describe(error, url: url, doing: "copying rows into \(segment.target)")
        guard case .queryFailed(_, _, let detail, let sqlState, let at?)? = described.failure(as: PostgresStoreFailure.self),
            at.table == segment.stage, segment.ids.indices.contains(at.line - 1)
        else { return described }
        return PFError(
            PostgresStoreFailure.rowRefused(
                location: "\(location)", table: segment.target, objectId: segment.ids[at.line - 1], sqlState: sqlState, detail: detail),
            format: StoreFormat.name)
    }

    /// The value of one column of one object (noting the kinds of Number it holds in `numbers`).
    ///
    /// `hint` is where the field was in the previous object (rows of a class mostly share
    /// their key order): a field found there costs no hash of its name.
    private func cell(
        _ object: ParseObject, _ plan: ColumnPlan, numbers: inout NumberKind?, hint: inout Int, className: String
    ) throws(PFError) -> CellValue {
        switch plan.source {
        case .objectId: return .text(object.objectId ?? "")
        case .createdAt: return object.createdAt.map(CellValue.timestamp) ?? .null
        case .updatedAt: return object.updatedAt.map(CellValue.timestamp) ?? .null
        case .readers: return object.acl.map { .acl($0, write: false) } ?? .null
        case .writers: return object.acl.map { .acl($0, write: true) } ?? .null
        case .field: break
        }
        let fields = object.fields
        let found: Int?
        if hint >= 0, hint < fields.count, fields.keys[hint] == plan.field {
            found = hint
        } else {
            found = fields.index(forKey: plan.field)
            if let found { hint = found }
        }
        guard let found else { return .null }
        let value = fields.values[found]
        if case .null = value { return .null }
        func fail(_ problem: String) -> PFError {
            PFError(
                PostgresStoreFailure.badFieldValue(
                    location: "\(location)", className: className, objectId: object.objectId ?? "", field: plan.column, problem: problem),
                format: StoreFormat.name)
        }
        guard FieldTypeCode(of: value) == plan.typeCode else {
            throw fail("holds a \(value.fieldType?.rawValue ?? "null") but the column is for \(plan.type) (\(plan.kind.sqlType))")
        }
        func text(_ s: String) throws(PFError) -> String {
            guard !CopyBinary.holdsNUL(s) else { throw fail("holds U+0000, which PostgreSQL text cannot store") }
            return s
        }
        switch value {
        case .string(let s): return .text(try text(s))
        case .bool(let b): return .bool(b)
        case .int(let i):
            numbers = NumberKind.integer.merged(with: numbers)
            return .double(Double(i))
        case .double(let d):
            numbers = NumberKind.double.merged(with: numbers)
            return .double(d)
        case .date(let d): return .timestamp(d)
        case .pointer, .embedded:
            guard let pointer = value.pointerValue else { throw fail("is an embedded object without an objectId") }
            if plan.multiClass { return .json(.pointer(pointer)) }
            if let target = plan.targetClass, target != pointer.className {
                throw fail("points at \(pointer.className) but the field is Pointer<\(target)>; parse-server keeps one target class per field")
            }
            return .text(try text(pointer.objectId))
        case .file(let f): return .text(try text(f.name))
        case .geoPoint(let g): return .point(x: g.longitude, y: g.latitude)
        case .polygon(let p):
            guard !p.coordinates.isEmpty else { throw fail("is a polygon without points") }
            return .polygon(p.coordinates)
        case .object, .array, .bytes:
            return .json(value)
        case .relation, .null:
            return .null
        }
    }

    /// Gives a Pointer field without a target class the class of its first value, and makes a
    /// Pointer field that receives a second class multi-class (``ClassLayout/multiClassPointers``):
    /// its column, created by this transaction, becomes `jsonb` holding REST pointers, the rows
    /// written so far converted with the declared target class. A column that existed before
    /// the transaction keeps its type (parse-server and its apps rely on it): such a value is
    /// refused.
    private func settlePointerTargets(_ objects: [ParseObject], layout: inout ClassLayout) throws(PFError) {
        let pointerFields = layout.fields.filter { $0.value.type == .pointer }.keys
        // Mostly every pointer already points at its field's class (or the field is
        // multi-class): one pass with no lookup in the layout finds that, and nothing changes.
        var expected: [(name: String, target: String?)] = []
        for name in pointerFields {
            if layout.multiClassPointers.contains(name) { continue }
            expected.append((name, layout.fields[name]?.targetClass))
        }
        // Each field is looked for where it was in the previous object first (rows of a
        // class share their key order): a look-up by name compared it with every key before it.
        var hints = [Int](repeating: -1, count: expected.count)
        let settled = expected.allSatisfy { $0.target != nil } && objects.indices.allSatisfy { index in
            let fields = objects[index].fields
            for e in expected.indices {
                let found: Int
                if hints[e] >= 0, hints[e] < fields.count, fields.keys[hints[e]] == expected[e].name {
                    found = hints[e]
                } else if let at = fields.index(forKey: expected[e].name) {
                    found = at
                    hints[e] = at
                } else {
                    continue
                }
                switch fields.values[found] {
                case .pointer(let pointer): if pointer.className != expected[e].target { return false }
                case .embedded(let object): if object.objectId != nil, object.className != expected[e].target { return false }
                default: break
                }
            }
            return true
        }
        for object in objects where !pointerFields.isEmpty && !settled {
            for name in pointerFields {
                guard let value = object.fields[name], let field = layout.fields[name], field.type == .pointer,
                    !layout.multiClassPointers.contains(name), let pointer = value.pointerValue
                else { continue }
                guard let target = field.targetClass else {
                    layout.fields[name]?.targetClass = pointer.className
                    continue
                }
                if target == pointer.className { continue }
                let column = layout.column(forField: name)
                guard transaction?.createdColumns[layout.className]?.contains(column) == true else {
                    throw PFError(
                        PostgresStoreFailure.pointerTargetFixed(
                            location: "\(location)", className: layout.className, objectId: object.objectId ?? "", field: name,
                            pointsAt: pointer.className, target: target),
                        format: StoreFormat.name)
                }
                try finishCopy()
                let literal = "'" + target.doublingEvery("'") + "'"
                try session.query(
                    """
                    ALTER TABLE \(quoted(layout.className)) ALTER COLUMN \(quoted(column)) TYPE jsonb USING CASE WHEN \(quoted(column)) IS NULL THEN NULL \
                    ELSE jsonb_build_object('__type', 'Pointer', 'className', \(literal)::text, 'objectId', \(quoted(column))) END
                    """, doing: "storing \(layout.className).\(name) as pointers to several classes")
                layout.multiClassPointers.insert(name)
                layout.columns[column] = .jsonb
            }
        }
        transaction?.layouts[layout.className] = layout
    }

    /// A double as PostgreSQL's float8 input reads it back exactly.
    static func float(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
        return "\(d)"
    }

    // MARK: - Join rows

    private func insert(_ rows: [ParseJoinRow], relation: ParseRelationKey) throws(PFError) {
        guard var state = transaction else { throw notBegun() }
        let key = ParseRelationKey(owningClass: relation.owningClass, field: relation.field)
        if state.layouts[key.owningClass]?.fields[key.field]?.type != .relation {
            try finishCopy()
            try prepareClass(key.owningClass, fields: [key.field: ParseSchema.Field(.relation, targetClass: relation.targetClass)])
            guard let updated = transaction else { throw notBegun() }
            state = updated
        }
        try ensureJoinTable(key, state: &state)
        transaction = state
        guard !rows.isEmpty else { return }
        if writeMethod == .copy {
            let table = key.joinClassName
            if let open = copying, open.target != table { try finishCopy() }
            let columns: OrderedDictionary<String, ColumnKind> = ["relatedId": .varchar120, "owningId": .varchar120]
            let segment: CopySegment
            if let open = copying {
                segment = open
            } else {
                segment = try startCopy(
                    target: table, columns: columns,
                    merge: #"INSERT INTO \#(quoted(table)) ("relatedId", "owningId") SELECT "relatedId", "owningId" FROM %STAGE% ON CONFLICT DO NOTHING"#)
            }
            var buffer: [UInt8] = []
            buffer.reserveCapacity(48 * rows.count)
            for (i, row) in rows.enumerated() {
                CopyBinary.beginRow(columns: 2, in: &buffer)
                for id in [row.relatedId, row.owningId] {
                    guard !id.isEmpty, id.utf8.count <= 120 || id.count <= 120, !CopyBinary.holdsNUL(id), CopyBinary.append(id, to: &buffer) else {
                        throw PFError(
                            PostgresStoreFailure.badJoinId(location: "\(location)", table: table, row: i, owningId: row.owningId, relatedId: row.relatedId),
                            format: StoreFormat.name)
                    }
                }
            }
            segment.rows += rows.count
            try send(buffer, to: segment)
            return
        }
        let perStatement = min(Self.maxRowsPerInsert, Self.maxParameters / 2)
        var start = 0
        while start < rows.count {
            let end = min(rows.count, start + perStatement)
            var binds = PostgresBindings(capacity: 2 * (end - start))
            var tuples: [String] = []
            for (i, row) in rows[start..<end].enumerated() {
                for id in [row.relatedId, row.owningId] {
                    guard !id.isEmpty, id.utf8.count <= 120 || id.count <= 120, !CopyBinary.holdsNUL(id) else {
                        throw PFError(
                            PostgresStoreFailure.badJoinId(
                                location: "\(location)", table: key.joinClassName, row: start + i, owningId: row.owningId, relatedId: row.relatedId),
                            format: StoreFormat.name)
                    }
                    binds.append(id)
                }
                tuples.append("($\(2 * i + 1)::text, $\(2 * i + 2)::text)")
            }
            try session.query(
                #"INSERT INTO \#(quoted(key.joinClassName)) ("relatedId", "owningId") VALUES \#(tuples.joined(separator: ", ")) ON CONFLICT DO NOTHING"#,
                binds, doing: "writing \(key.joinClassName) rows")
            start = end
        }
    }
}
