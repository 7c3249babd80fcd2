import Foundation
import OrderedCollections
import PFCore
import PFJSON

/// A rules file: declared types (attributes, edges with ownership and target, identity),
/// rules shared by every profile, and named profiles. Strictly validated: an unknown member,
/// a misspelt action, or a rule naming an undeclared type or key is an error with its JSON
/// path (rules must be exact, unlike archives). See Docs/GraphCopy.md for the format.
///
/// ```json
/// { "rulesVersion": 1,
///   "types": { "Employee": { "attributes": ["name", "employeeID"], "identity": ["employeeID"],
///                            "edges": { "department": { "ownership": "refers", "target": "Department" } } },
///              "Department": { "attributes": ["name"], "edges": {} } },
///   "rules": { "attributes": { "*.notes": "omit" } },
///   "profiles": { "paste": { "extends": "pasteboard", "edges": { "Employee.department": "share" } } } }
/// ```
public struct CopyRulesFile: Sendable {
    /// The declared types.
    public var schema: CopySchema
    /// Edge rules every profile gets.
    public var sharedEdgeRules: OrderedDictionary<String, EdgeAction> = [:]
    /// Attribute rules every profile gets.
    public var sharedAttributeRules: OrderedDictionary<String, AttributeAction> = [:]
    /// The file's own profiles, resolved (`extends` applied).
    public var profiles: OrderedDictionary<String, CopyProfile> = [:]
    /// Where each rule selector is written: the shared rules' under `""`, a profile's own
    /// under its name (for ``check(profile:against:)``).
    var ruleSites: [String: [RuleSite]] = [:]
    /// The file profile each file profile extends, when it extends one of the file's.
    var fileBases: [String: String] = [:]

    /// A rule selector and its JSON path in the file.
    struct RuleSite: Sendable {
        var selector: String
        var path: PFKeyPath
    }

    /// No types, no rules: the built-in profiles as they are.
    public init() { schema = CopySchema() }

    /// Reads and validates a rules file.
    /// - Parameters:
    ///   - data: the JSON.
    /// - Throws: ``PFCore/PFError`` naming the JSON path of the first problem.
    public static func load(_ data: Data) throws(PFError) -> CopyRulesFile {
        var options = JSONReader.Options()
        options.rejectDuplicateKeys = true
        let value = try JSONReader(options: options).read(data)
        return try CopyRulesFile(json: value)
    }

