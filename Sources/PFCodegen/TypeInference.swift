import Foundation
import OrderedCollections
import PFCore
import PFKeyedArchive
import PFParse

/// Where the generated types' data came from, for doc comments and the choice of defaults.
public enum CodegenSourceKind: String, Sendable {
    /// Parse objects: a Parse export or any store pfarchive reads (Core Data included).
    case parse = "Parse objects"
    /// An `NSKeyedArchiver` archive: classes, keys and class versions from its object table.
    case keyedArchive = "keyed archive"
    /// A typedstream: classes and versions from its class table, fields from its objects.
    case typedstream
    /// A plain JSON (or property list, or CBOR) value tree.
    case json = "JSON"
    /// A schema file: fields and types declared, not observed.
    case schema
}

/// The statistics of one class: its fields, and what the source says about the class itself.
public final class ClassStatistics {
    /// The class name as the source spells it (`_User`, `MyApp.Employee`).
    public let name: String
    /// The fields.
    public let shape: ShapeStatistics
    /// The class chain as archived (most derived first), for archives.
    public internal(set) var chain: [String] = []
    /// The class versions met (archives record one per class).
    public internal(set) var versions: Set<Int> = []
    /// Relations of the class (Parse), by field, with their target class when known.
    public internal(set) var relations: OrderedDictionary<String, String?> = [:]
    /// Declared field types (from a store's or file's schema), by field: the Parse type and,
    /// for Pointers and Relations, the target class.
    public internal(set) var declared: OrderedDictionary<String, ParseSchema.Field> = [:]
    /// Fields a source model declares optional (a schema whose class marks its required
    /// fields, ``PFParse/ParseSchema/Field/isRequired``: a Realm model's), generated optional
    /// even when every object read holds a value.
    public internal(set) var modelOptional: Set<String> = []
    /// Typedstream classes: the type encodings of each value group, by position (`"@"`,
    /// `"i"`, `"{CGPoint=dd}"`); a position whose objects disagree holds `nil`.
    public internal(set) var classicGroups: [String?] = []
    /// Typedstream classes: the superclasses recorded after the class, most derived first,
    /// with their versions.
    public internal(set) var classicSuperclasses: [(name: String, version: Int)] = []

    init(name: String, limits: CodegenLimits) {
        self.name = name
        self.shape = ShapeStatistics(limits: limits, depth: 0)
    }
}

/// Streaming type inference: objects are observed one at a time and only per-field
/// statistics are kept, so any number of rows fits in memory bounded by the number of
/// distinct classes and field names.
///
/// ```swift
/// var inference = TypeInference(source: .parse)
/// try store.forEachObject(in: "GameScore") { inference.observe($0) }
/// let model = inference.model()           // types, properties, conflicts
/// ```
public final class TypeInference {
    /// The kind of source observed.
    public let source: CodegenSourceKind
    /// The bounds.
    public let limits: CodegenLimits
    /// The classes in the order first met.
    public private(set) var classes: OrderedDictionary<String, ClassStatistics> = [:]
    /// A description of the source (a path), for doc comments.
    public var origin: String

    /// Makes an empty inference.
    /// - Parameters:
    ///   - source: the kind of source.
    ///   - origin: the source's name, for doc comments.
    ///   - limits: the bounds.
    public init(source: CodegenSourceKind, origin: String = "", limits: CodegenLimits = CodegenLimits()) {
        self.source = source
        self.origin = origin
        self.limits = limits
    }

    /// The statistics of a class, made on first use.
    public func classStatistics(_ name: String) -> ClassStatistics {
        if let existing = classes[name] { return existing }
        let made = ClassStatistics(name: name, limits: limits)
        classes[name] = made
        return made
    }

    // MARK: - Parse objects

