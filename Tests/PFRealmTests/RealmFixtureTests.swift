import Foundation
import OrderedCollections
import PFTestSupport
import Testing

@testable import PFRealm
import PFCore
import PFJSON

/// The real `.realm` files of `Tests/Fixtures/real/realm` (SOURCES.md there) against what
/// realm-core's own JSON dump printed for each (`NAME.expected.json`).
enum RealmFixtures {
    static let folder = Fixtures.real.appendingPathComponent("realm")
    /// Formats 20–24: read and compared with their expected dump.
    static let readable = [
        "core-upgrade_4_23", "js-bundled", "js-simple", "js-tools-default", "js-tools-dict", "kotlin-asset", "studio-asset_file",
        "swift-template-default-v0", "swift-template-default-v1", "swift-template-default-v2", "swift-template-default-v3",
        "swift-template-default-v4", "swift-template-default-v5",
    ]
    static func url(_ name: String) -> URL { folder.appendingPathComponent(name + ".realm") }

    /// The expected dump, parsed (realm-core writes raw control characters inside strings,
    /// which are escaped first).
    static func expected(_ name: String) throws -> OrderedDictionary<String, PFValue> {
        let raw = try Data(contentsOf: folder.appendingPathComponent(name + ".realm.expected.json"))
        var fixed: [UInt8] = []
        var inString = false
        var escaped = false
        for b in raw {
            if inString {
                if escaped {
                    escaped = false
                } else if b == UInt8(ascii: "\\") {
                    escaped = true
                } else if b == UInt8(ascii: "\"") {
                    inString = false
                } else if b < 0x20 {
                    fixed += Array(String(format: "\\u%04x", b).utf8)
                    continue
                }
            } else if b == UInt8(ascii: "\"") {
                inString = true
            }
            fixed.append(b)
        }
        guard case .dictionary(let d) = try JSONReader().read(Data(fixed)) else { throw RealmTestError("not an object") }
        return d
    }
}

struct RealmTestError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// Compares one of our values with the oracle's, by meaning.
func realmSame(_ ours: PFValue, _ theirs: PFValue, unordered: Bool = false) -> Bool {
    switch (ours, theirs) {
    case (.null, .null): return true
    case (.bool(let a), .bool(let b)): return a == b
    case (.int, _), (.double, _), (.uint, _):
        guard let a = ours.doubleValue, let b = theirs.doubleValue else { return false }
        return a == b || abs(a - b) <= 1e-6 * max(1, abs(b))
    case (.string(let a), .string(let b)): return a == b
    case (.data(let a), .string(let b)): return a.base64EncodedString() == b
    case (.date(let d), .string(let s)): return realmOracleDate(s).map { abs($0.timeIntervalSince1970 - d.timeIntervalSince1970) < 1e-6 } ?? false
    case (.array(let a), .array(let b)):
        guard a.count == b.count else { return false }
        if !unordered { return zip(a, b).allSatisfy { realmSame($0, $1) } }
        var left = b
        for x in a {
            guard let i = left.firstIndex(where: { realmSame(x, $0) }) else { return false }
            left.remove(at: i)
        }
        return true
    case (.dictionary(let a), .dictionary(let b)):
        guard Set(a.keys) == Set(b.keys) else { return false }
        return a.allSatisfy { k, v in b[k].map { realmSame(v, $0) } ?? false }
    default: return false
    }
}

/// realm-core's timestamp text, `1969-03-12 00:00:00` or `2016-05-06 02:01:27.955000000` (UTC).
func realmOracleDate(_ s: String) -> Date? {
    let parts = s.split(separator: ".")
    let f = DateFormatter()
    f.locale = Locale(identifier: "en_US_POSIX")
    f.timeZone = TimeZone(identifier: "UTC")
    f.dateFormat = "yyyy-MM-dd HH:mm:ss"
    guard let base = f.date(from: String(parts[0])) else { return nil }
    let nanos = parts.count > 1 ? (Double(parts[1]) ?? 0) / 1e9 : 0
    return base.addingTimeInterval(nanos)
}

@Suite("Realm fixtures") struct RealmFixtureTests {
    @Test(arguments: RealmFixtures.readable)
    func matchesRealmCoresDump(_ name: String) throws {
        let url = RealmFixtures.url(name)
        let before = try Data(contentsOf: url)
        let db = try RealmDatabase(url: url)
        guard case .dictionary(let ours) = try db.document(includeInternal: true) else { throw RealmTestError("no document") }
        let expected = try RealmFixtures.expected(name)
        for (className, theirs) in expected {
            guard let mine = ours[className] else {
                Issue.record("\(name): class \(className) missing; ours: \(Array(ours.keys))")
                continue
            }
            let table = try #require(db.table(named: className))
            let setColumns = Set(table.columns.filter { $0.collection == .set }.map(\.name))
            guard case .array(let a) = mine, case .array(let b) = theirs, a.count == b.count else {
                Issue.record("\(name).\(className): \(mine.arrayValue?.count ?? -1) objects, expected \(theirs.arrayValue?.count ?? -1)")
                continue
            }
            for (o, t) in zip(a, b) {
                guard case .dictionary(let od) = o, case .dictionary(let td) = t else { continue }
                #expect(Set(od.keys) == Set(td.keys), "\(name).\(className): fields \(Array(od.keys)) vs \(Array(td.keys))")
                for (field, tv) in td {
                    let ov = od[field] ?? .null
                    #expect(realmSame(ov, tv, unordered: setColumns.contains(field)), "\(name).\(className).\(field): \(ov) vs \(tv)")
                }
            }
        }
        // Every model class of ours is in the oracle's dump.
        for table in db.topLevelClasses { #expect(expected[table.name] != nil, "\(name): extra class \(table.name)") }
        #expect(try Data(contentsOf: url) == before)
    }
}
