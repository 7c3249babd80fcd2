import Foundation
import OrderedCollections
import PFCore
import PropertyBased

/// What a format can hold, so one generator serves every format's round-trip tests.
public struct ValueShape: Sendable {
    public var null = true
    public var uid = false
    public var data = true
    public var date = true
    /// Unsigned integers above `Int64.max`.
    public var bigUnsigned = true
    /// NaN and the infinities.
    public var nonFiniteDoubles = false
    /// Whether `-0.0` survives the format.
    public var negativeZero = true
    /// Whether dates keep sub-millisecond precision (`false`: dates are whole milliseconds).
    public var subMillisecondDates = true
    /// Whether strings may contain U+0000.
    public var nulInStrings = true
    public var maxDepth = 4
    public var maxWidth = 6

    public init() {}

    /// Everything JSON with Parse's typed values can carry.
    public static var json: ValueShape {
        var s = ValueShape()
        s.subMillisecondDates = false
        return s
    }
}

/// Random ``PFValue`` trees for property tests: boundary integers, negative zero, astral
/// and control characters, dates before 2001 and with fractions, empty and larger containers.
public enum ValueGen {
    /// A generator of value trees that fit `shape`.
    public static func tree(_ shape: ValueShape = ValueShape()) -> Generator<PFValue, Shrink.None<PFValue>> {
        Generator(run: { rng in value(shape, depth: 0, rng: &rng) })
    }

    /// A generator of top-level containers (dictionaries or arrays), as most formats' files are.
    public static func document(_ shape: ValueShape = ValueShape()) -> Generator<PFValue, Shrink.None<PFValue>> {
        Generator(run: { rng in
            Bool.random(using: &rng) ? dictionary(shape, depth: 0, rng: &rng) : array(shape, depth: 0, rng: &rng)
        })
    }

    public static let boundaryIntegers: [Int64] = [
        0, 1, -1, 23, 24, -24, -25, 127, 128, -128, -129, 255, 256, 32767, 32768, -32768, -32769, 65535, 65536,
        Int64(Int32.max), Int64(Int32.max) + 1, Int64(Int32.min), Int64(Int32.min) - 1, Int64(UInt32.max),
        Int64(UInt32.max) + 1, Int64.max, Int64.max - 1, Int64.min, Int64.min + 1, 9_007_199_254_740_993,
    ]

    static let specialDoubles: [Double] = [
        0.0, 1.0, -1.5, 0.1, 1e-7, 1e21, 123456.789, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude,
        -Double.greatestFiniteMagnitude, Double.ulpOfOne, 5e-324, 2.2250738585072014e-308, 1.0 / 3.0, 65504.0,
        1.5, 3.4028234663852886e38,
    ]

    static let samplePieces: [String] = [
        "a", "Zürich", "日本語", "😀", "𝄞", "\u{10FFFF}", " ", "\"", "\\", "/", "\n", "\t", "\u{1F}", "\u{7F}",
        "\u{FEFF}", "é", "e\u{301}", "&", "<", ">", "]]>", "$", "CF$UID", "key.with.dots", "null", "true", "1",
        "\u{2028}", "\r\n",
    ]