    /// Validates a rules file already read as a value.
    /// - Throws: ``PFCore/PFError`` naming the JSON path of the first problem.
    public init(json: PFValue) throws(PFError) {
        let root = try Self.object(json, at: [], allowed: ["$schema", "rulesVersion", "types", "rules", "profiles"])
        if let version = root["rulesVersion"], version != .int(1) {
            throw Self.invalid(.rulesVersion, at: [.key("rulesVersion")])
        }
        schema = CopySchema()
        if let types = root["types"] {
            for (name, body) in try Self.object(types, at: [.key("types")], allowed: nil) {
                let at: PFKeyPath = [.key("types"), .key(name)]
                let members = try Self.object(body, at: at, allowed: ["attributes", "edges", "identity"])
                var info = CopySchema.TypeInfo()
                info.attributes = Set(try Self.strings(members["attributes"], at: at.appending(key: ("attributes"))))
                for (key, edge) in try Self.object(members["edges"] ?? [:], at: at.appending(key: ("edges")), allowed: nil) {
                    let edgeAt = at.appending(key: ("edges")).appending(key: (key))
                    let e = try Self.object(edge, at: edgeAt, allowed: ["ownership", "target", "inverse"])
                    var declared = CopySchema.Edge()
                    if let o = e["ownership"] { declared.ownership = try Self.enumValue(o, Ownership.self, at: edgeAt.appending(key: ("ownership"))) }
                    if let t = e["target"] { declared.target = try Self.string(t, at: edgeAt.appending(key: ("target"))) }
                    if info.attributes.contains(key) { throw Self.invalid(.attributeAndEdge(key), at: edgeAt) }
                    info.edges[key] = declared
                }
                info.identity = try Self.strings(members["identity"], at: at.appending(key: ("identity")))
                for (i, key) in info.identity.enumerated() where !info.attributes.contains(key) {
                    throw Self.invalid(.identityNotAttribute(key, type: name), at: at.appending(key: ("identity")).appending(index: (i)))
                }
                schema.types[name] = info
            }
            for (name, info) in schema.types {
                for (key, edge) in info.edges {
                    if let target = edge.target, schema.types[target] == nil {
                        throw Self.invalid(.unknownTargetType(target), at: [.key("types"), .key(name), .key("edges"), .key(key), .key("target")])
                    }
                }
            }
        }
        if let shared = root["rules"] {
            let at: PFKeyPath = [.key("rules")]
            let members = try Self.object(shared, at: at, allowed: ["edges", "attributes"])
            sharedEdgeRules = try Self.edgeRules(members["edges"], at: at.appending(key: ("edges")))
            sharedAttributeRules = try Self.attributeRules(members["attributes"], at: at.appending(key: ("attributes")))
            ruleSites[""] = sharedEdgeRules.keys.map { RuleSite(selector: $0, path: at.appending(key: "edges").appending(key: $0)) }
                + sharedAttributeRules.keys.map { RuleSite(selector: $0, path: at.appending(key: "attributes").appending(key: $0)) }
            // Checked once against the schema through a throwaway profile.
            var probe = CopyProfile.deep
            probe.edgeRules = sharedEdgeRules
            probe.attributeRules = sharedAttributeRules
            try Self.checked(probe, schema: schema, edgesAt: at.appending(key: ("edges")), attributesAt: at.appending(key: ("attributes")))
        }
        if let profiles = root["profiles"] {
            let bodies = try Self.object(profiles, at: [.key("profiles")], allowed: nil)
            var resolving: Set<String> = []
            for name in bodies.keys { try resolve(name, bodies: bodies, resolving: &resolving) }
        }
    }

    /// Resolves one file profile (after the one it extends).
    mutating func resolve(_ name: String, bodies: OrderedDictionary<String, PFValue>, resolving: inout Set<String>) throws(PFError) {
        guard profiles[name] == nil, let body = bodies[name] else { return }
        let at: PFKeyPath = [.key("profiles"), .key(name)]
        guard resolving.insert(name).inserted else { throw Self.invalid(.profileCycle(name), at: at) }
        let members = try Self.object(
            body, at: at,
            allowed: ["extends", "defaultEdge", "valueEdge", "ownership", "maxDepth", "onDepthExceeded", "maxObjects", "regenerateIdentities", "edges", "attributes"])
        var profile: CopyProfile
        if let base = members["extends"] {
            var baseName = try Self.string(base, at: at.appending(key: ("extends")))
            if baseName.hasPrefix("builtin:") { baseName.removeFirst("builtin:".count) }
            // A profile extending its own name (or "builtin:NAME") extends the built-in one.
            if bodies[baseName] != nil, baseName != name, base != .string("builtin:" + baseName) {
                try resolve(baseName, bodies: bodies, resolving: &resolving)
                guard let resolved = profiles[baseName] else { throw Self.invalid(.profileUnresolved(baseName), at: at.appending(key: ("extends"))) }
                profile = resolved
                fileBases[name] = baseName
            } else if let builtIn = CopyProfile.builtIn[baseName] {
                profile = builtIn
            } else {
                throw Self.invalid(.unknownBaseProfile(baseName, builtIn: Array(CopyProfile.builtIn.keys)), at: at.appending(key: ("extends")))
            }
        } else {
            profile = .deep
        }
        profile.name = name
        if let v = members["defaultEdge"] { profile.defaultEdge = try Self.enumValue(v, EdgeAction.self, at: at.appending(key: ("defaultEdge"))) }
        if let v = members["valueEdge"] { profile.valueEdge = try Self.enumValue(v, EdgeAction.self, at: at.appending(key: ("valueEdge"))) }
        if let v = members["ownership"] {
            let oAt = at.appending(key: ("ownership"))
            for (key, action) in try Self.object(v, at: oAt, allowed: Set(Ownership.allCases.map(\.rawValue))) {
                guard let ownership = Ownership(rawValue: key) else { continue }
                profile.ownershipActions[ownership] = try Self.enumValue(action, EdgeAction.self, at: oAt.appending(key: (key)))
            }
        }
        if let v = members["maxDepth"] { profile.maxDepth = try Self.count(v, at: at.appending(key: ("maxDepth"))) }
        if let v = members["onDepthExceeded"] { profile.onDepthExceeded = try Self.enumValue(v, DepthOverflow.self, at: at.appending(key: ("onDepthExceeded"))) }
        if let v = members["maxObjects"] { profile.maxObjects = try Self.count(v, at: at.appending(key: ("maxObjects"))) }
        if let v = members["regenerateIdentities"] {
            guard case .bool(let b) = v else { throw Self.invalid(.expectedBool, at: at.appending(key: ("regenerateIdentities"))) }
            profile.regenerateIdentities = b
        }
        let edgesAt = at.appending(key: ("edges"))
        let attributesAt = at.appending(key: ("attributes"))
        // A profile's own rules override what it extends; they conflict with the shared rules.
        var sites: [RuleSite] = []
        for (selector, action) in try Self.edgeRules(members["edges"], at: edgesAt) {
            profile.edgeRules[selector] = action
            sites.append(RuleSite(selector: selector, path: edgesAt.appending(key: selector)))
        }
        for (selector, action) in try Self.attributeRules(members["attributes"], at: attributesAt) {
            profile.attributeRules[selector] = action
            sites.append(RuleSite(selector: selector, path: attributesAt.appending(key: selector)))
        }
        ruleSites[name] = sites
        try Self.checked(profile, schema: schema, edgesAt: edgesAt, attributesAt: attributesAt)
        profiles[name] = profile
        resolving.remove(name)
    }

