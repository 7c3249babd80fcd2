import Foundation
import PFCore

/// CBOR sequences (RFC 8742): data items one after another, with nothing between or around
/// them — the streaming form of CBOR, as JSON Lines is of JSON.
///
/// Reading runs the ordinary CBOR scanner over one item at a time, so every item is checked
/// as ``CBORReader/read(_:)`` checks a document (within the same ``PFCore/PFLimits``, per
/// item); shared values (tags 28/29) do not reach across items. Writing is
/// ``CBORWriter/write(_:)`` per item.
///
/// ```swift
/// var reader = CBORSequence.Reader(limits: .default)
/// try reader.feed(chunk) { value, index throws(PFError) in print(index, value) }
/// try reader.finish { value, index throws(PFError) in print(index, value) }
/// ```
public enum CBORSequence {
    /// Writes values as a CBOR sequence.
    /// - Parameters:
    ///   - values: the items.
    ///   - options: the CBOR writer's options (`selfDescribe` is not written per item).
    /// - Returns: the items' bytes, concatenated.
    /// - Throws: ``PFCore/PFError`` as ``CBORWriter/write(_:)`` does, with the item's index in the path.
    public static func write<S: Sequence<PFValue>>(_ values: S, options: CBORWriter.Options = .init()) throws(PFError) -> Data {
        var options = options
        options.selfDescribe = false
        let writer = CBORWriter(options: options)
        var out = Data()
        for (i, value) in values.enumerated() {
            do throws(PFError) {
                out.append(try writer.write(value))
            } catch {
                throw error.prefixed(by: PFKeyPath([.index(i)]))
            }
        }
        return out
    }

    /// Reads a whole CBOR sequence (0 bytes is the empty sequence).
    /// - Parameters:
    ///   - bytes: the sequence.
    ///   - limits: budgets per item (`maxInputBytes` bounds one item).
    /// - Returns: the items.
    /// - Throws: as ``Reader/feed(_:_:)`` and ``Reader/finish(_:)`` do.
    public static func read(_ bytes: Data, limits: PFLimits = .default) throws(PFError) -> [PFValue] {
        var reader = Reader(limits: limits)
        var values: [PFValue] = []
        try bytes.withBytes { raw throws(PFError) in try reader.feed(raw) { value, _ throws(PFError) in values.append(value) } }
        try reader.finish { value, _ throws(PFError) in values.append(value) }
        return values
    }

    /// Reads a CBOR sequence that arrives in chunks of any size, holding only the item being
    /// read: an item cut by a chunk edge is kept until the bytes that complete it arrive.
    public struct Reader {
        /// An item handler: the item's value and its 0-based index in the sequence.
        public typealias ItemHandler = (PFValue, Int) throws(PFError) -> Void

        /// Budgets per item.
        public let limits: PFLimits
        /// Items read so far.
        public private(set) var itemCount = 0
        /// Each tag number in the items read so far, with how many times it occurs (as
        /// ``CBORInfo/tags`` counts a document's).
        public private(set) var tagCounts: [UInt64: Int] = [:]
        /// How many `undefined` values the items read so far hold (each read as null).
        public private(set) var undefinedValues = 0
        /// Bytes fed so far.
        public private(set) var bytesFed = 0
        private var buffer: [UInt8] = []
        /// The input offset of `buffer[0]`.
        private var bufferOffset = 0
        /// The pending bytes when the last item was found incomplete: the scan waits until
        /// twice as many have arrived, so a large item is rescanned only a few times.
        private var waitFor = 0

        /// Makes a reader.
        /// - Parameter limits: budgets per item (`maxInputBytes` bounds one item).
        public init(limits: PFLimits = .default) {
            self.limits = limits
        }

        /// Reads the items that are complete after one more chunk.
        /// - Parameters:
        ///   - chunk: the next bytes.
        ///   - body: receives each item.
        /// - Throws: ``PFCore/PFError`` as ``CBORReader/read(_:)`` does (offsets in the whole
        ///   input, the item's index in the path and message), `limitExceeded` for an item
        ///   larger than `maxInputBytes`, or what `body` throws.
        public mutating func feed(_ chunk: UnsafeRawBufferPointer, _ body: ItemHandler) throws(PFError) {
            bytesFed += chunk.count
            buffer.append(contentsOf: chunk)
            guard buffer.count >= waitFor else { return }
            try scan(final: false, body)
        }

        /// Ends the input: an item left incomplete is an error.
        /// - Parameter body: receives the items still pending.
        /// - Throws: ``PFCore/PFError`` `truncated` when the input ends inside an item, or as
        ///   ``feed(_:_:)`` does.
        public mutating func finish(_ body: ItemHandler) throws(PFError) {
            try scan(final: true, body)
        }

        private mutating func scan(final: Bool, _ body: ItemHandler) throws(PFError) {
            var start = 0
            defer {
                if start > 0 {
                    buffer.removeSubrange(0..<start)
                    bufferOffset += start
                }
            }
            while start < buffer.count {
                let found: (value: PFValue, end: Int, tags: [UInt64: Int], undefined: Int)?
                let limits = limits
                let index = itemCount
                let itemOffset = bufferOffset + start
                found = try buffer.withBytes { raw throws(PFError) -> (value: PFValue, end: Int, tags: [UInt64: Int], undefined: Int)? in
                    guard let base = raw.baseAddress else { return nil }
                    var scanner = CBORScanner(base: base + start, count: raw.count - start, limits: limits)
                    do throws(PFError) {
                        let value = try scanner.value(depth: 0)
                        return (value, start + scanner.pos, scanner.tagCounts, scanner.undefinedCount)
                    } catch where error.code == .truncated && !final {
                        return nil
                    } catch {
                        var placed = error.prefixed(by: PFKeyPath([.index(index)]))
                        placed.message = "item \(index): " + placed.message
                        placed.location = PFError.Location(offset: itemOffset + (error.location?.offset ?? 0))
                        throw placed
                    }
                }
                guard let found else {
                    let pending = buffer.count - start
                    guard pending <= limits.maxInputBytes else {
                        throw PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: CBORScanner.format, offset: itemOffset)
                    }
                    waitFor = 2 * pending
                    return
                }
                guard found.end - start <= limits.maxInputBytes else {
                    throw PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: CBORScanner.format, offset: itemOffset)
                }
                start = found.end
                waitFor = 0
                itemCount += 1
                tagCounts.merge(found.tags, uniquingKeysWith: +)
                undefinedValues += found.undefined
                try body(found.value, index)
            }
        }
    }
}
