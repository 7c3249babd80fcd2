import Foundation
import PFCore
import PFJSON
import Testing

/// ``JSONNode/memberShape(_:_:tag:)``: the hash of an object's keys, value kinds and nested
/// `__type`/`className` strings, read from the tape.
@Suite struct MemberShapeTests {
    static let reader = JSONReader(options: .init(typedValues: false))

    static func shape(_ text: String) throws -> Int? {
        try reader.withDocument(Data(text.utf8)) { root in root.memberShape("__type", "className", tag: 0xFF) }
    }

    /// Values that leave the types alone leave the shape alone; whatever could change a type changes it.
    @Test func sameTypesSameShapeOtherwiseNot() throws {
        let base = #"{"a":1,"b":"x","c":true,"d":null,"e":[1],"f":{"__type":"Pointer","className":"X","objectId":"1"},"g":2.5}"#
        let same = #"{"a":7,"b":"yy","c":false,"d":null,"e":[],"f":{"__type":"Pointer","className":"X","objectId":"2"},"g":1e3}"#
        let baseShape = try #require(try Self.shape(base))
        #expect(try Self.shape(same) == baseShape)
        let different = [
            #"{"a":1.0,"b":"x","c":true,"d":null,"e":[1],"f":{"__type":"Pointer","className":"X","objectId":"1"},"g":2.5}"#,
            #"{"a":"1","b":"x","c":true,"d":null,"e":[1],"f":{"__type":"Pointer","className":"X","objectId":"1"},"g":2.5}"#,
            #"{"a":1,"b":"x","c":true,"d":null,"e":{},"f":{"__type":"Pointer","className":"X","objectId":"1"},"g":2.5}"#,
            #"{"a":1,"b":"x","c":true,"d":0,"e":[1],"f":{"__type":"Pointer","className":"X","objectId":"1"},"g":2.5}"#,
            #"{"a":1,"b":"x","c":true,"d":null,"e":[1],"f":{"__type":"Pointer","className":"Y","objectId":"1"},"g":2.5}"#,
            #"{"a":1,"b":"x","c":true,"d":null,"e":[1],"f":{"__type":"Relation","className":"X"},"g":2.5}"#,
            #"{"a":1,"b":"x","c":true,"d":null,"e":[1],"f":{"__type":"Poin\u0074er","className":"X","objectId":"1"},"g":2.5}"#,
            #"{"b":"x","a":1,"c":true,"d":null,"e":[1],"f":{"__type":"Pointer","className":"X","objectId":"1"},"g":2.5}"#,
            #"{"a":1,"a":"x","c":true,"d":null,"e":[1],"f":{"__type":"Pointer","className":"X","objectId":"1"},"g":2.5}"#,
            #"{"a":1,"b":"x","c":true,"d":null,"e":[1],"f":{"__type":"Pointer","className":"X","objectId":"1"}}"#,
        ]
        for text in different { #expect(try Self.shape(text) != baseShape, "\(text)") }
    }

    /// Integers of 19 digits or more (which may not fit 64 bits) count with their digits.
    @Test func longIntegersCountWithTheirDigits() throws {
        let a = try Self.shape(#"{"n":1234567890123456789}"#)
        let b = try Self.shape(#"{"n":1234567890123456788}"#)
        let c = try Self.shape(#"{"n":18446744073709551615}"#)
        #expect(a != nil && a != b && a != c && b != c)
        #expect(try Self.shape(#"{"n":123456789012345678}"#) == Self.shape(#"{"n":1}"#))
    }

    /// Only tape objects have one: another kind of root, or a document json-c reads (a key with an escape).
    @Test func nilOffTheTape() throws {
        #expect(try Self.shape("[1]") == nil)
        #expect(try Self.shape("1") == nil)
        #expect(try Self.shape(#"{"k\u0065y":1}"#) == nil)
        #expect(try Self.shape(#"{"a":{"b":1}}"#) != nil)
        #expect(try Self.reader.withDocument(Data(#"{"a":{"b":1}}"#.utf8)) { root in
            root.member("a")?.memberShape("__type", "className", tag: 0xFF) } != nil)
        #expect(try Self.reader.withDocument(Data(#"{"a":[1]}"#.utf8)) { root in
            root.member("a")?.memberShape("__type", "className", tag: 0xFF) } == nil)
    }
}
