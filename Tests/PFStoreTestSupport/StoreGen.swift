import Foundation
import OrderedCollections
import PFJSON
import PFParse
import PFStores
import PFTestSupport
import PropertyBased

// MARK: - What a generated store may hold

/// What the stores under test can carry, so one generator serves every store's round trips.
/// The defaults fit every store pfarchive writes (Parse export, SQLite, keyed archive,
/// Parse Server's Mongo and PostgreSQL shapes); a store that holds more turns options on.
public struct StoreShape: Sendable {
    /// Custom classes besides `_User` and `_Role` (between 1 and this many).
    public var maxCustomClasses = 3
    /// Objects per class (between 0 and this many; a class may be empty).
    public var maxObjectsPerClass = 6
    /// Fields per custom class.
    public var maxFieldsPerClass = 7
    /// Nesting depth of Array and Object values.
    public var maxValueDepth = 2
    /// Whether strings may contain U+0000 (PostgreSQL text cannot).
    public var nulInStrings = false
    /// Whether rows carry their Relation fields as `{"__type":"Relation","className":…}`
    /// values, as Parse.com exports do (parse-server's databases keep them only in the schema).
    public var relationValuesInObjects = true
    /// Whether pointers may name objects that do not exist (a deleted target).
    public var danglingPointers = true
    /// Whether a Number field may hold integral doubles such as `3.0` (which must stay doubles).
    public var integralDoubles = true
    /// Whether objects may have no ACL, or an empty ACL `{}`.
    public var missingAndEmptyACLs = true
    /// Whether field names and nested keys may be names that Parse, Mongo or PostgreSQL
    /// forbid, as real Core Data stores and odd exporters have them: a leading `_`, dots,
    /// `$`, non-ASCII letters, reserved words, more than 63 bytes.
    public var forbiddenNames = false

    public init() {}

    /// Everything a Parse export can carry.
    public static var parseExport: StoreShape {
        var s = StoreShape()
        s.nulInStrings = true
        return s
    }
}

/// A generated store: objects of several classes, join rows and the schema that describes
/// them. A value type (so property tests can hand it around); ``memoryStore(location:)``
/// makes the ``MemoryStore`` to test against.
public struct GeneratedStore: Sendable, CustomStringConvertible {
    /// Every object, class by class.
    public var objects: [ParseObject]
    /// The join rows per relation.
    public var joinRows: [ParseRelationKey: [ParseJoinRow]]
    /// The schema: every class (empty ones too), every field with its type.
    public var schema: ParseSchema

    /// A memory store holding the objects, join rows and schema.
    public func memoryStore(location: String = "generated") -> MemoryStore {
        MemoryStore(location: location, objects: objects, joinRows: joinRows, schema: schema)
    }

    /// The class names, schema order.
    public var classNames: [String] { Array(schema.classes.keys) }

    public var description: String {
        var lines: [String] = []
        for (name, fields) in schema.classes {
            let count = objects.lazy.filter { $0.className == name }.count
            lines.append("\(name) (\(count) objects): " + fields.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
        }
        for (key, rows) in joinRows.sorted(by: { $0.key < $1.key }) { lines.append("\(key): \(rows.count) rows") }
        let sample = objects.prefix(3).map { object -> String in
            let data = try? JSONWriter().write(object.restValue)
            return data.map { String(decoding: $0, as: UTF8.self) } ?? "\(object)"
        }
        return (lines + sample).joined(separator: "\n")
    }
}

// MARK: - The generator

/// Random small Parse stores for property tests: `_User` (with `bcryptPassword`, `authData`,
/// email), `_Role` (with its `users` and `roles` relations) and a few custom classes whose
/// fields cover every ``ParseValue`` type — unicode strings, integers and doubles kept apart,
/// booleans, null, dates to the millisecond, bytes, pointers to other generated objects (some
/// dangling), files, GeoPoints, polygons, arrays and nested objects — with ACLs naming user
/// ids, `*` and `role:<Name>`, Relation fields with join rows, and a matching schema.
public enum StoreGen {
    /// A generator of stores that fit `shape`.
    public static func store(_ shape: StoreShape = StoreShape()) -> Generator<GeneratedStore, Shrink.None<GeneratedStore>> {
        Generator(run: { rng in make(shape, rng: &rng) })
    }

