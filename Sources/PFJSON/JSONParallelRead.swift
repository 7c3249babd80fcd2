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
//    their other children are grouped into units, runs of consecutive elements or members
//    that json-c parses as an array or object of their own.
// 3. The calling thread and pool threads take batches of units in turn
//    (``PFCore/OrderedParallelMap``); each parses its units with its own json-c tokener,
//    converts them, and frees json-c's trees itself (``JSONSplitJob``).
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
/// The containers larger than `batchBytes` make up a skeleton of ``Node``s; the other children
/// of a skeleton node are grouped into ``Unit``s, runs of consecutive elements or members of
/// about `batchBytes` in all. Consecutive units make up the batches the threads take. A
/// skeleton object has keys of plain ASCII (no escapes), so its keys are its bytes; and, when
/// typed values are on, none is `__type` or `CF$UID`, so neither it nor any run of its
/// members is a typed object. A container that breaks either rule is part of a unit however
/// large it is.
struct JSONSplitPlan {
    enum Child {
        /// A skeleton container, and its key in an object.
        case node(Int, key: String?)
        case unit(Int)
    }

    struct Node {
        let isObject: Bool
        var children: [Child] = []
    }

    /// Consecutive elements of an array, or members of an object: the text from the first
    /// one's start (its key's, for members) to the last one's end.
    struct Unit {
        var start: Int
        var end: Int
        var count: Int
        let isObject: Bool
    }

    /// The skeleton in pre-order: `nodes[0]` is the root.
    private(set) var nodes: [Node] = []
    /// The units in text order.
    private(set) var units: [Unit] = []
    /// The units of each batch: consecutive, about `batchBytes` each.
    private(set) var batches: [Range<Int>] = []

    private let reader: JSONMemberReader
    private let batchBytes: Int

    /// Plans the read of a strict document the pre-scan has accepted; `nil` when it does not
    /// split into two batches or more (its root is a scalar, small, or a unit by the rules).
    init?(bytes: UnsafeRawBufferPointer, containers: JSONContainerRecorder, batchBytes: Int, typedValues: Bool) {
        guard let base = bytes.baseAddress, let root = containers.starts.first else { return nil }
        reader = JSONMemberReader(p: base.assumingMemoryBound(to: UInt8.self), count: bytes.count,
                                  containers: containers, typedValues: typedValues)
        self.batchBytes = max(1, batchBytes)
        // The root is the first container only when nothing but whitespace comes before it.
        guard reader.skipSpace(0, limit: bytes.count) == root, containers.ends[0] - root > self.batchBytes,
            plan(0) == 0
        else { return nil }
        batches = JSONBatches.group(units.lazy.map { $0.end - $0.start }, atLeast: self.batchBytes)
        guard batches.count >= 2 else { return nil }
    }

    /// Adds container `c` to the skeleton, its large children as nodes and runs of the others
    /// as units.
    /// - Returns: its node index, or `nil` (nothing added) when it must be part of a unit.
    private mutating func plan(_ c: Int) -> Int? {
        let reader = self.reader
        let containers = reader.containers
        let isObject = reader.p[containers.starts[c]] == UInt8(ascii: "{")
        // Every key plain, and the members read as the scan said, before anything is added.
        guard reader.forEachMember(of: c, { !isObject || reader.isPlainKey($0.key) }) else { return nil }
        let index = nodes.count
        nodes.append(Node(isObject: isObject))
        var node = Node(isObject: isObject)
        var run: Unit?
        _ = reader.forEachMember(of: c) { member in
            if let k = member.container, containers.ends[k] - containers.starts[k] > batchBytes {
                // Units stay in text order: the run before this member ends first.
                if let open = run { add(open, to: &node) }
                run = nil
                if let child = plan(k) {
                    node.children.append(.node(child, key: isObject ? reader.key(member.key) : nil))
                    return true
                }
            }
            let start = isObject ? member.key.lowerBound : member.value.lowerBound
            if var open = run {
                open.end = member.value.upperBound
                open.count += 1
                run = open
            } else {
                run = Unit(start: start, end: member.value.upperBound, count: 1, isObject: isObject)
            }
            if let open = run, open.end - open.start >= batchBytes {
                add(open, to: &node)
                run = nil
            }
            return true
        }
        if let open = run { add(open, to: &node) }
        nodes[index] = node
        return index
    }

