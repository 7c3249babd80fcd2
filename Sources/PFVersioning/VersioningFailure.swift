import PFCore

/// Every failure PFVersioning reports, with its class and message in one place: a schema file
/// that does not load (format `schema`) and a tree that does not migrate (format `migration`).
///
/// Errors made from a case carry it in ``PFCore/PFError/failure``; match it with
/// `error.failure(as: VersioningFailure.self)`. Types are named as the schema spells them
/// (`int32`, `{"ref": "Team"}`).
public enum VersioningFailure: PFFailure, Hashable {
    // Schema files.
    /// The schema file `file` is wrong: ``SchemaProblem`` says how.
    case schema(file: String, SchemaProblem)
    // Migration.
    /// The root type asked for is not in the schema (`known` lists its types).
    case unknownRootType(String, known: [String])
    /// The tree nests deeper than `maxDepth`.
    case tooDeep(maxDepth: Int)
    /// An object's `$version` is not a non-negative integer (`found` describes it).
    case badVersionNumber(type: String, found: String)
    /// The archive holds a newer version than this build knows, and the policy rejects it.
    case newerVersion(type: String, written: Int, known: Int)
    /// A classic object holds another number of values than its schema layout names.
    case classicValueCount(className: String, version: Int64, values: Int, layout: [String])
    /// A type has no classic layout for the version being written.
    case noClassicLayout(type: String, version: Int)
    /// An object lacks a field its classic layout needs.
    case classicFieldMissing(type: String, version: Int, field: String)
    /// A field or object failed to migrate: `what` is `Type` or `Type.field`, `versions` says
    /// which versions were involved (`step v1 → v2`, `Item v2`, …), ``MigrationProblem`` how.
    case object(what: String, versions: String, MigrationProblem)
    /// A registered transform reported `message` (``TransformRegistry/Context/failure(_:)``).
    case transform(what: String, fromVersion: Int, message: String)

    /// How a schema file is wrong.
    public enum SchemaProblem: Sendable, Hashable, CustomStringConvertible {
        /// `what` is of kind `found`; `expected` names what it must be.
        case wrongKind(String, found: String, expected: String)
        /// An unknown key in `what` (`allowed` lists the keys it may hold).
        case unknownKey(String, in: String, allowed: [String])
        /// A required `what` is missing.
        case missing(String)
        /// `schemaVersion` is not the supported one (`found` describes it).
        case schemaVersion(found: String, expected: Int64)
        /// `types` is not an object with at least one type.
        case noTypes
        /// `fields` is not an array.
        case fieldsNotArray
        /// `classic` is not an object of version → field names.
        case classicNotObject
        /// A classic layout key is not a version from 0 to `version`.
        case classicKey(String, version: Int)
        /// `migrations` is not an array.
        case migrationsNotArray
        /// A field has no type.
        case fieldWithoutType(String)
        /// Types nest deeper than 32.
        case typesTooDeep
        /// A type name the schema does not know (`known` lists the scalar names).
        case unknownType(String, known: [String])
        /// A composite type has not exactly one of enum, ref, array, map.
        case compositeType
        /// Enum symbols are empty or repeat.
        case enumSymbols
        /// `ops` is not an array.
        case opsNotArray
        /// A step operation has no `op`.
        case opWithoutName
        /// `addField` without a default.
        case addFieldWithoutDefault
        /// `changeType` without from and to types.
        case changeTypeWithoutTypes
        /// `changeType` between types that do not convert.
        case changeTypeNotAllowed(from: String, to: String)
        /// `mapValues`/`mapEnum` (`op`) without a non-empty map.
        case emptyMap(op: String)
        /// A field transform that is not registered (`registered` lists those that are).
        case unknownFieldTransform(String, registered: [String])
        /// An object transform that is not registered (`registered` lists those that are).
        case unknownObjectTransform(String, registered: [String])
        /// An op name the schema format does not know.
        case unknownOp(String)
        /// A class name (or alias) given to two types.
        case classNameTwice(String, first: String, second: String)
        /// A field name or alias used twice in a type.
        case fieldNameTwice(String, type: String)
        /// A field reuses a reserved (removed) name.
        case reservedName(type: String, field: String)
        /// `unknownDefault` is not one of the enum's symbols.
        case unknownDefaultNotSymbol(String)
        /// A field's default does not fit its type.
        case badDefault(type: String, field: String, DefaultProblem)
        /// A migration step from a version not below the type's current version.
        case stepNotBelowVersion(from: Int, version: Int)
        /// Two steps from the same version.
        case twoSteps(from: Int)
        /// `renameClass` from a name that is not one of the type's aliases.
        case renameClassNotAlias(String, type: String)
        /// The current classic layout names something that is not a field.
        case classicNamesNoField(String, type: String, version: Int)
        /// A `ref` names no type in the schema.
        case unknownReference(String)

