import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFParse
import PFStores

/// Writes a generated store as an export directory the way other exporters did, not the way
/// pfarchive writes one: the quirks real exports have, one switch each, so a test can show
/// that a store survives every one of them.
///
/// ```swift
/// let generated = StoreGen.store(seed: 4)
/// try QuirkyExport(quirks: .all).write(generated, to: directory)
/// // directory now holds Parse.com-style class files without _SCHEMA.json, …
/// ```
public struct QuirkyExport: Sendable {
    /// The quirks an export may have.
    public struct Quirks: Sendable, CustomStringConvertible {
        /// No `_SCHEMA.json`: the reader must infer types and relation targets from the rows.
        public var noSchemaFile = true
        /// Object rows leave out their Relation fields (Parse.com's export): relations live only
        /// in the `_Join` files.
        public var relationFieldsAbsentFromRows = true
        /// A class without objects is a 0-byte file (Parse.com) instead of `{"results":[]}`.
        public var zeroByteEmptyClasses = true
        /// `_Join` files spelled with U+A789 `꞉` for `:` (what tools write where `:` is not
        /// allowed in file names).
        public var lookAlikeColonInJoinNames = true
        /// One class's file is left out while other objects still point at it.
        public var pointersToClassesNotExported = true
        /// Class files are written as parse-dashboard's bare arrays instead of Parse.com's
        /// `{ "results": [` framing with tab-and-spaces indentation and sorted keys.
        public var bareArrays = false

        /// Every quirk of a Parse.com export.
        public static var parseCom: Quirks { Quirks() }

        /// parse-dashboard's export: bare arrays, a schema-less directory.
        public static var dashboard: Quirks {
            var q = Quirks()
            q.bareArrays = true
            q.zeroByteEmptyClasses = false
            q.lookAlikeColonInJoinNames = false
            return q
        }

        public init() {}

        public var description: String {
            var on: [String] = []
            if noSchemaFile { on.append("no _SCHEMA.json") }
            if relationFieldsAbsentFromRows { on.append("Relation fields absent from rows") }
            if zeroByteEmptyClasses { on.append("0-byte empty classes") }
            if lookAlikeColonInJoinNames { on.append("U+A789 in _Join names") }
            if pointersToClassesNotExported { on.append("pointers to a class not exported") }
            on.append(bareArrays ? "bare arrays" : "Parse.com framing")
            return on.joined(separator: ", ")
        }
    }

    /// The quirks this writer applies.
    public var quirks: Quirks

    /// Makes a writer.
    /// - Parameter quirks: the quirks to apply.
    public init(quirks: Quirks = .parseCom) { self.quirks = quirks }

