import Foundation
import PFCBOR
import PFCore
import Testing

// Golden bytes for what the writer decides (dates, UIDs, key order, sharing, self-describe)
// and the small entry points (info, hasMagic).
@Suite("CBOR writer policies, info and magic")
struct CBORWriterTests {
    @Test func datesAreTagOneEpochSeconds() throws {
        let writer = CBORWriter()
        #expect(hexString(try writer.write(.date(Date(timeIntervalSince1970: 1_363_896_240)))) == "c11a514b67b0")
        #expect(hexString(try writer.write(.date(Date(timeIntervalSince1970: -1)))) == "c120")
        #expect(
            hexString(try writer.write(.date(Date(timeIntervalSince1970: 1_363_896_240.5)))) == "c1fb41d452d9ec200000")
        let canonical = CBORWriter(options: .init(canonical: true))
        #expect(hexString(try canonical.write(.date(Date(timeIntervalSince1970: 0.5)))) == "c1f93800")
    }

    @Test func uidsUseThePrivateTag() throws {
        #expect(hexString(try CBORWriter().write(.uid(5))) == "da5046554905")
        #expect(try CBORReader().read(hexBytes("da5046554905")) == .uid(5))
        #expect(try CBORReader().read(hexBytes("da504655491bffffffffffffffff")) == .uid(UInt64.max))
    }

    @Test func canonicalSortsKeysByEncodedBytes() throws {
        let value: PFValue = ["b": 1, "aa": 3, "a": 2, "é": 4, "z": 5]
        let canonical = try CBORWriter(options: .init(canonical: true)).write(value)
        // Shorter encodings first ("é" is two bytes), then bytewise.
        #expect(hexString(canonical) == "a5" + "616102" + "616201" + "617a05" + "62616103" + "62c3a904")
        #expect(hexString(try CBORWriter().write(value)) == "a5" + "616201" + "62616103" + "616102" + "62c3a904" + "617a05")
    }

    @Test func sharingWritesRepeatsOnce() throws {
        let writer = CBORWriter(options: .init(shareValues: true))
        let text: PFValue = "abcdefgh"
        #expect(hexString(try writer.write([text, text])) == "82d81c686162636465666768d81d00")
        // Short strings are not worth a reference.
        #expect(hexString(try writer.write(["abc", "abc"])) == "82" + "63616263" + "63616263")
        let list: PFValue = [1, 2]
        #expect(hexString(try writer.write([list, ["k": list]])) == "82d81c820102a1616bd81d00")
        // Canonically equivalent strings (Swift's == holds) are different text: never shared.
        let composed: PFValue = .string("caf\u{E9}-long")
        let decomposed: PFValue = .string("cafe\u{301}-long")
        let mixed: PFValue = [composed, decomposed, [composed], [decomposed]]
        let back = try CBORReader().read(try writer.write(mixed))
        #expect(PFValue.Exact(back) == PFValue.Exact(mixed))
    }

    @Test func selfDescribeIsPrefixedAndSkipped() throws {
        let bytes = try CBORWriter(options: .init(selfDescribe: true)).write([1])
        #expect(hexString(bytes) == "d9d9f78101")
        #expect(try CBORReader().read(bytes) == [1])
        let info = try CBORReader.info(bytes)
        #expect(info == CBORInfo(tags: [55799: 1], items: 2, hasIndefiniteLengths: false, hasSelfDescribeTag: true))
    }

    @Test func infoCountsTagsAndItems() throws {
        // [_ 0("2013-03-21T20:04:00Z"), 32("x"), 32("y"), 28([1]), 29(0)]
        let bytes = hexBytes("9f c074323031332d30332d32315432303a30343a30305a d8206178 d8206179 d81c8101 d81d00 ff")
        let info = try CBORReader.info(bytes)
        #expect(info.tags == [0: 1, 32: 2, 28: 1, 29: 1])
        #expect(info.items == 7)
        #expect(info.hasIndefiniteLengths)
        #expect(!info.hasSelfDescribeTag)
        #expect(throws: PFError.self) { try CBORReader.info(hexBytes("ff")) }
    }

    @Test func writerRefusesTreesDeeperThanTheLimit() {
        var value: PFValue = 0
        for _ in 0..<600 { value = [value] }
        #expect {
            try CBORWriter().write(value)
        } throws: { error in
            (error as? PFError)?.code == .limitExceeded && (error as? PFError)?.path?.components.count == 512
        }
    }

    @Test func magicRecognisesSelfDescribeAndContainers() {
        #expect(CBORReader.hasMagic(hexBytes("d9d9f700")))
        #expect(CBORReader.hasMagic(hexBytes("a26161016162820203")))
        #expect(CBORReader.hasMagic(hexBytes("83010203")))
        #expect(CBORReader.hasMagic(hexBytes("9f01ff")))
        #expect(CBORReader.hasMagic(hexBytes("80")))
        #expect(!CBORReader.hasMagic(hexBytes("8301")))  // count larger than what follows
        #expect(!CBORReader.hasMagic(hexBytes("bb")))  // header cut short
        #expect(!CBORReader.hasMagic(Data("{\"a\":1}".utf8)))
        #expect(!CBORReader.hasMagic(Data("bplist00".utf8)))
        #expect(!CBORReader.hasMagic(Data("<?xml".utf8)))
        #expect(!CBORReader.hasMagic(hexBytes("1f8b08")))
        #expect(!CBORReader.hasMagic(hexBytes("789c")))
        #expect(!CBORReader.hasMagic(Data()))
        #expect(!CBORReader.hasMagic(hexBytes("00")))
    }
}
