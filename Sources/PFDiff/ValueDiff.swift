import Foundation
import OrderedCollections
import PFCore

/// The differences between two values and the RFC 6902 patch that turns A into B.
public struct DiffResult: Sendable {
    /// One entry per difference, in document order of A (then B's additions).
    public var differences: [Difference] = []
    /// Operations that turn A into B (``JSONPatch/apply(to:)``).
    public var patch = JSONPatch()

    /// Whether A and B are equal under the options used.
    public var isEmpty: Bool { differences.isEmpty }

    /// Makes an empty result.
    public init() {}

    /// The number of differences of each kind.
    public var counts: [Difference.Kind: Int] {
        var out: [Difference.Kind: Int] = [:]
        for d in differences { out[d.kind, default: 0] += 1 }
        return out
    }

    /// The summary line: `3 differences: 1 added, 1 removed, 1 changed` or `no differences`.
    public var summary: String {
        guard !differences.isEmpty else { return "no differences" }
        let counts = counts
        let parts = Difference.Kind.allCases.compactMap { kind in counts[kind].map { "\($0) \(kind.rawValue)" } }
        return "\(differences.count) difference\(differences.count == 1 ? "" : "s"): " + parts.joined(separator: ", ")
    }
}

/// Structural comparison of two ``PFCore/PFValue`` trees.
///
/// Values are compared by type and content: `1`, `1.0` and `true` differ, as do `0.0` and
/// `-0.0`; every NaN equals every NaN; dates are equal when they round to the same millisecond
/// (``DiffOptions/DatePrecision``). Dictionaries are compared as sets of keys — key order is
/// not a difference. Arrays are compared position by position after their common head and
/// tail are set aside, so one insertion is one `+`, or as multisets under
/// ``DiffOptions/unordered``.
public struct ValueDiff {
    let options: DiffOptions
    /// In graph mode, the path where each `$id` first occurs, per side.
    var idPaths: (a: [Int64: PFKeyPath], b: [Int64: PFKeyPath]) = ([:], [:])
    /// In graph mode, the path of each `$id`'s first `$ref`, per side.
    var refPaths: (a: [Int64: PFKeyPath], b: [Int64: PFKeyPath]) = ([:], [:])
    var result = DiffResult()
    /// Set for ``isEqual(_:_:path:)``'s scratch comparison: stop at the first difference and
    /// compare arrays position by position, without setting aside a common head and tail (which
    /// asks ``isEqual(_:_:path:)`` again, one level down: exponential in the nesting depth).
    var equalityOnly = false

    /// Compares two trees.
    /// - Parameters:
    ///   - a: the first value (the patch starts from it).
    ///   - b: the second value.
    ///   - options: what to compare and how.
    /// - Returns: the differences and the patch.
    public static func compare(_ a: PFValue, _ b: PFValue, options: DiffOptions = DiffOptions()) -> DiffResult {
        var diff = ValueDiff(options: options)
        if options.graph {
            (diff.idPaths.a, diff.refPaths.a) = collectIDs(a)
            (diff.idPaths.b, diff.refPaths.b) = collectIDs(b)
        }
        diff.compare(a, b, path: [], emitPatch: true)
        return diff.result
    }

    /// Whether two values are equal under the options (no differences at all).
    public static func equal(_ a: PFValue, _ b: PFValue, options: DiffOptions = DiffOptions()) -> Bool {
        compare(a, b, options: options).isEmpty
    }

    init(options: DiffOptions) { self.options = options }

    // MARK: - Recording

    mutating func record(_ difference: Difference) { result.differences.append(difference) }

    mutating func op(_ operation: JSONPatch.Operation, _ emit: Bool) {
        if emit { result.patch.operations.append(operation) }
    }

    // MARK: - Comparing

