import Foundation
import PFCore
import PFKeyedArchive
import Testing

/// A keyed archive stores an equal scalar once, and Swift's `String` equality is canonical
/// equivalence: sharing by it wrote `"é"` (U+00E9) where the input had `"e\u{301}"` (or the
/// reverse, whichever came first). Strings are shared only when their Unicode scalars are
/// the same.
@Suite struct KeyedExactSharingTests {
    static let composed = "\u{E9}"
    static let decomposed = "e\u{301}"

    static func roundTrip(_ value: PFValue) throws -> PFValue {
        let archive = try KeyedArchive.archive(try KeyedGraph(json: value), container: .bplist)
        return try KeyedArchive.decodeGraph(archive).jsonValue()
    }

    @Test(arguments: [false, true])
    func canonicallyEquivalentStringsStayAsWritten(decomposedFirst: Bool) throws {
        let (a, b) = decomposedFirst ? (Self.decomposed, Self.composed) : (Self.composed, Self.decomposed)
        let value: PFValue = [
            "x": .string(a), "y": .string(b),
            "list": [.string(b), .string(a), ["k": .string(a)]],
            "keys": .dictionary([a + "!": 1, "z": .string(b + "!")]),
        ]
        let back = try Self.roundTrip(value)
        #expect(PFValue.Exact(back) == PFValue.Exact(value), "\(back)")
        // Equal strings are still shared: one object for every "x" value here.
        let shared: PFValue = ["a": "same", "b": "same", "c": ["same"]]
        let table = try KeyedArchive.readTable(try KeyedArchive.archive(try KeyedGraph(json: shared), container: .bplist)).table
        #expect(table.objects.filter { $0 == "same" }.count == 1)
    }

    @Test func exactEqualityComparesScalarsEverywhere() {
        #expect(PFValue.string(Self.composed) == PFValue.string(Self.decomposed), "PFValue's own equality is Swift's")
        #expect(PFValue.Exact(.string(Self.composed)) != PFValue.Exact(.string(Self.decomposed)))
        #expect(PFValue.Exact([.string(Self.composed)]) != PFValue.Exact([.string(Self.decomposed)]))
        #expect(PFValue.Exact(.dictionary([Self.composed: 1])) != PFValue.Exact(.dictionary([Self.decomposed: 1])))
        #expect(PFValue.Exact(["a": [1, 2.5, "é"]]) == PFValue.Exact(["a": [1, 2.5, "é"]]))
        #expect(Set([PFValue.Exact(.string(Self.composed)), .init(.string(Self.decomposed))]).count == 2)
        #expect(PFValue.Exact(.int(1)) == PFValue.Exact(.uint(1)))
    }
}
