import Foundation
import OrderedCollections
import PFCore
import PFParse
import Synchronization

/// What the adapter knows about one model type, computed once per adapter.
final class ParseModelInfo: Sendable {
    let className: String
    let keyMap: ParseKeyMap
    let transformers: ParseTransformers
    let defaults: [String: PFValue]
    let validators: [String: [ParsePropertyValidator]]
    /// The validators in property-name order (the order failures are reported in).
    let sortedValidators: [(key: String, value: [ParsePropertyValidator])]
    let strategy: ParseKeyMap.KeyStrategy
    /// Key → property, for `allKeys` (explicit single-key mappings only).
    let propertyByKey: [String: String]
    /// Snake-case conversions, cached.
    private let converted = Mutex<[String: ParseKeyMap.Mapping]>([:])

    init(_ type: any ParseModel.Type, adapterStrategy: ParseKeyMap.KeyStrategy) {
        className = type.parseClassName
        keyMap = type.parseKeyMap
        transformers = type.parseTransformers
        defaults = type.parseDefaults
        validators = type.parseValidators
        sortedValidators = validators.sorted(by: { $0.key < $1.key })
        strategy = keyMap.strategy ?? adapterStrategy
        var byKey: [String: String] = [:]
        for (property, mapping) in keyMap.mappings {
            if case .key(let k) = mapping { byKey[k] = property }
        }
        propertyByKey = byKey
    }

    /// The mapping of a property.
    func mapping(for property: String) -> ParseKeyMap.Mapping {
        if let explicit = keyMap.mappings[property] { return explicit }
        if strategy == .useDefaultKeys {
            return .key(ParseKeyMap.key(for: property, strategy: .useDefaultKeys))
        }
        let strategy = self.strategy
        return converted.withLock { converted in
            if let cached = converted[property] { return cached }
            let mapping = ParseKeyMap.Mapping.key(ParseKeyMap.key(for: property, strategy: strategy))
            converted[property] = mapping
            return mapping
        }
    }

    /// The property a top-level key belongs to (for `allKeys`).
    func property(forKey key: String) -> String {
        if let p = propertyByKey[key] { return p }
        if key == "ACL" { return "acl" }
        return strategy == .convertToSnakeCase ? ParseKeyMap.camelCase(key) : key
    }
}

/// The adapter's per-type cache.
final class ParseModelCache: Sendable {
    private let infos = Mutex<[ObjectIdentifier: ParseModelInfo]>([:])
    let strategy: ParseKeyMap.KeyStrategy

    init(strategy: ParseKeyMap.KeyStrategy) { self.strategy = strategy }

    func info(_ type: any ParseModel.Type) -> ParseModelInfo {
        let id = ObjectIdentifier(type)
        if let found = infos.withLock({ $0[id] }) { return found }
        // Made outside the mutex (it runs the model's static members); a racing thread's wins.
        let made = ParseModelInfo(type, adapterStrategy: strategy)
        return infos.withLock { infos in
            if let raced = infos[id] { return raced }
            infos[id] = made
            return made
        }
    }
}

// MARK: - Reading through a mapping

extension ParseKeyMap.Mapping {
    /// The wire value of a mapping in a dictionary, with its path.
    func lookup(in dict: OrderedDictionary<String, PFValue>, at path: PFCodingPath) throws(PFError) -> (PFValue?, PFCodingPath) {
        switch self {
        case .key(let k):
            return (dict[k], path.appending(key: k))
        case .path(let steps):
            var current: PFValue = .dictionary(dict)
            var here = path
            for step in steps {
                guard case .dictionary(let d) = current else {
                    if case .null = current { return (nil, here) }
                    throw PFError(
                        parse: ParseAdapterFailure.notAnObjectOnPath(
                            at: "\(here.keyPath)", steps: steps.joined(separator: "."), found: ParseFailure.describe(current)),
                        path: here)
                }
                here = here.appending(key: step)
                guard let next = d[step] else { return (nil, here) }
                current = next
            }
            return (current, here)
        case .keys(let keys):
            var out = OrderedDictionary<String, PFValue>()
            for k in keys { if let v = dict[k] { out[k] = v } }
            return (out.isEmpty ? nil : .dictionary(out), path.appending(key: keys.first ?? ""))
        case .excluded:
            return (nil, path)
        }
    }

    /// Writes a wire value into a dictionary.
    func store(_ value: PFValue, into dict: inout OrderedDictionary<String, PFValue>, property: String) throws(PFError) {
        switch self {
        case .key(let k):
            dict[k] = value
        case .path(let steps):
            guard let first = steps.first else { return }
            if steps.count == 1 {
                dict[first] = value
                return
            }
            var inner: OrderedDictionary<String, PFValue>
            switch dict[first] {
            case .dictionary(let d)?: inner = d
            case nil, .null?: inner = [:]
            case let other?:
                throw PFError(
                    parse: ParseAdapterFailure.mappingCollision(
                        property: property, steps: steps.joined(separator: "."), first: first, found: ParseFailure.describe(other)))
            }
            try ParseKeyMap.Mapping.path(Array(steps.dropFirst())).store(value, into: &inner, property: property)
            dict[first] = .dictionary(inner)
        case .keys(let keys):
            guard case .dictionary(let parts) = value else {
                if case .null = value { return }
                throw PFError(parse: ParseAdapterFailure.mappingNeedsDictionary(property: property, keys: keys))
            }
            for k in keys { if let v = parts[k] { dict[k] = v } }
        case .excluded:
            return
        }
    }
}
