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

    /// An error about the current value; the caller puts its key path in front as the error
    /// unwinds (``PFCore/PFError/prefixed(_:)``).
    static func fail(_ failure: Failure) -> PFError { PFError(failure, format: MongoShapeStore.format, path: .root) }

    // MARK: - Object → document

    /// The document parse-server would store for an object.
    /// - Parameter object: the object.
    /// - Returns: the Extended JSON tree of the document (`_id` first; no `_id` when the object
    ///   has no objectId, so `mongoimport` assigns one).
    /// - Throws: ``PFCore/PFError`` with a ``MongoExtendedJSON/Failure`` case and the key path,
    ///   for a value Mongo cannot hold (a date beyond 64-bit milliseconds, a nested key with
    ///   `$` or `.`).
    public static func encode(_ object: ParseObject) throws(PFError) -> PFValue {
        var doc = OrderedDictionary<String, PFValue>()
        doc.reserveCapacity(object.fields.count + 6)
        if let id = object.objectId { doc["_id"] = .string(id) }
        let isUser = object.className == "_User"
        for (key, value) in object.fields {
            do throws(PFError) {
                if key == "sessionToken" {
                    doc["_session_token"] = try interior(value)
                    continue
                }
                if isUser {
                    if let mongoKey = mongoKeyForUserField[key] {
                        doc[mongoKey] = try interior(value)
                        continue
                    }
                    if key == "authData", case .object(let providers) = value,
                        providers.keys.allSatisfy({ ParseRules.matchesProviderName($0) })
                    {
                        for (provider, data) in providers {
                            do throws(PFError) {
                                doc["_auth_data_" + provider] = try interior(data)
                            } catch { throw error.prefixed(.key(provider)) }
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
                    doc[key] = try interior(value)
                }
            } catch { throw error.prefixed(.key(key)) }
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
        do throws(PFError) {
            if let created = object.createdAt { doc["_created_at"] = try date(created) }
        } catch { throw error.prefixed(.key("createdAt")) }
        do throws(PFError) {
            if let updated = object.updatedAt { doc["_updated_at"] = try date(updated) }
        } catch { throw error.prefixed(.key("updatedAt")) }
        return .dictionary(doc)
    }

    private static func date(_ date: Date) throws(PFError) -> PFValue {
        guard let wrapped = MongoExtendedJSON.wrap(date: date) else { throw fail(.dateBeyondMilliseconds(date.timeIntervalSince1970)) }
        return wrapped
    }

    /// A value inside an array or object (or a top-level value without a special Mongo form):
    /// Dates and Bytes become BSON values, everything else keeps Parse's REST form, as
    /// parse-server's `transformInteriorValue` does.
    static func interior(_ value: ParseValue) throws(PFError) -> PFValue {
        switch value {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .double(let d): return MongoExtendedJSON.wrap(double: d)
        case .string(let s): return .string(s)
        case .date(let d): return try date(d)
        case .bytes(let data): return MongoExtendedJSON.wrap(data: data)
        case .array(let items):
            var out: [PFValue] = []
            out.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                do throws(PFError) { out.append(try interior(item)) } catch { throw error.prefixed(.index(i)) }
            }
            return .array(out)
        case .object(let members):
            var out = OrderedDictionary<String, PFValue>()
            out.reserveCapacity(members.count)
            for (key, member) in members {
                if ParseRules.nestedKeyProblem(key) != nil { throw fail(.reservedNestedKey(key)).prefixed(.key(key)) }
                do throws(PFError) { out[key] = try interior(member) } catch { throw error.prefixed(.key(key)) }
            }
            return .dictionary(out)
        case .embedded(let object):
            var out: OrderedDictionary<String, PFValue> = ["__type": "Object", "className": .string(object.className)]
            if let id = object.objectId { out["objectId"] = .string(id) }
            if let c = object.createdAt, let iso = ParseDate.string(from: c) { out["createdAt"] = .string(iso) }
            if let u = object.updatedAt, let iso = ParseDate.string(from: u) { out["updatedAt"] = .string(iso) }
            if let acl = object.acl { out["ACL"] = acl.restValue }
            for (key, member) in object.fields {
                do throws(PFError) { out[key] = try interior(member) } catch { throw error.prefixed(.key(key)) }
            }
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
    /// - Throws: ``PFCore/PFError`` with a ``MongoExtendedJSON/Failure`` case and the key path
    ///   for anything not in the shape (or Parse's failure for a value Parse refuses).
    public static func decode(
        _ document: PFValue, className: String, fields schemaFields: OrderedDictionary<String, ParseSchema.Field>?,
        addRelationFields: Bool = true
    ) throws(PFError) -> ParseObject {
        guard case .dictionary(let doc) = document else { throw fail(.notAnObject) }
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
            do throws(PFError) {
                switch key {
                case "_id":
                    switch value {
                    case .string(let s): objectId = s
                    case .int(let i): objectId = String(i)
                    default: throw fail(.badId)
                    }
                case "_created_at", "_updated_at", "createdAt", "updatedAt":
                    let date: Date
                    switch value {
                    case .date(let d): date = d
                    case .string(let s):
                        guard let d = ParseDate.date(from: s) else { throw fail(.notADate(key: key)) }
                        date = d
                    default: throw fail(.notADate(key: key))
                    }
                    if key.hasSuffix("created_at") || key == "createdAt" { createdAt = date } else { updatedAt = date }
                case "_rperm", "_wperm":
                    guard case .array(let items) = value else { throw fail(.permissionsNotArray(key: key)) }
                    var ids: [String] = []
                    for (i, item) in items.enumerated() {
                        guard case .string(let s) = item, !s.isEmpty else {
                            throw fail(.permissionEntry(key: key)).prefixed(.index(i))
                        }
                        ids.append(s)
                    }
                    if key == "_rperm" { rperm = ids } else { wperm = ids }
                case "_acl":
                    guard case .dictionary(let d) = value else { throw fail(.aclNotObject) }
                    legacyACL = d
                case "__type":
                    continue
                default:
                    if key.hasPrefix("_p_") {
                        let field = String(key.dropFirst(3))
                        if value == .null { continue }  // parse-server drops a null pointer column
                        guard case .string(let s) = value, let dollar = s.firstIndex(of: "$") else {
                            throw fail(.badPointer(key: key, text: nil))
                        }
                        let target = String(s[..<dollar])
                        let id = String(s[s.index(after: dollar)...])
                        guard ParseRules.classNameProblem(target) == nil, !id.isEmpty else {
                            throw fail(.badPointer(key: key, text: s))
                        }
                        fields[field] = .pointer(ParsePointer(className: target, objectId: id))
                    } else if key.hasPrefix("_auth_data_") {
                        let provider = String(key.dropFirst(11))
                        guard ParseRules.matchesProviderName(provider) else { throw fail(.unknownAuthProvider(key: key)) }
                        authData[provider] = try ParseValue(rest: value)
                    } else if let field = fieldForMongoKey[key] {
                        fields[field] = try ParseValue(rest: value)
                    } else if key.hasPrefix("_") {
                        throw fail(.unknownInternalKey(key))
                    } else {
                        fields[key] = try top(value, type: schemaFields?[key]?.type)
                    }
                }
            } catch { throw error.prefixed(.key(key)) }
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
            for (name, field) in schemaFields where field.type == .relation && fields[name] == nil {
                if let target = field.targetClass { fields[name] = .relation(className: target) }
            }
        }
        let acl = try acl(rperm: rperm, wperm: wperm, legacy: legacyACL)
        return try ParseObject(
            className: className, objectId: objectId, createdAt: createdAt, updatedAt: updatedAt, acl: acl, fields: fields)
    }

    /// The ACL from `_rperm`/`_wperm` (parse-server's source of truth), in the key order of
    /// `_acl` when `_acl` agrees with them; from `_acl` alone for legacy documents.
    static func acl(rperm: [String]?, wperm: [String]?, legacy: OrderedDictionary<String, PFValue>?) throws(PFError) -> ParseACL? {
        var fromLegacy: OrderedDictionary<String, ParseACL.Access>?
        if let legacy {
            var entries = OrderedDictionary<String, ParseACL.Access>()
            for (key, flags) in legacy {
                guard case .dictionary(let f) = flags, f.keys.allSatisfy({ $0 == "r" || $0 == "w" }) else {
                    throw fail(.aclEntry).prefixed(.key(key)).prefixed(.key("_acl"))
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
    static func top(_ value: PFValue, type: ParseFieldType?) throws(PFError) -> ParseValue {
        switch (type, value) {
        case (.file?, .string(let name)):
            return .file(ParseFile(name: name))
        case (.geoPoint?, .array(let pair)) where pair.count == 2:
            if let lng = pair[0].doubleValue, let lat = pair[1].doubleValue {
                return .geoPoint(ParseGeoPoint(latitude: lat, longitude: lng))
            }
        case (.polygon?, .dictionary(let d)):
            // GeoJSON's type name, not Parse's.
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
        case (.bytes?, .string(let text)):
            if let data = PFBase64.decode(text, ignoringWhitespace: false) { return .bytes(data) }
        default: break
        }
        // An interior value: BSON dates and binary are Date and Bytes already, `{"__type":…}`
        // objects Parse's types.
        return try ParseValue(rest: value)
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
