import OrderedCollections
import PFParse

/// The Swift type of a generated property.
public indirect enum PropertyType: Sendable, Equatable {
    case bool, int, uint64, double, string, date, data
    /// One of Parse's own types: `ParsePointer`, `ParseFile`, `ParseGeoPoint`, `ParsePolygon`, `ParseACL`.
    case parse(String)
    /// A Pointer to a generated model: `ParseReference<Name>`.
    case reference(String)
    /// A Relation: `ParseRelation<Name>`, the generated model of its target class (or
    /// `ParseObject` when the target has none).
    case relation(String)
    /// A generated type (a nested struct, or an archived class).
    case model(String)
    /// A generated string enum.
    case enumeration(String)
    case array(PropertyType)
    /// A fixed-width number of a typedstream group: `Int8`, `Int32`, `UInt64`, `Float`...
    case scalar(String)
    /// A typedstream value group kept as it is read (`TypedStreamGroup`): structs, C
    /// strings, several values written by one call.
    case group
    /// Anything: `ParseValue` for Parse sources, `ClassicExactValue` for typedstream classes
    /// (archive style), `PFValue` for the others.
    case any

    /// The Swift spelling.
    /// - Parameters:
    ///   - anyType: the type of `.any`.
    ///   - classic: whether arrays are `ClassicArray<Element>` (typedstream classes, which
    ///     write each array back as the class it was read as) rather than Swift arrays.
    func spelled(anyType: String, classic: Bool = false) -> String {
        switch self {
        case .bool: "Bool"
        case .int: "Int"
        case .uint64: "UInt64"
        case .double: "Double"
        case .string: "String"
        case .date: "Date"
        case .data: "Data"
        case .parse(let name): name
        case .reference(let name): "ParseReference<\(name)>"
        case .relation(let name): "ParseRelation<\(name)>"
        case .model(let name), .enumeration(let name): name
        case .array(.group): "[TypedStreamGroup]"
        case .array(let element) where classic: "ClassicArray<\(element.spelled(anyType: anyType, classic: true))>"
        case .array(let element): "[\(element.spelled(anyType: anyType))]"
        case .scalar(let name): name
        case .group: "TypedStreamGroup"
        case .any: anyType
        }
    }
}

/// One generated property.
public struct GeneratedProperty: Sendable, Equatable {
    /// The Swift name (without backticks).
    public var name: String
    /// The key in the source.
    public var key: String
    /// The type (without the optional).
    public var type: PropertyType
    /// Whether the property is optional (the data has nulls or rows without the key).
    public var isOptional: Bool
    /// Doc comment lines: where the field came from and what was seen.
    public var doc: [String]
    /// Whether every object held the key (a `nil` is then written back as null, not left out).
    public var isAlwaysPresent = false
    /// Whether some object held null for the key: in the adapter style the property is a
    /// double optional (`T??`), `.some(nil)` for a null and `nil` for a missing key, so both
    /// round-trip.
    public var keepsNull = false
    /// The type encodings of the value group the property is read from and written as
    /// (typedstream classes, whose values are stored by position).
    public var classicEncoding: String? = nil
}

/// One generated type.
public struct GeneratedType: Sendable, Equatable {
    /// How the type is declared.
    public enum Kind: Sendable, Equatable {
        /// A model for a class of the source.
        case model
        /// A struct for an Object field with a stable shape.
        case nested
        /// A string enum, with its cases' Swift names and raw values.
        case enumeration([(name: String, value: String)])

        public static func == (a: Kind, b: Kind) -> Bool {
            switch (a, b) {
            case (.model, .model), (.nested, .nested): true
            case (.enumeration(let x), .enumeration(let y)): x.map(\.name) == y.map(\.name) && x.map(\.value) == y.map(\.value)
            default: false
            }
        }
    }

    /// The Swift name.
    public var name: String
    /// The class (or field) name in the source.
    public var sourceName: String
    /// Model, nested struct or enum.
    public var kind: Kind
    /// The properties.
    public var properties: [GeneratedProperty]
    /// Doc comment lines.
    public var doc: [String]
    /// The archived class chain (archives), most derived first.
    public var chain: [String]
    /// The class version (archives).
    public var version: Int
    /// The superclasses with their versions, most derived first (typedstream classes).
    public var classicSuperclasses: [ClassicSuperclass] = []
    /// The generated type this class inherits from (typedstream and keyed archive classes,
    /// archive style): the nearest superclass in its archived chain that is generated as a
    /// ``isClassicBase`` class.
    public var superclass: String? = nil
    /// Whether this is a superclass with no object of its own in the source, generated so a
    /// position (typedstream) or key (keyed archive) holding objects of several of its
    /// subclasses has one type: it holds no values and is not in the registry.
    public var isClassicBase = false
    /// Types declared inside this one (nested structs and enums).
    public var nested: [GeneratedType]
}

