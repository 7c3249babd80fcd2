import Foundation
import PFCore
import PFSQLiteSource

/// Where each entity, attribute and relationship of a model lives in the store's tables.
///
/// The rules (observed in real stores; Apple does not document them):
/// - one table `Z<ROOT>` per root entity (`A<NAME>` for history entities), holding every
///   entity of the hierarchy, told apart by `Z_ENT`;
/// - an attribute or to-one relationship `name` in column `Z<NAME>`, or `Z<NAME><n>` when
///   several entities of one hierarchy declare the same name;
/// - a to-one whose destination has subentities also gets `Z<ent>_<NAME>` (the target's `Z_ENT`);
/// - a to-many with a to-one inverse is the inverse's foreign key in the destination table,
///   ordered ones with `Z_FOK_<INVERSE>`;
/// - a many-to-many is a join table `Z_<ent><NAME>` with columns `Z_<ent><INVERSE>` (owner's
///   `Z_PK`) and `Z_<ent><NAME>` (related `Z_PK`).
struct CoreDataLayout: Sendable {
    /// Entity names in `Z_PRIMARYKEY` order (model order for entities the store lacks).
    var entityOrder: [String] = []
    var entities: [String: EntityLayout] = [:]
    /// `Z_ENT` → entity name.
    var entityNames: [Int64: String] = [:]
    var guesses: [String] = []
    /// The columns of each table that holds entities, in order.
    var columnsOfTable: [String: [String]] = [:]

    struct EntityLayout: Sendable {
        var name: String
        var id: Int64?
        var table: String?
        /// `Z_ENT` of the entity and all its subentities.
        var subtreeIDs: [Int64] = []
        var attributes: [(attribute: CoreDataAttribute, column: String)] = []
        /// Composite attributes, each read from its elements' columns.
        var composites: [CompositeLayout] = []
        var toOne: [(relationship: CoreDataRelationship, column: String, entityColumn: String?)] = []
        var toMany: [String: ToMany] = [:]
        /// Property name → why it could not be mapped.
        var unmapped: [String: String] = [:]
        /// How its table's keys are written in SQL.
        var keys = KeySQL(casts: false)
    }

    /// The SQL of a table's `Z_PK` and `Z_ENT` (and of its foreign keys) as integers. A table
    /// whose `Z_PK` or `Z_ENT` lacks INTEGER affinity (one rebuilt by another tool, whose keys
    /// may be the TEXT `'1'`, which `Z_ENT = 1` does not match) has them compared and ordered
    /// through `CAST`.
    struct KeySQL: Sendable {
        /// Whether the keys are read through `CAST(… AS INTEGER)`.
        var casts: Bool

        init(casts: Bool) { self.casts = casts }

        /// The keys of a table with these columns: cast when `Z_PK` or `Z_ENT` has no INTEGER
        /// affinity (its declared type does not contain `INT`, SQLite's rule).
        init(columns: [(name: String, type: String)]) {
            casts = ["Z_PK", "Z_ENT"].contains { key in
                columns.first { $0.name.uppercased() == key }.map { !$0.type.contains("INT") } ?? false
            }
        }

        /// The row's `Z_PK`, with a table alias such as `"o."`.
        func primaryKey(_ alias: String = "") -> String { integer("\(alias)Z_PK") }
        /// The row's `Z_ENT`, with a table alias such as `"o."`.
        func entityKey(_ alias: String = "") -> String { integer("\(alias)Z_ENT") }
        /// Another of the table's columns holding a key (a foreign key).
        func integer(_ expression: String) -> String { casts ? "CAST(\(expression) AS INTEGER)" : expression }
    }

    /// How the keys of `table` are written in SQL (``KeySQL``).
    func keys(ofTable table: String) -> KeySQL {
        entities.values.first { $0.table == table }?.keys ?? KeySQL(casts: false)
    }

