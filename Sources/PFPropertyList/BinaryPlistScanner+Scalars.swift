import Foundation
import PFCore

// MARK: - Scalars

extension BinaryPlistScanner {
    /// Decodes a non-collection object whose marker byte `marker` is at `offset`.
    func decodeScalar(_ type: BinaryPlistMarker, marker: UInt8, at offset: Int) throws(PFError) -> PFValue {
        switch type {
        case .singleton: return try decodeSingleton(marker, at: offset)
        case .int: return try decodeInt(marker, at: offset)
        case .real:
            switch marker {
            case BinaryPlistMarker.Byte.float32:
                try require(offset + 1, 4, "float32")
                return .double(Double(Float(bitPattern: UInt32(truncatingIfNeeded: readUInt(at: offset + 1, size: 4)))))
            case BinaryPlistMarker.Byte.float64:
                try require(offset + 1, 8, "float64")
                return .double(Double(bitPattern: readUInt(at: offset + 1, size: 8)))
            default:
                throw PFError(BinaryPlistFailure.realWidth(marker), offset: offset)
            }
        case .date:
            guard marker == BinaryPlistMarker.Byte.date else {
                throw PFError(BinaryPlistFailure.dateMarker(marker), offset: offset)
            }
            try require(offset + 1, 8, "date")
            let seconds = Double(bitPattern: readUInt(at: offset + 1, size: 8))
            guard seconds.isFinite else {
                throw PFError(BinaryPlistFailure.dateNotFinite(seconds), offset: offset)
            }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .data:
            let (n, start) = try lengthAndStart(at: offset)
            try require(start, n, "data of \(n) bytes")
            try checkStringBytes(n, at: offset)
            return .data(Data(UnsafeRawBufferPointer(rebasing: buffer[start..<(start + n)])))
        case .asciiString:
            let (n, start) = try lengthAndStart(at: offset)
            try require(start, n, "ASCII string of \(n) bytes")
            try checkStringBytes(n, at: offset)
            return .string(try decodeASCII(start, n))
        case .utf16String:
            let (units, start) = try lengthAndStart(at: offset)
            let (n, overflow) = units.multipliedReportingOverflow(by: 2)
            guard !overflow else {
                throw PFError(BinaryPlistFailure.utf16TooLong(units: units), offset: offset)
            }
            try require(start, n, "UTF-16 string of \(units) units")
            try checkStringBytes(n, at: offset)
            return .string(try decodeUTF16(start, units))
        case .uid:
            let size = Int(marker & 0x0F) + 1
            guard size <= 8 else {
                throw PFError(BinaryPlistFailure.uidWidth(size), offset: offset)
            }
            try require(offset + 1, size, "UID")
            let uid = readUInt(at: offset + 1, size: size)
            guard uid <= UInt64(UInt32.max) else {
                throw PFError(BinaryPlistFailure.uidTooLarge(uid), offset: offset)
            }
            return .uid(uid)
        case .utf8String, .orderedSet:
            throw PFError(
                BinaryPlistFailure.newerType(marker, what: type == .utf8String ? "UTF-8 string" : "ordered set"), offset: offset)
        case .array, .set, .dictionary:
            preconditionFailure("Collections are decoded by decodeArray and decodeDictionary.")
        }
    }

    private func decodeSingleton(_ marker: UInt8, at offset: Int) throws(PFError) -> PFValue {
        switch marker {
        case BinaryPlistMarker.Byte.null: return .null
        case BinaryPlistMarker.Byte.falseValue: return .bool(false)
        case BinaryPlistMarker.Byte.trueValue: return .bool(true)
        case BinaryPlistMarker.Byte.fill:
            throw PFError(BinaryPlistFailure.fillByte, offset: offset)
        case 0x0C, 0x0D, 0x0E:
            throw PFError(BinaryPlistFailure.newerType(marker, what: "URL or UUID"), offset: offset)
        default:
            throw PFError(BinaryPlistFailure.unknownSimpleMarker(marker), offset: offset)
        }
    }

