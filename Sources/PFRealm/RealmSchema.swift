import PFCore

/// A column's element type, as a Realm file stores it (realm-core's column types).
public enum RealmType: Int, Sendable, CaseIterable, CustomStringConvertible {
    case int = 0, bool = 1, string = 2, binary = 4, mixed = 6, timestamp = 8, float = 9, double = 10
    case decimal = 11, link = 12, linkList = 13, backlink = 14, objectId = 15, typedLink = 16, uuid = 17

    /// The type's name as Realm's models spell it (`int`, `string`, `object`, …).
    public var description: String {
        switch self {
        case .int: "int"
        case .bool: "bool"
        case .string: "string"
        case .binary: "data"
        case .mixed: "mixed"
        case .timestamp: "date"
        case .float: "float"
        case .double: "double"
        case .decimal: "decimal128"
        case .link, .linkList: "object"
        case .backlink: "linkingObjects"
        case .objectId: "objectId"
        case .typedLink: "typedLink"
        case .uuid: "uuid"
        }
    }
}

/// The kind of collection a column holds, if any.
public enum RealmCollection: String, Sendable {
    /// One value per object.
    case none
    /// An ordered list.
    case list
    /// A set (stored sorted).
    case set
    /// A dictionary with string keys.
    case dictionary
}

/// One property of a Realm class, from the table's spec.
public struct RealmColumn: Sendable {
    /// The property's name.
    public var name: String
    /// The element type.
    public var type: RealmType
    /// Whether the values (or elements) may be null.
    public var isNullable: Bool
    /// Whether the column has a search index.
    public var isIndexed: Bool
    /// Whether it is a list, set or dictionary.
    public var collection: RealmCollection
    /// The class a link (or list of links, or backlink) points to, by name without `class_`.
    public var targetClass: String?
    /// For a backlink column: the property of ``targetClass`` whose links it counts.
    public var originProperty: String?
    /// The column's position among the cluster's leaves (the column key's low 16 bits).
    var leafIndex: Int
    /// The position in ``RealmDatabase/tables`` of the link target, for link and backlink columns.
    public internal(set) var targetTable: Int?
    /// The spec's enumerated-string key list, when the strings are enumerated.
    var enumKeysRef: Int64?
    /// For a backlink column: the leaf index of the origin table's column whose links it
    /// counts (from the table's opposite-column keys), when the file says.
    var originLeafIndex: Int?
}

/// One table of a Realm file: a model class (`class_<Name>`) or an internal table.
public struct RealmTable: Sendable {
    /// The table's name in the file (`class_Person`, `metadata`, `pk`, …).
    public var tableName: String
    /// The class name as the model names it: the table name without `class_`.
    public var name: String
    /// The public properties, in the spec's order (backlink columns are in ``backlinks``).
    public var columns: [RealmColumn]
    /// The backlink columns (the inverse side of links into this class).
    public var backlinks: [RealmColumn]
    /// The primary-key property, when the class has one.
    public var primaryKey: String?
    /// Whether objects of this class are embedded in their owner.
    public var isEmbedded: Bool
    /// Whether the table is a model class (`class_` prefix), rather than internal or sync data.
    public var isModelClass: Bool { tableName.hasPrefix("class_") }
    /// The table's key (its index is the low 16 bits).
    var key: Int64
    /// The cluster tree's root node.
    var clusterRef: Int64?
    /// The table's position in the group.
    var index: Int
}

extension RealmFile {
    /// Reads the group's tables and their specs.
    func readTables() throws(PFError) -> [RealmTable] {
        guard !isNeverCommitted else { return [] }
        let top = try node(Int64(topRef))
        guard top.hasRefs else { throw damaged(.noReferences(.topArray), at: top.ref) }
        guard top.count >= 3 else { throw damaged(.tooFewSlots(.topArray, has: top.count, needs: 3), at: top.ref) }
        let names = try stringValues(try child(top, 0, .tableNames), nullable: false)
        let refs = try child(top, 1, .tableReferences)
        guard refs.hasRefs, refs.count == names.count else {
            throw damaged(.tableNamesAndReferences(names: names.count, references: refs.count), at: refs.ref)
        }
        try spend(names.count, at: refs.ref)
        var tables: [RealmTable] = []
        var raw: [(RealmTable, [RealmColumnSpec])] = []
        for i in 0..<names.count {
            let name = names[i].map { String(decoding: $0, as: UTF8.self) } ?? ""
            // A removed table leaves its slot behind: no name, and no reference.
            guard let ref = try childRef(refs, i) else {
                guard name.isEmpty else { throw damaged(.tableWithoutReference(table: name, slot: i), at: refs.ref) }
                continue
            }
            let (table, specs) = try readTable(try node(ref), name: name, index: i)
            raw.append((table, specs))
        }
        // Link targets by table key (the key's low 16 bits are the table's index).
        var byKey: [Int64: Int] = [:]
        for (position, (table, _)) in raw.enumerated() { byKey[table.key] = position }
        for (var table, specs) in raw {
            var columns: [RealmColumn] = []
            var backlinks: [RealmColumn] = []
            for spec in specs {
                var column = spec.column
                if let target = spec.targetKey {
                    guard let index = byKey[target] else {
                        throw damaged(.linkTargetMissing(table: table.name, column: column.name, targetKey: target), at: 0)
                    }
                    column.targetTable = index
                    column.targetClass = raw[index].0.name
                }
                if column.type == .backlink { backlinks.append(column) } else { columns.append(column) }
            }
            table.columns = columns
            table.backlinks = backlinks
            table.index = tables.count
            tables.append(table)
        }
        // A backlink's origin property: the origin table's column the file names as its
        // opposite (a link, list, set, dictionary or Mixed column), else the one link column of
        // the origin table that targets this table.
        for t in tables.indices {
            for b in tables[t].backlinks.indices {
                guard let origin = tables[t].backlinks[b].targetTable else { continue }
                if let leaf = tables[t].backlinks[b].originLeafIndex,
                    let named = tables[origin].columns.first(where: { $0.leafIndex == leaf })
                {
                    tables[t].backlinks[b].originProperty = named.name
                    continue
                }
                let candidates = tables[origin].columns.filter { $0.targetTable == t }
                if candidates.count == 1 { tables[t].backlinks[b].originProperty = candidates[0].name }
            }
        }
        return tables
    }