    /// Where a composite attribute's elements are: Core Data keeps each (each element of an
    /// element that is a composite too) in a column of its own, `Z<ELEMENT>`, or
    /// `Z<ELEMENT><n>` when that name is taken (`author.id` in `ZID1` beside the entity's `id`
    /// in `ZID`); the value is a dictionary of the elements.
    struct CompositeLayout: Sendable {
        var attribute: CoreDataAttribute
        /// Each stored element: its path of names under the attribute, and its column.
        var elements: [(path: [String], attribute: CoreDataAttribute, column: String)]

        /// The elements that are stored values (a composite element stands for its own), with
        /// their paths, in the model's order.
        static func leaves(of attribute: CoreDataAttribute, depth: Int = 0) -> [(path: [String], attribute: CoreDataAttribute)] {
            attribute.elements.flatMap { element -> [(path: [String], attribute: CoreDataAttribute)] in
                guard element.isComposite, depth < 16 else { return [([element.name], element)] }
                return leaves(of: element, depth: depth + 1).map { ([element.name] + $0.path, $0.attribute) }
            }
        }
    }

    enum ToMany: Sendable {
        /// Related rows in `table` point back at the owner through `foreignKey`.
        case inverseForeignKey(table: String, foreignKey: String, orderColumn: String?)
        /// A join table of (owner `Z_PK`, related `Z_PK`) pairs.
        case joinTable(table: String, owningColumn: String, relatedColumn: String, relatedTable: String)
    }

    init(model: CoreDataModel, primaryKeys: [PrimaryKeyRow], schema: StoreSchema, connection: SQLiteConnection, context: String) throws(PFError) {
        let ids = Self.matchIDs(model: model, primaryKeys: primaryKeys)
        for (name, id) in ids { entityNames[id] = name }
        let byID = primaryKeys.map(\.id)
        entityOrder = byID.compactMap { entityNames[$0] } + model.entities.map(\.name).filter { ids[$0] == nil }
        for entity in model.entities where ids[entity.name] == nil { guesses.append("entity \(entity.name) is not in Z_PRIMARYKEY") }

        // Tables and entity subtrees.
        for entity in model.entities {
            var layout = EntityLayout(name: entity.name, id: ids[entity.name])
            layout.subtreeIDs = model.subtree(of: entity).compactMap { ids[$0.name] }
            layout.table = Self.table(for: model.root(of: entity), ids: ids, primaryKeys: primaryKeys, schema: schema)
            if let table = layout.table { layout.keys = KeySQL(columns: schema.columns(of: table)) }
            entities[entity.name] = layout
        }
        // Columns, hierarchy by hierarchy.
        for root in model.entities where root.superentity == nil || model.entity(named: root.superentity ?? "") == nil {
            guard let table = entities[root.name]?.table else {
                for member in model.subtree(of: root) {
                    entities[member.name]?.unmapped["*"] = "no table \(Self.tableName(root))"
                }
                continue
            }
            try mapColumns(hierarchy: model.subtree(of: root), table: table, ids: ids, model: model, schema: schema, connection: connection, context: context)
        }
        for table in Set(entities.values.compactMap(\.table)) { columnsOfTable[table] = schema.columns(of: table).map(\.name) }
        // To-many relationships need every table's to-one columns first.
        for entity in model.entities {
            for relationship in entity.relationships where relationship.isToMany && !relationship.isTransient {
                mapToMany(relationship, of: entity, model: model, schema: schema)
            }
        }
    }

    // MARK: - Entities and tables

