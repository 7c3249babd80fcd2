import Foundation
import OrderedCollections
import PFCore

/// Converts a read document into a ``PFCore/PFValue`` tree: Foundation values natural,
/// other objects `{"$class": …, "$version": …, "$values": […]}`, objects reached more than
/// once written in full once with `$id` and referenced with `{"$ref": N}` after that.
struct TypedStreamValueConverter<Source: TypedStreamObjects> {
    let document: Source
    let limits: PFLimits
    var counts = TypedStreamReferenceCounts()
    var ids: [Int: Int] = [:]
    var nextID = 1
    var nodes = 0
    /// Whether an object's `$id` is its index in the table plus one, rather than numbered
    /// from 1 in this tree: trees read one by one from the same stream then give a shared
    /// object the same `$id`, and an archiver writing them keeps it one object.
    var idsFromTable = false
    /// Whether a Foundation object is written in its natural form only when
    /// ``ClassicArchiver`` writes that form back as the same object (``writesBack(_:chain:)``),
    /// and in the generic `$class`/`$values` form otherwise: an `NSMutableArray`, an `i` or `f`
    /// `NSNumber`, an `NSMutableString` keep their class and encoding, and a string or number
    /// reached more than once stays one object (``ClassicExactValue``).
    var exact = false
    /// The root of a tree read by ``convertObject(_:sharedIn:)``, reached once more than
    /// `counts` says.
    var extraRoot: Int?

    init(document: Source, limits: PFLimits) {
        self.document = document
        self.limits = limits
    }

    // MARK: - Sharing

    /// The object references an object's natural or generic form contains, in order.
    func children(of index: Int) -> [Int] {
        var out: [Int] = []
        func collect(_ value: TypedStreamValue) {
            switch value {
            case .object(let i): out.append(i)
            case .array(let items): items.forEach(collect)
            case .structure(_, let fields): fields.forEach(collect)
            default: break
            }
        }
        switch document.foundationObject(at: index) {
        case .array(let items, _)?: items.forEach(collect)
        case .dictionary(let pairs)?: pairs.forEach { collect($0.key); collect($0.value) }
        case .url(let base, let relative)?: collect(base); collect(relative)
        case .attributedString(let string, let runs)?: collect(string); runs.forEach { collect($0.attributes) }
        case .value(_, let v)?: collect(v)
        case .some: break
        case nil:
            for group in document.objectEntry(index)?.groups ?? [] { group.values.forEach(collect) }
        }
        return out
    }

    /// Counts how often each object is reached, visiting each object's children once.
    mutating func countReferences(from roots: [Int]) {
        var stack = roots.reversed() as [Int]
        while let index = stack.popLast() {
            counts.reach(index)
            if counts[index] == 1 { stack.append(contentsOf: children(of: index).reversed()) }
        }
    }

    static func rootReferences(_ groups: [TypedStreamGroup]) -> [Int] {
        var out: [Int] = []
        func collect(_ value: TypedStreamValue) {
            switch value {
            case .object(let i): out.append(i)
            case .array(let items): items.forEach(collect)
            case .structure(_, let fields): fields.forEach(collect)
            default: break
            }
        }
        groups.forEach { $0.values.forEach(collect) }
        return out
    }

    // MARK: - Conversion

    mutating func convertRoots(_ roots: [TypedStreamGroup]) throws(PFError) -> PFValue {
        countReferences(from: Self.rootReferences(roots))
        if roots.count == 1, let only = roots.first, only.values.count == 1, let value = only.values.first {
            return try raw(value, depth: 0)
        }
        var out: [PFValue] = []
        for group in roots {
            if group.values.count == 1, let value = group.values.first {
                out.append(try raw(value, depth: 0))
            } else {
                var items: [PFValue] = []
                for v in group.values { items.append(try raw(v, depth: 0)) }
                out.append(.array(items))
            }
        }
        return .array(out)
    }

    mutating func convertObject(root index: Int) throws(PFError) -> PFValue {
        countReferences(from: [index])
        return try object(index, depth: 0)
    }

    /// How often each object is reached from the stream's roots (an object reached more
    /// than once anywhere in the stream is shared).
    static func referenceCounts(_ document: TypedStreamDocument, limits: PFLimits) -> TypedStreamReferenceCounts {
        var converter = TypedStreamValueConverter<TypedStreamDocument>(document: document, limits: limits)
        converter.countReferences(from: rootReferences(document.roots))
        return converter.counts
    }

