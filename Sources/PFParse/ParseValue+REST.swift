import Foundation
import OrderedCollections
import PFCore
import PFJSON

/// How special types are written into a ``PFValue`` tree.
public enum ParseRESTStyle: Sendable {
    /// Parse's REST JSON exactly: every special type is a `{"__type":…}` dictionary, and a
    /// top-level `createdAt`/`updatedAt` is a bare ISO string, as exports write them.
    case rest
    /// pfarchive's typed value tree: dates (including `createdAt`/`updatedAt`) are
    /// ``PFValue/date(_:)`` and Bytes are ``PFValue/data(_:)``; the JSON writer spells them
    /// as Parse's typed JSON again.
    case typed
}

// MARK: - Decoding

extension ParseValue {
    /// Reads a value from its REST JSON form.
    ///
    /// Accepts both `{"__type":"Date","iso":…}` dictionaries and the ``PFValue/date(_:)`` /
    /// ``PFValue/data(_:)`` values pfarchive's JSON reader makes of them.
    /// - Parameter rest: the JSON value.
    /// - Throws: ``PFError`` with Parse code 111 (a malformed Date/Bytes/File/GeoPoint/Polygon,
    ///   an integer beyond 64 bits), 106 (a malformed Pointer), 121 (a nested key with `$` or
    ///   `.`), 105/103 inside an embedded object.
    public init(rest: PFValue) throws(PFError) {
        self = try ParseValue.decode(rest, path: .root, context: .none)
    }

    /// Reads a value from its REST JSON form, optionally with nested keys Parse forbids.
    /// - Parameters:
    ///   - rest: the JSON value.
    ///   - checkingNames: `false` to accept any nested key (`$`, `.`), as stores that may
    ///     hold any name need (see ``ParseNameCoding``).
    /// - Throws: as ``init(rest:)``.
    public init(rest: PFValue, checkingNames: Bool) throws(PFError) {
        var context = ParseContext.none
        context.checksNames = checkingNames
        self = try ParseValue.decode(rest, path: .root, context: context)
    }

    /// Reads a value from either REST input. The path is built only when an error needs it
    /// (an allocation per member otherwise).
    package static func decode<Input: ParseRESTInput>(_ value: Input, path: @autoclosure () -> PFCodingPath,
                                              context: ParseContext) throws(PFError) -> ParseValue {
        switch value.restCase {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .uint(let u):
            throw PFError(
                parse: ParseFailure.integerBeyond64Bit(u), path: path(), context: context)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .date(let d): return .date(ParseDate.rounded(d))
        case .data(let d): return .bytes(d)
        case .uid:
            throw PFError(parse: ParseFailure.uidNotParseValue, path: path(), context: context)
        case .array:
            var out: [ParseValue] = []
            out.reserveCapacity(value.restCount)
            try value.forEachRESTElement { (i: Int, item: Input) throws(PFError) in
                if let scalar = scalar(item.restCase) {
                    out.append(scalar)
                } else {
                    out.append(try decode(item, path: path().appending(index: i), context: context))
                }
            }
            return .array(out)
        case .dictionary:
            if let type = value.restMember("__type")?.restString {
                if let typed = try decodeTyped(type, value, path: path(), context: context) { return typed }
            }
            // Without names to check, a dictionary's keys are shared as they are (only the
            // values are made); a member that fails is decoded again below, which says where.
            if !context.checksNames, let mapped = value.restMappedMembers({ (member: Input) throws(PFError) -> ParseValue in
                if let scalar = scalar(member.restCase) { return scalar }
                return try decode(member, path: path(), context: context)
            }) {
                return .object(mapped)
            }
            // Both inputs give each key once (as for an object's fields), so the members are
            // gathered as two arrays and the dictionary built at the end, with no lookup of
            // each key on insertion.
            let count = value.restCount
            var keys: [String] = []
            var values: [ParseValue] = []
            keys.reserveCapacity(count)
            values.reserveCapacity(count)
            try value.forEachRESTMember { (key: String, member: Input) throws(PFError) in
                if context.checksNames, key != "__type", let problem = ParseRules.nestedKeyProblem(key) {
                    throw PFError(parse: ParseFailure.badNestedKey(problem: problem), path: path().appending(key: key), context: context)
                }
                if let scalar = scalar(member.restCase) {
                    values.append(scalar)
                } else {
                    values.append(try decode(member, path: path().appending(key: key), context: context))
                }
                keys.append(key)
            }
            return .object(OrderedDictionary(uncheckedUniqueKeys: keys, values: values))
        }
    }

