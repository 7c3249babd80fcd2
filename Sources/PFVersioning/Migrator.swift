import Foundation
import OrderedCollections
import PFCore

/// Migrates decoded trees to the schema's current versions and resolves them against the
/// current fields, so typed decoding (synthesized `Codable` included) sees today's shape.
///
/// The tree is the shape every pfarchive coder decodes to: objects are dictionaries with
/// `"$class"` (and `"$version"` when the archive records one), shared objects use
/// `$id`/`$ref`; plain `Codable` trees without `$class` work too when the caller names the
/// root's type.
///
/// ```swift
/// let outcome = try Migrator(schema: schema).migrate(tree)
/// print(outcome.report)          // what changed, object by object
/// ```
///
/// For each object of a described type: the class name is matched after aliases; when the
/// archive's version is older, each declared step v(n) → v(n+1) runs in order (a version with
/// no step is inferred: aliases and defaults do its work); then the fields are resolved (see
/// Docs/Versioning.md): renamed through field aliases, checked against their types (with
/// Avro's promotions and checked integer narrowing), missing fields take their defaults or
/// fail, and unknown fields follow ``VersioningPolicies/unknownFields``. An object from a
/// newer version follows ``VersioningPolicies/newerVersions``.
public struct Migrator: Sendable {
    /// The schema: current versions, fields and steps.
    public var schema: ArchiveSchema
    /// Options for one migration.
    public var options: MigrationOptions

    /// Makes a migrator.
    public init(schema: ArchiveSchema, options: MigrationOptions = MigrationOptions()) {
        self.schema = schema
        self.options = options
    }

    /// Migrates a tree.
    /// - Parameter tree: a decoded archive or document.
    /// - Returns: the migrated tree, the report, and the unknown fields that were kept.
    /// - Throws: ``PFCore/PFError`` (format `migration`) naming the key path, the type, the
    ///   archive's and this build's versions, and what was expected: a missing field without a
    ///   default, a value of the wrong type, an integer that does not fit, an unknown enum
    ///   symbol, an unknown field under the `error` policy, a newer version under `reject`,
    ///   or what a transform throws.
    public func migrate(_ tree: PFValue) throws(PFError) -> MigrationOutcome {
        var engine = MigrationEngine(schema: schema, options: options, collecting: false)
        let migrated = try engine.run(tree)
        return MigrationOutcome(
            tree: migrated, report: MigrationReport(changes: engine.changes, notes: engine.notes),
            unknownFields: UnknownFields(entries: engine.unknown))
    }
}

/// Options for one migration.
public struct MigrationOptions: Sendable {
    /// Policies that override the schema's; `nil` uses the schema's.
    public var policies: VersioningPolicies?
    /// The transforms steps may name.
    public var transforms: TransformRegistry
    /// The type of the root when it has no `$class` (a plain `Codable` tree).
    public var rootType: String?
    /// The versions that wrote objects recording none (plain trees), by type name; an
    /// object with no recorded version and no entry here is version 0.
    public var writtenVersions: [String: Int]
    /// Budgets: `maxDepth` bounds nesting, `maxNodes` the objects migrated.
    public var limits: PFLimits

    /// Makes options; every parameter defaults to the property's documented default.
    public init(
        policies: VersioningPolicies? = nil, transforms: TransformRegistry = .standard, rootType: String? = nil,
        writtenVersions: [String: Int] = [:], limits: PFLimits = .default
    ) {
        self.policies = policies
        self.transforms = transforms
        self.rootType = rootType
        self.writtenVersions = writtenVersions
        self.limits = limits
    }
}

/// What a migration produced.
public struct MigrationOutcome: Sendable {
    /// The migrated tree.
    public var tree: PFValue
    /// What changed.
    public var report: MigrationReport
    /// Fields the schema does not describe that were kept, by object path.
    public var unknownFields: UnknownFields
}

/// Fields the reader's schema does not describe, kept by the path of their object so a
/// re-encode can put them back (protobuf's unknown-field round trip).
public struct UnknownFields: Sendable, Equatable {
    /// Object path → the unknown fields, in archive order.
    public var entries: [PFKeyPath: OrderedDictionary<String, PFValue>]

    /// Makes a set of unknown fields.
    public init(entries: [PFKeyPath: OrderedDictionary<String, PFValue>] = [:]) { self.entries = entries }

    /// Whether nothing was kept.
    public var isEmpty: Bool { entries.isEmpty }
}

