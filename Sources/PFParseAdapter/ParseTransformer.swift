import Foundation
import OrderedCollections
import PFCore
import PFParse

/// A reversible value transformer between the value stored in a Parse dictionary (the *wire*
/// form) and the value a property's `Codable` implementation reads (the *model* form), like
/// Mantle's `MTLValueTransformer` with both blocks.
///
/// Both directions work on ``PFValue``s, so one transformer serves any property type:
///
/// ```swift
/// // wire: 1700000000 (seconds)  ⇄  model: a Date
/// static var parseTransformers: ParseTransformers {
///     ParseTransformers().property("born", .epochSeconds).type(UUID.self, .uuid)
/// }
/// ```
public struct ParseTransformer: Sendable {
    /// A name for messages, such as `epochSeconds`.
    public let name: String
    let forwardBody: @Sendable (PFValue) throws(PFError) -> PFValue
    let reverseBody: @Sendable (PFValue) throws(PFError) -> PFValue

    /// Makes a transformer from its two directions.
    /// - Parameters:
    ///   - name: a name for messages.
    ///   - forward: wire → model form; throw a ``PFError`` (its path is filled in) to reject.
    ///   - reverse: model form → wire.
    public init(
        name: String, forward: @escaping @Sendable (PFValue) throws(PFError) -> PFValue,
        reverse: @escaping @Sendable (PFValue) throws(PFError) -> PFValue
    ) {
        self.name = name
        self.forwardBody = forward
        self.reverseBody = reverse
    }

    /// Transforms a wire value into the model form.
    /// - Parameter value: the wire value.
    /// - Returns: the model-form value.
    /// - Throws: ``PFError`` from the transformer.
    public func transformedValue(_ value: PFValue) throws(PFError) -> PFValue { try forwardBody(value) }

    /// Transforms a model-form value back into the wire form.
    /// - Parameter value: the model-form value.
    /// - Returns: the wire value.
    /// - Throws: ``PFError`` from the transformer.
    public func reverseTransformedValue(_ value: PFValue) throws(PFError) -> PFValue { try reverseBody(value) }

    /// The same transformer with its directions swapped.
    public var inverted: ParseTransformer {
        ParseTransformer(name: name + ".inverted", forward: reverseBody, reverse: forwardBody)
    }

    static func mismatch(_ name: String, expected: String, found: PFValue) -> PFError {
        PFError(parse: ParseAdapterFailure.transformerMismatch(name: name, expected: expected, found: ParseFailure.describe(found)))
    }
}

// MARK: - Built-in transformers

extension ParseTransformer {
    /// Parse's Date: wire `{"__type":"Date","iso":…}` (or a bare ISO string, as `createdAt`
    /// is written) ⇄ a `Date`. Dates use this by default.
    public static let parseDate = ParseTransformer(
        name: "parseDate",
        forward: { v throws(PFError) in .date(try dateValue(v, name: "parseDate")) },
        reverse: { v throws(PFError) in ParseValue.date(try dateValue(v, name: "parseDate")).restValue })

    /// An ISO 8601 string (any precision or zone on read; `…T…​.mmmZ` on write) ⇄ a `Date`.
    public static let iso8601Date = ParseTransformer(
        name: "iso8601Date",
        forward: { v throws(PFError) in
            guard case .string(let s) = v, let d = ParseDate.date(from: s) else {
                throw mismatch("iso8601Date", expected: "an ISO 8601 date string", found: v)
            }
            return .date(d)
        },
        reverse: { v throws(PFError) in
            let d = try dateValue(v, name: "iso8601Date")
            guard let s = ParseDate.string(from: d) else { throw mismatch("iso8601Date", expected: "a date in years 0–9999", found: v) }
            return .string(s)
        })

    /// Seconds since 1970 (integer or fractional) ⇄ a `Date`; written as an integer when whole.
    public static let epochSeconds = epoch(name: "epochSeconds", scale: 1)

    /// Milliseconds since 1970 ⇄ a `Date`; written as an integer.
    public static let epochMilliseconds = epoch(name: "epochMilliseconds", scale: 1000)

    static func epoch(name: String, scale: Double) -> ParseTransformer {
        ParseTransformer(
            name: name,
            forward: { v throws(PFError) in
                guard let n = v.doubleValue, n.isFinite else { throw mismatch(name, expected: "a number", found: v) }
                return .date(ParseDate.rounded(Date(timeIntervalSince1970: n / scale)))
            },
            reverse: { v throws(PFError) in
                let t = try dateValue(v, name: name).timeIntervalSince1970 * scale
                let rounded = (t * 1000).rounded() / 1000
                if rounded == rounded.rounded(), let i = Int64(exactly: rounded) { return .int(i) }
                return .double(rounded)
            })
    }

