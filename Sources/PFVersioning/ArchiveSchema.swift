import OrderedCollections
import PFCore

/// A description of archived types: each type's current version, its fields with types,
/// defaults and aliases, the names it retired, and the migration steps from older versions.
///
/// Load one from a JSON schema file with ``load(_:path:transforms:)`` or build it in code.
/// The schema is what ``Migrator`` runs, what ``SchemaValidator`` checks archives against,
/// and what ``SchemaCompatibility`` compares between releases.
public struct ArchiveSchema: Sendable, Equatable {
    /// The types, by canonical (current) class name, in file order.
    public var types: OrderedDictionary<String, TypeSchema>
    /// What to do with unknown fields and newer versions.
    public var policies: VersioningPolicies

    /// Makes a schema.
    /// - Parameters:
    ///   - types: the types; each is keyed by its ``TypeSchema/name``.
    ///   - policies: the policies (defaults: preserve unknown fields, read newer versions best-effort).
    public init(types: [TypeSchema], policies: VersioningPolicies = VersioningPolicies()) {
        self.types = OrderedDictionary(types.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
        self.policies = policies
    }

    /// The type an archived class name means: its own name or one of its aliases.
    /// - Parameter className: the class name as archived (`$class`).
    /// - Returns: the type, or `nil` when the schema does not describe the class.
    public func type(forClassName className: String) -> TypeSchema? {
        if let type = types[className] { return type }
        return types.values.first { $0.aliases.contains(className) }
    }
}

/// One archived type: a class (or a Codable struct) and its history.
public struct TypeSchema: Sendable, Equatable {
    /// The class name archives carry today.
    public var name: String
    /// The current version (what this build writes).
    public var version: Int
    /// Class names older archives used for this type (renames).
    public var aliases: [String]
    /// The fields of the current version.
    public var fields: [FieldSchema]
    /// Field names that were removed and may not be reused.
    public var reserved: [String]
    /// Field order per version for classic (typedstream) archives, which store values by
    /// position: `classicLayouts[2] = ["name", "salary"]`.
    public var classicLayouts: [Int: [String]]
    /// Steps from older versions, each from `n` to `n + 1`.
    public var migrations: [MigrationStep]

    /// Makes a type description.
    public init(
        name: String, version: Int, aliases: [String] = [], fields: [FieldSchema], reserved: [String] = [],
        classicLayouts: [Int: [String]] = [:], migrations: [MigrationStep] = []
    ) {
        self.name = name
        self.version = version
        self.aliases = aliases
        self.fields = fields
        self.reserved = reserved
        self.classicLayouts = classicLayouts
        self.migrations = migrations
    }

    /// The field a name means: its own name or one of its aliases.
    public func field(named name: String) -> FieldSchema? {
        fields.first { $0.name == name } ?? fields.first { $0.aliases.contains(name) }
    }

    /// The step that upgrades `version` to `version + 1`, if one is declared.
    public func step(from version: Int) -> MigrationStep? {
        migrations.first { $0.from == version }
    }
}

/// One field of a type's current version.
public struct FieldSchema: Sendable, Equatable {
    /// The field's key.
    public var name: String
    /// What it holds.
    public var type: FieldType
    /// The value a reader uses when an archive lacks the field (Avro's reader default).
    public var defaultValue: PFValue?
    /// Whether the field may be absent or null (an implicit default of "absent").
    public var optional: Bool
    /// Older names of the field, matched when reading.
    public var aliases: [String]
    /// For enum fields: the symbol an unknown symbol reads as.
    public var unknownDefault: String?

    /// Makes a field description.
    public init(
        _ name: String, _ type: FieldType, default defaultValue: PFValue? = nil, optional: Bool = false,
        aliases: [String] = [], unknownDefault: String? = nil
    ) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.optional = optional
        self.aliases = aliases
        self.unknownDefault = unknownDefault
    }
}