    private mutating func add(_ unit: Unit, to node: inout Node) {
        units.append(unit)
        node.children.append(.unit(units.count - 1))
    }
}

/// Reads the members of a container from bytes the pre-scan has validated, for
/// ``JSONSplitPlan``.
struct JSONMemberReader {
    let p: UnsafePointer<UInt8>
    let count: Int
    let containers: JSONContainerRecorder
    let typedValues: Bool

    /// One member of a container: its key's bytes (quotes included; empty in an array) and
    /// its value's, and the value's container index when it is one.
    struct Member {
        var key: Range<Int>
        var value: Range<Int>
        var container: Int?
    }

    /// Whether a key (quotes included) may be a skeleton object's: ASCII without escapes,
    /// and not a typed object's.
    func isPlainKey(_ key: Range<Int>) -> Bool {
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
    func key(_ key: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(start: p + key.lowerBound + 1, count: key.count - 2), as: UTF8.self)
    }

    /// Calls `body` with each member of container `c` in text order, read from bytes the
    /// pre-scan has validated, until it returns `false`.
    /// - Returns: `false` when `body` did, or when the bytes do not read as the scan said
    ///   (never expected; the document is then read on one thread).
    func forEachMember(of c: Int, _ body: (Member) -> Bool) -> Bool {
        let start = containers.starts[c]
        let close = containers.ends[c] - 1  // the closing bracket
        guard start < close, close < count else { return false }
        let isObject = p[start] == UInt8(ascii: "{")
        var first = true
        var i = skipSpace(start + 1, limit: close)
        while i < close {
            if !first {
                guard p[i] == UInt8(ascii: ",") else { return false }
                i = skipSpace(i + 1, limit: close)
            }
            first = false
            var key = i..<i
            if isObject {
                guard i < close, p[i] == UInt8(ascii: "\""), let end = stringEnd(i, limit: close) else { return false }
                key = i..<end
                i = skipSpace(end, limit: close)
                guard i < close, p[i] == UInt8(ascii: ":") else { return false }
                i = skipSpace(i + 1, limit: close)
            }
            guard i < close else { return false }
            let valueStart = i
            var container: Int?
            switch p[i] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard let k = containers.container(at: i), containers.ends[k] <= close else { return false }
                container = k
                i = containers.ends[k]
            case UInt8(ascii: "\""):
                guard let end = stringEnd(i, limit: close) else { return false }
                i = end
            default:
                while i < close, !Self.endsScalar(p[i]) { i += 1 }
            }
            guard body(Member(key: key, value: valueStart..<i, container: container)) else { return false }
            i = skipSpace(i, limit: close)
        }
        return true
    }

    private static func endsScalar(_ b: UInt8) -> Bool {
        b == UInt8(ascii: ",") || b == UInt8(ascii: "]") || b == UInt8(ascii: "}") || b == 0x20 || b == 0x0A
            || b == 0x0D || b == 0x09
    }

    func skipSpace(_ start: Int, limit: Int) -> Int {
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

/// What a unit became: its elements, or its members (json-c's: one per key, the last value
/// where the key first stood), each a value or an error. A run of elements stops at its first
/// error, as the one-thread walk would; a run of members converts every member, since a later
/// member of the same key elsewhere in the object may replace the one that failed.
struct JSONUnitResult {
    var keys: [String] = []
    var values: [PFValue] = []
    /// The error of the element or member at `values.count` (elements), or at each index
    /// (members, whose failed values are `.null` placeholders).
    var errors: [Int: PFError] = [:]
}

/// The work of one parallel read: ``PFCore/OrderedParallelMap`` runs its batches on several
/// threads, each parsing and converting units with a tokener and converter of its own.
struct JSONSplitJob {
    let plan: JSONSplitPlan
    /// One per unit, in unit order.
    private var results: [JSONUnitResult] = []

    /// json-c failed on a unit the pre-scan accepted (never expected): the document is then
    /// read on one thread, for the one-thread read's outcome.
    struct JSONCFailed: Error {}

    /// Parses and converts every unit; `nil` when json-c failed on one.
    init?(plan: JSONSplitPlan, bytes: UnsafeRawBufferPointer, options: JSONReader.Options, scan: JSONScanResult) {
        self.plan = plan
        // Raw pointers are not Sendable: these bytes are only read, and stay valid while
        // ``JSONReader/readInParallel(_:)`` runs; the map returns only after every thread
        // is done with them.
        nonisolated(unsafe) let bytes = bytes
        let units = plan.units
        let batches = try? OrderedParallelMap<Range<Int>, [JSONUnitResult], JSONCFailed>.map(
            plan.batches, workers: JSONBatches.threads,
            state: { Worker(options: options, scan: scan, input: bytes) },
            transform: { worker, batch throws(JSONCFailed) in
                guard let worker else { throw JSONCFailed() }
                var results: [JSONUnitResult] = []
                results.reserveCapacity(batch.count)
                for u in batch {
                    guard let result = worker.run(units[u], in: bytes) else { throw JSONCFailed() }
                    results.append(result)
                }
                return results
            })
        guard let batches else { return nil }
        results.reserveCapacity(units.count)
        for batch in batches { results.append(contentsOf: batch) }
    }

    /// One thread's tokener (freed with it), converter (with its own key and string caches)
    /// and buffer.
    private final class Worker {
        let tokener: UnsafeMutablePointer<json_tokener>
        var converter: JSONTreeConverter
        let options: JSONReader.Options
        var text: [UInt8] = []

        init?(options: JSONReader.Options, scan: JSONScanResult, input: UnsafeRawBufferPointer) {
            // The margin the one-thread read gives json-c; a unit is never deeper than the
            // document.
            let depth = Int32(min(max(scan.maxDepthSeen, 0) + 2, JSONReader.maximumSupportedDepth + 1))
            guard let tokener = try? JSONCTree.makeTokener(depth: depth, options: options) else { return nil }
            self.tokener = tokener
            self.options = options
            converter = JSONTreeConverter(options: options, scan: scan, input: input, nulStandIn: nil,
                                          keyCache: JSONKeyCache(forInputOf: input.count))
        }

        deinit {
            json_tokener_free(tokener)
        }

        /// Parses and converts one unit (as an array or object of its own, in a copy
        /// bracketed with `[` `]` or `{` `}`); `nil` when json-c fails on it.
        func run(_ unit: JSONSplitPlan.Unit, in bytes: UnsafeRawBufferPointer) -> JSONUnitResult? {
            text.removeAll(keepingCapacity: true)
            text.append(unit.isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
            text.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[unit.start..<unit.end]))
            text.append(unit.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
            var parsed: JSONCTree?
            text.withUnsafeBytes { text in
                let scanner = JSONScanner(bytes: text, base: text.baseAddress!, options: options)
                parsed = try? JSONCTree.parse(text, from: 0, with: tokener, scanner: scanner)
            }
            guard let tree = parsed else { return nil }
            return tree.withRoot { root in convert(unit, root) }  // freed (deinit) after
        }

        /// Converts a unit's json-c tree.
        private func convert(_ unit: JSONSplitPlan.Unit, _ root: OpaquePointer?) -> JSONUnitResult? {
            guard let root else { return nil }
            var result = JSONUnitResult()
            if unit.isObject {
                guard json_object_get_type(root) == json_type_object else { return nil }
                var entry = pf_json_object_first_entry(root)
                while let current = entry {
                    result.keys.append(converter.keyCache.key(current, nulStandIn: nil))
                    do {
                        result.values.append(try converter.convertRoot(pf_json_entry_value(current)))
                    } catch {
                        result.errors[result.values.count] = error
                        result.values.append(.null)
                    }
                    entry = pf_json_entry_next(current)
                }
                return result
            }
            guard json_object_get_type(root) == json_type_array, json_object_array_length(root) == unit.count else {
                return nil
            }
            result.values.reserveCapacity(unit.count)
            for k in 0..<unit.count {
                do {
                    result.values.append(try converter.convertRoot(json_object_array_get_idx(root, k)))
                } catch {
                    result.errors[k] = error
                    break
                }
            }
            return result
        }
    }

    // MARK: - The skeleton

    /// Builds the document's value from the skeleton and the units' values, throwing the
    /// first error in the order the one-thread read converts the document.
    mutating func assemble() throws(PFError) -> PFValue {
        try assemble(0)
    }

    private mutating func assemble(_ n: Int) throws(PFError) -> PFValue {
        let node = plan.nodes[n]
        guard node.isObject else {
            var items: [PFValue] = []
            var count = 0
            for child in node.children {
                if case .unit(let u) = child { count += plan.units[u].count } else { count += 1 }
            }
            items.reserveCapacity(count)
            for child in node.children {
                switch child {
                case .node(let m, _):
                    do { items.append(try assemble(m)) } catch { throw error.prefixed(.index(items.count)) }
                case .unit(let u):
                    let result = take(u)
                    items.append(contentsOf: result.values)
                    if let error = result.errors[result.values.count] { throw error.prefixed(.index(items.count)) }
                }
            }
            return .array(items)
        }
        // json-c keeps one member per key: the last value, where the key first stood. A value
        // a later one replaces is never converted by a one-thread read, so its error does not
        // count.
        enum Source {
            case node(Int)
            case member(unit: Int, index: Int)
        }
        var members = OrderedDictionary<String, Source>()
        var taken: [Int: JSONUnitResult] = [:]
        for child in node.children {
            switch child {
            case .node(let m, let key):
                members[key ?? ""] = .node(m)
            case .unit(let u):
                let result = take(u)
                for (index, key) in result.keys.enumerated() { members[key] = .member(unit: u, index: index) }
                taken[u] = result
            }
        }
        var values: [PFValue] = []
        values.reserveCapacity(members.count)
        for (key, source) in members {
            switch source {
            case .node(let m):
                do { values.append(try assemble(m)) } catch { throw error.prefixed(.key(key)) }
            case .member(let u, let index):
                if let error = taken[u]?.errors[index] { throw error.prefixed(.key(key)) }
                values.append(taken[u]?.values[index] ?? .null)
            }
        }
        return .dictionary(OrderedDictionary(uncheckedUniqueKeys: members.keys.elements, values: values))
    }

    /// Moves unit `u`'s result out.
    private mutating func take(_ u: Int) -> JSONUnitResult {
        var result = JSONUnitResult()
        swap(&result, &results[u])
        return result
    }
}

extension JSONReader {
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
        guard options.parallel, JSONBatches.threads > 1, bytes.count >= options.parallelThreshold,
            options.mode == .strict, !options.rejectDuplicateKeys,
            bytes.count <= options.limits.maxInputBytes, bytes.count < Int(Int32.max), bytes.count > 0,
            let base = bytes.baseAddress
        else { return .oneThread(nil) }
        var scanner = JSONScanner(bytes: bytes, base: base, options: options)
        var recorder = JSONContainerRecorder()
        let scan = try scanner.scan(into: &recorder)
        guard scan.nulKeyEscapes.isEmpty, !scan.jsonCMangledPairs, scan.maxDepthSeen <= JSONBatches.maximumDepth,
            let plan = JSONSplitPlan(bytes: bytes, containers: recorder,
                                     batchBytes: bytes.count / max(options.parallelBatches, 1),
                                     typedValues: options.typedValues)
        else { return .oneThread(scan) }
        guard var job = JSONSplitJob(plan: plan, bytes: bytes, options: options, scan: scan) else { return .oneThread(scan) }
        return .value(try job.assemble())
    }
}
