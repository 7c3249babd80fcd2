import Foundation
import PFCore

/// Writes ``PFValue`` trees as binary property lists (`bplist00`), the way CoreFoundation
/// lays them out.
///
/// Equal strings, numbers, booleans, dates, data and UIDs are written once and referenced
/// wherever they occur (by value: `1`, `1.0` and `true` stay three objects); arrays and
/// dictionaries are never shared. Objects appear depth-first with the root first and each
/// dictionary's keys before its values; the offset-table and reference widths are the
/// smallest that fit. Dictionary keys keep the order they have in the value.
///
/// ```swift
/// let bytes = try BinaryPlistWriter().write(["name": "pfarchive", "version": 1])
/// ```
public struct BinaryPlistWriter: Sendable {
    /// What to do with ``PFValue/null``, which property lists have no standard way to hold.
    public enum NullPolicy: Sendable, Equatable {
        /// Fail with ``PFError/Code/unrepresentable`` naming the null's key path (the default).
        case error
        /// Leave out array elements and dictionary members that are null (a null root is
        /// still an error).
        case drop
        /// Write the `0x00` null marker, which pfarchive reads back as null but
        /// CoreFoundation and Python's plistlib reject.
        case writeNullMarker
    }

    /// How the writer encodes values.
    public struct Options: Sendable {
        /// What to do with null values. Default ``NullPolicy/error``.
        public var nullPolicy: NullPolicy
        /// Deepest nesting of arrays and dictionaries the writer accepts. Default 512,
        /// the most CoreFoundation reads.
        public var maxDepth: Int

        /// Makes options.
        /// - Parameters:
        ///   - nullPolicy: what to do with null values.
        ///   - maxDepth: deepest nesting of arrays and dictionaries accepted.
        public init(nullPolicy: NullPolicy = .error, maxDepth: Int = 512) {
            self.nullPolicy = nullPolicy
            self.maxDepth = maxDepth
        }
    }

    /// The options this writer uses.
    public var options: Options

    /// Makes a writer.
    /// - Parameter options: how to encode values.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// Encodes a value tree as a `bplist00` file.
    ///
    /// Integers that fit `Int64` are written in 1, 2, 4 (non-negative values) or 8 bytes;
    /// ``PFValue/uint(_:)`` values above `Int64.max` as 16-byte integers. Doubles are always
    /// float64. Strings are ASCII when every character is below U+0080, else UTF-16BE.
    /// - Parameter value: the tree to write.
    /// - Returns: the file's bytes.
    /// - Throws: ``PFError`` with format `bplist` and code ``PFError/Code/unrepresentable``
    ///   for a null under ``NullPolicy/error`` (or a null root under ``NullPolicy/drop``),
    ///   a UID above `UInt32.max` or a date that is NaN or infinite, with the key path of
    ///   the value; ``PFError/Code/limitExceeded`` when nesting passes
    ///   ``Options/maxDepth``.
    public func write(_ value: consuming PFValue) throws(PFError) -> Data {
        var encoder = BinaryPlistEncoder(options: options)
        let top = try encoder.flatten(value, depth: 0)
        // The flattened objects are all the layout needs: a tree handed over is freed now,
        // before the file is laid out beside the encoder.
        _ = consume value
        precondition(top == 0, "The root is flattened first, so it is object 0.")
        // Laid out straight into the Data's storage: building an array and copying it held
        // the file twice at the peak.
        return encoder.serializedData()
    }
}