    /// Observes one Parse object (its default columns first, then its fields).
    /// - Parameter object: the object.
    public func observe(_ object: ParseObject) {
        let stats = classStatistics(object.className)
        stats.shape.rows += 1
        if let id = object.objectId { observe(ParseValue.string(id), in: stats.shape.field("objectId")) }
        if let created = object.createdAt { observe(ParseValue.date(created), in: stats.shape.field("createdAt")) }
        if let updated = object.updatedAt { observe(ParseValue.date(updated), in: stats.shape.field("updatedAt")) }
        if object.acl != nil, let field = stats.shape.field("ACL") {
            field.present += 1
            field.count(.acl)
        }
        for (key, value) in object.fields { observe(value, in: stats.shape.field(key)) }
    }

    /// Records a relation of a class (from a join table or a schema), with its target class.
    /// - Parameter relation: the relation.
    public func observe(relation: ParseRelationKey) {
        let stats = classStatistics(relation.owningClass)
        stats.relations[relation.field] = .some(relation.targetClass)
    }

    /// Records the declared field types of a schema (types for fields no row holds, and the
    /// targets of Pointers and Relations).
    /// - Parameter schema: the schema.
    public func observe(schema: ParseSchema) {
        for (className, fields) in schema.classes {
            let stats = classStatistics(className)
            for (name, field) in fields {
                stats.declared[name] = field
                if field.type == .relation { stats.relations[name] = .some(field.targetClass) }
            }
            // A class whose model marks required fields says which are optional.
            if fields.values.contains(where: \.isRequired) {
                for (name, field) in fields where !field.isRequired { stats.modelOptional.insert(name) }
            }
        }
    }

    func observe(_ value: ParseValue, in field: FieldStatistics?) {
        guard let field else { return }
        field.present += 1
        switch value {
        case .null: field.nulls += 1
        case .bool: field.count(.bool)
        case .int(let i): field.noteInteger(i)
        case .double: field.count(.double)
        case .string(let s):
            field.count(.string)
            field.noteString(s)
        case .date: field.count(.date)
        case .bytes: field.count(.bytes)
        case .pointer(let p):
            field.count(.pointer)
            field.noteTarget(p.className)
        case .relation(let target):
            field.count(.relation)
            field.noteTarget(target)
        case .file: field.count(.file)
        case .geoPoint: field.count(.geoPoint)
        case .polygon: field.count(.polygon)
        case .array(let items):
            field.count(.array)
            let elements = field.elementStatistics()
            for item in items { observe(item, in: elements) }
        case .object(let members):
            field.count(.object)
            guard let shape = field.memberStatistics() else { return }
            shape.rows += 1
            for (key, member) in members { observe(member, in: shape.field(key)) }
        case .embedded(let object):
            // A whole object in a field (an included Pointer): a reference to its class.
            field.count(.pointer)
            field.embeddedObjects += 1
            field.noteTarget(object.className)
        }
    }

    // MARK: - Value trees

    /// Observes a JSON value tree: a top-level array's objects (or `{"results": [...]}`'s) are
    /// rows of `rootName`; objects with a `$class` key (a decoded archive graph) are rows of
    /// that class wherever they are.
    /// - Parameters:
    ///   - value: the tree.
    ///   - rootName: the name of the root type.
    public func observe(json value: PFValue, rootName: String) {
        var rows: [PFValue] = [value]
        if case .array(let items) = value {
            rows = items
        } else if case .dictionary(let d) = value, d.count == 1, case .array(let items)? = d["results"] {
            rows = items
        }
        for row in rows {
            guard case .dictionary(let members) = row else { continue }
            observeRow(members, defaultName: rootName)
        }
    }

    func observeRow(_ members: OrderedDictionary<String, PFValue>, defaultName: String) {
        var name = defaultName
        if case .string(let c)? = members["$class"] { name = c }
        let stats = classStatistics(name)
        stats.shape.rows += 1
        for (key, member) in members where key != "$class" && key != "$id" {
            observe(member, in: stats.shape.field(key))
        }
    }

