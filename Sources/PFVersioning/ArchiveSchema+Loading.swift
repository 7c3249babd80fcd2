import Foundation
import OrderedCollections
import PFCore
import PFSerialization

// MARK: - Loading a schema file

extension ArchiveSchema {
    /// The `schemaVersion` this build reads.
    public static let fileFormatVersion: Int64 = 1

    /// Loads a schema file (JSON; see Docs/Versioning.md for the format).
    ///
    /// Loading is strict: an unknown key anywhere, a default that does not fit its field, a
    /// field that reuses a reserved name, a `changeType` that is not a promotion or checked
    /// narrowing, a step outside `0..<version`, a transform the registry does not know, or a
    /// reference to an undescribed type is an error naming the key path.
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - path: the file's name, for errors.
    ///   - transforms: the transforms steps may name.
    /// - Returns: the schema.
    /// - Throws: ``PFCore/PFError`` from the JSON reader, or `invalidValue` (format `schema`)
    ///   naming the file and key path.
    public static func load(_ data: Data, path: String = "schema", transforms: TransformRegistry = .standard) throws(PFError)
        -> ArchiveSchema
    {
        let tree: PFValue
        do {
            tree = try Serialization.readTree(data, as: .json, options: .init(typedJSON: true))
        } catch {
            var copy = error
            copy.message = "\(path): \(copy.message)"
            throw copy
        }
        let loader = SchemaLoader(file: path, transforms: transforms)
        let schema = try loader.schema(tree)
        try loader.validate(schema)
        return schema
    }
}

struct SchemaLoader {
    let file: String
    let transforms: TransformRegistry

    func fail(_ problem: VersioningFailure.SchemaProblem, _ path: PFCodingPath) -> PFError {
        PFError(VersioningFailure.schema(file: file, problem), format: .schema, path: path.keyPath)
    }

    func object(_ value: PFValue, _ path: PFCodingPath, allowed: Set<String>, what: String) throws(PFError)
        -> OrderedDictionary<String, PFValue>
    {
        guard case .dictionary(let members) = value else {
            throw fail(.wrongKind(what, found: value.kind.rawValue, expected: "an object"), path)
        }
        for key in members.keys where !allowed.contains(key) {
            throw fail(.unknownKey(key, in: what, allowed: allowed.sorted()), path.appending(key: key))
        }
        return members
    }

    func string(_ value: PFValue?, _ path: PFCodingPath, _ what: String) throws(PFError) -> String {
        guard let value else { throw fail(.missing(what), path) }
        guard let s = value.stringValue, !s.isEmpty else {
            throw fail(.wrongKind(what, found: value.kind.rawValue, expected: "a non-empty string"), path)
        }
        return s
    }

    func int(_ value: PFValue?, _ path: PFCodingPath, _ what: String) throws(PFError) -> Int {
        guard let value else { throw fail(.missing(what), path) }
        guard let i = value.int64Value, let small = Int(exactly: i), small >= 0, small <= 1_000_000 else {
            throw fail(.wrongKind(what, found: value.scalarDescription, expected: "an integer from 0 to 1000000"), path)
        }
        return small
    }

    func strings(_ value: PFValue?, _ path: PFCodingPath, _ what: String) throws(PFError) -> [String] {
        guard let value else { return [] }
        guard case .array(let items) = value else { throw fail(.wrongKind(what, found: value.kind.rawValue, expected: "an array of strings"), path) }
        var out: [String] = []
        for (i, item) in items.enumerated() { out.append(try string(item, path.appending(index: i), what)) }
        return out
    }

    // MARK: - Parts

