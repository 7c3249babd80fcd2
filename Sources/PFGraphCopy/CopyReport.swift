import Foundation
import OrderedCollections
import PFCore

/// What a copy did (or, for a plan, would do): objects copied per type, edges per owner type
/// and action, attributes changed, edges cut at the depth limit and conditional edges dropped.
public struct CopyReport: Sendable, Equatable {
    /// One edge named in a report.
    public struct Edge: Sendable, Equatable, CustomStringConvertible {
        /// The owner's type (`(value)` for an untyped dictionary).
        public var ownerType: String
        /// The owner's node in the original graph.
        public var ownerNode: Int
        /// The field.
        public var key: String
        /// `Type#node.key`.
        public var description: String { "\(ownerType)#\(ownerNode).\(key)" }
    }

    /// At most this many edges are listed per list; the counts are always complete.
    public static let listLimit = 100

    /// The profile the copy used.
    public var profile: String
    /// Nodes made, per type: copied objects by class, `(value)` for untyped dictionaries,
    /// `(collection)` for arrays, sets and dictionaries with non-string keys, `(reference)`
    /// for the Pointer dictionaries `reference` edges write.
    public var copiedObjects: [String: Int] = [:]
    /// Edge targets met, per owner type and action.
    public var edges: [String: [String: Int]] = [:]
    /// Attributes not simply copied, per type and action (`omit`, `regenerate`, `set`).
    public var attributes: [String: [String: Int]] = [:]
    /// Copy edges cut at ``CopyProfile/maxDepth`` (the first ``listLimit``).
    public var truncatedEdges: [Edge] = []
    /// How many copy edges were cut.
    public var truncatedEdgeCount = 0
    /// Conditional edges left empty because their target was not copied (the first ``listLimit``).
    public var droppedConditionals: [Edge] = []
    /// How many conditional edges were left empty.
    public var droppedConditionalCount = 0

    /// Makes an empty report.
    public init(profile: String) { self.profile = profile }

    /// All nodes the copy created.
    public var totalCopied: Int { copiedObjects.values.reduce(0, +) }

    mutating func countEdge(_ ownerType: String, _ action: EdgeAction) {
        edges[ownerType, default: [:]][action.rawValue, default: 0] += 1
    }

    /// The report as a JSON-shaped value, keys sorted (what `pfarchive copy --dry-run` prints).
    public var jsonValue: PFValue {
        func counts(_ d: [String: Int]) -> PFValue {
            .dictionary(OrderedDictionary(uniqueKeysWithValues: d.sorted { $0.key < $1.key }.map { ($0.key, PFValue.int(Int64($0.value))) }))
        }
        func nested(_ d: [String: [String: Int]]) -> PFValue {
            .dictionary(OrderedDictionary(uniqueKeysWithValues: d.sorted { $0.key < $1.key }.map { ($0.key, counts($0.value)) }))
        }
        return [
            "profile": .string(profile),
            "copiedObjects": counts(copiedObjects),
            "totalCopied": .int(Int64(totalCopied)),
            "edges": nested(edges),
            "attributes": nested(attributes),
            "truncatedEdgeCount": .int(Int64(truncatedEdgeCount)),
            "truncatedEdges": .array(truncatedEdges.map { .string($0.description) }),
            "droppedConditionalCount": .int(Int64(droppedConditionalCount)),
            "droppedConditionals": .array(droppedConditionals.map { .string($0.description) }),
        ]
    }
}
