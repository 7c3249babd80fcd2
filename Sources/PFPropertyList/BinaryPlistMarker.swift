import PFCore

// MARK: - Object markers

/// The high nibble of an object's first byte in a `bplist00` file: the object's type.
///
/// The low nibble is a size (`2^n` bytes for numbers, an element or byte count for
/// strings, data and collections, with `0xF` meaning "an integer object follows with the
/// count"), or for ``BinaryPlistMarker/singleton`` the value itself.
enum BinaryPlistMarker: UInt8 {
    /// `0x00` null, `0x08` false, `0x09` true, `0x0F` fill (and the v1x-only url/uuid markers).
    case singleton = 0x0
    /// `0x1n`: an integer of `2^n` bytes.
    case int = 0x1
    /// `0x2n`: a real of `2^n` bytes (4 or 8).
    case real = 0x2
    /// `0x33`: a date, a float64 of seconds since 2001-01-01T00:00:00Z.
    case date = 0x3
    /// `0x4n`: n bytes of data.
    case data = 0x4
    /// `0x5n`: an ASCII string of n bytes.
    case asciiString = 0x5
    /// `0x6n`: a UTF-16BE string of n code units.
    case utf16String = 0x6
    /// `0x7n`: a UTF-8 string (bplist v1x only; not read).
    case utf8String = 0x7
    /// `0x8n`: a keyed-archive UID of n+1 bytes.
    case uid = 0x8
    /// `0xAn`: an array of n object references.
    case array = 0xA
    /// `0xBn`: an ordered set (bplist v1x only; not read).
    case orderedSet = 0xB
    /// `0xCn`: a set of n object references (read as an array).
    case set = 0xC
    /// `0xDn`: a dictionary of n key references followed by n value references.
    case dictionary = 0xD

    /// Whole marker bytes for the singletons and the fixed-size objects.
    enum Byte {
        static let null: UInt8 = 0x00
        static let falseValue: UInt8 = 0x08
        static let trueValue: UInt8 = 0x09
        static let fill: UInt8 = 0x0F
        static let int8: UInt8 = 0x10
        static let int16: UInt8 = 0x11
        static let int32: UInt8 = 0x12
        static let int64: UInt8 = 0x13
        static let int128: UInt8 = 0x14
        static let float32: UInt8 = 0x22
        static let float64: UInt8 = 0x23
        static let date: UInt8 = 0x33
    }

    /// The low nibble that says "the count follows as an integer object".
    static let extendedCount: UInt8 = 0x0F
}

// MARK: - File layout

/// Sizes and magic numbers of the `bplist00` container.
enum BinaryPlistLayout {
    /// `bplist00` as bytes.
    static let magic: [UInt8] = Array("bplist00".utf8)
    /// The length of the magic (the first object starts here).
    static let headerSize = 8
    /// The length of the trailer.
    static let trailerSize = 32
    /// The format name in errors.
    static let format: PFError.Format = .bplist
}
