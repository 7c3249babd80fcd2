import Foundation
import PFCore
import PFTestSupport
import Testing

@testable import PFRealm

/// Damaged Realm files fail with the ``RealmFailure/Damage`` case that names what is broken:
/// real files from Tests/Fixtures/real with one header byte changed, and files written by
/// ``RealmTestWriter`` with one node built wrong.
@Suite struct RealmDamageTests {
    /// The damage a whole read of `bytes` fails with, or `nil` when it reads or fails otherwise.
    static func damage(_ bytes: [UInt8]) -> RealmFailure.Damage? {
        guard let error = RealmGeneratedTests.readAll(bytes) else { return nil }
        guard case .damaged(let damage)? = error.failure(as: RealmFailure.self) else {
            Issue.record("not a damaged-file failure: \(error)")
            return nil
        }
        #expect(error.description.contains("damaged file: \(damage)"), "\(error)")
        return damage
    }

    /// A real file and the offset of its top array.
    static func real(_ name: String) throws -> (bytes: [UInt8], top: Int) {
        let bytes = [UInt8](try Data(contentsOf: RealmFixtures.url(name)))
        return (bytes, try RealmFile(bytes: bytes).topRef)
    }

    @Test(arguments: ["js-simple", "kotlin-asset", "swift-template-default-v5"])
    func aBrokenTopArrayOfARealFileNamesItsDamage(_ name: String) throws {
        let (bytes, top) = try Self.real(name)
        try #require(RealmGeneratedTests.readAll(bytes) == nil, "the unbroken file reads")

        var widthType3 = bytes
        widthType3[top + 4] |= 0x18
        #expect(Self.damage(widthType3) == .unknownWidthType)

        var noRefs = bytes
        noRefs[top + 4] &= ~0x40
        #expect(Self.damage(noRefs) == .noReferences(.topArray))

        var twoSlots = bytes
        twoSlots[top + 5] = 0
        twoSlots[top + 6] = 0
        twoSlots[top + 7] = 2
        #expect(Self.damage(twoSlots) == .tooFewSlots(.topArray, has: 2, needs: 3))

        // The header's top reference moved off the 8-byte grid.
        var unaligned = bytes
        let slot = Int(bytes[23] & 1)
        if RealmFile.uint64(bytes, at: slot * 8) == UInt64(top) {
            unaligned[slot * 8] &+= 4
            #expect(Self.damage(unaligned) == .badReference(Int64(top + 4), fileSize: bytes.count))
        }
    }

    @Test func aMediumStringPastItsBlobNamesTheOffset() throws {
        var w = RealmTestWriter()
        let first = String(repeating: "a", count: 20)
        let second = String(repeating: "b", count: 30)
        let strings = w.mediumStrings([first, second])
        var b = Self.table(&w, strings: strings)
        try #require(RealmGeneratedTests.readAll(b) == nil, "the unbroken file reads")
        // The leaf is [offsets, blob, nulls]; the offsets 21 and 52 are bytes.
        let offsets = Int(RealmFile.uint64(b, at: Int(strings) + 8) & 0xFFFF_FFFF)
        try #require((1 << Int(b[offsets + 4] & 7)) >> 1 == 8 && b[offsets + 9] == 52)
        b[offsets + 9] = 100
        #expect(Self.damage(b) == .stringOffset(100, blobBytes: 52))
    }

    @Test func aClusterThatContainsItselfIsACycle() throws {
        var w = RealmTestWriter()
        let leaf = w.refs([RealmTestWriter.tagged(0)])
        let selfRef = Int64(w.bytes.count)
        let inner = w.refs([0, RealmTestWriter.tagged(1), RealmTestWriter.tagged(0), leaf, selfRef], inner: true)
        let types = w.ints([])
        let names = w.shortStrings([])
        let spec = w.refs([types, names, w.ints([])])
        let table = w.refs([spec, 0, inner])
        let top = w.refs([w.shortStrings(["class_Loop"]), w.refs([table]), RealmTestWriter.tagged(0)])
        #expect(Self.damage(w.file(top: top)) == .cycle(.clusterTree, ref: Int(selfRef)))
    }

    /// A file of one table `Item` with one string column `s` whose leaf (two objects) is `strings`.
    static func table(_ w: inout RealmTestWriter, strings: Int64) -> [UInt8] {
        let cluster = w.refs([RealmTestWriter.tagged(2), strings])
        let spec = w.refs([w.ints([2]), w.shortStrings(["s"]), w.ints([0])])
        let table = w.refs([spec, 0, cluster])
        let top = w.refs([w.shortStrings(["class_Item"]), w.refs([table]), RealmTestWriter.tagged(0)])
        return w.file(top: top)
    }
}