    /// One store from a seed (for tests that need a fixed store, and for benchmarks).
    public static func store(_ shape: StoreShape = StoreShape(), seed: UInt64) -> GeneratedStore {
        var rng: any SeededRandomNumberGenerator = seeded(seed)
        return make(shape, rng: &rng)
    }

    static let customClassPool = ["Post", "Comment", "GameScore", "Tag", "Player_2", "Item", "Photo", "Venue"]
    static let fieldTypePool = [
        "String", "String", "Number", "Number", "Boolean", "Date", "Bytes", "Pointer", "Pointer", "File", "GeoPoint",
        "Polygon", "Array", "Array", "Object", "Relation",
    ]

    /// One class's design: its fields' types.
    struct ClassPlan {
        var name: String
        var fields: OrderedDictionary<String, ParseSchema.Field>
        var ids: [String]
    }

    static func make(_ shape: StoreShape, rng: inout any SeededRandomNumberGenerator) -> GeneratedStore {
        // Classes and their ids first, so pointers and join rows can name real objects.
        var plans: [ClassPlan] = []
        let customCount = Int.random(in: 1...max(1, shape.maxCustomClasses), using: &rng)
        let customNames = Array(customClassPool.shuffled(using: &rng).prefix(customCount))
        var usedIds = Set<String>()
        func ids(_ n: Int, rng: inout any SeededRandomNumberGenerator) -> [String] {
            var out: [String] = []
            while out.count < n {
                let id = objectId(rng: &rng)
                if usedIds.insert(id).inserted { out.append(id) }
            }
            return out
        }
        let userCount = Int.random(in: 0...shape.maxObjectsPerClass, using: &rng)
        plans.append(ClassPlan(name: "_User", fields: [
            "username": .init(.string), "email": .init(.string), "emailVerified": .init(.boolean),
            "bcryptPassword": .init(.string), "authData": .init(.object),
        ], ids: ids(userCount, rng: &rng)))
        plans.append(ClassPlan(name: "_Role", fields: [
            "name": .init(.string), "users": .init(.relation, targetClass: "_User"),
            "roles": .init(.relation, targetClass: "_Role"),
        ], ids: ids(Int.random(in: 0...min(3, shape.maxObjectsPerClass), using: &rng), rng: &rng)))
        let allClasses = ["_User", "_Role"] + customNames
        for name in customNames {
            var fields = OrderedDictionary<String, ParseSchema.Field>()
            let fieldCount = Int.random(in: 1...max(1, shape.maxFieldsPerClass), using: &rng)
            for i in 0..<fieldCount {
                let type = fieldTypePool.randomElement(using: &rng) ?? "String"
                var fieldName = fieldNameFor(type: type, index: i, rng: &rng)
                if shape.forbiddenNames, type != "Relation", Int.random(in: 0..<3, using: &rng) == 0 {
                    fieldName = forbiddenFieldNames.randomElement(using: &rng) ?? "_x"
                    if fields[fieldName] != nil { fieldName += "\(i)" }
                }
                let target = type == "Pointer" || type == "Relation" ? allClasses.randomElement(using: &rng) : nil
                fields[fieldName] = ParseSchema.Field(ParseFieldType(rawValue: type), targetClass: target)
            }
            plans.append(ClassPlan(name: name, fields: fields,
                                   ids: ids(Int.random(in: 0...shape.maxObjectsPerClass, using: &rng), rng: &rng)))
        }
        let idsByClass = Dictionary(uniqueKeysWithValues: plans.map { ($0.name, $0.ids) })
        let roleNames = plans[1].ids.indices.map { "Role\($0)" }
        let context = Context(shape: shape, idsByClass: idsByClass, userIds: plans[0].ids, roleNames: roleNames,
                              classNames: allClasses)

        var objects: [ParseObject] = []
        var joinRows: [ParseRelationKey: [ParseJoinRow]] = [:]
        var schema = ParseSchema()
        for plan in plans {
            schema.classes[plan.name] = plan.fields
            for (index, id) in plan.ids.enumerated() {
                var fields = OrderedDictionary<String, ParseValue>()
                for (name, field) in plan.fields {
                    if field.type == .relation {
                        if shape.relationValuesInObjects, Int.random(in: 0..<4, using: &rng) > 0 {
                            fields[name] = .relation(className: field.targetClass ?? "_User")
                        }
                        continue
                    }
                    let value: ParseValue?
                    switch (plan.name, name) {
                    case ("_User", "username"): value = .string("user\(index)_" + string(context, rng: &rng))
                    case ("_User", "email"): value = Bool.random(using: &rng) ? .string("u\(index)@example.com") : nil
                    case ("_User", "bcryptPassword"):
                        value = .string("$2a$10$" + String((0..<53).map { _ in bcryptAlphabet.randomElement(using: &rng) ?? "a" }))
                    case ("_User", "authData"): value = Bool.random(using: &rng) ? authData(rng: &rng) : nil
                    case ("_Role", "name"): value = .string(roleNames[index])
                    default:
                        switch Int.random(in: 0..<20, using: &rng) {
                        case 0: value = .null
                        case 1, 2: value = nil
                        default: value = self.value(of: field, context, rng: &rng)
                        }
                    }
                    if let value { fields[name] = value }
                }
                let created = date(rng: &rng)
                let updated = Bool.random(using: &rng) ? created : Date(timeIntervalSince1970: created.timeIntervalSince1970 + Double(Int.random(in: 1...10_000_000, using: &rng)) / 1000)
                let object = try? ParseObject(
                    className: plan.name, objectId: id, createdAt: created,
                    updatedAt: Int.random(in: 0..<10, using: &rng) == 0 ? nil : updated,
                    acl: acl(context, rng: &rng), fields: fields)
                if let object { objects.append(object) }
            }
            for (name, field) in plan.fields where field.type == .relation {
                let targets = idsByClass[field.targetClass ?? ""] ?? []
                var rows = OrderedSet<ParseJoinRow>()
                for owner in plan.ids where Bool.random(using: &rng) {
                    for _ in 0..<Int.random(in: 0...3, using: &rng) {
                        let related: String
                        if let t = targets.randomElement(using: &rng), Int.random(in: 0..<6, using: &rng) > 0 || !shape.danglingPointers {
                            related = t
                        } else if shape.danglingPointers {
                            related = objectId(rng: &rng)
                        } else {
                            continue
                        }
                        rows.append(ParseJoinRow(owningId: owner, relatedId: related))
                    }
                }
                if !rows.isEmpty {
                    joinRows[ParseRelationKey(owningClass: plan.name, field: name, targetClass: field.targetClass)] = Array(rows)
                }
            }
        }
        return GeneratedStore(objects: objects, joinRows: joinRows, schema: schema)
    }

