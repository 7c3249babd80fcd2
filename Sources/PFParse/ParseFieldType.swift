import PFCore

/// The type of a field in a Parse schema, as Parse's REST `/schemas` names it (`"type":"Pointer"`).
///
/// The raw value is Parse's spelling. A name Parse did not define when pfarchive was written
/// (a schema from a newer Parse Server, or a store written by one) is kept as
/// ``unknown(_:)`` with the name exactly as read, so it is written back unchanged; its values
/// are kept as Parse REST JSON. ``init(rawValue:)`` never makes ``unknown(_:)`` of a defined
/// name, and two types are equal when their raw values are.
public enum ParseFieldType: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
    /// `String`: text.
    case string
    /// `Number`: an integer or a double.
    case number
    /// `Boolean`.
    case boolean
    /// `Date`: `{"__type":"Date","iso":…}`.
    case date
    /// `Object`: a JSON object.
    case object
    /// `Array`: a JSON array.
    case array
    /// `GeoPoint`: `{"__type":"GeoPoint","latitude":…,"longitude":…}`.
    case geoPoint
    /// `File`: `{"__type":"File","name":…,"url":…}`.
    case file
    /// `Bytes`: `{"__type":"Bytes","base64":…}`.
    case bytes
    /// `Polygon`: `{"__type":"Polygon","coordinates":[[lat,lng],…]}`.
    case polygon
    /// `Pointer`: a reference to one object of the field's target class.
    case pointer
    /// `Relation`: a many-to-many relation to objects of the field's target class.
    case relation
    /// `ACL`: an access control list.
    case acl
    /// A type name Parse did not define when pfarchive was written, as read.
    case unknown(String)

    /// The types Parse defines, in the order its documentation lists them.
    public static let known: [ParseFieldType] = [
        .string, .number, .boolean, .date, .object, .array, .geoPoint, .file, .bytes, .polygon, .pointer, .relation, .acl,
    ]

    /// The type Parse spells `rawValue`; ``unknown(_:)`` for a name it does not define.
    /// - Parameter rawValue: the type name, compared exactly (Parse's names are case-sensitive).
    public init(rawValue: String) {
        switch rawValue {
        case "String": self = .string
        case "Number": self = .number
        case "Boolean": self = .boolean
        case "Date": self = .date
        case "Object": self = .object
        case "Array": self = .array
        case "GeoPoint": self = .geoPoint
        case "File": self = .file
        case "Bytes": self = .bytes
        case "Polygon": self = .polygon
        case "Pointer": self = .pointer
        case "Relation": self = .relation
        case "ACL": self = .acl
        default: self = .unknown(rawValue)
        }
    }

    /// Parse's name of the type (the name as read for ``unknown(_:)``).
    public var rawValue: String {
        switch self {
        case .string: "String"
        case .number: "Number"
        case .boolean: "Boolean"
        case .date: "Date"
        case .object: "Object"
        case .array: "Array"
        case .geoPoint: "GeoPoint"
        case .file: "File"
        case .bytes: "Bytes"
        case .polygon: "Polygon"
        case .pointer: "Pointer"
        case .relation: "Relation"
        case .acl: "ACL"
        case .unknown(let name): name
        }
    }

    /// Whether Parse defines the type (it is not ``unknown(_:)``).
    public var isKnown: Bool {
        if case .unknown = self { return false }
        return true
    }

    /// Whether the field refers to objects of a target class (``pointer`` or ``relation``).
    public var refersToClass: Bool { self == .pointer || self == .relation }

    /// The `__type` member of a REST value of the type (`{"__type":"GeoPoint",…}`).
    package var restTag: PFValue { .string(rawValue) }

    /// The raw value.
    public var description: String { rawValue }

    /// Equal when Parse spells both alike (so ``unknown(_:)`` of a defined name equals that
    /// type); two defined types are told apart by their case, with no string compared (a
    /// reader compares a type per value).
    public static func == (a: ParseFieldType, b: ParseFieldType) -> Bool {
        guard let i = a.knownIndex, let j = b.knownIndex else { return a.rawValue == b.rawValue }
        return i == j
    }

    /// The type as a small number (``ParseValue/fieldTypeCode``): equal types have equal
    /// codes (an ``unknown(_:)`` spelling a defined name has that type's), never 0; ``acl``
    /// and other unknown types, which no value has, are 255.
    public var code: UInt8 {
        switch self {
        case .boolean: 1
        case .number: 2
        case .string: 3
        case .date: 4
        case .bytes: 5
        case .pointer: 6
        case .relation: 7
        case .file: 8
        case .geoPoint: 9
        case .polygon: 10
        case .array: 11
        case .object: 12
        case .acl: 255
        case .unknown(let name):
            switch ParseFieldType(rawValue: name) {
            case .unknown: 255
            case let defined: defined.code
            }
        }
    }

    /// The position of a defined type among the cases; `nil` for ``unknown(_:)``.
    private var knownIndex: Int? {
        switch self {
        case .string: 0
        case .number: 1
        case .boolean: 2
        case .date: 3
        case .object: 4
        case .array: 5
        case .geoPoint: 6
        case .file: 7
        case .bytes: 8
        case .polygon: 9
        case .pointer: 10
        case .relation: 11
        case .acl: 12
        case .unknown: nil
        }
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}

// MARK: - parse-server's MongoDB spelling

extension ParseSchema.Field {
    /// The field parse-server's MongoDB `_SCHEMA` spelling names: `string`, `number`,
    /// `boolean`, `date`, `object` (or `map`), `array`, `geopoint`, `file`, `bytes`,
    /// `polygon`, `acl`, `*<Class>` (a Pointer) or `relation<Class>`; `nil` for any other
    /// spelling (a Pointer or Relation without a target class included).
    /// - Parameter mongoType: the spelling.
    public init?(mongoType: String) {
        if mongoType.hasPrefix("*"), mongoType.count > 1 {
            self.init(.pointer, targetClass: String(mongoType.dropFirst()))
        } else if mongoType.hasPrefix("relation<"), mongoType.hasSuffix(">"), mongoType.count > 10 {
            self.init(.relation, targetClass: String(mongoType.dropFirst(9).dropLast()))
        } else if mongoType == "map" {
            self.init(.object)
        } else if let type = ParseFieldType.known.first(where: { !$0.refersToClass && $0.rawValue.lowercased() == mongoType }) {
            self.init(type)
        } else {
            return nil
        }
    }

    /// parse-server's MongoDB `_SCHEMA` spelling of the field: the type name lowercased,
    /// `*<Class>` for a Pointer and `relation<Class>` for a Relation; `nil` for an ACL (kept
    /// in `_SCHEMA` by parse-server as a default field) and for a Pointer or Relation whose
    /// target class is unknown (parse-server accepts only `*<Class>` and `relation<Class>`).
    /// A type Parse does not define (``ParseFieldType/unknown(_:)``) is spelled as read.
    public var mongoType: String? {
        switch type {
        case .pointer: targetClass.flatMap { $0.isEmpty ? nil : "*" + $0 }
        case .relation: targetClass.flatMap { $0.isEmpty ? nil : "relation<" + $0 + ">" }
        case .acl: nil
        case .unknown(let name): name
        default: type.rawValue.lowercased()
        }
    }
}