        public var description: String {
            switch self {
            case .wrongKind(let what, let found, let expected): "\(what) is \(found), expected \(expected)"
            case .unknownKey(let key, let what, let allowed):
                "unknown key \"\(key)\" in \(what); expected one of \(allowed.joined(separator: ", "))"
            case .missing(let what): "missing \(what)"
            case .schemaVersion(let found, let expected): "schemaVersion is \(found), expected \(expected)"
            case .noTypes: "types must be an object with at least one type"
            case .fieldsNotArray: "fields must be an array"
            case .classicNotObject: "classic must be an object of version → field names"
            case .classicKey(let key, let version): "classic layout key \"\(key)\" is not a version from 0 to \(version)"
            case .migrationsNotArray: "migrations must be an array"
            case .fieldWithoutType(let name): "field \(name) has no type"
            case .typesTooDeep: "types nest deeper than 32"
            case .unknownType(let name, let known):
                "unknown type \"\(name)\"; expected \(known.joined(separator: ", ")), or {\"enum\"|\"ref\"|\"array\"|\"map\": …}"
            case .compositeType: "a composite type has exactly one of enum, ref, array, map"
            case .enumSymbols: "enum symbols must be a non-empty list without repeats"
            case .opsNotArray: "ops must be an array"
            case .opWithoutName: "a step operation needs \"op\""
            case .addFieldWithoutDefault: "addField needs a default"
            case .changeTypeWithoutTypes: "changeType needs from and to types"
            case .changeTypeNotAllowed(let from, let to):
                "changeType from \(from) to \(to) is not allowed; use a promotion (int32 → int64 → double, string ↔ data), int64 → int32 (checked), or a transform"
            case .emptyMap(let op): "\(op) needs a non-empty \"map\" object"
            case .unknownFieldTransform(let name, let registered):
                "unknown field transform \"\(name)\"; registered: \(registered.joined(separator: ", "))"
            case .unknownObjectTransform(let name, let registered):
                "unknown object transform \"\(name)\"; registered: \(registered.joined(separator: ", "))"
            case .unknownOp(let name):
                "unknown op \"\(name)\"; expected renameField, addField, removeField, renameClass, changeType, mapValues, transform or transformObject"
            case .classNameTwice(let name, let first, let second): "class name \"\(name)\" means both \(first) and \(second)"
            case .fieldNameTwice(let name, let type): "field name or alias \"\(name)\" is used twice in \(type)"
            case .reservedName(let type, let field): "field \(type).\(field) reuses a reserved (removed) name; pick another name"
            case .unknownDefaultNotSymbol(let u): "unknownDefault \"\(u)\" is not one of the enum's symbols"
            case .badDefault(let type, let field, let problem): "default of \(type).\(field) \(problem)"
            case .stepNotBelowVersion(let from, let version): "a step from v\(from) is not below the current version \(version)"
            case .twoSteps(let from): "two steps from v\(from)"
            case .renameClassNotAlias(let from, let type): "renameClass from \"\(from)\" must also be listed in \(type)'s aliases"
            case .classicNamesNoField(let name, let type, let version):
                "classic layout v\(version) names \"\(name)\", which is not a field of \(type)"
            case .unknownReference(let name): "ref \"\(name)\" names no type in the schema"
            }
        }
    }

    /// Why a field's default does not fit its type.
    public enum DefaultProblem: Sendable, Hashable, CustomStringConvertible {
        /// The default is null but the field is not optional.
        case nullNotOptional
        /// An integer default outside int32.
        case doesNotFitInt32
        /// A default that is not one of the enum's symbols.
        case notASymbol(String)
        /// A default of kind `found` for a field of type `expected`.
        case wrongKind(found: String, expected: String)

        public var description: String {
            switch self {
            case .nullNotOptional: "is null but the field is not optional"
            case .doesNotFitInt32: "does not fit int32"
            case .notASymbol(let s): "\"\(s)\" is not one of the enum's symbols"
            case .wrongKind(let found, let expected): "is \(found), expected \(expected)"
            }
        }
    }

