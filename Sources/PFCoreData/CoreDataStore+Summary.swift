import Foundation
import OrderedCollections
import PFCore
import PFFormats

extension CoreDataStore {
    /// The recovered model and row counts as a value tree (what `pfarchive inspect --json`
    /// prints): store facts, then one entry per entity with its table, `Z_ENT`, row count,
    /// attributes (`name → type`), relationships and unmapped properties, then the guesses.
    /// With `census`, each entity also gets `blobs`: per Binary or Transformable attribute,
    /// what its blobs hold (``blobCensus(entity:)``).
    /// - Parameter census: whether to read every blob and count what it holds.
    /// - Throws: ``PFError`` when counting rows fails.
    public func summary(census: Bool = false) throws(PFError) -> PFValue {
        var entities = OrderedDictionary<String, PFValue>()
        for entity in self.entities {
            var attributes = OrderedDictionary<String, PFValue>()
            for attribute in entity.attributes {
                var text = attribute.type.description
                if attribute.isComposite { text += " (" + CoreDataLayout.CompositeLayout.leaves(of: attribute).map { $0.path.joined(separator: ".") }.joined(separator: ", ") + ")" }
                if let transformer = attribute.transformerName { text += " (\(transformer))" }
                if attribute.isTransient { text += ", transient" }
                if attribute.isDerived { text += ", derived" }
                attributes[attribute.name] = .string(text)
            }
            var relationships = OrderedDictionary<String, PFValue>()
            for relationship in entity.relationships {
                var described: OrderedDictionary<String, PFValue> = [
                    "destination": .string(relationship.destination),
                    "toMany": .bool(relationship.isToMany),
                ]
                if let inverse = relationship.inverse { described["inverse"] = .string(inverse) }
                if relationship.isOrdered { described["ordered"] = true }
                relationships[relationship.name] = .dictionary(described)
            }
            var described: OrderedDictionary<String, PFValue> = [:]
            if let parent = entity.superentity { described["superentity"] = .string(parent) }
            if entity.isAbstract { described["abstract"] = true }
            described["table"] = tableName(entity: entity.name).map { .string($0) } ?? .null
            described["entityID"] = entityID(entity.name).map { .int($0) } ?? .null
            described["rows"] = .int(Int64(try rowCount(entity: entity.name)))
            described["attributes"] = .dictionary(attributes)
            described["relationships"] = .dictionary(relationships)
            if census {
                let counts = try blobCensus(entity: entity.name)
                if !counts.isEmpty {
                    var blobs = OrderedDictionary<String, PFValue>()
                    for (attribute, kinds) in counts {
                        blobs[attribute] = .dictionary(kinds.mapValues { .int(Int64($0)) })
                    }
                    described["blobs"] = .dictionary(blobs)
                }
            }
            let unmapped = unmappedProperties(entity: entity.name)
            if !unmapped.isEmpty {
                described["unmapped"] = .dictionary(
                    OrderedDictionary(uniqueKeysWithValues: unmapped.sorted { $0.key < $1.key }.map { ($0.key, PFValue.string($0.value)) }))
            }
            entities[entity.name] = .dictionary(described)
        }
        return [
            "store": .string(url.lastPathComponent),
            "storeUUID": storeUUID.map { .string($0) } ?? .null,
            "frameworkVersion": frameworkVersion.map { .int($0) } ?? .null,
            "modelSource": .string(model.source.rawValue),
            "modelCacheError": modelCacheError.map { .string($0.description) } ?? .null,
            "entities": .dictionary(entities),
            // A history table that cannot be counted (damaged) has no count, and inspect goes on.
            "historyLeftOut": .dictionary(OrderedDictionary(uniqueKeysWithValues: historyLeftOut.map { table in
                let rows = try? self.rows("SELECT COUNT(*) FROM \(Self.quote(table))", [], context: "\(url.lastPathComponent): counting \(table) rows")
                return (table, rows?.first?.first?.int64.map { PFValue.int($0) } ?? .null)
            })),
            "guesses": .array(guesses.map { .string($0) }),
        ]
    }

