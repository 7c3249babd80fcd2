import CPFJSONC
import Dispatch
import Foundation
import OrderedCollections
import PFCore

// A large strict document is read on several threads (``JSONReader/Options/parallel``):
//
// 1. The pre-scan validates it as always, and records where each array and object starts and
//    ends (``JSONContainerRecorder``).
// 2. ``JSONSplitPlan`` cuts it: the containers larger than one piece of work form a skeleton;
//    their other children become units, each a complete JSON text json-c parses on its own
//    (a run of consecutive array elements, or one member's value).
// 3. The calling thread and helper threads take batches of units in turn; each parses its
//    units with its own json-c tokener, converts them, and frees json-c's trees itself
//    (``JSONSplitJob``).
// 4. The caller builds the skeleton around the units' values, in the order the one-thread
//    read walks the document, so the value, and the first error with its key path, are the
//    one-thread read's.

/// Records every array and object of a document as the pre-scan passes it: where its bracket
/// opens and where it ends, in the order the brackets open (so `starts` is sorted).
struct JSONContainerRecorder: JSONScanSink {
    private(set) var starts: [Int] = []
    /// One past each container's closing bracket.
    private(set) var ends: [Int] = []
    private var openContainers: [Int] = []

    mutating func open(_ kind: JSONNode.Kind, start: Int) {
        openContainers.append(starts.count)
        starts.append(start)
        ends.append(start)  // set when it closes
    }

    mutating func empty(_ kind: JSONNode.Kind, start: Int, end: Int) {
        starts.append(start)
        ends.append(end)
    }

    mutating func close(members: Int, end: Int) {
        if let k = openContainers.popLast() { ends[k] = end }
    }

    @inline(__always) mutating func key(start: Int, end: Int) {}
    @inline(__always) mutating func string(start: Int, end: Int) {}
    @inline(__always) mutating func number(start: Int, end: Int) {}
    @inline(__always) mutating func literal(_ kind: JSONNode.Kind, _ value: Bool, start: Int) {}

    /// The container whose bracket is at `offset`, if any.
    func container(at offset: Int) -> Int? {
        var low = 0
        var high = starts.count
        while low < high {
            let mid = (low + high) / 2
            if starts[mid] < offset { low = mid + 1 } else { high = mid }
        }
        return low < starts.count && starts[low] == offset ? low : nil
    }
}

/// How a large document is cut for a parallel read.
///
/// The containers larger than `batchBytes` make up a skeleton of ``Node``s; every other child
/// of a skeleton node is (part of) a ``Unit``: a run of consecutive array elements of about
/// `batchBytes` in all, or one member's value. Consecutive units make up the batches the
/// threads take. A skeleton object has keys of plain ASCII (no escapes), so its keys are its
/// bytes; and, when typed values are on, none is `__type` or `CF$UID`, so it is never a typed
/// object. A container that breaks either rule is a unit however large it is.
struct JSONSplitPlan {
    enum Child {
        case node(Int)
        case unit(Int)
    }

    struct Node {
        var isObject: Bool
        /// An object's keys, one per child, in text order (repeated keys included).
        var keys: [String] = []
        var children: [Child] = []
    }

    struct Unit {
        var start: Int
        var end: Int
        /// The number of array elements in a run; 0 for one member's value.
        var elements: Int
    }

    /// The skeleton in pre-order: `nodes[0]` is the root.
    private(set) var nodes: [Node] = []
    /// The units in text order.
    private(set) var units: [Unit] = []
    /// The units of each batch: consecutive, about `batchBytes` each.
    private(set) var batches: [Range<Int>] = []

    private let p: UnsafePointer<UInt8>
    private let count: Int
    private let containers: JSONContainerRecorder
    private let batchBytes: Int
    private let typedValues: Bool

