import Foundation
import OrderedCollections
import PFCompression
import PFCore
import PFKeyedArchive
import PFSerialization
import PFTypedStream

/// Decodes payloads hidden in bytes: a data value, a database blob, a Core Data
/// transformable. The one place that decides, by their bytes alone, whether bytes hold a
/// binary or XML property list, an NSKeyedArchiver archive (in any container), a typedstream,
/// JSON or CBOR, possibly inside one layer of gzip or zlib, and decodes them.
///
/// ```swift
/// let decoded = EmbeddedPayload.decode(blob, options: .init(limits: limits))
/// switch decoded.outcome {
/// case .decoded(let value): print(decoded.identification, value)   // "keyed archive (NSDictionary)"
/// case .bytes: print("plain bytes")
/// case .undecodable(let why): print("kept as bytes:", why)
/// }
/// ```
///
/// Decoding is recursive by default: data inside the decoded value that is itself a payload
/// (an archive inside `NSData` inside an archive) is decoded too, wherever it sits. Every
/// level shares one budget, taken from the caller's ``PFCore/PFLimits``: the depth of a
/// payload's value counts from where its bytes sat, each level of nesting costs one more, and
/// the bytes read, the bytes inflated and the values produced are summed over all levels, so
/// a chain of archives can never spend more than one read of the limits allows.
///
/// What is decoded, judged by magic bytes, never by a guess that falls back to another format:
/// - `bplist00`: a binary property list; a keyed archive when it has `$archiver`, `$top`
///   and `$objects`.
/// - `<?xml …<plist` or `<plist`: an XML property list (keyed archive as above).
/// - `\u{4}\u{B}streamtyped` (or big-endian `typedstream`): a typedstream.
/// - `{` or `[` after white space (and perhaps a byte-order mark): JSON, strict, objects and
///   arrays only (keyed archive as above).
/// - `D9 D9 F7`: CBOR with the self-describe tag (keyed archive as above).
/// - gzip (`1F 8B 08`) or zlib: inflated, one layer, and decoded only when what it holds is
///   one of the above; otherwise the original bytes stay.
///
/// Bytes that strongly claim a format (`bplist00`, the typedstream header, a `<plist`
/// document, a keyed archive's keys, gzip) but do not decode are kept as bytes and reported
/// as ``Outcome/undecodable(_:)``, never thrown; bytes that only might be JSON or zlib are
/// kept silently. Nothing is ever instantiated: archived classes stay generic data
/// (``PFKeyedArchive/KeyedGraph/jsonValue(limits:)``).
public enum EmbeddedPayload {
    /// The kinds of payload recognised.
    public enum Kind: String, Sendable, CaseIterable, CustomStringConvertible {
        /// An NSKeyedArchiver archive, in any container.
        case keyedArchive = "keyed archive"
        /// A binary property list that is not a keyed archive.
        case bplist
        /// An XML property list that is not a keyed archive.
        case xmlplist
        /// A NeXT/Apple typedstream (NSArchiver).
        case typedstream
        /// A JSON object or array.
        case json
        /// Self-described CBOR.
        case cbor

        public var description: String { rawValue }
    }

    /// How to decode.
    public struct Options: Sendable {
        /// The budgets, shared by every level of nesting.
        public var limits: PFLimits
        /// Secure decoding of keyed archives, as ``FormatIO/ReadOptions/allowedClasses``: an
        /// archive naming another class is kept as bytes (and reported).
        public var allowedClasses: Set<String>?
        /// Whether payloads inside a decoded payload are decoded too. Default `true`.
        public var recursive: Bool

        /// Makes options; every parameter defaults to the property's documented default.
        public init(limits: PFLimits = .default, allowedClasses: Set<String>? = nil, recursive: Bool = true) {
            self.limits = limits
            self.allowedClasses = allowedClasses
            self.recursive = recursive
        }
    }

