import Foundation
import PFCore

extension CoreDataModel {
    /// `Z_ENT` values at or above this belong to Core Data's persistent-history entities.
    static let historyEntityBase: Int64 = 16_000

    /// The persistent-history entities (ids from ``historyEntityBase``) the model does not
    /// declare, with their tables (`ACHANGE`…), when the store has them.
    func historyTables(primaryKeys: [PrimaryKeyRow], schema: StoreSchema) -> [(row: PrimaryKeyRow, table: String)] {
        primaryKeys.compactMap { row in
            let table = "A" + row.name.uppercased()
            guard row.id >= Self.historyEntityBase, entity(named: row.name) == nil, schema.tables[table] != nil else { return nil }
            return (row, table)
        }
    }

    /// A model guessed from `Z_PRIMARYKEY` and the tables' columns, for stores without a model
    /// cache (framework versions before 866) when no compiled model is given.
    ///
    /// What is known for certain: entity names, inheritance (`Z_SUPER`), each entity's table and
    /// rows. What is guessed (and listed in ``guesses``): property names (the column name
    /// without `Z`, lower-cased — the original camelCase is lost), types from declared column
    /// types (`INTEGER` → Integer 64, so booleans read as integers; `BLOB` → Binary), to-one
    /// relationships from `INTEGER` columns with a `Z<n>_` twin or a `<TABLE>_<COLUMN>_INDEX`
    /// index whose name matches an entity, many-to-many relationships (both sides) from the
    /// names of `Z_<n><NAME>` join tables and their columns, and that every column belongs to
    /// the root entity.
    static func infer(primaryKeys: [PrimaryKeyRow], schema: StoreSchema, reason: String) -> CoreDataModel {
        let rows = primaryKeys.filter { $0.id < historyEntityBase }
        let names = Dictionary(rows.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        var guesses = [
            "no model: \(reason); the model is inferred from Z_PRIMARYKEY and the columns",
            "property names are column names without the Z prefix, lower-cased (the original case is lost)",
            "types come from declared column types: INTEGER is read as Integer 64 (booleans too), BLOB as Binary (payloads in them are still decoded), TIMESTAMP as Date",
            "every column of a table is given to the hierarchy's root entity, so subentity-only columns appear on every entity of the hierarchy (NULLs are left out of objects)",
        ]
        var entities: [CoreDataEntity] = []
        var joinTables: [String] = []
        for row in rows {
            let parent = row.superID == 0 ? nil : names[row.superID]
            var entity = CoreDataEntity(name: row.name, superentity: parent)
            var root = row
            var steps = 0
            while root.superID != 0, let up = rows.first(where: { $0.id == root.superID }), steps < rows.count {
                root = up
                steps += 1
            }
            let table = "Z" + root.name.uppercased()
            let (attributes, relationships, notes) = inferProperties(table: table, declaredBy: root.name, schema: schema, rows: rows)
            entity.attributes = attributes
            entity.relationships = relationships
            if row.id == root.id { guesses.append(contentsOf: notes) }
            entities.append(entity)
        }
        // In name order: which join table claims a name first, and the guesses, must not
        // depend on a dictionary's order, which changes per process.
        for (upper, info) in schema.tables.sorted(by: { $0.key < $1.key })
        where upper.hasPrefix("Z_") && upper.dropFirst(2).first?.isASCIIDigit == true {
            guard let pair = joinRelationships(table: upper, columns: info.columns.map { $0.name.uppercased() }, names: names),
                addJoin(pair, to: &entities, rows: rows)
            else {
                joinTables.append(info.name)
                continue
            }
            let (owner, rel, destination, inverse) = pair
            guesses.append(
                "join table \(info.name) is read as the many-to-many relationships \(owner).\(rel) and \(destination).\(inverse) "
                    + "(named from the table's and its columns' names, lower-cased)")
        }
        if !joinTables.isEmpty {
            guesses.append("join tables \(joinTables.sorted().joined(separator: ", ")) hold many-to-many relationships whose sides cannot be told apart without a model; they are not read")
        }
        return CoreDataModel(entities: entities, source: .inferred, guesses: guesses)
    }

    /// The two sides of a many-to-many join table, from Core Data's names: table
    /// `Z_<n><REL>` with columns `Z_<a><INVERSE>` (the owners: entity `a`, which declares
    /// `REL`) and `Z_<b><REL>` (the related objects: entity `b`, the destination, which declares
    /// `INVERSE`). `nil` when the names do not say (other columns, a relationship that is its
    /// own inverse, an entity id not in `Z_PRIMARYKEY`).
    static func joinRelationships(table upper: String, columns: [String], names: [Int64: String])
        -> (owner: String, relationship: String, destination: String, inverse: String)?
    {
        let split = CoreDataLayout.joinName
        guard columns.count == 2, let (tableID, rel) = split(upper), let first = split(columns[0]), let second = split(columns[1]),
            first.1 != second.1
        else { return nil }
        let (owning, related) = second.1 == rel ? (first, second) : first.1 == rel ? (second, first) : (nil, nil)
        guard let owning, let related, owning.0 == tableID, let owner = names[owning.0], let destination = names[related.0] else { return nil }
        // One entity's relationship that is its own inverse (`Z_1FRIENDS`, `Z_1FRIENDS1`): no
        // second relationship exists to name.
        if owning.0 == related.0, owning.1.hasPrefix(related.1) || related.1.hasPrefix(owning.1) {
            let longer = owning.1.count > related.1.count ? owning.1 : related.1
            let shorter = owning.1.count > related.1.count ? related.1 : owning.1
            if longer.dropFirst(shorter.count).allSatisfy(\.isASCIIDigit) { return nil }
        }
        return (owner, rel.lowercased(), destination, owning.1.lowercased())
    }

    /// Adds both sides of a join table's relationship (to the declaring entities and their
    /// subentities); `false`, changing nothing, when a name is taken already.
    static func addJoin(
        _ pair: (owner: String, relationship: String, destination: String, inverse: String), to entities: inout [CoreDataEntity],
        rows: [PrimaryKeyRow]
    ) -> Bool {
        let ids = Dictionary(rows.map { ($0.name, $0.id) }, uniquingKeysWith: { first, _ in first })
        /// The entity and every entity below it.
        func family(_ name: String) -> [Int] {
            guard let id = ids[name] else { return [] }
            return entities.indices.filter { index in
                var current = rows.first { $0.name == entities[index].name }
                var steps = 0
                while let row = current, steps <= rows.count {
                    if row.id == id { return true }
                    current = rows.first { $0.id == row.superID && row.superID != 0 }
                    steps += 1
                }
                return false
            }
        }
        let sides = [
            (family(pair.owner), CoreDataRelationship(name: pair.relationship, destination: pair.destination, inverse: pair.inverse, isToMany: true, declaredBy: pair.owner)),
            (family(pair.destination), CoreDataRelationship(name: pair.inverse, destination: pair.owner, inverse: pair.relationship, isToMany: true, declaredBy: pair.destination)),
        ]
        for (members, relationship) in sides {
            guard !members.isEmpty else { return false }
            for i in members where entities[i].attributes.contains(where: { $0.name == relationship.name })
                || entities[i].relationships.contains(where: { $0.name == relationship.name }) {
                return false
            }
        }
        for (members, relationship) in sides {
            for i in members {
                entities[i].relationships.append(relationship)
                entities[i].relationships.sort { $0.name < $1.name }
            }
        }
        return true
    }

    /// Attributes (and guessed to-one relationships) for the columns of one table.
    static func inferProperties(table: String, declaredBy: String, schema: StoreSchema, rows: [PrimaryKeyRow])
        -> ([CoreDataAttribute], [CoreDataRelationship], [String])
    {
        let columns = schema.columns(of: table)
        let upperColumns = Set(columns.map { $0.name.uppercased() })
        var attributes: [CoreDataAttribute] = []
        var relationships: [CoreDataRelationship] = []
        var notes: [String] = []
        for column in columns {
            let upper = column.name.uppercased()
            if ["Z_PK", "Z_ENT", "Z_OPT"].contains(upper) || upper.hasPrefix("Z_FOK_") { continue }
            if isEntityColumn(upper) { continue }
            guard upper.hasPrefix("Z"), upper.count > 1 else { continue }
            let bare = String(upper.dropFirst())
            let name = bare.lowercased()
            if column.type.hasPrefix("INT") {
                // A twin Z<n>_<NAME> names the destination's entity; otherwise an index and a
                // matching entity name make it a likely foreign key.
                let twin = upperColumns.first { isEntityColumn($0) && $0.hasSuffix("_" + bare) }
                let twinID = twin.flatMap { Int64($0.dropFirst().prefix { $0.isASCIIDigit }) }
                let destination = twinID.flatMap { id in rows.first { $0.id == id }?.name }
                    ?? (schema.indexes.contains("\(table.uppercased())_\(upper)_INDEX") ? rows.first { $0.name.uppercased() == bare }?.name : nil)
                if let destination {
                    relationships.append(CoreDataRelationship(name: name, destination: destination, isToMany: false, declaredBy: declaredBy))
                    notes.append("\(table).\(column.name) is taken to be a to-one relationship to \(destination) (inverse unknown)")
                    continue
                }
                if schema.indexes.contains("\(table.uppercased())_\(upper)_INDEX") {
                    // Core Data indexes every to-one's foreign key, so this is likely one, to an
                    // entity its name does not tell (Recipe.type → RecipeType).
                    notes.append(
                        "\(table).\(column.name) is indexed as Core Data indexes a to-one relationship's foreign key, "
                            + "but no entity is named \(name): read as a number (the Z_PK of the row it points to, if it is one)")
                }
            }
            attributes.append(CoreDataAttribute(name: name, type: inferredType(column.type), declaredBy: declaredBy))
        }
        return (attributes.sorted { $0.name < $1.name }, relationships.sorted { $0.name < $1.name }, notes)
    }

    /// `Z<digits>_<NAME>`: the entity column of a to-one relationship.
    static func isEntityColumn(_ upper: String) -> Bool {
        guard upper.hasPrefix("Z"), let underscore = upper.firstIndex(of: "_") else { return false }
        let digits = upper[upper.index(after: upper.startIndex)..<underscore]
        return !digits.isEmpty && digits.allSatisfy(\.isASCIIDigit)
    }

    static func inferredType(_ declared: String) -> CoreDataAttributeType {
        switch declared {
        case let t where t.hasPrefix("INT"): .integer64
        case "FLOAT", "REAL", "DOUBLE": .double
        case "DECIMAL": .decimal
        case "TIMESTAMP": .date
        case "BLOB": .binaryData
        case let t where t.hasPrefix("VARCHAR") || t.hasPrefix("TEXT"): .string
        default: .undefined
        }
    }

    /// Adds the persistent-history entities (`CHANGE`, `TRANSACTION`, …, `Z_ENT` ≥ 16000),
    /// read from their `A<NAME>` tables with inferred attributes.
    mutating func addHistoryEntities(primaryKeys: [PrimaryKeyRow], schema: StoreSchema) {
        for (row, table) in historyTables(primaryKeys: primaryKeys, schema: schema) {
            var attributes = Self.inferProperties(table: table, declaredBy: row.name, schema: schema, rows: []).0
            // A change's tombstone columns (`ZTOMBSTONE0`…) hold the deleted object's values of
            // whatever type they had, under a BLOB declaration: any storage is expected there.
            for i in attributes.indices where attributes[i].name.hasPrefix("tombstone")
                && attributes[i].name.dropFirst("tombstone".count).allSatisfy(\.isASCIIDigit) {
                attributes[i].type = .undefined
            }
            // What Core Data's history model declares (NSPersistentHistoryTransaction,
            // NSPersistentHistoryChange): a transaction's timestamp is a date (stored as seconds
            // since 2001), and its change rows and interned strings are to-one links.
            if row.name == "TRANSACTION", let i = attributes.firstIndex(where: { $0.name == "timestamp" }) { attributes[i].type = .date }
            var relationships: [CoreDataRelationship] = []
            let historyNames = Set(historyTables(primaryKeys: primaryKeys, schema: schema).map(\.row.name))
            for (owner, name, destination) in Self.historyLinks where owner == row.name && historyNames.contains(destination) {
                guard let i = attributes.firstIndex(where: { $0.name == name && $0.type == .integer64 }) else { continue }
                attributes.remove(at: i)
                relationships.append(CoreDataRelationship(name: name, destination: destination, isToMany: false, declaredBy: row.name))
            }
            attributes.sort { $0.name < $1.name }
            entities.append(CoreDataEntity(name: row.name, attributes: attributes, relationships: relationships))
        }
    }

    /// The to-one links of the persistent-history entities: (entity, relationship, destination).
    static let historyLinks: [(String, String, String)] = [
        ("CHANGE", "transactionid", "TRANSACTION"),
        ("TRANSACTION", "authorts", "TRANSACTIONSTRING"),
        ("TRANSACTION", "bundleidts", "TRANSACTIONSTRING"),
        ("TRANSACTION", "contextnamets", "TRANSACTIONSTRING"),
        ("TRANSACTION", "processidts", "TRANSACTIONSTRING"),
    ]
}