    mutating func compare(_ a: PFValue, _ b: PFValue, path: [PFKeyPath.Component], emitPatch: Bool) {
        if equalityOnly && !result.differences.isEmpty { return }
        if options.isIgnored(path) { return }
        // Exactly: strings by their Unicode scalars, not Swift's canonical equivalence
        // ("é" and "e\u{301}" are different text, and a conversion that turned one into the
        // other changed it).
        if !options.graph && PFValue.Exact(a) == PFValue.Exact(b) { return }
        let keyPath = PFKeyPath(path)
        if options.graph, compareGraphMarkers(a, b, path: path, emitPatch: emitPatch) { return }
        switch (a, b) {
        case (.dictionary(let x), .dictionary(let y)) where !isAtomic(x) && !isAtomic(y):
            compareDictionaries(x, y, path: path, emitPatch: emitPatch)
        case (.array(let x), .array(let y)):
            if options.isUnordered(path) {
                compareUnordered(x, y, path: path, emitPatch: emitPatch)
            } else {
                compareOrdered(x, y, path: path, emitPatch: emitPatch)
            }
        default:
            guard !sameScalar(a, b) else { return }
            record(Difference(.changed, path: keyPath, old: a, new: b))
            op(.init(.replace, path: keyPath, value: b), emitPatch)
        }
    }

    func isAtomic(_ members: OrderedDictionary<String, PFValue>) -> Bool {
        options.parseTypedValues && members["__type"]?.stringValue != nil
    }

    mutating func compareDictionaries(
        _ x: OrderedDictionary<String, PFValue>, _ y: OrderedDictionary<String, PFValue>,
        path: [PFKeyPath.Component], emitPatch: Bool
    ) {
        if options.graph {
            // `$id` numbers are not compared, but the patch carries B's numbering, so that
            // B's `$ref`s mean the same objects in the patched value.
            let child = PFKeyPath(path + [.key("$id")])
            switch (x["$id"], y["$id"]) {
            case (let i?, let j?) where i != j: op(.init(.replace, path: child, value: j), emitPatch)
            case (_?, nil): op(.init(.remove, path: child), emitPatch)
            case (nil, let j?): op(.init(.add, path: child, value: j), emitPatch)
            default: break
            }
        }
        for (key, old) in x {
            if options.graph && key == "$id" { continue }
            let child = path + [.key(key)]
            if let new = Self.member(key, of: y) {
                compare(old, new, path: child, emitPatch: emitPatch)
            } else if !options.isIgnored(child) {
                record(Difference(.removed, path: PFKeyPath(child), old: old))
                op(.init(.remove, path: PFKeyPath(child)), emitPatch)
            }
        }
        for (key, new) in y where Self.member(key, of: x) == nil {
            if options.graph && key == "$id" { continue }
            let child = path + [.key(key)]
            guard !options.isIgnored(child) else { continue }
            record(Difference(.added, path: PFKeyPath(child), new: new))
            op(.init(.add, path: PFKeyPath(child), value: new), emitPatch)
        }
    }

    mutating func compareOrdered(_ x: [PFValue], _ y: [PFValue], path: [PFKeyPath.Component], emitPatch: Bool) {
        if equalityOnly {
            guard x.count == y.count else {
                return record(Difference(.changed, path: PFKeyPath(path), old: .array(x), new: .array(y)))
            }
            for i in x.indices where result.differences.isEmpty { compare(x[i], y[i], path: path + [.index(i)], emitPatch: false) }
            return
        }
        // Set aside the common head and tail, so one insertion or removal is one line.
        var head = 0
        while head < x.count, head < y.count, isEqual(x[head], y[head], path: path + [.index(head)]) { head += 1 }
        var tail = 0
        while tail < x.count - head, tail < y.count - head,
            isEqual(x[x.count - 1 - tail], y[y.count - 1 - tail], path: path + [.index(x.count - 1 - tail)])
        {
            tail += 1
        }
        if options.graph && emitPatch {
            // Equal as graphs, but their `$id` numbers may differ: the patch carries B's.
            for i in 0..<head { compare(x[i], y[i], path: path + [.index(i)], emitPatch: true) }
            for t in 0..<tail { compare(x[x.count - 1 - t], y[y.count - 1 - t], path: path + [.index(x.count - 1 - t)], emitPatch: true) }
        }
        let middleA = x.count - head - tail
        let middleB = y.count - head - tail
        let paired = min(middleA, middleB)
        for i in head..<(head + paired) {
            compare(x[i], y[i], path: path + [.index(i)], emitPatch: emitPatch)
        }
        if middleA > paired {
            for i in (head + paired)..<(head + middleA) {
                let child = path + [.index(i)]
                guard !options.isIgnored(child) else { continue }
                record(Difference(.removed, path: PFKeyPath(child), old: x[i]))
            }
            // Removing at the same index repeatedly takes the run out in order.
            for _ in paired..<middleA {
                op(.init(.remove, path: PFKeyPath(path + [.index(head + paired)])), emitPatch)
            }
        }
        if middleB > paired {
            for i in (head + paired)..<(head + middleB) {
                let child = path + [.index(i)]
                if !options.isIgnored(child) { record(Difference(.added, path: PFKeyPath(child), new: y[i])) }
                op(.init(.add, path: PFKeyPath(child), value: y[i]), emitPatch)
            }
        }
    }

