import Foundation
import OrderedCollections
import PFCore
import PFParse

/// Maps ``ParseModel`` structs to and from Parse dictionaries (``ParseObject`` or their REST
/// JSON), through the model's key map, transformers, defaults and validators.
///
/// ```swift
/// let adapter = ParseAdapter()
/// let player = try adapter.decode(Player.self, from: object)      // ParseObject → model
/// let back = try adapter.parseObject(from: player)               // model → ParseObject
/// let update = try adapter.parseObject(updating: object, with: edited)
/// update.savePayload()                                           // only the changed keys
/// ```
///
/// Every failure is a ``PFCore/PFError`` naming the class, objectId and key path, with
/// Parse's error code where Parse defines one (111 for a wrong type).
public struct ParseAdapter: Sendable {
    /// How `nil` optionals are written.
    public enum NilEncoding: Sendable {
        /// Leave the key out (the default); ``ParseAdapter/parseObject(updating:with:)`` turns
        /// a key that became `nil` into a Delete.
        case omit
        /// Write `null`.
        case null
    }

    /// Adapter-wide settings.
    public struct Options: Sendable {
        /// How property names without a mapping become keys, at every level (a model's key
        /// map may override it for its own properties).
        public var keyStrategy: ParseKeyMap.KeyStrategy
        /// How `nil` optionals are written.
        public var nilEncoding: NilEncoding
        /// Transformers applied to every value of a type, in every model.
        public var typeTransformers: ParseTransformers

        /// Makes options.
        /// - Parameters:
        ///   - keyStrategy: the global key strategy.
        ///   - nilEncoding: omit (default) or write null.
        ///   - typeTransformers: global transformers by type.
        public init(
            keyStrategy: ParseKeyMap.KeyStrategy = .useDefaultKeys, nilEncoding: NilEncoding = .omit,
            typeTransformers: ParseTransformers = ParseTransformers()
        ) {
            self.keyStrategy = keyStrategy
            self.nilEncoding = nilEncoding
            self.typeTransformers = typeTransformers
        }
    }

    /// The settings.
    public let options: Options
    let cache: ParseModelCache

    /// Makes an adapter.
    /// - Parameter options: the settings.
    public init(options: Options = Options()) {
        self.options = options
        self.cache = ParseModelCache(strategy: options.keyStrategy)
    }

    // MARK: - Decoding

    /// Decodes a model from an object.
    /// - Parameters:
    ///   - type: the model type.
    ///   - object: the object; its class must be the model's.
    /// - Returns: the model.
    /// - Throws: ``PFCore/PFError``: Parse code 103 for another class, 111 for a value of the
    ///   wrong type, 142 for a failed validator (all failures listed), `invalidValue` for a
    ///   missing required key, `usage` for a field read through a pointer stub.
    public func decode<M: ParseModel>(_ type: M.Type, from object: ParseObject) throws(PFError) -> M {
        guard object.className == M.parseClassName else {
            throw PFError(
                parse: ParseAdapterFailure.classMismatch(model: "\(M.self)", modelClass: M.parseClassName, found: object.className),
                context: object.context)
        }
        try object.requireData(reading: "(any field)", path: .root)
        return try decode(type, fromREST: object.typedValue)
    }

    /// Decodes a model straight from an object's REST JSON (a class-file row), without
    /// building a ``ParseObject`` first: the fast path for whole exports.
    /// - Parameters:
    ///   - type: the model type.
    ///   - rest: the JSON object (typed dates and data are accepted).
    /// - Returns: the model.
    /// - Throws: ``PFCore/PFError`` as ``decode(_:from:)``.
    public func decode<M: ParseModel>(_ type: M.Type, fromREST rest: PFValue) throws(PFError) -> M {
        try decode(type, from: .value(rest), using: ParseDecoderImpl(value: .value(rest), options: options, cache: cache, collect: false))
    }

