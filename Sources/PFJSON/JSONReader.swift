import CPFJSONC
import Foundation
import PFCore

/// Reads JSON text (RFC 8259) into a ``PFValue`` tree, through json-c, with pfarchive's own
/// strictness and safety checks on top.
///
/// Reading is two passes over the bytes: a fast pre-scan of pfarchive's own validates what
/// json-c does not (full UTF-8, the RFC 8259 number grammar, raw control characters, lone
/// surrogate escapes, 64-bit integer range, trailing bytes, limits, where keys hold U+0000)
/// and, when duplicate keys are to be rejected, counts the members of every object; then json-c's tokener builds its tree, which is
/// converted into a ``PFValue`` in one walk and freed. A large strict document is cut into
/// batches that are parsed and converted on several threads (see ``Options/parallel``).
///
/// ```swift
/// let value = try JSONReader().read(Data(#"{"a": [1, 2.5, "x"]}"#.utf8))
/// ```
///
/// See `Docs/JSON.md` for every policy and limit.
public struct JSONReader: Sendable {
    /// How forgiving the reader is.
    public enum Mode: Sendable {
        /// RFC 8259 exactly: every JSONTestSuite `n_` file is rejected and every `y_` file
        /// accepted; a byte order mark is an error. Duplicate keys follow
        /// ``Options/rejectDuplicateKeys``.
        case strict
        /// Sloppy JSON as found in the wild: comments, trailing commas, single-quoted
        /// strings, `NaN`/`Infinity`, a byte order mark, raw control characters, invalid
        /// UTF-8 (replaced by U+FFFD) and lone surrogate escapes (U+FFFD). Limits and the
        /// integer range are still checked.
        case lenient
    }

    /// Which engine builds the value of a one-thread strict read.
    public enum Engine: Sendable {
        /// pfarchive's own (the default): the validating scanner records a tape of the
        /// document as it checks it, and the value is built from the tape. A document whose
        /// object keys have escapes or bytes beyond ASCII, hold U+0000 or that has integers
        /// beyond 64 bits read as doubles goes through json-c instead.
        case native
        /// json-c's tokener builds its tree, which is converted (after the same pre-scan).
        /// Lenient reads, the parallel read's batches and the documents above always use it;
        /// tests check the two engines against each other.
        case jsonC
    }

    /// Reader settings, copied into each read.
    public struct Options: Sendable {
        /// Strict (default) or lenient syntax.
        public var mode: Mode
        /// Whether Parse's typed objects become typed values: `{"__type":"Date","iso":…}`
        /// a ``PFValue/date(_:)``, `{"__type":"Bytes","base64":…}` a ``PFValue/data(_:)``,
        /// and `{"CF$UID": N}` a ``PFValue/uid(_:)``. Default `true`.
        public var typedValues: Bool
        /// Resource budgets. The nesting depth is also capped at
        /// ``JSONReader/maximumSupportedDepth`` whatever `limits.maxDepth` says.
        public var limits: PFLimits
        /// Longest number token accepted, in bytes. Default 4096 (a 1 MB number would
        /// otherwise cost json-c a slow conversion for nothing a double can hold).
        public var maxNumberLength: Int = 4096
        /// Whether an object with a repeated key is an error (`invalidValue` at the object's
        /// `{`, with its key path), in either mode. Default `false`: the last value wins, at
        /// the position of the first occurrence, as json-c and Python do (RFC 8259 leaves
        /// duplicate names to the implementation).
        public var rejectDuplicateKeys: Bool = false
        /// Whether a large strict document (256 KiB or more) read with the json-c
        /// ``engine`` is parsed and converted on several threads when the machine has more
        /// than one processor: json-c parses pieces of it side by side. Default `true`. The
        /// value and the errors are the one-thread read's; lenient reads and
        /// `rejectDuplicateKeys` always use one thread, and the native engine (the default),
        /// faster on one thread than json-c's batches on two, does not split. See
        /// `Docs/JSON.md`.
        public var parallel: Bool = true
        /// The engine of a one-thread strict read. Default ``Engine/native``; the value and
        /// the errors are the same with either.
        public var engine: Engine = .native
        /// Whether an integer beyond 64 bits reads as the nearest double instead of being an
        /// error (strict mode, one thread). For the PostgreSQL store, whose `jsonb` prints a
        /// double written as `1e300` as a 301-digit integer. Default `false`.
        package var wideIntegersAsDoubles = false
        /// The smallest input read in parallel: below it, waking a thread costs more than it
        /// saves. Tests lower it to read small documents both ways.
        var parallelThreshold = 256 * 1024
        /// How many batches of work a parallel read cuts a document into (more batches share
        /// the work more evenly between threads; each costs a little).
        var parallelBatches = 16

