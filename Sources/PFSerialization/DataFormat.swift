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
    /// JSON Lines (`.jsonl`, `.ndjson`): one JSON value per line, read and written a record
    /// at a time.
    case jsonl
    /// A CBOR sequence (RFC 8742, `.cborseq`): CBOR data items one after another, read and
    /// written a record at a time.
    case cborseq

    public var description: String { rawValue }

    /// Whether the format is a sequence of records that can be read and written one record at
    /// a time (JSON Lines, CBOR sequences); a document of such a format is, as a value tree,
    /// the array of its records.
    public var isRecordSequence: Bool { self == .jsonl || self == .cborseq }

    /// The formats that `convert` reads and writes as value trees today.
    public static let treeFormats: [DataFormat] = [.json, .bplist, .xmlplist, .cbor]

    /// The format of a tree serializer.
    /// - Parameter tree: a serializer that holds a whole value tree.
    public init(_ tree: TreeFormat) {
        switch tree {
        case .json: self = .json
        case .bplist: self = .bplist
        case .xmlplist: self = .xmlplist
        case .cbor: self = .cbor
        }
    }

    /// The tree serializer this format is, or `nil` for the formats read above the value
    /// trees (keyed archives, typedstreams, Parse REST JSON).
    public var treeFormat: TreeFormat? {
        switch self {
        case .json: .json
        case .bplist: .bplist
        case .xmlplist: .xmlplist
        case .cbor: .cbor
        case .keyed, .typedstream, .parse, .jsonl, .cborseq: nil
        }
    }

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
        case .jsonl: "JSON Lines"
        case .cborseq: "CBOR sequence"
        }
    }
}