    /// A profile by name (the file's own first, then the built-ins), with the shared rules.
    /// - Throws: ``PFCore/PFError`` `invalidValue` for an unknown name or a shared rule that
    ///   conflicts with one of the profile's.
    public func profile(named name: String) throws(PFError) -> CopyProfile {
        guard var profile = profiles[name] ?? CopyProfile.builtIn[name] else {
            let names = Array(profiles.keys) + CopyProfile.builtIn.keys.filter { profiles[$0] == nil }
            throw PFError(GraphCopyFailure.unknownProfile(name, known: names), format: .copyRules)
        }
        for (selector, action) in sharedEdgeRules {
            do throws(PFError) { profile = try profile.edge(selector, action) } catch {
                throw Self.shared(error, section: "edges", selector: selector, profile: name)
            }
        }
        for (selector, action) in sharedAttributeRules {
            do throws(PFError) { profile = try profile.attribute(selector, action) } catch {
                throw Self.shared(error, section: "attributes", selector: selector, profile: name)
            }
        }
        return profile
    }

    /// The compiled rules of a profile.
    /// - Throws: as ``profile(named:)``.
    public func rules(profile name: String) throws(PFError) -> CopyRules {
        try CopyRules(profile: profile(named: name), schema: schema)
    }

    // MARK: - Validation helpers

    static func invalid(_ failure: GraphCopyFailure, at path: PFKeyPath) -> PFError {
        PFError(failure, format: .copyRules, path: path)
    }

    /// A shared rule's conflict with a profile's, at the shared rule's JSON path.
    static func shared(_ error: PFError, section: String, selector: String, profile: String) -> PFError {
        let path: PFKeyPath = [.key("rules"), .key(section), .key(selector)]
        guard case .conflict(let selector, let first, let second)? = error.failure(as: GraphCopyFailure.self) else { return error.at(path) }
        return invalid(.sharedConflict(selector: selector, first: first, second: second, section: section, profile: profile), at: path)
    }

    static func object(_ value: PFValue, at path: PFKeyPath, allowed: Set<String>?) throws(PFError) -> OrderedDictionary<String, PFValue> {
        guard case .dictionary(let members) = value else { throw invalid(.expectedObject(found: value.kind.rawValue), at: path) }
        if let allowed {
            for key in members.keys where !allowed.contains(key) {
                throw invalid(.unknownMember(key, allowed: allowed.sorted()), at: path.appending(key: (key)))
            }
        }
        return members
    }