    /// Matches model entities to `Z_PRIMARYKEY` rows: by name, then by the entity's renaming
    /// identifier (a renamed entity keeps its old `Z_NAME`), then as the only unmatched child
    /// of its parent's row.
    static func matchIDs(model: CoreDataModel, primaryKeys: [PrimaryKeyRow]) -> [String: Int64] {
        var ids: [String: Int64] = [:]
        var used: Set<Int64> = []
        for entity in model.entities {
            if let row = primaryKeys.first(where: { $0.name == entity.name }) {
                ids[entity.name] = row.id
                used.insert(row.id)
            }
        }
        for entity in model.entities where ids[entity.name] == nil {
            if let old = entity.renamingIdentifier, let row = primaryKeys.first(where: { $0.name == old && !used.contains($0.id) }) {
                ids[entity.name] = row.id
                used.insert(row.id)
            }
        }
        for entity in model.entities where ids[entity.name] == nil {
            let parentID = entity.superentity.flatMap { ids[$0] } ?? 0
            let candidates = primaryKeys.filter { $0.superID == parentID && !used.contains($0.id) }
            if candidates.count == 1, let row = candidates.first, entity.superentity != nil {
                ids[entity.name] = row.id
                used.insert(row.id)
            }
        }
        return ids
    }

    static func tableName(_ root: CoreDataEntity) -> String { "Z" + root.name.uppercased() }

    static func table(for root: CoreDataEntity, ids: [String: Int64], primaryKeys: [PrimaryKeyRow], schema: StoreSchema) -> String? {
        var candidates = [tableName(root)]
        if let old = root.renamingIdentifier { candidates.append("Z" + old.uppercased()) }
        if let id = ids[root.name], let row = primaryKeys.first(where: { $0.id == id }) {
            candidates.append("Z" + row.name.uppercased())
            if id > 16000 { candidates.insert("A" + row.name.uppercased(), at: 0) }
        }
        for candidate in candidates { if let found = schema.tables[candidate.uppercased()] { return found.name } }
        return nil
    }

    // MARK: - Attribute and to-one columns

