import Foundation
import PFCore
import PFPropertyList

// MARK: - Documents that are not records

/// A large container of a document being archived piece by piece: what it is, and the UIDs
/// of its members so far (a dictionary's keys too), about a byte each while they rise.
struct KeyedLargeContainer {
    let isObject: Bool
    /// The members the walk announced.
    let count: Int
    var keyUIDs = DeltaList()
    var valueUIDs = DeltaList()
    /// The key of the next member of a dictionary.
    var key: String?

    init(isObject: Bool, count: Int) {
        self.isObject = isObject
        self.count = count
    }
}

extension KeyedArchiveStreamWriter {
    /// Opens a large container of a document that is not a sequence of records (a JSON
    /// object of large arrays, a GeoJSON collection), walked by its large containers: its
    /// members follow (``setKey(_:)`` before each member of a dictionary, then
    /// ``appendValue(_:depth:)`` or a nested container), then ``closeContainer(write:)``.
    ///
    /// Each member read whole is archived at once by the whole route's code, as a record is
    /// (``appendRecord(_:depth:)``); a container becomes its `NSArray` or `NSDictionary` when
    /// it closes, its `NS.keys` and `NS.objects` written from the UIDs kept. The archive reads
    /// back to the whole route's value; its layout is this writer's.
    /// - Parameters:
    ///   - isObject: a dictionary (else an array).
    ///   - count: its members.
    ///   - depth: its depth in the document (0 for the root).
    /// - Throws: ``PFCore/PFError`` as the whole route's graph builder does for a container
    ///   at this depth (`maxDepth`, `maxNodes`).
    public func openContainer(isObject: Bool, count: Int, depth: Int) throws(PFError) {
        guard depth <= limits.maxDepth else {
            throw PFError(KeyedArchiveFailure.jsonTooDeep(maxDepth: limits.maxDepth), format: .keyedJSON, path: .root)
        }
        // The whole route's graph builder makes a node for the container before its members.
        guard nodes < limits.maxNodes else {
            throw PFLimits.exceeded("maxNodes", limits.maxNodes, format: .keyedJSON)
        }
        nodes += 1
        try writeNullMarker()
        containers.append(KeyedLargeContainer(isObject: isObject, count: count))
    }

    /// Names the next member of the innermost large container, a dictionary.
    /// - Parameter key: the member's key, as the JSON form has it (`$$`-escaped).
    /// - Throws: ``KeyedArchiveFailure/markerInLargeContainer(_:)`` when the key makes the
    ///   dictionary one of the JSON form's markers (`$class`, a `$ref` or `$id`/`$value`
    ///   pair, a root `$top`): the document is to be archived whole.
    public func setKey(_ key: String) throws(PFError) {
        guard let last = containers.indices.last else { return }
        let count = containers[last].count
        let marker = key == "$class"
            || (count <= 2 && (key == "$ref" || key == "$id" || key == "$value"))
            || (last == 0 && count == 1 && key == "$top")
        if marker { throw PFError(KeyedArchiveFailure.markerInLargeContainer(key), format: .keyedJSON, path: .root) }
        containers[last].key = key
    }

    /// Archives a member read whole of the innermost large container.
    /// - Parameters:
    ///   - value: the member, as the JSON form of a graph.
    ///   - depth: its depth in the document.
    /// - Throws: as ``appendRecord(_:depth:)``.
    public func appendValue(_ value: PFValue, depth: Int) throws(PFError) {
        let uid = try archive(value, depth: depth, path: .root)
        try addMember(uid)
        settle()
    }

    /// Closes the innermost large container, writing its `NSArray` or `NSDictionary`; after
    /// the root, writes the rest of the archive (``finish(results:write:)``'s end) and hands
    /// everything to `write`.
    /// - Returns: whether the archive is finished (the root closed).
    /// - Throws: ``PFPropertyList/BinaryPlistFailure/tooManyObjects(objectRefSize:)`` past the
    ///   object bound, and what `write` throws.
    @discardableResult
    public func closeContainer(write: Output) throws(PFError) -> Bool {
        guard let container = containers.popLast() else { return false }
        let uid = container.isObject
            ? try writeCollectionObject("NSDictionary", [("NS.keys", container.keyUIDs), ("NS.objects", container.valueUIDs)], write: write)
            : try writeArrayObject(container.valueUIDs, write: write)
        guard containers.isEmpty else {
            try addMember(uid)
            settle()
            return false
        }
        try finish(root: uid, write: write)
        return true
    }

    /// Adds a member's UID (and its key's, in a dictionary) to the innermost container.
    private func addMember(_ uid: UInt64) throws(PFError) {
        guard let last = containers.indices.last else { return }
        guard uid <= UInt64(UInt32.max) else { throw PFError(BinaryPlistFailure.unwritableUID(uid), format: .bplist, path: .root) }
        if containers[last].isObject {
            let key = containers[last].key ?? ""
            containers[last].key = nil
            containers[last].keyUIDs.append(Int(try scalarReference(.string(KeyedGraph.unescape(key)))))
        }
        containers[last].valueUIDs.append(Int(uid))
    }
}