    func schema(_ tree: PFValue) throws(PFError) -> ArchiveSchema {
        let root = try object(tree, .root, allowed: ["schemaVersion", "types", "policies"], what: "the schema")
        let formatVersion = root["schemaVersion"]?.int64Value
        guard formatVersion == ArchiveSchema.fileFormatVersion else {
            throw fail(
                .schemaVersion(found: root["schemaVersion"]?.scalarDescription ?? "missing", expected: ArchiveSchema.fileFormatVersion),
                PFCodingPath.root.appending(key: "schemaVersion"))
        }
        let typesPath = PFCodingPath.root.appending(key: "types")
        guard case .dictionary(let typeMembers)? = root["types"], !typeMembers.isEmpty else {
            throw fail(.noTypes, typesPath)
        }
        var types: [TypeSchema] = []
        for (name, value) in typeMembers { types.append(try type(name, value, typesPath.appending(key: name))) }
        var policies = VersioningPolicies()
        if let value = root["policies"] {
            let path = PFCodingPath.root.appending(key: "policies")
            let members = try object(value, path, allowed: ["unknownFields", "newerVersions"], what: "policies")
            if let v = members["unknownFields"] {
                guard let policy = v.stringValue.flatMap(VersioningPolicies.UnknownFields.init(rawValue:)) else {
                    throw fail(.wrongKind("unknownFields", found: v.scalarDescription, expected: "preserve, drop or error"), path.appending(key: "unknownFields"))
                }
                policies.unknownFields = policy
            }
            if let v = members["newerVersions"] {
                guard let policy = v.stringValue.flatMap(VersioningPolicies.NewerVersions.init(rawValue:)) else {
                    throw fail(.wrongKind("newerVersions", found: v.scalarDescription, expected: "bestEffort or reject"), path.appending(key: "newerVersions"))
                }
                policies.newerVersions = policy
            }
        }
        return ArchiveSchema(types: types, policies: policies)
    }

    func type(_ name: String, _ value: PFValue, _ path: PFCodingPath) throws(PFError) -> TypeSchema {
        let members = try object(
            value, path, allowed: ["version", "aliases", "fields", "reserved", "classic", "migrations"], what: "type \(name)")
        let version = try int(members["version"], path.appending(key: "version"), "version")
        guard case .array(let fieldItems)? = members["fields"] else {
            throw fail(.fieldsNotArray, path.appending(key: "fields"))
        }
        var fields: [FieldSchema] = []
        for (i, item) in fieldItems.enumerated() { fields.append(try field(item, path.appending(key: "fields").appending(index: i))) }
        var layouts: [Int: [String]] = [:]
        if let classic = members["classic"] {
            guard case .dictionary(let entries) = classic else {
                throw fail(.classicNotObject, path.appending(key: "classic"))
            }
            for (key, names) in entries {
                guard let v = Int(key), v >= 0, v <= version else {
                    throw fail(.classicKey(key, version: version), path.appending(key: "classic").appending(key: key))
                }
                layouts[v] = try strings(names, path.appending(key: "classic").appending(key: key), "a classic layout")
            }
        }
        var steps: [MigrationStep] = []
        if let migrations = members["migrations"] {
            guard case .array(let items) = migrations else { throw fail(.migrationsNotArray, path.appending(key: "migrations")) }
            for (i, item) in items.enumerated() { steps.append(try step(item, path.appending(key: "migrations").appending(index: i))) }
        }
        return TypeSchema(
            name: name, version: version, aliases: try strings(members["aliases"], path.appending(key: "aliases"), "an alias"),
            fields: fields, reserved: try strings(members["reserved"], path.appending(key: "reserved"), "a reserved name"),
            classicLayouts: layouts, migrations: steps)
    }

    func field(_ value: PFValue, _ path: PFCodingPath) throws(PFError) -> FieldSchema {
        let members = try object(
            value, path, allowed: ["name", "type", "default", "optional", "aliases", "unknownDefault"], what: "a field")
        let name = try string(members["name"], path.appending(key: "name"), "name")
        guard let typeValue = members["type"] else { throw fail(.fieldWithoutType(name), path) }
        var optional = false
        if let o = members["optional"] {
            guard let b = o.boolValue else { throw fail(.wrongKind("optional", found: o.kind.rawValue, expected: "true or false"), path.appending(key: "optional")) }
            optional = b
        }
        var unknownDefault: String?
        if let u = members["unknownDefault"] { unknownDefault = try string(u, path.appending(key: "unknownDefault"), "unknownDefault") }
        return FieldSchema(
            name, try fieldType(typeValue, path.appending(key: "type")), default: members["default"], optional: optional,
            aliases: try strings(members["aliases"], path.appending(key: "aliases"), "an alias"), unknownDefault: unknownDefault)
    }

