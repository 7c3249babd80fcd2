import PFCore
import PFParse

/// A plain `Codable` struct that maps to a Parse class through ``ParseAdapter``.
///
/// Only ``parseClassName`` is required; everything else has a default:
///
/// ```swift
/// struct Player: ParseModel {
///     var objectId: String?
///     var createdAt: Date?
///     var name: String
///     var city: String?
///     var rank: Rank = .bronze
///
///     static let parseClassName = "Player"
///     static var parseKeyMap: ParseKeyMap {
///         ParseKeyMap(["name": "player_name", "city": "location.city"])
///     }
///     static var parseDefaults: [String: PFValue] { ["rank": "bronze"] }
/// }
/// ```
///
/// Properties named `objectId`, `createdAt`, `updatedAt` and `acl`/`ACL` map to Parse's
/// default columns unless the key map says otherwise.
///
/// Its metatype is `SendableMetatype`, so registries and dispatch tables of these types are
/// `Sendable` without an unchecked promise; a conformance cannot be isolated to an actor.
public protocol ParseModel: Codable, SendableMetatype {
    /// The Parse class the type maps to, such as `GameScore` or `_User`.
    static var parseClassName: String { get }
    /// How properties map to keys. Default: ``ParseKeyMap/identity``.
    static var parseKeyMap: ParseKeyMap { get }
    /// Value transformers by property and by type. Default: none.
    static var parseTransformers: ParseTransformers { get }
    /// Model-form values used when a property's key is missing (or `null`), by property name.
    /// Default: none.
    static var parseDefaults: [String: PFValue] { get }
    /// Validators by property name, run on each decoded object. Default: none.
    static var parseValidators: [String: [ParsePropertyValidator]] { get }
    /// A model-level validation hook, run after decoding; report failures with
    /// ``ParseValidationReport/fail(_:_:)``. Default: nothing.
    /// - Parameter report: where to record failures.
    func validateParse(_ report: inout ParseValidationReport)
}

extension ParseModel {
    /// The identity key map (with the adapter's global key strategy).
    public static var parseKeyMap: ParseKeyMap { .identity }
    /// No transformers.
    public static var parseTransformers: ParseTransformers { ParseTransformers() }
    /// No defaults.
    public static var parseDefaults: [String: PFValue] { [:] }
    /// No validators.
    public static var parseValidators: [String: [ParsePropertyValidator]] { [:] }
    /// Accepts every decoded model.
    public func validateParse(_ report: inout ParseValidationReport) {}
}