    /// Why a field or object did not migrate.
    public enum MigrationProblem: Sendable, Hashable, CustomStringConvertible {
        /// A reader field is missing and has no default.
        case missingField(type: String)
        /// A writer field the reader does not know, under the `error` policy.
        case unknownField(type: String, version: Int)
        /// A value of another type (`found` is its kind, `value` a short rendering).
        case typeMismatch(expected: String, found: String, value: String)
        /// Null in a field that is not optional.
        case nullNotOptional(expected: String)
        /// An enum symbol that is not one of `symbols`, and no `unknownDefault`.
        case unknownSymbol(String, symbols: [String])
        /// An integer (`value`) that does not fit the narrower `type`.
        case narrowing(value: String, type: String)
        /// A conversion to `to` found a value of kind `found`; `expected` names what converts.
        case conversionInput(expected: String, to: String, found: String)
        /// Data that is not UTF-8 cannot become a string.
        case dataNotUTF8
        /// A value (rendered) that is not one of `symbols`.
        case notASymbol(String, symbols: [String])
        /// Two types with no conversion between them.
        case cannotConvert(from: String, to: String)
        /// `mapValues` found a value of kind `found`.
        case mapValuesKind(found: String)
        /// A value (rendered) the map has no entry for, and the step has no default.
        case noMapping(String, keys: [String])
        /// A field transform that is not registered.
        case transformNotRegistered(String)
        /// A field transform threw a non-PFError `error`.
        case transformFailed(String, error: String)
        /// An object transform that is not registered.
        case objectTransformNotRegistered(String)
        /// An object transform threw a non-PFError `error`.
        case objectTransformFailed(String, error: String)

        public var description: String {
            switch self {
            case .missingField(let type):
                "missing, and the field has no default; expected \(type) (declare a default, make it optional, or add it in a migration step)"
            case .unknownField(let type, let version): "is not a field of \(type) v\(version) (unknownFields policy is error)"
            case .typeMismatch(let expected, let found, let value): "expected \(expected), found \(found) \(value)"
            case .nullNotOptional(let expected): "is null; expected \(expected) (make the field optional to allow null)"
            case .unknownSymbol(let symbol, let symbols):
                "symbol \"\(symbol)\" is not one of \(symbols.joined(separator: ", ")) and the field has no unknownDefault"
            case .narrowing(let value, let type): "integer narrowing: \(value) does not fit \(type)"
            case .conversionInput(let expected, let to, let found): "expected \(expected) to convert to \(to), found \(found)"
            case .dataNotUTF8: "data is not UTF-8, so it cannot become a string"
            case .notASymbol(let value, let symbols): "\(value) is not one of \(symbols.joined(separator: ", "))"
            case .cannotConvert(let from, let to): "cannot convert \(from) to \(to)"
            case .mapValuesKind(let found): "mapValues expects a string, integer or boolean, found \(found)"
            case .noMapping(let value, let keys):
                "value \(value) has no mapping and the step has no default; expected one of \(keys.joined(separator: ", "))"
            case .transformNotRegistered(let name): "transform \(name) is not registered"
            case .transformFailed(let name, let error): "transform \(name) failed: \(error)"
            case .objectTransformNotRegistered(let name): "object transform \(name) is not registered"
            case .objectTransformFailed(let name, let error): "object transform \(name) failed: \(error)"
            }
        }
    }

    public var code: PFError.Code {
        switch self {
        case .schema, .badVersionNumber, .classicValueCount, .noClassicLayout, .classicFieldMissing, .object, .transform:
            .invalidValue
        case .unknownRootType: .usage
        case .tooDeep: .limitExceeded
        case .newerVersion: .unsupported
        }
    }

    public var message: String {
        switch self {
        case .schema(let file, let problem): "\(file): \(problem)"
        case .unknownRootType(let name, let known): "root type \(name) is not in the schema; it has \(known.joined(separator: ", "))"
        case .tooDeep(let maxDepth): "the tree nests deeper than maxDepth (\(maxDepth))"
        case .badVersionNumber(let type, let found): "$version of \(type) is \(found), expected a non-negative integer"
        case .newerVersion(let type, let written, let known):
            "archive has \(type) v\(written), this build knows v\(known); upgrade, or read it with newerVersions bestEffort"
        case .classicValueCount(let className, let version, let values, let layout):
            "\(className) v\(version) holds \(values) values but the schema's classic layout for v\(version) names \(layout.count) (\(layout.joined(separator: ", ")))"
        case .noClassicLayout(let type, let version):
            "\(type) v\(version) has no classic layout in the schema; add \"classic\": {\"\(version)\": [field names]}"
        case .classicFieldMissing(let type, let version, let field): "\(type) v\(version) lacks \(field), which its classic layout needs"
        case .object(let what, let versions, let problem): "\(what) (\(versions)): \(problem)"
        case .transform(let what, let fromVersion, let message): "\(what) (v\(fromVersion) → v\(fromVersion + 1)): \(message)"
        }
    }
}