        /// Makes reader settings.
        /// - Parameters:
        ///   - mode: strict (default) or lenient syntax.
        ///   - typedValues: whether typed objects become dates, data and UIDs.
        ///   - limits: resource budgets.
        public init(mode: Mode = .strict, typedValues: Bool = true, limits: PFLimits = .default) {
            self.mode = mode
            self.typedValues = typedValues
            self.limits = limits
        }
    }

    /// The deepest nesting any read accepts, whatever the limits say: json-c frees its
    /// trees recursively and crashes on very deep ones, so its depth never goes past this.
    public static let maximumSupportedDepth = PFLimits.deepestSupported

    /// The settings used by ``read(_:)-(Data)``.
    public var options: Options

    /// Makes a reader.
    /// - Parameter options: the settings.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// Reads one JSON document.
    /// - Parameter bytes: UTF-8 JSON text.
    /// - Returns: the value tree.
    /// - Throws: ``PFError`` with code `syntax` (malformed text, invalid UTF-8, a byte order
    ///   mark in strict mode), `truncated` (the text ends inside a value), `invalidValue`
    ///   (integer beyond 64 bits, number overflowing a double, lone surrogate escape,
    ///   duplicate key with `rejectDuplicateKeys`, malformed typed object), `unsupported`
    ///   (inputs of 2 GiB or more) or `limitExceeded` (a ``PFLimits`` budget or the number
    ///   length).
    public func read(_ bytes: Data) throws(PFError) -> PFValue {
        try bytes.withBytes { buffer throws(PFError) in try read(buffer) }
    }

    /// Reads one JSON document from raw bytes.
    /// - Parameter bytes: UTF-8 JSON text.
    /// - Returns: the value tree.
    /// - Throws: ``PFError`` as ``read(_:)-(Data)`` does.
    public func read(_ bytes: UnsafeRawBufferPointer) throws(PFError) -> PFValue {
        try read(bytes, session: nil)
    }

    /// Parses one document and calls `body` with a read-only view of its root, without
    /// building a ``PFValue`` tree: the fast way to turn JSON into values of your own.
    ///
    /// The checks, limits and errors are those of ``read(_:)-(UnsafeRawBufferPointer)``, all
    /// made before `body` runs (so a document `read` rejects never reaches `body`); the view
    /// shows what `read` would return with `typedValues` off (see ``JSONNode``). The nodes are
    /// valid only until `body` returns.
    /// - Parameters:
    ///   - bytes: UTF-8 JSON text.
    ///   - body: receives the root node.
    /// - Returns: what `body` returns.
    /// - Throws: ``PFError`` as ``read(_:)-(Data)`` does, or what `body` throws.
    public func withDocument<R>(_ bytes: UnsafeRawBufferPointer, _ body: (JSONNode) throws(PFError) -> R) throws(PFError) -> R {
        try withDocument(bytes, session: nil, document: JSONDocument(options: options), body)
    }

    /// ``withDocument(_:_:)-(UnsafeRawBufferPointer,_)`` for `Data`.
    /// - Parameters:
    ///   - bytes: UTF-8 JSON text.
    ///   - body: receives the root node.
    /// - Returns: what `body` returns.
    /// - Throws: ``PFError`` as ``read(_:)-(Data)`` does, or what `body` throws.
    public func withDocument<R>(_ bytes: Data, _ body: (JSONNode) throws(PFError) -> R) throws(PFError) -> R {
        try bytes.withBytes { buffer throws(PFError) in try withDocument(buffer, body) }
    }