    /// Plans the read of a strict document the pre-scan has accepted; `nil` when it does not
    /// split into two batches or more (its root is a scalar, small, or a unit by the rules).
    init?(bytes: UnsafeRawBufferPointer, containers: JSONContainerRecorder, batchBytes: Int, typedValues: Bool) {
        guard let base = bytes.baseAddress, let root = containers.starts.first else { return nil }
        self.p = base.assumingMemoryBound(to: UInt8.self)
        self.count = bytes.count
        self.containers = containers
        self.batchBytes = max(1, batchBytes)
        self.typedValues = typedValues
        // The root is the first container only when nothing but whitespace comes before it.
        guard skipSpace(0, limit: count) == root, containers.ends[0] - root > self.batchBytes,
            plan(0) == 0
        else { return nil }
        var first = 0
        var size = 0
        for (u, unit) in units.enumerated() {
            size += unit.end - unit.start
            if size >= self.batchBytes {
                batches.append(first..<u + 1)
                first = u + 1
                size = 0
            }
        }
        if first < units.count { batches.append(first..<units.count) }
        guard batches.count >= 2 else { return nil }
    }

    /// One member of a container: its key's bytes (quotes included; empty in an array) and
    /// its value's, and the value's container index when it is one.
    private struct Member {
        var key: Range<Int>
        var value: Range<Int>
        var container: Int?
    }

    /// Adds container `c` to the skeleton, its large children as nodes and the rest as units.
    /// - Returns: its node index, or `nil` (nothing added) when it must be a unit.
    private mutating func plan(_ c: Int) -> Int? {
        guard let members = members(of: c) else { return nil }
        let isObject = p[containers.starts[c]] == UInt8(ascii: "{")
        if isObject {
            for member in members where !isPlainKey(member.key) { return nil }
        }
        let index = nodes.count
        nodes.append(Node(isObject: isObject))
        var node = Node(isObject: isObject)
        var run: Unit?
        func flush(_ run: inout Unit?, into node: inout Node, _ units: inout [Unit]) {
            guard let done = run else { return }
            units.append(done)
            node.children.append(.unit(units.count - 1))
            run = nil
        }
        for member in members {
            if let k = member.container, containers.ends[k] - containers.starts[k] > batchBytes, let child = plan(k) {
                flush(&run, into: &node, &units)
                if isObject { node.keys.append(key(member.key)) }
                node.children.append(.node(child))
            } else if isObject {
                node.keys.append(key(member.key))
                units.append(Unit(start: member.value.lowerBound, end: member.value.upperBound, elements: 0))
                node.children.append(.unit(units.count - 1))
            } else {
                if run == nil {
                    run = Unit(start: member.value.lowerBound, end: member.value.upperBound, elements: 1)
                } else {
                    run!.end = member.value.upperBound
                    run!.elements += 1
                }
                if let open = run, open.end - open.start >= batchBytes { flush(&run, into: &node, &units) }
            }
        }
        flush(&run, into: &node, &units)
        nodes[index] = node
        return index
    }

    /// Whether a key (quotes included) may be a skeleton object's: ASCII without escapes,
    /// and not a typed object's.
    private func isPlainKey(_ key: Range<Int>) -> Bool {
        guard key.count >= 2 else { return false }
        for i in key.lowerBound + 1..<key.upperBound - 1 {
            let b = p[i]
            if b >= 0x80 || b == UInt8(ascii: "\\") { return false }
        }
        guard typedValues else { return true }
        let text = UnsafeRawBufferPointer(start: p + key.lowerBound + 1, count: key.count - 2)
        return !text.elementsEqual("__type".utf8) && !text.elementsEqual("CF$UID".utf8)
    }

