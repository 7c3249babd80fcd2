import Foundation
import PFCore

// MARK: - Pass two: layout

extension BinaryPlistEncoder {
    /// Lays out the objects in index order, then the offset table and the trailer, in a
    /// `Data` of the file's size.
    ///
    /// The file's exact size is computed first (``layout()``) and the bytes are stored
    /// straight into the `Data`'s storage (``store(_:into:)``): appending a reference at a
    /// time cost more than everything else in a keyed archive's write, and building an array
    /// to copy into a `Data` held the file twice.
    func serializedData() -> Data {
        let layout = layout()
        var data = Data(count: layout.total)
        data.withUnsafeMutableBytes { raw in
            // `total` is at least the header and trailer, so the buffer has an address.
            guard let base = raw.baseAddress else { preconditionFailure("A binary property list is never empty.") }
            store(layout, into: base)
        }
        return data
    }

    /// The widths and offsets of the file's layout.
    struct Layout {
        var refSize: Int
        var tableOffset: Int
        var offsetSize: Int
        var total: Int
    }

    /// Sums the objects' sizes: the reference width, the offset table's place and width, the file's size.
    func layout() -> Layout {
        let numObjects = entries.count
        let refSize = Self.byteCount(numObjects)
        // Pass one: the size of the object area, hence the table offset and its width.
        var objectsEnd = BinaryPlistLayout.headerSize
        for entry in entries {
            switch entry.kind {
            case .scalar: objectsEnd += entry.count
            case .array: objectsEnd += Self.markerSize(entry.count) + entry.count * refSize
            case .dictionary: objectsEnd += Self.markerSize(entry.count) + 2 * entry.count * refSize
            }
        }
        let tableOffset = objectsEnd
        let offsetSize = Self.byteCount(tableOffset)
        let total = tableOffset + numObjects * offsetSize + BinaryPlistLayout.trailerSize
        return Layout(refSize: refSize, tableOffset: tableOffset, offsetSize: offsetSize, total: total)
    }

    /// Stores the file laid out by `layout` at `out`, which holds `layout.total` bytes.
    func store(_ layout: Layout, into out: UnsafeMutableRawPointer) {
        let numObjects = entries.count
        let (refSize, tableOffset, offsetSize, total) = (layout.refSize, layout.tableOffset, layout.offsetSize, layout.total)
        // Pass two. Every store below is one of the sizes summed above, in the same order, so
        // `o` never passes `total` (checked once at the end); each entry's scalar and ref
        // ranges were recorded as they were appended to `scalarBytes` and `refs`.
        do {
            var o = 0
            for byte in BinaryPlistLayout.magic {
                out.storeBytes(of: byte, toByteOffset: o, as: UInt8.self)
                o += 1
            }
            // The offset table is written as the objects are laid out.
            var entryOffset = tableOffset
            scalarBytes.withUnsafeBytes { scalars in
                refs.withUnsafeBufferPointer { refs in
                    for entry in entries {
                        Self.store(UInt64(o), size: offsetSize, at: entryOffset, in: out)
                        entryOffset += offsetSize
                        switch entry.kind {
                        case .scalar:
                            if entry.count > 0 {
                                (out + o).copyMemory(from: scalars.baseAddress! + entry.start, byteCount: entry.count)
                            }
                            o += entry.count
                        case .array, .dictionary:
                            let type: BinaryPlistMarker = entry.kind == .array ? .array : .dictionary
                            o = Self.storeMarker(type, count: entry.count, at: o, in: out)
                            let n = entry.kind == .array ? entry.count : 2 * entry.count
                            for ref in refs[entry.start..<(entry.start + n)] {
                                Self.store(UInt64(ref), size: refSize, at: o, in: out)
                                o += refSize
                            }
                        }
                    }
                }
            }
            o = entryOffset
            // Trailer: five unused bytes and the sort version (all zero), the two widths, then
            // numObjects, topObject (always 0: the root is flattened first) and the table offset.
            for _ in 0..<6 {
                out.storeBytes(of: 0, toByteOffset: o, as: UInt8.self)
                o += 1
            }
            out.storeBytes(of: UInt8(offsetSize), toByteOffset: o, as: UInt8.self)
            out.storeBytes(of: UInt8(refSize), toByteOffset: o + 1, as: UInt8.self)
            Self.store(UInt64(numObjects), size: 8, at: o + 2, in: out)
            Self.store(0, size: 8, at: o + 10, in: out)
            Self.store(UInt64(tableOffset), size: 8, at: o + 18, in: out)
            o += 26
            precondition(o == total, "The layout wrote \(o) bytes; its size was computed as \(total).")
        }
    }

