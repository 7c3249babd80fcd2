import Foundation
import PFCBOR
import PFCompression
import PFCore
import PFJSON
import PFPropertyList

/// The container a keyed archive's object table is stored in.
public enum KeyedArchiveContainer: String, Sendable, CaseIterable {
    /// A binary property list, as NSKeyedArchiver writes by default.
    case bplist
    /// An XML property list, with UIDs as `CF$UID` dictionaries.
    case xmlplist
    /// JSON, with UIDs as `{"CF$UID": N}`.
    case json
    /// CBOR, with UIDs tagged.
    case cbor
}

/// Reading and writing whole keyed archives: container bytes ⇄ object table ⇄ graph.
public enum KeyedArchive {
    /// Reads the object table of a keyed archive from any container, compressed or not.
    /// - Parameters:
    ///   - bytes: the archive: a bplist, XML plist, JSON or CBOR, optionally gzip or zlib.
    ///   - limits: budgets for the container and the table.
    ///   - decompress: whether to undo one layer of gzip or zlib first (pass `false` when the
    ///     caller already did, so a compressed payload is never inflated twice).
    /// - Returns: the validated table and the container it was found in.
    /// - Throws: ``PFError`` from the container's reader, or `invalidValue` from
    ///   ``KeyedObjectTable/init(plist:)``.
    public static func readTable(_ bytes: Data, limits: PFLimits = .default, decompress: Bool = true) throws(PFError)
        -> (table: KeyedObjectTable, container: KeyedArchiveContainer)
    {
        let plain = decompress ? try Compression.decompressIfCompressed(bytes, limits: limits).data : bytes
        let container = detectContainer(plain)
        let plist: PFValue
        switch container {
        case .bplist: plist = try BinaryPlistReader(options: .init(limits: limits)).read(plain)
        case .xmlplist: plist = try XMLPlistReader(options: .init(limits: limits)).read(plain)
        case .json: plist = try JSONReader(options: .init(limits: limits)).read(plain)
        case .cbor: plist = try CBORReader(options: .init(limits: limits)).read(plain)
        }
        return (try KeyedObjectTable(plist: plist), container)
    }

    /// Decodes a keyed archive into a generic ``KeyedGraph``; nothing is instantiated.
    /// - Parameters:
    ///   - bytes: the archive in any container.
    ///   - options: limits and allowed classes.
    /// - Throws: ``PFError`` from reading or decoding.
    public static func decodeGraph(_ bytes: Data, options: KeyedGraph.DecodingOptions = .init()) throws(PFError)
        -> KeyedGraph
    {
        try KeyedGraph(table: readTable(bytes, limits: options.limits).table, options: options)
    }

    /// Writes an object table in a container.
    /// - Parameters:
    ///   - table: the table.
    ///   - container: bplist (the default, as Foundation), XML plist, JSON or CBOR.
    /// - Throws: ``PFError`` from the container's writer.
    public static func write(_ table: KeyedObjectTable, container: KeyedArchiveContainer = .bplist) throws(PFError) -> Data {
        switch container {
        case .bplist: try BinaryPlistWriter().write(table.plist)
        case .xmlplist: try XMLPlistWriter().write(table.plist)
        case .json: try JSONWriter().write(table.plist)
        case .cbor: try CBORWriter().write(table.plist)
        }
    }

    /// Archives a graph in a container.
    /// - Throws: ``PFError`` from table building or the container's writer.
    public static func archive(_ graph: KeyedGraph, container: KeyedArchiveContainer = .bplist, limits: PFLimits = .default)
        throws(PFError) -> Data
    {
        try write(graph.objectTable(limits: limits), container: container)
    }

    /// Which container holds an (uncompressed) archive, by magic bytes; CBOR when nothing
    /// else fits.
    public static func detectContainer(_ bytes: Data) -> KeyedArchiveContainer {
        if BinaryPlistReader.hasMagic(bytes) { return .bplist }
        if XMLPlistReader.hasMagic(bytes) { return .xmlplist }
        let first = bytes.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        if first == UInt8(ascii: "{") { return .json }
        return .cbor
    }
}
