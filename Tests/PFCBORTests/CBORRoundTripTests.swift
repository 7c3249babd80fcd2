import Foundation
import OrderedCollections
import PFCBOR
import PFCore
import PFTestSupport
import PropertyBased
import Testing

// decode(encode(x)) == x for random trees in every writer mode.
@Suite("CBOR round trips")
struct CBORRoundTripTests {
    /// Everything the value model holds. Dates are whole milliseconds, as every reader of Unix
    /// seconds sees them; finer dates are covered by `subMillisecondDatesStayWithinAMicrosecond`.
    static var shape: ValueShape {
        var shape = ValueShape()
        shape.uid = true
        shape.nonFiniteDoubles = true
        shape.subMillisecondDates = false
        return shape
    }

    static let modes: [CBORWriter.Options] = [
        .init(),
        .init(canonical: true),
        .init(shareValues: true),
        .init(canonical: true, selfDescribe: true, shareValues: true),
    ]

    @Test(arguments: 0..<modes.count)
    func randomTreesRoundTrip(_ mode: Int) async throws {
        let options = Self.modes[mode]
        let writer = CBORWriter(options: options)
        await propertyCheck(count: 200, input: ValueGen.tree(Self.shape)) { value in
            let bytes = try writer.write(value)
            let back = try CBORReader().read(bytes)
            // Canonical output orders map keys by their encodings (length, then bytes).
            #expect(back == (options.canonical ? canonicallyOrdered(value) : value))
        }
    }

    @Test func randomDocumentsRoundTripWithSharing() async throws {
        // Documents repeat nothing by chance; duplicate a sub-tree so sharing really happens.
        let writer = CBORWriter(options: .init(shareValues: true))
        await propertyCheck(count: 100, input: ValueGen.document(Self.shape)) { value in
            let doubled: PFValue = ["first": value, "again": value, "list": [value, value]]
            let shared = try writer.write(doubled)
            let plain = try CBORWriter().write(doubled)
            #expect(try CBORReader().read(shared) == doubled)
            // Four occurrences: written once under tag 28, referred to three times.
            if case .array(let a) = value, a.isEmpty { return }
            if case .dictionary(let d) = value, d.isEmpty { return }
            #expect(try CBORReader.info(shared).tags[CBORTag.sharedReference, default: 0] >= 3)
            if try CBORWriter().write(value).count >= 16 { #expect(shared.count < plain.count) }
        }
    }

    @Test func canonicalOutputIgnoresInsertionOrder() async throws {
        let writer = CBORWriter(options: .init(canonical: true))
        await propertyCheck(count: 200, input: ValueGen.document(Self.shape)) { value in
            var rng = SystemRandomNumberGenerator()
            let shuffled = Self.shuffledKeys(value, rng: &rng)
            let expected = try writer.write(value)
            #expect(try writer.write(shuffled) == expected)
        }
    }

    @Test func subMillisecondDatesStayWithinAMicrosecond() async throws {
        var shape = Self.shape
        shape.subMillisecondDates = true
        await propertyCheck(count: 500, input: ValueGen.tree(shape)) { value in
            guard case .date(let date) = value else { return }
            let back = try CBORReader().read(CBORWriter().write(value))
            guard case .date(let read) = back else {
                Issue.record("a date read back as \(back)")
                return
            }
            #expect(abs(read.timeIntervalSince(date)) < 1e-6)
        }
    }

    /// The same tree with every dictionary's keys in a random order.
    static func shuffledKeys(_ value: PFValue, rng: inout SystemRandomNumberGenerator) -> PFValue {
        switch value {
        case .array(let a):
            return .array(a.map { shuffledKeys($0, rng: &rng) })
        case .dictionary(let d):
            var members = OrderedDictionary<String, PFValue>()
            for (k, v) in d.elements.shuffled(using: &rng) { members[k] = shuffledKeys(v, rng: &rng) }
            return .dictionary(members)
        default:
            return value
        }
    }
}
