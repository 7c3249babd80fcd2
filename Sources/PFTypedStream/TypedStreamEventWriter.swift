import Foundation
import PFCore

/// Writes a typedstream from a walk's events (``PFCore/PFDocumentEvent``) rather than from a
/// whole tree: the bytes ``TypedStream/encodeValue(_:limits:)`` writes for the document the
/// events describe, with only the open large containers and the archiver's tables in memory.
///
/// The whole writer's output is sequential — every object, class and string is numbered in
/// the order it is written, and a string or number is written in place each time — so a
/// large array or dictionary is an `NSArray` or `NSDictionary` whose count the event gives
/// and whose members follow one by one, each value read whole written by the whole writer
/// itself on the same archiver (same numbering, same `$id`s, same depth). Only a dictionary's
/// own keys can change how the whole writer writes it: `$id` (shared, written without that
/// key), `$ref` (a reference), `$class` (an object of that class, an `NSValue`, an `NSURL`).
/// A large dictionary with such a key, and a member the whole writer fails on (its error names
/// a key path from that member, not from the root), make ``take(_:)`` return `false`: the
/// output so far is not the whole route's, and the caller converts the document whole.
///
/// ```swift
/// var writer = TypedStreamEventWriter()
/// for event in events { guard writer.take(event) else { return convertWhole() } }
/// output.append(contentsOf: writer.drain())
/// ```
public struct TypedStreamEventWriter {
    private let archiver: ClassicArchiver
    /// The large containers open, outermost first: whether each is a dictionary.
    private var frames: [Bool] = []

    /// Makes a writer whose objects nest at most `maxDepth` deep, as the whole writer's
    /// (``TypedStream/encodeValue(_:limits:)`` with default limits) do.
    /// - Parameter maxDepth: the deepest nesting of objects.
    public init(maxDepth: Int = PFLimits.default.maxDepth) {
        archiver = ClassicArchiver(maxDepth: maxDepth)
    }

    /// The keys that decide how the whole writer writes a dictionary
    /// (``ClassicArchiver/writeTreeObject(_:)``).
    static let sharingKeys: Set<String> = ["$id", "$ref", "$class"]

    /// The number of bytes written and not yet drained.
    public var pending: Int { archiver.writer.bytes.count }

    /// Hands over the bytes written so far, keeping the numbering of what follows.
    /// - Returns: the bytes since the last drain.
    public func drain() -> [UInt8] {
        var out: [UInt8] = []
        swap(&out, &archiver.writer.bytes)
        return out
    }

    /// Writes what a walk met.
    /// - Parameter event: the next event, in document order.
    /// - Returns: `false` when the whole route writes the document otherwise (a large
    ///   dictionary with a `$id`, `$ref` or `$class` key) or fails on it (a member it cannot
    ///   write, nesting past the limit): what was written must be abandoned.
    public mutating func take(_ event: PFDocumentEvent) -> Bool {
        do {
            switch event {
            case .open(let isObject, let count):
                guard Int32(exactly: count) != nil, archiver.depth < archiver.maxDepth else { return false }
                beginMember()
                _ = archiver.writer.beginObject()
                archiver.writer.writeClassChain((isObject ? ClassicClassVersion.nsDictionary : ClassicClassVersion.nsArray).map { ($0.name, $0.version) })
                archiver.depth += 1
                archiver.encode(Int32(count))
                frames.append(isObject)
            case .key(let key):
                guard !Self.sharingKeys.contains(key) else { return false }
                try archiver.encode(key)
            case .value(let value):
                beginMember()
                try value.classicWrite(to: archiver)
            case .close:
                guard frames.popLast() != nil else { return true }
                archiver.depth -= 1
                archiver.writer.endObject()
            }
        } catch {
            return false
        }
        return true
    }

    /// The `@` type of the next value: the root group's, or a member's (a dictionary's key
    /// wrote its own).
    private func beginMember() {
        archiver.writer.writeEncodings([.object])
    }
}
