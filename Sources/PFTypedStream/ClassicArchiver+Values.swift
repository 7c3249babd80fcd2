import Foundation
import OrderedCollections
import PFCore

// MARK: - Writing the decoded-tree shape back

/// The inverse of ``TypedStream/decodeValue(_:limits:)`` for generic objects: a tree object
/// `{"$class": N, "$version": V, "$values": [{"types": "i@", "values": [...]}]}` (with
/// optional `"$classes"`/`"$versions"` and `"$id"`) is written as that class with those
/// groups, and `{"$ref": N}` / `{"$id": N, "$value": …}` keep sharing (a second object with
/// an `$id` already written is written as a reference to it), so a stream decoded to
/// a tree, edited (or migrated) and encoded again stays a stream of the same objects.
extension ClassicArchiver {
    /// Writes a dictionary of the decoded-tree shape, or returns `false` when it is a plain
    /// dictionary (written as `NSDictionary` by the caller).
    func writeTreeObject(_ members: OrderedDictionary<String, PFValue>) throws -> Bool {
        // An object whose `$id` this archiver has written with the same contents (a shared
        // object in another tree read from the same stream, which numbers `$id`s stream-wide)
        // is that object again. Trees decoded one by one number their `$id`s from 1 each, so
        // an `$id` met again with other contents is another object, written in full.
        if let id = members["$id"]?.int64Value, let number = sharedTreeIDs[id], sharedTreeValues[id] == members {
            writer.writeReference(number)
            return true
        }
        if members.count == 1, let reference = members["$ref"] {
            guard let id = reference.int64Value, let number = sharedTreeIDs[id] else {
                throw PFError(TypedStreamFailure.undefinedReference(reference.scalarDescription), format: .typedstream, path: [.key("$ref")])
            }
            writer.writeReference(number)
            return true
        }
        if members.count == 2, let inner = members["$value"], let id = members["$id"]?.int64Value, inner.isContainer {
            registerSharedTree(id, members)
            try inner.classicWrite(to: self)
            return true
        }
        if try writeTreeValue(members) { return true }
        guard case .string(let name)? = members["$class"], case .array(let groups)? = Self.metadata("$values", in: members) else { return false }
        let chain = try Self.classChain(name, members, path: [])
        if let id = members["$id"]?.int64Value { registerSharedTree(id, members) }
        try writeObject(chain: chain) { archiver in
            for (g, group) in groups.enumerated() {
                try archiver.writeTreeGroup(group, path: [.key("$values"), .index(g)])
            }
        }
        return true
    }

    /// Records that the next object written is the tree value with this `$id`, so a later
    /// `{"$ref": id}` (or the same value again) is written as a reference to it.
    func registerSharedTree(_ id: Int64, _ members: OrderedDictionary<String, PFValue>) {
        sharedTreeIDs[id] = writer.nextNumber
        sharedTreeValues[id] = members
    }

    /// Writes an `NSValue` or `NSURL` of the decoded-tree shape — `{"$class": "NSValue", "type":
    /// "{CGSize=dd}", "value": […]}`, `{"$class": "NSURL", "base": {…}, "string": "…"}`, each with
    /// an optional `$id` — as that object, or returns `false` for any other dictionary. Written
    /// as a dictionary, it would read back as the same tree but be a dictionary to every other
    /// reader.
    func writeTreeValue(_ members: OrderedDictionary<String, PFValue>) throws -> Bool {
        func only(_ keys: Set<String>) -> Bool { members.keys.allSatisfy { $0 == "$class" || $0 == "$id" || keys.contains($0) } }
        func register() {
            if let id = members["$id"]?.int64Value { registerSharedTree(id, members) }
        }
        switch members["$class"] {
        case .string("NSValue")?:
            guard case .string(let text)? = members["type"], let value = members["value"], only(["type", "value"]) else { return false }
            let type = try TypeEncoding.parse(text)
            let element = try Self.streamValue(value, as: type, path: [.key("value")])
            register()
            try ClassicValue(type: type, value: element).classicWrite(to: self)
            return true
        case .string("NSURL")?:
            guard case .string(let string)? = members["string"], only(["base", "string"]) else { return false }
            register()
            try writeObject(chain: ClassicClassVersion.nsURL) { archiver in
                if let base = members["base"] {
                    archiver.encode(true)
                    try archiver.encode(base)
                } else {
                    archiver.encode(false)
                }
                try archiver.encode(string)
            }
            return true
        default:
            return false
        }
    }

    /// A tree's metadata key (`$values`, `$classes`, `$version`, `$versions`, `$classRef`) as the reader
    /// writes it, or escaped as the keyed archive's JSON form writes every field name it does
    /// not own (`$$values`): a tree that went through that form (`pfarchive copy`, a keyed
    /// graph's JSON) is the same stream.
    static func metadata(_ key: String, in members: OrderedDictionary<String, PFValue>) -> PFValue? {
        members[key] ?? members["$" + key]
    }

