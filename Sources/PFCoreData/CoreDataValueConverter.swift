import Foundation
import PFCore
import PFKeyedArchive

/// Something a row could not convert as its model says, and what was done instead.
public struct CoreDataWarning: Sendable, Equatable, CustomStringConvertible {
    /// The entity.
    public var entity: String
    /// The object's `objectId`.
    public var objectId: String
    /// The attribute or relationship.
    public var key: String
    /// What was found and what the reader kept.
    public var message: String

    /// Makes a warning.
    public init(entity: String, objectId: String, key: String, message: String) {
        self.entity = entity
        self.objectId = objectId
        self.key = key
        self.message = message
    }

    public var description: String { "\(entity) \(objectId).\(key): \(message)" }
}

/// Converts SQLite values to ``PFValue`` by attribute type.
///
/// - Date: seconds since 2001-01-01 00:00:00 UTC, `REAL` or `INTEGER`, negative allowed.
/// - Boolean: an integer, `0` false and anything else true.
/// - UUID: 16 bytes → the upper-case string form (`NSUUID.uuidString`).
/// - Any blob that is a binary-plist NSKeyedArchiver archive (whatever the declared type) →
///   the decoded graph as ``KeyedGraph/jsonValue(limits:)`` gives it (app classes become
///   `{"$class": …}` dictionaries; nothing is instantiated). Other blobs stay `.data`.
/// - A value whose storage class does not fit the type is kept as stored, with a warning.
struct CoreDataValueConverter: Sendable {
    var limits: PFLimits
    var decodeKeyedArchives: Bool

    static let bplistMagic = Data("bplist00".utf8)
    static let archiverName = Data("NSKeyedArchiver".utf8)

    /// Whether bytes claim to be a keyed archive: a binary plist that names `NSKeyedArchiver`.
    static func looksLikeKeyedArchive(_ bytes: Data) -> Bool {
        bytes.starts(with: bplistMagic) && bytes.range(of: archiverName) != nil
    }

    /// The value, and a warning message when the stored value did not fit the type.
    func convert(_ value: SQLiteValue, as type: CoreDataAttributeType) -> (PFValue, String?) {
        switch (value, type) {
        case (.null, _):
            return (.null, nil)
        case (.integer(let i), .boolean):
            return (.bool(i != 0), nil)
        case (.integer(let i), .date):
            return (.date(Date(timeIntervalSinceReferenceDate: Double(i))), nil)
        case (.real(let d), .date):
            guard d.isFinite else { return (.double(d), "a date that is not a finite number; kept as a number") }
            return (.date(Date(timeIntervalSinceReferenceDate: d)), nil)
        case (.blob(let bytes), .uuid):
            guard bytes.count == 16 else { return (.data(bytes), "a UUID of \(bytes.count) bytes, expected 16; kept as bytes") }
            let b = [UInt8](bytes)
            let uuid = UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
            return (.string(uuid.uuidString), nil)
        case (.blob(let bytes), _):
            return blob(bytes)
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

    /// A blob: decoded when it is a keyed archive, else bytes. A blob that claims to be a keyed
    /// archive and does not decode is kept as bytes, with a warning.
    func blob(_ bytes: Data) -> (PFValue, String?) {
        guard decodeKeyedArchives, Self.looksLikeKeyedArchive(bytes) else { return (.data(bytes), nil) }
        do {
            let table = try KeyedArchive.readTable(bytes, limits: limits, decompress: false).table
            let graph = try KeyedGraph(table: table, options: .init(limits: limits))
            return (try graph.jsonValue(limits: limits), nil)
        } catch {
            return (.data(bytes), "looks like a keyed archive but does not decode (\(error)); kept as bytes")
        }
    }
}
