import Foundation
import PFCore

/// Any object of a typedstream kept so that it is written back exactly as it was read: the
/// value a generated `ClassicArchiveCoding` class holds where the stream has a Foundation
/// value (a Grapher attribute dictionary) rather than an object of a generated class.
///
/// Its ``tree`` is a ``PFCore/PFValue`` in the shape ``TypedStream/decodeValue(_:limits:)``
/// gives, with one difference: a Foundation object whose natural form would be written back
/// as another object — an `NSMutableArray` (written back as an `NSArray`), an
/// `NSMutableDictionary`, an `NSMutableString`, an `NSSet`, an `NSNumber` of type `i`, `s`,
/// `f`, `Q`… (written back as `q` or `d`) — is kept in the generic form every object of an
/// unknown class has: `{"$class", "$version", "$classes"/"$versions", "$values": [{"types",
/// "values"}]}`. ``ClassicArchiver`` writes that form back as the same class chain and the
/// same groups, so the object written again is the one read, byte for byte apart from the
/// stream's numbering; `TypedStream.encodeValue` writes it the same way and
/// `TypedStream.decodeValue` reads the written stream back to the natural tree.
///
/// ```swift
/// let attributes = try coder.decode(ClassicExactValue.self)   // an NSMutableDictionary
/// try archiver.encode(attributes)                              // an NSMutableDictionary again
/// ```
///
/// An object shared anywhere in the stream carries `$id` (its index in the table plus one),
/// as ``PFCore/PFValue/classicRead(from:objectAt:)`` gives it, so several values read from one
/// unarchiver and written by one archiver keep it one object.
public struct ClassicExactValue: ClassicRepresentable, Sendable, Equatable {
    /// The value tree, Foundation values natural where that form is written back as the
    /// same object and generic (`$class`/`$values`) where it is not.
    public var tree: PFValue

    /// Makes a value from a tree in the shape ``TypedStream/decodeValue(_:limits:)`` gives.
    /// - Parameter tree: the tree; natural values are written as ``PFCore/PFValue`` writes them.
    public init(tree: PFValue) {
        self.tree = tree
    }

    /// Writes the tree: generic objects as their class chains and groups, natural values as
    /// ``PFCore/PFValue`` writes them.
    /// - Parameter archiver: the archiver.
    /// - Throws: ``PFError`` as ``PFCore/PFValue``'s `classicWrite(to:)` throws.
    public func classicWrite(to archiver: ClassicArchiver) throws {
        try tree.classicWrite(to: archiver)
    }

    /// Reads any object, keeping the class and number encoding of every Foundation object
    /// the natural form would not write back.
    /// - Parameters:
    ///   - unarchiver: the unarchiver.
    ///   - index: the object's entry in ``TypedStreamDocument/entries``.
    /// - Returns: the value.
    /// - Throws: ``PFError`` `limitExceeded` past the unarchiver's depth or node budget.
    public static func classicRead(from unarchiver: ClassicUnarchiver, objectAt index: Int) throws -> ClassicExactValue {
        var converter = TypedStreamValueConverter(document: unarchiver.document, limits: unarchiver.limits)
        converter.exact = true
        return ClassicExactValue(tree: try converter.convertObject(index, sharedIn: unarchiver.referenceCounts))
    }
}
