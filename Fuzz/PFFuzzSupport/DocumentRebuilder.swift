import OrderedCollections
import PFCore

/// Puts the events of a large-document walk (``PFCore/PFDocumentEvent``) back together into
/// the value they describe, so a fuzz target can hold the walk to the whole read: a repeated
/// key keeps its first place and its last value, as the readers do.
public struct DocumentRebuilder {
    /// The value once the root has closed (or the one value of a walk without containers).
    public private(set) var root: PFValue?
    private var open: [(isObject: Bool, elements: [PFValue], members: OrderedDictionary<String, PFValue>, key: String?)] = []

    public init() {}

    /// Takes the next event of the walk.
    public mutating func take(_ event: PFDocumentEvent) {
        switch event {
        case .open(let isObject, _): open.append((isObject, [], [:], nil))
        case .key(let key): open[open.count - 1].key = key
        case .value(let value): add(value)
        case .close:
            let done = open.removeLast()
            add(done.isObject ? .dictionary(done.members) : .array(done.elements))
        }
    }

    private mutating func add(_ value: PFValue) {
        guard !open.isEmpty else { return root = value }
        if open[open.count - 1].isObject {
            open[open.count - 1].members[open[open.count - 1].key ?? ""] = value
        } else {
            open[open.count - 1].elements.append(value)
        }
    }
}

extension FuzzDriver {
    /// Traps unless a walk agrees with the whole read of the same input: the rebuilt value is
    /// the value read, or both fail with the same error code.
    /// - Parameters:
    ///   - whole: the whole read's result.
    ///   - walked: the walk's result (only called when the walk did not decline).
    ///   - rebuilt: the value its events put back together.
    ///   - name: the walk, for the message.
    public static func checkWalk(whole: Result<PFValue, PFError>, walked: Result<Void, PFError>, rebuilt: PFValue?, _ name: String) {
        switch (whole, walked) {
        case (.success(let value), .success):
            if rebuilt != value { fatalError("the \(name) rebuilds \(String(describing: rebuilt)), the reader read \(value)") }
        case (.failure(let error), .failure(let walkError)):
            if error.code != walkError.code { fatalError("the \(name) fails with \(walkError), the reader with \(error)") }
        case (.failure(let error), .success):
            fatalError("the \(name) accepts what the reader refuses: \(error)")
        case (.success, .failure(let walkError)):
            fatalError("the \(name) refuses what the reader reads: \(walkError)")
        }
    }
}

extension FuzzDriver {
    /// Runs a walk with a tiny threshold and holds it to the whole read: its events, put back
    /// together, are the value read, and an input the whole read refuses fails the check before
    /// any event (or the walk declines it).
    /// - Parameters:
    ///   - name: the walk, for the messages.
    ///   - sameMessage: whether the walk's error must be the whole read's word for word.
    ///   - read: the whole read.
    ///   - walk: the walk, handing its events to the closure it is given; `false` when it declined.
    public static func checkWalk(
        _ name: String, sameMessage: Bool = false, read: () throws(PFError) -> PFValue,
        walk: ((PFDocumentEvent) throws(PFError) -> Void) throws(PFError) -> Bool
    ) {
        let whole = Result { () throws(PFError) -> PFValue in try read() }
        var rebuilder = DocumentRebuilder()
        var declined = false
        let walked = Result { () throws(PFError) in
            declined = try !walk { event throws(PFError) in rebuilder.take(event) }
        }
        if declined { return }
        if case .failure = whole, rebuilder.root != nil { fatalError("the \(name) handed out events for an input the reader refuses") }
        if sameMessage, case .failure(let error) = whole, case .failure(let walkError) = walked, error.description != walkError.description {
            fatalError("the \(name) fails with \(walkError), the reader with \(error)")
        }
        checkWalk(whole: whole, walked: walked, rebuilt: rebuilder.root, name)
    }
}