    /// Writes the export and returns what a lossless reader must find in it: the generated
    /// store less the class left out, with the relation targets and fields the export still
    /// declares (through its join files).
    /// - Parameters:
    ///   - store: the generated store.
    ///   - directory: an existing empty directory.
    /// - Returns: the expected contents.
    /// - Throws: what writing the files throws.
    @discardableResult
    public func write(_ store: GeneratedStore, to directory: URL) throws -> MemoryStore {
        var classes = store.classNames
        // Leave out a custom class that other objects point at, when there is one.
        var omitted: String?
        if quirks.pointersToClassesNotExported {
            omitted = classes.first { name in
                !name.hasPrefix("_") && store.objects.contains { object in
                    object.className != name && object.fields.values.contains { value in
                        if case .pointer(let p) = value { return p.className == name }
                        return false
                    }
                }
            }
            if let omitted { classes.removeAll { $0 == omitted } }
        }
        var expectedObjects: [ParseObject] = []
        for className in classes {
            let objects = store.objects.filter { $0.className == className }
            var rows: [PFValue] = []
            for object in objects {
                var fields = object.fields
                if quirks.relationFieldsAbsentFromRows {
                    for (key, value) in fields { if case .relation = value { fields[key] = nil } }
                }
                let written = try ParseObject(
                    className: object.className, objectId: object.objectId, createdAt: object.createdAt,
                    updatedAt: object.updatedAt, acl: object.acl, fields: fields)
                rows.append(written.encoded(style: .rest, sortedKeys: true))
                expectedObjects.append(written)
            }
            let file = directory.appendingPathComponent("\(className).json")
            try classFile(rows).write(to: file)
        }
        // Without _SCHEMA.json a reader knows a relation's target only from its related ids:
        // the one class among the exported objects that holds every id found (none found, or
        // ids of several classes: unknown), as Docs/Stores.md ("Relation targets") says.
        var classOfId: [String: String] = [:]
        for object in expectedObjects { if let id = object.objectId { classOfId[id] = object.className } }
        func knownTarget(_ rows: [ParseJoinRow], declared: String?, _ relation: ParseRelationKey) -> String? {
            guard quirks.noSchemaFile else { return declared }
            // Parse's own: _Role's users and roles relations.
            if relation.owningClass == "_Role", relation.field == "users" { return "_User" }
            if relation.owningClass == "_Role", relation.field == "roles" { return "_Role" }
            let classes = Set(rows.compactMap { classOfId[$0.relatedId] })
            return classes.count == 1 ? classes.first : nil
        }
        var joins: [ParseRelationKey: [ParseJoinRow]] = [:]
        for (relation, rows) in store.joinRows {
            guard relation.owningClass != omitted else { continue }
            let colon = quirks.lookAlikeColonInJoinNames ? "\u{A789}" : ":"
            let name = "_Join\(colon)\(relation.field)\(colon)\(relation.owningClass).json"
            let values: [PFValue] = rows.map { .dictionary(["owningId": .string($0.owningId), "relatedId": .string($0.relatedId)]) }
            try classFile(values).write(to: directory.appendingPathComponent(name))
            joins[ParseRelationKey(
                owningClass: relation.owningClass, field: relation.field,
                targetClass: knownTarget(rows, declared: relation.targetClass, relation))] = rows
        }
        var schema = ParseSchema()
        for className in classes { schema.classes[className] = store.schema.classes[className] ?? [:] }
        for (relation, _) in joins where quirks.noSchemaFile {
            schema.classes[relation.owningClass, default: [:]][relation.field] = ParseSchema.Field(.relation, targetClass: relation.targetClass)
        }
        if !quirks.noSchemaFile {
            var entries: [PFValue] = []
            for (className, fields) in schema.classes {
                var fieldValues = OrderedDictionary<String, PFValue>()
                for (name, field) in fields {
                    var spec: OrderedDictionary<String, PFValue> = ["type": .string(field.type.rawValue)]
                    if let target = field.targetClass { spec["targetClass"] = .string(target) }
                    fieldValues[name] = .dictionary(spec)
                }
                entries.append(.dictionary(["className": .string(className), "fields": .dictionary(fieldValues)]))
            }
            try JSONWriter().write(.array(entries)).write(to: directory.appendingPathComponent("_SCHEMA.json"))
        }
        return MemoryStore(location: directory.path, objects: expectedObjects, joinRows: joins, schema: schema)
    }

    /// A class file's bytes in the chosen framing.
    func classFile(_ rows: [PFValue]) throws -> Data {
        if rows.isEmpty {
            if quirks.zeroByteEmptyClasses { return Data() }
            return Data((quirks.bareArrays ? "[]\n" : "{ \"results\": [] }\n").utf8)
        }
        if quirks.bareArrays { return try JSONWriter(options: .init(pretty: true)).write(.array(rows)) }
        // Parse.com: `{ "results": [`, each row a tab then a pretty object indented by spaces,
        // sorted keys, `&` escaped as \u0026.
        var text = "{ \"results\": [\n"
        for (index, row) in rows.enumerated() {
            let pretty = String(decoding: try JSONWriter(options: .init(pretty: true, sortedKeys: true)).write(row), as: UTF8.self)
            let indented = pretty.split(separator: "\n", omittingEmptySubsequences: false)
                .enumerated().map { $0.offset == 0 ? "\t" + $0.element : "    " + $0.element }
                .joined(separator: "\n")
            text += indented.replacingOccurrences(of: "&", with: "\\u0026") + (index == rows.count - 1 ? "\n" : ",\n")
        }
        return Data((text + "] }\n").utf8)
    }
}
