import PFCore

/// One Objective-C type encoding as typedstream writes it before each group of values:
/// a scalar such as `i` or `@`, a fixed array such as `[6c]`, or a struct such as
/// `{CGSize=dd}`.
///
/// Only the array case is boxed (`indirect`): a scalar, by far the most common, is held in
/// place, so copying or comparing one touches no reference count (a wholly indirect enum
/// boxed every `i` and `@`, and reading a typedstream spent a third of its time retaining
/// and releasing those boxes).
public enum TypeEncoding: Sendable, Hashable, CustomStringConvertible {
    /// A single-character type: `c C s S i I l L q Q f d B * + % : # @ !`.
    case scalar(UInt8)
    /// A fixed-length array `[N type]`.
    indirect case array(count: Int, element: TypeEncoding)
    /// A struct `{name=fields}`; the name may be absent or `?`.
    case structure(name: String?, fields: [TypeEncoding])

    /// The scalar characters pfarchive reads and writes.
    static let scalars: Set<UInt8> = Set("cCsSiIlLqQfdB*+%:#@!".utf8)

    /// `@`: an object.
    public static let object = TypeEncoding.scalar(UInt8(ascii: "@"))
    /// `#`: a class.
    public static let classValue = TypeEncoding.scalar(UInt8(ascii: "#"))
    /// `i`: a 32-bit signed integer.
    public static let int32 = TypeEncoding.scalar(UInt8(ascii: "i"))
    /// `I`: a 32-bit unsigned integer.
    public static let uint32 = TypeEncoding.scalar(UInt8(ascii: "I"))
    /// `q`: a 64-bit signed integer.
    public static let int64 = TypeEncoding.scalar(UInt8(ascii: "q"))
    /// `Q`: a 64-bit unsigned integer.
    public static let uint64 = TypeEncoding.scalar(UInt8(ascii: "Q"))
    /// `c`: a signed char (a raw byte; Objective-C `BOOL` on Apple platforms).
    public static let char = TypeEncoding.scalar(UInt8(ascii: "c"))
    /// `d`: a double.
    public static let double = TypeEncoding.scalar(UInt8(ascii: "d"))
    /// `f`: a float.
    public static let float = TypeEncoding.scalar(UInt8(ascii: "f"))
    /// `*`: a C string.
    public static let cString = TypeEncoding.scalar(UInt8(ascii: "*"))
    /// `+`: raw bytes with a length (how NSString stores its UTF-8).
    public static let bytes = TypeEncoding.scalar(UInt8(ascii: "+"))

    /// `[Nc]`: N raw bytes.
    public static func byteArray(_ count: Int) -> TypeEncoding { .array(count: count, element: .char) }

    /// The encoding as Objective-C spells it, such as `[6c]` or `{CGSize=dd}`.
    public var description: String {
        switch self {
        case .scalar(let c): String(decoding: [c], as: UTF8.self)
        case .array(let count, let element): "[\(count)\(element)]"
        case .structure(let name, let fields):
            "{" + (name.map { "\($0)=" } ?? "") + fields.map(\.description).joined() + "}"
        }
    }

    /// Whether reading a value of this type consumes at least one byte (`!` and empty structs
    /// do not), so a claimed array count can be checked against the bytes that remain.
    var consumesInput: Bool {
        switch self {
        case .scalar(let c): c != UInt8(ascii: "!")
        case .array(let count, let element): count > 0 && element.consumesInput
        case .structure(_, let fields): fields.contains { $0.consumesInput }
        }
    }

    /// Whether a value of this type is or contains a class (`#`).
    var holdsClass: Bool { holds(UInt8(ascii: "#")) }

    /// Whether this is, or contains, an object (`@`).
    var holdsObject: Bool { holds(UInt8(ascii: "@")) }

    /// Whether this is, or contains, the scalar `code`.
    func holds(_ code: UInt8) -> Bool {
        switch self {
        case .scalar(let c): c == code
        case .array(_, let element): element.holds(code)
        case .structure(_, let fields): fields.contains { $0.holds(code) }
        }
    }

    /// Whether this is a signed integer scalar (`c s i l q`).
    var isSignedInteger: Bool {
        if case .scalar(let c) = self { return "csilq".utf8.contains(c) }
        return false
    }

    /// Whether this is an unsigned integer scalar (`C S I L Q`).
    var isUnsignedInteger: Bool {
        if case .scalar(let c) = self { return "CSILQ".utf8.contains(c) }
        return false
    }
}

