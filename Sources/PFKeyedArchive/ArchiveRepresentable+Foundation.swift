import Foundation
import OrderedCollections
import PFCore

// Foundation's value types, archived the way Foundation archives their NS counterparts.

// MARK: - Scalars stored in the object table

extension KeyedUnarchiver {
    /// The scalar an object stands for: a string, number, boolean, data or date stored in
    /// place in the table, or an `NSString`/`NSNumber`/`NSData`/`NSDate`/`NSNull` dictionary.
    func scalar(at index: Int) throws -> KeyedGraph.Value? {
        if case .null = table.objects[index] { return nil }
        if let scalar = KeyedGraph.Value(scalar: table.objects[index]) { return scalar }
        switch table.objects[index] {
        case .dictionary(let object):
            let path: PFKeyPath = [.key("$objects"), .index(index)]
            return try table.foundationScalar(object, of: table.archivedClass(of: object, at: path), at: path)
        default: return nil
        }
    }

    func scalarValue(at index: Int, expected: String) throws -> KeyedGraph.Value {
        guard let value = try scalar(at: index) else {
            throw typeMismatch(expected: expected, found: "\(table.objects[index].kind.rawValue) (object \(index))")
        }
        return value
    }
}

/// Integers convert exactly or fail: narrowing is checked.
protocol ArchiveInteger: FixedWidthInteger, ArchiveRepresentable {}

extension ArchiveInteger {
    public func archiveReference(in archiver: KeyedArchiver) throws -> UInt64 {
        try archiver.builder.scalarReference(PFValue.integer(self) ?? .int(0))
    }

    static func convert(_ value: KeyedGraph.Value, unarchiver: KeyedUnarchiver) throws -> Self {
        let result: Self?
        switch value {
        case .int(let i): result = Self(exactly: i)
        case .uint(let u): result = Self(exactly: u)
        case .double(let d): result = d.isFinite ? Self(exactly: d) : nil
        case .bool(let b): result = b ? 1 : 0
        default:
            throw unarchiver.typeMismatch(expected: "\(Self.self)", found: "\(value)")
        }
        guard let result else {
            throw unarchiver.typeMismatch(expected: "\(Self.self) (\(Self.min)...\(Self.max), whole)", found: "\(value)")
        }
        return result
    }

    public static func unarchive(from unarchiver: KeyedUnarchiver, objectAt index: Int) throws -> Self {
        try convert(unarchiver.scalarValue(at: index, expected: "\(Self.self)"), unarchiver: unarchiver)
    }

    public static func unarchive(from unarchiver: KeyedUnarchiver, inlineValue: PFValue) throws -> Self {
        switch inlineValue {
        case .int(let i): return try convert(.int(i), unarchiver: unarchiver)
        case .uint(let u): return try convert(.uint(u), unarchiver: unarchiver)
        case .double(let d): return try convert(.double(d), unarchiver: unarchiver)
        case .bool(let b): return try convert(.bool(b), unarchiver: unarchiver)
        default: throw unarchiver.typeMismatch(expected: "\(Self.self)", found: inlineValue.kind.rawValue)
        }
    }
}

extension Int: ArchiveInteger {}
extension Int8: ArchiveInteger {}
extension Int16: ArchiveInteger {}
extension Int32: ArchiveInteger {}
extension Int64: ArchiveInteger {}
extension UInt: ArchiveInteger {}
extension UInt8: ArchiveInteger {}
extension UInt16: ArchiveInteger {}
extension UInt32: ArchiveInteger {}
extension UInt64: ArchiveInteger {}

extension Double: ArchiveRepresentable {
    public func archiveReference(in archiver: KeyedArchiver) throws -> UInt64 {
        try archiver.builder.scalarReference(.double(self))
    }

    static func convert(_ value: KeyedGraph.Value, unarchiver: KeyedUnarchiver) throws -> Double {
        switch value {
        case .double(let d): return d
        case .int(let i): return Double(i)
        case .uint(let u): return Double(u)
        default: throw unarchiver.typeMismatch(expected: "Double", found: "\(value)")
        }
    }

    public static func unarchive(from unarchiver: KeyedUnarchiver, objectAt index: Int) throws -> Double {
        try convert(unarchiver.scalarValue(at: index, expected: "Double"), unarchiver: unarchiver)
    }

