import PFCore

/// Every failure PFKeyedArchive reports, with its class and message in one place: the
/// archive's object table (``KeyedObjectTable``), its decoded graph (``KeyedGraph``) and that
/// graph's JSON form (format `keyed JSON`), the unarchiver (``KeyedUnarchiver``) and the
/// Codable bridge (``KeyedArchiveDecoder`` and ``KeyedArchiveEncoder``).
///
/// Errors made from a case carry it in ``PFCore/PFError/failure``; match it with
/// `error.failure(as: KeyedArchiveFailure.self)`. The bridge throws them as
/// `DecodingError`/`EncodingError` whose context carries the ``PFCore/PFError`` as its
/// `underlyingError`; `PFError(unwrapping:)` gets it back. Kinds (`found`) are value kinds
/// (`string`, `dictionary`, …) or short renderings of a value.
public enum KeyedArchiveFailure: PFFailure, Hashable {
    /// The archive's `$top` has no `root`.
    case noRoot
    /// A value is not what the Swift type asks for: `expected` names it, `found` (if known)
    /// what the archive holds.
    case expected(String, found: String? = nil)
    /// A number does not fit the integer type asked for.
    case doesNotFit(String, type: String)
    /// A reference names an object that is `$null`.
    case nullObject(uid: UInt64)
    /// A reference names an object of a kind no scalar or container is read from.
    case objectKind(uid: UInt64, kind: String)
    /// A shared object was decoded before as another type.
    case alreadyDecoded(index: Int, type: String)
    /// An object refers back to itself while it is being decoded.
    case cycle(index: Int)
    /// Values nest deeper than `maxDepth`.
    case tooDeep(maxDepth: Int)
    /// A dictionary object whose `NS.keys` and `NS.objects` differ in length.
    case dictionaryLengths(className: String)
    /// A dictionary with a key that is not a string, decoded into a keyed container.
    case nonStringDictionaryKey

    // The object table.
    /// The archive's root is not a dictionary.
    case rootNotDictionary(found: String)
    /// The root has no `$archiver`.
    case noArchiver
    /// The bytes are a typedstream (NSArchiver's classic format), not a keyed archive.
    case typedstreamNotKeyed
    /// The bytes are in no container a keyed archive is kept in (`found`: what they are when
    /// ``PFSerialization/FormatDetector/undetectedKind(_:)`` knows).
    case noContainer(found: String?)
    /// `$archiver` is not `NSKeyedArchiver`.
    case archiverName(found: String)
    /// `$version` is not 100000.
    case archiveVersion(found: String)
    /// The root has no `$top`.
    case noTop
    /// `$top` is not a dictionary.
    case topKind(found: String)
    /// A `$top` entry is not an object reference.
    case topEntryKind(key: String, found: String)
    /// The root has no `$objects`.
    case noObjects
    /// `$objects` is not an array.
    case objectsKind(found: String)
    /// `$objects[0]` is not `$null`.
    case firstObjectNotNull
    /// An object reference past the end of the table.
    case referenceOutOfRange(UInt64, objects: Int)
    /// An object dictionary without `$class`.
    case noClass
    /// `$class` is not an object reference.
    case classReferenceKind(found: String)
    /// `$class` refers to something other than a class dictionary.
    case classTarget(found: String)
    /// A class dictionary without a `$classname` string.
    case noClassName
    /// `$classes` is not an array.
    case classesKind(found: String)
    /// `$classes` holds something other than class names.
    case classesItem(found: String)
    /// `$classname` disagrees with the first entry of `$classes`.
    case spoofedClassChain(name: String, first: String)
    /// A class dictionary's version (`key`, `$classversion`) is not a non-negative integer.
    case classVersion(key: String, found: String)

    // The decoded graph.
    /// An object that is neither a scalar nor an object dictionary.
    case graphObjectKind(found: String)
    /// References nest deeper than `maxDepth`.
    case referencesTooDeep(maxDepth: Int)
    /// Secure decoding refused a class not in the allowed list.
    case classNotAllowed(String)
    /// A dictionary object (`className`) with as many keys as values missing.
    case collectionLengths(className: String, keys: Int, values: Int)
    /// An object lacks the key (`NS.objects`, `NS.keys`, …) it needs.
    case missingKey(String)
    /// A key that should hold an array of object references holds another kind.
    case referencesKind(key: String, found: String)
    /// Something other than an object reference where one was expected.
    case notAReference(found: String)
    /// The `NS.bytes` of a string class are not UTF-8.
    case stringBytesNotUTF8(className: String)
    /// A string class without `NS.string`.
    case noString(className: String)
    /// A data class without `NS.data`.
    case noData(className: String)
    /// An `NSDate` without a finite `NS.time`.
    case dateNotFinite
    /// An `NSNumber` without a value.
    case numberWithoutValue
    /// Rendering the graph as JSON passed `maxDepth`.
    case graphTooDeep(maxDepth: Int)

