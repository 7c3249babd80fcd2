import Foundation
import OrderedCollections
import PFCore

// MARK: - Class chains NSArchiver writes

extension ClassicClassVersion {
    static let nsObject = ClassicClassVersion("NSObject")
    static let nsString = [ClassicClassVersion("NSString", version: 1), nsObject]
    static let nsNumber = [ClassicClassVersion("NSNumber"), ClassicClassVersion("NSValue"), nsObject]
    static let nsValue = [ClassicClassVersion("NSValue"), nsObject]
    static let nsData = [ClassicClassVersion("NSData"), nsObject]
    static let nsDate = [ClassicClassVersion("NSDate"), nsObject]
    static let nsArray = [ClassicClassVersion("NSArray"), nsObject]
    static let nsDictionary = [ClassicClassVersion("NSDictionary"), nsObject]
    static let nsNull = [ClassicClassVersion("NSNull"), nsObject]
    static let nsURL = [ClassicClassVersion("NSURL"), nsObject]
    static let nsAttributedString = [ClassicClassVersion("NSAttributedString"), nsObject]
}

extension ClassicArchiver {
    func writeNumber(_ type: TypeEncoding, _ value: TypedStreamValue) throws {
        try writeObject(chain: ClassicClassVersion.nsNumber) { a in
            try a.encodeCString(type.description)
            try a.encodeValue(ofType: type, value)
        }
    }
}

extension ClassicUnarchiver {
    /// Reads an NSNumber's type and value.
    func numberValue(at index: Int) throws -> (TypeEncoding, TypedStreamValue) {
        try withObject(at: index, expecting: ["NSNumber"]) { _ in
            guard let typeText = try decodeCString() else { throw failure(.numberWithoutType) }
            let type = try TypeEncoding.parse(typeText)
            return (type, try decodeValue(ofType: type))
        }
    }

    func integer<T: FixedWidthInteger>(_ type: T.Type, at index: Int) throws -> T {
        let (_, value) = try numberValue(at: index)
        switch value {
        case .int(let i): if let v = T(exactly: i) { return v }
        case .uint(let u): if let v = T(exactly: u) { return v }
        case .bool(let b): return b ? 1 : 0
        default: break
        }
        throw failure(.numberDoesNotFit(value: "\(value)", type: "\(T.self)"), offset: document.objectEntry(index)?.offset)
    }
}

// MARK: - Strings, numbers, data, dates

extension String: ClassicRepresentable {
    public func classicWrite(to archiver: ClassicArchiver) throws {
        try archiver.writeObject(chain: ClassicClassVersion.nsString) { $0.encodeBytes(Data(self.utf8)) }
    }

    public static func classicRead(from unarchiver: ClassicUnarchiver, objectAt index: Int) throws -> String {
        try unarchiver.withObject(at: index, expecting: TypedStreamDocument.stringClasses) { _ in
            guard let bytes = try unarchiver.decodeBytes(), let s = String(validating: bytes, as: UTF8.self) else {
                throw unarchiver.failure(.stringBytes)
            }
            return s
        }
    }
}

extension Int: ClassicRepresentable {
    public func classicWrite(to archiver: ClassicArchiver) throws { try archiver.writeNumber(.int64, .int(Int64(self))) }
    public static func classicRead(from unarchiver: ClassicUnarchiver, objectAt index: Int) throws -> Int {
        try unarchiver.integer(Int.self, at: index)
    }
}

extension Int64: ClassicRepresentable {
    public func classicWrite(to archiver: ClassicArchiver) throws { try archiver.writeNumber(.int64, .int(self)) }
    public static func classicRead(from unarchiver: ClassicUnarchiver, objectAt index: Int) throws -> Int64 {
        try unarchiver.integer(Int64.self, at: index)
    }
}

extension Int32: ClassicRepresentable {
    public func classicWrite(to archiver: ClassicArchiver) throws { try archiver.writeNumber(.int32, .int(Int64(self))) }
    public static func classicRead(from unarchiver: ClassicUnarchiver, objectAt index: Int) throws -> Int32 {
        try unarchiver.integer(Int32.self, at: index)
    }
}

extension UInt64: ClassicRepresentable {
    public func classicWrite(to archiver: ClassicArchiver) throws { try archiver.writeNumber(.uint64, .uint(self)) }
    public static func classicRead(from unarchiver: ClassicUnarchiver, objectAt index: Int) throws -> UInt64 {
        try unarchiver.integer(UInt64.self, at: index)
    }
}

