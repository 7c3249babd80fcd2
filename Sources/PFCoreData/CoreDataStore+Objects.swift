import Foundation
import OrderedCollections
import PFCore
import PFSQLiteSource

// MARK: - Identity

extension CoreDataStore {
    /// The stable Parse `objectId` of a row: `<entity name>-<Z_PK>`, such as `Car-17`.
    ///
    /// `Z_PK` is unique within a root entity's table and entity names cannot contain `-`, so
    /// the id is unique in the store and the same on every read. It uses the row's concrete
    /// entity (the `Z_ENT` of the row), which is also the object's `className`.
    /// - Parameters:
    ///   - entity: the entity name.
    ///   - primaryKey: the row's `Z_PK`.
    public static func objectID(entity: String, primaryKey: Int64) -> String {
        "\(entity)-\(primaryKey)"
    }

    /// The `Z_ENT` of an entity in this store, or `nil` when the store has no such entity.
    public func entityID(_ entity: String) -> Int64? { layout.entities[entity]?.id }

    /// The table holding an entity's rows (its root entity's table), or `nil`.
    public func tableName(entity: String) -> String? { layout.entities[entity]?.table }

    /// The properties of an entity that could not be placed in a column or join table, with
    /// the reason; they are left out of objects and join rows.
    public func unmappedProperties(entity: String) -> [String: String] { layout.entities[entity]?.unmapped ?? [:] }

    func entityLayout(_ entity: String) throws(PFError) -> CoreDataLayout.EntityLayout {
        guard let layout = layout.entities[entity] else {
            throw PFError(
                CoreDataFailure.noEntity(entity, file: url.lastPathComponent, known: self.layout.entityOrder), format: .coreData)
        }
        return layout
    }
}

// MARK: - Counting

extension CoreDataStore {
    /// The number of rows whose `Z_ENT` is exactly this entity's (subentities not included).
    /// - Throws: ``PFError`` `usage` for an unknown entity; `invalidValue`/`syntax` when SQLite fails.
    public func rowCount(entity: String) throws(PFError) -> Int {
        let layout = try entityLayout(entity)
        guard let id = layout.id, let table = layout.table else { return 0 }
        let rows = try self.rows(
            "SELECT COUNT(*) FROM \(Self.quote(table)) WHERE \(layout.keys.entityKey()) = ?", [.integer(id)],
            context: "\(url.lastPathComponent): counting \(entity) rows in \(table)")
        return rows.first?.first?.int64.flatMap { Int(exactly: $0) } ?? 0
    }
}

// MARK: - Objects

/// A streaming reader of one entity's objects, a batch of rows at a time, in `Z_PK` order.
///
/// Memory stays bounded by the batch size whatever the store's size. Rows are read by
/// `Z_PK > last`, so each batch is an independent query.
public struct CoreDataObjectCursor: Sendable {
    let store: CoreDataStore
    let entity: String
    let layout: CoreDataLayout.EntityLayout
    /// Property name → field (``CoreDataEntity/fieldNames``).
    let fieldNames: [String: String]
    let batchSize: Int
    var lastKey: Int64 = .min
    var buffer: [PFValue] = []
    var position = 0
    var finished = false
    /// Values a row did not hold as its model says, with what was kept instead (the first
    /// 1,000 kept, all counted).
    public private(set) var reports = SQLiteRowReports()
    /// Called with each report as it is made, the 1,001st and later too (the CLI prints them).
    public var onReport: (@Sendable (SQLiteRowReport) -> Void)? {
        get { reports.onReport }
        set { reports.onReport = newValue }
    }

    init(store: CoreDataStore, entity: String, layout: CoreDataLayout.EntityLayout, batchSize: Int) {
        self.store = store
        self.entity = entity
        self.layout = layout
        fieldNames = store.model.entity(named: entity)?.fieldNames ?? [:]
        self.batchSize = max(1, batchSize)
        finished = layout.id == nil || layout.table == nil
    }

