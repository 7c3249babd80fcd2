import Foundation
import PFCore

/// What a copy does with one relationship (an edge from an object's field to another object).
public enum EdgeAction: String, Sendable, CaseIterable, Codable {
    /// Clone the target (once: a target reached again is the same copy) and walk on from it.
    case copy
    /// Point at the original target.
    case share
    /// Leave the relationship empty: `nil` for a to-one, an empty collection for a to-many.
    case omit
    /// Keep the relationship only if the target is copied through another edge of the same
    /// operation, pointing at that copy; otherwise as ``omit`` (NSCoder's conditional objects).
    case conditional
    /// Replace the target by its identity: a Parse Pointer `{"__type":"Pointer",…}` naming
    /// the target's class and `objectId` (or its declared identity attribute).
    case reference
}

/// What a copy does with one attribute (a field that holds no object).
public enum AttributeAction: Sendable, Equatable {
    /// Copy the value.
    case copy
    /// Leave the field out, so it reads as its default.
    case omit
    /// Give the copy a fresh value from a generator.
    case regenerate(IdentityGenerator)
    /// Give the copy this constant.
    case set(PFValue)

    /// The action's name in rules files and reports: `copy`, `omit`, `regenerate`, `set`.
    public var name: String {
        switch self {
        case .copy: "copy"
        case .omit: "omit"
        case .regenerate: "regenerate"
        case .set: "set"
        }
    }
}

/// Fresh values for ``AttributeAction/regenerate(_:)``.
public enum IdentityGenerator: String, Sendable, CaseIterable, Codable {
    /// A 10-character Parse object id (letters and digits), unique within the copy.
    case objectId
    /// A UUID string.
    case uuid
    /// The time of the copy.
    case now
}

/// Who owns the target of a relationship; decides the edge's default action through the
/// profile's ``CopyProfile/ownershipActions``.
public enum Ownership: String, Sendable, CaseIterable, Codable {
    /// The owner owns the target (Core Data's cascade): copied with it by default.
    case owns
    /// The owner only refers to the target (nullify): shared by default.
    case refers
    /// A back-pointer to an owner (an inverse, a weak reference): conditional by default.
    case back
}

/// What happens to a copy edge that would go deeper than ``CopyProfile/maxDepth``.
public enum DepthOverflow: String, Sendable, CaseIterable, Codable {
    /// Cut it: a to-one becomes `nil`, a to-many collection becomes empty; the report lists it.
    case truncate
    /// Fail with ``PFCore/PFError`` `limitExceeded`.
    case error
}
