/// The `CodingKey` every pfarchive coder and Codable bridge uses for the coding paths it
/// reports: a dictionary key, or an array index spelled `Index N` as swift-foundation's
/// coders spell it.
public struct PFCodingKey: CodingKey, Sendable, Hashable {
    public var stringValue: String
    public var intValue: Int?

    /// A key for a dictionary member.
    public init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    /// A key for an array element.
    public init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }

    /// The key for one step of a ``PFKeyPath``.
    public init(_ component: PFKeyPath.Component) {
        switch component {
        case .key(let k): self.init(stringValue: k)
        case .index(let i): self.init(intValue: i)
        }
    }
}

extension PFKeyPath {
    /// The path as `CodingKey`s, for a coder's `codingPath` and for `DecodingError` and
    /// `EncodingError` contexts.
    public var codingKeys: [any CodingKey] { components.map { PFCodingKey($0) } }

    /// The path a coding path names: a key with an `intValue` is an index.
    /// - Parameter codingPath: a coder's or an error context's coding path.
    public init(codingPath: [any CodingKey]) {
        self.init(codingPath.map { key in key.intValue.map { .index($0) } ?? .key(key.stringValue) })
    }
}

extension PFCodingPath {
    /// The path as `CodingKey`s, for a coder's `codingPath`.
    public var codingKeys: [any CodingKey] { keyPath.codingKeys }
}

// MARK: - The Codable bridges' error policy

extension PFError {
    /// This error as a `DecodingError.dataCorrupted` at `codingPath`, carrying the error as its
    /// `underlyingError` (as swift-foundation's JSON decoder wraps its parser's errors).
    /// - Parameter codingPath: the coding path; the error's own ``path`` when `nil`.
    public func decodingError(codingPath: [any CodingKey]? = nil) -> DecodingError {
        .dataCorrupted(context(codingPath))
    }

    /// This error as a `DecodingError.typeMismatch` for `type`, carrying it as the underlying error.
    public func typeMismatch(_ type: Any.Type, codingPath: [any CodingKey]? = nil) -> DecodingError {
        .typeMismatch(type, context(codingPath))
    }

    /// This error as an `EncodingError.invalidValue` for `value`, carrying it as the
    /// underlying error.
    public func encodingError(_ value: Any, codingPath: [any CodingKey]? = nil) -> EncodingError {
        .invalidValue(value, EncodingError.Context(
            codingPath: codingPath ?? (path ?? .root).codingKeys, debugDescription: description, underlyingError: self))
    }

    private func context(_ codingPath: [any CodingKey]?) -> DecodingError.Context {
        DecodingError.Context(
            codingPath: codingPath ?? (path ?? .root).codingKeys, debugDescription: description, underlyingError: self)
    }

    /// The ``PFError`` an error stands for: the error itself, or the one a Codable bridge
    /// carried as a `DecodingError`'s or `EncodingError`'s underlying error; `nil` for
    /// any other error.
    /// - Parameter error: an error a reader, writer or Codable bridge threw.
    public init?(unwrapping error: any Error) {
        if let error = error as? PFError { self = error; return }
        let underlying: (any Error)?
        switch error {
        case let d as DecodingError:
            switch d {
            case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c):
                underlying = c.underlyingError
            @unknown default: underlying = nil
            }
        case let e as EncodingError:
            switch e {
            case .invalidValue(_, let c): underlying = c.underlyingError
            @unknown default: underlying = nil
            }
        default: underlying = nil
        }
        guard let pf = underlying as? PFError else { return nil }
        self = pf
    }
}
