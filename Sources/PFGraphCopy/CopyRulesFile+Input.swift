import Foundation
import PFCore
import PFKeyedArchive
import PFParse

/// The types and keys an input has, for checking a rules file against it: a rule naming a
/// class or key that is not there would silently do nothing, so it is an error instead.
public struct CopyInputShape: Sendable, Equatable {
    /// The keys of each class (type): its schema's fields, the fields seen in its objects, its
    /// relations (join files included), and for Parse classes `objectId`, `createdAt`,
    /// `updatedAt` and `ACL`.
    public var classes: [String: Set<String>]
    /// Keys of untyped dictionaries, which a root path may go through.
    public var valueKeys: Set<String>

    /// An empty shape.
    public init(classes: [String: Set<String>] = [:], valueKeys: Set<String> = []) {
        self.classes = classes
        self.valueKeys = valueKeys
    }

    /// The classes and keys of a graph's objects, and the keys of its untyped dictionaries.
    /// - Parameter graph: a decoded keyed archive, JSON graph or ``ParseGraph``.
    public init(graph: KeyedGraph) {
        self.init()
        for node in graph.nodes {
            switch node {
            case .object(let object): classes[object.archivedClass.name, default: []].formUnion(object.fields.keys)
            case .dictionary(_, let keys, _):
                for case .string(let key) in keys { valueKeys.insert(key) }
            default: continue
            }
        }
    }

    /// The fields Parse gives every object.
    static let parseBuiltIns: Set<String> = ["objectId", "createdAt", "updatedAt", "ACL"]

    /// Adds a Parse schema's classes and fields (with the built-in fields) and relations.
    /// - Parameters:
    ///   - schema: the schema (declared or inferred).
    ///   - relations: `(owning class, field)` of each relation, join files included.
    public mutating func add(schema: ParseSchema, relations: [(owningClass: String, field: String)] = []) {
        for (name, fields) in schema.classes {
            classes[name, default: []].formUnion(fields.keys)
            classes[name, default: []].formUnion(Self.parseBuiltIns)
        }
        for relation in relations { classes[relation.owningClass, default: Self.parseBuiltIns].insert(relation.field) }
    }

    /// Every key of every class, and the untyped dictionaries' keys.
    var allKeys: Set<String> { classes.values.reduce(into: valueKeys) { $0.formUnion($1) } }

    /// Some names, sorted, the first ten and `…`.
    static func known(_ names: some Collection<String>) -> String {
        let sorted = names.sorted()
        return sorted.prefix(10).joined(separator: ", ") + (sorted.count > 10 ? ", …" : "")
    }
}

extension CopyRulesFile {
    /// Checks the rules a profile uses (the file's shared rules, the profile's own and those
    /// of the file profiles it extends) against an input: every `Type.key` rule must name a
    /// class of the input and one of its keys, every `*.key` rule a key of at least one class
    /// (a wildcard matching nothing does nothing, as a typo would), and every segment of a
    /// root path a key of some class or untyped dictionary. A class or key the file's own
    /// `types` declare is accepted without the input (the declarations are a model, checked
    /// when the file is loaded; one rules file may serve inputs that hold only part of it).
    /// - Parameters:
    ///   - name: the profile, or `nil` for the shared rules alone (an import's default profile).
    ///   - input: what the input has.
    /// - Throws: ``PFCore/PFError`` `invalidValue` whose path is the rule's JSON path in the
    ///   file and whose message names what is missing and what is known.
    public func check(profile name: String?, against input: CopyInputShape) throws(PFError) {
        var sites = ruleSites[""] ?? []
        var current = name
        var visited = Set<String>()
        while let profile = current, visited.insert(profile).inserted {
            sites += ruleSites[profile] ?? []
            current = fileBases[profile]
        }
        for site in sites {
            guard let selector = try? CopyRules.Selector(parsing: site.selector) else { continue }
            if let problem = Self.problem(selector, input: input, declared: schema) {
                throw PFError(problem, format: .copyRules, path: site.path)
            }
        }
    }

    static func problem(_ selector: CopyRules.Selector, input: CopyInputShape, declared: CopySchema) -> GraphCopyFailure? {
        switch selector {
        case .typeKey(let type, let key):
            if declared.types[type]?.declares(key) == true { return nil }
            guard let keys = input.classes[type] else {
                return .noInputClass(type, known: CopyInputShape.known(input.classes.keys))
            }
            return keys.contains(key) ? nil : .noInputKey(type: type, key: key, known: CopyInputShape.known(keys))
        case .anyKey(let key):
            if declared.anyTypeDeclares(key) { return nil }
            return input.classes.values.contains { $0.contains(key) } ? nil : .noInputAnyKey(key)
        case .path(let segments):
            let all = input.allKeys
            for segment in segments where !all.contains(segment) && !declared.anyTypeDeclares(segment) {
                return .noInputPathKey(segment, path: segments.joined(separator: "."))
            }
            return nil
        }
    }
}
