import Foundation
import OrderedCollections
import PFCompression
import PFCore
import PFCoreData
import PFKeyedArchive
import PFPropertyList
import PFTestSupport

/// Writes Core Data SQLite stores with the `sqlite3` shell, in the layout real stores have
/// (../shared/notes/coredata.md, Docs/CoreData.md "Layout rules"): `Z_PRIMARYKEY` (with
/// `Z_SUPER` and `Z_MAX` on roots only), `Z_METADATA` with a binary-plist `Z_PLIST`, a
/// `Z_MODELCACHE` holding raw DEFLATE around a keyed archive of `NSManagedObjectModel`
/// (`NSSuperentity`/`NSSubentities`, relationships with destination and inverse), and one
/// `Z<ROOT>` table per root entity holding every entity of its hierarchy (told apart by
/// `Z_ENT`), with `Z_PK`, `Z_ENT`, `Z_OPT` and `Z<PROPERTY>` columns (`Z<PROPERTY><n>` when
/// several entities of a hierarchy declare the name). Relationships: a to-one is
/// `Z<NAME>` (the target's `Z_PK`) plus `Z<ent>_<NAME>` (the target's `Z_ENT`) when the
/// destination has subentities; a to-many is its to-one inverse (ordered ones with
/// `Z_FOK_<INVERSE>`); a many-to-many is a join table `Z_<ent><NAME>` with columns
/// `Z_<ent><INVERSE>` and `Z_<ent><NAME>`. `Z_ENT` numbers follow the real stores' order:
/// roots in the order given, each followed by its subentities (alphabetically), depth first.
/// Optionally in WAL mode, with changes left only in the `-wal`.
public enum CoreDataStoreBuilder {
    /// An attribute: its name, `NSAttributeType` code (700 string, 300 int64, 500 double,
    /// 900 date, 1000 binary, 1800 transformable, …) and value transformer.
    public struct Attribute: Sendable {
        public var name: String
        public var typeCode: Int64
        public var transformer: String?

        public init(_ name: String, _ typeCode: Int64, transformer: String? = nil) {
            self.name = name
            self.typeCode = typeCode
            self.transformer = transformer
        }

        var sqlType: String {
            switch typeCode {
            case 100, 200, 300, 800: "INTEGER"
            case 400: "DECIMAL"
            case 500, 600: "FLOAT"
            case 700, 1200: "VARCHAR"
            case 900: "TIMESTAMP"
            default: "BLOB"
            }
        }
    }

    /// A relationship an entity declares.
    public struct Relationship: Sendable {
        public var name: String
        public var destination: String
        public var inverse: String?
        public var isToMany: Bool
        public var isOrdered: Bool

        /// - Parameters:
        ///   - name: the relationship's name.
        ///   - destination: the destination entity.
        ///   - inverse: the inverse relationship's name on the destination (a to-many needs one).
        ///   - toMany: to-many (`NSMaxCount` 0) or to-one (1).
        ///   - ordered: an ordered to-many (`Z_FOK_<INVERSE>` on the destination's table).
        public init(_ name: String, to destination: String, inverse: String? = nil, toMany: Bool = false, ordered: Bool = false) {
            self.name = name
            self.destination = destination
            self.inverse = inverse
            self.isToMany = toMany
            self.isOrdered = ordered
        }
    }

    /// A row's reference to another row: its entity and `Z_PK`.
    public struct Target: Sendable, Hashable {
        public var entity: String
        public var primaryKey: Int64

        public init(_ entity: String, _ primaryKey: Int64) {
            self.entity = entity
            self.primaryKey = primaryKey
        }
    }

    /// A value in a row: an attribute's value, a to-one's target (``Value/object(_:_:)``) or a
    /// many-to-many's targets (``Value/objects(_:)``, given on either side).
    public enum Value: Sendable {
        case null
        case integer(Int64)
        case real(Double)
        case text(String)
        case blob(Data)
        /// A to-one relationship's target row.
        case object(String, Int64)
        /// A many-to-many relationship's target rows.
        case objects([Target])

