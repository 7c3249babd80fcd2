/// An append-only list of non-negative integers kept as variable-length differences, about
/// one byte per entry when each entry is near the one before it.
///
/// The stream writers keep one integer per object written (a binary property list's object
/// offsets, a keyed archive's object numbers and record UIDs) until the end of the file.
/// These lists rise steadily — an offset grows by the size of an object, a UID by one — so an
/// entry is stored as its difference from the previous entry (zigzag-encoded, so a step back
/// costs no more than a step forward) in LEB128: 1 byte for a step of -64…63, 2 up to
/// ±8,191, at most 10 bytes for any step. Entries are stored in chunks of ``chunkLength``,
/// each starting with its first entry in full and kept at its exact size once full, so the
/// list grows without copying or reserving what it has (an `[Int]` doubles, and holds 8
/// bytes per entry). Entries are read in order, by iterating.
package struct DeltaList: Sequence {
    /// Entries per chunk.
    package static let chunkLength = 4096

    /// The full chunks, each exactly as long as its bytes.
    private var chunks: [[UInt8]] = []
    /// The chunk being filled.
    private var open: [UInt8] = []
    /// The entries appended so far.
    package private(set) var count = 0
    /// The last entry appended (0 before the first).
    package private(set) var last = 0

    /// Makes an empty list.
    package init() {}

    /// The first entry, or `nil` when the list is empty.
    package var first: Int? {
        var iterator = makeIterator()
        return iterator.next()
    }

    /// The bytes the entries take (not counting each chunk's allocation overhead).
    package var byteCount: Int { chunks.reduce(open.count) { $0 + $1.count } }

    /// Appends an entry.
    /// - Parameter value: the entry; it must not be negative.
    package mutating func append(_ value: Int) {
        precondition(value >= 0, "DeltaList holds non-negative integers.")
        if count % Self.chunkLength == 0 {
            if count > 0 {
                chunks.append(Array(unsafeUninitializedCapacity: open.count) { buffer, initialized in
                    initialized = buffer.initialize(from: open).1
                })
                open.removeAll(keepingCapacity: true)
            }
            Self.appendLEB128(UInt64(value), to: &open)
        } else {
            // Both are in 0...Int.max, so the difference cannot overflow.
            let step = Int64(value - last)
            Self.appendLEB128(UInt64(bitPattern: step << 1 ^ step >> 63), to: &open)
        }
        last = value
        count += 1
    }

    private static func appendLEB128(_ value: UInt64, to bytes: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// An iterator over the entries, in the order they were appended.
    package func makeIterator() -> Iterator {
        Iterator(chunks: chunks, open: open, count: count, bytes: chunks.first ?? open)
    }

    /// Reads the entries in order.
    package struct Iterator: IteratorProtocol {
        let chunks: [[UInt8]]
        let open: [UInt8]
        let count: Int
        /// The chunk being read.
        var bytes: [UInt8]
        var index = 0
        var chunk = 0
        var offset = 0
        var value = 0

        /// The next entry, or `nil` after the last.
        package mutating func next() -> Int? {
            guard index < count else { return nil }
            var raw: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let byte = bytes[offset]
                offset += 1
                raw |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { break }
                shift += 7
            }
            if index % DeltaList.chunkLength == 0 {
                value = Int(truncatingIfNeeded: raw)
            } else {
                value += Int(truncatingIfNeeded: Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1))
            }
            index += 1
            if index % DeltaList.chunkLength == 0 {
                chunk += 1
                offset = 0
                bytes = chunk < chunks.count ? chunks[chunk] : open
            }
            return value
        }
    }
}
