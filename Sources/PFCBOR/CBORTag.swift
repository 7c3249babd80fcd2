import PFCore

// MARK: - Tag numbers

/// The CBOR tag numbers pfarchive gives a meaning to.
///
/// Every other tag is read as its enclosed value and counted in ``CBORInfo/tags``.
public enum CBORTag {
    /// Tag 0: an RFC 3339 date/time text string, read as ``PFValue/date(_:)``.
    public static let dateTimeString: UInt64 = 0
    /// Tag 1: epoch-based date/time (integer or float seconds since 1970), read and written
    /// as ``PFValue/date(_:)``.
    public static let epochDateTime: UInt64 = 1
    /// Tag 2: positive bignum; read when it fits 64 bits.
    public static let positiveBignum: UInt64 = 2
    /// Tag 3: negative bignum; read when it fits `Int64`.
    public static let negativeBignum: UInt64 = 3
    /// Tag 4: decimal fraction `[exponent, mantissa]` (rejected: read as its array it would
    /// silently stop being a number; pfarchive's numbers are 64-bit integers and doubles).
    public static let decimalFraction: UInt64 = 4
    /// Tag 5: bigfloat `[exponent, mantissa]` (rejected with tag 4).
    public static let bigfloat: UInt64 = 5
    /// Tag 30: rational number `[numerator, denominator]` (rejected with tag 4).
    public static let rational: UInt64 = 30
    /// Tag 25: stringref (rejected: pfarchive does not implement string references).
    public static let stringReference: UInt64 = 25
    /// Tag 256: stringref namespace (rejected with tag 25).
    public static let stringReferenceNamespace: UInt64 = 256
    /// Tag 28: marks a value as shareable (value-sharing extension).
    public static let shareable: UInt64 = 28
    /// Tag 29: refers to the n-th shareable value seen so far.
    public static let sharedReference: UInt64 = 29
    /// Tag 55799: self-described CBOR (the magic `D9 D9 F7`), skipped on read.
    public static let selfDescribed: UInt64 = 55799
    /// pfarchive's tag for a keyed-archive UID (``PFValue/uid(_:)``) around an unsigned
    /// integer: 0x50465549 (ASCII `PFUI`), from IANA's first-come-first-served range
    /// (32768 and up). It is not registered; other CBOR tools keep the integer and ignore
    /// the tag.
    public static let uid: UInt64 = 0x5046_5549

    /// The tags a value keeps as what they mean (dates, bignums, value sharing, the
    /// self-describe prefix, UIDs); any other tag a read accepts is dropped, its enclosed
    /// value kept.
    public static let keptByValues: Set<UInt64> = [
        dateTimeString, epochDateTime, positiveBignum, negativeBignum, shareable, sharedReference, selfDescribed, uid,
    ]
}
