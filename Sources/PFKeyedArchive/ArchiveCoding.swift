import Foundation
import PFCore

/// A type that archives itself into a keyed archive: pfarchive's `NSCoding`.
///
/// Classes and structs both conform. A class instance archived twice is written once and
/// comes back as one instance (identity is kept, cycles included); a struct is a value, so
/// every occurrence is its own copy.
///
/// ```swift
/// final class Employee: ArchiveCoding {
///     static let archiveClassName = "Employee"
///     var name: String
///     var manager: Employee?
///
///     func encode(with coder: KeyedArchiver) throws {
///         try coder.encode(name, forKey: "name")
///         try coder.encode(manager, forKey: "manager")
///     }
///     init(from coder: KeyedUnarchiver) throws {
///         name = try coder.decode(String.self, forKey: "name")
///         manager = try coder.decodeIfPresent(Employee.self, forKey: "manager")
///     }
/// }
/// ```
///
/// Decoding is two-phase: ``init(from:)`` builds each object from its fields; a reference
/// that would close a cycle (or a very long chain) is decoded with
/// ``KeyedUnarchiver/decodeReference(_:forKey:assign:)``, whose closure runs once every
/// object exists; then ``archiveDidDecode()`` runs on every decoded class instance. No
/// half-built object is ever handed to your code.
///
/// Its metatype is `SendableMetatype`, so registries and dispatch tables of these types are
/// `Sendable` without an unchecked promise; a conformance cannot be isolated to an actor.
public protocol ArchiveCoding: ArchiveRepresentable, ArchiveVersioned, SendableMetatype {
    /// The class name written to archives and looked up when reading them, such as
    /// `"Employee"` or `"MyApp.Employee"`.
    static var archiveClassName: String { get }
    /// The class chain written as `$classes`, most derived first. Defaults to the class
    /// name followed by `NSObject`.
    static var archiveClassChain: [String] { get }
    /// Whether this type can use the keyed coder (the classic coder arrives separately).
    static var allowsKeyedCoding: Bool { get }

    /// Writes the value's fields to the archiver.
    /// - Throws: any error; a ``PFError`` is passed through with its key path.
    func encode(with coder: KeyedArchiver) throws

    /// Builds the value from its fields.
    /// - Throws: any error; ``PFError`` carries the key path in the archive.
    init(from coder: KeyedUnarchiver) throws

    /// Called on every decoded class instance after the whole graph is built and every
    /// deferred reference assigned: the place for fix-ups (the `awakeFromFetch` analogue).
    func archiveDidDecode() throws
}

extension ArchiveCoding {
    /// Version 0, the default for a type that never changed (as `+[NSObject version]`).
    public static var archiveVersion: Int { 0 }
    public static var archiveClassChain: [String] { [archiveClassName, "NSObject"] }
    public static var allowsKeyedCoding: Bool { true }
    public func archiveDidDecode() throws {}

    /// The class as written to archives.
    static var archivedClass: ArchivedClass {
        ArchivedClass(name: archiveClassName, chain: archiveClassChain, version: archiveVersion)
    }

    public func archiveReference(in archiver: KeyedArchiver) throws -> UInt64 {
        try archiver.reference(forObject: self)
    }

    public static func unarchive(from unarchiver: KeyedUnarchiver, objectAt index: Int) throws -> Self {
        try unarchiver.instantiate(Self.self, at: index)
    }
}

/// A type that has a representation in an archive's object table: Foundation's value types
/// (strings, numbers, data, dates, UUIDs, URLs, arrays, dictionaries, sets) and every
/// ``ArchiveCoding`` type.
public protocol ArchiveRepresentable {
    /// Writes the value into the archive (or finds it there) and returns its reference.
    func archiveReference(in archiver: KeyedArchiver) throws -> UInt64
    /// Reads a value of this type from the object at `index` of the table.
    static func unarchive(from unarchiver: KeyedUnarchiver, objectAt index: Int) throws -> Self
    /// Reads a value of this type stored in place in an object's field (numbers, booleans
    /// and bytes are; objects never are).
    static func unarchive(from unarchiver: KeyedUnarchiver, inlineValue: PFValue) throws -> Self
}

extension ArchiveRepresentable {
    public static func unarchive(from unarchiver: KeyedUnarchiver, inlineValue: PFValue) throws -> Self {
        throw unarchiver.typeMismatch(expected: "\(Self.self)", found: "\(inlineValue.kind.rawValue) stored in place")
    }
}

/// A type that declares the current version of its archived form, recorded per class in
/// every archive it is written to (`$classversion` in a keyed archive's class dictionary).
///
/// ``ArchiveCoding`` types get version 0 unless they say otherwise; a `Codable` type
/// archived with ``KeyedArchiveEncoder`` adopts this protocol to record a version. Bump the
/// version whenever the archived fields change, and read old archives with
/// ``KeyedUnarchiver/version(forClassName:)`` or a PFVersioning migration.
public protocol ArchiveVersioned {
    /// The version written to archives: 0 for the first shape, then 1, 2, … for each change.
    static var archiveVersion: Int { get }
}
