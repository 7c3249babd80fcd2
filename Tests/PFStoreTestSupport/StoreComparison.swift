import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFParse
import PFStores

/// Compares two stores the way a round trip must keep them: the objects of every class by
/// objectId (order not compared), the join rows of every relation as sets, and the schema.
///
/// ```swift
/// let diff = try StoreComparison.firstDifference(expected: original, actual: readBack)
/// #expect(diff == nil, "\(diff ?? "")")
/// ```
public enum StoreComparison {
    /// How much of the schema must agree.
    public enum SchemaRule: Sendable {
        /// The same classes with the same fields and types (order not compared).
        case exact
        /// Every class and field of the expected schema is in the actual one with the same type;
        /// the actual schema may have more (a store that infers fields, or adds default columns).
        case covers
        /// Schemas are not compared.
        case ignored
    }

    /// The first difference between two stores, in words, or `nil` when they hold the same.
    /// - Parameters:
    ///   - expected: the store as it should be.
    ///   - actual: the store read back.
    ///   - schema: how much of the schema must agree.
    /// - Returns: a description naming the class, object id and field (or relation, or schema
    ///   field) that differs, with both values; `nil` when equal.
    /// - Throws: what reading either store throws.
    public static func firstDifference(
        expected: any ObjectStoreReader, actual: any ObjectStoreReader, schema rule: SchemaRule = .exact
    ) throws -> String? {
        // Classes with objects.
        let expectedClasses = try classesWithObjects(expected)
        let actualClasses = try classesWithObjects(actual)
        if expectedClasses != actualClasses {
            return "classes with objects differ: expected \(expectedClasses.sorted()), got \(actualClasses.sorted())"
        }
        for className in expectedClasses.sorted() {
            let a = try keyedObjects(expected, className)
            let b = try keyedObjects(actual, className)
            for (key, object) in a {
                guard let other = b[key] else { return "\(className) \(key): missing (expected \(text(object)))" }
                if let diff = difference(object, other) { return "\(className) \(key): \(diff)" }
            }
            for (key, object) in b where a[key] == nil { return "\(className) \(key): unexpected object \(text(object))" }
        }
        // Join rows as sets.
        let expectedRows = try rowsByRelation(expected)
        let actualRows = try rowsByRelation(actual)
        for key in Set(expectedRows.keys).union(actualRows.keys).sorted() {
            let a = expectedRows[key] ?? []
            let b = actualRows[key] ?? []
            if a != b {
                let missing = a.subtracting(b).sorted(by: rowOrder).prefix(3).map(describe)
                let extra = b.subtracting(a).sorted(by: rowOrder).prefix(3).map(describe)
                return "\(key.joinClassName): \(a.count) rows expected, \(b.count) read; missing \(missing), unexpected \(extra)"
            }
        }
        if rule != .ignored, let diff = schemaDifference(try expected.schema(), try actual.schema(), rule: rule) {
            return "schema: \(diff)"
        }
        return nil
    }

    /// The first difference between two objects (same class and id assumed), or `nil`.
    /// - Parameters:
    ///   - a: the expected object.
    ///   - b: the actual object.
    /// - Returns: the differing part with both values.
    public static func difference(_ a: ParseObject, _ b: ParseObject) -> String? {
        if a.className != b.className { return "className \(a.className) ≠ \(b.className)" }
        if a.objectId != b.objectId { return "objectId \(a.objectId ?? "nil") ≠ \(b.objectId ?? "nil")" }
        if a.createdAt != b.createdAt { return "createdAt \(date(a.createdAt)) ≠ \(date(b.createdAt))" }
        if a.updatedAt != b.updatedAt { return "updatedAt \(date(a.updatedAt)) ≠ \(date(b.updatedAt))" }
        if a.acl != b.acl {
            return "ACL \(a.acl.map { text($0.restValue) } ?? "none") ≠ \(b.acl.map { text($0.restValue) } ?? "none")"
        }
        for (key, value) in a.fields {
            guard let other = b.fields[key] else { return "field '\(key)' missing (expected \(describe(value)))" }
            if other != value { return "field '\(key)': expected \(describe(value)), got \(describe(other))" }
        }
        for (key, value) in b.fields where a.fields[key] == nil { return "unexpected field '\(key)' = \(describe(value))" }
        if a != b { return "objects differ outside their fields: \(text(a)) ≠ \(text(b))" }
        return nil
    }

