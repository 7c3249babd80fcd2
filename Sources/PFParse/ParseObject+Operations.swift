import Foundation
import OrderedCollections
import PFCore

// MARK: - Field operations

extension ParseObject {
    /// Sets a field.
    /// - Parameters:
    ///   - value: the new value (``ParseValue/null`` stores JSON null; use
    ///     ``removeValue(forKey:)`` to delete the field).
    ///   - key: the field name.
    /// - Throws: ``PFError`` with Parse code 105 for an invalid or reserved key, code `usage`
    ///   for a pointer stub.
    public mutating func set(_ value: ParseValue, forKey key: String) throws(PFError) {
        try apply(.set(value), forKey: key)
    }

    /// Deletes a field (`{"__op":"Delete"}` on save).
    /// - Parameter key: the field name.
    /// - Throws: ``PFError`` as ``set(_:forKey:)``.
    public mutating func removeValue(forKey key: String) throws(PFError) {
        try apply(.delete, forKey: key)
    }

    /// Atomically adds to a number field.
    /// - Parameters:
    ///   - key: the field name.
    ///   - amount: the amount; negative to decrement.
    /// - Throws: ``PFError`` with Parse code 111 when the field is not a Number.
    public mutating func increment(_ key: String, by amount: ParseNumber = .int(1)) throws(PFError) {
        try apply(.increment(amount), forKey: key)
    }

    /// Atomically appends objects to an array field.
    /// - Parameters:
    ///   - objects: the objects.
    ///   - key: the field name.
    /// - Throws: ``PFError`` with Parse code 111 when the field is not an Array.
    public mutating func add(_ objects: [ParseValue], forKey key: String) throws(PFError) {
        try apply(.add(objects), forKey: key)
    }

    /// Atomically appends the objects not yet in an array field.
    /// - Parameters:
    ///   - objects: the objects.
    ///   - key: the field name.
    /// - Throws: ``PFError`` with Parse code 111 when the field is not an Array.
    public mutating func addUnique(_ objects: [ParseValue], forKey key: String) throws(PFError) {
        try apply(.addUnique(objects), forKey: key)
    }

    /// Atomically removes every instance of the objects from an array field.
    /// - Parameters:
    ///   - objects: the objects.
    ///   - key: the field name.
    /// - Throws: ``PFError`` with Parse code 111 when the field is not an Array.
    public mutating func remove(_ objects: [ParseValue], forKey key: String) throws(PFError) {
        try apply(.remove(objects), forKey: key)
    }

    /// Adds objects to a relation field.
    /// - Parameters:
    ///   - objects: pointers to the objects, all of one class.
    ///   - key: the relation field.
    /// - Throws: ``PFError`` with Parse code 111 when the field is not a Relation of that class.
    public mutating func addRelation(_ objects: [ParsePointer], forKey key: String) throws(PFError) {
        try apply(.addRelation(objects), forKey: key)
    }

    /// Removes objects from a relation field.
    /// - Parameters:
    ///   - objects: pointers to the objects.
    ///   - key: the relation field.
    /// - Throws: ``PFError`` with Parse code 111 when the field is not a Relation of that class.
    public mutating func removeRelation(_ objects: [ParsePointer], forKey key: String) throws(PFError) {
        try apply(.removeRelation(objects), forKey: key)
    }

    /// Applies an operation: merges it into the pending operation of `key` and updates the
    /// estimated value. Nothing changes when it fails.
    /// - Parameters:
    ///   - operation: the operation.
    ///   - key: the field name.
    /// - Throws: ``PFError`` with Parse code 105 (key) or 111 (type), or `usage` for a stub.
    public mutating func apply(_ operation: ParseOperation, forKey key: String) throws(PFError) {
        try ParseRules.checkFieldName(key, className: className)
        try requireData(reading: key)
        let path = PFCodingPath.root.appending(key: key)
        let merged: ParseOperation
        let newValue: ParseValue?
        do throws(PFError) {
            merged = try operation.merged(after: operations[key], key: key)
            newValue = try operation.applied(to: fields[key], key: key)
        } catch {
            throw error.at(path.keyPath).withContext(context)
        }
        operations[key] = merged
        fields[key] = newValue
    }

    // MARK: - Dirty state

    /// Whether anything would be sent by a save.
    public var isDirty: Bool { !operations.isEmpty || aclChanged || objectId == nil }

    /// The keys with pending operations.
    public var dirtyKeys: [String] { Array(operations.keys) }

    /// The body of a save: only the changed keys, as REST JSON (`{"score":{"__op":"Increment","amount":1}}`),
    /// plus `ACL` when it changed. A new object (no objectId) sends every field as its value
    /// merged with pending operations, the way a create does.
    /// - Returns: the JSON object.
    public func savePayload() -> PFValue {
        var out = OrderedDictionary<String, PFValue>()
        if objectId == nil {
            for (key, value) in fields where operations[key] == nil { out[key] = value.restValue }
        }
        for (key, op) in operations { out[key] = op.restValue }
        if aclChanged || objectId == nil, let acl { out["ACL"] = acl.restValue }
        return .dictionary(out)
    }

    /// Clears the pending operations after a successful save; the estimated values become
    /// the known state.
    /// - Parameters:
    ///   - objectId: the id the server assigned, for a create.
    ///   - updatedAt: the server's update time.
    public mutating func markSaved(objectId: String? = nil, updatedAt: Date? = nil) {
        operations = [:]
        aclChanged = false
        if let objectId { self.objectId = objectId }
        if let updatedAt { self.updatedAt = ParseDate.rounded(updatedAt) }
    }

    /// One request of a `POST /batch` body: a `POST` of the payload for a new object, a
    /// `PUT` of the changed keys for a saved one.
    /// - Parameter pathPrefix: the server's mount path, such as `/parse` or `/1`.
    /// - Returns: `{"method":…,"path":…,"body":…}`.
    public func batchRequest(pathPrefix: String = "/parse") -> PFValue {
        if let objectId {
            return ["method": "PUT", "path": .string("\(pathPrefix)/classes/\(className)/\(objectId)"), "body": savePayload()]
        }
        return ["method": "POST", "path": .string("\(pathPrefix)/classes/\(className)"), "body": savePayload()]
    }

    /// A `POST /batch` body: `{"requests":[…]}`.
    /// - Parameters:
    ///   - objects: the objects to save.
    ///   - pathPrefix: the server's mount path.
    /// - Returns: the JSON body.
    public static func batchBody(_ objects: [ParseObject], pathPrefix: String = "/parse") -> PFValue {
        ["requests": .array(objects.map { $0.batchRequest(pathPrefix: pathPrefix) })]
    }
}

extension PFError {
    /// The error with an object's class and id in front of its message (once).
    package func withContext(_ context: ParseContext) -> PFError {
        var copy = self
        let prefix = context.prefix
        if !prefix.isEmpty, !copy.message.hasPrefix(prefix) { copy.message = prefix + copy.message }
        return copy
    }
}
