import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFParse

// MARK: - What the model decoder reads

/// A value the model decoder (``ParseDecoderImpl``) reads: a ``PFCore/PFValue`` tree, or a
/// ``PFJSON/JSONNode`` view of json-c's tree (``ParseAdapter/decodeExport(_:fromJSON:limits:parallelism:)``
/// reads rows that way, without a `PFValue` tree per row).
///
/// A node shows what the JSON reader's `read` returns with `typedValues` off, so both inputs
/// decode to the same models with the same errors. Whatever needs a `PFValue` (transformers,
/// validators, `PFValue` properties, several keys mapped to one property) gets the node's
/// subtree copied out (``materialized()``); the common path (scalars, nested structs, arrays,
/// Parse's types) reads the node in place.
enum ParseWire {
    case value(PFValue)
    case node(JSONNode)

    /// Whether the value is `null`.
    @inline(__always)
    var isNull: Bool {
        switch self {
        case .value(let v): if case .null = v { return true } else { return false }
        case .node(let n): return n.isNull
        }
    }

    /// The value as an object, or `nil`.
    @inline(__always)
    var object: ParseWireObject? {
        switch self {
        case .value(let v):
            if case .dictionary(let d) = v { return .dict(d) }
            return nil
        case .node(let n):
            return n.kind == .object ? .node(n) : nil
        }
    }

    /// The value as an array, or `nil`.
    @inline(__always)
    var array: ParseWireArray? {
        switch self {
        case .value(let v):
            if case .array(let items) = v { return .items(items) }
            return nil
        case .node(let n):
            return n.kind == .array ? .node(n, count: n.count) : nil
        }
    }

    /// The string member `key` of an object (`nil` when missing, not a string, or not an object).
    func memberString(_ key: String) -> String? {
        switch self {
        case .value(let v):
            guard case .dictionary(let d) = v else { return nil }
            return d[key]?.stringValue
        case .node(let n):
            return n.member(key)?.stringValue
        }
    }

    /// The kind and scalar payload.
    var restCase: ParseRESTCase {
        switch self {
        case .value(let v): v.restCase
        case .node(let n): n.restCase
        }
    }

    /// The value as a ``PFCore/PFValue`` (a node's subtree is copied out).
    func materialized() throws(PFError) -> PFValue {
        switch self {
        case .value(let v): v
        case .node(let n): try n.value()
        }
    }

    /// A short description of the value's kind for messages.
    var described: String {
        switch self {
        case .value(let v): ParseFailure.describe(v)
        case .node(let n): ParseFailure.describe(n)
        }
    }

    /// The value read as an ACL (`ParseACL(rest:path:context:)` over either input).
    func acl(path: @autoclosure () -> PFCodingPath, context: ParseContext) throws(PFError) -> ParseACL {
        switch self {
        case .value(let v): try ParseACL(rest: v, path: path(), context: context)
        case .node(let n): try ParseACL(rest: n, path: path(), context: context)
        }
    }

    /// The value read as a ``ParseValue`` (`ParseValue.decode` over either input).
    func parseValue(path: @autoclosure () -> PFCodingPath, context: ParseContext) throws(PFError) -> ParseValue {
        switch self {
        case .value(let v): try ParseValue.decode(v, path: path(), context: context)
        case .node(let n): try ParseValue.decode(n, path: path(), context: context)
        }
    }
}

/// An object the decoder reads: a dictionary or an object node.
enum ParseWireObject {
    case dict(OrderedDictionary<String, PFValue>)
    case node(JSONNode)

    /// The keys in order.
    var keys: [String] {
        switch self {
        case .dict(let d): return Array(d.keys)
        case .node(let n):
            var out: [String] = []
            out.reserveCapacity(n.count)
            n.forEachMember { (key: String, _: JSONNode) in out.append(key) }
            return out
        }
    }

    /// The object as a value.
    var wire: ParseWire {
        switch self {
        case .dict(let d): .value(.dictionary(d))
        case .node(let n): .node(n)
        }
    }

    /// The object as a dictionary (a node's members are copied out).
    func materialized() throws(PFError) -> OrderedDictionary<String, PFValue> {
        switch self {
        case .dict(let d): return d
        case .node(let n):
            guard case .dictionary(let d) = try n.value() else { return [:] }
            return d
        }
    }
}

/// An array the decoder reads: elements or an array node.
enum ParseWireArray {
    case items([PFValue])
    case node(JSONNode, count: Int)

    /// The number of elements.
    @inline(__always)
    var count: Int {
        switch self {
        case .items(let items): items.count
        case .node(_, let count): count
        }
    }

    /// The element at `index` (which must be in range).
    @inline(__always)
    subscript(index: Int) -> ParseWire {
        switch self {
        case .items(let items): return .value(items[index])
        case .node(let n, _):
            guard let element = n.element(at: index) else { return .value(.null) }
            return .node(element)
        }
    }
}

// MARK: - Reading through a mapping

extension ParseKeyMap.Mapping {
    /// The wire value of a mapping in an object, with its path (as
    /// ``lookup(in:at:)`` on a dictionary, for either input).
    func lookup(in object: ParseWireObject, at path: PFCodingPath) throws(PFError) -> (ParseWire?, PFCodingPath) {
        guard case .node(let root) = object else {
            guard case .dict(let dict) = object else { return (nil, path) }
            let (found, at) = try lookup(in: dict, at: path)
            return (found.map(ParseWire.value), at)
        }
        switch self {
        case .key(let k):
            return (root.member(k).map(ParseWire.node), path.appending(key: k))
        case .path(let steps):
            var current = root
            var here = path
            for step in steps {
                guard current.kind == .object else {
                    if current.isNull { return (nil, here) }
                    throw PFError(
                        parse: ParseAdapterFailure.notAnObjectOnPath(
                            at: "\(here.keyPath)", steps: steps.joined(separator: "."), found: ParseFailure.describe(current)),
                        path: here)
                }
                here = here.appending(key: step)
                guard let next = current.member(step) else { return (nil, here) }
                current = next
            }
            return (.node(current), here)
        case .keys(let keys):
            var out = OrderedDictionary<String, PFValue>()
            for k in keys {
                if let v = root.member(k) { out[k] = try v.value() }
            }
            return (out.isEmpty ? nil : .value(.dictionary(out)), path.appending(key: keys.first ?? ""))
        case .excluded:
            return (nil, path)
        }
    }
}
