import Foundation

/// One value of a Realm object, as stored.
public indirect enum RealmValue: Sendable {
    /// No value (a null of an optional property, or a null link).
    case null
    /// A bool.
    case bool(Bool)
    /// An integer.
    case int(Int64)
    /// A 32-bit float.
    case float(Float)
    /// A double.
    case double(Double)
    /// A string (invalid UTF-8 is repaired with U+FFFD).
    case string(String)
    /// Binary data.
    case binary(Data)
    /// A timestamp: seconds since 1970 and nanoseconds.
    case timestamp(seconds: Int64, nanoseconds: Int32)
    /// A 12-byte BSON ObjectId.
    case objectId(Data)
    /// A 16-byte UUID.
    case uuid(UUID)
    /// A Decimal128, as its decimal string (`"1.5"`, `"NaN"`, `"-Inf"`).
    case decimal(String)
    /// A link to an object of a table (by the table's index in the file and the object's key).
    case link(table: Int, key: Int64)
    /// A link held by a Mixed value: the target table's key and the object's key.
    case typedLink(table: Int64, key: Int64)
    /// A list of values.
    case list([RealmValue])
    /// A set: distinct values, stored sorted.
    case set([RealmValue])
    /// A dictionary with string keys, in the file's order.
    case dictionary([(key: String, value: RealmValue)])
    /// An embedded object, inlined (its class name and its properties in the model's order).
    case object(className: String, fields: [(name: String, value: RealmValue)])

    /// The timestamp as a `Date` (nil for other values).
    public var date: Date? {
        guard case .timestamp(let s, let ns) = self else { return nil }
        return Date(timeIntervalSince1970: Double(s) + Double(ns) / 1e9)
    }
}

/// One object of a Realm table: its key and its properties' values, in the order of
/// ``RealmTable/columns``.
public struct RealmObject: Sendable {
    /// The object's key in its table (stable while the file is not compacted).
    public var key: Int64
    /// The values, one per column of the table.
    public var values: [RealmValue]
}