/// The type of a field's value.
public indirect enum FieldType: Sendable, Hashable, CustomStringConvertible {
    case bool, int32, int64, double, string, data, date
    /// Anything; not checked.
    case any
    /// A string from a fixed set of symbols.
    case enumeration([String])
    /// An object of a type the schema describes.
    case reference(String)
    /// An array of one element type.
    case array(FieldType)
    /// A dictionary with string keys and one value type.
    case map(FieldType)

    public var description: String {
        switch self {
        case .bool: "bool"
        case .int32: "int32"
        case .int64: "int64"
        case .double: "double"
        case .string: "string"
        case .data: "data"
        case .date: "date"
        case .any: "any"
        case .enumeration(let symbols): "enum(\(symbols.joined(separator: "|")))"
        case .reference(let name): "ref(\(name))"
        case .array(let element): "array(\(element))"
        case .map(let value): "map(\(value))"
        }
    }

    /// The scalar type names a schema file may use.
    static let scalarNames: [String: FieldType] = [
        "bool": .bool, "int32": .int32, "int64": .int64, "double": .double, "string": .string, "data": .data,
        "date": .date, "any": .any,
    ]

    /// Whether a writer's value of type `self` can be read as `reader` without a migration
    /// step: the same type, or an Avro-style promotion (int32 → int64 → double, string ↔ data).
    public func promotes(to reader: FieldType) -> Bool {
        switch (self, reader) {
        case (_, .any): return true
        case (.int32, .int64), (.int32, .double), (.int64, .double), (.string, .data), (.data, .string): return true
        case (.enumeration, .string): return true
        case (.enumeration(let old), .enumeration(let new)): return Set(old).isSubset(of: Set(new))
        case (.array(let a), .array(let b)), (.map(let a), .map(let b)): return a.promotes(to: b)
        default: return self == reader
        }
    }

    /// Whether an explicit `changeType` step may convert `self` to `target`: a promotion, or
    /// int64 → int32 narrowing, which is checked value by value.
    public func converts(to target: FieldType) -> Bool {
        promotes(to: target) || (self == .int64 && target == .int32) || (self == .string && target.isEnumeration)
    }

    var isEnumeration: Bool {
        if case .enumeration = self { return true }
        return false
    }
}

/// One step of a type's migration chain: what turns version ``from`` into `from + 1`.
public struct MigrationStep: Sendable, Equatable {
    /// The version the step upgrades.
    public var from: Int
    /// The operations, applied in order.
    public var ops: [MigrationOp]

    /// Makes a step.
    public init(from: Int, _ ops: [MigrationOp]) {
        self.from = from
        self.ops = ops
    }
}

/// One declarative operation of a migration step, applied to an object's fields.
public enum MigrationOp: Sendable, Equatable {
    /// Moves a field to a new key.
    case renameField(from: String, to: String)
    /// Adds a field with a value, unless the archive already has one.
    case addField(String, default: PFValue)
    /// Removes a field; its name becomes reserved.
    case removeField(String)
    /// Archives of this version named the class `from`; the object is renamed to the type.
    case renameClass(from: String)
    /// Converts a field's value between types: promotions, checked int64 → int32 narrowing,
    /// string ↔ data (UTF-8).
    case changeType(field: String, from: FieldType, to: FieldType)
    /// Replaces a field's value through a table (numbers are looked up by their decimal
    /// text), writing the result to `into` (default: the same field); values not in the table
    /// take `fallback`, or fail without one.
    case mapValues(field: String, into: String?, map: [String: PFValue], fallback: PFValue?)
    /// Runs a named field transform from the ``TransformRegistry`` and writes the result to
    /// `into` (default: the same field).
    case transform(field: String, using: String, into: String?)
    /// Runs a named whole-object transform from the ``TransformRegistry``.
    case transformObject(using: String)
}

/// The caller's choices where the rules leave room.
public struct VersioningPolicies: Sendable, Equatable {
    /// What happens to fields the reader's schema does not describe.
    public enum UnknownFields: String, Sendable, CaseIterable {
        /// Kept in the tree and written again (protobuf's rule; the default).
        case preserve
        /// Removed.
        case drop
        /// An error.
        case error
    }

    /// What happens to an object written by a newer version than the schema knows.
    public enum NewerVersions: String, Sendable, CaseIterable {
        /// Read by name with the usual resolution rules, fields kept, version left as written.
        case bestEffort
        /// Refused: "archive has Employee v5, this build knows v3".
        case reject
    }

    /// Unknown fields: preserve (default), drop or error.
    public var unknownFields: UnknownFields
    /// Newer versions: best-effort (default) or reject.
    public var newerVersions: NewerVersions

    /// Makes policies.
    public init(unknownFields: UnknownFields = .preserve, newerVersions: NewerVersions = .bestEffort) {
        self.unknownFields = unknownFields
        self.newerVersions = newerVersions
    }
}
