import Foundation
import OrderedCollections
import PFCore
import PFGraphCopy
import PFParse

/// A store read through copy rules: what `pfarchive import SOURCE DEST --rules FILE` imports.
///
/// An import copies every object of the chosen classes, so there is no root and no walk: each
/// object is a root, and the rules decide per field what its copy keeps (see
/// Docs/GraphCopy.md, "Importing with rules"):
///
/// - A field holding a Pointer (or an array of them, or a Relation's join rows) is an
///   **edge**. `omit` leaves it out (an array keeps its other elements; a Relation loses its
///   join rows); `conditional` keeps it only when the target's class is imported; `copy`,
///   `share` and `reference` keep the Pointer, which is how a store refers to an object it
///   also holds.
/// - Any other field is an **attribute**: `copy`, `omit`, `set` (a `Type.key` rule sets the
///   field on every object of the type; `*.key` only where the field is), or `regenerate`
///   with `uuid`, `now` or `objectId` (a fresh id string for a field other than `objectId`).
///   `createdAt`, `updatedAt` and `ACL` follow attribute rules too.
/// - `objectId` is never changed: Pointers and join rows elsewhere in the store name it.
///   Rules that would regenerate or drop it, and path rules (`department.head`, which need a
///   root), are refused when the reader is made.
///
/// The schema, `declaredSchema()` and `relations()` reflect the rules, so the destination is
/// made with the fields the objects will have.
public final class RuledStoreReader: ObjectStoreReader {
    let source: any ObjectStoreReader
    let rules: CopyRules
    /// The classes being imported (for `conditional`); `nil` for all of the source's.
    let importedClasses: Set<String>?
    private var generatedIds = Set<String>()
    /// The rules file and profile to check against the source's schema, until checked.
    private var pendingCheck: (file: CopyRulesFile, profile: String?)?

    /// The profile an import uses when the rules file does not name one: every Pointer kept,
    /// with the file's shared rules.
    /// - Parameter file: the rules file.
    /// - Throws: ``PFCore/PFError`` `invalidValue` for a shared rule the profile refuses.
    public static func importProfile(_ file: CopyRulesFile) throws(PFError) -> CopyProfile {
        var profile = CopyProfile(name: "import", defaultEdge: .reference)
        profile.valueEdge = .reference
        for (selector, action) in file.sharedEdgeRules { profile = try profile.edge(selector, action) }
        for (selector, action) in file.sharedAttributeRules { profile = try profile.attribute(selector, action) }
        return profile
    }

    /// Reads `source` through `rules`.
    /// - Parameters:
    ///   - source: the store to read.
    ///   - rules: compiled copy rules.
    ///   - importedClasses: the classes the import writes (`conditional` keeps a Pointer only
    ///     to these); `nil` for every class of the source.
    ///   - checking: the rules file and the profile name the rules come from (`nil`: the
    ///     shared rules alone), to check against the source
    ///     (``CopyRulesFile/check(profile:against:)``) as soon as its schema is known — at
    ///     once for a store that declares one, after the objects for a Parse export without
    ///     `_SCHEMA.json` (the import then fails before it commits).
    /// - Throws: ``PFCore/PFError`` `usage` for path rules or rules that change `objectId`.
    public init(
        source: any ObjectStoreReader, rules: CopyRules, importedClasses: [String]? = nil,
        checking: (file: CopyRulesFile, profile: String?)? = nil
    ) throws(PFError) {
        self.source = source
        self.rules = rules
        self.importedClasses = importedClasses.map(Set.init)
        self.pendingCheck = checking
        if rules.paths.count > 1 || rules.paths.contains(where: { !$0.edges.isEmpty || !$0.attributes.isEmpty }) {
            throw PFError(StoreFailure.importPathRules, format: .copyRules)
        }
        let objectIdRules = rules.typeAttributes.values.compactMap { $0["objectId"] } + [rules.anyAttributes["objectId"]].compactMap { $0 }
        if rules.profile.regenerateIdentities || objectIdRules.contains(where: { $0 != .copy }) {
            throw PFError(StoreFailure.importObjectIdRules, format: .copyRules)
        }
    }

