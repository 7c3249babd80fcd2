import OrderedCollections

/// The kinds of value type inference tells apart.
public enum ObservedKind: String, Sendable, CaseIterable, Comparable {
    case bool, int, double, string, date, bytes, pointer, relation, file, geoPoint, polygon, acl, array, object
    /// An object of an archived class (keyed archives and typedstreams).
    case archivedObject = "archived object"
    /// A value no Swift type here describes (a UID, an unknown typed object).
    case other

    /// Whether the kind is a number.
    var isNumber: Bool { self == .int || self == .double }

    public static func < (a: ObservedKind, b: ObservedKind) -> Bool {
        (allCases.firstIndex(of: a) ?? 0) < (allCases.firstIndex(of: b) ?? 0)
    }
}

/// What was seen for one field over every row read: counts per kind, nulls, the distinct
/// strings (up to a limit), the classes pointed at, and the statistics of array elements and
/// of nested objects. Only counts are kept, never the values, so memory is bounded by the
/// number of distinct field names, not by the number of rows.
public final class FieldStatistics {
    /// Rows where the key was present (`null` included).
    public internal(set) var present = 0
    /// Rows where the value was `null`.
    public internal(set) var nulls = 0
    /// Non-null values by kind.
    public internal(set) var kinds: [ObservedKind: Int] = [:]
    /// The distinct strings with their counts, or `nil` once more than ``CodegenLimits/enumCases``
    /// distinct values (or a long one) were met.
    public internal(set) var stringValues: OrderedDictionary<String, Int>? = [:]
    /// The classes of Pointers (and Relations) met, with counts.
    public internal(set) var targetClasses: OrderedDictionary<String, Int> = [:]
    /// Pointer values that were whole objects (`{"__type":"Object",…}`, an included Pointer):
    /// a `ParsePointer` would drop their fields.
    public internal(set) var embeddedObjects = 0
    /// The archived classes of objects met, with counts.
    public internal(set) var archivedClasses: OrderedDictionary<String, Int> = [:]
    /// Whether an integer outside `Int64` (an unsigned 64-bit value) was met.
    public internal(set) var unsigned = false
    /// Whether a negative integer was met.
    public internal(set) var negative = false
    /// Whether an integer a `Double` does not hold exactly (beyond ±2^53) was met.
    public internal(set) var beyondDouble = false
    /// The statistics of array elements, over every array met.
    public internal(set) var elements: FieldStatistics?
    /// The members of nested objects, over every object met.
    public internal(set) var members: ShapeStatistics?

    let limits: CodegenLimits
    let depth: Int

    init(limits: CodegenLimits, depth: Int) {
        self.limits = limits
        self.depth = depth
    }

    /// The non-null kinds met, in a fixed order.
    public var kindsSeen: [ObservedKind] { kinds.keys.sorted() }

    func count(_ kind: ObservedKind) {
        kinds[kind, default: 0] += 1
    }

    /// Counts an integer, noting its sign and whether a `Double` holds it exactly.
    func noteInteger(_ i: Int64) {
        count(.int)
        if i < 0 { negative = true }
        if i.magnitude > 1 << 53 { beyondDouble = true }
    }

    /// Counts an integer beyond `Int64`.
    func noteUnsigned(_ u: UInt64) {
        count(.int)
        unsigned = true
        if u > 1 << 53 { beyondDouble = true }
    }

    func noteString(_ s: String) {
        guard var values = stringValues else { return }
        if values[s] == nil, values.count >= limits.enumCases || s.utf8.count > limits.enumCaseLength {
            stringValues = nil
            return
        }
        values[s, default: 0] += 1
        stringValues = values
    }

    func noteTarget(_ name: String) {
        if targetClasses[name] != nil || targetClasses.count < limits.classesPerField { targetClasses[name, default: 0] += 1 }
    }

    func noteArchivedClass(_ name: String) {
        if archivedClasses[name] != nil || archivedClasses.count < limits.classesPerField { archivedClasses[name, default: 0] += 1 }
    }

    /// The element statistics, made on first use (nil past the depth limit).
    func elementStatistics() -> FieldStatistics? {
        guard depth < limits.maxDepth else { return nil }
        if let elements { return elements }
        let made = FieldStatistics(limits: limits, depth: depth + 1)
        elements = made
        return made
    }

    /// The member statistics, made on first use (nil past the depth limit).
    func memberStatistics() -> ShapeStatistics? {
        guard depth < limits.maxDepth else { return nil }
        if let members { return members }
        let made = ShapeStatistics(limits: limits, depth: depth + 1)
        members = made
        return made
    }
}

/// The fields of one class (or of nested objects at one place), over every object read.
public final class ShapeStatistics {
    /// The number of objects read.
    public internal(set) var rows = 0
    /// The fields in the order first met.
    public internal(set) var fields: OrderedDictionary<String, FieldStatistics> = [:]
    /// Whether more distinct keys were met than ``CodegenLimits/fieldsPerShape`` (the shape is
    /// a dictionary, not a struct).
    public internal(set) var overflowed = false

    let limits: CodegenLimits
    let depth: Int

    init(limits: CodegenLimits, depth: Int) {
        self.limits = limits
        self.depth = depth
    }

    /// The statistics of a field, made on first use; `nil` once the shape overflowed.
    func field(_ key: String) -> FieldStatistics? {
        if let existing = fields[key] { return existing }
        guard fields.count < limits.fieldsPerShape else {
            overflowed = true
            return nil
        }
        let made = FieldStatistics(limits: limits, depth: depth)
        fields[key] = made
        return made
    }
}

/// The bounds that keep inference in bounded memory and generated code readable.
public struct CodegenLimits: Sendable {
    /// A string field with at most this many distinct values may become an enum.
    public var enumCases = 16
    /// Strings longer than this (in UTF-8 bytes) are never enum cases.
    public var enumCaseLength = 64
    /// Distinct Pointer or archived classes kept per field.
    public var classesPerField = 16
    /// Distinct keys kept per class or nested object; past it the shape is a dictionary.
    public var fieldsPerShape = 256
    /// Nesting depth of arrays and objects looked into.
    public var maxDepth = 6

    /// The default bounds.
    public init() {}
}