    func fieldType(_ value: PFValue, _ path: PFCodingPath, depth: Int = 0) throws(PFError) -> FieldType {
        guard depth < 32 else { throw fail(.typesTooDeep, path) }
        if let name = value.stringValue {
            guard let type = FieldType.scalarNames[name] else {
                throw fail(.unknownType(name, known: FieldType.scalarNames.keys.sorted()), path)
            }
            return type
        }
        let members = try object(value, path, allowed: ["enum", "ref", "array", "map"], what: "a type")
        guard members.count == 1, let (key, inner) = members.elements.first else {
            throw fail(.compositeType, path)
        }
        switch key {
        case "enum":
            let symbols = try strings(inner, path.appending(key: "enum"), "an enum symbol")
            guard !symbols.isEmpty, Set(symbols).count == symbols.count else {
                throw fail(.enumSymbols, path.appending(key: "enum"))
            }
            return .enumeration(symbols)
        case "ref": return .reference(try string(inner, path.appending(key: "ref"), "ref"))
        case "array": return .array(try fieldType(inner, path.appending(key: "array"), depth: depth + 1))
        default: return .map(try fieldType(inner, path.appending(key: "map"), depth: depth + 1))
        }
    }

    func step(_ value: PFValue, _ path: PFCodingPath) throws(PFError) -> MigrationStep {
        let members = try object(value, path, allowed: ["from", "ops"], what: "a migration step")
        let from = try int(members["from"], path.appending(key: "from"), "from")
        guard case .array(let items)? = members["ops"] else { throw fail(.opsNotArray, path.appending(key: "ops")) }
        var ops: [MigrationOp] = []
        for (i, item) in items.enumerated() { ops.append(try op(item, path.appending(key: "ops").appending(index: i))) }
        return MigrationStep(from: from, ops)
    }

    func op(_ value: PFValue, _ path: PFCodingPath) throws(PFError) -> MigrationOp {
        guard let name = value["op"]?.stringValue else { throw fail(.opWithoutName, path) }
        func keys(_ allowed: Set<String>) throws(PFError) -> OrderedDictionary<String, PFValue> {
            try object(value, path, allowed: allowed.union(["op"]), what: "\(name)")
        }
        func str(_ m: OrderedDictionary<String, PFValue>, _ key: String) throws(PFError) -> String {
            try string(m[key], path.appending(key: key), key)
        }
        switch name {
        case "renameField":
            let m = try keys(["from", "to"])
            return .renameField(from: try str(m, "from"), to: try str(m, "to"))
        case "addField":
            let m = try keys(["name", "default"])
            guard let value = m["default"] else { throw fail(.addFieldWithoutDefault, path) }
            return .addField(try str(m, "name"), default: value)
        case "removeField":
            return .removeField(try str(try keys(["name"]), "name"))
        case "renameClass":
            return .renameClass(from: try str(try keys(["from"]), "from"))
        case "changeType":
            let m = try keys(["field", "from", "to"])
            guard let fromValue = m["from"], let toValue = m["to"] else { throw fail(.changeTypeWithoutTypes, path) }
            let from = try fieldType(fromValue, path.appending(key: "from"))
            let to = try fieldType(toValue, path.appending(key: "to"))
            guard from.converts(to: to) else {
                throw fail(.changeTypeNotAllowed(from: "\(from)", to: "\(to)"), path)
            }
            return .changeType(field: try str(m, "field"), from: from, to: to)
        case "mapValues", "mapEnum":
            let m = try keys(["field", "into", "map", "default"])
            guard case .dictionary(let table)? = m["map"], !table.isEmpty else {
                throw fail(.emptyMap(op: name), path.appending(key: "map"))
            }
            let into = try m["into"].map { v throws(PFError) in try string(v, path.appending(key: "into"), "into") }
            return .mapValues(field: try str(m, "field"), into: into, map: Dictionary(uniqueKeysWithValues: table.map { ($0.key, $0.value) }), fallback: m["default"])
        case "transform":
            let m = try keys(["field", "using", "into"])
            let using = try str(m, "using")
            guard transforms.fieldTransformNames.contains(using) else {
                throw fail(.unknownFieldTransform(using, registered: transforms.fieldTransformNames), path.appending(key: "using"))
            }
            let into = try m["into"].map { v throws(PFError) in try string(v, path.appending(key: "into"), "into") }
            return .transform(field: try str(m, "field"), using: using, into: into)
        case "transformObject":
            let using = try str(try keys(["using"]), "using")
            guard transforms.objectTransformNames.contains(using) else {
                throw fail(.unknownObjectTransform(using, registered: transforms.objectTransformNames), path.appending(key: "using"))
            }
            return .transformObject(using: using)
        default:
            throw fail(.unknownOp(name), path.appending(key: "op"))
        }
    }

