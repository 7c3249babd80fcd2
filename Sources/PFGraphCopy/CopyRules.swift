import Foundation
import OrderedCollections
import PFCore

/// A profile compiled for fast lookup, with the schema it was checked against: what the
/// copier and the archiver policy consult for every edge and attribute.
public struct CopyRules: Sendable {
    /// The profile.
    public let profile: CopyProfile
    /// The declared types (may be empty).
    public let schema: CopySchema

    /// A rule selector, parsed.
    enum Selector: Equatable {
        case typeKey(String, String)
        case anyKey(String)
        case path([String])

        init(parsing text: String) throws(PFError) {
            let segments = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard segments.count >= 2, segments.allSatisfy({ !$0.isEmpty }) else {
                throw PFError(GraphCopyFailure.notASelector(text), format: .copyRules)
            }
            if segments[0] == "*" {
                guard segments.count == 2 else {
                    throw PFError(GraphCopyFailure.anyKeyArity(text), format: .copyRules)
                }
                self = .anyKey(segments[1])
            } else if let first = segments[0].unicodeScalars.first, first == "_" || CharacterSet.uppercaseLetters.contains(first) {
                guard segments.count == 2 else {
                    throw PFError(GraphCopyFailure.typeKeyArity(text), format: .copyRules)
                }
                self = .typeKey(segments[0], segments[1])
            } else {
                self = .path(segments)
            }
        }
    }

    /// One node of the path trie: the fields below it, and the rules for its own fields.
    package struct PathNode: Sendable {
        var children: [String: Int] = [:]
        package internal(set) var edges: [String: EdgeAction] = [:]
        package internal(set) var attributes: [String: AttributeAction] = [:]
    }

    var typeEdges: [String: [String: EdgeAction]] = [:]
    var anyEdges: [String: EdgeAction] = [:]
    package internal(set) var typeAttributes: [String: [String: AttributeAction]] = [:]
    package internal(set) var anyAttributes: [String: AttributeAction] = [:]
    package internal(set) var paths: [PathNode] = [PathNode()]

    /// The path-trie state of the root object.
    public static let rootPath = 0
    /// The state of an object no path rule can reach.
    public static let noPath = -1

    /// Compiles a profile.
    /// - Parameters:
    ///   - profile: the profile.
    ///   - schema: declared types; when it declares any, every rule must name declared types
    ///     and keys.
    /// - Throws: ``PFCore/PFError`` `invalidValue` for a malformed selector, an unknown type
    ///   or key, or an edge rule on a declared attribute (and the reverse).
    public init(profile: CopyProfile, schema: CopySchema = CopySchema()) throws(PFError) {
        self.profile = profile
        self.schema = schema
        for (text, action) in profile.edgeRules {
            let selector = try Selector(parsing: text)
            try check(selector, text: text, isEdge: true)
            switch selector {
            case .typeKey(let t, let k): typeEdges[t, default: [:]][k] = action
            case .anyKey(let k): anyEdges[k] = action
            case .path(let segments): paths[pathNode(for: segments.dropLast())].edges[segments[segments.count - 1]] = action
            }
        }
        for (text, action) in profile.attributeRules {
            let selector = try Selector(parsing: text)
            try check(selector, text: text, isEdge: false)
            switch selector {
            case .typeKey(let t, let k): typeAttributes[t, default: [:]][k] = action
            case .anyKey(let k): anyAttributes[k] = action
            case .path(let segments): paths[pathNode(for: segments.dropLast())].attributes[segments[segments.count - 1]] = action
            }
        }
    }

    mutating func pathNode(for segments: ArraySlice<String>) -> Int {
        var node = 0
        for segment in segments {
            if let next = paths[node].children[segment] {
                node = next
            } else {
                paths.append(PathNode())
                paths[node].children[segment] = paths.count - 1
                node = paths.count - 1
            }
        }
        return node
    }

