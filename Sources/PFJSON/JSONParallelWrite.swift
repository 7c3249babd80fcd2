import Foundation
import OrderedCollections
import PFCore

// A large value is written on several threads (``JSONWriter/Options/parallel``), the way a
// large document is read:
//
// 1. ``JSONWritePlan`` weighs the tree (a node each, strings and data by their length too)
//    and cuts it: the containers heavier than one batch form a skeleton; the other children
//    of a skeleton container are grouped into units, runs of consecutive elements or members.
// 2. The calling thread and helper threads take batches of units in turn
//    (``PFCore/OrderedParallelMap``) and write each with a writer of their own, into a
//    buffer of its own (``JSONWriteJob``).
// 3. The caller writes the skeleton, copying the units' text into place in the order the
//    one-thread write takes, so the text, and the first error with its key path, are the
//    one-thread write's.

/// How a large value is cut for a parallel write.
///
/// Weights are estimates (a value each, strings and data also by their length): a container of
/// more than ``sampled`` children is weighed by that many of them, evenly spaced, and the rest
/// are taken to weigh their average; and no more than ``budget`` values are looked at in all.
/// Batches are taken in turn by whichever thread is free, so a weight that is off costs
/// balance, never the text.
struct JSONWritePlan {
    enum Child {
        case node(Int)
        case unit(Int)
    }

    /// A skeleton container.
    struct Node {
        let value: PFValue
        /// For an object written with sorted keys, the members' positions in write order.
        var order: [Int]?
        let depth: Int
        /// In write order.
        var children: [Child] = []
    }

    /// Consecutive elements or members (positions in the write order) of a skeleton node.
    struct Unit {
        let node: Int
        let range: Range<Int>
        let weight: Int
    }

    /// How many children of a container are weighed at most.
    static let sampled = 16
    /// How many values the estimate looks at, at most.
    static let budget = 8192

    /// The skeleton, children before their parents: the root is the last.
    private(set) var nodes: [Node] = []
    private(set) var units: [Unit] = []
    /// The units of each batch: consecutive, about `batchWeight` each.
    private(set) var batches: [Range<Int>] = []

    private let batchWeight: Int
    private let sortedKeys: Bool
    /// The weighed children of the containers being weighed (their position in storage
    /// order, weight, and node index or -1), as one stack for every level.
    private var stack: [(index: Int, weight: Int, node: Int)] = []
    private var visited = 0
    /// Set when the value nests deeper than ``JSONBatches/maximumDepth``.
    private var tooDeep = false

    /// Plans the write of `value`; `nil` when it weighs less than `threshold`, a weighed part
    /// of it nests deeper than ``JSONBatches/maximumDepth``, or it does not cut into two
    /// batches or more.
    init?(_ value: PFValue, threshold: Int, batchWeight: Int, sortedKeys: Bool) {
        self.batchWeight = max(1, batchWeight)
        self.sortedKeys = sortedKeys
        guard Self.isContainer(value) else { return nil }
        let (total, root) = weigh(value, depth: 0)
        guard !tooDeep, total >= threshold, root != nil else { return nil }
        batches = JSONBatches.group(units.lazy.map(\.weight), atLeast: self.batchWeight)
        guard batches.count >= 2 else { return nil }
    }

    /// The root node.
    var root: Int { nodes.count - 1 }

    private static func isContainer(_ value: PFValue) -> Bool {
        switch value {
        case .array, .dictionary: true
        default: false
        }
    }

    /// What writing a scalar costs, roughly, in values.
    @inline(__always)
    private static func scalarWeight(_ value: PFValue) -> Int {
        switch value {
        case .string(let s): 1 + s.utf8.count / 32
        case .data(let d): 1 + d.count / 24
        default: 1
        }
    }

    /// A rough weight, the test every write makes before weighing: a container counts as its
    /// number of children times the heavier of its first and last child, and at most 64
    /// values are looked at. A small value (most writes) is done in a few steps; a value this
    /// misjudges as light is only written on one thread.
    static func roughWeight(_ value: PFValue, visits: inout Int) -> Int {
        visits += 1
        switch value {
        case .array(let items):
            return items.withUnsafeBufferPointer { roughWeight(of: $0, visits: &visits) }
        case .dictionary(let members):
            return members.values.withUnsafeBufferPointer { roughWeight(of: $0, visits: &visits) }
        default:
            return scalarWeight(value)
        }
    }