    /// The first difference between two schemas, or `nil`.
    /// - Parameters:
    ///   - a: the expected schema.
    ///   - b: the actual schema.
    ///   - rule: ``SchemaRule/exact`` or ``SchemaRule/covers``.
    /// - Returns: the class and field that differ.
    public static func schemaDifference(_ a: ParseSchema, _ b: ParseSchema, rule: SchemaRule = .exact) -> String? {
        for (className, fields) in a.classes {
            guard let other = b.classes[className] else { return "class \(className) missing" }
            for (name, field) in fields {
                guard let got = other[name] else { return "\(className).\(name) (\(field)) missing" }
                if got != field { return "\(className).\(name): expected \(field), got \(got)" }
            }
            if rule == .exact, let extra = other.keys.first(where: { fields[$0] == nil }) {
                return "\(className).\(extra) unexpected (\(other[extra].map(String.init(describing:)) ?? ""))"
            }
        }
        if rule == .exact, let extra = b.classes.keys.first(where: { a.classes[$0] == nil }) {
            return "class \(extra) unexpected"
        }
        return nil
    }

    // MARK: - Helpers

    static func classesWithObjects(_ store: any ObjectStoreReader) throws -> Set<String> {
        var out = Set<String>()
        for name in try store.classNames() {
            var any = false
            try store.forEachObject(in: name) { _ in any = true }
            if any { out.insert(name) }
        }
        return out
    }

    static func keyedObjects(_ store: any ObjectStoreReader, _ className: String) throws -> OrderedDictionary<String, ParseObject> {
        var out = OrderedDictionary<String, ParseObject>()
        var index = 0
        try store.forEachObject(in: className) { object in
            out[object.objectId ?? "#\(index)"] = object
            index += 1
        }
        return out
    }

    static func rowsByRelation(_ store: any ObjectStoreReader) throws -> [ParseRelationKey: Set<ParseJoinRow>] {
        var out: [ParseRelationKey: Set<ParseJoinRow>] = [:]
        for relation in try store.relations() {
            let key = ParseRelationKey(owningClass: relation.owningClass, field: relation.field)
            var rows = out[key] ?? []
            try store.forEachJoinRow(of: relation) { rows.insert($0) }
            // An empty relation is the same as none.
            out[key] = rows.isEmpty ? nil : rows
        }
        return out
    }

    static func rowOrder(_ a: ParseJoinRow, _ b: ParseJoinRow) -> Bool { (a.owningId, a.relatedId) < (b.owningId, b.relatedId) }

    static func describe(_ row: ParseJoinRow) -> String { "\(row.owningId)→\(row.relatedId)" }

    static func describe(_ value: ParseValue) -> String {
        let kind: String
        switch value {
        case .int: kind = "int "
        case .double: kind = "double "
        default: kind = ""
        }
        return kind + text(value.restValue)
    }

    static func date(_ date: Date?) -> String {
        guard let date else { return "none" }
        return (ParseDate.string(from: date) ?? "?") + " (\(date.timeIntervalSince1970))"
    }

    static func text(_ object: ParseObject) -> String { text(object.restValue) }

    static func text(_ value: PFValue) -> String {
        guard let data = try? JSONWriter().write(value) else { return "\(value)" }
        let s = String(decoding: data, as: UTF8.self)
        return s.count > 400 ? String(s.prefix(400)) + "…" : s
    }
}

/// Copies one store into another through the store protocols (begin, batches, commit), as an
/// import does, for round-trip tests.
public enum StoreTransfer {
    /// Copies every class, object, relation and join row.
    /// - Parameters:
    ///   - source: the store to read.
    ///   - destination: the store to write; aborted when anything throws.
    ///   - batchSize: objects per write call.
    /// - Throws: what either store throws.
    public static func copy(from source: any ObjectStoreReader, to destination: any ObjectStoreWriter, batchSize: Int = 7) throws {
        do {
            try destination.begin(schema: try source.schema())
            for className in try source.classNames() {
                var batch: [ParseObject] = []
                try source.forEachObject(in: className) { object throws(PFError) in
                    batch.append(object)
                    if batch.count >= batchSize {
                        try destination.write(batch, className: className)
                        batch.removeAll()
                    }
                }
                if !batch.isEmpty { try destination.write(batch, className: className) }
            }
            for relation in try source.relations() {
                var rows: [ParseJoinRow] = []
                try source.forEachJoinRow(of: relation) { rows.append($0) }
                if !rows.isEmpty { try destination.write(rows, relation: relation) }
            }
            try destination.commit()
        } catch {
            destination.abort()
            throw error
        }
    }
}