    /// A plain key's text (quotes excluded).
    private func key(_ key: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(start: p + key.lowerBound + 1, count: key.count - 2), as: UTF8.self)
    }

    /// The members of container `c`, read from bytes the pre-scan has validated; `nil` if
    /// they do not read as the scan said (never expected; the document is then read on one
    /// thread).
    private func members(of c: Int) -> [Member]? {
        let start = containers.starts[c]
        let close = containers.ends[c] - 1  // the closing bracket
        guard start < close, close < count else { return nil }
        let isObject = p[start] == UInt8(ascii: "{")
        var members: [Member] = []
        var i = skipSpace(start + 1, limit: close)
        while i < close {
            if !members.isEmpty {
                guard p[i] == UInt8(ascii: ",") else { return nil }
                i = skipSpace(i + 1, limit: close)
            }
            var key = i..<i
            if isObject {
                guard i < close, p[i] == UInt8(ascii: "\""), let end = stringEnd(i, limit: close) else { return nil }
                key = i..<end
                i = skipSpace(end, limit: close)
                guard i < close, p[i] == UInt8(ascii: ":") else { return nil }
                i = skipSpace(i + 1, limit: close)
            }
            guard i < close else { return nil }
            let valueStart = i
            var container: Int?
            switch p[i] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard let k = containers.container(at: i), containers.ends[k] <= close else { return nil }
                container = k
                i = containers.ends[k]
            case UInt8(ascii: "\""):
                guard let end = stringEnd(i, limit: close) else { return nil }
                i = end
            default:
                while i < close, !Self.endsScalar(p[i]) { i += 1 }
            }
            members.append(Member(key: key, value: valueStart..<i, container: container))
            i = skipSpace(i, limit: close)
        }
        return members
    }

    private static func endsScalar(_ b: UInt8) -> Bool {
        b == UInt8(ascii: ",") || b == UInt8(ascii: "]") || b == UInt8(ascii: "}") || b == 0x20 || b == 0x0A
            || b == 0x0D || b == 0x09
    }

    private func skipSpace(_ start: Int, limit: Int) -> Int {
        var i = start
        while i < limit, p[i] == 0x20 || p[i] == 0x0A || p[i] == 0x0D || p[i] == 0x09 { i += 1 }
        return i
    }

    /// One past the closing quote of the string opening at `open`, before `limit`.
    private func stringEnd(_ open: Int, limit: Int) -> Int? {
        var j = open + 1
        while j < limit {
            guard let hit = memchr(p + j, Int32(UInt8(ascii: "\"")), limit - j) else { return nil }
            let quote = UnsafeRawPointer(hit) - UnsafeRawPointer(p)
            // Escaped when an odd run of backslashes stands before it.
            var backslashes = 0
            while quote - 1 - backslashes > open, p[quote - 1 - backslashes] == UInt8(ascii: "\\") { backslashes += 1 }
            if backslashes % 2 == 0 { return quote + 1 }
            j = quote + 1
        }
        return nil
    }
}

/// What a unit became: a run's elements (those before the first that failed) or one value,
/// and the first error.
struct JSONUnitResult {
    var values: [PFValue] = []
    var error: PFError?
}

/// The work of one parallel read, shared by the calling thread and its helpers: each takes
/// the next batch until none is left, so a read whose helpers never start (a busy thread
/// pool) is done by the caller alone; the caller then waits for the batches others took.
final class JSONSplitJob: @unchecked Sendable {
    let plan: JSONSplitPlan
    /// Valid while the caller is in ``JSONReader/readInParallel(_:)``, which waits until no
    /// batch is being worked on (a helper that starts later finds none left to take).
    private let bytes: UnsafeRawBufferPointer
    private let options: JSONReader.Options
    private let scan: JSONScanResult
    /// One per unit; each written by the thread that took its batch.
    private let results: UnsafeMutableBufferPointer<JSONUnitResult>

    private let condition = NSCondition()
    private var nextBatch = 0
    private var finishedBatches = 0
    /// Whether json-c failed on a unit the pre-scan accepted (never expected): the document
    /// is then read on one thread, for the one-thread read's outcome.
    private var failed = false

    init(plan: JSONSplitPlan, bytes: UnsafeRawBufferPointer, options: JSONReader.Options, scan: JSONScanResult) {
        self.plan = plan
        self.bytes = bytes
        self.options = options
        self.scan = scan
        results = .allocate(capacity: plan.units.count)
        results.initialize(repeating: JSONUnitResult())
    }

