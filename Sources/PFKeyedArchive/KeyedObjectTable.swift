import OrderedCollections
import PFCore

/// The envelope of an NSKeyedArchiver archive, validated: `$archiver`, `$version`, `$top` and
/// `$objects`, as a property-list tree holds them.
///
/// Reading checks the envelope only; references (`CF$UID`) inside objects are checked when
/// they are followed, by ``uid(_:at:)`` and ``archivedClass(of:at:)``.
public struct KeyedObjectTable: Sendable, Equatable {
    /// `NSKeyedArchiver`, the only archiver name accepted.
    public static let archiverName = "NSKeyedArchiver"
    /// 100000, the only archive version accepted.
    public static let archiveVersion: Int64 = 100_000
    /// The key pfarchive adds to a class dictionary for the class's version. Foundation's
    /// `NSKeyedUnarchiver` reads only `$classname` and `$classes` and ignores it.
    public static let classVersionKey = "$classversion"
    /// The string at `$objects[0]`, which UID 0 (nil) refers to.
    public static let nullMarker = "$null"
    /// The `$top` key `archivedData(withRootObject:)` uses.
    public static let rootKey = "root"

    /// The `$top` entries in archive order: a reference (``PFCore/PFValue/uid(_:)``) for each
    /// archived object, or a value NSKeyedArchiver wrote in place — its top-level
    /// `encodeBool`/`encodeInt…`/`encodeDouble` do (CloudKit's record system fields hold
    /// `"KnownToServer": true`, `"Permission": 1` beside their references).
    public var topEntries: OrderedDictionary<String, PFValue>
    /// The top-level references, in archive order (usually just `root`): the entries of
    /// ``topEntries`` that are references. Setting it replaces the references and keeps the
    /// values written in place.
    public var top: OrderedDictionary<String, UInt64> {
        get {
            var references = OrderedDictionary<String, UInt64>()
            for (key, value) in topEntries { if case .uid(let uid) = value { references[key] = uid } }
            return references
        }
        set {
            topEntries = topEntries.filter { entry in
                if case .uid = entry.value { return newValue[entry.key] != nil }
                return newValue[entry.key] == nil
            }
            for (key, uid) in newValue { topEntries[key] = .uid(uid) }
        }
    }
    /// The object table; index 0 is always `$null`.
    public var objects: [PFValue]

    /// Makes a table from its parts.
    public init(top: OrderedDictionary<String, UInt64>, objects: [PFValue]) {
        self.topEntries = OrderedDictionary(uniqueKeysWithValues: top.map { ($0.key, PFValue.uid($0.value)) })
        self.objects = objects
    }

    /// Validates the envelope of a keyed archive read from a property list (or JSON or CBOR).
    /// - Parameter plist: the container's value tree.
    /// - Throws: ``PFError`` with code `invalidValue` naming the key path when the root is not
    ///   a dictionary, `$archiver` is not `NSKeyedArchiver`, `$version` is not 100000, `$top`
    ///   is missing or not a dictionary of UIDs, or `$objects` is missing, not an array or does
    ///   not start with `$null`.
    public init(plist: PFValue) throws(PFError) {
        guard case .dictionary(let root) = plist else {
            throw Self.invalid(.rootNotDictionary(found: plist.kind.rawValue), .root)
        }
        guard let archiver = root["$archiver"] else {
            throw Self.invalid(.noArchiver, .root)
        }
        guard archiver.stringValue == Self.archiverName else {
            throw Self.invalid(.archiverName(found: archiver.scalarDescription), [.key("$archiver")])
        }
        guard let version = root["$version"], version.int64Value == Self.archiveVersion else {
            throw Self.invalid(.archiveVersion(found: root["$version"]?.scalarDescription ?? "missing"), [.key("$version")])
        }
        guard let topValue = root["$top"] else {
            throw Self.invalid(.noTop, .root)
        }
        guard case .dictionary(let topMembers) = topValue else {
            throw Self.invalid(.topKind(found: topValue.kind.rawValue), [.key("$top")])
        }
        // A reference, or a scalar a top-level encodeBool/encodeInt/encodeDouble (or bytes an
        // encodeBytes) wrote in place; a container in place is no archiver's.
        for (key, value) in topMembers {
            switch value {
            case .array, .dictionary:
                throw Self.invalid(.topEntryKind(key: key, found: value.kind.rawValue), [.key("$top"), .key(key)])
            default: continue
            }
        }
        guard let objectsValue = root["$objects"] else {
            throw Self.invalid(.noObjects, .root)
        }
        guard case .array(let objects) = objectsValue else {
            throw Self.invalid(.objectsKind(found: objectsValue.kind.rawValue), [.key("$objects")])
        }
        guard objects.first?.stringValue == Self.nullMarker else {
            throw Self.invalid(.firstObjectNotNull, [.key("$objects"), .index(0)])
        }
        self.topEntries = topMembers
        self.objects = objects
    }

    /// The archive as a property-list tree, with keys in the order NSKeyedArchiver writes them.
    public var plist: PFValue {
        .dictionary([
            "$version": .int(Self.archiveVersion),
            "$archiver": .string(Self.archiverName),
            "$top": .dictionary(topEntries),
            "$objects": .array(objects),
        ])
    }

    /// Whether a value tree has the shape of a keyed archive (without validating it).
    public static func looksLikeArchive(_ plist: PFValue) -> Bool {
        guard case .dictionary(let root) = plist else { return false }
        return root["$archiver"] != nil && root["$objects"] != nil && root["$top"] != nil
    }

    // MARK: - References