    static func string(_ value: PFValue, at path: PFKeyPath) throws(PFError) -> String {
        guard case .string(let s) = value else { throw invalid(.expectedString(found: value.kind.rawValue), at: path) }
        return s
    }

    static func strings(_ value: PFValue?, at path: PFKeyPath) throws(PFError) -> [String] {
        guard let value else { return [] }
        guard case .array(let items) = value else { throw invalid(.expectedStringArray, at: path) }
        var out: [String] = []
        for (i, item) in items.enumerated() { out.append(try string(item, at: path.appending(index: (i)))) }
        return out
    }

    static func count(_ value: PFValue, at path: PFKeyPath) throws(PFError) -> Int {
        guard case .int(let i) = value, i >= 0, i <= Int64(Int32.max) else { throw invalid(.expectedWholeNumber, at: path) }
        return Int(i)
    }

    static func enumValue<E: RawRepresentable & CaseIterable>(_ value: PFValue, _: E.Type, at path: PFKeyPath) throws(PFError) -> E where E.RawValue == String {
        let text = try string(value, at: path)
        guard let result = E(rawValue: text) else {
            throw invalid(.unknownValue(text, allowed: E.allCases.map(\.rawValue)), at: path)
        }
        return result
    }

    static func edgeRules(_ value: PFValue?, at path: PFKeyPath) throws(PFError) -> OrderedDictionary<String, EdgeAction> {
        guard let value else { return [:] }
        var out = OrderedDictionary<String, EdgeAction>()
        for (selector, action) in try object(value, at: path, allowed: nil) {
            out[selector] = try enumValue(action, EdgeAction.self, at: path.appending(key: (selector)))
        }
        return out
    }

    static func attributeRules(_ value: PFValue?, at path: PFKeyPath) throws(PFError) -> OrderedDictionary<String, AttributeAction> {
        guard let value else { return [:] }
        var out = OrderedDictionary<String, AttributeAction>()
        for (selector, rule) in try object(value, at: path, allowed: nil) {
            let at = path.appending(key: (selector))
            var name: String
            var members: OrderedDictionary<String, PFValue> = [:]
            if case .string(let s) = rule {
                name = s
            } else {
                members = try object(rule, at: at, allowed: ["action", "generator", "value"])
                guard let a = members["action"] else { throw invalid(.missingAction, at: at) }
                name = try string(a, at: at.appending(key: ("action")))
            }
            switch name {
            case "copy": out[selector] = .copy
            case "omit": out[selector] = .omit
            case "regenerate":
                let generator = try members["generator"].map { (g) throws(PFError) in try enumValue(g, IdentityGenerator.self, at: at.appending(key: ("generator"))) } ?? .uuid
                out[selector] = .regenerate(generator)
            case "set":
                guard let constant = members["value"] else { throw invalid(.setNeedsValue, at: at) }
                out[selector] = .set(constant)
            default:
                throw invalid(.unknownAttributeAction(name), at: members.isEmpty ? at : at.appending(key: ("action")))
            }
            if name != "regenerate", members["generator"] != nil { throw invalid(.generatorOnlyWithRegenerate, at: at.appending(key: ("generator"))) }
            if name != "set", members["value"] != nil { throw invalid(.valueOnlyWithSet, at: at.appending(key: ("value"))) }
        }
        return out
    }

    /// Compiles a profile against the schema, turning a selector error into one at its JSON path.
    static func checked(_ profile: CopyProfile, schema: CopySchema, edgesAt: PFKeyPath, attributesAt: PFKeyPath) throws(PFError) {
        for (selector, action) in profile.edgeRules {
            var one = profile
            one.edgeRules = [selector: action]
            one.attributeRules = [:]
            do throws(PFError) { _ = try CopyRules(profile: one, schema: schema) } catch { throw error.at(edgesAt.appending(key: selector)) }
        }
        for (selector, action) in profile.attributeRules {
            if profile.edgeRules[selector] != nil {
                throw invalid(.edgeAndAttributeRule(selector), at: attributesAt.appending(key: (selector)))
            }
            var one = profile
            one.edgeRules = [:]
            one.attributeRules = [selector: action]
            do throws(PFError) { _ = try CopyRules(profile: one, schema: schema) } catch { throw error.at(attributesAt.appending(key: selector)) }
        }
    }
}
