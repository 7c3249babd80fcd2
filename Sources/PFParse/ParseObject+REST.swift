import Foundation
import OrderedCollections
import PFCore

// MARK: - Reading

extension ParseObject {
    /// Reads an object from Parse's REST JSON (a class file row, a REST response, or an
    /// embedded `{"__type":"Object",…}`).
    ///
    /// `createdAt`/`updatedAt` may be bare ISO strings (exports) or Date objects; a
    /// `className` key, when present, must agree with `className`.
    /// - Parameters:
    ///   - rest: the JSON object.
    ///   - className: the class (for class files, from the file name); `nil` to take it from
    ///     the object's `className` key.
    /// - Throws: ``PFError`` with Parse code 103 (class name missing or invalid), 105 (a key
    ///   name), 111 (a value of the wrong type or a malformed special type), 106, 121, 123.
    public init(rest: PFValue, className: String? = nil) throws(PFError) {
        try self.init(restInput: rest, className: className)
    }

    /// Reads an object from Parse's REST JSON, optionally with names Parse forbids.
    /// - Parameters:
    ///   - rest: the JSON object.
    ///   - className: the class, or `nil` to take it from the object's `className` key.
    ///   - checkingNames: `false` to accept any field name and nested key (`_private`,
    ///     `a.b`, `$x`, non-ASCII), as stores that may hold any name need; a destination that
    ///     cannot hold them encodes them (``ParseNameCoding``). The class name is checked
    ///     either way.
    /// - Throws: as ``init(rest:className:)``.
    public init(rest: PFValue, className: String? = nil, checkingNames: Bool) throws(PFError) {
        try self.init(restInput: rest, className: className, checkingNames: checkingNames)
    }

    package init(decoding d: OrderedDictionary<String, PFValue>, className given: String?, path: PFCodingPath) throws(PFError) {
        try self.init(decodingMembers: PFValue.dictionary(d), className: given, path: path)
    }

    /// Reads an object from its id and its fields' REST values, exactly as
    /// `init(rest: {"objectId": objectId, …fields}, className: className, checkingNames: false)`
    /// reads that dictionary (the same object, key order and errors), without building it: a
    /// reader that holds a row's id and fields apart (the SQLite source) makes one object per row.
    /// - Parameters:
    ///   - className: the class.
    ///   - objectId: the object id.
    ///   - restFields: the fields, in order, as REST values.
    ///   - classNameIsValid: whether the caller checked the class name already (a reader of
    ///     many rows of one class checks it once).
    /// - Returns: the object.
    /// - Throws: as ``init(rest:className:checkingNames:)``.
    package static func reading(
        className: String, objectId: String, restFields: OrderedDictionary<String, PFValue>, classNameIsValid: Bool = false
    ) throws(PFError) -> ParseObject {
        let keys = restFields.keys
        // A field the REST object reads specially (`ACL`, `createdAt`, `__type`, `objectId`…)
        // goes the general way, which gives it its meaning.
        if keys.contains(where: { RESTKey($0) != nil }) {
            var rest = OrderedDictionary<String, PFValue>(minimumCapacity: restFields.count + 1)
            rest["objectId"] = .string(objectId)
            for (key, value) in restFields { rest[key] = value }
            return try ParseObject(restInput: PFValue.dictionary(rest), className: className, checkingNames: false)
        }
        var context = ParseContext(className: className, objectId: objectId)
        context.checksNames = false
        if !classNameIsValid, let problem = ParseRules.classNameProblem(className) {
            throw PFError(parse: ParseFailure.badClassName(problem: problem), path: .root, context: context)
        }
        // No source key order is kept: `objectId`, then the fields in order, is the order an
        // object without one writes (no key here is a default column), and keeping it cost
        // two arrays and a retain per key for every row.
        // The fields share the row's keys (no copy, no rehash); a field that fails is decoded
        // again below, which says where.
        if let fields = try? restFields.mapValues({ (value: PFValue) throws(PFError) -> ParseValue in
            try ParseValue.decode(value, path: .root, context: context)
        }) {
            return ParseObject(read: className, objectId: objectId, createdAt: nil, updatedAt: nil, acl: nil, fields: fields, order: nil)
        }
        let values = restFields.values
        var decoded: [ParseValue] = []
        decoded.reserveCapacity(values.count)
        for i in values.indices {
            decoded.append(try ParseValue.decode(values[i], path: PFCodingPath.root.appending(key: keys[i]), context: context))
        }
        return ParseObject(
            read: className, objectId: objectId, createdAt: nil, updatedAt: nil, acl: nil,
            fields: OrderedDictionary(uncheckedUniqueKeys: keys, values: decoded), order: nil)
    }