    func withDocument<R>(_ bytes: UnsafeRawBufferPointer, session: Session?, document: JSONDocument,
                         _ body: (JSONNode) throws(PFError) -> R) throws(PFError) -> R {
        if options.mode == .strict, bytes.count <= options.limits.maxStringBytes,
            let root = try tapeDocument(bytes, document: document) {
            if let session {
                return try viewTape(root: root, document: document, keyCache: &session.keyCache, body)
            }
            var keyCache = JSONKeyCache(forInputOf: bytes.count)
            return try viewTape(root: root, document: document, keyCache: &keyCache, body)
        }
        return try withTree(bytes, session: session) { tree, keyCache throws(PFError) -> R in
            if JSONTreeChecker.isNeeded(options, inputCount: bytes.count) {
                let checker = JSONTreeChecker(options: options, scan: tree.scan, input: bytes, nulStandIn: tree.nulStandIn)
                try checker.check(tree.root)
            }
            // The view sees a tape here too: json-c's tree copied into one, decoded.
            try document.copyTree(tree.root, nulStandIn: tree.nulStandIn, keysNeedUniquing: tree.scan.nonASCIIKeys)
            let generation = document.openTape(keyCache: &keyCache)
            defer { document.close(keyCache: &keyCache) }
            return try body(JSONNode(tapeIndex: 0, document, generation))
        }
    }

    /// Scans a strict document into `document`'s tape, checking repeated keys as the json-c
    /// path does; `nil` when its keys need json-c's tree (escapes, bytes beyond ASCII, U+0000).
    ///
    /// Called only when no string can exceed `maxStringBytes` (the input is no longer), so
    /// the scanner's checks and the repeated-key check are every check a read makes.
    private func tapeDocument(_ bytes: UnsafeRawBufferPointer, document: JSONDocument) throws(PFError) -> Int? {
        var scanned: JSONScanResult?
        return try tapeDocument(bytes, document: document, scanned: &scanned)
    }

    /// ``tapeDocument(_:document:)``, leaving the scan's result in `scanned` when the document
    /// needs json-c's tree (so the json-c route need not scan it again).
    private func tapeDocument(_ bytes: UnsafeRawBufferPointer, document: JSONDocument,
                              scanned: inout JSONScanResult?) throws(PFError) -> Int? {
        guard bytes.count <= options.limits.maxInputBytes, bytes.count < Int(Int32.max),
            let base = bytes.baseAddress, bytes.count > 0
        else { return nil }  // withTree reports these
        var scanner = JSONScanner(bytes: bytes, base: base, options: options)
        var builder = JSONTapeBuilder(reusing: &document.tape.entries, &document.openContainers,
                                      input: base.assumingMemoryBound(to: UInt8.self))
        defer { document.openContainers = builder.openContainers }
        let scan = try scanner.scan(into: &builder)
        document.tape = JSONTape(entries: builder.entries, input: bytes)
        builder.entries = []
        guard !scan.escapedKeys, !scan.nonASCIIKeys, scan.nulKeyEscapes.isEmpty, scan.wideIntegers.isEmpty else {
            document.tape.entries.removeAll(keepingCapacity: true)
            scanned = scan
            return nil
        }
        try document.tape.markDuplicates(reject: options.rejectDuplicateKeys)
        return 0
    }

    /// Opens a tape document and calls `body` with its root.
    private func viewTape<R>(root: Int, document: JSONDocument, keyCache: inout JSONKeyCache,
                             _ body: (JSONNode) throws(PFError) -> R) throws(PFError) -> R {
        let generation = document.openTape(keyCache: &keyCache)
        defer { document.close(keyCache: &keyCache) }
        return try body(JSONNode(tapeIndex: root, document, generation))
    }