extension Bool: ClassicRepresentable {
    public func classicWrite(to archiver: ClassicArchiver) throws { try archiver.writeNumber(.char, .int(self ? 1 : 0)) }
    public static func classicRead(from unarchiver: ClassicUnarchiver, objectAt index: Int) throws -> Bool {
        let (_, value) = try unarchiver.numberValue(at: index)
        switch value {
        case .bool(let b): return b
        case .int(let i) where i == 0 || i == 1: return i == 1
        default: throw unarchiver.failure(.numberNotBoolean("\(value)"))
        }
    }
}

extension Double: ClassicRepresentable {
    public func classicWrite(to archiver: ClassicArchiver) throws { try archiver.writeNumber(.double, .double(self)) }
    public static func classicRead(from unarchiver: ClassicUnarchiver, objectAt index: Int) throws -> Double {
        let (_, value) = try unarchiver.numberValue(at: index)
        switch value {
        case .double(let d): return d
        case .float(let f): return Double(f)
        case .int(let i): return Double(i)
        case .uint(let u): return Double(u)
        default: throw unarchiver.failure(.numberNotNumber("\(value)"))
        }
    }
}

extension Data: ClassicRepresentable {
    public func classicWrite(to archiver: ClassicArchiver) throws {
        try archiver.writeObject(chain: ClassicClassVersion.nsData) { try $0.encodeDataObject(self) }
    }
    public static func classicRead(from unarchiver: ClassicUnarchiver, objectAt index: Int) throws -> Data {
        try unarchiver.withObject(at: index, expecting: TypedStreamDocument.dataClasses) { _ in try unarchiver.decodeDataObject() }
    }
}

extension Date: ClassicRepresentable {
    public func classicWrite(to archiver: ClassicArchiver) throws {
        try archiver.writeObject(chain: ClassicClassVersion.nsDate) { $0.encode(self.timeIntervalSinceReferenceDate) }
    }
    public static func classicRead(from unarchiver: ClassicUnarchiver, objectAt index: Int) throws -> Date {
        try unarchiver.withObject(at: index, expecting: ["NSDate"]) { _ in
            Date(timeIntervalSinceReferenceDate: try unarchiver.decode(Double.self))
        }
    }
}

extension URL: ClassicRepresentable {
    public func classicWrite(to archiver: ClassicArchiver) throws {
        try archiver.writeObject(chain: ClassicClassVersion.nsURL) { a in
            a.encode(false)
            try a.encode(self.absoluteString)
        }
    }
    public static func classicRead(from unarchiver: ClassicUnarchiver, objectAt index: Int) throws -> URL {
        try unarchiver.withObject(at: index, expecting: ["NSURL"]) { _ in
            let relative = try unarchiver.decode(Bool.self)
            let base = relative ? try unarchiver.decode(URL.self) : nil
            guard let string = try unarchiver.decode(String.self), let url = URL(string: string, relativeTo: base) else {
                throw unarchiver.failure(.urlWithoutString)
            }
            return url
        }
    }
}

// MARK: - Collections

extension Array: ClassicRepresentable where Element: ClassicRepresentable {
    public func classicWrite(to archiver: ClassicArchiver) throws {
        guard let count = Int32(exactly: self.count) else {
            throw PFError(TypedStreamFailure.arrayTooLarge(self.count), format: .typedstream)
        }
        try archiver.writeObject(chain: ClassicClassVersion.nsArray) { a in
            a.encode(count)
            for element in self { try a.encode(element) }
        }
    }

    public static func classicRead(from unarchiver: ClassicUnarchiver, objectAt index: Int) throws -> [Element] {
        try ClassicArray<Element>.classicRead(from: unarchiver, objectAt: index).elements
    }
}

/// An `NSArray`, `NSMutableArray`, `NSSet` or `NSMutableSet` of one element type that keeps
/// the class chain it was read with, so it is written back as the same class: what a
/// generated `ClassicArchiveCoding` class holds for a position of arrays (a Grapher view's
/// `NSMutableArray` of drawing objects). A Swift `Array` is always written as an `NSArray`.
///
/// ```swift
/// var items = try coder.decode(ClassicArray<GDrawingObject>.self)            // an NSMutableArray
/// items.elements.append(object)
/// try archiver.encode(items)                                        // an NSMutableArray again
/// ```
public struct ClassicArray<Element: ClassicRepresentable>: ClassicRepresentable, RandomAccessCollection, MutableCollection, ExpressibleByArrayLiteral {
    /// The elements, in order.
    public var elements: [Element]
    /// The class chain written, most derived first: `NSArray`/`NSObject` unless read otherwise.
    /// A chain whose first class is `NSSet` or `NSMutableSet` writes a set's layout (an `I` count).
    public var classChain: [ClassicClassVersion]

