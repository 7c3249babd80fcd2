import Foundation
import OrderedCollections
import PFCore

/// A named set of copy decisions: defaults, limits and rules addressed by selector.
///
/// A selector is `Type.key` (one type's field), `*.key` (any type's field) or a root-relative
/// path `department.head` (the field `head` of the object reached from the root through
/// `department`). A selector whose first segment starts with an uppercase letter or `_` is a
/// type; otherwise it is a path.
///
/// For each edge the most specific rule wins: path, then `Type.key`, then `*.key`, then the
/// edge's declared ``Ownership`` through ``ownershipActions``, then ``valueEdge`` for a target
/// without a type (a dictionary in a value tree: part of its owner), then ``defaultEdge``.
public struct CopyProfile: Sendable, Equatable {
    /// The profile's name (`deep`, `pasteboard`, or a rules file's own).
    public var name: String
    /// The action for an edge no rule or ownership decides.
    public var defaultEdge: EdgeAction
    /// The default action for each declared ownership.
    public var ownershipActions: [Ownership: EdgeAction]
    /// The default action for an edge to a value without a type (an untyped dictionary).
    public var valueEdge: EdgeAction = .copy
    /// The deepest object copied, counting the root as 0; `nil` for no limit.
    public var maxDepth: Int?
    /// What happens at ``maxDepth``.
    public var onDepthExceeded: DepthOverflow = .truncate
    /// The most nodes (objects and collections) one copy may create.
    public var maxObjects: Int = PFLimits.default.maxNodes
    /// Regenerate identities (`objectId`, `createdAt`/`updatedAt`, declared identity
    /// attributes) of every copied object and rewrite every Pointer to a copied object.
    public var regenerateIdentities = false
    /// Edge rules by selector.
    public var edgeRules: OrderedDictionary<String, EdgeAction> = [:]
    /// Attribute rules by selector.
    public var attributeRules: OrderedDictionary<String, AttributeAction> = [:]

    /// Makes a profile.
    public init(
        name: String, defaultEdge: EdgeAction, ownershipActions: [Ownership: EdgeAction] = [:], maxDepth: Int? = nil
    ) {
        self.name = name
        self.defaultEdge = defaultEdge
        self.ownershipActions = ownershipActions
        self.maxDepth = maxDepth
    }

    // MARK: - Built-in profiles

    /// Attributes copied, every edge shared: a new root object pointing at the original graph.
    public static var shallow: CopyProfile {
        var p = CopyProfile(name: "shallow", defaultEdge: .share, ownershipActions: [.owns: .share, .refers: .share, .back: .share])
        p.valueEdge = .share
        return p
    }

    /// Copy-and-paste: owned targets are copied, referenced ones written as references,
    /// back-pointers conditional, and undeclared typed edges conditional, so a paste never
    /// drags the rest of the graph along.
    public static var pasteboard: CopyProfile {
        CopyProfile(name: "pasteboard", defaultEdge: .conditional, ownershipActions: [.owns: .copy, .refers: .reference, .back: .conditional])
    }

    /// Saving: the whole reachable graph with identity, back-pointers conditional (they are
    /// written anyway when their target is reached).
    public static var persistence: CopyProfile {
        CopyProfile(name: "persistence", defaultEdge: .copy, ownershipActions: [.owns: .copy, .refers: .copy, .back: .conditional])
    }

    /// Every edge copied; sharing and cycles kept.
    public static var deep: CopyProfile {
        CopyProfile(name: "deep", defaultEdge: .copy, ownershipActions: [.owns: .copy, .refers: .copy, .back: .copy])
    }

    /// "Duplicate": ``deep`` with identities regenerated and every Pointer to a copied
    /// object rewritten to the copy.
    public static var duplicate: CopyProfile {
        var p = deep
        p.name = "duplicate"
        p.regenerateIdentities = true
        return p
    }

    /// The built-in profiles by name.
    public static var builtIn: OrderedDictionary<String, CopyProfile> {
        ["shallow": shallow, "pasteboard": pasteboard, "persistence": persistence, "deep": deep, "duplicate": duplicate]
    }

    // MARK: - Rules

    /// The profile with one more edge rule.
    /// - Throws: ``PFCore/PFError`` `invalidValue` when the selector already has another rule.
    public func edge(_ selector: String, _ action: EdgeAction) throws(PFError) -> CopyProfile {
        if let existing = edgeRules[selector], existing != action {
            throw Self.conflict(selector, "\(existing.rawValue)", "\(action.rawValue)")
        }
        if attributeRules[selector] != nil { throw Self.conflict(selector, "an attribute rule", "an edge rule") }
        var copy = self
        copy.edgeRules[selector] = action
        return copy
    }

    /// The profile with one more attribute rule.
    /// - Throws: ``PFCore/PFError`` `invalidValue` when the selector already has another rule.
    public func attribute(_ selector: String, _ action: AttributeAction) throws(PFError) -> CopyProfile {
        if let existing = attributeRules[selector], existing != action {
            throw Self.conflict(selector, existing.name, action.name)
        }
        if edgeRules[selector] != nil { throw Self.conflict(selector, "an edge rule", "an attribute rule") }
        var copy = self
        copy.attributeRules[selector] = action
        return copy
    }

    static func conflict(_ selector: String, _ a: String, _ b: String) -> PFError {
        PFError(GraphCopyFailure.conflict(selector: selector, first: a, second: b), format: .copyRules)
    }
}