/// A superclass of a typedstream class, with the version the stream recorded.
public struct ClassicSuperclass: Sendable, Equatable {
    /// The class name.
    public var name: String
    /// Its version.
    public var version: Int
}

/// A field whose rows disagree on its type, and how the generated code resolves it.
public struct CodegenConflict: Sendable, Equatable, CustomStringConvertible {
    /// The class.
    public var className: String
    /// The key path of the field (`location.city`, `tags[]`).
    public var field: String
    /// The kinds met, with how many values of each.
    public var kinds: [(kind: ObservedKind, count: Int)]
    /// What the generated code does.
    public var resolution: String

    public var description: String {
        guard !kinds.isEmpty else { return "\(className).\(field): \(resolution)" }
        let seen = kinds.map { "\($0.kind.rawValue) in \($0.count)" }.joined(separator: ", ")
        return "\(className).\(field): \(seen); \(resolution)"
    }

    public static func == (a: CodegenConflict, b: CodegenConflict) -> Bool {
        a.className == b.className && a.field == b.field && a.resolution == b.resolution
            && a.kinds.map(\.kind) == b.kinds.map(\.kind) && a.kinds.map(\.count) == b.kinds.map(\.count)
    }
}

/// The types to generate, resolved from inference statistics.
public struct CodeModel: Sendable {
    /// The source kind.
    public var source: CodegenSourceKind
    /// The source's name.
    public var origin: String
    /// The model types, in source order.
    public var types: [GeneratedType]
    /// Fields whose values disagreed, and how each was resolved.
    public var conflicts: [CodegenConflict]
}

/// Choices that shape the resolved model.
public struct CodeModelOptions: Sendable {
    /// Only these classes (by source name); `nil` for all.
    public var classes: Set<String>?
    /// Make string fields with few distinct values enums.
    public var enums = false
    /// Make nested structs for Object fields with a stable shape (off for the archive style,
    /// whose dictionaries decode as value trees).
    public var nestedStructs = true
    /// The archive style: make typedstream classes positional `ClassicArchiveCoding`
    /// classes, and give a field holding objects of several archived classes (keyed or
    /// typedstream) their nearest common superclass as a generated base class.
    public var classic = false

    /// Makes options.
    public init(classes: Set<String>? = nil, enums: Bool = false) {
        self.classes = classes
        self.enums = enums
    }
}

extension TypeInference {
    /// Resolves the statistics into types, properties and conflicts.
    /// - Parameter options: which classes, and whether to make enums.
    /// - Returns: the model.
    public func model(options: CodeModelOptions = CodeModelOptions()) -> CodeModel {
        var resolver = Resolver(inference: self, options: options)
        return resolver.resolve()
    }
}

struct Resolver {
    let inference: TypeInference
    let options: CodeModelOptions
    var conflicts: [CodegenConflict] = []
    var typeNames: [String: String] = [:]
    /// Typedstream superclasses generated as bases (by source name, in the order first
    /// needed), each the nearest common superclass of a position's objects.
    var classicBases: OrderedDictionary<String, Void> = [:]

    init(inference: TypeInference, options: CodeModelOptions) {
        self.inference = inference
        self.options = options
    }

    var wanted: [ClassStatistics] {
        inference.classes.values.filter { options.classes?.contains($0.name) ?? true }
    }

    mutating func resolve() -> CodeModel {
        var taken: Set<String> = []
        // Classes named alike once mangled (`_User` and `User`) keep distinct names: the one
        // spelled exactly wins, the others get a numeric suffix.
        let ordered = wanted.sorted { a, b in
            (SwiftNames.typeName(a.name) == a.name ? 0 : 1, 0) < (SwiftNames.typeName(b.name) == b.name ? 0 : 1, 0)
        }
        for stats in ordered {
            typeNames[stats.name] = SwiftNames.unique(SwiftNames.typeName(stats.name), in: &taken)
        }
        let classicHierarchy = (inference.source == .typedstream || inference.source == .keyedArchive) && options.classic
        if classicHierarchy {
            // The superclasses a position's (or a key's) objects share are named before any
            // class is resolved, so every field can be typed as one.
            for stats in wanted {
                if inference.source == .keyedArchive {
                    for field in stats.shape.fields.values {
                        if let base = classicPositionBase(field) { classicBases[base] = () }
                    }
                    continue
                }
                for (i, encoding) in stats.classicGroups.enumerated() where encoding == "@" {
                    guard let field = stats.shape.fields[String(i)] else { continue }
                    if let base = classicPositionBase(field) { classicBases[base] = () }
                }
            }
            for base in classicBases.keys {
                typeNames[base] = SwiftNames.unique(SwiftNames.typeName(base), in: &taken)
            }
        }
        var types: [GeneratedType] = []
        for stats in wanted {
            types.append(resolveClass(stats))
        }
        if classicHierarchy {
            types += classicBases.keys.map(classicBaseType)
            for i in types.indices { types[i].superclass = classicSuperclass(of: types[i].sourceName) }
        }
        return CodeModel(source: inference.source, origin: inference.origin, types: types, conflicts: conflicts)
    }

