import Foundation
import PFCore

/// Entry points for typedstream, the format of `NSArchiver` (classic, order-dependent
/// archives): detect, decode to a value tree, encode a value tree, and describe.
public enum TypedStream {
    /// Whether bytes start like a typedstream: version 4 (or 3), length 11, and the signature
    /// `streamtyped` or `typedstream`.
    /// - Parameter data: the first bytes of a file (13 are enough).
    /// - Returns: `true` for a typedstream header.
    public static func hasMagic(_ data: Data) -> Bool {
        guard data.count >= 13 else { return false }
        let bytes = Array(data.prefix(13))
        let signature = Array(bytes[2..<13])
        return (bytes[0] == 4 || bytes[0] == 3) && bytes[1] == 11
            && (signature == TypedStreamTag.littleEndianSignature || signature == TypedStreamTag.bigEndianSignature)
    }

    /// Reads a whole stream without instantiating anything.
    /// - Parameters:
    ///   - data: the typedstream.
    ///   - limits: budgets (depth, nodes, counts, string sizes, input size).
    /// - Returns: header, object table and root groups.
    /// - Throws: ``PFError`` — `syntax`, `truncated`, `invalidValue` (a bad reference or a class
    ///   cycle), `unsupported` (version 3, unknown types) or `limitExceeded`, each with the byte offset.
    public static func readDocument(_ data: Data, limits: PFLimits = .default) throws(PFError) -> TypedStreamDocument {
        try TypedStreamReader.read(data, limits: limits)
    }

    /// Decodes any typedstream into a value tree: Foundation values natural (NSString →
    /// string, NSNumber → number or boolean, NSData → data, NSDate → date, NSArray/NSSet →
    /// array, NSDictionary → dictionary, NSNull → null), other objects as
    /// `{"$class": "Name", "$version": N, "$values": [{"types": "i", "values": [...]}]}`, and
    /// objects reached more than once as `$id`/`$ref`. A stream with several root groups
    /// becomes an array of them.
    /// - Parameters:
    ///   - data: the typedstream.
    ///   - limits: budgets.
    /// - Returns: the tree.
    /// - Throws: ``PFError`` as ``readDocument(_:limits:)``.
    public static func decodeValue(_ data: Data, limits: PFLimits = .default) throws(PFError) -> PFValue {
        let document = try TypedStreamReader.read(data, limits: limits)
        var converter = TypedStreamValueConverter(document: document, limits: limits)
        return try converter.convertRoots(document.roots)
    }

    /// Encodes a value tree as a typedstream with one root object: dictionaries →
    /// NSDictionary, arrays → NSArray, strings → NSString, integers → NSNumber (`q`, or `Q`
    /// above `Int64.max`), doubles → NSNumber (`d`), booleans → NSNumber (`c`), data → NSData,
    /// dates → NSDate, null → NSNull. Generic objects in the shape ``decodeValue(_:limits:)``
    /// writes (`{"$class", "$version", "$values"}`, with `$id`/`$ref` sharing) are written back
    /// as those objects, so decode → edit → encode keeps a stream's classes and versions.
    /// - Parameters:
    ///   - value: the tree.
    ///   - limits: `maxDepth` bounds nesting.
    /// - Returns: the typedstream.
    /// - Throws: ``PFError`` `unrepresentable` for a UID, `limitExceeded` past `maxDepth`.
    public static func encodeValue(_ value: PFValue, limits: PFLimits = .default) throws(PFError) -> Data {
        do {
            return try ClassicArchiver.archivedData(withRootObject: value, maxDepth: limits.maxDepth)
        } catch let error as PFError {
            throw error
        } catch {
            throw PFError(TypedStreamFailure.archiverFailed("\(error)"), format: .typedstream)
        }
    }

    /// Describes a stream for `pfarchive inspect`: header, classes with versions, counts.
    /// - Parameters:
    ///   - data: the typedstream.
    ///   - limits: budgets.
    /// - Returns: the description.
    /// - Throws: ``PFError`` as ``readDocument(_:limits:)``.
    public static func info(_ data: Data, limits: PFLimits = .default) throws(PFError) -> TypedStreamInfo {
        let document = try TypedStreamReader.read(data, limits: limits)
        return TypedStreamInfo(document)
    }
}

/// What `pfarchive inspect` shows about a typedstream.
public struct TypedStreamInfo: Sendable, Equatable {
    /// The header.
    public var header: TypedStreamHeader
    /// Every distinct class chain, most derived class first, in order of first appearance.
    public var classChains: [[ClassicClassVersion]]
    /// How many objects the stream holds.
    public var objectCount: Int
    /// How many top-level groups it holds (usually 1).
    public var rootGroupCount: Int

    /// Summarises a document.
    /// - Parameter document: a read stream.
    public init(_ document: TypedStreamDocument) {
        header = document.header
        rootGroupCount = document.roots.count
        var chains: [[ClassicClassVersion]] = []
        var seen = Set<[ClassicClassVersion]>()
        var objects = 0
        for entry in document.entries {
            guard case .object(let o) = entry else { continue }
            objects += 1
            let chain = document.classChain(o.classIndex).map { ClassicClassVersion($0.name, version: $0.version) }
            if seen.insert(chain).inserted { chains.append(chain) }
        }
        classChains = chains
        objectCount = objects
    }

    /// The info as a value tree (for `inspect --json`).
    public var value: PFValue {
        .dictionary([
            "format": .string("typedstream"),
            "streamerVersion": .int(Int64(header.streamerVersion)),
            "byteOrder": .string(header.bigEndian ? "big-endian" : "little-endian"),
            "systemVersion": .int(Int64(header.systemVersion)),
            "objects": .int(Int64(objectCount)),
            "rootGroups": .int(Int64(rootGroupCount)),
            "classes": .array(
                classChains.map { chain in .array(chain.map { .dictionary(["name": .string($0.name), "version": .int(Int64($0.version))]) }) }),
        ])
    }
}
