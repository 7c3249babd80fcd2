import Foundation
import OrderedCollections
import PFCore

// MARK: - Resolution against the current fields (Avro's rules)

extension MigrationEngine {
    /// Resolves an object's fields against its type's current fields: aliases, types,
    /// defaults, unknown fields.
    mutating func resolve(_ fields: inout OrderedDictionary<String, PFValue>, context: inout ObjectContext, depth: Int)
        throws(PFError)
    {
        let type = context.type
        // 1. Field aliases: a writer's old name becomes the reader's name, in place.
        for key in Array(fields.keys) where !metadataKeys.contains(key) && !type.fields.contains(where: { $0.name == key }) {
            guard let field = type.fields.first(where: { $0.aliases.contains(key) }), fields[field.name] == nil, let value = fields[key] else {
                continue
            }
            Self.rename(key, to: field.name, value: value, in: &fields)
            record(&context, "renamed field \(key) → \(field.name) (alias)")
        }
        // 2. Reader fields: check what is there, default what is not.
        for field in type.fields {
            if let value = fields[field.name] {
                fields[field.name] = try coerceField(value, field: field, context: &context, depth: depth)
                continue
            }
            if let value = field.defaultValue {
                fields[field.name] = value
                record(&context, "added field \(field.name) = \(value.compactDescription) (default)")
            } else if !field.optional {
                try problem(
                    failure(context, field: field.name, .missingField(type: "\(field.type)")),
                    className: type.name)
            }
        }
        // 3. Writer-only fields.
        var kept = OrderedDictionary<String, PFValue>()
        for (key, value) in fields where !metadataKeys.contains(key) && !type.fields.contains(where: { $0.name == key }) {
            switch policies.unknownFields {
            case .preserve:
                kept[key] = value
            case .drop:
                fields.removeValue(forKey: key)
                record(&context, "dropped unknown field \(key)")
            case .error:
                try problem(
                    failure(context, field: key, .unknownField(type: type.name, version: type.version)),
                    className: type.name)
            }
        }
        if !kept.isEmpty {
            unknown[context.path.keyPath] = kept
            warning("unknown fields kept: \(kept.keys.joined(separator: ", "))", path: context.path, className: type.name)
        }
    }

    struct CoercionFailure: Error {
        var problem: VersioningFailure.MigrationProblem
    }