    /// What some bytes were found to hold, such as "gzip keyed archive (NSDictionary)".
    public struct Identification: Sendable, Hashable, CustomStringConvertible {
        /// The payload's kind, or `nil` for plain bytes.
        public var kind: Kind?
        /// The compression around the payload, if any.
        public var compression: CompressionFormat?
        /// A keyed archive's root class (`NSDictionary`, `NSString`, an app class) when its
        /// `$top` has one entry (named with its key when that is not `root`:
        /// `opaque: NSMutableData`).
        public var rootClass: String?
        /// The kind the bytes claimed but failed to be, for bytes kept as bytes.
        public var claimed: Kind?

        /// Makes an identification.
        public init(kind: Kind? = nil, compression: CompressionFormat? = nil, rootClass: String? = nil, claimed: Kind? = nil) {
            self.kind = kind
            self.compression = compression
            self.rootClass = rootClass
            self.claimed = claimed
        }

        /// Plain bytes.
        public static let bytes = Identification()

        public var description: String {
            guard let kind else {
                return claimed.map { "bytes (not a valid \($0))" } ?? "bytes"
            }
            var text = compression.map { "\($0.rawValue) " } ?? ""
            text += kind.rawValue
            if let rootClass { text += " (\(rootClass))" }
            return text
        }
    }

    /// What became of some bytes.
    public enum Outcome: Sendable, Equatable {
        /// They held a payload: its value, with nested payloads decoded when recursive.
        case decoded(PFValue)
        /// They are plain bytes.
        case bytes
        /// They claimed to be a payload but did not decode within the limits: why.
        case undecodable(String)
    }

    /// A payload inside a decoded value that was kept as bytes, and why.
    public struct Note: Sendable, Equatable, CustomStringConvertible {
        /// Where the bytes sat in the decoded value (the root for the outermost bytes).
        public var path: PFKeyPath
        /// What they claimed to be and why they stayed bytes.
        public var message: String

        /// Makes a note.
        public init(path: PFKeyPath, message: String) {
            self.path = path
            self.message = message
        }

        public var description: String { path.isRoot ? message : "\(path): \(message)" }
    }

    /// The result of ``decode(_:options:)``.
    public struct Result: Sendable {
        /// What became of the bytes.
        public var outcome: Outcome
        /// What the bytes are.
        public var identification: Identification
        /// Nested payloads that were kept as bytes (recursive decoding only).
        public var notes: [Note]

        /// The decoded value, or the bytes themselves when they were kept.
        public func value(or bytes: Data) -> PFValue {
            if case .decoded(let value) = outcome { return value }
            return .data(bytes)
        }
    }

    // MARK: - Entry points

    /// Decodes bytes when they hold a payload (and, when recursive, the payloads inside it).
    /// - Parameters:
    ///   - bytes: the bytes, such as a blob or a data value.
    ///   - options: limits, allowed classes and recursion.
    /// - Returns: the outcome, what the bytes are, and notes about nested payloads kept as bytes.
    public static func decode(_ bytes: Data, options: Options = Options()) -> Result {
        var walker = Walker(options: options, budget: Budget(options.limits))
        let (outcome, identification) = walker.decodeLevel(bytes, depth: 0)
        guard case .decoded(let value) = outcome, options.recursive else {
            return Result(outcome: outcome, identification: identification, notes: [])
        }
        let expanded = walker.expand(value, depth: 0, path: .root)
        return Result(outcome: .decoded(expanded), identification: identification, notes: walker.notes)
    }

    /// Replaces every data value in a tree that holds a payload by its decoded value,
    /// recursively (``Options/recursive`` is ignored: this is the recursion).
    ///
    /// The tree counts against the budgets as if it were the first level: its depth, its
    /// values, and `spentBytes` of input already read to make it.
    /// - Parameters:
    ///   - value: a decoded tree (a keyed archive's graph, a property list, a typedstream's value).
    ///   - options: limits and allowed classes.
    ///   - spentBytes: the input bytes the tree was read from, charged to the byte budget.
    /// - Returns: the tree with payloads decoded, and notes about those kept as bytes.
    public static func expand(_ value: PFValue, options: Options = Options(), spentBytes: Int = 0) -> (value: PFValue, notes: [Note]) {
        var budget = Budget(options.limits)
        budget.bytes -= min(max(spentBytes, 0), budget.bytes)
        var walker = Walker(options: options, budget: budget)
        let expanded = walker.expand(value, depth: 0, path: .root)
        return (expanded, walker.notes)
    }