        var sql: String {
            switch self {
            case .null, .objects: "NULL"
            case .integer(let i): "\(i)"
            case .real(let d): d.isFinite ? "\(d)" : "NULL"
            case .text(let s): "'" + s.doublingEvery("'") + "'"
            case .blob(let d): "X'" + d.map { String(format: "%02X", $0) }.joined() + "'"
            case .object(_, let key): "\(key)"
            }
        }
    }

    /// An entity: its own (not inherited) attributes and relationships, and its rows
    /// (property name → value). A row's `Z_PK` is its `"Z_PK"` integer when given, otherwise
    /// one more than the last key of its table (entities in `Z_ENT` order, rows in order), so
    /// the rows of a single root entity are 1, 2, 3, ….
    public struct Entity: Sendable {
        public var name: String
        public var superentity: String?
        public var isAbstract: Bool
        public var attributes: [Attribute]
        public var relationships: [Relationship]
        public var rows: [[String: Value]]

        public init(
            name: String, superentity: String? = nil, isAbstract: Bool = false, attributes: [Attribute],
            relationships: [Relationship] = [], rows: [[String: Value]]
        ) {
            self.name = name
            self.superentity = superentity
            self.isAbstract = isAbstract
            self.attributes = attributes
            self.relationships = relationships
            self.rows = rows
        }
    }

    static func failure(_ message: String) -> PFError { PFError(.usage, format: .coreData, message) }

    static func quote(_ name: String) -> String { "\"" + name.doublingEvery("\"") + "\"" }

    /// The entities in `Z_ENT` order (roots in the order given, each followed depth first by
    /// its subentities in name order), with their `Z_ENT`.
    public static func entityIDs(_ entities: [Entity]) throws -> [(entity: Entity, id: Int64)] {
        var out: [(entity: Entity, id: Int64)] = []
        func visit(_ entity: Entity) {
            out.append((entity, Int64(out.count + 1)))
            for child in entities.filter({ $0.superentity == entity.name }).sorted(by: { $0.name < $1.name }) { visit(child) }
        }
        for root in entities where root.superentity == nil { visit(root) }
        guard out.count == entities.count, Set(entities.map(\.name)).count == entities.count else {
            throw failure("entity names must be unique and every superentity must be one of the entities")
        }
        return out
    }

    /// What the builder works out from the entities: ids, roots, the columns of each
    /// (declaring entity, property) and the rows' primary keys.
    struct Plan {
        var ordered: [(entity: Entity, id: Int64)] = []
        var byName: [String: Entity] = [:]
        var ids: [String: Int64] = [:]
        var root: [String: String] = [:]
        /// (declaring entity, property) → column suffix ("" or "1", "2", …).
        var suffix: [String: [String: String]] = [:]
        /// entity → row index → Z_PK.
        var keys: [String: [Int64]] = [:]

        init(_ entities: [Entity]) throws {
            ordered = try CoreDataStoreBuilder.entityIDs(entities)
            for (entity, id) in ordered {
                byName[entity.name] = entity
                ids[entity.name] = id
            }
            for (entity, _) in ordered {
                var top = entity
                while let parent = top.superentity.flatMap({ byName[$0] }) { top = parent }
                root[entity.name] = top.name
            }
            // Columns: a name declared by several entities of a hierarchy gets suffixes 1, 2, … in Z_ENT order.
            var declarers: [String: [String: [String]]] = [:]
            for (entity, _) in ordered {
                let stored = entity.attributes.map(\.name) + entity.relationships.filter { !$0.isToMany }.map(\.name)
                for name in stored { declarers[root[entity.name] ?? "", default: [:]][name.uppercased(), default: []].append(entity.name) }
            }
            for (entity, _) in ordered {
                let stored = entity.attributes.map(\.name) + entity.relationships.filter { !$0.isToMany }.map(\.name)
                for name in stored {
                    let owners = declarers[root[entity.name] ?? ""]?[name.uppercased()] ?? []
                    let index = (owners.firstIndex(of: entity.name) ?? 0) + 1
                    suffix[entity.name, default: [:]][name] = owners.count > 1 ? "\(index)" : ""
                }
            }
            var last: [String: Int64] = [:]
            for (entity, _) in ordered {
                let table = root[entity.name] ?? entity.name
                var entityKeys: [Int64] = []
                for row in entity.rows {
                    var key = (last[table] ?? 0) + 1
                    if case .integer(let given)? = row["Z_PK"] { key = given }
                    last[table] = max(last[table] ?? 0, key)
                    entityKeys.append(key)
                }
                keys[entity.name] = entityKeys
            }
        }