    /// What ``decode(_:path:context:)`` makes of a JSON scalar (null, boolean, integer,
    /// double, string), or `nil` for any other case. The loops over an object's members and
    /// an array's elements read scalars with it in place: most values of most rows are
    /// scalars, and each call of `decode` passed a path closure and a context on.
    @inline(__always)
    static func scalar(_ value: ParseRESTCase) -> ParseValue? {
        switch value {
        case .null: .null
        case .bool(let b): .bool(b)
        case .int(let i): .int(i)
        case .double(let d): .double(d)
        case .string(let s): .string(s)
        case .uint, .date, .data, .uid, .array, .dictionary: nil
        }
    }

    /// A typed object, or `nil` for a `__type` Parse does not define (kept as a dictionary).
    /// A `__type` tag is the name of the value's field type (``ParseFieldType``), except that
    /// `Object` tags a whole embedded object.
    static func decodeTyped<Input: ParseRESTInput>(
        _ type: String, _ d: Input, path: @autoclosure () -> PFCodingPath, context: ParseContext
    ) throws(PFError) -> ParseValue? {
        func fail(_ failure: ParseFailure) -> PFError {
            PFError(parse: failure, path: path(), context: context)
        }
        switch ParseFieldType(rawValue: type) {
        case .date:
            switch d.restMember("iso")?.restCase {
            case .string(let iso)?:
                guard let date = ParseDate.date(from: iso) else {
                    throw fail(.dateNotISO8601(iso))
                }
                return .date(date)
            case .date(let date)?: return .date(ParseDate.rounded(date))
            default:
                throw fail(.malformedDate)
            }
        case .bytes:
            guard let text = d.restMember("base64")?.restString else {
                throw fail(.malformedBytes)
            }
            guard let bytes = PFBase64.decode(text, ignoringWhitespace: false) else {
                throw fail(.bytesNotBase64)
            }
            return .bytes(bytes)
        case .pointer:
            guard let className = d.restMember("className")?.restString, let objectId = d.restMember("objectId")?.restString else {
                throw fail(.malformedPointer)
            }
            // A Pointer with more members is a fetched object (an SDK's cached or included
            // object, Parse's JS SDK reads it as one): kept whole as an embedded object, not
            // cut down to the Pointer. Members no object can hold leave it the Pointer it
            // names, as before, rather than failing the row.
            if d.restCount > 3,
                let object = try? ParseObject(decodingMembers: d, className: nil, path: path(), checkingNames: context.checksNames)
            {
                return .embedded(object)
            }
            return .pointer(ParsePointer(className: className, objectId: objectId))
        case .relation:
            guard let className = d.restMember("className")?.restString else {
                throw fail(.malformedRelation)
            }
            return .relation(className: className)
        case .file:
            guard let name = d.restMember("name")?.restString, !name.isEmpty else {
                throw fail(.malformedFile)
            }
            var url: String?
            switch d.restMember("url")?.restCase {
            case nil, .null?: url = nil
            case .string(let u)?: url = u
            default: throw fail(.fileURLNotString)
            }
            return .file(ParseFile(name: name, url: url))
        case .geoPoint:
            guard let latitude = d.restMember("latitude")?.restDouble, let longitude = d.restMember("longitude")?.restDouble else {
                throw fail(.malformedGeoPoint)
            }
            let point = ParseGeoPoint(latitude: latitude, longitude: longitude)
            if let problem = point.problem { throw fail(.badGeoPoint(problem: problem)) }
            return .geoPoint(point)
        case .polygon:
            guard let items = d.restMember("coordinates"), case .array = items.restCase else {
                throw fail(.malformedPolygon)
            }
            var points: [ParseGeoPoint] = []
            try items.forEachRESTElement { (i: Int, item: Input) throws(PFError) in
                guard case .array = item.restCase, item.restCount == 2, let lat = item.restElement(0)?.restDouble,
                    let lng = item.restElement(1)?.restDouble
                else {
                    throw PFError(
                        parse: ParseFailure.polygonCoordinate(index: i),
                        path: path().appending(key: "coordinates").appending(index: i), context: context)
                }
                let point = ParseGeoPoint(latitude: lat, longitude: lng)
                if let problem = point.problem {
                    throw PFError(
                        parse: ParseFailure.polygonVertex(index: i, problem: problem),
                        path: path().appending(key: "coordinates").appending(index: i), context: context)
                }
                points.append(point)
            }
            guard points.count >= 3 else {
                throw fail(.polygonTooFewVertices(count: points.count))
            }
            return .polygon(ParsePolygon(coordinates: points))
        case .object:
            return .embedded(try ParseObject(decodingMembers: d, className: nil, path: path(), checkingNames: context.checksNames))
        default:
            return nil
        }
    }
}

