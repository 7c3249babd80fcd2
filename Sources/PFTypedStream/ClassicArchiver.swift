import Foundation
import OrderedCollections
import PFCore

/// Archives values into a typedstream that `NSUnarchiver` and pytypedstream read: the
/// classic, order-dependent half of the coding protocol.
///
/// ```swift
/// let data = try ClassicArchiver.archivedData(withRootObject: point)
/// ```
///
/// Each call writes one group: its type encoding, then the value. A class instance encoded
/// twice is written once and referenced after that, so shared objects and cycles survive.
public final class ClassicArchiver {
    var writer: TypedStreamWriter
    var identities: [ObjectIdentifier: Int] = [:]
    /// Archived instances, kept alive so no `ObjectIdentifier` is reused while archiving.
    var retained: [AnyObject] = []
    var depth = 0
    let maxDepth: Int
    /// Object numbers of tree values written with `$id`, for later `{"$ref": N}`.
    var sharedTreeIDs: [Int64: Int] = [:]
    /// The contents written under each `$id`: the same `$id` with the same contents is the
    /// same object, with other contents another tree's object.
    var sharedTreeValues: [Int64: OrderedDictionary<String, PFValue>] = [:]

    /// Makes an archiver that writes the standard header (version 4, `streamtyped`, 1000).
    /// - Parameter maxDepth: the deepest nesting of objects to write before failing with
    ///   `limitExceeded` (the format nests objects inline, so depth is stack depth).
    public init(maxDepth: Int = PFLimits.default.maxDepth) {
        writer = TypedStreamWriter()
        self.maxDepth = maxDepth
    }

    /// Always `false`: this coder is order-dependent; keys mean nothing to it.
    public var allowsKeyedCoding: Bool { false }

    /// The system version written in the header (1000, Mac OS X).
    public var systemVersion: Int { 1000 }

    /// Archives a root object as one `@` group and returns the stream's bytes.
    /// - Parameters:
    ///   - root: the object or value to archive.
    ///   - maxDepth: the deepest nesting of objects allowed.
    /// - Returns: the typedstream.
    /// - Throws: ``PFError`` `limitExceeded` for graphs nested deeper than `maxDepth`,
    ///   `unrepresentable` for values the format cannot carry, or any error an
    ///   ``ClassicArchiveCoding/encode(with:)`` throws.
    public static func archivedData(withRootObject root: some ClassicRepresentable, maxDepth: Int = PFLimits.default.maxDepth) throws -> Data {
        let archiver = ClassicArchiver(maxDepth: maxDepth)
        try archiver.encode(root)
        return archiver.encodedData
    }

    /// The bytes written so far.
    public var encodedData: Data { Data(writer.bytes) }

    // MARK: - Scalars

    func scalar(_ c: Character, _ write: (inout TypedStreamWriter) -> Void) {
        writer.writeEncodings([.scalar(UInt8(ascii: c.unicodeScalars.first ?? "!"))])
        write(&writer)
    }

    /// Encodes a `BOOL` as Objective-C does: type `c`, one raw byte 0 or 1.
    public func encode(_ value: Bool) { scalar("c") { $0.bytes.append(value ? 1 : 0) } }
    /// Encodes a signed char (`c`, one raw byte).
    public func encode(_ value: Int8) { scalar("c") { $0.bytes.append(UInt8(bitPattern: value)) } }
    /// Encodes an unsigned char (`C`, one raw byte).
    public func encode(_ value: UInt8) { scalar("C") { $0.bytes.append(value) } }
    /// Encodes a short (`s`).
    public func encode(_ value: Int16) { scalar("s") { $0.writeInteger(Int64(value)) } }
    /// Encodes an unsigned short (`S`).
    public func encode(_ value: UInt16) { scalar("S") { $0.writeUnsigned(UInt64(value)) } }
    /// Encodes an int (`i`).
    public func encode(_ value: Int32) { scalar("i") { $0.writeInteger(Int64(value)) } }
    /// Encodes an unsigned int (`I`).
    public func encode(_ value: UInt32) { scalar("I") { $0.writeUnsigned(UInt64(value)) } }
    /// Encodes a long long (`q`).
    public func encode(_ value: Int64) { scalar("q") { $0.writeInteger(value) } }
    /// Encodes an unsigned long long (`Q`).
    public func encode(_ value: UInt64) { scalar("Q") { $0.writeUnsigned(value) } }
    /// Encodes an `NSInteger` (`q`, as on 64-bit Apple platforms).
    public func encode(_ value: Int) { encode(Int64(value)) }
    /// Encodes an `NSUInteger` (`Q`).
    public func encode(_ value: UInt) { encode(UInt64(value)) }
    /// Encodes a float (`f`).
    public func encode(_ value: Float) { scalar("f") { $0.writeFloat(value) } }
    /// Encodes a double (`d`).
    public func encode(_ value: Double) { scalar("d") { $0.writeDouble(value) } }