    mutating func resolveClass(_ stats: ClassStatistics) -> GeneratedType {
        if inference.source == .typedstream, options.classic { return resolveClassic(stats) }
        let name = typeNames[stats.name] ?? SwiftNames.typeName(stats.name)
        var doc = ["The `\(SwiftNames.docText(stats.name))` class of `\(SwiftNames.docText(inference.origin))` (\(inference.source.rawValue)),"
            + " inferred from \(stats.shape.rows) \(stats.shape.rows == 1 ? "object" : "objects")."]
        if !stats.chain.isEmpty {
            doc.append("Archived as `\(stats.chain.joined(separator: " : "))`, version \(stats.versions.sorted().map(String.init).joined(separator: ", ")).")
        }
        var type = GeneratedType(
            name: name, sourceName: stats.name, kind: .model, properties: [], doc: doc,
            chain: stats.chain.isEmpty ? [stats.name, "NSObject"] : stats.chain, version: stats.versions.max() ?? 0, nested: [])
        var takenProperties: Set<String> = []
        var nestedNames: Set<String> = [name]
        for (key, field) in stats.shape.fields {
            var propertyName = SwiftNames.propertyName(key)
            if key == "ACL" { propertyName = "acl" }
            propertyName = SwiftNames.unique(propertyName, in: &takenProperties)
            let (propertyType, notes) = resolveField(
                field, rows: stats.shape.rows, className: stats.name, path: key, owner: &type, nestedNames: &nestedNames,
                propertyName: propertyName)
            var pdoc = ["`\(SwiftNames.docText(key))`: " + describe(field, rows: stats.shape.rows)]
            pdoc += notes
            // Parse's default columns are absent from an object not saved yet.
            let serverSet = inference.source == .parse && ["objectId", "createdAt", "updatedAt"].contains(key)
            let optional = field.nulls > 0 || field.present < stats.shape.rows || propertyType == .any || serverSet
                || stats.modelOptional.contains(key)
            type.properties.append(GeneratedProperty(
                name: propertyName, key: key, type: propertyType, isOptional: optional, doc: pdoc,
                isAlwaysPresent: field.present == stats.shape.rows, keepsNull: field.nulls > 0))
        }
        if stats.shape.overflowed {
            // Past the bound, keys are not counted: the type cannot hold them, and says so
            // (a class of more keys is a map keyed by names, as an icon font's metadata is).
            let bound = stats.shape.limits.fieldsPerShape
            let lost = "more than \(bound) distinct keys: the first \(bound) are properties, the others are not in `\(name)`"
                + " and are lost through it (a document keyed by names is a dictionary: decode it as one)"
            type.doc.append("Holds \(lost).")
            conflicts.append(CodegenConflict(className: stats.name, field: "*", kinds: [], resolution: lost))
        }
        // Relations and declared fields no row holds.
        for (field, target) in stats.relations where stats.shape.fields[field] == nil {
            let propertyName = SwiftNames.unique(SwiftNames.propertyName(field), in: &takenProperties)
            var pdoc = ["`\(SwiftNames.docText(field))`: a Relation" + (target.map { " to `\(SwiftNames.docText($0))`" } ?? "")
                + "; its pairs are in `_Join:\(SwiftNames.docText(field)):\(SwiftNames.docText(stats.name))`, not in the objects."]
            let (t, notes) = relationType(target: target)
            pdoc += notes
            type.properties.append(GeneratedProperty(name: propertyName, key: field, type: t, isOptional: true, doc: pdoc))
        }
        for (field, declared) in stats.declared where stats.shape.fields[field] == nil && stats.relations[field] == nil {
            let propertyName = SwiftNames.unique(SwiftNames.propertyName(field), in: &takenProperties)
            let (t, notes) = declaredType(declared, className: stats.name) ?? (.any, [])
            type.properties.append(GeneratedProperty(
                name: propertyName, key: field, type: t, isOptional: true,
                doc: ["`\(SwiftNames.docText(field))`: declared in the schema as `\(SwiftNames.docText(declared.description))`; no object holds it."]
                    + notes))
        }
        return type
    }