    /// Reads one document, with a session's tokener and key cache when given.
    func read(_ bytes: UnsafeRawBufferPointer, session: Session?) throws(PFError) -> PFValue {
        var scanned: JSONScanResult?
        // The parallel read cuts the document into batches for json-c: with the native
        // engine, which reads 2-3 times as fast on one thread, it no longer pays (see
        // Docs/Benchmarks.md), so only the json-c engine takes it.
        if session == nil, !options.wideIntegersAsDoubles, options.engine == .jsonC {
            switch try readInParallel(bytes) {
            case .value(let value): return value
            case .oneThread(let scan): scanned = scan
            }
        }
        if scanned == nil, options.engine == .native, options.mode == .strict, !options.wideIntegersAsDoubles {
            let document = session?.document ?? JSONDocument(options: options)
            if let root = try tapeDocument(bytes, document: document, scanned: &scanned) {
                defer { document.tape.entries.removeAll(keepingCapacity: true) }
                if let session { return try buildFromTape(root, document: document, bytes: bytes, keyCache: &session.keyCache) }
                var keyCache = JSONKeyCache(forInputOf: bytes.count)
                return try buildFromTape(root, document: document, bytes: bytes, keyCache: &keyCache)
            }
        }
        return try withTree(bytes, session: session, scanned: scanned) { tree, keyCache throws(PFError) -> PFValue in
            if options.rejectDuplicateKeys {
                var duplicates = JSONDuplicateKeys(source: JSONCSource(scan: tree.scan, nulStandIn: tree.nulStandIn), input: bytes)
                try duplicates.reject(tree.root)
            }
            // The cache moves into the walk and back (no copy), whatever happens.
            var converter = JSONTreeConverter(options: options, scan: tree.scan, input: bytes,
                                              nulStandIn: tree.nulStandIn, keyCache: JSONKeyCache.take(&keyCache))
            defer { keyCache = converter.keyCache }
            return try converter.convertRoot(tree.root)
        }
    }

    /// The value of a tape document (``tapeDocument(_:document:scanned:)``), built by the one
    /// value builder with `keyCache`, which it hands back whatever happens.
    private func buildFromTape(_ root: Int, document: JSONDocument, bytes: UnsafeRawBufferPointer,
                               keyCache: inout JSONKeyCache) throws(PFError) -> PFValue {
        var builder = JSONValueBuilder(source: document.tape, checkedWith: options, input: bytes,
                                       keyCache: JSONKeyCache.take(&keyCache))
        defer { keyCache = builder.keyCache }
        return try builder.convertRoot(root)
    }

    /// A parsed document, valid while ``withTree(_:session:_:)``'s body runs.
    struct ParsedTree {
        /// json-c's root (`nil` for JSON `null`).
        let root: OpaquePointer?
        /// What the pre-scan found.
        let scan: JSONScanResult
        /// The noncharacter standing for U+0000 in keys, when some key holds it.
        let nulStandIn: Unicode.Scalar?
    }