    /// Encodes raw bytes with their length (type `+`), as NSString stores its UTF-8.
    /// - Parameter bytes: the bytes.
    public func encodeBytes(_ bytes: Data) {
        writer.writeEncodings([.bytes])
        writer.writeUnsharedString(Array(bytes))
    }

    /// Encodes a data object as `-[NSCoder encodeDataObject:]` does: an `i` group with the
    /// length, then a `[Nc]` group with the bytes.
    /// - Parameter data: the bytes.
    /// - Throws: ``PFError`` `unrepresentable` when longer than `Int32.max` bytes.
    public func encodeDataObject(_ data: Data) throws {
        guard let length = Int32(exactly: data.count) else {
            throw PFError(TypedStreamFailure.dataTooLong(data.count), format: .typedstream)
        }
        encode(length)
        writer.writeEncodings([.byteArray(data.count)])
        writer.bytes.append(contentsOf: data)
    }

    /// Encodes a C string (type `*`); repeated strings are written once and referenced.
    /// - Parameter string: the string, or `nil`.
    /// - Throws: ``PFError`` `unrepresentable` when the string contains U+0000.
    public func encodeCString(_ string: String?) throws {
        writer.writeEncodings([.cString])
        try writeCString(string)
    }

    func writeCString(_ string: String?) throws {
        guard let string else { return writer.writeNil() }
        let bytes = Array(string.utf8)
        guard !bytes.contains(0) else {
            throw PFError(TypedStreamFailure.nulInCString, format: .typedstream)
        }
        writer.writeCString(bytes)
    }

    /// Encodes one group of values of the given types, as `encodeValuesOfObjCTypes:` does
    /// (for example `"iI"`). A class (`#`) is written from its resolved chain
    /// (``TypedStreamValue/classChain(_:)``) and an object (`@`) from its value tree
    /// (``TypedStreamValue/tree(_:)``); other objects are written with
    /// ``encode(_:)-(T?)`` or, in a group with other values, ``encodeGroup(_:)``.
    /// - Parameters:
    ///   - types: the encodings, one per value.
    ///   - values: the values.
    /// - Throws: ``PFError`` `usage` when a value does not fit its type or is an object.
    public func encodeValues(ofTypes types: [TypeEncoding], _ values: [TypedStreamValue]) throws {
        guard types.count == values.count, !types.isEmpty else {
            throw PFError(TypedStreamFailure.typeCount(types: types.count, values: values.count), format: .typedstream)
        }
        writer.writeEncodings(types)
        for (type, value) in zip(types, values) { try writeValue(value, as: type) }
    }

    /// Encodes a single value of the given type (`encodeValueOfObjCType:at:`).
    /// - Parameters:
    ///   - type: the encoding, such as `{CGSize=dd}`.
    ///   - value: the value.
    /// - Throws: ``PFError`` `usage` when the value does not fit the type.
    public func encodeValue(ofType type: TypeEncoding, _ value: TypedStreamValue) throws {
        try encodeValues(ofTypes: [type], [value])
    }

    func writeValue(_ value: TypedStreamValue, as type: TypeEncoding) throws {
        func mismatch() -> PFError {
            PFError(TypedStreamFailure.valueType(value: "\(value)", type: "\(type)"), format: .typedstream)
        }
        switch (type, value) {
        case (.scalar(let c), _):
            switch (c, value) {
            case (UInt8(ascii: "c"), .int(let v)):
                guard let b = Int8(exactly: v) else { throw mismatch() }
                writer.bytes.append(UInt8(bitPattern: b))
            case (UInt8(ascii: "c"), .bool(let b)), (UInt8(ascii: "B"), .bool(let b)): writer.bytes.append(b ? 1 : 0)
            case (UInt8(ascii: "C"), .uint(let v)):
                guard let b = UInt8(exactly: v) else { throw mismatch() }
                writer.bytes.append(b)
            case (_, .int(let v)) where type.isSignedInteger: writer.writeInteger(v)
            case (_, .uint(let v)) where type.isUnsignedInteger: writer.writeUnsigned(v)
            case (UInt8(ascii: "f"), .float(let f)): writer.writeFloat(f)
            case (UInt8(ascii: "d"), .double(let d)): writer.writeDouble(d)
            case (UInt8(ascii: "+"), .bytes(let b)): writer.writeUnsharedString(b)
            case (UInt8(ascii: "*"), .cString(let s)): try writeCString(String(decoding: s, as: UTF8.self))
            case (UInt8(ascii: "%"), .atom(let s?)), (UInt8(ascii: ":"), .selector(let s?)): writer.writeSharedString(s)
            case (UInt8(ascii: "%"), .atom(nil)), (UInt8(ascii: ":"), .selector(nil)): writer.writeNil()
            case (UInt8(ascii: "#"), .classChain(let chain)) where !chain.isEmpty:
                writer.writeClassChain(chain.map { ($0.name, $0.version) })
            case (UInt8(ascii: "@"), .tree(let tree)): try tree.classicWrite(to: self)
            case (UInt8(ascii: "+"), .null), (UInt8(ascii: "*"), .null), (UInt8(ascii: "@"), .null), (UInt8(ascii: "#"), .null):
                writer.writeNil()
            case (UInt8(ascii: "!"), _): break
            default: throw mismatch()
            }
        case (.array(let count, let element), .byteArray(let b)):
            guard b.count == count, case .scalar(let c) = element, c == UInt8(ascii: "c") || c == UInt8(ascii: "C") else { throw mismatch() }
            writer.bytes.append(contentsOf: b)
        case (.array(let count, let element), .array(let items)):
            guard items.count == count else { throw mismatch() }
            for item in items { try writeValue(item, as: element) }
        case (.structure(_, let fields), .structure(_, let items)):
            guard items.count == fields.count else { throw mismatch() }
            for (field, item) in zip(fields, items) { try writeValue(item, as: field) }
        default:
            throw mismatch()
        }
    }