    public static func unarchive(from unarchiver: KeyedUnarchiver, inlineValue: PFValue) throws -> Double {
        guard let d = inlineValue.doubleValue else {
            throw unarchiver.typeMismatch(expected: "Double", found: inlineValue.kind.rawValue)
        }
        return d
    }
}

extension Float: ArchiveRepresentable {
    public func archiveReference(in archiver: KeyedArchiver) throws -> UInt64 {
        try Double(self).archiveReference(in: archiver)
    }

    public static func unarchive(from unarchiver: KeyedUnarchiver, objectAt index: Int) throws -> Float {
        Float(try Double.unarchive(from: unarchiver, objectAt: index))
    }

    public static func unarchive(from unarchiver: KeyedUnarchiver, inlineValue: PFValue) throws -> Float {
        Float(try Double.unarchive(from: unarchiver, inlineValue: inlineValue))
    }
}

extension Bool: ArchiveRepresentable {
    public func archiveReference(in archiver: KeyedArchiver) throws -> UInt64 {
        try archiver.builder.scalarReference(.bool(self))
    }

    static func convert(_ value: KeyedGraph.Value, unarchiver: KeyedUnarchiver) throws -> Bool {
        switch value {
        case .bool(let b): return b
        case .int(0): return false
        case .int(1): return true
        default: throw unarchiver.typeMismatch(expected: "Bool", found: "\(value)")
        }
    }

    public static func unarchive(from unarchiver: KeyedUnarchiver, objectAt index: Int) throws -> Bool {
        try convert(unarchiver.scalarValue(at: index, expected: "Bool"), unarchiver: unarchiver)
    }

    public static func unarchive(from unarchiver: KeyedUnarchiver, inlineValue: PFValue) throws -> Bool {
        switch inlineValue {
        case .bool(let b): return b
        case .int(let i): return try convert(.int(i), unarchiver: unarchiver)
        default: throw unarchiver.typeMismatch(expected: "Bool", found: inlineValue.kind.rawValue)
        }
    }
}

extension String: ArchiveRepresentable {
    public func archiveReference(in archiver: KeyedArchiver) throws -> UInt64 {
        try archiver.builder.scalarReference(.string(self))
    }

    public static func unarchive(from unarchiver: KeyedUnarchiver, objectAt index: Int) throws -> String {
        let value = try unarchiver.scalarValue(at: index, expected: "String")
        guard case .string(let s) = value else { throw unarchiver.typeMismatch(expected: "String", found: "\(value)") }
        return s
    }

    public static func unarchive(from unarchiver: KeyedUnarchiver, inlineValue: PFValue) throws -> String {
        guard case .string(let s) = inlineValue else {
            throw unarchiver.typeMismatch(expected: "String", found: inlineValue.kind.rawValue)
        }
        return s
    }
}

extension Data: ArchiveRepresentable {
    public func archiveReference(in archiver: KeyedArchiver) throws -> UInt64 {
        try archiver.builder.scalarReference(.data(self))
    }

    public static func unarchive(from unarchiver: KeyedUnarchiver, objectAt index: Int) throws -> Data {
        let value = try unarchiver.scalarValue(at: index, expected: "Data")
        guard case .data(let d) = value else { throw unarchiver.typeMismatch(expected: "Data", found: "\(value)") }
        return d
    }

    public static func unarchive(from unarchiver: KeyedUnarchiver, inlineValue: PFValue) throws -> Data {
        guard case .data(let d) = inlineValue else {
            throw unarchiver.typeMismatch(expected: "Data", found: inlineValue.kind.rawValue)
        }
        return d
    }
}

extension Date: ArchiveRepresentable {
    public func archiveReference(in archiver: KeyedArchiver) throws -> UInt64 {
        try archiver.builder.dateReference(self)
    }

    public static func unarchive(from unarchiver: KeyedUnarchiver, objectAt index: Int) throws -> Date {
        let value = try unarchiver.scalarValue(at: index, expected: "Date")
        guard case .date(let d) = value else { throw unarchiver.typeMismatch(expected: "Date (NSDate)", found: "\(value)") }
        return d
    }
}

// MARK: - Foundation objects

extension UUID: ArchiveRepresentable {
    public func archiveReference(in archiver: KeyedArchiver) throws -> UInt64 {
        let bytes = withUnsafeBytes(of: uuid) { Data($0) }
        return try archiver.writeFoundationObject("NSUUID", fields: ["NS.uuidbytes": .data(bytes)])
    }

