import OrderedCollections
import PFCore

// The source model's flags on a schema field (required, indexed, primary key, embedded class):
// how every store spells them, and the strict comparison that includes them.

extension ParseSchema.Field {
    /// The key of a field spec (REST `/schemas`, parse-server's `fields_options`) saying the
    /// field is required: parse-server's own option.
    public static let requiredKey = "required"
    /// The key of a field spec saying the field is the source model's primary key
    /// (pfarchive's; parse-server keeps and ignores it).
    public static let primaryKeyKey = "primaryKey"
    /// The key of a field spec naming the embedded class of an Object field (pfarchive's;
    /// parse-server keeps and ignores it).
    public static let embeddedClassKey = "embeddedClass"
    /// The key of pfarchive's SQLite store's options saying the field is indexed (the other
    /// stores keep indexes where parse-server does, beside the fields).
    public static let indexedKey = "indexed"

    /// Whether the field carries any of the model's flags.
    public var hasModelFlags: Bool { isRequired || isIndexed || isPrimaryKey || embeddedClass != nil }

    /// Whether two fields are equal including the model's flags (``==`` compares the type and
    /// target class only).
    /// - Parameter other: the other field.
    public func sameModel(as other: ParseSchema.Field) -> Bool {
        self == other && isRequired == other.isRequired && isIndexed == other.isIndexed
            && isPrimaryKey == other.isPrimaryKey && embeddedClass == other.embeddedClass
    }

    /// The field's options besides its type: `required`, `primaryKey`, `embeddedClass` (only
    /// those set) and, with `indexed`, `indexed`.
    /// - Parameter indexed: whether to include the indexed flag (stores that keep indexes
    ///   beside the fields leave it out).
    public func modelOptions(indexed: Bool) -> OrderedDictionary<String, PFValue> {
        var out = OrderedDictionary<String, PFValue>()
        if isRequired { out[Self.requiredKey] = .bool(true) }
        if indexed, isIndexed { out[Self.indexedKey] = .bool(true) }
        if isPrimaryKey { out[Self.primaryKeyKey] = .bool(true) }
        if let embeddedClass { out[Self.embeddedClassKey] = .string(embeddedClass) }
        return out
    }

    /// The field's REST `/schemas` spec: `type`, `targetClass` and the options of
    /// ``modelOptions(indexed:)`` (indexes are the class's `indexes`).
    public var restSpec: OrderedDictionary<String, PFValue> {
        var spec: OrderedDictionary<String, PFValue> = ["type": .string(type.rawValue)]
        if let targetClass { spec["targetClass"] = .string(targetClass) }
        for (key, value) in modelOptions(indexed: false) { spec[key] = value }
        return spec
    }

    /// Takes the model's flags from a field spec or options object (keys of
    /// ``modelOptions(indexed:)``; others ignored, a flag is set only by `true`).
    /// - Parameter spec: the spec.
    public mutating func readOptions(_ spec: PFValue) {
        guard case .dictionary(let d) = spec else { return }
        if d[Self.requiredKey] == .bool(true) { isRequired = true }
        if d[Self.indexedKey] == .bool(true) { isIndexed = true }
        if d[Self.primaryKeyKey] == .bool(true) { isPrimaryKey = true }
        if case .string(let name)? = d[Self.embeddedClassKey], !name.isEmpty { embeddedClass = name }
    }
}

extension ParseSchema {
    /// The indexes of a class's indexed fields as parse-server lists them (REST `/schemas`
    /// `indexes`, Mongo `_metadata.indexes`): `{"<field>_1": {"<field>": 1}}`.
    /// - Parameters:
    ///   - fields: the class's fields.
    ///   - name: the index name of a field (MongoDB's default, `<field>_1`, unless given).
    public static func indexes(
        of fields: OrderedDictionary<String, Field>, name: (String) -> String = { $0 + "_1" }
    ) -> OrderedDictionary<String, PFValue> {
        var out = OrderedDictionary<String, PFValue>()
        for (field, spec) in fields where spec.isIndexed { out[name(field)] = .dictionary([field: .int(1)]) }
        return out
    }

    /// Marks the fields that a single-field index of parse-server's `indexes` covers as
    /// indexed (compound indexes and `_id_` name no one field and are left alone).
    /// - Parameters:
    ///   - fields: the class's fields.
    ///   - indexes: the `indexes` object, or `nil`.
    ///   - skipping: index names that do not mean the field is indexed (a store's own
    ///     primary-key index).
    public static func markIndexed(_ fields: inout OrderedDictionary<String, Field>, indexes: PFValue?, skipping: Set<String> = []) {
        guard case .dictionary(let all)? = indexes else { return }
        for (name, keys) in all where !skipping.contains(name) {
            guard case .dictionary(let d) = keys, d.count == 1, let field = d.keys.first else { continue }
            fields[field]?.isIndexed = true
        }
    }

    /// Every difference between two schemas, the model's flags included (``Field/sameModel(as:)``):
    /// a class or field one has and the other lacks, or a field that differs. Empty when they
    /// are equal.
    /// - Parameters:
    ///   - other: the schema to compare with (the one read back).
    ///   - extraFields: whether fields and classes only `other` has are differences (a store
    ///     types the fields a source's schema leaves open, such as Realm's Mixed, by value).
    /// - Returns: one line per difference, `Class.field: expected … got …`.
    public func modelDifferences(from other: ParseSchema, extraFields: Bool = true) -> [String] {
        var out: [String] = []
        for (className, fields) in classes {
            guard let theirs = other.classes[className] else {
                out.append("\(className): missing")
                continue
            }
            for (name, field) in fields {
                guard let got = theirs[name] else {
                    out.append("\(className).\(name): missing (expected \(field.modelDescription))")
                    continue
                }
                if !field.sameModel(as: got) {
                    out.append("\(className).\(name): expected \(field.modelDescription), got \(got.modelDescription)")
                }
            }
            for name in theirs.keys where extraFields && fields[name] == nil {
                out.append("\(className).\(name): not expected (\(theirs[name]?.modelDescription ?? ""))")
            }
        }
        for className in other.classes.keys where extraFields && classes[className] == nil { out.append("\(className): not expected") }
        return out
    }
}

extension ParseSchema.Field {
    /// The type and the flags set, for messages: `String required indexed primaryKey`.
    public var modelDescription: String {
        var parts = [description]
        if isRequired { parts.append("required") }
        if isIndexed { parts.append("indexed") }
        if isPrimaryKey { parts.append("primaryKey") }
        if let embeddedClass { parts.append("embedded \(embeddedClass)") }
        return parts.joined(separator: " ")
    }
}
