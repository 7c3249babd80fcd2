import OrderedCollections
import PFCore

/// A pending change to one field, sent as `{"__op":…}` in a save.
///
/// Consecutive operations on one key merge as Parse's SDKs merge them (``merged(after:)``):
/// Set then Increment is a Set of the sum, Increment then Increment one Increment,
/// AddRelation then RemoveRelation a Batch of both.
public enum ParseOperation: Sendable, Equatable {
    /// Replace the value (sent as the plain value).
    case set(ParseValue)
    /// Remove the field: `{"__op":"Delete"}`.
    case delete
    /// Add to a number: `{"__op":"Increment","amount":N}` (negative to decrement).
    case increment(ParseNumber)
    /// Append to an array: `{"__op":"Add","objects":[…]}`.
    case add([ParseValue])
    /// Append what is not yet in the array: `{"__op":"AddUnique","objects":[…]}`.
    case addUnique([ParseValue])
    /// Remove every instance of each object: `{"__op":"Remove","objects":[…]}`.
    case remove([ParseValue])
    /// Add objects to a relation: `{"__op":"AddRelation","objects":[Pointer…]}`.
    case addRelation([ParsePointer])
    /// Remove objects from a relation: `{"__op":"RemoveRelation","objects":[Pointer…]}`.
    case removeRelation([ParsePointer])
    /// Several relation operations at once: `{"__op":"Batch","ops":[…]}`.
    case batch([ParseOperation])

    /// The operation's `__op` name (`Set` for ``set(_:)``).
    public var name: String {
        switch self {
        case .set: "Set"
        case .delete: "Delete"
        case .increment: "Increment"
        case .add: "Add"
        case .addUnique: "AddUnique"
        case .remove: "Remove"
        case .addRelation: "AddRelation"
        case .removeRelation: "RemoveRelation"
        case .batch: "Batch"
        }
    }
}

/// A Parse Number that keeps integers and doubles apart.
public enum ParseNumber: Sendable, Equatable {
    /// An integer.
    case int(Int64)
    /// A double.
    case double(Double)

    /// The number as a field value.
    public var value: ParseValue {
        switch self {
        case .int(let i): .int(i)
        case .double(let d): .double(d)
        }
    }

    /// The sum; integers that would overflow become doubles.
    /// - Parameter other: the number to add.
    /// - Returns: the sum.
    public func adding(_ other: ParseNumber) -> ParseNumber {
        switch (self, other) {
        case (.int(let a), .int(let b)):
            let (sum, overflow) = a.addingReportingOverflow(b)
            return overflow ? .double(Double(a) + Double(b)) : .int(sum)
        case (.int(let a), .double(let b)): return .double(Double(a) + b)
        case (.double(let a), .int(let b)): return .double(a + Double(b))
        case (.double(let a), .double(let b)): return .double(a + b)
        }
    }

    init?(_ value: ParseValue) {
        switch value {
        case .int(let i): self = .int(i)
        case .double(let d): self = .double(d)
        default: return nil
        }
    }
}

// MARK: - Merging

