import Foundation
import PFCore

// MARK: - Walking a stream by its large containers

extension TypedStream {
    /// Decodes a typedstream as ``decodeValue(_:limits:)`` does, handing the value out as
    /// events instead of a tree: every `NSArray`/`NSSet`, and every `NSDictionary` whose keys
    /// are distinct strings, whose literal spans more than `threshold` bytes of the stream is
    /// opened, its members handed out one by one; everything else comes whole, as
    /// ``PFCore/PFDocumentEvent/value(_:)``. The events, written by a document writer, give
    /// the bytes the tree would.
    ///
    /// The stream is first read whole with the whole read's checks and errors, keeping no
    /// values (an index of a few bytes per object); objects are then read back from `data`
    /// as the conversion reaches them, so memory is the input, the index and the pieces.
    /// - Parameters:
    ///   - data: the typedstream (mapped, for a file).
    ///   - limits: as ``decodeValue(_:limits:)`` takes them.
    ///   - threshold: the span, in bytes of the stream, above which a container is walked.
    ///   - visit: receives the events; an error it throws ends the walk's output, and is
    ///     thrown at the end unless the conversion fails after it (the tree's conversion
    ///     comes before its writing, so its errors come first).
    /// - Returns: `false`, having handed out nothing, when the stream is larger than
    ///   `limits.maxInputBytes` (or 4 GiB), or its root is not one array or dictionary
    ///   walked as above (convert it whole).
    /// - Throws: ``PFCore/PFError`` as ``decodeValue(_:limits:)`` throws, then what `visit` throws.
    public static func walk(
        _ data: Data, limits: PFLimits = .default, threshold: Int, visit: (PFDocumentEvent) throws(PFError) -> Void
    ) throws(PFError) -> Bool {
        guard data.count <= limits.maxInputBytes, data.count <= TypedStreamIndex.maxBytes else { return false }
        return try data.withBytes { buffer throws(PFError) -> Bool in
            var reader = TypedStreamReader(bytes: buffer, limits: limits, table: TypedStreamIndex())
            let header = try reader.readHeader()
            let roots = try reader.readRoots()
            let objects = TypedStreamLazyObjects(bytes: buffer, limits: limits, index: reader.entries, bigEndian: header.bigEndian)
            var walk = TypedStreamWalk(converter: TypedStreamValueConverter(document: objects, limits: limits), threshold: threshold)
            guard roots.count == 1, let only = roots.first, only.values.count == 1, case .object(let root)? = only.values.first,
                walk.isWalked(root)
            else { return false }
            walk.converter.counts = TypedStreamReferenceCounts(entries: objects.entryCount)
            walk.converter.countReferences(from: [root])
            try PFDocumentEmitter.run(visit) { emitter throws(PFError) in
                var output = TypedStreamWalk.Output(emitter: emitter)
                try walk.object(root, depth: 1, into: &output)
                if let failure = objects.failure { throw failure }
                if let failure = output.failure { throw failure }
            }
            return true
        }
    }
}

/// The converter's walk: ``TypedStreamValueConverter/object(_:depth:)`` and
/// ``TypedStreamValueConverter/raw(_:depth:)`` again, the same steps in the same order (so the
/// same `$id`s, node counts and errors), with large containers handed out as events.
struct TypedStreamWalk {
    var converter: TypedStreamValueConverter<TypedStreamLazyObjects>
    let threshold: Int

    /// Where the events go: after the visitor's first error, nowhere (the conversion goes on,
    /// since an error of its own would come first in the tree route).
    struct Output {
        var emitter: PFDocumentEmitter
        var failure: PFError?

        mutating func send(_ event: PFDocumentEvent) {
            guard failure == nil else { return }
            do throws(PFError) { try emitter.emit(event) } catch { failure = error }
        }
    }

    var index: TypedStreamIndex { converter.document.index }

    /// Whether an object is walked rather than written whole: a large literal whose Foundation
    /// form is an array, or a dictionary of distinct string keys (in the tree, a repeated
    /// key keeps its first place and its last value; such a dictionary is written whole).
    func isWalked(_ i: Int) -> Bool {
        guard i >= 0, i < index.count, index.kinds[i] == 0, Int(index.aux[i]) - Int(index.offsets[i]) > threshold else { return false }
        return keys(of: i) != nil
    }

    /// The object's members' keys if it is walked: `[]` for an array, the keys for a
    /// dictionary of distinct string keys; `nil` otherwise.
    func keys(of i: Int) -> [String]? {
        switch converter.document.foundationObject(at: i) {
        case .array?: return []
        case .dictionary(let pairs)?:
            var keys: [String] = []
            var seen = Set<String>()
            for pair in pairs {
                guard case .object(let k) = pair.key, case .string(let key)? = converter.document.foundationObject(at: k),
                    seen.insert(key).inserted
                else { return nil }
                keys.append(key)
            }
            return keys
        default: return nil
        }
    }

    /// A raw value in a group, as ``TypedStreamValueConverter/raw(_:depth:)`` converts it.
    mutating func raw(_ value: TypedStreamValue, depth: Int, into output: inout Output) throws(PFError) {
        if case .object(let i) = value, isWalked(i) {
            try object(i, depth: depth + 1, into: &output)
        } else {
            output.send(.value(try converter.raw(value, depth: depth)))
        }
    }

    /// An object, as ``TypedStreamValueConverter/object(_:depth:)`` converts it.
    mutating func object(_ i: Int, depth: Int, into output: inout Output) throws(PFError) {
        let opened = try converter.open(i, depth: depth)
        guard case .container(let entry, let chain, let foundation, let id) = opened else {
            if case .done(let value) = opened { output.send(.value(value)) }
            return
        }
        let members: [(key: TypedStreamValue?, value: TypedStreamValue)]
        switch foundation {
        case .array(let items, _)?: members = items.map { (nil, $0) }
        case .dictionary(let pairs)? where keys(of: i) != nil: members = pairs.map { ($0.key, $0.value) }
        default:
            output.send(.value(try converter.container(entry, chain: chain, foundation: foundation, id: id, depth: depth)))
            return
        }
        try converter.collection(members.count, at: entry.offset)
        if let id {
            // {"$id": N, "$value": …}, as TypedStreamValueConverter.wrap makes it.
            output.send(.open(isObject: true, count: 2))
            output.send(.key("$id"))
            output.send(.value(.int(Int64(id))))
            output.send(.key("$value"))
            output.emitter.enter(.key("$value"))
        }
        let isObject = if case .dictionary? = foundation { true } else { false }
        output.send(.open(isObject: isObject, count: members.count))
        for (n, member) in members.enumerated() {
            if let key = member.key {
                let name = try converter.raw(key, depth: depth).stringValue ?? ""
                output.send(.key(name))
                output.emitter.enter(.key(name))
            } else {
                output.emitter.enter(.index(n))
            }
            try raw(member.value, depth: depth, into: &output)
            output.emitter.leave()
        }
        output.send(.close)
        if id != nil {
            output.emitter.leave()
            output.send(.close)
        }
    }
}