    /// ``roughWeight(_:visits:)`` of a container's children (read in place, not copied).
    private static func roughWeight(of children: UnsafeBufferPointer<PFValue>, visits: inout Int) -> Int {
        let count = children.count
        guard count > 0, visits < 64 else { return 1 + count }
        var child = roughWeight(children[0], visits: &visits)
        if count > 1 { child = max(child, roughWeight(children[count - 1], visits: &visits)) }
        let (product, overflow) = count.multipliedReportingOverflow(by: child)
        return overflow ? Int.max / 2 : min(1 + product, Int.max / 2)
    }

    /// The estimated weight of `value` at `depth`, and its node when it is a container
    /// estimated heavier than a batch (added to the skeleton, its other children in units).
    private mutating func weigh(_ value: PFValue, depth: Int) -> (weight: Int, node: Int?) {
        visited += 1
        let count: Int
        switch value {
        case .array(let items): count = items.count
        case .dictionary(let members): count = members.count
        default: return (Self.scalarWeight(value), nil)
        }
        guard depth <= JSONBatches.maximumDepth else {
            tooDeep = true
            return (1, nil)
        }
        // Past the budget, a container is taken to weigh a value per child.
        guard visited < Self.budget, count > 0, !tooDeep else { return (1 + count, nil) }
        let base = stack.count
        let step = max(1, count / Self.sampled)
        var sampledWeight = 0
        for index in stride(from: 0, to: count, by: step) {
            let child: PFValue
            switch value {
            case .array(let items): child = items[index]
            case .dictionary(let members): child = members.values[index]
            default: return (1, nil)
            }
            let (weight, node) = weigh(child, depth: depth + 1)
            stack.append((index, weight, node ?? -1))
            sampledWeight += weight
        }
        let sampleCount = stack.count - base
        let average = max(1, sampledWeight / sampleCount)
        let weight = 1 + sampledWeight + (count - sampleCount) * average
        var node: Int?
        if weight > batchWeight, !tooDeep {
            node = addNode(value, count: count, depth: depth, average: average, sampledFrom: base)
        }
        stack.removeSubrange(base...)
        return (weight, node)
    }

    /// Adds the node of a container of `count` children, whose weighed ones are on the stack
    /// from `base` on; the others weigh `average` each.
    /// - Returns: the node's index.
    private mutating func addNode(_ value: PFValue, count: Int, depth: Int, average: Int, sampledFrom base: Int) -> Int {
        let index = nodes.count
        var node = Node(value: value, order: nil, depth: depth)
        // The weighed children by their position in write order.
        var known = Array(stack[base...])
        if sortedKeys, case .dictionary(let members) = value {
            let order = JSONNativeWriter.sortedOrder(members)
            var position = [Int](repeating: 0, count: count)
            for (p, i) in order.enumerated() { position[i] = p }
            known = known.map { (position[$0.index], $0.weight, $0.node) }.sorted { $0.index < $1.index }
            node.order = order
        }
        // Runs of the children between the skeleton's, cut at about a batch's weight.
        var run: (start: Int, weight: Int)?
        func close(at end: Int, _ node: inout Node, _ units: inout [Unit]) {
            guard let open = run else { return }
            units.append(Unit(node: index, range: open.start..<end, weight: open.weight))
            node.children.append(.unit(units.count - 1))
            run = nil
        }
        var p = 0
        for next in known + [(index: count, weight: 0, node: -1)] {
            // Children p..<next.index weigh `average` each.
            while p < next.index {
                let filled = run?.weight ?? 0
                let take = min(next.index - p, max(1, (batchWeight - filled + average - 1) / average))
                run = (run?.start ?? p, filled + take * average)
                p += take
                if let open = run, open.weight >= batchWeight { close(at: p, &node, &units) }
            }
            guard p < count else { break }
            if next.node >= 0 {
                close(at: p, &node, &units)
                node.children.append(.node(next.node))
            } else {
                run = (run?.start ?? p, (run?.weight ?? 0) + next.weight)
                if let open = run, open.weight >= batchWeight { close(at: p + 1, &node, &units) }
            }
            p += 1
        }
        close(at: count, &node, &units)
        nodes.append(node)
        return index
    }
}

/// The work of one parallel write: ``PFCore/OrderedParallelMap`` runs its batches on several
/// threads, each writing a batch's units with a writer of its own.
struct JSONWriteJob {
    let plan: JSONWritePlan
    private let options: JSONWriter.Options

    /// Where a unit's text is: which batch's text, and the byte range in it; or the unit's
    /// error.
    private enum Written {
        case pending
        case text(batch: Int, range: Range<Int>)
        case failed(PFError)
        /// Nested deeper than a pool thread writes: the caller writes it.
        case tooDeep
    }

    /// What one batch wrote: its text, and each unit's part of it.
    private struct WrittenBatch {
        var text: [UInt8]
        var units: [Written]
    }

