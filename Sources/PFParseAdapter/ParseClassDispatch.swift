import PFCore
import PFParse

/// Picks the model type for an object — Mantle's `classForParsingJSONDictionary:` — by its
/// class name or by the value of a field.
///
/// ```swift
/// let dispatch = ParseClassDispatch([Player.self, Team.self])
/// let model = try dispatch.decode(object, with: adapter)   // any ParseModel
/// if let player = model as? Player { … }
/// ```
public struct ParseClassDispatch: Sendable {
    /// How the type is chosen.
    public enum Rule: Sendable {
        /// By the object's class name (each type's ``ParseModel/parseClassName``).
        case className
        /// By a string field's value, e.g. `kind` = `"video"` → `VideoPost.self`.
        case field(String, [String: any ParseModel.Type])
    }

    /// The types chosen by class name.
    public let types: [any ParseModel.Type]
    /// The rule.
    public let rule: Rule

    /// Makes a dispatcher.
    /// - Parameters:
    ///   - types: the model types (for ``Rule/className``).
    ///   - rule: the rule.
    public init(_ types: [any ParseModel.Type], rule: Rule = .className) {
        self.types = types
        self.rule = rule
    }

    /// The model type for an object.
    /// - Parameter object: the object.
    /// - Returns: the type.
    /// - Throws: ``PFCore/PFError`` with Parse code 103 when no type matches the class, or 111
    ///   when the dispatch field is missing or has no type.
    public func modelType(for object: ParseObject) throws(PFError) -> any ParseModel.Type {
        switch rule {
        case .className:
            var known: [String] = []
            for type in types {
                let name = type.parseClassName
                if name == object.className { return type }
                known.append(name)
            }
            throw PFError(
                parse: ParseAdapterFailure.noModelForClass(object.className, known: known),
                context: object.context)
        case .field(let key, let map):
            guard case .string(let tag)? = try object.value(forKey: key) else {
                throw PFError(parse: ParseAdapterFailure.dispatchFieldMissing(key),
                              path: PFCodingPath.root.appending(key: key), context: object.context)
            }
            guard let type = map[tag] else {
                throw PFError(
                    parse: ParseAdapterFailure.noModelForTag(field: key, tag: tag, known: map.keys.sorted()),
                    path: PFCodingPath.root.appending(key: key), context: object.context)
            }
            return type
        }
    }

    /// Decodes an object as the model type it dispatches to.
    /// - Parameters:
    ///   - object: the object.
    ///   - adapter: the adapter.
    /// - Returns: the model.
    /// - Throws: ``PFCore/PFError`` from ``modelType(for:)`` or decoding.
    public func decode(_ object: ParseObject, with adapter: ParseAdapter) throws(PFError) -> any ParseModel {
        let type = try modelType(for: object)
        func open<M: ParseModel>(_ t: M.Type) throws(PFError) -> any ParseModel {
            try adapter.decode(M.self, fromREST: object.typedValue)
        }
        return try open(type)
    }
}
