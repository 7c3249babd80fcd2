import Foundation
import OrderedCollections
import PFCore
import PFFormats
import PFSerialization
import PFSQLiteSource

/// A Core Data SQLite store opened for reading, with its data model recovered from the store.
///
/// ```swift
/// let store = try CoreDataStore.open(url: URL(fileURLWithPath: "App.sqlite"))
/// defer { store.close() }
/// for entity in store.entities {
///     print(entity.name, try store.rowCount(entity: entity.name))
///     try store.forEachObject(entity: entity.name) { object in print(object) }
/// }
/// ```
///
/// Opening copies the `.sqlite` file with its `-wal` and `-shm` into a private temporary
/// directory and opens the copy; the source files are never opened by SQLite or written.
/// ``close()`` (or deinitialization) deletes the copy.
///
/// Objects come out in Parse REST shape; see ``forEachObject(entity:batchSize:_:)`` and
/// ``objectID(entity:primaryKey:)``.
public final class CoreDataStore: Sendable {
    /// How to open a store.
    public struct Options: Sendable {
        /// Budgets for the model archive, `Z_METADATA` and every decoded blob (shared by the
        /// payloads nested in one blob).
        public var limits: PFLimits
        /// Whether the persistent-history tables (`ACHANGE`, `ATRANSACTION`,
        /// `ATRANSACTIONSTRING`) appear as entities (`CHANGE`, `TRANSACTION`, …) with inferred
        /// attributes. Default `false`.
        public var includeHistory: Bool
        /// Whether an unreadable `Z_MODELCACHE` fails ``CoreDataStore/open(url:model:options:)``
        /// instead of falling back to a model inferred from the columns. Default `false`.
        public var requireModel: Bool
        /// Whether transformable values (type Transformable, or stored through a value
        /// transformer) that hold a payload — a keyed archive, property list, typedstream,
        /// JSON or CBOR, perhaps compressed — are decoded into a value tree, together with every
        /// payload inside them (``PFFormats/EmbeddedPayload``). They stay bytes when `false`.
        /// Default `true`.
        public var decodeTransformables: Bool
        /// Whether Binary attributes that hold a payload are decoded too (`--decode-blobs`).
        /// Default `false`: their bytes are kept.
        public var decodeBlobs: Bool

        /// Makes options; every parameter defaults to the value documented on its property.
        public init(
            limits: PFLimits = .default, includeHistory: Bool = false, requireModel: Bool = false,
            decodeTransformables: Bool = true, decodeBlobs: Bool = false
        ) {
            self.limits = limits
            self.includeHistory = includeHistory
            self.requireModel = requireModel
            self.decodeTransformables = decodeTransformables
            self.decodeBlobs = decodeBlobs
        }
    }

    /// The store's URL, as given.
    public let url: URL
    /// The data model: from the store's model cache, from the model given to `open`, or inferred.
    public let model: CoreDataModel
    /// The `Z_METADATA.Z_PLIST` property list (`NSStoreType`, `NSStoreModelVersionHashes`,
    /// `NSPersistenceFrameworkVersion`, …), or `nil` when the store has none.
    public let metadata: PFValue?
    /// `Z_METADATA.Z_UUID`, the store's identifier.
    public let storeUUID: String?
    /// Why the model cache could not be used, when ``CoreDataModel/source`` is `inferred`
    /// although the store has a `Z_MODELCACHE` value.
    public let modelCacheError: PFError?
    /// The persistent-history tables (`ACHANGE`, `ATRANSACTION`, `ATRANSACTIONSTRING`) the
    /// store has and that are not read as entities (``Options/includeHistory`` is off).
    public let historyLeftOut: [String]
    /// The options the store was opened with.
    public let options: Options

    let connection: SQLiteConnection
    let copy: StoreCopy
    let layout: CoreDataLayout

    /// The private copy SQLite reads (inside a temporary directory deleted by ``close()``).
    public var workingCopy: URL { copy.database }

    /// The entities, in `Z_PRIMARYKEY` order where the store lists them.
    public var entities: [CoreDataEntity] { layout.entityOrder.compactMap { model.entity(named: $0) } }

    /// `NSPersistenceFrameworkVersion` from the metadata, when present.
    public var frameworkVersion: Int64? { metadata?["NSPersistenceFrameworkVersion"]?.int64Value }

    /// The assumptions made about this store (model inference and column-suffix resolution).
    public var guesses: [String] { model.guesses + layout.guesses }

    // MARK: - Opening

