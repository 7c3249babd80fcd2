import Foundation
import PFCore

// MARK: - Walking a document by its large containers

extension XMLPlistReader {
    /// Reads a document a piece at a time: every `<array>` or `<dict>` whose text (start tag
    /// to end tag) is longer than `threshold` bytes is walked member by member, and every
    /// other value — each member of a large container that is not itself large — is read
    /// whole, by the scanner ``read(_:)`` runs, and handed to `visit`, so memory is the
    /// document's (mapped) bytes, the largest piece and a few bytes per large container,
    /// never the tree.
    ///
    /// The document is checked first by ``read(_:)``'s own scanner keeping no values — every
    /// check in the same order, with the same errors, line, column and key path: the prolog,
    /// DOCTYPE and entities, the elements the property-list vocabulary allows where they
    /// stand, `<key>` pairing, text (references, CDATA, comments, UTF-8), scalars, the depth,
    /// node, collection and string limits, and repeated keys (a hash of each key of the open
    /// dictionaries is kept, and a repeat of a hash is confirmed by reading the keys again).
    /// Only then are events handed out, each piece the value ``read(_:)`` has at its place
    /// (a `CF$UID` dictionary is one piece, a UID). A document that is not UTF-8 fails as
    /// ``read(_:)`` fails: nothing is transcoded.
    /// - Parameters:
    ///   - bytes: the document (mapped for a file: only the pages read are touched).
    ///   - threshold: a container of more bytes of text than this is walked (tests make it small).
    ///   - keyOrder: the order in which a large dictionary's members are visited, given its
    ///     keys (`nil`: as written); a deterministic CBOR map sorts them.
    ///   - visit: receives the events.
    /// - Returns: `false`, having visited nothing, when the root is not a container of more
    ///   than `threshold` bytes (read the document whole).
    /// - Throws: ``PFError`` as ``read(_:)`` throws it, before any event; then what `visit`
    ///   throws, with the key path of its event's place prefixed.
    public func walk(
        _ bytes: Data, threshold: Int, keyOrder: (([String]) -> [Int])? = nil, visit: (PFDocumentEvent) throws(PFError) -> Void
    ) throws(PFError) -> Bool {
        let limits = options.limits
        guard bytes.count <= limits.maxInputBytes else {
            throw PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: XMLPlistScanner.formatName, offset: 0)
        }
        return try bytes.withBytes { raw throws(PFError) -> Bool in
            var checker = XMLPlistScanner(raw, limits: limits)
            checker.check = XMLPlistCheck(threshold: max(0, threshold))
            do throws(PFError) {
                _ = try checker.readDocument()
            } catch {
                throw checker.locate(error)
            }
            let large = checker.check?.large ?? [:]
            // The walk: everything was checked, so pieces are read without depth or node
            // limits (a piece's own depth starts at 0).
            var unbounded = limits
            unbounded.maxDepth = .max
            unbounded.maxNodes = .max
            var walker = XMLPlistWalker(scanner: XMLPlistScanner(raw, limits: unbounded), large: large, keyOrder: keyOrder)
            do throws(XMLPlistWalker.Failure) {
                guard let root = try walker.root() else { return false }
                try walker.walk(root, visit: visit)
            } catch {
                switch error {
                case .reading(let error): throw walker.scanner.locate(error)
                case .visiting(let error): throw error
                }
            }
            return true
        }
    }
}

// MARK: - The check

/// What a check (``XMLPlistReader/walk(_:threshold:keyOrder:visit:)``'s first pass) notes:
/// the containers whose text is longer than the threshold.
struct XMLPlistCheck {
    /// A large container: one past its end tag, and its member count.
    struct Span {
        var end: Int
        var count: Int
    }

    let threshold: Int
    /// The large containers, by the offset of their start tag's `<`.
    var large: [Int: Span] = [:]
}

extension XMLPlistScanner {
    /// A check's member of the innermost dictionary: counted, its key's hash kept.
    /// - Returns: whether the key is repeated (the whole read's `duplicateKey`).
    mutating func checkMember(_ key: String, _ value: PFValue) throws(PFError) -> Bool {
        let top = stack.count - 1
        if stack[top].checked == 0, key == "CF$UID" {
            switch value {
            case .int(let n) where n >= 0: stack[top].uidMember = true
            case .uint: stack[top].uidMember = true
            default: break
            }
        }
        stack[top].checked += 1
        guard !stack[top].keyHashes.insert(key.hashValue).inserted else { return false }
        return try keyRepeats(key, inDictionaryAt: stack[top].openOffset, before: stack[top].keyOffset)
    }

    /// Whether a key of the dictionary that opens at `open`, before the `<key>` at `end`,
    /// equals `key` (Swift's string equality, as the whole read's dictionary): a repeated
    /// hash is confirmed by reading the keys again.
    func keyRepeats(_ key: String, inDictionaryAt open: Int, before end: Int) throws(PFError) -> Bool {
        var again = XMLPlistScanner(bytes, limits: limits)
        again.check = XMLPlistCheck(threshold: .max)
        again.pos = open
        _ = try again.readStartTag()
        while true {
            try again.skipMisc()
            let tag = try again.readStartTag()
            guard tag.offset < end else { return false }
            let name = tag.isEmpty ? "" : try again.readString(.key, openOffset: tag.offset)
            if name == key {
                // One key to Swift, spelled otherwise ("caf\u{E9}", "cafe\u{301}"): no repeat,
                // but a dictionary cannot hold both.
                if PFEquivalentKeys.differ(name, key) { throw PFEquivalentKeys.error(name, key, format: XMLPlistScanner.formatName, offset: end) }
                return true
            }
            try again.skipMisc()
            _ = try again.readValue(startingWith: try again.readStartTag())
        }
    }