    /// Integers: 1, 2 and 4 bytes unsigned, 8 bytes signed, 16 bytes when the upper half
    /// is zero (an unsigned 64-bit value) or the sign extension of a negative lower half.
    private func decodeInt(_ marker: UInt8, at offset: Int) throws(PFError) -> PFValue {
        switch marker {
        case BinaryPlistMarker.Byte.int8, BinaryPlistMarker.Byte.int16, BinaryPlistMarker.Byte.int32:
            let size = 1 << Int(marker & 0x0F)
            try require(offset + 1, size, "integer")
            return .int(Int64(readUInt(at: offset + 1, size: size)))
        case BinaryPlistMarker.Byte.int64:
            try require(offset + 1, 8, "integer")
            return .int(Int64(bitPattern: readUInt(at: offset + 1, size: 8)))
        case BinaryPlistMarker.Byte.int128:
            try require(offset + 1, 16, "128-bit integer")
            let high = readUInt(at: offset + 1, size: 8)
            let low = readUInt(at: offset + 9, size: 8)
            if high == 0 { return PFValue.integer(low) ?? .uint(low) }
            if high == UInt64.max, low >> 63 == 1 { return .int(Int64(bitPattern: low)) }
            throw PFError(BinaryPlistFailure.integerTooWide, offset: offset)
        default:
            throw PFError(BinaryPlistFailure.integerWidth(marker), offset: offset)
        }
    }

    @inline(__always)
    private func checkStringBytes(_ n: Int, at offset: Int) throws(PFError) {
        guard n <= limits.maxStringBytes else {
            throw PFLimits.exceeded("maxStringBytes", limits.maxStringBytes, format: Self.format, offset: offset)
        }
    }
}

// MARK: - Strings

extension BinaryPlistScanner {
    /// A `0x5n` string. Apple's writers put only 7-bit ASCII there (other text is UTF-16), but
    /// real files hold more (an iTunes library, a dictionary bundle): bytes that are valid
    /// UTF-8 are read as UTF-8 (what their writer meant: "Copyright © 2007", not "Â©"), and
    /// any other byte as the Latin-1 character of its value, as Core Foundation reads every
    /// byte ≥ 0x80. Never an error: plistlib refuses such files, and CF opens them.
    func decodeASCII(_ start: Int, _ n: Int) throws(PFError) -> String {
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[start..<(start + n)])
        var i = 0
        var high: UInt64 = 0
        while i + 8 <= n {
            high |= bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < n {
            high |= UInt64(bytes[i])
            i += 1
        }
        guard high & 0x8080_8080_8080_8080 != 0 else { return String(decoding: bytes, as: UTF8.self) }
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        var latin1 = String.UnicodeScalarView()
        latin1.append(contentsOf: bytes.lazy.map { Unicode.Scalar($0) })
        return String(latin1)
    }

    /// A `0x6n` string of `units` big-endian UTF-16 code units, transcoded straight to
    /// UTF-8; an unpaired surrogate is an error.
    func decodeUTF16(_ start: Int, _ units: Int) throws(PFError) -> String {
        var badUnit = -1
        let string = String(unsafeUninitializedCapacity: units * 3) { out in
            guard let base = out.baseAddress else { return 0 }
            var o = 0
            var u = 0
            while u < units {
                let unit = UInt32(UInt16(bigEndian: buffer.loadUnaligned(fromByteOffset: start + 2 * u, as: UInt16.self)))
                u += 1
                var scalar = unit
                if unit & 0xF800 == 0xD800 {
                    // A high surrogate must be followed by a low one.
                    guard unit < 0xDC00, u < units else { badUnit = u - 1; return 0 }
                    let low = UInt32(UInt16(bigEndian: buffer.loadUnaligned(fromByteOffset: start + 2 * u, as: UInt16.self)))
                    guard low & 0xFC00 == 0xDC00 else { badUnit = u - 1; return 0 }
                    u += 1
                    scalar = PFUTF8.scalar(high: unit, low: low)
                }
                // A unit gives at most three bytes and a surrogate pair four: within the capacity.
                o += PFUTF8.encode(scalar, into: base + o)
            }
            return o
        }
        if badUnit >= 0 {
            throw PFError(BinaryPlistFailure.unpairedSurrogate(unit: badUnit), offset: start + 2 * badUnit)
        }
        return string
    }
}
