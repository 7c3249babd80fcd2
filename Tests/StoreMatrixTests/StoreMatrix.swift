import Foundation
import OrderedCollections
import PFCore
import PFParse
import PFPostgresStore
import PFSQLiteStore
import PFStoreTestSupport
import PFStores
import PFTestSupport

/// The store matrix: every source kind into every destination kind, then back to a Parse
/// export, compared object by object and join row by join row with what the input holds.
///
/// Stores are opened and imported exactly as `pfarchive import` does (``StoreOpeners`` with the
/// SQLite and PostgreSQL kinds registered, then ``StoreImporter``), so what passes here is what
/// a user's import does.
enum StoreMatrix {
    /// The kinds a store can be written as, in the order the matrix walks them.
    enum Kind: String, CaseIterable, CustomStringConvertible {
        case exportDirectory = "export"
        case exportZip = "zip"
        case sqlite
        case keyedArchive = "archive"
        case mongo
        case jsonLines = "ndjson"
        case postgres

        var description: String { rawValue }

        /// A new place of this kind named `stem` under `root`; PostgreSQL gets a new database.
        func place(_ stem: String, under root: URL, databases: inout [String]) throws -> String? {
            switch self {
            case .exportDirectory: return root.appendingPathComponent(stem).path
            case .exportZip: return root.appendingPathComponent(stem + ".zip").path
            case .sqlite: return root.appendingPathComponent(stem + ".sqlite").path
            case .keyedArchive: return root.appendingPathComponent(stem + ".archive").path
            case .mongo: return root.appendingPathComponent(stem + ".jsonl").path
            case .jsonLines: return root.appendingPathComponent(stem + ".ndjson").path
            case .postgres:
                guard let server = MatrixServer.url else { return nil }
                let name = "pfa_mx_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)
                try PostgresStore.createDatabase(named: String(name), serverURL: server)
                databases.append(String(name))
                return try PostgresURL(server).with(database: String(name)).urlWithPassword
            }
        }
    }

    /// The openers `pfarchive import` uses.
    static let openers: StoreOpeners = {
        var openers = StoreOpeners.standard(readerThreads: 1)
        SQLiteStore.register(in: &openers)
        openers.register(
            .postgres,
            reader: { (location: StoreLocation) throws(PFError) -> any ObjectStoreReader in try PostgresStore.open(url: location.argument) },
            writer: { (location: StoreLocation) throws(PFError) -> any ObjectStoreWriter in try PostgresStore.open(url: location.argument) })
        return openers
    }()

    /// Imports one store argument into another, as `pfarchive import SOURCE DEST` does.
    @discardableResult
    static func importStore(_ source: String, into destination: String) throws -> StoreImporter.Report {
        let reader = try openers.reader(for: StoreLocation.resolve(source))
        defer { reader.close() }
        let writer = try openers.writer(for: StoreLocation.resolve(destination))
        return try StoreImporter(options: .init(batchSize: 3)).run(from: reader, to: writer)
    }

    /// Reads a whole store into memory, normalized by ``normalized(_:numberKinds:)``.
    static func read(_ argument: String, numberKinds: [String: NumberRule]?) throws -> MemoryStore {
        let reader = try openers.reader(for: StoreLocation.resolve(argument))
        defer { reader.close() }
        return try normalized(reader, numberKinds: numberKinds)
    }

    /// A store's declared schema, as `pfarchive import` reads it.
    static func schema(of argument: String) throws -> ParseSchema {
        let reader = try openers.reader(for: StoreLocation.resolve(argument))
        defer { reader.close() }
        return try reader.schema()
    }

