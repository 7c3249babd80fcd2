import PFCore

extension RealmFailure {
    /// How a node breaks the format (``RealmFailure/damaged(_:)``): a closed set, each case
    /// with its message here, so a test or a caller matches the case, not the text.
    public enum Damage: Hashable, Sendable, CustomStringConvertible {
        // References and nodes
        /// A reference that is not a node's header inside the file (too small, unaligned, or past
        /// the end of a file of `fileSize` bytes).
        case badReference(Int64, fileSize: Int)
        /// A node header whose width type is 3, which the format does not define.
        case unknownWidthType
        /// An element index past the end of a node (or, for a ``Part`` that is a payload, of
        /// what it indexes).
        case indexOutOfRange(Part, index: Int64, count: Int)
        /// A node read as another kind of node than it is.
        case notKind(Part, expected: NodeKind)
        /// A node whose element width its role does not allow.
        case width(Part, Int)
        /// A node that has too few slots for its role.
        case tooFewSlots(Part, has: Int, needs: Int)
        /// A node whose role needs references but that holds plain integers.
        case noReferences(Part)
        /// A reference that must be present is 0 or a tagged integer.
        case missing(Part, slot: Int)
        /// A slot that must hold a tagged integer holds a reference.
        case notTagged(Part, slot: Int)
        /// A byte range outside its node's payload.
        case rangeOutsideNode(start: Int, count: Int, byteSize: Int)

        // Trees
        /// A B+tree or cluster tree that reaches the same node twice.
        case cycle(Part, ref: Int)
        /// A B+tree or cluster tree deeper than ``RealmFile`` follows.
        case tooDeep(Part, levels: Int)
        /// A cluster's tagged depth outside 0..<8.
        case clusterDepth(Int64)
        /// A cluster that claims more objects than its key node can hold.
        case clusterObjectCount(Int)

        // Strings and bytes
        /// A string (big: one blob per value) without its terminating zero byte.
        case unterminatedString(big: Bool)
        /// A medium string leaf's end offset outside its blob.
        case stringOffset(Int64, blobBytes: Int)
        /// A short string slot whose padding count is larger than the slot.
        case shortStringPadding(Int, width: Int)
        /// A Mixed ObjectId (12 bytes) or UUID (16 bytes) payload that is shorter.
        case mixedBytes(Part, count: Int)

        // Counts that disagree
        /// A timestamp leaf whose seconds and nanoseconds differ in number.
        case timestampHalves(seconds: Int, nanoseconds: Int)
        /// A typed-link leaf with an odd number of values.
        case typedLinkValues(Int)
        /// A top array with another number of table names than table references.
        case tableNamesAndReferences(names: Int, references: Int)
        /// A table spec with different numbers of column types, names and attributes.
        case columnSpec(table: String, types: Int, names: Int, attributes: Int)
        /// A column with another number of values than its cluster has objects.
        case columnValues(column: String, values: Int, objects: Int)
        /// A dictionary (or a dictionary cluster, with its `entries`) whose keys and values
        /// differ in number.
        case dictionaryEntries(entries: Int?, keys: Int, values: Int)

        // Schema
        /// A named table without a reference to its node.
        case tableWithoutReference(table: String, slot: Int)
        /// A cluster without the leaf of a column.
        case columnWithoutLeaf(column: String, slot: Int, slots: Int)
        /// A link column whose target table key is not in the file.
        case linkTargetMissing(table: String, column: String, targetKey: Int64)
        /// A link column that reached the reader without its target table.
        case linkWithoutTarget(column: String)

        /// What is wrong, as the sentence after "damaged file: ".
        public var description: String {
            switch self {
            case .badReference(let value, let size): "reference \(value) is not a node inside the file (\(size) bytes)"
            case .unknownWidthType: "a node with the unknown width type 3"
            case .indexOutOfRange(let part, let index, let count): "\(part) index \(index) is out of range (\(count) in all)"
            case .notKind(let part, let kind): "\(part) is not \(kind)"
            case .width(let part, let width): "\(part) of width \(width)"
            case .tooFewSlots(let part, let has, let needs): "\(part) has \(has) slots, not the \(needs) or more it needs"
            case .noReferences(let part): "\(part) holds no references"
            case .missing(let part, let slot): "missing \(part) (slot \(slot) of the node)"
            case .notTagged(let part, let slot): "\(part) is not a tagged integer (slot \(slot))"
            case .rangeOutsideNode(let start, let count, let size): "range \(start)+\(count) outside the node's \(size) bytes"
            case .cycle(let part, let ref): "\(part) refers to node \(ref) twice (a cycle)"
            case .tooDeep(let part, let levels): "\(part) deeper than \(levels) levels"
            case .clusterDepth(let depth): "cluster depth \(depth), not 0 to 7"
            case .clusterObjectCount(let count): "a cluster claims \(count) objects"
            case .unterminatedString(let big): big ? "a big string without its terminating zero" : "a string without its terminating zero"
            case .stringOffset(let end, let size): "string offset \(end) outside its blob of \(size) bytes"
            case .shortStringPadding(let pad, let width): "a short string slot with padding \(pad) of \(width)"
            case .mixedBytes(let part, let count): "\(part) of \(count) bytes"
            case .timestampHalves(let s, let ns): "a timestamp leaf with \(s) seconds and \(ns) nanoseconds"
            case .typedLinkValues(let n): "a typed-link leaf of \(n) values, not pairs"
            case .tableNamesAndReferences(let names, let refs): "\(names) table names but \(refs) table references"
            case .columnSpec(let table, let types, let names, let attributes):
                "table \(table): \(types) column types, \(names) names and \(attributes) attributes"
            case .columnValues(let column, let values, let objects): "column \(column) has \(values) values for \(objects) objects"
            case .dictionaryEntries(let entries?, let keys, let values):
                "a dictionary cluster with \(entries) entries, \(keys) keys and \(values) values"
            case .dictionaryEntries(nil, let keys, let values): "a dictionary with \(keys) keys and \(values) values"
            case .tableWithoutReference(let table, let slot): "table \(table) has no reference (slot \(slot))"
            case .columnWithoutLeaf(let column, let slot, let slots):
                "the cluster has no leaf for column \(column) (slot \(slot) of \(slots))"
            case .linkTargetMissing(let table, let column, let key):
                "\(table).\(column) links to table key \(key), which is not in the file"
            case .linkWithoutTarget(let column): "link column \(column) without a target table"
            }
        }
    }

