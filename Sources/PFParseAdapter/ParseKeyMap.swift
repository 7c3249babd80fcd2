import PFCore
import PFParse

/// How a model's properties map to keys of a Parse dictionary (Mantle's
/// `JSONKeyPathsByPropertyKey`, with what Mantle could not do: literal keys containing dots,
/// excluded properties and a global snake_case strategy).
///
/// ```swift
/// ParseKeyMap([
///     "name": "player_name",                 // a key
///     "city": "location.city",               // a nested key path
///     "size": ["width", "height"],           // several keys → one property (a dictionary)
///     "version": .key("app.version"),        // a literal key that contains a dot
///     "cache": .excluded,                    // not mapped (needs a default or an optional)
/// ], strategy: .convertToSnakeCase)          // other properties: camelCase → snake_case
/// ```
public struct ParseKeyMap: Sendable {
    /// Where one property lives.
    public enum Mapping: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByArrayLiteral {
        /// One key, taken literally (dots allowed).
        case key(String)
        /// A path through nested dictionaries, outermost key first.
        case path([String])
        /// Several keys of one dictionary; the property reads and writes a dictionary of them.
        case keys([String])
        /// Not mapped: never read or written.
        case excluded

        /// A string literal: a key path split at `.` (`"location.city"`), or one key.
        public init(stringLiteral value: String) {
            let parts = value.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            self = parts.count > 1 ? .path(parts) : .key(value)
        }

        /// An array literal: several keys → one property.
        public init(arrayLiteral elements: String...) { self = .keys(elements) }

        /// The first key of the mapping (the top-level key it touches), if any.
        public var topLevelKeys: [String] {
            switch self {
            case .key(let k): [k]
            case .path(let p): p.first.map { [$0] } ?? []
            case .keys(let ks): ks
            case .excluded: []
            }
        }

        /// The mapping as a key path, for messages.
        var keyPath: PFKeyPath {
            switch self {
            case .key(let k): PFKeyPath([.key(k)])
            case .path(let p): PFKeyPath(p.map { .key($0) })
            case .keys(let ks): PFKeyPath(ks.first.map { [.key($0)] } ?? [])
            case .excluded: .root
            }
        }
    }

    /// How unmapped property names become keys.
    public enum KeyStrategy: Sendable, Equatable {
        /// The property name is the key.
        case useDefaultKeys
        /// `playerName` ↔ `player_name` (Parse's default columns keep their names).
        case convertToSnakeCase
    }

    /// Explicit mappings by property name.
    public var mappings: [String: Mapping]
    /// The strategy for properties without a mapping; `nil` uses the adapter's.
    public var strategy: KeyStrategy?

    /// Makes a key map.
    /// - Parameters:
    ///   - mappings: explicit mappings by property name.
    ///   - strategy: the strategy for other properties; `nil` for the adapter's.
    public init(_ mappings: [String: Mapping] = [:], strategy: KeyStrategy? = nil) {
        self.mappings = mappings
        self.strategy = strategy
    }

    /// No explicit mappings, the adapter's strategy.
    public static let identity = ParseKeyMap([String: Mapping](), strategy: nil)

    /// The mapping of a property.
    /// - Parameters:
    ///   - property: the property name.
    ///   - fallback: the adapter's strategy, used when this map has none.
    /// - Returns: the mapping.
    public func mapping(for property: String, fallback: KeyStrategy = .useDefaultKeys) -> Mapping {
        if let explicit = mappings[property] { return explicit }
        return .key(ParseKeyMap.key(for: property, strategy: strategy ?? fallback))
    }

    /// The key a property name gets under a strategy.
    static func key(for property: String, strategy: KeyStrategy) -> String {
        switch property {
        case "objectId", "createdAt", "updatedAt", "ACL": return property
        case "acl": return "ACL"
        default: break
        }
        switch strategy {
        case .useDefaultKeys: return property
        case .convertToSnakeCase: return snakeCase(property)
        }
    }

    // MARK: - Case conversion

    /// `playerName` → `player_name`, `URLString` → `url_string`, `id2Name` → `id2_name`.
    /// - Parameter name: a camelCase name.
    /// - Returns: the snake_case name.
    public static func snakeCase(_ name: String) -> String {
        let chars = Array(name)
        guard !chars.isEmpty else { return name }
        var out = ""
        out.reserveCapacity(chars.count + 4)
        for (i, c) in chars.enumerated() {
            if c.isUppercase {
                let prevLower = i > 0 && (chars[i - 1].isLowercase || chars[i - 1].isNumber)
                let nextLower = i + 1 < chars.count && chars[i + 1].isLowercase
                let prevUpper = i > 0 && chars[i - 1].isUppercase
                if i > 0, prevLower || (prevUpper && nextLower), out.last != "_" { out.append("_") }
                out.append(contentsOf: c.lowercased())
            } else {
                out.append(c)
            }
        }
        return out
    }

    /// `player_name` → `playerName` (leading and trailing underscores kept).
    /// - Parameter name: a snake_case name.
    /// - Returns: the camelCase name.
    public static func camelCase(_ name: String) -> String {
        guard name.contains("_") else { return name }
        let leading = name.prefix(while: { $0 == "_" })
        let trailing = String(name.reversed().prefix(while: { $0 == "_" }))
        let core = name.dropFirst(leading.count).dropLast(trailing.count)
        guard !core.isEmpty else { return name }
        let words = core.split(separator: "_", omittingEmptySubsequences: true)
        var out = String(leading)
        for (i, word) in words.enumerated() {
            out += i == 0 ? String(word) : word.prefix(1).uppercased() + word.dropFirst()
        }
        return out + trailing
    }
}

extension ParseKeyMap: ExpressibleByDictionaryLiteral {
    /// A key map from a literal: `["name": "player_name", "city": "location.city"]`.
    public init(dictionaryLiteral elements: (String, Mapping)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
