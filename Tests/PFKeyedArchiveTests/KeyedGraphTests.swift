import Foundation
import PFCore
import PFKeyedArchive
import Testing

@Suite struct KeyedGraphTests {
    @Test func jsonShapeRoundTripsThroughAnArchive() throws {
        let json: PFValue = [
            "name": "root", "when": .date(Date(timeIntervalSinceReferenceDate: 1.5)), "bytes": .data(Data([1, 2])),
            "list": [1, 2.5, true, nil, "x"], "$$dollar": "escaped",
        ]
        for container in [KeyedArchiveContainer.bplist, .xmlplist] {
            let bytes = try KeyedArchive.archive(KeyedGraph(json: json), container: container)
            let back = try KeyedArchive.decodeGraph(bytes).jsonValue()
            #expect(back == json, "\(container)")
        }
    }
}

/// Foundation scalars whose value is a reference to it rather than in place: bpylist2's
/// `nsmutabledata_archive` holds `{"$class": …, "NS.data": CF$UID 3}` with `$objects[3]` the
/// bytes (nska_deserialize and bpylist2 read `hello`; pfarchive said "has no NS.data").
@Suite struct KeyedReferencedScalarTests {
    static func table(_ object: PFValue, className: String, value: PFValue) throws -> KeyedObjectTable {
        try KeyedObjectTable(plist: [
            "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": .uid(1)],
            "$objects": ["$null", object, ["$classname": .string(className), "$classes": [.string(className), "NSObject"]], value],
        ])
    }

    @Test func aDataOrStringValueByReferenceIsFollowed() throws {
        let data = try Self.table(["$class": .uid(2), "NS.data": .uid(3)], className: "NSMutableData", value: .data(Data("hello".utf8)))
        #expect(try KeyedGraph(table: data).jsonValue() == .data(Data("hello".utf8)))
        let string = try Self.table(["$class": .uid(2), "NS.string": .uid(3)], className: "NSMutableString", value: "héllo")
        #expect(try KeyedGraph(table: string).jsonValue() == "héllo")
        // A reference past the table, or to $null, is still an error naming the member.
        let outside = try Self.table(["$class": .uid(2), "NS.data": .uid(9)], className: "NSData", value: "x")
        #expect(throws: PFError.self) { try KeyedGraph(table: outside) }
        let null = try Self.table(["$class": .uid(2), "NS.data": .uid(0)], className: "NSData", value: "x")
        #expect { try KeyedGraph(table: null) } throws: { ($0 as? PFError)?.message.contains("NSData has no NS.data") == true }
    }
}