    mutating func mapColumns(
        hierarchy: [CoreDataEntity], table: String, ids: [String: Int64], model: CoreDataModel, schema: StoreSchema,
        connection: SQLiteConnection, context: String
    ) throws(PFError) {
        let columns = schema.columns(of: table).map(\.name)
        let upper = Dictionary(columns.map { ($0.uppercased(), $0) }, uniquingKeysWith: { first, _ in first })
        // Every stored property name in the hierarchy → the entities that declare it.
        var definers: [String: Set<String>] = [:]
        for entity in hierarchy {
            for attribute in entity.attributes where !attribute.isTransient && !attribute.isComposite {
                definers[attribute.name, default: []].insert(attribute.declaredBy)
            }
            for relationship in entity.relationships where !relationship.isToMany && !relationship.isTransient {
                definers[relationship.name, default: []].insert(relationship.declaredBy)
            }
        }
        let exactNames = Set(definers.keys.map { "Z" + $0.uppercased() })
        let entityKey = KeySQL(columns: schema.columns(of: table)).entityKey()
        // (declaring entity, property) → column.
        var assigned: [String: [String: String]] = [:]
        // In name order: the guesses are printed, and a dictionary's order changes per process.
        for (property, declaring) in definers.sorted(by: { $0.key < $1.key }) {
            let base = "Z" + property.uppercased()
            var candidates = upper.keys.filter { column in
                guard column.hasPrefix(base) else { return false }
                let rest = column.dropFirst(base.count)
                if rest.isEmpty { return true }
                return rest.allSatisfy(\.isASCIIDigit) && !exactNames.contains(column)
            }
            candidates.sort { Self.suffixNumber($0, base: base) < Self.suffixNumber($1, base: base) }
            let owners = declaring.sorted { (ids[$0] ?? .max, $0) < (ids[$1] ?? .max, $1) }
            if owners.count == 1, let owner = owners.first {
                if let exact = upper[base] {
                    assigned[owner, default: [:]][property] = exact
                } else if candidates.count == 1, let only = candidates.first, let real = upper[only] {
                    assigned[owner, default: [:]][property] = real
                    guesses.append("\(owner).\(property) is taken to be \(table).\(real)")
                }
                continue
            }
            // Several entities declare the name: match each suffixed column to the entity whose
            // rows fill it, then the rest in Z_ENT order.
            var remaining = candidates.compactMap { upper[$0] }
            var unresolved: [String] = []
            for owner in owners {
                guard let ownerEntity = model.entity(named: owner) else { continue }
                let subtree = Set(model.subtree(of: ownerEntity).compactMap { ids[$0.name] })
                var matches: [String] = []
                for column in remaining {
                    let filled = try connection.rows(
                        "SELECT DISTINCT \(entityKey) FROM \(CoreDataStore.quote(table)) WHERE \(CoreDataStore.quote(column)) IS NOT NULL LIMIT 64",
                        context: context
                    ).map { $0.first?.int64 }
                    if !filled.isEmpty, filled.allSatisfy({ $0.map(subtree.contains) ?? false }) { matches.append(column) }
                }
                if matches.count == 1, let match = matches.first {
                    assigned[owner, default: [:]][property] = match
                    remaining.removeAll { $0 == match }
                } else {
                    unresolved.append(owner)
                }
            }
            for (owner, column) in zip(unresolved, remaining) {
                assigned[owner, default: [:]][property] = column
                guesses.append("\(owner).\(property) is taken to be \(table).\(column) by Z_ENT order (no rows tell)")
            }
        }
        let composites = mapComposites(hierarchy: hierarchy, table: table, columns: columns, assigned: assigned, ids: ids)
        for entity in hierarchy {
            var layout = entities[entity.name] ?? EntityLayout(name: entity.name)
            for attribute in entity.attributes where !attribute.isTransient && attribute.isComposite {
                let key = attribute.declaredBy + "\u{0}" + attribute.name
                guard let composite = composites.mapped[key] else {
                    layout.unmapped[attribute.name] = composites.missing[key] ?? "a composite attribute without elements"
                    continue
                }
                layout.composites.append(composite)
                // Read without them (its other elements are data), and said so.
                if let missing = composites.missing[key], entity.name == attribute.declaredBy {
                    guesses.append("\(entity.name).\(attribute.name): \(missing); read without \(missing.hasPrefix("composite elements") ? "them" : "it")")
                }
            }
            for attribute in entity.attributes where !attribute.isTransient && !attribute.isComposite {
                if let column = assigned[attribute.declaredBy]?[attribute.name] {
                    layout.attributes.append((attribute, column))
                } else {
                    layout.unmapped[attribute.name] = "no column Z\(attribute.name.uppercased()) in \(table)"
                }
            }
            for relationship in entity.relationships where !relationship.isToMany && !relationship.isTransient {
                guard let column = assigned[relationship.declaredBy]?[relationship.name] else {
                    layout.unmapped[relationship.name] = "no column Z\(relationship.name.uppercased()) in \(table)"
                    continue
                }
                let suffix = column.uppercased().dropFirst(1 + relationship.name.count)
                let entityColumn = columns.first { candidate in
                    let c = candidate.uppercased()
                    guard c.hasPrefix("Z"), let underscore = c.firstIndex(of: "_") else { return false }
                    let digits = c[c.index(after: c.startIndex)..<underscore]
                    return !digits.isEmpty && digits.allSatisfy(\.isASCIIDigit)
                        && c[c.index(after: underscore)...] == relationship.name.uppercased() + suffix
                }
                layout.toOne.append((relationship, column, entityColumn))
            }
            entities[entity.name] = layout
        }
    }

    /// The `Z_ENT`s of an entity and its superentities, nearest first: a join column is
    /// numbered after the entity that declares the relationship, which may be an ancestor.
    func lineage(_ start: CoreDataEntity, model: CoreDataModel) -> [Int64] {
        var ids: [Int64] = []
        var current: CoreDataEntity? = start
        var steps = 0
        while let entity = current, steps <= model.entities.count {
            if let id = entities[entity.name]?.id { ids.append(id) }
            current = entity.superentity.flatMap { model.entity(named: $0) }
            steps += 1
        }
        return ids
    }

