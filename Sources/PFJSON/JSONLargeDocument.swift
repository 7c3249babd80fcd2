import PFCore

// MARK: - Large containers

/// A JSON document read a piece at a time: the containers whose text is larger than a
/// threshold are walked member by member, and everything else — each member of a large
/// container that is not itself large — is read whole by ``JSONReader``, so memory is the
/// largest such piece times the nesting, never the tree.
///
/// ``scan(_:options:threshold:)`` validates the whole document first, with the scanner the
/// whole read runs (so a document the whole read rejects is never walked), and notes each
/// large container's span and member count: a writer that puts a container's count before
/// its children (CBOR) has it up front. ``walk(_:)`` then hands out the events in document
/// order, each piece the value the whole read has at its place:
///
/// - an object's repeated key keeps its first place and its last value, as the whole read
///   keeps it (a large object's keys, decoded, and its members' spans are kept for that);
/// - a large object that is a typed value with ``JSONReader/Options/typedValues``
///   (`{"__type":"Date"|"Bytes",…}`, `{"CF$UID":N}`) is read whole, as one value;
/// - an error of a piece (a malformed typed value) is the whole read's, with the key path
///   from the root; an error that `visit` throws (a writer's) is held until the document is
///   read, so that a reading error after it wins, as in read-then-write.
///
/// ```swift
/// if let document = JSONLargeDocument.scan(bytes, options: .init(), threshold: 1 << 20) {
///     try document.walk { event throws(PFError) in print(event) }
/// }
/// ```
public struct JSONLargeDocument {
    /// What the walk meets, in document order (shared with the binary property list walk).
    public typealias Event = PFDocumentEvent

    /// A large container: one past its closing bracket, and its member count as written.
    struct Span {
        var end: Int
        var count: Int
    }

    let bytes: UnsafeRawBufferPointer
    let p: UnsafePointer<UInt8>
    let options: JSONReader.Options
    /// The large containers, by the offset of their opening bracket.
    let large: [Int: Span]
    /// Where the root value starts.
    let root: Int
    /// The order in which a large object's members are visited, given its keys (default: as
    /// written); a deterministic CBOR map sorts them.
    public var keyOrder: (([String]) -> [Int])?

    /// The largest run of small array elements read in one go.
    static let batchBytes = 1 << 16

    /// Validates `bytes` and finds its large containers.
    /// - Parameters:
    ///   - bytes: UTF-8 JSON text; it must stay valid while the result is used.
    ///   - options: the read's settings (strict mode; duplicate keys not rejected).
    ///   - threshold: a container whose text is longer than this many bytes is walked.
    /// - Returns: the document, or `nil` when the whole read should read it: its root is not
    ///   a large container, the options or the document's keys need the whole read, or it
    ///   does not validate (the whole read then reports the error).
    public static func scan(_ bytes: UnsafeRawBufferPointer, options: JSONReader.Options, threshold: Int) -> JSONLargeDocument? {
        guard options.mode == .strict, !options.rejectDuplicateKeys, !options.wideIntegersAsDoubles,
            bytes.count > threshold, bytes.count <= options.limits.maxInputBytes, bytes.count < Int(Int32.max),
            let base = bytes.baseAddress
        else { return nil }
        var scanner = JSONScanner(bytes: bytes, base: base, options: options)
        var recorder = LargeContainerRecorder(threshold: max(0, threshold))
        guard let scan = try? scanner.scan(into: &recorder),
            // U+0000 in keys: the whole read picks a stand-in for the document.
            scan.nulKeyEscapes.isEmpty,
            recorder.large[scan.start] != nil
        else { return nil }
        var read = options
        read.parallel = false
        let document = JSONLargeDocument(
            bytes: bytes, p: base.assumingMemoryBound(to: UInt8.self), options: read, large: recorder.large, root: scan.start)
        // A root that is a typed value is one value: the whole read's.
        if options.typedValues, document.p[scan.start] == UInt8(ascii: "{") {
            let decoder = JSONScanner(bytes: bytes, base: base, options: read)
            var keys: [String] = []
            for member in document.members(ofObjectAt: scan.start) {
                let key = String(decoding: decoder.decodeString(member.key.lowerBound, member.key.upperBound), as: UTF8.self)
                if !keys.contains(key) { keys.append(key) }
                if keys.count > 2 { break }
            }
            if Walker.mayBeTyped(keys) { return nil }
        }
        return document
    }

    /// The number of large containers (the root included).
    public var largeContainers: Int { large.count }