    /// Decodes with a decoder that may have decoded other rows before (its key tables carry
    /// over; its state is restored after each decode).
    func decode<M: ParseModel>(_ type: M.Type, from rest: ParseWire, using impl: ParseDecoderImpl) throws(PFError) -> M {
        do {
            return try impl.unwrap(M.self, from: rest, at: .root, transformer: nil)
        } catch {
            throw ParseAdapter.pfError(error)
        }
    }

    /// Decodes a model and collects every failure instead of stopping at the first: type
    /// mismatches, missing keys, property validators and the model's own hook, each with its
    /// key path.
    /// - Parameters:
    ///   - type: the model type.
    ///   - object: the object.
    /// - Returns: the model when nothing failed, and the issues.
    public func decodeCollectingIssues<M: ParseModel>(_ type: M.Type, from object: ParseObject) -> (model: M?, issues: [ParseIssue]) {
        let rest = object.typedValue
        let impl = ParseDecoderImpl(value: .value(rest), options: options, cache: cache, collect: true)
        do {
            let model = try impl.unwrap(M.self, from: .value(rest), at: .root, transformer: nil)
            let issues = impl.issues ?? []
            return (issues.isEmpty ? model : nil, issues)
        } catch {
            var issues = impl.issues ?? []
            issues.append(ParseIssue(ParseAdapter.pfError(error), className: object.className, objectId: object.objectId))
            return (nil, issues)
        }
    }

    // MARK: - Encoding

    /// Encodes a model as REST JSON (the shape of a class-file row).
    /// - Parameters:
    ///   - model: the model.
    ///   - original: when given, the keys of this object that the model does not map are
    ///     kept (a round trip loses nothing the model does not know about).
    /// - Returns: the JSON object.
    /// - Throws: ``PFCore/PFError`` from a transformer, or `unrepresentable` for a value JSON
    ///   cannot hold.
    public func restValue<M: ParseModel>(of model: M, preservingUnmappedFrom original: ParseObject? = nil) throws(PFError) -> PFValue {
        let (value, nilPaths) = try encodeRoot(model)
        guard case .dictionary(var d) = value else { return value }
        for key in ["createdAt", "updatedAt"] {
            if case .dictionary(let date)? = d[key], case .string(let iso)? = date["iso"] { d[key] = .string(iso) }
        }
        if let original, case .dictionary(let old) = original.restValue {
            d = ParseAdapter.fill(d, from: old, skipping: nilPaths, at: .root)
        }
        return .dictionary(d)
    }

    /// Encodes a model as a ``ParseObject`` with no pending operations.
    /// - Parameters:
    ///   - model: the model.
    ///   - original: keep this object's unmapped keys.
    /// - Returns: the object.
    /// - Throws: ``PFCore/PFError``: Parse code 103/105 when the key map produces invalid
    ///   names, and what ``restValue(of:preservingUnmappedFrom:)`` throws.
    public func parseObject<M: ParseModel>(from model: M, preservingUnmappedFrom original: ParseObject? = nil) throws(PFError) -> ParseObject {
        try ParseObject(rest: try restValue(of: model, preservingUnmappedFrom: original), className: M.parseClassName)
    }

