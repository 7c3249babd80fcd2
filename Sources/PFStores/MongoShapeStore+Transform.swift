import Foundation
import OrderedCollections
import PFCore
import PFParse

/// parse-server's MongoDB storage shape (`MongoTransform.js`, `MongoSchemaCollection.js`):
/// how a ``ParseObject`` becomes one document of its collection and back.
///
/// Documents are Extended JSON trees (see ``MongoExtendedJSON``): ``encode(_:)`` gives the tree
/// a writer serializes; ``decode(_:className:fields:addRelationFields:)`` reads the BSON-like
/// tree ``MongoExtendedJSON/decode(_:)`` makes of a line. `Docs/Stores.md` lists every mapping.
public enum MongoDocument {
    /// `_User` internals: the Mongo key and the field a ``ParseObject`` carries it in.
    /// `_hashed_password` is the Parse export's `bcryptPassword`.
    public static let userInternalKeys: [(mongo: String, field: String)] = [
        ("_hashed_password", "bcryptPassword"),
        ("_email_verify_token", "emailVerifyToken"),
        ("_email_verify_token_expires_at", "emailVerifyTokenExpiresAt"),
        ("_perishable_token", "perishableToken"),
        ("_perishable_token_expires_at", "perishableTokenExpiresAt"),
        ("_failed_login_count", "failedLoginCount"),
        ("_account_lockout_expires_at", "accountLockoutExpiresAt"),
        ("_password_changed_at", "passwordChangedAt"),
        ("_password_history", "passwordHistory"),
        ("_tombstone", "tombstone"),
    ]

    static let fieldForMongoKey: [String: String] = {
        var map = Dictionary(uniqueKeysWithValues: userInternalKeys.map { ($0.mongo, $0.field) })
        map["_session_token"] = "sessionToken"
        // Legacy spellings parse-server still reads.
        map["_last_used"] = "lastUsed"
        map["_expiresAt"] = "expiresAt"
        return map
    }()

    static let mongoKeyForUserField: [String: String] = Dictionary(
        uniqueKeysWithValues: userInternalKeys.map { ($0.field, $0.mongo) })

    typealias Failure = MongoExtendedJSON.Failure

    // MARK: - Object → document

    /// The document parse-server would store for an object.
    /// - Parameter object: the object.
    /// - Returns: the Extended JSON tree of the document (`_id` first; no `_id` when the object
    ///   has no objectId, so `mongoimport` assigns one).
    /// - Throws: ``MongoExtendedJSON/Failure`` for a value Mongo cannot hold (a date beyond
    ///   64-bit milliseconds, a nested key with `$` or `.`).
    public static func encode(_ object: ParseObject) throws(MongoExtendedJSON.Failure) -> PFValue {
        var doc = OrderedDictionary<String, PFValue>()
        doc.reserveCapacity(object.fields.count + 6)
        if let id = object.objectId { doc["_id"] = .string(id) }
        let isUser = object.className == "_User"
        for (key, value) in object.fields {
            let path = PFCodingPath.root.appending(key: key)
            if key == "sessionToken" {
                doc["_session_token"] = try interior(value, path: path)
                continue
            }
            if isUser {
                if let mongoKey = mongoKeyForUserField[key] {
                    doc[mongoKey] = try interior(value, path: path)
                    continue
                }
                if key == "authData", case .object(let providers) = value,
                    providers.keys.allSatisfy({ ParseRules.matchesProviderName($0) })
                {
                    for (provider, data) in providers {
                        doc["_auth_data_" + provider] = try interior(data, path: path.appending(key: provider))
                    }
                    continue
                }
            }
            switch value {
            case .pointer(let p):
                doc["_p_" + key] = .string(p.className + "$" + p.objectId)
            case .relation:
                continue  // kept in _Join:<key>:<Class> and _SCHEMA, never on the object
            case .file(let f):
                doc[key] = .string(f.name)
            case .geoPoint(let g):
                doc[key] = .array([MongoExtendedJSON.wrap(double: g.longitude), MongoExtendedJSON.wrap(double: g.latitude)])
            case .polygon(let p):
                var ring = p.coordinates
                if let first = ring.first, let last = ring.last, first != last { ring.append(first) }
                let coordinates = PFValue.array(ring.map {
                    .array([MongoExtendedJSON.wrap(double: $0.longitude), MongoExtendedJSON.wrap(double: $0.latitude)])
                })
                doc[key] = .dictionary(["type": "Polygon", "coordinates": .array([coordinates])])
            default:
                doc[key] = try interior(value, path: path)
            }
        }
        if let acl = object.acl {
            var rperm: [PFValue] = []
            var wperm: [PFValue] = []
            var legacy = OrderedDictionary<String, PFValue>()
            for (key, access) in acl.entries {
                if access.read { rperm.append(.string(key)) }
                if access.write { wperm.append(.string(key)) }
                var flags = OrderedDictionary<String, PFValue>()
                if access.write { flags["w"] = true }
                if access.read { flags["r"] = true }
                legacy[key] = .dictionary(flags)
            }
            doc["_rperm"] = .array(rperm)
            doc["_wperm"] = .array(wperm)
            doc["_acl"] = .dictionary(legacy)
        }
        if let created = object.createdAt { doc["_created_at"] = try date(created, path: .root.appending(key: "createdAt")) }
        if let updated = object.updatedAt { doc["_updated_at"] = try date(updated, path: .root.appending(key: "updatedAt")) }
        return .dictionary(doc)
    }