    /// The Swift type a schema's declared field type gives, with notes; `nil` for a type whose
    /// Swift type the values would have to say (Object, Array, Relation, an unknown type).
    mutating func declaredType(_ declared: ParseSchema.Field, className: String) -> (PropertyType, [String])? {
        switch declared.type {
        case .boolean: return (.bool, [])
        case .number: return (.double, [])
        case .string: return (.string, [])
        case .date: return (.date, [])
        case .bytes: return (.data, [])
        case .file: return (.parse("ParseFile"), [])
        case .geoPoint: return (.parse("ParseGeoPoint"), [])
        case .polygon: return (.parse("ParsePolygon"), [])
        case .acl: return (.parse("ParseACL"), [])
        case .pointer:
            guard let target = declared.targetClass else { return (.parse("ParsePointer"), []) }
            return pointerType(target: target, className: className)
        default: return nil
        }
    }

    /// A typedstream class: one property per value group, in stream order, typed from the
    /// group's encoding (and, for objects, from what the objects held).
    mutating func resolveClassic(_ stats: ClassStatistics) -> GeneratedType {
        let name = typeNames[stats.name] ?? SwiftNames.typeName(stats.name)
        let versions = stats.versions.sorted().map(String.init).joined(separator: ", ")
        let chain = stats.chain.isEmpty ? [stats.name, "NSObject"] : stats.chain
        let doc = [
            "The `\(SwiftNames.docText(stats.name))` class of `\(SwiftNames.docText(inference.origin))` (typedstream),"
                + " inferred from \(stats.shape.rows) \(stats.shape.rows == 1 ? "object" : "objects").",
            "Archived as `\(SwiftNames.docText(chain.joined(separator: " : ")))`, version \(versions); values are read and written by position.",
        ]
        var type = GeneratedType(
            name: name, sourceName: stats.name, kind: .model, properties: [], doc: doc, chain: chain,
            version: stats.versions.max() ?? 0, nested: [])
        type.classicSuperclasses = stats.classicSuperclasses.isEmpty
            ? [ClassicSuperclass(name: "NSObject", version: 0)]
            : stats.classicSuperclasses.map { ClassicSuperclass(name: $0.name, version: $0.version) }
        let scalars: [String: String] = [
            "c": "Int8", "C": "UInt8", "s": "Int16", "S": "UInt16", "i": "Int32", "I": "UInt32",
            "q": "Int64", "Q": "UInt64", "f": "Float", "d": "Double",
        ]
        for (i, encoding) in stats.classicGroups.enumerated() {
            let field = stats.shape.fields[String(i)]
            var pdoc = ["Value group \(i)" + (encoding.map { " (`\(SwiftNames.docText($0))`)" } ?? "") + ": "
                + (field.map { describe($0, rows: stats.shape.rows) } ?? "no value.")]
            var propertyType: PropertyType = .group
            if let encoding, let scalar = scalars[encoding] {
                propertyType = .scalar(scalar)
            } else if encoding == "@", let field {
                let kinds = Set(field.kindsSeen)
                if kinds == [.string] {
                    propertyType = .string
                } else if kinds == [.archivedObject], field.archivedClasses.count == 1, let target = field.archivedClasses.keys.first,
                    let targetName = typeNames[target]
                {
                    propertyType = .model(targetName)
                    pdoc.append("Read once every object exists (`decodeReference`), so back-references and cycles decode.")
                } else if kinds == [.array], let elements = field.elements, elements.nulls == 0, Set(elements.kindsSeen) == [.archivedObject],
                    elements.archivedClasses.count == 1, let target = elements.archivedClasses.keys.first, let targetName = typeNames[target]
                {
                    propertyType = .array(.model(targetName))
                } else if kinds == [.archivedObject], let base = classicPositionBase(field), let baseName = typeNames[base] {
                    propertyType = .model(baseName)
                    pdoc.append("Objects of several classes: typed as their nearest common superclass, `\(SwiftNames.docText(base))`,"
                        + " read once every object exists (`decodeReference`).")
                } else if kinds == [.array], let base = classicPositionBase(field), let baseName = typeNames[base] {
                    propertyType = .array(.model(baseName))
                    pdoc.append("Elements of several classes: typed as their nearest common superclass, `\(SwiftNames.docText(base))`.")
                } else {
                    propertyType = .any
                    if kinds.count > 1 {
                        conflict(stats.name, String(i), field, "kept as PFValue, which holds every value as it is")
                    } else if kinds == [.archivedObject], field.archivedClasses.count > 1 {
                        conflict(stats.name, String(i), field, "objects of several classes with no common generated superclass: kept as PFValue")
                    }
                }
            } else if encoding == nil {
                pdoc.append("The objects disagree on this group's types (or some lack it): kept as the group read.")
            }
            if propertyType == .group, encoding != nil {
                pdoc.append("Kept as the group read (`TypedStreamGroup`) and written back with the same encodings.")
            }
            let isObject = encoding == "@"
            // A group some objects end before (a path of as many groups as it has points) is
            // read only when the object has one left, and written only when read.
            let trailing = propertyType == .group && (field?.present ?? 0) < stats.shape.rows
            if trailing { pdoc.append("Some objects end before this group: `nil` for them.") }
            type.properties.append(GeneratedProperty(
                name: "value\(i)", key: String(i), type: propertyType, isOptional: isObject || trailing, doc: pdoc,
                isAlwaysPresent: true, classicEncoding: encoding))
        }
        foldTrailingGroups(&type)
        return type
    }