    static func value(_ shape: ValueShape, depth: Int, rng: inout any SeededRandomNumberGenerator) -> PFValue {
        let containerWeight = depth < shape.maxDepth ? 3 : 0
        let roll = Int.random(in: 0..<(12 + containerWeight * 2), using: &rng)
        switch roll {
        case 0: return shape.null ? .null : .bool(true)
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .int(boundaryIntegers.randomElement(using: &rng) ?? 0)
        case 3: return .int(Int64.random(in: Int64.min...Int64.max, using: &rng))
        case 4: return .int(Int64.random(in: -1000...1000, using: &rng))
        case 5:
            if shape.bigUnsigned {
                return .uint([UInt64.max, UInt64(Int64.max) + 1, UInt64.random(in: (UInt64(Int64.max) + 1)...UInt64.max, using: &rng)]
                    .randomElement(using: &rng) ?? UInt64.max)
            }
            return .int(Int64.random(in: 0...Int64.max, using: &rng))
        case 6: return .double(double(shape, rng: &rng))
        case 7, 8: return .string(string(shape, rng: &rng))
        case 9:
            guard shape.data else { return .string(string(shape, rng: &rng)) }
            let count = [0, 1, 3, 16, 57, 300].randomElement(using: &rng) ?? 0
            return .data(Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        case 10:
            guard shape.date else { return .int(Int64.random(in: -5...5, using: &rng)) }
            return .date(date(shape, rng: &rng))
        case 11:
            guard shape.uid else { return .string(string(shape, rng: &rng)) }
            return .uid(UInt64.random(in: 0...UInt64(UInt32.max), using: &rng))
        default:
            return Bool.random(using: &rng)
                ? array(shape, depth: depth + 1, rng: &rng) : dictionary(shape, depth: depth + 1, rng: &rng)
        }
    }

    static func width(_ shape: ValueShape, rng: inout any SeededRandomNumberGenerator) -> Int {
        // Mostly small, sometimes empty, now and then past the 15/255/65535-element boundaries
        // that binary formats encode specially.
        switch Int.random(in: 0..<40, using: &rng) {
        case 0..<4: return 0
        case 4: return 16
        case 5: return Int.random(in: 250...300, using: &rng)
        default: return Int.random(in: 1...shape.maxWidth, using: &rng)
        }
    }

    static func array(_ shape: ValueShape, depth: Int, rng: inout any SeededRandomNumberGenerator) -> PFValue {
        let n = width(shape, rng: &rng)
        var items: [PFValue] = []
        items.reserveCapacity(n)
        for _ in 0..<n { items.append(value(shape, depth: depth + 1, rng: &rng)) }
        return .array(items)
    }

    static func dictionary(_ shape: ValueShape, depth: Int, rng: inout any SeededRandomNumberGenerator) -> PFValue {
        let n = width(shape, rng: &rng)
        var members = OrderedDictionary<String, PFValue>()
        for i in 0..<n {
            var key = string(shape, rng: &rng)
            if members[key] != nil { key += "#\(i)" }
            members[key] = value(shape, depth: depth + 1, rng: &rng)
        }
        return .dictionary(members)
    }

    public static func string(_ shape: ValueShape, rng: inout any SeededRandomNumberGenerator) -> String {
        let parts = Int.random(in: 0...6, using: &rng)
        var s = ""
        for _ in 0..<parts {
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: s += samplePieces.randomElement(using: &rng) ?? ""
            case 1:
                // any scalar, astral included, never a surrogate
                var v = UInt32.random(in: 0...0x10FFFF, using: &rng)
                if (0xD800...0xDFFF).contains(v) { v = 0x1F600 }
                if v == 0 && !shape.nulInStrings { v = 0x41 }
                if let scalar = Unicode.Scalar(v) { s.unicodeScalars.append(scalar) }
            default:
                let letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
                for _ in 0..<Int.random(in: 1...12, using: &rng) { s.append(letters.randomElement(using: &rng) ?? "a") }
            }
        }
        return s
    }

    static func double(_ shape: ValueShape, rng: inout any SeededRandomNumberGenerator) -> Double {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: return specialDoubles.randomElement(using: &rng) ?? 0
        case 1: return shape.negativeZero ? -0.0 : 0.5
        case 2:
            if shape.nonFiniteDoubles { return [Double.nan, .infinity, -.infinity].randomElement(using: &rng) ?? .nan }
            return 2.5
        case 3: return Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &rng)).isFinite
            ? Double(bitPattern: UInt64.random(in: 0...0x7FEF_FFFF_FFFF_FFFF, using: &rng)) : 1.25
        default: return Double.random(in: -1e6...1e6, using: &rng)
        }
    }

    static func date(_ shape: ValueShape, rng: inout any SeededRandomNumberGenerator) -> Date {
        // Between 1900 and 2100, before and after 2001-01-01.
        let seconds = Double(Int64.random(in: -3_187_296_000...3_124_137_600, using: &rng))
        if shape.subMillisecondDates {
            return Date(timeIntervalSinceReferenceDate: seconds + Double.random(in: 0..<1, using: &rng))
        }
        let millis = Double(Int.random(in: 0..<1000, using: &rng)) / 1000
        // Whole milliseconds since 1970, as Parse's ISO strings carry them.
        let unixMillis = ((seconds + PFDateFormat.unixToReferenceOffset) * 1000).rounded() + millis * 1000
        return Date(timeIntervalSince1970: unixMillis / 1000)
    }
}