    /// A to-many relationship without an inverse (common in SwiftData models): Core Data keeps
    /// the owner's `Z_PK` in a column of its own in the destination table, `Z<n><NAME>` after
    /// the declaring entity's `Z_ENT` (`ZINGREDIENT.Z1SPEC` for `Cocktail.spec`), ordered ones
    /// with `Z_FOK_<n><NAME>`.
    mutating func mapToManyWithoutInverse(
        _ relationship: CoreDataRelationship, of entity: CoreDataEntity, destinationTable: String, model: CoreDataModel, schema: StoreSchema
    ) {
        let columns = schema.columns(of: destinationTable)
        func column(_ name: String) -> String? { columns.first { $0.name.uppercased() == name }?.name }
        for id in lineage(entity, model: model) {
            let name = "Z\(id)\(relationship.name.uppercased())"
            guard let foreignKey = column(name) else { continue }
            entities[entity.name]?.toMany[relationship.name] = .inverseForeignKey(
                table: destinationTable, foreignKey: foreignKey, orderColumn: relationship.isOrdered ? column("Z_FOK_" + name.dropFirst()) : nil)
            return
        }
        entities[entity.name]?.unmapped[relationship.name] =
            "a to-many relationship without an inverse, and no column Z<n>\(relationship.name.uppercased()) in \(destinationTable)"
    }

    /// The columns of a hierarchy's composite attributes, once every other property has its
    /// column: each element takes `Z<ELEMENT>` if no property took it, else the lowest free
    /// `Z<ELEMENT><n>`, attributes in the order of their declaring entities' `Z_ENT`, then by name.
    /// - Returns: per `declaringEntity\0attribute`, the layout of a composite with at least one
    ///   element found, and why elements (or all of them) were not found.
    func mapComposites(
        hierarchy: [CoreDataEntity], table: String, columns: [String], assigned: [String: [String: String]], ids: [String: Int64]
    ) -> (mapped: [String: CompositeLayout], missing: [String: String]) {
        var taken = Set(["Z_PK", "Z_ENT", "Z_OPT"])
        for (_, properties) in assigned { for (_, column) in properties { taken.insert(column.uppercased()) } }
        let upper = Dictionary(columns.map { ($0.uppercased(), $0) }, uniquingKeysWith: { first, _ in first })
        var declared: [(owner: String, attribute: CoreDataAttribute)] = []
        var seen: Set<String> = []
        for entity in hierarchy {
            for attribute in entity.attributes where attribute.isComposite && !attribute.isTransient {
                if seen.insert(attribute.declaredBy + "\u{0}" + attribute.name).inserted { declared.append((attribute.declaredBy, attribute)) }
            }
        }
        declared.sort { (ids[$0.owner] ?? .max, $0.owner, $0.attribute.name) < (ids[$1.owner] ?? .max, $1.owner, $1.attribute.name) }
        var mapped: [String: CompositeLayout] = [:]
        var missing: [String: String] = [:]
        for (owner, attribute) in declared {
            let key = owner + "\u{0}" + attribute.name
            var layout = CompositeLayout(attribute: attribute, elements: [])
            var notFound: [String] = []
            for (path, element) in CompositeLayout.leaves(of: attribute) {
                let base = "Z" + element.name.uppercased()
                var column: String?
                if !taken.contains(base), upper[base] != nil {
                    column = base
                } else {
                    column = upper.keys.filter { name in
                        name.hasPrefix(base) && !taken.contains(name) && name.count > base.count
                            && name.dropFirst(base.count).allSatisfy(\.isASCIIDigit)
                    }.min { Self.suffixNumber($0, base: base) < Self.suffixNumber($1, base: base) }
                }
                guard let found = column, let real = upper[found] else {
                    notFound.append(path.joined(separator: "."))
                    continue
                }
                taken.insert(found)
                layout.elements.append((path, element, real))
            }
            if !layout.elements.isEmpty { mapped[key] = layout }
            if !notFound.isEmpty {
                missing[key] = "composite element\(notFound.count == 1 ? "" : "s") \(notFound.joined(separator: ", ")) with no column in \(table)"
            }
        }
        return (mapped, missing)
    }

