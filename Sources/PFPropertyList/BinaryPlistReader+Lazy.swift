import Foundation
import OrderedCollections
import PFCore

/// A binary property list whose root is a dictionary holding one large array (a keyed
/// archive's `$objects`), read lazily: the root's other members are decoded up front, and
/// each element of the array only when ``element(_:)`` asks for it, from the file's bytes.
///
/// Only the element being decoded is remembered (the sparse mode of the record reader), so
/// no table grows with the file's object count; an object two elements share is decoded in
/// each. Made by ``BinaryPlistReader/withLazyArray(_:key:body:)`` and valid only inside it.
public struct BinaryPlistLazyArray: ~Copyable {
    var scanner: BinaryPlistScanner
    let array: Int
    let key: String
    let start: Int
    /// The number of elements in the array.
    public let count: Int
    /// The root dictionary's other members, in file order.
    public let members: OrderedDictionary<String, PFValue>

    /// Decodes element `i` (`0..<count`) as the whole read decodes it: the same depth, string,
    /// collection and node limits, cycle checks and errors.
    /// - Throws: ``PFError`` as ``BinaryPlistReader/read(_:)`` does for that element.
    public mutating func element(_ i: Int) throws(PFError) -> PFValue {
        precondition((0..<count).contains(i), "Element index out of range.")
        scanner.resetMemo(keeping: [scanner.info.topObject, array])
        do throws(PFError) {
            let ref = try scanner.objectRef(at: start + i * scanner.info.objectRefSize)
            // The root dictionary decodes its members at depth 1, the array its elements at 2.
            return try scanner.decode(ref, depth: 2).0
        } catch {
            throw error.prefixed(.index(i)).prefixed(.key(key))
        }
    }
}

extension BinaryPlistReader {
    /// Calls `body` with the array held under `key` by the file's root dictionary, read
    /// lazily (``BinaryPlistLazyArray``), or returns `nil` without calling it when the root
    /// is not a dictionary, or holds no array (nor set) under `key`.
    /// - Parameters:
    ///   - bytes: the file's bytes (mapped for a file: only the pages read are touched).
    ///   - key: the root's member that holds the array, such as `$objects`.
    ///   - body: reads the elements it needs, in any order.
    /// - Returns: what `body` returns.
    /// - Throws: ``PFError`` as ``read(_:)`` does for the trailer, the root and its other
    ///   members, and whatever `body` throws.
    public func withLazyArray<R>(
        _ bytes: Data, key: String, body: (inout BinaryPlistLazyArray) throws(PFError) -> R
    ) throws(PFError) -> R? {
        let limits = options.limits
        guard bytes.count <= limits.maxInputBytes else {
            throw PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: BinaryPlistLayout.format, offset: 0)
        }
        return try bytes.withBytes { buffer throws(PFError) -> R? in
            let info = try BinaryPlistInfo.parse(buffer)
            var scanner = BinaryPlistScanner(buffer: buffer, info: info, limits: limits, sparse: true)
            let top = info.topObject
            let offset = try scanner.objectOffset(top)
            guard BinaryPlistMarker(rawValue: buffer[offset] >> 4) == .dictionary else { return nil }
            let (n, refs) = try scanner.collectionCount(at: offset, refsPerElement: 2)
            let refSize = info.objectRefSize
            scanner.markInProgress(top)
            var pairs: [(key: String, value: Int)] = []
            for i in 0..<n {
                let keyRef = try scanner.objectRef(at: refs + i * refSize)
                let valueRef = try scanner.objectRef(at: refs + (n + i) * refSize)
                guard case .string(let name) = try scanner.decode(keyRef, depth: 1).0 else { return nil }
                pairs.append((name, valueRef))
            }
            // A repeated key takes its last value, as the whole read does.
            guard let array = pairs.last(where: { $0.key == key })?.value else { return nil }
            let arrayOffset = try scanner.objectOffset(array)
            let marker = BinaryPlistMarker(rawValue: buffer[arrayOffset] >> 4)
            guard marker == .array || marker == .set else { return nil }
            // The members in file order, as the whole read meets them (and fails on them).
            var count = 0
            var start = 0
            var members = OrderedDictionary<String, PFValue>()
            for (name, valueRef) in pairs {
                do throws(PFError) {
                    if valueRef == array && name == key {
                        try scanner.checkDepth(2, at: arrayOffset)
                        (count, start) = try scanner.collectionCount(at: arrayOffset, refsPerElement: 1)
                    } else {
                        members[name] = try scanner.decode(valueRef, depth: 1).0
                    }
                } catch {
                    throw error.prefixed(.key(name))
                }
            }
            scanner.markInProgress(array)
            var lazy = BinaryPlistLazyArray(
                scanner: scanner, array: array, key: key, start: start, count: count, members: members)
            return try body(&lazy)
        }
    }
}
