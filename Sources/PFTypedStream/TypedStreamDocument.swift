import Foundation
import PFCore

// MARK: - Header

/// The header at the start of every typedstream.
public struct TypedStreamHeader: Sendable, Equatable {
    /// The streamer version: 4 on Mac OS X and later (3 is old NeXTSTEP, not supported).
    public var streamerVersion: Int
    /// Whether the stream is big-endian (signature `typedstream`) rather than little-endian
    /// (`streamtyped`, what every Mac writes).
    public var bigEndian: Bool
    /// The system version: 1000 on Mac OS X.
    public var systemVersion: Int

    /// The header pfarchive writes: version 4, `streamtyped`, system version 1000.
    public static let current = TypedStreamHeader(streamerVersion: 4, bigEndian: false, systemVersion: 1000)

    /// Makes a header.
    public init(streamerVersion: Int, bigEndian: Bool, systemVersion: Int) {
        self.streamerVersion = streamerVersion
        self.bigEndian = bigEndian
        self.systemVersion = systemVersion
    }
}

// MARK: - Values

/// One value in a typedstream, as read without knowing any class: the raw material both
/// the Foundation decoding and the generic objects are made of.
public indirect enum TypedStreamValue: Sendable, Equatable {
    /// `nil` for an object, class, C string or byte string.
    case null
    /// A signed integer (`c s i l q`).
    case int(Int64)
    /// An unsigned integer (`C S I L Q`).
    case uint(UInt64)
    /// A C99 `bool` (`B`).
    case bool(Bool)
    /// A float (`f`).
    case float(Float)
    /// A double (`d`).
    case double(Double)
    /// A C string (`*`): its bytes.
    case cString([UInt8])
    /// Raw bytes with a length (`+`), such as an NSString's UTF-8.
    case bytes([UInt8])
    /// A NeXTSTEP atom (`%`).
    case atom([UInt8]?)
    /// A selector (`:`).
    case selector([UInt8]?)
    /// An object (`@`): its index in ``TypedStreamDocument/entries``.
    case object(Int)
    /// A class (`#`): its index in ``TypedStreamDocument/entries``, as the reader records it.
    case `class`(Int)
    /// A class (`#`) resolved to its chain, most derived first (name and version of the class
    /// and of each superclass), so it means something outside its document:
    /// ``ClassicUnarchiver`` hands out class values this way, and ``ClassicArchiver`` writes
    /// them, referring back to a class already in the new stream as typedstream does.
    case classChain([ClassicClassVersion])
    /// An object (`@`) resolved to its value tree (as ``PFCore/PFValue/classicRead(from:objectAt:)``
    /// reads it), so it means something outside its document:
    /// ``ClassicUnarchiver/decodeDetachedGroup()`` hands out the objects of a group this way,
    /// and ``ClassicArchiver`` writes them back as the objects they were.
    case tree(PFValue)
    /// An array of bytes (`[Nc]`, `[NC]`).
    case byteArray([UInt8])
    /// Any other fixed array.
    case array([TypedStreamValue])
    /// A struct's fields in order.
    case structure(name: String?, fields: [TypedStreamValue])
    /// A value of type `!` (ignored; nothing is stored).
    case ignored
}

/// A group of values written by one call, preceded in the stream by their type encodings.
public struct TypedStreamGroup: Sendable, Equatable {
    /// The types, one per value.
    public var encodings: [TypeEncoding]
    /// The values.
    public var values: [TypedStreamValue]
    /// Where the group starts in the input.
    public var offset: Int

    /// The encodings as one string, such as `"iI"`.
    public var encodingString: String { encodings.map(\.description).joined() }

    /// Makes a group.
    public init(encodings: [TypeEncoding], values: [TypedStreamValue], offset: Int = 0) {
        self.encodings = encodings
        self.values = values
        self.offset = offset
    }
}

/// A class as the stream records it: name, version, and superclass.
public struct TypedStreamClass: Sendable, Equatable {
    /// The class name, such as `NSMutableString`.
    public var name: String
    /// The version `+[NSObject version]` returned when the stream was written.
    public var version: Int
    /// The superclass's index in ``TypedStreamDocument/entries``, or `nil` for a root class.
    public var superclass: Int?
}

/// An object as the stream records it: its class and the value groups its `encodeWithCoder:`
/// wrote, superclasses' groups first.
public struct TypedStreamObject: Sendable, Equatable {
    /// The class's index in ``TypedStreamDocument/entries``.
    public var classIndex: Int
    /// The groups, in stream order.
    public var groups: [TypedStreamGroup]
    /// Where the object starts in the input.
    public var offset: Int
}

/// One slot of the stream's object table: objects, classes and C strings share the numbering
/// that back-references use.
public enum TypedStreamEntry: Sendable, Equatable {
    /// A literal object.
    case object(TypedStreamObject)
    /// A literal class.
    case `class`(TypedStreamClass)
    /// A literal C string.
    case cString([UInt8])
}

/// A whole typedstream read without knowing any class: header, object table and root groups.
///
/// Every object, class and C string is in ``entries`` under the number back-references use,
/// so shared objects and cycles appear as the same index.
public struct TypedStreamDocument: Sendable, Equatable {
    /// The header.
    public var header: TypedStreamHeader
    /// The object table.
    public var entries: [TypedStreamEntry]
    /// The top-level groups (usually one `@` group holding the root object).
    public var roots: [TypedStreamGroup]

    /// The class at an index, if the entry is a class.
    public func classEntry(_ index: Int) -> TypedStreamClass? {
        guard entries.indices.contains(index), case .class(let c) = entries[index] else { return nil }
        return c
    }

    /// The object at an index, if the entry is an object.
    public func objectEntry(_ index: Int) -> TypedStreamObject? {
        guard entries.indices.contains(index), case .object(let o) = entries[index] else { return nil }
        return o
    }

    /// The class chain starting at a class index, most derived first. The reader rejects
    /// chains that refer back into themselves; the walk is bounded by the table size anyway.
    public func classChain(_ index: Int) -> [TypedStreamClass] {
        chain(ofClass: index)
    }

    /// The class chain of the object at an index, most derived first.
    public func classChain(ofObject index: Int) -> [TypedStreamClass] {
        guard let object = objectEntry(index) else { return [] }
        return classChain(object.classIndex)
    }
}