    func observe(_ value: PFValue, in field: FieldStatistics?) {
        guard let field else { return }
        field.present += 1
        switch value {
        case .null: field.nulls += 1
        case .bool: field.count(.bool)
        case .int(let i): field.noteInteger(i)
        case .uint(let u): field.noteUnsigned(u)
        case .double: field.count(.double)
        case .string(let s):
            field.count(.string)
            field.noteString(s)
        case .date: field.count(.date)
        case .data: field.count(.bytes)
        case .uid: field.count(.other)
        case .array(let items):
            field.count(.array)
            let elements = field.elementStatistics()
            for item in items { observe(item, in: elements) }
        case .dictionary(let members):
            if case .string(let className)? = members["$class"] {
                field.count(.archivedObject)
                field.noteArchivedClass(className)
                if field.depth < limits.maxDepth { observeRow(members, defaultName: className) }
            } else if members["$ref"] != nil, members.count == 1 {
                field.count(.archivedObject)
            } else {
                field.count(.object)
                guard let shape = field.memberStatistics() else { return }
                shape.rows += 1
                for (key, member) in members { observe(member, in: shape.field(key)) }
            }
        }
    }

    // MARK: - Typedstreams

    /// Observes a typedstream read as a value tree (`{"$class", "$version", "$values":
    /// [{"types", "values"}]}` objects): every class is a type whose fields are its value
    /// groups by position, with their type encodings and the class version.
    /// - Parameter value: the tree (``PFSerialization``'s reading of a typedstream).
    public func observe(classic value: PFValue) {
        observeClassic(value, in: nil, depth: 0)
    }

    /// Records a class's superclass chain as the stream's class table holds it.
    /// - Parameters:
    ///   - className: the class.
    ///   - superclasses: its superclasses, most derived first, with their versions.
    public func observe(classicClass className: String, superclasses: [(name: String, version: Int)]) {
        guard let stats = classes[className] else { return }
        stats.classicSuperclasses = superclasses
        stats.chain = [className] + superclasses.map(\.name)
    }

    /// The classes of the typedstream objects met with an `$id` (shared objects), so a later
    /// `{"$ref": N}` (a back-reference, or a cycle) counts as an object of that class.
    var classicSharedClasses: [Int: String] = [:]

    /// Observes a value of a typedstream tree. Objects (`$class` with `$values`) are rows of
    /// their classes wherever they are: inside Foundation dictionaries, arrays and other
    /// objects. `depth` bounds the nesting of values within one object (each object's
    /// groups start again at 0: objects are rows, not nested shapes; the tree itself was
    /// bounded by the reader).
    func observeClassic(_ value: PFValue, in field: FieldStatistics?, depth: Int) {
        guard depth < limits.maxDepth else { return }
        switch value {
        case .dictionary(let members):
            if case .string(let className)? = members["$class"], case .array(let groups)? = members["$values"] {
                observeClassicObject(className, members, groups, in: field)
            } else if members.count == 1, case .int(let ref)? = members["$ref"] {
                guard let field else { return }
                field.present += 1
                if let className = Int(exactly: ref).flatMap({ classicSharedClasses[$0] }) {
                    field.count(.archivedObject)
                    field.noteArchivedClass(className)
                } else {
                    field.count(.other)
                }
            } else {
                // A Foundation value (a dictionary, an NSValue): a value tree for the field; the
                // objects inside are rows of their classes.
                if let field {
                    field.present += 1
                    field.count(members["$class"] == nil ? .object : .other)
                }
                for (key, member) in members where key != "$class" && key != "$id" {
                    observeClassic(member, in: nil, depth: depth + 1)
                }
            }
        case .array(let items):
            if let field {
                field.present += 1
                field.count(.array)
                let elements = field.elementStatistics()
                for item in items { observeClassic(item, in: elements, depth: depth + 1) }
            } else {
                for item in items { observeClassic(item, in: nil, depth: depth + 1) }
            }
        default:
            if let field { observe(value, in: field) }
        }
    }