    /// What the blobs of an entity's Binary and Transformable attributes hold, counted by kind
    /// as ``PFFormats/EmbeddedPayload/identify(_:limits:)`` names it ("keyed archive
    /// (NSDictionary)", "gzip bplist", "typedstream", "bytes", …), most frequent first.
    ///
    /// Rows are read a batch at a time and each blob is decoded within the store's limits and
    /// dropped, so memory stays bounded by the batch.
    /// - Parameter entity: the entity name.
    /// - Returns: attribute name → kind → count, for attributes with at least one blob (rows
    ///   whose `Z_ENT` is exactly the entity's).
    /// - Throws: ``PFError`` `usage` for an unknown entity; `invalidValue`/`syntax` when SQLite fails.
    public func blobCensus(entity: String) throws(PFError) -> OrderedDictionary<String, OrderedDictionary<String, Int>> {
        let layout = try entityLayout(entity)
        guard let id = layout.id, let table = layout.table else { return [:] }
        var out = OrderedDictionary<String, OrderedDictionary<String, Int>>()
        for (attribute, column) in layout.attributes {
            switch attribute.type {
            case .binaryData, .transformable, .undefined, .unknown: break
            default: guard attribute.transformerName != nil else { continue }
            }
            var counts: [String: Int] = [:]
            var last = Int64.min
            let key = layout.keys.primaryKey()
            let sql = "SELECT \(key), \(Self.quote(column)) FROM \(Self.quote(table)) "
                + "WHERE \(layout.keys.entityKey()) = ? AND \(key) > ? AND typeof(\(Self.quote(column))) = 'blob' ORDER BY \(key) LIMIT 64"
            while true {
                let rows = try self.rows(
                    sql, [.integer(id), .integer(last)],
                    context: "\(url.lastPathComponent): reading \(entity).\(attribute.name) blobs from \(table)")
                for row in rows {
                    guard row.count == 2, let key = row[0].int64, let bytes = row[1].blob else { continue }
                    last = key
                    counts[EmbeddedPayload.identify(bytes, limits: options.limits).description, default: 0] += 1
                }
                if rows.count < 64 { break }
            }
            guard !counts.isEmpty else { continue }
            let sorted = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            out[attribute.name] = OrderedDictionary(uniqueKeysWithValues: sorted.map { ($0.key, $0.value) })
        }
        return out
    }

    /// A census as text: `keyed archive ×12 (NSDictionary), bplist ×3, bytes ×1`.
    /// - Parameter kinds: kind → count, as ``blobCensus(entity:)`` gives them.
    public static func censusText(_ kinds: OrderedDictionary<String, Int>) -> String {
        kinds.map { kind, count in
            if let open = kind.range(of: " (") {
                return "\(kind[..<open.lowerBound]) ×\(count)\(kind[open.lowerBound...])"
            }
            return "\(kind) ×\(count)"
        }.joined(separator: ", ")
    }

    /// The entity graph in Graphviz DOT: one box per entity (attributes with types, row
    /// count), dashed edges to parents, and one edge per relationship (a pair of inverses is
    /// drawn once, with both names; `*` marks the to-many ends).
    /// - Parameter rowCounts: row counts to show, by entity name.
    public func dotDescription(rowCounts: [String: Int] = [:]) -> String {
        func escape(_ s: String) -> String {
            var out = ""
            for c in s {
                if "\"\\{}<>|".contains(c) { out.append("\\") }
                out.append(c == "\n" ? " " : c)
            }
            return out
        }
        var out = "digraph model {\n  rankdir=LR;\n  node [shape=record, fontname=\"Helvetica\", fontsize=10];\n"
        out += "  edge [fontname=\"Helvetica\", fontsize=9];\n"
        let ids = Dictionary(uniqueKeysWithValues: entities.enumerated().map { ($0.element.name, "e\($0.offset)") })
        for entity in entities {
            guard let id = ids[entity.name] else { continue }
            var title = escape(entity.name)
            if entity.isAbstract { title += " (abstract)" }
            if let rows = rowCounts[entity.name] { title += "\\n\(rows) rows" }
            let own = entity.attributes.filter { $0.declaredBy == entity.name }
            let fields = own.map { "\(escape($0.name)): \(escape($0.type.description))" }.joined(separator: "\\l")
            out += "  \(id) [label=\"{\(title)|\(fields.isEmpty ? "" : fields + "\\l")}\"];\n"
            if let parent = entity.superentity, let parentID = ids[parent] {
                out += "  \(id) -> \(parentID) [style=dashed, arrowhead=empty];\n"
            }
        }
        var drawn: Set<String> = []
        for entity in entities {
            for relationship in entity.relationships where relationship.declaredBy == entity.name {
                guard let from = ids[entity.name], let to = ids[relationship.destination] else { continue }
                let key = "\(entity.name).\(relationship.name)"
                guard drawn.insert(key).inserted else { continue }
                var label = relationship.name + (relationship.isToMany ? " *" : "")
                var both = false
                if let inverseName = relationship.inverse, let inverse = model.entity(named: relationship.destination)?.relationship(named: inverseName) {
                    drawn.insert("\(inverse.declaredBy).\(inverseName)")
                    label += " / \(inverseName)" + (inverse.isToMany ? " *" : "")
                    both = true
                }
                out += "  \(from) -> \(to) [label=\"\(escape(label))\"\(both ? ", dir=both" : "")];\n"
            }
        }
        return out + "}\n"
    }
}

