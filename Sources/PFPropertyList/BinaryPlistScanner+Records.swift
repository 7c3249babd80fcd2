import Foundation
import OrderedCollections
import PFCore

// MARK: - Records, one at a time

/// Where a file's records are: the array that holds them and, for a `{"results": […]}`
/// wrapper, the dictionary around it.
struct BinaryPlistRecordsLayout {
    /// The array (or set) object of the records.
    var array: Int
    /// The wrapper dictionary's object, or `nil` when the root is the array.
    var wrapper: Int?
    /// The wrapper's members after `results`: key and value object references.
    var others: [(key: Int, value: Int)]
}

extension BinaryPlistScanner {
    /// The layout of a file of records, or `nil` when the root is not an array (or set), nor
    /// a dictionary whose first key is `results`, held once, with an array as its value; a
    /// damaged root is `nil` too (the whole-tree read reports it).
    mutating func recordsLayout() -> BinaryPlistRecordsLayout? {
        let top = info.topObject
        guard let offset = try? objectOffset(top) else { return nil }
        switch BinaryPlistMarker(rawValue: buffer[offset] >> 4) {
        case .array?, .set?:
            return BinaryPlistRecordsLayout(array: top, wrapper: nil, others: [])
        case .dictionary?:
            guard let (n, start) = try? collectionCount(at: offset, refsPerElement: 2), n >= 1 else { return nil }
            let refSize = info.objectRefSize
            let valuesStart = start + n * refSize  // checked by collectionCount
            markInProgress(top)
            defer { memo.removeAll() }
            var others: [(key: Int, value: Int)] = []
            var array: Int?
            for i in 0..<n {
                guard let keyRef = try? objectRef(at: start + i * refSize),
                    let valueRef = try? objectRef(at: valuesStart + i * refSize),
                    case .string(let key)? = try? decode(keyRef, depth: 1).0
                else { return nil }
                if i == 0 {
                    guard key == "results", let valueOffset = try? objectOffset(valueRef) else { return nil }
                    let marker = BinaryPlistMarker(rawValue: buffer[valueOffset] >> 4)
                    guard marker == .array || marker == .set else { return nil }
                    array = valueRef
                } else {
                    // A repeated `results` takes the last value: the tree read knows which.
                    guard key != "results" else { return nil }
                    others.append((keyRef, valueRef))
                }
            }
            return array.map { BinaryPlistRecordsLayout(array: $0, wrapper: top, others: others) }
        default:
            return nil
        }
    }

    /// Decodes the records of `layout` one at a time, each with only its own objects
    /// remembered (an object two records share is decoded in each), and hands each to
    /// `record` as soon as it is decoded. Depth, node, collection and string limits are
    /// those of the whole-tree read: the records nest as deep as they do in the tree, and
    /// their nodes count together against ``PFLimits/maxNodes``.
    /// - Returns: the wrapper's other members, in file order (a repeated key keeps its first
    ///   place and its last value, as the tree read does), or `nil` for a root array.
    mutating func readRecords(
        _ layout: BinaryPlistRecordsLayout, record: (PFValue) throws(PFError) -> Void
    ) throws(PFError) -> OrderedDictionary<String, PFValue>? {
        let wrapped = layout.wrapper != nil
        var ancestors = [layout.array]
        if let wrapper = layout.wrapper {
            let wrapperOffset = try objectOffset(wrapper)
            try checkDepth(1, at: wrapperOffset)
            ancestors.append(wrapper)
        }
        var nodes = wrapped ? 2 : 1
        do throws(PFError) {
            // The array nests at depth 1, or 2 inside the wrapper.
            _ = try decodeElements(of: layout.array, depth: wrapped ? 2 : 1, ancestors: ancestors, nodes: &nodes, record)
        } catch {
            throw wrapped ? error.prefixed(.key("results")) : error
        }
        guard let wrapper = layout.wrapper else { return nil }
        resetMemo(keeping: [wrapper])
        var members = OrderedDictionary<String, PFValue>()
        for (keyRef, valueRef) in layout.others {
            guard case .string(let key) = try decode(keyRef, depth: 1).0 else { continue }  // checked by recordsLayout
            let (value, valueNodes): (PFValue, Int)
            do throws(PFError) {
                (value, valueNodes) = try decode(valueRef, depth: 1)
            } catch {
                throw error.prefixed(.key(key))
            }
            nodes = try addNodes(nodes, valueNodes, at: try objectOffset(wrapper))
            members[key] = value
        }
        return members
    }

    /// Decodes the elements of the array (or set) object `array`, nested `depth` deep, one
    /// at a time, and hands each to `each` as soon as it is decoded. Only the current
    /// element's objects are remembered; `ancestors` (the array and what holds it) stay marked
    /// as being decoded, so an element that reaches one is a cycle. The checks, limits and
    /// errors are `decodeArray`'s, and the elements' nodes are added to `nodes` against
    /// ``PFLimits/maxNodes`` as it adds them.
    /// - Returns: the element count and where their references start.
    mutating func decodeElements(
        of array: Int, depth: Int, ancestors: [Int], nodes: inout Int, _ each: (PFValue) throws(PFError) -> Void
    ) throws(PFError) -> (count: Int, start: Int) {
        let offset = try objectOffset(array)
        try checkDepth(depth, at: offset)
        let (n, start) = try collectionCount(at: offset, refsPerElement: 1)
        let refSize = info.objectRefSize
        for i in 0..<n {
            resetMemo(keeping: ancestors)
            let ref = try objectRef(at: start + i * refSize)
            let (item, itemNodes): (PFValue, Int)
            do throws(PFError) {
                (item, itemNodes) = try decode(ref, depth: depth)
            } catch {
                throw error.prefixed(.index(i))
            }
            nodes = try addNodes(nodes, itemNodes, at: offset)
            try each(item)
        }
        return (n, start)
    }

    /// Forgets the decoded objects (sparse mode), keeping `ancestors` marked as being decoded
    /// so that a record reaching the array (or wrapper) that holds it is a cycle. A scanner
    /// passes the same `ancestors` every time; nothing is done when nothing was remembered
    /// since the last reset (an element that was a scalar).
    mutating func resetMemo(keeping ancestors: [Int]) {
        if memo.count == memoCountAtReset { return }
        memo.removeAll()
        for index in ancestors { markInProgress(index) }
        memoCountAtReset = memo.count
    }
}