    private static func date(_ date: Date, path: PFCodingPath) throws(Failure) -> PFValue {
        guard let wrapped = MongoExtendedJSON.wrap(date: date) else {
            throw Failure(message: "the date \(date.timeIntervalSince1970)s since 1970 does not fit BSON's 64-bit milliseconds", path: path.keyPath)
        }
        return wrapped
    }

    /// A value inside an array or object (or a top-level value without a special Mongo form):
    /// Dates and Bytes become BSON values, everything else keeps Parse's REST form, as
    /// parse-server's `transformInteriorValue` does.
    static func interior(_ value: ParseValue, path: PFCodingPath) throws(Failure) -> PFValue {
        switch value {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .double(let d): return MongoExtendedJSON.wrap(double: d)
        case .string(let s): return .string(s)
        case .date(let d): return try date(d, path: path)
        case .bytes(let data): return MongoExtendedJSON.wrap(data: data)
        case .array(let items):
            var out: [PFValue] = []
            out.reserveCapacity(items.count)
            for (i, item) in items.enumerated() { out.append(try interior(item, path: path.appending(index: i))) }
            return .array(out)
        case .object(let members):
            var out = OrderedDictionary<String, PFValue>()
            out.reserveCapacity(members.count)
            for (key, member) in members {
                if let problem = ParseRules.nestedKeyProblem(key) {
                    throw Failure(message: problem + "; MongoDB cannot store it", path: path.appending(key: key).keyPath)
                }
                out[key] = try interior(member, path: path.appending(key: key))
            }
            return .dictionary(out)
        case .embedded(let object):
            var out: OrderedDictionary<String, PFValue> = ["__type": "Object", "className": .string(object.className)]
            if let id = object.objectId { out["objectId"] = .string(id) }
            if let c = object.createdAt, let iso = ParseDate.string(from: c) { out["createdAt"] = .string(iso) }
            if let u = object.updatedAt, let iso = ParseDate.string(from: u) { out["updatedAt"] = .string(iso) }
            if let acl = object.acl { out["ACL"] = acl.restValue }
            for (key, member) in object.fields { out[key] = try interior(member, path: path.appending(key: key)) }
            return .dictionary(out)
        case .pointer, .relation, .file, .geoPoint, .polygon:
            // REST form; GeoPoint coordinates may be non-finite only in memory, never in JSON.
            return value.restValue
        }
    }

    // MARK: - Document → object

