import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFParse

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
    // Unchecked exclusivity: the state is read and swapped for every value decoded, and the
    // runtime's dynamic checks cost more than the swaps. Accesses never overlap: each read or
    // swap finishes before any `init(from:)` runs (the saved state is a local copy).
    /// The value being decoded: a ``PFCore/PFValue`` or a node of json-c's tree.
    @exclusivity(unchecked) var value: ParseWire
    @exclusivity(unchecked) var path: PFCodingPath
    @exclusivity(unchecked) var level: ParseLevel
    @exclusivity(unchecked) var context: ParseContext
    @exclusivity(unchecked) var typeTransformers: [ObjectIdentifier: ParseTransformer]
    let options: ParseAdapter.Options
    let cache: ParseModelCache
    /// Set when failures are collected instead of thrown.
    var issues: [ParseIssue]?
    /// Key tables of plain structs by `CodingKey` type, and of models by model info.
    @exclusivity(unchecked) private var plainTables: [ObjectIdentifier: ParseKeyTable] = [:]
    @exclusivity(unchecked) private var modelTables: [ObjectIdentifier: ParseKeyTable] = [:]

    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var codingPath: [any CodingKey] { path.codingKeys }

    init(value: ParseWire, options: ParseAdapter.Options, cache: ParseModelCache, collect: Bool) {
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
        guard let object = value.object else {
            throw mismatch("an object", value, path)
        }
        return KeyedDecodingContainer(ParseKeyedDecoding<Key>(impl: self, object: object, path: path, level: level, context: context))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard let items = value.array else {
            throw mismatch("an array", value, path)
        }
        return ParseUnkeyedDecoding(impl: self, items: items, path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    // MARK: - Errors

    func mismatch(_ expected: String, _ found: ParseWire, _ at: PFCodingPath) -> PFError {
        PFError(parse: ParseAdapterFailure.typeMismatch(expected: expected, found: found.described), path: at, context: context)
    }

    // MARK: - Decoding one value

    /// Decodes `T` from a wire value: applies the property's (or the type's) transformer,
    /// then reads scalars and Parse types directly and runs `T(from:)` for the rest.
    func unwrap<T: Decodable>(_ type: T.Type, from wire: ParseWire, at: PFCodingPath, transformer: ParseTransformer?)
        throws -> T
    {
        var input = wire
        if let t = transformer ?? (typeTransformers.isEmpty ? nil : typeTransformers[ObjectIdentifier(T.self)]) {
            do throws(PFError) { input = .value(try t.transformedValue(try wire.materialized())) } catch {
                throw error.at(at.keyPath).withContext(context)
            }
        }
        if ParseSpecialType.isSpecial(T.self) { return try decodeSpecial(T.self, input, at) }
        if typeTransformers.isEmpty, ParseScalarArrays.handles(T.self) {
            return try ParseScalarArrays.read(T.self, input) { try decodeComposite(T.self, from: input, at: at) }
        }
        return try decodeComposite(T.self, from: input, at: at)
    }

    /// Decodes a model, a plain struct or an array through `T(from:)`, with the level,
    /// context and type transformers of a model when `T` is one.
    private func decodeComposite<T: Decodable>(_ type: T.Type, from input: ParseWire, at: PFCodingPath) throws -> T {
        var newLevel = ParseLevel.plain
        var newContext = context
        var newTransformers = typeTransformers
        var modelInfo: ParseModelInfo?
        var modelType: (any ParseModel.Type)?
        if let type = T.self as? any ParseModel.Type {
            modelType = type
            let info = cache.info(type)
            modelInfo = info
            guard input.object != nil else { throw mismatch("a \(info.className) object", input, at) }
            var stub: ParsePointer?
            if input.memberString("__type") == "Pointer" {
                guard case .pointer(let p) = try input.parseValue(path: at, context: context) else {
                    throw mismatch("a Pointer", input, at)
                }
                stub = p
            }
            if let c = input.memberString("className"), c != info.className, at.keyPath.isRoot == false {
                throw PFError(
                    parse: ParseAdapterFailure.nestedClassMismatch(expected: info.className, found: c), path: at, context: context)
            }
            newLevel = .model(info, stub: stub)
            // Errors name the outermost object; the key path leads to the nested one.
            if case .root = at {
                newContext = ParseContext(className: info.className, objectId: input.memberString("objectId") ?? stub?.objectId)
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
        if let info = modelInfo, let modelType, let object = input.object {
            try validateDecoded(result, as: modelType, info: info, object: object)
        }
        return result
    }

    /// Validates a decoded model whose type `T` is the model type `M`, without boxing it in an
    /// existential (a copy of the whole model on the heap).
    private func validateDecoded<T, M: ParseModel>(_ result: T, as type: M.Type, info: ParseModelInfo,
                                                   object: ParseWireObject) throws {
        guard T.self == M.self else { return }
        try withUnsafePointer(to: result) { pointer throws in
            try pointer.withMemoryRebound(to: M.self, capacity: 1) { model throws in
                try validate(model.pointee, info: info, object: object)
            }
        }
    }

    /// Parse's own types, dates, data, URLs and UUIDs (the types of
    /// ``ParseSpecialType/isSpecial(_:)``), read without going through `init(from:)`. Each is
    /// read by a helper that is not generic (so the REST reader is specialized for both
    /// inputs) and handed back with ``PFCore/exactCast(_:to:)``: no `as? T`, whose
    /// `Optional<T>` costs a metadata lookup in unspecialized code.
    @inline(never)
    func decodeSpecial<T>(_ type: T.Type, _ v: ParseWire, _ at: PFCodingPath) throws(PFError) -> T {
        // Each cast is exact: T is the type just compared.
        if T.self == Date.self { return exactCast(try date(v, at), to: T.self) }
        if T.self == Data.self { return exactCast(try bytes(v, at), to: T.self) }
        if T.self == URL.self {
            guard case .string(let s) = v.restCase, let url = URL(string: s) else { throw mismatch("a URL string", v, at) }
            return exactCast(url, to: T.self)
        }
        if T.self == UUID.self {
            guard case .string(let s) = v.restCase, let uuid = UUID(uuidString: s) else { throw mismatch("a UUID string", v, at) }
            return exactCast(uuid, to: T.self)
        }
        if T.self == PFValue.self { return exactCast(try v.materialized(), to: T.self) }
        if T.self == ParseValue.self { return exactCast(try v.parseValue(path: at, context: context), to: T.self) }
        if T.self == ParseACL.self { return exactCast(try v.acl(path: at, context: context), to: T.self) }
        if T.self == ParsePointer.self {
            guard let p = try v.parseValue(path: at, context: context).pointerValue else { throw mismatch("a Pointer", v, at) }
            return exactCast(p, to: T.self)
        }
        if T.self == ParseFile.self {
            guard case .file(let f) = try v.parseValue(path: at, context: context) else { throw mismatch("a File", v, at) }
            return exactCast(f, to: T.self)
        }
        if T.self == ParseGeoPoint.self {
            guard case .geoPoint(let g) = try v.parseValue(path: at, context: context) else { throw mismatch("a GeoPoint", v, at) }
            return exactCast(g, to: T.self)
        }
        if T.self == ParsePolygon.self {
            guard case .polygon(let p) = try v.parseValue(path: at, context: context) else { throw mismatch("a Polygon", v, at) }
            return exactCast(p, to: T.self)
        }
        if T.self == ParseObject.self {
            guard case .embedded(let o) = try v.parseValue(path: at, context: context) else { throw mismatch("an embedded Object", v, at) }
            return exactCast(o, to: T.self)
        }
        // Not reached: callers check isSpecial first.
        throw PFError(parse: ParseAdapterFailure.notAParseType("\(T.self)"), path: at, context: context)
    }

    /// A Date from a typed date, an ISO 8601 string or a REST `{"__type":"Date"}` object.
    private func date(_ v: ParseWire, _ at: PFCodingPath) throws(PFError) -> Date {
        switch v.restCase {
        case .date(let d): return ParseDate.rounded(d)
        case .string(let s):
            if let d = ParseDate.date(from: s) { return d }
            throw PFError(parse: ParseAdapterFailure.dateNotISO8601(s), path: at, context: context)
        case .dictionary where v.memberString("__type") == "Date":
            if case .date(let date) = try v.parseValue(path: at, context: context) { return date }
        default: break
        }
        throw mismatch("a Date", v, at)
    }

    /// Bytes from typed data or a REST `{"__type":"Bytes"}` object.
    private func bytes(_ v: ParseWire, _ at: PFCodingPath) throws(PFError) -> Data {
        switch v.restCase {
        case .data(let d): return d
        case .dictionary where v.memberString("__type") == "Bytes":
            if case .bytes(let bytes) = try v.parseValue(path: at, context: context) { return bytes }
        default: break
        }
        throw mismatch("Bytes", v, at)
    }

    // MARK: - Validation

    func validate<M: ParseModel>(_ model: M, info: ParseModelInfo, object: ParseWireObject) throws {
        var found: [ParseIssue] = []
        func issue(_ property: String, _ message: String, code: ParseErrorCode = .validationError) {
            let mapping = info.mapping(for: property)
            let keyPath = PFKeyPath(path.keyPath.components + mapping.keyPath.components)
            found.append(
                ParseIssue(code: code, className: context.className, objectId: context.objectId, path: keyPath,
                           message: "'\(property)' \(message)"))
        }
        // Validators read `PFValue`s: a node's members are copied out only when there are some.
        let dict = info.sortedValidators.isEmpty ? [:] : try object.materialized()
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
        throw PFError(
            parse: ParseAdapterFailure.validationFailures(found.map { "\($0.path): \($0.message)" }),
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

    func bool(_ v: ParseWire, _ at: PFCodingPath) throws(PFError) -> Bool {
        switch v {
        case .value(.bool(let b)): return b
        case .node(let n): if let b = n.boolValue { return b }
        default: break
        }
        throw mismatch("a Boolean", v, at)
    }

    func string(_ v: ParseWire, _ at: PFCodingPath) throws(PFError) -> String {
        switch v {
        case .value(.string(let s)): return s
        case .node(let n): if let s = n.stringValue { return s }
        default: break
        }
        throw mismatch("a String", v, at)
    }

    func double(_ v: ParseWire, _ at: PFCodingPath) throws(PFError) -> Double {
        switch v.restCase {
        case .double(let d): return d
        case .int(let i): return Double(i)
        case .uint(let u): return Double(u)
        default: throw mismatch("a Number", v, at)
        }
    }

    func integer<I: FixedWidthInteger>(_ v: ParseWire, _ at: PFCodingPath, as type: I.Type) throws(PFError) -> I {
        let number: PFValue
        switch v.restCase {
        case .int(let i):
            if let x = I(exactly: i) { return x }
            number = .int(i)
        case .uint(let u):
            if let x = I(exactly: u) { return x }
            number = .uint(u)
        case .double(let d):
            if d.isFinite, d == d.rounded(), let x = I(exactly: d) { return x }
            throw PFError(parse: ParseAdapterFailure.notAnInteger(type: "\(I.self)", number: d), path: at, context: context)
        default:
            throw mismatch("an integer", v, at)
        }
        throw PFError(parse: ParseAdapterFailure.integerDoesNotFit(number: "\(number)", type: "\(I.self)"), path: at, context: context)
    }
}

// MARK: - Single value

extension ParseDecoderImpl: SingleValueDecodingContainer {
    func decodeNil() -> Bool { value.isNull }
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
    /// The array when the value holds one that fits, else what `otherwise` gives. Not
    /// inlined: the `Optional<T>` of the readers below then costs only callers that need them.
    @inline(never)
    static func read<T>(_ type: T.Type, _ wire: ParseWire, otherwise: () throws -> T) rethrows -> T {
        let found: T?
        switch wire {
        case .value(let value): found = read(T.self, value)
        case .node(let node): found = read(T.self, node)
        }
        if let found { return found }
        return try otherwise()
    }

    static func read<T>(_ type: T.Type, _ value: PFValue) -> T? {
        guard case .array(let items) = value else { return nil }
        if T.self == [String].self {
            var out: [String] = []
            out.reserveCapacity(items.count)
            for item in items {
                guard case .string(let s) = item else { return nil }
                out.append(s)
            }
            return exactCast(out, to: T.self)
        }
        if T.self == [Int].self {
            var out: [Int] = []
            out.reserveCapacity(items.count)
            for item in items {
                guard case .int(let i) = item, let x = Int(exactly: i) else { return nil }
                out.append(x)
            }
            return exactCast(out, to: T.self)
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
            return exactCast(out, to: T.self)
        }
        if T.self == [Bool].self {
            var out: [Bool] = []
            out.reserveCapacity(items.count)
            for item in items {
                guard case .bool(let b) = item else { return nil }
                out.append(b)
            }
            return exactCast(out, to: T.self)
        }
        return nil
    }

    /// ``read(_:_:)-(_,PFValue)`` over an array node (the same rules: an `Int` must be an
    /// integer of `Int`'s range, a `Double` any integer or double).
    static func read<T>(_ type: T.Type, _ node: JSONNode) -> T? {
        guard node.kind == .array else { return nil }
        let n = node.count
        if T.self == [String].self {
            var out: [String] = []
            out.reserveCapacity(n)
            for k in 0..<n {
                guard let s = node.element(at: k)?.stringValue else { return nil }
                out.append(s)
            }
            return exactCast(out, to: T.self)
        }
        if T.self == [Int].self {
            var out: [Int] = []
            out.reserveCapacity(n)
            for k in 0..<n {
                guard let i = node.element(at: k)?.intValue, let x = Int(exactly: i) else { return nil }
                out.append(x)
            }
            return exactCast(out, to: T.self)
        }
        if T.self == [Double].self {
            var out: [Double] = []
            out.reserveCapacity(n)
            for k in 0..<n {
                guard let item = node.element(at: k) else { return nil }
                switch item.kind {
                case .double, .int:
                    guard let d = item.doubleValue else { return nil }
                    out.append(d)
                default: return nil
                }
            }
            return exactCast(out, to: T.self)
        }
        if T.self == [Bool].self {
            var out: [Bool] = []
            out.reserveCapacity(n)
            for k in 0..<n {
                guard let b = node.element(at: k)?.boolValue else { return nil }
                out.append(b)
            }
            return exactCast(out, to: T.self)
        }
        return nil
    }
}