    /// One object of a stream read as a tree among others from the same stream: an object
    /// shared anywhere in the stream (`counts`, ``referenceCounts(_:limits:)``) carries its
    /// table-based `$id` (``idsFromTable``).
    mutating func convertObject(_ index: Int, sharedIn counts: TypedStreamReferenceCounts) throws(PFError) -> PFValue {
        // Shared with the caller, never copied: the tree's root counts once more, as the root
        // (a child that refers back to it closes a cycle rather than reading it again), through
        // `extraRoot` instead of a changed copy of the whole table for every object read.
        self.counts = counts
        extraRoot = index
        idsFromTable = true
        return try object(index, depth: 0)
    }

    mutating func node(_ offset: Int) throws(PFError) {
        nodes += 1
        guard nodes <= limits.maxNodes else { throw PFLimits.exceeded("maxNodes", limits.maxNodes, format: .typedstream, offset: offset) }
    }

    /// Checks an NSArray's or NSDictionary's element count against `maxCollectionCount`.
    func collection(_ count: Int, at offset: Int) throws(PFError) {
        guard count <= limits.maxCollectionCount else {
            throw PFLimits.exceeded("maxCollectionCount", limits.maxCollectionCount, format: .typedstream, offset: offset)
        }
    }

    /// A raw value in a group.
    mutating func raw(_ value: TypedStreamValue, depth: Int) throws(PFError) -> PFValue {
        switch value {
        case .null, .ignored: return .null
        case .int(let i): return .int(i)
        case .uint(let u): return PFValue.integer(u) ?? .uint(u)
        case .bool(let b): return .bool(b)
        case .float(let f): return .double(Double(f))
        case .double(let d): return .double(d)
        case .cString(let s): return String(validating: s, as: UTF8.self).map(PFValue.string) ?? .data(Data(s))
        case .bytes(let b), .byteArray(let b): return .data(Data(b))
        case .atom(let s), .selector(let s): return s.map { .string(String(decoding: $0, as: UTF8.self)) } ?? .null
        case .class(let i): return Self.classReference(document.chain(ofClass: i).map { ClassicClassVersion($0.name, version: $0.version) })
        case .classChain(let chain): return Self.classReference(chain)
        case .object(let i): return try object(i, depth: depth + 1)
        case .tree(let v): return v
        case .array(let items):
            var out: [PFValue] = []
            for item in items { out.append(try raw(item, depth: depth + 1)) }
            return .array(out)
        case .structure(_, let fields):
            var out: [PFValue] = []
            for item in fields { out.append(try raw(item, depth: depth + 1)) }
            return .array(out)
        }
    }

    /// A class value (`#`): `{"$classRef": name}`, with `"$version"` when it is not 0 and
    /// `"$classes"`/`"$versions"` when the superclasses are not just NSObject, as an object
    /// has them, so ``ClassicArchiver`` writes the same chain back.
    static func classReference(_ chain: [ClassicClassVersion]) -> PFValue {
        guard let first = chain.first else { return .null }
        var members: OrderedDictionary<String, PFValue> = ["$classRef": .string(first.name)]
        if first.version != 0 { members["$version"] = .int(Int64(first.version)) }
        let superclasses = chain.dropFirst()
        if !(superclasses.count == 1 && superclasses.first?.name == "NSObject" && superclasses.first?.version == 0) {
            members["$classes"] = .array(chain.map { .string($0.name) })
            members["$versions"] = .array(chain.map { .int(Int64($0.version)) })
        }
        return .dictionary(members)
    }

    /// An object as the tree holds it.
    mutating func object(_ index: Int, depth: Int) throws(PFError) -> PFValue {
        switch try open(index, depth: depth) {
        case .done(let value): return value
        case .container(let entry, let chain, let foundation, let id):
            return try container(entry, chain: chain, foundation: foundation, id: id, depth: depth)
        }
    }

    /// An object reached: its value when it is a scalar, `null` or a `$ref`, else what its
    /// container needs, its `$id` taken if it is shared (what ``object(_:depth:)`` and the walk
    /// both begin with).
    enum Opened {
        case done(PFValue)
        case container(TypedStreamObject, chain: [TypedStreamClass], foundation: FoundationObject?, id: Int?)
    }