    struct Context {
        var shape: StoreShape
        var idsByClass: [String: [String]]
        var userIds: [String]
        var roleNames: [String]
        var classNames: [String]
    }

    // MARK: Pieces

    static let idAlphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    static let bcryptAlphabet = Array("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// A Parse-style 10-character objectId.
    static func objectId(rng: inout any SeededRandomNumberGenerator) -> String {
        String((0..<10).map { _ in idAlphabet.randomElement(using: &rng) ?? "a" })
    }

    /// Field names real stores hold and Parse, Mongo or PostgreSQL forbid (an index follows).
    static let forbiddenFieldNames = [
        "_DKApplicationActivityMetadataKey__contentDescription", "_private", "com.apple.Dataclass.Availability",
        "price$", "ünïcödé", "with space", "length", "className", "1stPlace",
        "aVeryLongAttributeNameThatGoesOnAndOnPastSixtyThreeBytesOfPostgreSQLIdentifier",
    ]

    /// Nested keys (inside Object values) that Parse and Mongo forbid.
    static let forbiddenNestedKeys = [
        "com.apple.Dataclass.Availability", "com.apple.mobilenotes.SharingExtension", "$top", "a.b.c", "_leading", "$",
        ".",
    ]

    static func fieldNameFor(type: String, index: Int, rng: inout any SeededRandomNumberGenerator) -> String {
        let stems = ["title", "score", "owner", "tags", "when", "blob", "place", "area", "meta", "likes", "photo", "x"]
        let stem = stems.randomElement(using: &rng) ?? "f"
        return "\(stem)\(type)\(index)"
    }

    /// Whole milliseconds between 1900 and 2100 (mostly after 1970).
    static func date(rng: inout any SeededRandomNumberGenerator) -> Date {
        let millis = Int.random(in: 0..<10, using: &rng) == 0
            ? Int64.random(in: -2_208_988_800_000...0, using: &rng)
            : Int64.random(in: 0...4_102_444_800_000, using: &rng)
        return Date(timeIntervalSince1970: Double(millis) / 1000)
    }

    static func string(_ context: Context, rng: inout any SeededRandomNumberGenerator) -> String {
        var shape = ValueShape()
        shape.nulInStrings = context.shape.nulInStrings
        return ValueGen.string(shape, rng: &rng)
    }

    static func double(_ context: Context, rng: inout any SeededRandomNumberGenerator) -> Double {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: return context.shape.integralDoubles ? Double(Int.random(in: -100...100, using: &rng)) : 0.5
        case 1: return [0.1, -1.5, 1e-7, 1e21, 123456.789, 1.0 / 3.0, 5e-324, 1.7976931348623157e308].randomElement(using: &rng) ?? 0.1
        default: return Double.random(in: -1e6...1e6, using: &rng)
        }
    }

