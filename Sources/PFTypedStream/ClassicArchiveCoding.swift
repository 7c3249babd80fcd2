import Foundation
import PFCore

/// A type that archives itself into a typedstream with the classic, order-dependent coder:
/// pfarchive's `NSCoding` for `NSArchiver`.
///
/// Values are written and read back in the same order, each call one typed group:
///
/// ```swift
/// final class Point3: ClassicArchiveCoding {
///     static let classicClassName = "Point3"
///     static let classicVersion = 1
///     var x, y, z: Int32
///
///     func encode(with coder: ClassicArchiver) throws {
///         coder.encode(x); coder.encode(y); coder.encode(z)
///     }
///     init(from coder: ClassicUnarchiver) throws {
///         x = try coder.decode(Int32.self)
///         y = try coder.decode(Int32.self)
///         z = try coder.decode(Int32.self)
///     }
/// }
/// ```
///
/// A type can adopt this protocol and PFKeyedArchive's `ArchiveCoding` both; each coder
/// answers ``ClassicArchiver/allowsKeyedCoding`` so shared helpers can tell them apart.
///
/// Decoding is two-phase, as for keyed archives: ``init(from:)`` builds each object; a
/// reference that closes a cycle is read with ``ClassicUnarchiver/decodeReference(_:assign:)``
/// whose closure runs once every object exists; then ``classicDidDecode()`` runs.
///
/// Its metatype is `SendableMetatype`, so registries and dispatch tables of these types are
/// `Sendable` without an unchecked promise; a conformance cannot be isolated to an actor.
public protocol ClassicArchiveCoding: ClassicRepresentable, SendableMetatype {
    /// The class name written to the stream and looked up in the ``ClassicClassRegistry``.
    static var classicClassName: String { get }
    /// The class version written to the stream (`+[NSObject version]`). Defaults to 0.
    static var classicVersion: Int { get }
    /// The superclasses written after the class, most derived first, with their versions.
    /// Defaults to `NSObject` version 0.
    static var classicSuperclasses: [ClassicClassVersion] { get }

    /// Writes the value's fields in order.
    /// - Parameter coder: the archiver.
    /// - Throws: any error; ``PFError`` is passed through.
    func encode(with coder: ClassicArchiver) throws

    /// Reads the fields in the order ``encode(with:)`` wrote them.
    /// - Parameter coder: the unarchiver, positioned at this object's first group.
    /// - Throws: any error; ``PFError`` carries the byte offset of the group that did not match.
    init(from coder: ClassicUnarchiver) throws

    /// Called on every decoded class instance once the whole graph is built.
    /// - Throws: any error, which ends decoding.
    func classicDidDecode() throws
}

/// A class name with a version, as a typedstream class chain records it.
public struct ClassicClassVersion: Sendable, Hashable {
    /// The class name.
    public var name: String
    /// The class version.
    public var version: Int

    /// Makes a class-and-version pair.
    /// - Parameters:
    ///   - name: the class name, such as `NSObject`.
    ///   - version: its version.
    public init(_ name: String, version: Int = 0) {
        self.name = name
        self.version = version
    }
}

extension ClassicArchiveCoding {
    public static var classicVersion: Int { 0 }
    public static var classicSuperclasses: [ClassicClassVersion] { [ClassicClassVersion("NSObject")] }
    public func classicDidDecode() throws {}

    /// The full chain written for this type, most derived first.
    static var classicChain: [ClassicClassVersion] {
        [ClassicClassVersion(classicClassName, version: classicVersion)] + classicSuperclasses
    }

    public func classicWrite(to archiver: ClassicArchiver) throws {
        try archiver.writeCodingObject(self)
    }

    public static func classicRead(from unarchiver: ClassicUnarchiver, objectAt index: Int) throws -> Self {
        try unarchiver.instantiate(Self.self, at: index)
    }
}

/// A type with a representation as an object in a typedstream: Foundation's values
/// (strings, numbers, data, dates, URLs, arrays, dictionaries, attributed strings, `NSValue`,
/// `NSNull`), generic objects, ``PFCore/PFValue`` trees, and every ``ClassicArchiveCoding`` type.
public protocol ClassicRepresentable {
    /// Writes the value as one object: a back-reference, or a literal object with its class
    /// chain and value groups.
    /// - Parameter archiver: the archiver.
    /// - Throws: ``PFError`` or any error an ``ClassicArchiveCoding/encode(with:)`` throws.
    func classicWrite(to archiver: ClassicArchiver) throws

    /// Reads a value of this type from the object at an index of the stream's object table.
    /// - Parameters:
    ///   - unarchiver: the unarchiver.
    ///   - index: the object's entry in ``TypedStreamDocument/entries``.
    /// - Returns: the value.
    /// - Throws: ``PFError`` `invalidValue` when the object is of another class, `disallowed`
    ///   for a class outside the registry.
    static func classicRead(from unarchiver: ClassicUnarchiver, objectAt index: Int) throws -> Self
}

// MARK: - Registry

/// The classes a ``ClassicUnarchiver`` may instantiate, by class name: nothing outside it is
/// ever created, whatever the stream says. Foundation values need no registration; they are
/// decoded as values, never as arbitrary classes.
///
/// ```swift
/// var registry = ClassicClassRegistry([Point3.self])
/// registry.register(Point3.self, as: "OldPoint")
/// ```
public struct ClassicClassRegistry: Sendable {
    // Metatypes are immutable values; the dictionary is only read after construction.
    private var types: [String: any ClassicArchiveCoding.Type] = [:]

    /// Makes a registry of types, each under its own class name.
    /// - Parameter types: the types that may be instantiated.
    public init(_ types: [any ClassicArchiveCoding.Type] = []) {
        for type in types { register(type) }
    }

    /// Registers a type under its class name and any aliases.
    /// - Parameters:
    ///   - type: the type to instantiate.
    ///   - aliases: other class names that mean this type.
    public mutating func register(_ type: any ClassicArchiveCoding.Type, as aliases: String...) {
        types[type.classicClassName] = type
        for alias in aliases { types[alias] = type }
    }

    /// The type registered for a class name.
    /// - Parameter name: the class name in the stream.
    /// - Returns: the type, or `nil` when the class is not allowed.
    public func type(forClassName name: String) -> (any ClassicArchiveCoding.Type)? { types[name] }

    /// The registered class names, sorted.
    public var classNames: [String] { types.keys.sorted() }
}
