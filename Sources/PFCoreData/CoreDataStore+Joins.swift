import Foundation
import PFCore

/// One pair of a to-many relationship, as a row of Parse's `_Join:<field>:<Class>` table.
public struct CoreDataJoinRow: Sendable, Hashable {
    /// The owning object's `objectId` (an object of the entity asked about).
    public var owningId: String
    /// The related object's `objectId`.
    public var relatedId: String
    /// The related object's entity (the destination or one of its subentities).
    public var relatedClassName: String
    /// For an ordered relationship, the related object's position (`Z_FOK_…`), else `nil`.
    public var position: Int64?

    /// Makes a join row.
    public init(owningId: String, relatedId: String, relatedClassName: String, position: Int64? = nil) {
        self.owningId = owningId
        self.relatedId = relatedId
        self.relatedClassName = relatedClassName
        self.position = position
    }
}

extension CoreDataStore {
    /// The pairs of a to-many (or many-to-many) relationship whose owner is exactly `entity`
    /// (not a subentity: each entity is its own Parse class), ordered by owner, then by
    /// position for ordered relationships, then by related `Z_PK`.
    ///
    /// A to-many with a to-one inverse is read from the inverse's foreign key in the
    /// destination table; a many-to-many from its `Z_<n><NAME>` join table. Rows whose other
    /// side is missing are skipped.
    /// - Parameters:
    ///   - entity: the owning entity.
    ///   - relationship: a to-many relationship of that entity.
    /// - Returns: every pair, in memory (one pair is three short strings).
    /// - Throws: ``PFError`` `usage` for an unknown entity or a relationship that is not
    ///   to-many; `unsupported` when the relationship's storage could not be found (the
    ///   message says why); SQLite errors as `invalidValue`/`syntax`.
    public func joinRows(entity: String, relationship name: String) throws(PFError) -> [CoreDataJoinRow] {
        let layout = try entityLayout(entity)
        guard let relationship = model.entity(named: entity)?.relationship(named: name), relationship.isToMany else {
            throw PFError(CoreDataFailure.noToMany(entity: entity, relationship: name), format: .coreData)
        }
        guard let mapping = layout.toMany[name] else {
            throw PFError(
                CoreDataFailure.unmappedToMany(entity: entity, relationship: name, reason: layout.unmapped[name] ?? "its storage was not found"),
                format: .coreData)
        }
        guard let ownerID = layout.id, let ownerTable = layout.table else { return [] }
        let q = Self.quote
        let sql: String
        switch mapping {
        case .inverseForeignKey(let table, let foreignKey, let orderColumn):
            let order = orderColumn.map { "r.\(q($0))" } ?? "NULL"
            let r = self.layout.keys(ofTable: table)
            sql = """
                SELECT \(r.integer("r.\(q(foreignKey))")), \(r.primaryKey("r.")), \(r.entityKey("r.")), \(order) FROM \(q(table)) r
                JOIN \(q(ownerTable)) o ON \(layout.keys.primaryKey("o.")) = \(r.integer("r.\(q(foreignKey))"))
                WHERE \(layout.keys.entityKey("o.")) = ? ORDER BY 1, 4, 2
                """
        case .joinTable(let table, let owningColumn, let relatedColumn, let relatedTable):
            let r = self.layout.keys(ofTable: relatedTable)
            sql = """
                SELECT j.\(q(owningColumn)), j.\(q(relatedColumn)), \(r.entityKey("r.")), NULL FROM \(q(table)) j
                JOIN \(q(ownerTable)) o ON \(layout.keys.primaryKey("o.")) = j.\(q(owningColumn))
                JOIN \(q(relatedTable)) r ON \(r.primaryKey("r.")) = j.\(q(relatedColumn))
                WHERE \(layout.keys.entityKey("o.")) = ? ORDER BY 1, 2
                """
        }
        let rows = try self.rows(sql, [.integer(ownerID)], context: "\(url.lastPathComponent): reading \(entity).\(name) pairs")
        var out: [CoreDataJoinRow] = []
        out.reserveCapacity(rows.count)
        for row in rows {
            guard row.count == 4, let owner = row[0].int64, let related = row[1].int64 else { continue }
            let relatedEntity = row[2].int64.flatMap { self.layout.entityNames[$0] } ?? relationship.destination
            out.append(
                CoreDataJoinRow(
                    owningId: Self.objectID(entity: entity, primaryKey: owner),
                    relatedId: Self.objectID(entity: relatedEntity, primaryKey: related),
                    relatedClassName: relatedEntity, position: row[3].int64))
        }
        return out
    }
}