    /// Reads a document of a class's collection back into an object, as parse-server's
    /// `mongoObjectToParseObject` and `untransformObjectACL` do.
    /// - Parameters:
    ///   - document: the BSON-like tree of one line (``MongoExtendedJSON/decode(_:)``).
    ///   - className: the collection's class.
    ///   - fields: the class's schema fields (File, GeoPoint, Polygon and Bytes columns are
    ///     told by it), or `nil` when the store has no `_SCHEMA`.
    ///   - addRelationFields: whether every Relation field of the schema is added to the
    ///     object as `{"__type":"Relation"}`, as parse-server's REST answers have it.
    /// - Returns: the object.
    /// - Throws: ``MongoExtendedJSON/Failure`` naming the key for anything not in the shape.
    public static func decode(
        _ document: PFValue, className: String, fields schemaFields: OrderedDictionary<String, ParseSchema.Field>?,
        addRelationFields: Bool = true
    ) throws(MongoExtendedJSON.Failure) -> ParseObject {
        guard case .dictionary(let doc) = document else {
            throw Failure(message: "a document must be a JSON object", path: .root)
        }
        var objectId: String?
        var createdAt: Date?
        var updatedAt: Date?
        var rperm: [String]?
        var wperm: [String]?
        var legacyACL: OrderedDictionary<String, PFValue>?
        var fields = OrderedDictionary<String, ParseValue>()
        fields.reserveCapacity(doc.count)
        var authData = OrderedDictionary<String, ParseValue>()
        for (key, value) in doc {
            let path = PFCodingPath.root.appending(key: key)
            func fail(_ message: String) -> Failure { Failure(message: message, path: path.keyPath) }
            switch key {
            case "_id":
                switch value {
                case .string(let s): objectId = s
                case .int(let i): objectId = String(i)
                default: throw fail("_id must be a string (the objectId) or an ObjectId")
                }
            case "_created_at", "_updated_at", "createdAt", "updatedAt":
                let date: Date
                switch value {
                case .date(let d): date = d
                case .string(let s):
                    guard let d = ParseDate.date(from: s) else { throw fail("\(key) must be a date; expected {\"$date\":…}") }
                    date = d
                default: throw fail("\(key) must be a date; expected {\"$date\":…}")
                }
                if key.hasSuffix("created_at") || key == "createdAt" { createdAt = date } else { updatedAt = date }
            case "_rperm", "_wperm":
                guard case .array(let items) = value else { throw fail("\(key) must be an array of user ids, '*' or 'role:<Name>'") }
                var ids: [String] = []
                for (i, item) in items.enumerated() {
                    guard case .string(let s) = item, !s.isEmpty else {
                        throw Failure(message: "\(key) entries must be non-empty strings", path: path.appending(index: i).keyPath)
                    }
                    ids.append(s)
                }
                if key == "_rperm" { rperm = ids } else { wperm = ids }
            case "_acl":
                guard case .dictionary(let d) = value else { throw fail("_acl must be an object such as {\"<id>\":{\"r\":true,\"w\":true}}") }
                legacyACL = d
            case "__type":
                continue
            default:
                if key.hasPrefix("_p_") {
                    let field = String(key.dropFirst(3))
                    if value == .null { continue }  // parse-server drops a null pointer column
                    guard case .string(let s) = value, let dollar = s.firstIndex(of: "$") else {
                        throw fail("\(key) must be a pointer string \"<Class>$<objectId>\"")
                    }
                    let target = String(s[..<dollar])
                    let id = String(s[s.index(after: dollar)...])
                    guard ParseRules.classNameProblem(target) == nil, !id.isEmpty else {
                        throw fail("\(key) must be a pointer string \"<Class>$<objectId>\" with a valid class and a non-empty id, not \"\(s)\"")
                    }
                    fields[field] = .pointer(ParsePointer(className: target, objectId: id))
                } else if key.hasPrefix("_auth_data_") {
                    let provider = String(key.dropFirst(11))
                    guard ParseRules.matchesProviderName(provider) else { throw fail("\(key) names no auth provider") }
                    authData[provider] = try parse(value, path: path)
                } else if let field = fieldForMongoKey[key] {
                    fields[field] = try parse(value, path: path)
                } else if key.hasPrefix("_") {
                    throw fail("unknown internal key '\(key)'; parse-server cannot read it either (expected _id, _created_at, _updated_at, _p_<field>, _rperm, _wperm, _acl, _auth_data_<provider> or a _User internal)")
                } else {
                    fields[key] = try top(value, type: schemaFields?[key]?.type, path: path)
                }
            }
        }
        if !authData.isEmpty {
            if case .object(let existing)? = fields["authData"] {
                var merged = existing
                for (k, v) in authData { merged[k] = v }
                fields["authData"] = .object(merged)
            } else {
                fields["authData"] = .object(authData)
            }
        }
        if addRelationFields, let schemaFields {
            for (name, field) in schemaFields where field.type == "Relation" && fields[name] == nil {
                if let target = field.targetClass { fields[name] = .relation(className: target) }
            }
        }
        let acl = try acl(rperm: rperm, wperm: wperm, legacy: legacyACL)
        do {
            return try ParseObject(
                className: className, objectId: objectId, createdAt: createdAt, updatedAt: updatedAt, acl: acl, fields: fields)
        } catch {
            throw Failure(message: error.message, path: error.path ?? .root)
        }
    }

