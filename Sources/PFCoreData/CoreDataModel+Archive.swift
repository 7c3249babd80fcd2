import Foundation
import OrderedCollections
import PFCompression
import PFCore
import PFKeyedArchive

extension CoreDataModel {
    /// Reads a model from a compiled `.mom` archive (an uncompressed NSKeyedArchiver archive of
    /// `NSManagedObjectModel`).
    /// - Parameters:
    ///   - bytes: the archive.
    ///   - source: what to record as the model's origin.
    ///   - limits: budgets for the archive.
    /// - Returns: the model.
    /// - Throws: ``PFError`` from the keyed-archive reader, or `invalidValue` naming the key
    ///   path when the archive is not a model (no `NSEntities`, an entity without a name, …).
    public static func decode(archive bytes: Data, source: Source = .compiledModel, limits: PFLimits = .default)
        throws(PFError) -> CoreDataModel
    {
        let table = try KeyedArchive.readTable(bytes, limits: limits, decompress: false).table
        // Any class is allowed: the graph keeps unknown classes as data and never instantiates
        // anything, and a model holds app classes (default values, predicates) we cannot list.
        let graph = try KeyedGraph(table: table, options: .init(limits: limits))
        var reader = ModelArchiveReader(graph: graph)
        return try reader.model(source: source)
    }

    /// Reads a model from the bytes of `Z_MODELCACHE.Z_CONTENT`: raw DEFLATE around a keyed
    /// archive.
    /// - Throws: ``PFError`` from raw-DEFLATE decompression (with the `deflate` format and byte
    ///   offset) or from ``decode(archive:source:limits:)``.
    public static func decode(modelCache bytes: Data, limits: PFLimits = .default) throws(PFError) -> CoreDataModel {
        let inflated = try Compression.decompress(bytes, from: .deflate, limits: limits)
        return try decode(archive: inflated, source: .modelCache, limits: limits)
    }
}

/// Walks the generic graph of an `NSManagedObjectModel` archive.
struct ModelArchiveReader {
    let graph: KeyedGraph
    /// Entity node index → entity name.
    var entityNames: [Int: String] = [:]

    init(graph: KeyedGraph) { self.graph = graph }

    static func invalid(_ failure: CoreDataFailure, _ path: PFKeyPath) -> PFError {
        PFError(failure, format: .coreDataModel, path: path)
    }