    struct RealmColumnSpec {
        var column: RealmColumn
        var targetKey: Int64?
        var colKey: Int64
    }

    /// Reads one table's top array and spec.
    private func readTable(_ top: RealmNode, name: String, index: Int) throws(PFError) -> (RealmTable, [RealmColumnSpec]) {
        guard top.hasRefs else { throw damaged(.noReferences(.table(name)), at: top.ref) }
        guard top.count >= 3 else { throw damaged(.tooFewSlots(.table(name), has: top.count, needs: 3), at: top.ref) }
        let spec = try child(top, 0, .tableSpec(name))
        guard spec.hasRefs else { throw damaged(.noReferences(.tableSpec(name)), at: spec.ref) }
        guard spec.count >= 3 else { throw damaged(.tooFewSlots(.tableSpec(name), has: spec.count, needs: 3), at: spec.ref) }
        let types = try ints(try child(spec, 0, .columnTypes))
        let names = try stringValues(try child(spec, 1, .columnNames), nullable: false)
        let attributes = try ints(try child(spec, 2, .columnAttributes))
        guard names.count <= types.count, attributes.count == types.count else {
            throw damaged(.columnSpec(table: name, types: types.count, names: names.count, attributes: attributes.count), at: spec.ref)
        }
        let enumKeys = spec.count > 4 ? try childRef(spec, 4).map { r throws(PFError) in try node(r) } : nil
        let colKeys = spec.count > 5 ? try childRef(spec, 5).map { r throws(PFError) in try node(r) } : nil
        let opposite = top.count > 7 ? try childRef(top, 7).map { r throws(PFError) in try node(r) } : nil
        // Per leaf, the opposite column's key: for a backlink, the origin column it counts.
        let oppositeColumns = top.count > 8 ? try childRef(top, 8).map { r throws(PFError) in try node(r) } : nil
        var specs: [RealmColumnSpec] = []
        for i in 0..<types.count {
            // Format 22 keeps a dictionary's key type in the upper bits.
            guard let type = RealmType(rawValue: Int(types[i] & 0xFFFF)) else {
                throw PFError(RealmFailure.unknownColumnType(table: name, column: i, type: types[i]), format: Self.format, offset: spec.ref)
            }
            let attr = attributes[i]
            let colKey: Int64 = try colKeys.map { n throws(PFError) in try int(n, i) } ?? Int64(i)
            var collection = RealmCollection.none
            if attr & 32 != 0 || type == .linkList { collection = .list }
            if attr & 64 != 0 { collection = .dictionary }
            if attr & 128 != 0 { collection = .set }
            // A backlink column has no name in the spec (names cover the public columns).
            let columnName = i < names.count ? names[i].map { String(decoding: $0, as: UTF8.self) } ?? "" : ""
            var enumRef: Int64? = nil
            if let enumKeys, i < enumKeys.count, enumKeys.hasRefs { enumRef = try childRef(enumKeys, i) }
            var targetKey: Int64? = nil
            if [.link, .linkList, .backlink].contains(type), let opposite {
                let leaf = Int(colKey & 0xFFFF)
                if leaf < opposite.count { targetKey = try int(opposite, leaf) }
            }
            var originLeaf: Int? = nil
            if type == .backlink, let oppositeColumns, !oppositeColumns.hasRefs {
                let leaf = Int(colKey & 0xFFFF)
                if leaf < oppositeColumns.count {
                    let key = try int(oppositeColumns, leaf)
                    if key >= 0 { originLeaf = Int(key & 0xFFFF) }
                }
            }
            let column = RealmColumn(
                name: columnName, type: type, isNullable: attr & 16 != 0, isIndexed: attr & 1 != 0, collection: collection,
                targetClass: nil, originProperty: nil, leafIndex: Int(colKey & 0xFFFF), targetTable: nil, enumKeysRef: enumRef,
                originLeafIndex: originLeaf)
            specs.append(RealmColumnSpec(column: column, targetKey: targetKey, colKey: colKey))
        }
        let key = top.count > 3 ? try int(top, 3) : Int64(index)
        let tableKey = key & 1 == 1 ? key >> 1 : key
        var primaryKey: String? = nil
        if top.count > 11 {
            let pk = try int(top, 11)
            let pkKey = pk & 1 == 1 ? pk >> 1 : pk
            if pk != 0, let found = specs.first(where: { $0.colKey == pkKey && $0.column.type != .backlink }) {
                primaryKey = found.column.name
            }
        }
        var embedded = false
        if top.count > 12 {
            let flags = try int(top, 12)
            embedded = (flags & 1 == 1 ? flags >> 1 : flags) & 3 == 1
        }
        let className = name.hasPrefix("class_") ? String(name.dropFirst(6)) : name
        let table = RealmTable(
            tableName: name, name: className, columns: [], backlinks: [], primaryKey: primaryKey, isEmbedded: embedded,
            key: tableKey, clusterRef: try childRef(top, 2), index: index)
        return (table, specs)
    }
}