    func observeClassicObject(_ className: String, _ members: OrderedDictionary<String, PFValue>, _ groups: [PFValue], in field: FieldStatistics?) {
        if let field {
            field.present += 1
            field.count(.archivedObject)
            field.noteArchivedClass(className)
        }
        if case .int(let id)? = members["$id"], let id = Int(exactly: id) { classicSharedClasses[id] = className }
        let stats = classStatistics(className)
        stats.shape.rows += 1
        stats.versions.insert(members["$version"]?.int64Value.flatMap { Int(exactly: $0) } ?? 0)
        // The group types first: objects of the class nested in this one's values are
        // observed (and compared) after it.
        let first = stats.shape.rows == 1
        for (i, group) in groups.enumerated() {
            let types = group.dictionaryValue?["types"]?.stringValue
            if i >= stats.classicGroups.count {
                // A position first met here: the objects before lacked it.
                stats.classicGroups.append(first ? types : nil)
            } else if stats.classicGroups[i] != types {
                stats.classicGroups[i] = nil
            }
        }
        for i in groups.count..<max(groups.count, stats.classicGroups.count) { stats.classicGroups[i] = nil }
        for (i, group) in groups.enumerated() {
            guard case .dictionary(let g) = group else { continue }
            let values = g["values"]?.arrayValue ?? []
            let positionField = stats.shape.field(String(i))
            if values.count == 1, let only = values.first {
                observeClassic(only, in: positionField, depth: 0)
            } else {
                positionField?.present += 1
                positionField?.count(.other)
                for value in values { observeClassic(value, in: nil, depth: 0) }
            }
        }
    }

    // MARK: - Keyed archives

    /// Observes every object of a keyed archive's graph: each archived class (Foundation's
    /// own value classes excepted) is a type, with its chain and `$classversion`.
    /// - Parameter graph: the decoded graph.
    public func observe(graph: KeyedGraph) {
        for node in graph.nodes {
            guard case .object(let object) = node else { continue }
            let stats = classStatistics(object.archivedClass.name)
            stats.shape.rows += 1
            if stats.chain.isEmpty { stats.chain = object.archivedClass.chain }
            stats.versions.insert(object.archivedClass.version ?? 0)
            for (key, value) in object.fields {
                observe(value, in: stats.shape.field(key), graph: graph)
            }
        }
    }

    func observe(_ value: KeyedGraph.Value, in field: FieldStatistics?, graph: KeyedGraph) {
        guard let field else { return }
        field.present += 1
        switch value {
        case .null: field.nulls += 1
        case .bool: field.count(.bool)
        case .int(let i): field.noteInteger(i)
        case .uint(let u): field.noteUnsigned(u)
        case .double: field.count(.double)
        case .string(let s):
            field.count(.string)
            field.noteString(s)
        case .data: field.count(.bytes)
        case .date: field.count(.date)
        case .node:
            switch graph.node(value) {
            case .array(_, let items)?, .set(_, let items)?, .orderedSet(_, let items)?:
                field.count(.array)
                // Elements are counted, not followed into their nodes' fields: every object
                // node is observed once, as a row of its own class.
                let elements = field.elementStatistics()
                for item in items { observeShallow(item, in: elements, graph: graph) }
            case .dictionary(_, let keys, let values)?:
                let stringKeys = keys.compactMap { if case .string(let s) = $0 { s } else { nil } }
                guard stringKeys.count == keys.count else {
                    field.count(.other)
                    return
                }
                field.count(.object)
                guard let shape = field.memberStatistics() else { return }
                shape.rows += 1
                for (k, v) in zip(stringKeys, values) { observeShallow(v, in: shape.field(k), graph: graph) }
            case .object(let object)?:
                field.count(.archivedObject)
                field.noteArchivedClass(object.archivedClass.name)
            case nil:
                field.count(.other)
            }
        }
    }

    /// Like ``observe(_:in:graph:)``, but an object node only counts as a reference (its own
    /// fields are observed as a row of its class).
    func observeShallow(_ value: KeyedGraph.Value, in field: FieldStatistics?, graph: KeyedGraph) {
        if case .object(let object)? = graph.node(value), let field {
            field.present += 1
            field.count(.archivedObject)
            field.noteArchivedClass(object.archivedClass.name)
            return
        }
        observe(value, in: field, graph: graph)
    }
}