        /// The entity and every ancestor, nearest first.
        func lineage(_ name: String) -> [Entity] {
            var out: [Entity] = []
            var current = byName[name]
            while let entity = current, !out.contains(where: { $0.name == entity.name }) {
                out.append(entity)
                current = entity.superentity.flatMap { byName[$0] }
            }
            return out
        }

        func hasSubentities(_ name: String) -> Bool { byName.values.contains { $0.superentity == name } }

        /// The relationship `name` of an entity (declared by it or an ancestor).
        func relationship(_ name: String, of entity: String) -> (Relationship, declaredBy: String)? {
            for ancestor in lineage(entity) {
                if let found = ancestor.relationships.first(where: { $0.name == name }) { return (found, ancestor.name) }
            }
            return nil
        }
    }

    /// The model the store's model cache describes, as ``PFCoreData/CoreDataStore`` reads it.
    public static func model(_ entities: [Entity]) throws -> CoreDataModel {
        let plan = try Plan(entities)
        var out: [CoreDataEntity] = []
        for (entity, _) in plan.ordered {
            var attributes: [CoreDataAttribute] = []
            var relationships: [CoreDataRelationship] = []
            for ancestor in plan.lineage(entity.name).reversed() {
                for attribute in ancestor.attributes where !attributes.contains(where: { $0.name == attribute.name }) {
                    attributes.append(
                        CoreDataAttribute(
                            name: attribute.name, type: CoreDataAttributeType(code: attribute.typeCode),
                            transformerName: attribute.transformer, isOptional: true, declaredBy: ancestor.name))
                }
                for relationship in ancestor.relationships where !relationships.contains(where: { $0.name == relationship.name }) {
                    relationships.append(
                        CoreDataRelationship(
                            name: relationship.name, destination: relationship.destination, inverse: relationship.inverse,
                            isToMany: relationship.isToMany, isOrdered: relationship.isOrdered, isOptional: true,
                            declaredBy: ancestor.name))
                }
            }
            out.append(
                CoreDataEntity(
                    name: entity.name, className: entity.name, superentity: entity.superentity, isAbstract: entity.isAbstract,
                    attributes: attributes.sorted { $0.name < $1.name }, relationships: relationships.sorted { $0.name < $1.name }))
        }
        return CoreDataModel(entities: out, source: .modelCache)
    }

