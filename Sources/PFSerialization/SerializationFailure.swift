import PFCore

/// Every failure PFSerialization reports itself (the formats below it report their own), with
/// its class and message in one place.
///
/// Errors made from a case carry it in ``PFCore/PFError/failure``; match it with
/// `error.failure(as: SerializationFailure.self)`.
public enum SerializationFailure: PFFailure, Hashable {
    /// A file could not be read: `reason` is the system's (or says it is a directory).
    case cannotRead(path: String, reason: String)

    public var code: PFError.Code {
        switch self {
        case .cannotRead: .io
        }
    }

    public var message: String {
        switch self {
        case .cannotRead(let path, let reason): "cannot read \(path): \(reason)"
        }
    }
}