    mutating func model(source: CoreDataModel.Source) throws(PFError) -> CoreDataModel {
        guard let root = graph.root, case .object(let model)? = graph.node(root) else {
            throw Self.invalid(.modelRootNotObject, [.key("$top"), .key("root")])
        }
        guard model.archivedClass.chain.contains("NSManagedObjectModel") else {
            throw Self.invalid(.modelRootClass(model.archivedClass.name), [.key("$top"), .key("root")])
        }
        guard let entitiesValue = model.fields["NSEntities"], let entityEntries = entries(entitiesValue) else {
            throw Self.invalid(.noEntities, [.key("root"), .key("NSEntities")])
        }
        // First pass: names of every entity node, so superentities and destinations resolve.
        var entityNodes: [(index: Int, object: KeyedGraph.Object)] = []
        for (offset, entry) in entityEntries.enumerated() {
            let path: PFKeyPath = [.key("root"), .key("NSEntities"), .index(offset)]
            guard case .node(let index) = entry.value, case .object(let object)? = graph.node(entry.value),
                object.archivedClass.chain.contains("NSEntityDescription")
            else {
                throw Self.invalid(.entitiesItem, path)
            }
            guard let name = string(object.fields["NSEntityName"]) ?? entry.key, !name.isEmpty else {
                throw Self.invalid(.entityWithoutName, path)
            }
            entityNames[index] = name
            entityNodes.append((index, object))
        }
        // Second pass: each entity's own (non-proxy) properties.
        var declared: [String: (entity: CoreDataEntity, parent: String?)] = [:]
        var order: [String] = []
        for (index, object) in entityNodes {
            guard let name = entityNames[index] else { continue }
            let path: PFKeyPath = [.key("entities"), .key(name)]
            var parent: String?
            if case .node(let parentIndex)? = object.fields["NSSuperentity"] { parent = entityNames[parentIndex] }
            var entity = CoreDataEntity(
                name: name, className: string(object.fields["NSClassNameForEntity"]), superentity: parent,
                isAbstract: bool(object.fields["NSIsAbstract"]))
            if let renamed = string(object.fields["NSRenamingIdentifier"]), renamed != name { entity.renamingIdentifier = renamed }
            for entry in entries(object.fields["NSProperties"] ?? .null) ?? [] {
                guard case .object(let property)? = graph.node(entry.value) else { continue }
                let chain = property.archivedClass.chain
                // Inherited properties may be archived as proxies; they are taken from the parent.
                if chain.contains(where: { $0.hasPrefix("_NSPropertyDescriptionProxy") }) { continue }
                guard let propertyName = string(property.fields["NSPropertyName"]) ?? entry.key, !propertyName.isEmpty else {
                    throw Self.invalid(.propertyWithoutName, path.appending(key: "NSProperties"))
                }
                if chain.contains("NSRelationshipDescription") {
                    entity.relationships.append(try relationship(propertyName, property, of: name, at: path.appending(key: propertyName)))
                } else if chain.contains("NSFetchedPropertyDescription") {
                    entity.fetchedPropertyNames.append(propertyName)
                } else if chain.contains("NSAttributeDescription") {
                    entity.attributes.append(attribute(propertyName, property, of: name))
                }
            }
            declared[name] = (entity, parent)
            order.append(name)
        }
        return CoreDataModel(entities: Self.flatten(order: order, declared: declared), source: source)
    }

    /// Adds inherited properties to every entity and sets ``CoreDataAttribute/declaredBy`` to
    /// the topmost ancestor that has the property (older archives repeat inherited properties
    /// in each subentity; newer ones use proxies, skipped above).
    static func flatten(order: [String], declared: [String: (entity: CoreDataEntity, parent: String?)]) -> [CoreDataEntity] {
        var done: [String: CoreDataEntity] = [:]
        func resolve(_ name: String, depth: Int) -> CoreDataEntity? {
            if let known = done[name] { return known }
            guard var entity = declared[name]?.entity else { return nil }
            // A cycle in NSSuperentity (only in a hostile archive) is cut at the model's size.
            if let parentName = entity.superentity, depth < declared.count, let parent = resolve(parentName, depth: depth + 1) {
                var attributes = parent.attributes
                for own in entity.attributes where !attributes.contains(where: { $0.name == own.name }) { attributes.append(own) }
                var relationships = parent.relationships
                for own in entity.relationships where !relationships.contains(where: { $0.name == own.name }) {
                    relationships.append(own)
                }
                entity.attributes = attributes
                entity.relationships = relationships
                entity.fetchedPropertyNames = Array(Set(parent.fetchedPropertyNames + entity.fetchedPropertyNames))
            }
            entity.attributes.sort { $0.name < $1.name }
            entity.relationships.sort { $0.name < $1.name }
            entity.fetchedPropertyNames.sort()
            done[name] = entity
            return entity
        }
        return order.compactMap { resolve($0, depth: 0) }
    }

    func attribute(_ name: String, _ property: KeyedGraph.Object, of entity: String, depth: Int = 0) -> CoreDataAttribute {
        let code = int(property.fields["NSAttributeType"]) ?? 0
        var elements: [CoreDataAttribute] = []
        // A composite's elements are attributes too, perhaps composites themselves (a struct
        // in a struct); a hostile archive's nesting is cut at the depth limit.
        if depth < 16, let listed = property.fields["NSCompositeElements"].flatMap(entries) {
            for entry in listed {
                guard case .object(let element)? = graph.node(entry.value), let elementName = string(element.fields["NSPropertyName"]),
                    !elementName.isEmpty
                else { continue }
                elements.append(attribute(elementName, element, of: entity, depth: depth + 1))
            }
        }
        return CoreDataAttribute(
            name: name, type: CoreDataAttributeType(code: code),
            valueClassName: string(property.fields["NSAttributeValueClassName"]),
            transformerName: string(property.fields["NSValueTransformerName"]),
            isOptional: bool(property.fields["NSIsOptional"]), isTransient: bool(property.fields["NSIsTransient"]),
            isDerived: property.archivedClass.chain.contains("NSDerivedAttributeDescription"), declaredBy: entity,
            elements: elements)
    }

