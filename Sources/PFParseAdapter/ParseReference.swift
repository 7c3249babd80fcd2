import PFCore
import PFParse

/// A property that may hold a full nested model or only a Pointer stub to one, so decoding a
/// Pointer to a model never fails or silently yields an empty model.
///
/// ```swift
/// struct Comment: ParseModel {
///     var author: ParseReference<Player>   // Pointer stub or included object
///     static let parseClassName = "Comment"
/// }
/// ```
public enum ParseReference<Model: ParseModel>: Codable {
    /// Only the class and id are known.
    case pointer(ParsePointer)
    /// The full object.
    case object(Model)

    /// The pointer, when the object has an id.
    public var pointer: ParsePointer? {
        switch self {
        case .pointer(let p): p
        case .object(let m): ParseAdapter().pointer(to: m)
        }
    }

    /// The model, when it was included.
    public var model: Model? {
        if case .object(let m) = self { return m }
        return nil
    }

    /// Decodes a Pointer as ``pointer(_:)`` and anything else as ``object(_:)``.
    public init(from decoder: any Decoder) throws {
        if let impl = decoder as? ParseDecoderImpl {
            if impl.value.memberString("__type") == "Pointer" {
                self = .pointer(try impl.unwrap(ParsePointer.self, from: impl.value, at: impl.path, transformer: nil))
            } else {
                self = .object(try impl.unwrap(Model.self, from: impl.value, at: impl.path, transformer: nil))
            }
            return
        }
        let container = try decoder.singleValueContainer()
        if let p = try? container.decode(ParsePointer.self) {
            self = .pointer(p)
        } else {
            self = .object(try container.decode(Model.self))
        }
    }

    /// Encodes a Pointer, or the model as an embedded object.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .pointer(let p): try container.encode(p)
        case .object(let m): try container.encode(m)
        }
    }
}

/// A reference can cross threads when its model can.
extension ParseReference: Sendable where Model: Sendable {}

extension ParseAdapter {
    /// The pointer to a model, when it has an `objectId`.
    /// - Parameter model: the model.
    /// - Returns: the pointer, or `nil` for an unsaved model.
    public func pointer<M: ParseModel>(to model: M) -> ParsePointer? {
        guard let rest = try? restValue(of: model), case .string(let id)? = rest["objectId"] else { return nil }
        return ParsePointer(className: M.parseClassName, objectId: id)
    }
}