    /// Runs the matrix for one input store and returns every difference found (empty when
    /// nothing was lost anywhere).
    /// - Parameters:
    ///   - input: the input store argument (an export directory, a Core Data store, …).
    ///   - inputKind: the input's own kind when it is one of the matrix's (it then serves as
    ///     that source itself); `nil` for a read-only kind such as Core Data, which is a
    ///     source of its own beside the six.
    ///   - expected: what the input holds, as a lossless reader gives it.
    ///   - sources: the kinds the input is imported into to serve as further sources (all by
    ///     default; the input itself is always a source).
    ///   - destinations: the destination kinds (all by default).
    ///   - model: a schema whose fields every destination, and the Parse export read back
    ///     from it, must declare with the same type and model flags (required, indexed,
    ///     primary key, embedded class), compared strictly (``PFParse/ParseSchema/modelDifferences(from:extraFields:)``);
    ///     `nil` to compare the objects only.
    static func differences(
        input: String, inputKind: Kind?, expected: any ObjectStoreReader, sources sourceKinds: [Kind] = Kind.allCases,
        destinations: [Kind] = Kind.allCases, model: ParseSchema? = nil
    ) throws -> [String] {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pf-matrix-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        var databases: [String] = []
        defer {
            try? FileManager.default.removeItem(at: root)
            if let server = MatrixServer.url { for name in databases { try? PostgresStore.dropDatabase(named: name, serverURL: server) } }
        }
        let kinds = numberKinds(try normalized(expected, numberKinds: nil))
        let exact = try normalized(expected, numberKinds: nil)
        let afterPostgres = try normalized(expected, numberKinds: kinds)

        var failures: [String] = []
        // The sources: the input itself, and the input imported into every kind.
        var sources: [(label: String, kind: Kind?, argument: String)] = [("input", inputKind, input)]
        for kind in sourceKinds where kind != inputKind {
            guard let place = try kind.place("source-\(kind)", under: root, databases: &databases) else { continue }
            do {
                try importStore(input, into: place)
                sources.append((String(describing: kind), kind, place))
            } catch {
                failures.append("input → \(kind): \(error)")
            }
        }
        for source in sources {
            for destination in destinations where destination != source.kind {
                let label = "\(source.label) → \(destination) → export"
                guard let place = try destination.place("\(source.label)-\(destination)", under: root, databases: &databases)
                else { continue }
                let back = root.appendingPathComponent("\(source.label)-\(destination)-back").path
                do {
                    try importStore(source.argument, into: place)
                    if let model {
                        for diff in model.modelDifferences(from: try schema(of: place), extraFields: false) {
                            failures.append("\(source.label) → \(destination) (its schema): \(diff)")
                        }
                    }
                    try importStore(place, into: back)
                    if let model {
                        for diff in model.modelDifferences(from: try schema(of: back), extraFields: false) {
                            failures.append("\(label) (its schema): \(diff)")
                        }
                    }
                    let throughPostgres = source.kind == .postgres || destination == .postgres
                    let actual = try read(back, numberKinds: throughPostgres ? kinds : nil)
                    if let diff = try StoreComparison.firstDifference(
                        expected: throughPostgres ? afterPostgres : exact, actual: actual, schema: .covers)
                    {
                        failures.append("\(label): \(diff)")
                    }
                } catch {
                    failures.append("\(label): \(error)")
                }
            }
        }
        return failures
    }

    // MARK: - What every store keeps

    /// How a Number field reads back from PostgreSQL (Docs/Stores.md, "Numbers").
    enum NumberRule { case integer, double, mixed }

    /// The number kind of every `Class.field` of a store.
    static func numberKinds(_ store: MemoryStore) -> [String: NumberRule] {
        var kinds: [String: NumberRule] = [:]
        for className in (try? store.classNames()) ?? [] {
            for object in (try? store.objects(in: className)) ?? [] {
                for (key, value) in object.fields {
                    let kind: NumberRule
                    switch value {
                    case .int: kind = .integer
                    case .double: kind = .double
                    default: continue
                    }
                    let name = className + "." + key
                    kinds[name] = kinds[name].map { $0 == kind ? kind : .mixed } ?? kind
                }
            }
        }
        return kinds
    }

