import PFVersioning

extension CodeModel {
    /// The types a versioning schema file declares: each type's current class name, class
    /// version, fields (keys, types, optionality) and classic layout, with nothing inferred.
    /// - Parameters:
    ///   - schema: the loaded schema (``PFVersioning/ArchiveSchema/load(_:path:transforms:)``).
    ///   - origin: the file's name, for doc comments.
    ///   - classes: only these types (by class name); `nil` for all.
    public init(schema: ArchiveSchema, origin: String, classes: Set<String>? = nil) {
        var taken: Set<String> = []
        var names: [String: String] = [:]
        for name in schema.types.keys { names[name] = SwiftNames.unique(SwiftNames.typeName(name), in: &taken) }
        var types: [GeneratedType] = []
        for (className, declared) in schema.types where classes?.contains(className) ?? true {
            let name = names[className] ?? SwiftNames.typeName(className)
            var doc = ["The `\(SwiftNames.docText(className))` type of `\(SwiftNames.docText(origin))` (schema), version \(declared.version)."]
            if !declared.aliases.isEmpty {
                doc.append("Older archives name the class " + declared.aliases.map { "`\(SwiftNames.docText($0))`" }.joined(separator: ", ")
                    + "; `pfarchive migrate` upgrades them.")
            }
            if let layout = declared.classicLayouts[declared.version] {
                doc.append("Classic (typedstream) value order of this version: "
                    + layout.map { "`\(SwiftNames.docText($0))`" }.joined(separator: ", ") + ".")
            }
            var type = GeneratedType(
                name: name, sourceName: className, kind: .model, properties: [], doc: doc, chain: [className, "NSObject"],
                version: declared.version, nested: [])
            var takenProperties: Set<String> = []
            for field in declared.fields {
                let propertyName = SwiftNames.unique(SwiftNames.propertyName(field.name), in: &takenProperties)
                var pdoc = ["`\(SwiftNames.docText(field.name))`: declared as `\(SwiftNames.docText(field.type.description))`"
                    + (field.optional ? ", optional." : ".")]
                if let value = field.defaultValue {
                    pdoc.append("Readers default it to `\(SwiftNames.docText(value.description))` when an archive lacks it.")
                }
                if !field.aliases.isEmpty {
                    pdoc.append("Formerly " + field.aliases.map { "`\(SwiftNames.docText($0))`" }.joined(separator: ", ") + ".")
                }
                let propertyType = Self.propertyType(field.type, names: names)
                type.properties.append(GeneratedProperty(
                    name: propertyName, key: field.name, type: propertyType,
                    isOptional: field.optional || propertyType == .any, doc: pdoc, isAlwaysPresent: !field.optional))
            }
            types.append(type)
        }
        self.init(source: .schema, origin: origin, types: types, conflicts: [])
    }

    /// The Swift type of a schema field type: enums are their symbols' strings (the doc
    /// comment lists them), maps and `any` are value trees.
    static func propertyType(_ type: FieldType, names: [String: String]) -> PropertyType {
        switch type {
        case .bool: .bool
        case .int32: .scalar("Int32")
        case .int64: .scalar("Int64")
        case .double: .double
        case .string, .enumeration: .string
        case .data: .data
        case .date: .date
        case .any, .map: .any
        case .reference(let target): names[target].map(PropertyType.model) ?? .any
        case .array(let element): .array(propertyType(element, names: names))
        }
    }
}