    mutating func open(_ index: Int, depth: Int) throws(PFError) -> Opened {
        guard let entry = document.objectEntry(index) else { return .done(.null) }
        guard depth <= limits.maxDepth else { throw PFLimits.exceeded("maxDepth", limits.maxDepth, format: .typedstream, offset: entry.offset) }
        try node(entry.offset)
        let chain = document.chain(ofClass: entry.classIndex)
        var foundation = document.foundationObject(at: index)
        if exact, let known = foundation {
            // A scalar reached more than once is written in place by its natural form, once
            // per occurrence: kept generic, it keeps its `$id` and stays one object.
            let shared = counts[index] + (index == extraRoot ? 1 : 0) > 1
            let scalar = switch known {
            case .string, .number, .data, .date, .null: true
            default: false
            }
            if (shared && scalar) || !Self.writesBack(known, chain: chain.map { ClassicClassVersion($0.name, version: $0.version) }) {
                foundation = nil
            }
        }
        // Scalars are always written in place.
        switch foundation {
        case .string(let s)?: return .done(.string(s))
        case .number(let type, let value)?: return .done(Self.number(type, value))
        case .data(let d)?: return .done(.data(d))
        case .date(let d)?: return .done(.date(Date(timeIntervalSinceReferenceDate: d)))
        case .null?: return .done(.null)
        default: break
        }
        if let id = ids[index] { return .done(.dictionary(["$ref": .int(Int64(id))])) }
        var id: Int?
        if counts[index] + (index == extraRoot ? 1 : 0) > 1 {
            let next = idsFromTable ? index + 1 : nextID
            id = next
            ids[index] = next
            nextID += 1
        }
        return .container(entry, chain: chain, foundation: foundation, id: id)
    }

    /// The container an object reached for the first time is written as.
    mutating func container(
        _ entry: TypedStreamObject, chain: [TypedStreamClass], foundation: FoundationObject?, id: Int?, depth: Int
    ) throws(PFError) -> PFValue {
        let name = chain.first?.name ?? "?"
        switch foundation {
        case .array(let items, _)?:
            try collection(items.count, at: entry.offset)
            var out: [PFValue] = []
            for item in items { out.append(try raw(item, depth: depth)) }
            return Self.wrap(.array(out), id: id)
        case .dictionary(let pairs)?:
            try collection(pairs.count, at: entry.offset)
            var keys: [PFValue] = []
            var values: [PFValue] = []
            for pair in pairs {
                keys.append(try raw(pair.key, depth: depth))
                values.append(try raw(pair.value, depth: depth))
            }
            if exact && !keys.allSatisfy({ $0.stringValue != nil }) {
                // `NS.keys`/`NS.objects` is read back, not written back: keep the groups.
                return try generic(entry, chain: chain, id: id, depth: depth)
            }
            if keys.allSatisfy({ $0.stringValue != nil }) {
                var dict = OrderedDictionary<String, PFValue>()
                for (k, v) in zip(keys, values) { dict[k.stringValue ?? ""] = v }
                return Self.wrap(.dictionary(dict), id: id)
            }
            var members: OrderedDictionary<String, PFValue> = ["$class": .string(name)]
            if let id { members["$id"] = .int(Int64(id)) }
            members["NS.keys"] = .array(keys)
            members["NS.objects"] = .array(values)
            return .dictionary(members)
        case .url(let base, let relative)?:
            var members: OrderedDictionary<String, PFValue> = ["$class": .string(name)]
            if let id { members["$id"] = .int(Int64(id)) }
            if base != .null { members["base"] = try raw(base, depth: depth) }
            members["string"] = try raw(relative, depth: depth)
            return .dictionary(members)
        case .attributedString(let string, let runs)?:
            var members: OrderedDictionary<String, PFValue> = ["$class": .string(name)]
            if let id { members["$id"] = .int(Int64(id)) }
            members["string"] = try raw(string, depth: depth)
            var out: [PFValue] = []
            for run in runs {
                out.append(.dictionary(["length": .int(Int64(run.length)), "attributes": try raw(run.attributes, depth: depth)]))
            }
            members["runs"] = .array(out)
            return .dictionary(members)
        case .value(let type, let value)?:
            var members: OrderedDictionary<String, PFValue> = ["$class": .string(name)]
            if let id { members["$id"] = .int(Int64(id)) }
            members["type"] = .string(type.description)
            members["value"] = try raw(value, depth: depth)
            return .dictionary(members)
        default:
            return try generic(entry, chain: chain, id: id, depth: depth)
        }
    }