    /// An object as a REST reader made it: its data, no pending operations, and the key order
    /// of what it was read from.
    private init(
        read className: String, objectId: String?, createdAt: Date?, updatedAt: Date?, acl: ParseACL?,
        fields: OrderedDictionary<String, ParseValue>, order: [String]?
    ) {
        self.className = className
        self.storedFields = fields
        self.isDataAvailable = true
        self.objectId = objectId
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.acl = acl
        aclChanged = false
        sourceKeyOrder = order
    }

    /// Reads the members of a REST object (a ``PFCore/PFValue`` dictionary or an object node).
    init<Input: ParseRESTInput>(
        decodingMembers d: Input, className given: String?, path: PFCodingPath, checkingNames: Bool = true
    ) throws(PFError) {
        let objectIdValue = d.restMember("objectId")
        var context = ParseContext(className: given, objectId: objectIdValue?.restString)
        context.checksNames = checkingNames
        var className = given
        if let named = d.restMember("className") {
            guard case .string(let name) = named.restCase else {
                throw PFError(parse: ParseFailure.classNameNotString, path: path.appending(key: "className"), context: context)
            }
            if let given, given != name {
                throw PFError(
                    parse: ParseFailure.classNameDiffers(name: name, given: given),
                    path: path.appending(key: "className"), context: context)
            }
            className = name
        }
        guard let className else {
            throw PFError(
                parse: ParseFailure.noClassName,
                path: path, context: context)
        }
        context.className = className
        if let problem = ParseRules.classNameProblem(className) {
            throw PFError(parse: ParseFailure.badClassName(problem: problem), path: path, context: context)
        }
        let count = d.restCount
        // Both inputs give each key once, so the fields are gathered as two arrays and the
        // dictionary is built at the end without a lookup per insertion.
        var fieldKeys: [String] = []
        var fieldValues: [ParseValue] = []
        fieldKeys.reserveCapacity(count)
        fieldValues.reserveCapacity(count)
        var order: [String] = []
        order.reserveCapacity(count)
        var objectId: String?
        var createdAt: Date?
        var updatedAt: Date?
        var acl: ParseACL?
        // A constant for the closure: a captured `var` is read out of its box, a copy of both
        // its strings and a release after, at every use (twice per field).
        let memberContext = context
        try d.forEachRESTMember { (key: String, value: Input) throws(PFError) in
            order.append(key)
            // Built only for errors (an allocation per field otherwise).
            func here() -> PFCodingPath { path.appending(key: key) }
            switch RESTKey(key) {
            case .ignored?:
                return
            case .objectId?:
                switch value.restCase {
                case .string(let s): objectId = s
                case .null: objectId = nil
                default:
                    throw PFError(parse: ParseFailure.objectIdNotString(found: ParseFailure.describe(value)), path: here(), context: memberContext)
                }
            case .createdAt?:
                createdAt = try ParseObject.timestamp(value, key: key, path: here(), context: memberContext)
            case .updatedAt?:
                updatedAt = try ParseObject.timestamp(value, key: key, path: here(), context: memberContext)
            case .acl?:
                acl = try ParseACL(rest: value, path: here(), context: memberContext)
            case nil:
                if memberContext.checksNames, let problem = ParseRules.fieldNameProblem(key, className: className) {
                    throw PFError(parse: ParseFailure.badFieldName(problem: problem), path: here(), context: memberContext)
                }
                // A scalar is read in place (``ParseValue/scalar(_:)``), without a call of `decode`.
                if let scalar = ParseValue.scalar(value.restCase) {
                    fieldValues.append(scalar)
                } else {
                    fieldValues.append(try ParseValue.decode(value, path: here(), context: memberContext))
                }
                fieldKeys.append(key)
            }
        }
        self.init(
            read: className, objectId: objectId, createdAt: createdAt, updatedAt: updatedAt, acl: acl,
            fields: OrderedDictionary(uncheckedUniqueKeys: fieldKeys, values: fieldValues), order: order)
    }

