import Foundation
import OrderedCollections
import PFCore
import PFJSON

/// A Parse schema: the fields and their types, per class.
///
/// Reads the REST `/schemas` shape (`{"results":[{"className":…,"fields":{"name":{"type":"Pointer","targetClass":"_User"}}}]}`,
/// one such class object, or an array of them) and parse-server's `_SCHEMA` documents
/// (`{"_id":"GameScore","score":"number","owner":"*_User","tags":"relation<Tag>",…}`), or is
/// inferred from data with ``infer(_:)``.
public struct ParseSchema: Sendable, Equatable {
    /// One field's type.
    public struct Field: Sendable, Equatable, CustomStringConvertible {
        /// The type (a name Parse does not define is kept as ``ParseFieldType/unknown(_:)``).
        public var type: ParseFieldType
        /// The target class of a Pointer or Relation.
        public var targetClass: String?
        /// Whether every object must hold a value (Parse's `required`; a Realm property that
        /// is not optional). Kept by every pfarchive store (``restSpec``: parse-server's
        /// `required` field option).
        public var isRequired = false
        /// Whether the source model indexes the field (a Realm indexed property); pfarchive's
        /// SQLite store and PostgreSQL create an index on its column.
        public var isIndexed = false
        /// Whether the field is the source model's primary key (a Realm primary key), whose
        /// values are also the objects' objectIds; pfarchive's SQLite store and PostgreSQL give
        /// its column a unique index.
        public var isPrimaryKey = false
        /// For an Object field holding an embedded object (a Realm embedded class, inlined in
        /// its owner), the embedded class's name.
        public var embeddedClass: String?

        /// Makes a field type.
        /// - Parameters:
        ///   - type: the type.
        ///   - targetClass: the target class of a Pointer or Relation.
        public init(_ type: ParseFieldType, targetClass: String? = nil) {
            self.type = type
            self.targetClass = targetClass
        }

        public var description: String { targetClass.map { "\(type)<\($0)>" } ?? type.rawValue }

        /// Two fields are equal when they hold the same type (and target class): the model's
        /// flags (``isRequired``, ``isIndexed``, ``isPrimaryKey``, ``embeddedClass``) are
        /// compared by ``sameModel(as:)`` and ``ParseSchema/modelDifferences(from:)``, which
        /// every pfarchive store keeps (Docs/Stores.md, "The model's flags").
        public static func == (a: Field, b: Field) -> Bool { a.type == b.type && a.targetClass == b.targetClass }
    }

    /// Fields by class, in order.
    public var classes: OrderedDictionary<String, OrderedDictionary<String, Field>>

    /// Makes a schema.
    /// - Parameter classes: fields by class.
    public init(_ classes: OrderedDictionary<String, OrderedDictionary<String, Field>> = [:]) {
        self.classes = classes
    }

    // MARK: - Reading

    /// Reads a schema document.
    /// - Parameter value: the JSON: `/schemas` results, one class, an array, or `_SCHEMA` documents.
    /// - Throws: ``PFCore/PFError`` with Parse code 107 for an unrecognised shape, 103 for a
    ///   bad class name, 111 for an unknown type.
    public init(rest value: PFValue) throws(PFError) {
        classes = [:]
        var items: [PFValue]
        switch value {
        case .array(let a): items = a
        case .dictionary(let d):
            if case .array(let a)? = d["results"] { items = a } else { items = [value] }
        default:
            throw PFError(parse: ParseFailure.schemaShape(found: ParseFailure.describe(value)))
        }
        for (i, item) in items.enumerated() {
            let here = PFCodingPath.root.appending(index: i)
            guard case .dictionary(let d) = item else {
                throw PFError(parse: ParseFailure.schemaEntryNotObject(index: i), path: here)
            }
            if case .string(let name)? = d["className"] {
                try ParseRules.checkClassName(name)
                var fields = OrderedDictionary<String, Field>()
                if case .dictionary(let fs)? = d["fields"] {
                    // `/schemas` lists the default columns too; they are no fields of the objects.
                    for (key, spec) in fs where !ParseRules.defaultColumns.contains(key) {
                        guard case .string(let typeName)? = spec["type"], case let type = ParseFieldType(rawValue: typeName), type.isKnown else {
                            throw PFError(parse: ParseFailure.schemaFieldNoType(field: key, className: name), path: here.appending(key: "fields").appending(key: key))
                        }
                        var field = Field(type, targetClass: spec["targetClass"]?.stringValue)
                        field.readOptions(spec)
                        fields[key] = field
                    }
                }
                ParseSchema.markIndexed(&fields, indexes: d["indexes"])
                classes[name] = fields
            } else if case .string(let name)? = d["_id"] {
                try ParseRules.checkClassName(name)
                for (key, spec) in d where ParseSchema.isFieldKey(inSchemaDocument: key) {
                    guard case .string(let mongoType) = spec, Field(mongoType: mongoType) != nil else {
                        throw PFError(parse: ParseFailure.schemaFieldUnknownType(field: key, className: name), path: here.appending(key: key))
                    }
                }
                classes[name] = ParseSchema.fields(ofSchemaDocument: d, className: name)
            } else {
                throw PFError(parse: ParseFailure.schemaEntryUnnamed(index: i), path: here)
            }
        }
    }