    /// Opens a Core Data SQLite store read-only, through a private copy.
    /// - Parameters:
    ///   - url: the `.sqlite` (or `.storedata`, …) file; `-wal` and `-shm` beside it are copied too.
    ///   - model: a compiled model to use instead of the store's cache: a `.mom` file, or a
    ///     `.momd` directory (its current version, from `VersionInfo.plist`, or its only `.mom`).
    ///   - options: limits and reading choices.
    /// - Returns: the open store.
    /// - Throws: ``PFError`` — `io` when the file is missing or cannot be copied; `syntax`
    ///   when it is not SQLite; `truncated` when it is shorter than its header says;
    ///   `invalidValue` when SQLite cannot read it or it lacks the `Z_PRIMARYKEY`/`Z_METADATA`
    ///   tables of a Core Data store, or (with `requireModel`) when its model cache is corrupt;
    ///   errors from reading `model`.
    public static func open(url: URL, model: URL? = nil, options: Options = Options()) throws(PFError) -> CoreDataStore {
        let copy = try StoreCopy.make(of: url, format: .coreData)
        do {
            return try CoreDataStore(url: url, copy: copy, modelURL: model, options: options)
        } catch {
            copy.remove()
            throw error
        }
    }

    /// Opens a store with a model given as a value (for stores whose model is known in code,
    /// and for tests that build a store by hand).
    package static func open(url: URL, model: CoreDataModel, options: Options = Options()) throws(PFError) -> CoreDataStore {
        let copy = try StoreCopy.make(of: url, format: .coreData)
        do {
            return try CoreDataStore(url: url, copy: copy, modelURL: nil, modelValue: model, options: options)
        } catch {
            copy.remove()
            throw error
        }
    }

    private init(url: URL, copy: StoreCopy, modelURL: URL?, modelValue: CoreDataModel? = nil, options: Options) throws(PFError) {
        self.url = url
        self.copy = copy
        self.options = options
        let where_ = url.lastPathComponent
        connection = try SQLiteConnection(path: copy.database.path, format: .coreData)
        let schema = try StoreSchema(connection, context: "\(where_): reading the schema")
        guard schema.tables["Z_PRIMARYKEY"] != nil, schema.tables["Z_METADATA"] != nil else {
            connection.close()
            throw PFError(
                CoreDataFailure.notCoreData(file: where_, found: Array(schema.tables.keys.sorted().prefix(8))), format: .coreData)
        }
        let raw = try StoreTables(connection, schema: schema, context: "\(where_): reading Z_PRIMARYKEY, Z_METADATA and Z_MODELCACHE")
        var metadata: PFValue?
        if let plist = raw.metadataPlist {
            do {
                metadata = try Serialization.readTree(plist, as: .bplist, options: .init(limits: options.limits))
            } catch {
                throw PFError(CoreDataFailure.metadataNotPlist(file: where_, underlying: error), format: .coreData)
            }
        }
        self.metadata = metadata
        storeUUID = raw.storeUUID

        var cacheError: PFError?
        var recovered: CoreDataModel?
        if let modelValue {
            recovered = modelValue
        } else if let modelURL {
            recovered = try Self.compiledModel(at: modelURL, limits: options.limits)
        } else if let cache = raw.modelCache {
            do {
                recovered = try CoreDataModel.decode(modelCache: cache, limits: options.limits)
            } catch {
                let located = PFError(CoreDataFailure.modelCacheUnusable(file: where_, underlying: error), format: .coreData)
                if options.requireModel { throw located }
                cacheError = located
            }
        }
        modelCacheError = cacheError
        var model =
            recovered ?? CoreDataModel.infer(primaryKeys: raw.primaryKeys, schema: schema, reason: cacheError.map { "the model cache is unreadable: \($0.message)" } ?? "the store has no model cache")
        if options.includeHistory { model.addHistoryEntities(primaryKeys: raw.primaryKeys, schema: schema) }
        historyLeftOut = options.includeHistory ? [] : model.historyTables(primaryKeys: raw.primaryKeys, schema: schema).map(\.table)
        let finalModel = model
        layout = try CoreDataLayout(
            model: finalModel, primaryKeys: raw.primaryKeys, schema: schema, connection: connection,
            context: "\(where_): mapping the model to tables")
        self.model = finalModel
    }

    deinit {
        connection.close()
        copy.remove()
    }

    /// Closes the database and deletes the private copy. Later reads fail with an error.
    public func close() {
        connection.close()
        copy.remove()
    }

    /// Whether bytes start like an SQLite database (`SQLite format 3\0`), the first check for a
    /// Core Data store.
    public static func hasSQLiteHeader(_ bytes: Data) -> Bool {
        bytes.count >= 16 && bytes.prefix(16) == StoreCopy.sqliteHeader
    }

