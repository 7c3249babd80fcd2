import Foundation
import OrderedCollections
import PFCore
import PFKeyedArchive
import PFSerialization

/// A value decoded from a versioned archive, with what migration did and the fields the
/// current type does not hold, so re-encoding an unchanged value loses nothing.
public struct Versioned<Value> {
    /// The decoded value.
    public var value: Value
    /// What migration changed on the way.
    public var report: MigrationReport
    /// Fields the schema does not describe, kept by object path.
    public var unknownFields: UnknownFields
}

extension Versioned: Sendable where Value: Sendable {}

/// Decodes `Decodable` types from archives of any version: the tree is migrated first, then
/// decoded with the keyed archive's Codable bridge, so synthesized `Codable` types work and
/// fields added since the archive was written get their schema defaults instead of
/// `keyNotFound`.
///
/// ```swift
/// let decoder = VersionedDecoder(schema: schema)
/// let team = try decoder.decode([Employee].self, from: oldArchiveBytes).value
/// ```
public struct VersionedDecoder: Sendable {
    /// The schema.
    public var schema: ArchiveSchema
    /// Migration options (policies, transforms, root type, written versions, limits).
    public var options: MigrationOptions

    /// Makes a decoder.
    public init(schema: ArchiveSchema, options: MigrationOptions = MigrationOptions()) {
        self.schema = schema
        self.options = options
    }

    /// Decodes a keyed archive, typedstream or JSON document.
    /// - Throws: ``PFCore/PFError`` from reading or migrating; `DecodingError` with the coding
    ///   path when the migrated tree still does not fit `T`.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> Versioned<T> {
        var document = try ArchiveDocument.read(data, limits: options.limits)
        if document.kind == .typedstream {
            document.tree = try ClassicLayout.lift(document.tree, schema: schema, limits: options.limits)
        }
        return try decode(type, fromTree: document.tree)
    }

    /// Decodes a tree (the keyed JSON shape, or a plain Codable tree with
    /// ``MigrationOptions/rootType`` set).
    /// - Throws: as ``decode(_:from:)``.
    public func decode<T: Decodable>(_ type: T.Type, fromTree tree: PFValue) throws -> Versioned<T> {
        let outcome = try Migrator(schema: schema, options: options).migrate(tree)
        let table = try KeyedGraph(json: outcome.tree, limits: options.limits).objectTable(limits: options.limits)
        let value = try KeyedArchiveDecoder(options: .init(limits: options.limits)).decode(type, from: table)
        return Versioned(value: value, report: outcome.report, unknownFields: outcome.unknownFields)
    }
}

/// Encodes `Encodable` values as trees and archives at the schema's current versions,
/// putting back unknown fields kept by a ``VersionedDecoder``.
public struct VersionedEncoder: Sendable {
    /// The schema: its current versions are recorded on every described object.
    public var schema: ArchiveSchema
    /// How Swift types are named in the archive (default: the unqualified type name).
    public var classNames: KeyedArchiveEncoder.ClassNameStrategy
    /// Budgets.
    public var limits: PFLimits

    /// Makes an encoder.
    public init(schema: ArchiveSchema, classNames: KeyedArchiveEncoder.ClassNameStrategy = .typeName, limits: PFLimits = .default) {
        self.schema = schema
        self.classNames = classNames
        self.limits = limits
    }

    /// Encodes a value as a tree in the keyed JSON shape.
    /// - Parameters:
    ///   - value: the value.
    ///   - unknownFields: fields to put back, by object path (from ``Versioned/unknownFields``).
    /// - Throws: `EncodingError`, or ``PFCore/PFError`` from the graph.
    public func encodeTree<T: Encodable>(_ value: T, preserving unknownFields: UnknownFields = UnknownFields()) throws -> PFValue {
        let table = try KeyedArchiveEncoder(options: .init(classNames: classNames, limits: limits)).encodeTable(value)
        var tree = try KeyedGraph(table: table, options: .init(limits: limits)).jsonValue(limits: limits)
        tree = stampVersions(tree, depth: 0)
        for (path, fields) in unknownFields.entries.sorted(by: { $0.key.description < $1.key.description }) {
            tree = Self.insert(fields, at: path.components[...], in: tree)
        }
        return tree
    }

    /// Encodes a value as a keyed archive.
    /// - Throws: as ``encodeTree(_:preserving:)``, or the container writer's ``PFCore/PFError``.
    public func encode<T: Encodable>(
        _ value: T, preserving unknownFields: UnknownFields = UnknownFields(), container: KeyedArchiveContainer = .bplist
    ) throws -> Data {
        let tree = try encodeTree(value, preserving: unknownFields)
        return try KeyedArchive.archive(KeyedGraph(json: tree, limits: limits), container: container, limits: limits)
    }

    /// Records the schema's current version on every described object.
    func stampVersions(_ value: PFValue, depth: Int) -> PFValue {
        guard depth < limits.maxDepth else { return value }
        switch value {
        case .array(let items): return .array(items.map { stampVersions($0, depth: depth + 1) })
        case .dictionary(var members):
            for (key, item) in members { members[key] = stampVersions(item, depth: depth + 1) }
            if let name = members["$class"]?.stringValue, let type = schema.type(forClassName: name) {
                MigrationEngine.setVersion(type.version, in: &members)
            }
            return .dictionary(members)
        default: return value
        }
    }

    /// Adds fields (without overwriting) to the object at a path.
    static func insert(_ fields: OrderedDictionary<String, PFValue>, at path: ArraySlice<PFKeyPath.Component>, in value: PFValue) -> PFValue {
        guard let first = path.first else {
            guard case .dictionary(var members) = value else { return value }
            for (key, item) in fields where members[key] == nil { members[key] = item }
            return .dictionary(members)
        }
        switch (first, value) {
        case (.key(let key), .dictionary(var members)):
            guard let child = members[key] else { return value }
            members[key] = insert(fields, at: path.dropFirst(), in: child)
            return .dictionary(members)
        case (.index(let i), .array(var items)):
            guard items.indices.contains(i) else { return value }
            items[i] = insert(fields, at: path.dropFirst(), in: items[i])
            return .array(items)
        default:
            return value
        }
    }
}
