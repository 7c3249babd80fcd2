import Foundation
import PFCore
import PFJSON

/// Writes a plain binary property list straight as Parse's compact REST JSON, without a
/// value tree in between: what an import with `--decode-blobs` stores for a payload column
/// of a database whose every row holds a small property list.
///
/// It writes only what has one obvious reading, and gives up (`nil`, nothing written) on
/// anything else, which the caller then decodes the general way (``BinaryPlistReader`` and
/// the payload decoder): so where it writes, the text is byte for byte what the general way
/// stores. It takes dictionaries with ASCII keys (none repeated, none holding `$` — a keyed
/// archive's marks — and none `__type`, which Parse reads as a type), arrays, strings,
/// integers of up to 64 bits, finite reals, booleans, nulls inside a container, and dates
/// of years 0–9999 (`{"__type":"Date","iso":…}`, rounded to the millisecond). It gives up on
/// data (it may hold a nested payload), UIDs, sets, 128-bit integers, a root that is not a
/// dictionary or an array, nesting deeper than ``maxDepth`` or more than ``maxNodes`` values
/// (shared objects counted each time they are reached, so a cycle or an exponential file
/// gives up too), and on every damage the reader reports.
package enum BinaryPlistRESTJSON {
    /// What the root was.
    package enum Root: Sendable, Equatable {
        /// A dictionary: a JSON object.
        case object
        /// An array: a JSON array.
        case array
    }

    /// Containers nested deeper than this are left to the general way.
    package static let maxDepth = 32
    /// Values beyond this count are left to the general way.
    package static let maxNodes = 1 << 16
    /// Dictionaries with more members than this are left to the general way (repeated keys
    /// are looked for pairwise).
    static let maxMembers = 128

    /// Appends the REST JSON of a plain binary property list to `out`.
    /// - Parameters:
    ///   - bytes: the property list (`bplist00`).
    ///   - limits: the decoding limits; the text is written only well within them.
    ///   - out: receives the text; left as it was when the result is `nil`.
    /// - Returns: the root's kind, or `nil` when the bytes need the general way.
    package static func append(_ bytes: Data, limits: PFLimits, to out: inout [UInt8]) -> Root? {
        guard bytes.count <= limits.maxInputBytes, BinaryPlistReader.hasMagic(bytes) else { return nil }
        let start = out.count
        let root = bytes.withUnsafeBytes { buffer -> Root? in
            guard let info = try? BinaryPlistInfo.parse(buffer) else { return nil }
            var writer = Writer(
                scanner: BinaryPlistScanner(buffer: buffer, info: info, limits: limits, sparse: true),
                depthLimit: min(maxDepth, limits.maxDepth), nodesLeft: min(maxNodes, limits.maxNodes))
            do {
                return try writer.root(info.topObject, &out)
            } catch {
                return nil
            }
        }
        if root == nil { out.removeSubrange(start...) }
        return root
    }

    /// The general way is needed.
    struct GiveUp: Error {}

    struct Writer: ~Copyable {
        let scanner: BinaryPlistScanner
        let depthLimit: Int
        var nodesLeft: Int
        /// The key byte ranges of the dictionaries being written, a stack.
        var keys: [(start: Int, count: Int)] = []

        init(scanner: consuming BinaryPlistScanner, depthLimit: Int, nodesLeft: Int) {
            self.scanner = scanner
            self.depthLimit = depthLimit
            self.nodesLeft = nodesLeft
            keys.reserveCapacity(32)
        }

        mutating func root(_ index: Int, _ out: inout [UInt8]) throws(GiveUp) -> Root {
            let offset = try offset(of: index)
            switch scanner.buffer[offset] >> 4 {
            case BinaryPlistMarker.dictionary.rawValue:
                try value(index, depth: 0, &out)
                return .object
            case BinaryPlistMarker.array.rawValue:
                try value(index, depth: 0, &out)
                return .array
            default:
                throw GiveUp()
            }
        }

        mutating func offset(of index: Int) throws(GiveUp) -> Int {
            do { return try scanner.objectOffset(index) } catch { throw GiveUp() }
        }

        mutating func value(_ index: Int, depth: Int, _ out: inout [UInt8]) throws(GiveUp) {
            guard nodesLeft > 0 else { throw GiveUp() }
            nodesLeft -= 1
            let offset = try offset(of: index)
            let marker = scanner.buffer[offset]
            guard let type = BinaryPlistMarker(rawValue: marker >> 4) else { throw GiveUp() }
            // The common scalars are written from their bytes; the others are decoded first.
            switch marker {
            case BinaryPlistMarker.Byte.falseValue: return append("false", &out)
            case BinaryPlistMarker.Byte.trueValue: return append("true", &out)
            case BinaryPlistMarker.Byte.int8, BinaryPlistMarker.Byte.int16, BinaryPlistMarker.Byte.int32, BinaryPlistMarker.Byte.int64:
                let size = 1 << Int(marker & 0x0F)
                let raw = try fixedWidth(after: offset, size: size)
                return JSONText.appendInteger(size == 8 ? Int64(bitPattern: raw) : Int64(raw), to: &out)
            case BinaryPlistMarker.Byte.float64, BinaryPlistMarker.Byte.float32, BinaryPlistMarker.Byte.date:
                // As the scanner reads them (a float32 widened to Double, a date's float64 of
                // seconds since 2001), without handing the scanner to a call.
                let size = marker == BinaryPlistMarker.Byte.float32 ? 4 : 8
                let raw = try fixedWidth(after: offset, size: size)
                let number = size == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw))) : Double(bitPattern: raw)
                guard marker == BinaryPlistMarker.Byte.date else {
                    guard JSONText.appendDouble(number, to: &out) else { throw GiveUp() }
                    return
                }
                guard number.isFinite else { throw GiveUp() }
                return try appendDate(Date(timeIntervalSinceReferenceDate: number), &out)
            default:
                break
            }
            if type == .asciiString, try plainASCII(at: offset, &out) { return }
            switch type {
            case .dictionary:
                try dictionary(at: offset, depth: depth + 1, &out)
            case .array:
                try array(at: offset, depth: depth + 1, &out)
            case .data, .uid, .set, .orderedSet, .utf8String:
                throw GiveUp()
            default:
                let scalar: PFValue
                do { scalar = try scanner.decodeScalar(type, marker: marker, at: offset) } catch { throw GiveUp() }
                // (Booleans, reals and dates were written above; a 128-bit integer that fits
                // 64 bits comes here.)
                switch scalar {
                case .null: append("null", &out)
                case .int(let i): JSONText.appendInteger(i, to: &out)
                case .string(let s): JSONText.appendString(s, to: &out)
                default: throw GiveUp()
                }
            }
        }

        /// The big-endian unsigned integer of `size` bytes after the marker at `offset`,
        /// checked to lie in the object area.
        mutating func fixedWidth(after offset: Int, size: Int) throws(GiveUp) -> UInt64 {
            guard offset + 1 <= scanner.objectsEnd, size <= scanner.objectsEnd - offset - 1 else { throw GiveUp() }
            return scanner.readUInt(at: offset + 1, size: size)
        }

        mutating func array(at offset: Int, depth: Int, _ out: inout [UInt8]) throws(GiveUp) {
            guard depth <= depthLimit else { throw GiveUp() }
            let (n, start): (Int, Int)
            do { (n, start) = try scanner.collectionCount(at: offset, refsPerElement: 1) } catch { throw GiveUp() }
            let refSize = scanner.info.objectRefSize
            out.append(UInt8(ascii: "["))
            for i in 0..<n {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                let ref: Int
                do { ref = try scanner.objectRef(at: start + i * refSize) } catch { throw GiveUp() }
                try value(ref, depth: depth, &out)
            }
            out.append(UInt8(ascii: "]"))
        }

        mutating func dictionary(at offset: Int, depth: Int, _ out: inout [UInt8]) throws(GiveUp) {
            guard depth <= depthLimit else { throw GiveUp() }
            let (n, start): (Int, Int)
            do { (n, start) = try scanner.collectionCount(at: offset, refsPerElement: 2) } catch { throw GiveUp() }
            guard n <= BinaryPlistRESTJSON.maxMembers else { throw GiveUp() }
            let refSize = scanner.info.objectRefSize
            let valuesStart = start + n * refSize
            let base = keys.count
            defer { keys.removeLast(keys.count - base) }
            out.append(UInt8(ascii: "{"))
            for i in 0..<n {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                let keyRef: Int
                let valueRef: Int
                do {
                    keyRef = try scanner.objectRef(at: start + i * refSize)
                    valueRef = try scanner.objectRef(at: valuesStart + i * refSize)
                } catch { throw GiveUp() }
                try key(keyRef, base: base, &out)
                out.append(UInt8(ascii: ":"))
                try value(valueRef, depth: depth, &out)
            }
            out.append(UInt8(ascii: "}"))
        }

        /// The bytes of the ASCII string (`0x5n`) at `offset`, checked to lie in the object
        /// area and within ``PFCore/PFLimits/maxStringBytes``.
        mutating func asciiBytes(at offset: Int) throws(GiveUp) -> (start: Int, count: Int) {
            let (n, start): (Int, Int)
            do {
                (n, start) = try scanner.lengthAndStart(at: offset)
                try scanner.require(start, n, "string")
            } catch { throw GiveUp() }
            guard n <= scanner.limits.maxStringBytes else { throw GiveUp() }
            return (start, n)
        }

        /// Appends the bytes as a quoted JSON string when they are printable ASCII that JSON
        /// writes as they are (no `"`, `\\`, control character or DEL) and, with `dollar`, no
        /// `$`; otherwise leaves `out` as it was and returns `false`. Checked and copied in one
        /// pass, a byte at a time (a plain copy loop becomes a call of `memmove`, whose start-up
        /// cost is most of a short key's copy).
        @inline(__always)
        mutating func quotePlain(_ start: Int, _ n: Int, dollar: Bool, _ out: inout [UInt8]) -> Bool {
            let mark = out.count
            out.append(UInt8(ascii: "\""))
            var i = start
            let end = start + n
            while i < end {
                let byte = scanner.buffer[i]
                guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"),
                    !dollar || byte != UInt8(ascii: "$")
                else {
                    out.removeSubrange(mark...)
                    return false
                }
                out.append(byte)
                i += 1
            }
            out.append(UInt8(ascii: "\""))
            return true
        }

        /// Writes an ASCII string whose bytes JSON writes as they are; `false` (nothing
        /// written) for any other, which is then decoded and escaped.
        mutating func plainASCII(at offset: Int, _ out: inout [UInt8]) throws(GiveUp) -> Bool {
            let (start, n) = try asciiBytes(at: offset)
            return quotePlain(start, n, dollar: false, &out)
        }

        /// The key Parse reads as a value's type.
        static let typeKey: [UInt8] = Array("__type".utf8)

        /// Writes a key: an ASCII string (`0x5n`) of printable bytes other than `"`, `\` and
        /// `$`, not `__type`, unlike every earlier key of its dictionary.
        mutating func key(_ index: Int, base: Int, _ out: inout [UInt8]) throws(GiveUp) {
            guard nodesLeft > 0 else { throw GiveUp() }
            nodesLeft -= 1
            let offset = try offset(of: index)
            guard scanner.buffer[offset] >> 4 == BinaryPlistMarker.asciiString.rawValue else { throw GiveUp() }
            let (start, n) = try asciiBytes(at: offset)
            guard let bytes = scanner.buffer.baseAddress, quotePlain(start, n, dollar: true, &out) else { throw GiveUp() }
            // (What was written is dropped with the rest when this gives up.)
            if n == Self.typeKey.count, memcmp(bytes + start, Self.typeKey, n) == 0 { throw GiveUp() }
            var k = base
            while k < keys.count {
                if keys[k].count == n, memcmp(bytes + keys[k].start, bytes + start, n) == 0 { throw GiveUp() }
                k += 1
            }
            keys.append((start, n))
        }

        mutating func appendDate(_ date: Date, _ out: inout [UInt8]) throws(GiveUp) {
            append("{\"__type\":\"Date\",\"iso\":\"", &out)
            let at = out.count
            out.append(contentsOf: repeatElement(0, count: PFDateFormat.roundedMillisecondsLength))
            let written = out.withUnsafeMutableBufferPointer { bytes in
                bytes.baseAddress.map { PFDateFormat.writeRoundedMilliseconds(date, into: $0 + at) } ?? false
            }
            guard written else { throw GiveUp() }
            append("\"}", &out)
        }

        @inline(__always)
        mutating func append(_ text: StaticString, _ out: inout [UInt8]) {
            out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }
    }
}
