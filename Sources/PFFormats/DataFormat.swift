import PFCore

/// The data formats pfarchive converts between, named as on the command line.
public enum DataFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    /// JSON text (RFC 8259), read through json-c.
    case json
    /// Apple binary property list, `bplist00`.
    case bplist
    /// Apple XML property list.
    case xmlplist
    /// CBOR (RFC 8949).
    case cbor
    /// An NSKeyedArchiver object table inside a container format.
    case keyed
    /// A NeXT/Apple typedstream (NSArchiver) archive.
    case typedstream
    /// Parse REST JSON: one object, an array, or `{"results":[…]}`.
    case parse

    public var description: String { rawValue }

    /// The formats that `convert` reads and writes as value trees today.
    public static let treeFormats: [DataFormat] = [.json, .bplist, .xmlplist, .cbor]

    /// A human name for messages, such as "binary property list".
    public var displayName: String {
        switch self {
        case .json: "JSON"
        case .bplist: "binary property list"
        case .xmlplist: "XML property list"
        case .cbor: "CBOR"
        case .keyed: "keyed archive"
        case .typedstream: "typedstream archive"
        case .parse: "Parse REST JSON"
        }
    }
}