    /// A check's closed container: noted when its text is longer than the threshold and it
    /// is not a UID (which is one value).
    /// - Returns: a stand-in for its value (no container is kept).
    mutating func checked(_ frame: XMLPlistFrame) -> PFValue {
        let isUID = frame.isDictionary && frame.uidMember && frame.checked == 1
        if !isUID, let threshold = check?.threshold, pos - frame.openOffset > threshold {
            check?.large[frame.openOffset] = XMLPlistCheck.Span(end: pos, count: frame.checked)
        }
        return .null
    }
}

// MARK: - The walk

/// Hands out the events of a checked document (``XMLPlistReader/walk(_:threshold:keyOrder:visit:)``).
struct XMLPlistWalker {
    /// Why the walk stopped: a reading error (none is expected after the check), or the
    /// visitor's, already placed.
    enum Failure: Error {
        case reading(PFError)
        case visiting(PFError)
    }

    var scanner: XMLPlistScanner
    let large: [Int: XMLPlistCheck.Span]
    let keyOrder: (([String]) -> [Int])?
    /// The key path of the current place, for a visitor's errors.
    var path: [PFKeyPath.Component] = []

    /// The root value's start tag (inside `<plist>`, if any), when it is a large container.
    mutating func root() throws(Failure) -> XMLPlistStartTag? {
        let tag = try reading { (s: inout XMLPlistScanner) throws(PFError) -> XMLPlistStartTag in
            try s.readProlog()
            let tag = try s.readStartTag()
            guard tag.element == .plist else { return tag }
            try s.skipMisc()
            return try s.readStartTag()
        }
        return large[tag.offset] == nil ? nil : tag
    }

    func emit(_ event: PFDocumentEvent, _ visit: (PFDocumentEvent) throws(PFError) -> Void) throws(Failure) {
        do throws(PFError) {
            try visit(event)
        } catch {
            throw .visiting(error.prefixed(by: PFKeyPath(path)))
        }
    }

    mutating func reading<R>(_ body: (inout XMLPlistScanner) throws(PFError) -> R) throws(Failure) -> R {
        do throws(PFError) {
            return try body(&scanner)
        } catch {
            throw .reading(error)
        }
    }

    /// Walks the value whose start tag was just read: a large container member by member,
    /// anything else as one piece.
    mutating func walk(_ tag: XMLPlistStartTag, visit: (PFDocumentEvent) throws(PFError) -> Void) throws(Failure) {
        guard let span = large[tag.offset] else {
            let value = try reading { (s: inout XMLPlistScanner) throws(PFError) in
                s.nodes = 0
                return try s.readValue(startingWith: tag)
            }
            return try emit(.value(value), visit)
        }
        let isObject = tag.element == .dict
        try emit(.open(isObject: isObject, count: span.count), visit)
        if isObject, let keyOrder {
            // Every key first (each small value read to find the next), then the members in order.
            var members: [(key: String, value: XMLPlistStartTag, at: Int)] = []
            while case let (key, value)? = try nextMember(isObject: true) {
                members.append((key ?? "", value, scanner.pos))
                if let inner = large[value.offset] {
                    scanner.pos = inner.end
                } else {
                    _ = try reading { (s: inout XMLPlistScanner) throws(PFError) in try s.readValue(startingWith: value) }
                }
            }
            for k in keyOrder(members.map(\.key)) {
                scanner.pos = members[k].at
                path.append(.key(members[k].key))
                try emit(.key(members[k].key), visit)
                try walk(members[k].value, visit: visit)
                path.removeLast()
            }
            scanner.pos = span.end
            return try emit(.close, visit)
        }
        var index = 0
        while case let (key, value)? = try nextMember(isObject: isObject) {
            if let key {
                path.append(.key(key))
                try emit(.key(key), visit)
            } else {
                path.append(.index(index))
                index += 1
            }
            try walk(value, visit: visit)
            path.removeLast()
        }
        try emit(.close, visit)
    }

    /// The next member of the large container being walked — its key (a dictionary's) and
    /// its value's start tag, just read — or `nil` past the container's end tag.
    mutating func nextMember(isObject: Bool) throws(Failure) -> (String?, XMLPlistStartTag)? {
        try reading { (s: inout XMLPlistScanner) throws(PFError) -> (String?, XMLPlistStartTag)? in
            try s.skipMisc()
            if s.startsEndTag() {
                try s.readEndTag(isObject ? .dict : .array, openOffset: s.pos)
                return nil
            }
            var tag = try s.readStartTag()
            var key: String?
            if isObject {
                key = tag.isEmpty ? "" : try s.readString(.key, openOffset: tag.offset)
                try s.skipMisc()
                tag = try s.readStartTag()
            }
            return (key, tag)
        }
    }
}
