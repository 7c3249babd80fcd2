import Foundation
import OrderedCollections
import PFCore

/// A Parse object: its class, id, timestamps, ACL and ordered fields of ``ParseValue``s,
/// with the pending field operations that a save would send.
///
/// ```swift
/// var score = try ParseObject(className: "GameScore")
/// try score.set(.int(1337), forKey: "score")
/// try score.increment("score", by: .int(1))          // merged: Set 1338
/// let body = score.savePayload()                       // {"score":1338}
/// ```
///
/// The fields hold the *estimated* values: the last known server state with every pending
/// operation applied locally. A pointer stub (``pointerStub(className:objectId:)``) has no
/// data; reading one of its fields throws instead of answering `nil`.
public struct ParseObject: Sendable {
    /// The class, such as `GameScore` or `_User`.
    public internal(set) var className: String
    /// The object id, `nil` for an object never saved.
    public var objectId: String?
    /// When the object was created (millisecond precision).
    public var createdAt: Date?
    /// When the object was last updated (millisecond precision).
    public var updatedAt: Date?
    /// Who may read and write the object; `nil` when the object has no `ACL` key.
    public var acl: ParseACL? {
        didSet { aclChanged = true }
    }
    /// The fields with every pending operation applied, in order.
    ///
    /// An object read for a store that writes prepared JSON may hold a field as that text
    /// (`preparedFields`); each read of this property makes such a value from its source's
    /// bytes, so code on that path reads it once, not per key.
    public internal(set) var fields: OrderedDictionary<String, ParseValue> {
        get { preparedFields.isEmpty ? storedFields : materializedFields }
        set {
            storedFields = newValue
            preparedFields = []
        }
        _modify {
            materializePrepared()
            yield &storedFields
        }
    }
    /// The fields as stored: ``fields``, except that a field held as prepared REST JSON
    /// (``preparedFields``) is a `null` placeholder here. Read by a store that writes prepared
    /// JSON as it is (``ParsePreparedValue``); anything else reads ``fields``.
    package internal(set) var storedFields: OrderedDictionary<String, ParseValue>
    /// The fields held as prepared REST JSON, by their index in ``storedFields``, in order;
    /// empty for almost every object.
    package internal(set) var preparedFields: [ParsePreparedField] = []
    /// The pending operations by key, merged as Parse merges consecutive operations.
    public internal(set) var operations: OrderedDictionary<String, ParseOperation> = [:]
    /// Whether the object's data is present; `false` for a pointer stub.
    public internal(set) var isDataAvailable: Bool
    /// Whether the ACL changed since the last ``markSaved()``.
    public internal(set) var aclChanged = false
    /// The key order of the REST dictionary this object was read from, so it writes back in
    /// the same order.
    var sourceKeyOrder: [String]?

    /// Forgets that the REST dictionary this object was read from named its class, so its
    /// REST form does not write `className` back as a member: for stores whose records carry
    /// `className` as framing (a JSON Lines file), not as the object's data.
    public mutating func omitClassNameFromSourceKeys() {
        sourceKeyOrder?.removeAll { $0 == "className" }
    }

    // MARK: - Making objects

    /// Makes a new, unsaved object.
    /// - Parameters:
    ///   - className: the class.
    ///   - objectId: an id, when known.
    /// - Throws: ``PFError`` with Parse code 103 (InvalidClassName).
    public init(className: String, objectId: String? = nil) throws(PFError) {
        try ParseRules.checkClassName(className)
        self.className = className
        self.objectId = objectId
        self.storedFields = [:]
        self.isDataAvailable = true
    }

    /// Makes an object with data, as the server last returned it (no pending operations).
    /// - Parameters:
    ///   - className: the class.
    ///   - objectId: the id.
    ///   - createdAt: creation time.
    ///   - updatedAt: last update time.
    ///   - acl: the ACL.
    ///   - fields: the fields.
    /// - Throws: ``PFError`` with Parse code 103 for the class name or 105 for a field name.
    public init(
        className: String, objectId: String?, createdAt: Date? = nil, updatedAt: Date? = nil, acl: ParseACL? = nil,
        fields: OrderedDictionary<String, ParseValue>
    ) throws(PFError) {
        try self.init(
            className: className, objectId: objectId, createdAt: createdAt, updatedAt: updatedAt, acl: acl, fields: fields,
            checkingNames: true)
    }