    /// The JSON of a schema file: one JSON value (the REST `/schemas` answer, an array of
    /// classes, `_SCHEMA` documents as an array), or parse-server's `_SCHEMA` documents as
    /// `mongoexport` writes them by default, one per line (read as their array). What is read
    /// is then given to ``init(rest:)``.
    /// - Parameters:
    ///   - bytes: the file's bytes.
    ///   - options: the JSON reader's settings.
    /// - Returns: the value.
    /// - Throws: ``PFCore/PFError``: the JSON reader's error of the file read as one value
    ///   when it is no lines of objects either.
    public static func schemaFileValue(_ bytes: Data, options: JSONReader.Options) throws(PFError) -> PFValue {
        do {
            return try JSONReader(options: options).read(bytes)
        } catch {
            // Several documents, one per line: each line an object.
            guard let lines = try? JSONLines.Reader.read(bytes, reader: JSONReader(options: options)), lines.count > 1,
                lines.allSatisfy({ if case .dictionary = $0 { true } else { false } })
            else { throw error }
            return .array(lines)
        }
    }

    /// The fields of one of parse-server's `_SCHEMA` documents (`{"_id":"Post","title":"string",
    /// "author":"*_User",…}`): every key but parse-server's own (`_id`, `_metadata`, `_rperm`,
    /// `_wperm`, `_hashed_password`…, any key starting with `_`) and the default columns
    /// (`objectId`, `createdAt`, `updatedAt`, `ACL`), typed by ``Field/init(mongoType:)``; a
    /// spelling Parse did not define when pfarchive was written (a newer parse-server's) is kept
    /// as ``ParseFieldType/unknown(_:)``. `_metadata`'s field options and indexes are read; a
    /// `_User` document's password hash (`_hashed_password`, or an older server's
    /// `"password":"string"`) is the `bcryptPassword` field, as a Parse export names it.
    /// - Parameters:
    ///   - doc: the document.
    ///   - className: its class (the `_id`).
    /// - Returns: the fields, in the document's order.
    public static func fields(ofSchemaDocument doc: OrderedDictionary<String, PFValue>, className: String) -> OrderedDictionary<String, Field> {
        var fields = OrderedDictionary<String, Field>()
        for (key, value) in doc where isFieldKey(inSchemaDocument: key) {
            if case .string(let t) = value { fields[key] = Field(mongoType: t) ?? Field(ParseFieldType(rawValue: t)) }
        }
        if className == "_User", doc["_hashed_password"] != nil || doc["password"] == .string("string") {
            fields.removeValue(forKey: "password")
            fields["bcryptPassword"] = Field(.string)
        }
        // parse-server keeps field options (`required`) and indexes in `_metadata`.
        if case .dictionary(let options)? = doc["_metadata"]?["fields_options"] {
            for (key, spec) in options { fields[key]?.readOptions(spec) }
        }
        markIndexed(&fields, indexes: doc["_metadata"]?["indexes"])
        return fields
    }

    /// Whether a key of a `_SCHEMA` document names a field: not parse-server's own (`_`…) nor
    /// a default column.
    public static func isFieldKey(inSchemaDocument key: String) -> Bool {
        !key.hasPrefix("_") && !ParseRules.defaultColumns.contains(key)
    }

    /// The schema as the REST `/schemas` shape.
    public var restValue: PFValue {
        .dictionary([
            "results": .array(classes.map { name, fields in
                var fs = OrderedDictionary<String, PFValue>()
                for (key, field) in fields { fs[key] = .dictionary(field.restSpec) }
                var entry: OrderedDictionary<String, PFValue> = ["className": .string(name), "fields": .dictionary(fs)]
                let indexes = ParseSchema.indexes(of: fields)
                if !indexes.isEmpty { entry["indexes"] = .dictionary(indexes) }
                return .dictionary(entry)
            })
        ])
    }

    // MARK: - Types of values

    /// The field type of a value, or `nil` for null.
    /// - Parameter value: a field value.
    /// - Returns: its type.
    public static func fieldType(of value: ParseValue) -> Field? {
        guard let type = value.fieldType else { return nil }
        return Field(type, targetClass: value.targetClassName)
    }

    /// Whether ``fieldType(of:)`` of a value is `field` (`false` for null), told without
    /// building the value's field: a reader asks it of every value, and rows of a class
    /// repeat their fields' types.
    /// - Parameters:
    ///   - value: a field value.
    ///   - field: the field type it may have.
    /// - Returns: `fieldType(of: value) == field`.
    public static func fieldType(of value: ParseValue, is field: Field) -> Bool {
        let code = value.fieldTypeCode
        guard code != 0, code == field.type.code else { return false }
        switch value {
        case .pointer(let p): return field.targetClass == p.className
        case .embedded(let o): return field.targetClass == o.className
        case .relation(let c): return field.targetClass == c
        default: return field.targetClass == nil
        }
    }

    // MARK: - Growing

    /// Adds the fields of an object's class that the schema lacks, each typed by its value
    /// (``fieldType(of:)``; a null adds nothing). The class is added when missing.
    /// - Parameter object: the object.
    public mutating func addFields(of object: ParseObject) {
        if classes[object.className] == nil { classes[object.className] = [:] }
        // By index, with the types of prepared values told without making them.
        let keys = object.storedFields.keys
        for i in keys.indices where classes[object.className]?[keys[i]] == nil {
            if let field = object.schemaField(at: i) { classes[object.className]?[keys[i]] = field }
        }
    }

    /// Adds another schema's classes and fields.
    /// - Parameters:
    ///   - other: the schema to add.
    ///   - replacing: whether a field both have takes `other`'s type (otherwise it keeps this
    ///     schema's, and only learns `other`'s target class when its own has none).
    public mutating func merge(_ other: ParseSchema, replacing: Bool) {
        for (className, fields) in other.classes {
            if classes[className] == nil { classes[className] = [:] }
            for (name, field) in fields {
                if let known = classes[className]?[name], !replacing {
                    // A Pointer or Relation whose target was unknown learns it; the type stays.
                    if known.type == field.type, known.targetClass == nil, field.targetClass != nil {
                        classes[className]?[name]?.targetClass = field.targetClass
                    }
                    continue
                }
                classes[className]?[name] = field
            }
        }
    }
}
