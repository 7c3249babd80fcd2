import Testing

@testable import PFCore

/// The stream writers' list of offsets and numbers: what goes in comes out in order, across
/// chunk boundaries, for steps of any size and direction, in a byte per small step.
@Suite struct DeltaListTests {
    static func list(_ values: [Int]) -> DeltaList {
        var list = DeltaList()
        for value in values { list.append(value) }
        return list
    }

    @Test func emptyListHasNoEntries() {
        let list = DeltaList()
        #expect(list.count == 0)
        #expect(list.first == nil)
        #expect(Array(list).isEmpty)
        #expect(list.byteCount == 0)
    }

    /// Lengths around the chunk boundaries, each entry read back in order.
    @Test func entriesReadBackAcrossChunkBoundaries() {
        let n = DeltaList.chunkLength
        for length in [1, 2, n - 1, n, n + 1, 2 * n - 1, 2 * n, 3 * n + 5] {
            let values = (0..<length).map { $0 * 3 + ($0 % 5 == 0 ? 100 : 0) }
            let list = Self.list(values)
            #expect(list.count == length)
            #expect(Array(list) == values, "length \(length)")
            #expect(list.first == values.first)
            #expect(list.last == values.last)
        }
    }

    /// Steps up and down of every width, up to the whole range of `Int`, and at a chunk's start.
    @Test func largeStepsReadBack() {
        var values = [0, Int.max, 0, Int.max - 1, 1, 1 << 32, (1 << 32) - 1, 1 << 62, 0, 127, 128, 63, 64, 0]
        values += (0..<63).map { 1 << $0 }
        values += (0..<63).reversed().map { (1 << $0) - 1 }
        // Place big values right at a chunk's first entry and its last.
        values += Array(repeating: 5, count: DeltaList.chunkLength - values.count % DeltaList.chunkLength - 1)
        values += [Int.max, Int.max, 0, Int.max]
        #expect(Array(Self.list(values)) == values)
    }

    /// A step of -64…63 takes one byte; the chunk's first entry takes what its value needs.
    @Test func smallStepsTakeAByte() {
        let n = DeltaList.chunkLength
        // Rising by 1 from 0: every entry one byte, but the second chunk's first (4096), two.
        #expect(Self.list(Array(0..<(2 * n))).byteCount == 2 * n + 1)
        // Constant, and alternating by the widest one-byte steps.
        #expect(Self.list(Array(repeating: 1000, count: n)).byteCount == n + 1)
        let zigzag = (0..<n).map { 1000 + ($0 % 2 == 0 ? 0 : 63) }
        #expect(Self.list(zigzag).byteCount == n + 1)
        // -64 is one byte, 64 and -65 two.
        #expect(Self.list([1000, 936]).byteCount == 3)
        #expect(Self.list([1000, 1064]).byteCount == 4)
        #expect(Self.list([1000, 935]).byteCount == 4)
    }

    /// Random lists of mixed small and large steps, against an array.
    @Test func randomListsReadBack() {
        var random = SplitMix64(seed: 23)
        for round in 0..<40 {
            let length = Int.random(in: 0...(3 * DeltaList.chunkLength), using: &random)
            var values: [Int] = []
            var value = 0
            for _ in 0..<length {
                switch Int.random(in: 0..<10, using: &random) {
                case 0: value = Int.random(in: 0...Int.max, using: &random)
                case 1: value = max(0, value - Int.random(in: 0...1_000_000, using: &random))
                default: value = min(Int.max - 200, value) + Int.random(in: 0...200, using: &random)
                }
                values.append(value)
            }
            #expect(Array(Self.list(values)) == values, "round \(round)")
        }
    }
}