    mutating func compareUnordered(_ x: [PFValue], _ y: [PFValue], path: [PFKeyPath.Component], emitPatch: Bool) {
        var matchedA = [Bool](repeating: false, count: x.count)
        var unmatchedB: [Int] = []
        // Exact matches first through a hash table; the rest pairwise under the options.
        var exact: [PFValue.Exact: [Int]] = [:]
        for (i, v) in x.enumerated() { exact[PFValue.Exact(v), default: []].append(i) }
        var pending: [Int] = []
        for (j, v) in y.enumerated() {
            if var slots = exact[PFValue.Exact(v)], !slots.isEmpty {
                let i = slots.removeFirst()
                exact[PFValue.Exact(v)] = slots
                matchedA[i] = true
            } else {
                pending.append(j)
            }
        }
        for j in pending {
            if let i = x.indices.first(where: { !matchedA[$0] && isEqual(x[$0], y[j], path: path + [.index($0)]) }) {
                matchedA[i] = true
            } else {
                unmatchedB.append(j)
            }
        }
        let removed = x.indices.filter { !matchedA[$0] }
        for i in removed {
            record(Difference(.removed, path: PFKeyPath(path + [.index(i)]), old: x[i]))
        }
        // Highest index first, so earlier removals do not shift later ones.
        for i in removed.reversed() { op(.init(.remove, path: PFKeyPath(path + [.index(i)])), emitPatch) }
        for j in unmatchedB {
            record(Difference(.added, path: PFKeyPath(path + [.index(j)]), new: y[j]))
            op(.init(.add, pointer: JSONPointer(PFKeyPath(path)).appending("-"), value: y[j]), emitPatch)
        }
    }

    func isEqual(_ a: PFValue, _ b: PFValue, path: [PFKeyPath.Component]) -> Bool {
        if !options.graph && PFValue.Exact(a) == PFValue.Exact(b) { return true }
        var scratch = ValueDiff(options: options)
        scratch.idPaths = idPaths
        scratch.refPaths = refPaths
        scratch.equalityOnly = true
        scratch.compare(a, b, path: path, emitPatch: false)
        return scratch.result.differences.isEmpty
    }

    // MARK: - Scalars

    func sameScalar(_ a: PFValue, _ b: PFValue) -> Bool {
        switch (a, b) {
        case (.dictionary, .dictionary):
            // Parse typed values compared whole: members as usual, key order aside.
            var inner = options
            inner.parseTypedValues = false
            inner.ignore = []
            var scratch = ValueDiff(options: inner)
            scratch.compare(a, b, path: [], emitPatch: false)
            return scratch.result.differences.isEmpty
        case (.date(let x), .date(let y)):
            let s = x.timeIntervalSinceReferenceDate, t = y.timeIntervalSinceReferenceDate
            if options.datePrecision == .milliseconds, s.isFinite, t.isFinite {
                return (s * 1000).rounded() == (t * 1000).rounded()
            }
            return a == b
        case (.string(let x), .string(let y)):
            return x.utf8.elementsEqual(y.utf8)
        default:
            if options.loose, let x = Numeric(a), let y = Numeric(b) { return x == y }
            return a == b
        }
    }

    /// The member of `members` under exactly `key` (the same Unicode scalars: a dictionary
    /// finds a canonically equivalent key too, which is another name).
    static func member(_ key: String, of members: OrderedDictionary<String, PFValue>) -> PFValue? {
        guard let index = members.index(forKey: key), members.keys[index].utf8.elementsEqual(key.utf8) else { return nil }
        return members.values[index]
    }

    /// A number, boolean (0 or 1) or integer for `--loose` comparison.
    enum Numeric: Equatable {
        case integer(Int64), unsigned(UInt64), real(Double)

        init?(_ value: PFValue) {
            switch value {
            case .bool(let b): self = .integer(b ? 1 : 0)
            case .int(let i): self = .integer(i)
            case .uint(let u): self = .unsigned(u)
            case .double(let d):
                if let i = Int64(exactly: d) { self = .integer(i) } else if let u = UInt64(exactly: d) { self = .unsigned(u) } else { self = .real(d) }
            default: return nil
            }
        }

