import Foundation
import OrderedCollections
import PFCore

/// A binary property list whose root is a dictionary holding one large array (a keyed
/// archive's `$objects`), read lazily: the root's other members are decoded up front, and
/// each element of the array only when ``element(_:)`` asks for it, from the file's bytes.
///
/// Only the element being decoded is remembered (the sparse mode of the record reader), with
/// a fixed-size cache of short scalars, so no table grows with the file's object count; an
/// object two elements share is decoded in each. Made by ``BinaryPlistReader/withLazyArray(_:key:body:)`` and valid only inside it
/// (it reads the bytes that call holds).
public final class BinaryPlistLazyArray {
    var scanner: BinaryPlistScanner
    let layout: BinaryPlistScanner.LazyArrayLayout
    /// The number of elements in the array.
    public let count: Int
    /// The root dictionary's other members, in file order.
    public let members: OrderedDictionary<String, PFValue>

    init(scanner: consuming BinaryPlistScanner, layout: BinaryPlistScanner.LazyArrayLayout, count: Int,
         members: OrderedDictionary<String, PFValue>) {
        self.scanner = scanner
        self.layout = layout
        self.count = count
        self.members = members
    }

    /// Decodes element `i` (`0..<count`) as the whole read decodes it: the same depth, string,
    /// collection and node limits, cycle checks and errors.
    /// - Throws: ``PFError`` as ``BinaryPlistReader/read(_:)`` does for that element.
    public func element(_ i: Int) throws(PFError) -> PFValue {
        precondition((0..<count).contains(i), "Element index out of range.")
        do throws(PFError) {
            let ref = try scanner.objectRef(at: layout.elementsStart + i * scanner.info.objectRefSize)
            // A short scalar decoded lately (a string, a number) is known without a reset.
            if let scalar = scanner.scalarCache[ref] { return scalar }
            scanner.resetMemo(keeping: layout.ancestors)
            return try scanner.decode(ref, depth: BinaryPlistScanner.LazyArrayLayout.elementDepth).0
        } catch {
            throw error.prefixed(.index(i)).prefixed(.key(layout.key))
        }
    }
}

extension BinaryPlistReader {
    /// Calls `body` with the array held under `key` by the file's root dictionary, read
    /// lazily (``BinaryPlistLazyArray``), or returns `nil` without calling it when the root
    /// is not a dictionary of string keys holding one array (or set) under `key` and nowhere
    /// else (``read(_:)`` then reads the file whole).
    ///
    /// Before `body` runs, the root is read in file order exactly as ``read(_:)`` reads it,
    /// the array's elements one at a time without keeping them: every check and limit of
    /// ``read(_:)`` holds, with the same meaning (the nodes of the whole file count together
    /// against ``PFLimits/maxNodes``), and a file it refuses fails here with its error.
    /// - Parameters:
    ///   - bytes: the file's bytes (mapped for a file: only the pages read are touched).
    ///   - key: the root's member that holds the array, such as `$objects`.
    ///   - body: reads the elements it needs, in any order.
    /// - Returns: what `body` returns.
    /// - Throws: ``PFError`` as ``read(_:)`` does, and whatever `body` throws.
    public func withLazyArray<R>(
        _ bytes: Data, key: String, body: (BinaryPlistLazyArray) throws(PFError) -> R
    ) throws(PFError) -> R? {
        let limits = options.limits
        guard bytes.count <= limits.maxInputBytes else {
            throw PFLimits.exceeded("maxInputBytes", limits.maxInputBytes, format: BinaryPlistLayout.format, offset: 0)
        }
        return try bytes.withBytes { buffer throws(PFError) -> R? in
            let info = try BinaryPlistInfo.parse(buffer)
            var scanner = BinaryPlistScanner(buffer: buffer, info: info, limits: limits, sparse: true)
            guard var layout = scanner.lazyArrayLayout(key: key) else { return nil }
            let (members, count) = try scanner.readRoot(&layout)
            return try body(BinaryPlistLazyArray(scanner: scanner, layout: layout, count: count, members: members))
        }
    }
}

// MARK: - The root around the array

extension BinaryPlistScanner {
    /// Where the lazily read array is: the root dictionary's entries, and which one holds it.
    struct LazyArrayLayout {
        /// The depth the array's elements are decoded at (the root's members are at 1).
        static let elementDepth = 2
        /// The root's key under which the array is.
        var key: String
        /// The root's entries, in file order: key and value object references.
        var entries: [(key: String, value: Int)]
        /// The array's object.
        var array: Int
        /// The objects the elements are inside (the root and the array): reaching one is a cycle.
        var ancestors: [Int]
        /// Where the array's element references start (set by ``readRoot(_:)``).
        var elementsStart = 0
    }

    /// The layout of a root dictionary of string keys that holds an array (or set) under
    /// `key`, referenced by that key only; `nil` for another root, or one that fails to read
    /// (the whole read reports why).
    mutating func lazyArrayLayout(key: String) -> LazyArrayLayout? {
        let top = info.topObject
        guard let offset = try? objectOffset(top), BinaryPlistMarker(rawValue: buffer[offset] >> 4) == .dictionary,
            let (n, start) = try? collectionCount(at: offset, refsPerElement: 2)
        else { return nil }
        let refSize = info.objectRefSize
        markInProgress(top)
        defer { memo.removeAll() }
        var entries: [(key: String, value: Int)] = []
        for i in 0..<n {
            guard let keyRef = try? objectRef(at: start + i * refSize),
                let valueRef = try? objectRef(at: start + (n + i) * refSize),
                case .string(let name)? = try? decode(keyRef, depth: 1).0
            else { return nil }
            entries.append((name, valueRef))
        }
        // A repeated key takes its last value in the whole read.
        guard let array = entries.last(where: { $0.key == key })?.value,
            entries.allSatisfy({ $0.key == key || $0.value != array }),
            let arrayOffset = try? objectOffset(array)
        else { return nil }
        let marker = BinaryPlistMarker(rawValue: buffer[arrayOffset] >> 4)
        guard marker == .array || marker == .set else { return nil }
        return LazyArrayLayout(key: key, entries: entries, array: array, ancestors: [top, array])
    }

    /// Reads the root of `layout` as ``decode(_:depth:)`` reads it, in file order with the
    /// same checks, limits and errors, decoding the array's elements one at a time without
    /// keeping them (``decodeElements(of:depth:ancestors:nodes:_:)``), so that the nodes of
    /// the whole file count against ``PFLimits/maxNodes``.
    /// - Returns: the root's other members, and the array's element count.
    mutating func readRoot(_ layout: inout LazyArrayLayout) throws(PFError) -> (OrderedDictionary<String, PFValue>, Int) {
        let top = info.topObject
        let offset = try objectOffset(top)
        try checkDepth(1, at: offset)
        markInProgress(top)
        var nodes = 1
        var count = 0
        var members = OrderedDictionary<String, PFValue>()
        for (name, valueRef) in layout.entries {
            var valueNodes = 1
            do throws(PFError) {
                if valueRef == layout.array {
                    (count, layout.elementsStart) = try decodeElements(
                        of: layout.array, depth: LazyArrayLayout.elementDepth, ancestors: layout.ancestors, nodes: &valueNodes
                    ) { _ throws(PFError) in }
                } else {
                    let value: PFValue
                    (value, valueNodes) = try decode(valueRef, depth: 1)
                    members[name] = value
                }
            } catch {
                throw error.prefixed(.key(name))
            }
            nodes = try addNodes(nodes, valueNodes, at: offset)
        }
        return (members, count)
    }
}
