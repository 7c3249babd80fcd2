import Foundation
import PFCore
import PFPropertyList
import PFTestSupport
import PropertyBased
import Testing

/// decode(encode(x)) == x on random trees, and the reader's behaviour on damaged documents.
@Suite struct XMLPlistRoundTripTests {
    typealias Support = XMLPlistTestSupport

    @Test func randomTreesRoundTrip() async {
        await propertyCheck(count: 200, input: ValueGen.tree(Support.shape)) { value in
            let safe = Support.xmlSafe(value)
            let bytes = try XMLPlistWriter().write(safe)
            #expect(try XMLPlistReader().read(bytes) == safe)
        }
    }

    @Test func randomDocumentsRoundTrip() async {
        var shape = Support.shape
        shape.maxDepth = 6
        await propertyCheck(count: 100, input: ValueGen.document(shape)) { value in
            let safe = Support.xmlSafe(value)
            let bytes = try XMLPlistWriter().write(safe)
            #expect(try XMLPlistReader().read(bytes) == safe)
        }
    }

    @Test func unsafeStringsAreRefusedNotMangled() async {
        // With control characters left in, the writer either refuses or round-trips exactly.
        var shape = Support.shape
        shape.nulInStrings = true
        await propertyCheck(count: 100, input: ValueGen.tree(shape)) { value in
            let dated = Support.xmlSafeDates(value)
            do {
                let bytes = try XMLPlistWriter().write(dated)
                #expect(try XMLPlistReader().read(bytes) == Support.xmlSafe(dated))
            } catch let error as PFError {
                #expect(error.code == .unrepresentable)
                guard case .uncarriableCharacter = error.failure(as: XMLPlistFailure.self) else {
                    Issue.record("\(error)")
                    return
                }
            }
        }
    }

    @Test func everyPrefixOfADocumentIsTruncated() throws {
        let value: PFValue = [
            "s": "a&b é 😀", "i": [1, -2], "r": 1.5, "d": .date(Date(timeIntervalSince1970: 0)), "b": .data(Data([1, 2, 3])),
            "t": true, "u": .uid(4), "e": [:],
        ]
        let bytes = try XMLPlistWriter().write(value)
        let end = bytes.count - 1  // the final line feed is optional
        for length in 0..<end {
            do {
                _ = try XMLPlistReader().read(bytes.prefix(length))
                Issue.record("a \(length)-byte prefix was read")
            } catch {
                #expect(error.code == .truncated, "prefix \(length): \(error)")
                #expect(error.location?.line != nil)
            }
        }
        #expect(try XMLPlistReader().read(bytes.prefix(end)) == value)
    }

    @Test func damagedDocumentsFailWithALocation() throws {
        var rng = Xoshiro(seed: (1, 2, 3, 4))
        let base = try XMLPlistWriter().write(["k": ["x &amp; y", 1, 2.5, .data(Data(repeating: 7, count: 40))], "z": false])
        var failures = 0
        for _ in 0..<3000 {
            var bytes = Array(base)
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let i = Int.random(in: 0..<bytes.count, using: &rng)
                bytes[i] = [0x3C, 0x3E, 0x2F, 0x26, 0x3B, 0x00, 0xFF, 0x41, 0x20, 0x23]
                    .randomElement(using: &rng) ?? 0
            }
            do {
                _ = try XMLPlistReader().read(Data(bytes))
            } catch {
                failures += 1
                #expect(error.location?.line != nil && error.location?.column != nil, "\(error)")
                #expect(error.format == .xmlPlist)
            }
        }
        #expect(failures > 1000)
    }
}

extension XMLPlistTestSupport {
    /// Only the date truncation of ``xmlSafe(_:)``.
    static func xmlSafeDates(_ value: PFValue) -> PFValue {
        switch value {
        case .date(let d): return .date(Date(timeIntervalSince1970: d.timeIntervalSince1970.rounded(.down)))
        case .array(let items): return .array(items.map(xmlSafeDates))
        case .dictionary(var members):
            for (k, v) in members { members[k] = xmlSafeDates(v) }
            return .dictionary(members)
        default: return value
        }
    }
}
