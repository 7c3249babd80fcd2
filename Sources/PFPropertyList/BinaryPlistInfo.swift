import Foundation
import PFCore

/// The layout of a `bplist00` file as its 32-byte trailer describes it, validated against the
/// file's size.
///
/// `pfarchive inspect` prints these fields. ``BinaryPlistReader/info(_:)`` makes one without
/// decoding any object.
public struct BinaryPlistInfo: Sendable, Equatable {
    /// The size of the whole file in bytes.
    public var fileSize: Int
    /// The trailer's sort-version byte (CF writes 0 and ignores it).
    public var sortVersion: UInt8
    /// Bytes per offset-table entry, 1 through 8.
    public var offsetIntSize: Int
    /// Bytes per object reference inside arrays, sets and dictionaries, 1 through 8.
    public var objectRefSize: Int
    /// The number of objects (and offset-table entries).
    public var numObjects: Int
    /// The index of the root object.
    public var topObject: Int
    /// Where the offset table starts, in bytes from the start of the file.
    public var offsetTableOffset: Int

    /// Makes an info value from its fields.
    /// - Parameters:
    ///   - fileSize: the size of the whole file in bytes.
    ///   - sortVersion: the trailer's sort-version byte.
    ///   - offsetIntSize: bytes per offset-table entry.
    ///   - objectRefSize: bytes per object reference.
    ///   - numObjects: the number of objects.
    ///   - topObject: the index of the root object.
    ///   - offsetTableOffset: where the offset table starts.
    public init(
        fileSize: Int, sortVersion: UInt8 = 0, offsetIntSize: Int, objectRefSize: Int, numObjects: Int,
        topObject: Int, offsetTableOffset: Int
    ) {
        self.fileSize = fileSize
        self.sortVersion = sortVersion
        self.offsetIntSize = offsetIntSize
        self.objectRefSize = objectRefSize
        self.numObjects = numObjects
        self.topObject = topObject
        self.offsetTableOffset = offsetTableOffset
    }
}

// MARK: - Trailer validation

extension BinaryPlistInfo {
    /// Reads and validates the header and trailer of a whole file.
    ///
    /// The checks follow CF and swift-foundation's `BPlistScanner`: magic `bplist00`,
    /// sizes 1...8, at least one object, the root inside the table, the object area
    /// `[8, offsetTableOffset)` non-empty, the offset table ending exactly where the trailer
    /// starts (computed with overflow checks), and reference and offset widths wide enough
    /// for the counts they must address.
    static func parse(_ buffer: UnsafeRawBufferPointer) throws(PFError) -> BinaryPlistInfo {
        let format = BinaryPlistLayout.format
        let size = buffer.count
        let magic = BinaryPlistLayout.magic
        let magicPrefix = min(size, 6)
        for i in 0..<magicPrefix where buffer[i] != magic[i] {
            throw PFError(BinaryPlistFailure.notBinaryPlist, offset: i)
        }
        guard size >= BinaryPlistLayout.headerSize + BinaryPlistLayout.trailerSize + 2 else {
            throw PFError(BinaryPlistFailure.tooShort(size: size), offset: size)
        }
        guard buffer[6] == magic[6], buffer[7] == magic[7] else {
            let version = String(decoding: [buffer[6], buffer[7]], as: UTF8.self)
            throw PFError(BinaryPlistFailure.version(version), offset: 6)
        }
        let t = size - BinaryPlistLayout.trailerSize
        let offsetIntSize = Int(buffer[t + 6])
        let objectRefSize = Int(buffer[t + 7])
        let rawCount = bigEndian(buffer, t + 8)
        let rawTop = bigEndian(buffer, t + 16)
        let rawTable = bigEndian(buffer, t + 24)

        guard (1...8).contains(offsetIntSize) else {
            throw PFError(BinaryPlistFailure.offsetIntSize(offsetIntSize), offset: t + 6)
        }
        guard (1...8).contains(objectRefSize) else {
            throw PFError(BinaryPlistFailure.objectRefSize(objectRefSize), offset: t + 7)
        }
        // Every count below is bounded by the file size, so anything larger is already wrong.
        guard rawCount >= 1, rawCount <= UInt64(size) else {
            throw PFError(BinaryPlistFailure.numObjects(rawCount), offset: t + 8)
        }
        let numObjects = Int(rawCount)
        guard rawTop < rawCount else {
            throw PFError(BinaryPlistFailure.topObject(rawTop, numObjects: numObjects), offset: t + 16)
        }
        guard rawTable >= UInt64(BinaryPlistLayout.headerSize + 1), rawTable <= UInt64(t) else {
            throw PFError(BinaryPlistFailure.offsetTableOffset(rawTable, trailerStart: t), offset: t + 24)
        }
        let tableOffset = Int(rawTable)
        let (tableBytes, overflow) = numObjects.multipliedReportingOverflow(by: offsetIntSize)
        guard !overflow, tableBytes == t - tableOffset else {
            throw PFError(BinaryPlistFailure.offsetTableEnd(numObjects: numObjects, offsetIntSize: offsetIntSize, tableOffset: tableOffset, trailerStart: t), offset: t + 8)
        }
        guard fits(numObjects, inBytes: objectRefSize) else {
            throw PFError(BinaryPlistFailure.objectRefSizeTooSmall(objectRefSize, numObjects: numObjects), offset: t + 7)
        }
        guard fits(tableOffset, inBytes: offsetIntSize) else {
            throw PFError(BinaryPlistFailure.offsetIntSizeTooSmall(offsetIntSize, tableOffset: tableOffset), offset: t + 6)
        }
        return BinaryPlistInfo(
            fileSize: size, sortVersion: buffer[t + 5], offsetIntSize: offsetIntSize, objectRefSize: objectRefSize,
            numObjects: numObjects, topObject: Int(rawTop), offsetTableOffset: tableOffset)
    }

    /// Whether `value` (≥ 0) fits an unsigned integer of `bytes` bytes.
    @inline(__always)
    static func fits(_ value: Int, inBytes bytes: Int) -> Bool {
        bytes >= 8 || UInt64(value) >> UInt64(8 * bytes) == 0
    }

    /// The big-endian `UInt64` at `offset` (the caller checked that 8 bytes are there).
    @inline(__always)
    static func bigEndian(_ buffer: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in offset..<(offset + 8) { v = v << 8 | UInt64(buffer[i]) }
        return v
    }
}