    /// Folds the groups some objects end before (a path's points, one group each: Grapher's
    /// `NSBezierPath` has 1,628) into one `[TypedStreamGroup]` property read until the object
    /// ends. One property per group made the generated class take minutes to compile; each
    /// element keeps its own encodings, so it is written back exactly as read.
    func foldTrailingGroups(_ type: inout GeneratedType) {
        guard let first = type.properties.firstIndex(where: { $0.type == .group && $0.isOptional && $0.classicEncoding != "@" }),
            type.properties.count - first >= 2,
            type.properties[first...].allSatisfy({ $0.type == .group && $0.isOptional && $0.classicEncoding != "@" })
        else { return }
        let folded = type.properties[first...]
        var encodings: [String] = []
        for encoding in folded.compactMap(\.classicEncoding) where !encodings.contains(encoding) { encodings.append(encoding) }
        let described = encodings.isEmpty ? "" : " (" + encodings.prefix(4).map { "`\(SwiftNames.docText($0))`" }.joined(separator: ", ")
            + (encodings.count > 4 ? ", ..." : "") + ")"
        let last = type.properties.count - 1
        type.properties.replaceSubrange(first..., with: [GeneratedProperty(
            name: "value\(first)", key: String(first), type: .array(.group), isOptional: false,
            doc: ["Value groups \(first)-\(last)\(described): the groups objects end before, in stream order,",
                "read until the object ends and written back with the same encodings."],
            isAlwaysPresent: true, classicEncoding: nil)])
    }

    // MARK: - Typedstream class hierarchy

    /// An archived class's chain (typedstream or keyed archive), most derived first: its
    /// own, or for a class with no object of its own, the rest of a subclass's chain from it on
    /// (a keyed archive's `$classes`, a typedstream's class table).
    func classicChain(of name: String) -> [String] {
        if let stats = inference.classes[name] { return stats.chain.isEmpty ? [name, "NSObject"] : stats.chain }
        if let supers = classicSuperclasses(of: name) { return supers.map(\.name) }
        for stats in inference.classes.values {
            if let i = stats.chain.firstIndex(of: name) { return Array(stats.chain[i...]) }
        }
        return [name, "NSObject"]
    }

    /// A class with its version and superclasses, from some object's chain: for a class with
    /// no object of its own.
    func classicSuperclasses(of name: String) -> [(name: String, version: Int)]? {
        for stats in inference.classes.values {
            if let i = stats.classicSuperclasses.firstIndex(where: { $0.name == name }) {
                return Array(stats.classicSuperclasses[i...])
            }
        }
        return nil
    }

    /// The nearest superclass shared by every object a field held, when they are of several
    /// generated classes (all of them recorded) and one exists that has no object of its own
    /// in the stream and is not `NSObject`: the base the field is typed as. A class with
    /// objects of its own is never a base (its values and its subclasses' would clash), so
    /// the search goes on above it.
    func sharedClassicBase(_ field: FieldStatistics) -> String? {
        let classes = Array(field.archivedClasses.keys)
        guard classes.count > 1, field.archivedClasses.values.reduce(0, +) == field.kinds[.archivedObject] ?? 0,
            classes.allSatisfy({ typeNames[$0] != nil && inference.classes[$0] != nil }), let first = classes.first
        else { return nil }
        let others = classes.dropFirst().map { Set(classicChain(of: $0)) }
        for candidate in classicChain(of: first).dropFirst() where candidate != "NSObject" && inference.classes[candidate] == nil {
            if others.allSatisfy({ $0.contains(candidate) }) { return candidate }
        }
        return nil
    }

    /// The base an object position (`@`) is typed as: objects of several classes, or an
    /// array of them (no nulls), sharing a superclass (``sharedClassicBase(_:)``).
    func classicPositionBase(_ field: FieldStatistics) -> String? {
        switch Set(field.kindsSeen) {
        case [.archivedObject]: return sharedClassicBase(field)
        case [.array]:
            guard let elements = field.elements, elements.nulls == 0, Set(elements.kindsSeen) == [.archivedObject] else { return nil }
            return sharedClassicBase(elements)
        default: return nil
        }
    }

    /// The generated base a class inherits from: the nearest in its chain.
    func classicSuperclass(of name: String) -> String? {
        classicChain(of: name).dropFirst().first { classicBases[$0] != nil }.flatMap { typeNames[$0] }
    }