/// One change a migration made to one object.
public struct MigrationChange: Sendable, Equatable, CustomStringConvertible {
    /// The object's path in the tree.
    public var path: PFKeyPath
    /// The object's type.
    public var typeName: String
    /// The version the archive recorded.
    public var fromVersion: Int
    /// The version the object has now.
    public var toVersion: Int
    /// What changed, such as `renamed field name → fullName`.
    public var change: String

    public var description: String {
        let at = path.isRoot ? "(root)" : path.description
        return "\(at): \(typeName) v\(fromVersion) → v\(toVersion): \(change)"
    }
}

/// Everything a migration changed, and what it noticed without changing.
public struct MigrationReport: Sendable, Equatable, CustomStringConvertible {
    /// The changes, in tree order.
    public var changes: [MigrationChange]
    /// Observations that are not changes (objects read best-effort, unknown fields kept).
    public var notes: [String]

    /// Whether the migration changed nothing.
    public var isEmpty: Bool { changes.isEmpty }

    public var description: String {
        (changes.map(\.description) + notes.map { "note: \($0)" }).joined(separator: "\n")
    }
}

// MARK: - The walk

/// Metadata keys of the tree shape; everything else in an object is a field.
let metadataKeys: Set<String> = ["$class", "$classes", "$version", "$versions", "$id"]

struct MigrationEngine {
    let schema: ArchiveSchema
    let policies: VersioningPolicies
    let options: MigrationOptions
    let collecting: Bool
    var changes: [MigrationChange] = []
    var notes: [String] = []
    var issues: [SchemaIssue] = []
    var unknown: [PFKeyPath: OrderedDictionary<String, PFValue>] = [:]
    var objects = 0

    init(schema: ArchiveSchema, options: MigrationOptions, collecting: Bool) {
        self.schema = schema
        self.policies = options.policies ?? schema.policies
        self.options = options
        self.collecting = collecting
    }

    mutating func run(_ tree: PFValue) throws(PFError) -> PFValue {
        let expected = options.rootType.map(FieldType.reference)
        if let rootType = options.rootType, schema.types[rootType] == nil {
            throw PFError(VersioningFailure.unknownRootType(rootType, known: Array(schema.types.keys)), format: .migration)
        }
        return try visit(tree, expected: expected, path: .root, depth: 0)
    }

    /// Throws, or records the error and carries on when checking.
    mutating func problem(_ error: PFError, className: String?) throws(PFError) {
        guard collecting else { throw error }
        issues.append(SchemaIssue(severity: .error, path: error.path ?? .root, className: className, message: error.message))
    }

    mutating func warning(_ message: String, path: PFCodingPath, className: String?) {
        if collecting { issues.append(SchemaIssue(severity: .warning, path: path.keyPath, className: className, message: message)) }
    }

    func depthCheck(_ depth: Int, _ path: PFCodingPath) throws(PFError) {
        guard depth < options.limits.maxDepth else {
            throw PFError(VersioningFailure.tooDeep(maxDepth: options.limits.maxDepth), format: .migration, path: path.keyPath)
        }
    }

    /// Visits a value whose type is unknown, or an object of a known type.
    mutating func visit(_ value: PFValue, expected: FieldType?, path: PFCodingPath, depth: Int) throws(PFError) -> PFValue {
        try depthCheck(depth, path)
        switch value {
        case .array(let items):
            var out: [PFValue] = []
            out.reserveCapacity(items.count)
            for (i, item) in items.enumerated() { out.append(try visit(item, expected: nil, path: path.appending(index: i), depth: depth + 1)) }
            return .array(out)
        case .dictionary(let members):
            if members.count == 1, members["$ref"] != nil { return value }
            if members.count == 2, let inner = members["$value"], members["$id"] != nil {
                var wrapped = members
                wrapped["$value"] = try visit(inner, expected: expected, path: path.appending(key: "$value"), depth: depth + 1)
                return .dictionary(wrapped)
            }
            if let className = members["$class"]?.stringValue {
                if let type = schema.type(forClassName: className) {
                    return try migrateObject(members, type: type, path: path, depth: depth)
                }
            } else if case .reference(let name)? = expected, let type = schema.types[name] {
                return try migrateObject(members, type: type, path: path, depth: depth)
            }
            var out = members
            for (key, item) in members where !metadataKeys.contains(key) {
                out[key] = try visit(item, expected: nil, path: path.appending(key: key), depth: depth + 1)
            }
            return .dictionary(out)
        default:
            return value
        }
    }

    // MARK: - Objects

