import PFCore
import PFParse

/// A Relation field of a model: Parse's `{"__type":"Relation","className":…}` value, the
/// handle to the objects of the target class related to this one. The pairs themselves are
/// not in the object: they live in the `_Join:<field>:<class>` rows of the store.
///
/// `Target` names the related class in the type: a ``ParseModel`` (whose
/// ``ParseModel/parseClassName`` the Relation must name, or decoding fails), or any other
/// type (`ParseObject`) for a Relation whose target has no model.
///
/// ```swift
/// struct Book: ParseModel {
///     var pages: ParseRelation<Page>?     // {"__type":"Relation","className":"Page"}
///     static let parseClassName = "Book"
/// }
/// ```
public struct ParseRelation<Target>: Codable, Hashable, Sendable {
    /// The related class, as the Relation value names it.
    public var targetClassName: String

    /// Makes a Relation to a class by name.
    /// - Parameter targetClassName: the related class.
    public init(targetClassName: String) {
        self.targetClassName = targetClassName
    }

    /// The class name `Target` requires, when it is a model.
    static var modelClassName: String? { (Target.self as? any ParseModel.Type)?.parseClassName }

    enum CodingKeys: String, CodingKey {
        case type = "__type"
        case className
    }

    /// Decodes a Relation value; with the model adapter, a REST `{"__type":"Relation"}`
    /// object or a typed Relation.
    /// - Throws: a mismatch for any other value, or a Relation to another class than `Target`'s.
    public init(from decoder: any Decoder) throws {
        let name: String
        if let impl = decoder as? ParseDecoderImpl {
            guard case .relation(let target) = try impl.value.parseValue(path: impl.path, context: impl.context) else {
                throw impl.mismatch("a Relation", impl.value, impl.path)
            }
            name = target
        } else {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            guard try container.decode(String.self, forKey: .type) == "Relation" else {
                throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "expected a Relation")
            }
            name = try container.decode(String.self, forKey: .className)
        }
        if let required = Self.modelClassName, required != name {
            let failure = ParseAdapterFailure.typeMismatch(expected: "a Relation to \(required)", found: "a Relation to \(name)")
            // pfarchive's decoder reports Parse errors; any other decoder, Codable's own.
            guard let impl = decoder as? ParseDecoderImpl else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: failure.message))
            }
            throw PFError(parse: failure, path: impl.path, context: impl.context)
        }
        targetClassName = name
    }

    /// Encodes the REST Relation value, `{"__type":"Relation","className":…}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("Relation", forKey: .type)
        try container.encode(targetClassName, forKey: .className)
    }
}

extension ParseRelation where Target: ParseModel {
    /// A Relation to the model's class.
    public init() {
        targetClassName = Target.parseClassName
    }
}