    // The graph's JSON form.
    /// `$id` is not an integer.
    case idKind(found: String)
    /// A `$id` defined twice.
    case idTwice(Int64)
    /// A `CF$UID` in a decoded graph.
    case uidInGraph
    /// A `$ref` that names no earlier `$id`.
    case unknownReference(String)
    /// A `$id` that an earlier record of a streamed archive defined (named again, or
    /// referred to): such a document is archived whole.
    case idAcrossRecords(Int64)
    /// A large container of a document archived piece by piece is one of the keyed JSON
    /// form's markers (`{"$class": …}`, `{"$ref": n}`, `{"$id": n, "$value": …}`,
    /// `{"$top": …}`): its meaning depends on members not yet read, so the document is
    /// archived whole.
    case markerInLargeContainer(String)
    /// `$value` is not an array or a dictionary.
    case wrappedValueKind(found: String)
    /// `$class` is not a class name.
    case classNameKind(found: String)
    /// `$classes` is not an array of class names starting with `$class`.
    case classesChain(startingWith: String)
    /// `$version` is not a non-negative integer.
    case versionKind(found: String)
    /// `NS.keys` and `NS.objects` differ in length.
    case keysAndObjectsLengths
    /// The JSON nests deeper than `maxDepth`.
    case jsonTooDeep(maxDepth: Int)

    // The unarchiver.
    /// `$top` has no such key (`keys` lists those it has).
    case noTopKey(String, keys: [String])
    /// A `$top` entry is nil where a value of `type` was asked for.
    case topNil(key: String, type: String)
    /// A required value is nil.
    case valueNil(type: String)
    /// A required key is missing.
    case noValue(key: String, type: String)
    /// Unkeyed decoding with no object being decoded.
    case unkeyedOutsideObject
    /// A class with no type registered for it.
    case classNotRegistered(String)
    /// An object refers back to itself while it is being decoded.
    case selfReference(index: Int, className: String)
    /// Objects nest deeper than `maxDepth`.
    case objectsTooDeep(maxDepth: Int)
    /// A `CF$UID` cannot be archived as an object.
    case uidNotArchivable

    public var code: PFError.Code {
        switch self {
        case .tooDeep, .referencesTooDeep, .graphTooDeep, .jsonTooDeep, .objectsTooDeep: .limitExceeded
        case .classNotAllowed, .classNotRegistered: .disallowed
        case .uidNotArchivable: .unrepresentable
        case .idAcrossRecords, .markerInLargeContainer: .unsupported
        default: .invalidValue
        }
    }

