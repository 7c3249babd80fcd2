import Foundation
import OrderedCollections
import PFCore

/// One field value of a ``ParseObject``: the JSON types plus Parse's special types, each
/// encoded exactly as Parse's REST API does (see ``ParseValue/restValue``).
///
/// Integers and doubles stay apart (`3` and `3.0` are different values), dates keep Parse's
/// millisecond precision, and an object with a `__type` Parse does not define is kept as a
/// plain ``object(_:)``.
public enum ParseValue: Sendable, Equatable {
    /// `null`.
    case null
    /// A boolean.
    case bool(Bool)
    /// An integer (Parse's Number holding an integer).
    case int(Int64)
    /// A floating-point number (Parse's Number holding a double).
    case double(Double)
    /// A string.
    case string(String)
    /// `{"__type":"Date","iso":"…Z"}`, millisecond precision.
    case date(Date)
    /// `{"__type":"Bytes","base64":"…"}`.
    case bytes(Data)
    /// `{"__type":"Pointer","className":…,"objectId":…}`.
    case pointer(ParsePointer)
    /// `{"__type":"Relation","className":<target class>}`.
    case relation(className: String)
    /// `{"__type":"File","name":…,"url":…}`.
    case file(ParseFile)
    /// `{"__type":"GeoPoint","latitude":…,"longitude":…}`.
    case geoPoint(ParseGeoPoint)
    /// `{"__type":"Polygon","coordinates":[[lat,lng],…]}`.
    case polygon(ParsePolygon)
    /// A JSON array.
    case array([ParseValue])
    /// A JSON object (also any object whose `__type` Parse does not define).
    case object(OrderedDictionary<String, ParseValue>)
    /// A full embedded object, `{"__type":"Object","className":…,…fields}`, as `include` returns.
    /// (Boxed: a `ParseObject` inline would make every `ParseValue` several times larger.)
    indirect case embedded(ParseObject)
}

// MARK: - Special types

/// A reference to an object by class and id: `{"__type":"Pointer","className":…,"objectId":…}`.
public struct ParsePointer: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The target's class, such as `_User`.
    public var className: String
    /// The target's object id.
    public var objectId: String

    /// Makes a pointer.
    /// - Parameters:
    ///   - className: the target's class.
    ///   - objectId: the target's id.
    public init(className: String, objectId: String) {
        self.className = className
        self.objectId = objectId
    }

    public var description: String { "\(className)/\(objectId)" }
}

/// A file stored by Parse: `{"__type":"File","name":…,"url":…}`.
public struct ParseFile: Sendable, Hashable, Codable {
    /// The stored file name (Parse prefixes it, e.g. `tfss-…-profile.png`).
    public var name: String
    /// Where the file can be downloaded, when known.
    public var url: String?

    /// Makes a file reference.
    /// - Parameters:
    ///   - name: the stored name.
    ///   - url: the download URL.
    public init(name: String, url: String? = nil) {
        self.name = name
        self.url = url
    }
}

/// A point on Earth: `{"__type":"GeoPoint","latitude":…,"longitude":…}`.
public struct ParseGeoPoint: Sendable, Hashable, Codable {
    /// Degrees north, in [-90, 90].
    public var latitude: Double
    /// Degrees east, in [-180, 180].
    public var longitude: Double

    /// Makes a point (not checked; ``problem`` says what is out of range).
    /// - Parameters:
    ///   - latitude: degrees north.
    ///   - longitude: degrees east.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// What is out of range, or `nil` when the point is valid.
    public var problem: String? {
        if !(latitude >= -90 && latitude <= 90) { return "GeoPoint latitude \(latitude) is outside [-90, 90]" }
        if !(longitude >= -180 && longitude <= 180) { return "GeoPoint longitude \(longitude) is outside [-180, 180]" }
        return nil
    }
}

