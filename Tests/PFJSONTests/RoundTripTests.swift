import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFTestSupport
import PropertyBased
import Testing

/// Random trees and real files survive JSON and back, through both engines.
@Suite struct RoundTripTests {
    /// json-c's own serializer (`engine = .jsonC`) keeps keys as C strings, so keys given to
    /// it lose their U+0000; the native writer and the reader keep them.
    static func withoutNULKeys(_ value: PFValue) -> PFValue {
        switch value {
        case .array(let items): return .array(items.map(withoutNULKeys))
        case .dictionary(let members):
            var out = OrderedDictionary<String, PFValue>()
            for (key, member) in members {
                var clean = key.replacingOccurrences(of: "\u{0}", with: "0")
                while out[clean] != nil { clean += "'" }
                out[clean] = withoutNULKeys(member)
            }
            return .dictionary(out)
        default: return value
        }
    }

    /// The value with every dictionary that typed JSON would read as a typed value renamed
    /// apart: `{"CF$UID": N}` is a UID on the way back (the generator's key pieces include
    /// "CF$UID"), as a lone `__type` with its payload key would be a date or data. That
    /// reading is the documented typed-JSON policy, so such trees cannot round-trip unchanged.
    static func withoutTypedLookalikes(_ value: PFValue) -> PFValue {
        switch value {
        case .array(let items): return .array(items.map(withoutTypedLookalikes))
        case .dictionary(let members):
            var out = OrderedDictionary<String, PFValue>()
            let lookalike = (members.count == 1 && members["CF$UID"] != nil) || (members.count == 2 && members["__type"] != nil)
            for (key, member) in members {
                var clean = key
                if lookalike, key == "CF$UID" || key == "__type" {
                    clean += "'"
                    while members[clean] != nil { clean += "'" }
                }
                out[clean] = withoutTypedLookalikes(member)
            }
            return .dictionary(out)
        default: return value
        }
    }

    static var shape: ValueShape {
        var shape = ValueShape.json
        shape.uid = true
        return shape
    }

    static let writers: [JSONWriter] = {
        var out: [JSONWriter] = []
        for engine in [JSONWriter.Engine.native, .jsonC] {
            for pretty in [false, true] {
                var options = JSONWriter.Options(pretty: pretty)
                options.engine = engine
                out.append(JSONWriter(options: options))
            }
        }
        return out
    }()

    @Test func randomTreesRoundTripThroughEveryWriter() async {
        await propertyCheck(count: 200, input: ValueGen.tree(Self.shape)) { tree in
            let generated = Self.withoutTypedLookalikes(tree)
            for writer in Self.writers {
                let value = writer.options.engine == .jsonC ? Self.withoutNULKeys(generated) : generated
                let back = try JSONReader().read(try writer.write(value))
                #expect(back == value, "\(writer.options)")
            }
        }
    }

    @Test func bothEnginesAgreeOnDocuments() async {
        await propertyCheck(count: 100, input: ValueGen.document(Self.shape)) { generated in
            let value = Self.withoutNULKeys(generated)
            var options = JSONWriter.Options()
            options.engine = .jsonC
            let viaJSONC = try JSONReader().read(try JSONWriter(options: options).write(value))
            let viaNative = try JSONReader().read(try JSONWriter().write(value))
            #expect(viaJSONC == viaNative)
        }
    }

    @Test func textToValueToTextIsStable() async {
        // Text written by json-c (different number and escape spellings) reads, writes and
        // reads again to the same value, and our own text is a fixed point.
        await propertyCheck(count: 100, input: ValueGen.document(Self.shape)) { generated in
            var options = JSONWriter.Options(pretty: true)
            options.engine = .jsonC
            let text = try JSONWriter(options: options).write(Self.withoutNULKeys(generated))
            let first = try JSONReader().read(text)
            let ours = try JSONWriter().write(first)
            let second = try JSONReader().read(ours)
            #expect(second == first)
            #expect(try JSONWriter().write(second) == ours)
        }
    }

    @Test(arguments: ["twitter.json", "citm_catalog.json", "canada.json"])
    func benchFilesRoundTrip(_ name: String) throws {
        let data = try Fixtures.data(Fixtures.benchData.appendingPathComponent(name))
        let value = try JSONReader().read(data)
        #expect(try JSONReader().read(try JSONWriter().write(value)) == value)
        #expect(try JSONReader().read(try JSONWriter(options: .init(pretty: true)).write(value)) == value)
    }

    @Test func emptyContainersAndScalarsAtTopLevel() throws {
        for value: PFValue in [[], [:], nil, true, 0, -1.5, "", [[]], [[:]]] {
            #expect(try JSONReader().read(try JSONWriter().write(value)) == value)
        }
        #expect(try JSONTest.read(" 42 ") == 42)
        #expect(try JSONTest.read("-0") == 0)
        #expect(try JSONTest.read("-0.0") == .double(-0.0))
    }
}