    /// The `Z_MODELCACHE.Z_CONTENT` bytes for entities: raw DEFLATE around a keyed archive of
    /// `NSManagedObjectModel`. Entities are archived depth first (a subentity inside its
    /// parent's `NSSubentities`, pointing back through `NSSuperentity`); a relationship's
    /// destination and inverse are references to entities and relationships archived before
    /// it, and their names (`_NSDestinationEntityName`, `_NSInverseRelationshipName`) always.
    public static func modelCache(_ entities: [Entity]) throws -> Data {
        let plan = try Plan(entities)
        var nextID: Int64 = 1
        var entityIDs: [String: Int64] = [:]
        var relationshipIDs: [String: Int64] = [:]
        func describe(_ entity: Entity) -> PFValue {
            if let id = entityIDs[entity.name] { return ["$ref": .int(id)] }
            let id = nextID
            nextID += 1
            entityIDs[entity.name] = id
            var members: OrderedDictionary<String, PFValue> = [
                "$class": "NSEntityDescription", "$id": .int(id), "NSEntityName": .string(entity.name),
                "NSClassNameForEntity": .string(entity.name), "NSIsAbstract": .bool(entity.isAbstract),
            ]
            if let parent = entity.superentity, let parentID = entityIDs[parent] { members["NSSuperentity"] = ["$ref": .int(parentID)] }
            var properties = OrderedDictionary<String, PFValue>()
            for attribute in entity.attributes {
                var property: OrderedDictionary<String, PFValue> = [
                    "$class": "NSAttributeDescription", "NSPropertyName": .string(attribute.name),
                    "NSAttributeType": .int(attribute.typeCode), "NSIsOptional": true,
                ]
                if let transformer = attribute.transformer { property["NSValueTransformerName"] = .string(transformer) }
                properties[attribute.name] = .dictionary(property)
            }
            for relationship in entity.relationships {
                let rid = nextID
                nextID += 1
                relationshipIDs[entity.name + "." + relationship.name] = rid
                var property: OrderedDictionary<String, PFValue> = [
                    "$class": "NSRelationshipDescription", "$id": .int(rid), "NSPropertyName": .string(relationship.name),
                    "_NSDestinationEntityName": .string(relationship.destination),
                    "NSMaxCount": .int(relationship.isToMany ? 0 : 1), "NSIsOrdered": .bool(relationship.isOrdered),
                    "NSIsOptional": true,
                ]
                if let target = entityIDs[relationship.destination] { property["NSDestinationEntity"] = ["$ref": .int(target)] }
                if let inverse = relationship.inverse {
                    property["_NSInverseRelationshipName"] = .string(inverse)
                    if let inverseID = relationshipIDs[relationship.destination + "." + inverse] {
                        property["NSInverseRelationship"] = ["$ref": .int(inverseID)]
                    }
                }
                properties[relationship.name] = .dictionary(property)
            }
            members["NSProperties"] = .dictionary(properties)
            var subentities = OrderedDictionary<String, PFValue>()
            for child in plan.ordered.map(\.entity) where child.superentity == entity.name {
                subentities[child.name] = describe(child)
            }
            members["NSSubentities"] = .dictionary(subentities)
            return .dictionary(members)
        }
        var described = OrderedDictionary<String, PFValue>()
        for (entity, _) in plan.ordered { described[entity.name] = describe(entity) }
        let model: PFValue = ["$class": "NSManagedObjectModel", "NSEntities": .dictionary(described)]
        let archive = try KeyedArchive.archive(try KeyedGraph(json: model))
        return try Compression.compress(archive, as: .deflate)
    }

