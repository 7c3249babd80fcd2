import Foundation
import OrderedCollections
import PFCore
import PFKeyedArchive
import PropertyBased

/// Random Core Data stores for property tests, as ``CoreDataStoreBuilder`` entities: two to
/// four root entities whose attributes have random types (integers, doubles, strings,
/// booleans, dates, binary data, UUIDs, transformables holding keyed archives of dictionaries)
/// and names drawn from what real devices' stores use, Parse's forbidden ones included (a
/// leading `_`, dots, `$`, non-ASCII letters, reserved words, more than 63 bytes); rows with
/// NULLs; to-one relationships with their to-many inverses between random rows.
///
/// ```swift
/// await propertyCheck(input: CoreDataGen.store()) { entities in
///     try CoreDataStoreBuilder.write(entities, to: url)
/// }
/// ```
public enum CoreDataGen {
    /// A generator of stores.
    public static func store() -> Generator<[CoreDataStoreBuilder.Entity], Shrink.None<[CoreDataStoreBuilder.Entity]>> {
        Generator(run: { rng in make(rng: &rng) })
    }

    static let entityNames = ["Account", "Note", "Event", "Place", "Usage"]

    /// Attribute names real stores have (Parse forbids most of them).
    static let attributeNames = [
        "title", "count", "_DKApplicationActivityMetadataKey__contentDescription", "_private", "größe", "price$", "length",
        "com.apple.flag", "with space", "aVeryLongAttributeNameThatGoesOnAndOnPastSixtyThreeBytesOfPostgreSQL", "pf__lookalike",
        "zone", "identifier", "payload", "when",
    ]

    /// Keys inside transformable dictionaries.
    static let nestedKeys = [
        "com.apple.Dataclass.Availability", "com.apple.mobilenotes.SharingExtension", "a.b.c", "_leading", "plain", "x$y",
        "ünïcödé", "enabled",
    ]

    /// `NSAttributeType` codes: int16, int32, int64, double, string, boolean, date, binary,
    /// UUID, transformable.
    static let typeCodes: [Int64] = [100, 200, 300, 500, 700, 800, 900, 1000, 1100, 1800]

    static func make(rng: inout any SeededRandomNumberGenerator) -> [CoreDataStoreBuilder.Entity] {
        let count = Int.random(in: 2...4, using: &rng)
        let names = Array(entityNames.shuffled(using: &rng).prefix(count))
        var entities: [CoreDataStoreBuilder.Entity] = []
        var rowCounts: [String: Int] = [:]
        for name in names {
            var attributes: [CoreDataStoreBuilder.Attribute] = []
            var used = Set<String>()
            for _ in 0..<Int.random(in: 1...5, using: &rng) {
                guard let attribute = attributeNames.randomElement(using: &rng), used.insert(attribute.uppercased()).inserted else { continue }
                let code = typeCodes.randomElement(using: &rng) ?? 700
                attributes.append(.init(attribute, code, transformer: code == 1800 ? "NSSecureUnarchiveFromData" : nil))
            }
            let rows = Int.random(in: 0...5, using: &rng)
            rowCounts[name] = rows
            entities.append(.init(name: name, attributes: attributes, rows: (0..<rows).map { _ in
                var row: [String: CoreDataStoreBuilder.Value] = [:]
                for attribute in attributes where Int.random(in: 0..<6, using: &rng) > 0 {
                    row[attribute.name] = value(attribute.typeCode, rng: &rng)
                }
                return row
            }))
        }
        // A to-one from one entity to another (or itself), with its to-many inverse.
        if let from = names.randomElement(using: &rng), let to = names.randomElement(using: &rng),
            let i = entities.firstIndex(where: { $0.name == from }), let j = entities.firstIndex(where: { $0.name == to })
        {
            let forward = "owner", inverse = "_owned"
            entities[i].relationships.append(.init(forward, to: to, inverse: inverse))
            entities[j].relationships.append(.init(inverse, to: from, inverse: forward, toMany: true))
            let targets = rowCounts[to] ?? 0
            for r in entities[i].rows.indices where targets > 0 && Bool.random(using: &rng) {
                entities[i].rows[r][forward] = .object(to, Int64.random(in: 1...Int64(targets), using: &rng))
            }
        }
        return entities
    }

    static func value(_ code: Int64, rng: inout any SeededRandomNumberGenerator) -> CoreDataStoreBuilder.Value {
        switch code {
        case 100: return .integer(Int64.random(in: -32768...32767, using: &rng))
        case 200: return .integer(Int64.random(in: Int64(Int32.min)...Int64(Int32.max), using: &rng))
        case 300: return .integer([Int64.min, Int64.max, 0, -1, Int64.random(in: -1_000_000...1_000_000, using: &rng)].randomElement(using: &rng) ?? 0)
        case 500: return .real([0.1, -2.5, 1e300, Double.random(in: -1e9...1e9, using: &rng)].randomElement(using: &rng) ?? 0.5)
        case 800: return .integer(Int64.random(in: 0...1, using: &rng))
        // Seconds since 2001 to the millisecond: Parse's Date holds milliseconds.
        case 900: return .real(Double(Int64.random(in: -2_000_000_000_000...2_000_000_000_000, using: &rng)) / 1000)
        case 1000: return .blob(Data((0..<Int.random(in: 0...24, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        case 1100: return .blob(Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        case 1800:
            let archive = try? KeyedArchive.archive(try KeyedGraph(json: dictionary(depth: 0, rng: &rng)))
            return archive.map(CoreDataStoreBuilder.Value.blob) ?? .null
        default: return .text(text(rng: &rng))
        }
    }

    static func text(rng: inout any SeededRandomNumberGenerator) -> String {
        ["", "plain", "ünïcödé 日本 🎉", "quote ' and \" and \\", "line\nbreak", "a.b$c"].randomElement(using: &rng) ?? ""
    }

    /// A dictionary in the keyed graph's JSON shape (no key begins with `$`).
    static func dictionary(depth: Int, rng: inout any SeededRandomNumberGenerator) -> PFValue {
        var members = OrderedDictionary<String, PFValue>()
        for _ in 0..<Int.random(in: 0...4, using: &rng) {
            guard let key = nestedKeys.randomElement(using: &rng) else { continue }
            switch Int.random(in: 0..<(depth < 2 ? 6 : 4), using: &rng) {
            case 0: members[key] = .string(text(rng: &rng))
            case 1: members[key] = .int(Int64.random(in: -1000...1000, using: &rng))
            case 2: members[key] = .bool(Bool.random(using: &rng))
            case 3: members[key] = .double(Double.random(in: -10...10, using: &rng))
            case 4: members[key] = .array([dictionary(depth: depth + 1, rng: &rng), .string(text(rng: &rng))])
            default: members[key] = dictionary(depth: depth + 1, rng: &rng)
            }
        }
        return .dictionary(members)
    }
}
