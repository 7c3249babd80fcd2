import Foundation
import OrderedCollections
import PFCore
import PFKeyedArchive
import PFParse
import PFSerialization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A whole store in one NSKeyedArchiver-compatible archive (an `.archive` file: a binary
/// property list whose `$top.root` is a Foundation object graph of `NSDictionary`,
/// `NSArray`, `NSString`, `NSNumber`, `NSDate`, `NSData` and `NSNull`), so Foundation's
/// `NSKeyedUnarchiver` on Apple platforms reads it as plain property-list objects.
///
/// The archived shape (version 1) — the root dictionary:
///
/// | key | value |
/// |---|---|
/// | `format` | `"pfarchive-store"` |
/// | `version` | `1` |
/// | `classes` | array of `{className, objects}`; `objects` is an array of object dictionaries |
/// | `relations` | array of `{owningClass, field, targetClass?, owningIds, relatedIds}` (the join rows as two parallel arrays) |
/// | `schema` | the REST `/schemas` shape: `{results: [{className, fields: {name: {type, targetClass?}}}]}` |
///
/// An object dictionary is the object in pfarchive's typed Parse form
/// (``PFParse/ParseObject/typedValue``): `objectId` (string), `createdAt`/`updatedAt`
/// (`NSDate`, whole milliseconds), `ACL` (`{key: {read: true, write: true}}`), and each field:
/// integers as integer `NSNumber`s and doubles as real ones (so `3` and `3.0` stay apart),
/// booleans as boolean `NSNumber`s, dates as `NSDate`, bytes as `NSData`, null as `NSNull`,
/// and pointers, relations, files, GeoPoints and polygons as Parse's `{"__type": …}`
/// dictionaries.
///
/// Not streamed: reading decodes the whole archive into memory and writing builds it whole
/// (the format has no row boundaries), so this store suits stores that fit in memory.
/// Reading enforces ``PFCore/PFLimits`` (`maxInputBytes` on the file, the rest in the
/// archive reader). Writes follow ``ObjectStoreWriter``'s contract: merged in memory, then
/// written to a temporary sibling (`.<name>.pfarchive-tmp-<pid>-<random>`) renamed over the
/// file on ``commit()`` with the old file's mode, under the file's lock (``Destination``). A
/// file that is not a pfarchive store archive is refused, never overwritten.
public final class KeyedArchiveStore: ObjectStoreReader, ObjectStoreWriter {
    /// The format name in errors.
    public static let format: PFError.Format = .storeArchive
    /// The value of the root's `format` key.
    public static let formatTag = "pfarchive-store"
    /// The archived shape's version.
    public static let version: Int64 = 1

    /// The archive file.
    public let url: URL
    public var location: String { url.path }
    /// Budgets for reading.
    public let limits: PFLimits
    /// The container written (binary plist unless told otherwise).
    public let container: KeyedArchiveContainer

    var loaded: MemoryStore?
    var writing = false
    /// The claim on the file while writing.
    var destination: Destination?

    /// Opens a store archive for reading or writing. Nothing is read until asked; a file that
    /// does not exist yet is an empty store.
    /// - Parameters:
    ///   - url: the `.archive` file.
    ///   - limits: budgets for reading.
    ///   - container: the container to write (`.bplist`, as NSKeyedArchiver writes).
    public init(url: URL, limits: PFLimits = .default, container: KeyedArchiveContainer = .bplist) {
        self.url = url
        self.limits = limits
        self.container = container
    }

    /// The store's contents, read once.
    func contents() throws(PFError) -> MemoryStore {
        if let loaded { return loaded }
        let store = try Self.read(url, limits: limits)
        loaded = store
        return store
    }

    // MARK: - Reading

    public func classNames() throws(PFError) -> [String] { try contents().classNames() }
    public func schema() throws(PFError) -> ParseSchema { try contents().schema() }
    public func estimatedObjectCount(in className: String) -> Int? { (try? contents())?.estimatedObjectCount(in: className) }
    public func forEachObject(in className: String, _ body: (ParseObject) throws(PFError) -> Void) throws(PFError) {
        try contents().forEachObject(in: className, body)
    }
    public func relations() throws(PFError) -> [ParseRelationKey] { try contents().relations() }
    public func forEachJoinRow(of relation: ParseRelationKey, _ body: (ParseJoinRow) throws(PFError) -> Void) throws(PFError) {
        try contents().forEachJoinRow(of: relation, body)
    }
    public func close() {
        if !writing { loaded = nil }
    }

    // MARK: - Writing

    public func begin(schema: ParseSchema) throws(PFError) {
        abort()
        let destination = try Destination.claim(url, format: Self.format)
        loaded = nil
        var status = stat()
        if lstat(url.path, &status) == 0 {
            switch status.st_mode & S_IFMT {
            case S_IFREG:
                do throws(PFError) { _ = try contents() } catch {
                    throw destination.refusal(.unreadable(store: "a pfarchive store archive", problem: error.message))
                }
            case S_IFLNK: throw destination.refusal(.symbolicLink)
            case S_IFDIR: throw destination.refusal(.directoryWhereFileBelongs("a store archive file"))
            default: throw destination.refusal(.notARegularFile)
            }
        }
        let store = try contents()
        try store.begin(schema: schema)
        self.destination = destination
        writing = true
    }

    public func extend(schema: ParseSchema) throws(PFError) {
        guard writing, let loaded else { throw MemoryStore.notBegun(location) }
        try loaded.extend(schema: schema)
    }

    public func write(_ objects: [ParseObject], className: String) throws(PFError) {
        guard writing, let loaded else { throw MemoryStore.notBegun(location) }
        try loaded.write(objects, className: className)
    }

    public func write(_ rows: [ParseJoinRow], relation: ParseRelationKey) throws(PFError) {
        guard writing, let loaded else { throw MemoryStore.notBegun(location) }
        try loaded.write(rows, relation: relation)
    }

    public func commit() throws(PFError) {
        guard writing, let loaded else { throw MemoryStore.notBegun(location) }
        try loaded.commit()
        writing = false
        do throws(PFError) {
            let data = try Self.archive(loaded, container: container)
            try Destination.writeFile(data, to: url, format: Self.format)
        } catch {
            // The file is unchanged; forget the in-memory state so the next read sees the file.
            self.loaded = nil
            releaseDestination()
            throw error
        }
        releaseDestination()
    }

    private func releaseDestination() {
        destination?.release()
        destination = nil
    }

    public func abort() {
        guard writing else { return }
        loaded?.abort()
        writing = false
        releaseDestination()
    }
}

// MARK: - The archived shape

extension KeyedArchiveStore {
    /// The archive of a store's contents.
    /// - Parameters:
    ///   - store: any store (read whole).
    ///   - container: the container.
    /// - Returns: the archive's bytes.
    /// - Throws: ``PFCore/PFError`` from reading the store or from the archiver.
    public static func archive(_ store: any ObjectStoreReader, container: KeyedArchiveContainer = .bplist) throws(PFError) -> Data {
        var classes: [PFValue] = []
        for className in try store.classNames() {
            var objects: [PFValue] = []
            try store.forEachObject(in: className) { objects.append($0.encoded(style: .typed)) }
            classes.append(["className": .string(className), "objects": .array(objects)])
        }
        var relations: [PFValue] = []
        for relation in try store.relations() {
            var owning: [PFValue] = []
            var related: [PFValue] = []
            try store.forEachJoinRow(of: relation) { row in
                owning.append(.string(row.owningId))
                related.append(.string(row.relatedId))
            }
            var entry: OrderedDictionary<String, PFValue> = [
                "owningClass": .string(relation.owningClass), "field": .string(relation.field),
            ]
            if let target = relation.targetClass { entry["targetClass"] = .string(target) }
            entry["owningIds"] = .array(owning)
            entry["relatedIds"] = .array(related)
            relations.append(.dictionary(entry))
        }
        let root: PFValue = [
            "format": .string(formatTag), "version": .int(version), "classes": .array(classes),
            "relations": .array(relations), "schema": try store.schema().restValue,
        ]
        do {
            return try KeyedArchiver.archivedData(withRootObject: root, options: .init(container: container))
        } catch let error as PFError {
            throw error
        } catch {
            throw PFError(StoreFailure.cannotArchive(problem: "\(error)"), format: format)
        }
    }

    /// Reads a store archive.
    /// - Parameters:
    ///   - url: the file; a missing file is an empty store.
    ///   - limits: budgets.
    /// - Returns: the contents.
    /// - Throws: ``PFCore/PFError``: `io` for an unreadable file, `limitExceeded`, the keyed
    ///   archive reader's errors, `invalidValue` naming the key path for a value out of shape.
    static func read(_ url: URL, limits: PFLimits) throws(PFError) -> MemoryStore {
        let fm = FileManager.default
        guard fm.fileExists(atPath: url.path) else { return MemoryStore(location: url.path) }
        let data = try Serialization.readFile(url, limits: limits, format: format)
        let root: PFValue
        do {
            root = try KeyedUnarchiver.unarchivedObject(ofType: PFValue.self, from: data, options: .init(limits: limits))
        } catch let error as PFError {
            var e = error
            e.message = "\(url.path): " + e.message
            throw e
        } catch {
            throw PFError(StoreFailure.unreadableStoreArchive(location: url.path, problem: "\(error)"), format: format)
        }
        return try contents(of: unescapingKeys(root), location: url.path)
    }

    /// The tree with the `$` the value-tree reading adds to dictionary keys that begin with
    /// `$` (`$price` reads as `$$price`, told apart from `$class` markers) taken off again:
    /// the store holds only Foundation dictionaries, whose keys are the data's own names.
    static func unescapingKeys(_ value: PFValue) -> PFValue {
        // Recursive within the depth the keyed-archive reader allowed.
        switch value {
        case .dictionary(let d):
            var out = OrderedDictionary<String, PFValue>(minimumCapacity: d.count)
            for (key, member) in d {
                out[key.hasPrefix("$$") ? String(key.dropFirst()) : key] = unescapingKeys(member)
            }
            return .dictionary(out)
        case .array(let items): return .array(items.map(unescapingKeys))
        default: return value
        }
    }

    /// The store held by an archive's root value.
    static func contents(of root: PFValue, location: String) throws(PFError) -> MemoryStore {
        func fail(_ problem: StoreFailure.ArchiveProblem, _ path: PFKeyPath) -> PFError {
            PFError(StoreFailure.badStoreArchive(location: location, problem: problem), format: format, path: path)
        }
        guard case .dictionary(let top) = root else { throw fail(.rootNotDictionary, .root) }
        guard top["format"]?.stringValue == formatTag else {
            throw fail(.notStoreArchive(formatTag: formatTag), PFKeyPath([.key("format")]))
        }
        guard case .int(let v)? = top["version"], v == version else {
            throw fail(.unsupportedVersion(reads: version), PFKeyPath([.key("version")]))
        }
        let schema: ParseSchema
        do throws(PFError) {
            schema = try ParseSchema(rest: top["schema"] ?? ["results": []])
        } catch {
            throw error.at(PFKeyPath([.key("schema")]))
        }
        var objects: [ParseObject] = []
        guard case .array(let classes)? = top["classes"] else { throw fail(.classesNotArray, PFKeyPath([.key("classes")])) }
        for (i, entry) in classes.enumerated() {
            guard let className = entry["className"]?.stringValue, case .array(let rows)? = entry["objects"] else {
                throw fail(.badClass, PFKeyPath([.key("classes"), .index(i)]))
            }
            for (k, row) in rows.enumerated() {
                do throws(PFError) {
                    objects.append(try ParseObject(rest: row, className: className, checkingNames: false))
                } catch {
                    var e = error
                    e.path = PFKeyPath([.key("classes"), .index(i), .key("objects"), .index(k)] + (error.path?.components ?? []))
                    e.message = "\(location): " + e.message
                    throw e
                }
            }
        }
        var joinRows: [ParseRelationKey: [ParseJoinRow]] = [:]
        guard case .array(let relations)? = top["relations"] else { throw fail(.relationsNotArray, PFKeyPath([.key("relations")])) }
        for (i, entry) in relations.enumerated() {
            let here = PFKeyPath([.key("relations"), .index(i)])
            guard let owningClass = entry["owningClass"]?.stringValue, let field = entry["field"]?.stringValue,
                case .array(let owning)? = entry["owningIds"], case .array(let related)? = entry["relatedIds"],
                owning.count == related.count
            else {
                throw fail(.badRelation, here)
            }
            var rows: [ParseJoinRow] = []
            rows.reserveCapacity(owning.count)
            for (k, (a, b)) in zip(owning, related).enumerated() {
                guard let a = a.stringValue, let b = b.stringValue else {
                    throw fail(.badJoinRow(k), here)
                }
                rows.append(ParseJoinRow(owningId: a, relatedId: b))
            }
            let key = ParseRelationKey(owningClass: owningClass, field: field, targetClass: entry["targetClass"]?.stringValue)
            joinRows[key, default: []].append(contentsOf: rows)
        }
        return MemoryStore(location: location, objects: objects, joinRows: joinRows, schema: schema)
    }
}