    /// The SQL that creates a store with these entities (in WAL mode when asked).
    /// - Throws: when a superentity, destination, inverse or referenced row is unknown.
    public static func sql(_ entities: [Entity], wal: Bool = false) throws -> String {
        let plan = try Plan(entities)
        var hashes = OrderedDictionary<String, PFValue>()
        for (entity, id) in plan.ordered { hashes[entity.name] = .data(Data(repeating: UInt8(truncatingIfNeeded: id), count: 32)) }
        let metadata = try BinaryPlistWriter().write([
            "NSStoreType": "SQLite", "NSPersistenceFrameworkVersion": 1044,
            "NSStoreModelVersionHashesVersion": 3, "NSStoreModelVersionHashes": .dictionary(hashes),
        ])
        var lines: [String] = []
        if wal { lines.append("PRAGMA journal_mode=WAL;") }
        lines.append("CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);")
        lines.append("CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);")
        lines.append("CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);")
        lines.append("INSERT INTO Z_METADATA VALUES (1, '6A3C9E10-0000-4000-8000-00000000CD01', \(Value.blob(metadata).sql));")
        lines.append("INSERT INTO Z_MODELCACHE VALUES (\(Value.blob(try modelCache(entities)).sql));")

        func targetKey(_ target: Target) throws -> Int64 {
            guard plan.byName[target.entity] != nil else { throw failure("a row points at the unknown entity \(target.entity)") }
            return target.primaryKey
        }
        // Many-to-many pairs by join table (the side with the smaller (Z_ENT, name) names it).
        struct Join { var table: String; var owningColumn: String; var relatedColumn: String; var pairs: [(Int64, Int64)] = [] }
        var joins = OrderedDictionary<String, Join>()
        // Z_FOK positions: (destination table, inverse column) → owner key → count so far.
        var fokCounts: [String: [Int64: Int64]] = [:]

        for (entity, id) in plan.ordered {
            let rootName = plan.root[entity.name] ?? entity.name
            let isRoot = entity.superentity == nil
            let maxKey = isRoot ? plan.ordered.filter { plan.root[$0.entity.name] == rootName }.flatMap { plan.keys[$0.entity.name] ?? [] }.max() ?? 0 : 0
            lines.append("INSERT INTO Z_PRIMARYKEY VALUES (\(id), \(Value.text(entity.name).sql), \(plan.ids[entity.superentity ?? ""] ?? 0), \(maxKey));")
        }
        for (rootEntity, _) in plan.ordered where rootEntity.superentity == nil {
            let table = "Z" + rootEntity.name.uppercased()
            let members = plan.ordered.map(\.entity).filter { plan.root[$0.name] == rootEntity.name }
            // Columns in Z_ENT order of the declaring entity.
            var columns: [String] = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
            var rowColumns: [(entity: String, column: String, value: ([String: Value], Int64) throws -> String)] = []
            for member in members {
                for attribute in member.attributes {
                    let column = "Z" + attribute.name.uppercased() + (plan.suffix[member.name]?[attribute.name] ?? "")
                    columns.append("\(quote(column)) \(attribute.sqlType)")
                    rowColumns.append((member.name, column, { row, _ in (row[attribute.name] ?? .null).sql }))
                }
                for relationship in member.relationships where !relationship.isToMany {
                    guard plan.byName[relationship.destination] != nil else {
                        throw failure("\(member.name).\(relationship.name) points at the unknown entity \(relationship.destination)")
                    }
                    let suffix = plan.suffix[member.name]?[relationship.name] ?? ""
                    let column = "Z" + relationship.name.uppercased() + suffix
                    columns.append("\(quote(column)) INTEGER")
                    rowColumns.append((member.name, column, { row, _ in (row[relationship.name] ?? .null).sql }))
                    if plan.hasSubentities(relationship.destination), let destinationID = plan.ids[relationship.destination] {
                        let entityColumn = "Z\(destinationID)_" + relationship.name.uppercased() + suffix
                        columns.append("\(quote(entityColumn)) INTEGER")
                        rowColumns.append((member.name, entityColumn, { row, _ in
                            guard case .object(let target, _)? = row[relationship.name] else { return "NULL" }
                            guard let targetID = plan.ids[target] else { throw failure("a row points at the unknown entity \(target)") }
                            return "\(targetID)"
                        }))
                    }
                    // The ordered to-many whose inverse this is keeps positions in Z_FOK_<NAME>.
                    if let inverse = relationship.inverse, case let (owner, _)? = plan.relationship(inverse, of: relationship.destination),
                        owner.isToMany, owner.isOrdered
                    {
                        let fok = "Z_FOK_" + relationship.name.uppercased() + suffix
                        columns.append("\(quote(fok)) INTEGER")
                        let counter = table + "." + fok
                        rowColumns.append((member.name, fok, { row, _ in
                            guard case .object(_, let ownerKey)? = row[relationship.name] else { return "NULL" }
                            let position = (fokCounts[counter]?[ownerKey] ?? 0) + 1024
                            fokCounts[counter, default: [:]][ownerKey] = position
                            return "\(position)"
                        }))
                    }
                }
            }
            lines.append("CREATE TABLE \(quote(table)) (\(columns.joined(separator: ", ")));")
            for member in members {
                guard let id = plan.ids[member.name] else { continue }
                let lineage = Set(plan.lineage(member.name).map(\.name))
                for (index, row) in member.rows.enumerated() {
                    let key = plan.keys[member.name]?[index] ?? Int64(index + 1)
                    var values = ["\(key)", "\(id)", "1"]
                    for (owner, _, value) in rowColumns {
                        values.append(lineage.contains(owner) ? (try value(row, key)) : "NULL")
                    }
                    lines.append("INSERT INTO \(quote(table)) VALUES (\(values.joined(separator: ", ")));")
                    // Many-to-many pairs given on this row.
                    for (name, value) in row {
                        guard case .objects(let targets) = value else { continue }
                        guard case let (relationship, declaredBy)? = plan.relationship(name, of: member.name), relationship.isToMany,
                            let inverseName = relationship.inverse,
                            case let (inverse, inverseDeclaredBy)? = plan.relationship(inverseName, of: relationship.destination), inverse.isToMany,
                            let ownerID = plan.ids[declaredBy], let otherID = plan.ids[inverseDeclaredBy]
                        else { throw failure("\(member.name).\(name) is not a many-to-many relationship with an inverse") }
                        // The side with the smaller (Z_ENT, name) names the table.
                        let thisSide = (ownerID, relationship.name) <= (otherID, inverse.name)
                        let tableName = thisSide ? "Z_\(ownerID)\(relationship.name.uppercased())" : "Z_\(otherID)\(inverse.name.uppercased())"
                        // Column Z_<ent of X><name of the relationship pointing at X> holds X's keys.
                        let ownerColumn = "Z_\(ownerID)\(inverse.name.uppercased())"
                        let relatedColumn = "Z_\(otherID)\(relationship.name.uppercased())"
                        var join = joins[tableName] ?? Join(
                            table: tableName, owningColumn: thisSide ? ownerColumn : relatedColumn,
                            relatedColumn: thisSide ? relatedColumn : ownerColumn)
                        for target in targets {
                            let other = try targetKey(target)
                            join.pairs.append(thisSide ? (key, other) : (other, key))
                        }
                        joins[tableName] = join
                    }
                }
            }
        }
        for join in joins.values {
            lines.append(
                "CREATE TABLE \(quote(join.table)) (\(quote(join.owningColumn)) INTEGER, \(quote(join.relatedColumn)) INTEGER, PRIMARY KEY (\(quote(join.owningColumn)), \(quote(join.relatedColumn))));")
            for (a, b) in join.pairs { lines.append("INSERT OR IGNORE INTO \(quote(join.table)) VALUES (\(a), \(b));") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes a store at `url` (which must not exist) with the sqlite3 shell.
    public static func write(_ entities: [Entity], to url: URL, wal: Bool = false) throws {
        try sqlite3(url, try sql(entities, wal: wal))
    }

    /// Runs SQL on a database with the sqlite3 shell.
    @discardableResult
    public static func sqlite3(_ url: URL, _ sql: String) throws -> String {
        let result = try Peers.run("/usr/bin/env", ["sqlite3", url.path], input: Data(sql.utf8))
        guard result.status == 0 else {
            throw PFError(.io, format: .sqlite, "sqlite3 \(url.lastPathComponent) failed (\(result.status)): \(result.stderr)")
        }
        return result.stdoutText
    }

    /// Puts a WAL-mode database into `directory` as a running app leaves it: the file, its
    /// `-wal` holding `sql`'s changes (never checkpointed) and its `-shm`. The shell copies the
    /// three files while its connection is still open (it would checkpoint them away on exit).
    /// - Returns: the copy's URL (same file name as `database`).
    public static func liveWAL(of database: URL, applying sql: String, into directory: URL) throws -> URL {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = database.path
        try sqlite3(database, """
            PRAGMA journal_mode=WAL;
            PRAGMA wal_autocheckpoint=0;
            \(sql)
            .shell cp '\(path)' '\(path)-wal' '\(path)-shm' '\(directory.path)/'
            """)
        return directory.appendingPathComponent(database.lastPathComponent)
    }

    /// Every file in a directory with its bytes, to compare before and after a read (equal
    /// bytes: equal listings and equal SHA-256 digests).
    public static func directorySnapshot(_ directory: URL) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            out[name] = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) ?? Data()
        }
        return out
    }
}
