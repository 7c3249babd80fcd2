import Foundation
import OrderedCollections
import PFCore

/// A coding key made from a string or an index.
struct ParseCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}

extension PFCodingPath {
    var codingKeys: [any CodingKey] {
        keyPath.components.map { c in
            switch c {
            case .key(let k): ParseCodingKey(stringValue: k)
            case .index(let i): ParseCodingKey(intValue: i)
            }
        }
    }
}

/// The level a keyed container reads at.
enum ParseLevel {
    /// A plain struct: keys through the adapter's strategy.
    case plain
    /// A ``ParseModel``: keys through its key map; `stub` set when the value is a Pointer
    /// without data.
    case model(ParseModelInfo, stub: ParsePointer?)
}

/// The `Decoder` the adapter runs models through: one instance per top-level decode, whose
/// current value, path and level are swapped while nested values decode (as swift-foundation's
/// JSONDecoderImpl does), so nothing is allocated per scalar.
final class ParseDecoderImpl: Decoder {
    var value: PFValue
    var path: PFCodingPath
    var level: ParseLevel
    var context: ParseContext
    var typeTransformers: [ObjectIdentifier: ParseTransformer]
    let options: ParseAdapter.Options
    let cache: ParseModelCache
    /// Set when failures are collected instead of thrown.
    var issues: [ParseIssue]?
    /// Key tables of plain structs by `CodingKey` type, and of models by model info.
    private var plainTables: [ObjectIdentifier: ParseKeyTable] = [:]
    private var modelTables: [ObjectIdentifier: ParseKeyTable] = [:]

    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var codingPath: [any CodingKey] { path.codingKeys }

    init(value: PFValue, options: ParseAdapter.Options, cache: ParseModelCache, collect: Bool) {
        self.value = value
        self.path = .root
        self.level = .plain
        self.context = .none
        self.options = options
        self.cache = cache
        self.typeTransformers = options.typeTransformers.byType
        self.issues = collect ? [] : nil
    }

    // MARK: - Containers