    // MARK: - Whole-schema checks

    func validate(_ schema: ArchiveSchema) throws(PFError) {
        var classNames: [String: String] = [:]
        for type in schema.types.values {
            for name in [type.name] + type.aliases {
                if let other = classNames[name] {
                    throw fail(.classNameTwice(name, first: other, second: type.name), PFCodingPath.root.appending(key: "types").appending(key: type.name))
                }
                classNames[name] = type.name
            }
        }
        for type in schema.types.values {
            let path = PFCodingPath.root.appending(key: "types").appending(key: type.name)
            var seen: Set<String> = []
            for (i, field) in type.fields.enumerated() {
                let fieldPath = path.appending(key: "fields").appending(index: i)
                for name in [field.name] + field.aliases {
                    guard seen.insert(name).inserted else { throw fail(.fieldNameTwice(name, type: type.name), fieldPath) }
                    guard !type.reserved.contains(name) else {
                        throw fail(.reservedName(type: type.name, field: name), fieldPath)
                    }
                }
                try checkReferences(field.type, schema, fieldPath.appending(key: "type"))
                if case .enumeration(let symbols) = field.type, let u = field.unknownDefault, !symbols.contains(u) {
                    throw fail(.unknownDefaultNotSymbol(u), fieldPath.appending(key: "unknownDefault"))
                }
                if let value = field.defaultValue {
                    if let problem = Resolver.defaultProblem(value, field.type, optional: field.optional) {
                        throw fail(.badDefault(type: type.name, field: field.name, problem), fieldPath.appending(key: "default"))
                    }
                }
            }
            var froms: Set<Int> = []
            for (i, step) in type.migrations.enumerated() {
                let stepPath = path.appending(key: "migrations").appending(index: i)
                guard step.from < type.version else {
                    throw fail(.stepNotBelowVersion(from: step.from, version: type.version), stepPath.appending(key: "from"))
                }
                guard froms.insert(step.from).inserted else { throw fail(.twoSteps(from: step.from), stepPath.appending(key: "from")) }
                for (j, op) in step.ops.enumerated() {
                    if case .renameClass(let from) = op, classNames[from] != type.name {
                        throw fail(.renameClassNotAlias(from, type: type.name), stepPath.appending(key: "ops").appending(index: j))
                    }
                }
            }
            if let layout = type.classicLayouts[type.version] {
                for (i, name) in layout.enumerated() where type.fields.first(where: { $0.name == name }) == nil {
                    throw fail(.classicNamesNoField(name, type: type.name, version: type.version), path.appending(key: "classic").appending(key: "\(type.version)").appending(index: i))
                }
            }
        }
    }

    func checkReferences(_ type: FieldType, _ schema: ArchiveSchema, _ path: PFCodingPath) throws(PFError) {
        switch type {
        case .reference(let name):
            guard schema.types[name] != nil else { throw fail(.unknownReference(name), path) }
        case .array(let inner), .map(let inner): try checkReferences(inner, schema, path)
        default: break
        }
    }
}