    /// One per unit.
    private var written: [Written] = []
    /// The text of each batch.
    private var texts: [[UInt8]] = []

    /// Writes every unit.
    init(plan: JSONWritePlan, options: JSONWriter.Options) {
        self.plan = plan
        self.options = options
        let job = self
        let batches = OrderedParallelMap<Int, WrittenBatch, Never>.map(plan.batches.indices, workers: JSONBatches.threads) { b in
            job.write(batch: b)
        }
        written.reserveCapacity(plan.units.count)
        for batch in batches {
            texts.append(batch.text)
            written.append(contentsOf: batch.units)
        }
    }

    /// Writes batch `b`'s units with a writer of its own.
    private func write(batch b: Int) -> WrittenBatch {
        // Units are written on pool threads, whose stacks may be small: a unit nested deeper
        // than JSONBatches.maximumDepth stops there and is written by the caller.
        var capped = options
        capped.maxDepth = min(options.maxDepth, JSONBatches.maximumDepth)
        var writer = JSONNativeWriter(options: capped, out: [])
        defer { writer.text.deallocate() }
        var units: [Written] = []
        for u in plan.batches[b] {
            let start = writer.text.count
            do throws(PFError) {
                try writeUnit(u, with: &writer)
                units.append(.text(batch: b, range: start..<writer.text.count))
            } catch {
                let cut = error.code == .limitExceeded && capped.maxDepth < options.maxDepth
                units.append(cut ? .tooDeep : .failed(error))
            }
        }
        return WrittenBatch(text: Array(writer.text.bytes), units: units)
    }

    /// Writes unit `u`'s elements or members.
    private func writeUnit(_ u: Int, with writer: inout JSONNativeWriter) throws(PFError) {
        let unit = plan.units[u]
        let node = plan.nodes[unit.node]
        switch node.value {
        case .array(let items):
            try writer.writeElements(items, unit.range, depth: node.depth)
        case .dictionary(let members):
            try writer.writeMembers(members, order: node.order, unit.range, depth: node.depth)
        default:
            break  // skeleton nodes are containers
        }
    }

    // MARK: - The skeleton

    /// A unit with no text after every batch was written (never expected).
    private static let lost = PFError(JSONFailure.partLost, format: JSONError.format)

    /// Writes the skeleton node `n` into `writer`, with the units' text in place, throwing the
    /// first error in the one-thread write's order.
    func assemble(_ n: Int, into writer: inout JSONNativeWriter) throws(PFError) {
        let node = plan.nodes[n]
        guard node.depth < options.maxDepth else { throw JSONWriterError.tooDeep(options.maxDepth) }
        let isObject: Bool
        let members: OrderedDictionary<String, PFValue>
        switch node.value {
        case .dictionary(let dictionary):
            isObject = true
            members = dictionary
        default:
            isObject = false
            members = [:]
        }
        writer.text.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
        var position = 0  // of the next child, in write order
        for child in node.children {
            if position > 0 { writer.text.append(UInt8(ascii: ",")) }
            switch child {
            case .unit(let u):
                switch written[u] {
                case .text(let batch, let range):
                    texts[batch].withUnsafeBufferPointer { writer.text.appendBytes(UnsafeBufferPointer(rebasing: $0[range])) }
                case .failed(let error):
                    throw error
                case .tooDeep:
                    try writeUnit(u, with: &writer)
                case .pending:
                    throw Self.lost
                }
                position = plan.units[u].range.upperBound
            case .node(let m):
                writer.newline(node.depth + 1)
                if isObject {
                    let key = members.keys[node.order?[position] ?? position]
                    writer.writeString(key)
                    writer.colon()
                    do { try assemble(m, into: &writer) } catch { throw error.prefixed(.key(key)) }
                } else {
                    do { try assemble(m, into: &writer) } catch { throw error.prefixed(.index(position)) }
                }
                position += 1
            }
        }
        writer.newline(node.depth)
        writer.text.append(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
    }
}

extension JSONNativeWriter {
    /// Writes a heavy value on several threads (see ``JSONWriter/Options/parallel``);
    /// `false`, writing nothing, when it is to be written on one thread.
    mutating func writeInParallel(_ value: PFValue) throws(PFError) -> Bool {
        guard options.parallel, JSONBatches.threads > 1 else { return false }
        var visits = 0
        guard JSONWritePlan.roughWeight(value, visits: &visits) >= options.parallelThreshold,
            let plan = JSONWritePlan(value, threshold: options.parallelThreshold, batchWeight: options.parallelBatchWeight,
                                     sortedKeys: options.sortedKeys)
        else { return false }
        let job = JSONWriteJob(plan: plan, options: options)
        try job.assemble(plan.root, into: &self)
        return true
    }
}
