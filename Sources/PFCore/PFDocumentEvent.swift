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