    public var message: String {
        switch self {
        case .noRoot: "the archive's $top has no root"
        case .expected(let what, let found?): "expected \(what), found \(found)"
        case .expected(let what, nil): "expected \(what)"
        case .doesNotFit(let value, let type): "\(value) does not fit \(type)"
        case .nullObject(let uid): "object \(uid) is null"
        case .objectKind(let uid, let kind): "object \(uid) is \(kind)"
        case .alreadyDecoded(let index, let type): "object \(index) was already decoded as \(type)"
        case .cycle(let index):
            "object \(index) refers back to itself while it is being decoded; Codable cannot rebuild cycles, use ArchiveCoding"
        case .tooDeep(let maxDepth): "values nest deeper than maxDepth (\(maxDepth))"
        case .dictionaryLengths(let className): "\(className) needs NS.keys and NS.objects of equal length"
        case .nonStringDictionaryKey: "dictionary keys must be strings to decode into a keyed container"
        case .rootNotDictionary(let found):
            "the archive's root is \(found), expected a dictionary with $archiver, $version, $top and $objects"
        case .noArchiver: "missing $archiver; this is not an NSKeyedArchiver archive"
        case .typedstreamNotKeyed: "this is a typedstream (NSArchiver's classic format), not an NSKeyedArchiver archive"
        case .noContainer(let found):
            "\(found ?? "bytes of no format pfarchive reads"), not a keyed archive; expected one in a binary or XML property list, JSON or CBOR"
        case .archiverName(let found): "$archiver is \(found), expected \"NSKeyedArchiver\""
        case .archiveVersion(let found): "$version is \(found), expected 100000"
        case .noTop: "missing $top; expected a dictionary of object references"
        case .topKind(let found): "$top is \(found), expected a dictionary of object references"
        case .topEntryKind(let key, let found): "$top.\(key) is \(found), expected an object reference (CF$UID) or a value in place"
        case .noObjects: "missing $objects; expected the object table"
        case .objectsKind(let found): "$objects is \(found), expected an array"
        case .firstObjectNotNull: "$objects[0] must be \"$null\""
        case .referenceOutOfRange(let uid, let objects):
            "object reference \(uid) is out of range; the archive has \(objects) objects"
        case .noClass: "object has no $class"
        case .classReferenceKind(let found): "$class is \(found), expected an object reference"
        case .classTarget(let found): "$class refers to \(found), expected a class dictionary"
        case .noClassName: "class dictionary has no $classname string"
        case .classesKind(let found): "$classes is \(found), expected an array of class names"
        case .classesItem(let found): "$classes holds \(found), expected class names"
        case .spoofedClassChain(let name, let first):
            "$classname \"\(name)\" disagrees with $classes[0] \"\(first)\"; refusing a spoofed class chain"
        case .classVersion(let key, let found): "\(key) is \(found), expected a non-negative integer"
        case .graphObjectKind(let found): "object is \(found), expected a string, number, data or an object dictionary"
        case .referencesTooDeep(let maxDepth):
            "references nest deeper than maxDepth (\(maxDepth)); raise the limit only for trusted input"
        case .classNotAllowed(let name): "class \(name) is not allowed; allow it explicitly to decode it"
        case .collectionLengths(let className, let keys, let values):
            "\(className) has \(keys) NS.keys but \(values) NS.objects; expected as many of each"
        case .missingKey(let key): "missing \(key)"
        case .referencesKind(let key, let found): "\(key) is \(found), expected an array of object references"
        case .notAReference(let found): "\(found) where an object reference was expected"
        case .stringBytesNotUTF8(let className): "NS.bytes of \(className) is not UTF-8"
        case .noString(let className): "\(className) has no NS.string"
        case .noData(let className): "\(className) has no NS.data"
        case .dateNotFinite: "NSDate has no finite NS.time"
        case .numberWithoutValue: "NSNumber has no value"
        case .graphTooDeep(let maxDepth):
            "the object graph nests deeper than maxDepth (\(maxDepth)); raise the limit only for trusted input"
        case .idKind(let found): "$id is \(found), expected an integer"
        case .idTwice(let id): "$id \(id) is defined twice"
        case .uidInGraph: "a CF$UID reference has no meaning in a decoded graph; use $id and $ref"
        case .unknownReference(let reference): "$ref \(reference) names no earlier $id"
        case .idAcrossRecords(let id): "$id \(id) is shared between records; archive the document whole"
        case .markerInLargeContainer(let key): "a large container holds the marker \(key); archive the document whole"
        case .wrappedValueKind(let found): "$value is \(found), expected an array or a dictionary"
        case .classNameKind(let found): "$class is \(found), expected a class name"
        case .classesChain(let name): "$classes must be an array of class names starting with \"\(name)\""
        case .versionKind(let found): "$version is \(found), expected a non-negative integer"
        case .keysAndObjectsLengths: "NS.keys and NS.objects differ in length"
        case .jsonTooDeep(let maxDepth): "nesting deeper than maxDepth (\(maxDepth))"
        case .noTopKey(let key, let keys): "$top has no \"\(key)\"; it has \(keys.joined(separator: ", "))"
        case .topNil(let key, let type): "$top.\(key) is nil, expected \(type)"
        case .valueNil(let type): "value is nil, expected \(type)"
        case .noValue(let key, let type): "no value for key \"\(key)\", expected \(type)"
        case .unkeyedOutsideObject: "unkeyed decoding outside an object"
        case .classNotRegistered(let name):
            "class \(name) is not allowed; register a type for it in the ArchiveClassRegistry to decode it"
        case .selfReference(let index, let className):
            "object \(index) (\(className)) refers back to itself while it is being decoded; decode that field with decodeReference(_:forKey:assign:)"
        case .objectsTooDeep(let maxDepth):
            "objects nest deeper than maxDepth (\(maxDepth)); decode long chains with decodeReference(_:forKey:assign:)"
        case .uidNotArchivable: "a CF$UID cannot be archived as an object"
        }
    }
}