        static func == (l: Numeric, r: Numeric) -> Bool {
            switch (l, r) {
            case (.integer(let a), .integer(let b)): a == b
            case (.unsigned(let a), .unsigned(let b)): a == b
            case (.real(let a), .real(let b)): a == b || (a.isNaN && b.isNaN)
            default: false
            }
        }
    }

    // MARK: - Graphs

    /// The `$ref` number of a `{"$ref": N}` dictionary.
    static func reference(_ value: PFValue) -> Int64? {
        guard case .dictionary(let m) = value, m.count == 1, let r = m["$ref"] else { return nil }
        return r.int64Value
    }

    /// The content of a `{"$id": N, "$value": …}` wrapper.
    static func wrapped(_ value: PFValue) -> PFValue? {
        guard case .dictionary(let m) = value, m.count == 2, m["$id"] != nil, let inner = m["$value"] else { return nil }
        return inner
    }

    /// Where each `$id` first occurs, and where its first `$ref` is.
    static func collectIDs(_ root: PFValue) -> (ids: [Int64: PFKeyPath], refs: [Int64: PFKeyPath]) {
        var out: [Int64: PFKeyPath] = [:]
        var refs: [Int64: PFKeyPath] = [:]
        var stack: [(PFValue, [PFKeyPath.Component])] = [(root, [])]
        while let (value, path) = stack.popLast() {
            switch value {
            case .dictionary(let m):
                if let r = reference(value) {
                    if refs[r] == nil { refs[r] = PFKeyPath(path) }
                    continue
                }
                if let id = m["$id"]?.int64Value, out[id] == nil { out[id] = PFKeyPath(path) }
                for (k, v) in m.reversed() where v.isContainer { stack.append((v, path + [.key(k)])) }
            case .array(let a):
                for (i, v) in a.enumerated().reversed() where v.isContainer { stack.append((v, path + [.index(i)])) }
            default: break
            }
        }
        return (out, refs)
    }

    /// Handles references and wrappers in graph mode; returns true when it dealt with the pair.
    mutating func compareGraphMarkers(_ a: PFValue, _ b: PFValue, path: [PFKeyPath.Component], emitPatch: Bool) -> Bool {
        let keyPath = PFKeyPath(path)
        let refA = ValueDiff.reference(a), refB = ValueDiff.reference(b)
        if refA != nil || refB != nil {
            let targetA = refA.flatMap { idPaths.a[$0] }, targetB = refB.flatMap { idPaths.b[$0] }
            if refA != nil, refB != nil, targetA == targetB {
                if refA != refB { op(.init(.replace, path: keyPath, value: b), emitPatch) }
                return true
            }
            func describe(_ target: PFKeyPath?, _ value: PFValue, _ refs: [Int64: PFKeyPath], _ side: String) -> String {
                guard let target else {
                    // The object in full here, shared if something refers to it.
                    guard case .dictionary(let m) = value, let id = m["$id"]?.int64Value, let first = refs[id] else {
                        return "a separate copy in \(side)"
                    }
                    if first.components.count > path.count, Array(first.components.prefix(path.count)) == path {
                        return "in a cycle through \(first) in \(side)"
                    }
                    return "shared with \(first) in \(side)"
                }
                if target.components.count <= path.count, Array(path.prefix(target.components.count)) == target.components {
                    return "a cycle back to \(target) in \(side)"
                }
                return "shared with \(target) in \(side)"
            }
            record(Difference(.sharing, path: keyPath, old: a, new: b, note: "\(describe(targetA, a, refPaths.a, "A")); \(describe(targetB, b, refPaths.b, "B"))"))
            op(.init(.replace, path: keyPath, value: b), emitPatch)
            return true
        }
        let innerA = ValueDiff.wrapped(a), innerB = ValueDiff.wrapped(b)
        if (innerA == nil) != (innerB == nil) {
            // Shared on one side only: the content is compared here, the sharing is reported
            // where the other side's `$ref` is; the patch replaces the whole value.
            compare(innerA ?? a, innerB ?? b, path: path, emitPatch: false)
            op(.init(.replace, path: keyPath, value: b), emitPatch)
            return true
        }
        return false
    }
}