    /// Whether a REST object reads a top-level key specially (`ACL`, `objectId`, `createdAt`,
    /// `updatedAt`, `__type`…) rather than as a field.
    package static func readsSpecially(_ key: String) -> Bool { RESTKey(key) != nil }

    /// The top-level keys a REST object reads specially, told by length first (most field
    /// names have none of these lengths, so they cost no string comparison).
    enum RESTKey {
        case ignored, objectId, createdAt, updatedAt, acl

        init?(_ key: String) {
            switch key.utf8.count {
            case 3 where key == "ACL": self = .acl
            case 6 where key == "__type": self = .ignored
            case 8 where key == "objectId": self = .objectId
            case 9:
                switch key {
                case "createdAt": self = .createdAt
                case "updatedAt": self = .updatedAt
                case "className": self = .ignored
                default: return nil
                }
            default: return nil
            }
        }
    }

    static func timestamp<Input: ParseRESTInput>(_ value: Input, key: String, path: @autoclosure () -> PFCodingPath,
                                                 context: ParseContext) throws(PFError) -> Date? {
        switch value.restCase {
        case .null: return nil
        case .date(let d): return ParseDate.rounded(d)
        case .string(let s):
            if let d = ParseDate.date(from: s) { return d }
        case .dictionary:
            if case .date(let d) = try ParseValue.decode(value, path: path(), context: context) { return d }
        default: break
        }
        throw PFError(
            parse: ParseFailure.badTimestamp(key: key, found: ParseFailure.describe(value)),
            path: path(), context: context)
    }
}

// MARK: - Writing

extension ParseObject {
    /// The object as Parse's REST JSON, the way exports write it: bare ISO `createdAt` /
    /// `updatedAt`, special types as `{"__type":…}` dictionaries, keys in the order they were
    /// read (new keys after them).
    public var restValue: PFValue { encoded(style: .rest) }

    /// The object as pfarchive's typed value tree (dates and bytes as typed values).
    public var typedValue: PFValue { encoded(style: .typed) }

    /// The object's JSON in a style.
    /// - Parameters:
    ///   - style: REST or typed.
    ///   - sortedKeys: sort every key of the object (Parse.com exports do).
    /// - Returns: the JSON dictionary.
    public func encoded(style: ParseRESTStyle, sortedKeys: Bool = false) -> PFValue {
        .dictionary(members(style: style, sortedKeys: sortedKeys, includeClassName: false))
    }

    package func encodedAsEmbedded(style: ParseRESTStyle) -> PFValue {
        if !isDataAvailable, let pointer { return ParseValue.pointer(pointer).encoded(style: style) }
        var out: OrderedDictionary<String, PFValue> = ["__type": "Object", "className": .string(className)]
        for (k, v) in members(style: style, sortedKeys: false, includeClassName: false) where k != "className" {
            out[k] = v
        }
        return .dictionary(out)
    }

    func members(style: ParseRESTStyle, sortedKeys: Bool, includeClassName: Bool) -> OrderedDictionary<String, PFValue> {
        var out = OrderedDictionary<String, PFValue>()
        out.reserveCapacity(fields.count + 4)
        func emit(_ key: String) {
            guard out[key] == nil else { return }
            switch key {
            case "objectId": if let objectId { out[key] = .string(objectId) }
            case "createdAt", "updatedAt":
                guard let date = key == "createdAt" ? createdAt : updatedAt else { return }
                if style == .rest, let iso = ParseDate.string(from: date) { out[key] = .string(iso) } else { out[key] = .date(date) }
            case "ACL": if let acl { out[key] = acl.restValue }
            case "className": if includeClassName || sourceKeyOrder?.contains("className") == true { out[key] = .string(className) }
            case "__type": break
            default: if let value = fields[key] { out[key] = value.encoded(style: style) }
            }
        }
        if let order = sourceKeyOrder { for key in order { emit(key) } }
        for key in ParseRules.defaultColumns { emit(key) }
        for key in fields.keys { emit(key) }
        if includeClassName { emit("className") }
        if sortedKeys { out.sort(by: { $0.key < $1.key }) }
        return out
    }
}
