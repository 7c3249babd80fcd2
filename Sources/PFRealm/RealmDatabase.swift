import Foundation
import OrderedCollections
import PFCore

/// A Realm file's classes, schema and objects, with links resolved.
///
/// ``RealmFile`` reads nodes; this type gives the model: ``tables`` (every table with its
/// properties), ``objects(of:)`` and ``document(includeInternal:)``, the `{"Class": [objects…]}`
/// JSON shape of `pfarchive convert`. Links become the target's primary key (or, in a class
/// without one, its object key as `_key`); links to embedded objects become the embedded
/// object itself; a link to an object that is not in the file is null and counted in
/// ``unresolvedLinks``.
public final class RealmDatabase {
    /// The file.
    public let file: RealmFile
    /// Every table of the file, in the file's order (model classes, `metadata`, `pk`, sync tables).
    public let tables: [RealmTable]
    /// Links whose target object is not in the file (first 100), as `Class.property -> Target key N`.
    public private(set) var unresolvedLinks: [String] = []
    /// How many links were unresolved in all.
    public private(set) var unresolvedLinkCount = 0
    private var identityCache: [Int: [Int64: PFValue]] = [:]
    private var embeddedCache: [Int: [Int64: RealmObject]] = [:]

    /// Opens a Realm file.
    /// - Parameters:
    ///   - url: the `.realm` file (only read).
    ///   - key: the 64-byte key of an encrypted file.
    ///   - limits: the budgets enforced.
    /// - Throws: ``PFCore/PFError`` for a file that is not a readable Realm file.
    public convenience init(url: URL, key: [UInt8]? = nil, limits: PFLimits = .default) throws(PFError) {
        try self.init(try RealmFile(url: url, key: key, limits: limits))
    }

    /// Reads the tables of an opened file.
    /// - Parameter file: the file.
    /// - Throws: ``PFCore/PFError`` when the group or a table's spec is damaged.
    public init(_ file: RealmFile) throws(PFError) {
        self.file = file
        self.tables = try file.readTables()
    }

    /// Whether a table is internal or sync data (`metadata`, `pk`, `__*`, `flx_*`, anything
    /// without the `class_` prefix).
    public static func isInternal(_ table: RealmTable) -> Bool { !table.isModelClass }

    /// The tables without the `class_` prefix that hold rows and that no SDK keeps for itself
    /// (`metadata`, `pk`, `flx_*`, `sync_*`, `__*`, `dotnet_*`): data written without an SDK,
    /// such as realm-core's own test files, which only `--internal-tables` reads.
    /// - Returns: each table's name and row count, in the file's order.
    public func tablesOutsideTheModel() -> [(table: String, rows: Int)] {
        tables.compactMap { table in
            let name = table.tableName
            guard !table.isModelClass, name != "metadata", name != "pk",
                !["flx_", "sync_", "__", "!", "dotnet_"].contains(where: { name.hasPrefix($0) }),
                let count = try? objectCount(table), count > 0
            else { return nil }
            return (name, count)
        }
    }

    /// The model classes that hold objects of their own (not embedded), in the file's order.
    public var topLevelClasses: [RealmTable] { tables.filter { $0.isModelClass && !$0.isEmbedded } }

    /// The model class (or, failing that, the table) with a name.
    /// - Parameter name: a class name (`Person`) or a table name (`class_Person`, `metadata`).
    public func table(named name: String) -> RealmTable? {
        tables.first { $0.isModelClass && $0.name == name } ?? tables.first { $0.tableName == name }
    }

    /// The number of objects of a table (reads the cluster tree's leaves' keys only).
    public func objectCount(_ table: RealmTable) throws(PFError) -> Int {
        var count = 0
        try file.forEachCluster(table) { leaf in count += leaf.keys.count }
        return count
    }

    /// Calls `body` with each object of a table, in key order, one cluster (up to 256
    /// objects) read at a time.
    public func forEachObject(of table: RealmTable, _ body: (RealmObject) throws(PFError) -> Void) throws(PFError) {
        try file.forEachCluster(table) { (leaf) throws(PFError) in
            var columns: [[RealmValue]] = []
            columns.reserveCapacity(table.columns.count)
            for column in table.columns { columns.append(try file.columnValues(leaf, column)) }
            for (i, key) in leaf.keys.enumerated() {
                try body(RealmObject(key: key, values: columns.map { $0[i] }))
            }
        }
    }

