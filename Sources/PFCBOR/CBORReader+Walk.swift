import Foundation
import PFCore

// MARK: - Walking a document by its large containers

extension CBORReader {
    /// Reads a document a piece at a time: every array or map whose expanded tree has more
    /// than `threshold` nodes is walked member by member, and every other value — each member
    /// of a large container that is not itself large — is decoded whole and handed to
    /// `visit`, so memory is the input's (mapped) bytes, a few words per large container and
    /// per shareable value, and the largest piece, never the tree.
    ///
    /// The document is checked first, as ``read(_:)`` checks it and with its errors, without
    /// keeping any container: the same depth, node, collection and string limits (a shared
    /// value's nodes counted at every reference, as the whole read counts them), tags, UTF-8,
    /// indefinite lengths, map keys and their duplicates, trailing bytes. Only then are events
    /// handed out, each piece the value ``read(_:)`` has at its place: a shared value (tag 29)
    /// is walked, or decoded, again at each reference.
    /// - Parameters:
    ///   - bytes: the document's bytes (mapped for a file: only the pages read are touched).
    ///   - threshold: a container of more expanded nodes than this is walked (tests make it
    ///     small; ``PFCore/PFDocumentEmitter/largeNodes`` is the usual one).
    ///   - keyOrder: the order in which a large map's members are visited, given its keys
    ///     (`nil`: as stored); a deterministic CBOR output sorts them.
    ///   - visit: receives the events.
    /// - Returns: `false`, having visited nothing, when the root is not an array or map of
    ///   more than `threshold` nodes (read the document whole).
    /// - Throws: ``PFError`` as ``read(_:)`` throws it, before any event; then what `visit`
    ///   throws, with the key path of its event's place prefixed.
    public func walk(
        _ bytes: Data, threshold: Int, keyOrder: (([String]) -> [Int])? = nil, visit: (PFDocumentEvent) throws(PFError) -> Void
    ) throws(PFError) -> Bool {
        try CBORReader.scan(bytes, limits: options.limits) { (checker: inout CBORScanner) throws(PFError) -> Bool in
            // The check: the whole read's, measuring containers instead of building them.
            checker.measure = CBORMeasure(threshold: threshold)
            _ = try checker.document()
            let measure = checker.measure ?? CBORMeasure(threshold: threshold)
            checker.shareables = []
            // The walk: everything was checked, so pieces are decoded without depth or node
            // limits (a shared value read again at a deeper place passed the whole read).
            var unbounded = options.limits
            unbounded.maxDepth = .max
            unbounded.maxNodes = .max
            var scanner = CBORScanner(base: checker.base, count: checker.end, limits: unbounded)
            scanner.sharedContent = measure.sharedContent
            var walked = false
            try PFDocumentEmitter.run(visit) { emitter throws(PFError) in
                var walker = CBORWalker(scanner: scanner, large: measure.large, keyOrder: keyOrder, emitter: emitter)
                guard try walker.largeContainer(at: 0) != nil else { return }
                walked = true
                try walker.walk(0)
            }
            return walked
        }
    }
}

// MARK: - The check

/// What the check before a walk learns: the large containers and where shareable values start.
struct CBORMeasure {
    /// Containers of more expanded nodes than this are recorded.
    let threshold: Int
    /// The large containers, by the offset of their head.
    var large: [Int: CBORLargeContainer] = [:]
    /// Where the content of each shareable value (tag 28) starts, in the order they are marked.
    var sharedContent: [Int] = []
    /// The members of the container just checked (elements, or map members).
    var members = 0
}

/// A container the walk descends into: its members and where it ends (past the break of an
/// indefinite-length one).
struct CBORLargeContainer {
    var count: Int
    var end: Int
}

extension CBORScanner {
    /// Checks the array or map whose initial byte `initial` is at `start`, as the whole read
    /// reads it, keeping none of its members, and records it when its expanded tree has more
    /// nodes than the threshold.
    /// - Returns: an empty array or map, standing for the container where the whole read
    ///   looks only at its kind (a tag's content, a map key).
    mutating func measured(_ initial: UInt8, depth: Int, start: Int) throws(PFError) -> PFValue {
        let first = nodes  // this container's head is counted
        let shape = initial >> 5 == 4
            ? try array(initial & 0x1F, depth: depth, start: start)
            : try map(initial & 0x1F, depth: depth, start: start)
        if let threshold = measure?.threshold, nodes - first + 1 > threshold {
            let members = measure?.members ?? 0
            measure?.large[start] = CBORLargeContainer(count: members, end: pos)
        }
        return shape
    }
}

