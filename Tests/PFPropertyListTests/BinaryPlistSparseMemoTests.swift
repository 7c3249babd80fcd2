import Foundation
import PFCore
@testable import PFPropertyList
import Testing

/// The sparse read's memo and scalar cache (`BinaryPlistScanner+Memo.swift`) answer as a
/// dictionary would, through growth, collisions and resets.
@Suite struct BinaryPlistSparseMemoTests {
    @Test func theMemoAnswersAsADictionary() {
        var memo = BinaryPlistSparseMemo()
        var model: [Int: (value: PFValue, nodes: Int)] = [:]
        var rng = SystemRandomNumberGenerator()
        // Rounds of different sizes, the largest past the size a reset keeps; object numbers
        // that collide in the table (multiples of a power of two) and ones that do not.
        for (round, size) in [3, 40, 1, 700, 20_000, 5, 64, 0, 129].enumerated() {
            for step in 0..<(size * 2) {
                let object = step % 3 == 0 ? Int.random(in: 0..<(size + 1), using: &rng) << 12 : Int.random(in: 0..<(size * 4 + 1), using: &rng)
                if Bool.random(using: &rng) {
                    let value = PFValue.int(Int64(round * 1_000_000 + step))
                    let nodes = step % 5 == 0 ? -1 : step
                    memo.set(object, value, nodes: nodes)
                    model[object] = (value, nodes)
                }
                let probe = Int.random(in: 0..<(size * 4 + 1), using: &rng)
                for asked in [object, probe, probe << 12] {
                    #expect(memo[asked]?.value == model[asked]?.value && memo[asked]?.nodes == model[asked]?.nodes,
                            "round \(round) step \(step) object \(asked)")
                }
            }
            #expect(memo.count == model.count, "round \(round)")
            for (object, entry) in model {
                #expect(memo[object]?.value == entry.value && memo[object]?.nodes == entry.nodes, "round \(round) object \(object)")
            }
            memo.removeAll()
            model.removeAll()
            #expect(memo.count == 0)
            for object in 0..<(size * 4 + 1) { #expect(memo[object] == nil, "round \(round) object \(object) after reset") }
        }
    }

    @Test func theScalarCacheKeepsShortScalarsAndForgetsOnCollision() {
        var cache = BinaryPlistScalarCache()
        let short = PFValue.string("NS.objects")
        let long = PFValue.string(String(repeating: "é", count: BinaryPlistScalarCache.maxBytes))
        let kept = [
            cache.keep(short, for: 7), cache.keep(long, for: 8),
            cache.keep(.data(Data(count: BinaryPlistScalarCache.maxBytes + 1)), for: 9), cache.keep(.array([]), for: 10),
            cache.keep(.uid(3), for: 11),
        ]
        #expect(kept == [true, false, false, false, true], "a string or data past maxBytes (UTF-8), or a collection, is not kept")
        #expect(cache[7] == short && cache[8] == nil && cache[9] == nil && cache[10] == nil && cache[11] == .uid(3))
        // Another object in the same slot replaces it; the first is then decoded again.
        let replaced = cache.keep(.int(5), for: 7 + (1 << 12))
        #expect(replaced)
        #expect(cache[7] == nil && cache[7 + (1 << 12)] == .int(5))
        #expect(cache[4095] == nil, "an empty slot answers nothing")
        // A miss is no value at all, not `.null` (PFValue is ExpressibleByNilLiteral).
        for object in [0, 1, 12, 4094] {
            if case .some(let found) = cache[object] { Issue.record("object \(object): a miss answered \(found)") }
        }
    }
}