    /// Makes an array written with a class chain.
    /// - Parameters:
    ///   - elements: the elements.
    ///   - classChain: the chain, most derived first; `NSArray` on `NSObject` by default.
    public init(_ elements: [Element], classChain: [ClassicClassVersion] = [ClassicClassVersion("NSArray"), ClassicClassVersion("NSObject")]) {
        self.elements = elements
        self.classChain = classChain
    }

    /// Makes an `NSArray` of the elements.
    /// - Parameter elements: the elements.
    public init(arrayLiteral elements: Element...) {
        self.init(elements)
    }

    /// The position of the first element.
    public var startIndex: Int { elements.startIndex }
    /// The position after the last element.
    public var endIndex: Int { elements.endIndex }
    /// The element at a position.
    public subscript(position: Int) -> Element {
        get { elements[position] }
        set { elements[position] = newValue }
    }

    /// Whether the chain is a set's (`NSSet`, `NSMutableSet`), whose count is unsigned.
    var isSet: Bool { TypedStreamDocument.setClasses.contains(classChain.first?.name ?? "") }

    public func classicWrite(to archiver: ClassicArchiver) throws {
        guard let count = Int32(exactly: elements.count) else {
            throw PFError(TypedStreamFailure.arrayTooLarge(elements.count), format: .typedstream)
        }
        try archiver.writeObject(chain: classChain) { a in
            if isSet { a.encode(UInt32(count)) } else { a.encode(count) }
            for element in elements { try a.encode(element) }
        }
    }

    public static func classicRead(from unarchiver: ClassicUnarchiver, objectAt index: Int) throws -> ClassicArray {
        try unarchiver.withObject(at: index, expecting: TypedStreamDocument.arrayClasses.union(TypedStreamDocument.setClasses)) { chain in
            let isSet = TypedStreamDocument.setClasses.contains(chain.first?.name ?? "")
            let count = isSet ? Int(try unarchiver.decode(UInt32.self)) : Int(try unarchiver.decode(Int32.self))
            guard count >= 0 else { throw unarchiver.failure(.negativeElementCount(count)) }
            var out: [Element] = []
            for _ in 0..<count {
                guard let element = try unarchiver.decode(Element.self) else { throw unarchiver.failure(.nilElement) }
                out.append(element)
            }
            return ClassicArray(out, classChain: chain.map { ClassicClassVersion($0.name, version: $0.version) })
        }
    }
}

extension ClassicArray: Sendable where Element: Sendable {}
extension ClassicArray: Equatable where Element: Equatable {}

extension Dictionary: ClassicRepresentable where Key == String, Value: ClassicRepresentable {
    public func classicWrite(to archiver: ClassicArchiver) throws {
        guard let count = Int32(exactly: self.count) else {
            throw PFError(TypedStreamFailure.dictionaryTooLarge(self.count), format: .typedstream)
        }
        try archiver.writeObject(chain: ClassicClassVersion.nsDictionary) { a in
            a.encode(count)
            for (key, value) in self {
                try a.encode(key)
                try a.encode(value)
            }
        }
    }

    public static func classicRead(from unarchiver: ClassicUnarchiver, objectAt index: Int) throws -> [String: Value] {
        try unarchiver.withObject(at: index, expecting: TypedStreamDocument.dictionaryClasses) { _ in
            let count = try unarchiver.decode(Int32.self)
            guard count >= 0 else { throw unarchiver.failure(.negativeEntryCount(Int(count))) }
            var out: [String: Value] = [:]
            for _ in 0..<count {
                guard let key = try unarchiver.decode(String.self), let value = try unarchiver.decode(Value.self) else {
                    throw unarchiver.failure(.nilKeyOrValue)
                }
                out[key] = value
            }
            return out
        }
    }
}

// MARK: - NSNull, NSValue, attributed strings

/// `NSNull`: the placeholder for nil in collections.
public struct ClassicNull: ClassicRepresentable, Sendable, Hashable {
    /// Makes the null value.
    public init() {}

    public func classicWrite(to archiver: ClassicArchiver) throws {
        try archiver.writeObject(chain: ClassicClassVersion.nsNull) { _ in }
    }

    public static func classicRead(from unarchiver: ClassicUnarchiver, objectAt index: Int) throws -> ClassicNull {
        try unarchiver.withObject(at: index, expecting: ["NSNull"]) { _ in ClassicNull() }
    }
}