    /// The object updated to a model's values, as pending operations: a Set for each changed
    /// key, a Delete for each mapped key whose property became `nil`; keys the model does not
    /// map are untouched. ``ParseObject/savePayload()`` then holds only the changes.
    /// - Parameters:
    ///   - original: the object as last fetched.
    ///   - model: the edited model.
    /// - Returns: the object with operations.
    /// - Throws: ``PFCore/PFError`` as ``parseObject(from:preservingUnmappedFrom:)``.
    public func parseObject<M: ParseModel>(updating original: ParseObject, with model: M) throws(PFError) -> ParseObject {
        let (value, nilPaths) = try encodeRoot(model)
        var mapped = value
        if case .dictionary(let written) = value, case .dictionary(let old) = original.restValue {
            // Nested key paths write only their own members: keep the object's other members.
            let filled = ParseAdapter.fill(written, from: old, skipping: nilPaths, at: .root)
            mapped = .dictionary(filled.filter { written[$0.key] != nil })
        }
        let encoded = try ParseObject(rest: mapped, className: M.parseClassName)
        var updated = original
        for (key, newValue) in encoded.fields where original.fields[key] != newValue {
            try updated.set(newValue, forKey: key)
        }
        for path in nilPaths {
            guard case .key(let key)? = path.components.first, let current = updated.fields[key] else { continue }
            if path.components.count == 1 {
                if encoded.fields[key] == nil { try updated.removeValue(forKey: key) }
                continue
            }
            // A nested key path (`location.city`) became nil: remove just that member.
            let trimmed = ParseAdapter.removing(path.components.dropFirst(), from: current)
            guard trimmed != current else { continue }
            if case .object(let d) = trimmed, d.isEmpty {
                try updated.removeValue(forKey: key)
            } else {
                try updated.set(trimmed, forKey: key)
            }
        }
        if let acl = encoded.acl, acl != original.acl { updated.acl = acl }
        return updated
    }

    func encodeRoot<M: ParseModel>(_ model: M) throws(PFError) -> (PFValue, [PFKeyPath]) {
        let info = cache.info(M.self)
        var transformers = options.typeTransformers.byType
        transformers.merge(info.transformers.byType, uniquingKeysWith: { _, model in model })
        let impl = ParseEncoderImpl(
            options: options, cache: cache, path: .root, level: .model(info, stub: nil), typeTransformers: transformers,
            isRoot: true)
        do {
            try model.encode(to: impl)
        } catch {
            throw ParseAdapter.pfError(error).withContext(ParseContext(className: M.parseClassName))
        }
        var nilPaths: [PFKeyPath] = []
        if case .object(let o)? = impl.node { nilPaths = o.nilPaths }
        return (impl.value, nilPaths)
    }

    // MARK: - Merging

    /// Merges an incoming dictionary into a model: keys present in `incoming` replace the
    /// model's values (nested plain objects merge key by key; an explicit `null` clears an
    /// optional), keys missing from it leave the model's values alone — unlike Mantle, a
    /// missing value never clobbers a present one.
    /// - Parameters:
    ///   - model: the current model.
    ///   - incoming: the new data, as REST JSON.
    /// - Returns: the merged model.
    /// - Throws: ``PFCore/PFError`` from decoding the merged data.
    public func merge<M: ParseModel>(_ model: M, with incoming: PFValue) throws(PFError) -> M {
        guard case .dictionary(let base) = try restValue(of: model), case .dictionary(let new) = incoming else {
            throw PFError(parse: ParseAdapterFailure.mergeNeedsObject(found: ParseFailure.describe(incoming)))
        }
        return try decode(M.self, fromREST: .dictionary(ParseAdapter.overlay(base, with: new)))
    }

    /// Merges an incoming object into a model (see ``merge(_:with:)-(M,PFValue)``).
    /// - Parameters:
    ///   - model: the current model.
    ///   - incoming: the new data.
    /// - Returns: the merged model.
    /// - Throws: ``PFCore/PFError`` from decoding the merged data.
    public func merge<M: ParseModel>(_ model: M, with incoming: ParseObject) throws(PFError) -> M {
        try merge(model, with: incoming.typedValue)
    }

    /// Merges another model's non-`nil` values into a model.
    /// - Parameters:
    ///   - model: the current model.
    ///   - other: the model whose present values win.
    /// - Returns: the merged model.
    /// - Throws: ``PFCore/PFError`` from decoding the merged data.
    public func merge<M: ParseModel>(_ model: M, with other: M) throws(PFError) -> M {
        try merge(model, with: try restValue(of: other))
    }

    // MARK: - Key paths

