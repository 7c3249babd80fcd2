import PFCore

/// Checks whether a schema change keeps archives readable, in the manner of Avro's
/// `SchemaCompatibility` and schema-registry modes.
///
/// - **backward**: the new build reads archives the old build wrote (old archives run the
///   new schema's migration steps, then resolve against its fields).
/// - **forward**: the old build reads archives the new build writes (best-effort, by name,
///   with no knowledge of the new steps).
/// - **full**: both.
public enum SchemaCompatibility {
    /// Which direction to check.
    public enum Mode: String, Sendable, CaseIterable {
        case backward, forward, full
    }

    /// One breaking change.
    public struct Issue: Sendable, Equatable, CustomStringConvertible {
        /// The direction it breaks.
        public var direction: Mode
        /// The type concerned.
        public var typeName: String
        /// The field concerned, if any.
        public var field: String?
        /// What breaks and why.
        public var message: String

        public var description: String {
            "\(direction.rawValue): \(typeName)\(field.map { ".\($0)" } ?? ""): \(message)"
        }
    }

    /// Every breaking change from `old` to `new` in a mode.
    /// - Parameters:
    ///   - old: the released schema.
    ///   - new: the proposed schema.
    ///   - mode: backward (default), forward or full.
    /// - Returns: the breaking changes; empty when compatible.
    public static func check(old: ArchiveSchema, new: ArchiveSchema, mode: Mode = .backward) -> [Issue] {
        var issues: [Issue] = []
        if mode != .forward { issues += backward(old: old, new: new) }
        if mode != .backward { issues += forward(old: old, new: new) }
        return issues
    }

    // MARK: - Directions

    static func backward(old: ArchiveSchema, new: ArchiveSchema) -> [Issue] {
        var issues: [Issue] = []
        for writer in old.types.values {
            guard let reader = new.type(forClassName: writer.name) else {
                issues.append(Issue(direction: .backward, typeName: writer.name, message: "was removed; archives holding it no longer decode (keep the type, or list its name in another type's aliases)"))
                continue
            }
            if reader.version < writer.version {
                issues.append(Issue(direction: .backward, typeName: reader.name, message: "version went down from v\(writer.version) to v\(reader.version); versions must only grow"))
                continue
            }
            if reader.version == writer.version, reader.fields != writer.fields {
                issues.append(Issue(direction: .backward, typeName: reader.name, message: "fields changed but the version stayed v\(reader.version); bump it and add a migration step"))
            }
            for (name, message) in readProblems(reader: reader, writer: writer, runSteps: true) {
                issues.append(Issue(direction: .backward, typeName: reader.name, field: name, message: message))
            }
        }
        return issues
    }

    static func forward(old: ArchiveSchema, new: ArchiveSchema) -> [Issue] {
        var issues: [Issue] = []
        for reader in old.types.values {
            guard let writer = new.type(forClassName: reader.name) ?? new.types.values.first(where: { reader.aliases.contains($0.name) }) else {
                continue  // the new build no longer writes it: nothing new for old builds to read
            }
            if old.policies.newerVersions == .reject, writer.version > reader.version {
                issues.append(Issue(direction: .forward, typeName: reader.name, message: "old builds reject newer versions (newerVersions: reject), and v\(writer.version) is newer than v\(reader.version)"))
                continue
            }
            if writer.name != reader.name, !reader.aliases.contains(writer.name) {
                issues.append(Issue(direction: .forward, typeName: reader.name, message: "the new build writes it as \(writer.name), a class name old builds do not know"))
            }
            for (name, message) in readProblems(reader: reader, writer: writer, runSteps: false) {
                issues.append(Issue(direction: .forward, typeName: reader.name, field: name, message: message))
            }
        }
        return issues
    }

    // MARK: - Field resolution, symbolically

    /// What would fail when `reader` reads an object `writer` wrote.
    static func readProblems(reader: TypeSchema, writer: TypeSchema, runSteps: Bool) -> [(String?, String)] {
        var problems: [(String?, String)] = []
        var fields: [String: FieldType] = [:]
        var order: [String] = []
        for field in writer.fields {
            fields[field.name] = field.optional ? .any : field.type
            order.append(field.name)
        }
        var optionalWriterFields = Set(writer.fields.filter(\.optional).map(\.name))
        if runSteps, writer.version < reader.version {
            for version in writer.version..<reader.version {
                guard let step = reader.step(from: version) else { continue }
                for op in step.ops {
                    switch op {
                    case .renameField(let from, let to):
                        if let type = fields.removeValue(forKey: from) { fields[to] = type }
                        if optionalWriterFields.remove(from) != nil { optionalWriterFields.insert(to) }
                    case .addField(let name, _):
                        if fields[name] == nil { fields[name] = reader.fields.first { $0.name == name }?.type ?? .any }
                    case .removeField(let name):
                        fields.removeValue(forKey: name)
                    case .renameClass:
                        break
                    case .changeType(let field, let from, let to):
                        if let current = fields[field], current != .any, current != from, !current.promotes(to: from) {
                            problems.append((field, "step v\(version) changes it from \(from), but the archive holds \(current)"))
                        }
                        if fields[field] != nil { fields[field] = to }
                    case .mapValues(let field, let into, _, _), .transform(let field, _, let into):
                        if fields.removeValue(forKey: field) != nil {
                            let target = into ?? field
                            fields[target] = reader.fields.first { $0.name == target }?.type ?? .any
                        }
                    case .transformObject:
                        // Opaque: assume it produces the reader's fields.
                        for field in reader.fields { fields[field.name] = field.type }
                    }
                }
            }
        }
        for field in reader.fields {
            let found = ([field.name] + field.aliases).first { fields[$0] != nil }
            guard let name = found, let writerType = fields[name] else {
                if field.defaultValue == nil, !field.optional {
                    problems.append((field.name, "\(writer.name) v\(writer.version) archives lack it and it has no default; add a default or make it optional"))
                }
                continue
            }
            if optionalWriterFields.contains(name), !field.optional, field.defaultValue == nil {
                problems.append((field.name, "\(writer.name) v\(writer.version) may leave it out (optional there) but the reader requires it"))
            }
            if let problem = typeProblem(writer: writerType, reader: field) {
                problems.append((field.name, problem))
            }
        }
        return problems
    }

    static func typeProblem(writer: FieldType, reader field: FieldSchema) -> String? {
        let reader = field.type
        if writer == .any || writer.promotes(to: reader) { return nil }
        switch (writer, reader) {
        case (.int64, .int32):
            return "narrowing int64 → int32 fails for values outside int32's range"
        case (.enumeration(let old), .enumeration(let new)):
            let missing = old.filter { !new.contains($0) }
            return field.unknownDefault == nil ? "symbols \(missing.joined(separator: ", ")) were removed and there is no unknownDefault" : nil
        case (.string, .enumeration):
            return field.unknownDefault == nil ? "a string read as an enum fails for values outside the symbols; add an unknownDefault" : nil
        case (.reference(let a), .reference(let b)) where a == b:
            return nil
        default:
            return "type changed from \(writer) to \(reader), which is not a promotion; add a changeType or transform step"
        }
    }
}
