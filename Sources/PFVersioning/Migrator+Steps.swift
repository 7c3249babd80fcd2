import Foundation
import OrderedCollections
import PFCore

// MARK: - Declarative steps

extension MigrationEngine {
    mutating func apply(_ op: MigrationOp, to fields: inout OrderedDictionary<String, PFValue>, context: inout ObjectContext)
        throws(PFError)
    {
        switch op {
        case .renameField(let from, let to):
            guard let value = fields[from] else { return }
            Self.rename(from, to: to, value: value, in: &fields)
            record(&context, "renamed field \(from) → \(to)")
        case .addField(let name, let value):
            guard fields[name] == nil else { return }
            fields[name] = value
            record(&context, "added field \(name) = \(value.compactDescription)")
        case .removeField(let name):
            guard fields.removeValue(forKey: name) != nil else { return }
            record(&context, "removed field \(name)")
        case .renameClass:
            // The class was matched through the type's aliases and renamed on entry.
            return
        case .changeType(let field, let from, let to):
            guard let value = fields[field], value != .null else { return }
            do {
                fields[field] = try Conversion.convert(value, from: from, to: to)
            } catch {
                try problem(failure(context, field: field, error.problem), className: context.type.name)
                return
            }
            record(&context, "changed type of \(field) \(from) → \(to)")
        case .mapValues(let field, let into, let table, let fallback):
            guard let value = fields[field] else { return }
            let key: String
            switch value {
            case .string(let s): key = s
            case .int(let i): key = String(i)
            case .uint(let u): key = String(u)
            case .bool(let b): key = b ? "true" : "false"
            default:
                try problem(failure(context, field: field, .mapValuesKind(found: value.kind.rawValue)), className: context.type.name)
                return
            }
            guard let mapped = table[key] ?? fallback else {
                try problem(
                    failure(context, field: field, .noMapping(value.compactDescription, keys: table.keys.sorted())),
                    className: context.type.name)
                return
            }
            Self.rename(field, to: into ?? field, value: mapped, in: &fields)
            record(&context, "mapped \(field) \(value.compactDescription) → \(into.map { "\($0) " } ?? "")\(mapped.compactDescription)")
        case .transform(let field, let name, let into):
            guard let value = fields[field] else { return }
            guard let transform = options.transforms.fieldTransforms[name] else {
                try problem(failure(context, field: field, .transformNotRegistered(name)), className: context.type.name)
                return
            }
            let transformContext = TransformRegistry.Context(
                typeName: context.type.name, fromVersion: context.stepFrom ?? context.written, field: field,
                path: context.path.appending(key: field).keyPath)
            do {
                let result = try transform(value, transformContext)
                Self.rename(field, to: into ?? field, value: result, in: &fields)
                record(&context, "transformed \(field)\(into.map { " into \($0)" } ?? "") with \(name)")
            } catch let error as PFError {
                try problem(error, className: context.type.name)
            } catch {
                try problem(failure(context, field: field, .transformFailed(name, error: "\(error)")), className: context.type.name)
            }
        case .transformObject(let name):
            guard let transform = options.transforms.objectTransforms[name] else {
                try problem(failure(context, field: nil, .objectTransformNotRegistered(name)), className: context.type.name)
                return
            }
            let transformContext = TransformRegistry.Context(
                typeName: context.type.name, fromVersion: context.stepFrom ?? context.written, field: nil, path: context.path.keyPath)
            do {
                fields = try transform(fields, transformContext)
                record(&context, "transformed the object with \(name)")
            } catch let error as PFError {
                try problem(error, className: context.type.name)
            } catch {
                try problem(failure(context, field: nil, .objectTransformFailed(name, error: "\(error)")), className: context.type.name)
            }
        }
    }
}

/// The value conversions `changeType` performs and resolution's promotions share.
enum Conversion {
    struct Failure: Error {
        var problem: VersioningFailure.MigrationProblem
    }

    static func convert(_ value: PFValue, from: FieldType, to: FieldType) throws(Failure) -> PFValue {
        switch to {
        case .int32:
            guard let i = value.int64Value else {
                if case .uint(let u) = value { throw Failure(problem: .narrowing(value: "\(u)", type: "int32")) }
                throw Failure(problem: .conversionInput(expected: "an integer", to: "int32", found: value.kind.rawValue))
            }
            guard Int32(exactly: i) != nil else { throw Failure(problem: .narrowing(value: "\(i)", type: "int32")) }
            return .int(i)
        case .int64:
            guard let i = value.int64Value else {
                if case .uint(let u) = value { throw Failure(problem: .narrowing(value: "\(u)", type: "int64")) }
                throw Failure(problem: .conversionInput(expected: "an integer", to: "int64", found: value.kind.rawValue))
            }
            return .int(i)
        case .double:
            guard let d = value.doubleValue else { throw Failure(problem: .conversionInput(expected: "a number", to: "double", found: value.kind.rawValue)) }
            return .double(d)
        case .data:
            if case .string(let s) = value { return .data(Data(s.utf8)) }
            if case .data = value { return value }
            throw Failure(problem: .conversionInput(expected: "a string", to: "data", found: value.kind.rawValue))
        case .string:
            if case .data(let d) = value {
                guard let s = String(validating: d, as: UTF8.self) else { throw Failure(problem: .dataNotUTF8) }
                return .string(s)
            }
            if case .string = value { return value }
            throw Failure(problem: .conversionInput(expected: "data", to: "string", found: value.kind.rawValue))
        case .enumeration(let symbols):
            guard let s = value.stringValue, symbols.contains(s) else {
                throw Failure(problem: .notASymbol(value.compactDescription, symbols: symbols))
            }
            return value
        default:
            guard from == to else { throw Failure(problem: .cannotConvert(from: "\(from)", to: "\(to)")) }
            return value
        }
    }
}

extension PFValue {
    /// A short one-line rendering for reports: scalars as JSON-ish text, containers by size.
    var compactDescription: String {
        switch self {
        case .string(let s): return "\"\(s.count > 40 ? String(s.prefix(40)) + "…" : s)\""
        case .array(let items): return "[\(items.count) item\(items.count == 1 ? "" : "s")]"
        case .dictionary(let members): return "{\(members.count) key\(members.count == 1 ? "" : "s")}"
        default: return scalarDescription
        }
    }
}