    deinit {
        results.deinitialize()
        results.deallocate()
    }

    /// Takes and works batches until none is left.
    func work() {
        var worker: Worker?
        defer { worker?.close() }
        while let batch = take() {
            if worker == nil { worker = Worker(options: options, scan: scan, input: bytes) }
            var ok = worker != nil
            for u in plan.batches[batch] where ok {
                if let result = worker?.run(plan.units[u], in: bytes) {
                    results[u] = result
                } else {
                    ok = false
                }
            }
            finish(ok)
        }
    }

    /// Waits until every batch has been worked; `false` when json-c failed on one.
    func waitForAll() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while finishedBatches < plan.batches.count { condition.wait() }
        return !failed
    }

    private func take() -> Int? {
        condition.lock()
        defer { condition.unlock() }
        guard nextBatch < plan.batches.count, !failed else { return nil }
        nextBatch += 1
        return nextBatch - 1
    }

    private func finish(_ ok: Bool) {
        condition.lock()
        finishedBatches += 1
        if !ok {
            failed = true
            // Batches no one took will not be: count them finished.
            finishedBatches += plan.batches.count - nextBatch
            nextBatch = plan.batches.count
        }
        if finishedBatches >= plan.batches.count { condition.broadcast() }
        condition.unlock()
    }

    /// One thread's tokener, converter (with its own key and string caches) and buffer.
    private struct Worker {
        let tokener: UnsafeMutablePointer<json_tokener>
        var converter: JSONTreeConverter
        let options: JSONReader.Options
        var text: [UInt8] = []

        init?(options: JSONReader.Options, scan: JSONScanResult, input: UnsafeRawBufferPointer) {
            // A run is one level deeper than its elements were.
            let depth = Int32(min(max(scan.maxDepthSeen, 0) + 2, JSONReader.maximumSupportedDepth + 1))
            guard let tokener = try? JSONCTree.makeTokener(depth: depth, options: options) else { return nil }
            self.tokener = tokener
            self.options = options
            converter = JSONTreeConverter(options: options, scan: scan, input: input, nulStandIn: nil,
                                          keyCache: JSONKeyCache(forInputOf: input.count))
        }

        func close() {
            json_tokener_free(tokener)
        }

        /// Parses and converts one unit; `nil` when json-c fails on it.
        mutating func run(_ unit: JSONSplitPlan.Unit, in bytes: UnsafeRawBufferPointer) -> JSONUnitResult? {
            let source = UnsafeRawBufferPointer(rebasing: bytes[unit.start..<unit.end])
            guard unit.elements > 0 else {
                // One member's value, parsed where it stands.
                guard let tree = parse(source) else { return nil }
                defer { tree.release() }
                do {
                    return JSONUnitResult(values: [try converter.convertRoot(tree.root)])
                } catch {
                    return JSONUnitResult(error: error)
                }
            }
            // A run of elements, parsed as an array of its own.
            text.removeAll(keepingCapacity: true)
            text.append(UInt8(ascii: "["))
            text.append(contentsOf: source)
            text.append(UInt8(ascii: "]"))
            let parsed = text.withUnsafeBytes { parse($0) }
            guard let tree = parsed, let array = tree.root, json_object_get_type(array) == json_type_array,
                json_object_array_length(array) == unit.elements
            else {
                parsed?.release()
                return nil
            }
            defer { tree.release() }
            var result = JSONUnitResult()
            result.values.reserveCapacity(unit.elements)
            for k in 0..<unit.elements {
                do {
                    result.values.append(try converter.convertRoot(json_object_array_get_idx(array, k)))
                } catch {
                    result.error = error
                    break
                }
            }
            return result
        }

        private func parse(_ text: UnsafeRawBufferPointer) -> JSONCTree? {
            guard let base = text.baseAddress else { return nil }
            let scanner = JSONScanner(bytes: text, base: base, options: options)
            return try? JSONCTree.parse(text, from: 0, with: tokener, scanner: scanner)
        }
    }

    // MARK: - The skeleton

    /// Builds the document's value from the skeleton and the units' values, throwing the
    /// first error in the order the one-thread read converts the document.
    func assemble() throws(PFError) -> PFValue {
        try assemble(0)
    }

    private func assemble(_ n: Int) throws(PFError) -> PFValue {
        let node = plan.nodes[n]
        guard node.isObject else {
            var items: [PFValue] = []
            var count = 0
            for child in node.children {
                if case .unit(let u) = child { count += max(plan.units[u].elements, 1) } else { count += 1 }
            }
            items.reserveCapacity(count)
            for child in node.children {
                switch child {
                case .node(let m):
                    do { items.append(try assemble(m)) } catch { throw error.under(.index(items.count)) }
                case .unit(let u):
                    let result = take(u)
                    items.append(contentsOf: result.values)
                    if let error = result.error { throw error.under(.index(items.count)) }
                }
            }
            return .array(items)
        }
        // json-c keeps one member per key: the last value, where the key first stood. Values
        // a later one replaces are never converted by a one-thread read, so their errors
        // do not count.
        var members = OrderedDictionary<String, JSONSplitPlan.Child>(minimumCapacity: node.keys.count)
        for (key, child) in zip(node.keys, node.children) { members[key] = child }
        var values: [PFValue] = []
        values.reserveCapacity(members.count)
        for (key, child) in members {
            switch child {
            case .node(let m):
                do { values.append(try assemble(m)) } catch { throw error.under(.key(key)) }
            case .unit(let u):
                let result = take(u)
                if let error = result.error { throw error.under(.key(key)) }
                values.append(result.values.first ?? .null)
            }
        }
        return .dictionary(OrderedDictionary(uncheckedUniqueKeys: members.keys.elements, values: values))
    }

    /// Moves unit `u`'s result out.
    private func take(_ u: Int) -> JSONUnitResult {
        var result = JSONUnitResult()
        swap(&result, &results[u])
        return result
    }
}

