import Foundation
import OrderedCollections
import PFCore

/// Builds an NSKeyedArchiver object table the way Foundation lays it out: `$null` at 0, one
/// slot per object identity, one class dictionary per class, and equal strings, numbers and
/// data stored once.
///
/// Both the graph archiver and the typed ``KeyedArchiver`` write through this builder.
public struct ObjectTableBuilder: Sendable {
    /// The table so far.
    public private(set) var objects: [PFValue] = [.string(KeyedObjectTable.nullMarker)]
    /// The `$top` entries so far.
    public var top = OrderedDictionary<String, UInt64>()

    private var classUIDs: [ArchivedClass: UInt64] = [:]
    /// ``classReference(_:)`` of `.foundation(name)`, by name, so `NSDate`, `NSArray`, … are
    /// not rebuilt and hashed as `ArchivedClass` values for every object.
    private var foundationClassUIDs: [String: UInt64] = [:]
    /// Shared scalars, compared exactly (``PFCore/PFValue/Exact``): `"é"` and `"e\u{301}"` stay two.
    private var scalarUIDs: [PFValue.Exact: UInt64] = [:]
    private var nullObjectUID: UInt64?
    private let maxObjects: Int

    /// Makes an empty builder.
    /// - Parameter maxObjects: the most table entries allowed (guards runaway encoders).
    public init(maxObjects: Int = PFLimits.default.maxNodes) {
        self.maxObjects = maxObjects
    }

    /// The finished table.
    public var table: KeyedObjectTable { KeyedObjectTable(top: top, objects: objects) }

    /// Reserves a slot for an object whose contents are written later with ``fill(_:with:)``.
    /// Reserving first is what lets cycles refer back to an object still being written.
    /// - Throws: ``PFError`` `limitExceeded` past `maxObjects`.
    public mutating func reserve() throws(PFError) -> UInt64 {
        guard objects.count < maxObjects else {
            throw PFLimits.exceeded("maxNodes", maxObjects, format: .keyedArchive)
        }
        objects.append(.string(KeyedObjectTable.nullMarker))
        return UInt64(objects.count - 1)
    }

    /// Writes the contents of a reserved slot: the object's fields, then its `$class`.
    public mutating func fill(_ uid: UInt64, with fields: OrderedDictionary<String, PFValue>, class archivedClass: ArchivedClass)
        throws(PFError)
    {
        var object = fields
        object["$class"] = .uid(try classReference(archivedClass))
        objects[Int(uid)] = .dictionary(object)
    }

    /// ``fill(_:with:class:)`` with the class reference already known.
    mutating func fill(_ uid: UInt64, with fields: OrderedDictionary<String, PFValue>, classUID: UInt64) {
        var object = fields
        object["$class"] = .uid(classUID)
        objects[Int(uid)] = .dictionary(object)
    }

    /// The reference to a class dictionary, adding it on first use.
    public mutating func classReference(_ archivedClass: ArchivedClass) throws(PFError) -> UInt64 {
        if let uid = classUIDs[archivedClass] { return uid }
        let uid = try reserve()
        objects[Int(uid)] = Self.classDictionary(archivedClass)
        classUIDs[archivedClass] = uid
        return uid
    }

    /// A class's dictionary in the table: `$classname`, `$classes`, hints and version.
    static func classDictionary(_ archivedClass: ArchivedClass) -> PFValue {
        var dictionary: OrderedDictionary<String, PFValue> = [
            "$classname": .string(archivedClass.name),
            "$classes": .array(archivedClass.chain.map { .string($0) }),
        ]
        if !archivedClass.hints.isEmpty {
            dictionary["$classhints"] = .array(archivedClass.hints.map { .string($0) })
        }
        if let version = archivedClass.version {
            // Foundation never reads this key, so archives stay readable by NSKeyedUnarchiver.
            dictionary[KeyedObjectTable.classVersionKey] = .int(Int64(version))
        }
        return .dictionary(dictionary)
    }

    /// The reference to the class dictionary of a Foundation class (``ArchivedClass/foundation(_:)``).
    mutating func foundationClassReference(_ name: String) throws(PFError) -> UInt64 {
        if let uid = foundationClassUIDs[name] { return uid }
        let uid = try classReference(.foundation(name))
        foundationClassUIDs[name] = uid
        return uid
    }

    /// The reference to a string, number, boolean or data object stored in place in the
    /// table, shared with every exactly equal one (strings by their Unicode scalars).
    public mutating func scalarReference(_ value: PFValue) throws(PFError) -> UInt64 {
        precondition(!value.isContainer, "Only scalars are stored in place in the object table.")
        let key = PFValue.Exact(value)
        if let uid = scalarUIDs[key] { return uid }
        let uid = try reserve()
        objects[Int(uid)] = value
        scalarUIDs[key] = uid
        return uid
    }

    /// The reference to an `NSDate` object for a date, shared with every equal date.
    public mutating func dateReference(_ date: Date) throws(PFError) -> UInt64 {
        let key = PFValue.Exact(.date(date))
        if let uid = scalarUIDs[key] { return uid }
        let uid = try reserve()
        fill(uid, with: ["NS.time": .double(date.timeIntervalSinceReferenceDate)], classUID: try foundationClassReference("NSDate"))
        scalarUIDs[key] = uid
        return uid
    }

    /// Overwrites one entry of the table.
    mutating func setObject(_ value: PFValue, at index: Int) {
        precondition(objects.indices.contains(index), "Only existing entries can be replaced.")
        objects[index] = value
    }

    /// The reference to the archive's one `NSNull` object.
    public mutating func nullObjectReference() throws(PFError) -> UInt64 {
        if let nullObjectUID { return nullObjectUID }
        let uid = try reserve()
        try fill(uid, with: [:], class: .foundation("NSNull"))
        nullObjectUID = uid
        return uid
    }
}

extension ArchivedClass {
    /// A Foundation class with the chain Foundation archives for it.
    public static func foundation(_ name: String) -> ArchivedClass {
        ArchivedClass(name: name, chain: foundationChains[name] ?? [name, "NSObject"])
    }

    static let foundationChains: [String: [String]] = [
        "NSMutableArray": ["NSMutableArray", "NSArray", "NSObject"],
        "NSMutableDictionary": ["NSMutableDictionary", "NSDictionary", "NSObject"],
        "NSMutableSet": ["NSMutableSet", "NSSet", "NSObject"],
        "NSCountedSet": ["NSCountedSet", "NSMutableSet", "NSSet", "NSObject"],
        "NSMutableOrderedSet": ["NSMutableOrderedSet", "NSOrderedSet", "NSObject"],
        "NSMutableString": ["NSMutableString", "NSString", "NSObject"],
        "NSMutableData": ["NSMutableData", "NSData", "NSObject"],
        "NSMutableAttributedString": ["NSMutableAttributedString", "NSAttributedString", "NSObject"],
    ]
}
