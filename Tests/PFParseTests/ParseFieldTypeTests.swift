import Foundation
import PFCore
import PFParse
import Testing

/// `ParseFieldType`: Parse's type names as an enum (issue 22), its MongoDB spelling, and a
/// value's type.
@Suite struct ParseFieldTypeTests {
    @Test func everyKnownNameRoundTrips() {
        let names = ParseFieldType.known.map(\.rawValue)
        #expect(names == ["String", "Number", "Boolean", "Date", "Object", "Array", "GeoPoint", "File", "Bytes", "Polygon", "Pointer", "Relation", "ACL"])
        for type in ParseFieldType.known {
            #expect(ParseFieldType(rawValue: type.rawValue) == type && type.isKnown)
            if case .unknown = ParseFieldType(rawValue: type.rawValue) { Issue.record("\(type) read as unknown") }
            #expect("\(type)" == type.rawValue)
        }
    }

    @Test func anUnknownNameIsKeptAsRead() {
        let type = ParseFieldType(rawValue: "Vector")
        #expect(type == .unknown("Vector") && type.rawValue == "Vector" && !type.isKnown)
        #expect(ParseFieldType(rawValue: "string") == .unknown("string"), "Parse's names are case-sensitive")
        #expect(ParseSchema.Field(type, targetClass: nil).description == "Vector")
        #expect(ParseSchema.Field(type).restSpec == ["type": "Vector"])
    }

    @Test func mongoSpellings() {
        let cases: [(String, ParseSchema.Field?)] = [
            ("string", .init(.string)), ("number", .init(.number)), ("boolean", .init(.boolean)), ("date", .init(.date)),
            ("object", .init(.object)), ("map", .init(.object)), ("array", .init(.array)), ("geopoint", .init(.geoPoint)),
            ("file", .init(.file)), ("bytes", .init(.bytes)), ("polygon", .init(.polygon)), ("acl", .init(.acl)),
            ("*_User", .init(.pointer, targetClass: "_User")), ("relation<Tag>", .init(.relation, targetClass: "Tag")),
            ("*", nil), ("relation<>", nil), ("pointer", nil), ("relation", nil), ("String", nil), ("vector", nil),
        ]
        for (spelling, field) in cases {
            #expect(ParseSchema.Field(mongoType: spelling) == field, "\(spelling)")
            if let field, field.type != .acl, spelling != "map" { #expect(field.mongoType == spelling, "\(spelling)") }
        }
        #expect(ParseSchema.Field(.acl).mongoType == nil)
        #expect(ParseSchema.Field(.pointer).mongoType == nil && ParseSchema.Field(.relation, targetClass: "").mongoType == nil)
        #expect(ParseSchema.Field(.unknown("Vector")).mongoType == "Vector")
    }

    @Test func aValueTellsItsType() throws {
        let values: [(ParseValue, ParseFieldType?)] = [
            (.null, nil), (.bool(true), .boolean), (.int(1), .number), (.double(1.5), .number), (.string("a"), .string),
            (.date(Date(timeIntervalSince1970: 0)), .date), (.bytes(Data([1])), .bytes),
            (.pointer(ParsePointer(className: "A", objectId: "b")), .pointer), (.relation(className: "A"), .relation),
            (.file(ParseFile(name: "f")), .file), (.geoPoint(ParseGeoPoint(latitude: 1, longitude: 2)), .geoPoint),
            (.array([]), .array), (.object([:]), .object), (try ParseValue(rest: ["__type": "Vector"]), .object),
        ]
        for (value, type) in values {
            #expect(value.fieldType == type, "\(value)")
            // The code is the type's, told without building it; 0 only for null.
            #expect(value.fieldTypeCode == (type?.code ?? 0), "\(value)")
        }
        let codes = ParseFieldType.known.map(\.code)
        #expect(!codes.contains(0) && Set(codes.filter { $0 != 255 }).count == codes.count - 1 && ParseFieldType.acl.code == 255)
        #expect(ParseFieldType.unknown("Vector").code == 255 && ParseFieldType.unknown("Date").code == ParseFieldType.date.code)
        #expect(ParseSchema.fieldType(of: .pointer(ParsePointer(className: "A", objectId: "b"))) == .init(.pointer, targetClass: "A"))
        // Asking whether a value has a field type answers as comparing its built type does.
        let fields: [ParseSchema.Field] = ParseFieldType.known.map { ParseSchema.Field($0) } + [
            .init(.pointer, targetClass: "A"), .init(.pointer, targetClass: "B"), .init(.relation, targetClass: "A"),
            .init(.unknown("Number")), .init(.unknown("Vector")), .init(.string, targetClass: "A"),
        ]
        let embedded = ParseValue.embedded(try ParseObject(className: "A", objectId: "e", fields: [:]))
        for value in values.map(\.0) + [embedded] {
            for field in fields {
                #expect(ParseSchema.fieldType(of: value, is: field) == (ParseSchema.fieldType(of: value) == field), "\(value) \(field)")
            }
        }
    }

    /// Types compare as Parse spells them: an unknown name that is a defined one equals it.
    @Test func typesCompareByTheirNames() {
        let all = ParseFieldType.known + [.unknown("Vector"), .unknown("vector")]
        for a in all {
            for b in all { #expect((a == b) == (a.rawValue == b.rawValue), "\(a) \(b)") }
            #expect(ParseFieldType.unknown(a.rawValue) == a && a == .unknown(a.rawValue))
        }
    }

    /// A REST `/schemas` document is checked as parse-server checks it: a type name it does
    /// not define is refused (parse-server's error 111), unlike a store's own schema.
    @Test func theRESTSchemaReaderStillRefusesUnknownNames() throws {
        let good: PFValue = ["results": [["className": "A", "fields": ["v": ["type": "GeoPoint"]]]]]
        #expect(try ParseSchema(rest: good).classes["A"]?["v"] == .init(.geoPoint))
        let bad: PFValue = ["results": [["className": "A", "fields": ["v": ["type": "Vector"]]]]]
        #expect(throws: PFError.self) { try ParseSchema(rest: bad) }
        let mongo: PFValue = [["_id": "A", "v": "map", "p": "*B"]]
        #expect(try ParseSchema(rest: mongo).classes["A"] == ["v": .init(.object), "p": .init(.pointer, targetClass: "B")])
    }
}
