import OrderedCollections
import PFCore

/// An access control list: who may read and write an object.
///
/// REST form: `{"<userId>":{"read":true,"write":true},"*":{"read":true},"role:Admins":{"write":true}}`.
/// Keys are a user's objectId, `*` (everyone) or `role:<RoleName>`; only `true` permissions are
/// written, as Parse does. An empty ACL `{}` (nobody but the master key) is valid.
public struct ParseACL: Sendable, Equatable, Codable {
    /// The permissions of one entry.
    public struct Access: Sendable, Equatable, Codable {
        /// May read.
        public var read: Bool
        /// May write.
        public var write: Bool

        /// Makes permissions.
        /// - Parameters:
        ///   - read: may read.
        ///   - write: may write.
        public init(read: Bool = false, write: Bool = false) {
            self.read = read
            self.write = write
        }

        private enum CodingKeys: String, CodingKey { case read, write }

        /// Decodes `{"read":true,"write":true}`; a missing permission is `false`.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            read = try c.decodeIfPresent(Bool.self, forKey: .read) ?? false
            write = try c.decodeIfPresent(Bool.self, forKey: .write) ?? false
        }

        /// Encodes only the `true` permissions, as Parse does.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            if read { try c.encode(true, forKey: .read) }
            if write { try c.encode(true, forKey: .write) }
        }
    }

    /// The key of the public entry.
    public static let publicKey = "*"

    /// The entries in order: user ids, `*` and `role:<Name>` keys.
    public private(set) var entries: OrderedDictionary<String, Access>

    /// An empty ACL.
    public init() { entries = [:] }

    /// An ACL from entries.
    /// - Parameter entries: key → permissions.
    public init(_ entries: OrderedDictionary<String, Access>) { self.entries = entries }

    // MARK: - Editing

    /// Sets the permissions of a user, `*`, or `role:<Name>` key.
    /// - Parameters:
    ///   - access: the permissions; an entry with neither is removed.
    ///   - key: the key.
    public mutating func set(_ access: Access, for key: String) {
        if access.read || access.write { entries[key] = access } else { entries[key] = nil }
    }

    /// Sets the public (`*`) permissions.
    /// - Parameter access: the permissions.
    public mutating func setPublic(_ access: Access) { set(access, for: ParseACL.publicKey) }

    /// Sets a role's permissions (key `role:<name>`).
    /// - Parameters:
    ///   - access: the permissions.
    ///   - roleName: the role's name.
    public mutating func set(_ access: Access, forRole roleName: String) { set(access, for: "role:" + roleName) }

    /// The permissions of a key (no permissions when absent).
    /// - Parameter key: a user id, `*` or `role:<Name>`.
    /// - Returns: the permissions.
    public func access(for key: String) -> Access { entries[key] ?? Access() }

    // MARK: - REST

    /// Reads an ACL from its REST form.
    /// - Parameter rest: the JSON value.
    /// - Throws: ``PFError`` with Parse code 123 (InvalidACL) when it is not an object of
    ///   `{"read":Bool,"write":Bool}` objects, or a key is empty or a `role:` key has no name.
    public init(rest: PFValue) throws(PFError) {
        try self.init(rest: rest, path: .root, context: .none)
    }

    package init<Input: ParseRESTInput>(rest: Input, path: @autoclosure () -> PFCodingPath, context: ParseContext) throws(PFError) {
        guard case .dictionary = rest.restCase else {
            throw PFError(
                parse: ParseFailure.aclNotObject(found: ParseFailure.describe(rest)),
                path: path(), context: context)
        }
        var entries = OrderedDictionary<String, Access>()
        try rest.forEachRESTMember { (key: String, value: Input) throws(PFError) in
            // Built only for errors (an allocation per entry otherwise).
            func here() -> PFCodingPath { path().appending(key: key) }
            if key.isEmpty || key == "role:" {
                throw PFError(parse: ParseFailure.aclEmptyKey(key), path: here(), context: context)
            }
            guard case .dictionary = value.restCase else {
                throw PFError(
                    parse: ParseFailure.aclEntryNotObject(key: key, found: ParseFailure.describe(value)),
                    path: here(), context: context)
            }
            var access = Access()
            try value.forEachRESTMember { (name: String, flag: Input) throws(PFError) in
                guard name == "read" || name == "write" else {
                    throw PFError(
                        parse: ParseFailure.aclUnknownPermission(key: key, permission: name),
                        path: here().appending(key: name), context: context)
                }
                guard case .bool(let b) = flag.restCase else {
                    throw PFError(
                        parse: ParseFailure.aclPermissionNotBoolean(key: key, permission: name, found: ParseFailure.describe(flag)),
                        path: here().appending(key: name), context: context)
                }
                if name == "read" { access.read = b } else { access.write = b }
            }
            entries[key] = access
        }
        self.entries = entries
    }

    /// The REST form; only `true` permissions are written.
    public var restValue: PFValue {
        var out = OrderedDictionary<String, PFValue>()
        out.reserveCapacity(entries.count)
        for (key, access) in entries {
            var perms = OrderedDictionary<String, PFValue>()
            if access.read { perms["read"] = true }
            if access.write { perms["write"] = true }
            out[key] = .dictionary(perms)
        }
        return .dictionary(out)
    }

    // MARK: - Codable

    /// Decodes the REST form (`{"<key>":{"read":true}}`) from any decoder.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode([String: Access].self)
        var entries = OrderedDictionary<String, Access>()
        for key in raw.keys.sorted() { entries[key] = raw[key] }
        self.entries = entries
    }

    /// Encodes the REST form with any encoder.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Dictionary(uniqueKeysWithValues: entries.map { ($0.key, $0.value) }))
    }
}
