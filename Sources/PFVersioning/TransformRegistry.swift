import Foundation
import OrderedCollections
import PFCore

/// Custom migration code, registered by name so a schema file can refer to it
/// (`{"op": "transform", "field": "rating", "using": "starsToRating"}`).
///
/// ```swift
/// var transforms = TransformRegistry.standard
/// transforms.register(field: "starsToRating") { value, context in
///     guard let stars = value.int64Value else { throw context.failure("expected a number of stars") }
///     return stars >= 4 ? "love" : stars == 3 ? "meh" : "hate"
/// }
/// ```
public struct TransformRegistry: Sendable {
    /// Where a transform runs, for its error messages.
    public struct Context: Sendable {
        /// The type being migrated.
        public var typeName: String
        /// The version the step upgrades from.
        public var fromVersion: Int
        /// The field, for field transforms.
        public var field: String?
        /// The object's path in the tree.
        public var path: PFKeyPath

        /// An error naming the transform's place: type, versions, field and path.
        /// - Parameter message: what was wrong and what was expected.
        public func failure(_ message: String) -> PFError {
            let what = field.map { "\(typeName).\($0)" } ?? typeName
            return PFError(VersioningFailure.transform(what: what, fromVersion: fromVersion, message: message), format: .migration, path: path)
        }
    }

    /// A transform of one field's value.
    public typealias FieldTransform = @Sendable (PFValue, Context) throws -> PFValue
    /// A transform of a whole object's fields (metadata keys such as `$class` included).
    public typealias ObjectTransform = @Sendable (OrderedDictionary<String, PFValue>, Context) throws
        -> OrderedDictionary<String, PFValue>

    private(set) var fieldTransforms: [String: FieldTransform] = [:]
    private(set) var objectTransforms: [String: ObjectTransform] = [:]

    /// An empty registry.
    public init() {}

    /// The built-in field transforms: `lowercase`, `uppercase`, `trim` (strings) and
    /// `toString` (numbers and booleans to their text).
    public static let standard: TransformRegistry = {
        var registry = TransformRegistry()
        registry.register(field: "lowercase") { value, context in
            guard let s = value.stringValue else { throw context.failure("lowercase expects a string, found \(value.kind.rawValue)") }
            return .string(s.lowercased())
        }
        registry.register(field: "uppercase") { value, context in
            guard let s = value.stringValue else { throw context.failure("uppercase expects a string, found \(value.kind.rawValue)") }
            return .string(s.uppercased())
        }
        registry.register(field: "trim") { value, context in
            guard let s = value.stringValue else { throw context.failure("trim expects a string, found \(value.kind.rawValue)") }
            return .string(s.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        registry.register(field: "toString") { value, context in
            switch value {
            case .int(let i): return .string(String(i))
            case .uint(let u): return .string(String(u))
            case .double(let d): return .string(String(d))
            case .bool(let b): return .string(b ? "true" : "false")
            case .string: return value
            default: throw context.failure("toString expects a number or boolean, found \(value.kind.rawValue)")
            }
        }
        return registry
    }()

    /// Registers (or replaces) a field transform.
    public mutating func register(field name: String, _ transform: @escaping FieldTransform) {
        fieldTransforms[name] = transform
    }

    /// Registers (or replaces) an object transform.
    public mutating func register(object name: String, _ transform: @escaping ObjectTransform) {
        objectTransforms[name] = transform
    }

    /// The names of every registered field transform, sorted.
    public var fieldTransformNames: [String] { fieldTransforms.keys.sorted() }
    /// The names of every registered object transform, sorted.
    public var objectTransformNames: [String] { objectTransforms.keys.sorted() }
}
