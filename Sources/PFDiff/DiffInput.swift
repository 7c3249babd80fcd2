import Foundation
import PFCore
import PFFormats
import PFKeyedArchive
import PFSerialization

/// One input of `pfarchive diff` read as a value tree.
public struct DiffInput: Sendable {
    /// The value compared.
    public var value: PFValue
    /// The format it was read as.
    public var format: DataFormat
    /// Whether it is an object graph (a keyed archive or typedstream, in the `$id`/`$ref` JSON shape).
    public var isGraph: Bool

    /// Reads bytes as `convert` does, except that a property list, JSON or CBOR document with
    /// the shape of a keyed archive (`$archiver`, `$objects`, `$top`) is decoded as a keyed
    /// archive: its object graph is compared, not its object table. One with the shape that
    /// does not decode as an archive (a damaged one, or a rendering such as plistlib's JSON
    /// with `$bytes_hex` data) is compared as the tree it is, as `convert` keeps it; a limit it
    /// passes while decoding still fails. A graph is given in its ``GraphCanonicalForm``, as is
    /// a document holding a graph's JSON shape (integer `$id`s that `$ref`s name), which then
    /// counts as a graph.
    /// - Parameters:
    ///   - bytes: the input.
    ///   - options: the reading options (an explicit ``PFFormats/FormatIO/ReadOptions/format`` is kept).
    /// - Throws: what the reader throws.
    public static func read(_ bytes: Data, options: FormatIO.ReadOptions = .init()) throws(PFError) -> DiffInput {
        var result = try FormatIO.read(bytes, options: options)
        if options.format == nil, [.bplist, .xmlplist, .json, .cbor].contains(result.format),
            KeyedObjectTable.looksLikeArchive(result.value)
        {
            var keyedOptions = options
            keyedOptions.format = .keyed
            do {
                result = try FormatIO.read(bytes, options: keyedOptions)
            } catch where error.code == .limitExceeded {
                throw error
            } catch {
                // Not an archive after all: the table is what `convert` writes, so compare it.
            }
        }
        // One spelling per graph, so two writers' orders are not differences in sharing. A
        // document that holds a graph's JSON shape (`convert x.archive x.json`: `$id`s and
        // `$ref`s) is that graph too.
        if [.keyed, .typedstream].contains(result.format) {
            let value = GraphCanonicalForm.canonical(result.value, maxDepth: options.limits.maxDepth)
            return DiffInput(value: value, format: result.format, isGraph: true)
        }
        if result.format != .parse {
            if let value = GraphCanonicalForm.canonicalIfGraph(result.value, maxDepth: options.limits.maxDepth, requireReferences: true) {
                return DiffInput(value: value, format: result.format, isGraph: true)
            }
        }
        return DiffInput(value: result.value, format: result.format, isGraph: false)
    }
}
