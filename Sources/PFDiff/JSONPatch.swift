import Foundation
import OrderedCollections
import PFCore

/// An RFC 6902 JSON Patch: a list of operations applied in order to a ``PFCore/PFValue``.
public struct JSONPatch: Sendable, Equatable {
    /// One operation.
    public struct Operation: Sendable, Equatable {
        /// The operation's name.
        public enum Kind: String, Sendable, CaseIterable {
            case add, remove, replace, move, copy, test
        }

        /// What it does.
        public var kind: Kind
        /// Where (`path`).
        public var path: JSONPointer
        /// The value for add, replace and test.
        public var value: PFValue?
        /// The source for move and copy (`from`).
        public var from: JSONPointer?

        /// Makes an operation.
        public init(_ kind: Kind, pointer: JSONPointer, value: PFValue? = nil, from: JSONPointer? = nil) {
            self.kind = kind
            self.path = pointer
            self.value = value
            self.from = from
        }

        /// Makes an operation at a key path.
        public init(_ kind: Kind, path: PFKeyPath, value: PFValue? = nil, from: PFKeyPath? = nil) {
            self.init(kind, pointer: JSONPointer(path), value: value, from: from.map(JSONPointer.init))
        }

        /// The operation as a JSON object.
        public var jsonValue: PFValue {
            var members: OrderedDictionary<String, PFValue> = ["op": .string(kind.rawValue)]
            if let from { members["from"] = .string(from.description) }
            members["path"] = .string(path.description)
            if let value { members["value"] = value }
            return .dictionary(members)
        }
    }

    /// The operations, applied in order.
    public var operations: [Operation]

    /// Makes a patch.
    public init(_ operations: [Operation] = []) { self.operations = operations }

    /// Reads a patch document: a JSON array of operation objects.
    /// - Throws: ``PFCore/PFError`` `invalidValue` naming the operation's index when an entry
    ///   is not an object, has an unknown `op`, or lacks `path`, `value` or `from`.
    public init(json: PFValue) throws(PFError) {
        guard case .array(let entries) = json else {
            throw Self.problem(.patchNotArray(kind: json.kind))
        }
        var out: [Operation] = []
        for (index, entry) in entries.enumerated() {
            /// A pointer's error as this entry's.
            func badPointer(_ error: PFError) -> PFError {
                guard let inner = error.failure(as: DiffFailure.self) else { return error }
                return Self.problem(.entryBadPointer(index: index, inner))
            }
            guard case .dictionary(let m) = entry else { throw Self.problem(.entryNotObject(index: index)) }
            guard let name = m["op"]?.stringValue else { throw Self.problem(.entryNoOp(index: index)) }
            guard let kind = Operation.Kind(rawValue: name) else { throw Self.problem(.entryUnknownOp(index: index, op: name)) }
            guard let pathText = m["path"]?.stringValue else { throw Self.problem(.entryNoPath(index: index)) }
            let path: JSONPointer
            do { path = try JSONPointer(parsing: pathText) } catch { throw badPointer(error) }
            var from: JSONPointer?
            if kind == .move || kind == .copy {
                guard let fromText = m["from"]?.stringValue else { throw Self.problem(.entryNeedsFrom(index: index, op: name)) }
                do { from = try JSONPointer(parsing: fromText) } catch { throw badPointer(error) }
            }
            let value = m["value"]
            if [.add, .replace, .test].contains(kind), value == nil { throw Self.problem(.entryNeedsValue(index: index, op: name)) }
            out.append(Operation(kind, pointer: path, value: [.add, .replace, .test].contains(kind) ? value : nil, from: from))
        }
        operations = out
    }

    /// The patch as a JSON array.
    public var jsonValue: PFValue { .array(operations.map(\.jsonValue)) }

    /// Applies the operations in order.
    /// - Parameter document: the value to patch.
    /// - Returns: the patched value.
    /// - Throws: ``PFCore/PFError`` `invalidValue` naming the failing operation's index, name
    ///   and pointer: a missing target, an index out of range, a failed `test`, a `move` into
    ///   its own child. The document is not changed by a patch that fails.
    public func apply(to document: PFValue) throws(PFError) -> PFValue {
        var value = document
        for (index, operation) in operations.enumerated() {
            do {
                try JSONPatch.apply(operation, to: &value)
            } catch {
                guard let inner = error.failure(as: DiffFailure.self) else { throw error }
                throw Self.problem(
                    .operationFailed(index: index, op: operation.kind.rawValue, pointer: operation.path.description, inner))
            }
        }
        return value
    }