    mutating func migrateObject(
        _ members: OrderedDictionary<String, PFValue>, type: TypeSchema, path: PFCodingPath, depth: Int
    ) throws(PFError) -> PFValue {
        objects += 1
        guard objects <= options.limits.maxNodes else { throw PFLimits.exceeded("maxNodes", options.limits.maxNodes, format: .migration) }
        var written = options.writtenVersions[type.name] ?? 0
        if let recorded = members["$version"] {
            guard let v = recorded.int64Value, let small = Int(exactly: v), small >= 0 else {
                try problem(
                    PFError(VersioningFailure.badVersionNumber(type: type.name, found: recorded.scalarDescription), format: .migration,
                            path: path.appending(key: "$version").keyPath), className: type.name)
                return .dictionary(members)
            }
            written = small
        }
        var context = ObjectContext(type: type, written: written, path: path)
        var fields = members
        if let archivedName = fields["$class"]?.stringValue, archivedName != type.name {
            fields["$class"] = .string(type.name)
            record(&context, "renamed class \(archivedName) → \(type.name)")
        }
        if written > type.version {
            let message = "archive has \(type.name) v\(written), this build knows v\(type.version)"
            if policies.newerVersions == .reject {
                try problem(
                    PFError(VersioningFailure.newerVersion(type: type.name, written: written, known: type.version), format: .migration, path: path.keyPath),
                    className: type.name)
            } else {
                notes.append("\(path.keyPath.isRoot ? "(root)" : path.keyPath.description): \(message); read best-effort, fields kept")
                warning(message + "; read best-effort", path: path, className: type.name)
            }
        } else if written < type.version {
            warning("\(type.name) v\(written) is older than v\(type.version); run pfarchive migrate", path: path, className: type.name)
            for version in written..<type.version {
                guard let step = type.step(from: version) else { continue }
                context.stepFrom = version
                for op in step.ops { try apply(op, to: &fields, context: &context) }
            }
            context.stepFrom = nil
        }
        try resolve(&fields, context: &context, depth: depth)
        if written < type.version, members["$version"] != nil || members["$class"] != nil {
            Self.setVersion(type.version, in: &fields)
        }
        return .dictionary(fields)
    }

    struct ObjectContext {
        var type: TypeSchema
        var written: Int
        var path: PFCodingPath
        var stepFrom: Int?

        var target: Int { max(written, type.version) }
    }

    mutating func record(_ context: inout ObjectContext, _ change: String) {
        changes.append(
            MigrationChange(path: context.path.keyPath, typeName: context.type.name, fromVersion: context.written,
                            toVersion: context.target, change: change))
    }

    func failure(_ context: ObjectContext, field: String?, _ problem: VersioningFailure.MigrationProblem) -> PFError {
        let what = field.map { "\(context.type.name).\($0)" } ?? context.type.name
        let versions: String
        if let from = context.stepFrom {
            versions = "step v\(from) → v\(from + 1)"
        } else if context.written == context.type.version {
            versions = "\(context.type.name) v\(context.written)"
        } else {
            versions = "archive has \(context.type.name) v\(context.written), reading as v\(context.type.version)"
        }
        let path = field.map { context.path.appending(key: $0) } ?? context.path
        return PFError(VersioningFailure.object(what: what, versions: versions, problem), format: .migration, path: path.keyPath)
    }

    /// Sets `$version` in place, or inserts it after `$class`/`$classes`; updates `$versions[0]`.
    static func setVersion(_ version: Int, in fields: inout OrderedDictionary<String, PFValue>) {
        if case .array(var chain)? = fields["$versions"], !chain.isEmpty {
            chain[0] = .int(Int64(version))
            fields["$versions"] = .array(chain)
        }
        if fields["$version"] != nil {
            fields["$version"] = .int(Int64(version))
            return
        }
        var out = OrderedDictionary<String, PFValue>()
        var inserted = false
        for (key, value) in fields {
            if !inserted, key != "$class", key != "$classes" {
                out["$version"] = .int(Int64(version))
                inserted = true
            }
            out[key] = value
        }
        if !inserted { out["$version"] = .int(Int64(version)) }
        fields = out
    }

    /// Replaces key `from` by `to` at the same position.
    static func rename(_ from: String, to: String, value: PFValue, in fields: inout OrderedDictionary<String, PFValue>) {
        if to != from { fields.removeValue(forKey: to) }
        guard let index = fields.index(forKey: from) else {
            fields[to] = value
            return
        }
        var out = OrderedDictionary<String, PFValue>()
        for (i, (key, existing)) in fields.enumerated() {
            if i == index { out[to] = value } else { out[key] = existing }
        }
        fields = out
    }
}