    /// The key table of a `CodingKey` type at a level, made on first use and kept while this
    /// decoder lives.
    func keyTable<Key: CodingKey>(for type: Key.Type, level: ParseLevel) -> ParseKeyTable {
        let id = ObjectIdentifier(Key.self)
        switch level {
        case .plain:
            if let table = plainTables[id] { return table }
            let made = ParseKeyTable(info: nil, strategy: options.keyStrategy)
            plainTables[id] = made
            return made
        case .model(let info, _):
            if let table = modelTables[id], table.info === info { return table }
            let made = ParseKeyTable(info: info, strategy: info.strategy)
            modelTables[id] = made
            return made
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .dictionary(let d) = value else {
            throw mismatch("an object", value, path)
        }
        return KeyedDecodingContainer(ParseKeyedDecoding<Key>(impl: self, dict: d, path: path, level: level, context: context))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else {
            throw mismatch("an array", value, path)
        }
        return ParseUnkeyedDecoding(impl: self, items: items, path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    // MARK: - Errors

    func mismatch(_ expected: String, _ found: PFValue, _ at: PFCodingPath) -> PFError {
        ParseFailure.make(.incorrectType, "expected \(expected), found \(ParseFailure.describe(found))", path: at, context: context)
    }

    // MARK: - Decoding one value

    /// Decodes `T` from a wire value: applies the property's (or the type's) transformer,
    /// then reads scalars and Parse types directly and runs `T(from:)` for the rest.
    func unwrap<T: Decodable>(_ type: T.Type, from wire: PFValue, at: PFCodingPath, transformer: ParseTransformer?)
        throws -> T
    {
        var input = wire
        if let t = transformer ?? (typeTransformers.isEmpty ? nil : typeTransformers[ObjectIdentifier(T.self)]) {
            do throws(PFError) { input = try t.transformedValue(wire) } catch {
                throw error.at(at.keyPath).withContext(context)
            }
        }
        if ParseSpecialType.isSpecial(T.self) {
            if let special = try decodeSpecial(T.self, input, at) { return special }
        } else if typeTransformers.isEmpty, ParseScalarArrays.handles(T.self),
            let array = ParseScalarArrays.read(T.self, input) {
            return array
        }
        var newLevel = ParseLevel.plain
        var newContext = context
        var newTransformers = typeTransformers
        var modelInfo: ParseModelInfo?
        var modelType: (any ParseModel.Type)?
        if let type = T.self as? any ParseModel.Type {
            modelType = type
            let info = cache.info(type)
            modelInfo = info
            guard case .dictionary(let d) = input else { throw mismatch("a \(info.className) object", input, at) }
            var stub: ParsePointer?
            if d["__type"] == "Pointer" {
                guard case .pointer(let p) = try ParseValue.decode(input, path: at, context: context) else {
                    throw mismatch("a Pointer", input, at)
                }
                stub = p
            }
            if case .string(let c)? = d["className"], c != info.className, at.keyPath.isRoot == false {
                throw ParseFailure.make(
                    .incorrectType, "expected a \(info.className) object, found a \(c)", path: at, context: context)
            }
            newLevel = .model(info, stub: stub)
            // Errors name the outermost object; the key path leads to the nested one.
            if case .root = at {
                newContext = ParseContext(className: info.className, objectId: d["objectId"]?.stringValue ?? stub?.objectId)
            }
            if !info.transformers.byType.isEmpty {
                newTransformers.merge(info.transformers.byType, uniquingKeysWith: { _, model in model })
            }
        }
        let saved = (value, path, level, context, typeTransformers)
        value = input
        path = at
        level = newLevel
        context = newContext
        typeTransformers = newTransformers
        defer { (value, path, level, context, typeTransformers) = saved }
        let result = try T(from: self)
        if let info = modelInfo, let modelType, case .dictionary(let d) = input {
            try validateDecoded(result, as: modelType, info: info, dict: d)
        }
        return result
    }

    /// Validates a decoded model whose type `T` is the model type `M`, without boxing it in an
    /// existential (a copy of the whole model on the heap).
    private func validateDecoded<T, M: ParseModel>(_ result: T, as type: M.Type, info: ParseModelInfo,
                                                   dict: OrderedDictionary<String, PFValue>) throws {
        guard T.self == M.self else { return }
        try withUnsafePointer(to: result) { pointer throws in
            try pointer.withMemoryRebound(to: M.self, capacity: 1) { model throws in
                try validate(model.pointee, info: info, dict: dict)
            }
        }
    }

    /// Parse's own types, dates, data, URLs and UUIDs, read without going through `init(from:)`.
    func decodeSpecial<T>(_ type: T.Type, _ v: PFValue, _ at: PFCodingPath) throws(PFError) -> T? {
        if T.self == Date.self {
            switch v {
            case .date(let d): return ParseDate.rounded(d) as? T
            case .string(let s):
                if let d = ParseDate.date(from: s) { return d as? T }
                throw ParseFailure.make(.incorrectType, "expected a Date, found the string \"\(s)\" (not ISO 8601)", path: at, context: context)
            case .dictionary(let d) where d["__type"] == "Date":
                if case .date(let date) = try ParseValue.decode(v, path: at, context: context) { return date as? T }
            default: break
            }
            throw mismatch("a Date", v, at)
        }
        if T.self == Data.self {
            switch v {
            case .data(let d): return d as? T
            case .dictionary(let d) where d["__type"] == "Bytes":
                if case .bytes(let bytes) = try ParseValue.decode(v, path: at, context: context) { return bytes as? T }
            default: break
            }
            throw mismatch("Bytes", v, at)
        }
        if T.self == URL.self {
            guard case .string(let s) = v, let url = URL(string: s) else { throw mismatch("a URL string", v, at) }
            return url as? T
        }
        if T.self == UUID.self {
            guard case .string(let s) = v, let uuid = UUID(uuidString: s) else { throw mismatch("a UUID string", v, at) }
            return uuid as? T
        }
        if T.self == PFValue.self { return v as? T }
        if T.self == ParseValue.self { return try ParseValue.decode(v, path: at, context: context) as? T }
        if T.self == ParseACL.self { return try ParseACL(rest: v, path: at, context: context) as? T }
        if T.self == ParsePointer.self {
            guard let p = try ParseValue.decode(v, path: at, context: context).pointerValue else { throw mismatch("a Pointer", v, at) }
            return p as? T
        }
        if T.self == ParseFile.self {
            guard case .file(let f) = try ParseValue.decode(v, path: at, context: context) else { throw mismatch("a File", v, at) }
            return f as? T
        }
        if T.self == ParseGeoPoint.self {
            guard case .geoPoint(let g) = try ParseValue.decode(v, path: at, context: context) else { throw mismatch("a GeoPoint", v, at) }
            return g as? T
        }
        if T.self == ParsePolygon.self {
            guard case .polygon(let p) = try ParseValue.decode(v, path: at, context: context) else { throw mismatch("a Polygon", v, at) }
            return p as? T
        }
        if T.self == ParseObject.self {
            guard case .embedded(let o) = try ParseValue.decode(v, path: at, context: context) else { throw mismatch("an embedded Object", v, at) }
            return o as? T
        }
        return nil
    }

    // MARK: - Validation

    func validate<M: ParseModel>(_ model: M, info: ParseModelInfo, dict: OrderedDictionary<String, PFValue>) throws {
        var found: [ParseIssue] = []
        func issue(_ property: String, _ message: String, code: ParseErrorCode = .validationError) {
            let mapping = info.mapping(for: property)
            let keyPath = PFKeyPath(path.keyPath.components + mapping.keyPath.components)
            found.append(
                ParseIssue(code: code, className: context.className, objectId: context.objectId, path: keyPath,
                           message: "'\(property)' \(message)"))
        }
        for (property, validators) in info.sortedValidators {
            let mapping = info.mapping(for: property)
            var wire = try mapping.lookup(in: dict, at: path).0
            if wire == nil || wire == .null, let fallback = info.defaults[property] { wire = fallback }
            if let w = wire, let t = info.transformers.byProperty[property] { wire = try t.transformedValue(w) }
            for validator in validators {
                if let message = validator.check(wire) { issue(property, message) }
            }
        }
        var report = ParseValidationReport()
        model.validateParse(&report)
        for failure in report.failures { issue(failure.property, failure.message) }
        guard !found.isEmpty else { return }
        if issues != nil {
            issues?.append(contentsOf: found)
            return
        }
        guard found.count > 1, let first = found.first else {
            throw found[0].error
        }
        throw ParseFailure.make(
            .validationError,
            "\(found.count) validation failures: " + found.map { "\($0.path): \($0.message)" }.joined(separator: "; "),
            path: PFCodingPath.from(first.path), context: context)
    }

    /// Records a failure in collecting mode (and answers whether decoding may go on).
    func record(_ error: any Error) -> Bool {
        guard issues != nil else { return false }
        let pf = ParseAdapter.pfError(error)
        issues?.append(ParseIssue(pf, className: context.className, objectId: context.objectId))
        return true
    }

    // MARK: - Scalars

    func bool(_ v: PFValue, _ at: PFCodingPath) throws(PFError) -> Bool {
        guard case .bool(let b) = v else { throw mismatch("a Boolean", v, at) }
        return b
    }

    func string(_ v: PFValue, _ at: PFCodingPath) throws(PFError) -> String {
        guard case .string(let s) = v else { throw mismatch("a String", v, at) }
        return s
    }

    func double(_ v: PFValue, _ at: PFCodingPath) throws(PFError) -> Double {
        switch v {
        case .double(let d): return d
        case .int(let i): return Double(i)
        case .uint(let u): return Double(u)
        default: throw mismatch("a Number", v, at)
        }
    }

    func integer<I: FixedWidthInteger>(_ v: PFValue, _ at: PFCodingPath, as type: I.Type) throws(PFError) -> I {
        switch v {
        case .int(let i):
            if let x = I(exactly: i) { return x }
        case .uint(let u):
            if let x = I(exactly: u) { return x }
        case .double(let d):
            if d.isFinite, d == d.rounded(), let x = I(exactly: d) { return x }
            throw ParseFailure.make(.incorrectType, "expected an integer (\(I.self)), found the number \(d)", path: at, context: context)
        default:
            throw mismatch("an integer", v, at)
        }
        throw ParseFailure.make(.incorrectType, "the number \(v) does not fit \(I.self)", path: at, context: context)
    }
}

// MARK: - Single value

extension ParseDecoderImpl: SingleValueDecodingContainer {
    func decodeNil() -> Bool { value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try bool(value, path) }
    func decode(_ type: String.Type) throws -> String { try string(value, path) }
    func decode(_ type: Double.Type) throws -> Double { try double(value, path) }
    func decode(_ type: Float.Type) throws -> Float { Float(try double(value, path)) }
    func decode(_ type: Int.Type) throws -> Int { try integer(value, path, as: Int.self) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(value, path, as: Int8.self) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(value, path, as: Int16.self) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(value, path, as: Int32.self) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(value, path, as: Int64.self) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(value, path, as: UInt.self) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(value, path, as: UInt8.self) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(value, path, as: UInt16.self) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(value, path, as: UInt32.self) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(value, path, as: UInt64.self) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        // A wrapper decoding its wrapped value: the same value, through the same rules.
        try unwrap(T.self, from: value, at: path, transformer: nil)
    }
}

// MARK: - Fast type checks

/// The types ``ParseDecoderImpl/decodeSpecial(_:_:_:)`` reads itself, checked by metatype
/// comparisons before it is called (its `Optional<T>` result costs metadata lookups in
/// unspecialized code, for every nested struct and array otherwise).
enum ParseSpecialType {
    @inline(__always)
    static func isSpecial<T>(_ type: T.Type) -> Bool {
        T.self == Date.self || T.self == Data.self || T.self == URL.self || T.self == UUID.self
            || T.self == PFValue.self || T.self == ParseValue.self || T.self == ParseACL.self
            || T.self == ParsePointer.self || T.self == ParseFile.self || T.self == ParseGeoPoint.self
            || T.self == ParsePolygon.self || T.self == ParseObject.self
    }
}

/// Arrays of strings, integers, doubles and booleans read in one loop instead of through
/// `Array.init(from:)` and an unkeyed container (one generic call per element).
enum ParseScalarArrays {
    /// Whether `T` is one of the array types ``read(_:_:)`` builds.
    @inline(__always)
    static func handles<T>(_ type: T.Type) -> Bool {
        T.self == [String].self || T.self == [Int].self || T.self == [Double].self || T.self == [Bool].self
    }

    /// The array, or `nil` when `T` is not such an array type, the value is not an array, or
    /// an element does not fit (the general path then reports it with its index). Used only
    /// without type transformers, which the general path applies to each element.
    static func read<T>(_ type: T.Type, _ value: PFValue) -> T? {
        guard case .array(let items) = value else { return nil }
        if T.self == [String].self {
            var out: [String] = []
            out.reserveCapacity(items.count)
            for item in items {
                guard case .string(let s) = item else { return nil }
                out.append(s)
            }
            return unsafeBitCast(out, to: T.self)  // exact: T is this array type
        }
        if T.self == [Int].self {
            var out: [Int] = []
            out.reserveCapacity(items.count)
            for item in items {
                guard case .int(let i) = item, let x = Int(exactly: i) else { return nil }
                out.append(x)
            }
            return unsafeBitCast(out, to: T.self)  // exact: T is this array type
        }
        if T.self == [Double].self {
            var out: [Double] = []
            out.reserveCapacity(items.count)
            for item in items {
                switch item {
                case .double(let d): out.append(d)
                case .int(let i): out.append(Double(i))
                default: return nil
                }
            }
            return unsafeBitCast(out, to: T.self)  // exact: T is this array type
        }
        if T.self == [Bool].self {
            var out: [Bool] = []
            out.reserveCapacity(items.count)
            for item in items {
                guard case .bool(let b) = item else { return nil }
                out.append(b)
            }
            return unsafeBitCast(out, to: T.self)  // exact: T is this array type
        }
        return nil
    }
}