    /// Checks a selector against the schema (when it declares types).
    func check(_ selector: Selector, text: String, isEdge: Bool) throws(PFError) {
        guard !schema.types.isEmpty else { return }
        func unknown(_ problem: GraphCopyFailure.SelectorProblem) -> PFError {
            PFError(GraphCopyFailure.selector(text, problem), format: .copyRules)
        }
        func checkKind(_ type: String, _ info: CopySchema.TypeInfo, _ key: String) throws(PFError) {
            if isEdge, info.edges[key] == nil, info.attributes.contains(key) {
                throw unknown(.isAttribute(type: type, key: key))
            }
            if !isEdge, info.edges[key] != nil, !info.attributes.contains(key) {
                throw unknown(.isEdge(type: type, key: key))
            }
        }
        switch selector {
        case .typeKey(let type, let key):
            guard let info = schema.types[type] else {
                throw unknown(.unknownType(type, declared: schema.types.keys.sorted()))
            }
            guard info.declares(key) else { throw unknown(.unknownKey(key, type: type)) }
            try checkKind(type, info, key)
        case .anyKey(let key):
            guard schema.anyTypeDeclares(key) else { throw unknown(.noTypeHasKey(key)) }
        case .path(let segments):
            // Each segment before the last must be an edge of some type (of the previous
            // segment's target type, when that is declared); the last any declared key.
            var current: [CopySchema.TypeInfo] = Array(schema.types.values)
            for (i, segment) in segments.enumerated() {
                let last = i == segments.count - 1
                let holders = current.filter { last ? $0.declares(segment) : $0.edges[segment] != nil }
                guard !holders.isEmpty else {
                    throw unknown(last ? .unknownKeyAtEnd(segment) : .notAnEdge(segment))
                }
                if !last {
                    let targets = holders.compactMap { $0.edges[segment]?.target }
                    if targets.count == holders.count {
                        var next: [CopySchema.TypeInfo] = []
                        for target in targets {
                            guard let info = schema.types[target] else { throw unknown(.edgeTargetsUnknownType(edge: segment, target: target)) }
                            next.append(info)
                        }
                        current = next
                    } else {
                        current = Array(schema.types.values)
                    }
                }
            }
        }
    }

    // MARK: - Lookup

    /// The path state of the object reached from an object in `state` through `key`.
    @inline(__always)
    public func path(from state: Int, through key: String) -> Int {
        guard state >= 0, paths.count > 1 else { return Self.noPath }
        return paths[state].children[key] ?? Self.noPath
    }

    /// The action a rule or a declared ownership gives an edge, or `nil` when only the
    /// per-target defaults (``CopyProfile/valueEdge``, ``CopyProfile/defaultEdge``) apply.
    public func ruleAction(ownerType: String?, key: String, path: Int) -> EdgeAction? {
        if path >= 0, let action = paths[path].edges[key] { return action }
        if let ownerType, let action = typeEdges[ownerType]?[key] { return action }
        if let action = anyEdges[key] { return action }
        if let ownership = schema.ownership(of: ownerType, key: key), let action = profile.ownershipActions[ownership] {
            return action
        }
        return nil
    }

    /// The action for one target of an edge.
    @inline(__always)
    public func edgeAction(rule: EdgeAction?, targetIsTyped: Bool) -> EdgeAction {
        rule ?? (targetIsTyped ? profile.defaultEdge : profile.valueEdge)
    }

    /// Whether any attribute rule could apply to an object of this type.
    public var hasAttributeRules: Bool {
        !typeAttributes.isEmpty || !anyAttributes.isEmpty || paths.contains { !$0.attributes.isEmpty }
            || profile.regenerateIdentities
    }

    /// The action for an attribute.
    public func attributeAction(ownerType: String?, key: String, path: Int) -> AttributeAction {
        if path >= 0, let action = paths[path].attributes[key] { return action }
        if let ownerType, let action = typeAttributes[ownerType]?[key] { return action }
        if let action = anyAttributes[key] { return action }
        if profile.regenerateIdentities, ownerType != nil {
            // Typed objects only: an untyped dictionary (a Pointer value, an ACL) is no identity.
            switch key {
            case "objectId": return .regenerate(.objectId)
            case "createdAt", "updatedAt": return .regenerate(.now)
            default:
                if let ownerType, schema.types[ownerType]?.identity.contains(key) == true { return .regenerate(.uuid) }
            }
        }
        return .copy
    }

    /// Whether a rule names this attribute explicitly (so a collection-valued field is
    /// treated as an attribute, not a relationship).
    public func hasAttributeRule(ownerType: String?, key: String, path: Int) -> Bool {
        (path >= 0 && paths[path].attributes[key] != nil) || (ownerType.map { typeAttributes[$0]?[key] != nil } ?? false)
            || anyAttributes[key] != nil
    }
}