// MARK: - Encoding

extension ParseValue {
    /// The value as Parse's REST JSON (every special type a `{"__type":…}` dictionary).
    public var restValue: PFValue { encoded(style: .rest) }

    /// The value as pfarchive's typed tree (dates and bytes as ``PFValue/date(_:)`` and
    /// ``PFValue/data(_:)``).
    public var typedValue: PFValue { encoded(style: .typed) }

    /// The value in a given style.
    /// - Parameter style: REST dictionaries or typed values.
    /// - Returns: the JSON value.
    public func encoded(style: ParseRESTStyle) -> PFValue {
        switch self {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .date(let date):
            guard style == .rest, let iso = ParseDate.string(from: date) else { return .date(date) }
            return ["__type": ParseFieldType.date.restTag, "iso": .string(iso)]
        case .bytes(let data):
            guard style == .rest else { return .data(data) }
            return ["__type": ParseFieldType.bytes.restTag, "base64": .string(PFBase64.encode(data))]
        case .pointer(let p):
            return ["__type": ParseFieldType.pointer.restTag, "className": .string(p.className), "objectId": .string(p.objectId)]
        case .relation(let c):
            return ["__type": ParseFieldType.relation.restTag, "className": .string(c)]
        case .file(let f):
            var d: OrderedDictionary<String, PFValue> = ["__type": ParseFieldType.file.restTag, "name": .string(f.name)]
            if let url = f.url { d["url"] = .string(url) }
            return .dictionary(d)
        case .geoPoint(let g):
            return ["__type": ParseFieldType.geoPoint.restTag, "latitude": .double(g.latitude), "longitude": .double(g.longitude)]
        case .polygon(let p):
            return [
                "__type": ParseFieldType.polygon.restTag,
                "coordinates": .array(p.coordinates.map { .array([.double($0.latitude), .double($0.longitude)]) }),
            ]
        case .array(let items):
            return .array(items.map { $0.encoded(style: style) })
        case .object(let d):
            var out = OrderedDictionary<String, PFValue>()
            out.reserveCapacity(d.count)
            for (k, v) in d { out[k] = v.encoded(style: style) }
            return .dictionary(out)
        case .embedded(let object):
            return object.encodedAsEmbedded(style: style)
        }
    }
}

extension ParseValue: JSONPlainValue {
    /// The plain cases as their REST form (``restValue``) holds them, so the JSON writer can
    /// write them without that tree (``PFJSON/JSONWriter/appendPlain(_:to:)``); typed values
    /// are ``PFJSON/JSONPlainShape/other``.
    @usableFromInline package var plainShape: JSONPlainShape<ParseValue> {
        switch self {
        case .null: .null
        case .bool(let b): .bool(b)
        case .int(let i): .int(i)
        case .double(let d): .double(d)
        case .string(let s): .string(s)
        case .array(let items): .array(items)
        case .object(let members): .object(members)
        case .date, .bytes, .pointer, .relation, .file, .geoPoint, .polygon, .embedded: .other
        }
    }
}
