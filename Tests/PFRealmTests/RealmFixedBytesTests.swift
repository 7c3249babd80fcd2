import Foundation
import PFCore
import Testing

@testable import PFRealm

/// ObjectId and UUID columns as realm-core writes them: each leaf an array of width type
/// "multiply" and width 1 (width 0 while empty), blocks of a null bitmap byte and 8 values.
@Suite("Realm ObjectId and UUID leaves") struct RealmFixedBytesTests {
    static let objectId: [UInt8] = [0x65, 0x24, 0x8A, 0xD3, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08]
    static let uuid: [UInt8] = [0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0xDE, 0xF0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88]

    /// A fixed-bytes leaf of width type 1 (multiply) holding `values` of `size` bytes.
    static func leaf(_ w: inout RealmTestWriter, _ values: [[UInt8]?], size: Int) -> Int64 {
        var payload: [UInt8] = []
        for (i, value) in values.enumerated() {
            if i % 8 == 0 { payload.append(0) }
            if value == nil { payload[payload.count - 1 - (i % 8) * size] |= 1 << UInt8(i % 8) }
            payload += value ?? [UInt8](repeating: 0, count: size)
        }
        let ref = Int64(w.bytes.count)
        w.header(flags: 0x08 | (payload.isEmpty ? 0 : RealmTestWriter.log2Code(1)), count: payload.count)
        w.bytes += payload
        w.pad()
        return ref
    }

    /// `class_Thing {oid: objectId?, id: uuid?}` with `rows`, and `class_Empty {oid: objectId?}`
    /// with none and an empty leaf, in format 23.
    static func makeFile(rows: [([UInt8]?, [UInt8]?)]) -> [UInt8] {
        var w = RealmTestWriter()
        let tagged = RealmTestWriter.tagged
        let oids = leaf(&w, rows.map(\.0), size: 12)
        let ids = leaf(&w, rows.map(\.1), size: 16)
        let thingLeaf = w.refs([tagged(Int64(rows.count)), oids, ids])
        let attrs: [Int64] = [16, 16]  // nullable
        let thingSpec = w.refs([
            w.ints([15, 17]), w.shortStrings(["oid", "id"]), w.ints(attrs), 0, 0,
            w.ints([0 | 15 << 16 | attrs[0] << 22, 1 | 17 << 16 | attrs[1] << 22]),
        ])
        let thing = w.refs([thingSpec, 0, thingLeaf, tagged(0), 0, 0, 0, 0, 0, 0, 0, 0, tagged(0)])
        let emptyLeaf = w.refs([tagged(0), leaf(&w, [], size: 12)])
        let emptySpec = w.refs([w.ints([15]), w.shortStrings(["oid"]), w.ints([16]), 0, 0, w.ints([0 | 15 << 16 | 16 << 22])])
        let empty = w.refs([emptySpec, 0, emptyLeaf, tagged(1), 0, 0, 0, 0, 0, 0, 0, 0, tagged(0)])
        let top = w.refs([w.shortStrings(["class_Thing", "class_Empty"]), w.refs([thing, empty]), tagged(Int64(w.bytes.count + 64))])
        return w.file(top: top, version: 23)
    }

    @Test func objectIdsAndUUIDsReadFromRealmCoresLeaves() throws {
        let rows: [([UInt8]?, [UInt8]?)] = (0..<10).map { i in
            (i == 3 ? nil : Self.objectId.enumerated().map { $0.offset == 11 ? UInt8(i) : $0.element },
             i == 8 ? nil : Self.uuid.enumerated().map { $0.offset == 15 ? UInt8(i) : $0.element })
        }
        let db = try RealmDatabase(RealmFile(bytes: Self.makeFile(rows: rows)))
        let document = try db.document()
        let things = try #require(document["Thing"]?.arrayValue)
        #expect(things.count == 10)
        #expect(document["Empty"] == [])
        for (i, thing) in things.enumerated() {
            let oid = thing["oid"]
            let id = thing["id"]
            if i == 3 { #expect(oid == .null) } else {
                #expect(oid?.description.contains("65248ad30102030405060" + String(format: "7%02x", i)) == true, "\(String(describing: oid))")
            }
            if i == 8 { #expect(id == .null) } else {
                #expect(id?.description.uppercased().contains(String(format: "12345678-9ABC-DEF0-1122-3344556677%02X", i)) == true, "\(String(describing: id))")
            }
        }
    }
}

/// A backlink names the origin property the file records as its opposite column, also when
/// the origin class has several links to the class (it said `Owner.?` then).
@Suite("Realm backlink origins") struct RealmBacklinkTests {
    /// `class_Owner {a: Target?, b: Target?}` and `class_Target {n: int}` with one backlink
    /// per link, the backlink of `b` first.
    static func makeFile() -> [UInt8] {
        var w = RealmTestWriter()
        let tagged = RealmTestWriter.tagged
        func key(_ leaf: Int64, _ type: Int64, _ attrs: Int64) -> Int64 { leaf | type << 16 | attrs << 22 }
        let ownerKeys = [key(0, 12, 16), key(1, 12, 16)]
        let targetKeys = [key(0, 0, 0), key(1, 14, 0), key(2, 14, 0)]
        let ownerSpec = w.refs([w.ints([12, 12]), w.shortStrings(["a", "b"]), w.ints([16, 16]), 0, 0, w.ints(ownerKeys)])
        let ownerLeaf = w.refs([tagged(1), w.ints([0]), w.ints([0])])
        // Opposite tables and columns, per leaf: a ↔ Target's leaf 2, b ↔ Target's leaf 1.
        let owner = w.refs([
            ownerSpec, 0, ownerLeaf, tagged(0), 0, 0, 0, w.ints([1, 1]), w.ints([targetKeys[2], targetKeys[1]]), 0, 0, 0, tagged(0),
        ])
        let targetSpec = w.refs([w.ints([0, 14, 14]), w.shortStrings(["n"]), w.ints([0, 0, 0]), 0, 0, w.ints(targetKeys)])
        let targetLeaf = w.refs([tagged(1), w.ints([5]), 0, 0])
        let target = w.refs([
            targetSpec, 0, targetLeaf, tagged(1), 0, 0, 0, w.ints([0, 0, 0]), w.ints([0, ownerKeys[1], ownerKeys[0]]), 0, 0, 0, tagged(0),
        ])
        let top = w.refs([w.shortStrings(["class_Owner", "class_Target"]), w.refs([owner, target]), tagged(Int64(w.bytes.count + 64))])
        return w.file(top: top, version: 23)
    }

    @Test func eachBacklinkNamesItsOriginColumn() throws {
        let db = try RealmDatabase(RealmFile(bytes: Self.makeFile()))
        let target = try #require(db.table(named: "Target"))
        #expect(target.backlinks.map(\.originProperty) == ["b", "a"])
        #expect(try db.summary()["classes"]?["Target"]?["linkedFrom"] == ["Owner.b", "Owner.a"])
    }
}
