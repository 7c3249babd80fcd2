import Foundation
import OrderedCollections
import PFCore
import PFParse
import PFStoreTestSupport
import PFStores
import PFTestSupport
import Testing

@testable import PFPostgresStore

/// The PostgreSQL server the tests use: `PFARCHIVE_POSTGRES_URL` (scripts/test.sh starts one
/// with scripts/postgres.sh and exports it), or the server `scripts/postgres.sh start` left
/// running. Without either, the suites are skipped with that reason.
enum TestServer {
    static let url: String? = {
        if let url = ProcessInfo.processInfo.environment["PFARCHIVE_POSTGRES_URL"], !url.isEmpty { return url }
        // A server started by hand with scripts/postgres.sh start, when it still answers.
        guard let url = PostgresTestServer.configuredURL else { return nil }
        return (try? PostgresStore.open(url: url)).map { store in store.close(); return url }
    }()

    static let skipReason: Comment =
        "no PostgreSQL server: PFARCHIVE_POSTGRES_URL is not set and scripts/postgres.sh has none running (scripts/test.sh starts one)"

    static var available: Bool {
        if url == nil { _ = Self.reportSkip }
        return url != nil
    }

    private static let reportSkip: Void = {
        FileHandle.standardError.write(Data("PFPostgresStoreTests: skipping the server tests — \(skipReason)\n".utf8))
    }()

    /// Runs `body` with the URL of a new, empty database that is dropped afterwards.
    static func withDatabase<T>(_ body: (String) throws -> T) throws -> T {
        guard let server = url else { throw PFError(.usage, format: .postgres, "\(skipReason)") }
        let name = "pfa_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try PostgresStore.createDatabase(named: name, serverURL: server)
        defer { try? PostgresStore.dropDatabase(named: name, serverURL: server) }
        return try body(try PostgresURL(server).with(database: name).urlWithPassword)
    }
}

/// Copies a whole store into a writer in batches, in one transaction (what `pfarchive import` does).
func copy(_ source: some ObjectStoreReader, into destination: some ObjectStoreWriter, batch: Int = 7) throws(PFError) {
    try destination.begin(schema: source.schema())
    do {
        for className in try source.classNames() {
            var pending: [ParseObject] = []
            try source.forEachObject(in: className) { (object) throws(PFError) in
                pending.append(object)
                if pending.count == batch {
                    try destination.write(pending, className: className)
                    pending.removeAll()
                }
            }
            try destination.write(pending, className: className)
        }
        for relation in try source.relations() {
            try destination.write(try source.joinRows(of: relation), relation: relation)
        }
        try destination.commit()
    } catch {
        destination.abort()
        throw error
    }
}

/// The objects of a class by id.
func objectsById(_ store: some ObjectStoreReader, _ className: String) throws -> [String: ParseObject] {
    var out: [String: ParseObject] = [:]
    for object in try store.objects(in: className) { out[object.objectId ?? ""] = object }
    return out
}

/// What reading an object back from PostgreSQL gives, by the documented mapping: File URLs and
/// null fields dropped, ACL entries in `_rperm` then `_wperm` order, every Relation field of the
/// schema present, JSON object keys in jsonb's order (compared as sets by ``sameValue``).
func expectedAfterPostgres(_ object: ParseObject, schema: ParseSchema) throws -> ParseObject {
    var fields = OrderedDictionary<String, ParseValue>()
    for (key, value) in object.fields {
        switch value {
        case .null: continue
        case .file(let f): fields[key] = .file(ParseFile(name: f.name))
        case .embedded(let o): fields[key] = .pointer(ParsePointer(className: o.className, objectId: o.objectId ?? ""))
        default: fields[key] = value
        }
    }
    for (name, field) in schema.classes[object.className] ?? [:] where field.type == .relation {
        if let target = field.targetClass { fields[name] = .relation(className: target) }
    }
    var acl: ParseACL?
    if let original = object.acl {
        var entries = OrderedDictionary<String, ParseACL.Access>()
        for (k, a) in original.entries where a.read { entries[k, default: .init()].read = true }
        for (k, a) in original.entries where a.write { entries[k, default: .init()].write = true }
        acl = ParseACL(entries)
    }
    return try ParseObject(
        className: object.className, objectId: object.objectId, createdAt: object.createdAt, updatedAt: object.updatedAt,
        acl: acl, fields: fields)
}

/// A value as it comes back from a `jsonb` column: object keys in jsonb's order (shorter keys
/// first, then bytewise), nested too.
func jsonbOrdered(_ value: ParseValue) -> ParseValue {
    switch value {
    case .object(let d):
        let keys = d.keys.sorted { a, b in
            a.utf8.count != b.utf8.count ? a.utf8.count < b.utf8.count : Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
        }
        var out = OrderedDictionary<String, ParseValue>()
        for key in keys { out[key] = d[key].map(jsonbOrdered) }
        return .object(out)
    case .array(let items): return .array(items.map(jsonbOrdered))
    default: return value
    }
}

/// What a whole generated store reads back as from PostgreSQL: every object through
/// ``expectedAfterPostgres(_:schema:)``, JSON keys in jsonb's order, and top-level Numbers
/// through the documented kind rule (a field that held both integers and doubles reads
/// integral values within ±2^53 as integers; an integer beyond ±2^53 is rounded to a double).
func expectedStoreAfterPostgres(_ generated: GeneratedStore) throws -> MemoryStore {
    var kinds: [String: NumberKind] = [:]
    for object in generated.objects {
        for (key, value) in object.fields {
            let kind: NumberKind
            switch value {
            case .int: kind = .integer
            case .double: kind = .double
            default: continue
            }
            kinds[object.className + "." + key] = kind.merged(with: kinds[object.className + "." + key])
        }
    }
    var objects: [ParseObject] = []
    for object in generated.objects {
        let expected = try expectedAfterPostgres(object, schema: generated.schema)
        var fields = OrderedDictionary<String, ParseValue>()
        for (key, value) in expected.fields {
            switch value {
            case .int(let i): fields[key] = RowReader.number(Double(i), kind: kinds[object.className + "." + key])
            case .double(let d): fields[key] = RowReader.number(d, kind: kinds[object.className + "." + key])
            default: fields[key] = jsonbOrdered(value)
            }
        }
        objects.append(
            try ParseObject(
                className: expected.className, objectId: expected.objectId, createdAt: expected.createdAt,
                updatedAt: expected.updatedAt, acl: expected.acl, fields: fields))
    }
    return MemoryStore(objects: objects, joinRows: generated.joinRows, schema: generated.schema)
}

/// Values equal up to the order of JSON object keys (jsonb sorts them).
func sameValue(_ a: ParseValue, _ b: ParseValue) -> Bool {
    switch (a, b) {
    case (.object(let x), .object(let y)):
        return x.count == y.count && x.allSatisfy { key, value in y[key].map { sameValue(value, $0) } ?? false }
    case (.array(let x), .array(let y)):
        return x.count == y.count && zip(x, y).allSatisfy(sameValue)
    default:
        return a == b
    }
}

/// Objects equal up to the order of JSON object keys inside their fields.
func sameObject(_ a: ParseObject, _ b: ParseObject) -> Bool {
    a.className == b.className && a.objectId == b.objectId && a.createdAt == b.createdAt && a.updatedAt == b.updatedAt
        && a.acl == b.acl && a.fields.count == b.fields.count
        && a.fields.allSatisfy { key, value in b.fields[key].map { sameValue(value, $0) } ?? false }
}