    /// Checks that a reference names an object in the table.
    /// - Parameters:
    ///   - uid: the reference.
    ///   - path: where the reference was met, for the error.
    /// - Returns: the index into ``objects``.
    /// - Throws: ``PFError`` `invalidValue` when the reference is past the end of the table.
    public func index(of uid: UInt64, at path: @autoclosure () -> PFKeyPath) throws(PFError) -> Int {
        guard uid < UInt64(objects.count) else {
            throw Self.invalid(.referenceOutOfRange(uid, objects: objects.count), path())
        }
        return Int(uid)
    }

    /// Reads a class reference (`$class`) and its class dictionary.
    /// - Parameters:
    ///   - object: an object dictionary from the table.
    ///   - path: the object's path, for errors.
    /// - Returns: the class's name and chain.
    /// - Throws: ``PFError`` `invalidValue` when `$class` is missing, not a reference, out of
    ///   range, or names something other than a class dictionary whose `$classname` is a
    ///   string and whose `$classes` (when present) is an array of strings starting with it.
    public func archivedClass(of object: OrderedDictionary<String, PFValue>, at path: PFKeyPath) throws(PFError) -> ArchivedClass {
        try Self.archivedClass(of: object, at: path, objectCount: objects.count) { objects[$0] }
    }

    /// ``archivedClass(of:at:)`` over a table read lazily: `lookup` gives the object at an
    /// index below `objectCount`.
    static func archivedClass(
        of object: OrderedDictionary<String, PFValue>, at path: PFKeyPath, objectCount: Int,
        lookup: (Int) throws(PFError) -> PFValue
    ) throws(PFError) -> ArchivedClass {
        guard let reference = object["$class"] else {
            throw Self.invalid(.noClass, path)
        }
        guard case .uid(let uid) = reference else {
            throw Self.invalid(.classReferenceKind(found: reference.kind.rawValue), path.appending(key: "$class"))
        }
        guard uid < UInt64(objectCount) else {
            throw Self.invalid(.referenceOutOfRange(uid, objects: objectCount), path.appending(key: "$class"))
        }
        let index = Int(uid)
        let classPath: PFKeyPath = [.key("$objects"), .index(index)]
        let classObject = try lookup(index)
        guard case .dictionary(let classDictionary) = classObject else {
            throw Self.invalid(.classTarget(found: classObject.kind.rawValue), classPath)
        }
        guard let name = classDictionary["$classname"]?.stringValue, !name.isEmpty else {
            throw Self.invalid(.noClassName, classPath)
        }
        var chain = [name]
        if let classes = classDictionary["$classes"] {
            guard case .array(let items) = classes else {
                throw Self.invalid(.classesKind(found: classes.kind.rawValue), classPath.appending(key: "$classes"))
            }
            chain = []
            chain.reserveCapacity(items.count)
            for item in items {
                guard let className = item.stringValue else {
                    throw Self.invalid(.classesItem(found: item.kind.rawValue), classPath.appending(key: "$classes"))
                }
                chain.append(className)
            }
            guard chain.first == name else {
                throw Self.invalid(.spoofedClassChain(name: name, first: chain.first ?? ""), classPath)
            }
        }
        var hints: [String] = []
        if case .array(let items)? = classDictionary["$classhints"] {
            hints = items.compactMap(\.stringValue)
        }
        var version: Int?
        if let recorded = classDictionary[Self.classVersionKey] {
            guard let number = recorded.int64Value, let small = Int(exactly: number), small >= 0 else {
                throw Self.invalid(
                    .classVersion(key: Self.classVersionKey, found: recorded.scalarDescription), classPath.appending(key: Self.classVersionKey))
            }
            version = small
        }
        return ArchivedClass(name: name, chain: chain, hints: hints, version: version)
    }

    /// The version each class records in its class dictionary (`$classversion`), by class
    /// name: the keyed archive's answer to `-[NSCoder versionForClassName:]`. A class whose
    /// dictionary has no version (every class Foundation writes) is version 0; a malformed
    /// version is skipped here and reported when an object of the class is decoded.
    public var classVersions: [String: Int] {
        var versions: [String: Int] = [:]
        for object in objects {
            // Caller keys that begin with `$` are escaped to `$$`, so only a class dictionary
            // has a `$classname`.
            guard case .dictionary(let dictionary) = object, let name = dictionary["$classname"]?.stringValue else { continue }
            let recorded = dictionary[Self.classVersionKey].flatMap(\.int64Value).flatMap { Int(exactly: $0) } ?? 0
            versions[name] = max(versions[name] ?? 0, recorded)
        }
        return versions
    }

    static func invalid(_ failure: KeyedArchiveFailure, _ path: PFKeyPath) -> PFError {
        PFError(failure, format: .keyedArchive, path: path)
    }
}

/// A class as an archive names it: `$classname`, the `$classes` chain and any `$classhints`.
public struct ArchivedClass: Sendable, Hashable {
    /// The archived class name, such as `NSMutableDictionary` or `MyApp.Employee`.
    public var name: String
    /// The class and its superclasses, most derived first, as the archive lists them.
    public var chain: [String]
    /// Fallback class names the archiver offered.
    public var hints: [String]
    /// The class's version as the archive records it (`$classversion`), or `nil` when the
    /// archive records none (Foundation's archives; read as version 0).
    public var version: Int?

    /// Makes a class description.
    /// - Parameters:
    ///   - name: the class name.
    ///   - chain: the class chain, most derived first; defaults to the name and `NSObject`.
    ///   - hints: fallback class names (`$classhints`).
    ///   - version: the class version to record as `$classversion`; `nil` records none.
    public init(name: String, chain: [String]? = nil, hints: [String] = [], version: Int? = nil) {
        self.name = name
        self.chain = chain ?? [name, "NSObject"]
        self.hints = hints
        self.version = version
    }
}