    /// The value at a key path of a model's *properties* (not its Parse keys), such as
    /// `location.city` — the KVC analogue for structs.
    /// - Parameters:
    ///   - keyPath: the property path, in ``PFCore/PFKeyPath`` syntax.
    ///   - model: any encodable value.
    /// - Returns: the value in its REST form, or `nil` when a step is missing.
    /// - Throws: ``PFCore/PFError`` for a malformed path or an encoding failure.
    public func value<T: Encodable>(forKeyPath keyPath: String, in model: T) throws(PFError) -> PFValue? {
        let path = try PFKeyPath(parsing: keyPath)
        let impl = ParseEncoderImpl(
            options: Options(), cache: ParseModelCache(strategy: .useDefaultKeys), path: .root, level: .plain,
            typeTransformers: [:], isRoot: false, propertyNames: true)
        let tree: PFValue
        do {
            tree = try impl.box(model, at: .root, transformer: nil)
        } catch {
            throw ParseAdapter.pfError(error)
        }
        return tree.value(at: path)
    }

    // MARK: - Helpers

    /// A value with the member at a nested key path removed.
    static func removing(_ steps: ArraySlice<PFKeyPath.Component>, from value: ParseValue) -> ParseValue {
        guard case .key(let k)? = steps.first, case .object(var d) = value, let inner = d[k] else { return value }
        if steps.count == 1 {
            d[k] = nil
        } else {
            d[k] = removing(steps.dropFirst(), from: inner)
        }
        return .object(d)
    }

    /// Any error from `Codable` code as a ``PFError``.
    static func pfError(_ error: any Error) -> PFError {
        if let pf = PFError(unwrapping: error) { return pf }
        if let d = error as? DecodingError {
            switch d {
            case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c):
                return PFError(parse: ParseAdapterFailure.decoding(c.debugDescription), path: codingPath(c.codingPath))
            @unknown default:
                return PFError(parse: ParseAdapterFailure.decoding("\(d)"))
            }
        }
        if let e = error as? EncodingError, case .invalidValue(_, let c) = e {
            return PFError(parse: ParseAdapterFailure.encoding(c.debugDescription), path: codingPath(c.codingPath))
        }
        return PFError(parse: ParseAdapterFailure.codable("\(error)"))
    }

    static func codingPath(_ keys: [any CodingKey]) -> PFCodingPath {
        var node = PFCodingPath.root
        for k in keys {
            if let i = k.intValue { node = node.appending(index: i) } else { node = node.appending(key: k.stringValue) }
        }
        return node
    }

    /// `base` with `new` laid over it; plain nested objects merge recursively.
    static func overlay(_ base: OrderedDictionary<String, PFValue>, with new: OrderedDictionary<String, PFValue>)
        -> OrderedDictionary<String, PFValue>
    {
        var out = base
        for (k, v) in new {
            if case .dictionary(let inner) = v, inner["__type"] == nil, case .dictionary(let old)? = base[k], old["__type"] == nil {
                out[k] = .dictionary(overlay(old, with: inner))
            } else {
                out[k] = v
            }
        }
        return out
    }

    /// `encoded` plus what `original` has that it lacks (recursively in plain objects),
    /// except at paths the model wrote as `nil`.
    static func fill(
        _ encoded: OrderedDictionary<String, PFValue>, from original: OrderedDictionary<String, PFValue>,
        skipping nilPaths: [PFKeyPath], at path: PFKeyPath
    ) -> OrderedDictionary<String, PFValue> {
        var out = encoded
        for (k, v) in original {
            let here = path.appending(key: k)
            if nilPaths.contains(here) { continue }
            if let mine = out[k] {
                if case .dictionary(let a) = mine, a["__type"] == nil, case .dictionary(let b) = v, b["__type"] == nil {
                    out[k] = .dictionary(fill(a, from: b, skipping: nilPaths, at: here))
                }
            } else {
                out[k] = v
            }
        }
        return out
    }
}