    public var location: String { source.location }
    public func classNames() throws(PFError) -> [String] { try source.classNames() }
    public func estimatedObjectCount(in className: String) -> Int? { source.estimatedObjectCount(in: className) }
    public func close() { source.close() }
    public func unresolvedLinks() -> UnresolvedLinks { source.unresolvedLinks() }

    public func schema() throws(PFError) -> ParseSchema {
        let schema = try source.schema()
        try checkRules(against: schema)
        return ruled(schema)
    }

    public func declaredSchema() throws(PFError) -> ParseSchema? {
        guard let schema = try source.declaredSchema() else { return nil }
        try checkRules(against: schema)
        return ruled(schema)
    }

    /// Checks the rules file against the source's classes, fields and relations, once.
    func checkRules(against schema: ParseSchema) throws(PFError) {
        guard let check = pendingCheck else { return }
        pendingCheck = nil
        var shape = CopyInputShape()
        shape.add(schema: schema, relations: try source.relations().map { ($0.owningClass, $0.field) })
        try check.file.check(profile: check.profile, against: shape)
    }

    public func forEachObject(in className: String, _ body: (ParseObject) throws(PFError) -> Void) throws(PFError) {
        try source.forEachObject(in: className) { (object: ParseObject) throws(PFError) in try body(try apply(object)) }
    }

    public func relations() throws(PFError) -> [ParseRelationKey] {
        try source.relations().filter { keeps(edge: $0.field, of: $0.owningClass, to: $0.targetClass) }
    }

    public func forEachJoinRow(of relation: ParseRelationKey, _ body: (ParseJoinRow) throws(PFError) -> Void) throws(PFError) {
        guard keeps(edge: relation.field, of: relation.owningClass, to: relation.targetClass) else { return }
        try source.forEachJoinRow(of: relation, body)
    }

    // MARK: - The rules, field by field

    /// Whether an edge of `owner` through `key` to an object of `target` is kept.
    func keeps(edge key: String, of owner: String, to target: String?) -> Bool {
        let action = rules.edgeAction(rule: rules.ruleAction(ownerType: owner, key: key, path: CopyRules.noPath), targetIsTyped: true)
        switch action {
        case .omit: return false
        case .conditional: return target.map { importedClasses?.contains($0) ?? true } ?? false
        case .copy, .share, .reference: return true
        }
    }

    /// Whether a field is an edge: a Pointer, an array of Pointers, or a Relation (unless an
    /// attribute rule names it).
    func isEdge(_ value: ParseValue, key: String, of owner: String) -> Bool {
        guard !rules.hasAttributeRule(ownerType: owner, key: key, path: CopyRules.noPath) else { return false }
        switch value {
        case .pointer, .embedded, .relation: return true
        case .array(let items): return !items.isEmpty && items.allSatisfy { $0.pointerValue != nil }
        default: return false
        }
    }

    /// The object as the rules make it.
    func apply(_ object: ParseObject) throws(PFError) -> ParseObject {
        let owner = object.className
        var keys: [String] = []
        var values: [ParseValue] = []
        keys.reserveCapacity(object.fields.count)
        values.reserveCapacity(object.fields.count)
        for (key, value) in object.fields {
            if isEdge(value, key: key, of: owner) {
                if case .array(let items) = value {
                    values.append(.array(items.filter { keeps(edge: key, of: owner, to: $0.pointerValue?.className) }))
                    keys.append(key)
                } else if keeps(edge: key, of: owner, to: value.targetClassName) {
                    values.append(value)
                    keys.append(key)
                }
                continue
            }
            if let kept = try attribute(value, key: key, of: owner) {
                values.append(kept)
                keys.append(key)
            }
        }
        // Type.key set rules add the field where the object lacks it.
        for (key, action) in rules.typeAttributes[owner] ?? [:] where object.fields[key] == nil && !Self.builtIn.contains(key) {
            if case .set(let constant) = action {
                keys.append(key)
                values.append(try Self.parseValue(constant, key: key, owner: owner))
            }
        }
        var copy = try object.replacingFields(OrderedDictionary(uncheckedUniqueKeys: keys, values: values))
        copy.createdAt = try date(object.createdAt, key: "createdAt", of: owner)
        copy.updatedAt = try date(object.updatedAt, key: "updatedAt", of: owner)
        let ruledACL = try acl(object.acl, of: owner)
        if ruledACL != object.acl { copy.acl = ruledACL }  // (setting it marks the ACL changed)
        return copy
    }

