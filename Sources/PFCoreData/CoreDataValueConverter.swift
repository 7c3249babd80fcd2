import Foundation
import PFCore
import PFSQLiteSource
import PFFormats

/// Converts SQLite values to ``PFValue`` by attribute type.
///
/// - Date: seconds since 2001-01-01 00:00:00 UTC, `REAL` or `INTEGER`, negative allowed; a
///   date outside years 0–9999 stays the stored number, with a warning.
/// - Boolean: an integer, `0` false and anything else true.
/// - UUID: 16 bytes → the upper-case string form (`NSUUID.uuidString`).
/// - A transformable blob (type Transformable, any attribute with a value transformer, or any
///   blob of a model inferred from the columns) is decoded with ``PFFormats/EmbeddedPayload``
///   when it holds a payload — a keyed archive (app classes become `{"$class": …}`
///   dictionaries; nothing is instantiated), a property list, a typedstream, JSON or CBOR,
///   perhaps gzip- or zlib-compressed — and so is every payload inside the decoded value.
///   Other blobs (Binary attributes) stay `.data` unless ``decodeBlobs`` is set.
/// - A value whose storage class does not fit the type, or a blob that claims to be a payload
///   and does not decode, is kept as stored, with a warning.
struct CoreDataValueConverter: Sendable {
    var limits: PFLimits
    /// Whether transformable blobs are decoded.
    var decodeTransformables: Bool
    /// Whether every blob (Binary attributes too) is decoded when it holds a payload.
    var decodeBlobs: Bool
    /// Whether the model was inferred from the columns, which cannot tell a transformable
    /// from a Binary attribute (every `BLOB` column is then treated as transformable).
    var inferredModel: Bool

    /// The value, and a warning message when the stored value did not fit the type.
    func convert(_ value: SQLiteValue, as attribute: CoreDataAttribute) -> (PFValue, String?) {
        let type = attribute.type
        switch (value, type) {
        case (.null, _):
            return (.null, nil)
        case (.integer(let i), .boolean):
            return (.bool(i != 0), nil)
        case (.integer(let i), .date):
            return Self.date(secondsSince2001: Double(i), stored: .int(i))
        case (.real(let d), .date):
            guard d.isFinite else { return (.double(d), "a date that is not a finite number; kept as a number") }
            return Self.date(secondsSince2001: d, stored: .double(d))
        case (.blob(let bytes), .uuid):
            guard bytes.count == 16 else { return (.data(bytes), "a UUID of \(bytes.count) bytes, expected 16; kept as bytes") }
            let b = [UInt8](bytes)
            let uuid = UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
            return (.string(uuid.uuidString), nil)
        case (.blob(let bytes), _):
            return blob(bytes, decode: decodes(attribute))
        case (.integer(let i), .double), (.integer(let i), .float), (.integer(let i), .decimal):
            return (.double(Double(i)), nil)
        case (.integer(let i), _):
            return (.int(i), Self.fits(type, .int64) ? nil : "an integer where \(type) was expected; kept as stored")
        case (.real(let d), _):
            return (.double(d), Self.fits(type, .double) ? nil : "a real number where \(type) was expected; kept as stored")
        case (.text(let s), _):
            return (.string(s), Self.fits(type, .string) ? nil : "text where \(type) was expected; kept as stored")
        }
    }

    /// A date, or the stored number when it lies outside years 0–9999, which JSON and XML
    /// property lists cannot write (``PFCore/PFDateFormat/writableUnixSeconds``;
    /// `NSDate.distantPast`, Apple's usual "no date", is year 0 and a date).
    static func date(secondsSince2001 seconds: Double, stored: PFValue) -> (PFValue, String?) {
        guard PFDateFormat.writableUnixSeconds.contains(seconds + PFDateFormat.unixToReferenceOffset) else {
            return (stored, "a date outside years 0-9999; kept as the stored seconds since 2001")
        }
        return (.date(Date(timeIntervalSinceReferenceDate: seconds)), nil)
    }

    enum Storage { case int64, double, string }

    static func fits(_ type: CoreDataAttributeType, _ storage: Storage) -> Bool {
        switch (type, storage) {
        case (.integer16, .int64), (.integer32, .int64), (.integer64, .int64), (.objectID, .int64): true
        case (.double, .double), (.float, .double), (.decimal, .double): true
        case (.string, .string), (.uri, .string), (.decimal, .string): true
        case (.undefined, _), (.unknown, _): true
        default: false
        }
    }

    /// Whether an attribute's blobs are decoded.
    func decodes(_ attribute: CoreDataAttribute) -> Bool {
        if decodeBlobs { return true }
        guard decodeTransformables else { return false }
        // An inferred model's BLOB columns are Binary, or Undefined when any storage is
        // expected there (history tombstones): their payloads are decoded either way.
        return Self.isTransformable(attribute) || (inferredModel && (attribute.type == .binaryData || attribute.type == .undefined))
    }

    /// Whether an attribute holds transformed values: type Transformable, or any attribute
    /// with a value transformer (Core Data also stores some Binary attributes through one,
    /// such as CloudKit's system fields).
    static func isTransformable(_ attribute: CoreDataAttribute) -> Bool {
        attribute.type == .transformable || attribute.transformerName != nil
    }

    /// A blob: decoded when asked and it holds a payload, else bytes. A blob that claims to
    /// be a payload and does not decode (or nested payloads that do not, or a value JSON
    /// cannot hold) is kept as bytes, with a warning (``PFSQLiteSource/SQLiteDatabase``'s
    /// reading of payload columns).
    func blob(_ bytes: Data, decode: Bool) -> (PFValue, String?) {
        guard decode else { return (.data(bytes), nil) }
        let (value, problem) = SQLiteDatabase.decodePayload(bytes, limits: limits)
        return (value ?? .data(bytes), problem)
    }
}