    /// Checks and parses one document and hands json-c's tree and a key cache to `body`;
    /// the tree is freed when `body` returns. Every read and node view goes through here, so
    /// the limits, the pre-scan and the U+0000-in-keys handling are one code path.
    ///
    /// The key cache is the session's (and goes back to it) unless the document has U+0000
    /// in a key, whose stand-in differs between documents: then it is a fresh one.
    /// - Parameter scanned: the pre-scan's result, when it has already run on `bytes` with
    ///   these options.
    func withTree<R>(_ bytes: UnsafeRawBufferPointer, session: Session?, scanned: JSONScanResult? = nil,
                     _ body: (ParsedTree, inout JSONKeyCache) throws(PFError) -> R) throws(PFError) -> R {
        let limits = options.limits
        guard bytes.count <= limits.maxInputBytes else {
            throw PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: JSONError.format, offset: 0)
        }
        // json-c takes an `int` length.
        guard bytes.count < Int(Int32.max) else {
            throw JSONError.make(.inputTooLarge, offset: 0, in: bytes)
        }
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            throw JSONError.unexpected(at: 0, in: bytes, expected: "a value")
        }
        var scanner = JSONScanner(bytes: bytes, base: base, options: options)
        let scan: JSONScanResult
        if let scanned { scan = scanned } else { scan = try scanner.scan() }
        guard scan.nulKeyEscapes.isEmpty, !scan.jsonCMangledPairs, scan.wideIntegers.isEmpty else {
            return try withRewrittenTree(bytes, scan: scan, body)
        }
        guard let session else {
            let tree = try JSONCTree.parse(bytes, from: scan.start, options: options, scanner: scanner,
                                           depthSeen: scan.maxDepthSeen)
            var keyCache = JSONKeyCache(forInputOf: bytes.count)
            return try tree.withRoot { root throws(PFError) in
                try body(ParsedTree(root: root, scan: scan, nulStandIn: nil), &keyCache)
            }
        }
        let tree = try JSONCTree.parse(bytes, from: scan.start, with: try session.tokener(), scanner: scanner)
        return try tree.withRoot { root throws(PFError) in
            try body(ParsedTree(root: root, scan: scan, nulStandIn: nil), &session.keyCache)
        }
    }

    /// Parses a document that json-c cannot be given as it is, through a rewritten copy:
    ///
    /// - json-c keeps keys as C strings, so it would cut `"a\u0000b"` to `"a"` (and merge it
    ///   with a real `"a"`). Each such escape is rewritten, in place and at the same length,
    ///   to `\uFDxx`, a noncharacter that no key of the document contains; the tree walk
    ///   turns it back into U+0000. The mapping is one-to-one, so keys stay distinct exactly
    ///   when they were.
    /// - json-c 0.16 decodes an escaped surrogate pair whose character has low 16 bits in
    ///   D800…DFFF as U+FFFD. Each such pair (12 bytes) is written as the character's raw
    ///   UTF-8 (4 bytes), which json-c copies as it is.
    ///
    /// json-c's own errors (lenient mode only) are placed back at the original offsets.
    private func withRewrittenTree<R>(_ bytes: UnsafeRawBufferPointer, scan: JSONScanResult,
                                      _ body: (ParsedTree, inout JSONKeyCache) throws(PFError) -> R) throws(PFError) -> R {
        var copy = [UInt8](bytes)
        var nulStandIn: Unicode.Scalar?
        if !scan.nulKeyEscapes.isEmpty {
            let free = ~scan.keyNoncharacters
            guard free != 0 else {
                throw JSONError.make(.nulKeysExhausted, offset: scan.nulKeyEscapes[0], in: bytes)
            }
            let pick = UInt32(free.trailingZeroBitCount)  // 0…31
            nulStandIn = Unicode.Scalar(0xFDD0 + pick)
            let digits = Array(("FD" + String(0xD0 + pick, radix: 16, uppercase: true)).utf8)  // "FDD0"…"FDEF"
            for offset in scan.nulKeyEscapes {
                // Each offset is the backslash of a complete `\u0000` escape the scanner read, so
                // offset + 2 ..< offset + 6 is inside the input.
                for k in 0..<4 { copy[offset + 2 + k] = digits[k] }
            }
        }
        for token in scan.wideIntegers {
            // Same length, so every offset is unchanged: the double's digits and exponent,
            // then spaces (a 20-digit integer has at most 17 significant digits and a
            // one-digit exponent). json-c reads it as a double, to the same value.
            let spelled = Self.doubleSpelling(ofIntegerAt: token, in: bytes)
            guard spelled.count <= token.count else {
                throw JSONError.make(.integerTooWideForDouble, offset: token.lowerBound, in: bytes)
            }
            for k in token { copy[k] = UInt8(ascii: " ") }
            for (k, b) in spelled.enumerated() { copy[token.lowerBound + k] = b }
        }
        // Where the copy was shortened: (offset in the copy, bytes removed up to there).
        var shortened: [(at: Int, removed: Int)] = []
        if scan.jsonCMangledPairs { copy = Self.rawMangledPairs(copy, shortened: &shortened) }
        let standIn = nulStandIn
        let result: Result<R, PFError> = copy.withUnsafeBytes { text in
            Result { () throws(PFError) -> R in
                let tree: JSONCTree
                do throws(PFError) {
                    // A scanner over the copy, for json-c's trailing-whitespace check.
                    let scanner = JSONScanner(bytes: text, base: text.baseAddress!, options: options)
                    tree = try JSONCTree.parse(text, from: scan.start, options: options, scanner: scanner,
                                               depthSeen: scan.maxDepthSeen)
                } catch {
                    throw Self.placedBack(error, shortened, in: bytes)
                }
                // A fresh cache: a U+0000 stand-in differs between documents, so keys built
                // with it must not outlive this one.
                var keyCache = JSONKeyCache(forInputOf: bytes.count)
                return try tree.withRoot { root throws(PFError) in
                    try body(ParsedTree(root: root, scan: scan, nulStandIn: standIn), &keyCache)
                }
            }
        }
        return try result.get()
    }

    /// The integer token at `token` as the nearest double, spelled `<digits>e<exponent>`
    /// (shortest round-trip digits, no point), for json-c to read as that double.
    static func doubleSpelling(ofIntegerAt token: Range<Int>, in bytes: UnsafeRawBufferPointer) -> [UInt8] {
        guard let base = bytes.baseAddress else { return [] }
        let value = JSONNumber.strtodDouble(base.assumingMemoryBound(to: UInt8.self), token.lowerBound, token.upperBound)
        // Swift's text of a double this large is `-?d(.ddd)?e+x`.
        let text = value.description
        let parts = text.split(separator: "e", maxSplits: 1)
        guard parts.count == 2, let exponent = Int(parts[1]) else { return Array(text.utf8) }
        let mantissa = parts[0].split(separator: ".", maxSplits: 1)
        let fraction = mantissa.count == 2 ? String(mantissa[1]) : ""
        return Array((String(mantissa[0]) + fraction + "e" + String(exponent - fraction.count)).utf8)
    }

    /// `text` with every escaped surrogate pair json-c would decode as U+FFFD written as raw
    /// UTF-8; `shortened` gets where each rewrite ended in the result and the bytes removed so
    /// far. The text has been scanned, so every such escape is complete.
    static func rawMangledPairs(_ text: [UInt8], shortened: inout [(at: Int, removed: Int)]) -> [UInt8] {
        func hex(_ k: Int) -> UInt32? {
            guard k + 4 <= text.count else { return nil }
            return text.withUnsafeBufferPointer { b in b.baseAddress.flatMap { PFUTF8.hex4($0 + k) } }
        }
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var i = 0
        while i < text.count {
            let c = text[i]
            guard c == UInt8(ascii: "\\"), i + 1 < text.count else {
                out.append(c)
                i += 1
                continue
            }
            if text[i + 1] == UInt8(ascii: "u"), let high = hex(i + 2), PFUTF8.isHighSurrogate(high),
                i + 7 < text.count, text[i + 6] == UInt8(ascii: "\\"), text[i + 7] == UInt8(ascii: "u"),
                let low = hex(i + 8), PFUTF8.isLowSurrogate(low), JSONScanner.jsonCMangles(high: high, low: low) {
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4) { utf8 in
                    let n = PFUTF8.encode(PFUTF8.scalar(high: high, low: low), into: utf8.baseAddress!)
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[..<n]))
                }
                i += 12
                shortened.append((out.count, i - out.count))
                continue
            }
            // Any other escape, whole (an escaped backslash must not start a new one).
            out.append(c)
            out.append(text[i + 1])
            i += 2
        }
        return out
    }

    /// A json-c error from a shortened copy, at its offset in the original.
    private static func placedBack(_ error: PFError, _ shortened: [(at: Int, removed: Int)],
                                   in bytes: UnsafeRawBufferPointer) -> PFError {
        guard !shortened.isEmpty, let offset = error.location?.offset else { return error }
        let removed = shortened.last { $0.at <= offset }?.removed ?? 0
        var placed = error
        placed.location = JSONError.location(offset + removed, in: bytes)
        return placed
    }
}