    mutating func coerce(
        _ value: PFValue, to type: FieldType, field: FieldSchema, path: PFCodingPath, depth: Int, context: inout ObjectContext
    ) throws(CoercionFailureOrPFError) -> PFValue {
        func mismatch() -> CoercionFailureOrPFError {
            .coercion(CoercionFailure(problem: .typeMismatch(expected: "\(type)", found: value.kind.rawValue, value: value.compactDescription)))
        }
        if case .dictionary(let members) = value, members.count == 1, members["$ref"] != nil { return value }
        if value == .null {
            if field.optional || type == .any { return value }
            throw .coercion(CoercionFailure(problem: .nullNotOptional(expected: "\(type)")))
        }
        switch type {
        case .any:
            return try wrap { () throws(PFError) in try visit(value, expected: nil, path: path, depth: depth) }
        case .bool:
            switch value {
            case .bool: return value
            case .int(0): return .bool(false)  // typedstream `c` booleans
            case .int(1): return .bool(true)
            default: throw mismatch()
            }
        case .int32, .int64, .double:
            switch value {
            case .int, .uint, .double:
                if case .double = value, type != .double { throw mismatch() }
                do { return try Conversion.convert(value, from: .int64, to: type) } catch { throw .coercion(CoercionFailure(problem: error.problem)) }
            default: throw mismatch()
            }
        case .string, .data:
            guard value.kind == .string || value.kind == .data else { throw mismatch() }
            do { return try Conversion.convert(value, from: value.kind == .string ? .string : .data, to: type) } catch {
                throw .coercion(CoercionFailure(problem: error.problem))
            }
        case .date:
            guard case .date = value else { throw mismatch() }
            return value
        case .enumeration(let symbols):
            guard let symbol = value.stringValue else { throw mismatch() }
            if symbols.contains(symbol) { return value }
            if let fallback = field.unknownDefault {
                record(&context, "unknown \(field.name) symbol \"\(symbol)\" read as \"\(fallback)\" (unknownDefault)")
                return .string(fallback)
            }
            throw .coercion(CoercionFailure(problem: .unknownSymbol(symbol, symbols: symbols)))
        case .reference:
            guard case .dictionary = value else { throw mismatch() }
            return try wrap { () throws(PFError) in try visit(value, expected: type, path: path, depth: depth) }
        case .array(let element):
            if case .dictionary(let members) = value, members.count == 2, let inner = members["$value"], members["$id"] != nil {
                var wrapped = members
                wrapped["$value"] = try coerce(inner, to: type, field: field, path: path.appending(key: "$value"), depth: depth + 1, context: &context)
                return .dictionary(wrapped)
            }
            guard case .array(let items) = value else { throw mismatch() }
            let elementField = FieldSchema(field.name, element, unknownDefault: field.unknownDefault)
            var out: [PFValue] = []
            out.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                out.append(try coerce(item, to: element, field: elementField, path: path.appending(index: i), depth: depth + 1, context: &context))
            }
            return .array(out)
        case .map(let valueType):
            if case .dictionary(let members) = value, members.count == 2, let inner = members["$value"], members["$id"] != nil {
                var wrapped = members
                wrapped["$value"] = try coerce(inner, to: type, field: field, path: path.appending(key: "$value"), depth: depth + 1, context: &context)
                return .dictionary(wrapped)
            }
            guard case .dictionary(let members) = value, members["$class"] == nil else { throw mismatch() }
            let valueField = FieldSchema(field.name, valueType, unknownDefault: field.unknownDefault)
            var out = members
            for (key, item) in members {
                out[key] = try coerce(item, to: valueType, field: valueField, path: path.appending(key: key), depth: depth + 1, context: &context)
            }
            return .dictionary(out)
        }
    }

    func wrap(_ body: () throws(PFError) -> PFValue) throws(CoercionFailureOrPFError) -> PFValue {
        do { return try body() } catch { throw .pf(error) }
    }
}

/// Either a coercion failure (reported against the field) or a nested error (passed on).
enum CoercionFailureOrPFError: Error {
    case coercion(MigrationEngine.CoercionFailure)
    case pf(PFError)
}

extension MigrationEngine {
    /// Checks a field's value against its declared type, promoting where Avro would.
    mutating func coerceField(_ value: PFValue, field: FieldSchema, context: inout ObjectContext, depth: Int) throws(PFError)
        -> PFValue
    {
        do {
            return try coerce(value, to: field.type, field: field, path: context.path.appending(key: field.name), depth: depth + 1, context: &context)
        } catch {
            switch error {
            case .coercion(let failure):
                try problem(self.failure(context, field: field.name, failure.problem), className: context.type.name)
                return value
            case .pf(let inner):
                throw inner
            }
        }
    }
}

/// Checks on values outside a migration (schema defaults).
enum Resolver {
    /// Why a default does not fit its field's type, or `nil` when it does.
    static func defaultProblem(_ value: PFValue, _ type: FieldType, optional: Bool) -> VersioningFailure.DefaultProblem? {
        if value == .null { return optional || type == .any ? nil : .nullNotOptional }
        switch (type, value) {
        case (.any, _): return nil
        case (.bool, .bool), (.string, .string), (.data, .data), (.date, .date), (.double, .double), (.double, .int): return nil
        case (.int32, .int(let i)): return Int32(exactly: i) == nil ? .doesNotFitInt32 : nil
        case (.int64, .int): return nil
        case (.enumeration(let symbols), .string(let s)): return symbols.contains(s) ? nil : .notASymbol(s)
        case (.array(let element), .array(let items)):
            return items.lazy.compactMap { defaultProblem($0, element, optional: false) }.first
        case (.map(let valueType), .dictionary(let members)):
            return members.values.lazy.compactMap { defaultProblem($0, valueType, optional: false) }.first
        case (.reference, .dictionary): return nil
        default: return .wrongKind(found: value.kind.rawValue, expected: "\(type)")
        }
    }
}