extension ParseOperation {
    /// This operation merged after an earlier pending one on the same key.
    /// - Parameters:
    ///   - previous: the pending operation, or `nil`.
    ///   - key: the key, for errors.
    /// - Returns: one operation with the effect of `previous` then `self`.
    /// - Throws: ``PFError`` with Parse code 111 when the two cannot combine (Increment after
    ///   a Set of a string, Add after Increment, a relation operation after Set, …).
    public func merged(after previous: ParseOperation?, key: String = "") throws(PFError) -> ParseOperation {
        guard let previous else { return self }
        func incompatible() -> PFError {
            PFError(
                parse: ParseFailure.operationAfterPending(operation: name, pending: previous.name, key: key),
                path: PFCodingPath.root.appending(key: key))
        }
        switch self {
        case .set, .delete:
            return self
        case .increment(let amount):
            switch previous {
            case .delete: return .set(amount.value)
            case .set(let value):
                guard let base = ParseNumber(value) else { throw incompatible() }
                return .set(base.adding(amount).value)
            case .increment(let earlier): return .increment(earlier.adding(amount))
            default: throw incompatible()
            }
        case .add(let objects):
            switch previous {
            case .delete: return .set(.array(objects))
            case .set(.array(let items)): return .set(.array(items + objects))
            case .add(let earlier): return .add(earlier + objects)
            default: throw incompatible()
            }
        case .addUnique(let objects):
            switch previous {
            case .delete: return .set(.array(ParseOperation.unique([], adding: objects)))
            case .set(.array(let items)): return .set(.array(ParseOperation.unique(items, adding: objects)))
            case .addUnique(let earlier): return .addUnique(ParseOperation.unique(earlier, adding: objects))
            default: throw incompatible()
            }
        case .remove(let objects):
            switch previous {
            case .delete: return .set(.array([]))
            case .set(.array(let items)): return .set(.array(items.filter { !objects.contains($0) }))
            case .remove(let earlier): return .remove(earlier + objects.filter { !earlier.contains($0) })
            default: throw incompatible()
            }
        case .addRelation, .removeRelation, .batch:
            guard let earlier = previous.relationChanges, let later = relationChanges else { throw incompatible() }
            var adds = earlier.adds
            var removes = earlier.removes
            for p in later.adds {
                removes.removeAll { $0 == p }
                if !adds.contains(p) { adds.append(p) }
            }
            for p in later.removes {
                adds.removeAll { $0 == p }
                if !removes.contains(p) { removes.append(p) }
            }
            let all = adds + removes
            if let first = all.first, let odd = all.first(where: { $0.className != first.className }) {
                throw PFError(
                    parse: ParseFailure.relationMixedClasses(key: key, className: first.className, odd: "\(odd)", oddClass: odd.className),
                    path: PFCodingPath.root.appending(key: key))
            }
            return ParseOperation.relationOperation(adds: adds, removes: removes)
        }
    }

    /// The pointers added and removed by a relation operation, or `nil` for other operations.
    var relationChanges: (adds: [ParsePointer], removes: [ParsePointer])? {
        switch self {
        case .addRelation(let p): return (p, [])
        case .removeRelation(let p): return ([], p)
        case .batch(let ops):
            var adds: [ParsePointer] = []
            var removes: [ParsePointer] = []
            for op in ops {
                guard let (a, r) = op.relationChanges else { return nil }
                adds += a
                removes += r
            }
            return (adds, removes)
        default: return nil
        }
    }

    static func relationOperation(adds: [ParsePointer], removes: [ParsePointer]) -> ParseOperation {
        if adds.isEmpty { return .removeRelation(removes) }
        if removes.isEmpty { return .addRelation(adds) }
        return .batch([.addRelation(adds), .removeRelation(removes)])
    }

    static func unique(_ items: [ParseValue], adding objects: [ParseValue]) -> [ParseValue] {
        var out = items
        for object in objects where !out.contains(object) { out.append(object) }
        return out
    }
}

// MARK: - Applying

extension ParseOperation {
    /// The estimated value after this operation, computed locally as the server would.
    /// - Parameters:
    ///   - current: the current value, or `nil` when the field is absent.
    ///   - key: the key, for errors.
    /// - Returns: the new value, or `nil` when the field is removed.
    /// - Throws: ``PFError`` with Parse code 111 when the current value has the wrong type
    ///   (Increment of a string, Add to a number, a relation operation on a non-relation).
    public func applied(to current: ParseValue?, key: String = "") throws(PFError) -> ParseValue? {
        func wrongType(_ expected: String) -> PFError {
            PFError(
                parse: ParseFailure.operationNeedsType(
                    operation: name, key: key, expected: expected, found: current.map { $0.fieldType?.rawValue ?? "null" } ?? "nothing"),
                path: PFCodingPath.root.appending(key: key))
        }
        switch self {
        case .set(let value): return value
        case .delete: return nil
        case .increment(let amount):
            guard let current else { return amount.value }
            guard let base = ParseNumber(current) else { throw wrongType("a Number") }
            return base.adding(amount).value
        case .add(let objects):
            guard let current else { return .array(objects) }
            guard case .array(let items) = current else { throw wrongType("an Array") }
            return .array(items + objects)
        case .addUnique(let objects):
            guard let current else { return .array(ParseOperation.unique([], adding: objects)) }
            guard case .array(let items) = current else { throw wrongType("an Array") }
            return .array(ParseOperation.unique(items, adding: objects))
        case .remove(let objects):
            guard let current else { return .array([]) }
            guard case .array(let items) = current else { throw wrongType("an Array") }
            return .array(items.filter { !objects.contains($0) })
        case .addRelation, .removeRelation, .batch:
            let target = relationChanges.flatMap { ($0.adds + $0.removes).first?.className }
            guard let current else { return target.map { .relation(className: $0) } }
            guard case .relation(let className) = current else { throw wrongType("a Relation") }
            if let target, target != className {
                throw PFError(
                    parse: ParseFailure.relationClass(key: key, className: className, target: target),
                    path: PFCodingPath.root.appending(key: key))
            }
            return current
        }
    }
}