    /// The next object, or `nil` after the last.
    /// - Throws: ``PFError`` when SQLite fails to read a batch.
    public mutating func next() throws(PFError) -> PFValue? {
        if position == buffer.count {
            if finished { return nil }
            try fetchBatch()
            if buffer.isEmpty { return nil }
        }
        defer { position += 1 }
        return buffer[position]
    }

    mutating func fetchBatch() throws(PFError) {
        guard let id = layout.id, let table = layout.table else {
            finished = true
            return
        }
        var columns = layout.attributes.map(\.column)
        for composite in layout.composites { columns += composite.elements.map(\.column) }
        for toOne in layout.toOne {
            columns.append(toOne.column)
            if let entityColumn = toOne.entityColumn { columns.append(entityColumn) }
        }
        let key = layout.keys.primaryKey()
        let sql = "SELECT \(([key] + columns.map(CoreDataStore.quote)).joined(separator: ", ")) FROM \(CoreDataStore.quote(table)) "
            + "WHERE \(layout.keys.entityKey()) = ? AND \(key) > ? ORDER BY \(key) LIMIT ?"
        let after = lastKey
        let limit = batchSize
        let rows = try store.rows(
            sql, [.integer(id), .integer(after), .integer(Int64(limit))],
            context: "\(store.url.lastPathComponent): reading \(entity) rows from \(table)")
        buffer = []
        position = 0
        buffer.reserveCapacity(rows.count)
        for row in rows {
            guard row.count == columns.count + 1, let key = row[0].int64 else { continue }
            lastKey = key
            buffer.append(object(row, key: key))
        }
        if rows.count < batchSize { finished = true }
    }

    mutating func object(_ row: [SQLiteValue], key: Int64) -> PFValue {
        let objectID = CoreDataStore.objectID(entity: entity, primaryKey: key)
        var object: OrderedDictionary<String, PFValue> = ["className": .string(entity), "objectId": .string(objectID)]
        var index = 1
        let converter = store.converter
        for (attribute, _) in layout.attributes {
            let (value, warning) = converter.convert(row[index], as: attribute)
            index += 1
            if let warning { report(objectID, attribute.name, warning) }
            if value != .null { object[fieldName(attribute.name)] = value }
        }
        for composite in layout.composites {
            // A dictionary of the elements, as Core Data gives a composite attribute's value;
            // an element that is a composite itself is a dictionary within.
            var members = PFValue.dictionary([:])
            for (path, element, _) in composite.elements {
                let (value, warning) = converter.convert(row[index], as: element)
                index += 1
                if let warning { report(objectID, ([composite.attribute.name] + path).joined(separator: "."), warning) }
                if value != .null { members.setComposite(value, at: path[...]) }
            }
            if members != .dictionary([:]) { object[fieldName(composite.attribute.name)] = members }
        }
        for toOne in layout.toOne {
            let target = row[index]
            index += 1
            var className = toOne.relationship.destination
            if toOne.entityColumn != nil {
                if let entityID = Self.integer(row[index]), let named = store.layout.entityNames[entityID] { className = named }
                index += 1
            }
            guard !target.isNull else { continue }
            guard let targetKey = Self.integer(target) else {
                report(objectID, toOne.relationship.name, "a foreign key that is not an integer (\(target)); left out")
                continue
            }
            object[fieldName(toOne.relationship.name)] = [
                "__type": "Pointer", "className": .string(className),
                "objectId": .string(CoreDataStore.objectID(entity: className, primaryKey: targetKey)),
            ]
        }
        for (name, _) in layout.toMany.sorted(by: { $0.key < $1.key }) {
            guard let relationship = store.model.entity(named: entity)?.relationship(named: name) else { continue }
            object[fieldName(name)] = ["__type": "Relation", "className": .string(relationship.destination)]
        }
        return .dictionary(object)
    }

