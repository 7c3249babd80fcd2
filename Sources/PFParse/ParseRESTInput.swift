import Foundation
import OrderedCollections
import PFCore
import PFJSON

// MARK: - What the REST decoder reads

/// A JSON value the REST decoder reads: a ``PFValue`` tree, or a ``PFJSON/JSONNode`` view of
/// json-c's tree. The decoder (`ParseObject(decodingMembers:)`, `ParseValue.decode`,
/// `ParseACL(rest:path:context:)`) is written once over this protocol, so both inputs follow
/// exactly the same rules and give the same errors; each is specialized for speed.
package protocol ParseRESTInput {
    /// The value's kind, with the payload of a scalar.
    var restCase: ParseRESTCase { get }
    /// The member of an object named `key`, or `nil` (also for any other kind).
    func restMember(_ key: String) -> Self?
    /// The members of an object (0 for any other kind).
    var restCount: Int { get }
    /// Calls `body` with each member of an object, in order.
    func forEachRESTMember<E: Error>(_ body: (String, Self) throws(E) -> Void) throws(E)
    /// The element at `index` of an array, or `nil`.
    func restElement(_ index: Int) -> Self?
    /// Calls `body` with each element of an array, in order.
    func forEachRESTElement<E: Error>(_ body: (Int, Self) throws(E) -> Void) throws(E)
    /// The string, or `nil` for any other kind.
    var restString: String? { get }
    /// Any number as a `Double` (as ``PFCore/PFValue/doubleValue``), or `nil`.
    var restDouble: Double? { get }
    /// An object's members with each value transformed, in order, sharing the input's keys
    /// when it holds them as a dictionary does (no copy, no rehash); `nil` for any other kind,
    /// an input that cannot share its keys, or when `transform` throws.
    func restMappedMembers<T>(_ transform: (Self) throws(PFError) -> T) -> OrderedDictionary<String, T>?
}

extension ParseRESTInput {
    package func restMappedMembers<T>(_ transform: (Self) throws(PFError) -> T) -> OrderedDictionary<String, T>? { nil }
}

/// The kinds ``ParseRESTInput`` tells apart (``PFCore/PFValue``'s, containers without payload).
package enum ParseRESTCase {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case string(String)
    case date(Date)
    case data(Data)
    case uid
    case array
    case dictionary
}

extension PFValue: ParseRESTInput {
    package var restCase: ParseRESTCase {
        switch self {
        case .null: .null
        case .bool(let b): .bool(b)
        case .int(let i): .int(i)
        case .uint(let u): .uint(u)
        case .double(let d): .double(d)
        case .string(let s): .string(s)
        case .date(let d): .date(d)
        case .data(let d): .data(d)
        case .uid: .uid
        case .array: .array
        case .dictionary: .dictionary
        }
    }

    package func restMember(_ key: String) -> PFValue? {
        guard case .dictionary(let d) = self else { return nil }
        return d[key]
    }

    package var restCount: Int {
        switch self {
        case .dictionary(let d): d.count
        case .array(let items): items.count
        default: 0
        }
    }

    package func forEachRESTMember<E: Error>(_ body: (String, PFValue) throws(E) -> Void) throws(E) {
        guard case .dictionary(let d) = self else { return }
        for (key, value) in d { try body(key, value) }
    }

    package func restElement(_ index: Int) -> PFValue? {
        guard case .array(let items) = self, items.indices.contains(index) else { return nil }
        return items[index]
    }

    package func forEachRESTElement<E: Error>(_ body: (Int, PFValue) throws(E) -> Void) throws(E) {
        guard case .array(let items) = self else { return }
        for (i, item) in items.enumerated() { try body(i, item) }
    }

    package var restString: String? { stringValue }
    package var restDouble: Double? { doubleValue }

    package func restMappedMembers<T>(_ transform: (PFValue) throws(PFError) -> T) -> OrderedDictionary<String, T>? {
        guard case .dictionary(let d) = self else { return nil }
        return try? d.mapValues { (value: PFValue) throws(PFError) -> T in try transform(value) }
    }
}

extension JSONNode: ParseRESTInput {
    package var restCase: ParseRESTCase {
        switch content {
        case .null: .null
        case .bool(let b): .bool(b)
        case .int(let i): .int(i)
        case .uint(let u): .uint(u)
        case .double(let d): .double(d)
        case .string(let s): .string(s)
        case .array: .array
        case .object: .dictionary
        }
    }

    package func restMember(_ key: String) -> JSONNode? { member(key) }
    package var restCount: Int { count }

    package func forEachRESTMember<E: Error>(_ body: (String, JSONNode) throws(E) -> Void) throws(E) {
        try forEachMember(body)
    }

    package func restElement(_ index: Int) -> JSONNode? { element(at: index) }

    package func forEachRESTElement<E: Error>(_ body: (Int, JSONNode) throws(E) -> Void) throws(E) {
        try forEachElement(body)
    }

    package var restString: String? { stringValue }
    package var restDouble: Double? { doubleValue }
}

// MARK: - Reading from nodes

extension ParseObject {
    /// Reads an object from Parse's REST JSON viewed in place (inside
    /// ``PFJSON/JSONReader/Session/withDocument(_:_:)-(UnsafeRawBufferPointer,_)``), without
    /// the intermediate ``PFCore/PFValue`` tree.
    ///
    /// The result, or the error (Parse code, message, key path), is exactly that of
    /// ``init(rest:className:)`` on the value the same reader's `read` returns, for readers
    /// with `typedValues` off (as ``ParseExportRow/reader(limits:)``); with it on, `read` turns
    /// typed dates and bytes into typed values while the view shows their REST dictionaries.
    /// - Parameters:
    ///   - node: the JSON object.
    ///   - className: the class; `nil` to take it from the object's `className` key.
    ///   - checkingNames: `false` to accept any field name and nested key, as a reader of
    ///     stored data does (a destination that cannot hold a name encodes it).
    /// - Throws: ``PFCore/PFError`` as ``init(rest:className:)`` does.
    public init(restJSON node: JSONNode, className: String? = nil, checkingNames: Bool = true) throws(PFError) {
        try self.init(restInput: node, className: className, checkingNames: checkingNames)
    }

    /// Reads an object from either REST input (the shared body of both initializers).
    init<Input: ParseRESTInput>(restInput rest: Input, className: String?, checkingNames: Bool = true) throws(PFError) {
        guard case .dictionary = rest.restCase else {
            throw PFError(
                parse: ParseFailure.objectNotJSONObject(found: ParseFailure.describe(rest)),
                context: ParseContext(className: className))
        }
        try self.init(decodingMembers: rest, className: className, path: .root, checkingNames: checkingNames)
    }
}

extension ParseValue {
    /// Reads a value from its REST JSON viewed in place, as ``init(rest:)`` reads it from a
    /// ``PFCore/PFValue``.
    /// - Parameter node: the JSON value.
    /// - Throws: ``PFCore/PFError`` as ``init(rest:)`` does.
    public init(restJSON node: JSONNode) throws(PFError) {
        self = try ParseValue.decode(node, path: .root, context: .none)
    }
}
