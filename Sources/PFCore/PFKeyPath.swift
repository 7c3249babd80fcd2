/// A path to a value inside a ``PFValue`` tree, such as `results[3].score` or `a.b.c`.
///
/// The text form joins keys with `.` and writes array indices as `[N]`. A key that is not a
/// plain identifier (it contains `.`, `[`, `]`, `"`, spaces, or is empty) is written quoted
/// in brackets: `meta["content-type"]`, `["a.b"].c`.
public struct PFKeyPath: Hashable, Sendable, CustomStringConvertible, ExpressibleByArrayLiteral {
    /// One step of a path.
    public enum Component: Hashable, Sendable {
        /// A dictionary key.
        case key(String)
        /// An array index.
        case index(Int)
    }

    /// The steps from the root, outermost first.
    public var components: [Component]

    /// The empty path, which names the root value.
    public static let root = PFKeyPath([])

    /// Makes a path from its steps.
    public init(_ components: [Component]) { self.components = components }

    public init(arrayLiteral elements: Component...) { self.components = elements }

    /// Parses the text form of a path.
    /// - Parameter text: a path such as `results[3].score`, `a.b.c` or `m["x.y"]`.
    ///   The empty string and `.` name the root.
    /// - Throws: ``PFError`` with code ``PFError/Code/usage`` when the text is not a path.
    public init(parsing text: String) throws(PFError) {
        self.components = try PFKeyPath.parse(Array(text.utf8), text: text)
    }

    /// The path with one more key.
    public func appending(key: String) -> PFKeyPath { PFKeyPath(components + [.key(key)]) }

    /// The path with one more index.
    public func appending(index: Int) -> PFKeyPath { PFKeyPath(components + [.index(index)]) }

    /// Whether this is the root path.
    public var isRoot: Bool { components.isEmpty }

    public var description: String {
        if components.isEmpty { return "(root)" }
        var out = ""
        for component in components {
            switch component {
            case .index(let i):
                out += "[\(i)]"
            case .key(let k):
                if PFKeyPath.isPlainKey(k) {
                    if !out.isEmpty { out += "." }
                    out += k
                } else {
                    out += "[\"" + k.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"") + "\"]"
                }
            }
        }
        return out
    }

    static func isPlainKey(_ key: String) -> Bool {
        guard !key.isEmpty else { return false }
        for byte in key.utf8 {
            switch byte {
            case UInt8(ascii: "."), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "\""),
                UInt8(ascii: "\\"), UInt8(ascii: " "), 0..<0x20:
                return false
            default: continue
            }
        }
        return true
    }

    // MARK: - Parsing

    private static func parse(_ bytes: [UInt8], text: String) throws(PFError) -> [Component] {
        var components: [Component] = []
        var i = 0
        func fail(_ why: String) -> PFError {
            PFError(PFCoreFailure.badKeyPath(why, text: text), format: .keyPath, offset: i)
        }
        if bytes == [UInt8(ascii: ".")] { return [] }
        var expectKey = true  // at start or after '.'
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "[") {
                i += 1
                guard i < bytes.count else { throw fail("unclosed '['") }
                if bytes[i] == UInt8(ascii: "\"") {
                    i += 1
                    var key: [UInt8] = []
                    while true {
                        guard i < bytes.count else { throw fail("unterminated quoted key") }
                        let c = bytes[i]
                        if c == UInt8(ascii: "\\") {
                            guard i + 1 < bytes.count else { throw fail("unterminated escape") }
                            key.append(bytes[i + 1]); i += 2; continue
                        }
                        if c == UInt8(ascii: "\"") { i += 1; break }
                        key.append(c); i += 1
                    }
                    guard i < bytes.count, bytes[i] == UInt8(ascii: "]") else { throw fail("expected ']'") }
                    i += 1
                    components.append(.key(String(decoding: key, as: UTF8.self)))
                } else {
                    var n = 0
                    var digits = 0
                    while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") {
                        let (m, o1) = n.multipliedReportingOverflow(by: 10)
                        let (s, o2) = m.addingReportingOverflow(Int(bytes[i] - UInt8(ascii: "0")))
                        guard !o1, !o2 else { throw fail("index too large") }
                        n = s; i += 1; digits += 1
                    }
                    guard digits > 0 else { throw fail("expected an index or a quoted key after '['") }
                    guard i < bytes.count, bytes[i] == UInt8(ascii: "]") else { throw fail("expected ']'") }
                    i += 1
                    components.append(.index(n))
                }
                expectKey = false
            } else if byte == UInt8(ascii: ".") {
                guard !expectKey || components.isEmpty == false else { throw fail("empty key") }
                if expectKey { throw fail("empty key") }
                i += 1
                expectKey = true
                guard i < bytes.count else { throw fail("path ends with '.'") }
            } else {
                guard expectKey else { throw fail("expected '.' or '['") }
                let start = i
                while i < bytes.count, bytes[i] != UInt8(ascii: "."), bytes[i] != UInt8(ascii: "[") {
                    if bytes[i] == UInt8(ascii: "]") { throw fail("unexpected ']'") }
                    i += 1
                }
                components.append(.key(String(decoding: bytes[start..<i], as: UTF8.self)))
                expectKey = false
            }
        }
        return components
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard contains(target) else { return self }
        return split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

// MARK: - Lookup

extension PFValue {
    /// The value at a key path, or `nil` when some step is missing.
    /// - Parameter path: the path to follow from this value.
    /// - Returns: the value found, or `nil`.
    public func value(at path: PFKeyPath) -> PFValue? {
        var current = self
        for component in path.components {
            switch component {
            case .key(let k):
                guard let next = current[k] else { return nil }
                current = next
            case .index(let i):
                guard let next = current[i] else { return nil }
                current = next
            }
        }
        return current
    }

    /// The value at a key path given as text, such as `results[3].score`.
    /// - Parameter path: the text form of a ``PFKeyPath``.
    /// - Returns: the value found, or `nil` when a step is missing.
    /// - Throws: ``PFError`` with code ``PFError/Code/usage`` when the text is not a path.
    public func value(atPath path: String) throws(PFError) -> PFValue? {
        value(at: try PFKeyPath(parsing: path))
    }
}
