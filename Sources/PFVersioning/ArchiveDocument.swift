import Foundation
import PFCompression
import PFCore
import PFKeyedArchive
import PFSerialization
import PFTypedStream

/// An archive or document read into the tree shape migrations work on, remembering how it
/// was stored so it can be written back the same way.
public struct ArchiveDocument: Sendable {
    /// How a document is stored.
    public enum Kind: Sendable, Equatable, CustomStringConvertible {
        /// An NSKeyedArchiver object table in a container.
        case keyed(KeyedArchiveContainer)
        /// A NeXT/Apple typedstream (classic archive).
        case typedstream
        /// A JSON document (the decoded-graph shape, or a plain Codable tree).
        case json

        public var description: String {
            switch self {
            case .keyed(let container): "keyed archive (\(container.rawValue))"
            case .typedstream: "typedstream"
            case .json: "JSON"
            }
        }
    }

    /// How the document was stored.
    public var kind: Kind
    /// The compression that wrapped it, if any.
    public var compression: CompressionFormat?
    /// For JSON: whether it was indented (so a rewrite keeps the style).
    public var prettyJSON: Bool
    /// The tree: the keyed graph's JSON shape, a typedstream's decoded value, or the JSON.
    public var tree: PFValue

    /// Makes a document.
    public init(kind: Kind, tree: PFValue, compression: CompressionFormat? = nil, prettyJSON: Bool = false) {
        self.kind = kind
        self.tree = tree
        self.compression = compression
        self.prettyJSON = prettyJSON
    }

    /// Reads a keyed archive (any container), a typedstream or a JSON document, compressed
    /// or not (opened by ``PFSerialization/Serialization/open(_:limits:decompress:inflated:read:)``,
    /// so zlib's look-alikes read as what they are). Nothing is instantiated.
    /// - Parameters:
    ///   - data: the bytes.
    ///   - limits: budgets for untrusted input.
    /// - Returns: the document.
    /// - Throws: ``PFCore/PFError`` from the decompressor or the format's reader.
    public static func read(_ data: Data, limits: PFLimits = .default) throws(PFError) -> ArchiveDocument {
        try Serialization.open(data, limits: limits) { (plain, compression) throws(PFError) in
            try document(plain, compression: compression, limits: limits)
        }.value
    }

    /// Reads plain (decompressed) bytes, telling the kinds apart with ``PFSerialization/FormatDetector``:
    /// a typedstream by its header; JSON (a keyed archive's object table or any other
    /// document); anything else is a keyed archive in the container the detector picks.
    static func document(_ plain: Data, compression: CompressionFormat?, limits: PFLimits) throws(PFError) -> ArchiveDocument {
        switch FormatDetector.detect(plain) {
        case .typedstream:
            return ArchiveDocument(kind: .typedstream, tree: try TypedStream.decodeValue(plain, limits: limits), compression: compression)
        case .json:
            let tree = try Serialization.readTree(plain, as: .json, options: .init(typedJSON: true, limits: limits))
            if KeyedObjectTable.looksLikeArchive(tree) {
                let graph = try KeyedGraph(table: KeyedObjectTable(plist: tree), options: .init(limits: limits))
                return ArchiveDocument(kind: .keyed(.json), tree: try graph.jsonValue(limits: limits), compression: compression)
            }
            let pretty = plain.prefix(4096).contains(UInt8(ascii: "\n"))
            return ArchiveDocument(kind: .json, tree: tree, compression: compression, prettyJSON: pretty)
        default:
            let (table, container) = try KeyedArchive.readTable(plain, limits: limits, decompress: false)
            let graph = try KeyedGraph(table: table, options: .init(limits: limits))
            return ArchiveDocument(kind: .keyed(container), tree: try graph.jsonValue(limits: limits), compression: compression)
        }
    }

    /// Writes the document back in its own kind, container and compression.
    /// - Parameter limits: budgets for the writers.
    /// - Returns: the bytes.
    /// - Throws: ``PFCore/PFError`` from the graph builder or the format's writer.
    public func write(limits: PFLimits = .default) throws(PFError) -> Data {
        let bytes: Data
        switch kind {
        case .keyed(let container):
            bytes = try KeyedArchive.archive(KeyedGraph(json: tree, limits: limits), container: container, limits: limits)
        case .typedstream:
            bytes = try TypedStream.encodeValue(tree, limits: limits)
        case .json:
            var out = try Serialization.writeTree(tree, as: .json, options: .init(pretty: prettyJSON, typedJSON: true))
            if prettyJSON, out.last != UInt8(ascii: "\n") { out.append(UInt8(ascii: "\n")) }
            bytes = out
        }
        return try Serialization.compress(bytes, as: compression)
    }
}