    /// A URL string, checked on read ⇄ `URL` (which the adapter reads from a string).
    public static let url = ParseTransformer(
        name: "url",
        forward: { v throws(PFError) in
            guard case .string(let s) = v, URL(string: s) != nil else { throw mismatch("url", expected: "a URL string", found: v) }
            return v
        },
        reverse: { v throws(PFError) in v })

    /// A UUID string in any case, checked on read ⇄ `UUID`; written lowercase.
    public static let uuid = ParseTransformer(
        name: "uuid",
        forward: { v throws(PFError) in
            guard case .string(let s) = v, let u = UUID(uuidString: s) else { throw mismatch("uuid", expected: "a UUID string", found: v) }
            return .string(u.uuidString)
        },
        reverse: { v throws(PFError) in
            guard case .string(let s) = v else { throw mismatch("uuid", expected: "a UUID string", found: v) }
            return .string(s.lowercased())
        })

    /// Maps wire values to model values (Mantle's value-mapping transformer), e.g. `"R"` ⇄
    /// `"red"` for an enum's raw value.
    /// - Parameters:
    ///   - map: wire value → model value; reversed for writing (one wire value per model value).
    ///   - defaultValue: the model value for an unknown wire value; `nil` makes it an error.
    ///   - reverseDefault: the wire value for an unknown model value; `nil` makes it an error.
    /// - Returns: the transformer.
    public static func valueMap(
        _ map: [PFValue: PFValue], default defaultValue: PFValue? = nil, reverseDefault: PFValue? = nil
    ) -> ParseTransformer {
        var reverseMap: [PFValue: PFValue] = [:]
        for (wire, model) in map where reverseMap[model] == nil { reverseMap[model] = wire }
        let inverse = reverseMap
        let known = map.keys.map { ParseFailure.describe($0) }.sorted().joined(separator: ", ")
        return ParseTransformer(
            name: "valueMap",
            forward: { v throws(PFError) in
                if let m = map[v] { return m }
                if let defaultValue { return defaultValue }
                throw mismatch("valueMap", expected: "one of \(known)", found: v)
            },
            reverse: { v throws(PFError) in
                if let w = inverse[v] { return w }
                if let reverseDefault { return reverseDefault }
                throw mismatch("valueMap", expected: "a mapped model value", found: v)
            })
    }

    /// Applies a transformer to every element of an array (Mantle's array-mapping transformer).
    /// - Parameter element: the element transformer.
    /// - Returns: the transformer.
    public static func array(of element: ParseTransformer) -> ParseTransformer {
        ParseTransformer(
            name: "array(\(element.name))",
            forward: { v throws(PFError) in
                guard case .array(let items) = v else { throw mismatch("array(\(element.name))", expected: "an array", found: v) }
                var out: [PFValue] = []
                out.reserveCapacity(items.count)
                for (i, item) in items.enumerated() {
                    do throws(PFError) { out.append(try element.forwardBody(item)) } catch {
                        throw error.at(PFKeyPath([.index(i)]))
                    }
                }
                return .array(out)
            },
            reverse: { v throws(PFError) in
                guard case .array(let items) = v else { throw mismatch("array(\(element.name))", expected: "an array", found: v) }
                var out: [PFValue] = []
                for item in items { out.append(try element.reverseBody(item)) }
                return .array(out)
            })
    }

    /// A nested model written as a Pointer (`{"__type":"Pointer","className":…,"objectId":…}`)
    /// instead of an embedded object; reading accepts a full object (decoded) or a Pointer
    /// (a stub: reading any field but `objectId` is an error — use ``ParseReference`` to
    /// accept stubs).
    public static let pointer = ParseTransformer(
        name: "pointer",
        forward: { v throws(PFError) in v },
        reverse: { v throws(PFError) in try pointerValue(v) })

    /// An array of nested models written as Pointers.
    public static let pointerArray = ParseTransformer.array(of: .pointer)

    /// A nested model written as a full embedded object `{"__type":"Object","className":…,…}`
    /// (the default for nested ``ParseModel`` values).
    public static let embeddedObject = ParseTransformer(
        name: "embeddedObject", forward: { v throws(PFError) in v }, reverse: { v throws(PFError) in v })