    /// Says what bytes hold without keeping the decoded value (what `inspect` counts per
    /// Core Data column). Nested payloads are not looked into.
    /// - Parameters:
    ///   - bytes: the bytes.
    ///   - limits: the budgets for one decode.
    /// - Returns: the identification; plain or undecodable bytes have no ``Identification/kind``.
    public static func identify(_ bytes: Data, limits: PFLimits = .default) -> Identification {
        decode(bytes, options: Options(limits: limits, recursive: false)).identification
    }

    /// Whether bytes strongly claim to be a payload: `bplist00`, a typedstream header, an
    /// XML property list, self-described CBOR, or gzip. Weak candidates (JSON-looking text,
    /// a zlib header) are not claims.
    public static func claimsPayload(_ bytes: Data) -> Bool {
        strongClaim(bytes) != nil || Compression.detect(bytes) == .gzip
    }

    // MARK: - Sniffing

    static let plistTag = Data("<plist".utf8)

    /// The kind bytes claim by a magic that rarely occurs by chance (a failure to decode them
    /// is worth reporting).
    /// Sniffed by ``PFSerialization/FormatDetector``, as every input is; an XML declaration counts
    /// only when a `<plist` tag follows, and CBOR only when self-described.
    static func strongClaim(_ bytes: Data) -> Kind? {
        switch FormatDetector.detect(bytes) {
        case .bplist: .bplist
        case .typedstream: .typedstream
        case .xmlplist: bytes.prefix(1024).range(of: plistTag) != nil ? .xmlplist : nil
        case .cbor: FormatDetector.isSelfDescribedCBOR(bytes) ? .cbor : nil
        default: nil
        }
    }

    /// JSON candidates: what ``PFSerialization/FormatDetector/jsonStart(_:)`` (the one JSON
    /// heuristic) takes for JSON, opening an object or an array — a scalar is not a payload.
    static func weakJSON(_ bytes: Data) -> Bool {
        switch FormatDetector.jsonStart(bytes) {
        case UInt8(ascii: "{"), UInt8(ascii: "["): true
        default: false
        }
    }
}

// MARK: - Budget

extension EmbeddedPayload {
    /// What is left of the limits, shared across levels of nesting.
    struct Budget {
        var bytes: Int
        var inflated: Int
        var nodes: Int

        init(_ limits: PFLimits) {
            bytes = max(limits.maxInputBytes, 0)
            inflated = max(limits.maxDecompressedBytes, 0)
            nodes = max(limits.maxNodes, 0)
        }
    }

    /// One decoding run: the shared budget, the options, and the notes so far.
    struct Walker {
        let options: Options
        var budget: Budget
        var notes: [Note] = []

        init(options: Options, budget: Budget) {
            self.options = options
            self.budget = budget
        }

        /// Limits for a level whose value starts at `depth`, within what is left.
        func levelLimits(depth: Int) -> PFLimits {
            var limits = options.limits
            limits.maxDepth = max(options.limits.maxDepth - depth, 0)
            limits.maxDecompressedBytes = budget.inflated
            limits.maxNodes = budget.nodes
            return limits
        }