    public static func unarchive(from unarchiver: KeyedUnarchiver, objectAt index: Int) throws -> UUID {
        guard let (object, archivedClass) = try unarchiver.objectDictionary(at: index), archivedClass.name == "NSUUID" else {
            throw unarchiver.typeMismatch(expected: "NSUUID", found: "object \(index)")
        }
        guard case .data(let bytes)? = object["NS.uuidbytes"], bytes.count == 16 else {
            throw unarchiver.typeMismatch(expected: "16 bytes of NS.uuidbytes", found: "\(object["NS.uuidbytes"]?.kind.rawValue ?? "nothing")")
        }
        let b = Array(bytes)
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
}

extension URL: ArchiveRepresentable {
    public func archiveReference(in archiver: KeyedArchiver) throws -> UInt64 {
        let relative = try archiver.builder.scalarReference(.string(absoluteString))
        return try archiver.writeFoundationObject("NSURL", fields: ["NS.base": .uid(0), "NS.relative": .uid(relative)])
    }

    public static func unarchive(from unarchiver: KeyedUnarchiver, objectAt index: Int) throws -> URL {
        guard let (object, archivedClass) = try unarchiver.objectDictionary(at: index), archivedClass.name == "NSURL" else {
            throw unarchiver.typeMismatch(expected: "NSURL", found: "object \(index)")
        }
        var base: URL?
        if case .uid(let uid)? = object["NS.base"], uid != 0 {
            base = try unarchiver.decodeObject(URL.self, at: unarchiver.table.index(of: uid, at: [.key("$objects"), .index(index), .key("NS.base")]))
        }
        guard case .uid(let uid)? = object["NS.relative"], uid != 0 else {
            throw unarchiver.typeMismatch(expected: "NS.relative", found: "nothing")
        }
        let relative = try unarchiver.decodeObject(String.self, at: unarchiver.table.index(of: uid, at: [.key("$objects"), .index(index), .key("NS.relative")]))
        guard let url = URL(string: relative, relativeTo: base) else {
            throw unarchiver.typeMismatch(expected: "a URL", found: "\"\(relative)\"")
        }
        return url
    }
}

// MARK: - Collections

extension KeyedUnarchiver {
    /// The element references of an array-like Foundation object (`NSArray`, `NSSet`,
    /// `NSOrderedSet` and their mutable forms).
    func elementIndices(at index: Int, expected: String) throws -> [Int] {
        guard let (object, archivedClass) = try objectDictionary(at: index) else {
            throw typeMismatch(expected: expected, found: "\(table.objects[index].kind.rawValue) (object \(index))")
        }
        let path: PFKeyPath = [.key("$objects"), .index(index)]
        typealias F = KeyedGraph.FoundationClass
        var references: [PFValue] = []
        if F.arrays.contains(archivedClass.name) || F.sets.contains(archivedClass.name) {
            guard case .array(let items)? = object["NS.objects"] else { throw typeMismatch(expected: "NS.objects", found: "nothing") }
            references = items
        } else if F.orderedSets.contains(archivedClass.name) {
            var i = 0
            while let item = object["NS.object.\(i)"] { references.append(item); i += 1 }
        } else {
            throw typeMismatch(expected: expected, found: "\(archivedClass.name) (object \(index))")
        }
        return try references.enumerated().map { (i, item) throws -> Int in
            guard case .uid(let uid) = item, uid != 0 else {
                throw typeMismatch(expected: "an object reference", found: item.kind.rawValue)
            }
            return try table.index(of: uid, at: path.appending(index: i))
        }
    }
}

extension Array: ArchiveRepresentable where Element: ArchiveRepresentable {
    public func archiveReference(in archiver: KeyedArchiver) throws -> UInt64 {
        var references: [PFValue] = []
        references.reserveCapacity(count)
        for element in self { references.append(.uid(try element.archiveReference(in: archiver))) }
        return try archiver.writeFoundationObject("NSArray", fields: ["NS.objects": .array(references)])
    }

    public static func unarchive(from unarchiver: KeyedUnarchiver, objectAt index: Int) throws -> [Element] {
        try unarchiver.elementIndices(at: index, expected: "NSArray").map { try unarchiver.decodeObject(Element.self, at: $0) }
    }
}

extension Set: ArchiveRepresentable where Element: ArchiveRepresentable {
    public func archiveReference(in archiver: KeyedArchiver) throws -> UInt64 {
        var references: [PFValue] = []
        for element in self { references.append(.uid(try element.archiveReference(in: archiver))) }
        return try archiver.writeFoundationObject("NSSet", fields: ["NS.objects": .array(references)])
    }