extension JSONReader {
    /// How many threads, the caller's included, a parallel read uses at most.
    static let parallelThreads = min(ProcessInfo.processInfo.activeProcessorCount, 8)

    /// What ``readInParallel(_:)`` did.
    enum ParallelRead {
        /// The document's value, read on several threads.
        case value(PFValue)
        /// The document is to be read on one thread; the pre-scan's result when it ran.
        case oneThread(JSONScanResult?)
    }

    /// Reads a large strict document on several threads (see ``Options/parallel``), or says
    /// it is to be read on one.
    func readInParallel(_ bytes: UnsafeRawBufferPointer) throws(PFError) -> ParallelRead {
        guard options.parallel, Self.parallelThreads > 1, bytes.count >= options.parallelThreshold,
            options.mode == .strict, !options.rejectDuplicateKeys,
            bytes.count <= options.limits.maxInputBytes, bytes.count < Int(Int32.max), bytes.count > 0, let base = bytes.baseAddress
        else { return .oneThread(nil) }
        var scanner = JSONScanner(bytes: bytes, base: base, options: options)
        var recorder = JSONContainerRecorder()
        let scan = try scanner.scan(into: &recorder)
        guard scan.nulKeyEscapes.isEmpty, !scan.jsonCMangledPairs,
            let plan = JSONSplitPlan(bytes: bytes, containers: recorder,
                                     batchBytes: bytes.count / max(options.parallelBatches, 1),
                                     typedValues: options.typedValues)
        else { return .oneThread(scan) }
        let job = JSONSplitJob(plan: plan, bytes: bytes, options: options, scan: scan)
        for _ in 1..<min(Self.parallelThreads, plan.batches.count) {
            DispatchQueue.global().async { job.work() }
        }
        job.work()
        guard job.waitForAll() else { return .oneThread(scan) }
        return .value(try job.assemble())
    }
}