    /// The type of a base: no values, its version and superclasses from its subclasses' chains.
    func classicBaseType(_ base: String) -> GeneratedType {
        let supers = classicSuperclasses(of: base) ?? [(name: base, version: 0)]
        let chain = classicChain(of: base)
        let subclasses = wanted.filter { classicChain(of: $0.name).dropFirst().contains(base) }.map { "`\(SwiftNames.docText($0.name))`" }
        if inference.source == .keyedArchive {
            // A keyed archive's `$classes` carry no versions of the superclasses: version 0.
            let doc = [
                "The `\(SwiftNames.docText(base))` class of `\(SwiftNames.docText(inference.origin))` (keyed archive): no object of its own"
                    + " in the archive, the superclass of \(subclasses.joined(separator: ", ")), so a key holding objects of several of them has one type.",
                "Archived as `\(SwiftNames.docText(chain.joined(separator: " : ")))`; it holds no keys (each subclass reads and writes all of its own)"
                    + " and is not in the registry.",
            ]
            var type = GeneratedType(
                name: typeNames[base] ?? SwiftNames.typeName(base), sourceName: base, kind: .model, properties: [], doc: doc, chain: chain,
                version: 0, nested: [])
            type.isClassicBase = true
            return type
        }
        let doc = [
            "The `\(SwiftNames.docText(base))` class of `\(SwiftNames.docText(inference.origin))` (typedstream): no object of its own in the"
                + " stream, the superclass of \(subclasses.joined(separator: ", ")), so a position holding objects of several of them has one type.",
            "Archived as `\(SwiftNames.docText(chain.joined(separator: " : ")))`, version \(supers.first?.version ?? 0); it holds no values"
                + " (each subclass reads and writes all of its own) and is not in the registry.",
        ]
        var type = GeneratedType(
            name: typeNames[base] ?? SwiftNames.typeName(base), sourceName: base, kind: .model, properties: [], doc: doc, chain: chain,
            version: supers.first?.version ?? 0, nested: [])
        let above = supers.dropFirst()
        type.classicSuperclasses = above.isEmpty
            ? [ClassicSuperclass(name: "NSObject", version: 0)] : above.map { ClassicSuperclass(name: $0.name, version: $0.version) }
        type.isClassicBase = true
        return type
    }

    /// What was seen, for a doc comment: `integer in all 12 objects`, or
    /// `integer in 3, String in 1, null in 2; missing from 4 of 10 objects`.
    func describe(_ field: FieldStatistics, rows: Int) -> String {
        let noun = rows == 1 ? "object" : "objects"
        var parts: [String] = field.kindsSeen.map { "\(kindName($0)) in \(field.kinds[$0] ?? 0)" }
        if field.nulls > 0 { parts.append("null in \(field.nulls)") }
        var text: String
        if parts.count == 1, field.present == rows, let only = field.kindsSeen.first {
            text = "\(kindName(only)) in \(rows == 1 ? "the one object" : "all \(rows) objects")"
        } else {
            text = parts.isEmpty ? "no value" : parts.joined(separator: ", ")
            if field.present < rows { text += "; missing from \(rows - field.present) of \(rows) \(noun)" }
        }
        let classes = field.targetClasses.isEmpty ? field.archivedClasses : field.targetClasses
        if !classes.isEmpty {
            text += " (" + classes.map { "`\(SwiftNames.docText($0.key))`" }.joined(separator: ", ") + ")"
        }
        return text + "."
    }

    /// The name of an observed kind: Parse's field type name where there is one.
    func kindName(_ kind: ObservedKind) -> String {
        switch kind {
        case .bool: ParseFieldType.boolean.rawValue
        case .int: "Integer"
        case .double: ParseFieldType.number.rawValue
        case .string: ParseFieldType.string.rawValue
        case .date: ParseFieldType.date.rawValue
        case .bytes: ParseFieldType.bytes.rawValue
        case .pointer: ParseFieldType.pointer.rawValue
        case .relation: ParseFieldType.relation.rawValue
        case .file: ParseFieldType.file.rawValue
        case .geoPoint: ParseFieldType.geoPoint.rawValue
        case .polygon: ParseFieldType.polygon.rawValue
        case .acl: ParseFieldType.acl.rawValue
        case .array: ParseFieldType.array.rawValue
        case .object: ParseFieldType.object.rawValue
        case .archivedObject: ParseFieldType.object.rawValue
        case .other: "Other"
        }
    }

    mutating func conflict(_ className: String, _ path: String, _ field: FieldStatistics, _ resolution: String) {
        let kinds = field.kindsSeen.map { (kind: $0, count: field.kinds[$0] ?? 0) }
        conflicts.append(CodegenConflict(className: className, field: path, kinds: kinds, resolution: resolution))
    }