    /// Parse Bytes `{"__type":"Bytes","base64":…}` ⇄ `Data` (the default for `Data`).
    public static let bytes = ParseTransformer(
        name: "bytes",
        forward: { v throws(PFError) in
            if case .data = v { return v }
            guard case .bytes(let d) = try ParseValue(rest: v) else { throw mismatch("bytes", expected: "Bytes", found: v) }
            return .data(d)
        },
        reverse: { v throws(PFError) in
            guard case .data(let d) = v else { return v }
            return ParseValue.bytes(d).restValue
        })

    /// A base64 string ⇄ `Data` (for columns that hold base64 text rather than Bytes).
    public static let base64String = ParseTransformer(
        name: "base64String",
        forward: { v throws(PFError) in
            guard case .string(let s) = v, let d = PFBase64.decode(s, ignoringWhitespace: true) else {
                throw mismatch("base64String", expected: "a base64 string", found: v)
            }
            return .data(d)
        },
        reverse: { v throws(PFError) in
            guard case .data(let d) = v else { return v }
            return .string(PFBase64.encode(d))
        })

    /// A Parse GeoPoint ⇄ a plain `{"latitude":…,"longitude":…}` dictionary, for a struct of
    /// your own with those two properties (``ParseGeoPoint`` itself needs no transformer).
    public static let geoPoint = ParseTransformer(
        name: "geoPoint",
        forward: { v throws(PFError) in
            guard case .geoPoint(let g) = try ParseValue(rest: v) else { throw mismatch("geoPoint", expected: "a GeoPoint", found: v) }
            return ["latitude": .double(g.latitude), "longitude": .double(g.longitude)]
        },
        reverse: { v throws(PFError) in
            guard let lat = v["latitude"]?.doubleValue, let lng = v["longitude"]?.doubleValue else {
                throw mismatch("geoPoint", expected: "latitude and longitude", found: v)
            }
            let point = ParseGeoPoint(latitude: lat, longitude: lng)
            if let problem = point.problem { throw PFError(parse: ParseFailure.badGeoPoint(problem: problem)) }
            return ParseValue.geoPoint(point).restValue
        })

    // MARK: - Helpers

    static func dateValue(_ v: PFValue, name: String) throws(PFError) -> Date {
        switch v {
        case .date(let d): return ParseDate.rounded(d)
        case .string(let s):
            if let d = ParseDate.date(from: s) { return d }
        case .dictionary(let d) where d["__type"] == "Date":
            if case .date(let date) = try ParseValue(rest: v) { return date }
        default: break
        }
        throw mismatch(name, expected: "a Date", found: v)
    }

    static func pointerValue(_ v: PFValue) throws(PFError) -> PFValue {
        guard case .dictionary(let d) = v else { throw mismatch("pointer", expected: "a nested object", found: v) }
        if d["__type"] == "Pointer" { return v }
        guard case .string(let className)? = d["className"] else {
            throw mismatch("pointer", expected: "a nested model with a class name", found: v)
        }
        guard case .string(let objectId)? = d["objectId"] else {
            throw PFError(parse: ParseAdapterFailure.unsavedPointer(className: className))
        }
        return ParseValue.pointer(ParsePointer(className: className, objectId: objectId)).restValue
    }
}

// MARK: - Sets of transformers

/// The transformers of a model: by property name and by property type.
public struct ParseTransformers: Sendable {
    /// Transformers by property name.
    public var byProperty: [String: ParseTransformer]
    /// Transformers by type, applied to every value of that type (at any depth) unless a
    /// property transformer applies.
    public var byType: [ObjectIdentifier: ParseTransformer]

    /// No transformers.
    public init() {
        byProperty = [:]
        byType = [:]
    }

    /// These transformers plus one for a property.
    /// - Parameters:
    ///   - name: the property name.
    ///   - transformer: its transformer.
    /// - Returns: the new set.
    public func property(_ name: String, _ transformer: ParseTransformer) -> ParseTransformers {
        var copy = self
        copy.byProperty[name] = transformer
        return copy
    }

    /// These transformers plus one for every value of a type.
    /// - Parameters:
    ///   - type: the type, such as `Date.self`.
    ///   - transformer: its transformer.
    /// - Returns: the new set.
    public func type<T>(_ type: T.Type, _ transformer: ParseTransformer) -> ParseTransformers {
        var copy = self
        copy.byType[ObjectIdentifier(type)] = transformer
        return copy
    }

    var isEmpty: Bool { byProperty.isEmpty && byType.isEmpty }
}