        /// Decodes one level (no nested payloads), charging its input to the budget.
        mutating func decodeLevel(_ bytes: Data, depth: Int) -> (Outcome, Identification) {
            // The magics never overlap (none of the strong ones passes zlib's header check),
            // so the order of these tests does not matter.
            let strong = EmbeddedPayload.strongClaim(bytes)
            let gzip = strong == nil ? Compression.detect(bytes) : nil
            let json = strong == nil && gzip == nil && EmbeddedPayload.weakJSON(bytes)
            guard strong != nil || gzip != nil || json else { return (.bytes, .bytes) }
            guard depth < options.limits.maxDepth else {
                let claimed = strong ?? (json ? .json : nil)
                if strong == nil && gzip != .gzip { return (.bytes, .bytes) }
                return (
                    .undecodable("payloads nest deeper than maxDepth (\(options.limits.maxDepth)); kept as bytes"),
                    Identification(claimed: claimed))
            }
            guard bytes.count <= budget.bytes else {
                if strong == nil && gzip != .gzip { return (.bytes, .bytes) }
                return (
                    .undecodable("nested payloads exceed maxInputBytes (\(options.limits.maxInputBytes)) in all; kept as bytes"),
                    Identification(claimed: strong))
            }
            budget.bytes -= bytes.count
            if let gzip {
                return inflated(bytes, gzip, depth: depth)
            }
            let kind = strong ?? .json
            do {
                let (value, identification) = try read(bytes, as: kind, depth: depth)
                return (.decoded(value), identification)
            } catch {
                guard strong != nil || error.keyedClaim else { return (.bytes, .bytes) }
                let claimed: Kind = error.keyedClaim ? .keyedArchive : kind
                return (.undecodable(failure(claimed, error, depth: depth)), Identification(claimed: claimed))
            }
        }

        /// The note for bytes that claimed a kind and did not decode.
        func failure(_ claimed: Kind, _ error: LevelError, depth: Int) -> String {
            guard error.code == .limitExceeded, depth > 0 else {
                return "what looks like a \(claimed) but does not decode (\(error.message)); kept as bytes"
            }
            return "a \(claimed) nested at depth \(depth) that does not fit in what the limits leave there "
                + "(maxDepth (\(options.limits.maxDepth)) and maxNodes (\(options.limits.maxNodes)) are shared by all levels): "
                + "\(error.message); kept as bytes"
        }

        /// Inflates one layer and decodes what it holds when that is a payload.
        mutating func inflated(_ bytes: Data, _ format: CompressionFormat, depth: Int) -> (Outcome, Identification) {
            let plain: Data
            do {
                plain = try Compression.decompress(bytes, from: format, limits: levelLimits(depth: depth))
            } catch {
                // A zlib header is a 2-byte guess; only gzip's is a claim worth reporting.
                guard format == .gzip else { return (.bytes, .bytes) }
                return (.undecodable("looks like gzip but does not inflate (\(error.message)); kept as bytes"), Identification(claimed: nil))
            }
            budget.inflated -= min(plain.count, budget.inflated)
            let strong = EmbeddedPayload.strongClaim(plain)
            guard strong != nil || EmbeddedPayload.weakJSON(plain) else { return (.bytes, .bytes) }
            let kind = strong ?? .json
            do {
                var (value, identification) = try read(plain, as: kind, depth: depth)
                identification.compression = format
                return (.decoded(value), identification)
            } catch {
                guard strong != nil || error.keyedClaim else { return (.bytes, .bytes) }
                let claimed: Kind = error.keyedClaim ? .keyedArchive : kind
                return (
                    .undecodable("\(format.rawValue) around " + failure(claimed, error, depth: depth)),
                    Identification(compression: format, claimed: claimed))
            }
        }

        /// Reads bytes of a kind into a value; a property list or JSON that is a keyed archive
        /// becomes the archive's decoded graph.
        func read(_ bytes: Data, as kind: Kind, depth: Int) throws(LevelError) -> (PFValue, Identification) {
            let limits = levelLimits(depth: depth)
            let tree: PFValue
            do throws(PFError) {
                switch kind {
                case .typedstream:
                    return (try TypedStream.decodeValue(bytes, limits: limits), Identification(kind: .typedstream))
                case .bplist, .keyedArchive:
                    tree = try Serialization.readTree(bytes, as: .bplist, options: .init(limits: limits))
                case .xmlplist:
                    tree = try Serialization.readTree(bytes, as: .xmlplist, options: .init(limits: limits))
                case .cbor:
                    tree = try Serialization.readTree(bytes, as: .cbor, options: .init(limits: limits))
                case .json:
                    tree = try Serialization.readTree(bytes, as: .json, options: .init(typedJSON: true, limits: limits))
                    guard tree.isContainer else { throw PFError(FormatsFailure.scalarPayload, format: .json) }
                }
            } catch {
                throw LevelError(message: error.message, code: error.code, keyedClaim: false)
            }
            guard KeyedObjectTable.looksLikeArchive(tree) else { return (tree, Identification(kind: kind)) }
            do throws(PFError) {
                let table = try KeyedObjectTable(plist: tree)
                let graph = try KeyedGraph(table: table, options: .init(limits: limits, allowedClasses: options.allowedClasses))
                return (try graph.jsonValue(limits: limits), Identification(kind: .keyedArchive, rootClass: Self.rootClass(table)))
            } catch {
                throw LevelError(message: error.message, code: error.code, keyedClaim: true)
            }
        }

