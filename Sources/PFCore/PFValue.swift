import Foundation
import OrderedCollections

/// One value of pfarchive's value model: the tree every serializer reads into and writes from.
///
/// The tree is closed: JSON, property lists, CBOR and the archive coders all speak in these
/// cases and nothing else, so a conversion between two formats is a read into `PFValue`
/// followed by a write out of it.
///
/// Integers keep their sign: a value that fits `Int64` is always ``int(_:)``; only
/// non-negative values above `Int64.max` use ``uint(_:)``. Build integers with
/// ``integer(_:)`` to get that normalisation for free. Equality is structural: `.int(5)`
/// equals `.uint(5)`, every NaN equals every other NaN, and `0.0` differs from `-0.0`, so a
/// round-trip test can compare trees with `==`.
public enum PFValue: Sendable {
    /// JSON `null`, CBOR `null`, `NSNull`.
    case null
    /// A boolean.
    case bool(Bool)
    /// A signed integer. Every integer that fits `Int64` uses this case.
    case int(Int64)
    /// An unsigned integer above `Int64.max`.
    case uint(UInt64)
    /// A floating-point number (float32 values are widened).
    case double(Double)
    /// A Unicode string.
    case string(String)
    /// Raw bytes.
    case data(Data)
    /// A point in time.
    case date(Date)
    /// An ordered list.
    case array([PFValue])
    /// A dictionary with string keys that keeps its keys in order.
    case dictionary(OrderedDictionary<String, PFValue>)
    /// A keyed-archive object reference (`CF$UID`): an index into the archive's object table.
    case uid(UInt64)
}

// MARK: - Construction

extension PFValue {
    /// Makes an integer value, choosing ``int(_:)`` whenever the value fits `Int64`.
    /// - Parameter value: any integer that fits in 64 bits, signed or unsigned.
    /// - Returns: `.int` for values in `Int64`'s range, `.uint` above it, or `nil` when the
    ///   value fits neither (below `Int64.min` or above `UInt64.max`).
    @inlinable
    public static func integer<T: BinaryInteger>(_ value: T) -> PFValue? {
        if let small = Int64(exactly: value) { return .int(small) }
        if let large = UInt64(exactly: value) { return .uint(large) }
        return nil
    }

    /// An empty dictionary.
    public static var emptyDictionary: PFValue { .dictionary([:]) }
}

// MARK: - Kinds

extension PFValue {
    /// The kind of a value, without its payload.
    public enum Kind: String, Sendable, CaseIterable {
        case null, bool, int, uint, double, string, data, date, array, dictionary, uid
    }

    /// The kind of this value.
    @inlinable
    public var kind: Kind {
        switch self {
        case .null: .null
        case .bool: .bool
        case .int: .int
        case .uint: .uint
        case .double: .double
        case .string: .string
        case .data: .data
        case .date: .date
        case .array: .array
        case .dictionary: .dictionary
        case .uid: .uid
        }
    }

    /// Whether the value is an array or a dictionary.
    @inlinable
    public var isContainer: Bool {
        switch self {
        case .array, .dictionary: true
        default: false
        }
    }
}

// MARK: - Accessors

extension PFValue {
    /// The string payload, or `nil` for any other kind.
    @inlinable public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The boolean payload, or `nil` for any other kind.
    @inlinable public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The value as `Int64` when it is an integer that fits, else `nil`.
    @inlinable public var int64Value: Int64? {
        switch self {
        case .int(let i): i
        case .uint(let u): Int64(exactly: u)
        default: nil
        }
    }

    /// The value as `Double` when it is a number (integers are converted), else `nil`.
    @inlinable public var doubleValue: Double? {
        switch self {
        case .double(let d): d
        case .int(let i): Double(i)
        case .uint(let u): Double(u)
        default: nil
        }
    }

    /// The array payload, or `nil` for any other kind.
    @inlinable public var arrayValue: [PFValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The dictionary payload, or `nil` for any other kind.
    @inlinable public var dictionaryValue: OrderedDictionary<String, PFValue>? {
        if case .dictionary(let d) = self { return d }
        return nil
    }

    /// The member named `key` of a dictionary, or `nil` when absent or not a dictionary.
    @inlinable public subscript(key: String) -> PFValue? {
        if case .dictionary(let d) = self { return d[key] }
        return nil
    }

    /// The element at `index` of an array, or `nil` when out of range or not an array.
    @inlinable public subscript(index: Int) -> PFValue? {
        if case .array(let a) = self, a.indices.contains(index) { return a[index] }
        return nil
    }
}

// MARK: - Literals

extension PFValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: PFValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, PFValue)...) {
        self = .dictionary(OrderedDictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