    /// The ACL from `_rperm`/`_wperm` (parse-server's source of truth), in the key order of
    /// `_acl` when `_acl` agrees with them; from `_acl` alone for legacy documents.
    static func acl(rperm: [String]?, wperm: [String]?, legacy: OrderedDictionary<String, PFValue>?) throws(Failure) -> ParseACL? {
        var fromLegacy: OrderedDictionary<String, ParseACL.Access>?
        if let legacy {
            var entries = OrderedDictionary<String, ParseACL.Access>()
            for (key, flags) in legacy {
                let path = PFKeyPath.root.appending(key: "_acl").appending(key: key)
                guard case .dictionary(let f) = flags, f.keys.allSatisfy({ $0 == "r" || $0 == "w" }) else {
                    throw Failure(message: "_acl entries must be {\"r\":true,\"w\":true}", path: path)
                }
                entries[key] = ParseACL.Access(read: f["r"] == .bool(true), write: f["w"] == .bool(true))
            }
            fromLegacy = entries
        }
        guard rperm != nil || wperm != nil else { return fromLegacy.map { ParseACL($0) } }
        // parse-server's order: read entries first, then write-only ones.
        var entries = OrderedDictionary<String, ParseACL.Access>()
        for id in rperm ?? [] { entries[id, default: ParseACL.Access()].read = true }
        for id in wperm ?? [] { entries[id, default: ParseACL.Access()].write = true }
        if let fromLegacy {
            let agreeing = fromLegacy.filter { $0.value.read || $0.value.write }
            if agreeing.count == entries.count, agreeing.allSatisfy({ entries[$0.key] == $0.value }) {
                return ParseACL(fromLegacy)
            }
        }
        return ParseACL(entries)
    }

    /// A top-level field value: File, GeoPoint, Polygon and Bytes columns have their own
    /// Mongo forms, told by the schema type.
    static func top(_ value: PFValue, type: String?, path: PFCodingPath) throws(Failure) -> ParseValue {
        switch (type, value) {
        case ("File", .string(let name)):
            return .file(ParseFile(name: name))
        case ("GeoPoint", .array(let pair)) where pair.count == 2:
            if let lng = pair[0].doubleValue, let lat = pair[1].doubleValue {
                return .geoPoint(ParseGeoPoint(latitude: lat, longitude: lng))
            }
        case ("Polygon", .dictionary(let d)):
            if d["type"] == .string("Polygon"), case .array(let rings)? = d["coordinates"], case .array(var ring)? = rings.first {
                if ring.count > 3, ring.first == ring.last { ring.removeLast() }
                var points: [ParseGeoPoint] = []
                for item in ring {
                    guard case .array(let pair) = item, pair.count == 2, let lng = pair[0].doubleValue,
                        let lat = pair[1].doubleValue
                    else { points = []; break }
                    points.append(ParseGeoPoint(latitude: lat, longitude: lng))
                }
                if !points.isEmpty { return .polygon(ParsePolygon(coordinates: points)) }
            }
        case ("Bytes", .string(let text)):
            if let data = PFBase64.decode(text, ignoringWhitespace: false) { return .bytes(data) }
        default: break
        }
        return try parse(value, path: path)
    }

    /// An interior value: BSON dates and binary become Date and Bytes, `{"__type":…}`
    /// objects Parse's types.
    static func parse(_ value: PFValue, path: PFCodingPath) throws(Failure) -> ParseValue {
        do {
            return try ParseValue(rest: value)
        } catch {
            let inner = error.path?.components ?? []
            throw Failure(message: error.message, path: PFKeyPath(path.keyPath.components + inner))
        }
    }
}

extension ParseRules {
    /// Whether a name is an auth provider name parse-server accepts in `_auth_data_<provider>`:
    /// `[A-Za-z0-9_]+`.
    static func matchesProviderName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { b in
            (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x5F
        }
    }
}
