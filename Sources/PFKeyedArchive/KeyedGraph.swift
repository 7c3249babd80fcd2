import Foundation
import OrderedCollections
import PFCore

/// A keyed archive decoded into a generic object graph: Foundation's values and collections in
/// natural form, every other class as a ``KeyedGraph/Object`` (class chain plus fields), with
/// identity kept — a collection or object referenced twice is one node, and cycles are cycles.
///
/// Nodes live in an arena (``nodes``) and refer to each other by index, so cycles need no
/// reference counting tricks and the graph is a plain `Sendable` value. Nothing here
/// instantiates an archived class: the graph is data, which makes it the safe way to look at
/// any archive (it is what `pfarchive convert --from keyed` shows).
public struct KeyedGraph: Sendable, Equatable {
    /// A value in the graph: a scalar in place, or a reference to a node.
    public enum Value: Sendable, Hashable {
        /// nil, `$null`, or `NSNull`.
        case null
        case bool(Bool)
        case int(Int64)
        case uint(UInt64)
        case double(Double)
        /// `NSString` or `NSMutableString`.
        case string(String)
        /// `NSData` or `NSMutableData`, or bytes stored in place.
        case data(Data)
        /// `NSDate`.
        case date(Date)
        /// A collection or object: an index into ``KeyedGraph/nodes``.
        case node(Int)
    }

    /// A collection or object with identity.
    public enum Node: Sendable, Equatable {
        /// `NSArray`/`NSMutableArray`, or an array stored in place in an object (class `nil`).
        case array(className: String?, items: [Value])
        /// `NSSet`/`NSMutableSet`.
        case set(className: String, items: [Value])
        /// `NSOrderedSet`/`NSMutableOrderedSet`.
        case orderedSet(className: String, items: [Value])
        /// `NSDictionary`/`NSMutableDictionary` (keys may be any value), or a dictionary stored
        /// in place in an object (class `nil`).
        case dictionary(className: String?, keys: [Value], values: [Value])
        /// Any other class: its name, chain and fields.
        case object(Object)
    }

    /// An object of a class the graph keeps generic.
    public struct Object: Sendable, Equatable {
        /// The class as archived.
        public var archivedClass: ArchivedClass
        /// The fields in archive order, under their keys exactly as archived: a caller key
        /// `$x` appears escaped as `$$x`, and unkeyed values as `$0`, `$1`, ….
        public var fields: OrderedDictionary<String, Value>

        /// Makes an object.
        public init(archivedClass: ArchivedClass, fields: OrderedDictionary<String, Value> = [:]) {
            self.archivedClass = archivedClass
            self.fields = fields
        }
    }

    /// Every collection and object, in the order first met.
    public var nodes: [Node]
    /// The archive's `$top` entries (usually just `root`).
    public var top: OrderedDictionary<String, Value>

    /// Makes a graph.
    public init(nodes: [Node] = [], top: OrderedDictionary<String, Value> = [:]) {
        self.nodes = nodes
        self.top = top
    }

    /// The `root` entry, or `nil` when `$top` has no `root`.
    public var root: Value? { top[KeyedObjectTable.rootKey] }

    /// The node a value refers to, or `nil` for scalars and dangling indices.
    public func node(_ value: Value) -> Node? {
        guard case .node(let index) = value, nodes.indices.contains(index) else { return nil }
        return nodes[index]
    }
}

// MARK: - Scalars

extension KeyedGraph.Value {
    /// The graph value of a scalar stored in place; `nil` for containers and UIDs.
    public init?(scalar value: PFValue) {
        switch value {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .int(i)
        case .uint(let u): self = .uint(u)
        case .double(let d): self = .double(d)
        case .string(let s): self = .string(s)
        case .data(let d): self = .data(d)
        case .date(let d): self = .date(d)
        case .array, .dictionary, .uid: return nil
        }
    }

    /// The value-tree form of a scalar; `nil` for a node.
    public var scalarValue: PFValue? {
        switch self {
        case .null: .null
        case .bool(let b): .bool(b)
        case .int(let i): .int(i)
        case .uint(let u): .uint(u)
        case .double(let d): .double(d)
        case .string(let s): .string(s)
        case .data(let d): .data(d)
        case .date(let d): .date(d)
        case .node: nil
        }
    }
}

// MARK: - Foundation class names

extension KeyedGraph {
    /// The Foundation classes the graph decodes into natural values and collections.
    enum FoundationClass {
        static let strings: Set<String> = ["NSString", "NSMutableString"]
        static let data: Set<String> = ["NSData", "NSMutableData"]
        static let dates: Set<String> = ["NSDate"]
        static let nulls: Set<String> = ["NSNull"]
        static let numbers: Set<String> = ["NSNumber"]
        static let arrays: Set<String> = ["NSArray", "NSMutableArray"]
        static let sets: Set<String> = ["NSSet", "NSMutableSet"]
        static let orderedSets: Set<String> = ["NSOrderedSet", "NSMutableOrderedSet"]
        static let dictionaries: Set<String> = ["NSDictionary", "NSMutableDictionary"]

        static let all: Set<String> = strings.union(data).union(dates).union(nulls).union(numbers).union(arrays)
            .union(sets).union(orderedSets).union(dictionaries)

        /// What an object of a class stands for in a graph.
        enum Kind {
            case null, string, data, date, number, array, set, orderedSet, dictionary
            /// Not a Foundation class: a generic object.
            case object
        }

        /// What an object of class `name` stands for (a graph walk asks once per class).
        static func kind(of name: String) -> Kind {
            if nulls.contains(name) { return .null }
            if strings.contains(name) { return .string }
            if data.contains(name) { return .data }
            if dates.contains(name) { return .date }
            if numbers.contains(name) { return .number }
            if arrays.contains(name) { return .array }
            if sets.contains(name) { return .set }
            if orderedSets.contains(name) { return .orderedSet }
            if dictionaries.contains(name) { return .dictionary }
            return .object
        }
    }
}