// MARK: - Sessions

extension JSONReader {
    /// A reader for many small documents in a row (the rows of a Parse export, lines of JSON
    /// Lines): it keeps json-c's tokener and the cache of object keys between reads, so a
    /// document pays neither for setting them up nor for rebuilding the keys the documents
    /// before it already had. Results, errors and policies are exactly ``JSONReader``'s.
    ///
    /// ```swift
    /// let session = JSONReader.Session()
    /// for line in lines { values.append(try session.read(line)) }
    /// ```
    ///
    /// A session is not `Sendable`: use one per thread (reads on one session must not overlap).
    public final class Session {
        /// The settings of every read.
        public let reader: JSONReader
        private var tokenerStorage: UnsafeMutablePointer<json_tokener>?
        var keyCache: JSONKeyCache
        /// Whether a ``withDocument(_:_:)-(UnsafeRawBufferPointer,_)`` closure is running.
        private var isViewing = false
        /// The node views' (and tape reads') shared state, made once.
        lazy var document = JSONDocument(options: reader.options)

        /// Makes a session.
        /// - Parameter reader: the reader whose settings every read uses.
        public init(reader: JSONReader = JSONReader()) {
            self.reader = reader
            self.keyCache = JSONKeyCache(bits: 8)
        }

        deinit {
            if let tokenerStorage { json_tokener_free(tokenerStorage) }
        }