/// A polygon: `{"__type":"Polygon","coordinates":[[lat,lng],…]}` (latitude first, as Parse's
/// REST API writes it; parse-server swaps the axes only in its database).
public struct ParsePolygon: Sendable, Hashable, Codable {
    /// The vertices, at least three.
    public var coordinates: [ParseGeoPoint]

    /// Makes a polygon.
    /// - Parameter coordinates: the vertices.
    public init(coordinates: [ParseGeoPoint]) {
        self.coordinates = coordinates
    }
}

// MARK: - Accessors

extension ParseValue {
    /// The schema type of the value (an embedded object is a ``ParseFieldType/pointer``, an
    /// object with a `__type` Parse does not define an ``ParseFieldType/object``); `nil` for null.
    public var fieldType: ParseFieldType? {
        switch self {
        case .null: nil
        case .bool: .boolean
        case .int, .double: .number
        case .string: .string
        case .date: .date
        case .bytes: .bytes
        case .pointer, .embedded: .pointer
        case .relation: .relation
        case .file: .file
        case .geoPoint: .geoPoint
        case .polygon: .polygon
        case .array: .array
        case .object: .object
        }
    }

    /// ``fieldType`` as a small number, told in place without building a ``ParseFieldType``
    /// (``ParseFieldType/code``): 0 for null, and equal codes for equal field types. Readers
    /// and writers ask it of every value (a schema inferred from rows, a PostgreSQL column's
    /// check), where the type itself cost a copy of the value and a comparison of types.
    // A switch of its own, not `fieldType?.code`: an optional `ParseFieldType` (whose
    // `unknown` case holds a string) built and read per value cost 43 million instructions
    // more per 10,000 rows of an import into PostgreSQL.
    @inlinable
    public var fieldTypeCode: UInt8 {
        switch self {
        case .null: 0
        case .bool: 1
        case .int, .double: 2
        case .string: 3
        case .date: 4
        case .bytes: 5
        case .pointer, .embedded: 6
        case .relation: 7
        case .file: 8
        case .geoPoint: 9
        case .polygon: 10
        case .array: 11
        case .object: 12
        }
    }

    /// The target class of a Pointer, embedded object or Relation.
    public var targetClassName: String? {
        switch self {
        case .pointer(let p): p.className
        case .embedded(let o): o.className
        case .relation(let c): c
        default: nil
        }
    }

    /// The pointer to an embedded object or the pointer itself; `nil` for other values.
    public var pointerValue: ParsePointer? {
        switch self {
        case .pointer(let p): p
        case .embedded(let o): o.objectId.map { ParsePointer(className: o.className, objectId: $0) }
        default: nil
        }
    }

    /// The member of an object value, or `nil`.
    public subscript(key: String) -> ParseValue? {
        if case .object(let d) = self { return d[key] }
        return nil
    }
}

// MARK: - Dates

/// Parse's date text, `YYYY-MM-DDTHH:MM:SS.mmmZ`, and millisecond rounding.
public enum ParseDate {
    /// Rounds a date to Parse's precision, whole milliseconds.
    /// - Parameter date: any date.
    /// - Returns: the nearest millisecond.
    public static func rounded(_ date: Date) -> Date {
        let millis = (date.timeIntervalSince1970 * 1000).rounded()
        guard millis.isFinite else { return date }
        return Date(timeIntervalSince1970: millis / 1000)
    }

    /// Formats a date as Parse does, rounded to the nearest millisecond.
    /// - Parameter date: the date.
    /// - Returns: the text, or `nil` outside years 0–9999.
    public static func string(from date: Date) -> String? {
        PFDateFormat.roundedMilliseconds(date)
    }

    /// Parses ISO 8601 text (Parse writes `…T…​.mmmZ`; other zones and precisions are accepted)
    /// and rounds it to whole milliseconds.
    /// - Parameter text: the text.
    /// - Returns: the date, or `nil` when the text is not an ISO 8601 date-time.
    public static func date(from text: String) -> Date? {
        PFDateFormat.parseISO8601(text).map(rounded)
    }
}