    /// Walks the document, handing each event to `visit`.
    /// - Parameter visit: receives the events; what it throws is held until the whole
    ///   document has been read, then thrown (with the key path of the event).
    /// - Throws: ``PFCore/PFError`` from reading a piece, as ``JSONReader/read(_:)-(Data)``
    ///   throws it for the whole document, or the first error `visit` threw.
    public func walk(_ visit: (Event) throws(PFError) -> Void) throws(PFError) {
        let session = JSONReader.Session(reader: JSONReader(options: options))
        let result: Result<Void, PFError> = withoutActuallyEscaping(visit) { visit in
            Result { () throws(PFError) in
                var walker = Walker(document: self, session: session, visit: visit)
                try walker.container(at: root, large[root] ?? Span(end: bytes.count, count: 0))
                if let held = walker.held { throw held }
            }
        }
        try result.get()
    }

    // MARK: - Skipping

    /// One past the value that starts at `i` (the document is valid).
    func valueEnd(_ i: Int) -> Int {
        if let span = large[i] { return span.end }
        let n = bytes.count
        var j = i
        switch p[i] {
        case UInt8(ascii: "\""):
            return stringEnd(i)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while j < n {
                switch p[j] {
                case UInt8(ascii: "\""):
                    j = stringEnd(j)
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return j + 1 }
                default: break
                }
                j += 1
            }
            return n
        default:
            while j < n {
                switch p[j] {
                case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), 0x20, 0x09, 0x0A, 0x0D: return j
                default: j += 1
                }
            }
            return n
        }
    }

    /// One past the closing quote of the string that opens at `i`.
    func stringEnd(_ i: Int) -> Int {
        var j = i + 1
        let n = bytes.count
        while j < n {
            let c = p[j]
            if c == UInt8(ascii: "\"") { return j + 1 }
            j += c == UInt8(ascii: "\\") ? 2 : 1
        }
        return n
    }

    /// The first byte at or after `i` that is not JSON white space.
    func skipSpace(_ i: Int) -> Int {
        var j = i
        while j < bytes.count, p[j] == 0x20 || p[j] == 0x09 || p[j] == 0x0A || p[j] == 0x0D { j += 1 }
        return j
    }

    /// The members of the large object at `start`: each key's text span and its value's.
    func members(ofObjectAt start: Int) -> [(key: Range<Int>, value: Range<Int>)] {
        var members: [(key: Range<Int>, value: Range<Int>)] = []
        var i = skipSpace(start + 1)
        while i < bytes.count, p[i] == UInt8(ascii: "\"") {
            let keyEnd = stringEnd(i)
            let valueStart = skipSpace(skipSpace(keyEnd) + 1)  // past the colon
            let valueEnd = valueEnd(valueStart)
            members.append((i..<keyEnd, valueStart..<valueEnd))
            i = skipSpace(valueEnd)
            guard i < bytes.count, p[i] == UInt8(ascii: ",") else { break }
            i = skipSpace(i + 1)
        }
        return members
    }
}

// MARK: - The walk

extension JSONLargeDocument {
    struct Walker {
        let document: JSONLargeDocument
        let session: JSONReader.Session
        let visit: (Event) throws(PFError) -> Void
        /// The key path of the current place, for errors.
        var path: [PFKeyPath.Component] = []
        /// The first error `visit` threw; later events are not visited.
        var held: PFError?
        /// Room for a run of small elements wrapped in brackets.
        var scratch: [UInt8] = []
        /// Decodes a large object's keys (escapes included).
        let keyDecoder: JSONScanner

        init(document: JSONLargeDocument, session: JSONReader.Session, visit: @escaping (Event) throws(PFError) -> Void) {
            self.document = document
            self.session = session
            self.visit = visit
            keyDecoder = JSONScanner(bytes: document.bytes, base: UnsafeRawPointer(document.p), options: document.options)
        }

        mutating func emit(_ event: Event) {
            guard held == nil else { return }
            do throws(PFError) {
                try visit(event)
            } catch {
                held = error.prefixed(by: PFKeyPath(path))
            }
        }

        /// Reads the value spanning `range` as the whole read reads it.
        func read(_ range: Range<Int>) throws(PFError) -> PFValue {
            do throws(PFError) {
                return try session.read(UnsafeRawBufferPointer(rebasing: document.bytes[range]))
            } catch {
                throw placed(error, shift: range.lowerBound)
            }
        }

        /// A piece's error, at its place in the document.
        func placed(_ error: PFError, shift: Int) -> PFError {
            var e = error.prefixed(by: PFKeyPath(path))
            if let offset = error.location?.offset { e.location = JSONError.location(offset + shift, in: document.bytes) }
            return e
        }

        /// Walks the member (or element) whose value spans `range`.
        mutating func member(_ range: Range<Int>) throws(PFError) {
            if let span = document.large[range.lowerBound] { return try container(at: range.lowerBound, span) }
            emit(.value(try read(range)))
        }