// MARK: - The walk

/// Hands out the events of a checked document (``CBORReader/walk(_:threshold:keyOrder:visit:)``).
struct CBORWalker: ~Copyable {
    /// Reads pieces and keys, following shared references to where their values stand.
    var scanner: CBORScanner
    let large: [Int: CBORLargeContainer]
    let keyOrder: (([String]) -> [Int])?
    var emitter: PFDocumentEmitter

    init(scanner: consuming CBORScanner, large: [Int: CBORLargeContainer], keyOrder: (([String]) -> [Int])?, emitter: PFDocumentEmitter) {
        self.scanner = scanner
        self.large = large
        self.keyOrder = keyOrder
        self.emitter = emitter
    }

    /// The large container the item at `offset` is, past the tags before it and through
    /// shared references, with where the item ends when a reference was followed; `nil` for
    /// any other item.
    mutating func largeContainer(at offset: Int) throws(PFError) -> (start: Int, resume: Int?)? {
        var at = offset
        var resume: Int?
        while at < scanner.end {
            let initial = scanner.byte(at: at)
            switch initial >> 5 {
            case 4, 5:
                return large[at] == nil ? nil : (at, resume)
            case 6:
                scanner.pos = at + 1
                let tag = try scanner.argument(initial & 0x1F, itemStart: at)
                // The check refused every tag that gives an array or map another meaning (a
                // date, a bignum, a UID, string references): any other tag before a container
                // stands for its content.
                guard tag == CBORTag.sharedReference else {
                    at = scanner.pos
                    continue
                }
                guard let shared = scanner.sharedContent, case .int(let index) = try scanner.value(depth: 0),
                    index >= 0, index < shared.count
                else { return nil }
                if resume == nil { resume = scanner.pos }
                at = shared[Int(index)]
            default:
                return nil
            }
        }
        return nil
    }

    /// Walks the item at `offset`: a large container member by member, anything else as one
    /// piece; leaves the scanner after the item.
    mutating func walk(_ offset: Int) throws(PFError) {
        guard let (start, resume) = try largeContainer(at: offset), let container = large[start] else {
            scanner.pos = offset
            return try emitter.emit(.value(try scanner.value(depth: 0)))
        }
        let initial = scanner.byte(at: start)
        scanner.pos = start + 1
        if initial & 0x1F != 31 { _ = try scanner.argument(initial & 0x1F, itemStart: start) }
        let isMap = initial >> 5 == 5
        try emitter.emit(.open(isObject: isMap, count: container.count))
        if !isMap {
            for i in 0..<container.count {
                emitter.enter(.index(i))
                try walk(scanner.pos)
                emitter.leave()
            }
        } else if let keyOrder {
            // Keys first (checked unique), with where each value starts, then the members in order.
            var keys: [String] = []
            var values: [Int] = []
            for _ in 0..<container.count {
                keys.append(try scanner.key(depth: 0))
                values.append(scanner.pos)
                try skip(scanner.pos)
            }
            for k in keyOrder(keys) {
                try member(keys[k], at: values[k])
            }
        } else {
            for _ in 0..<container.count {
                let key = try scanner.key(depth: 0)
                try member(key, at: scanner.pos)
            }
        }
        scanner.pos = resume ?? container.end
        try emitter.emit(.close)
    }

    /// Walks the member of a large map named `key` whose value is at `offset`.
    private mutating func member(_ key: String, at offset: Int) throws(PFError) {
        emitter.enter(.key(key))
        try emitter.emit(.key(key))
        try walk(offset)
        emitter.leave()
    }

    /// Moves the scanner past the item at `offset` (a large container by its recorded end).
    private mutating func skip(_ offset: Int) throws(PFError) {
        if let (start, resume) = try largeContainer(at: offset), let container = large[start] {
            scanner.pos = resume ?? container.end
        } else {
            scanner.pos = offset
            _ = try scanner.value(depth: 0)
        }
    }
}