    /// A join table's or join column's name `Z_<n><NAME>` split into the entity number and
    /// the (upper-cased) relationship name, or `nil` for another name. (Relationship names
    /// start with a letter, so the digits end where the name begins.)
    static func joinName(_ name: String) -> (entity: Int64, name: String)? {
        guard name.hasPrefix("Z_") else { return nil }
        let rest = name.dropFirst(2)
        let digits = rest.prefix(while: \.isASCIIDigit)
        let suffix = rest.dropFirst(digits.count)
        guard let id = Int64(digits), !suffix.isEmpty else { return nil }
        return (id, String(suffix))
    }

    static func suffixNumber(_ column: String, base: String) -> Int {
        Int(column.dropFirst(base.count)) ?? -1
    }

    // MARK: - To-many

    mutating func mapToMany(_ relationship: CoreDataRelationship, of entity: CoreDataEntity, model: CoreDataModel, schema: StoreSchema) {
        guard let destination = model.entity(named: relationship.destination), let destinationTable = entities[destination.name]?.table else {
            entities[entity.name]?.unmapped[relationship.name] = "destination \(relationship.destination) has no table"
            return
        }
        guard let inverseName = relationship.inverse, let inverse = destination.relationship(named: inverseName) else {
            mapToManyWithoutInverse(relationship, of: entity, destinationTable: destinationTable, model: model, schema: schema)
            return
        }
        if !inverse.isToMany {
            guard let foreignKey = entities[destination.name]?.toOne.first(where: { $0.relationship.name == inverseName })?.column else {
                entities[entity.name]?.unmapped[relationship.name] = "the inverse \(destination.name).\(inverseName) has no column"
                return
            }
            var order: String?
            if relationship.isOrdered {
                let suffix = foreignKey.uppercased().dropFirst(1 + inverseName.count)
                let wanted = "Z_FOK_" + inverseName.uppercased() + suffix
                order = schema.columns(of: destinationTable).first { $0.name.uppercased() == wanted }?.name
            }
            entities[entity.name]?.toMany[relationship.name] = .inverseForeignKey(table: destinationTable, foreignKey: foreignKey, orderColumn: order)
            return
        }
        // Many-to-many: a join table named after either side.
        let name = relationship.name.uppercased()
        let inverseUpper = inverseName.uppercased()
        guard name != inverseUpper else {
            entities[entity.name]?.unmapped[relationship.name] = "a many-to-many relationship that is its own inverse; its join columns are not known"
            return
        }
        /// The `Z_ENT` of `Z_<n><suffix>`, or `nil` for another name.
        func entityPrefix(_ column: String, _ suffix: String) -> Int64? {
            Self.joinName(column).flatMap { $0.name == suffix ? $0.entity : nil }
        }
        let owners = lineage(entity, model: model)
        let destinations = lineage(destination, model: model)
        // Two join tables may end in the same names for other entities (`Z_1TAGS` and
        // `Z_3TAGS`): only one whose columns carry these entities' numbers is this one.
        for (upperTable, info) in schema.tables.sorted(by: { $0.key < $1.key })
        where entityPrefix(upperTable, name) != nil || entityPrefix(upperTable, inverseUpper) != nil {
            let owning = info.columns.first { entityPrefix($0.name.uppercased(), inverseUpper).map(owners.contains) ?? false }
            let related = info.columns.first { entityPrefix($0.name.uppercased(), name).map(destinations.contains) ?? false }
            if let owning, let related {
                entities[entity.name]?.toMany[relationship.name] = .joinTable(
                    table: info.name, owningColumn: owning.name, relatedColumn: related.name, relatedTable: destinationTable)
                return
            }
        }
        entities[entity.name]?.unmapped[relationship.name] = "no join table Z_<n>\(name) with columns Z_<n>\(inverseUpper) and Z_<n>\(name)"
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