/// `NSValue`: one value of any Objective-C type, such as a `{CGSize=dd}` struct.
public struct ClassicValue: ClassicRepresentable, Sendable, Equatable {
    /// The value's type.
    public var type: TypeEncoding
    /// The value.
    public var value: TypedStreamValue

    /// Makes a value.
    /// - Parameters:
    ///   - type: its Objective-C type.
    ///   - value: the value, which must fit `type`.
    public init(type: TypeEncoding, value: TypedStreamValue) {
        self.type = type
        self.value = value
    }

    public func classicWrite(to archiver: ClassicArchiver) throws {
        try archiver.writeObject(chain: ClassicClassVersion.nsValue) { a in
            try a.encodeCString(type.description)
            try a.encodeValue(ofType: type, value)
        }
    }

    public static func classicRead(from unarchiver: ClassicUnarchiver, objectAt index: Int) throws -> ClassicValue {
        try unarchiver.withObject(at: index, expecting: ["NSValue"]) { _ in
            guard let text = try unarchiver.decodeCString() else { throw unarchiver.failure(.valueWithoutType) }
            let type = try TypeEncoding.parse(text)
            return ClassicValue(type: type, value: try unarchiver.decodeValue(ofType: type))
        }
    }
}

/// `NSAttributedString` (and its mutable subclass): a string and attribute runs covering it.
///
/// Run lengths count UTF-16 code units, as NSString does.
public struct ClassicAttributedString<Attributes: ClassicRepresentable>: ClassicRepresentable {
    /// One run: a length and the attributes that apply to it.
    public struct Run {
        /// The run's length in UTF-16 code units.
        public var length: Int
        /// The run's attributes.
        public var attributes: Attributes

        /// Makes a run.
        /// - Parameters:
        ///   - length: its length in UTF-16 code units.
        ///   - attributes: its attributes.
        public init(length: Int, attributes: Attributes) {
            self.length = length
            self.attributes = attributes
        }
    }

    /// The text.
    public var string: String
    /// The runs, in order; their lengths sum to the string's UTF-16 length.
    public var runs: [Run]
    /// Whether to write `NSMutableAttributedString` rather than `NSAttributedString`.
    public var mutable: Bool

    /// Makes an attributed string.
    /// - Parameters:
    ///   - string: the text.
    ///   - runs: the runs.
    ///   - mutable: whether it is an `NSMutableAttributedString`.
    public init(string: String, runs: [Run], mutable: Bool = false) {
        self.string = string
        self.runs = runs
        self.mutable = mutable
    }

    public func classicWrite(to archiver: ClassicArchiver) throws {
        let total = runs.reduce(0) { $0 + $1.length }
        guard total == string.utf16.count, runs.allSatisfy({ $0.length >= 0 && $0.length <= Int(Int32.max) }) else {
            throw PFError(TypedStreamFailure.unwritableAttributeRuns(total: total, length: string.utf16.count), format: .typedstream)
        }
        var chain = ClassicClassVersion.nsAttributedString
        if mutable { chain.insert(ClassicClassVersion("NSMutableAttributedString"), at: 0) }
        try archiver.writeObject(chain: chain) { a in
            try a.encode(string)
            // Each run names its attribute dictionary by a 1-based number; a dictionary is
            // written after the first run that uses it (runs here each get their own).
            for (number, run) in runs.enumerated() {
                try a.encodeValues(ofTypes: [.int32, .uint32], [.int(Int64(number + 1)), .uint(UInt64(run.length))])
                try a.encode(run.attributes)
            }
        }
    }

    public static func classicRead(from unarchiver: ClassicUnarchiver, objectAt index: Int) throws -> ClassicAttributedString {
        try unarchiver.withObject(at: index, expecting: TypedStreamDocument.attributedClasses) { chain in
            guard let string = try unarchiver.decode(String.self) else { throw unarchiver.failure(.attributedStringWithoutString) }
            var dictionaries: [Int64: Attributes] = [:]
            var runs: [Run] = []
            var total = 0
            while unarchiver.hasMoreValues {
                let pair = try unarchiver.decodeValues(ofTypes: [.int32, .uint32])
                guard case .int(let number) = pair[0], case .uint(let length) = pair[1], length <= UInt64(Int32.max) else {
                    throw unarchiver.failure(.malformedAttributeRun)
                }
                if dictionaries[number] == nil {
                    guard let attributes = try unarchiver.decode(Attributes.self) else { throw unarchiver.failure(.nilAttributes) }
                    dictionaries[number] = attributes
                }
                guard let attributes = dictionaries[number] else { continue }
                runs.append(Run(length: Int(length), attributes: attributes))
                total += Int(length)
            }
            guard total == string.utf16.count else {
                throw unarchiver.failure(.attributeRuns(total: total, length: string.utf16.count))
            }
            return ClassicAttributedString(string: string, runs: runs, mutable: chain.first?.name == "NSMutableAttributedString")
        }
    }
}

