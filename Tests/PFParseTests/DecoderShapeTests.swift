import Foundation
import PFParse
import PFParseAdapter
import PFTestSupport
import Testing

/// Every `Decodable` type the Parse decoder hands back through `exactCast` (scalars in keyed
/// and unkeyed containers, Parse's own types, scalar arrays), read from a `PFValue`
/// (`decode(fromREST:)`) and from a JSON node (`decodeExport`). (`PFValue`, `ParseValue`
/// and `ParseObject` have branches too, reached only if an app makes them `Decodable`.)
@Suite struct DecoderShapeTests {
    struct Shapes: ParseModel, Sendable, Equatable {
        var objectId: String?
        var s: String
        var i: Int
        var dFromInt: Double
        var d: Double
        var b: Bool
        var date: Date
        var data: Data
        var url: URL
        var uuid: UUID
        var acl: ParseACL
        var ptr: ParsePointer
        var file: ParseFile
        var geo: ParseGeoPoint
        var poly: ParsePolygon
        var strings: [String]
        var ints: [Int]
        var doubles: [Double]
        var bools: [Bool]
        /// Unkeyed containers: each element is read as a `String` or an `Int`.
        var stringSet: Set<String>
        var intSet: Set<Int>
        static let parseClassName = "Shapes"
    }

    static let row = #"""
        {"objectId":"a1","s":"text","i":42,"dFromInt":7,"d":2.5,"b":true,
         "date":{"__type":"Date","iso":"2023-11-14T22:13:20.000Z"},
         "data":{"__type":"Bytes","base64":"AQID"},
         "url":"https://example.com/x","uuid":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
         "ACL":{"*":{"read":true},"u1":{"read":true,"write":true}},
         "ptr":{"__type":"Pointer","className":"Address","objectId":"p1"},
         "file":{"__type":"File","name":"f.png","url":"https://example.com/f.png"},
         "geo":{"__type":"GeoPoint","latitude":59.9,"longitude":10.7},
         "poly":{"__type":"Polygon","coordinates":[[0,0],[0,1],[1,1]]},
         "strings":["a","b"],"ints":[1,2,3],"doubles":[1,2.5],"bools":[true,false],
         "stringSet":["x","y"],"intSet":[5,6]}
        """#

    func check(_ m: Shapes) {
        #expect(m.objectId == "a1")
        #expect(m.s == "text")
        #expect(m.i == 42)
        #expect(m.dFromInt == 7)
        #expect(m.d == 2.5)
        #expect(m.b == true)
        #expect(m.date == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(m.data == Data([1, 2, 3]))
        #expect(m.url == URL(string: "https://example.com/x"))
        #expect(m.uuid == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(m.acl.entries["*"] == ParseACL.Access(read: true, write: false))
        #expect(m.acl.entries["u1"] == ParseACL.Access(read: true, write: true))
        #expect(m.ptr == ParsePointer(className: "Address", objectId: "p1"))
        #expect(m.file == ParseFile(name: "f.png", url: "https://example.com/f.png"))
        #expect(m.geo == ParseGeoPoint(latitude: 59.9, longitude: 10.7))
        #expect(m.poly.coordinates.count == 3)
        #expect(m.strings == ["a", "b"])
        #expect(m.ints == [1, 2, 3])
        #expect(m.doubles == [1, 2.5])
        #expect(m.bools == [true, false])
        #expect(m.stringSet == ["x", "y"])
        #expect(m.intSet == [5, 6])
    }

    @Test func fromAValue() throws {
        check(try ParseAdapter().decode(Shapes.self, fromREST: try rawJSON(Self.row)))
    }

    @Test func fromANode() throws {
        let models = try ParseAdapter().decodeExport(Shapes.self, fromJSON: Data(("[" + Self.row + "]").utf8), parallelism: 1)
        #expect(models.count == 1)
        if let model = models.first { check(model) }
        // And the two paths agree.
        #expect(models == [try ParseAdapter().decode(Shapes.self, fromREST: try rawJSON(Self.row))])
    }
}