    /// Every object of a table.
    public func objects(of table: RealmTable) throws(PFError) -> [RealmObject] {
        var out: [RealmObject] = []
        try forEachObject(of: table) { out.append($0) }
        return out
    }

    // MARK: Identities and links

    /// An object's identity as a JSON value: its primary key's value, or its key.
    public func identity(of object: RealmObject, in table: RealmTable) -> PFValue {
        if let pk = table.primaryKey, let i = table.columns.firstIndex(where: { $0.name == pk }) {
            return plain(object.values[i])
        }
        return .int(object.key)
    }

    /// The identities of every object of a table, by key (read once, then cached).
    func identities(_ tableIndex: Int) throws(PFError) -> [Int64: PFValue] {
        if let cached = identityCache[tableIndex] { return cached }
        let table = tables[tableIndex]
        var map: [Int64: PFValue] = [:]
        if let pk = table.primaryKey, let column = table.columns.first(where: { $0.name == pk }) {
            try file.forEachCluster(table) { (leaf) throws(PFError) in
                let values = try file.columnValues(leaf, column)
                for (i, key) in leaf.keys.enumerated() { map[key] = plain(values[i]) }
            }
        } else {
            try file.forEachCluster(table) { leaf in for key in leaf.keys { map[key] = .int(key) } }
        }
        identityCache[tableIndex] = map
        return map
    }

    /// The objects of an embedded table, by key (read once, then cached).
    func embeddedObjects(_ tableIndex: Int) throws(PFError) -> [Int64: RealmObject] {
        if let cached = embeddedCache[tableIndex] { return cached }
        var map: [Int64: RealmObject] = [:]
        try forEachObject(of: tables[tableIndex]) { map[$0.key] = $0 }
        embeddedCache[tableIndex] = map
        return map
    }

    /// Records a link whose target is missing.
    func unresolved(_ description: String) {
        unresolvedLinkCount += 1
        if unresolvedLinks.count < 100 { unresolvedLinks.append(description) }
    }

    /// A link's target: the embedded object inline, or the target's identity; `nil` when
    /// the target is not in the file.
    public enum LinkTarget {
        /// An embedded object, inlined.
        case embedded(RealmTable, RealmObject)
        /// A top-level object, by its class and identity (primary key or key).
        case object(RealmTable, PFValue)
    }

    /// Resolves a link.
    public func resolve(table: Int, key: Int64, from origin: String) throws(PFError) -> LinkTarget? {
        guard table >= 0, table < tables.count else {
            unresolved("\(origin) -> table \(table) key \(key)")
            return nil
        }
        let target = tables[table]
        if target.isEmbedded {
            if let object = try embeddedObjects(table)[key] {
                // Inlining copies the object: counted, so links that share an embedded
                // object many times over cannot expand without bound.
                try file.spend(object.values.count + 1, at: 0)
                return .embedded(target, object)
            }
        } else if let id = try identities(table)[key] {
            return .object(target, id)
        }
        unresolved("\(origin) -> \(target.name) key \(key)")
        return nil
    }

    /// The table index of a table key (a typed link's target).
    func tableIndex(forKey key: Int64) -> Int? { tables.first { $0.key & 0x7FFF_FFFF == key & 0x7FFF_FFFF }?.index }

    // MARK: JSON