    /// Makes an object with data, optionally with field names Parse forbids.
    /// - Parameters:
    ///   - className: the class.
    ///   - objectId: the id.
    ///   - createdAt: creation time.
    ///   - updatedAt: last update time.
    ///   - acl: the ACL.
    ///   - fields: the fields.
    ///   - checkingNames: `false` to accept field names Parse forbids, as a store that may
    ///     hold any name needs (``ParseNameCoding``).
    /// - Throws: ``PFError`` with Parse code 103 for the class name or 105 for a field name.
    public init(
        className: String, objectId: String?, createdAt: Date? = nil, updatedAt: Date? = nil, acl: ParseACL? = nil,
        fields: OrderedDictionary<String, ParseValue>, checkingNames: Bool
    ) throws(PFError) {
        try ParseRules.checkClassName(className)
        if checkingNames { for key in fields.keys { try ParseRules.checkFieldName(key, className: className) } }
        self.className = className
        self.objectId = objectId
        self.createdAt = createdAt.map(ParseDate.rounded)
        self.updatedAt = updatedAt.map(ParseDate.rounded)
        self.acl = acl
        self.storedFields = fields
        self.isDataAvailable = true
        self.aclChanged = false
    }

    /// The object with other fields, as a store would have read it: no operations are
    /// recorded and the key order of the source is kept for the fields that remain.
    /// - Parameter fields: the new fields.
    /// - Returns: the copy.
    /// - Throws: ``PFError`` with Parse code 105 (InvalidFieldName) for a field name.
    public func replacingFields(_ fields: OrderedDictionary<String, ParseValue>) throws(PFError) -> ParseObject {
        let known = self.fields
        for key in fields.keys where known[key] == nil { try ParseRules.checkFieldName(key, className: className) }
        var copy = self
        copy.fields = fields
        return copy
    }

    /// A pointer stub: an object known only by class and id, without data.
    /// - Parameters:
    ///   - className: the class.
    ///   - objectId: the id.
    /// - Returns: the stub; reading its fields throws.
    /// - Throws: ``PFError`` with Parse code 103 (InvalidClassName).
    public static func pointerStub(className: String, objectId: String) throws(PFError) -> ParseObject {
        var stub = try ParseObject(className: className, objectId: objectId)
        stub.isDataAvailable = false
        return stub
    }

    /// The pointer to this object, or `nil` when it has no id yet.
    public var pointer: ParsePointer? {
        objectId.map { ParsePointer(className: className, objectId: $0) }
    }

    package var context: ParseContext { ParseContext(className: className, objectId: objectId) }

    // MARK: - Reading fields

    /// The value of a field (with pending operations applied).
    /// - Parameter key: the field name; `objectId`, `createdAt`, `updatedAt` and `ACL` read the
    ///   default columns.
    /// - Returns: the value, or `nil` when the object has no such field.
    /// - Throws: ``PFError`` with code `usage` when the object is a pointer stub without data.
    public func value(forKey key: String) throws(PFError) -> ParseValue? {
        switch key {
        case "objectId": return objectId.map { .string($0) }
        case "className": return .string(className)
        default: break
        }
        try requireData(reading: key)
        switch key {
        case "createdAt": return createdAt.map { .date($0) }
        case "updatedAt": return updatedAt.map { .date($0) }
        case "ACL": return acl.map { aclObject($0) }
        default: return fields[key]
        }
    }

    /// Throws when this is a pointer stub.
    package func requireData(reading key: String, path: PFCodingPath? = nil) throws(PFError) {
        guard isDataAvailable else {
            throw PFError(
                parse: ParseFailure.stubKey(key),
                path: path ?? PFCodingPath.root.appending(key: key), context: context)
        }
    }

    private func aclObject(_ acl: ParseACL) -> ParseValue {
        var d = OrderedDictionary<String, ParseValue>()
        for (k, a) in acl.entries {
            var p = OrderedDictionary<String, ParseValue>()
            if a.read { p["read"] = .bool(true) }
            if a.write { p["write"] = .bool(true) }
            d[k] = .object(p)
        }
        return .object(d)
    }

    /// The names of the fields present (default columns not included).
    public var keys: [String] { Array(fields.keys) }
}

// MARK: - Equality

extension ParseObject: Equatable {
    /// Objects are equal when class, id, timestamps, ACL, fields, pending operations and data
    /// availability are; the order of fields (a Parse object's keys are unordered) is not
    /// compared.
    public static func == (a: ParseObject, b: ParseObject) -> Bool {
        a.className == b.className && a.objectId == b.objectId && a.createdAt == b.createdAt
            && a.updatedAt == b.updatedAt && a.acl == b.acl && a.isDataAvailable == b.isDataAvailable
            && Self.sameFields(a.fields, b.fields)
            && a.operations.count == b.operations.count && a.operations.allSatisfy { b.operations[$0.key] == $0.value }
    }

    /// Whether two objects' fields hold the same values, in any order (each object's fields
    /// are read once: a prepared field is made on every read).
    private static func sameFields(_ a: OrderedDictionary<String, ParseValue>, _ b: OrderedDictionary<String, ParseValue>) -> Bool {
        a.count == b.count && a.allSatisfy { b[$0.key] == $0.value }
    }
}