    static func geoPoint(rng: inout any SeededRandomNumberGenerator) -> ParseGeoPoint {
        ParseGeoPoint(latitude: Double.random(in: -90...90, using: &rng), longitude: Double.random(in: -180...180, using: &rng))
    }

    static func pointer(to target: String?, _ context: Context, rng: inout any SeededRandomNumberGenerator) -> ParseValue {
        let className = target ?? context.classNames.randomElement(using: &rng) ?? "_User"
        let ids = context.idsByClass[className] ?? []
        if let id = ids.randomElement(using: &rng), !context.shape.danglingPointers || Int.random(in: 0..<5, using: &rng) > 0 {
            return .pointer(ParsePointer(className: className, objectId: id))
        }
        // A dangling pointer: the target was deleted (or never existed).
        return .pointer(ParsePointer(className: className, objectId: objectId(rng: &rng)))
    }

    static func value(of field: ParseSchema.Field, _ context: Context, rng: inout any SeededRandomNumberGenerator) -> ParseValue {
        switch field.type {
        case .string: return .string(string(context, rng: &rng))
        case .number:
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: return .int(ValueGen.boundaryIntegers.randomElement(using: &rng) ?? 0)
            case 1: return .int(Int64.random(in: -1000...1000, using: &rng))
            default: return .double(double(context, rng: &rng))
            }
        case .boolean: return .bool(Bool.random(using: &rng))
        case .date: return .date(date(rng: &rng))
        case .bytes:
            let count = [0, 1, 2, 3, 16, 57].randomElement(using: &rng) ?? 0
            return .bytes(Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        case .pointer: return pointer(to: field.targetClass, context, rng: &rng)
        case .file:
            let name = "tfss-\(objectId(rng: &rng))-" + (["photo.png", "a b.txt", "日本.jpg"].randomElement(using: &rng) ?? "f")
            let url = Bool.random(using: &rng) ? "https://files.example.com/app/\(name)" : nil
            return .file(ParseFile(name: name, url: url))
        case .geoPoint: return .geoPoint(geoPoint(rng: &rng))
        case .polygon:
            return .polygon(ParsePolygon(coordinates: (0..<Int.random(in: 3...6, using: &rng)).map { _ in geoPoint(rng: &rng) }))
        case .array: return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in anyValue(context, depth: 1, rng: &rng) })
        case .object: return object(context, depth: 1, rng: &rng)
        default: return .null
        }
    }

    /// Any value, for array elements and nested object members.
    static func anyValue(_ context: Context, depth: Int, rng: inout any SeededRandomNumberGenerator) -> ParseValue {
        let nested = depth < context.shape.maxValueDepth
        switch Int.random(in: 0..<(nested ? 14 : 12), using: &rng) {
        case 0: return .null
        case 1: return value(of: .init(.boolean), context, rng: &rng)
        case 2, 3: return value(of: .init(.number), context, rng: &rng)
        case 4, 5: return .string(string(context, rng: &rng))
        case 6: return value(of: .init(.date), context, rng: &rng)
        case 7: return value(of: .init(.bytes), context, rng: &rng)
        case 8: return pointer(to: nil, context, rng: &rng)
        case 9: return value(of: .init(.geoPoint), context, rng: &rng)
        case 10: return value(of: .init(.file), context, rng: &rng)
        case 11: return value(of: .init(.number), context, rng: &rng)
        case 12: return .array((0..<Int.random(in: 0...3, using: &rng)).map { _ in anyValue(context, depth: depth + 1, rng: &rng) })
        default: return object(context, depth: depth + 1, rng: &rng)
        }
    }

    static func object(_ context: Context, depth: Int, rng: inout any SeededRandomNumberGenerator) -> ParseValue {
        var members = OrderedDictionary<String, ParseValue>()
        for i in 0..<Int.random(in: 0...4, using: &rng) {
            // Nested keys may be any text but `$`, `.` (Parse reserves them) and `__type`. They
            // are replaced scalar by scalar: a `$` followed by a combining mark is one Character
            // that a Character-wise replacement misses (seed 1RCfn0epjNDApxK4OMC0m/DW0NTouRE8kNIW067r+7E=).
            var key = String(String.UnicodeScalarView(string(context, rng: &rng).unicodeScalars.map { scalar -> Unicode.Scalar in
                scalar == "$" ? "S" : scalar == "." ? "_" : scalar
            }))
            if context.shape.forbiddenNames, Bool.random(using: &rng) {
                key = forbiddenNestedKeys.randomElement(using: &rng) ?? "a.b"
            }
            if key == "__type" || members[key] != nil { key += "#\(i)" }
            members[key] = anyValue(context, depth: depth, rng: &rng)
        }
        return .object(members)
    }

    static func authData(rng: inout any SeededRandomNumberGenerator) -> ParseValue {
        var providers = OrderedDictionary<String, ParseValue>()
        if Bool.random(using: &rng) {
            providers["facebook"] = .object(["id": .string(String(Int64.random(in: 1...Int64(1e15), using: &rng))),
                                             "access_token": .string(objectId(rng: &rng) + objectId(rng: &rng)),
                                             "expiration_date": .string("2016-01-22T18:53:53.000Z")])
        }
        if Bool.random(using: &rng) || providers.isEmpty {
            providers["anonymous"] = .object(["id": .string(UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")?.uuidString.lowercased() ?? "x")])
        }
        return .object(providers)
    }

    static func acl(_ context: Context, rng: inout any SeededRandomNumberGenerator) -> ParseACL? {
        let roll = Int.random(in: 0..<10, using: &rng)
        if context.shape.missingAndEmptyACLs {
            if roll == 0 { return nil }
            if roll == 1 { return ParseACL() }
        }
        var acl = ParseACL()
        if Bool.random(using: &rng) { acl.setPublic(.init(read: true, write: Int.random(in: 0..<4, using: &rng) == 0)) }
        for _ in 0..<Int.random(in: 0...2, using: &rng) {
            let user = context.userIds.randomElement(using: &rng) ?? objectId(rng: &rng)
            acl.set(.init(read: true, write: true), for: user)
        }
        if let role = context.roleNames.randomElement(using: &rng), Bool.random(using: &rng) {
            acl.set(.init(read: Bool.random(using: &rng), write: true), forRole: role)
        }
        if acl.entries.isEmpty { acl.setPublic(.init(read: true)) }
        return acl
    }
}

// MARK: - Seeding

extension StoreGen {
    /// PropertyBased's xoshiro256** with its four words spread from one seed by splitmix64.
    static func seeded(_ seed: UInt64) -> Xoshiro {
        var x = seed
        func next() -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        return Xoshiro(seed: (next(), next(), next(), next()))
    }
}