    static let builtIn: Set<String> = ["objectId", "createdAt", "updatedAt", "ACL"]

    /// An attribute's value after its rule, or `nil` when it is left out.
    func attribute(_ value: ParseValue, key: String, of owner: String) throws(PFError) -> ParseValue? {
        switch rules.attributeAction(ownerType: owner, key: key, path: CopyRules.noPath) {
        case .copy: return value
        case .omit: return nil
        case .set(let constant): return try Self.parseValue(constant, key: key, owner: owner)
        case .regenerate(let generator): return regenerated(generator)
        }
    }

    func regenerated(_ generator: IdentityGenerator) -> ParseValue {
        switch generator {
        case .uuid: return .string(UUID().uuidString)
        case .now: return .date(ParseDate.rounded(Date()))
        case .objectId:
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
            var id: String
            repeat {
                id = String((0..<10).map { _ in alphabet[Int.random(in: 0..<alphabet.count)] })
            } while !generatedIds.insert(id).inserted
            return .string(id)
        }
    }

    func date(_ value: Date?, key: String, of owner: String) throws(PFError) -> Date? {
        switch rules.attributeAction(ownerType: owner, key: key, path: CopyRules.noPath) {
        case .copy: return value
        case .omit: return nil
        case .regenerate: return ParseDate.rounded(Date())
        case .set(let constant):
            guard case .date(let date) = try Self.parseValue(constant, key: key, owner: owner) else {
                throw PFError(StoreFailure.ruleNotADate(owner: owner, key: key), format: .copyRules)
            }
            return date
        }
    }

    func acl(_ value: ParseACL?, of owner: String) throws(PFError) -> ParseACL? {
        switch rules.attributeAction(ownerType: owner, key: "ACL", path: CopyRules.noPath) {
        case .copy: return value
        case .omit: return nil
        case .regenerate: throw PFError(StoreFailure.ruleRegeneratesACL(owner: owner), format: .copyRules)
        case .set(let constant):
            do throws(PFError) {
                return try ParseACL(rest: constant)
            } catch {
                throw PFError(StoreFailure.ruleBadACL(owner: owner, problem: error.message), format: .copyRules)
            }
        }
    }

    static func parseValue(_ constant: PFValue, key: String, owner: String) throws(PFError) -> ParseValue {
        do throws(PFError) {
            return try ParseValue(rest: constant)
        } catch {
            throw PFError(StoreFailure.ruleBadConstant(owner: owner, key: key, constant: "\(constant)", problem: error.message), format: .copyRules)
        }
    }

    /// A schema as the rules make it: omitted fields and edges left out, set fields typed by
    /// their constant, regenerated ones by their generator.
    func ruled(_ schema: ParseSchema) -> ParseSchema {
        var out = ParseSchema()
        for (owner, fields) in schema.classes {
            var kept = OrderedDictionary<String, ParseSchema.Field>()
            for (key, field) in fields {
                let isEdge = field.type.refersToClass
                    && !rules.hasAttributeRule(ownerType: owner, key: key, path: CopyRules.noPath)
                if isEdge {
                    if keeps(edge: key, of: owner, to: field.targetClass) { kept[key] = field }
                    continue
                }
                switch rules.attributeAction(ownerType: owner, key: key, path: CopyRules.noPath) {
                case .copy: kept[key] = field
                case .omit: break
                case .set(let constant):
                    if let value = try? Self.parseValue(constant, key: key, owner: owner) { kept[key] = ParseSchema.fieldType(of: value) }
                case .regenerate(let generator): kept[key] = ParseSchema.Field(generator == .now ? .date : .string)
                }
            }
            for (key, action) in rules.typeAttributes[owner] ?? [:] where kept[key] == nil && !Self.builtIn.contains(key) {
                if case .set(let constant) = action, let value = try? Self.parseValue(constant, key: key, owner: owner) {
                    kept[key] = ParseSchema.fieldType(of: value)
                }
            }
            out.classes[owner] = kept
        }
        return out
    }
}