    /// The class chain a tree object (`$class`) or class value (`$classRef`) named `name`
    /// gives: `"$version"` (0 when absent), and `"$classes"`/`"$versions"` when present, else
    /// the class under NSObject.
    static func classChain(_ name: String, _ members: OrderedDictionary<String, PFValue>, path: PFKeyPath) throws(PFError) -> [ClassicClassVersion] {
        let version = metadata("$version", in: members).flatMap(\.int64Value).flatMap { Int(exactly: $0) } ?? 0
        guard case .array(let names)? = metadata("$classes", in: members) else {
            return [ClassicClassVersion(name, version: version), ClassicClassVersion("NSObject")]
        }
        let versions = metadata("$versions", in: members)?.arrayValue ?? []
        var chain: [ClassicClassVersion] = []
        for (i, entry) in names.enumerated() {
            guard let className = entry.stringValue else {
                throw PFError(TypedStreamFailure.classesEntry(kind: entry.kind.rawValue), format: .typedstream, path: path.appending(key: "$classes").appending(index: i))
            }
            let recorded = i == 0 ? version : (versions.indices.contains(i) ? versions[i].int64Value.flatMap { Int(exactly: $0) } ?? 0 : 0)
            chain.append(ClassicClassVersion(className, version: recorded))
        }
        guard chain.first?.name == name else {
            throw PFError(TypedStreamFailure.classesStart(name), format: .typedstream, path: path.appending(key: "$classes"))
        }
        return chain
    }

    /// Writes one `{"types": "…", "values": […]}` group.
    func writeTreeGroup(_ group: PFValue, path: PFKeyPath) throws {
        guard let types = group["types"]?.stringValue, case .array(let values)? = group["values"] else {
            throw PFError(TypedStreamFailure.malformedGroup, format: .typedstream, path: path)
        }
        let encodings = try TypeEncoding.parseList(Array(types.utf8))
        guard encodings.count == values.count else {
            throw PFError(
                TypedStreamFailure.groupCount(types: types, typeCount: encodings.count, valueCount: values.count), format: .typedstream,
                path: path)
        }
        writer.writeEncodings(encodings)
        for (i, (encoding, value)) in zip(encodings, values).enumerated() {
            if encoding == .object {
                if value == .null { writer.writeNil() } else { try value.classicWrite(to: self) }
            } else {
                try writeValue(Self.streamValue(value, as: encoding, path: path.appending(key: "values").appending(index: i)), as: encoding)
            }
        }
    }

    /// A tree value as the stream value a type encoding expects.
    static func streamValue(_ value: PFValue, as encoding: TypeEncoding, path: PFKeyPath) throws(PFError) -> TypedStreamValue {
        func mismatch() -> PFError {
            PFError(TypedStreamFailure.valueKind(kind: value.kind.rawValue, encoding: "\(encoding)"), format: .typedstream, path: path)
        }
        switch encoding {
        case .scalar(let c):
            switch (c, value) {
            case (UInt8(ascii: "c"), .bool(let b)), (UInt8(ascii: "B"), .bool(let b)): return .bool(b)
            case (_, .int(let i)) where encoding.isSignedInteger: return .int(i)
            case (_, .int(let i)) where encoding.isUnsignedInteger:
                guard let u = UInt64(exactly: i) else { throw mismatch() }
                return .uint(u)
            case (_, .uint(let u)) where encoding.isUnsignedInteger: return .uint(u)
            case (UInt8(ascii: "f"), _):
                guard let d = value.doubleValue else { throw mismatch() }
                return .float(Float(d))
            case (UInt8(ascii: "d"), _):
                guard let d = value.doubleValue else { throw mismatch() }
                return .double(d)
            case (UInt8(ascii: "*"), .string(let s)): return .cString(Array(s.utf8))
            case (UInt8(ascii: "*"), .data(let d)): return .cString(Array(d))
            case (UInt8(ascii: "+"), .data(let d)): return .bytes(Array(d))
            case (UInt8(ascii: "+"), .string(let s)): return .bytes(Array(s.utf8))
            case (UInt8(ascii: "%"), .string(let s)): return .atom(Array(s.utf8))
            case (UInt8(ascii: ":"), .string(let s)): return .selector(Array(s.utf8))
            case (UInt8(ascii: "%"), .null): return .atom(nil)
            case (UInt8(ascii: ":"), .null): return .selector(nil)
            case (UInt8(ascii: "*"), .null), (UInt8(ascii: "+"), .null): return .null
            case (UInt8(ascii: "!"), _): return .ignored
            case (UInt8(ascii: "#"), .null): return .null
            case (UInt8(ascii: "#"), .dictionary(let members)):
                // A class value as the reader writes it: `{"$classRef": name, …}`.
                guard case .string(let name)? = metadata("$classRef", in: members) else { throw mismatch() }
                return .classChain(try classChain(name, members, path: path))
            default: throw mismatch()
            }
        case .array(let count, let element):
            if case .data(let d) = value, element == .char || element == .scalar(UInt8(ascii: "C")) {
                guard d.count == count else { throw mismatch() }
                return .byteArray(Array(d))
            }
            guard case .array(let items) = value, items.count == count else { throw mismatch() }
            var out: [TypedStreamValue] = []
            for (i, item) in items.enumerated() { out.append(try streamValue(item, as: element, path: path.appending(index: i))) }
            return .array(out)
        case .structure(let name, let fields):
            guard case .array(let items) = value, items.count == fields.count else { throw mismatch() }
            var out: [TypedStreamValue] = []
            for (i, (field, item)) in zip(fields, items).enumerated() {
                out.append(try streamValue(item, as: field, path: path.appending(index: i)))
            }
            return .structure(name: name, fields: out)
        }
    }
}
