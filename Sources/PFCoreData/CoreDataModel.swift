import Foundation
import OrderedCollections
import PFCore

/// A Core Data data model as recovered from a store: entities with their inheritance,
/// attributes, relationships and inverses.
///
/// A model comes from one of three places (``Source``): the store's own `Z_MODELCACHE`, a
/// compiled `.mom` given by the caller, or — when neither exists — a guess from
/// `Z_PRIMARYKEY` and the tables' columns. ``guesses`` lists every assumption the last kind
/// (and any suffix resolution in the layout) had to make.
public struct CoreDataModel: Sendable, Equatable {
    /// Where a model came from.
    public enum Source: String, Sendable {
        /// `Z_MODELCACHE.Z_CONTENT`: raw DEFLATE around a keyed archive of the model.
        case modelCache
        /// A compiled `.mom` (or the current version in a `.momd`) the caller supplied.
        case compiledModel
        /// Inferred from `Z_PRIMARYKEY` and column names and types; see ``CoreDataModel/guesses``.
        case inferred
    }

    /// The entities, in the order the archive (or `Z_PRIMARYKEY`) lists them.
    public var entities: [CoreDataEntity]
    /// Where this model came from.
    public var source: Source
    /// The assumptions made while building the model, one sentence each; empty for a model
    /// read from an archive.
    public var guesses: [String]

    /// Makes a model.
    public init(entities: [CoreDataEntity], source: Source, guesses: [String] = []) {
        self.entities = entities
        self.source = source
        self.guesses = guesses
    }

    /// The entity with this name, or `nil`.
    public func entity(named name: String) -> CoreDataEntity? {
        entities.first { $0.name == name }
    }

    /// The root of an entity's inheritance tree (the entity itself when it has no parent).
    public func root(of entity: CoreDataEntity) -> CoreDataEntity {
        var current = entity
        var seen: Set<String> = [entity.name]
        while let parentName = current.superentity, let parent = self.entity(named: parentName), seen.insert(parentName).inserted {
            current = parent
        }
        return current
    }

    /// An entity and all its subentities, at any depth, entity first.
    public func subtree(of entity: CoreDataEntity) -> [CoreDataEntity] {
        var out: [CoreDataEntity] = []
        var stack = [entity.name]
        var seen: Set<String> = []
        while let name = stack.popLast() {
            guard seen.insert(name).inserted, let found = self.entity(named: name) else { continue }
            out.append(found)
            stack.append(contentsOf: entities.filter { $0.superentity == name }.map(\.name).reversed())
        }
        return out
    }
}

/// One entity of a ``CoreDataModel``.
public struct CoreDataEntity: Sendable, Equatable {
    /// The entity name (`NSEntityName`), which becomes the Parse `className`.
    public var name: String
    /// The managed-object class name (`NSClassNameForEntity`), when known.
    public var className: String?
    /// The parent entity's name, or `nil` for a root entity.
    public var superentity: String?
    /// Whether the entity is abstract (has no rows of its own).
    public var isAbstract: Bool
    /// The name the entity had in an earlier model version (`NSRenamingIdentifier`), when it
    /// differs from ``name``.
    public var renamingIdentifier: String?
    /// Every attribute, inherited ones included, sorted by name.
    public var attributes: [CoreDataAttribute]
    /// Every relationship, inherited ones included, sorted by name.
    public var relationships: [CoreDataRelationship]
    /// The names of fetched properties (never stored; not read).
    public var fetchedPropertyNames: [String]

    /// Makes an entity.
    public init(
        name: String, className: String? = nil, superentity: String? = nil, isAbstract: Bool = false,
        renamingIdentifier: String? = nil, attributes: [CoreDataAttribute] = [], relationships: [CoreDataRelationship] = [],
        fetchedPropertyNames: [String] = []
    ) {
        self.name = name
        self.className = className
        self.superentity = superentity
        self.isAbstract = isAbstract
        self.renamingIdentifier = renamingIdentifier
        self.attributes = attributes
        self.relationships = relationships
        self.fetchedPropertyNames = fetchedPropertyNames
    }

    /// The attribute with this name, or `nil`.
    public func attribute(named name: String) -> CoreDataAttribute? { attributes.first { $0.name == name } }

    /// The relationship with this name, or `nil`.
    public func relationship(named name: String) -> CoreDataRelationship? { relationships.first { $0.name == name } }

    /// The field each property (attribute or relationship) is read under, by property name:
    /// its own name, except that a name the Parse envelope reads (`className`, `objectId`,
    /// `ACL`, which Parse reads as permissions, and `__type`) gets `_coreData`, with `_`
    /// appended while another property has that name (`createdAt`/`updatedAt` stay: a date
    /// there is Parse's own). No two properties share a field.
    public var fieldNames: [String: String] {
        let properties = attributes.map(\.name) + relationships.map(\.name)
        let names = SourceFieldNames(columns: properties, suffix: "_coreData", reserved: ["className", "objectId", "ACL", "__type"])
        return Dictionary(zip(properties, names.fields), uniquingKeysWith: { first, _ in first })
    }
}