    /// What a node holds, for ``Damage/notKind(_:expected:)``.
    public enum NodeKind: Hashable, Sendable, CustomStringConvertible {
        /// Bit-packed integers (width type 0).
        case integers
        /// Fixed-size slots (width type 1).
        case fixedSlots
        /// Plain bytes without references (width type 2).
        case bytes

        public var description: String {
            switch self {
            case .integers: "an integer node"
            case .fixedSlots: "fixed slots"
            case .bytes: "a byte node"
            }
        }
    }

    /// The role of a node (or a slot of one) in the file, as a ``Damage`` names it.
    public enum Part: Hashable, Sendable, CustomStringConvertible {
        /// Any node, and the parts of B+trees (the trees of list and column values).
        case node, bTree, bTreeInner, bTreeChild
        /// The parts of the cluster tree that holds a table's objects.
        case clusterTree, clusterNode, clusterInner, clusterChild, clusterKeys, clusterDepth
        /// The group's top array and its table lists.
        case topArray, tableNames, tableReferences
        /// A table (by name), its spec and the spec's arrays.
        case table(String), tableSpec(String), columnTypes, columnNames, columnAttributes
        /// A column's leaf, a list or set column, and a dictionary column's cluster (by column name).
        case columnLeaf(String), collectionColumn(String), dictionaryCluster(String)
        /// String and binary leaves of each size class, their parts, and enumerated strings.
        case bigString, mediumString, shortString, stringOffsets, stringBlob, enumeratedString
        /// Leaves of fixed-size values.
        case floatLeaf, doubleLeaf, decimalLeaf, fixedBytesLeaf
        /// A timestamp leaf and its two halves.
        case timestampLeaf, timestampSeconds, timestampNanoseconds
        /// A dictionary and its keys and values.
        case dictionary, dictionaryKeys, dictionaryValues
        /// A Mixed leaf, its composite array and payloads (by slot or kind).
        case mixedLeaf, mixedComposite, mixedPayload(Int), mixedInt, mixedPair, mixedString
        /// A Mixed leaf's nested collections, and its ObjectId and UUID payloads.
        case mixedCollections, mixedCollection, mixedObjectId, mixedUUID

        public var description: String {
            switch self {
            case .node: "the node"
            case .bTree: "a B+tree"
            case .bTreeInner: "an inner B+tree node"
            case .bTreeChild: "B+tree child"
            case .clusterTree: "the cluster tree"
            case .clusterNode: "a cluster node"
            case .clusterInner: "an inner cluster node"
            case .clusterChild: "cluster child"
            case .clusterKeys: "cluster keys"
            case .clusterDepth: "cluster depth"
            case .topArray: "the top array"
            case .tableNames: "table names"
            case .tableReferences: "table references"
            case .table(let name): "table \(name)"
            case .tableSpec(let name): "spec of table \(name)"
            case .columnTypes: "column types"
            case .columnNames: "column names"
            case .columnAttributes: "column attributes"
            case .columnLeaf(let name): "leaf of column \(name)"
            case .collectionColumn(let name): "the collection column \(name)"
            case .dictionaryCluster(let name): "a dictionary cluster of \(name)"
            case .bigString: "a big string or binary"
            case .mediumString: "a medium string or binary leaf"
            case .shortString: "a short string leaf"
            case .stringOffsets: "string offsets"
            case .stringBlob: "string blob"
            case .enumeratedString: "enumerated string"
            case .floatLeaf: "a float leaf"
            case .doubleLeaf: "a double leaf"
            case .decimalLeaf: "a Decimal128 leaf"
            case .fixedBytesLeaf: "a fixed-bytes leaf"
            case .timestampLeaf: "a timestamp leaf"
            case .timestampSeconds: "timestamp seconds"
            case .timestampNanoseconds: "timestamp nanoseconds"
            case .dictionary: "a dictionary"
            case .dictionaryKeys: "dictionary keys"
            case .dictionaryValues: "dictionary values"
            case .mixedLeaf: "a Mixed leaf"
            case .mixedComposite: "Mixed composite"
            case .mixedPayload(let i): "Mixed payload \(i)"
            case .mixedInt: "Mixed int payload"
            case .mixedPair: "Mixed pair payload"
            case .mixedString: "Mixed string payload"
            case .mixedCollections: "Mixed collections"
            case .mixedCollection: "Mixed collection"
            case .mixedObjectId: "a Mixed ObjectId"
            case .mixedUUID: "a Mixed UUID"
            }
        }
    }
}
