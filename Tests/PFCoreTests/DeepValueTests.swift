import Foundation
import PFCore
import Testing

/// PFValue is a recursive enum: printing, comparing, hashing and releasing a tree each recurse
/// once per level. Readers never build a tree deeper than ``PFLimits/maxDepth`` (default 512;
/// LimitsTests in PFFormatsTests shows 100,000 levels are refused before they are built), so
/// these operations must be safe at that depth — here on a test task's thread, whose stack is
/// smaller than the main thread's.
@Suite struct DeepValueTests {
    static func nested(_ depth: Int) -> PFValue {
        var value: PFValue = .string("leaf")
        for level in 0..<depth {
            value = level % 3 == 0 ? .array([value, .int(Int64(level))]) : .dictionary(["k\(level % 5)": value, "n": .null])
        }
        return value
    }

    @Test(arguments: [PFLimits.default.maxDepth, PFLimits.default.maxDepth * 4])
    func deepTreesPrintCompareHashAndFree(_ depth: Int) {
        var a: PFValue? = Self.nested(depth)
        var b: PFValue? = Self.nested(depth)
        #expect(a == b)
        #expect(a?.hashValue == b?.hashValue)
        let text = a?.description ?? ""
        #expect(text.contains("\"leaf\"") == (depth <= 512), "printing stops at its own depth limit")
        #expect(text.contains("…") == (depth > 512))
        // Distinct copies: freeing each releases every level once.
        a = nil
        #expect(b != nil)
        b = nil
        #expect(a == nil && b == nil)
    }

    @Test func descriptionDepthIsBoundedExplicitly() {
        let text = Self.nested(50).treeDescription(maxDepth: 5)
        #expect(text.contains("…"))
        #expect(!text.contains("\"leaf\""))
    }
}