// MARK: - Generic objects and PFValue trees

/// An object of a class pfarchive does not know, kept whole: its class chain with versions
/// and every value group, so nothing is lost and nothing is instantiated.
public struct ClassicGenericObject: ClassicRepresentable, Sendable, Equatable {
    /// The class chain, most derived first.
    public var classChain: [ClassicClassVersion]
    /// The value groups as written (object values are indices into the stream's object table).
    public var groups: [TypedStreamGroup]

    public func classicWrite(to archiver: ClassicArchiver) throws {
        throw PFError(TypedStreamFailure.genericObject, format: .typedstream)
    }

    public static func classicRead(from unarchiver: ClassicUnarchiver, objectAt index: Int) throws -> ClassicGenericObject {
        try unarchiver.withObject(at: index) { chain in
            var groups: [TypedStreamGroup] = []
            while unarchiver.hasMoreValues { groups.append(try unarchiver.decodeNextGroup()) }
            return ClassicGenericObject(classChain: chain.map { ClassicClassVersion($0.name, version: $0.version) }, groups: groups)
        }
    }
}

extension PFValue: ClassicRepresentable {
    /// Writes the tree as Foundation objects: dictionaries → NSDictionary, arrays → NSArray,
    /// strings → NSString, numbers → NSNumber (`q`, `Q`, `d`; booleans `c`), data → NSData,
    /// dates → NSDate, null → NSNull; a generic object in the shape
    /// ``TypedStream/decodeValue(_:limits:)`` produces (`$class`, `$version`, `$values`) is
    /// written as that class with its groups, and `$id`/`$ref` keep objects shared.
    public func classicWrite(to archiver: ClassicArchiver) throws {
        switch self {
        case .null: try ClassicNull().classicWrite(to: archiver)
        case .bool(let b): try b.classicWrite(to: archiver)
        case .int(let i): try i.classicWrite(to: archiver)
        case .uint(let u): try u.classicWrite(to: archiver)
        case .double(let d): try d.classicWrite(to: archiver)
        case .string(let s): try s.classicWrite(to: archiver)
        case .data(let d): try d.classicWrite(to: archiver)
        case .date(let d): try d.classicWrite(to: archiver)
        case .array(let items):
            guard let count = Int32(exactly: items.count) else {
                throw PFError(TypedStreamFailure.arrayTooLarge(items.count), format: .typedstream)
            }
            try archiver.writeObject(chain: ClassicClassVersion.nsArray) { a in
                a.encode(count)
                for item in items { try a.encode(item) }
            }
        case .dictionary(let members):
            // `$class`/`$values` objects and `$id`/`$ref` sharing, as decodeValue writes them.
            if try archiver.writeTreeObject(members) { return }
            // Any other dictionary is an NSDictionary. One with an `$id` is shared (a keyed
            // archive's object, `{"$class": "kt.Tag", "$id": 2, "label": …}`, has no typedstream
            // form of its own): it is written once, without the `$id`, and its `$ref`s refer to it.
            var entries = members
            if let id = members["$id"]?.int64Value {
                archiver.registerSharedTree(id, members)
                entries.removeValue(forKey: "$id")
            }
            guard let count = Int32(exactly: entries.count) else {
                throw PFError(TypedStreamFailure.dictionaryTooLarge(entries.count), format: .typedstream)
            }
            try archiver.writeObject(chain: ClassicClassVersion.nsDictionary) { a in
                a.encode(count)
                for (key, value) in entries {
                    try a.encode(key)
                    try a.encode(value)
                }
            }
        case .uid(let u):
            throw PFError(TypedStreamFailure.uid(UInt64(u)), format: .typedstream)
        }
    }

    /// Reads any object as a tree, as ``TypedStream/decodeValue(_:limits:)`` does, except
    /// that an object shared anywhere in the stream carries `$id` (its index in the table plus
    /// one) in every tree read from this unarchiver: a ``ClassicArchiver`` that writes several
    /// such trees writes that object once and refers back to it after that.
    public static func classicRead(from unarchiver: ClassicUnarchiver, objectAt index: Int) throws -> PFValue {
        var converter = TypedStreamValueConverter(document: unarchiver.document, limits: unarchiver.limits)
        return try converter.convertObject(index, sharedIn: unarchiver.referenceCounts)
    }
}