    // MARK: - Objects

    /// Encodes an object or value (type `@`); `nil` is written as NIL.
    /// - Parameter object: the value.
    /// - Throws: ``PFError`` `limitExceeded` past `maxDepth`, or what the value throws.
    public func encode<T: ClassicRepresentable>(_ object: T?) throws {
        writer.writeEncodings([.object])
        guard let object else { return writer.writeNil() }
        try object.classicWrite(to: self)
    }

    /// Encodes one group of several values, objects among them, as
    /// `encodeValuesOfObjCTypes:"@@", &a, &b` does: the type string of every value (`@` for an
    /// object), then each value. Color lists write their entries this way (`@@`: a color and
    /// its name), and a stream's root groups can be of any such shape (`@i`).
    /// - Parameter values: the values, in order.
    /// - Throws: ``PFError`` `usage` for an empty group or a value that does not fit its type,
    ///   `limitExceeded` past `maxDepth`, or what an object's `encode(with:)` throws.
    public func encodeGroup(_ values: [ClassicGroupValue]) throws {
        guard !values.isEmpty else {
            throw PFError(TypedStreamFailure.typeCount(types: 0, values: 0), format: .typedstream)
        }
        writer.writeEncodings(values.map(\.encoding))
        for value in values {
            switch value {
            case .object(nil): writer.writeNil()
            case .object(let object?): try object.classicWrite(to: self)
            case .value(let type, let value): try writeValue(value, as: type)
            }
        }
    }

    /// Writes a literal object: NEW, the class chain, the groups `body` writes, END.
    /// Foundation values use this directly; ``ClassicArchiveCoding`` types go through
    /// their `encode(with:)`.
    /// - Parameters:
    ///   - chain: the class chain, most derived first.
    ///   - identity: the instance, for a class (so later encodes become references).
    ///   - body: writes the object's groups.
    /// - Throws: ``PFError`` `limitExceeded` past `maxDepth`, or what `body` throws.
    public func writeObject(chain: [ClassicClassVersion], identity: AnyObject? = nil, body: (ClassicArchiver) throws -> Void) throws {
        if let identity, let number = identities[ObjectIdentifier(identity)] {
            return writer.writeReference(number)
        }
        guard depth < maxDepth else {
            throw PFLimits.exceeded("maxDepth", maxDepth, format: .typedstream)
        }
        let number = writer.beginObject()
        if let identity {
            identities[ObjectIdentifier(identity)] = number
            retained.append(identity)
        }
        writer.writeClassChain(chain.map { ($0.name, $0.version) })
        depth += 1
        defer { depth -= 1 }
        try body(self)
        writer.endObject()
    }

    func writeCodingObject<T: ClassicArchiveCoding>(_ value: T) throws {
        let identity: AnyObject? = type(of: value) is AnyClass ? value as AnyObject : nil
        try writeObject(chain: type(of: value).classicChain, identity: identity) { archiver in
            try value.encode(with: archiver)
        }
    }
}

/// One value of a group that ``ClassicArchiver/encodeGroup(_:)`` writes.
public enum ClassicGroupValue {
    /// An object or value written as an object (`@`); `nil` is written as NIL.
    case object((any ClassicRepresentable)?)
    /// A value of another type, such as `.value(.int32, .int(752))` or a resolved class
    /// (`.value(.scalar(UInt8(ascii: "#")), .classChain(chain))`).
    case value(TypeEncoding, TypedStreamValue)

    /// The type the group's type string gives this value.
    var encoding: TypeEncoding {
        switch self {
        case .object: .object
        case .value(let type, _): type
        }
    }
}
