import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFParse
@testable import PFSQLiteStore
import PFStoreTestSupport
import PFTestSupport
import PropertyBased
import Testing

/// The JSON columns' direct writer must give the bytes the `PFValue` path gave
/// (`JSONWriter().write(value.restValue)`), so files written before and after it are the same.
@Suite struct JSONTextTests {
    /// The old path's text, or nil where it throws.
    static func old(_ value: PFValue) -> [UInt8]? {
        var out: [UInt8] = []
        do {
            try JSONWriter().write(value, into: &out)
        } catch {
            return nil
        }
        return out
    }

    /// The direct path's text, or nil where it falls back.
    static func direct(_ write: (inout [UInt8]) throws(SQLiteJSONText.Fallback) -> Void) -> [UInt8]? {
        var out: [UInt8] = Array("prefix".utf8)
        do {
            try write(&out)
        } catch {
            return nil
        }
        #expect(out.starts(with: Array("prefix".utf8)), "the direct writer appends")
        return Array(out.dropFirst(6))
    }

    /// Equal bytes, or a fallback where the old path would throw or (for values the direct
    /// path leaves to it) would give the bytes itself.
    static func expectSame(_ value: ParseValue, sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = old(value.restValue)
        let actual = direct { (out: inout [UInt8]) throws(SQLiteJSONText.Fallback) in try SQLiteJSONText.append(value, to: &out) }
        if let actual {
            #expect(actual == expected, "\(value)", sourceLocation: sourceLocation)
        } else {
            #expect(expected == nil || value.holdsEmbeddedObject, "fell back on \(value)", sourceLocation: sourceLocation)
        }
    }

    @Test func generatedFieldValuesACLsAndExtraColumnsAreByteIdentical() async {
        await propertyCheck(count: 300, input: StoreGen.store()) { generated in
            for object in generated.objects {
                for (_, value) in object.fields { Self.expectSame(value) }
                if let acl = object.acl {
                    let expected = Self.old(acl.restValue)
                    let actual = Self.direct { (out: inout [UInt8]) throws(SQLiteJSONText.Fallback) in SQLiteJSONText.append(acl, to: &out) }
                    #expect(actual == expected, "\(acl)")
                }
                var tree = OrderedDictionary<String, PFValue>()
                for (key, value) in object.fields { tree[key] = value.restValue }
                let expected = Self.old(.dictionary(tree))
                let actual = Self.direct { (out: inout [UInt8]) throws(SQLiteJSONText.Fallback) in
                    try SQLiteJSONText.append(fields: object.fields.elements, to: &out)
                }
                #expect(actual == expected, "\(object.fields)")
            }
        }
    }

    @Test func arbitraryJSONTreesAreByteIdentical() async {
        var shape = ValueShape.json
        shape.uid = false
        shape.bigUnsigned = false
        shape.nonFiniteDoubles = true
        shape.maxDepth = 5
        await propertyCheck(count: 500, input: ValueGen.tree(shape)) { tree in
            // Trees Parse does not accept (`$` keys, malformed __type objects) are not field values.
            guard let value = try? ParseValue(rest: tree) else { return }
            Self.expectSame(value)
        }
    }

    @Test func edgeCasesFallBackWhereTheOldPathThrowsOrIsNeeded() throws {
        let controls = String(String.UnicodeScalarView((0..<0x20).compactMap(Unicode.Scalar.init)))
        let cases: [ParseValue] = [
            .string(controls + "\"\\/\u{7F}\u{2028}😀 long enough to use the eight-byte words"),
            .string(""), .int(.min), .int(.max), .int(0), .int(-7), .double(-0.0), .double(1e-7), .double(5e-324),
            .double(.nan), .double(.infinity), .array([.double(-.infinity)]),
            .date(Date(timeIntervalSince1970: 1e13)), .date(Date(timeIntervalSince1970: -1e12)),
            .date(Date(timeIntervalSince1970: 0.0005)), .bytes(Data()), .bytes(Data([0, 255, 7])),
            .file(ParseFile(name: "a\"b", url: nil)), .object([:]), .array([]), .relation(className: "Player"),
            .embedded(try ParseObject(className: "Player", objectId: "p1")),
        ]
        for value in cases { Self.expectSame(value) }
        // Nesting at and beyond the writer's limit.
        for depth in [SQLiteJSONText.maxDepth - 1, SQLiteJSONText.maxDepth, SQLiteJSONText.maxDepth + 1] {
            var value = ParseValue.int(1)
            for _ in 0..<depth { value = .array([value]) }
            Self.expectSame(value)
            var polygon = ParseValue.polygon(ParsePolygon(coordinates: [.init(latitude: 1, longitude: 2), .init(latitude: 3, longitude: 4), .init(latitude: 5, longitude: 6)]))
            for _ in 0..<(depth - 2) { polygon = .object(["p": polygon]) }
            Self.expectSame(polygon)
        }
    }
}

extension ParseValue {
    var holdsEmbeddedObject: Bool {
        switch self {
        case .embedded: true
        case .array(let items): items.contains { $0.holdsEmbeddedObject }
        case .object(let members): members.values.contains { $0.holdsEmbeddedObject }
        default: false
        }
    }
}