    /// A key's integer: an INTEGER, or TEXT spelling one (a column without INTEGER affinity,
    /// in a table another tool rebuilt, keeps `'3'` as TEXT; Core Data reads it as 3).
    static func integer(_ value: SQLiteValue) -> Int64? {
        if let i = value.int64 { return i }
        if case .text(let text) = value { return Int64(text) }
        return nil
    }

    /// The field a property is read under (``CoreDataEntity/fieldNames``).
    func fieldName(_ name: String) -> String { fieldNames[name] ?? name }

    mutating func report(_ objectID: String, _ key: String, _ message: String) {
        reports.add(SQLiteRowReport(table: entity, objectId: objectID, column: key, message: message))
    }
}

extension CoreDataStore {
    /// Whether an attribute's values are decoded payloads (a Transformable attribute, or one
    /// with a value transformer; a Binary one with ``Options/decodeBlobs``): they are whatever
    /// was archived, not the attribute's type.
    public func decodesPayloads(of attribute: CoreDataAttribute) -> Bool {
        let blobs = attribute.type == .binaryData || attribute.type == .transformable || attribute.type == .undefined
            || CoreDataValueConverter.isTransformable(attribute)
        return blobs && converter.decodes(attribute)
    }

    var converter: CoreDataValueConverter {
        CoreDataValueConverter(
            limits: options.limits, decodeTransformables: options.decodeTransformables, decodeBlobs: options.decodeBlobs,
            inferredModel: model.source == .inferred)
    }

    /// A cursor over an entity's objects (rows whose `Z_ENT` is exactly the entity's).
    ///
    /// Each object is a Parse REST-shaped dictionary: `className` (the entity), `objectId`
    /// (``objectID(entity:primaryKey:)``), every non-NULL stored attribute under its model
    /// name (dates as `.date`, bytes as `.data`, transformable payloads decoded), to-one relationships
    /// as `{"__type": "Pointer", "className", "objectId"}` and to-many ones as
    /// `{"__type": "Relation", "className"}` (their pairs come from
    /// ``joinRows(entity:relationship:)``). Transient attributes and fetched properties are not stored and not read.
    /// - Parameters:
    ///   - entity: the entity name.
    ///   - batchSize: rows per query. Default 256.
    /// - Throws: ``PFError`` `usage` for an unknown entity.
    public func objects(entity: String, batchSize: Int = 256) throws(PFError) -> CoreDataObjectCursor {
        CoreDataObjectCursor(store: self, entity: entity, layout: try entityLayout(entity), batchSize: batchSize)
    }

    /// Calls `body` with every object of an entity, a batch at a time (see ``objects(entity:batchSize:)``).
    /// - Returns: the reports of the read (values kept as stored instead of converted: the
    ///   first 1,000 kept, all counted).
    /// - Throws: ``PFError`` from reading, or whatever `body` throws.
    @discardableResult
    public func forEachObject(entity: String, batchSize: Int = 256, _ body: (PFValue) throws(PFError) -> Void) throws(PFError)
        -> SQLiteRowReports
    {
        var cursor = try objects(entity: entity, batchSize: batchSize)
        while let object = try cursor.next() { try body(object) }
        return cursor.reports
    }

    /// The first `limit` objects of an entity, for samples and small stores.
    /// - Throws: ``PFError`` from reading.
    public func firstObjects(entity: String, limit: Int) throws(PFError) -> [PFValue] {
        var cursor = try objects(entity: entity, batchSize: max(1, min(limit, 256)))
        var out: [PFValue] = []
        while out.count < limit, let object = try cursor.next() { out.append(object) }
        return out
    }
}

extension PFValue {
    /// Sets a value at a path of dictionary keys, making the dictionaries on the way.
    fileprivate mutating func setComposite(_ value: PFValue, at path: ArraySlice<String>) {
        guard let key = path.first else {
            self = value
            return
        }
        guard case .dictionary(var members) = self else { return }
        self = .null
        var inner = members[key] ?? .dictionary([:])
        inner.setComposite(value, at: path.dropFirst())
        members[key] = inner
        self = .dictionary(members)
    }
}