// MARK: - What is not read

extension CoreDataStore {
    /// What the entity tables hold that no object is read from, one line each (the warnings
    /// every command prints): rows whose `Z_ENT` names no concrete entity of their table (a
    /// row left by another model, or written by another tool), and columns that hold values
    /// but that no property of the model is stored in (a column added by another tool, or by
    /// a model version the cache does not describe).
    ///
    /// `Z_PK`, `Z_ENT`, `Z_OPT`, the order columns `Z_FOK_…` and the target-entity columns
    /// `Z<n>_…` of to-one relationships are Core Data's own and not listed.
    /// - Throws: ``PFError`` when SQLite fails to count.
    public func unreadNotes() throws(PFError) -> [String] {
        var notes: [String] = []
        let members = Dictionary(grouping: layout.entities.values.filter { $0.table != nil }, by: { $0.table ?? "" })
        for (table, entities) in members.sorted(by: { $0.key < $1.key }) {
            let q = Self.quote(table)
            let keys = layout.keys(ofTable: table)
            let read = Set(entities.filter { model.entity(named: $0.name).map { !$0.isAbstract } ?? false }.compactMap(\.id))
            var unreadRows = 0
            var unreadIDs: [String] = []
            for row in try rows("SELECT \(keys.entityKey()), COUNT(*) FROM \(q) GROUP BY 1 ORDER BY 1", context: "\(url.lastPathComponent): counting the rows of \(table) by Z_ENT") {
                guard row.count == 2, let count = row[1].int64 else { continue }
                if let id = row[0].int64, read.contains(id) { continue }
                unreadRows += Int(count)
                unreadIDs.append(row[0].int64.map(String.init) ?? "NULL")
            }
            if unreadRows > 0 {
                let ids = unreadIDs.prefix(5).joined(separator: ", ") + (unreadIDs.count > 5 ? ", …" : "")
                notes.append("\(table): \(unreadRows) row\(unreadRows == 1 ? "" : "s") whose Z_ENT (\(ids)) names no entity of the model read from this table; not read")
            }
            var stored: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
            for entity in entities {
                for (_, column) in entity.attributes { stored.insert(column.uppercased()) }
                for toOne in entity.toOne { stored.insert(toOne.column.uppercased()) }
                for composite in entity.composites { for element in composite.elements { stored.insert(element.column.uppercased()) } }
            }
            // A to-many without an inverse keeps its owner in a column of the destination's table.
            for entity in layout.entities.values {
                for case .inverseForeignKey(table, let foreignKey, _) in entity.toMany.values { stored.insert(foreignKey.uppercased()) }
            }
            for column in layout.columnsOfTable[table] ?? [] {
                let upper = column.uppercased()
                if stored.contains(upper) || upper.hasPrefix("Z_FOK_") || Self.isTargetEntityColumn(upper) { continue }
                let counted = try rows("SELECT COUNT(\(Self.quote(column))) FROM \(q)", context: "\(url.lastPathComponent): counting \(table).\(column)")
                guard let count = counted.first?.first?.int64, count > 0 else { continue }
                notes.append("\(table).\(column): \(count) value\(count == 1 ? "" : "s") in a column no property of the model is stored in; not read")
            }
        }
        return notes
    }

    /// Whether a column is `Z<n>_<NAME>`, the target entity of a to-one relationship.
    static func isTargetEntityColumn(_ upper: String) -> Bool {
        guard upper.hasPrefix("Z") else { return false }
        let digits = upper.dropFirst().prefix(while: \.isASCIIDigit)
        return !digits.isEmpty && upper.dropFirst(1 + digits.count).first == "_"
    }
}
