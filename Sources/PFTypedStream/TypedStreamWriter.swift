import Foundation
import PFCore

/// Writes typedstream primitives into a byte buffer, numbering objects, classes and C strings
/// and interning shared strings exactly as the reader counts them, so back-references agree.
struct TypedStreamWriter {
    var bytes: [UInt8] = []
    var sharedStrings: [[UInt8]: Int] = [:]
    var cStrings: [[UInt8]: Int] = [:]
    /// Written classes by name and version.
    var classes: [ClassKey: Int] = [:]
    var nextNumber = 0

    struct ClassKey: Hashable {
        var name: String
        var version: Int
    }

    init(header: TypedStreamHeader = .current) {
        bytes.reserveCapacity(256)
        bytes.append(UInt8(truncatingIfNeeded: header.streamerVersion))
        bytes.append(11)
        bytes.append(contentsOf: TypedStreamTag.littleEndianSignature)
        writeUnsigned(UInt64(max(0, header.systemVersion)))
    }

    // MARK: - Integers

    mutating func writeInteger(_ value: Int64) {
        if value >= -128, value <= 127, !(value >= -128 && value <= -111) {
            bytes.append(UInt8(bitPattern: Int8(value)))
        } else if let v = Int16(exactly: value) {
            bytes.append(TypedStreamTag.int16)
            appendLittleEndian(UInt64(UInt16(bitPattern: v)), count: 2)
        } else if let v = Int32(exactly: value) {
            bytes.append(TypedStreamTag.int32)
            appendLittleEndian(UInt64(UInt32(bitPattern: v)), count: 4)
        } else {
            bytes.append(TypedStreamTag.int64)
            appendLittleEndian(UInt64(bitPattern: value), count: 8)
        }
    }

    /// Writes an unsigned integer; the reader zero-extends the narrow forms.
    mutating func writeUnsigned(_ value: UInt64) {
        if value <= 127 {
            bytes.append(UInt8(value))
        } else if value <= UInt64(UInt16.max) {
            bytes.append(TypedStreamTag.int16)
            appendLittleEndian(value, count: 2)
        } else if value <= UInt64(UInt32.max) {
            bytes.append(TypedStreamTag.int32)
            appendLittleEndian(value, count: 4)
        } else {
            bytes.append(TypedStreamTag.int64)
            appendLittleEndian(value, count: 8)
        }
    }

    mutating func appendLittleEndian(_ value: UInt64, count: Int) {
        for i in 0..<count { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(8 * i))) }
    }

    /// Writes a double; integral values in `Int32`'s range are written as integers, as
    /// NSArchiver does (never `-0.0`, whose sign an integer would lose).
    mutating func writeDouble(_ value: Double) {
        if value.isFinite, value == value.rounded(), !(value == 0 && value.sign == .minus),
            let small = Int32(exactly: value)
        {
            writeInteger(Int64(small))
        } else {
            bytes.append(TypedStreamTag.floatingPoint)
            appendLittleEndian(value.bitPattern, count: 8)
        }
    }

    mutating func writeFloat(_ value: Float) {
        if value.isFinite, value == value.rounded(), !(value == 0 && value.sign == .minus),
            let small = Int32(exactly: value)
        {
            writeInteger(Int64(small))
        } else {
            bytes.append(TypedStreamTag.floatingPoint)
            appendLittleEndian(UInt64(value.bitPattern), count: 4)
        }
    }

    // MARK: - Strings and references

    mutating func writeReference(_ index: Int) {
        writeInteger(TypedStreamTag.firstReference + Int64(index))
    }

    mutating func writeUnsharedString(_ string: [UInt8]) {
        writeUnsigned(UInt64(string.count))
        bytes.append(contentsOf: string)
    }

    mutating func writeSharedString(_ string: [UInt8]) {
        if let index = sharedStrings[string] {
            writeReference(index)
        } else {
            sharedStrings[string] = sharedStrings.count
            bytes.append(TypedStreamTag.new)
            writeUnsharedString(string)
        }
    }

    /// Writes a group's type-encoding string.
    mutating func writeEncodings(_ encodings: [TypeEncoding]) {
        writeSharedString(Array(encodings.map(\.description).joined().utf8))
    }

    mutating func writeCString(_ string: [UInt8]) {
        if let index = cStrings[string] {
            writeReference(index)
        } else {
            cStrings[string] = nextNumber
            nextNumber += 1
            bytes.append(TypedStreamTag.new)
            writeSharedString(string)
        }
    }

    // MARK: - Objects and classes

    /// Starts a literal object and returns its number.
    mutating func beginObject() -> Int {
        bytes.append(TypedStreamTag.new)
        nextNumber += 1
        return nextNumber - 1
    }

    mutating func endObject() { bytes.append(TypedStreamTag.endOfObject) }

    mutating func writeNil() { bytes.append(TypedStreamTag.null) }

    /// Writes a class chain (most derived first): literal classes until one already written
    /// (a reference) or the root (NIL).
    mutating func writeClassChain(_ chain: [(name: String, version: Int)]) {
        for entry in chain {
            let key = ClassKey(name: entry.name, version: entry.version)
            if let index = classes[key] {
                writeReference(index)
                return
            }
            classes[key] = nextNumber
            nextNumber += 1
            bytes.append(TypedStreamTag.new)
            writeSharedString(Array(entry.name.utf8))
            writeInteger(Int64(entry.version))
        }
        writeNil()
    }
}
