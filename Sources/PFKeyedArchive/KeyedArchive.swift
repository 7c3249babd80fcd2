import Foundation
import PFCore
import PFSerialization

/// The container a keyed archive's object table is stored in: one of the four serializers
/// that hold a whole value tree (bplist, as NSKeyedArchiver writes by default; XML plist, with
/// UIDs as `CF$UID` dictionaries; JSON, with UIDs as `{"CF$UID": N}`; CBOR, with UIDs tagged).
public typealias KeyedArchiveContainer = TreeFormat

/// Reading and writing whole keyed archives: container bytes ⇄ object table ⇄ graph.
public enum KeyedArchive {
    /// Reads the object table of a keyed archive from any container, compressed or not.
    /// - Parameters:
    ///   - bytes: the archive: a bplist, XML plist, JSON or CBOR, optionally gzip or zlib.
    ///   - limits: budgets for the container and the table.
    ///   - decompress: whether to undo one layer of gzip or zlib first, as
    ///     ``PFSerialization/Serialization/open(_:limits:decompress:inflated:read:)`` does (pass `false`
    ///     when the caller already did, so a compressed payload is never inflated twice).
    /// - Returns: the validated table and the container it was found in.
    /// - Throws: ``PFError`` from the container's reader, or `invalidValue` from
    ///   ``KeyedObjectTable/init(plist:)``.
    public static func readTable(_ bytes: Data, limits: PFLimits = .default, decompress: Bool = true) throws(PFError)
        -> (table: KeyedObjectTable, container: KeyedArchiveContainer)
    {
        // The container is found by FormatDetector, and compression (with zlib's look-alikes)
        // undone by Serialization, as for every other reader.
        try Serialization.open(bytes, limits: limits, decompress: decompress) { (plain, _) throws(PFError) in
            // A typedstream has no tree to hold an object table (read as CBOR, it would fail
            // with "trailing bytes"): say what it is.
            if FormatDetector.detect(plain) == .typedstream {
                throw PFError(KeyedArchiveFailure.typedstreamNotKeyed, format: .keyedArchive)
            }
            // Bytes of no detected format cannot hold an archive's dictionary in any container
            // (a CBOR map is detected): say what they are rather than fail as CBOR would.
            guard let container = FormatDetector.detect(plain)?.treeFormat else {
                throw PFError(KeyedArchiveFailure.noContainer(found: FormatDetector.undetectedKind(plain)?.description), format: .keyedArchive, offset: 0)
            }
            let plist = try Serialization.readTree(plain, as: container, options: .init(limits: limits))
            return (try KeyedObjectTable(plist: plist), container)
        }.value
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
    public static func write(_ table: consuming KeyedObjectTable, container: KeyedArchiveContainer = .bplist) throws(PFError) -> Data {
        // The plist shares the table's storage; releasing the table leaves the writer the
        // only owner of it.
        let plist = table.plist
        _ = consume table
        return try Serialization.writeTree(consume plist, as: container)
    }

    /// Archives a graph in a container.
    /// - Throws: ``PFError`` from table building or the container's writer.
    public static func archive(_ graph: consuming KeyedGraph, container: KeyedArchiveContainer = .bplist, limits: PFLimits = .default)
        throws(PFError) -> Data
    {
        // The graph is released once its table is built, before the container is written.
        let table = try graph.objectTable(limits: limits)
        _ = consume graph
        return try write(table, container: container)
    }
}
