/// A serializer that holds a whole value tree: the four formats every `PFValue` can be
/// written in and read back from, and so the containers a keyed archive's object table can
/// be stored in (`KeyedArchiveContainer` is this type).
public enum TreeFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    /// A binary property list, `bplist00` (NSKeyedArchiver's default container).
    case bplist
    /// An XML property list, with UIDs as `CF$UID` dictionaries.
    case xmlplist
    /// JSON, with UIDs as `{"CF$UID": N}`.
    case json
    /// CBOR, with UIDs tagged.
    case cbor

    public var description: String { rawValue }
}