    func relationship(_ name: String, _ property: KeyedGraph.Object, of entity: String, at path: PFKeyPath) throws(PFError)
        -> CoreDataRelationship
    {
        var destination = string(property.fields["_NSDestinationEntityName"])
        if case .node(let index)? = property.fields["NSDestinationEntity"], let named = entityNames[index] { destination = named }
        guard let destination else {
            throw Self.invalid(.relationshipWithoutDestination, path)
        }
        var inverse = string(property.fields["_NSInverseRelationshipName"])
        if case .object(let object)? = property.fields["NSInverseRelationship"].flatMap(graph.node),
            let named = string(object.fields["NSPropertyName"])
        {
            inverse = named
        }
        let maxCount = int(property.fields["NSMaxCount"]) ?? 0
        return CoreDataRelationship(
            name: name, destination: destination, inverse: inverse, isToMany: maxCount != 1,
            isOrdered: bool(property.fields["NSIsOrdered"]), isOptional: bool(property.fields["NSIsOptional"]),
            isTransient: bool(property.fields["NSIsTransient"]), declaredBy: entity)
    }

    // MARK: - Graph helpers

    /// The (key, value) entries of a dictionary in any of the shapes a model uses:
    /// NSDictionary, `NSKnownKeysDictionary1` (keys in `searchMapping.keys`, values in
    /// `values`), or an array (keys `nil`).
    func entries(_ value: KeyedGraph.Value) -> [(key: String?, value: KeyedGraph.Value)]? {
        switch graph.node(value) {
        case .dictionary(_, let keys, let values)?:
            return zip(keys, values).map { (string($0.0), $0.1) }
        case .array(_, let items)?, .set(_, let items)?, .orderedSet(_, let items)?:
            return items.map { (nil, $0) }
        case .object(let object)?:
            guard object.archivedClass.name.hasPrefix("NSKnownKeysDictionary"),
                case .object(let mapping)? = object.fields["searchMapping"].flatMap(graph.node),
                let keys = list(mapping.fields["keys"]), let values = list(object.fields["values"])
            else { return nil }
            let empty = string(object.fields["emptyToken"])
            var out: [(key: String?, value: KeyedGraph.Value)] = []
            for (key, item) in zip(keys, values) {
                if let empty, string(item) == empty { continue }
                out.append((string(key), item))
            }
            return out
        case nil:
            return nil
        }
    }

    func list(_ value: KeyedGraph.Value?) -> [KeyedGraph.Value]? {
        guard let value else { return nil }
        switch graph.node(value) {
        case .array(_, let items)?, .set(_, let items)?, .orderedSet(_, let items)?: return items
        default: return nil
        }
    }

    func string(_ value: KeyedGraph.Value?) -> String? {
        if case .string(let s)? = value { return s }
        return nil
    }

    func bool(_ value: KeyedGraph.Value?) -> Bool {
        switch value {
        case .bool(let b)?: b
        case .int(let i)?: i != 0
        case .uint(let u)?: u != 0
        default: false
        }
    }

    func int(_ value: KeyedGraph.Value?) -> Int64? {
        switch value {
        case .int(let i)?: i
        case .uint(let u)?: Int64(exactly: u)
        case .bool(let b)?: b ? 1 : 0
        case .double(let d)?: Int64(exactly: d)
        default: nil
        }
    }
}