    static func apply(_ operation: Operation, to document: inout PFValue) throws(PFError) {
        switch operation.kind {
        case .add:
            try add(operation.value ?? .null, at: operation.path.tokens[...], in: &document)
        case .remove:
            _ = try remove(at: operation.path.tokens[...], in: &document)
        case .replace:
            guard get(operation.path.tokens[...], in: document) != nil else { throw problem(.noValueToReplace) }
            try replace(operation.value ?? .null, at: operation.path.tokens[...], in: &document)
        case .move:
            let from = operation.from ?? .root
            if from.tokens.count < operation.path.tokens.count, Array(operation.path.tokens.prefix(from.tokens.count)) == from.tokens {
                throw problem(.moveIntoChild(from: from.description))
            }
            if from == operation.path { guard get(from.tokens[...], in: document) != nil else { throw problem(.noValueAtFrom(from.description)) }; return }
            let moved = try remove(at: from.tokens[...], in: &document)
            try add(moved, at: operation.path.tokens[...], in: &document)
        case .copy:
            let from = operation.from ?? .root
            guard let copied = get(from.tokens[...], in: document) else { throw problem(.noValueAtFrom(from.description)) }
            try add(copied, at: operation.path.tokens[...], in: &document)
        case .test:
            guard let found = get(operation.path.tokens[...], in: document) else { throw problem(.noValueToTest) }
            guard ValueDiff.equal(found, operation.value ?? .null, options: testOptions) else {
                throw problem(.testFailed(found: found.scalarDescription, expected: (operation.value ?? .null).scalarDescription))
            }
        }
    }

    /// RFC 6902 `test`: JSON equality (object member order aside), dates exactly.
    static var testOptions: DiffOptions {
        var o = DiffOptions()
        o.datePrecision = .exact
        return o
    }

    static func problem(_ failure: DiffFailure) -> PFError { PFError(failure, format: .jsonPatch) }

    static func get(_ tokens: ArraySlice<String>, in value: PFValue) -> PFValue? {
        var current = value
        for token in tokens {
            switch current {
            case .dictionary(let m):
                guard let next = m[token] else { return nil }
                current = next
            case .array(let a):
                guard let i = JSONPointer.index(token), i < a.count else { return nil }
                current = a[i]
            default: return nil
            }
        }
        return current
    }

    /// Runs `body` on the container the tokens (all but the last) lead to.
    static func withParent(
        _ tokens: ArraySlice<String>, in value: inout PFValue, _ body: (inout PFValue) throws(PFError) -> Void
    ) throws(PFError) {
        guard let first = tokens.first else { try body(&value); return }
        switch value {
        case .dictionary(var m):
            guard var child = m[first] else { throw problem(.noMemberOnTheWay(first)) }
            value = .null
            m[first] = .null
            defer { m[first] = child; value = .dictionary(m) }
            try withParent(tokens.dropFirst(), in: &child, body)
        case .array(var a):
            guard let i = JSONPointer.index(first), i < a.count else { throw problem(.noIndexOnTheWay(first, count: a.count)) }
            var child = a[i]
            value = .null
            a[i] = .null
            defer { a[i] = child; value = .array(a) }
            try withParent(tokens.dropFirst(), in: &child, body)
        default:
            throw problem(.leadsIntoScalar(first, kind: value.kind))
        }
    }

    static func add(_ new: PFValue, at tokens: ArraySlice<String>, in document: inout PFValue) throws(PFError) {
        guard let last = tokens.last else { document = new; return }
        try withParent(tokens.dropLast(), in: &document) { (parent: inout PFValue) throws(PFError) in
            switch parent {
            case .dictionary(var m):
                parent = .null
                m[last] = new
                parent = .dictionary(m)
            case .array(var a):
                let index: Int
                if last == "-" { index = a.count } else {
                    guard let i = JSONPointer.index(last), i <= a.count else {
                        throw problem(.addIndexOutOfRange(last, count: a.count))
                    }
                    index = i
                }
                parent = .null
                a.insert(new, at: index)
                parent = .array(a)
            default:
                throw problem(.parentNotContainer(kind: parent.kind))
            }
        }
    }

    /// Replaces in place (a dictionary keeps the member's position).
    static func replace(_ new: PFValue, at tokens: ArraySlice<String>, in document: inout PFValue) throws(PFError) {
        guard let last = tokens.last else { document = new; return }
        try withParent(tokens.dropLast(), in: &document) { (parent: inout PFValue) throws(PFError) in
            switch parent {
            case .dictionary(var m):
                parent = .null
                m[last] = new
                parent = .dictionary(m)
            case .array(var a):
                guard let i = JSONPointer.index(last), i < a.count else { throw problem(.indexOutOfRange(last, count: a.count)) }
                parent = .null
                a[i] = new
                parent = .array(a)
            default:
                throw problem(.parentNotContainer(kind: parent.kind))
            }
        }
    }

    static func remove(at tokens: ArraySlice<String>, in document: inout PFValue) throws(PFError) -> PFValue {
        guard let last = tokens.last else { throw problem(.removeRoot) }
        var removed = PFValue.null
        try withParent(tokens.dropLast(), in: &document) { (parent: inout PFValue) throws(PFError) in
            switch parent {
            case .dictionary(var m):
                guard let old = m[last] else { throw problem(.noMemberToRemove(last)) }
                parent = .null
                m.removeValue(forKey: last)
                parent = .dictionary(m)
                removed = old
            case .array(var a):
                guard let i = JSONPointer.index(last), i < a.count else {
                    throw problem(.indexOutOfRange(last, count: a.count))
                }
                parent = .null
                removed = a.remove(at: i)
                parent = .array(a)
            default:
                throw problem(.parentNotContainer(kind: parent.kind))
            }
        }
        return removed
    }
}