        /// Reads one JSON document, as ``JSONReader/read(_:)-(UnsafeRawBufferPointer)`` does.
        /// - Parameter bytes: UTF-8 JSON text.
        /// - Returns: the value tree.
        /// - Throws: ``PFError`` as ``JSONReader/read(_:)-(Data)`` does.
        public func read(_ bytes: UnsafeRawBufferPointer) throws(PFError) -> PFValue {
            // Inside a withDocument closure the tokener's tree and the key cache are in use.
            try reader.read(bytes, session: isViewing ? nil : self)
        }

        /// Parses one document and calls `body` with a view of its root, as
        /// ``JSONReader/withDocument(_:_:)-(UnsafeRawBufferPointer,_)`` does, with the
        /// session's tokener and key cache. Nested calls on the same session (from `body`)
        /// work, without the sharing.
        /// - Parameters:
        ///   - bytes: UTF-8 JSON text.
        ///   - body: receives the root node (valid only until `body` returns).
        /// - Returns: what `body` returns.
        /// - Throws: ``PFError`` as ``JSONReader/read(_:)-(Data)`` does, or what `body` throws.
        public func withDocument<R>(_ bytes: UnsafeRawBufferPointer, _ body: (JSONNode) throws(PFError) -> R) throws(PFError) -> R {
            guard !isViewing else { return try reader.withDocument(bytes, body) }
            isViewing = true
            defer { isViewing = false }
            return try reader.withDocument(bytes, session: self, document: document, body)
        }

        /// ``withDocument(_:_:)-(UnsafeRawBufferPointer,_)`` for `Data`.
        /// - Parameters:
        ///   - bytes: UTF-8 JSON text.
        ///   - body: receives the root node (valid only until `body` returns).
        /// - Returns: what `body` returns.
        /// - Throws: ``PFError`` as ``JSONReader/read(_:)-(Data)`` does, or what `body` throws.
        public func withDocument<R>(_ bytes: Data, _ body: (JSONNode) throws(PFError) -> R) throws(PFError) -> R {
            try bytes.withBytes { buffer throws(PFError) in try withDocument(buffer, body) }
        }

        /// Reads one JSON document, as ``JSONReader/read(_:)-(Data)`` does.
        /// - Parameter bytes: UTF-8 JSON text.
        /// - Returns: the value tree.
        /// - Throws: ``PFError`` as ``JSONReader/read(_:)-(Data)`` does.
        public func read(_ bytes: Data) throws(PFError) -> PFValue {
            try bytes.withBytes { buffer throws(PFError) in try read(buffer) }
        }

        /// The session's tokener, made on first use with the deepest stack any read accepts
        /// (the pre-scan enforces the configured depth before json-c runs).
        func tokener() throws(PFError) -> UnsafeMutablePointer<json_tokener> {
            if let tokenerStorage { return tokenerStorage }
            let made = try JSONCTree.makeTokener(depth: Int32(JSONReader.maximumSupportedDepth + 1), options: reader.options)
            tokenerStorage = made
            return made
        }
    }
}