// MARK: - REST

extension ParseOperation {
    /// The operation as REST JSON: the plain value for ``set(_:)``, `{"__op":…}` otherwise.
    public var restValue: PFValue {
        func objects(_ items: [ParseValue]) -> PFValue { .array(items.map(\.restValue)) }
        func pointers(_ items: [ParsePointer]) -> PFValue { .array(items.map { ParseValue.pointer($0).restValue }) }
        switch self {
        case .set(let value): return value.restValue
        case .delete: return ["__op": "Delete"]
        case .increment(let amount): return ["__op": "Increment", "amount": amount.value.restValue]
        case .add(let items): return ["__op": "Add", "objects": objects(items)]
        case .addUnique(let items): return ["__op": "AddUnique", "objects": objects(items)]
        case .remove(let items): return ["__op": "Remove", "objects": objects(items)]
        case .addRelation(let items): return ["__op": "AddRelation", "objects": pointers(items)]
        case .removeRelation(let items): return ["__op": "RemoveRelation", "objects": pointers(items)]
        case .batch(let ops): return ["__op": "Batch", "ops": .array(ops.map(\.restValue))]
        }
    }

    /// Reads an operation from REST JSON: `{"__op":…}`, or any other value as a Set.
    /// - Parameter rest: the JSON value.
    /// - Throws: ``PFError`` with Parse code 107 (an unknown `__op` or missing members) or
    ///   111 (members of the wrong type).
    public init(rest: PFValue) throws(PFError) {
        try self.init(rest: rest, path: .root)
    }

    init(rest: PFValue, path: PFCodingPath) throws(PFError) {
        guard case .dictionary(let d) = rest, let opValue = d["__op"] else {
            self = .set(try ParseValue.decode(rest, path: path, context: .none))
            return
        }
        guard case .string(let op) = opValue else {
            throw PFError(parse: ParseFailure.opNotString, path: path.appending(key: "__op"))
        }
        func objects() throws(PFError) -> [ParseValue] {
            guard case .array(let items)? = d["objects"] else {
                throw PFError(parse: ParseFailure.opNeedsObjects(op: op), path: path)
            }
            var out: [ParseValue] = []
            for (i, item) in items.enumerated() {
                out.append(try ParseValue.decode(item, path: path.appending(key: "objects").appending(index: i), context: .none))
            }
            return out
        }
        func pointers() throws(PFError) -> [ParsePointer] {
            var out: [ParsePointer] = []
            for (i, item) in try objects().enumerated() {
                guard let p = item.pointerValue else {
                    throw PFError(
                        parse: ParseFailure.opObjectsNotPointers(op: op),
                        path: path.appending(key: "objects").appending(index: i))
                }
                out.append(p)
            }
            return out
        }
        switch op {
        case "Delete": self = .delete
        case "Increment":
            switch d["amount"] {
            case .int(let i)?: self = .increment(.int(i))
            case .double(let x)?: self = .increment(.double(x))
            default: throw PFError(parse: ParseFailure.incrementAmount, path: path.appending(key: "amount"))
            }
        case "Add": self = .add(try objects())
        case "AddUnique": self = .addUnique(try objects())
        case "Remove": self = .remove(try objects())
        case "AddRelation": self = .addRelation(try pointers())
        case "RemoveRelation": self = .removeRelation(try pointers())
        case "Batch":
            guard case .array(let items)? = d["ops"] else {
                throw PFError(parse: ParseFailure.batchNeedsOps, path: path)
            }
            var ops: [ParseOperation] = []
            for (i, item) in items.enumerated() {
                ops.append(try ParseOperation(rest: item, path: path.appending(key: "ops").appending(index: i)))
            }
            self = .batch(ops)
        default:
            throw PFError(
                parse: ParseFailure.unknownOperation(op),
                path: path.appending(key: "__op"))
        }
    }
}
