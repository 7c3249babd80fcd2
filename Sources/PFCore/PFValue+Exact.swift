import Foundation

// MARK: - Exact equality

extension PFValue {
    /// A value compared and hashed exactly, for writers that store an equal value once and
    /// refer to it (a keyed archive's shared scalars, CBOR's value sharing).
    ///
    /// ``PFValue``'s own equality compares strings as Swift does, by canonical equivalence,
    /// so `"é"` (U+00E9) equals `"e\u{301}"`: sharing by it would write one where the input
    /// had the other. Here strings, and the keys of dictionaries, compare by their Unicode
    /// scalars (their UTF-8 bytes); every other case is ``PFValue``'s equality.
    public struct Exact: Hashable, Sendable {
        /// The value.
        public let value: PFValue

        /// Wraps a value.
        /// - Parameter value: the value to compare exactly.
        public init(_ value: PFValue) {
            self.value = value
        }

        public static func == (lhs: Exact, rhs: Exact) -> Bool {
            PFValue.exactlyEqual(lhs.value, rhs.value)
        }

        public func hash(into hasher: inout Hasher) {
            PFValue.hashExactly(value, into: &hasher)
        }
    }

    static func exactlyEqual(_ lhs: PFValue, _ rhs: PFValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)):
            return a.utf8.elementsEqual(b.utf8)
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { exactlyEqual($0, $1) }
        case (.dictionary(let a), .dictionary(let b)):
            return a.count == b.count
                && zip(a, b).allSatisfy { $0.key.utf8.elementsEqual($1.key.utf8) && exactlyEqual($0.value, $1.value) }
        default:
            return lhs == rhs
        }
    }

    static func hashExactly(_ value: PFValue, into hasher: inout Hasher) {
        switch value {
        case .string(let s):
            hasher.combine(4)
            hashBytes(s, into: &hasher)
        case .array(let elements):
            hasher.combine(7)
            hasher.combine(elements.count)
            for element in elements { hashExactly(element, into: &hasher) }
        case .dictionary(let members):
            hasher.combine(8)
            hasher.combine(members.count)
            for (key, member) in members {
                hashBytes(key, into: &hasher)
                hashExactly(member, into: &hasher)
            }
        default:
            value.hash(into: &hasher)
        }
    }

    private static func hashBytes(_ string: String, into hasher: inout Hasher) {
        var string = string
        string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(string.utf8.count)
    }
}