        /// The class name of a keyed archive's only `$top` object (`NSDictionary`, or
        /// `opaque: NSMutableData` when the key is not `root`), when `$top` has one entry.
        static func rootClass(_ table: KeyedObjectTable) -> String? {
            guard table.topEntries.count == 1, let key = table.top.keys.first, let uid = table.top[key],
                let index = Int(exactly: uid), table.objects.indices.contains(index)
            else { return nil }
            let name: String?
            switch table.objects[index] {
            case .string: name = "NSString"
            case .data: name = "NSData"
            case .int, .uint, .double, .bool: name = "NSNumber"
            case .dictionary(let object):
                name = index == 0 ? nil : (try? table.archivedClass(of: object, at: .root))?.name
            default: name = nil
            }
            guard let name else { return nil }
            return key == KeyedObjectTable.rootKey ? name : "\(key): \(name)"
        }

        // MARK: Walking a tree

        /// The tree with every data value that holds a payload decoded, depth-first.
        mutating func expand(_ value: PFValue, depth: Int, path: @autoclosure () -> PFCodingPath) -> PFValue {
            expanded(value, depth: depth, path: path()) ?? value
        }

        /// The value with its payloads decoded, or `nil` when nothing in it changed (so trees
        /// without payloads are never rebuilt). The path is built only for a note (an
        /// allocation per container otherwise).
        mutating func expanded(_ value: PFValue, depth: Int, path: @autoclosure () -> PFCodingPath) -> PFValue? {
            budget.nodes -= min(1, budget.nodes)
            switch value {
            case .data(let bytes):
                let (outcome, _) = decodeLevel(bytes, depth: depth + 1)
                switch outcome {
                case .decoded(let inner):
                    return expand(inner, depth: depth + 1, path: path())
                case .bytes:
                    return nil
                case .undecodable(let why):
                    notes.append(Note(path: path().keyPath, message: why))
                    return nil
                }
            case .array(let items):
                var out: [PFValue]?
                for (i, item) in items.enumerated() {
                    // A scalar never changes: it costs its node, and no path is made for it.
                    guard item.mayHoldPayload else {
                        budget.nodes -= min(1, budget.nodes)
                        continue
                    }
                    guard let changed = expanded(item, depth: depth + 1, path: path().appending(index: i)) else { continue }
                    if out == nil { out = items }
                    out?[i] = changed
                }
                return out.map { .array($0) }
            case .dictionary(let members):
                var out: OrderedDictionary<String, PFValue>?
                for (i, member) in members.values.enumerated() {
                    guard member.mayHoldPayload else {
                        budget.nodes -= min(1, budget.nodes)
                        continue
                    }
                    let key = members.keys[i]
                    guard let changed = expanded(member, depth: depth + 1, path: path().appending(key: key)) else { continue }
                    if out == nil { out = members }
                    out?.values[i] = changed
                }
                return out.map { .dictionary($0) }
            default:
                return nil
            }
        }
    }

    /// A failure to read one level: the reader's message, and whether the bytes were a
    /// keyed archive's object table (a claim even when the container was only JSON).
    struct LevelError: Error {
        var message: String
        var code: PFError.Code
        var keyedClaim: Bool
    }
}

extension PFValue {
    /// Whether ``EmbeddedPayload/Walker/expanded(_:depth:path:)`` may change the value: data,
    /// or a container that may hold some.
    fileprivate var mayHoldPayload: Bool {
        switch self {
        case .data, .array, .dictionary: true
        default: false
        }
    }
}
