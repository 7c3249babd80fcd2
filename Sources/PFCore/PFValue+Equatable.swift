import Foundation

// MARK: - Equatable

extension PFValue: Equatable {
    /// Structural equality: integers compare by numeric value across ``int(_:)`` and
    /// ``uint(_:)``, doubles compare by value except that every NaN equals every NaN and
    /// `0.0` differs from `-0.0`, dates compare by their `timeIntervalSinceReferenceDate`
    /// with the same rule, and dictionaries compare key order as well as members.
    public static func == (lhs: PFValue, rhs: PFValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.uint(let a), .uint(let b)): return a == b
        case (.int(let a), .uint(let b)), (.uint(let b), .int(let a)): return a >= 0 && UInt64(a) == b
        case (.double(let a), .double(let b)): return sameDouble(a, b)
        case (.string(let a), .string(let b)): return a == b
        case (.data(let a), .data(let b)): return a == b
        case (.date(let a), .date(let b)):
            return sameDouble(a.timeIntervalSinceReferenceDate, b.timeIntervalSinceReferenceDate)
        case (.array(let a), .array(let b)): return a == b
        case (.dictionary(let a), .dictionary(let b)):
            return a.count == b.count && a.elementsEqual(b, by: { $0.key == $1.key && $0.value == $1.value })
        case (.uid(let a), .uid(let b)): return a == b
        default: return false
        }
    }

    @inline(__always)
    static func sameDouble(_ a: Double, _ b: Double) -> Bool {
        if a.isNaN || b.isNaN { return a.isNaN && b.isNaN }
        return a.bitPattern == b.bitPattern
    }
}

// MARK: - Hashable

extension PFValue: Hashable {
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let b): hasher.combine(1); hasher.combine(b)
        // .int and .uint of equal numeric value must hash alike.
        case .int(let i):
            hasher.combine(2)
            if i >= 0 { hasher.combine(UInt64(i)) } else { hasher.combine(i) }
        case .uint(let u): hasher.combine(2); hasher.combine(u)
        case .double(let d): hasher.combine(3); hasher.combine(d.isNaN ? Double.nan.bitPattern : d.bitPattern)
        case .string(let s): hasher.combine(4); hasher.combine(s)
        case .data(let d): hasher.combine(5); hasher.combine(d)
        case .date(let d):
            let t = d.timeIntervalSinceReferenceDate
            hasher.combine(6); hasher.combine(t.isNaN ? Double.nan.bitPattern : t.bitPattern)
        case .array(let a): hasher.combine(7); hasher.combine(a)
        case .dictionary(let d):
            hasher.combine(8)
            hasher.combine(d.count)
            for (k, v) in d { hasher.combine(k); hasher.combine(v) }
        case .uid(let u): hasher.combine(9); hasher.combine(u)
        }
    }
}