    /// Reads a compiled model, each file through ``PFSerialization/Serialization/readFile(_:limits:format:)``
    /// so the caller's `maxInputBytes` bounds it before it is read. A `VersionInfo.plist` that
    /// is missing or unreadable leaves the choice to the only `.mom`; one past the limits is
    /// an error, never a reason to guess.
    static func compiledModel(at url: URL, limits: PFLimits) throws(PFError) -> CoreDataModel {
        var file = url
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            // A .momd: VersionInfo.plist names the current version; otherwise take the only .mom.
            let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
            var current: String?
            let infoURL = url.appendingPathComponent("VersionInfo.plist")
            if FileManager.default.fileExists(atPath: infoURL.path) {
                do {
                    let info = try Serialization.readFile(infoURL, limits: limits, format: .coreData)
                    let plist = try FormatIO.read(info, options: .init(limits: limits)).value
                    current = plist["NSManagedObjectModel_CurrentVersionName"]?.stringValue
                } catch {
                    guard error.code != .limitExceeded else {
                        throw PFError(CoreDataFailure.versionInfo(path: infoURL.path, underlying: error), format: .coreData)
                    }
                }
            }
            let moms = names.filter { $0.hasSuffix(".mom") }.sorted()
            guard let chosen = current.map({ $0 + ".mom" }).flatMap({ moms.contains($0) ? $0 : nil }) ?? (moms.count == 1 ? moms.first : nil) else {
                throw PFError(CoreDataFailure.ambiguousMomd(path: url.path, moms: moms.count), format: .coreData)
            }
            file = url.appendingPathComponent(chosen)
        }
        let bytes = try Serialization.readFile(file, limits: limits, format: .coreData)
        do {
            return try CoreDataModel.decode(archive: bytes, source: .compiledModel, limits: limits)
        } catch {
            throw PFError(CoreDataFailure.notCompiledModel(path: file.path, underlying: error), format: .coreData)
        }
    }

    // MARK: - Database access

    /// Runs a query on the private copy.
    func rows(_ sql: String, _ arguments: [SQLiteValue] = [], context: @autoclosure () -> String) throws(PFError) -> [[SQLiteValue]] {
        try connection.rows(sql, arguments, context: context())
    }

    /// Quotes an SQL identifier (table and column names come from the file).
    static func quote(_ identifier: String) -> String { SQLiteConnection.quote(identifier) }
}

// MARK: - Schema

/// Tables and their columns (name → declared type), read from the copy.
struct StoreSchema: Sendable {
    /// Upper-cased table name → (real name, columns in order with declared types upper-cased).
    var tables: [String: (name: String, columns: [(name: String, type: String)])] = [:]
    /// Index names (upper-cased).
    var indexes: Set<String> = []

    init(_ connection: SQLiteConnection, context: @autoclosure () -> String) throws(PFError) {
        for row in try connection.rows("SELECT type, name FROM sqlite_master WHERE type IN ('table', 'index')", context: context()) {
            guard row.count == 2, let type = row[0].text, let name = row[1].text else { continue }
            if type == "index" {
                indexes.insert(name.uppercased())
                continue
            }
            var columns: [(String, String)] = []
            for column in try connection.rows("PRAGMA table_info(\(CoreDataStore.quote(name)))", context: context()) {
                // cid, name, type, notnull, dflt_value, pk
                guard column.count > 2, let columnName = column[1].text else { continue }
                columns.append((columnName, (column[2].text ?? "").uppercased()))
            }
            tables[name.uppercased()] = (name, columns)
        }
    }

    func columns(of table: String) -> [(name: String, type: String)] { tables[table.uppercased()]?.columns ?? [] }
    func hasColumn(_ column: String, in table: String) -> Bool {
        columns(of: table).contains { $0.name.uppercased() == column.uppercased() }
    }
}

/// One row of `Z_PRIMARYKEY`.
struct PrimaryKeyRow: Sendable {
    var id: Int64
    var name: String
    var superID: Int64
}

/// The raw contents of the metadata tables.
struct StoreTables: Sendable {
    var primaryKeys: [PrimaryKeyRow] = []
    var metadataPlist: Data?
    var storeUUID: String?
    var modelCache: Data?

    init(_ connection: SQLiteConnection, schema: StoreSchema, context: @autoclosure () -> String) throws(PFError) {
        for row in try connection.rows("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT", context: context()) {
            guard row.count == 3, let id = row[0].int64, let name = row[1].text else {
                throw PFError(CoreDataFailure.primaryKeyRow(context: context()), format: .coreData)
            }
            primaryKeys.append(PrimaryKeyRow(id: id, name: name, superID: row[2].int64 ?? 0))
        }
        if let row = try connection.rows("SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1", context: context()).first,
            row.count == 2
        {
            storeUUID = row[0].text
            metadataPlist = row[1].blob
        }
        if schema.tables["Z_MODELCACHE"] != nil, schema.hasColumn("Z_CONTENT", in: "Z_MODELCACHE"),
            let row = try connection.rows("SELECT Z_CONTENT FROM Z_MODELCACHE WHERE Z_CONTENT IS NOT NULL LIMIT 1", context: context()).first
        {
            modelCache = row.first?.blob
        }
    }
}
