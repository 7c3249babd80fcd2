/// What a walk of a large document meets, in document order: the large containers open and
/// close around pieces read whole (`JSONLargeDocument` and the binary property list walk hand
/// these out; a streamed writer turns them into output without the document's tree).
public enum PFDocumentEvent {
    /// A large container opens: a dictionary (`isObject`) of `count` distinct keys, or an
    /// array of `count` elements.
    case open(isObject: Bool, count: Int)
    /// The key of the next member of the innermost large dictionary.
    case key(String)
    /// A value read whole: the next element or member value of the innermost large container.
    case value(PFValue)
    /// The innermost large container closes.
    case close
}

/// Hands a walk's events to its visitor, keeping the key path of the current place so that
/// a visitor's error names it (the walks of a binary property list and of a CBOR document
/// share it).
public struct PFDocumentEmitter {
    private let visit: (PFDocumentEvent) throws(PFError) -> Void
    /// The key path of the current place.
    private var path: [PFKeyPath.Component] = []

    /// The expanded size, in nodes, above which the walks that count nodes (a binary property
    /// list's, a CBOR document's) walk a container member by member rather than reading it
    /// whole: a piece of this many nodes is a few megabytes as a tree.
    public static let largeNodes = 1 << 16

    /// Makes an emitter.
    /// - Parameter visit: receives the events.
    public init(_ visit: @escaping (PFDocumentEvent) throws(PFError) -> Void) {
        self.visit = visit
    }

    /// Hands `event` to the visitor.
    /// - Parameter event: what the walk met at the current place.
    /// - Throws: what the visitor throws, with the current key path prefixed.
    public func emit(_ event: PFDocumentEvent) throws(PFError) {
        do throws(PFError) {
            try visit(event)
        } catch {
            throw error.prefixed(by: PFKeyPath(path))
        }
    }

    /// Enters a member of the current container.
    /// - Parameter component: the member's index or key.
    public mutating func enter(_ component: PFKeyPath.Component) {
        path.append(component)
    }

    /// Leaves the member last entered.
    public mutating func leave() {
        path.removeLast()
    }

    /// Runs a walk whose events go to a visitor that need not escape.
    /// - Parameters:
    ///   - visit: receives the events.
    ///   - body: the walk, given its emitter.
    /// - Throws: what `body` throws.
    public static func run(
        _ visit: (PFDocumentEvent) throws(PFError) -> Void, _ body: (PFDocumentEmitter) throws(PFError) -> Void
    ) throws(PFError) {
        let result: Result<Void, PFError> = withoutActuallyEscaping(visit) { visit in
            Result { () throws(PFError) in
                try body(PFDocumentEmitter(visit))
            }
        }
        try result.get()
    }
}
