import Foundation
import OrderedCollections
import PFTestSupport
import Testing

/// Random stores go through the Mongo shape and come back equal. (A small generator of this
/// suite's own, until the shared store generator lands.)
@Suite struct MongoPropertyTests {
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func string(_ rng: inout SplitMix) -> String {
        let pieces = ["a", "Z", "0", " ", "\"", "\\", "\n", "\t", "é", "ß", "日本", "🎉", "\u{2028}", "$", ".", "{", "}", "\u{0001}"]
        return (0..<Int.random(in: 0...8, using: &rng)).map { _ in pieces.randomElement(using: &rng) ?? "" }.joined()
    }

    static func date(_ rng: inout SplitMix) -> Date {
        // Milliseconds from year 1 to 9999 and a little beyond on both sides of 1970.
        Date(timeIntervalSince1970: Double(Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &rng)) / 1000)
    }

    static func point(_ rng: inout SplitMix) -> ParseGeoPoint {
        ParseGeoPoint(latitude: Double.random(in: -90...90, using: &rng), longitude: Double.random(in: -180...180, using: &rng))
    }

    static func value(_ rng: inout SplitMix, depth: Int, top: Bool) -> ParseValue {
        switch Int.random(in: 0...(depth > 0 ? 15 : 12), using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .int(Int64.random(in: .min ... .max, using: &rng))
        case 3: return .int(Int64.random(in: -1000...1000, using: &rng))
        case 4: return .double([0.5, -0.0, 3, 1e300, -2.5e-300, Double.random(in: -1e9...1e9, using: &rng)].randomElement(using: &rng) ?? 0)
        case 5: return .string(string(&rng))
        case 6: return .date(date(&rng))
        case 7: return .bytes(Data((0..<Int.random(in: 0...12, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        case 8: return .pointer(ParsePointer(className: ["_User", "Post", "Gone"].randomElement(using: &rng) ?? "Post", objectId: "id\(Int.random(in: 0...20, using: &rng))"))
        case 9: return .file(ParseFile(name: "tfss-\(Int.random(in: 0...99, using: &rng)).png", url: top ? nil : "http://f/x.png"))
        case 10: return .geoPoint(point(&rng))
        case 11:
            return .polygon(ParsePolygon(coordinates: [point(&rng), point(&rng), point(&rng), point(&rng)].enumerated().map { i, p in
                ParseGeoPoint(latitude: p.latitude, longitude: Double(i) + p.longitude / 1000)  // distinct first and last
            }))
        case 12: return .string("plain")
        case 13, 14:
            return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in value(&rng, depth: depth - 1, top: false) })
        default:
            var members: OrderedDictionary<String, ParseValue> = [:]
            for i in 0..<Int.random(in: 0...4, using: &rng) { members["k\(i)_\(Int.random(in: 0...9, using: &rng))"] = value(&rng, depth: depth - 1, top: false) }
            return .object(members)
        }
    }

    static func acl(_ rng: inout SplitMix) -> ParseACL? {
        guard Bool.random(using: &rng) else { return nil }
        var acl = ParseACL()
        for key in ["*", "u1", "role:Admin", "u2"].shuffled(using: &rng).prefix(Int.random(in: 0...4, using: &rng)) {
            let r = Bool.random(using: &rng)
            acl.set(.init(read: r, write: !r || Bool.random(using: &rng)), for: key)
        }
        return acl
    }

    static func store(seed: Int) throws -> MemoryStore {
        var rng = SplitMix(state: UInt64(truncatingIfNeeded: seed))
        var objects: [ParseObject] = []
        var rows: [ParseJoinRow] = []
        for className in ["Post", "_User", "Thing"] {
            for n in 0..<Int.random(in: 0...6, using: &rng) {
                var fields: OrderedDictionary<String, ParseValue> = [:]
                // A field keeps one type across the class (Parse locks it in, and the Mongo
                // shape tells File, GeoPoint and Polygon columns by the schema's type).
                for f in 0..<Int.random(in: 0...8, using: &rng) {
                    let v = value(&rng, depth: 2, top: true)
                    fields["\(v.schemaTypeName ?? "Null")\(f)"] = v
                }
                if className == "Post" { fields["likes"] = .relation(className: "_User") }
                if className == "_User", Bool.random(using: &rng) {
                    fields["bcryptPassword"] = .string("$2a$10$" + string(&rng))
                    fields["authData"] = .object(["facebook": .object(["id": .string("\(n)")])])
                    fields["sessionToken"] = .string("r:\(n)")
                }
                let id = Int.random(in: 0...3, using: &rng) == 0 && className == "Thing" ? nil : "id\(n)"
                objects.append(try ParseObject(
                    className: className, objectId: id, createdAt: Bool.random(using: &rng) ? date(&rng) : nil,
                    updatedAt: date(&rng), acl: acl(&rng), fields: fields))
                if className == "Post" {
                    for r in 0..<Int.random(in: 0...2, using: &rng) { rows.append(ParseJoinRow(owningId: "id\(n)", relatedId: "id\(r)")) }
                }
            }
        }
        return MemoryStore(objects: objects, joinRows: rows.isEmpty ? [:] : [ParseRelationKey(owningClass: "Post", field: "likes", targetClass: "_User"): rows])
    }

    @Test func randomStoresRoundTrip() async {
        await propertyCheck(count: 60, input: Gen.int(in: 0...Int.max)) { seed in
            let scratch = try MongoScratch()
            defer { scratch.cleanup() }
            let source = try Self.store(seed: seed)
            let store = MongoShapeStore(directory: scratch.dump)
            try copyAll(source, into: store)
            for name in try source.classNames() {
                expectSameObjects(try store.objects(in: name), try source.objects(in: name), "seed \(seed), class \(name)")
            }
            for relation in try source.relations() {
                #expect(try store.joinRows(of: relation) == source.joinRows(of: relation), "seed \(seed)")
            }
        }
    }
}