// MARK: - Parsing

extension TypeEncoding {
    /// Parses a type-encoding string into its types, such as `iI` into `[i, I]`.
    /// - Parameters:
    ///   - text: the encoding string's bytes.
    ///   - limits: `maxDepth` bounds nested arrays and structs, `maxCollectionCount` array counts.
    ///   - offset: where the string starts in the input, for errors.
    /// - Returns: the types in order; never empty.
    /// - Throws: ``PFError`` `syntax` for a malformed encoding, `unsupported` for a type
    ///   typedstream cannot carry (pointers, unions, bit fields), `limitExceeded` for budgets.
    public static func parseList(_ text: [UInt8], limits: PFLimits = .default, offset: Int = 0) throws(PFError)
        -> [TypeEncoding]
    {
        var parser = EncodingParser(text: text, limits: limits, offset: offset)
        var result: [TypeEncoding] = []
        while parser.index < text.count { result.append(try parser.parseOne(depth: 0)) }
        guard !result.isEmpty else { throw parser.error(.empty) }
        return result
    }

    /// Parses a string that must hold exactly one type.
    /// - Parameter text: the encoding, such as `"{CGSize=dd}"`.
    /// - Returns: the type.
    /// - Throws: ``PFError`` `syntax` when the string is malformed or holds several types.
    public static func parse(_ text: String) throws(PFError) -> TypeEncoding {
        let list = try parseList(Array(text.utf8))
        guard list.count == 1, let only = list.first else {
            throw PFError(TypedStreamFailure.notOneType(text: text, count: list.count), format: .typedstream)
        }
        return only
    }
}

struct EncodingParser {
    let text: [UInt8]
    let limits: PFLimits
    let offset: Int
    var index = 0

    init(text: [UInt8], limits: PFLimits, offset: Int) {
        self.text = text
        self.limits = limits
        self.offset = offset
    }

    func error(_ problem: TypedStreamFailure.TypeEncodingProblem) -> PFError {
        PFError(
            TypedStreamFailure.typeEncoding(text: String(decoding: text.prefix(64), as: UTF8.self), problem), format: .typedstream,
            offset: offset)
    }

    mutating func parseOne(depth: Int) throws(PFError) -> TypeEncoding {
        guard depth < limits.maxDepth else { throw PFLimits.exceeded("maxDepth", limits.maxDepth, format: .typedstream, offset: offset) }
        guard index < text.count else { throw error(.endsEarly) }
        let c = text[index]
        index += 1
        switch c {
        case UInt8(ascii: "["):
            var count = 0
            var digits = 0
            while index < text.count, text[index] >= UInt8(ascii: "0"), text[index] <= UInt8(ascii: "9") {
                let (times, o1) = count.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times.addingReportingOverflow(Int(text[index] - UInt8(ascii: "0")))
                guard !o1, !o2, sum <= limits.maxCollectionCount else {
                    throw PFLimits.exceeded("maxCollectionCount", limits.maxCollectionCount, format: .typedstream, offset: offset)
                }
                count = sum
                digits += 1
                index += 1
            }
            guard digits > 0 else { throw error(.arrayWithoutLength) }
            let element = try parseOne(depth: depth + 1)
            guard index < text.count, text[index] == UInt8(ascii: "]") else { throw error(.arrayNotClosed) }
            index += 1
            return .array(count: count, element: element)
        case UInt8(ascii: "{"):
            // A name runs up to '=' when '=' comes before any nested type or the closing brace.
            var name: String?
            var scan = index
            while scan < text.count, !"{}[]()=".utf8.contains(text[scan]) { scan += 1 }
            if scan < text.count, text[scan] == UInt8(ascii: "=") {
                name = String(decoding: text[index..<scan], as: UTF8.self)
                index = scan + 1
            }
            var fields: [TypeEncoding] = []
            while index < text.count, text[index] != UInt8(ascii: "}") {
                fields.append(try parseOne(depth: depth + 1))
            }
            guard index < text.count else { throw error(.structNotClosed) }
            index += 1
            return .structure(name: name, fields: fields)
        default:
            guard TypeEncoding.scalars.contains(c) else {
                throw error(.unknownType(String(decoding: [c], as: UTF8.self)))
            }
            return .scalar(c)
        }
    }
}
