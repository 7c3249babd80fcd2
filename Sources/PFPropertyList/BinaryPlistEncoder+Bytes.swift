import Foundation
import PFCore

// MARK: - Pass two: layout

extension BinaryPlistEncoder {
    /// Lays out the objects in index order, then the offset table and the trailer.
    func serialize() -> [UInt8] {
        let numObjects = entries.count
        let refSize = Self.byteCount(numObjects)
        var out: [UInt8] = []
        out.reserveCapacity(
            BinaryPlistLayout.headerSize + scalarBytes.count + refs.count * refSize + numObjects * 10
                + BinaryPlistLayout.trailerSize)
        out.append(contentsOf: BinaryPlistLayout.magic)
        var offsets: [Int] = []
        offsets.reserveCapacity(numObjects)
        for entry in entries {
            offsets.append(out.count)
            switch entry.kind {
            case .scalar:
                scalarBytes.withUnsafeBytes { raw in
                    out.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[entry.start..<(entry.start + entry.count)]))
                }
            case .array:
                Self.appendMarker(BinaryPlistMarker.array, count: entry.count, to: &out)
                for ref in refs[entry.start..<(entry.start + entry.count)] {
                    Self.appendBigEndian(UInt64(ref), size: refSize, to: &out)
                }
            case .dictionary:
                Self.appendMarker(BinaryPlistMarker.dictionary, count: entry.count, to: &out)
                for ref in refs[entry.start..<(entry.start + 2 * entry.count)] {
                    Self.appendBigEndian(UInt64(ref), size: refSize, to: &out)
                }
            }
        }
        let tableOffset = out.count
        let offsetSize = Self.byteCount(tableOffset)
        for offset in offsets {
            Self.appendBigEndian(UInt64(offset), size: offsetSize, to: &out)
        }
        // Trailer: five unused bytes and the sort version (all zero), the two widths, then
        // numObjects, topObject (always 0: the root is flattened first) and the table offset.
        out.append(contentsOf: repeatElement(0, count: 6))
        out.append(UInt8(offsetSize))
        out.append(UInt8(refSize))
        Self.appendBigEndian(UInt64(numObjects), size: 8, to: &out)
        Self.appendBigEndian(0, size: 8, to: &out)
        Self.appendBigEndian(UInt64(tableOffset), size: 8, to: &out)
        return out
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
                    scalar -= 0x10000
                    let high = 0xD800 + (scalar >> 10)
                    let low = 0xDC00 + (scalar & 0x3FF)
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