    /// An object in the generic form: its class chain with versions and every group as read.
    mutating func generic(_ entry: TypedStreamObject, chain: [TypedStreamClass], id: Int?, depth: Int) throws(PFError) -> PFValue {
        let name = chain.first?.name ?? "?"
        var members: OrderedDictionary<String, PFValue> = ["$class": .string(name), "$version": .int(Int64(chain.first?.version ?? 0))]
        let superclasses = chain.dropFirst()
        if !(superclasses.count == 1 && superclasses.first?.name == "NSObject" && superclasses.first?.version == 0) {
            members["$classes"] = .array(chain.map { .string($0.name) })
            members["$versions"] = .array(chain.map { .int(Int64($0.version)) })
        }
        if let id { members["$id"] = .int(Int64(id)) }
        var groups: [PFValue] = []
        for group in entry.groups {
            var values: [PFValue] = []
            for v in group.values { values.append(try raw(v, depth: depth)) }
            groups.append(.dictionary(["types": .string(group.encodingString), "values": .array(values)]))
        }
        members["$values"] = .array(groups)
        return .dictionary(members)
    }

    /// Whether ``ClassicArchiver`` writes a Foundation object's natural form back as the same
    /// object: the class chain it writes for that form (`NSString` version 1, `NSArray`, …,
    /// each on `NSObject`) and, for an `NSNumber`, the encoding (`q` for an integer, `d` for
    /// a double, `c` 0 or 1 for a boolean). `NSSet`s, `NSURL`s, `NSValue`s and attributed
    /// strings are kept generic: their natural forms are not written back byte for byte.
    static func writesBack(_ object: FoundationObject, chain: [ClassicClassVersion]) -> Bool {
        switch object {
        case .string: return chain == ClassicClassVersion.nsString
        case .number(let type, let value):
            guard chain == ClassicClassVersion.nsNumber else { return false }
            switch value {
            case .int(let i) where type == .char: return i == 0 || i == 1
            case .int: return type == .int64
            case .double: return type == .double
            default: return false
            }
        case .data: return chain == ClassicClassVersion.nsData
        case .date: return chain == ClassicClassVersion.nsDate
        case .null: return chain == ClassicClassVersion.nsNull
        case .array(_, let set): return !set && chain == ClassicClassVersion.nsArray
        case .dictionary: return chain == ClassicClassVersion.nsDictionary
        case .url, .attributedString, .value: return false
        }
    }

    static func wrap(_ value: PFValue, id: Int?) -> PFValue {
        guard let id else { return value }
        return .dictionary(["$id": .int(Int64(id)), "$value": value])
    }

    /// An NSNumber's natural value: `c` 0/1 (Objective-C `BOOL`) and `B` are booleans.
    static func number(_ type: TypeEncoding, _ value: TypedStreamValue) -> PFValue {
        switch value {
        case .int(let i) where type == .char && (i == 0 || i == 1): return .bool(i == 1)
        case .int(let i): return .int(i)
        case .uint(let u): return PFValue.integer(u) ?? .uint(u)
        case .bool(let b): return .bool(b)
        case .float(let f): return .double(Double(f))
        case .double(let d): return .double(d)
        default: return .null
        }
    }
}

/// How often each entry of a stream is reached from the roots, as the converter counts it:
/// 0, 1, or 2 for more than once (all the converter asks is whether an object is shared), a
/// byte an entry.
struct TypedStreamReferenceCounts {
    private var reached: [UInt8] = []

    init() {}

    /// Counts sized for a table of `entries` entries, so that they never grow.
    init(entries: Int) { reached = Array(repeating: 0, count: entries) }

    /// How often `index` was reached, 2 standing for more than once.
    subscript(index: Int) -> Int {
        index >= 0 && index < reached.count ? Int(reached[index]) : 0
    }

    /// Counts one more reach of `index`.
    mutating func reach(_ index: Int) {
        guard index >= 0 else { return }
        if index >= reached.count { reached.append(contentsOf: repeatElement(0, count: Swift.max(index + 1 - reached.count, reached.count))) }
        if reached[index] < 2 { reached[index] += 1 }
    }
}