    /// A store as every destination keeps it, by the differences Docs/Stores.md documents:
    /// Relation values on objects are left out (relations are compared through their join
    /// rows), as are null fields (PostgreSQL does not store them); a top-level File keeps its
    /// name (the Mongo and PostgreSQL shapes derive URLs); an embedded object is its Pointer;
    /// ACL entries and the keys of JSON objects are compared in sorted order (jsonb sorts
    /// them); with `numberKinds`, top-level Numbers follow PostgreSQL's documented kind rule.
    static func normalized(_ store: any ObjectStoreReader, numberKinds: [String: NumberRule]?) throws -> MemoryStore {
        var objects: [ParseObject] = []
        var schema = ParseSchema()
        for className in try store.classNames() {
            schema.classes[className] = schema.classes[className] ?? [:]
            try store.forEachObject(in: className) { object throws(PFError) in
                var fields = OrderedDictionary<String, ParseValue>()
                for (key, value) in object.fields {
                    switch value {
                    case .null, .relation: continue
                    case .file(let file): fields[key] = .file(ParseFile(name: file.name))
                    case .embedded(let embedded):
                        fields[key] = .pointer(ParsePointer(className: embedded.className, objectId: embedded.objectId ?? ""))
                    case .int(let i):
                        fields[key] = number(Double(i), exact: value, rule: numberKinds.map { $0[className + "." + key] ?? .mixed })
                    case .double(let d):
                        fields[key] = number(d, exact: value, rule: numberKinds.map { $0[className + "." + key] ?? .mixed })
                    default: fields[key] = sortedKeys(value)
                    }
                }
                var acl: ParseACL?
                if let original = object.acl {
                    var entries = OrderedDictionary<String, ParseACL.Access>()
                    for key in original.entries.keys.sorted() { entries[key] = original.entries[key] }
                    acl = ParseACL(entries)
                }
                // Any name: a Core Data source holds names Parse forbids (the stores encode them).
                let normal = try ParseObject(
                    className: object.className, objectId: object.objectId, createdAt: object.createdAt,
                    updatedAt: object.updatedAt, acl: acl, fields: fields, checkingNames: false)
                schema.addFields(of: normal)
                objects.append(normal)
            }
        }
        var joins: [ParseRelationKey: [ParseJoinRow]] = [:]
        for relation in try store.relations() {
            let rows = try store.joinRows(of: relation)
            if rows.isEmpty { continue }
            let key = ParseRelationKey(owningClass: relation.owningClass, field: relation.field)
            joins[key, default: []].append(contentsOf: rows)
            // The relation's field, with its target class where the store knows it.
            let declared = try store.schema().classes[relation.owningClass]?[relation.field]
            schema.classes[relation.owningClass, default: [:]][relation.field] =
                ParseSchema.Field(.relation, targetClass: declared?.targetClass ?? relation.targetClass)
        }
        return MemoryStore(location: store.location, objects: objects, joinRows: joins, schema: schema)
    }

    /// A top-level Number as PostgreSQL gives it back (`rule`), or unchanged (`nil`).
    static func number(_ d: Double, exact: ParseValue, rule: NumberRule?) -> ParseValue {
        guard let rule else { return exact }
        switch rule {
        case .double: return .double(d)
        case .integer: return Int64(exactly: d).map(ParseValue.int) ?? .double(d)
        case .mixed:
            if abs(d) <= 9_007_199_254_740_992, let i = Int64(exactly: d) { return .int(i) }
            return .double(d)
        }
    }

    /// A value with the keys of its JSON objects sorted (bytewise), nested too.
    static func sortedKeys(_ value: ParseValue) -> ParseValue {
        switch value {
        case .object(let members):
            var out = OrderedDictionary<String, ParseValue>()
            for key in members.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
                out[key] = members[key].map(sortedKeys)
            }
            return .object(out)
        case .array(let items): return .array(items.map(sortedKeys))
        default: return value
        }
    }
}

/// The PostgreSQL server of the matrix: `PFARCHIVE_POSTGRES_URL` (scripts/test.sh starts one),
/// or the one `scripts/postgres.sh start` left running; without either, PostgreSQL is left out
/// of the matrix with a note on stderr.
enum MatrixServer {
    static let url: String? = {
        guard let url = PostgresTestServer.configuredURL else {
            FileHandle.standardError.write(Data("StoreMatrixTests: no PostgreSQL server; PostgreSQL is left out of the matrix\n".utf8))
            return nil
        }
        return url
    }()
}
