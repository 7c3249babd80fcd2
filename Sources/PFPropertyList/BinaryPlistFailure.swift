import PFCore

/// Every failure the binary property list reader and writer report, with its class and its
/// message in one place.
///
/// Errors made from a case carry it in ``PFCore/PFError/failure``; match it with
/// `error.failure(as: BinaryPlistFailure.self)`. Markers are the object's first byte.
public enum BinaryPlistFailure: PFFailure, Hashable {
    // The header and trailer.
    /// The input does not start with `bplist`.
    case notBinaryPlist
    /// The file is shorter than the smallest binary property list.
    case tooShort(size: Int)
    /// A `bplist` version other than `00`.
    case version(String)
    /// The trailer's `offsetIntSize` is outside 1...8.
    case offsetIntSize(Int)
    /// The trailer's `objectRefSize` is outside 1...8.
    case objectRefSize(Int)
    /// The trailer's `numObjects` is 0 or larger than the file.
    case numObjects(UInt64)
    /// The trailer's `topObject` is not an object index.
    case topObject(UInt64, numObjects: Int)
    /// The trailer's `offsetTableOffset` is outside the file's object area.
    case offsetTableOffset(UInt64, trailerStart: Int)
    /// The offset table does not end where the trailer starts.
    case offsetTableEnd(numObjects: Int, offsetIntSize: Int, tableOffset: Int, trailerStart: Int)
    /// `objectRefSize` is too small for the object count.
    case objectRefSizeTooSmall(Int, numObjects: Int)
    /// `offsetIntSize` cannot address the offset table.
    case offsetIntSizeTooSmall(Int, tableOffset: Int)
    // Objects.
    /// An offset table entry outside the object area.
    case objectOffset(index: Int, raw: UInt64, objectsEnd: Int)
    /// An object reference past `numObjects`.
    case objectReference(UInt64, numObjects: Int)
    /// An object that contains itself.
    case cycle(index: Int)
    /// An unknown object marker where a bplist00 type should be.
    case unknownMarker(UInt8)
    /// An unknown marker in the null/boolean row.
    case unknownSimpleMarker(UInt8)
    /// The fill byte where an object should start.
    case fillByte
    /// A bplist v1x type (`what` names it).
    case newerType(UInt8, what: String)
    /// An integer of a width other than 1, 2, 4, 8 or 16 bytes.
    case integerWidth(UInt8)
    /// A 128-bit integer outside 64 bits.
    case integerTooWide
    /// A real of a width other than 4 or 8 bytes.
    case realWidth(UInt8)
    /// A date marker other than 0x33.
    case dateMarker(UInt8)
    /// A date that is not finite.
    case dateNotFinite(Double)
    /// A UID of more than 4 bytes (`size` given; CF reads at most 4).
    case uidWidth(Int)
    /// A UID above `UInt32.max`.
    case uidTooLarge(UInt64)
    /// A UTF-16 string whose byte length overflows.
    case utf16TooLong(units: Int)
    /// A UTF-16 string with an unpaired surrogate.
    case unpairedSurrogate(unit: Int)
    /// A dictionary key that is not a string.
    case keyNotString(index: Int, kind: String)
    /// A collection's references run past the object area (`bytes` nil when they overflow).
    case referencesTruncated(count: Int, bytes: Int?, remaining: Int)
    /// The object ends before its extended count.
    case extendedCountMissing
    /// The extended count's marker is not an integer.
    case extendedCountMarker(UInt8)
    /// The extended count is negative or too large.
    case extendedCountRange(UInt64)
    /// An object's bytes (`what`) run past the object area.
    case objectTruncated(what: String, length: Int, start: Int, remaining: Int)
    // Writing.
    /// A date that is not finite cannot be written.
    case unwritableDate(Double)
    /// A UID above `UInt32.max` cannot be written.
    case unwritableUID(UInt64)
    /// Null has no binary property list form (under the `error` null policy; `.drop` leaves it
    /// out, `.writeNullMarker` writes the 0x00 marker CoreFoundation and plistlib reject).
    case unwritableNull
    /// The value nests deeper than `maxDepth`.
    case tooDeep(maxDepth: Int)
    /// A streamed writer numbered more objects than the reference width it chose up front
    /// (from its object bound) can address.
    case tooManyObjects(objectRefSize: Int)
    /// A record-at-a-time read of a file whose root is neither an array nor a dictionary
    /// whose first key is `results` and holds an array.
    case notRecords
    public var code: PFError.Code {
        switch self {
        case .tooShort, .utf16TooLong, .referencesTruncated, .extendedCountMissing, .objectTruncated: .truncated
        case .version, .newerType, .notRecords: .unsupported
        case .cycle, .integerTooWide, .dateNotFinite, .uidWidth, .uidTooLarge, .unpairedSurrogate,
            .keyNotString:
            .invalidValue
        case .unwritableDate, .unwritableUID, .unwritableNull: .unrepresentable
        case .tooDeep, .tooManyObjects: .limitExceeded
        default: .syntax
        }
    }