    /// The bytes ``appendMarker(_:count:to:)`` writes for `count`.
    @inline(__always)
    static func markerSize(_ count: Int) -> Int {
        count < 15 ? 1 : 2 + (count <= 0xFF ? 1 : count <= 0xFFFF ? 2 : count <= 0xFFFF_FFFF ? 4 : 8)
    }

    /// Stores what ``appendMarker(_:count:to:)`` appends at `o` and returns the offset past it.
    @inline(__always)
    static func storeMarker(_ type: BinaryPlistMarker, count: Int, at o: Int, in out: UnsafeMutableRawPointer) -> Int {
        let high = type.rawValue << 4
        if count < 15 {
            out.storeBytes(of: high | UInt8(count), toByteOffset: o, as: UInt8.self)
            return o + 1
        }
        out.storeBytes(of: high | BinaryPlistMarker.extendedCount, toByteOffset: o, as: UInt8.self)
        let v = UInt64(count)
        let size = v <= 0xFF ? 1 : v <= 0xFFFF ? 2 : v <= 0xFFFF_FFFF ? 4 : 8
        out.storeBytes(of: BinaryPlistMarker.Byte.int8 + UInt8(size.trailingZeroBitCount), toByteOffset: o + 1, as: UInt8.self)
        store(v, size: size, at: o + 2, in: out)
        return o + 2 + size
    }

    /// Stores the low `size` (1, 2, 4 or 8) bytes of `v` at `o`, most significant first.
    @inline(__always)
    static func store(_ v: UInt64, size: Int, at o: Int, in out: UnsafeMutableRawPointer) {
        switch size {
        case 1: out.storeBytes(of: UInt8(truncatingIfNeeded: v), toByteOffset: o, as: UInt8.self)
        case 2: out.storeBytes(of: UInt16(truncatingIfNeeded: v).bigEndian, toByteOffset: o, as: UInt16.self)
        case 4: out.storeBytes(of: UInt32(truncatingIfNeeded: v).bigEndian, toByteOffset: o, as: UInt32.self)
        default: out.storeBytes(of: v.bigEndian, toByteOffset: o, as: UInt64.self)
        }
    }

    /// The smallest of 1, 2, 4 and 8 bytes whose unsigned range holds `count` itself
    /// (CF's `_byteCount`; readers require `count < 2^(8 × size)`).
    static func byteCount(_ count: Int) -> Int {
        count < 1 << 8 ? 1 : count < 1 << 16 ? 2 : count < 1 << 32 ? 4 : 8
    }
}

// MARK: - Scalar encodings

extension BinaryPlistEncoder {
    /// An integer: negative values in 8 bytes, others in the smallest of 1, 2, 4, 8.
    mutating func appendInt(_ v: Int64) {
        if v < 0 {
            scalarBytes.append(BinaryPlistMarker.Byte.int64)
            Self.appendBigEndian(UInt64(bitPattern: v), size: 8, to: &scalarBytes)
        } else {
            Self.appendUnsignedInt(UInt64(v), to: &scalarBytes)
        }
    }