    /// A value without links or embedded objects as JSON (floats widened, ObjectIds as 24 hex
    /// digits, UUIDs as lowercase strings, Decimal128 as its decimal string, timestamps as dates).
    public func plain(_ value: RealmValue) -> PFValue {
        switch value {
        case .null, .link, .typedLink: .null
        case .bool(let b): .bool(b)
        case .int(let i): .int(i)
        case .float(let f): .double(Double(f))
        case .double(let d): .double(d)
        case .string(let s): .string(s)
        case .binary(let d): .data(d)
        case .timestamp: .date(value.date ?? Date(timeIntervalSince1970: 0))
        case .objectId(let d): .string(d.map { String(format: "%02x", $0) }.joined())
        case .uuid(let u): .string(u.uuidString.lowercased())
        case .decimal(let s): .string(s)
        case .list(let a), .set(let a): .array(a.map(plain))
        case .dictionary(let entries): .dictionary(OrderedDictionary(entries.map { ($0.key, plain($0.value)) }, uniquingKeysWith: { a, _ in a }))
        case .object(_, let fields): .dictionary(OrderedDictionary(fields.map { ($0.name, plain($0.value)) }, uniquingKeysWith: { a, _ in a }))
        }
    }

    /// A value as JSON with links resolved: the target's identity, or the embedded object inline.
    /// - Parameters:
    ///   - value: the value.
    ///   - origin: `Class.property`, for the report of unresolved links.
    ///   - depth: embedded nesting so far.
    public func json(_ value: RealmValue, origin: String, depth: Int = 0) throws(PFError) -> PFValue {
        guard depth < min(file.limits.maxDepth, 100) else {
            throw PFLimits.exceeded("maxDepth", file.limits.maxDepth, format: RealmFile.format)
        }
        switch value {
        case .link(let table, let key):
            switch try resolve(table: table, key: key, from: origin) {
            case .embedded(let t, let object)?: return try embeddedJSON(object, of: t, depth: depth + 1)
            case .object(_, let id)?: return id
            case nil: return .null
            }
        case .typedLink(let tableKey, let key):
            guard let index = tableIndex(forKey: tableKey) else {
                unresolved("\(origin) -> table key \(tableKey) key \(key)")
                return .null
            }
            switch try resolve(table: index, key: key, from: origin) {
            case .embedded(let t, let object)?: return try embeddedJSON(object, of: t, depth: depth + 1)
            case .object(let t, let id)?: return ["$class": .string(t.name), "$id": id]
            case nil: return .null
            }
        case .list(let a), .set(let a):
            var out: [PFValue] = []
            out.reserveCapacity(a.count)
            for element in a { out.append(try json(element, origin: origin, depth: depth + 1)) }
            return .array(out)
        case .dictionary(let entries):
            var out = OrderedDictionary<String, PFValue>()
            for entry in entries { out[entry.key] = try json(entry.value, origin: origin, depth: depth + 1) }
            return .dictionary(out)
        default:
            return plain(value)
        }
    }

    /// An embedded object's properties as a JSON object.
    func embeddedJSON(_ object: RealmObject, of table: RealmTable, depth: Int) throws(PFError) -> PFValue {
        var out = OrderedDictionary<String, PFValue>()
        for (column, value) in zip(table.columns, object.values) {
            out[column.name] = try json(value, origin: "\(table.name).\(column.name)", depth: depth)
        }
        return .dictionary(out)
    }

    /// An object as JSON: `_key` first in a class without a primary key, then every property
    /// in the model's order, links resolved.
    public func json(_ object: RealmObject, of table: RealmTable) throws(PFError) -> OrderedDictionary<String, PFValue> {
        var out = OrderedDictionary<String, PFValue>()
        if table.primaryKey == nil { out["_key"] = .int(object.key) }
        for (column, value) in zip(table.columns, object.values) {
            out[column.name] = try json(value, origin: "\(table.name).\(column.name)")
        }
        return out
    }

    /// The whole file as `{"Class": [objects…]}`: each top-level model class (and, with
    /// `includeInternal`, the internal and sync tables too) in the file's order.
    public func document(includeInternal: Bool = false) throws(PFError) -> PFValue {
        var out = OrderedDictionary<String, PFValue>()
        for table in tables where !table.isEmbedded && (includeInternal || table.isModelClass) {
            var objects: [PFValue] = []
            try forEachObject(of: table) { (object) throws(PFError) in objects.append(.dictionary(try json(object, of: table))) }
            out[table.isModelClass ? table.name : table.tableName] = .array(objects)
        }
        return .dictionary(out)
    }
}