        mutating func container(at start: Int, _ span: Span) throws(PFError) {
            if document.p[start] == UInt8(ascii: "[") { return try array(at: start, span) }
            let members = document.members(ofObjectAt: start)
            var keys: [String] = []
            var values: [Range<Int>] = []
            keys.reserveCapacity(members.count)
            values.reserveCapacity(members.count)
            var seen: [String: Int] = [:]
            for member in members {
                let key = String(decoding: keyDecoder.decodeString(member.key.lowerBound, member.key.upperBound), as: UTF8.self)
                // A repeated key keeps its first place and takes the last value (Swift's
                // string equality, as the whole read's dictionary).
                if let at = seen[key] {
                    values[at] = member.value
                } else {
                    seen[key] = keys.count
                    keys.append(key)
                    values.append(member.value)
                }
            }
            seen = [:]
            if document.options.typedValues, Self.mayBeTyped(keys) {
                // Read whole, so it becomes the typed value (or fails) as in the whole read.
                emit(.value(try read(start..<span.end)))
                return
            }
            emit(.open(isObject: true, count: keys.count))
            let order = document.keyOrder?(keys) ?? Array(keys.indices)
            for k in order {
                path.append(.key(keys[k]))
                emit(.key(keys[k]))
                try member(values[k])
                path.removeLast()
            }
            emit(.close)
        }

        /// Whether an object of these distinct keys can be a typed value.
        static func mayBeTyped(_ keys: [String]) -> Bool {
            switch keys.count {
            case 1: keys[0] == "CF$UID"
            case 2: keys.contains("__type") && (keys.contains("iso") || keys.contains("base64"))
            default: false
            }
        }

        mutating func array(at start: Int, _ span: Span) throws(PFError) {
            emit(.open(isObject: false, count: span.count))
            let d = document
            var i = d.skipSpace(start + 1)
            var index = 0
            // Runs of small elements are read together, as one array.
            var run: (start: Int, end: Int, first: Int)?
            while i < d.bytes.count, d.p[i] != UInt8(ascii: "]") {
                let end = d.valueEnd(i)
                if d.large[i] != nil {
                    if let pending = run { try readRun(pending, through: index - 1) }
                    run = nil
                    path.append(.index(index))
                    try member(i..<end)
                    path.removeLast()
                } else if let pending = run {
                    if end - pending.start > JSONLargeDocument.batchBytes {
                        try readRun(pending, through: index - 1)
                        run = (i, end, index)
                    } else {
                        run = (pending.start, end, pending.first)
                    }
                } else {
                    run = (i, end, index)
                }
                index += 1
                i = d.skipSpace(end)
                guard i < d.bytes.count, d.p[i] == UInt8(ascii: ",") else { break }
                i = d.skipSpace(i + 1)
            }
            if let pending = run { try readRun(pending, through: index - 1) }
            emit(.close)
        }

        /// Reads the small elements `run.first...last`, whose text spans `run.start..<run.end`.
        mutating func readRun(_ run: (start: Int, end: Int, first: Int), through last: Int) throws(PFError) {
            if run.first == last {
                path.append(.index(last))
                emit(.value(try read(run.start..<run.end)))
                path.removeLast()
                return
            }
            scratch.removeAll(keepingCapacity: true)
            scratch.append(UInt8(ascii: "["))
            scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: document.bytes[run.start..<run.end]))
            scratch.append(UInt8(ascii: "]"))
            let value = try? scratch.withUnsafeBytes { raw throws(PFError) in try session.read(raw) }
            guard case .array(let items)? = value, items.count == last - run.first + 1 else {
                // An element fails: read them one at a time, so the error names it as the whole read does.
                var i = run.start
                for k in run.first...last {
                    let end = document.valueEnd(i)
                    path.append(.index(k))
                    emit(.value(try read(i..<end)))
                    path.removeLast()
                    i = document.skipSpace(end)
                    if i < document.bytes.count, document.p[i] == UInt8(ascii: ",") { i = document.skipSpace(i + 1) }
                }
                return
            }
            for (k, item) in items.enumerated() {
                path.append(.index(run.first + k))
                emit(.value(item))
                path.removeLast()
            }
        }
    }
}

// MARK: - Finding the large containers

/// The scan's sink that keeps the containers longer than a threshold.
struct LargeContainerRecorder: JSONScanSink {
    let threshold: Int
    var large: [Int: JSONLargeDocument.Span] = [:]
    private var open: [Int] = []

    init(threshold: Int) {
        self.threshold = threshold
    }

    @inline(__always) mutating func open(_ kind: JSONNode.Kind, start: Int) { open.append(start) }
    @inline(__always) mutating func empty(_ kind: JSONNode.Kind, start: Int, end: Int) {}
    @inline(__always) mutating func close(members: Int, end: Int) {
        guard let start = open.popLast(), end - start > threshold else { return }
        large[start] = JSONLargeDocument.Span(end: end, count: members)
    }
    @inline(__always) mutating func key(start: Int, end: Int) {}
    @inline(__always) mutating func string(start: Int, end: Int) {}
    @inline(__always) mutating func number(start: Int, end: Int) {}
    @inline(__always) mutating func literal(_ kind: JSONNode.Kind, _ value: Bool, start: Int) {}
}