/// An attribute of an entity.
public struct CoreDataAttribute: Sendable, Equatable {
    /// The attribute name, as the app spells it.
    public var name: String
    /// The declared type.
    public var type: CoreDataAttributeType
    /// `NSAttributeValueClassName`, such as `NSString` or an app's class.
    public var valueClassName: String?
    /// `NSValueTransformerName`, such as `NSSecureUnarchiveFromData` or an app's transformer.
    public var transformerName: String?
    /// Whether the attribute may be nil.
    public var isOptional: Bool
    /// Whether the attribute is transient (never stored in the store).
    public var isTransient: Bool
    /// Whether it is a derived attribute (computed by triggers, stored in a column).
    public var isDerived: Bool
    /// The entity that declares it (the entity itself, or an ancestor it inherits from).
    public var declaredBy: String
    /// A composite attribute's elements (`NSCompositeElements`, a SwiftData struct's
    /// properties), each stored in a column of its own; empty for any other attribute.
    public var elements: [CoreDataAttribute]

    /// Whether it is a composite attribute with elements (its value is a dictionary of them).
    public var isComposite: Bool { type == .composite && !elements.isEmpty }

    /// Makes an attribute.
    public init(
        name: String, type: CoreDataAttributeType, valueClassName: String? = nil, transformerName: String? = nil,
        isOptional: Bool = true, isTransient: Bool = false, isDerived: Bool = false, declaredBy: String,
        elements: [CoreDataAttribute] = []
    ) {
        self.name = name
        self.type = type
        self.valueClassName = valueClassName
        self.transformerName = transformerName
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.isDerived = isDerived
        self.declaredBy = declaredBy
        self.elements = elements
    }
}

/// A relationship of an entity.
public struct CoreDataRelationship: Sendable, Equatable {
    /// The relationship name.
    public var name: String
    /// The destination entity's name.
    public var destination: String
    /// The inverse relationship's name (on the destination), when the model has one.
    public var inverse: String?
    /// Whether it is to-many (`NSMaxCount` other than 1).
    public var isToMany: Bool
    /// Whether a to-many relationship keeps its order (`NSIsOrdered`).
    public var isOrdered: Bool
    /// Whether the relationship may be empty.
    public var isOptional: Bool
    /// Whether it is transient.
    public var isTransient: Bool
    /// The entity that declares it.
    public var declaredBy: String

    /// Makes a relationship.
    public init(
        name: String, destination: String, inverse: String? = nil, isToMany: Bool, isOrdered: Bool = false,
        isOptional: Bool = true, isTransient: Bool = false, declaredBy: String
    ) {
        self.name = name
        self.destination = destination
        self.inverse = inverse
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.declaredBy = declaredBy
    }
}

/// A Core Data attribute type (`NSAttributeType`).
public enum CoreDataAttributeType: Sendable, Hashable, CustomStringConvertible {
    case undefined, integer16, integer32, integer64, decimal, double, float, string, boolean, date, binaryData, uuid, uri
    case transformable, objectID, composite
    /// A code this reader does not know.
    case unknown(Int64)

    /// The type for an `NSAttributeType` code (100 integer16 … 1800 transformable).
    public init(code: Int64) {
        switch code {
        case 0: self = .undefined
        case 100: self = .integer16
        case 200: self = .integer32
        case 300: self = .integer64
        case 400: self = .decimal
        case 500: self = .double
        case 600: self = .float
        case 700: self = .string
        case 800: self = .boolean
        case 900: self = .date
        case 1000: self = .binaryData
        case 1100: self = .uuid
        case 1200: self = .uri
        case 1800: self = .transformable
        case 2000: self = .objectID
        case 2100: self = .composite
        default: self = .unknown(code)
        }
    }

    /// The `NSAttributeType` code.
    public var code: Int64 {
        switch self {
        case .undefined: 0
        case .integer16: 100
        case .integer32: 200
        case .integer64: 300
        case .decimal: 400
        case .double: 500
        case .float: 600
        case .string: 700
        case .boolean: 800
        case .date: 900
        case .binaryData: 1000
        case .uuid: 1100
        case .uri: 1200
        case .transformable: 1800
        case .objectID: 2000
        case .composite: 2100
        case .unknown(let code): code
        }
    }

    /// The name Xcode's model editor uses (`attributeType` in `.xcdatamodel` XML), such as
    /// `Integer 16`, `Binary` or `Transformable`.
    public var description: String {
        switch self {
        case .undefined: "Undefined"
        case .integer16: "Integer 16"
        case .integer32: "Integer 32"
        case .integer64: "Integer 64"
        case .decimal: "Decimal"
        case .double: "Double"
        case .float: "Float"
        case .string: "String"
        case .boolean: "Boolean"
        case .date: "Date"
        case .binaryData: "Binary"
        case .uuid: "UUID"
        case .uri: "URI"
        case .transformable: "Transformable"
        case .objectID: "ObjectID"
        case .composite: "Composite"
        case .unknown(let code): "Unknown(\(code))"
        }
    }
}
