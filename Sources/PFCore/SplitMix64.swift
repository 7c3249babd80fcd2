/// A small, fast, seedable random number generator (Steele, Lea and Flood's SplitMix64): the
/// same seed gives the same sequence on every platform, so a seeded run (a graph copy's
/// generated ids, a property test's round) can be replayed.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The generator's state; the next value is derived from it.
    package var state: UInt64

    /// Makes a generator.
    /// - Parameter seed: the initial state.
    package init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
