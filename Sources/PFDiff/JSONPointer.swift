import Foundation
import PFCore

/// A JSON Pointer (RFC 6901): `/results/3/score`; `~0` stands for `~` and `~1` for `/` in a
/// reference token. The empty pointer names the whole document.
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
    /// The reference tokens, unescaped, outermost first.
    public var tokens: [String]

    /// The pointer to the whole document.
    public static let root = JSONPointer(tokens: [])

    /// Makes a pointer from its unescaped tokens.
    public init(tokens: [String]) { self.tokens = tokens }

    /// The pointer naming the same place as a key path (indices become decimal tokens).
    public init(_ path: PFKeyPath) {
        tokens = path.components.map { component in
            switch component {
            case .key(let k): k
            case .index(let i): String(i)
            }
        }
    }

    /// Parses the text form.
    /// - Throws: ``PFCore/PFError`` `syntax` when the text does not start with `/` (and is not
    ///   empty) or holds a `~` not followed by `0` or `1`.
    public init(parsing text: String) throws(PFError) {
        guard !text.isEmpty else { tokens = []; return }
        // Unicode scalars, not Characters, throughout: a `/` or `~0` followed by a combining
        // mark is still a separator or an escape (as one Character it would be neither).
        let scalars = text.unicodeScalars
        guard scalars.first == "/" else {
            throw PFError(DiffFailure.pointerNoSlash(text), format: .jsonPointer)
        }
        var out: [String] = []
        for raw in scalars.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var token = String.UnicodeScalarView()
            var iterator = raw.makeIterator()
            while let c = iterator.next() {
                guard c == "~" else { token.append(c); continue }
                switch iterator.next() {
                case "0": token.append("~")
                case "1": token.append("/")
                default: throw PFError(DiffFailure.pointerBadTilde(text), format: .jsonPointer)
                }
            }
            out.append(String(token))
        }
        tokens = out
    }

    /// The pointer with one more token.
    public func appending(_ token: String) -> JSONPointer { JSONPointer(tokens: tokens + [token]) }

    /// The text form, with `~` and `/` escaped.
    public var description: String {
        var out = String.UnicodeScalarView()
        for token in tokens {
            out.append("/")
            for scalar in token.unicodeScalars {
                switch scalar {
                case "~": out.append(contentsOf: "~0".unicodeScalars)
                case "/": out.append(contentsOf: "~1".unicodeScalars)
                default: out.append(scalar)
                }
            }
        }
        return String(out)
    }

    /// The array index a token names (RFC 6901: `0` or digits without a leading zero), or nil.
    static func index(_ token: String) -> Int? {
        guard !token.isEmpty, token.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            token == "0" || !token.hasPrefix("0")
        else { return nil }
        return Int(token)
    }
}
