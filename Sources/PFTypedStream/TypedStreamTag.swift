/// The head bytes typedstream reserves for tags (−128…−111 as a signed byte); every other
/// head byte is a one-byte integer or a back-reference number.
enum TypedStreamTag {
    /// A 2-byte integer follows.
    static let int16: UInt8 = 0x81
    /// A 4-byte integer follows.
    static let int32: UInt8 = 0x82
    /// A float (4 bytes) or double (8 bytes) follows.
    static let floatingPoint: UInt8 = 0x83
    /// A literal string, object, class or C string follows.
    static let new: UInt8 = 0x84
    /// Nil.
    static let null: UInt8 = 0x85
    /// The end of an object's value groups.
    static let endOfObject: UInt8 = 0x86
    /// An 8-byte integer follows (written by current macOS for large numbers).
    static let int64: UInt8 = 0x87
    /// The reference number written as head byte 0x92 means table index 0.
    static let firstReference: Int64 = -110

    /// Whether a head byte is in the reserved tag range 0x80…0x91.
    static func isTag(_ byte: UInt8) -> Bool { byte >= 0x80 && byte <= 0x91 }

    /// The signatures: `streamtyped` for little-endian data, `typedstream` for big-endian.
    static let littleEndianSignature = Array("streamtyped".utf8)
    static let bigEndianSignature = Array("typedstream".utf8)
}