    /// The type of a field and notes for its doc comment.
    mutating func resolveField(
        _ field: FieldStatistics, rows: Int, className: String, path: String, owner: inout GeneratedType,
        nestedNames: inout Set<String>, propertyName: String
    ) -> (PropertyType, [String]) {
        let kinds = Set(field.kindsSeen)
        let anyName = inference.source == .parse ? "ParseValue" : "PFValue"
        if kinds.isEmpty {
            // A field no object sets (null everywhere) is typed from the schema's declaration.
            if let declared = inference.classes[className]?.declared[path], let (t, notes) = declaredType(declared, className: className) {
                return (t, ["Only nulls were seen; typed from the schema's `\(SwiftNames.docText(declared.description))`."] + notes)
            }
            return (.any, ["Only nulls or no values were seen: kept as `\(anyName)`."])
        }
        if kinds == [.int, .double], !field.beyondDouble {
            conflict(className, path, field, "widened to Double (every integer seen fits)")
            return (.double, ["Integers and numbers both seen: widened to `Double`."])
        }
        if kinds == [.int], field.unsigned, field.negative {
            conflict(className, path, field, "kept as \(anyName): no Swift integer holds both a value beyond Int64 and a negative one")
            return (.any, ["Integers beyond `Int64` and negative ones both seen: kept as `\(anyName)` so nothing is lost."])
        }
        guard kinds.count == 1, let kind = kinds.first else {
            conflict(className, path, field, "kept as \(anyName), which holds every value as it is")
            return (.any, ["Values of several types seen: kept as `\(anyName)` so nothing is lost."])
        }
        switch kind {
        case .bool: return (.bool, [])
        case .int: return (field.unsigned ? .uint64 : .int, [])
        case .double: return (.double, [])
        case .date: return (.date, [])
        case .bytes: return (.data, [])
        case .file: return (.parse("ParseFile"), [])
        case .geoPoint: return (.parse("ParseGeoPoint"), [])
        case .polygon: return (.parse("ParsePolygon"), [])
        case .acl: return (.parse("ParseACL"), [])
        case .relation:
            if field.targetClasses.count == 1, let target = field.targetClasses.keys.first { return relationType(target: target) }
            conflict(className, path, field, "Relations to several classes: kept as \(anyName)")
            return (.any, [])
        case .other: return (.any, [])
        case .string:
            // An enum only where values repeat (a column of unique names or ids is not one).
            if options.enums, let values = field.stringValues, values.count > 0, values.count < (field.kinds[.string] ?? 0),
                values.count <= inference.limits.enumCases, path != "objectId"
            {
                let enumName = SwiftNames.unique(SwiftNames.typeName(propertyName), in: &nestedNames)
                var caseNames: Set<String> = []
                let cases = values.keys.sorted().map { value in
                    (name: SwiftNames.unique(SwiftNames.caseName(value), in: &caseNames), value: value)
                }
                owner.nested.append(GeneratedType(
                    name: enumName, sourceName: path, kind: .enumeration(cases), properties: [],
                    doc: ["The \(values.count) values seen in `\(SwiftNames.docText(path))`."], chain: [], version: 0, nested: []))
                return (.enumeration(enumName), [])
            }
            return (.string, [])
        case .pointer:
            let pointer: (PropertyType, [String])
            if field.targetClasses.count == 1, let target = field.targetClasses.keys.first {
                pointer = pointerType(target: target, className: className)
            } else {
                pointer = (.parse("ParsePointer"), [])
            }
            // A ParsePointer keeps a Pointer's class and id only: whole objects in the field
            // (included Pointers) would lose their fields through the model.
            if field.embeddedObjects > 0, pointer.0 == .parse("ParsePointer") {
                if field.targetClasses.count > 1 { conflict(className, path, field, "whole objects of several classes: kept as \(anyName)") }
                let count = field.embeddedObjects == 1 ? "1 value is a whole object" : "\(field.embeddedObjects) values are whole objects"
                return (.any, ["\(count), an included Pointer whose fields a `ParsePointer` would drop: kept as `\(anyName)`."])
            }
            if field.targetClasses.count > 1 { conflict(className, path, field, "Pointers to several classes: kept as ParsePointer") }
            return pointer
        case .archivedObject:
            if field.archivedClasses.count == 1, let target = field.archivedClasses.keys.first, let generated = typeNames[target] {
                return (.model(generated), [])
            }
            if let base = sharedClassicBase(field), classicBases[base] != nil, let baseName = typeNames[base] {
                return (.model(baseName), ["Objects of several classes: typed as their nearest common superclass, `\(SwiftNames.docText(base))`."])
            }
            if field.archivedClasses.count > 1 {
                conflict(className, path, field, "objects of several classes with no common generated superclass (other than NSObject): kept as \(anyName)")
            }
            return (.any, [])
        case .array:
            guard let elements = field.elements else {
                return (.array(.any), ["An Array nested deeper than the \(inference.limits.maxDepth) levels codegen looks into: kept as `\(anyName)`."])
            }
            if elements.nulls > 0 { return (.array(.any), ["Elements include nulls: kept as `\(anyName)`."]) }
            if elements.kinds.isEmpty { return (.array(.any), ["Only empty Arrays were seen, which say no element type: kept as `\(anyName)`."]) }
            var scratch = owner
            let (elementType, notes) = resolveField(
                elements, rows: elements.present, className: className, path: path + "[]", owner: &scratch,
                nestedNames: &nestedNames, propertyName: propertyName + "Element")
            owner.nested = scratch.nested
            return (.array(elementType), notes)
        case .object:
            guard options.nestedStructs, let shape = field.members, isStable(shape) else {
                return (.any, ["\(Self.whyNoStruct(field.members, nestedStructs: options.nestedStructs, limits: inference.limits)): kept as `\(anyName)`."])
            }
            let structName = SwiftNames.unique(SwiftNames.typeName(propertyName), in: &nestedNames)
            var nested = GeneratedType(
                name: structName, sourceName: path, kind: .nested, properties: [],
                doc: ["The Object in `\(SwiftNames.docText(path))` (\(shape.rows) seen)."], chain: [], version: 0, nested: [])
            var taken: Set<String> = []
            var innerNames: Set<String> = [structName]
            for (key, member) in shape.fields {
                let memberName = SwiftNames.unique(SwiftNames.propertyName(key), in: &taken)
                let (memberType, notes) = resolveField(
                    member, rows: shape.rows, className: className, path: path + "." + key, owner: &nested,
                    nestedNames: &innerNames, propertyName: memberName)
                let optional = member.nulls > 0 || member.present < shape.rows || memberType == .any
                nested.properties.append(GeneratedProperty(
                    name: memberName, key: key, type: memberType, isOptional: optional,
                    doc: ["`\(SwiftNames.docText(key))`: " + describe(member, rows: shape.rows)] + notes, keepsNull: member.nulls > 0))
            }
            owner.nested.append(nested)
            return (.model(structName), [])
        }
    }