    public static func unarchive(from unarchiver: KeyedUnarchiver, objectAt index: Int) throws -> Set<Element> {
        Set(try unarchiver.elementIndices(at: index, expected: "NSSet").map { try unarchiver.decodeObject(Element.self, at: $0) })
    }
}

extension Dictionary: ArchiveRepresentable where Key: ArchiveRepresentable, Value: ArchiveRepresentable {
    public func archiveReference(in archiver: KeyedArchiver) throws -> UInt64 {
        var keys: [PFValue] = []
        var values: [PFValue] = []
        for (key, value) in self {
            keys.append(.uid(try key.archiveReference(in: archiver)))
            values.append(.uid(try value.archiveReference(in: archiver)))
        }
        return try archiver.writeFoundationObject("NSDictionary", fields: ["NS.keys": .array(keys), "NS.objects": .array(values)])
    }

    public static func unarchive(from unarchiver: KeyedUnarchiver, objectAt index: Int) throws -> [Key: Value] {
        guard let (object, archivedClass) = try unarchiver.objectDictionary(at: index),
            KeyedGraph.FoundationClass.dictionaries.contains(archivedClass.name)
        else { throw unarchiver.typeMismatch(expected: "NSDictionary", found: "object \(index)") }
        guard case .array(let keys)? = object["NS.keys"], case .array(let values)? = object["NS.objects"] else {
            throw unarchiver.typeMismatch(expected: "NS.keys and NS.objects", found: "object \(index)")
        }
        guard keys.count == values.count else {
            throw unarchiver.typeMismatch(expected: "as many NS.objects as NS.keys", found: "\(keys.count) keys and \(values.count) objects")
        }
        let path: PFKeyPath = [.key("$objects"), .index(index)]
        var result: [Key: Value] = [:]
        for (key, value) in zip(keys, values) {
            guard case .uid(let k) = key, case .uid(let v) = value, k != 0, v != 0 else {
                throw unarchiver.typeMismatch(expected: "object references", found: "\(key.kind.rawValue) and \(value.kind.rawValue)")
            }
            let decodedKey = try unarchiver.decodeObject(Key.self, at: unarchiver.table.index(of: k, at: path))
            result[decodedKey] = try unarchiver.decodeObject(Value.self, at: unarchiver.table.index(of: v, at: path))
        }
        return result
    }
}

// MARK: - Value trees

extension PFValue: ArchiveRepresentable {
    /// Archives a value tree as Foundation objects: dictionaries as `NSDictionary`, arrays
    /// as `NSArray`, `null` as `NSNull`, dates as `NSDate`. UIDs cannot be archived.
    public func archiveReference(in archiver: KeyedArchiver) throws -> UInt64 {
        switch self {
        case .null: return try archiver.builder.nullObjectReference()
        case .bool, .int, .uint, .double, .string, .data: return try archiver.builder.scalarReference(self)
        case .date(let d): return try archiver.builder.dateReference(d)
        case .uid:
            throw PFError(KeyedArchiveFailure.uidNotArchivable, format: .keyedArchive, path: archiver.codingPath)
        case .array(let items):
            return try items.archiveReference(in: archiver)
        case .dictionary(let members):
            var keys: [PFValue] = []
            var values: [PFValue] = []
            for (key, value) in members {
                keys.append(.uid(try archiver.builder.scalarReference(.string(key))))
                values.append(.uid(try value.archiveReference(in: archiver)))
            }
            return try archiver.writeFoundationObject("NSDictionary", fields: ["NS.keys": .array(keys), "NS.objects": .array(values)])
        }
    }

    /// Reads any object as a value tree, the way ``KeyedGraph/jsonValue(limits:)`` renders it.
    public static func unarchive(from unarchiver: KeyedUnarchiver, objectAt index: Int) throws -> PFValue {
        var table = unarchiver.table
        table.top = [KeyedObjectTable.rootKey: UInt64(index)]
        let graph = try KeyedGraph(table: table, options: .init(limits: unarchiver.options.limits))
        return try graph.jsonValue(limits: unarchiver.options.limits)
    }

    public static func unarchive(from unarchiver: KeyedUnarchiver, inlineValue: PFValue) throws -> PFValue {
        inlineValue
    }
}
