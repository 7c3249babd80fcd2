import OrderedCollections
import PFCore

/// One spelling for an object graph in pfarchive's JSON shape (`$id` at an object's full
/// occurrence, `{"$ref": N}` at every other), whatever order its writer visited it in.
///
/// A graph's JSON writes each shared object in full where its writer met it first, and that
/// depends on the order of the members it walked: the same graph archived by two writers
/// (swift-corelibs' binary and XML forms of one archive list an object's keys in different
/// orders) puts the full copy at `shared` in one and at `children[0].shared` in the other.
/// Compared as trees they would differ in sharing where they do not. In the canonical form
/// every dictionary's members are in key order, each shared object is in full at its first
/// occurrence in that order, and only shared objects have an `$id`, numbered 1, 2, 3… in that
/// order (a shared `$class` object is `{"$class", "$id", …}`, never wrapped in `{"$id",
/// "$value"}`), so two spellings of one graph are one tree (equal with `==`), and a patch computed
/// between canonical forms applies to the canonical form (`pfarchive patch` reads its input
/// as `diff` does).
public enum GraphCanonicalForm {
    /// The canonical form of `root`, or `root` itself when a `$ref` names no `$id`, or when
    /// the canonical form would nest deeper than `maxDepth` (moving a shared object to its
    /// first occurrence in key order can put it deeper).
    ///
    /// A typedstream's metadata keys in a `$class` object or a class value (`$values`,
    /// `$versions`, `$classRef`, `$classes`, `$version`) are spelt as the typedstream reader
    /// writes them, also where a keyed archive's JSON escaped them (`$$values`: a typedstream
    /// converted to a keyed archive keeps its groups as a field of that name).
    /// - Parameters:
    ///   - root: a graph's JSON shape.
    ///   - maxDepth: the deepest nesting the canonical form may have.
    ///   - requireReferences: leave `root` alone unless it holds a `$ref` — for a document
    ///     not read as a graph (JSON, a plist), whose integer `$id` keys make it a graph only
    ///     when something refers to them.
    /// - Returns: the canonical form.
    public static func canonical(_ root: PFValue, maxDepth: Int = PFLimits.default.maxDepth, requireReferences: Bool = false) -> PFValue {
        canonicalIfGraph(root, maxDepth: maxDepth, requireReferences: requireReferences) ?? root
    }

    /// ``canonical(_:maxDepth:requireReferences:)``, or `nil` where that gives `root` itself.
    public static func canonicalIfGraph(_ root: PFValue, maxDepth: Int = PFLimits.default.maxDepth, requireReferences: Bool = false) -> PFValue? {
        var definitions: [Int64: OrderedDictionary<String, PFValue>] = [:]
        var references: Set<Int64> = []
        var repeated: Set<Int64> = []
        collect(root, &definitions, &references, &repeated)
        guard references.isSubset(of: definitions.keys), !(requireReferences && references.isEmpty) else { return nil }
        var builder = Builder(definitions: definitions, shared: references.union(repeated), maxDepth: maxDepth)
        return builder.emit(root, depth: 0)
    }

    /// Every `$id`'s dictionary, every `$ref`'s number, and the `$id`s met in full more than
    /// once (a typedstream's roots each hold in full an object they share).
    static func collect(_ root: PFValue, _ definitions: inout [Int64: OrderedDictionary<String, PFValue>],
                        _ references: inout Set<Int64>, _ repeated: inout Set<Int64>) {
        var stack: [PFValue] = [root]
        while let value = stack.popLast() {
            switch value {
            case .dictionary(let members):
                if members.count == 1, let r = members["$ref"]?.int64Value {
                    references.insert(r)
                    continue
                }
                if let id = members["$id"]?.int64Value {
                    if definitions[id] == nil { definitions[id] = members } else { repeated.insert(id) }
                }
                for item in members.values where item.isContainer { stack.append(item) }
            case .array(let items):
                for item in items where item.isContainer { stack.append(item) }
            default:
                break
            }
        }
    }

    /// The typedstream metadata keys a keyed graph's JSON escapes.
    static let typedstreamMetadata = ["$values", "$versions", "$classRef", "$classes", "$version"]

    /// `members` with escaped typedstream metadata keys unescaped, when it is a `$class`
    /// object or a class value and the unescaped key is not there already.
    static func typedstreamSpelling(_ members: OrderedDictionary<String, PFValue>) -> OrderedDictionary<String, PFValue> {
        guard members["$class"] != nil || members["$$classRef"] != nil,
            typedstreamMetadata.contains(where: { members["$" + $0] != nil && members[$0] == nil })
        else { return members }
        var out = OrderedDictionary<String, PFValue>(minimumCapacity: members.count)
        for (key, value) in members {
            let plain = String(key.dropFirst())
            if key.hasPrefix("$$"), typedstreamMetadata.contains(plain), members[plain] == nil {
                out[plain] = value
            } else {
                out[key] = value
            }
        }
        return out
    }

    struct Builder {
        let definitions: [Int64: OrderedDictionary<String, PFValue>]
        /// The `$id`s met more than once; any other is written without its `$id`.
        let shared: Set<Int64>
        let maxDepth: Int
        /// The new number of each `$id` written so far.
        var renumbered: [Int64: Int64] = [:]

        /// Writes the definition of `id` here, numbered next when it is shared; an object
        /// reached once loses its `$id`, a collection its `{"$id", "$value"}` wrapper.
        mutating func define(_ id: Int64, depth: Int) -> PFValue? {
            guard var members = definitions[id] else { return nil }
            guard shared.contains(id) else {
                if members.count == 2, let inner = members["$value"] { return emit(inner, depth: depth) }
                members.removeValue(forKey: "$id")
                return emitMembers(members, depth: depth)
            }
            let number = Int64(renumbered.count + 1)
            renumbered[id] = number
            // A shared dictionary that is a `$class` object (a typedstream's NSDictionary holding
            // a keyed archive's object) is that object with an `$id`, as a keyed graph spells it.
            if members.count == 2, case .dictionary(let inner)? = members["$value"], case .string? = inner["$class"], inner["$id"] == nil {
                members = inner
            }
            members["$id"] = .int(number)
            return emitMembers(members, depth: depth)
        }

        /// The canonical form of `value`, or `nil` when it nests deeper than `maxDepth`.
        mutating func emit(_ value: PFValue, depth: Int) -> PFValue? {
            switch value {
            case .dictionary(let members):
                if members.count == 1, let r = members["$ref"]?.int64Value {
                    if let number = renumbered[r] { return ["$ref": .int(number)] }
                    return define(r, depth: depth)
                }
                if let id = members["$id"]?.int64Value {
                    if let number = renumbered[id] { return ["$ref": .int(number)] }
                    return define(id, depth: depth)
                }
                return emitMembers(members, depth: depth)
            case .array(let items):
                guard depth < maxDepth else { return nil }
                var out: [PFValue] = []
                out.reserveCapacity(items.count)
                for item in items {
                    guard let canonical = emit(item, depth: depth + 1) else { return nil }
                    out.append(canonical)
                }
                return .array(out)
            default:
                return value
            }
        }

        mutating func emitMembers(_ members: OrderedDictionary<String, PFValue>, depth: Int) -> PFValue? {
            guard depth < maxDepth else { return nil }
            let members = GraphCanonicalForm.typedstreamSpelling(members)
            var out = OrderedDictionary<String, PFValue>(minimumCapacity: members.count)
            for key in members.keys.sorted() {
                guard let item = members[key], let canonical = emit(item, depth: depth + 1) else { return nil }
                out[key] = canonical
            }
            return .dictionary(out)
        }
    }
}