    public var message: String {
        switch self {
        case .notBinaryPlist: "not a binary property list; expected the magic \"bplist00\""
        case .tooShort(let size):
            "file is \(size) bytes; a binary property list needs at least 42 (8-byte magic, an object, an offset, a 32-byte trailer)"
        case .version(let version): "binary property list version \"\(version)\" is not supported; expected \"00\""
        case .offsetIntSize(let n): "trailer offsetIntSize is \(n); expected 1 through 8"
        case .objectRefSize(let n): "trailer objectRefSize is \(n); expected 1 through 8"
        case .numObjects(let n): "trailer numObjects is \(n); expected 1 through the file size"
        case .topObject(let top, let count): "trailer topObject is \(top); expected an index below numObjects (\(count))"
        case .offsetTableOffset(let raw, let t): "trailer offsetTableOffset is \(raw); expected 9 through \(t) (the trailer's start)"
        case .offsetTableEnd(let count, let size, let offset, let t):
            "offset table of \(count) × \(size) bytes at \(offset) does not end where the trailer starts (\(t))"
        case .objectRefSizeTooSmall(let size, let count):
            "trailer objectRefSize \(size) is too small for \(count) objects (CF requires numObjects < 2^(8 × objectRefSize))"
        case .offsetIntSizeTooSmall(let size, let offset): "trailer offsetIntSize \(size) cannot address offsets up to \(offset)"
        case .objectOffset(let index, let raw, let end):
            "offset table entry \(index) is \(raw); expected an object offset in [8, \(end))"
        case .objectReference(let raw, let count):
            "object reference \(raw) is out of range; expected an index below numObjects (\(count))"
        case .cycle(let index):
            "object \(index) contains itself (a reference cycle in the object table); expected a tree or DAG"
        case .unknownMarker(let m): "unknown object marker 0x\(hex(m)); expected a bplist00 type"
        case .unknownSimpleMarker(let m): "unknown object marker 0x\(hex(m)); expected null (0x00), false (0x08) or true (0x09)"
        case .fillByte: "fill byte 0x0f where an object should start"
        case .newerType(let m, let what): "marker 0x\(hex(m)) is a bplist v1x type (\(what)); expected a bplist00 type"
        case .integerWidth(let m):
            "integer of 2^\(m & 0x0F) bytes (marker 0x\(hex(m))); expected 1, 2, 4, 8 or 16 bytes"
        case .integerTooWide: "128-bit integer does not fit 64 bits; expected a value in Int64.min...UInt64.max"
        case .realWidth(let m): "real of \(1 << Int(m & 0x0F)) bytes (marker 0x\(hex(m))); expected 4 or 8 bytes (0x22 or 0x23)"
        case .dateMarker(let m): "date marker 0x\(hex(m)); expected 0x33"
        case .dateNotFinite(let s): "date is \(s) seconds since 2001-01-01; expected a finite number"
        case .uidWidth(let size): "UID of \(size) bytes; expected at most 4 (UIDs are at most UInt32.max, as CF reads them)"
        case .uidTooLarge(let uid): "UID \(uid) is above UInt32.max, which CF rejects"
        case .utf16TooLong(let units): "UTF-16 string of \(units) units is longer than the file"
        case .unpairedSurrogate(let unit): "UTF-16 string has an unpaired surrogate at unit \(unit); expected valid UTF-16"
        case .keyNotString(let index, let kind): "dictionary key \(index) is of kind \(kind); expected a string"
        case .referencesTruncated(let count, let bytes, let remaining):
            "collection of \(count) elements needs \(bytes.map { String($0) } ?? "more than Int.max") bytes of references; only \(remaining) remain before the offset table"
        case .extendedCountMissing: "object ends before its extended count"
        case .extendedCountMarker(let m): "extended count has marker 0x\(hex(m)); expected an integer marker 0x10 through 0x13"
        case .extendedCountRange(let raw): "extended count \(raw) is negative or too large"
        case .objectTruncated(let what, let length, let start, let remaining):
            "\(what) needs \(length) bytes at \(start); only \(remaining) remain before the offset table"
        case .unwritableDate(let t): "date is \(t) seconds since 2001-01-01; a binary property list date must be finite"
        case .unwritableUID(let uid): "UID \(uid) is above UInt32.max, which CoreFoundation cannot read"
        case .unwritableNull:
            "null has no binary property list form"
        case .tooDeep(let maxDepth): "nesting is deeper than maxDepth (\(maxDepth)); CoreFoundation reads at most 512 levels"
        case .tooManyObjects(let size):
            "more objects than \(size)-byte references can number; the object bound given to the streamed writer was too small"
        case .notRecords:
            "the root object is not an array of records or a dictionary whose first key, results, holds one; read the file whole"
        }
    }

    private func hex(_ byte: UInt8) -> String { String(byte, radix: 16) }
}

extension PFError {
    /// A binary property list error made from a failure case.
    init(_ failure: BinaryPlistFailure, offset: Int, path: PFKeyPath? = nil) {
        self.init(failure, format: .bplist, offset: offset, path: path)
    }

    /// A binary property list writer error made from a failure case.
    init(_ failure: BinaryPlistFailure, path: PFKeyPath?) {
        self.init(failure, format: .bplist, path: path)
    }
}