    /// A string: `0x5n` ASCII when every byte is below 0x80, else `0x6n` UTF-16BE.
    mutating func appendString(_ string: String) {
        var s = string
        s.withUTF8 { utf8 in
            let n = utf8.count
            var high: UInt8 = 0
            for byte in utf8 { high |= byte }
            if high < 0x80 {
                Self.appendMarker(BinaryPlistMarker.asciiString, count: n, to: &scalarBytes)
                scalarBytes.append(contentsOf: utf8)
                return
            }
            // UTF-16 length: one unit per scalar (every non-continuation byte), two for
            // scalars of four UTF-8 bytes.
            var units = 0
            for byte in utf8 {
                if byte & 0xC0 != 0x80 { units += 1 }
                if byte >= 0xF0 { units += 1 }
            }
            Self.appendMarker(BinaryPlistMarker.utf16String, count: units, to: &scalarBytes)
            var i = 0
            while i < n {
                let b0 = UInt32(utf8[i])
                var scalar: UInt32
                if b0 < 0x80 {
                    scalar = b0
                    i += 1
                } else if b0 < 0xE0 {
                    scalar = (b0 & 0x1F) << 6 | UInt32(utf8[i + 1] & 0x3F)
                    i += 2
                } else if b0 < 0xF0 {
                    scalar = (b0 & 0x0F) << 12 | UInt32(utf8[i + 1] & 0x3F) << 6 | UInt32(utf8[i + 2] & 0x3F)
                    i += 3
                } else {
                    scalar = (b0 & 0x07) << 18 | UInt32(utf8[i + 1] & 0x3F) << 12 | UInt32(utf8[i + 2] & 0x3F) << 6
                        | UInt32(utf8[i + 3] & 0x3F)
                    i += 4
                }
                if scalar >= 0x10000 {
                    let (high, low) = PFUTF8.surrogates(of: scalar)
                    scalarBytes.append(UInt8(high >> 8))
                    scalarBytes.append(UInt8(high & 0xFF))
                    scalarBytes.append(UInt8(low >> 8))
                    scalarBytes.append(UInt8(low & 0xFF))
                } else {
                    scalarBytes.append(UInt8(scalar >> 8))
                    scalarBytes.append(UInt8(scalar & 0xFF))
                }
            }
        }
    }

    /// A marker byte with a count: in the low nibble below 15, else nibble `0xF` followed
    /// by the count as an integer object.
    mutating func appendMarker(_ type: BinaryPlistMarker, count: Int) {
        Self.appendMarker(type, count: count, to: &scalarBytes)
    }

    mutating func appendBigEndian(_ v: UInt64, size: Int) {
        Self.appendBigEndian(v, size: size, to: &scalarBytes)
    }

    static func appendMarker(_ type: BinaryPlistMarker, count: Int, to out: inout [UInt8]) {
        let high = type.rawValue << 4
        if count < 15 {
            out.append(high | UInt8(count))
        } else {
            out.append(high | BinaryPlistMarker.extendedCount)
            appendUnsignedInt(UInt64(count), to: &out)
        }
    }

    /// A non-negative integer object in the smallest of 1, 2, 4 and 8 bytes (8-byte values
    /// are read as signed, so this is for values up to `Int64.max`).
    static func appendUnsignedInt(_ v: UInt64, to out: inout [UInt8]) {
        let size = v <= 0xFF ? 1 : v <= 0xFFFF ? 2 : v <= 0xFFFF_FFFF ? 4 : 8
        out.append(BinaryPlistMarker.Byte.int8 + UInt8(size.trailingZeroBitCount))
        appendBigEndian(v, size: size, to: &out)
    }

    /// The low `size` bytes of `v`, most significant first.
    @inline(__always)
    static func appendBigEndian(_ v: UInt64, size: Int, to out: inout [UInt8]) {
        switch size {
        case 1:
            out.append(UInt8(truncatingIfNeeded: v))
        case 2:
            out.append(UInt8(truncatingIfNeeded: v >> 8))
            out.append(UInt8(truncatingIfNeeded: v))
        default:
            // A rebased raw buffer is contiguous, so the append is one copy; appending the
            // slice itself went through a per-byte generic path (a tenth of the write time).
            withUnsafeBytes(of: v.bigEndian) { out.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[(8 - size)...])) }
        }
    }
}
