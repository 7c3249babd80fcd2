import Foundation
import PFDoubleFormatting
import PropertyBased
import Testing

/// ``PFDoubleFormat`` writes exactly `Double.description` for every finite double: the same
/// shortest digits (checked to read back bit for bit) and the same layout.
@Suite struct DoubleFormatTests {
    static func text(_ value: Double) -> String {
        var out: [UInt8] = []
        PFDoubleFormat.appendShortest(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func check(_ value: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        let ours = text(value)
        #expect(ours == value.description, "\(value.bitPattern)", sourceLocation: sourceLocation)
        #expect(Double(ours)?.bitPattern == value.bitPattern, "\(ours)", sourceLocation: sourceLocation)
    }

    /// The edges: zeros, subnormals (the smallest, the ones that widen their significand),
    /// the largest, powers of two and ten, the layout switches at 0.0001 and 2^53, integers.
    @Test func edgeValues() {
        var values: [Double] = [
            0, 1, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 5e-324, 1e-323, 1.5e-323, 2.5e-323, 2.2250738585072009e-308,
            2.2250738585072014e-308, 1.7976931348623157e308, 0x1p53, 0x1p53 + 2, 0x1p53 - 1, 0x1p54, 1e15, 1e16, 1e17,
            9007199254740993, 9999999999999998, 123456789012345680000, 0.0001, 0.00009999999999999999, 0.000099999,
            0.001, 0.01, 1e-5, 1e-7, 1e21, 1e22, 1e23, 4.35, 100, 1e100, 1e-100, 1.0e308, 65.61361699999997,
            -65.61361699999997, 2.718281828459045, 3.141592653589793, 0.1 + 0.2, 1e-10, 123.456, 5e-324 * 3,
        ]
        for k in -1074...1023 { values.append(Double(sign: .plus, exponent: k, significand: 1)) }
        for k in -323...308 {
            if let ten = Double("1e\(k)") {
                values.append(ten)
                values.append(ten.nextUp)
                values.append(ten.nextDown)
            }
        }
        for n in 0..<2000 { values.append(Double(n)) }
        for t in UInt64(1)..<5000 { values.append(Double(bitPattern: t)) }  // the smallest subnormals
        for v in values where v.isFinite {
            Self.check(v)
            Self.check(-v)
        }
    }

    /// NaN and the infinities have no text: nothing is appended.
    @Test func nonFiniteValuesAppendNothing() {
        for value in [Double.nan, -.nan, .infinity, -.infinity, .signalingNaN] {
            var out: [UInt8] = [1, 2]
            #expect(!PFDoubleFormat.appendShortest(value, to: &out))
            #expect(out == [1, 2])
        }
    }

    /// Random bit patterns (every exponent alike) and random values of typical size.
    @Test func randomDoublesMatchDescription() async {
        let bits = Generator<UInt64, Shrink.None<UInt64>>(run: { rng in UInt64.random(in: 0...UInt64.max, using: &rng) })
        await propertyCheck(count: 2000, input: bits) { pattern in
            let value = Double(bitPattern: pattern)
            guard value.isFinite else { return }
            Self.check(value)
        }
        let typical = Generator<Double, Shrink.None<Double>>(run: { rng in
            let digits = Double(Int.random(in: 1...99_999_999, using: &rng))
            return digits * [1e-12, 1e-8, 1e-6, 1e-3, 0.1, 1, 10, 1e6].randomElement(using: &rng)!
        })
        await propertyCheck(count: 2000, input: typical) { Self.check($0) }
    }

    /// A large sweep, outside the property framework so it can cover a million values fast.
    @Test func aMillionValuesMatchDescription() {
        var rng = SystemRandomNumberGenerator()
        var failures: [UInt64] = []
        for _ in 0..<1_000_000 {
            let pattern = UInt64.random(in: 0...UInt64.max, using: &rng)
            let value = Double(bitPattern: pattern)
            guard value.isFinite else { continue }
            if Self.text(value) != value.description { failures.append(pattern) }
        }
        #expect(failures.isEmpty, "first failures: \(failures.prefix(5).map { Double(bitPattern: $0) })")
    }
}