    /// The type of a Pointer to one class: `ParseReference` to its generated model, or a
    /// `ParsePointer` where a reference would make the value types nest recursively (a
    /// model pointing at itself, or at a model with Pointers of its own, seen or declared)
    /// or the target has no model.
    func pointerType(target: String, className: String) -> (PropertyType, [String]) {
        let targetStats = inference.classes[target]
        let targetPoints = targetStats.map { stats in
            stats.shape.fields.values.contains { $0.kinds[.pointer] != nil } || stats.declared.values.contains { $0.type == .pointer }
        } ?? true
        if let generated = typeNames[target], target != className, !targetPoints { return (.reference(generated), []) }
        if typeNames[target] != nil {
            return (.parse("ParsePointer"), ["Points at `\(SwiftNames.docText(target))`; a Pointer, not a `ParseReference`, so the value types do not nest recursively."])
        }
        return (.parse("ParsePointer"), ["Points at `\(SwiftNames.docText(target))`, which is not generated."])
    }

    /// The type of a Relation: `ParseRelation` of its target's generated model, or of
    /// `ParseObject` when the target is unknown or has no model.
    func relationType(target: String?) -> (PropertyType, [String]) {
        if let target, let generated = typeNames[target] { return (.relation(generated), []) }
        let which = target.map { "`\(SwiftNames.docText($0))` has no generated model" } ?? "the target class is not known"
        return (.relation("ParseObject"), ["`ParseRelation<ParseObject>`: \(which)."])
    }

    /// Why an Object field is no nested struct (``isStable(_:)``), for its doc comment.
    static func whyNoStruct(_ shape: ShapeStatistics?, nestedStructs: Bool, limits: CodegenLimits) -> String {
        guard nestedStructs else { return "An Object (this style makes no nested structs)" }
        guard let shape else { return "An Object nested deeper than the \(limits.maxDepth) levels codegen looks into" }
        guard !shape.overflowed else { return "An Object of more than \(limits.fieldsPerShape) distinct keys" }
        if shape.fields.isEmpty { return "An Object seen only empty" }
        if shape.fields.count > 32 { return "An Object of \(shape.fields.count) keys, more than the 32 a struct is made for" }
        if shape.fields.keys.contains(where: { $0.hasPrefix("__") }) { return "An Object with `__` keys, a typed value's" }
        return "An Object with no key that every one holds (a map, perhaps)"
    }

    /// A nested object has a stable shape when it has a bounded set of keys and at least one
    /// key every object holds (a map keyed by ids is not a struct).
    func isStable(_ shape: ShapeStatistics) -> Bool {
        !shape.overflowed && !shape.fields.isEmpty && shape.fields.count <= 32
            && shape.fields.values.contains { $0.present == shape.rows }
            && !shape.fields.keys.contains { $0.hasPrefix("__") }
    }
}
