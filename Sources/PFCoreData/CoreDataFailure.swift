import PFCore

/// Every failure PFCoreData reports, with its class and message in one place (the SQLite file
/// and its copy fail with `SQLiteFileFailure`): the store's tables, the model (format `Core Data model` for a model archive)
/// and the objects asked for.
///
/// Errors made from a case carry it in ``PFCore/PFError/failure``; match it with
/// `error.failure(as: CoreDataFailure.self)`. `context` names the file and what was being
/// read; an `underlying` error keeps its own code and case.
public enum CoreDataFailure: PFFailure {
    // The store's tables.
    /// The database lacks Core Data's tables (`found` lists some it has).
    case notCoreData(file: String, found: [String])
    /// A Z_PRIMARYKEY row without an integer Z_ENT and a text Z_NAME.
    case primaryKeyRow(context: String)
    /// Z_METADATA.Z_PLIST does not read as a binary property list.
    case metadataNotPlist(file: String, underlying: PFError)
    /// Z_MODELCACHE.Z_CONTENT does not decode to a model.
    case modelCacheUnusable(file: String, underlying: PFError)
    // Model files.
    /// VersionInfo.plist of a .momd could not be read within the limits.
    case versionInfo(path: String, underlying: PFError)
    /// A .momd without a current version and with `moms` .mom files.
    case ambiguousMomd(path: String, moms: Int)
    /// A file that is not a compiled model.
    case notCompiledModel(path: String, underlying: PFError)
    // Model archives.
    /// The archive's root is not an object.
    case modelRootNotObject
    /// The archive's root is of another class.
    case modelRootClass(String)
    /// NSManagedObjectModel without an NSEntities dictionary.
    case noEntities
    /// NSEntities holds something other than an entity description.
    case entitiesItem
    /// An entity without NSEntityName.
    case entityWithoutName
    /// A property without NSPropertyName.
    case propertyWithoutName
    /// A relationship without a destination entity.
    case relationshipWithoutDestination
    // Objects.
    /// No such entity (`known` lists the store's).
    case noEntity(String, file: String, known: [String])
    /// The entity has no to-many relationship of that name.
    case noToMany(entity: String, relationship: String)
    /// A to-many relationship whose storage cannot be read (`reason` says why).
    case unmappedToMany(entity: String, relationship: String, reason: String)

    public var code: PFError.Code {
        switch self {
        case .noEntity, .noToMany: .usage
        case .unmappedToMany: .unsupported
        case .metadataNotPlist(_, let underlying), .modelCacheUnusable(_, let underlying), .versionInfo(_, let underlying),
            .notCompiledModel(_, let underlying):
            underlying.code
        default: .invalidValue
        }
    }

    public var message: String {
        switch self {
        case .notCoreData(let file, let found):
            "\(file): not a Core Data store; expected the tables Z_PRIMARYKEY and Z_METADATA (found \(found.joined(separator: ", ")))"
        case .primaryKeyRow(let context): "\(context): Z_PRIMARYKEY has a row without an integer Z_ENT and a text Z_NAME"
        case .metadataNotPlist(let file, let underlying): "\(file): Z_METADATA.Z_PLIST is not a binary property list: \(underlying)"
        case .modelCacheUnusable(let file, let underlying):
            "\(file): Z_MODELCACHE.Z_CONTENT is not a usable model (\(underlying)); expected raw DEFLATE around a keyed archive of NSManagedObjectModel"
        case .versionInfo(let path, let underlying): "\(path): \(underlying)"
        case .ambiguousMomd(let path, let moms):
            "\(path): a .momd without VersionInfo.plist's current version and with \(moms) .mom files; pass the .mom itself"
        case .notCompiledModel(let path, let underlying): "\(path): not a compiled Core Data model: \(underlying)"
        case .modelRootNotObject: "the archive's root is not an object; expected NSManagedObjectModel"
        case .modelRootClass(let name): "the archive's root is \(name), expected NSManagedObjectModel"
        case .noEntities: "NSManagedObjectModel has no NSEntities dictionary"
        case .entitiesItem: "NSEntities holds something other than an NSEntityDescription"
        case .entityWithoutName: "entity has no NSEntityName"
        case .propertyWithoutName: "property without NSPropertyName"
        case .relationshipWithoutDestination: "relationship has no destination entity"
        case .noEntity(let entity, let file, let known): "\(file): no entity \(entity); the store has \(known.joined(separator: ", "))"
        case .noToMany(let entity, let relationship): "\(entity) has no to-many relationship \(relationship)"
        case .unmappedToMany(let entity, let relationship, let reason): "\(entity).\(relationship) cannot be read: \(reason)"
        }
    }
}
